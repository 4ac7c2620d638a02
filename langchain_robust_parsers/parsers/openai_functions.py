"""Robust twins of langchain-core's OpenAI-functions parsers: the ``function_call`` arguments
read by the package's JSON engine (fences, comments, trailing commas, single quotes, cut-off
text...), and a message that carries its call in ``tool_calls`` instead read too. The call and
its arguments are read by `function_call_args`."""

from __future__ import annotations

import functools
import json
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.output_parsers.openai_functions import (
    JsonKeyOutputFunctionsParser,
    JsonOutputFunctionsParser,
    PydanticOutputFunctionsParser,
)
from langchain_core.outputs import ChatGeneration, Generation
from pydantic import BaseModel

from langchain_robust_parsers.engine.calls.function_call_args import (
    arguments_problem,
    chosen_schema,
    function_call,
    partial_arguments,
    read_arguments,
)
from langchain_robust_parsers.engine.content_blocks import content_text
from langchain_robust_parsers.engine.model_validation import validate_model
from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.engine.stats import FUNCTIONS, ParseStats
from langchain_robust_parsers.parsers.boundary import output_parser_error
from langchain_robust_parsers.parsers.report_events import (
    FinalParse,
    ParseEvent,
    fallback_on_error,
    publish,
)
from langchain_robust_parsers.parsers.stop_reason import OnTruncation, refuse_cut, stop_reason_cut
from langchain_robust_parsers.parsers.text_formats import final_parse
from langchain_robust_parsers.parsers.tool_call_streaming import CHAT_ONLY
from langchain_robust_parsers.parsers.vocabulary import OnError, ReportingParser, StrictOptions

__all__ = [
    "RobustJsonKeyOutputFunctionsParser",
    "RobustJsonOutputFunctionsParser",
    "RobustPydanticOutputFunctionsParser",
]


def _generation_message(result: list[Generation]) -> BaseMessage:
    if len(result) != 1:
        raise output_parser_error(f"Expected exactly one result, but got {len(result)}", None)
    if not isinstance(result[0], ChatGeneration):
        raise output_parser_error(CHAT_ONLY, None)
    return result[0].message


def _read(parser: str, raw: str, *, strict: bool) -> FinalParse[Any]:
    """The final parse of an arguments string (``strict``: no repair at all)."""
    return final_parse(
        parser,
        FUNCTIONS,
        raw,
        functools.partial(read_arguments, strict=strict),
        lambda text, exc: f"Could not parse function call data: {exc}",
    )


def _failed(
    parser: str, message: str, llm_output: str, cause: BaseException | None = None
) -> FinalParse[Any]:
    """A final parse that failed before (or after) the arguments were read."""
    error = output_parser_error(message, llm_output, cause)
    return FinalParse(None, None, ParseEvent(parser, FUNCTIONS, "failed", None, message), error)


def _settled(
    parser: RobustJsonOutputFunctionsParser | RobustPydanticOutputFunctionsParser,
    final: FinalParse[Any],
    text: str,
    message: BaseMessage | None = None,
) -> FinalParse[Any]:
    """``final`` after ``on_error``, or the ``TruncatedOutputError`` failure of a cut ``text``
    (``message``'s stop reason may say so) under ``on_truncation="raise"``, raised whatever
    ``on_error`` says; published."""
    final = fallback_on_error(final, parser.on_error, None, ParseReport())
    stop_reason = stop_reason_cut(message) if message is not None else None
    final = refuse_cut(final, parser.get_name(), FUNCTIONS, text, parser.on_truncation, stop_reason)
    publish(final.event, parser.stats)
    return final


def _cut_text(message: BaseMessage, call: dict[str, Any] | None) -> str:
    """The text a cut-off answer is quoted by: the arguments, else the message's content."""
    raw = call.get("arguments") if call else None
    return raw if isinstance(raw, str) else content_text(message.content)


class FunctionsParserOptions(StrictOptions, BaseModel):
    """The options of the OpenAI-functions parsers."""

    stats: ParseStats | None = None
    """Outcome counters (format ``"functions"``) updated on every final parse; shareable."""

    on_error: OnError = "raise"
    """A final parse that fails: ``"raise"`` ``OutputParserException``, or ``"fallback"``:
    return ``None``, counted as ``fallback``."""

    on_truncation: OnTruncation = "complete"
    """Arguments cut off (or ``finish_reason="length"``): ``"complete"`` them (the report says
    ``truncated``), or ``"raise"`` ``TruncatedOutputError``, whatever ``on_error`` says."""


class RobustJsonOutputFunctionsParser(
    FunctionsParserOptions, ReportingParser, JsonOutputFunctionsParser
):
    """``JsonOutputFunctionsParser`` whose arguments go through the lenient JSON engine
    (``strict=True`` keeps them strict, as the parent's flag asks); streams like the parent.
    With ``on_error="fallback"`` a failed final parse returns ``None``."""

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """The call's arguments (``args_only``) or the call with decoded arguments; ``None``
        for a stream prefix with nothing readable yet."""
        message = _generation_message(result)
        call = function_call(message)
        if partial:
            args = partial_arguments(call)
            return None if call is None or args is None else self._shaped(call, args)
        if call is not None and "arguments" not in call:
            return self._no_arguments(call)
        return _settled(
            self, self._final_call(message, call), _cut_text(message, call), message
        ).unwrap()

    def _shaped(self, call: dict[str, Any], args: Any) -> Any:
        """What a parse gives for ``call`` whose arguments decoded to ``args``."""
        return args if self.args_only else {**call, "arguments": args}

    def _no_arguments(self, call: dict[str, Any]) -> Any:
        """A call without ``arguments``: ``None``, as the parent gives."""
        return None

    def _final_call(self, message: BaseMessage, call: dict[str, Any] | None) -> FinalParse[Any]:
        """The final parse of ``call`` (the message's), without side effects."""
        problem = arguments_problem(call)
        if problem is not None:
            reason, quoted = problem
            return _failed(self.get_name(), reason, quoted or content_text(message.content))
        assert call is not None
        final = _read(self.get_name(), call["arguments"], strict=self.strict)
        if final.error is not None:
            return final
        return FinalParse(self._shaped(call, final.value), final.report, final.event)

    def parse_with_report(self, text: str | BaseMessage) -> tuple[Any, ParseReport]:
        """The value of a message's call (as ``parse_result`` gives it), or of an
        arguments string, and what was repaired to obtain it (``None`` and an empty report
        under ``on_error="fallback"`` when it cannot be read)."""
        if isinstance(text, BaseMessage):
            return super().parse_with_report(text)
        final = _settled(self, _read(self.get_name(), text, strict=self.strict), text)
        return final.unwrap(), final.report

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
        return res

    def _missing_key(self, res: Any) -> FinalParse[Any]:
        return _failed(
            self.get_name(),
            f"Could not find key {self.key_name!r} in the function call arguments: {res}",
            json.dumps(res, default=str),
        )

    def _no_arguments(self, call: dict[str, Any]) -> Any:
        return _settled(self, self._missing_key(None), "").unwrap()

    def _final_call(self, message: BaseMessage, call: dict[str, Any] | None) -> FinalParse[Any]:
        final = super()._final_call(message, call)
        if final.error is not None:
            return final
        res = final.value
        if not isinstance(res, dict) or self.key_name not in res:
            return self._missing_key(res)
        return FinalParse(res[self.key_name], final.report, final.event)

    @property
    def _type(self) -> str:
        return "robust_json_key_functions"


class RobustPydanticOutputFunctionsParser(
    FunctionsParserOptions, ReportingParser, PydanticOutputFunctionsParser
):
    """``PydanticOutputFunctionsParser`` whose arguments go through the lenient JSON engine
    before validation; a validation failure is an ``OutputParserException`` (the parent lets
    pydantic's ``ValidationError`` out), or ``None`` with ``on_error="fallback"``."""

    @property
    def OutputType(self) -> Any:
        """The model class, or any of them when ``pydantic_schema`` maps names to models (the
        parent leaves a bare type variable, which has no JSON schema)."""
        schema = self.pydantic_schema
        return Any if isinstance(schema, dict) else schema

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """The model instance built from the call's arguments."""
        message = _generation_message(result)
        text = _cut_text(message, function_call(message))
        return _settled(self, self._final_call(message), text, message).unwrap()

    def _final_call(self, message: BaseMessage) -> FinalParse[Any]:
        """The final parse of the message's call, without side effects."""
        name, call = self.get_name(), function_call(message)
        if call is None or not isinstance(call.get("arguments"), str):
            reason = "Could not parse function call: no function_call with string arguments"
            return _failed(name, reason, content_text(message.content))
        raw = call["arguments"]
        schema, problem = chosen_schema(self.pydantic_schema, call.get("name"))
        if problem is not None:
            return _failed(name, problem, raw)
        final = _read(name, raw, strict=False)
        if final.error is not None:
            return final
        try:
            model = validate_model(schema, final.value)
        except (ValueError, TypeError) as exc:  # pydantic's ValidationError is a ValueError
            reason = f"Function call arguments do not match {schema.__name__}: {exc}"
            return _failed(name, reason, raw, exc)
        return FinalParse(model, final.report, final.event)

    def parse_with_report(self, text: str | BaseMessage) -> tuple[Any, ParseReport]:
        """The model of a message's call, or of an arguments string (when ``pydantic_schema``
        is one model), and what was repaired to obtain it."""
        if isinstance(text, str):
            text = AIMessage(content="", additional_kwargs={"function_call": self._call(text)})
        return super().parse_with_report(text)

    def _call(self, arguments: str) -> dict[str, Any]:
        """An arguments string as a call to the one model; several models need the message,
        whose call names one."""
        schema: Any = self.pydantic_schema
        if isinstance(schema, dict):
            raise output_parser_error(
                f"{self.get_name()}: give the message, not its arguments: the call's name "
                f"picks one of {sorted(schema)}",
                arguments,
            )
        return {"name": schema.__name__, "arguments": arguments}

    @property
    def _type(self) -> str:
        return "robust_pydantic_functions"
