"""What a scanned ReAct turn amounts to: one step, several actions, a plain-text answer, or a
failure (both an answer and an action, or no step), with its outcome and report.

Pure functions over a `ReActScan` and its text; `react_verdict` turns a `TurnDecision` into
the step a parser gives (or the error it raises).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from langchain_robust_parsers.engine.agents.react_steps import ReActScan, ReActStep
from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.engine.stats import Outcome

__all__ = [
    "TurnDecision",
    "action_log",
    "decide_turn",
    "mixes_answer_and_action",
    "step_outcome",
    "tool_input",
    "turn_actions",
]

TurnKind = Literal["step", "actions", "plain_answer", "conflict", "no_step"]
"""``step``: the first step decides; ``actions``: every action of the turn (``multiple``);
``plain_answer``: text with no ReAct markup, taken as the answer; ``conflict``: both a final
answer and an action; ``no_step``: nothing to act on."""


@dataclass(frozen=True)
class TurnDecision:
    """How a whole turn reads: its kind, the outcome and report to record, the steps involved
    (the first step, or every action in order) and, for ``plain_answer``, the answer."""

    kind: TurnKind
    outcome: Outcome
    report: ParseReport | None = None
    steps: tuple[ReActStep, ...] = ()
    answer: str = ""


def decide_turn(scan: ReActScan, text: str, *, multiple: bool, plain_answer: bool) -> TurnDecision:
    """The decision for ``text`` scanned as ``scan``. ``multiple``: a turn may hold several
    actions; ``plain_answer``: text with no ReAct markup is the final answer."""
    if scan.conflict or (multiple and mixes_answer_and_action(scan.steps)):
        return TurnDecision("conflict", "failed")
    if scan.steps:
        step = scan.steps[0]
        if multiple and step.kind == "action":
            outcome, report = step_outcome(scan.steps[-1], text)
            if any(s.truncated or (s.report and s.report.repairs) for s in scan.steps):
                outcome = "recovered"
            return TurnDecision("actions", outcome, report, turn_actions(scan.steps))
        outcome, report = step_outcome(step, text)
        return TurnDecision("step", outcome, report, (step,))
    plain = scan.plain_text.strip()
    if plain_answer and not scan.markers and plain:
        return TurnDecision("plain_answer", "fallback", answer=plain)
    return TurnDecision("no_step", "failed")


def mixes_answer_and_action(steps: Sequence[ReActStep]) -> bool:
    """A final answer among the actions of a JSON list (``multiple`` reads them all)."""
    kinds = {s.kind for step in steps for s in (step, *step.siblings)}
    return len(kinds) > 1


def turn_actions(steps: Sequence[ReActStep]) -> tuple[ReActStep, ...]:
    """Every action of the turn, in order, those of a JSON list one by one."""
    return tuple(
        s
        for step in steps
        if step.kind == "action"
        for s in (step, *step.siblings)
        if s.kind == "action"
    )


def action_log(step: ReActStep, text: str) -> str:
    """The log of an action: the text up to it. It goes back to the model in the scratchpad, so
    text after the action (a hallucinated observation) is left out; with nothing after it the
    whole text is kept, trailing whitespace included, as LangChain's parsers keep it."""
    return text if not text[step.end :].strip() else text[: step.end]


def step_outcome(step: ReActStep, text: str) -> tuple[Outcome, ParseReport]:
    """``success`` for a clean step with nothing after it, else ``recovered``; and the report
    (a text-layout step gets one that spans it)."""
    report = step.report or ParseReport(source="whole", start=step.start, end=step.end)
    tail = text[step.end :].strip()
    clean = not step.truncated and not report.repairs and not tail
    return ("success" if clean else "recovered"), report


def tool_input(value: Any) -> str | dict[str, Any]:
    """An action input as an agent takes it: a string or an object; any other JSON value (a
    number, a list, ``true``) as its JSON text, ``null`` as no input."""
    if isinstance(value, str | dict):
        return value
    if value is None:
        return {}
    return json.dumps(value, ensure_ascii=False)
