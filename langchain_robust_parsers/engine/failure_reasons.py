"""Why a model's answer gave no value, said so that a user knows what to do next, and how a
failure message quotes the answer without growing with it.

The readers only know that they found nothing; `why_no_value` looks at the answer once
more and names the reason (each a `NoValueReason`: a code, what happened, what to do):

- ``empty``: the answer is empty or blank;
- ``unclosed_reasoning``: everything is inside a reasoning block that never closes (the model was
  cut off, or its template never closed the block), so what looks like the value is reasoning;
- ``reasoning_only``: the answer holds reasoning and nothing after it;
- ``refusal``: the answer declines the request (the rule of
  `langchain_robust_parsers.engine.lexicon.refusals`);
- ``unreadable``: something of the format is there (a brace, a tag) but no value could be read;
- ``prose``: the answer is prose with nothing of the format in it.

`output_excerpt` is the answer as a failure message shows it: whole when short, else its
head and tail with the number of characters left out. The exception keeps the whole answer in
``llm_output``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from langchain_robust_parsers.engine.lexicon.reasoning import (
    THINK_OPEN,
    block_end,
    reasoning_spans,
    split_reasoning,
)
from langchain_robust_parsers.engine.lexicon.refusals import is_refusal

__all__ = [
    "EXCERPT_HEAD_CHARS",
    "EXCERPT_TAIL_CHARS",
    "MAX_MESSAGE_CHARS",
    "NoValueReason",
    "bounded_message",
    "output_excerpt",
    "refusal_reason",
    "why_no_value",
]

EXCERPT_HEAD_CHARS = 300
"""Characters of a long answer quoted from its start: where the model says what it is doing."""

EXCERPT_TAIL_CHARS = 200
"""Characters quoted from its end: where a cut-off or a closing remark shows."""

MAX_MESSAGE_CHARS = 4000
"""Longest failure message: an answer is quoted as an excerpt, and whatever else a message
quotes (a validation error over a large value) is cut to this too."""


@dataclass(frozen=True)
class NoValueReason:
    """Why an answer gave no value: ``code`` (stable, for programs), ``what`` happened and
    ``advice`` on what to do, both one sentence without the final full stop."""

    code: str
    what: str
    advice: str

    def sentence(self) -> str:
        """``what`` and ``advice`` as the reason a message gives."""
        return f"{self.what}. {self.advice}."


def _unclosed_block(text: str, spans: list[tuple[int, int]]) -> bool:
    """True when the last reasoning span runs to the end of ``text`` without a closing marker."""
    if not spans or spans[-1][1] != len(text):
        return False
    opener = THINK_OPEN.match(text, spans[-1][0])
    return opener is not None and block_end(text, opener) < 0


def refusal_reason(format_name: str) -> NoValueReason:
    """The reason given for an answer that declines the request (see `is_refusal`)."""
    return NoValueReason(
        "refusal",
        f"The model refused the request instead of answering with {format_name}",
        "Rephrase the request or handle the refusal; the whole answer is in llm_output",
    )


def why_no_value(
    text: str, format_name: str, looks_like_format: Callable[[str], bool] | None = None
) -> NoValueReason:
    """Why ``text`` gave no value of ``format_name`` (``"JSON"``, ``"a list"``...);
    ``looks_like_format(answer)`` tells whether the answer holds something of the format (a
    brace, a tag) that could not be read (without it, such an answer counts as prose)."""
    if not text.strip():
        return NoValueReason(
            "empty",
            "The answer is empty",
            "Check the model call (its output token limit, a stop sequence, a content filter) "
            "and the prompt, then retry",
        )
    spans = reasoning_spans(text)
    answer = split_reasoning(text)[0] if spans else text
    if spans and not answer.strip():
        if _unclosed_block(text, spans):
            return NoValueReason(
                "unclosed_reasoning",
                "The answer is all inside a reasoning block that never closes: what it holds "
                "is reasoning, not the answer",
                "Raise the model's output token limit so that it can finish thinking, or check "
                "that the chat template closes the reasoning block",
            )
        return NoValueReason(
            "reasoning_only",
            "The answer holds only reasoning, with nothing after it",
            f"Ask for {format_name} after the reasoning (put the format instructions in the "
            "prompt) or raise the output token limit",
        )
    if is_refusal(answer.strip()):
        return refusal_reason(format_name)
    if looks_like_format is not None and looks_like_format(answer):
        return NoValueReason(
            "unreadable",
            f"No {format_name} value could be read from the answer, though parts of it look "
            f"like {format_name}",
            "Check the answer quoted above; a retry with the format instructions usually fixes it",
        )
    return NoValueReason(
        "prose",
        f"The answer is prose with no {format_name} in it",
        f"Ask for {format_name} (add the parser's get_format_instructions() to the prompt), "
        "retry with RetryWithClarification, or use on_error='fallback' to keep the text",
    )


def output_excerpt(text: str) -> str:
    """``text`` as a failure message quotes it: whole when short, else its first
    `EXCERPT_HEAD_CHARS` and last `EXCERPT_TAIL_CHARS` characters around a note of
    how many were left out."""
    if len(text) <= EXCERPT_HEAD_CHARS + EXCERPT_TAIL_CHARS:
        return text
    left_out = len(text) - EXCERPT_HEAD_CHARS - EXCERPT_TAIL_CHARS
    return (
        f"{text[:EXCERPT_HEAD_CHARS]} [... {left_out} characters left out ...] "
        f"{text[-EXCERPT_TAIL_CHARS:]}"
    )


def bounded_message(message: str, text: str) -> str:
    """``message`` with every quote of the answer ``text`` as its excerpt, then cut to
    `MAX_MESSAGE_CHARS` (keeping its start and end) if still longer."""
    if len(text) > EXCERPT_HEAD_CHARS + EXCERPT_TAIL_CHARS and text in message:
        message = message.replace(text, output_excerpt(text))
    if len(message) <= MAX_MESSAGE_CHARS:
        return message
    half = MAX_MESSAGE_CHARS // 2
    left_out = len(message) - 2 * half
    return f"{message[:half]} [... {left_out} characters left out ...] {message[-half:]}"


_SAID_BESIDE_THE_READER = frozenset({"empty", "refusal", "unclosed_reasoning", "reasoning_only"})
"""Reasons added to a reader's own failure message: there the reader's words (``no XML element
found``) would mislead, while for prose its words already say what is missing."""


FORMAT_WORDS = {
    "xml": "XML",
    "yaml": "YAML",
    "list": "a list",
    "enum": "one of the allowed values",
    "bool": "yes or no",
    "datetime": "a date",
    "structured": "JSON",
    "functions": "function-call arguments",
}
"""How a failure message names what each format's parser looked for (by its stats name)."""


def with_no_value_reason(message: str, text: str, format_name: str) -> str:
    """``message`` followed, on a new line, by why ``text`` holds no value of ``format_name``
    when the reason is one the reader cannot see (an empty answer, a refusal, reasoning only)."""
    reason = why_no_value(text, format_name)
    if reason.code not in _SAID_BESIDE_THE_READER or reason.sentence() in message:
        return message
    return f"{message}\n{reason.sentence()}"


_HOW_CUT_WAS_SEEN = {"text": "the text is unfinished", "stop_reason": "the provider says so"}
"""How a cut-off answer was seen, by the report's ``truncation`` (else both ways)."""


def truncation_message(parser: str, truncated: str, stop_reason: str | None) -> str:
    """The message of ``parser``'s error for an answer cut off at its output token limit, seen
    as ``truncated`` says (``"text"``, ``"stop_reason"`` or ``"both"``), with what to do."""
    said = f" (stop reason {stop_reason!r})" if stop_reason else ""
    seen = _HOW_CUT_WAS_SEEN.get(truncated, "the text is unfinished and the provider says so")
    return (
        f"{parser}: the model's answer was cut off at its output token limit{said}: {seen}. "
        "The value would be incomplete. Raise the model's max_tokens, ask for a shorter "
        "answer, or let RetryWithClarification(on_truncation='continue') continue it."
    )
