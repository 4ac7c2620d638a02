"""What the parsers of non-JSON formats share: one final parse turned into LangChain's contract.

Each of those parsers (XML, YAML, lists, choices, dates, structured, functions) hands
`final_parse` a function that reads the text and returns ``(value, ParseReport)`` or
raises an engine error; the result is a `FinalParse` whose event is counted and
dispatched like the JSON parser's, and whose error is ``OutputParserException(msg,
llm_output=text)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from langchain_core.exceptions import OutputParserException
from langchain_core.messages import BaseMessage

from langchain_robust_parsers.engine.content_blocks import content_text
from langchain_robust_parsers.engine.errors import EngineBugError, EngineError
from langchain_robust_parsers.engine.failure_reasons import FORMAT_WORDS, with_no_value_reason
from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.engine.stats import ParseStats
from langchain_robust_parsers.parsers.boundary import engine_call, output_parser_error
from langchain_robust_parsers.parsers.report_events import (
    FinalParse,
    ParseEvent,
    fallback_on_error,
    publish,
)
from langchain_robust_parsers.parsers.vocabulary import OnError, ReportingParser

__all__ = [
    "FORMAT_WORDS",
    "TextValueParser",
    "answer_text",
    "final_parse",
    "published_with_report",
]

T = TypeVar("T")


def answer_text(text: str | BaseMessage) -> str:
    """The text a parser reads: ``text``, or the text of a message's content."""
    return content_text(text.content) if isinstance(text, BaseMessage) else text


def final_parse(
    parser: str,
    format: str,
    text: str,
    work: Callable[[str], tuple[T, ParseReport]],
    message: Callable[[str, Exception], str],
    on_error: OnError = "raise",
    degraded: T | None = None,
) -> FinalParse[T]:
    """Run ``work`` on ``text`` without side effects; the caller publishes the event.

    With ``on_error="fallback"`` a failure gives ``degraded`` (the parser's documented degraded
    value) with an empty report, counted as ``fallback``, instead of the error.

    ``message(text, error)`` words the ``OutputParserException`` as the LangChain parser would.
    ``work`` raises an ``EngineError`` when the text holds no value, or ``OutputParserException``
    when a step of the parser layer (a schema check) decides; anything else is a bug, which the
    boundary logs once (or re-raises in strict mode).
    """
    try:
        with engine_call(parser, f"reading {format}"):
            value, report = work(text)
    except (EngineError, OutputParserException) as exc:  # a bug: logged once by the boundary
        failed = _failed(parser, format, text, exc, message(text, exc))
        return fallback_on_error(failed, on_error, degraded, ParseReport())
    return FinalParse(value, report, ParseEvent(parser, format, report.outcome, report))


def published_with_report(final: FinalParse[T], stats: ParseStats | None) -> tuple[T, ParseReport]:
    """``final`` published (counted in ``stats``, dispatched), then its value and report; raises
    its error instead when it failed (a successful final parse always carries a report)."""
    publish(final.event, stats)
    value = final.unwrap()
    assert final.report is not None
    return value, final.report


def _failed(parser: str, format: str, text: str, exc: Exception, msg: str) -> FinalParse[Any]:
    if isinstance(exc, EngineError) and not isinstance(exc, EngineBugError):
        msg = with_no_value_reason(msg, text, FORMAT_WORDS.get(format, format))
    error = output_parser_error(msg, text, exc)
    event = ParseEvent(parser, format, "failed", None, str(exc))
    return FinalParse(None, None, event, error)


class TextValueParser(ReportingParser):
    """Mixin for the parsers of one value read from text (lists, choices, dates, YAML): their
    final parse, report and count, one way. Each class says how it reads (``_read``), how a
    failure is worded as its LangChain twin words it (``_message``), and its format name."""

    value_format: ClassVar[str]
    """The format its outcomes are counted under (a name of ``engine.stats``)."""

    if TYPE_CHECKING:  # the fields of each parser, and the Runnable it also derives from
        stats: ParseStats | None
        on_error: OnError

        def get_name(self, suffix: str | None = None, *, name: str | None = None) -> str: ...
        def _read(self, text: str) -> tuple[Any, ParseReport]: ...
        def _message(self, text: str, exc: Exception) -> str: ...

    def _degraded(self) -> Any:
        """The value ``on_error="fallback"`` returns."""
        return None

    def parse_with_report(self, text: str | BaseMessage) -> tuple[Any, ParseReport]:
        """The value ``text`` answers with, and what was located and repaired to read it."""
        work, message = self._read, self._message
        name, fallback = self.get_name(), self._degraded()
        final = final_parse(
            name, self.value_format, answer_text(text), work, message, self.on_error, fallback
        )
        return published_with_report(final, self.stats)

    def parse(self, text: str) -> Any:
        """The value ``text`` answers with; ``OutputParserException`` when it holds none (the
        degraded value with ``on_error="fallback"``: see the class)."""
        return self.parse_with_report(text)[0]
