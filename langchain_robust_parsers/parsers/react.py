"""``ReActOutputParser``: ReAct agent output as ``AgentAction``/``AgentFinish``, streamed.

One parser reads both ReAct layouts and their usual deviations (see
`langchain_robust_parsers.engine.agents.react`): JSON actions inline, fenced or
list-wrapped, and LangChain's classic ``Action:``/``Action Input:``/``Final Answer:`` text.
It replaces ``ReActSingleInputOutputParser`` and ``ReActJsonSingleInputOutputParser`` of
langchain-classic, with the same error contract for agent executors.

Streaming has two modes:

- ``stream_text=False`` (default): the stream holds exactly one item, the ``AgentAction`` or
  ``AgentFinish`` that `ReActOutputParser.parse` gives for the whole text (or the
  ``OutputParserException`` it raises). langchain-classic's ``AgentExecutor`` adds up streamed
  chunks, so it needs this.
- ``stream_text=True``: the stream also holds ``str`` deltas: the thought text (markers
  removed; left out with ``stream_thoughts=False``) while the turn is undecided, then the
  final answer as it is generated, decoded, never splitting an escape. A tool action comes as
  an ``AgentAction`` as soon as it is complete; a final answer ends the stream as an
  ``AgentFinish`` whose ``return_values`` hold ``"output"`` and `ANSWER_STREAMED_KEY`
  (``True`` when every character of the output was already yielded as deltas, so a runner must
  not show it again). Text that never becomes a step is yielded as thought text, then the
  stream ends as `ReActOutputParser.parse` does: the ``OutputParserException`` it raises
  (``send_to_llm=True``, so ``AgentExecutor(handle_parsing_errors=True)`` sends it back to the
  model), or with ``on_error="fallback"`` the ``AgentFinish`` holding the text. A reply holding
  both a step and a final answer is not an error here: the first step decides.

The deltas are ``str`` subclasses that say what they hold: `ThoughtDelta` for thought
text, `AnswerDelta` for the final answer (both `TextDelta`, which adds up to the
step that follows it).
"""

from __future__ import annotations

import functools
import importlib
import logging
from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any, Literal

from langchain_core.agents import AgentAction, AgentFinish
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import BaseMessage
from langchain_core.output_parsers.transform import BaseTransformOutputParser
from langchain_core.outputs import ChatGeneration, Generation
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import run_in_executor
from pydantic import ConfigDict

from langchain_robust_parsers.engine.agents.react import (
    Delta,
    ReActScan,
    ReActScanner,
    ReActStep,
    scan_react,
)
from langchain_robust_parsers.engine.agents.react_instructions import (
    BOTH_ANSWER_AND_ACTION,
    BOTH_MESSAGE,
    MISSING_ACTION,
    MISSING_ACTION_INPUT,
    REACT_JSON_FORMAT_INSTRUCTIONS,
    REACT_TEXT_FORMAT_INSTRUCTIONS,
)
from langchain_robust_parsers.engine.agents.react_turns import (
    action_log,
    decide_turn,
    step_outcome,
    tool_input,
    turn_actions,
)
from langchain_robust_parsers.engine.agents.text_delta import (
    UNTYPED,
    AnswerDelta,
    DeltaTyper,
    TextDelta,
    ThoughtDelta,
)
from langchain_robust_parsers.engine.report import ParseReport, merge_truncation
from langchain_robust_parsers.engine.stats import REACT, Outcome, ParseStats
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

logger = logging.getLogger("langchain_robust_parsers")

FORMAT = REACT
"""The format name under which `ParseStats` counts ReAct parses."""

ANSWER_STREAMED_KEY = "final_answer_streamed"
"""The key in ``AgentFinish.return_values`` (streams with ``stream_text=True`` only) that says
the answer was already yielded as ``str`` deltas; the name streaming ReAct runners use."""

Step = AgentAction | AgentFinish | list[AgentAction]
"""What a parse gives: one action or the finish; with ``multiple=True`` a list of actions."""


def _generation_text(generation: Generation) -> str:
    if isinstance(generation, ChatGeneration):
        check_refusal(generation)
        return chunk_text(generation.message)
    return generation.text


class ReActOutputParser(ReportingParser, BaseTransformOutputParser[Step]):
    """Parse a ReAct agent's reply into an ``AgentAction`` or an ``AgentFinish``.

    ```python
    from langchain_robust_parsers import ReActOutputParser

    step = ReActOutputParser().parse('Action: {"action": "search", "action_input": "Paris"}')
    assert (step.tool, step.tool_input) == ("search", "Paris")  # an AgentAction
    ```

    Reads JSON actions (inline after ``Action:``, fenced with or without a language tag, closed
    or not, wrapped in a one-element list, alone on a line; ``tool``/``name`` for ``action``,
    any key containing ``input`` for ``action_input``) and the classic text layout
    (``Action: tool`` + ``Action Input: ...``, ``Final Answer: ...``, ``Action: Final Answer``).
    Markers may be in any case, numbered (``Action 1:``) or in bold. ``<think>`` blocks are
    thought text, never markup. The action ``Final Answer`` gives
    ``AgentFinish(return_values={"output": answer}, log=text)``.

    Errors, as LangChain's agent executors expect them: text holding both a final answer and an
    action, or neither, raises ``OutputParserException`` with ``observation`` (what to tell the
    model), ``llm_output`` and ``send_to_llm=True``. ``on_error="fallback"`` takes a reply with
    no ReAct markup at all as the final answer, ``AgentFinish(return_values={"output": text})``.

    Streaming (``transform``/``stream``, ``str`` or message chunks, each chunk read once): by
    default one item, what `parse` gives for the whole text; with ``stream_text=True`` also
    `ThoughtDelta` and `AnswerDelta` strings as the text arrives (they add up to the step, as
    an ``AgentExecutor`` adding up its stream needs), a tool's ``AgentAction`` as soon as it is
    complete, and a final ``AgentFinish`` whose ``return_values[ANSWER_STREAMED_KEY]`` says the
    answer was already streamed. The module documentation gives the whole stream contract.
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
    """A cut-off answer (an action's JSON input cut off, or a provider stop reason such as
    ``finish_reason="length"``): ``"complete"`` returns the step as read, ``"raise"`` raises
    ``TruncatedOutputError`` (a final answer cut off mid-sentence is only seen through the
    stop reason)."""

    template_opens_reasoning: TemplateOpensReasoning = None
    """Whether the chat template opened the model's reasoning (a lone ``</think>``): see
    `TemplateOpensReasoning`."""

    stats: ParseStats | None = None
    """Outcome counters (format ``"react"``) updated on every final parse and stream; shareable:
    a clean step counts as ``success``; one whose JSON was repaired or cut off, or that was
    followed by ignored text, as ``recovered``; a bare answer taken with ``on_error="fallback"``
    as ``fallback``; an error as ``failed``."""

    multiple: bool = False
    """Give every action of the turn (several ``Action:`` steps or fenced blocks, a JSON list of
    actions) as one ``list[AgentAction]``, for multi-action agents (LangChain's
    ``BaseMultiActionAgent``; a final answer still comes as ``AgentFinish``); ``False`` gives
    the first action alone, as single-action agents expect. With ``stream_text`` the list comes
    at the end of the stream."""

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
        scan = scan_react(text, self.template_opens_reasoning)
        value, event, error = _decide(self, scan, text)
        publish(event, self.stats)
        return _settled(value, error)

    async def aparse(self, text: str) -> Step:
        """Async `parse`: scans in an executor, dispatches the event async."""
        scan = await run_in_executor(None, scan_react, text, self.template_opens_reasoning)
        value, event, error = _decide(self, scan, text)
        await apublish(event, self.stats)
        return _settled(value, error)

    def parse_result(  # type: ignore[override]  # a partial may have nothing to show yet
        self, result: list[Generation], *, partial: bool = False
    ) -> Step | None:
        """The step in ``result[0]``. With ``partial=True`` the text is a stream prefix: its
        first complete step, or ``None``; it never raises and counts nothing."""
        text = _generation_text(result[0])
        if partial:
            return _partial_step(text, self.multiple, self.template_opens_reasoning)
        return _uncut(self, result[0], text, self.parse(text))

    async def aparse_result(  # type: ignore[override]  # as parse_result
        self, result: list[Generation], *, partial: bool = False
    ) -> Step | None:
        """Async `parse_result`."""
        text = _generation_text(result[0])
        if partial:
            return _partial_step(text, self.multiple, self.template_opens_reasoning)
        return _uncut(self, result[0], text, await self.aparse(text))

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
        scanner, pending = _stream_start(self)
        for chunk in input:
            items, pending = _shown(self, scanner, _feed(scanner, chunk), pending, typer)
            yield from items
        items, pending = _shown(self, scanner, scanner.close(), pending, typer)
        yield from items
        items, event, error = _stream_end(self, scanner)
        publish(event, self.stats)
        _raise_stream_error(self, scanner, error, watch)
        yield from items

    async def _atransform(
        self,
        input: AsyncIterator[str | BaseMessage],
        typer: DeltaTyper = UNTYPED,
        watch: StopReasonWatch | None = None,
    ) -> AsyncIterator[Any]:
        scanner, pending = _stream_start(self)
        async for chunk in input:
            items, pending = _shown(self, scanner, _feed(scanner, chunk), pending, typer)
            for item in items:
                yield item
        items, pending = _shown(self, scanner, scanner.close(), pending, typer)
        for item in items:
            yield item
        items, event, error = _stream_end(self, scanner)
        await apublish(event, self.stats)
        _raise_stream_error(self, scanner, error, watch)
        for item in items:
            yield item


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


def _event(
    parser: ReActOutputParser, outcome: Outcome, report: ParseReport | None, error: str | None
) -> ParseEvent:
    return ParseEvent(parser.get_name(), FORMAT, outcome, report, error)


def _feed(scanner: ReActScanner, chunk: str | BaseMessage) -> list[Delta]:
    """The scanner's deltas for one stream chunk (a message chunk read as its text)."""
    return scanner.feed(chunk if isinstance(chunk, str) else chunk_text(chunk))


def _raise_stream_error(
    parser: ReActOutputParser,
    scanner: ReActScanner,
    error: OutputParserException | None,
    watch: StopReasonWatch | None,
) -> None:
    """Raise what ends a stream before its last items: the parse error, else a cut-off answer
    under ``on_truncation="raise"``."""
    if error is not None:
        raise error
    _raise_if_cut(parser, scanner.text(), watch.reason if watch else None, scanner.steps)


def _decide(
    parser: ReActOutputParser, scan: ReActScan, text: str
) -> tuple[Step | None, ParseEvent, OutputParserException | None]:
    """What ``parse`` gives for ``text``: a value or an error, and the event for both."""
    fallback = parser.on_error == "fallback"
    turn = decide_turn(scan, text, multiple=parser.multiple, plain_answer=fallback)
    if turn.kind in ("conflict", "no_step"):
        if turn.kind == "conflict":
            message, observation = BOTH_MESSAGE + text, BOTH_ANSWER_AND_ACTION
        else:
            message = f"Could not parse LLM output: `{text}`"
            missing_input = "action" in scan.markers
            observation = MISSING_ACTION_INPUT if missing_input else MISSING_ACTION
        error = output_parser_error(message, text, observation=observation, send_to_llm=True)
        return None, _event(parser, "failed", None, observation), error
    event = _event(parser, turn.outcome, turn.report, None)
    if turn.kind == "actions":
        return _actions(turn.steps, action_log(scan.steps[-1], text)), event, None
    if turn.kind == "plain_answer":
        return AgentFinish(return_values={"output": turn.answer}, log=text), event, None
    return _to_agent(turn.steps[0], text), event, None


def _shown(
    parser: ReActOutputParser,
    scanner: ReActScanner,
    deltas: Sequence[Delta],
    pending: bool,
    typer: DeltaTyper,
) -> tuple[list[Any], bool]:
    """What ``stream_text`` yields after the scanner gave ``deltas``: the text deltas, then
    the first tool action once it is complete (while ``pending``); and if it still is."""
    if not parser.stream_text:
        return [], pending
    items: list[Any] = typer.plain(deltas, thoughts=parser.stream_thoughts)
    if pending and scanner.steps:
        items.extend(_first_action(scanner))
        pending = False
    return items, pending


def _stream_end(
    parser: ReActOutputParser, scanner: ReActScanner
) -> tuple[list[Any], ParseEvent, OutputParserException | None]:
    """The last items of a stream, its event, and (default mode) the error to raise."""
    text = scanner.text()
    scan = scanner.result()
    value, event, error = _decide(parser, scan, text)
    if not parser.stream_text:
        return ([] if value is None else [value]), event, error
    # stream_text: the first step decides; a conflict or no step is not an error here.
    steps = scan.steps
    if steps:
        step = steps[0]
        outcome, report = step_outcome(step, text)
        if scan.conflict:
            outcome = "recovered"
        event = _event(parser, outcome, report, None)
        if step.kind == "action" and parser.multiple:
            return [_actions(turn_actions(steps), text[: steps[-1].end])], event, None
        if step.kind == "action":
            return [], event, None  # already yielded as soon as it was complete
        output = {"output": step.tool_input, ANSWER_STREAMED_KEY: step.streamed}
        return [AgentFinish(return_values=output, log=text)], event, None
    if isinstance(value, AgentFinish):  # on_error="fallback": the text was streamed as thought
        answer = value.return_values["output"]
        # streamed as it is, unless reasoning blocks were streamed with it
        output = {"output": answer, ANSWER_STREAMED_KEY: scan.thought.strip() == answer}
        return [AgentFinish(return_values=output, log=text)], event, None
    # No step at all: what parse raises, after the text. A stream that ended on text only
    # would leave AgentExecutor a string where it expects a step.
    return [], event, error


def _stream_start(parser: ReActOutputParser) -> tuple[ReActScanner, bool]:
    """A new stream's scanner, and whether a tool action may still be due to stream."""
    return ReActScanner(parser.template_opens_reasoning), parser.stream_text and not parser.multiple


def _uncut(parser: ReActOutputParser, generation: Generation, text: str, value: Step) -> Step:
    """``value``, unless ``on_truncation="raise"`` and the answer was cut off."""
    _raise_if_cut(parser, text, stop_reason_cut(generation))
    return value


def _raise_if_cut(
    parser: ReActOutputParser,
    text: str,
    stop_reason: str | None,
    steps: Sequence[ReActStep] | None = None,
) -> None:
    """Under ``on_truncation="raise"``, raise ``TruncatedOutputError`` for a cut-off answer:
    the first step's JSON cut off in ``text`` (``steps``: its steps, when already read), or
    ``stop_reason``, the provider's word for its token limit. Invoked or streamed alike."""
    if parser.on_truncation != "raise":
        return
    steps = scan_react(text, parser.template_opens_reasoning).steps if steps is None else steps
    truncated = merge_truncation(bool(steps) and steps[0].truncated, stop_reason is not None)
    if truncated is not None:
        raise truncation_error(parser.get_name(), text, truncated, stop_reason)


def _partial_step(text: str, multiple: bool, template_opens: bool | None) -> Step | None:
    """The first complete step of a stream prefix ``text`` (``parse_result(partial=True)``)."""
    scanner = ReActScanner(template_opens)
    scanner.feed(text)
    if not scanner.steps:
        return None
    step = scanner.steps[0]
    if step.kind == "finish":
        return AgentFinish(return_values={"output": step.tool_input}, log=text)
    if multiple:
        return _actions(turn_actions(scanner.steps), text[: scanner.steps[-1].end])
    return _action(step, text[: step.end])


def _first_action(scanner: ReActScanner) -> list[AgentAction]:
    """The first step as an ``AgentAction`` when it is a tool action (yielded as soon as it is
    complete, its log the text so far), else nothing: a final answer comes at the end."""
    step = scanner.steps[0] if scanner.steps else None
    if step is None or step.kind != "action":
        return []
    return [_action(step, scanner.text()[: step.end])]


def _action(step: ReActStep, log: str) -> AgentAction:
    return AgentAction(step.tool, tool_input(step.tool_input), log)


def _actions(actions: Sequence[ReActStep], log: str) -> list[AgentAction]:
    """The turn's actions (`turn_actions`) as ``AgentAction``s. The first carries the
    turn's log, the others an empty one: a scratchpad that joins each action's log with its
    observation (``format_log_to_str``) then shows the turn once."""
    return [_action(s, log if k == 0 else "") for k, s in enumerate(actions)]


def _to_agent(step: ReActStep, text: str) -> AgentAction | AgentFinish:
    if step.kind == "finish":
        return AgentFinish(return_values={"output": step.tool_input}, log=text)
    return _action(step, action_log(step, text))


def _settled(value: Step | None, error: OutputParserException | None) -> Step:
    """The step a final parse decided, or its error raised."""
    if error is not None:
        raise error
    assert value is not None
    return value
