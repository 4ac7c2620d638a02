"""What a ReAct turn gives a parser, whole or streamed: the step as plain data (`StepValue`),
the outcome and report to record, or the error to raise (`Verdict`).

`read_turn` reads a whole text as ``parse`` does (`decide`, a scanned one); `TurnStream` is
the streaming state machine (text deltas, a tool action as soon as it is complete, the last
value at the end) and `partial_value` the first complete step of a stream prefix, each under
one parser's `TurnOptions`. The parser layer turns a
`StepValue` into ``AgentAction``/``AgentFinish`` and an error into ``OutputParserException``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, cast

from langchain_robust_parsers.engine.agents.react import scan_react
from langchain_robust_parsers.engine.agents.react_instructions import (
    BOTH_ANSWER_AND_ACTION,
    BOTH_MESSAGE,
    MISSING_ACTION,
    MISSING_ACTION_INPUT,
)
from langchain_robust_parsers.engine.agents.react_scanner import ReActScanner
from langchain_robust_parsers.engine.agents.react_steps import ReActScan, ReActStep
from langchain_robust_parsers.engine.agents.react_turns import (
    action_log,
    decide_turn,
    step_outcome,
    tool_input,
    turn_actions,
)
from langchain_robust_parsers.engine.agents.text_delta import DeltaTyper
from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.engine.stats import Outcome

__all__ = [
    "ANSWER_STREAMED_KEY",
    "StepValue",
    "TurnOptions",
    "TurnStream",
    "Verdict",
    "decide",
    "partial_value",
    "read_turn",
]

ANSWER_STREAMED_KEY = "final_answer_streamed"
"""The key in ``AgentFinish.return_values`` (streams with ``stream_text=True`` only) that says
the answer was already yielded as ``str`` deltas; the name streaming ReAct runners use."""


@dataclass(frozen=True)
class StepValue:
    """A step as the parser gives it: ``action`` (the first of ``actions``), ``actions`` (every
    action of the turn; the first carries ``log``, the others an empty one, so a scratchpad that
    joins each action's log with its observation shows the turn once) or ``finish`` (its
    ``return_values`` in ``output``)."""

    kind: Literal["action", "actions", "finish"]
    log: str
    actions: tuple[tuple[str, str | dict[str, Any]], ...] = ()
    output: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Verdict:
    """A decided turn: its value (``None`` for an error, or a streamed action already given),
    the outcome and report to record, for an error its message and what to tell the model
    (``observation``, also the event's note), and whether the first step's JSON was cut off
    (``cut``)."""

    value: StepValue | None
    outcome: Outcome
    report: ParseReport | None = None
    error: str | None = None
    observation: str | None = None
    cut: bool = False


@dataclass(frozen=True)
class TurnOptions:
    """How a parser reads turns: ``template_opens`` (`reasoning.headless_end`'s), every action
    of a turn (``multiple``), a bare answer taken as the final one (``fallback``); streams also
    yield text deltas (``stream_text``), the thought text with them (``thoughts``)."""

    template_opens: bool | None = None
    multiple: bool = False
    fallback: bool = False
    stream_text: bool = False
    thoughts: bool = True


def _finish(output: dict[str, Any], log: str) -> StepValue:
    return StepValue("finish", log, output=output)


def _actions(steps: Sequence[ReActStep], log: str, kind: Literal["action", "actions"]) -> StepValue:
    return StepValue(kind, log, tuple((s.tool, tool_input(s.tool_input)) for s in steps))


def _step(step: ReActStep, text: str) -> StepValue:
    if step.kind == "finish":
        return _finish({"output": step.tool_input}, text)
    return _actions((step,), action_log(step, text), "action")


def read_turn(text: str, options: TurnOptions) -> Verdict:
    """What ``parse`` gives for ``text``: a step or an error."""
    scan = scan_react(text, options.template_opens)
    return decide(scan, text, multiple=options.multiple, fallback=options.fallback)


def decide(scan: ReActScan, text: str, *, multiple: bool, fallback: bool) -> Verdict:
    """What ``parse`` gives for ``text`` scanned as ``scan``: a step or an error.
    ``fallback``: text with no ReAct markup is the final answer."""
    cut = bool(scan.steps) and scan.steps[0].truncated
    turn = decide_turn(scan, text, multiple=multiple, plain_answer=fallback)
    if turn.kind == "conflict":
        return Verdict(None, "failed", None, BOTH_MESSAGE + text, BOTH_ANSWER_AND_ACTION, cut)
    if turn.kind == "no_step":
        observation = MISSING_ACTION_INPUT if "action" in scan.markers else MISSING_ACTION
        message = f"Could not parse LLM output: `{text}`"
        return Verdict(None, "failed", None, message, observation, cut)
    if turn.kind == "actions":
        value = _actions(turn.steps, action_log(scan.steps[-1], text), "actions")
    elif turn.kind == "plain_answer":
        value = _finish({"output": turn.answer}, text)
    else:
        value = _step(turn.steps[0], text)
    return Verdict(value, turn.outcome, turn.report, cut=cut)


def _streamed_verdict(scan: ReActScan, text: str, *, multiple: bool, fallback: bool) -> Verdict:
    """What a ``stream_text`` stream ends with: the first step decides (a conflict is not an
    error here); a final answer says whether it was streamed; a tool action was already
    given as soon as it was complete."""
    if not scan.steps:
        verdict = decide(scan, text, multiple=multiple, fallback=fallback)
        if verdict.value is None:
            # No step at all: what parse raises, after the text. A stream that ended on text
            # only would leave AgentExecutor a string where it expects a step.
            return verdict
        # on_error="fallback": the text was streamed as thought, as it is unless reasoning
        # blocks were streamed with it
        answer = verdict.value.output["output"]
        output = {"output": answer, ANSWER_STREAMED_KEY: scan.thought.strip() == answer}
        return replace(verdict, value=_finish(output, text))
    step = scan.steps[0]
    outcome, report = step_outcome(step, text)
    outcome = "recovered" if scan.conflict else outcome
    if step.kind == "action" and multiple:
        value = _actions(turn_actions(scan.steps), text[: scan.steps[-1].end], "actions")
    elif step.kind == "action":
        value = None  # given as soon as it was complete
    else:
        output = {"output": step.tool_input, ANSWER_STREAMED_KEY: step.streamed}
        value = _finish(output, text)
    return Verdict(value, outcome, report, cut=step.truncated)


def partial_value(text: str, options: TurnOptions) -> StepValue | None:
    """The first complete step of a stream prefix ``text`` (``parse_result(partial=True)``)."""
    multiple = options.multiple
    scanner = ReActScanner(options.template_opens)
    scanner.feed(text)
    if not scanner.steps:
        return None
    step = scanner.steps[0]
    if step.kind == "finish":
        return _finish({"output": step.tool_input}, text)
    if multiple:
        return _actions(turn_actions(scanner.steps), text[: scanner.steps[-1].end], "actions")
    return _actions((step,), text[: step.end], "action")


class TurnStream:
    """A ReAct turn read as it streams: `feed` and `close` give what to yield as it arrives
    (with ``stream_text``, typed ``str`` deltas and the first tool action once complete), then
    `verdict` how the stream ends. Each chunk is read once."""

    def __init__(self, options: TurnOptions, typer: DeltaTyper) -> None:
        self.scanner = ReActScanner(options.template_opens)
        self._options = options
        self._typer = typer
        # whether the first tool action may still be due to stream
        self._pending = options.stream_text and not options.multiple

    def feed(self, chunk: str) -> list[str | StepValue]:
        """What to yield after ``chunk``."""
        return self._shown(self.scanner.feed(chunk))

    def close(self) -> list[str | StepValue]:
        """What to yield once the text has ended, before `verdict`."""
        return self._shown(self.scanner.close())

    def verdict(self) -> Verdict:
        """How the stream ends: its last value (if any) and outcome, or the error to raise."""
        options, text, scan = self._options, self.scanner.text(), self.scanner.result()
        read = _streamed_verdict if options.stream_text else decide
        return read(scan, text, multiple=options.multiple, fallback=options.fallback)

    def _shown(self, deltas: Sequence[tuple[str, str]]) -> list[str | StepValue]:
        if not self._options.stream_text:
            return []
        # the typer's own list, grown in place: no copy a chunk
        items = cast(
            "list[str | StepValue]", self._typer.plain(deltas, thoughts=self._options.thoughts)
        )
        steps = self.scanner.steps
        if self._pending and steps:
            self._pending = False
            if steps[0].kind == "action":  # a final answer comes at the end
                items.append(_actions(steps[:1], self.scanner.text()[: steps[0].end], "action"))
        return items
