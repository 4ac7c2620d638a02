"""Robust drop-ins for langchain-core's tool-call parsers: ``RobustJsonOutputToolsParser``,
``RobustJsonOutputKeyToolsParser`` and ``RobustPydanticToolsParser`` keep the fields and outputs of
``JsonOutputToolsParser``, ``JsonOutputKeyToolsParser`` and ``PydanticToolsParser`` and add
repairs, name matching, a text fallback, linear streaming and per-call reports (see the Tool
calls page). The calls' reading is the engine's (`tool_call_output`, `tool_call_resolution`,
`tool_stream_steps`); these classes translate it into LangChain's contract."""

from __future__ import annotations

import functools
import logging
from typing import Annotated, Any

from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.output_parsers import (
    JsonOutputKeyToolsParser,
    JsonOutputToolsParser,
    PydanticToolsParser,
)
from langchain_core.outputs import ChatGeneration, Generation
from langchain_core.utils.pydantic import TypeBaseModel
from pydantic import PrivateAttr, SkipValidation

from langchain_robust_parsers.engine.calls.dialects import decode_calls
from langchain_robust_parsers.engine.calls.parsed_call import CallDecodeError, DecodedCalls
from langchain_robust_parsers.engine.calls.tool_args import ToolNameMatcher, tool_name_matcher
from langchain_robust_parsers.engine.calls.tool_call_output import (
    CallChoice,
    ToolCallItem,
    ToolCallItemWithId,
    output_rules,
)
from langchain_robust_parsers.engine.calls.tool_call_reading import ToolCallsReader
from langchain_robust_parsers.engine.calls.tool_call_reports import (
    ToolCallReport,
    ToolsParseEvent,
    ToolsParseReport,
)
from langchain_robust_parsers.engine.calls.tool_call_resolution import (
    UnrecoverableCall,
    WorkingCall,
    message_calls,
)
from langchain_robust_parsers.engine.calls.tool_call_stream import ToolCallStream
from langchain_robust_parsers.engine.calls.tool_models import call_models, models_type, tool_map
from langchain_robust_parsers.engine.calls.tool_stream_steps import CallOutputRules, final_calls
from langchain_robust_parsers.engine.content_blocks import content_text
from langchain_robust_parsers.engine.errors import EngineError
from langchain_robust_parsers.engine.stats import TOOLS, ParseStats
from langchain_robust_parsers.parsers.boundary import engine_call, output_parser_error
from langchain_robust_parsers.parsers.final_parse import (
    GenerationMethods,
    GenerationReaders,
)
from langchain_robust_parsers.parsers.function_calls import bound_schemas, new_call_id
from langchain_robust_parsers.parsers.json_streaming import json_patch
from langchain_robust_parsers.parsers.report_events import FinalParse, fallback_on_error, publish
from langchain_robust_parsers.parsers.stop_reason import (
    OnTruncation,
    TruncatedOutputError,
    stop_reason_cut,
    truncation_error,
    truncation_mode,
)
from langchain_robust_parsers.parsers.tool_call_streaming import (
    CHAT_ONLY,
    StreamingToolsParser,
    partial_value,
)
from langchain_robust_parsers.parsers.vocabulary import (
    OnError,
    ReportingParser,
    TemplateOpensReasoning,
)

__all__ = [
    "FORMAT",
    "RobustJsonOutputKeyToolsParser",
    "RobustJsonOutputToolsParser",
    "RobustPydanticToolsParser",
    "ToolCallItem",
    "ToolCallItemWithId",
    "ToolCallReport",
    "ToolsParseEvent",
    "ToolsParseReport",
]

logger = logging.getLogger("langchain_robust_parsers")

FORMAT = TOOLS
"""The format name under which the three parsers count outcomes in `ParseStats`."""


def _schema_names(tools: tuple[Any, ...]) -> tuple[str, ...]:
    """The names of bound ``tools``; none when a tool has no schema (names then match
    exactly)."""
    try:
        return tuple(bound_schemas(tools) or ())
    except (ValueError, TypeError):  # not a tool langchain-core can describe
        logger.debug("tools: a bound tool has no schema; names matched exactly")
        return ()


def _decoded(parser: str, template_opens: bool | None, text: str) -> DecodedCalls | None:
    """The calls written in ``text``; ``None`` when call-like text does not decode (or the
    engine failed: a bug, logged once by the boundary)."""
    try:
        with engine_call(parser, "reading calls written in the text"):
            return decode_calls(text, template_opens_reasoning=template_opens)
    except CallDecodeError as err:
        logger.debug("text fallback: call-like text did not decode: %s", err)
    except EngineError:
        pass
    return None


def _no_model_patch(prev: Any, next: Any) -> Any:
    raise NotImplementedError("diff=True is not supported for Pydantic tool calls")


# --------------------------------------------------------------------------- the parsers


class RobustJsonOutputToolsParser(
    StreamingToolsParser, GenerationMethods, ReportingParser, JsonOutputToolsParser
):
    """Parse the tool calls of a chat message, surviving what models really write.

    A drop-in ``JsonOutputToolsParser``: ``[{"type": name, "args": {...}}]`` (``"id"`` too under
    ``return_id``; the first call or ``None`` under ``first_tool_only``). Calls in
    ``invalid_tool_calls`` are repaired, names matched to the bound tools, calls written in the
    text read (``text_fallback``; ``parse(text)`` reads the calls written in ``text``, which
    langchain-core's parser cannot); an unrecoverable call raises ``OutputParserException``
    naming the tool, with its raw arguments as ``llm_output``.
    """

    text_fallback: bool = True
    """Read calls written in the message text when it has no tool calls (final parses only)."""

    on_truncation: OnTruncation = "complete"
    """A cut-off answer (arguments cut off, or a stop reason such as ``finish_reason="length"``):
    ``"complete"`` it (the report says ``truncated``), or ``"raise"`` ``TruncatedOutputError``
    (under ``on_error="fallback"`` too). Calls written in the text that closed in blocks of their
    own before the cut are whole and returned either way."""

    tool_names: list[str] | None = None
    """Names of the bound tools: written names are matched to them (case, ``_ - .``)."""

    tools: list[Any] | None = None
    """The bound tools (OpenAI tool dicts, Pydantic models, functions): names are matched to
    them, and calls read from the text typed by their schemas (``"2"`` to 2 for an integer)."""

    stats: ParseStats | None = None
    """Outcome counters (format ``tools``) updated on every final parse; shareable."""

    on_error: OnError = "raise"
    """A final parse that fails: ``"raise"`` ``OutputParserException``, or ``"fallback"``: return
    ``[]`` (``None`` under ``first_tool_only``), counted as ``fallback``."""

    template_opens_reasoning: TemplateOpensReasoning = None
    """Whether the chat template opened the model's reasoning (a lone ``</think>``), for calls
    read from the text: see `TemplateOpensReasoning`."""

    @property
    def _type(self) -> str:
        return "robust_json_output_tools"

    @property
    def OutputType(self) -> Any:
        """A list of `_item_type`, or one item or ``None`` under ``first_tool_only``."""
        item: Any = self._item_type()
        return item | None if self.first_tool_only else list[item]

    def _item_type(self) -> Any:
        """``ToolCallItem`` (``ToolCallItemWithId`` under ``return_id``)."""
        return ToolCallItemWithId if self.return_id else ToolCallItem

    # ---------------------------------------------------------------- LangChain interface

    def _readers(self) -> GenerationReaders[Any]:
        return GenerationReaders(self._parse_partial, self._parse_final, self.stats)

    def parse_with_report(  # type: ignore[override]  # a report per call, not one ParseReport
        self, text: str | BaseMessage
    ) -> tuple[Any, ToolsParseReport]:
        """The calls of ``text``, a message (a ``str`` is read as the text of one), with what
        was repaired, renamed or coerced per call. Counted and dispatched like a final parse."""
        message = AIMessage(content=text) if isinstance(text, str) else text
        final = self._parse_final(ChatGeneration(message=message))
        publish(final.event, self.stats)
        return final.unwrap(), final.report or ToolsParseReport()

    # ---------------------------------------------------------------- translation

    def _choice(self) -> CallChoice:
        """Which calls the output shows, and how."""
        return CallChoice(self.first_tool_only, self.return_id)

    def _output_rules(self) -> CallOutputRules:
        diff = json_patch if self.diff else None
        return output_rules(self._choice(), self._reader().match, diff=diff)

    _tools_names: tuple[tuple[int, ...], tuple[str, ...]] = PrivateAttr(default=((), ()))
    """The names of ``tools`` and the identities of the tools they were read from: converting
    tools to schemas is not cheap, and a Pydantic stream matches names on every chunk."""

    def _bound_names(self) -> tuple[str, ...]:
        """The names written names are matched to: ``tool_names``, then those of ``tools``."""
        tools = tuple(self.tools or ())
        key = tuple(map(id, tools))
        # Read from `__pydantic_private__`: `self._tools_names` goes through pydantic's
        # `__getattr__` after a failed lookup, several times the cost.
        cached_key, names = (self.__pydantic_private__ or {}).get("_tools_names", ((), ()))
        if cached_key != key:
            names = _schema_names(tools)
            self._tools_names = (key, names)
        return (*(self.tool_names or ()), *names)

    def _matcher(self) -> ToolNameMatcher:
        return tool_name_matcher(self._bound_names())

    def _reader(self) -> ToolCallsReader:
        """How this parser reads calls, for one parse or one stream."""
        decode = functools.partial(_decoded, self.get_name(), self.template_opens_reasoning)
        schemas = functools.partial(bound_schemas, self.tools)
        return ToolCallsReader(
            self._choice(), self._matcher(), self.strict, decode, schemas, new_call_id
        )

    def _parse_partial(self, generation: Generation) -> Any:
        """The calls a message prefix shows (see `ToolCallsReader.shown`); never an error."""
        if not isinstance(generation, ChatGeneration):
            if not self.text_fallback:
                raise output_parser_error(CHAT_ONLY, None)
            return self._output([], partial=True)
        read = functools.partial(partial_value, self.get_name())
        return self._output(
            self._reader().shown(message_calls(generation.message), read), partial=True
        )

    def _parse_final(self, generation: Generation) -> FinalParse[Any]:
        """Parse completely, without side effects; the caller publishes the event."""
        if not isinstance(generation, ChatGeneration):
            if not self.text_fallback:
                return self._failure(output_parser_error(CHAT_ONLY, None))
            return self._finish([], generation.text, None)
        calls = message_calls(generation.message)
        text = (
            content_text(generation.message.content) if not calls and self.text_fallback else None
        )
        return self._finish(calls, text, stop_reason_cut(generation), generation.text)

    def _stream_final(self, stream: ToolCallStream) -> FinalParse[Any]:
        """The final parse of a whole stream, from the calls it accumulated."""
        text = stream.text()
        return self._finish(final_calls(stream), text, stream.cut_stop_reason, text)

    def _finish(
        self, calls: list[WorkingCall], text: str | None, stop: str | None, cut: str | None = None
    ) -> FinalParse[Any]:
        """The final parse of ``calls`` (or of the calls written in ``text``). ``stop``: the
        provider's stop reason when the token limit cut the answer; under
        ``on_truncation="raise"`` a cut answer (``cut``, its text; ``None``: not checked) is the
        ``TruncatedOutputError`` failure."""
        reader = self._reader()
        selected, errors = reader.final(calls, text, stop)
        try:
            if errors:
                message = "\n\n".join(e.message for e in errors)
                raise output_parser_error(message, errors[0].llm_output)
            value = self._output(selected, partial=False, max_tokens=stop is not None)
        except OutputParserException as exc:
            final = self._failure(exc)
        else:
            report = ToolsParseReport(tuple(c.tool_report() for c in selected))
            final = FinalParse(value, report, ToolsParseEvent.of(self.get_name(), FORMAT, report))
        if cut is None or final.error or truncation_mode(self.on_truncation) != "raise":
            return final
        truncated = reader.cut(final.report, stop, cut, from_text=bool(text))
        if truncated is None:
            return final
        return self._failure(truncation_error(self.get_name(), cut, truncated, stop))

    def _failure(self, error: OutputParserException) -> FinalParse[Any]:
        event = ToolsParseEvent(self.get_name(), FORMAT, "failed", None, str(error))
        failed: FinalParse[Any] = FinalParse(None, None, event, error)
        if isinstance(error, TruncatedOutputError):
            return failed  # on_truncation="raise" asked for it
        degraded = self._choice().shape([])  # no call: [] (None under first_tool_only)
        return fallback_on_error(failed, self.on_error, degraded, ToolsParseReport())

    def _output(self, calls: list[WorkingCall], *, partial: bool, max_tokens: bool = False) -> Any:
        """Shape resolved calls as the parser returns them."""
        return self._choice().output(calls)


class RobustJsonOutputKeyToolsParser(RobustJsonOutputToolsParser, JsonOutputKeyToolsParser):
    """A drop-in ``JsonOutputKeyToolsParser``: the arguments of the calls to ``key_name`` (whole
    calls under ``return_id``; the first or ``None`` under ``first_tool_only``), with the repairs,
    name matching (``key_name`` is a bound name), text fallback and linear streaming of
    `RobustJsonOutputToolsParser`."""

    @property
    def _type(self) -> str:
        return "robust_json_output_key_tools"

    def _item_type(self) -> Any:
        """Arguments (``dict``), or whole calls under ``return_id``."""
        return ToolCallItemWithId if self.return_id else dict[str, Any]

    def _bound_names(self) -> tuple[str, ...]:
        return (*super()._bound_names(), self.key_name)

    def _choice(self) -> CallChoice:
        return CallChoice(self.first_tool_only, self.return_id, self.key_name)


class RobustPydanticToolsParser(RobustJsonOutputToolsParser, PydanticToolsParser):
    """A drop-in ``PydanticToolsParser``: each call validated into its tool's model (v2 or
    ``pydantic.v1``), with the repairs, name matching, text fallback and linear streaming of
    `RobustJsonOutputToolsParser`.

    A call that fails validation is coerced as ``RobustPydanticOutputParser`` coerces and
    validated again (its report names the coercions); one that still fails raises
    ``OutputParserException`` naming the tool and quoting its raw arguments.
    """

    tools: Annotated[list[TypeBaseModel], SkipValidation()]
    """The tool models (required, as in ``PydanticToolsParser``)."""

    @property
    def _type(self) -> str:
        return "robust_pydantic_tools"

    def _item_type(self) -> Any:
        return models_type(tuple(self.tools))

    def _output_rules(self) -> CallOutputRules:
        # Models are compared by value: two partial values can validate to equal models.
        output = functools.partial(self._output, partial=True)
        diff = _no_model_patch if self.diff else None
        return output_rules(self._choice(), self._reader().match, output=output, diff=diff)

    def _bound_names(self) -> tuple[str, ...]:
        return (*super()._bound_names(), *tool_map(tuple(self.tools)))

    def _output(self, calls: list[WorkingCall], *, partial: bool, max_tokens: bool = False) -> Any:
        choice, tools, arriving = self._choice(), tool_map(tuple(self.tools)), self._matcher()
        try:
            models = call_models(
                choice.select(calls),
                tools,
                partial=partial,
                max_tokens=max_tokens,
                arriving=arriving.may_grow_into_match,
            )
        except UnrecoverableCall as err:
            # Chained from the ValidationError, when validation failed.
            raise output_parser_error(err.message, err.llm_output, err.__cause__) from err.__cause__
        return choice.shape(models)
