"""The text of a message's content, read the same way by every parser.

``message.text`` is a method in langchain-core 0.3 and a property in 1.x, so parsers read
``message.content`` directly: a string, or a list of content blocks whose text blocks are joined.
"""

from __future__ import annotations

from typing import Any


def content_text(content: str | list[str | dict[Any, Any]], *, refusals: bool = False) -> str:
    """The text of ``content``; with ``refusals``, refusal blocks' text is included too (for a
    parser that must turn a refusal into a value rather than raise)."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict):
            kind = block.get("type")
            if kind == "text" or (refusals and kind == "refusal"):
                value = block.get("text" if kind == "text" else "refusal")
                if isinstance(value, str):
                    parts.append(value)
    return "".join(parts)


def with_text(content: str | list[str | dict[Any, Any]], text: str) -> Any:
    """``content`` with its text replaced by ``text``: a string content becomes ``text``; a
    list keeps its other blocks (images, tool uses) and ends with one text block (none for an
    empty ``text``)."""
    if isinstance(content, str):
        return text
    others: list[str | dict[Any, Any]] = [
        b for b in content if isinstance(b, dict) and b.get("type") != "text"
    ]
    if text:
        others.append({"type": "text", "text": text})
    return others
