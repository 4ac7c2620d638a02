"""``ReActOutputParser``: ReAct agent output as ``AgentAction``/``AgentFinish``, streamed.

One parser reads both ReAct layouts and their usual deviations (see
`langchain_robust_parsers.engine.agents.react`): JSON actions inline, fenced or
list-wrapped, and LangChain's classic ``Action:``/``Action Input:``/``Final Answer:`` text.
It replaces ``ReActSingleInputOutputParser`` and ``ReActJsonSingleInputOutputParser`` of
langchain-classic, with the same error contract for agent executors. Reading, deciding and
streaming a turn are `engine.agents.react_verdict`; the ReAct page documents the stream
contract (``stream_text``, the typed deltas `ThoughtDelta` and `AnswerDelta`, and
`ANSWER_STREAMED_KEY`).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import AsyncIterator, Iterator
from typing import Any, Literal

from langchain_core.agents import AgentAction, AgentFinish
from langchain_core.messages import BaseMessage
from langchain_core.output_parsers.transform import BaseTransformOutputParser
from langchain_core.outputs import ChatGeneration, Generation
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import run_in_executor
from pydantic import ConfigDict

from langchain_robust_parsers.engine.agents.react_instructions import (
    BOTH_ANSWER_AND_ACTION,
    MISSING_ACTION,
    MISSING_ACTION_INPUT,
    REACT_JSON_FORMAT_INSTRUCTIONS,
    REACT_TEXT_FORMAT_INSTRUCTIONS,
)
from langchain_robust_parsers.engine.agents.react_verdict import (
    ANSWER_STREAMED_KEY,
    StepValue,
    TurnOptions,
    TurnStream,
    Verdict,
    partial_value,
    read_turn,
)
from langchain_robust_parsers.engine.agents.text_delta import (
    UNTYPED,
    AnswerDelta,
    DeltaTyper,
    TextDelta,
    ThoughtDelta,
)
from langchain_robust_parsers.engine.report import merge_truncation
from langchain_robust_parsers.engine.stats import REACT, ParseStats
from langchain_robust_parsers.parsers.boundary import output_parser_error
from langchain_robust_parsers.parsers.json_streaming import StopReasonWatch
from langchain_robust_parsers.parsers.message_text import (
    atraced_transform,
    chunk_text,
    traced_transform,
)
from langchain_robust_parsers.parsers.report_events import (
    ParseEvent,
    apublish,
    check_refusal,
    publish,
)
from langchain_robust_parsers.parsers.stop_reason import (
    OnTruncation,
    stop_reason_cut,
    truncation_error,
)
from langchain_robust_parsers.parsers.vocabulary import (
    OnError,
    ReportingParser,
    TemplateOpensReasoning,
)

__all__ = [
    "ANSWER_STREAMED_KEY",
    "BOTH_ANSWER_AND_ACTION",
    "FORMAT",
    "MISSING_ACTION",
    "MISSING_ACTION_INPUT",
    "REACT_JSON_FORMAT_INSTRUCTIONS",
    "REACT_TEXT_FORMAT_INSTRUCTIONS",
    "AnswerDelta",
    "ReActOutputParser",
    "TextDelta",
    "ThoughtDelta",
    "classic_agent_output_parser",
]

FORMAT = REACT
"""The format name under which `ParseStats` counts ReAct parses."""

Step = AgentAction | AgentFinish | list[AgentAction]
"""What a parse gives: one action or the finish; with ``multiple=True`` a list of actions."""


class ReActOutputParser(ReportingParser, BaseTransformOutputParser[Step]):
    """Parse a ReAct agent's reply into an ``AgentAction`` or an ``AgentFinish``.

    ```python
    from langchain_robust_parsers import ReActOutputParser

    step = ReActOutputParser().parse('Action: {"action": "search", "action_input": "Paris"}')
    assert (step.tool, step.tool_input) == ("search", "Paris")  # an AgentAction
    ```

    Reads JSON actions (inline, fenced, list-wrapped) and the classic text layout (``Action:``
    + ``Action Input:``, ``Final Answer:``); ``<think>`` blocks are thought text, never markup.
    Text holding both a final answer and an action, or neither, raises
    ``OutputParserException`` with ``observation`` and ``send_to_llm=True``, as LangChain's
    agent executors expect. Streaming gives by default one item, what `parse` gives; with
    ``stream_text=True`` also `ThoughtDelta` and `AnswerDelta` strings as the text arrives, a
    tool's ``AgentAction`` as soon as it is complete, and a final ``AgentFinish``. The ReAct
    page documents the layouts, the errors and the whole stream contract.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    stream_text: bool = False
    """Also stream thought and answer text as ``str`` deltas."""

    stream_thoughts: bool = True
    """With ``stream_text``: include the thought text; ``False`` streams the final answer only
    (for a UI that shows just the answer, token by token)."""

    on_error: OnError = "raise"
    """``"fallback"``: take a reply with no ReAct markup (no marker, no action) as the final
    answer; ``"raise"``: raise ``OutputParserException`` for it, as LangChain's parser does."""

    instructions: Literal["text", "json"] = "json"
    """The layout `get_format_instructions` describes; both are always parsed."""

    on_truncation: OnTruncation = "complete"
    """A cut-off answer (an action's JSON cut off, or a provider stop reason):
    ``"complete"`` returns the step as read, ``"raise"`` raises ``TruncatedOutputError``."""

    template_opens_reasoning: TemplateOpensReasoning = None
    """Whether the chat template opened the model's reasoning (a lone ``</think>``): see
    `TemplateOpensReasoning`."""

    stats: ParseStats | None = None
    """Outcome counters (format ``"react"``) updated on every final parse and stream;
    shareable (the ReAct page says what counts as which outcome)."""

    multiple: bool = False
    """Give every action of the turn as one ``list[AgentAction]``, for multi-action agents;
    ``False`` gives the first action alone, as single-action agents expect."""

    @property
    def _type(self) -> str:
        return "robust_react"

    @property
    def OutputType(self) -> Any:
        """``AgentAction | AgentFinish`` (``list[AgentAction] | AgentFinish`` with
        ``multiple``); with ``stream_text`` the stream also holds ``str``."""
        step: Any = list[AgentAction] if self.multiple else AgentAction
        if self.stream_text:
            return step | AgentFinish | str
        return step | AgentFinish

    def get_format_instructions(self) -> str:
        """The ReAct layout to put in a prompt (``instructions`` chooses which)."""
        if self.instructions == "text":
            return REACT_TEXT_FORMAT_INSTRUCTIONS
        return REACT_JSON_FORMAT_INSTRUCTIONS

    def parse(self, text: str) -> Step:
        """The step in ``text``; raises ``OutputParserException`` (``send_to_llm=True``) when
        it holds both a final answer and an action, or neither."""
        return self._final(text, None, cut=False)

    async def aparse(self, text: str) -> Step:
        """Async `parse`: scans in an executor, dispatches the event async."""
        return await self._afinal(text, None, cut=False)

    def parse_result(  # type: ignore[override]  # a partial may have nothing to show yet
        self, result: list[Generation], *, partial: bool = False
    ) -> Step | None:
        """The step in ``result[0]``. With ``partial=True`` the text is a stream prefix: its
        first complete step, or ``None``; it never raises and counts nothing."""
        text = _generation_text(result[0])
        if partial:
            return self._partial(text)
        return self._final(text, stop_reason_cut(result[0]))

    async def aparse_result(  # type: ignore[override]  # as parse_result
        self, result: list[Generation], *, partial: bool = False
    ) -> Step | None:
        """Async `parse_result`."""
        text = _generation_text(result[0])
        if partial:
            return self._partial(text)
        return await self._afinal(text, stop_reason_cut(result[0]))

    def transform(
        self,
        input: Iterator[str | BaseMessage],
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> Iterator[Any]:
        """Stream the step (and, with ``stream_text``, text deltas) as the text arrives;
        message chunks become text before tracing, which would otherwise merge every message
        chunk into the previous ones."""
        # Deltas add up to the step (see TextDelta), typed after the tracing (see DeltaTyper).
        typer, watch = DeltaTyper(), StopReasonWatch()
        read = functools.partial(self._transform, typer=typer, watch=watch)
        return map(typer.typed, traced_transform(self, watch.chunks(input), config, "raise", read))

    async def atransform(
        self,
        input: AsyncIterator[str | BaseMessage],
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[Any]:
        """Async `transform`."""
        typer, watch = DeltaTyper(), StopReasonWatch()
        read = functools.partial(self._atransform, typer=typer, watch=watch)
        async for item in atraced_transform(self, watch.achunks(input), config, "raise", read):
            yield typer.typed(item)

    def _transform(
        self,
        input: Iterator[str | BaseMessage],
        typer: DeltaTyper = UNTYPED,
        watch: StopReasonWatch | None = None,
    ) -> Iterator[Any]:
        stream = TurnStream(self._options(), typer)
        for chunk in input:
            yield from map(_item, stream.feed(_chunk_text(chunk)))
        yield from map(_item, stream.close())
        verdict = stream.verdict()
        publish(self._event(verdict), self.stats)
        yield from self._settled(verdict, stream.scanner.text(), watch.reason if watch else None)

    async def _atransform(
        self,
        input: AsyncIterator[str | BaseMessage],
        typer: DeltaTyper = UNTYPED,
        watch: StopReasonWatch | None = None,
    ) -> AsyncIterator[Any]:
        stream = TurnStream(self._options(), typer)
        async for chunk in input:
            for item in stream.feed(_chunk_text(chunk)):
                yield _item(item)
        for item in stream.close():
            yield _item(item)
        verdict = stream.verdict()
        await apublish(self._event(verdict), self.stats)
        for step in self._settled(verdict, stream.scanner.text(), watch.reason if watch else None):
            yield step

    def _options(self) -> TurnOptions:
        fallback = self.on_error == "fallback"
        opens, multiple = self.template_opens_reasoning, self.multiple
        return TurnOptions(opens, multiple, fallback, self.stream_text, self.stream_thoughts)

    def _final(self, text: str, stop_reason: str | None, *, cut: bool = True) -> Step:
        verdict = read_turn(text, self._options())
        publish(self._event(verdict), self.stats)
        (step,) = self._settled(verdict, text, stop_reason, cut=cut)
        return step

    async def _afinal(self, text: str, stop_reason: str | None, *, cut: bool = True) -> Step:
        verdict = await run_in_executor(None, read_turn, text, self._options())
        await apublish(self._event(verdict), self.stats)
        (step,) = self._settled(verdict, text, stop_reason, cut=cut)
        return step

    def _partial(self, text: str) -> Step | None:
        value = partial_value(text, self._options())
        return None if value is None else _agent(value)

    def _event(self, verdict: Verdict) -> ParseEvent:
        report, note = verdict.report, verdict.observation
        return ParseEvent(self.get_name(), FORMAT, verdict.outcome, report, note)

    def _settled(
        self, verdict: Verdict, text: str, stop_reason: str | None, *, cut: bool = True
    ) -> list[Step]:
        """The decided step (none when a stream already gave it), or the error raised: the
        parse error (``observation`` for the model, ``send_to_llm=True``), else, with ``cut``
        under ``on_truncation="raise"``, ``TruncatedOutputError`` for a first step cut off or
        a ``stop_reason`` (the provider's word for its token limit). Invoked or streamed
        alike."""
        if verdict.error is not None:
            note = verdict.observation
            raise output_parser_error(verdict.error, text, observation=note, send_to_llm=True)
        truncated = merge_truncation(verdict.cut, stop_reason is not None)
        if cut and self.on_truncation == "raise" and truncated is not None:
            raise truncation_error(self.get_name(), text, truncated, stop_reason)
        return [] if verdict.value is None else [_agent(verdict.value)]


def classic_agent_output_parser(**fields: Any) -> ReActOutputParser:
    """A `ReActOutputParser` (with ``fields``) that is also langchain-classic's
    ``AgentOutputParser``, for the classic agent classes whose ``output_parser`` field takes
    only that type (``ZeroShotAgent``, ``ConversationalAgent``, ``StructuredChatAgent``,
    ``LLMSingleActionAgent``, ``StructuredChatOutputParserWithRetries(base_parser=...)``).
    The runnable agents (``create_react_agent(..., output_parser=...)``) take a plain
    ``ReActOutputParser``. Needs langchain-classic installed; raises ``ImportError`` without it.
    """
    return _classic_agent_class()(**fields)


@functools.cache
def _classic_agent_class() -> type[ReActOutputParser]:
    # Imported on demand: langchain-classic is not a dependency of this package.
    try:
        agent = importlib.import_module("langchain_classic.agents.agent")
    except ImportError as exc:
        msg = "classic_agent_output_parser needs langchain-classic: pip install langchain-classic"
        raise ImportError(msg) from exc
    namespace = {"__module__": __name__, "__doc__": ReActOutputParser.__doc__}
    return type("ReActAgentOutputParser", (ReActOutputParser, agent.AgentOutputParser), namespace)


def _generation_text(generation: Generation) -> str:
    if isinstance(generation, ChatGeneration):
        check_refusal(generation)
        return chunk_text(generation.message)
    return generation.text


def _chunk_text(chunk: str | BaseMessage) -> str:
    """A stream chunk's text (a message chunk read as its text)."""
    return chunk if isinstance(chunk, str) else chunk_text(chunk)


def _agent(value: StepValue) -> Step:
    """LangChain's step for ``value``: ``AgentFinish``, an ``AgentAction`` or a list of them."""
    if value.kind == "finish":
        return AgentFinish(return_values=dict(value.output), log=value.log)
    actions = [
        AgentAction(t, i, value.log if k == 0 else "") for k, (t, i) in enumerate(value.actions)
    ]
    return actions if value.kind == "actions" else actions[0]


def _item(item: str | StepValue) -> Any:
    """A streamed item: a text delta as it is, a step as LangChain's."""
    return item if isinstance(item, str) else _agent(item)
