"""The state every part of the ReAct scanner shares: where it is, what it emitted, the steps.

`ScannerBase` holds the scanner's common state and its emission rules; the text layout
(`react_text`), the JSON actions (`react_json`) and the driver
(`react_scanner`) build on it. State families are named enums; each reader's own state is
a small dataclass, so that no object carries more than a screenful of fields.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from langchain_robust_parsers.engine.agents.react_steps import (
    ANSWER,
    THOUGHT,
    Delta,
    DeltaKind,
    ReActScan,
    ReActStep,
)

__all__ = [
    "HSPACE",
    "MARKER_START",
    "EmitState",
    "FenceState",
    "HoldKind",
    "HoldState",
    "MarkerKind",
    "Phase",
    "ScanState",
    "ScannerBase",
    "blank_tail_after_newline",
    "is_word_char",
]

HSPACE = " \t"
MARKER_START = frozenset("TtAaFfOo*")
"""The characters a marker may start with: its first letter, or emphasis."""


class ScanState(IntEnum):
    """Where the scanner is; each state has its handler (see ``ReActScanner._handlers``)."""

    PROSE = 0  # thought text
    THOUGHT_START = 1  # blanks after a Thought:/Observation: marker, then prose
    HOLD = 2  # a bounded look-ahead: marker, tag, fence run or list bracket
    THINK = 3  # inside <think>...</think>
    FENCE_INFO = 4  # after a fence marker, to the end of its line
    FENCE_BODY = 5  # blanks at the start of a fence's body
    AFTER_ACTION = 6  # blanks after Action:
    ACTION_NAME = 7  # the tool name on the Action: line
    AFTER_NAME = 8  # blanks after the tool name's line, before Action Input:
    VALUE_START = 9  # blanks before an action input or a final answer (text layout)
    VALUE = 10  # an action input or a final answer (text layout)
    JSON = 11  # the action's JSON
    JSON_AFTER = 12  # after a fenced action's JSON: blanks and the closing fence


class HoldKind(IntEnum):
    """What a look-ahead may turn out to be."""

    MARKER = 0
    TAG = 1
    FENCE = 2
    LIST = 3


class Phase(IntEnum):
    """What the deltas follow."""

    THOUGHT = 0  # undecided: thought text is streamed
    ANSWER = 1  # the first step is a final answer: its answer is streamed
    DONE = 2  # the first step is complete: nothing more is streamed


# the members, for the hot paths (a module global is read faster than an enum member)
_P_ANSWER = Phase.ANSWER
_P_DONE = Phase.DONE
_P_THOUGHT = Phase.THOUGHT
_S_HOLD = ScanState.HOLD
_S_PROSE = ScanState.PROSE


class MarkerKind:
    """The kinds of marker, as `ReActScan.markers` names them."""

    THOUGHT = "thought"
    ACTION = "action"
    INPUT = "action_input"
    FINAL = "final_answer"
    OBSERVATION = "observation"
    ANSWER = "answer"
    """A bare ``Answer:`` (LlamaIndex's final answer): a final answer at the start of a line,
    prose anywhere else; `ReActScan.markers` records it as ``final_answer``."""


@dataclass
class HoldState:
    """A look-ahead being read: the held text, where it started and what it interrupted."""

    text: str = ""
    kind: HoldKind = HoldKind.MARKER
    start: int = 0
    prev: str = ""  # the character before the held text
    back: ScanState = ScanState.PROSE  # the state to resume in
    line_start: bool = True


@dataclass
class FenceState:
    """A fence marker and its info string, held until the fence proves to hold an action."""

    text: str = ""
    start: int = -1
    after_marker: bool = False


@dataclass
class EmitState:
    """What was handed out: this chunk's deltas, the thought text and the plain text."""

    out: list[Delta] = field(default_factory=list)
    thought: list[str] = field(default_factory=list)
    plain: list[str] = field(default_factory=list)


def is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def blank_tail_after_newline(text: str) -> bool | None:
    """``True``/``False``: the text after its last line break is blank or not; ``None`` when
    the text has no line break."""
    r = text.rfind("\n")
    if r < 0:
        return None
    return not text[r + 1 :].strip(HSPACE)


class ScannerBase:
    """The shared state of `ReActScanner` and its emission rules."""

    steps: list[ReActStep]
    markers: set[str]
    closed: bool
    _raw: list[str]
    _fed: int
    _emitted: EmitState
    _phase: Phase
    _late_markers: set[str]  # markers seen after the first step completed
    _state: ScanState
    _line_start: bool
    _run_prev: str  # the character before the text being run
    _no_hold_at: int  # a position re-read after a failed look-ahead: no new one there
    _skip_stars: int
    _step_start: int
    _hold: HoldState
    _fence: FenceState
    _in_plain_input: bool  # inside the action input string, nothing held: the hot path

    def _init_base(self) -> None:
        self.steps = []
        self.markers = set()
        self.closed = False
        self._raw = []
        self._fed = 0
        self._emitted = EmitState()
        self._phase = _P_THOUGHT
        self._late_markers = set()
        self._state = _S_PROSE
        self._line_start = True
        self._run_prev = ""
        self._no_hold_at = -1
        self._skip_stars = 0
        self._step_start = 0
        self._hold = HoldState()
        self._fence = FenceState()
        self._in_plain_input = False

    # ------------------------------------------------------------------ public

    def text(self) -> str:
        """All the text fed so far."""
        if len(self._raw) > 1:
            self._raw = ["".join(self._raw)]
        return self._raw[0] if self._raw else ""

    def result(self) -> ReActScan:
        """What was read: the steps, the thought text and whether the steps conflict."""
        return ReActScan(
            steps=tuple(self.steps),
            thought="".join(self._emitted.thought),
            plain_text="".join(self._emitted.plain),
            markers=frozenset(self.markers),
            conflict=self._conflict(),
        )

    def _conflict(self) -> bool:
        if not self.steps:
            return False
        kinds = {step.kind for step in self.steps}
        if len(kinds) > 1:
            return True
        if self.steps[0].kind == "finish":
            return bool(self._late_markers & {MarkerKind.ACTION, MarkerKind.INPUT})
        return MarkerKind.FINAL in self._late_markers

    # ------------------------------------------------------------------ look-ahead

    def _prev(self, text: str, i: int) -> str:
        return text[i - 1] if i > 0 else self._run_prev

    def _can_hold(self, text: str, i: int, base: int) -> bool:
        """A marker may start at ``text[i]``: a marker character after a non-word character."""
        return (
            text[i] in MARKER_START
            and not is_word_char(self._prev(text, i))
            and base + i != self._no_hold_at
        )

    def _start_hold(self, kind: HoldKind, text: str, i: int, base: int, back: ScanState) -> int:
        hold = self._hold
        hold.kind = kind
        hold.text = ""
        hold.start = base + i
        hold.prev = self._prev(text, i)
        hold.back = back
        hold.line_start = self._line_start
        self._state = _S_HOLD
        return i

    def _skip_blank(self, text: str, i: int) -> int:
        """Skip whitespace, and the closing emphasis of a ``**Marker:**``."""
        n = len(text)
        while i < n:
            c = text[i]
            if c.isspace():
                if c == "\n":
                    self._line_start = True
                i += 1
            elif c == "*" and self._skip_stars > 0:
                self._skip_stars -= 1
                i += 1
            else:
                break
        return i

    def _begin_json(self, pos: int, *, after_marker: bool, fenced: bool) -> None:
        """Start reading an action's JSON at ``pos`` (see `react_json`)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ emission

    def _emit(self, kind: DeltaKind, text: str) -> None:
        """Hand out ``text``; `_deltas` joins runs of one kind when the chunk ends (joining
        here, piece by piece, would be quadratic in a chunk of many one-character pieces)."""
        self._emitted.out.append((kind, text))

    def _deltas(self) -> list[Delta]:
        """This chunk's deltas, consecutive pieces of one kind joined: at most one delta of each
        kind in a row."""
        out = self._emitted.out
        if len(out) < 2:
            return out
        joined: list[Delta] = []
        run: list[str] = []
        for kind, text in out:
            if joined and joined[-1][0] == kind:
                run.append(text)
                continue
            if len(run) > 1:
                joined[-1] = (joined[-1][0], "".join(run))
            joined.append((kind, text))
            run = [text]
        if len(run) > 1:
            joined[-1] = (joined[-1][0], "".join(run))
        self._emitted.out = joined
        return joined

    def _emit_thought(self, text: str, *, plain: bool = True) -> None:
        if not text or self._phase != _P_THOUGHT:
            return
        self._emitted.thought.append(text)
        if plain:
            self._emitted.plain.append(text)
        self._emit(THOUGHT, text)

    def _thought_text(self, text: str) -> None:
        """Prose: thought text, and the line-start flag follows it."""
        if not text:
            return
        self._emit_thought(text)
        blank = blank_tail_after_newline(text)
        if blank is None:
            self._line_start = self._line_start and not text.strip(HSPACE)
        else:
            self._line_start = blank

    def _emit_answer(self, text: str) -> None:
        if text and self._phase == _P_ANSWER:
            self._emit(ANSWER, text)

    def _start_answer(self) -> bool:
        """The first undecided step is a final answer: stream it. True when this step is it."""
        if self._phase == _P_THOUGHT:
            self._phase = _P_ANSWER
            return True
        return False

    def _add_step(self, step: ReActStep) -> None:
        self.steps.append(step)
        self._phase = _P_DONE

    def _marker_seen(self, kind: str) -> None:
        self.markers.add(kind)
        if self.steps:
            self._late_markers.add(kind)
