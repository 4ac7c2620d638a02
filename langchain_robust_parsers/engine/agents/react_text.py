"""ReAct markers and LangChain's classic text layout.

The marker grammar (``Thought:``, ``Action:``, ``Action Input:``, ``Final Answer:``,
``Observation:`` in any case, numbered, in bold) is decided one character at a time by
`classify_marker`, so that the scanner can hold back a marker that is still forming and
release it the moment it cannot be one. `TextLayout` reads ``Action: tool`` with its
``Action Input: ...`` and ``Final Answer: ...`` values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import IntEnum

from langchain_robust_parsers.engine.agents.react_base import (
    HSPACE,
    MARKER_START,
    HoldKind,
    MarkerKind,
    ScannerBase,
    ScanState,
)
from langchain_robust_parsers.engine.agents.react_input_rules import clean_action_input
from langchain_robust_parsers.engine.agents.react_steps import (
    FINAL_ANSWER_ACTION,
    ReActStep,
    is_final_answer_name,
)
from langchain_robust_parsers.engine.report import ParseReport

__all__ = [
    "ACTION_NAME_LIMIT",
    "MARKER_HOLD_LIMIT",
    "MAX_MARKER_STARS",
    "Match",
    "TextLayout",
    "classify_marker",
    "strip_quote_pair",
    "tool_name",
]

MARKER_HOLD_LIMIT = 40
"""Characters held back while they may still become a marker. The longest marker the grammar
allows (``**Action  123  Input  123  **:``) is under 35 characters, so a longer hold is never a
marker; the bound keeps the look-ahead, and the re-reading of a failed one, constant."""

ACTION_NAME_LIMIT = 200
"""Characters the line after ``Action:`` may hold and still name a tool. Tool names are short;
a longer line is prose, and is streamed as thought text instead of being held back."""

MAX_MARKER_STARS = 2
"""Markdown emphasis around a marker (``**Final Answer:**``): up to two ``*`` on each side."""

_SEPARATOR_LIMIT = 6
"""Separators between the two words of ``Action Input``/``Final Answer`` (``Action 1 Input``)."""


class Match(IntEnum):
    """Whether held text is a marker."""

    NO = 0
    MAYBE = 1
    YES = 2


# the members, for the hot paths (a module global is read faster than an enum member)
_H_FENCE = HoldKind.FENCE
_H_LIST = HoldKind.LIST
_H_MARKER = HoldKind.MARKER
_H_TAG = HoldKind.TAG
_M_MAYBE = Match.MAYBE
_M_NO = Match.NO
_M_YES = Match.YES
_S_ACTION_NAME = ScanState.ACTION_NAME
_S_AFTER_NAME = ScanState.AFTER_NAME
_S_PROSE = ScanState.PROSE
_S_VALUE = ScanState.VALUE
_S_VALUE_START = ScanState.VALUE_START


_FIRST_WORDS = {
    "thought": MarkerKind.THOUGHT,
    "action": MarkerKind.ACTION,
    "final": MarkerKind.FINAL,
    "observation": MarkerKind.OBSERVATION,
}
_MARKER_WORDS = {
    **_FIRST_WORDS,
    "actioninput": MarkerKind.INPUT,
    "finalanswer": MarkerKind.FINAL,
    "answer": MarkerKind.ANSWER,
}
_MARKER_WORD_PREFIXES = frozenset(w[:i] for w in _MARKER_WORDS for i in range(1, len(w) + 1))
MARKER_HEADS = frozenset(w[:3] for w in _MARKER_WORDS)  # tho, act, fin, obs
_WORD_SEPARATORS = " \t_0123456789"
_MARKER_TAIL = ((HSPACE, 2), ("0123456789", 3), (HSPACE, 2), ("*", MAX_MARKER_STARS))
"""``[ \\t]{0,2}\\d{0,3}[ \\t]{0,2}\\*{0,2}`` before a marker's colon."""

_DESCRIBED_NAME = re.compile(r"([^\s()]+)[ \t]+\([^()\n]*\)")
"""``add (add two numbers)``: a one-word tool name, a blank and its description in parentheses
(LlamaIndex's prompt lists tools so). A name whose parentheses hold its arguments, with no blank
before them (``add(1, 2)``), is not split."""

_NAME_STOP = re.compile(r"\n|(?<!\w)[TtAaFfOo*]")


def _letters_end(s: str, i: int) -> int:
    n = len(s)
    while i < n and "a" <= s[i] <= "z":
        i += 1
    return i


def _second_word(s: str, i: int, word: str) -> tuple[Match | None, str, int]:
    """After ``action``/``final`` at ``s[:i]``: the two-word marker it may start. ``None`` as
    the match means "go on at the returned position with the returned kind"."""
    n = len(s)
    k = i
    while k < n and k - i < _SEPARATOR_LIMIT and s[k] in _WORD_SEPARATORS:
        k += 1
    if k == n:
        return _M_MAYBE, "", i
    if "a" <= s[k] <= "z":
        j = _letters_end(s, k)
        second = s[k:j]
        target = "input" if word == "action" else "answer"
        if j == n:
            return (_M_MAYBE if target.startswith(second) else _M_NO), "", i
        if second != target:
            return _M_NO, "", i
        return None, (MarkerKind.INPUT if word == "action" else MarkerKind.FINAL), j
    if word == "final":
        return _M_NO, "", i
    return None, _FIRST_WORDS[word], i


def classify_marker(text: str) -> tuple[Match, str, int]:
    """Whether ``text`` is a marker (``YES``, ending with its ``:``), may still become one
    (``MAYBE``) or cannot (``NO``); with the marker's kind and its leading ``*`` count.

    The grammar: ``\\*{0,2}`` keyword ``[ \\t]{0,2}\\d{0,3}[ \\t]{0,2}\\*{0,2}:``, where the
    keyword is ``Thought``, ``Action``, ``Action Input``, ``Final Answer``, ``Observation`` or
    ``Answer`` in any case (``_``, spaces or digits between two words, as in ``Action 1 Input
    1``). A bare ``Answer:`` (LlamaIndex's final answer) is of kind ``answer``: the scanner
    takes it as the final answer only at the start of a line.
    """
    s = text.lower()
    n = len(s)
    i = 0
    while i < n and s[i] == "*":
        i += 1
    stars = i
    if stars > MAX_MARKER_STARS:
        return _M_NO, "", 0
    if i == n:
        return _M_MAYBE, "", stars
    j = _letters_end(s, i)
    word = s[i:j]
    if not word:
        return _M_NO, "", 0
    if j == n:
        return (_M_MAYBE if word in _MARKER_WORD_PREFIXES else _M_NO), "", stars
    kind = _MARKER_WORDS.get(word)
    if kind is None:
        return _M_NO, "", 0
    i = j
    if word in ("action", "final"):
        match, kind, i = _second_word(s, i, word)
        if match is not None:
            return match, "", (stars if match == _M_MAYBE else 0)
    for chars, limit in _MARKER_TAIL:
        count = 0
        while i < n and count < limit and s[i] in chars:
            i += 1
            count += 1
    if i == n:
        return _M_MAYBE, "", stars
    if s[i] == ":" and i == n - 1:
        return _M_YES, kind, stars
    return _M_NO, "", 0


def tool_name(raw: str) -> str:
    """The tool named on an ``Action:`` line, without wrapping quotes, backticks, brackets or
    emphasis (``[search]``, ```` `search` ````, ``**search**``), and without the description
    that prompts listing tools as ``name (what it does)`` invite (``add (add two numbers)``)."""
    name = raw.strip().strip("`*\"'[]").strip()
    described = _DESCRIBED_NAME.fullmatch(name)
    if described is not None:
        name = described.group(1).strip("`*\"'[]")
    return name


def strip_quote_pair(value: str) -> str:
    """An ``Action Input`` without the double quotes that wrap all of it (``"Paris"``).

    A quote is taken off only with its partner at the other end: ``say "hi"`` keeps both of
    its quotes, as does a value that only opens or only closes one."""
    if len(value) >= 2 and value[0] == '"' and value[-1] == '"':
        return value[1:-1]
    return value


@dataclass
class NameLine:
    """The tool name on an ``Action:`` line, and the blanks after it."""

    parts: list[str] = field(default_factory=list)
    length: int = 0
    ws: str = ""

    def reset(self) -> None:
        self.parts = []
        self.length = 0
        self.ws = ""

    def text(self) -> str:
        return "".join(self.parts)


@dataclass
class TextValue:
    """An ``Action Input`` or a ``Final Answer`` being read."""

    final: bool = False
    name: str = ""
    parts: list[str] = field(default_factory=list)
    ws: str = ""  # trailing whitespace held back: it may end the value
    end: int = 0
    start: int = 0  # where the value's first character is, in the whole text
    emit: bool = False


class TextLayout(ScannerBase):
    """The states that read ``Action: tool`` / ``Action Input: ...`` and ``Final Answer: ...``."""

    _name: NameLine
    _value: TextValue

    def _after_action(self, text: str, i: int, base: int) -> int:
        i = self._skip_blank(text, i)
        if i >= len(text):
            return i
        c = text[i]
        self._name.reset()
        if c == "{":
            self._begin_json(base + i, after_marker=True, fenced=False)
            return i
        if c == "[":
            return self._start_hold(_H_LIST, text, i, base, _S_ACTION_NAME)
        if c in "`~":
            return self._start_hold(_H_FENCE, text, i, base, _S_ACTION_NAME)
        self._state = _S_ACTION_NAME
        self._line_start = False
        return i

    def _action_name(self, text: str, i: int, base: int) -> int:
        n = len(text)
        start = i
        name = self._name
        while True:
            m = _NAME_STOP.search(text, i)
            k = n if m is None else m.start()
            if m is not None and text[k] != "\n" and not self._can_hold(text, k, base):
                i = k + 1
                continue
            piece = text[start:k]
            name.parts.append(piece)
            name.length += len(piece)
            if name.length > ACTION_NAME_LIMIT:
                # prose after all: stream it as thought text
                self._state = _S_PROSE
                self._line_start = False
                self._thought_text(name.text())
                return k
            if m is None:
                return n
            if text[k] == "\n":
                name.ws = "\n"
                self._state = _S_AFTER_NAME
                return k + 1
            return self._start_hold(_H_MARKER, text, k, base, _S_ACTION_NAME)

    def _after_name(self, text: str, i: int, base: int) -> int:
        n = len(text)
        while i < n:
            c = text[i]
            if c in " \t\r\n\f\v":
                self._name.ws += c
                i += 1
                continue
            if c in MARKER_START and base + i != self._no_hold_at:
                self._line_start = True
                return self._start_hold(_H_MARKER, text, i, base, _S_AFTER_NAME)
            # the Action: line named no tool after all
            self._state = _S_PROSE
            self._line_start = True
            self._thought_text(self._name.text())
            self._thought_text(self._name.ws)
            return i
        return i

    def _begin_value(self, *, final: bool, name: str) -> None:
        value = self._value
        value.final = final or is_final_answer_name(name)
        value.name = name
        value.parts = []
        value.ws = ""
        value.emit = value.final and self._start_answer()
        self._state = _S_VALUE_START
        self._line_start = False

    def _value_start(self, text: str, i: int, base: int) -> int:
        n = len(text)
        while i < n:
            c = text[i]
            if c.isspace():  # as str.strip() sees it
                if c == "\n":
                    self._line_start = True
                i += 1
                continue
            if c == "*" and self._skip_stars > 0:
                self._skip_stars -= 1
                i += 1
                continue
            self._state = _S_VALUE
            self._value.end = self._value.start = base + i
            return i
        return i

    def _value_lines(self, text: str, i: int, base: int) -> int:
        n = len(text)
        while i < n:
            if self._line_start:
                c = text[i]
                if c in HSPACE:
                    self._value.ws += c
                    i += 1
                    continue
                if self._can_hold(text, i, base):
                    return self._start_hold(_H_MARKER, text, i, base, _S_VALUE)
                self._line_start = False
            nl = text.find("\n", i)
            end = n if nl < 0 else nl
            tag = self._frame_start(text, i, end, base)
            if tag >= 0:
                if tag > i:
                    self._value_text(text[i:tag], base + i)
                return self._start_hold(_H_TAG, text, tag, base, _S_VALUE)
            if end > i:
                self._value_text(text[i:end], base + i)
            if nl < 0:
                return n
            self._value.ws += "\n"
            self._line_start = True
            i = nl + 1
        return i

    def _frame_start(self, text: str, i: int, end: int, base: int) -> int:
        """Where a ``<`` in ``text[i:end]`` may start a section frame marker that ends the
        value (see ``_value_tag``); -1 for none."""
        k = text.find("<", i, end)
        if k >= 0 and base + k == self._no_hold_at:
            k = text.find("<", k + 1, end)
        return k

    def _value_text(self, piece: str, pos: int) -> None:
        """Value text at ``pos``; trailing whitespace waits, since it may end the value."""
        value = self._value
        kept = piece.rstrip()
        if not kept:
            value.ws += piece
            return
        out = value.ws + kept if value.ws else kept
        value.ws = piece[len(kept) :]
        value.parts.append(out)
        value.end = pos + len(kept)
        if value.emit:
            self._emit_answer(out)

    def _complete_value(self, end: int) -> None:
        value = self._value
        text = "".join(value.parts)
        value.parts = []
        value.ws = ""
        if value.final:
            step = ReActStep(
                kind="finish",
                tool=FINAL_ANSWER_ACTION,
                tool_input=text,
                start=self._step_start,
                end=end,
                layout="text",
                streamed=value.emit,
            )
        else:
            tool_input, repairs = clean_action_input(strip_quote_pair(text), value.start)
            report = None
            if repairs:
                report = ParseReport(start=self._step_start, end=end, repairs=repairs)
            step = ReActStep(
                kind="action",
                tool=tool_name(value.name),
                tool_input=tool_input,
                start=self._step_start,
                end=end,
                layout="text",
                report=report,
            )
        value.emit = False
        self._add_step(step)
        self._state = _S_PROSE
