"""Robust twins of langchain-classic's ``EnumOutputParser`` and ``BooleanOutputParser``.

They keep the classic parsers' fields, outputs and messages, but derive from langchain-core's
``BaseOutputParser`` (langchain-classic is not a dependency of this package): an ``isinstance``
check against the classic class is the one thing they do not pass.
"""

from __future__ import annotations

from enum import Enum

from langchain_core.messages import BaseMessage
from langchain_core.output_parsers import BaseOutputParser
from pydantic import ConfigDict, field_validator

from langchain_robust_parsers.engine.errors import AmbiguousAnswerError
from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.engine.stats import BOOLEAN, ENUM, ParseStats
from langchain_robust_parsers.engine.text_values.choices import read_boolean, read_choice
from langchain_robust_parsers.parsers.text_formats import (
    answer_text,
    final_parse,
    published_with_report,
)
from langchain_robust_parsers.parsers.vocabulary import OnError, ReportingParser

__all__ = ["RobustBooleanOutputParser", "RobustEnumOutputParser"]


class RobustEnumOutputParser(ReportingParser, BaseOutputParser[Enum]):
    """The member of ``enum`` the model answered with: its value or name in any case, wrapped
    in emphasis, quotes or punctuation, inside a short sentence (``The answer is **red**.``),
    or misspelt by a few letters when exactly one value is that close."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    enum: type[Enum]
    """The enum to parse. Its values must be strings."""

    stats: ParseStats | None = None
    """Outcome counters (format ``"enum"``) updated on every final parse; shareable."""

    on_error: OnError = "raise"
    """An answer naming no member (or several): ``"raise"`` ``OutputParserException``, or
    ``"fallback"``: return ``None`` (counted as ``fallback``)."""

    @field_validator("enum")
    @classmethod
    def _string_values(cls, enum: type[Enum]) -> type[Enum]:
        if not all(isinstance(e.value, str) for e in enum):
            raise ValueError("Enum values must be strings")
        return enum

    @property
    def _valid_values(self) -> list[str]:
        return [e.value for e in self.enum]

    def _read(self, text: str) -> tuple[Enum, ParseReport]:
        members = list(self.enum)
        index, report = read_choice(text, [(m.value, m.name) for m in members])
        return members[index], report

    def _message(self, text: str, exc: Exception) -> str:
        return f"Response '{text}' is not one of the expected values: {self._valid_values}"

    def parse_with_report(self, text: str | BaseMessage) -> tuple[Enum | None, ParseReport]:
        """The member ``text`` answers with, and how it was read."""
        text = answer_text(text)
        return published_with_report(
            final_parse(self.get_name(), ENUM, text, self._read, self._message, self.on_error),
            self.stats,
        )

    def parse(self, text: str) -> Enum | None:  # type: ignore[override]  # None: on_error="fallback"
        """The member ``text`` answers with; ``OutputParserException`` when none or several
        (``None`` with ``on_error="fallback"``)."""
        return self.parse_with_report(text)[0]

    def get_format_instructions(self) -> str:
        return f"Select one of the following options: {', '.join(self._valid_values)}"

    @property
    def OutputType(self) -> type[Enum]:
        return self.enum

    @property
    def _type(self) -> str:
        return "robust_enum"


class RobustBooleanOutputParser(ReportingParser, BaseOutputParser[bool]):
    """True or false as the model answered: ``true_val``/``false_val`` in any case, wrapped in
    emphasis or punctuation, inside a sentence; with the default ``YES``/``NO`` (or
    ``TRUE``/``FALSE``) also ``true``/``false``, ``yep``/``nope``... When both values occur,
    the one the answer singles out (emphasized, after "answer is", or its first word followed
    by punctuation: ``No, not a yes``) wins; otherwise the response is ambiguous."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    true_val: str = "YES"
    """The string value that should be parsed as True."""
    false_val: str = "NO"
    """The string value that should be parsed as False."""

    stats: ParseStats | None = None
    """Outcome counters (format ``"bool"``) updated on every final parse; shareable."""

    on_error: OnError = "raise"
    """An answer naming neither value (or both): ``"raise"`` ``OutputParserException``, or
    ``"fallback"``: return ``None`` (counted as ``fallback``)."""

    def _read(self, text: str) -> tuple[bool, ParseReport]:
        return read_boolean(text, self.true_val, self.false_val)

    def _message(self, text: str, exc: Exception) -> str:
        if isinstance(exc, AmbiguousAnswerError):
            return (
                f"Ambiguous response. Both {self.true_val} and {self.false_val} "
                f"in received: {text}."
            )
        return (
            f"BooleanOutputParser expected output value to include either "
            f"{self.true_val} or {self.false_val}. Received {text}."
        )

    def parse_with_report(self, text: str | BaseMessage) -> tuple[bool | None, ParseReport]:
        """The boolean ``text`` answers with, and how it was read."""
        text = answer_text(text)
        return published_with_report(
            final_parse(self.get_name(), BOOLEAN, text, self._read, self._message, self.on_error),
            self.stats,
        )

    def parse(self, text: str) -> bool | None:  # type: ignore[override]  # None: on_error="fallback"
        """The boolean ``text`` answers with; ``OutputParserException`` (a ``ValueError``, as
        the classic parser raises) when it names neither value or both (``None`` with
        ``on_error="fallback"``)."""
        return self.parse_with_report(text)[0]

    @property
    def _type(self) -> str:
        return "robust_boolean_output_parser"
