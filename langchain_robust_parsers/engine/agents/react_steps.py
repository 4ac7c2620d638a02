"""What the ReAct scanner hands out: deltas, steps and the reading of a whole text.

Kept apart from the scanner so that the parser layer, the JSON and the text readers share one
definition of a step without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from langchain_robust_parsers.engine.report import ParseReport

__all__ = [
    "ANSWER",
    "FINAL_ANSWER_ACTION",
    "THOUGHT",
    "Delta",
    "DeltaKind",
    "Layout",
    "ReActScan",
    "ReActStep",
    "StepKind",
    "final_answer_value",
    "is_final_answer_name",
]

THOUGHT: Literal["thought"] = "thought"
ANSWER: Literal["answer"] = "answer"
DeltaKind = Literal["thought", "answer"]
Delta = tuple[DeltaKind, str]
"""A piece of the stream: ``("thought", text)`` or ``("answer", text)``."""

StepKind = Literal["action", "finish"]
Layout = Literal["json", "text"]

FINAL_ANSWER_ACTION = "Final Answer"
"""The action name that ends the turn (any case, spacing or punctuation)."""


@dataclass(frozen=True)
class ReActStep:
    """One complete step: a tool action, or the final answer.

    ``start``/``end`` delimit the step's markup in the whole text (from its ``Action:`` or
    ``Final Answer:`` marker, fence or brace, to its closer, closing fence or last character).
    ``streamed`` says the answer (a string) went out as answer deltas. ``report`` is the JSON
    engine's report (offsets in the whole text) for a JSON step, ``None`` for the text layout.
    ``siblings`` holds the further actions of a JSON list of actions (``[{...}, {...}]``), in
    order, each spanning the same markup; the step itself is the list's first action.
    """

    kind: StepKind
    tool: str
    tool_input: Any
    start: int
    end: int
    layout: Layout
    fenced: bool = False
    streamed: bool = False
    truncated: bool = False
    report: ParseReport | None = None
    siblings: tuple[ReActStep, ...] = ()


@dataclass(frozen=True)
class ReActScan:
    """The result of scanning a whole text (`scan_react`)."""

    steps: tuple[ReActStep, ...]
    thought: str
    """The thought text without markers, up to the first step's decision."""
    plain_text: str
    """The thought text outside reasoning blocks (and after a lone ``</think>``): what a bare
    answer with no ReAct markup says."""
    markers: frozenset[str]
    """The kinds of marker seen: ``thought``, ``action``, ``action_input``, ``final_answer``,
    ``observation``."""
    conflict: bool
    """The text holds both a final answer and a tool action."""


def is_final_answer_name(name: str) -> bool:
    """``Final Answer``, ``final_answer``, ``FINAL ANSWER:``...: the action that ends the turn."""
    letters = [ch for ch in name.lower() if ch.isalpha()]
    return "".join(letters) == "finalanswer"


FINAL_ANSWER_TOOL = "final_answer"
"""The tool smolagents-style agents call to end the turn, ``{"name": "final_answer",
"arguments": {"answer": ...}}``: its one ``answer`` argument is the answer."""
FINAL_ANSWER_ARGUMENT = "answer"
"""The one argument of the `FINAL_ANSWER_TOOL`."""


def final_answer_value(name: str, tool_input: Any) -> Any:
    """The answer a final-answer action ``name`` gives: its input, or the value of the one
    ``answer`` argument of a call to the `FINAL_ANSWER_TOOL` (LangChain's ``Final Answer``
    action keeps its input, a dict included, as the answer)."""
    one_answer = isinstance(tool_input, dict) and list(tool_input) == [FINAL_ANSWER_ARGUMENT]
    if name.strip() == FINAL_ANSWER_TOOL and one_answer:
        return tool_input[FINAL_ANSWER_ARGUMENT]
    return tool_input
