"""An agent with the tools of an MCP server: the reference filesystem server, started with npx.

Run:  python examples/mcp_filesystem.py [--folder DIR] [TASK]

The server may read (and write) only inside DIR (default: the current folder).  It needs Node.js;
npx fetches @modelcontextprotocol/server-filesystem on first use.  The same from the command line:
vero run --mcp "npx -y @modelcontextprotocol/server-filesystem DIR" "TASK"
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys

from vero import ChatOpenAI, LLMConfigError, Status
from vero.agents import ToolCallingAgent
from vero.tools.mcp import MCPError, MCPServer

NO_MODEL = (
    "No model endpoint is configured: set OPENAI_API_KEY, or OPENAI_BASE_URL and MODEL_NAME\n"
    "for a local server, in the environment or .env.  (`vero demo` runs without a model.)"
)
TASK = "Which text files are in the folder, and what is the first line of the longest one?"


def filesystem_server(folder: str) -> MCPServer:
    """The reference filesystem server, allowed into ``folder`` only."""
    return MCPServer.stdio("npx", ["-y", "@modelcontextprotocol/server-filesystem", folder], name="files")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="An agent that answers with a filesystem MCP server's tools.")
    parser.add_argument("task", nargs="?", default=TASK, help="the question (default: a look at the folder)")
    parser.add_argument("--folder", default=".", help="the folder the server may use (default: .)")
    args = parser.parse_args(argv)
    try:
        llm = ChatOpenAI()
    except LLMConfigError:
        print(NO_MODEL, file=sys.stderr)
        return 2
    if shutil.which("npx") is None:
        print("This example needs Node.js (npx) to run the filesystem server: https://nodejs.org", file=sys.stderr)
        return 2
    try:
        with filesystem_server(os.path.abspath(args.folder)) as server:
            print(f"{server.name}: {', '.join(t.name for t in server.tools())}")
            agent = ToolCallingAgent("files", llm, tools=server.tools(), max_turns=8)
            agent.run(args.task)  # prints the steps and the answer
    except MCPError as exc:  # it did not start; a failed tool call is only an observation for the model
        print(f"vero: {exc}", file=sys.stderr)
        return 2
    return 0 if agent.last_result.status == Status.OK else 1


if __name__ == "__main__":
    sys.exit(main())
