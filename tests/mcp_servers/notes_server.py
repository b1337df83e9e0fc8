"""A small MCP server of the tests' own, on the official Python SDK (the ``mcp`` package, dev extra only).

Run over stdio: ``python tests/mcp_servers/notes_server.py``;
over Streamable HTTP: ``python tests/mcp_servers/notes_server.py --http PORT``.
Its tools are invented examples: a notebook of notes, and a few tools that misbehave on purpose.
"""

from __future__ import annotations

import os
import sys
import time

from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

server = MCPServer("notes")
NOTES: dict[str, str] = {"welcome": "Notes kept by the test server."}


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def read_note(title: str) -> str:
    """Read the note with this title."""
    if title not in NOTES:
        raise ToolError(f"no note titled {title!r}; the titles are: {', '.join(sorted(NOTES))}")
    return NOTES[title]


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def add(a: int, b: int) -> str:
    """Add two whole numbers."""
    return str(a + b)


@server.tool()
def write_note(title: str, text: str) -> str:
    """Write a note (replaces one with the same title)."""
    NOTES[title] = text
    return f"saved {title!r}"


@server.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True))
def delete_note(title: str) -> str:
    """Delete a note."""
    NOTES.pop(title, None)
    return f"deleted {title!r}"


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def snapshot() -> Image:
    """A small picture."""
    return Image(data=b"\x89PNG\r\n\x1a\n" + b"\0" * 92, format="png")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def shout(text: str) -> str:
    """Write the text to the server's stderr, and answer with it upper-cased."""
    print(f"stderr says: {text}", file=sys.stderr, flush=True)
    return text.upper()


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def nap(seconds: float) -> str:
    """Sleep, then answer."""
    time.sleep(seconds)
    return "awake"


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def huge(megabytes: int) -> str:
    """An answer of this many megabytes."""
    return "x" * (megabytes * 1024 * 1024)


@server.tool()
def crash() -> str:
    """The server process exits in the middle of the call."""
    sys.stderr.flush()
    os._exit(3)


@server.tool()
async def unlock(ctx: Context) -> str:
    """Add the tool ``secret``, remove ``delete_note``, and tell the client that the tool list changed."""

    def secret() -> str:
        """The secret."""
        return "the secret is 42"

    server.add_tool(secret, annotations=ToolAnnotations(readOnlyHint=True))
    server.remove_tool("delete_note")
    await ctx.session.send_tool_list_changed()
    return "unlocked"


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
