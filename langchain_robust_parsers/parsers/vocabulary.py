"""One vocabulary for every parser: ``on_error``, ``parse_with_report`` and ``aparse_with_report``.

``on_error`` says what a final parse that cannot read the text does: ``"raise"`` an
``OutputParserException``, or ``"fallback"`` return the parser's documented degraded value
(counted as ``fallback``). Each parser's docstring says what its degraded value is; the table of
every parser is in ``docs/vocabulary.md``.

The options that said the same before 0.3.0 (``fallback="plain_text"``, ``errors="return"``,
``fallback_to_null_action``, ``lenient_finish``) are gone: given to a constructor, they are
refused with an error naming ``on_error`` (see :mod:`~langchain_robust_parsers.parsers.options`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Literal, cast

from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGeneration, Generation
from langchain_core.runnables.config import run_in_executor

from langchain_robust_parsers.engine import ParseReport
from langchain_robust_parsers.parsers.options import StrictOptions

__all__ = ["OnError", "ReportingParser", "captured_events", "generation_of", "record_event"]

OnError = Literal["raise", "fallback"]
"""What a final parse that cannot read the text does: raise, or return the degraded value."""

ON_ERROR_VALUES: tuple[OnError, ...] = ("raise", "fallback")

_CAPTURE: ContextVar[list[Any] | None] = ContextVar("robust_parsers_event_capture", default=None)
"""The events published in this context, while :func:`captured_events` listens."""


@contextmanager
def captured_events() -> Iterator[list[Any]]:
    """Collect every ``ParseEvent`` published in this context (and the executors it starts)."""
    seen: list[Any] = []
    token = _CAPTURE.set(seen)
    try:
        yield seen
    finally:
        _CAPTURE.reset(token)


def record_event(event: Any) -> None:
    """Hand ``event`` to the listening :func:`captured_events`, if any (called on publish)."""
    seen = _CAPTURE.get()
    if seen is not None:
        seen.append(event)


def generation_of(text: str | BaseMessage) -> Generation:
    """``text`` as the generation a parser's ``parse_result`` reads (a message keeps its
    metadata, so its stop reason and native tool calls are seen)."""
    if isinstance(text, BaseMessage):
        return ChatGeneration(message=text)
    return Generation(text=text)


class ReportingParser(StrictOptions):
    """Mixin for every public parser: strict options, and the report methods.

    :meth:`parse_with_report` reads the report back from the parse's ``parse_report`` event;
    a parser whose report has its own shape overrides it, and :meth:`aparse_with_report` then
    runs that override in an executor, so every parser has both with one signature.
    """

    def parse_with_report(self, text: str | BaseMessage) -> tuple[Any, ParseReport]:
        """The value of ``text`` with what was located and repaired to obtain it.

        Counted and dispatched like :meth:`parse`, and raising what it raises. The report is the
        one the parse's ``parse_report`` event carries (an empty ``ParseReport`` when the parse
        needed no locating, or returned its ``on_error="fallback"`` value).
        """
        with captured_events() as seen:
            value = cast(Any, self).parse_result([generation_of(text)])
        return value, _report_of(seen)

    async def aparse_with_report(self, text: str | BaseMessage) -> tuple[Any, ParseReport]:
        """Async :meth:`parse_with_report`: the same value, report, count and event."""
        if type(self).parse_with_report is not ReportingParser.parse_with_report:
            # A parser with a report of its own shape: the same method, in an executor.
            return await run_in_executor(None, self.parse_with_report, text)
        with captured_events() as seen:
            value = await cast(Any, self).aparse_result([generation_of(text)])
        return value, _report_of(seen)


def _report_of(events: list[Any]) -> ParseReport:
    report = getattr(events[-1], "report", None) if events else None
    return report if isinstance(report, ParseReport) else ParseReport()
