"""Inkling's typed message blocks around its tool calls.

An Inkling turn is a run of blocks, each ``<|message_model|>`` + a content-type token + its
body + ``<|end_message|>``::

    <|message_model|><|content_thinking|>check the forecast<|end_message|>
    <|message_model|><|content_text|>Let me look that up.<|end_message|>
    <|message_model|>get_weather<|content_invoke_tool_json|>{"name": "get_weather",
    "args": {"city": "Oslo"}}<|end_message|>

A call block's body is one JSON object (``name`` and ``args``), read by the JSON call reader;
the content of the answer is its text blocks, never its thinking or the block tokens.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_robust_parsers.engine.calls.remaining_content import content_before_calls

__all__ = ["INKLING_END", "INKLING_INVOKE", "INKLING_MESSAGE", "inkling_content"]

INKLING_MESSAGE = "<|message_model|>"
"""Opens every block the model writes (a call block names its tool right after it)."""
INKLING_INVOKE = "<|content_invoke_tool_json|>"
"""Opens a call block's JSON body."""
INKLING_END = "<|end_message|>"
"""Closes every block."""
INKLING_TEXT = "<|content_text|>"
"""Opens a block of text for the user."""
INKLING_END_SAMPLING = "<|content_model_end_sampling|>"
"""Ends the turn; it may also close the last block."""


def _text_blocks(text: str) -> list[str]:
    """The bodies of the ``<|content_text|>`` blocks of ``text``, in order."""
    bodies: list[str] = []
    pos = text.find(INKLING_TEXT)
    while pos >= 0:
        start = pos + len(INKLING_TEXT)
        ends = [e for e in (text.find(t, start) for t in (INKLING_END, INKLING_END_SAMPLING))]
        ends = [e for e in ends if e >= 0]
        stop = min(ends) if ends else len(text)
        bodies.append(text[start:stop])
        pos = text.find(INKLING_TEXT, stop)
    return bodies


def inkling_content(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """The content of an Inkling answer with calls: its text blocks joined by a blank line
    (never its thinking blocks); in an answer with no other block, the text before the first
    call without the ``<|message_model|>NAME`` that heads the call block."""
    head = content_before_calls(text, spans)
    if INKLING_TEXT in text or INKLING_END in head:  # block form: its text blocks only
        return "\n\n".join(body.strip() for body in _text_blocks(text) if body.strip())
    cut = head.rfind(INKLING_MESSAGE)
    if cut >= 0:
        head = head[:cut]
    return head if head.strip() else ""
