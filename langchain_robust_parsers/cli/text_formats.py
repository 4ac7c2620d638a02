"""Parsers the command line builds from an argument rather than from Python code: a choice
among values given as ``enum:A,B,C``, and YAML with no model (any YAML value)."""

from __future__ import annotations

from enum import Enum
from typing import Any

from langchain_core.messages import BaseMessage
from pydantic import RootModel, model_validator

from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.parsers.choice_parsers import RobustEnumOutputParser

__all__ = ["AnyYaml", "ChoicesParser"]


class AnyYaml(RootModel[Any]):
    """Any YAML value, for ``--format yaml`` without a model."""


def _choices_enum(choices: list[str]) -> type[Enum]:
    members = {f"V{i}": value for i, value in enumerate(choices)}
    built: type[Enum] = Enum("Choice", members)  # type: ignore[misc]
    return built


class ChoicesParser(RobustEnumOutputParser):
    """``RobustEnumOutputParser`` over the values of ``--format enum:A,B,C``; returns the value
    (a string). It pickles (to reach worker processes) by its ``choices``, not its enum class,
    which is built at run time and so cannot be pickled by reference."""

    choices: list[str]

    @model_validator(mode="before")
    @classmethod
    def _enum_from_choices(cls, data: Any) -> Any:
        if isinstance(data, dict) and "enum" not in data and "choices" in data:
            data = {**data, "enum": _choices_enum(list(data["choices"]))}
        return data

    def parse_with_report(self, text: str | BaseMessage) -> tuple[Any, ParseReport]:
        member, report = super().parse_with_report(text)
        return (None if member is None else member.value), report

    def parse(self, text: str) -> Any:
        return self.parse_with_report(text)[0]

    def __reduce__(self) -> Any:
        return (_rebuild, (self.choices, self.stats))


def _rebuild(choices: list[str], stats: Any) -> ChoicesParser:
    return ChoicesParser(choices=choices, stats=stats)  # type: ignore[call-arg]  # enum: built
