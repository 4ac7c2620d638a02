"""``FunctionCallOutputParser`` and ``TextToolCallAdapter``: function calls written as text
(Python calls in BFCL's format, or a tool-call dialect of open models) as BFCL's
``[{"name": {args}}]``, LangChain ``ToolCall``s, or an ``AIMessage`` whose ``tool_calls`` are
filled, so the usual tool loop runs on models without native tool calling."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from langchain_core.messages import AIMessage, BaseMessage, InvalidToolCall, ToolCall
from langchain_core.messages.tool import invalid_tool_call, tool_call
from langchain_core.output_parsers import BaseOutputParser
from langchain_core.outputs import ChatGeneration, Generation
from langchain_core.runnables import RunnableConfig, RunnableSerializable
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel

from langchain_robust_parsers.engine.calls.call_instructions import call_instructions
from langchain_robust_parsers.engine.calls.call_policy import CallPolicy, InvalidCall
from langchain_robust_parsers.engine.calls.call_results import (
    BoundPolicy,
    MessageCalls,
    accepted_calls,
    bound_policy,
    call_outcome,
    failure_message,
    message_calls,
    new_call_id,
    undecoded_message,
)
from langchain_robust_parsers.engine.calls.dialect_names import Dialect
from langchain_robust_parsers.engine.calls.dialects import decode_calls
from langchain_robust_parsers.engine.calls.parsed_call import (
    DecodedCalls,
    ParsedCall,
    whole_before_cut,
)
from langchain_robust_parsers.engine.calls.schema_types import tool_schemas
from langchain_robust_parsers.engine.content_blocks import content_text, with_text
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
    GenerationMethods,
    GenerationReaders,
)
from langchain_robust_parsers.parsers.reasoning_content import without_reasoning
from langchain_robust_parsers.parsers.report_events import FinalParse, ParseEvent, apublish, publish
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

__all__ = ["BfclCall", "Dialect", "FunctionCallOutputParser", "TextToolCallAdapter", "new_call_id"]

BfclCall = dict[str, dict[str, Any]]
"""One call in BFCL's shape: ``{"function name": {"param": value}}``."""


def bound_schemas(tools: Sequence[Any] | None) -> dict[str, dict[str, Any]] | None:
    """The parameter schemas of bound tools (what ``bind_tools`` takes), by name, or ``None``."""
    if tools is None:
        return None
    return tool_schemas(convert_to_openai_tool(t) for t in tools)


def _tool_call(c: ParsedCall) -> ToolCall:
    return tool_call(name=c.name, args=c.args, id=c.id or new_call_id())


def _invalid_tool_call(c: InvalidCall) -> InvalidToolCall:
    return invalid_tool_call(name=c.name, args=c.args, id=c.id or new_call_id(), error=c.error)


def _shaped(output: str, calls: Sequence[ParsedCall]) -> list[Any]:
    """``calls`` in the parser's ``output`` shape: BFCL's or LangChain ``ToolCall``s."""
    if output == "tool_calls":
        return [_tool_call(c) for c in calls]
    return [{c.name: c.args} for c in calls]


def _native_calls(generation: Generation) -> Sequence[ParsedCall] | None:
    """The native ``tool_calls`` of a chat message, when it has any."""
    message = generation.message if isinstance(generation, ChatGeneration) else None
    if not isinstance(message, AIMessage) or not message.tool_calls:
        return None
    return [ParsedCall(tc["name"], dict(tc["args"]), tc.get("id")) for tc in message.tool_calls]


def _policy(reader: CallReadingOptions) -> BoundPolicy:
    """The call policy of ``reader``'s bound tools, and their names."""
    return bound_policy(bound_schemas(reader.tools), reader.allow_unknown_tools)


def _decode(reader: FunctionCallOutputParser | TextToolCallAdapter, text: str) -> DecodedCalls:
    """``decode_calls`` with ``reader``'s options at the exception boundary. With bound tools the
    call policy places positional arguments on their parameters, whatever ``positional`` says."""
    with engine_call(reader.get_name(), "reading function calls"):
        return decode_calls(
            text,
            dialect=reader.dialect,
            positional="map" if reader.tools else reader.positional,
            template_opens_reasoning=reader.template_opens_reasoning,
        )


class CallReadingOptions(StrictOptions, BaseModel):
    """The options `FunctionCallOutputParser` and `TextToolCallAdapter` read calls with."""

    dialect: Dialect = "auto"
    """Which syntax to read; ``auto`` detects it from the text."""

    positional: Literal["drop", "keep"] = "drop"
    """Python positional arguments of a call to an unbound tool: dropped as BFCL does, or kept
    as ``arg0``, ``arg1``...; with ``tools``, they go onto the tool's parameters in order."""

    tools: Sequence[Any] | None = None
    """The bound tools (OpenAI tool dicts, Pydantic models, functions, ``BaseTool``s): arguments
    are typed by their schemas (``"2"`` to 2 for an integer); a call to another tool is refused
    (the parser fails, the adapter records an ``InvalidToolCall``)."""

    allow_unknown_tools: bool = False
    """With ``tools``: accept calls to tools that are not among them."""

    template_opens_reasoning: TemplateOpensReasoning = None
    """Whether the chat template opened the model's reasoning (a lone ``</think>``): see
    `TemplateOpensReasoning`."""


class FunctionCallOutputParser(
    CallReadingOptions, GenerationMethods, ReportingParser, BaseOutputParser[Any]
):
    """Parse the function calls a model wrote as text.

    ```python
    from langchain_robust_parsers import FunctionCallOutputParser

    calls = FunctionCallOutputParser().parse('[get_weather(city="Paris", days=3)]')
    assert calls == [{"get_weather": {"city": "Paris", "days": 3}}]
    ```

    Reads Python call syntax (BFCL's format; a list or calls one a line, in a fence, in prose,
    after ``<think>``) and the tool-call dialects of open models (``docs/tool-call-dialects.md``)
    with the JSON engine's repairs; Python is read with ``ast.parse`` only, never run. A chat
    message that carries native ``tool_calls`` gives those. A failure raises
    ``OutputParserException`` (the raw text as ``llm_output``) whose message starts
    ``Failed to decode AST:`` or ``Failed to decode JSON:``, as BFCL's evaluators expect; text
    with no call is one unless ``allow_empty=True``.
    """

    output: Literal["bfcl", "tool_calls"] = "bfcl"
    """``bfcl``: ``[{"name": {args}}]``; ``tool_calls``: LangChain ``ToolCall`` dicts (the
    model's id when it gave one, else a fresh ``call_...``)."""

    on_error: OnError = "raise"
    """On failure: ``"raise"`` ``OutputParserException``, or ``"fallback"``: return its message
    (BFCL evaluators)."""

    allow_empty: bool = False
    """Return ``[]`` for text with no call instead of failing."""

    on_truncation: OnTruncation = "complete"
    """A cut-off answer (a call cut off, or a stop reason such as ``finish_reason="length"``):
    ``"complete"`` returns the whole calls (the report says ``truncated``), ``"raise"`` raises
    ``TruncatedOutputError``. Calls closed in blocks of their own before the cut are returned."""

    stats: ParseStats | None = None
    """Outcome counters (format ``function_calls``) updated on every final parse; shareable."""

    @property
    def _type(self) -> str:
        return "robust_function_calls"

    @property
    def OutputType(self) -> Any:
        """``list[BfclCall]`` or ``list[ToolCall]`` (``| str`` under ``on_error="fallback"``)."""
        item: Any = ToolCall if self.output == "tool_calls" else BfclCall
        calls: Any = list[item]
        return calls | str if self.on_error == "fallback" else calls

    def get_format_instructions(self) -> str:
        """Instructions for the prompt, in the configured dialect (Python for ``auto``)."""
        return call_instructions(self.dialect, allow_empty=self.allow_empty)

    def _readers(self) -> GenerationReaders[Any]:
        return GenerationReaders(self._parse_partial, self._parse_final, self.stats, self._unwrap)

    def parse_with_report(self, text: str | BaseMessage) -> tuple[Any, ParseReport]:
        """The calls in ``text`` with what was located and repaired to find them; raises
        ``OutputParserException`` on failure whatever ``on_error`` says."""
        final = self._parse_final(generation_of(text))
        publish(final.event, self.stats)
        return final.unwrap(), final.report or ParseReport()

    def _parse_partial(self, generation: Generation) -> Any:
        calls = _native_calls(generation)
        if calls is None:
            if self.template_opens_reasoning is None and not headless_settled(generation.text):
                return None  # it may still be reasoning the template opened: wait
            try:
                calls = _decode(self, generation.text).calls
            except EngineError:
                return None
            if self.tools:  # typed and placed as the final parse will show them
                calls = CallPolicy(bound_schemas(self.tools)).type(calls)[0]
        return _shaped(self.output, calls) if calls else None

    def _parse_final(self, generation: Generation) -> FinalParse[Any]:
        """Parse completely, without side effects; the caller publishes the event."""
        name = self.get_name()
        native = _native_calls(generation)
        if native is not None:
            return self._final(native, ParseEvent(name, FUNCTION_CALLS, "success"), generation)
        text = generation.text
        try:
            decoded = _decode(self, text)
            decoded = accepted_calls(decoded, *_policy(self), allow_empty=self.allow_empty)
        except EngineError as err:  # CallDecodeError, or a bug logged once by the boundary
            # Say why no call was found when the reader cannot see it (empty, refusal, reasoning)
            message = with_no_value_reason(failure_message(err), text, "a function call")
            return self._failed(message, output_parser_error(message, text))
        event = ParseEvent(name, FUNCTION_CALLS, call_outcome(decoded), decoded.report)
        return self._final(decoded.calls, event, generation)

    def _final(
        self, calls: Sequence[ParsedCall], event: ParseEvent, generation: Generation
    ) -> FinalParse[Any]:
        """The final parse of ``calls`` (``event`` says how it ended), or its failure under
        ``on_truncation="raise"`` when the answer was cut; calls that stood in blocks of their
        own before a cut call the reader dropped are whole, and returned."""
        report = event.report
        final = FinalParse(_shaped(self.output, calls), report, event)
        if whole_before_cut(report):
            return final
        cut = report is not None and bool(report.truncated)
        try:
            raise_if_truncated(
                event.parser, self.on_truncation, generation, generation.text, text_cut=cut
            )
        except TruncatedOutputError as error:
            return self._failed(str(error), error)
        return final

    def _failed(self, message: str, error: Exception) -> FinalParse[Any]:
        """The failure ``error``: under ``on_error="fallback"`` its ``message`` is the value."""
        fallback = self.on_error == "fallback"
        outcome: Outcome = "fallback" if fallback else "failed"
        event = ParseEvent(self.get_name(), FUNCTION_CALLS, outcome, None, message)
        return FinalParse(message if fallback else None, None, event, error)

    def _unwrap(self, final: FinalParse[Any]) -> Any:
        return final.value if self.on_error == "fallback" else final.unwrap()


def _rebuilt(message: AIMessage, found: MessageCalls) -> AIMessage:
    """A new ``AIMessage`` (never a chunk) with the original's metadata and invalid calls, the
    text ``found`` left (``None``: the content as it was), and the calls found."""
    text = found.content
    return AIMessage(
        content=message.content if text is None else with_text(message.content, text),
        tool_calls=[_tool_call(c) for c in found.calls],
        invalid_tool_calls=[*message.invalid_tool_calls, *map(_invalid_tool_call, found.invalid)],
        additional_kwargs=dict(message.additional_kwargs),
        response_metadata=dict(message.response_metadata),
        usage_metadata=message.usage_metadata,
        id=message.id,
        name=message.name,
    )


class TextToolCallAdapter(CallReadingOptions, RunnableSerializable[BaseMessage | str, BaseMessage]):
    """Turn an ``AIMessage`` whose tool calls are written in its text into one whose
    ``tool_calls`` are filled, the call text removed from its ``content``.

    After a chat model without native tool calling, ``llm | TextToolCallAdapter()`` gives
    messages that ``ToolNode`` and ``tool.invoke(tool_call)`` understand; ids are the model's,
    else fresh ``call_...`` ids. Messages without calls, with native ``tool_calls`` or not from
    the AI pass through unchanged; call-like text that does not decode stays in the content
    and, with ``record_invalid``, adds an ``InvalidToolCall`` carrying the error.
    """

    record_invalid: bool = True
    """Add an ``InvalidToolCall`` for call-like text that does not decode."""

    on_truncation: OnTruncation = "raise"
    """A message stopped at the output token limit: ``"raise"`` sends its calls to
    ``invalid_tool_calls`` with the reason, ``"complete"`` keeps them in ``tool_calls``. Calls
    closed in blocks of their own before the cut stay in ``tool_calls`` either way."""

    stats: ParseStats | None = None
    """Outcome counters (format ``function_calls``); a message without calls is a ``success``."""

    keep_reasoning_in_content: bool = False
    """Leave the reasoning the model wrote (``<think>...</think>``...) in ``content``, instead of
    moving it to ``additional_kwargs["reasoning_content"]`` without its markers."""

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
            adapted = without_reasoning(
                adapted, original, self.template_opens_reasoning, self.dialect
            )
        return adapted, event

    def _adapt(self, message: BaseMessage | str) -> tuple[BaseMessage, ParseEvent]:
        name = self.get_name()
        if isinstance(message, str):
            message = AIMessage(content=message)
        if not isinstance(message, AIMessage) or message.tool_calls:
            return message, ParseEvent(name, FUNCTION_CALLS, "success")
        text = content_text(message.content)
        try:
            decoded = _decode(self, text)
        except EngineError as err:  # CallDecodeError, or a bug logged once by the boundary
            found = undecoded_message(text, err, record=self.record_invalid)
        else:
            refuse_cut = self.on_truncation == "raise" and stop_reason_cut(message) is not None
            found = message_calls(text, decoded, lambda: _policy(self), refuse_cut=refuse_cut)
        event = ParseEvent(name, FUNCTION_CALLS, found.outcome, found.report, found.error)
        if found.content is None and not found.invalid:
            return message, event
        return _rebuilt(message, found), event

    def _adapt_and_publish(self, message: BaseMessage | str) -> BaseMessage:
        adapted, event = self.adapt(message)
        publish(event, self.stats)
        return adapted

    async def _aadapt(self, message: BaseMessage | str) -> BaseMessage:
        adapted, event = self.adapt(message)
        await apublish(event, self.stats)
        return adapted
