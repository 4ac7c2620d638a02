"""Why a text holds no JSON value, worded for a failure message."""

from __future__ import annotations

from langchain_robust_parsers.engine.failure_reasons import output_excerpt, why_no_value
from langchain_robust_parsers.engine.json.nesting_bound import TOO_DEEP_REASON, nests_too_deep

__all__ = ["no_value_message", "no_value_reason"]


def _has_json_opener(answer: str) -> bool:
    """True when ``answer`` holds a brace or bracket: something JSON-like that did not read."""
    return "{" in answer or "[" in answer


def no_value_reason(text: str) -> str:
    """Why ``text`` holds no JSON value, with what to do (one or two sentences; see
    `langchain_robust_parsers.engine.failure_reasons.why_no_value`)."""
    if nests_too_deep(text):
        return TOO_DEEP_REASON.sentence()
    return why_no_value(text, "JSON", _has_json_opener).sentence()


def no_value_message(prefix: str, text: str) -> str:
    """``prefix`` (LangChain's words, such as ``"Invalid json output: "``), the answer's
    excerpt, then on a new line why it holds no JSON value and what to do."""
    return f"{prefix}{output_excerpt(text)}\n{no_value_reason(text)}"
