"""Robust twin of langchain-classic's ``DatetimeOutputParser`` (on langchain-core's base class:
langchain-classic is not a dependency of this package)."""

from __future__ import annotations

from datetime import datetime

from langchain_core.messages import BaseMessage
from langchain_core.output_parsers import BaseOutputParser
from pydantic import ConfigDict

from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.engine.stats import DATETIME, ParseStats
from langchain_robust_parsers.engine.text_values.dates import (
    DEFAULT_FORMAT,
    datetime_instructions,
    read_datetime,
)
from langchain_robust_parsers.parsers.text_formats import (
    answer_text,
    final_parse,
    published_with_report,
)
from langchain_robust_parsers.parsers.vocabulary import OnError, ReportingParser

__all__ = ["RobustDatetimeOutputParser"]


class RobustDatetimeOutputParser(ReportingParser, BaseOutputParser[datetime]):
    """The date and time of a model's answer: ``format`` first, then ISO 8601 and common
    formats (``July 4, 2023 3:30 PM``, ``07/04/2023``), in the answer or a short sentence
    around it, past fences, emphasis and ``<think>`` blocks. An offset is applied and the value
    returned naive (UTC) unless ``format`` itself has ``%z``/``%Z``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    format: str = DEFAULT_FORMAT
    """The datetime format asked for in the format instructions and tried first."""

    stats: ParseStats | None = None
    """Outcome counters (format ``"datetime"``) updated on every final parse; shareable."""

    on_error: OnError = "raise"
    """An answer with no date: ``"raise"`` ``OutputParserException``, or ``"fallback"``: return
    ``None`` (counted as ``fallback``)."""

    def get_format_instructions(self) -> str:
        """The classic parser's instructions for ``format``."""
        return datetime_instructions(self.format)

    def _read(self, text: str) -> tuple[datetime, ParseReport]:
        return read_datetime(text, self.format)

    def parse_with_report(self, text: str | BaseMessage) -> tuple[datetime | None, ParseReport]:
        """The datetime ``text`` answers with, and how it was read."""
        text = answer_text(text)
        return published_with_report(
            final_parse(self.get_name(), DATETIME, text, self._read, _message, self.on_error),
            self.stats,
        )

    def parse(self, text: str) -> datetime | None:  # type: ignore[override]  # None: on_error="fallback"
        """The datetime ``text`` answers with; ``OutputParserException`` when it has none
        (``None`` with ``on_error="fallback"``)."""
        return self.parse_with_report(text)[0]

    @property
    def _type(self) -> str:
        return "robust_datetime"


def _message(text: str, exc: Exception) -> str:
    return f"Could not parse datetime string: {text}"
