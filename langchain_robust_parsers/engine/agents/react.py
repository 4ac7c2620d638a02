"""An incremental scanner for ReAct agent output: thoughts, tool actions and final answers.

A ReAct step is written in one of two layouts, and models mix them:

- **JSON**: ``Action: {"action": "search", "action_input": "weather"}``, inline, in a fence
  (```` ``` ````, ```` ```json ````, any case, closed or not), wrapped in a list (a list of
  several actions gives them all, see `ReActStep.siblings`), alone on a line or inside a
  line of prose; ``tool``/``name`` stand for ``action`` and any key containing ``input`` (or
  ``args``/``arguments``/``parameters``) for ``action_input``. The action ``Final Answer``
  ends the turn with its input as the answer.
- **text** (LangChain's classic ReAct): ``Action: search`` then ``Action Input: weather``, or
  ``Final Answer: ...`` (also ``Action: Final Answer`` with the answer as its input).

`ReActScanner` reads the text chunk by chunk, each character once, and hands back
`Delta` s: the thought text without its markers (``Thought:``, ``Action:``...) while the
turn is undecided, then, once the first step is known to be a final answer, the answer itself
as it arrives. A JSON answer is decoded as it streams by the package's shared string decoders
(see `react_json`): an escape (``\\n``, ``\\"``, ``\\u00e9``, a surrogate pair) is handed
out only once complete, so no delta ever holds half of one. ``<think>``, ``<reasoning>`` and
``<Thought>`` blocks are thought text, never markup. Completed steps are collected in
`ReActScanner.steps`, all of them, so that a caller can tell a clean turn from one that
also holds a second, conflicting step.

The work per chunk is proportional to the chunk: runs of plain text and of string content are
taken with one regular-expression match each, and the only text held back is a bounded
look-ahead (a marker that may still be forming, a fence, a tag) or the JSON of an action being
read, which is decoded once when it closes. No regular expression has nested quantifiers.
Nothing here imports LangChain, prints or logs.

This module is the public face; the scanner lives in `react_scanner` (driver),
`react_text` (markers, text layout), `react_json` (JSON actions),
`react_base` (shared state) and `react_steps` (what it hands out).
"""

from __future__ import annotations

from langchain_robust_parsers.engine.agents.react_json import KEY_LIMIT
from langchain_robust_parsers.engine.agents.react_scanner import ReActScanner
from langchain_robust_parsers.engine.agents.react_steps import (
    ANSWER,
    FINAL_ANSWER_ACTION,
    THOUGHT,
    Delta,
    DeltaKind,
    Layout,
    ReActScan,
    ReActStep,
    StepKind,
    is_final_answer_name,
)
from langchain_robust_parsers.engine.agents.react_text import (
    ACTION_NAME_LIMIT,
    MARKER_HOLD_LIMIT,
    Match,
    classify_marker,
)

__all__ = [
    "ACTION_NAME_LIMIT",
    "ANSWER",
    "FINAL_ANSWER_ACTION",
    "KEY_LIMIT",
    "MARKER_HOLD_LIMIT",
    "THOUGHT",
    "Delta",
    "DeltaKind",
    "Layout",
    "ReActScan",
    "ReActScanner",
    "ReActStep",
    "StepKind",
    "is_final_answer_name",
    "scan_react",
]

# The marker grammar under its former private names (tests and callers of the one module).
_classify_marker = classify_marker
_NO = Match.NO
_MAYBE = Match.MAYBE
_YES = Match.YES


def scan_react(text: str, template_opens: bool | None = None) -> ReActScan:
    """Scan a whole text: the same reading as streaming it, in one chunk (``template_opens``:
    see `reasoning.headless_end`)."""
    scanner = ReActScanner(template_opens)
    scanner.feed(text)
    scanner.close()
    return scanner.result()
