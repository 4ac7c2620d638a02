"""Structured answers for an agent's ``response_format``: the schemas it names, and the answer
read with the package's JSON repair when the model wrote it as text (fenced, in prose, broken
or cut off) instead of through the provider's structured output or the output tool."""

from __future__ import annotations

from typing import Any

import pydantic
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration

from langchain_robust_parsers.engine.coercion import coerce_with_notes
from langchain_robust_parsers.engine.model_validation import validate_model
from langchain_robust_parsers.parsers.pydantic_parser import RobustPydanticOutputParser

__all__ = ["answer_from_args", "answer_from_text", "structured_schemas"]


def _model(schema: Any) -> type[pydantic.BaseModel] | None:
    if isinstance(schema, type) and issubclass(schema, pydantic.BaseModel):
        return schema
    return None


def structured_schemas(response_format: Any) -> dict[str, type[pydantic.BaseModel]]:
    """The pydantic models an agent's ``response_format`` asks for, by output-tool name.

    ``ToolStrategy`` names one tool per schema; ``ProviderStrategy``, ``AutoStrategy`` and a
    bare model name their one schema. Dict and ``TypedDict`` schemas are left to LangChain.
    """
    if response_format is None:
        return {}
    specs = getattr(response_format, "schema_specs", None)
    if isinstance(specs, list):
        found = {getattr(s, "name", ""): _model(getattr(s, "schema", None)) for s in specs}
        return {name: model for name, model in found.items() if name and model is not None}
    model = _model(getattr(response_format, "schema", response_format))
    return {} if model is None else {model.__name__: model}


def answer_from_args(args: Any, schema: type[pydantic.BaseModel]) -> Any | None:
    """The output tool's arguments bent to ``schema`` and validated, or ``None``."""
    value, _ = coerce_with_notes(args, schema)
    try:
        return validate_model(schema, value)
    except pydantic.ValidationError:
        return None


def answer_from_text(
    message: AIMessage, schemas: dict[str, type[pydantic.BaseModel]]
) -> Any | None:
    """The answer written in the text of ``message`` as the first of ``schemas`` it
    validates as (fenced, in prose, broken or cut-off JSON repaired), or ``None``."""
    generation = ChatGeneration(message=message)
    for schema in schemas.values():
        parser: RobustPydanticOutputParser[Any] = RobustPydanticOutputParser(pydantic_object=schema)
        try:
            return parser.parse_result([generation])
        except OutputParserException:
            continue
    return None
