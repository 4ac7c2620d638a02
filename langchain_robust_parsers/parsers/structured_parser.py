"""Robust twin of langchain-classic's ``StructuredOutputParser`` over the JSON engine, so every
JSON repair applies. langchain-classic is not a dependency: `ResponseSchema` here has the classic
one's fields, and the parser also accepts the classic class's instances (anything with ``name``,
``description`` and ``type``)."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage
from langchain_core.output_parsers import BaseOutputParser
from langchain_core.outputs import ChatGeneration, Generation
from pydantic import BaseModel, field_validator

from langchain_robust_parsers.engine.errors import TextEngineError
from langchain_robust_parsers.engine.expected_keys import object_with_keys
from langchain_robust_parsers.engine.json.decode import iter_candidates
from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.engine.stats import STRUCTURED, ParseStats
from langchain_robust_parsers.parsers.stop_reason import OnTruncation, refuse_cut, stop_reason_cut
from langchain_robust_parsers.parsers.text_formats import (
    answer_text,
    final_parse,
    published_with_report,
)
from langchain_robust_parsers.parsers.vocabulary import OnError, ReportingParser

__all__ = ["ResponseSchema", "RobustStructuredOutputParser"]

_INSTRUCTIONS = (
    "The output should be a markdown code snippet formatted in the following schema, "
    'including the leading and trailing "```json" and "```":\n\n```json\n{{\n{format}\n}}\n```'
)
_SIMPLE_INSTRUCTIONS = "\n```json\n{{\n{format}\n}}\n```"


class ResponseSchema(BaseModel):
    """One key of the answer: its name, a description for the model, and a type (free text)."""

    name: str
    description: str
    type: str = "string"


class RobustStructuredOutputParser(ReportingParser, BaseOutputParser[dict[str, Any]]):
    """The JSON object with the schemas' keys: located in fences, tags or prose, repaired,
    completed when cut off; among several objects the first that has every key; a key written
    in another case (``"Name"``) renamed to the expected one."""

    response_schemas: list[ResponseSchema]
    """The schemas for the response."""

    stats: ParseStats | None = None
    """Outcome counters (format ``"structured"``) updated on every final parse; shareable."""

    on_error: OnError = "raise"
    """No object with every key: ``"raise"`` ``OutputParserException``, or ``"fallback"``:
    return ``None`` (counted as ``fallback``)."""

    on_truncation: OnTruncation = "complete"
    """A cut-off answer (an unfinished object, or a provider stop reason such as
    ``finish_reason="length"``): ``"complete"`` it (the report says ``truncated``), or
    ``"raise"`` ``TruncatedOutputError``."""

    @field_validator("response_schemas", mode="before")
    @classmethod
    def _accept_classic_schemas(cls, schemas: Any) -> Any:
        if not isinstance(schemas, list):
            return schemas
        return [
            s
            if isinstance(s, ResponseSchema | dict)
            else ResponseSchema(
                name=s.name, description=s.description, type=getattr(s, "type", "string")
            )
            for s in schemas
        ]

    @classmethod
    def from_response_schemas(
        cls, response_schemas: list[ResponseSchema]
    ) -> RobustStructuredOutputParser:
        """A parser for ``response_schemas``."""
        return cls(response_schemas=response_schemas)

    def get_format_instructions(self, only_json: bool = False) -> str:
        """The classic parser's instructions: a ```` ```json ```` snippet listing the keys."""
        lines = "\n".join(
            f'\t"{s.name}": {s.type}  // {s.description}' for s in self.response_schemas
        )
        template = _SIMPLE_INSTRUCTIONS if only_json else _INSTRUCTIONS
        return template.format(format=lines)

    def _read(self, text: str) -> tuple[dict[str, Any], ParseReport]:
        return object_with_keys(iter_candidates(text), [s.name for s in self.response_schemas])

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """The object of ``result[0]``; a chat generation's stop reason is read too (see
        ``on_truncation``)."""
        if partial or not result or not isinstance(result[0], ChatGeneration):
            return super().parse_result(result, partial=partial)
        return self.parse_with_report(result[0].message)[0]

    def parse_with_report(
        self, text: str | BaseMessage
    ) -> tuple[dict[str, Any] | None, ParseReport]:
        """The object in ``text`` and what was located and repaired to obtain it (given a
        message, its stop reason is read too)."""
        stop_reason = stop_reason_cut(text) if isinstance(text, BaseMessage) else None
        text = answer_text(text)
        name = self.get_name()
        final = final_parse(name, STRUCTURED, text, self._read, _message, self.on_error)
        final = refuse_cut(final, name, STRUCTURED, text, self.on_truncation, stop_reason)
        return published_with_report(final, self.stats)

    def parse(self, text: str) -> dict[str, Any] | None:  # type: ignore[override]  # None: on_error="fallback"
        """The object in ``text``; ``OutputParserException`` when there is none or a key of the
        schemas is missing from every object found (``None`` with ``on_error="fallback"``)."""
        return self.parse_with_report(text)[0]

    @property
    def _type(self) -> str:
        return "robust_structured"


def _message(text: str, exc: Exception) -> str:
    if isinstance(exc, TextEngineError):
        return exc.msg
    return f"Got invalid JSON object. Error: {exc}"
