"""Robust twin of langchain-classic's ``YamlOutputParser`` (on langchain-core's base class:
langchain-classic is not a dependency of this package). YAML is read with ``yaml.safe_load``
only; PyYAML comes with the ``[yaml]`` extra."""

from __future__ import annotations

from typing import ClassVar, Generic, TypeVar

import pydantic
from langchain_core.output_parsers import BaseOutputParser

from langchain_robust_parsers.engine.markup.yaml_reader import first_valid_yaml, yaml_instructions
from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.engine.stats import YAML, ParseStats
from langchain_robust_parsers.parsers.text_formats import TextValueParser
from langchain_robust_parsers.parsers.vocabulary import OnError

__all__ = ["RobustYamlOutputParser"]

T = TypeVar("T", bound=pydantic.BaseModel)


class RobustYamlOutputParser(TextValueParser, BaseOutputParser[T], Generic[T]):
    """A ``pydantic_object`` instance from a YAML answer: in a fence or not, after ``<think>``
    blocks and a sentence of prose, indented with tabs, or written as (even broken) JSON; the
    first reading that validates wins."""

    value_format: ClassVar[str] = YAML

    pydantic_object: type[T]
    """The Pydantic model to parse."""

    stats: ParseStats | None = None
    """Outcome counters (format ``"yaml"``) updated on every final parse; shareable."""

    on_error: OnError = "raise"
    """An answer no reading of which validates: ``"raise"`` ``OutputParserException``, or
    ``"fallback"``: return ``None`` (counted as ``fallback``)."""

    def _read(self, text: str) -> tuple[T, ParseReport]:
        return first_valid_yaml(text, self.pydantic_object.model_validate)

    def _message(self, text: str, exc: Exception) -> str:
        return f"Failed to parse {self.pydantic_object.__name__} from completion {text}. Got: {exc}"

    def get_format_instructions(self) -> str:
        """Instructions naming the model's JSON schema (without its title and type)."""
        return yaml_instructions(self.pydantic_object.model_json_schema())

    @property
    def OutputType(self) -> type[T]:
        return self.pydantic_object

    @property
    def _type(self) -> str:
        return "robust_yaml"
