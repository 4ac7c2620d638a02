"""Robust twins of langchain-core's OpenAI-functions parsers: the ``function_call`` arguments
read by the package's JSON engine (fences, comments, trailing commas, single quotes, cut-off
text...), and a message that carries its call in ``tool_calls`` instead read too."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.output_parsers.openai_functions import (
    JsonKeyOutputFunctionsParser,
    JsonOutputFunctionsParser,
    PydanticOutputFunctionsParser,
)
from langchain_core.outputs import ChatGeneration, Generation
from pydantic import ConfigDict

from langchain_robust_parsers.engine import JsonEngineError, decode
from langchain_robust_parsers.engine.content_blocks import content_text
from langchain_robust_parsers.engine.model_validation import validate_model
from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.engine.stats import FUNCTIONS, ParseStats
from langchain_robust_parsers.parsers.report_events import publish
from langchain_robust_parsers.parsers.text_formats import final_parse

__all__ = [
    "RobustJsonKeyOutputFunctionsParser",
    "RobustJsonOutputFunctionsParser",
    "RobustPydanticOutputFunctionsParser",
]


def function_call(message: BaseMessage) -> dict[str, Any] | None:
    """The message's ``function_call`` (a copy), or its first tool call written as one."""
    call = message.additional_kwargs.get("function_call")
    if isinstance(call, dict):
        return dict(call)
    if isinstance(message, AIMessage) and message.tool_calls:
        first = message.tool_calls[0]
        return {"name": first["name"], "arguments": json.dumps(first["args"])}
    return None


def _generation_message(result: list[Generation]) -> BaseMessage:
    if len(result) != 1:
        raise OutputParserException(f"Expected exactly one result, but got {len(result)}")
    generation = result[0]
    if not isinstance(generation, ChatGeneration):
        raise OutputParserException("This output parser can only be used with a chat generation.")
    return generation.message


def read_arguments(text: str, *, strict: bool) -> tuple[Any, ParseReport]:
    """The JSON value of an arguments string; ``strict`` allows no repair at all."""
    if strict:
        try:
            return json.loads(text, strict=True), ParseReport("whole", 0, len(text))
        except json.JSONDecodeError as exc:
            raise JsonEngineError(f"strict JSON expected: {exc}") from exc
    return decode(text)


def _message(text: str, exc: Exception) -> str:
    return f"Could not parse function call data: {exc}"


class RobustJsonOutputFunctionsParser(JsonOutputFunctionsParser):
    """``JsonOutputFunctionsParser`` whose arguments go through the lenient JSON engine
    (``strict=True`` keeps them strict, as the parent's flag asks); streams like the parent."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    stats: ParseStats | None = None
    """Outcome counters (format ``"functions"``) updated on every final parse; shareable."""

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """The call's arguments (``args_only``) or the call with decoded arguments; ``None``
        for a stream prefix with nothing readable yet."""
        message = _generation_message(result)
        call = function_call(message)
        if call is None:
            if partial:
                return None
            raise OutputParserException(
                "Could not parse function call: 'function_call'",
                llm_output=content_text(message.content),
            )
        if "arguments" not in call:
            return None
        raw = call["arguments"]
        if partial:
            args = self._partial(raw)
            if args is None:
                return None
        else:
            if not isinstance(raw, str):
                raise OutputParserException(
                    f"Could not parse function call data: arguments is a {type(raw).__name__}, "
                    "not a JSON string",
                    llm_output=str(raw),
                )
            args = self.parse_with_report(raw)[0]
        return args if self.args_only else {**call, "arguments": args}

    def _partial(self, raw: Any) -> Any:
        if not isinstance(raw, str):
            return None
        try:
            return decode(raw, allow_truncated=True)[0]
        except JsonEngineError:
            return None

    def parse_with_report(self, text: str) -> tuple[Any, ParseReport]:
        """The JSON value of an arguments string and what was repaired to obtain it."""
        final = final_parse(
            self.get_name(),
            FUNCTIONS,
            text,
            lambda t: read_arguments(t, strict=self.strict),
            _message,
        )
        publish(final.event, self.stats)
        value = final.unwrap()
        assert final.report is not None
        return value, final.report

    @property
    def _type(self) -> str:
        return "robust_json_functions"


class RobustJsonKeyOutputFunctionsParser(
    RobustJsonOutputFunctionsParser, JsonKeyOutputFunctionsParser
):
    """``JsonKeyOutputFunctionsParser``: one key of the robustly read arguments."""

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """The value of ``key_name`` in the arguments (``None`` while streaming, before it)."""
        res = RobustJsonOutputFunctionsParser.parse_result(self, result, partial=partial)
        if partial:
            return None if not isinstance(res, dict) else res.get(self.key_name)
        if not isinstance(res, dict) or self.key_name not in res:
            raise OutputParserException(
                f"Could not find key {self.key_name!r} in the function call arguments: {res}",
                llm_output=json.dumps(res, default=str),
            )
        return res[self.key_name]

    @property
    def _type(self) -> str:
        return "robust_json_key_functions"


class RobustPydanticOutputFunctionsParser(PydanticOutputFunctionsParser):
    """``PydanticOutputFunctionsParser`` whose arguments go through the lenient JSON engine
    before validation; a validation failure is an ``OutputParserException`` (the parent lets
    pydantic's ``ValidationError`` out)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    stats: ParseStats | None = None
    """Outcome counters (format ``"functions"``) updated on every final parse; shareable."""

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """The model instance built from the call's arguments."""
        message = _generation_message(result)
        call = function_call(message)
        if call is None or not isinstance(call.get("arguments"), str):
            raise OutputParserException(
                "Could not parse function call: no function_call with string arguments",
                llm_output=content_text(message.content),
            )
        schema: Any = self.pydantic_schema
        if isinstance(schema, dict):
            if call.get("name") not in schema:
                raise OutputParserException(
                    f"Function {call.get('name')!r} is not one of {sorted(schema)}",
                    llm_output=call["arguments"],
                )
            schema = schema[call["name"]]
        raw = call["arguments"]
        final = final_parse(
            self.get_name(), FUNCTIONS, raw, lambda t: read_arguments(t, strict=False), _message
        )
        publish(final.event, self.stats)
        args = final.unwrap()
        try:
            return validate_model(schema, args)
        except (ValueError, TypeError) as exc:  # pydantic's ValidationError is a ValueError
            raise OutputParserException(
                f"Function call arguments do not match {schema.__name__}: {exc}", llm_output=raw
            ) from exc

    @property
    def _type(self) -> str:
        return "robust_pydantic_functions"
