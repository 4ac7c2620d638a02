"""``FunctionCallOutputParser`` and ``TextToolCallAdapter``: function calls written as text.

Prompted models write their calls as text: Python call syntax (``[get_weather(city="Paris")]``,
the Berkeley Function Calling Leaderboard's format) or one of the JSON tool-call dialects of open
models (``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` and its relatives). The
parser turns such text into BFCL's ``[{"get_weather": {"city": "Paris"}}]`` or LangChain
``ToolCall`` dicts; the adapter turns an ``AIMessage`` holding calls in its text into one whose
``tool_calls`` are filled, so the usual tool loop runs on models without native tool calling.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Sequence
from typing import Any, Literal, Protocol

from langchain_core.messages import AIMessage, BaseMessage, InvalidToolCall, ToolCall
from langchain_core.messages.tool import invalid_tool_call, tool_call
from langchain_core.output_parsers import BaseOutputParser
from langchain_core.outputs import ChatGeneration, Generation
from langchain_core.runnables import RunnableConfig, RunnableSerializable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict

from langchain_robust_parsers.engine.calls.call_policy import CallPolicy, VettedCalls
from langchain_robust_parsers.engine.calls.call_stream import answer_content, content_without_calls
from langchain_robust_parsers.engine.calls.cut_calls import cut_call_problem
from langchain_robust_parsers.engine.calls.dialect_registry import dialect_record
from langchain_robust_parsers.engine.calls.dialects import decode_calls
from langchain_robust_parsers.engine.calls.parsed_call import (
    ERROR_PREFIX,
    CallDecodeError,
    CallKind,
    DecodedCalls,
    ParsedCall,
    whole_before_cut,
)
from langchain_robust_parsers.engine.calls.python_calls import Positional
from langchain_robust_parsers.engine.calls.schema_types import tool_schemas
from langchain_robust_parsers.engine.content_blocks import content_text
from langchain_robust_parsers.engine.errors import EngineError
from langchain_robust_parsers.engine.lexicon.reasoning import headless_settled
from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.engine.stats import FUNCTION_CALLS, Outcome, ParseStats
from langchain_robust_parsers.parsers.boundary import (
    engine_call,
    output_parser_error,
    with_no_value_reason,
)
from langchain_robust_parsers.parsers.final_parse import (
    GenerationReaders,
    aparse_generation,
    parse_generation,
)
from langchain_robust_parsers.parsers.reasoning_content import without_reasoning
from langchain_robust_parsers.parsers.report_events import (
    FinalParse,
    ParseEvent,
    apublish,
    publish,
)
from langchain_robust_parsers.parsers.stop_reason import (
    OnTruncation,
    TruncatedOutputError,
    raise_if_truncated,
    stop_reason_cut,
)
from langchain_robust_parsers.parsers.vocabulary import (
    OnError,
    ReportingParser,
    StrictOptions,
    TemplateOpensReasoning,
    generation_of,
)

__all__ = [
    "BfclCall",
    "Dialect",
    "FunctionCallOutputParser",
    "TextToolCallAdapter",
    "new_call_id",
]

FORMAT = FUNCTION_CALLS
"""The format name under which both classes count outcomes in `ParseStats`."""

Dialect = Literal[
    "auto",
    "python",
    "json",
    "tool_call",
    "seed_tool_call",
    "function_xml",
    "minimax",
    "minimax_ns",
    "dsml",
    "dsml_spaced",
    "deepseek",
    "kimi",
    "xtml",
    "step3",
    "gemma",
    "mistral",
    "python_tag",
    "python_start",
    "pipe_tool_call",
    "functools",
    "ifm",
    "minicpm",
    "tool_call_start",
    "tool_calls",
    "hunyuan",
    "gemma4",
    "atem",
    "inkling",
    "functionary",
    "dots",
    "pangu",
    "cwm",
    "function_calls",
    "function_call",
    "toolcall",
    "apertus",
    "internlm",
    "longcat",
    "command",
    "gigachat",
    "harmony",
    "bare",
]
"""``auto`` detects; ``python`` / ``json`` decode only that syntax, whatever wraps it; the others
name one dialect marker (see `langchain_robust_parsers.engine.calls.dialects`)."""

BfclCall = dict[str, dict[str, Any]]
"""One call in BFCL's shape: ``{"function name": {"param": value}}``."""

CALL_ID_PREFIX = "call_"
CALL_ID_HEX_CHARS = 24
"""Ids made for calls the model gave none: ``call_`` and 24 hex digits, like OpenAI's."""


def new_call_id() -> str:
    """A fresh, unique tool-call id such as ``call_3f2a9c...``."""
    return CALL_ID_PREFIX + uuid.uuid4().hex[:CALL_ID_HEX_CHARS]


def bound_schemas(tools: Sequence[Any] | None) -> dict[str, dict[str, Any]] | None:
    """The parameter schemas of bound tools (dicts, Pydantic models, functions,
    ``BaseTool``s), by name; ``None`` when no tools are given."""
    if tools is None:
        return None
    return tool_schemas(convert_to_openai_tool(t) for t in tools)


def _policy(tools: Sequence[Any] | None, allow_unknown: bool) -> tuple[CallPolicy, frozenset[str]]:
    schemas = bound_schemas(tools)
    if schemas is None:
        return CallPolicy(), frozenset()
    return CallPolicy(schemas, allow_unknown), frozenset(schemas)


LIMIT_REASON = cut_call_problem()
"""The error of a call moved to ``invalid_tool_calls`` because the token limit cut the answer."""


def _cut_call(call: ToolCall) -> InvalidToolCall:
    args = f"{call['name']}({json.dumps(call['args'], ensure_ascii=False, default=str)})"
    return invalid_tool_call(name=call["name"], args=args, id=call["id"], error=LIMIT_REASON)


def _tool_call(call: ParsedCall) -> ToolCall:
    return tool_call(name=call.name, args=call.args, id=call.id or new_call_id())


def _outcome(decoded: DecodedCalls) -> Outcome:
    """``success`` for calls taken cleanly from the text, its dialect's markers or a fence;
    ``recovered`` when they were found in prose or anything was repaired or cut off."""
    report = decoded.report
    if report.repairs or report.truncated or report.source == "span":
        return "recovered"
    return "success"


_INSTRUCTIONS_PYTHON = (
    "Respond only with the function calls to make, as a Python list, with keyword arguments:\n"
    "[func_name1(param1=value1, param2=value2), func_name2(param=value)]\n"
    "Write strings in quotes. Do not add any other text."
)
_INSTRUCTIONS_JSON = (
    "Respond only with the function calls to make, as a JSON list:\n"
    '[{"name": "func_name1", "arguments": {"param1": "value1"}}, '
    '{"name": "func_name2", "arguments": {}}]\n'
    "Do not add any other text."
)
_INSTRUCTIONS_TAG = (
    "Respond with each function call to make as a JSON object inside {open} and {close} tags:\n"
    '{open}\n{{"name": "func_name", "arguments": {{"param1": "value1"}}}}\n{close}\n'
    "Use one block per call."
)
_EMPTY_PYTHON = "\nIf no function applies, respond with []."
_EMPTY_JSON = "\nIf no function applies, respond with []."


class _CallReader(Protocol):
    """The options a class that reads calls from text holds (the parser and the adapter)."""

    @property
    def dialect(self) -> str: ...
    @property
    def positional(self) -> Literal["drop", "keep"]: ...
    @property
    def tools(self) -> Sequence[Any] | None: ...
    @property
    def template_opens_reasoning(self) -> bool | None: ...
    def get_name(self) -> str: ...


def _decode(reader: _CallReader, text: str) -> DecodedCalls:
    """``decode_calls`` with ``reader``'s options at the exception boundary: raises
    ``CallDecodeError`` for call-like text that does not decode, ``EngineBugError`` (after
    logging once) for an engine bug. With bound tools, positional arguments are placed on the
    tool's parameters whatever ``positional`` says (the call policy places them, or makes the
    call invalid when they do not fit): a bound signature says what they mean, so they are
    never dropped nor renamed."""
    mode: Positional = "map" if reader.tools else reader.positional
    with engine_call(reader.get_name(), "reading function calls"):
        return decode_calls(
            text,
            dialect=reader.dialect,
            positional=mode,
            template_opens_reasoning=reader.template_opens_reasoning,
        )


def _unexpected(err: EngineError, prefix: CallKind | None = None) -> str:
    """The reason shown for an engine bug (``err`` wraps it), BFCL-worded with ``prefix``."""
    reason = f"Unexpected error: {err.__cause__ if err.__cause__ is not None else err!r}"
    return reason if prefix is None else ERROR_PREFIX[prefix] + reason


class FunctionCallOutputParser(ReportingParser, BaseOutputParser[Any]):
    """Parse the function calls a model wrote as text.

    ```python
    from langchain_robust_parsers import FunctionCallOutputParser

    calls = FunctionCallOutputParser().parse('[get_weather(city="Paris", days=3)]')
    assert calls == [{"get_weather": {"city": "Paris", "days": 3}}]
    ```

    Reads Python call syntax (BFCL's format: a list, one call, calls separated by commas, lines
    or ``;``, in a fence with any language tag, in prose, after ``<think>``) and the tool-call
    dialects of open models, one record each in
    `dialect_registry` (``<tool_call>`` with JSON,
    Qwen3-Coder's XML parameters or GLM's ``<arg_key>``; Seed-OSS, MiniMax-M2, DeepSeek V3 to
    V3.2, Kimi K2, gpt-oss harmony, FunctionGemma, Mistral, Llama 3/4, Granite, Phi-4-mini,
    Apertus, OLMo 3, InternLM2, LongCat, bare lists, ``{"tool_calls": [...]}``, OpenAI's
    shape; see ``docs/tool-call-dialects.md``) with the JSON engine's repairs. Python text is
    read with ``ast.parse`` only: nothing in it is evaluated or run.

    Output: BFCL's ``[{"name": {args}}]`` by default, or LangChain ``ToolCall`` dicts with
    ``output="tool_calls"`` (the model's id when it gave one, else a fresh ``call_...``). A chat
    message that already carries native ``tool_calls`` gives those.

    Errors: ``OutputParserException`` with the raw text as ``llm_output`` and a message that
    starts ``Failed to decode AST:`` (Python) or ``Failed to decode JSON:`` (JSON), or, with
    ``on_error="fallback"``, that message (BFCL's error string) as the return value, counted as
    ``fallback``. Text with no call is an
    error unless ``allow_empty=True``, which returns ``[]`` (a valid answer, not a fallback).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    dialect: Dialect = "auto"
    """Which syntax to read; ``auto`` detects it from the text."""

    output: Literal["bfcl", "tool_calls"] = "bfcl"
    """``bfcl``: ``[{"name": {args}}]``; ``tool_calls``: LangChain ``ToolCall`` dicts."""

    positional: Literal["drop", "keep"] = "drop"
    """Python positional arguments of a call to an unbound tool: dropped as BFCL does, or kept
    as ``arg0``, ``arg1``... With ``tools`` they go onto the tool's parameters in order
    (``area(10, 5)`` -> ``{"width": 10, "height": 5}``), and a call with more than the tool
    takes is an error naming the call."""

    on_error: OnError = "raise"
    """On failure: ``"raise"`` ``OutputParserException``, or ``"fallback"``: return its message
    (BFCL evaluators)."""

    allow_empty: bool = False
    """Return ``[]`` for text with no call instead of failing."""

    on_truncation: OnTruncation = "complete"
    """A cut-off answer (a call cut off in the text, or a provider stop reason such as
    ``finish_reason="length"``): ``"complete"`` returns the calls that were whole (the report
    says ``truncated``), ``"raise"`` raises ``TruncatedOutputError`` (or returns its message
    under ``on_error="fallback"``), so an agent never runs half a call. Calls that closed in
    blocks of their own before the cut are whole and are returned either way, as
    ``TextToolCallAdapter`` keeps them."""

    stats: ParseStats | None = None
    """Outcome counters (format ``function_calls``) updated on every final parse; shareable."""

    template_opens_reasoning: TemplateOpensReasoning = None
    """Whether the chat template opened the model's reasoning (a lone ``</think>``): see
    `TemplateOpensReasoning`."""

    tools: Sequence[Any] | None = None
    """The bound tools (OpenAI tool dicts, Pydantic models, functions, ``BaseTool``s): the
    arguments are typed by their schemas (``"2"`` to 2 for an integer; the report names each
    coercion ``coerce:<tool>.<argument>:<type>``), and a call to another tool fails."""

    allow_unknown_tools: bool = False
    """With ``tools``: accept calls to tools that are not among them."""

    # ---------------------------------------------------------------- LangChain interface

    @property
    def _type(self) -> str:
        return "robust_function_calls"

    @property
    def OutputType(self) -> Any:
        """``list[dict[str, dict[str, Any]]]`` or ``list[ToolCall]`` (``| str`` when errors are
        returned), following ``output`` and ``on_error``."""
        item: Any = ToolCall if self.output == "tool_calls" else BfclCall
        calls: Any = list[item]
        return calls | str if self.on_error == "fallback" else calls

    def get_format_instructions(self) -> str:
        """Instructions for the prompt, in the configured dialect (Python for ``auto``)."""
        record = dialect_record(self.dialect)  # None for auto (Python, as BFCL) and bare
        if record is not None:
            asked = record.instructions
        else:
            asked = "python_list" if self.dialect == "auto" else "json_list"
        if asked == "python_list":
            text = _INSTRUCTIONS_PYTHON
            empty = _EMPTY_PYTHON
        elif asked == "json_in_tags" and record is not None and record.markers[0].close:
            tag = record.markers[0]
            return _INSTRUCTIONS_TAG.format(open=tag.open, close=tag.close[0])
        else:
            text, empty = _INSTRUCTIONS_JSON, _EMPTY_JSON
        return text + (empty if self.allow_empty else "")

    def parse(self, text: str) -> Any:
        """The calls in ``text`` (see the class docs for shapes and errors)."""
        return self.parse_result([Generation(text=text)])

    async def aparse(self, text: str) -> Any:
        """Async `parse`."""
        return await self.aparse_result([Generation(text=text)])

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """The calls in ``result[0]``: its message's native ``tool_calls`` when it has any, else
        those written in its text. ``partial=True`` returns ``None`` instead of failing."""
        return parse_generation(result, partial, self._readers())

    async def aparse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """Async `parse_result`: parses in an executor, dispatches the event async."""
        return await aparse_generation(result, partial, self._readers())

    def _readers(self) -> GenerationReaders[Any]:
        return GenerationReaders(self._parse_partial, self._parse_final, self.stats, self._unwrap)

    def parse_with_report(self, text: str | BaseMessage) -> tuple[Any, ParseReport]:
        """The calls in ``text`` with what was located and repaired to find them.

        Raises ``OutputParserException`` on failure whatever ``on_error`` says (there is no
        report without calls). Text with no call under ``allow_empty`` gives ``[]`` and an
        empty report.
        """
        final = self._parse_final(generation_of(text))
        publish(final.event, self.stats)
        if final.error is not None:
            raise final.error
        return final.value, final.report or ParseReport()

    # ---------------------------------------------------------------- work

    def _shape(self, calls: Sequence[ParsedCall]) -> list[Any]:
        if self.output == "tool_calls":
            return [_tool_call(c) for c in calls]
        return [{c.name: c.args} for c in calls]

    def _native(self, generation: Generation) -> list[Any] | None:
        """Native ``tool_calls`` of a chat message, in the configured output shape."""
        if not isinstance(generation, ChatGeneration):
            return None
        message = generation.message
        if not isinstance(message, AIMessage) or not message.tool_calls:
            return None
        return self._shape(
            [ParsedCall(tc["name"], dict(tc["args"]), tc.get("id")) for tc in message.tool_calls]
        )

    def _parse_partial(self, generation: Generation) -> Any:
        native = self._native(generation)
        if native is not None:
            return native
        opens = self.template_opens_reasoning
        if opens is None and not headless_settled(generation.text):
            return None  # it may still be reasoning the template opened: wait
        try:
            decoded = _decode(self, generation.text)
        except EngineError:
            return None
        calls: Sequence[ParsedCall] = decoded.calls
        if self.tools:  # typed and placed as the final parse will show them
            calls = _policy(self.tools, self.allow_unknown_tools)[0].type(calls)[0]
        return self._shape(calls) if calls else None

    def _failure(self, text: str, kind: CallKind, reason: str, name: str) -> FinalParse[Any]:
        # The reader only knows it found no call; say why when it cannot see it (an empty
        # answer, a refusal, reasoning only), as the JSON parsers do.
        message = with_no_value_reason(ERROR_PREFIX[kind] + reason, text, "a function call")
        error = output_parser_error(message, text)
        if self.on_error == "fallback":
            event = ParseEvent(name, FORMAT, "fallback", None, message)
            return FinalParse(message, None, event, error)
        return FinalParse(None, None, ParseEvent(name, FORMAT, "failed", None, message), error)

    def _parse_final(self, generation: Generation) -> FinalParse[Any]:
        """Parse completely, without side effects; the caller publishes the event."""
        name = self.get_name()
        native = self._native(generation)
        if native is not None:
            final = FinalParse(native, None, ParseEvent(name, FORMAT, "success"))
            return self._check_truncation(final, generation, text_cut=False)
        text = generation.text
        try:
            decoded = _decode(self, text)
        except CallDecodeError as err:
            return self._failure(text, err.kind, err.reason, name)
        except EngineError as err:  # a bug, logged once by the boundary
            return self._failure(text, "ast", _unexpected(err), name)
        if not decoded.calls and not self.allow_empty:
            return self._failure(text, decoded.kind, "No function call found in the text.", name)
        policy, names = _policy(self.tools, self.allow_unknown_tools)
        vetted = policy.vet(decoded, names) if names else VettedCalls(decoded.calls)
        unknown = [c for c in vetted.invalid if c.name is not None]
        if unknown:
            return self._failure(text, decoded.kind, unknown[0].error, name)
        if names:
            decoded = dataclasses.replace(decoded, calls=vetted.calls, report=vetted.report)
        report = decoded.report
        outcome = _outcome(decoded) if decoded.calls else "success"
        event = ParseEvent(name, FORMAT, outcome, report)
        final = FinalParse(self._shape(decoded.calls), report, event)
        if whole_before_cut(report):  # the unfinished call was dropped: the rest are whole
            return final
        return self._check_truncation(final, generation, text_cut=bool(report.truncated))

    def _check_truncation(
        self, final: FinalParse[Any], generation: Generation, *, text_cut: bool
    ) -> FinalParse[Any]:
        """``final``, or the failure for a cut-off answer under ``on_truncation="raise"``."""
        try:
            raise_if_truncated(
                self.get_name(), self.on_truncation, generation, generation.text, text_cut=text_cut
            )
        except TruncatedOutputError as error:
            fallback = self.on_error == "fallback"
            outcome: Outcome = "fallback" if fallback else "failed"
            event = ParseEvent(self.get_name(), FORMAT, outcome, None, str(error))
            return FinalParse(str(error) if fallback else None, None, event, error)
        return final

    def _unwrap(self, final: FinalParse[Any]) -> Any:
        if final.error is not None and self.on_error == "raise":
            raise final.error
        return final.value


# ----------------------------------------------------------------------------- adapter


def _remaining_content(
    content: str | list[str | dict[Any, Any]], remaining: str
) -> str | list[str | dict[Any, Any]]:
    """New content: the remaining text, after the original's non-text blocks (reasoning,
    images...) when it had any."""
    if isinstance(content, str):
        return remaining
    others: list[str | dict[Any, Any]] = [
        b for b in content if isinstance(b, dict) and b.get("type") != "text"
    ]
    if not others:
        return remaining
    if remaining:
        others.append({"type": "text", "text": remaining})
    return others


class TextToolCallAdapter(StrictOptions, RunnableSerializable[BaseMessage | str, BaseMessage]):
    """Turn an ``AIMessage`` whose tool calls are written in its text into one whose
    ``tool_calls`` are filled, the call text removed from its ``content``.

    Put it after a chat model that has no native tool calling (or is prompted to write calls)
    and the usual tool loop works: ``llm | TextToolCallAdapter()`` gives messages that
    ``ToolNode`` / ``tool.invoke(tool_call)`` understand. Ids are the model's when it wrote
    them, else fresh ``call_...`` ids. A message without calls, a message that already has
    native ``tool_calls``, and messages other than AI messages pass through unchanged. Call-like
    text that cannot be decoded leaves the content as it is and, with ``record_invalid``, adds
    an ``InvalidToolCall`` carrying the error, as LangChain does for malformed native calls.
    """

    dialect: Dialect = "auto"
    """Which syntax to read; ``auto`` detects it from the text."""

    positional: Literal["drop", "keep"] = "drop"
    """Python positional arguments of a call to an unbound tool: dropped, or kept as ``arg0``,
    ``arg1``... With ``tools`` they go onto the tool's parameters in order, and a call with more
    than the tool takes goes to ``invalid_tool_calls`` with the reason."""

    record_invalid: bool = True
    """Add an ``InvalidToolCall`` for call-like text that does not decode."""

    tools: Sequence[Any] | None = None
    """The bound tools (OpenAI tool dicts, Pydantic models, functions, ``BaseTool``s): the
    arguments are typed by their schemas, and a call to another tool becomes an
    ``InvalidToolCall`` with the reason."""

    allow_unknown_tools: bool = False
    """With ``tools``: calls to tools that are not among them go to ``tool_calls``."""

    on_truncation: OnTruncation = "raise"
    """A message that stopped at the output token limit (``finish_reason`` ``length``,
    ``stop_reason`` ``max_tokens``) may hold calls whose arguments are incomplete:
    ``"raise"`` sends them to ``invalid_tool_calls`` with the reason (an agent never runs half
    a call), ``"complete"`` keeps them in ``tool_calls``. Calls that closed in blocks of their
    own before the cut are whole and stay in ``tool_calls`` either way."""

    stats: ParseStats | None = None
    """Outcome counters (format ``function_calls``); a message without calls counts as
    ``success``."""

    keep_reasoning_in_content: bool = False
    """Reasoning the model wrote in its text (``<think>...</think>``, ``[THINK]...[/THINK]``,
    harmony's analysis channel...) is moved to ``additional_kwargs["reasoning_content"]``
    without its markers, and ``content`` keeps the answer only. Set this to leave the reasoning
    in ``content`` as the model wrote it."""

    template_opens_reasoning: TemplateOpensReasoning = None
    """Whether the chat template opened the model's reasoning (a lone ``</think>``): see
    `TemplateOpensReasoning`."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    @property
    def InputType(self) -> Any:
        return BaseMessage | str

    @property
    def OutputType(self) -> Any:
        return BaseMessage

    def invoke(
        self, input: BaseMessage | str, config: RunnableConfig | None = None, **kwargs: Any
    ) -> BaseMessage:
        """The message with its text calls moved into ``tool_calls``."""
        return self._call_with_config(self._adapt_and_publish, input, config, **kwargs)

    async def ainvoke(
        self, input: BaseMessage | str, config: RunnableConfig | None = None, **kwargs: Any
    ) -> BaseMessage:
        """Async `invoke`."""
        return await self._acall_with_config(self._aadapt, input, config, **kwargs)

    def adapt(self, message: BaseMessage | str) -> tuple[BaseMessage, ParseEvent]:
        """The adapted message and the parse event (not published): the work of ``invoke``."""
        adapted, event = self._adapt(message)
        if isinstance(adapted, AIMessage) and not self.keep_reasoning_in_content:
            original = message if isinstance(message, str) else content_text(message.content)
            adapted = without_reasoning(adapted, original, self.template_opens_reasoning)
        return adapted, event

    def _adapt(self, message: BaseMessage | str) -> tuple[BaseMessage, ParseEvent]:
        name = self.get_name()
        if isinstance(message, str):
            message = AIMessage(content=message)
        if not isinstance(message, AIMessage) or message.tool_calls:
            return message, ParseEvent(name, FORMAT, "success")
        text = content_text(message.content)
        try:
            decoded = _decode(self, text)
        except EngineError as err:  # CallDecodeError, or a bug logged once by the boundary
            reason = err.message if isinstance(err, CallDecodeError) else _unexpected(err, "ast")
            event = ParseEvent(name, FORMAT, "failed", None, reason)
            return self._with_invalid(message, text, reason), event
        if content_without_calls(decoded, text):  # harmony's final text; a marker cut at the end
            content = _remaining_content(message.content, answer_content(text, decoded))
            adapted = self._rebuild(
                message,
                content=content,
                tool_calls=[],
                invalid_tool_calls=list(message.invalid_tool_calls),
            )
            return adapted, ParseEvent(name, FORMAT, "success")
        if not decoded.calls:
            return message, ParseEvent(name, FORMAT, "success")
        remaining = answer_content(text, decoded)
        policy, names = _policy(self.tools, self.allow_unknown_tools)
        vetted = policy.vet(decoded, names)
        invalid = [
            invalid_tool_call(name=c.name, args=c.args, id=new_call_id(), error=c.error)
            for c in vetted.invalid
        ]
        calls = [_tool_call(c) for c in vetted.calls]
        cut = stop_reason_cut(message) is not None and not whole_before_cut(decoded.report)
        if calls and self.on_truncation == "raise" and cut:
            invalid += [_cut_call(c) for c in calls]
            calls = []
        adapted = self._rebuild(
            message,
            content=_remaining_content(message.content, remaining),
            tool_calls=calls,
            invalid_tool_calls=[*message.invalid_tool_calls, *invalid],
        )
        decoded = dataclasses.replace(decoded, report=vetted.report)
        return adapted, ParseEvent(name, FORMAT, _outcome(decoded), decoded.report)

    def _with_invalid(self, message: AIMessage, text: str, error: str) -> BaseMessage:
        if not self.record_invalid:
            return message
        invalid = invalid_tool_call(name=None, args=text, id=new_call_id(), error=error)
        return self._rebuild(
            message,
            content=message.content,
            tool_calls=[],
            invalid_tool_calls=[*message.invalid_tool_calls, invalid],
        )

    @staticmethod
    def _rebuild(
        message: AIMessage,
        *,
        content: str | list[str | dict[Any, Any]],
        tool_calls: list[ToolCall],
        invalid_tool_calls: list[InvalidToolCall],
    ) -> AIMessage:
        """A new ``AIMessage`` (never a chunk) with the original's metadata."""
        return AIMessage(
            content=content,
            tool_calls=tool_calls,
            invalid_tool_calls=invalid_tool_calls,
            additional_kwargs=dict(message.additional_kwargs),
            response_metadata=dict(message.response_metadata),
            usage_metadata=message.usage_metadata,
            id=message.id,
            name=message.name,
        )

    def _adapt_and_publish(self, message: BaseMessage | str) -> BaseMessage:
        adapted, event = self.adapt(message)
        publish(event, self.stats)
        return adapted

    async def _aadapt(self, message: BaseMessage | str) -> BaseMessage:
        adapted, event = self.adapt(message)
        await apublish(event, self.stats)
        return adapted
