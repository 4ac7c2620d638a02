"""``ReActOutputParser``: ReAct agent output as ``AgentAction``/``AgentFinish``, streamed.

Both ReAct layouts (JSON actions, LangChain's classic ``Action:``/``Action Input:``/``Final
Answer:`` text) and their usual deviations, with langchain-classic's error contract for agent
executors. Reading, deciding and streaming a turn are `engine.agents.react_verdict`; the ReAct
page documents the stream contract (`ThoughtDelta`, `AnswerDelta`, `ANSWER_STREAMED_KEY`).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import AsyncIterator, Iterator
from typing import Any, Literal, cast

from langchain_core.agents import AgentAction, AgentFinish
from langchain_core.messages import BaseMessage
from langchain_core.output_parsers.transform import BaseTransformOutputParser
from langchain_core.outputs import Generation
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import run_in_executor

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
from langchain_robust_parsers.parsers.final_parse import (
    GenerationReaders,
    aparse_generation,
    parse_generation,
)
from langchain_robust_parsers.parsers.json_streaming import StopReasonWatch
from langchain_robust_parsers.parsers.message_text import (
    atraced_transform,
    chunk_text,
    generation_text,
    traced_transform,
)
from langchain_robust_parsers.parsers.report_events import (
    FinalParse,
    ParseEvent,
    apublish,
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

    Reads JSON actions and the classic text layout; reasoning is never markup. Text with both
    a final answer and an action, or neither, raises ``OutputParserException``
    (``send_to_llm=True``), as agent executors expect. A stream gives what `parse` gives; with
    ``stream_text=True`` also `ThoughtDelta` and `AnswerDelta` text as it arrives. The ReAct
    page documents the layouts, the errors and the stream contract.
    """

    stream_text: bool = False
    """Also stream thought and answer text as ``str`` deltas."""

    stream_thoughts: bool = True
    """With ``stream_text``: include the thought text (``False``: the final answer only)."""

    on_error: OnError = "raise"
    """``"fallback"``: a reply with no ReAct markup is the final answer; ``"raise"`` refuses it."""

    instructions: Literal["text", "json"] = "json"
    """The layout `get_format_instructions` describes; both are always parsed."""

    on_truncation: OnTruncation = "complete"
    """A cut-off answer (an action's JSON cut off, or a provider stop reason):
    ``"complete"`` returns the step as read, ``"raise"`` raises ``TruncatedOutputError``."""

    template_opens_reasoning: TemplateOpensReasoning = None
    """Whether the chat template opened the reasoning: see `TemplateOpensReasoning`."""

    stats: ParseStats | None = None
    """Outcome counters (format ``"react"``) updated on every final parse and stream."""

    multiple: bool = False
    """Give every action of the turn as one ``list[AgentAction]`` (multi-action agents)."""

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
        final = self._final(text, None, cut=False)
        publish(final.event, self.stats)
        return final.unwrap()

    async def aparse(self, text: str) -> Step:
        """Async `parse`: scans in an executor, dispatches the event async."""
        final = await run_in_executor(None, functools.partial(self._final, text, None, cut=False))
        await apublish(final.event, self.stats)
        return final.unwrap()

    def parse_result(  # type: ignore[override]  # a partial may have nothing to show yet
        self, result: list[Generation], *, partial: bool = False
    ) -> Step | None:
        """The step in ``result[0]``. With ``partial=True`` the text is a stream prefix: its
        first complete step, or ``None``; it never raises and counts nothing."""
        return cast("Step | None", parse_generation(result, partial, self._readers()))

    async def aparse_result(  # type: ignore[override]  # as parse_result
        self, result: list[Generation], *, partial: bool = False
    ) -> Step | None:
        """Async `parse_result`."""
        return cast("Step | None", await aparse_generation(result, partial, self._readers()))

    def transform(
        self,
        input: Iterator[str | BaseMessage],
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> Iterator[Any]:
        """Stream the step (and, with ``stream_text``, text deltas) as the text arrives;
        message chunks become text before tracing, which would merge them otherwise."""
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
            yield from map(_item, stream.feed(chunk_text(chunk)))
        yield from map(_item, stream.close())
        final = _decided(self, stream.verdict(), stream.scanner.text(), _reason(watch))
        publish(final.event, self.stats)
        yield from _last(final)

    async def _atransform(
        self,
        input: AsyncIterator[str | BaseMessage],
        typer: DeltaTyper = UNTYPED,
        watch: StopReasonWatch | None = None,
    ) -> AsyncIterator[Any]:
        stream = TurnStream(self._options(), typer)
        async for chunk in input:
            for item in stream.feed(chunk_text(chunk)):
                yield _item(item)
        for item in stream.close():
            yield _item(item)
        final = _decided(self, stream.verdict(), stream.scanner.text(), _reason(watch))
        await apublish(final.event, self.stats)
        for step in _last(final):
            yield step

    def _options(self) -> TurnOptions:
        fallback = self.on_error == "fallback"
        opens, multiple = self.template_opens_reasoning, self.multiple
        return TurnOptions(opens, multiple, fallback, self.stream_text, self.stream_thoughts)

    def _readers(self) -> GenerationReaders[Step]:
        return GenerationReaders(
            lambda g: _agent(partial_value(generation_text(g), self._options())),
            lambda g: self._final(generation_text(g), stop_reason_cut(g)),
            self.stats,
        )

    def _final(self, text: str, stop_reason: str | None, *, cut: bool = True) -> FinalParse[Step]:
        return _decided(self, read_turn(text, self._options()), text, stop_reason, cut=cut)


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


def _decided(
    parser: ReActOutputParser,
    verdict: Verdict,
    text: str,
    stop_reason: str | None,
    *,
    cut: bool = True,
) -> FinalParse[Step]:
    """The final parse of a decided turn, without side effects: its step (none when a
    stream already gave it), or its error: the parse error (for agent executors), else,
    with ``cut`` under ``on_truncation="raise"``, a first step or (``stop_reason``) an
    answer cut off. Invoked or streamed alike."""
    name, report, note = parser.get_name(), verdict.report, verdict.observation
    event, value = (
        ParseEvent(name, FORMAT, verdict.outcome, report, note),
        _agent(verdict.value),
    )
    if verdict.error is not None:
        error = output_parser_error(verdict.error, text, observation=note, send_to_llm=True)
        return FinalParse(None, report, event, error)
    truncated = merge_truncation(verdict.cut, stop_reason is not None)
    if cut and parser.on_truncation == "raise" and truncated is not None:
        error = truncation_error(name, text, truncated, stop_reason)
        return FinalParse(value, report, event, error)
    return FinalParse(value, report, event)


def _agent(value: StepValue | None) -> Any:
    """LangChain's step for ``value``: ``AgentFinish``, an ``AgentAction`` or a list of them
    (``None`` for none)."""
    if value is None:
        return None
    if value.kind == "finish":
        return AgentFinish(return_values=dict(value.output), log=value.log)
    actions = [
        AgentAction(t, i, value.log if k == 0 else "") for k, (t, i) in enumerate(value.actions)
    ]
    return actions if value.kind == "actions" else actions[0]


def _reason(watch: StopReasonWatch | None) -> str | None:
    """The stop reason a stream's chunks gave for a cut-off answer."""
    return watch.reason if watch else None


def _last(final: FinalParse[Step]) -> list[Step]:
    """A stream's last value (none when it already gave its action), or its error raised."""
    return [] if final.error is None and final.value is None else [final.unwrap()]


def _item(item: str | StepValue) -> Any:
    """A streamed item: a text delta as it is, a step as LangChain's."""
    return item if isinstance(item, str) else _agent(item)
