"""Whether the model was cut off at its output-token limit, and the error for a cut answer.

Providers say so in different words and places. LangChain's partner packages copy the provider's
field into ``AIMessage.response_metadata`` (chat models) or ``Generation.generation_info``
(completion models):

- OpenAI, Azure, Groq, Mistral, Together, Fireworks, DeepSeek, xAI, vLLM, llama.cpp, TGI:
  ``finish_reason == "length"`` (Mistral also ``"model_length"``);
- OpenAI's Responses API: ``status == "incomplete"`` with
  ``incomplete_details == {"reason": "max_output_tokens"}``;
- Anthropic (and Claude on Bedrock or Vertex): ``stop_reason == "max_tokens"``;
- Ollama: ``done_reason == "length"``;
- Gemini / Vertex AI: ``finish_reason == "MAX_TOKENS"`` (sometimes the ``FinishReason`` enum);
- Bedrock Converse: ``stopReason == "max_tokens"``; Cohere: ``finish_reason == "MAX_TOKENS"``;
  watsonx: ``stop_reason == "max_tokens"``.

:func:`stop_reason_cut` reads all of them, case-insensitively. Every parser that can see a cut
answer has one option, ``on_truncation``: ``"complete"`` (complete it, as LangChain does, and say
so in the report) or ``"raise"`` (:class:`TruncatedOutputError`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from langchain_core.exceptions import OutputParserException
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGeneration, Generation

from langchain_robust_parsers.engine.report import ParseReport, Truncation, merge_truncation
from langchain_robust_parsers.parsers.report_events import FinalParse, ParseEvent

__all__ = [
    "CUT_STOP_REASONS",
    "STOP_REASON_KEYS",
    "CompletionOptions",
    "OnTruncation",
    "TruncatedOutputError",
    "raise_if_truncated",
    "stop_reason_cut",
    "stop_reason_of",
    "truncation_error",
    "truncation_failure",
    "truncation_mode",
    "with_stop_reason",
]

OnTruncation = Literal["complete", "raise"]
"""What a parser does with a cut-off answer: complete it (the report says ``truncated``), or
raise :class:`TruncatedOutputError`."""

STOP_REASON_KEYS = ("finish_reason", "stop_reason", "done_reason", "stopReason", "finishReason")
"""Where the providers' stop reason sits in ``response_metadata`` / ``generation_info``."""

CUT_STOP_REASONS = frozenset(
    {"length", "max_tokens", "max_output_tokens", "model_length", "max_length", "token_limit"}
)
"""Stop reasons (case-folded, ``FinishReason.`` prefix and dashes removed) meaning the output
token limit was reached."""

_ENUM_PREFIX = "finishreason."
"""``str()`` of Gemini's ``FinishReason.MAX_TOKENS`` enum on some SDK versions."""


def _normal(value: object) -> str | None:
    """A stop reason as text, folded for comparison; ``None`` for anything that is not one."""
    name = getattr(value, "name", None)  # an enum member (Gemini's FinishReason)
    text = name if isinstance(name, str) else value
    if not isinstance(text, str):
        return None
    folded = text.strip().casefold().replace("-", "_")
    return folded.removeprefix(_ENUM_PREFIX)


def _reasons(metadata: Mapping[str, Any] | None) -> list[str]:
    """Every stop reason in a metadata mapping, as written, in :data:`STOP_REASON_KEYS` order
    (then the Responses API's incomplete reason)."""
    if not isinstance(metadata, Mapping):
        return []
    found: list[str] = []
    for key in STOP_REASON_KEYS:
        value = metadata.get(key)
        if value is not None and _normal(value) is not None:
            name = getattr(value, "name", None)
            found.append(name if isinstance(name, str) else str(value))
    details = metadata.get("incomplete_details")
    if isinstance(details, Mapping) and isinstance(details.get("reason"), str):
        found.append(str(details["reason"]))
    return found


def stop_reason_of(metadata: Mapping[str, Any] | None) -> str | None:
    """The stop reason in a ``response_metadata`` or ``generation_info`` mapping, as written
    (the first of :data:`STOP_REASON_KEYS` present, else the Responses API's incomplete reason)."""
    reasons = _reasons(metadata)
    return reasons[0] if reasons else None


def _metadata(source: BaseMessage | Generation | Mapping[str, Any] | None) -> list[Any]:
    if isinstance(source, Mapping):
        return [source]
    if isinstance(source, BaseMessage):
        return [getattr(source, "response_metadata", None)]
    if isinstance(source, ChatGeneration):
        return [getattr(source.message, "response_metadata", None), source.generation_info]
    if isinstance(source, Generation):
        return [source.generation_info]
    return []


def stop_reason_cut(source: BaseMessage | Generation | Mapping[str, Any] | None) -> str | None:
    """The stop reason of ``source`` when it says the output token limit was reached, else
    ``None``. ``source`` is a message, a generation (its message's ``response_metadata``, then
    its ``generation_info``) or one such mapping."""
    for metadata in _metadata(source):
        for reason in _reasons(metadata):
            if _normal(reason) in CUT_STOP_REASONS:
                return reason
    return None


class TruncatedOutputError(OutputParserException):
    """The model's answer was cut off at its output token limit, and the parser was asked not
    to complete it (``on_truncation="raise"``, or ``allow_truncated=False``).

    ``truncated`` says how the cut was seen (``"text"``, ``"stop_reason"`` or ``"both"``);
    ``stop_reason`` is the provider's word for it, when it gave one; ``llm_output`` is the text.
    """

    def __init__(
        self, message: str, *, llm_output: str, truncated: Truncation, stop_reason: str | None
    ) -> None:
        super().__init__(message, llm_output=llm_output)
        self.truncated: Truncation = truncated
        self.stop_reason = stop_reason

    def __reduce__(self) -> Any:
        return (_rebuild, (str(self.args[0]), self.llm_output, self.truncated, self.stop_reason))


def _rebuild(
    message: str, llm_output: str, truncated: Truncation, stop_reason: str | None
) -> TruncatedOutputError:
    return TruncatedOutputError(
        message, llm_output=llm_output, truncated=truncated, stop_reason=stop_reason
    )


def truncation_mode(on_truncation: str, allow_truncated: bool = True) -> OnTruncation:
    """The effective mode: ``"raise"`` when either option asks for it (``allow_truncated=False``
    is the older spelling of ``on_truncation="raise"``)."""
    return "raise" if on_truncation == "raise" or not allow_truncated else "complete"


def truncation_error(
    parser: str, text: str, truncated: Truncation, stop_reason: str | None
) -> TruncatedOutputError:
    """The :class:`TruncatedOutputError` of ``parser`` (its name) for ``text``."""
    said = f" (stop reason {stop_reason!r})" if stop_reason else ""
    seen = {"text": "the text is unfinished", "stop_reason": "the provider says so"}.get(
        truncated, "the text is unfinished and the provider says so"
    )
    message = (
        f"{parser}: the model's answer was cut off at its output token limit{said}: {seen}. "
        "The value would be incomplete. Raise the model's max_tokens, ask for a shorter "
        "answer, or let RetryWithClarification(on_truncation='continue') continue it."
    )
    return TruncatedOutputError(
        message, llm_output=text, truncated=truncated, stop_reason=stop_reason
    )


def truncation_failure(
    parser: str,
    format: str,
    text: str,
    truncated: Truncation,
    stop_reason: str | None,
    cause: Exception | None = None,
) -> FinalParse[Any]:
    """The failed final parse of a cut-off answer: :func:`truncation_error` (caused by
    ``cause``, the engine error when no value was read) and its ``failed`` event."""
    error = truncation_error(parser, text, truncated, stop_reason)
    error.__cause__ = cause
    return FinalParse(None, None, ParseEvent(parser, format, "failed", None, str(error)), error)


def raise_if_truncated(
    parser: str,
    mode: str,
    source: BaseMessage | Generation | Mapping[str, Any] | None,
    text: str,
    *,
    text_cut: bool,
) -> None:
    """Raise :class:`TruncatedOutputError` when ``mode`` is ``"raise"`` and the answer was cut
    (``text_cut``: the parser saw an unfinished text; or ``source``'s stop reason says so).
    The one call a parser makes where its final result is produced."""
    if mode != "raise":
        return
    reason = stop_reason_cut(source)
    truncated = merge_truncation(text_cut, reason is not None)
    if truncated is not None:
        raise truncation_error(parser, text, truncated, reason)


def with_stop_reason(report: ParseReport, stop_reason: str | None) -> ParseReport:
    """``report`` with the provider's cut (``stop_reason`` not ``None``) added to ``truncated``."""
    if stop_reason is None:
        return report
    return dataclasses.replace(
        report, truncated=merge_truncation(bool(report.truncated), stop_reason_cut=True)
    )


class CompletionOptions:
    """Mixin for parsers with the ``on_truncation`` and ``allow_truncated`` fields (each class
    declares and documents them): whether a cut-off answer is completed."""

    if TYPE_CHECKING:  # pydantic fields of the classes using the mixin
        on_truncation: OnTruncation
        allow_truncated: bool

    def _completes(self) -> bool:
        """True when cut-off answers are completed (neither option asks to raise)."""
        return truncation_mode(self.on_truncation, self.allow_truncated) == "complete"
