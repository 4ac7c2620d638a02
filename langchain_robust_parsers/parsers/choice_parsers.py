"""Robust twins of langchain-classic's ``EnumOutputParser`` and ``BooleanOutputParser``.

They keep the classic parsers' fields, outputs and messages, but derive from langchain-core's
``BaseOutputParser`` (langchain-classic is not a dependency of this package): an ``isinstance``
check against the classic class is the one thing they do not pass.
"""

from __future__ import annotations

from enum import Enum
from typing import ClassVar

from langchain_core.output_parsers import BaseOutputParser
from pydantic import field_validator

from langchain_robust_parsers.engine.errors import AmbiguousAnswerError
from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.engine.stats import BOOLEAN, ENUM, ParseStats
from langchain_robust_parsers.engine.text_values.choices import read_boolean, read_choice
from langchain_robust_parsers.parsers.text_formats import TextValueParser
from langchain_robust_parsers.parsers.vocabulary import OnError

__all__ = ["RobustBooleanOutputParser", "RobustEnumOutputParser"]


class RobustEnumOutputParser(TextValueParser, BaseOutputParser[Enum]):
    """The member of ``enum`` the model answered with: its value or name in any case, wrapped
    in emphasis, quotes or punctuation, inside a short sentence (``The answer is **red**.``),
    or misspelt by a few letters when exactly one value is that close."""

    value_format: ClassVar[str] = ENUM

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

    def get_format_instructions(self) -> str:
        return f"Select one of the following options: {', '.join(self._valid_values)}"

    @property
    def OutputType(self) -> type[Enum]:
        return self.enum

    @property
    def _type(self) -> str:
        return "robust_enum"


class RobustBooleanOutputParser(TextValueParser, BaseOutputParser[bool]):
    """True or false as the model answered: ``true_val``/``false_val`` in any case, wrapped in
    emphasis or punctuation, inside a sentence; with the default ``YES``/``NO`` (or
    ``TRUE``/``FALSE``) also ``true``/``false``, ``yep``/``nope``... When both values occur,
    the one the answer singles out (emphasized, after "answer is", or its first word followed
    by punctuation: ``No, not a yes``) wins; otherwise the response is ambiguous. Its
    ``OutputParserException`` is a ``ValueError``, as the classic parser raises."""

    value_format: ClassVar[str] = BOOLEAN

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

    @property
    def _type(self) -> str:
        return "robust_boolean_output_parser"
