"""``with_structured_output`` for a chat model whose structured answers are read from its text.

Three methods, as langchain's partner packages name them:

- ``function_calling``: the schema is bound as the one tool the model must call; the call's
  arguments are validated (the robust tools parsers). A model that answers with the JSON in its
  text instead of a call still gives the value, never ``None``.
- ``json_mode`` / ``json_schema``: no tool; the schema's JSON format instructions are appended
  to the last human message and the answer is read by the robust parsers (a prompted JSON
  answer, repaired and validated). ``json_mode`` without a schema returns any JSON value.

``include_raw=True`` returns ``{"raw", "parsed", "parsing_error"}`` as langchain-core does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from operator import itemgetter
from typing import Any, Literal

import pydantic
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, convert_to_messages
from langchain_core.output_parsers import BaseOutputParser
from langchain_core.prompt_values import PromptValue
from langchain_core.runnables import Runnable, RunnableLambda, RunnableMap, RunnablePassthrough
from langchain_core.utils.function_calling import convert_to_openai_tool

from langchain_robust_parsers.parsers.json_parser import RobustJsonOutputParser
from langchain_robust_parsers.parsers.schema_parser import structured_parser
from langchain_robust_parsers.parsers.tools import (
    RobustJsonOutputKeyToolsParser,
    RobustPydanticToolsParser,
)

__all__ = ["StructuredMethod", "structured_output_runnable"]

StructuredMethod = Literal["function_calling", "json_mode", "json_schema"]

JSON_ONLY_INSTRUCTIONS = "Answer with one JSON value only, and nothing else."
"""The format requirement of ``json_mode`` without a schema."""


def _messages(value: LanguageModelInput) -> list[BaseMessage]:
    if isinstance(value, PromptValue):
        return value.to_messages()
    if isinstance(value, str):
        return [HumanMessage(content=value)]
    if isinstance(value, Sequence):
        return convert_to_messages(value)
    raise TypeError(f"expected model input, got {type(value).__name__}")


def with_requirement(value: LanguageModelInput, requirement: str) -> list[BaseMessage]:
    """The input's messages with ``requirement`` appended to the last human message (a new
    human message when there is none)."""
    messages = _messages(value)
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        if isinstance(message, HumanMessage):
            content = message.content
            if isinstance(content, str):
                new_content: Any = f"{content}\n\n{requirement}"
            else:
                new_content = [*content, {"type": "text", "text": f"\n\n{requirement}"}]
            messages[i] = message.model_copy(update={"content": new_content})
            return messages
    return [*messages, HumanMessage(content=requirement)]


def _is_model(schema: Any) -> bool:
    return isinstance(schema, type) and issubclass(
        schema, (pydantic.BaseModel, pydantic.v1.BaseModel)
    )


Parts = tuple[Runnable[Any, Any], Runnable[Any, Any]]
"""What gives the raw answer, and what reads the value from it."""


def _prompted(model: BaseChatModel, schema: Any) -> Parts:
    """A prompted JSON answer read by the robust parsers."""
    parser: BaseOutputParser[Any]
    if schema is None:
        parser, requirement = RobustJsonOutputParser(), JSON_ONLY_INSTRUCTIONS
    else:
        parser = structured_parser(schema)
        requirement = parser.get_format_instructions()
    add: Runnable[Any, list[BaseMessage]] = RunnableLambda(
        lambda value: with_requirement(value, requirement), name="format"
    )
    return add | model, parser


def _function_calling(model: BaseChatModel, schema: Any) -> Parts:
    """The schema as the one tool to call; the call's arguments, or the JSON of the text when
    the model answered without a call."""
    if schema is None:
        raise ValueError("method='function_calling' needs a schema")
    bound = model.bind_tools(
        [schema],
        tool_choice="any",
        ls_structured_output_format={"kwargs": {"method": "function_calling"}, "schema": schema},
    )
    tools_parser: BaseOutputParser[Any]
    if _is_model(schema):
        tools_parser = RobustPydanticToolsParser(tools=[schema], first_tool_only=True)
    else:
        name = convert_to_openai_tool(schema)["function"]["name"]
        tools_parser = RobustJsonOutputKeyToolsParser(key_name=name, first_tool_only=True)
    text_parser = structured_parser(schema)

    def read(message: AIMessage) -> Any:
        value = tools_parser.invoke(message)
        if value is None:  # no call: the value the answer wrote as text
            return text_parser.invoke(message)
        if not _is_model(schema):  # arguments validated against the TypedDict or JSON schema
            return text_parser.parse(json.dumps(value))
        return value

    return bound, RunnableLambda(read, name="structured_output")


def structured_output_runnable(
    model: BaseChatModel,
    schema: Mapping[str, Any] | type[Any] | None,
    *,
    method: StructuredMethod = "function_calling",
    include_raw: bool = False,
) -> Runnable[LanguageModelInput, Any]:
    """``model.with_structured_output(schema, method=..., include_raw=...)`` (see the module
    docs); raises ``ValueError`` for an unknown method."""
    if method == "function_calling":
        answer, reader = _function_calling(model, schema)
    elif method in ("json_mode", "json_schema"):
        if schema is None and method == "json_schema":
            raise ValueError("method='json_schema' needs a schema")
        answer, reader = _prompted(model, schema)
    else:
        raise ValueError(
            f"unknown method {method!r}: use 'function_calling', 'json_mode' or 'json_schema'"
        )
    if not include_raw:
        return answer | reader
    parsed = RunnablePassthrough.assign(
        parsed=itemgetter("raw") | reader, parsing_error=lambda _: None
    )
    failed = RunnablePassthrough.assign(parsed=lambda _: None)
    return RunnableMap(raw=answer) | parsed.with_fallbacks([failed], exception_key="parsing_error")
