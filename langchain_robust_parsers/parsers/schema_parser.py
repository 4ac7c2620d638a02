"""``RobustDictOutputParser``: the robust Pydantic parser for a ``TypedDict`` or a JSON-schema
dict, returning plain dicts validated against it (what ``with_structured_output`` returns for
those schemas)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any

import pydantic
from langchain_core.outputs import Generation
from pydantic import PrivateAttr

from langchain_robust_parsers.engine.json.value_stream import JsonValueStream
from langchain_robust_parsers.engine.model_validation import is_list_target
from langchain_robust_parsers.engine.schema_models import (
    SCHEMA_INSTRUCTIONS,
    dict_schema_target,
    dump_value,
    is_typed_dict,
)
from langchain_robust_parsers.parsers.pydantic_parser import RobustPydanticOutputParser
from langchain_robust_parsers.parsers.report_events import FinalParse

__all__ = ["RobustDictOutputParser", "is_typed_dict", "structured_parser"]


class RobustDictOutputParser(RobustPydanticOutputParser[Any]):
    """Parse a model's output into a dict described by a ``TypedDict`` or a JSON schema (or a
    list of dicts, for a JSON schema of an array of objects).

    The schema is turned into a pydantic model (``engine/schema_models.py``), so the answer
    goes through the same locating, repair, coercion and validation as
    `RobustPydanticOutputParser`; the validated value comes back as a plain dict with
    the keys the model wrote. Build it with `for_schema`.
    """

    source_schema: Any = None
    """The schema as the user gave it: a ``TypedDict`` class or a JSON-schema dict."""

    _schema_text: str = PrivateAttr(default="")

    @classmethod
    def for_schema(cls, schema: Any, **kwargs: Any) -> RobustDictOutputParser:
        """A parser for ``schema`` (a ``TypedDict`` class or a JSON-schema dict); raises
        ``TypeError`` for anything else."""
        return cls(pydantic_object=dict_schema_target(schema), source_schema=schema, **kwargs)

    @property
    def OutputType(self) -> Any:
        """The ``TypedDict``, ``dict[str, Any]`` for a JSON schema of an object, or
        ``list[dict[str, Any]]`` for one of an array of objects."""
        if is_typed_dict(self.source_schema):
            return self.source_schema
        return list[dict[str, Any]] if is_list_target(self.pydantic_object) else dict[str, Any]

    def get_format_instructions(self) -> str:
        """The JSON instructions around the schema as given (for a JSON-schema dict) or the
        generated model's schema (for a ``TypedDict``)."""
        if not self._schema_text:
            if isinstance(self.source_schema, Mapping):
                schema = dict(self.source_schema)
            else:
                schema = self.pydantic_object.model_json_schema()
            self._schema_text = json.dumps(schema, ensure_ascii=False)
        return SCHEMA_INSTRUCTIONS.format(schema=self._schema_text)

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """The validated dict of ``result[0]`` (see `RobustPydanticOutputParser`)."""
        return dump_value(super().parse_result(result, partial=partial))

    async def aparse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """Async `parse_result`."""
        return dump_value(await super().aparse_result(result, partial=partial))

    def _stream_item(self, value: Any) -> Any:
        return dump_value(super()._stream_item(value))

    def _stream_final(self, stream: JsonValueStream, stop_reason: str | None) -> FinalParse[Any]:
        final = super()._stream_final(stream, stop_reason)
        if final.error is not None:
            return final
        return dataclasses.replace(final, value=dump_value(final.value))


def structured_parser(schema: Any) -> RobustPydanticOutputParser[Any]:
    """The parser for ``schema``: a pydantic model class (v2 or ``pydantic.v1``) gives its
    instances; a ``TypedDict`` class or a JSON-schema dict gives dicts validated against it.
    Raises ``TypeError`` for anything else."""
    if isinstance(schema, type) and issubclass(schema, (pydantic.BaseModel, pydantic.v1.BaseModel)):
        return RobustPydanticOutputParser(pydantic_object=schema)
    if is_typed_dict(schema) or isinstance(schema, Mapping):
        return RobustDictOutputParser.for_schema(schema)
    msg = (
        "schema must be a pydantic model class, a TypedDict class or a JSON-schema dict, "
        f"got {schema!r}"
    )
    raise TypeError(msg)
