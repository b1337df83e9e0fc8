"""Made-up token counts for scripted replies, shared by ``ScriptedLLM`` and ``MockOpenAIServer``."""

from __future__ import annotations


def estimated_usage(messages, completion: str | None) -> dict:
    """Made-up token counts for a scripted reply without ``usage``: ~4 characters a token.

    ``MockOpenAIServer`` uses it too, so a script counts alike in-process and over HTTP.
    """
    prompt = prompt_chars(messages) // 4 + 1
    answer = len(completion or "") // 4 + 1
    return {"prompt_tokens": prompt, "completion_tokens": answer, "total_tokens": prompt + answer}


def prompt_chars(messages) -> int:
    """The characters of the messages' text: string contents and the text of content parts."""
    total = 0
    for message in messages or ():
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            total += len(content)
        elif isinstance(content, list):
            total += sum(len(p.get("text") or "") for p in content if isinstance(p, dict))
    return total
