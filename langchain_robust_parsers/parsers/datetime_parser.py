"""Robust twin of langchain-classic's ``DatetimeOutputParser`` (on langchain-core's base class:
langchain-classic is not a dependency of this package)."""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from langchain_core.output_parsers import BaseOutputParser

from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.engine.stats import DATETIME, ParseStats
from langchain_robust_parsers.engine.text_values.dates import (
    DEFAULT_FORMAT,
    datetime_instructions,
    read_datetime,
)
from langchain_robust_parsers.parsers.text_formats import TextValueParser
from langchain_robust_parsers.parsers.vocabulary import OnError

__all__ = ["RobustDatetimeOutputParser"]


class RobustDatetimeOutputParser(TextValueParser, BaseOutputParser[datetime]):
    """The date and time of a model's answer: ``format`` first, then ISO 8601 and common
    formats (``July 4, 2023 3:30 PM``, ``07/04/2023``), in the answer or a short sentence
    around it, past fences, emphasis and ``<think>`` blocks. An offset is applied and the value
    returned naive (UTC) unless ``format`` itself has ``%z``/``%Z``."""

    value_format: ClassVar[str] = DATETIME

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

    def _message(self, text: str, exc: Exception) -> str:
        return f"Could not parse datetime string: {text}"

    @property
    def _type(self) -> str:
        return "robust_datetime"
