"""Whether the model was cut off at its output-token limit, and the error for a cut answer.

The providers' words for it, and where they sit, are one table in
`langchain_robust_parsers.engine.lexicon.stop_reasons`; `stop_reason_cut` reads it
from a message (``response_metadata``) or a generation (its message's metadata, then its
``generation_info``). Every parser that can see a cut answer has one option, ``on_truncation``:
``"complete"`` (complete it, as LangChain does, and say so in the report) or ``"raise"``
(`TruncatedOutputError`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from langchain_core.exceptions import OutputParserException
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGeneration, Generation

from langchain_robust_parsers.engine.failure_reasons import truncation_message
from langchain_robust_parsers.engine.lexicon.stop_reasons import cut_stop_reason
from langchain_robust_parsers.engine.report import (
    ParseReport,
    Truncation,
    merge_truncation,
    with_stop_reason,
)
from langchain_robust_parsers.parsers.report_events import FinalParse, ParseEvent

__all__ = [
    "CompletionOptions",
    "OnTruncation",
    "TruncatedOutputError",
    "raise_if_truncated",
    "refuse_cut",
    "stop_reason_cut",
    "truncation_error",
    "truncation_failure",
    "truncation_mode",
    "with_stop_reason",
]

OnTruncation = Literal["complete", "raise"]
"""What a parser does with a cut-off answer: complete it (the report says ``truncated``), or
raise `TruncatedOutputError`."""


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
        reason = cut_stop_reason(metadata)
        if reason is not None:
            return reason
    return None


class TruncatedOutputError(OutputParserException):
    """The model's answer was cut off at its output token limit, and the parser was asked not
    to complete it (``on_truncation="raise"``).

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


def truncation_mode(on_truncation: str) -> OnTruncation:
    """The mode ``on_truncation`` asks for (anything but ``"raise"`` completes)."""
    return "raise" if on_truncation == "raise" else "complete"


def truncation_error(
    parser: str, text: str, truncated: Truncation, stop_reason: str | None
) -> TruncatedOutputError:
    """The `TruncatedOutputError` of ``parser`` (its name) for ``text``."""
    message = truncation_message(parser, truncated, stop_reason)
    return TruncatedOutputError(
        message, llm_output=text, truncated=truncated, stop_reason=stop_reason
    )


def _cut_error(
    parser: str, text: str, text_cut: bool, stop_reason: str | None
) -> TruncatedOutputError | None:
    """The error for a cut answer (``text_cut``, or a cut ``stop_reason``); ``None`` if uncut."""
    truncated = merge_truncation(text_cut, stop_reason is not None)
    return None if truncated is None else truncation_error(parser, text, truncated, stop_reason)


def truncation_failure(
    parser: str,
    format: str,
    text: str,
    truncated: Truncation,
    stop_reason: str | None,
    cause: Exception | None = None,
) -> FinalParse[Any]:
    """The failed final parse of a cut-off answer: `truncation_error` (caused by
    ``cause``, the engine error when no value was read) and its ``failed`` event."""
    return _failure(parser, format, truncation_error(parser, text, truncated, stop_reason), cause)


def _failure(
    parser: str, format: str, error: TruncatedOutputError, cause: Exception | None = None
) -> FinalParse[Any]:
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
    """Raise `TruncatedOutputError` when ``mode`` is ``"raise"`` and the answer was cut
    (``text_cut``: the parser saw an unfinished text; or ``source``'s stop reason says so).
    The one call a parser makes where its final result is produced."""
    if mode == "raise" and (error := _cut_error(parser, text, text_cut, stop_reason_cut(source))):
        raise error


def refuse_cut(
    final: FinalParse[Any],
    parser: str,
    format: str,
    text: str,
    mode: str,
    stop_reason: str | None,
) -> FinalParse[Any]:
    """``final``, or the ``truncation_failure`` of ``text`` when ``mode`` is ``"raise"``
    and the answer was cut (its report says ``truncated``, or ``stop_reason`` is given)."""
    if mode != "raise" or final.error is not None:
        return final
    report = final.report
    text_cut = isinstance(report, ParseReport) and report.truncation in ("text", "both")
    error = _cut_error(parser, text, text_cut, stop_reason)
    return final if error is None else _failure(parser, format, error)


class CompletionOptions:
    """Mixin for parsers with the ``on_truncation`` field (each class declares and documents
    it): whether a cut-off answer is completed."""

    if TYPE_CHECKING:  # the pydantic field of the classes using the mixin
        on_truncation: OnTruncation

    def _completes(self) -> bool:
        """True when cut-off answers are completed (``on_truncation`` does not ask to raise)."""
        return truncation_mode(self.on_truncation) == "complete"
