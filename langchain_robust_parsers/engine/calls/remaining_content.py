"""What is left of an answer once its calls are taken out: the remaining-content rules.

Each dialect record (`dialect_registry`) names one
of these rules as its ``remaining``; `answer_content` applies the rule of the dialect an answer was
read in. A rule takes the answer
and the call regions found in it (``(start, stop)`` offsets) and returns the content.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = [
    "FUNCTIONARY_TEXT_RECIPIENT",
    "RemainingRule",
    "content_after_text_recipient",
    "content_before_calls",
    "remaining_text",
]

RemainingRule = Callable[[str, Sequence[tuple[int, int]]], str]
"""``(answer, call regions) -> content``."""

FUNCTIONARY_TEXT_RECIPIENT = "all\n"
"""Functionary v3.2's recipient line for text to the user, opening an answer (its ``>>>`` was
in the prompt): not content, when the answer holds Functionary calls."""


def remaining_text(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """``text`` without the call regions ``spans``.

    The text before the first region is kept as written, only its end trimmed (a stream has
    shown it already); each later piece is stripped, and pieces are joined by a blank line
    where a line break went with the removed text, else by a space (a call inside a sentence).
    """
    segments: list[tuple[bool, str]] = []  # (kept, text)
    pos = 0
    for a, b in sorted(spans):
        if a > pos:
            segments.append((True, text[pos:a]))
        if b > max(a, pos):
            segments.append((False, text[max(a, pos) : b]))
        pos = max(pos, b)
    if not segments:
        return text
    segments.append((True, text[pos:]))
    out = ""
    newline = False  # a line break since the last kept text
    for index, (kept, segment) in enumerate(segments):
        body = segment.strip()
        if not kept or not body:
            newline = newline or "\n" in segment
            continue
        if index == 0:  # before the first call: as written
            out = segment.rstrip()
        elif out:
            lead = segment[: len(segment) - len(segment.lstrip())]
            out += ("\n\n" if newline or "\n" in lead else " ") + body
        else:
            out = body
        newline = "\n" in segment[len(segment.rstrip()) :]
    return out


def content_before_calls(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """The serving stacks' content of an answer with calls: the text before the first call
    region exactly as written (its whitespace kept), or ``""`` when that is only whitespace;
    text between and after the calls goes with them."""
    if not spans:
        return text
    head = text[: min(a for a, _b in spans)]
    return head if head.strip() else ""


def content_after_text_recipient(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """As `content_before_calls`, without Functionary's ``all`` recipient line that
    opens text meant for the user."""
    content = content_before_calls(text, spans)
    if content.startswith(FUNCTIONARY_TEXT_RECIPIENT):
        return content[len(FUNCTIONARY_TEXT_RECIPIENT) :]
    return content
