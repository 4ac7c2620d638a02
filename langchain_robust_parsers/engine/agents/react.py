"""An incremental scanner for ReAct agent output: thoughts, tool actions and final answers.

A ReAct step is written in one of two layouts, and models mix them:

- **JSON**: ``Action: {"action": "search", "action_input": "weather"}``, inline, in a fence
  (```` ``` ````, ```` ```json ````, any case, closed or not), wrapped in a one-element list, or
  alone on a line; ``tool``/``name`` stand for ``action`` and any key containing ``input`` (or
  ``args``/``arguments``/``parameters``) for ``action_input``. The action ``Final Answer`` ends
  the turn with its input as the answer.
- **text** (LangChain's classic ReAct): ``Action: search`` then ``Action Input: weather``, or
  ``Final Answer: ...`` (also ``Action: Final Answer`` with the answer as its input).

:class:`ReActScanner` reads the text chunk by chunk, each character once, and hands back
:data:`Delta` s: the thought text without its markers (``Thought:``, ``Action:``...) while the
turn is undecided, then, once the first step is known to be a final answer, the answer itself
as it arrives. A JSON answer is decoded as it streams: an escape (``\\n``, ``\\"``,
``\\u00e9``, a surrogate pair) is handed out only once complete, so no delta ever holds half of
one. Completed steps are collected in :attr:`ReActScanner.steps`, all of them, so that a caller
can tell a clean turn from one that also holds a second, conflicting step.

The work per chunk is proportional to the chunk: runs of plain text and of string content are
taken with one regular-expression match each, and the only text held back is a bounded
look-ahead (a marker that may still be forming, a fence, a tag) or the JSON of an action being
read, which is decoded once when it closes. No regular expression has nested quantifiers.
Nothing here imports LangChain, prints or logs.
"""

from __future__ import annotations

import json
import json.decoder
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from langchain_robust_parsers.engine.errors import JsonEngineError
from langchain_robust_parsers.engine.json.decode import decode
from langchain_robust_parsers.engine.json.lenient import SIMPLE_ESCAPES as _SIMPLE_ESCAPES
from langchain_robust_parsers.engine.json.locate import THINK_CLOSE
from langchain_robust_parsers.engine.report import ParseReport, Repair, Source

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

_scanstring: Callable[[str, int, bool], tuple[str, int]] = vars(json.decoder)["scanstring"]
"""The standard library's JSON string decoder (C-accelerated; not in the type stubs)."""

# --------------------------------------------------------------------------- bounds

MARKER_HOLD_LIMIT = 40
"""Characters held back while they may still become a marker. The longest marker the grammar
allows (``**Action  123  Input  123  **:``) is under 35 characters, so a longer hold is never a
marker; the bound keeps the look-ahead, and the re-reading of a failed one, constant."""

TAG_HOLD_LIMIT = 16
"""Characters held back while ``<`` may still open or close a reasoning block; ``<reasoning>``,
the longest tag recognised, is 11."""

THINK_TAIL = 24
"""Characters of a reasoning block held back between chunks so that a closing tag split
across two chunks is still found; longer than the longest closing tag (``</reasoning  >``)."""

FENCE_INFO_LIMIT = 40
"""Characters allowed between a fence marker and the end of its line (the info string, such as
``json``). A longer line is prose with backticks in it, not an action fence."""

ACTION_NAME_LIMIT = 200
"""Characters the line after ``Action:`` may hold and still name a tool. Tool names are short;
a longer line is prose, and is streamed as thought text instead of being held back."""

KEY_LIMIT = 128
"""Characters a key of the action object may have. Real keys (``action``, ``action_input``)
are short; a longer one, or one with a line break, means the ``{`` started prose, not JSON, and
the text is handed back as thought text without waiting for a closing brace."""

MAX_MARKER_STARS = 2
"""Markdown emphasis around a marker (``**Final Answer:**``): up to two ``*`` on each side."""

# --------------------------------------------------------------------------- public types

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


@dataclass(frozen=True)
class ReActScan:
    """The result of scanning a whole text (:func:`scan_react`)."""

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


def scan_react(text: str) -> ReActScan:
    """Scan a whole text: the same reading as streaming it, in one chunk."""
    scanner = ReActScanner()
    scanner.feed(text)
    scanner.close()
    return scanner.result()


# --------------------------------------------------------------------------- markers

_NO = 0
_MAYBE = 1
_YES = 2

_K_THOUGHT = "thought"
_K_ACTION = "action"
_K_INPUT = "action_input"
_K_FINAL = "final_answer"
_K_OBSERVATION = "observation"
_FIRST_WORDS = {
    "thought": _K_THOUGHT,
    "action": _K_ACTION,
    "final": _K_FINAL,
    "observation": _K_OBSERVATION,
}
_MARKER_WORDS = {**_FIRST_WORDS, "actioninput": _K_INPUT, "finalanswer": _K_FINAL}
_MARKER_WORD_PREFIXES = frozenset(w[:i] for w in _MARKER_WORDS for i in range(1, len(w) + 1))
_MARKER_HEADS = frozenset(w[:3] for w in _MARKER_WORDS)  # tho, act, fin, obs
_MARKER_START = frozenset("TtAaFfOo*")
_WORD_SEPARATORS = " \t_0123456789"
_SEPARATOR_LIMIT = 6
_HSPACE = " \t"


def _letters_end(s: str, i: int) -> int:
    n = len(s)
    while i < n and "a" <= s[i] <= "z":
        i += 1
    return i


def _classify_marker(text: str) -> tuple[int, str, int]:
    """Whether ``text`` is a marker (``_YES``, ending with its ``:``), may still become one
    (``_MAYBE``) or cannot (``_NO``); with the marker's kind and its leading ``*`` count.

    The grammar: ``\\*{0,2}`` keyword ``[ \\t]{0,2}\\d{0,3}[ \\t]{0,2}\\*{0,2}:``, where the
    keyword is ``Thought``, ``Action``, ``Action Input``, ``Final Answer`` or ``Observation``
    in any case (``_``, spaces or digits between two words, as in ``Action 1 Input 1``).
    """
    s = text.lower()
    n = len(s)
    i = 0
    while i < n and s[i] == "*":
        i += 1
    stars = i
    if stars > MAX_MARKER_STARS:
        return _NO, "", 0
    if i == n:
        return _MAYBE, "", stars
    j = _letters_end(s, i)
    word = s[i:j]
    if not word:
        return _NO, "", 0
    if j == n:
        return (_MAYBE if word in _MARKER_WORD_PREFIXES else _NO), "", stars
    kind = _MARKER_WORDS.get(word)
    if kind is None:
        return _NO, "", 0
    i = j
    if word in ("action", "final"):
        k = i
        while k < n and k - i < _SEPARATOR_LIMIT and s[k] in _WORD_SEPARATORS:
            k += 1
        if k == n:
            return _MAYBE, "", stars
        if "a" <= s[k] <= "z":
            j = _letters_end(s, k)
            second = s[k:j]
            target = "input" if word == "action" else "answer"
            if j == n:
                return (_MAYBE if target.startswith(second) else _NO), "", stars
            if second != target:
                return _NO, "", 0
            kind = _K_INPUT if word == "action" else _K_FINAL
            i = j
        elif word == "final":
            return _NO, "", 0
    # [ \t]{0,2} \d{0,3} [ \t]{0,2} \*{0,2} :
    for chars, limit in ((_HSPACE, 2), ("0123456789", 3), (_HSPACE, 2), ("*", MAX_MARKER_STARS)):
        count = 0
        while i < n and count < limit and s[i] in chars:
            i += 1
            count += 1
    if i == n:
        return _MAYBE, "", stars
    if s[i] == ":" and i == n - 1:
        return _YES, kind, stars
    return _NO, "", 0


# --------------------------------------------------------------------------- JSON keys

_NAME_KEYS = frozenset({"action", "tool", "name", "tool_name", "action_name"})
_INPUT_KEYS = frozenset({"args", "arguments", "parameters", "params"})


def _is_input_key(key: str) -> bool:
    return "input" in key or key in _INPUT_KEYS


def _action_fields(value: Any) -> tuple[str | None, bool, Any]:
    """``(name, has_input, input)`` of an action value (an object, or a list whose first object
    is the action); ``name`` is ``None`` when the value is not an action."""
    if isinstance(value, list):
        value = next((item for item in value if isinstance(item, dict)), None)
    if not isinstance(value, dict):
        return None, False, None
    name: str | None = None
    has_input = False
    tool_input: Any = None
    for key, item in value.items():
        k = str(key).strip().lower()
        if name is None and k in _NAME_KEYS and isinstance(item, str):
            name = item
        elif not has_input and _is_input_key(k):
            has_input = True
            tool_input = item
    return name, has_input, tool_input


def _tool_name(raw: str) -> str:
    """The tool named on an ``Action:`` line, without wrapping quotes, backticks, brackets or
    emphasis (``[search]``, ```` `search` ````, ``**search**``)."""
    return raw.strip().strip("`*\"'[]").strip()


# --------------------------------------------------------------------------- scanner states

_S_PROSE = 0  # thought text
_S_THOUGHT_START = 1  # blanks after a Thought:/Observation: marker, then prose
_S_HOLD = 2  # a bounded look-ahead: marker, tag, fence run or list bracket
_S_THINK = 3  # inside <think>...</think>
_S_FENCE_INFO = 4  # after a fence marker, to the end of its line
_S_FENCE_BODY = 5  # blanks at the start of a fence's body
_S_AFTER_ACTION = 6  # blanks after Action:
_S_ACTION_NAME = 7  # the tool name on the Action: line
_S_AFTER_NAME = 8  # blanks after the tool name's line, before Action Input:
_S_VALUE_START = 9  # blanks before an action input or a final answer (text layout)
_S_VALUE = 10  # an action input or a final answer (text layout)
_S_JSON = 11  # the action's JSON
_S_JSON_AFTER = 12  # after a fenced action's JSON: blanks and the closing fence

_H_MARKER = 0
_H_TAG = 1
_H_FENCE = 2
_H_LIST = 3

# JSON structure states
_J_VALUE = 0
_J_KEY = 1
_J_COLON = 2
_J_AFTER = 3
_J_STRING = 4
_J_QUOTE = 5  # a quote inside a string: its end, or an unescaped inner quote?
_J_WORD = 6

# What a string at the action object's level is
_R_SKIP = 0
_R_KEY = 1
_R_NAME = 2
_R_INPUT = 3

# The action input as read so far
_IN_NONE = 0
_IN_STRING = 1
_IN_DONE = 2
_IN_OTHER = 3

_PHASE_THOUGHT = 0  # undecided: thought text is streamed
_PHASE_ANSWER = 1  # the first step is a final answer: its answer is streamed
_PHASE_DONE = 2  # the first step is complete: nothing more is streamed

# A marker can start only where its first three letters do (or its emphasis); a stop at a
# boundary letter whose next letters already rule a marker out would only be released again.
_PROSE_STOP = re.compile(
    r"[\n`~<{\[]|(?<!\w)(?:[Tt][Hh][Oo]|[Aa][Cc][Tt]|[Ff][Ii][Nn]|[Oo][Bb][Ss]|\*)"
)
_NAME_STOP = re.compile(r"\n|(?<!\w)[TtAaFfOo*]")
_STRING_RUN = {'"': re.compile(r'[^"\\]+'), "'": re.compile(r"[^'\\]+")}
_WORD_RUN = re.compile(r"[^\s,:{}\[\]\"']+")
_WS = frozenset(" \t\r\n\f\v")
_KEY_START = re.compile(r"[\w$\-]")
_STRING_CLOSERS = frozenset(",:}]")
_THINK_NAMES = frozenset({"think", "thinking", "reasoning"})
_JSON_SIMPLE_ESCAPES = {k: v for k, v in _SIMPLE_ESCAPES.items() if k != "'"}
_HEX = frozenset("0123456789abcdefABCDEF")
_HEX_DIGITS = re.compile(r"[0-9a-fA-F]+")


def _backslashes_before(text: str, i: int) -> int:
    """How many backslashes run up to (not including) ``text[i]``."""
    j = i
    while j > 0 and text[j - 1] == "\\":
        j -= 1
    return i - j


def _quotes_escaped(text: str) -> bool:
    """Every ``"`` in ``text`` (string content from its start) is escaped."""
    i = text.find('"')
    while i >= 0:
        if _backslashes_before(text, i) % 2 == 0:
            return False
        i = text.find('"', i + 1)
    return True


def _split_escape_tail(text: str) -> tuple[int, int, str] | None:
    """Split string content ``text`` where it can be decoded now: ``(cut, high, esc)`` with
    ``text[:cut]`` complete, ``esc`` an unfinished escape at the end (``\\``, ``\\u00``)
    and ``high`` the code of a high surrogate just before it that waits for its low half
    (-1 for none). ``None`` when an unfinished ``\\u`` holds a non-hex digit."""
    n = len(text)
    end = n
    esc = ""
    k = text.rfind("\\")
    if k >= 0 and _backslashes_before(text, k) % 2 == 0:
        tail = text[k:]
        if len(tail) == 1:
            esc, end = tail, k
        elif tail[1] == "u" and len(tail) < 6:
            if _HEX_DIGITS.fullmatch(tail, 2) is None and len(tail) > 2:
                return None
            esc, end = tail, k
    high = -1
    h = end - 6
    if (
        h >= 0
        and text[h] == "\\"
        and text[h + 1] == "u"
        and _HEX_DIGITS.fullmatch(text, h + 2, end) is not None
        and _backslashes_before(text, h) % 2 == 0
    ):
        code = int(text[h + 2 : end], 16)
        if 0xD800 <= code < 0xDC00:
            high, end = code, h
    return end, high, esc


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _joined_runs(out: list[Delta]) -> list[Delta]:
    """``out`` with the deltas of one kind in a row joined: a chunk gives at most one delta of
    each kind in a row."""
    if len(out) < 2:
        return out
    joined: list[Delta] = []
    run: list[str] = []
    kind = out[0][0]
    for k, text in out:
        if k != kind:
            joined.append((kind, "".join(run)))
            run = []
            kind = k
        run.append(text)
    joined.append((kind, "".join(run)))
    return joined


def _blank_tail_after_newline(text: str) -> bool | None:
    """``True``/``False``: the text after its last line break is blank or not; ``None`` when
    the text has no line break."""
    r = text.rfind("\n")
    if r < 0:
        return None
    return not text[r + 1 :].strip(_HSPACE)


class ReActScanner:
    """Feed text chunks with :meth:`feed`, end with :meth:`close`; both return the deltas the
    chunk completed. Completed steps accumulate in :attr:`steps`.

    Deltas follow the first step only: thought text while the turn is undecided; once the first
    step is known to be a final answer, its answer; nothing after the first step completes.
    """

    # the action JSON being read (see _reset_json)
    _jbuf: list[str]
    _jstart: int
    _jend: int
    _jfenced: bool
    _jafter_marker: bool
    _jstack: list[str]
    _jstate: int
    _jaction_depth: int
    _jaction_closed: bool
    _jlist_first: bool
    _jkey_role: str
    _jis_key: bool
    _jrole: int
    _jquote: str
    _jq_ws: str
    _jparts: list[str]
    _jlen: int
    _jesc: str
    _jhigh: str
    _jname: str | None
    _jfinal: bool
    _jemit: bool
    _jinput_kind: int
    _jinput_parts: list[str]
    _jpending: ReActStep | None
    _jfence_ticks: str
    _jopen: dict[str, int]

    def __init__(self) -> None:
        self.steps: list[ReActStep] = []
        self.markers: set[str] = set()
        self.closed = False
        self._in_plain_input = False  # inside the action input string, no escape pending
        self._raw: list[str] = []
        self._fed = 0
        self._out: list[Delta] = []
        self._thought: list[str] = []
        self._plain: list[str] = []
        self._phase = _PHASE_THOUGHT
        self._late_markers: set[str] = set()  # markers seen after the first step completed
        self._state = _S_PROSE
        self._line_start = True
        self._run_prev = ""  # the character before the text being run
        self._no_hold_at = -1  # a position re-read after a failed look-ahead: no new one there
        self._skip_stars = 0
        self._step_start = 0
        # look-ahead
        self._hold = ""
        self._hold_kind = _H_MARKER
        self._hold_start = 0
        self._hold_prev = ""
        self._hold_return = _S_PROSE
        self._hold_line_start = True
        # reasoning block
        self._think_tail = ""
        # fences
        self._fence_text = ""
        self._fence_start = -1
        self._fence_after_marker = False
        # text layout
        self._name_parts: list[str] = []
        self._name_len = 0
        self._name_ws = ""
        self._value_final = False
        self._value_name = ""
        self._value_parts: list[str] = []
        self._value_ws = ""
        self._value_end = 0
        self._value_emit = False
        # JSON
        self._reset_json()
        self._handlers: list[Callable[[str, int, int], int]] = [
            self._prose,
            self._thought_start,
            self._hold_char,
            self._think,
            self._fence_info,
            self._fence_body,
            self._after_action,
            self._action_name,
            self._after_name,
            self._value_start,
            self._value,
            self._json,
            self._json_after,
        ]

    # ------------------------------------------------------------------ public

    def feed(self, chunk: str) -> list[Delta]:
        """Consume ``chunk``; the deltas it completed."""
        if not chunk:
            return []
        if self._in_plain_input and '"' not in chunk and "\\" not in chunk:
            # The hot path: plain content of the action input string, as a long answer streams.
            self._raw.append(chunk)
            self._fed += len(chunk)
            self._jbuf.append(chunk)
            self._jinput_parts.append(chunk)
            self._run_prev = chunk[-1]
            return [(ANSWER, chunk)] if self._jemit else []
        if self.closed:
            raise ValueError("the scanner is closed")
        self._raw.append(chunk)
        base = self._fed
        self._fed += len(chunk)
        prev = self._run_prev
        self._run_prev = chunk[-1]
        if self._state == _S_JSON and self._jstate == _J_STRING and self._fast_string(chunk):
            self._in_plain_input = self._jrole == _R_INPUT and not self._jesc and not self._jhigh
            return self._out
        self._out = []
        if self._state == _S_VALUE and not self._line_start and "\n" not in chunk:
            self._value_text(chunk, base)  # a piece of a text-layout value: the common case
        else:
            self._run(chunk, base, prev)
        self._in_plain_input = (
            self._state == _S_JSON
            and self._jstate == _J_STRING
            and self._jrole == _R_INPUT
            and self._jquote == '"'
            and not self._jesc
            and not self._jhigh
            and (not self._jemit or self._phase == _PHASE_ANSWER)
        )
        return _joined_runs(self._out)

    def _fast_string(self, chunk: str) -> bool:
        """A chunk that lies inside the action input string (or a string that is skipped),
        decoded at C speed: the common case of a long answer. False (nothing changed) when it
        needs the full scan: it may end the string, or holds an escape JSON does not have."""
        role = self._jrole
        if role == _R_SKIP:
            if self._jesc or "\\" in chunk or self._jquote in chunk:
                return False
            self._jbuf.append(chunk)
            self._out = []
            return True
        if role != _R_INPUT or self._jquote != '"':
            return False
        if not self._jesc and not self._jhigh and "\\" not in chunk:
            if '"' in chunk:
                return False
            piece = chunk
        elif (
            not self._jesc
            and not self._jhigh
            and chunk.count("\\") == 1
            and (k := chunk.find("\\")) < len(chunk) - 1
            and (decoded := _JSON_SIMPLE_ESCAPES.get(chunk[k + 1])) is not None
            and chunk.count('"') == (decoded == '"')
        ):
            piece = chunk[:k] + decoded + chunk[k + 2 :]  # one simple escape: the common case
        else:
            head = self._jesc
            if self._jhigh:
                head = f"\\u{ord(self._jhigh):04x}" + head
            text = head + chunk
            if not _quotes_escaped(text):
                return False
            split = _split_escape_tail(text)
            if split is None:
                return False
            cut, high, esc = split
            try:
                piece = _scanstring(text[:cut] + '"', 0, False)[0]
            except ValueError:
                return False  # an escape JSON does not have: the full scan keeps it as written
            self._jesc = esc
            self._jhigh = chr(high) if high >= 0 else ""
        self._jbuf.append(chunk)
        self._out = []
        if piece:
            self._jinput_parts.append(piece)
            if self._jemit and self._phase == _PHASE_ANSWER:
                self._out = [(ANSWER, piece)]
        return True

    def close(self) -> list[Delta]:
        """End of the stream: flush what was held back and complete an open step."""
        if self.closed:
            return []
        self._in_plain_input = False
        self._out = []
        # Each round either finishes or replays a strictly shorter held text.
        while True:
            state = self._state
            if state == _S_HOLD:
                held = self._hold
                if self._hold_kind == _H_FENCE and len(held) >= 3:
                    self._hold = ""
                    self._state = self._hold_return
                    self._line_start = self._hold_line_start
                    self._thought_text(held)  # a fence marker with nothing after it
                    continue
                self._release(held)
                continue
            break
        state = self._state
        if state == _S_THINK:
            self._emit_thought(self._think_tail, plain=False)
            self._think_tail = ""
        elif state in (_S_FENCE_INFO, _S_FENCE_BODY):
            self._thought_text(self._fence_text)
        elif state in (_S_ACTION_NAME, _S_AFTER_NAME):
            self._thought_text("".join(self._name_parts) + self._name_ws)
        elif state in (_S_VALUE_START, _S_VALUE):
            self._complete_value(self._value_end)
        elif state == _S_JSON:
            self._json_closed_by_end()
        elif state == _S_JSON_AFTER:
            self._complete_pending_json(self._jend)
        self._state = _S_PROSE
        self.closed = True
        return _joined_runs(self._out)

    def text(self) -> str:
        """All the text fed so far."""
        if len(self._raw) > 1:
            self._raw = ["".join(self._raw)]
        return self._raw[0] if self._raw else ""

    def result(self) -> ReActScan:
        """What was read: the steps, the thought text and whether the steps conflict."""
        return ReActScan(
            steps=tuple(self.steps),
            thought="".join(self._thought),
            plain_text="".join(self._plain),
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
            return bool(self._late_markers & {_K_ACTION, _K_INPUT})
        return _K_FINAL in self._late_markers

    # ------------------------------------------------------------------ driving

    def _run(self, text: str, base: int, prev: str) -> None:
        """Scan ``text``, whose first character is at offset ``base``; ``prev`` is the character
        before it. Re-entered to re-read a failed look-ahead (bounded, strictly shorter)."""
        saved = self._run_prev
        self._run_prev = prev
        handlers = self._handlers
        i = 0
        n = len(text)
        while i < n:
            i = handlers[self._state](text, i, base)
        self._run_prev = saved

    def _prev(self, text: str, i: int) -> str:
        return text[i - 1] if i > 0 else self._run_prev

    def _can_hold(self, text: str, i: int, base: int) -> bool:
        """A marker may start at ``text[i]``: a marker character after a non-word character."""
        return (
            text[i] in _MARKER_START
            and not _is_word_char(self._prev(text, i))
            and base + i != self._no_hold_at
        )

    def _start_hold(self, kind: int, text: str, i: int, base: int, back: int) -> int:
        self._hold_kind = kind
        self._hold = ""
        self._hold_start = base + i
        self._hold_prev = self._prev(text, i)
        self._hold_return = back
        self._hold_line_start = self._line_start
        self._state = _S_HOLD
        return i

    # ------------------------------------------------------------------ emission

    def _emit(self, kind: DeltaKind, text: str) -> None:
        """Hand out ``text``; :func:`_joined_runs` joins the deltas of one kind in a row when
        the chunk is done (joining here, pairwise, was quadratic in a chunk of many deltas)."""
        self._out.append((kind, text))

    def _emit_thought(self, text: str, *, plain: bool = True) -> None:
        if not text or self._phase != _PHASE_THOUGHT:
            return
        self._thought.append(text)
        if plain:
            self._plain.append(text)
        self._emit(THOUGHT, text)

    def _thought_text(self, text: str) -> None:
        """Prose: thought text, and the line-start flag follows it."""
        if not text:
            return
        self._emit_thought(text)
        blank = _blank_tail_after_newline(text)
        if blank is None:
            self._line_start = self._line_start and not text.strip(_HSPACE)
        else:
            self._line_start = blank

    def _emit_answer(self, text: str) -> None:
        if text and self._phase == _PHASE_ANSWER:
            self._emit(ANSWER, text)

    def _start_answer(self) -> bool:
        """The first undecided step is a final answer: stream it. True when this step is it."""
        if self._phase == _PHASE_THOUGHT:
            self._phase = _PHASE_ANSWER
            return True
        return False

    def _add_step(self, step: ReActStep) -> None:
        self.steps.append(step)
        self._phase = _PHASE_DONE

    def _marker_seen(self, kind: str) -> None:
        self.markers.add(kind)
        if self.steps:
            self._late_markers.add(kind)

    # ------------------------------------------------------------------ prose

    def _prose(self, text: str, i: int, base: int) -> int:
        n = len(text)
        start = i
        while True:
            m = _PROSE_STOP.search(text, i)
            if m is None:
                k = self._marker_head_at_end(text, i, base)
                if k < 0:
                    self._thought_text(text[start:])
                    return n
                self._thought_text(text[start:k])
                return self._start_hold(_H_MARKER, text, k, base, _S_PROSE)
            k = m.start()
            c = text[k]
            if c == "\n":
                i = k + 1
                continue
            if c in _MARKER_START:
                if not self._can_hold(text, k, base):
                    i = k + 1
                    continue
                self._thought_text(text[start:k])
                return self._start_hold(_H_MARKER, text, k, base, _S_PROSE)
            if base + k == self._no_hold_at:
                i = k + 1
                continue
            if c in "`~":
                self._thought_text(text[start:k])
                return self._start_hold(_H_FENCE, text, k, base, _S_PROSE)
            if c == "<":
                self._thought_text(text[start:k])
                return self._start_hold(_H_TAG, text, k, base, _S_PROSE)
            # `{` or `[`: a JSON action only at the start of a line
            self._thought_text(text[start:k])
            start = k
            if not self._line_start:
                i = k + 1
                continue
            if c == "[":
                return self._start_hold(_H_LIST, text, k, base, _S_PROSE)
            self._begin_json(base + k, after_marker=False, fenced=False)
            return k

    def _marker_head_at_end(self, text: str, i: int, base: int) -> int:
        """Where a marker may start in the last two characters of ``text`` (from ``i``), its
        first three letters not all arrived yet; -1 for none."""
        n = len(text)
        for k in (n - 2, n - 1):
            if k >= i and self._can_hold(text, k, base) and text[k] != "*":
                head = text[k:].lower()
                if any(h.startswith(head) for h in _MARKER_HEADS):
                    return k
        return -1

    def _thought_start(self, text: str, i: int, base: int) -> int:
        i = self._skip_blank(text, i)
        if i < len(text):
            self._state = _S_PROSE
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

    # ------------------------------------------------------------------ look-ahead

    def _hold_char(self, text: str, i: int, base: int) -> int:
        kind = self._hold_kind
        if kind == _H_MARKER:
            return self._hold_marker(text, i, base)
        if kind == _H_FENCE:
            return self._hold_fence(text, i, base)
        if kind == _H_TAG:
            return self._hold_tag(text, i, base)
        return self._hold_list(text, i, base)

    def _release(self, held: str) -> None:
        """The look-ahead failed: re-read ``held`` in the state it interrupted, with no new
        look-ahead at its first character."""
        self._hold = ""
        if self._hold_return == _S_AFTER_NAME:
            # No `Action Input:` after the tool name's line: that line was prose.
            self._state = _S_PROSE
            self._thought_text("".join(self._name_parts) + self._name_ws)
            self._hold_return = _S_PROSE
            self._hold_line_start = self._line_start
        self._state = self._hold_return
        self._line_start = self._hold_line_start
        self._no_hold_at = self._hold_start
        self._run(held, self._hold_start, self._hold_prev)

    def _hold_marker(self, text: str, i: int, base: int) -> int:
        n = len(text)
        while i < n:
            held = self._hold + text[i]
            status, kind, stars = _classify_marker(held)
            if status == _MAYBE and len(held) < MARKER_HOLD_LIMIT:
                self._hold = held
                i += 1
                continue
            if status == _YES:
                self._hold = ""
                self._marker(kind, stars, self._hold_start, held)
                return i + 1
            self._release(held)
            return i + 1
        return i

    def _hold_fence(self, text: str, i: int, base: int) -> int:
        n = len(text)
        while i < n:
            c = text[i]
            if not self._hold or c == self._hold[0]:
                self._hold += c
                i += 1
                continue
            held = self._hold
            if len(held) < 3:
                self._release(held)
                return i
            self._hold = ""
            self._fence_text = held
            self._fence_start = self._hold_start
            self._fence_after_marker = self._hold_return == _S_ACTION_NAME
            self._state = _S_FENCE_INFO
            return i
        return i

    def _hold_tag(self, text: str, i: int, base: int) -> int:
        n = len(text)
        while i < n:
            c = text[i]
            held = self._hold + c
            if c == ">" and len(held) > 2:
                self._hold = ""
                inner = held[1:-1].strip().lower()
                closing = inner.startswith("/")
                name = inner.lstrip("/").strip()
                if name in _THINK_NAMES:
                    if closing:
                        # A lone closing tag: what came before it was reasoning.
                        self._plain.clear()
                        self._state = _S_PROSE
                    else:
                        self._state = _S_THINK
                        self._think_tail = ""
                    return i + 1
                self._release(held)
                return i + 1
            ok = len(held) == 1 or c.isalpha() or (c == "/" and len(held) == 2) or c in _HSPACE
            if not ok or len(held) > TAG_HOLD_LIMIT:
                self._release(held)
                return i + 1
            self._hold = held
            i += 1
        return i

    def _hold_list(self, text: str, i: int, base: int) -> int:
        n = len(text)
        while i < n:
            c = text[i]
            if not self._hold or (c in _WS and len(self._hold) < MARKER_HOLD_LIMIT):
                self._hold += c
                i += 1
                continue
            held = self._hold
            if c != "{":
                self._release(held)
                return i
            self._hold = ""
            after_marker = self._hold_return == _S_ACTION_NAME
            self._begin_json(self._hold_start, after_marker=after_marker, fenced=False)
            self._run(held, self._hold_start, self._hold_prev)
            return i
        return i

    # ------------------------------------------------------------------ markers

    def _marker(self, kind: str, stars: int, start: int, held: str) -> None:
        """A complete marker ``held`` at ``start``, read in the state the look-ahead left."""
        back = self._hold_return
        self._state = back
        self._line_start = self._hold_line_start
        if back == _S_VALUE:
            self._complete_value(self._value_end)
        elif back in (_S_ACTION_NAME, _S_AFTER_NAME):
            if kind == _K_INPUT:
                self._marker_seen(kind)
                self._begin_value(final=False, name="".join(self._name_parts))
                self._skip_stars = stars
                return
            self._thought_text("".join(self._name_parts) + self._name_ws)
        self._prose_marker(kind, stars, start, held)

    def _prose_marker(self, kind: str, stars: int, start: int, held: str) -> None:
        self._marker_seen(kind)
        self._skip_stars = stars
        if kind == _K_ACTION:
            self._step_start = start
            self._state = _S_AFTER_ACTION
        elif kind == _K_FINAL:
            self._step_start = start
            self._begin_value(final=True, name=FINAL_ANSWER_ACTION)
        elif kind == _K_INPUT:
            # `Action Input:` with no `Action:` before it is text.
            self._state = _S_PROSE
            self._thought_text(held)
        else:
            self._state = _S_THOUGHT_START
            self._line_start = False

    # ------------------------------------------------------------------ reasoning blocks

    def _think(self, text: str, i: int, base: int) -> int:
        tail = self._think_tail
        window = tail + text[i:]
        m = THINK_CLOSE.search(window)
        if m is not None:
            self._think_tail = ""
            self._emit_thought(window[: m.start()], plain=False)
            self._state = _S_PROSE
            self._line_start = False
            return i + m.end() - len(tail)
        k = window.rfind("<")
        if k >= 0 and len(window) - k < THINK_TAIL and ">" not in window[k:]:
            self._emit_thought(window[:k], plain=False)
            self._think_tail = window[k:]
        else:
            self._emit_thought(window, plain=False)
            self._think_tail = ""
        return len(text)

    # ------------------------------------------------------------------ fences

    def _fence_info(self, text: str, i: int, base: int) -> int:
        n = len(text)
        while i < n:
            c = text[i]
            if c == "\n":
                self._fence_text += c
                self._state = _S_FENCE_BODY
                return i + 1
            if c in "{[":
                self._begin_fenced_json(base + i)
                return i
            if c in "`~" or len(self._fence_text) > FENCE_INFO_LIMIT:
                self._fence_failed()
                return i
            self._fence_text += c
            i += 1
        return i

    def _fence_body(self, text: str, i: int, base: int) -> int:
        n = len(text)
        while i < n:
            c = text[i]
            if c in _WS:
                self._fence_text += c
                i += 1
                continue
            if c in "{[":
                self._begin_fenced_json(base + i)
                return i
            self._fence_failed()
            return i
        return i

    def _fence_failed(self) -> None:
        """Not an action fence: its marker and info string are thought text."""
        self._state = _S_PROSE
        self._thought_text(self._fence_text)
        self._fence_text = ""

    def _begin_fenced_json(self, pos: int) -> None:
        after_marker = self._fence_after_marker
        self._begin_json(pos, after_marker=after_marker, fenced=True)
        if not after_marker:
            self._step_start = self._fence_start

    # ------------------------------------------------------------------ text layout

    def _after_action(self, text: str, i: int, base: int) -> int:
        i = self._skip_blank(text, i)
        if i >= len(text):
            return i
        c = text[i]
        self._name_parts = []
        self._name_len = 0
        self._name_ws = ""
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
        while True:
            m = _NAME_STOP.search(text, i)
            k = n if m is None else m.start()
            if m is not None and text[k] != "\n" and not self._can_hold(text, k, base):
                i = k + 1
                continue
            piece = text[start:k]
            self._name_parts.append(piece)
            self._name_len += len(piece)
            if self._name_len > ACTION_NAME_LIMIT:
                # prose after all: stream it as thought text
                self._state = _S_PROSE
                self._line_start = False
                self._thought_text("".join(self._name_parts))
                return k
            if m is None:
                return n
            if text[k] == "\n":
                self._name_ws = "\n"
                self._state = _S_AFTER_NAME
                return k + 1
            return self._start_hold(_H_MARKER, text, k, base, _S_ACTION_NAME)

    def _after_name(self, text: str, i: int, base: int) -> int:
        n = len(text)
        while i < n:
            c = text[i]
            if c in _WS:
                self._name_ws += c
                i += 1
                continue
            if c in _MARKER_START and base + i != self._no_hold_at:
                self._line_start = True
                return self._start_hold(_H_MARKER, text, i, base, _S_AFTER_NAME)
            # the Action: line named no tool after all
            self._state = _S_PROSE
            self._line_start = True
            self._thought_text("".join(self._name_parts))
            self._thought_text(self._name_ws)
            return i
        return i

    def _begin_value(self, *, final: bool, name: str) -> None:
        self._value_final = final or is_final_answer_name(name)
        self._value_name = name
        self._value_parts = []
        self._value_ws = ""
        self._value_emit = self._value_final and self._start_answer()
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
            self._value_end = base + i
            return i
        return i

    def _value(self, text: str, i: int, base: int) -> int:
        n = len(text)
        while i < n:
            if self._line_start:
                c = text[i]
                if c in _HSPACE:
                    self._value_ws += c
                    i += 1
                    continue
                if self._can_hold(text, i, base):
                    return self._start_hold(_H_MARKER, text, i, base, _S_VALUE)
                self._line_start = False
            nl = text.find("\n", i)
            end = n if nl < 0 else nl
            if end > i:
                self._value_text(text[i:end], base + i)
            if nl < 0:
                return n
            self._value_ws += "\n"
            self._line_start = True
            i = nl + 1
        return i

    def _value_text(self, piece: str, pos: int) -> None:
        """Value text at ``pos``; trailing whitespace waits, since it may end the value."""
        kept = piece.rstrip()
        if not kept:
            self._value_ws += piece
            return
        out = self._value_ws + kept if self._value_ws else kept
        self._value_ws = piece[len(kept) :]
        self._value_parts.append(out)
        self._value_end = pos + len(kept)
        if self._value_emit:
            self._emit_answer(out)

    def _complete_value(self, end: int) -> None:
        value = "".join(self._value_parts)
        self._value_parts = []
        self._value_ws = ""
        if self._value_final:
            step = ReActStep(
                kind="finish",
                tool=FINAL_ANSWER_ACTION,
                tool_input=value,
                start=self._step_start,
                end=end,
                layout="text",
                streamed=self._value_emit,
            )
        else:
            step = ReActStep(
                kind="action",
                tool=_tool_name(self._value_name),
                tool_input=value.strip('"'),
                start=self._step_start,
                end=end,
                layout="text",
            )
        self._value_emit = False
        self._add_step(step)
        self._state = _S_PROSE

    # ------------------------------------------------------------------ JSON

    def _reset_json(self) -> None:
        self._jbuf = []
        self._jstart = 0
        self._jend = 0
        self._jfenced = False
        self._jafter_marker = False
        self._jstack = []
        self._jstate = _J_VALUE
        self._jaction_depth = 0
        self._jaction_closed = False
        self._jlist_first = False
        self._jkey_role = ""
        self._jis_key = False
        self._jrole = _R_SKIP
        self._jquote = '"'
        self._jq_ws = ""
        self._jparts = []
        self._jlen = 0
        self._jesc = ""
        self._jhigh = ""
        self._jname = None
        self._jfinal = False
        self._jemit = False
        self._jinput_kind = _IN_NONE
        self._jinput_parts = []
        self._jpending = None
        self._jfence_ticks = ""
        self._jopen = {"{": 0, "[": 0}

    def _begin_json(self, pos: int, *, after_marker: bool, fenced: bool) -> None:
        if not fenced:
            self._fence_text = ""
        self._reset_json()
        self._jstart = pos
        self._jfenced = fenced
        self._jafter_marker = after_marker
        if not after_marker and not fenced:
            self._step_start = pos
        self._state = _S_JSON

    def _at_action_level(self) -> bool:
        return (
            not self._jaction_closed
            and self._jaction_depth > 0
            and len(self._jstack) == self._jaction_depth
        )

    def _json(self, text: str, i: int, base: int) -> int:
        n = len(text)
        start = i
        while i < n:
            st = self._jstate
            if st == _J_STRING:
                i = self._jstring(text, i)
                if self._jrole == _R_KEY and self._jlen > KEY_LIMIT:
                    return self._json_abort(text, start, i)
                continue
            c = text[i]
            if st == _J_QUOTE:
                if c in _WS:
                    self._jq_ws += c
                    i += 1
                    continue
                if c in _STRING_CLOSERS or (c in "\"'" and "\n" in self._jq_ws):
                    self._jstring_closed()
                    continue
                # an unescaped quote inside the string: it is content
                self._jtext(self._jquote + self._jq_ws)
                self._jq_ws = ""
                self._jstate = _J_STRING
                if self._jrole == _R_KEY and self._jlen > KEY_LIMIT:
                    return self._json_abort(text, start, i)
                continue
            if st == _J_WORD:
                m = _WORD_RUN.match(text, i)
                if m is not None:
                    if self._jis_key:
                        word = m.group()[: KEY_LIMIT + 1 - self._jlen]  # cut as in _jstring
                        self._jparts.append(word)
                        self._jlen += len(word)
                        if self._jlen > KEY_LIMIT:
                            return self._json_abort(text, start, i + len(word))
                    i = m.end()
                    continue
                self._jword_ended()
                continue
            if c in _WS:
                i += 1
                continue
            if c == "}" or c == "]":
                if self._jclose(c):
                    self._jbuf.append(text[start : i + 1])
                    self._json_done(base + i + 1)
                    return i + 1
                i += 1
                continue
            level = self._at_action_level() and not self._jfinal
            if st == _J_VALUE:
                if (
                    c != "{"
                    and len(self._jstack) == 1
                    and self._jstack[0] == "["
                    and not self._jlist_first
                    and not self._jfinal
                ):
                    return self._json_abort(text, start, i)  # `[` wraps an action object only
                if c == "{" or c == "[":
                    self._jpush(c)
                elif c == '"' or c == "'":
                    self._jopen_string(c, is_key=False)
                elif c == ",":
                    self._jcomma()
                elif c == ":":
                    pass
                else:
                    self._jvalue_started(other=True)
                    self._jis_key = False
                    self._jstate = _J_WORD
                    continue
                i += 1
            elif st == _J_KEY:
                if c == '"' or c == "'":
                    self._jopen_string(c, is_key=True)
                elif c == ",":
                    pass
                elif _KEY_START.match(c):
                    self._jparts = []
                    self._jlen = 0
                    self._jis_key = True
                    self._jstate = _J_WORD
                    continue
                elif level:
                    return self._json_abort(text, start, i)
                i += 1
            elif st == _J_COLON:
                if c == ":":
                    self._jstate = _J_VALUE
                    i += 1
                elif level:
                    return self._json_abort(text, start, i)
                else:
                    self._jstate = _J_VALUE  # a missing colon
            else:  # _J_AFTER
                if c == ",":
                    self._jcomma()
                    i += 1
                elif c == '"' or c == "'":
                    self._jcomma()  # a missing comma
                elif level:
                    return self._json_abort(text, start, i)
                else:
                    i += 1
        self._jbuf.append(text[start:n])
        return n

    def _jcomma(self) -> None:
        self._jkey_role = ""
        top = self._jstack[-1] if self._jstack else "{"
        self._jstate = _J_KEY if top == "{" else _J_VALUE

    def _jpush(self, c: str) -> None:
        self._jvalue_started(other=True)
        stack = self._jstack
        stack.append(c)
        self._jopen[c] += 1
        depth = len(stack)
        if depth == 1:
            if c == "{":
                self._jaction_depth = 1
        elif depth == 2 and stack[0] == "[" and not self._jlist_first:
            self._jlist_first = True
            if c == "{":
                self._jaction_depth = 2
        self._jkey_role = ""
        self._jstate = _J_KEY if c == "{" else _J_VALUE

    def _jclose(self, c: str) -> bool:
        """Close a container; True when the root closed."""
        stack = self._jstack
        opener = "{" if c == "}" else "["
        if not self._jopen[opener]:
            return False  # an extra closer: ignored
        while stack:
            depth = len(stack)
            top = stack.pop()
            self._jopen[top] -= 1
            if depth == self._jaction_depth and not self._jaction_closed:
                self._jaction_closed = True
            if top == opener:
                break
        if not stack:
            return True
        self._jstate = _J_AFTER
        return False

    def _jvalue_started(self, *, other: bool) -> None:
        """A value starts; at the action level it may be the action input."""
        if self._jkey_role == "input" and self._at_action_level():
            self._jinput_kind = _IN_OTHER if other else _IN_STRING
            self._jkey_role = ""

    def _jopen_string(self, quote: str, *, is_key: bool) -> None:
        self._jquote = quote
        self._jis_key = is_key
        self._jparts = []
        self._jlen = 0
        self._jesc = ""
        self._jhigh = ""
        self._jq_ws = ""
        role = _R_SKIP
        if self._at_action_level():
            if is_key:
                role = _R_KEY
            elif self._jkey_role == "input":
                role = _R_INPUT
                self._jvalue_started(other=False)
                self._jemit = self._jfinal and self._phase == _PHASE_ANSWER
            elif self._jkey_role == "name":
                role = _R_NAME
        self._jrole = role
        self._jstate = _J_STRING

    def _jstring(self, text: str, i: int) -> int:
        n = len(text)
        run = _STRING_RUN[self._jquote]
        role = self._jrole
        while i < n:
            if self._jesc:
                i = self._jescape(text, i)
                if role == _R_KEY and self._jlen > KEY_LIMIT:
                    return i
                continue
            m = run.match(text, i)
            if m is not None:
                if role == _R_KEY:
                    # A key ends the capture at its first line break or past KEY_LIMIT
                    # characters: cut there, wherever the chunk ends, so that the text after
                    # it is read the same in any chunking.
                    piece = m.group()
                    cut = min(len(piece), KEY_LIMIT + 1 - self._jlen)
                    newline = piece.find("\n", 0, cut)
                    if newline >= 0:
                        cut = newline + 1
                    self._jtext(piece[:cut])
                    i += cut
                    if self._jlen > KEY_LIMIT:
                        return i
                    continue
                if role != _R_SKIP:
                    self._jtext(m.group())
                i = m.end()
                continue
            if text[i] == "\\":
                self._jesc = "\\"
                i += 1
                continue
            self._jstate = _J_QUOTE
            self._jq_ws = ""
            return i + 1
        return i

    def _jtext(self, piece: str) -> None:
        """Decoded string content for the current action-level string."""
        role = self._jrole
        if role == _R_SKIP or not piece:
            return
        if self._jhigh:
            piece = self._jhigh + piece
            self._jhigh = ""
        if role == _R_INPUT:
            self._jinput_parts.append(piece)
            if self._jemit:
                self._emit_answer(piece)
            return
        if role == _R_KEY and "\n" in piece:
            self._jlen = KEY_LIMIT + 1  # a key never spans lines: this is prose
        self._jparts.append(piece)
        self._jlen += len(piece)

    def _jescape(self, text: str, i: int) -> int:
        """Continue the escape sequence in ``self._jesc`` with ``text[i]``."""
        c = text[i]
        if self._jrole == _R_SKIP:
            self._jesc = ""
            return i + 1
        esc = self._jesc
        if esc == "\\":
            if c == "u":
                self._jesc = "\\u"
                return i + 1
            self._jesc = ""
            self._jtext(_SIMPLE_ESCAPES.get(c, "\\" + c))
            return i + 1
        if c not in _HEX:
            # not an escape after all: keep what was written
            self._jesc = ""
            self._jtext(esc)
            return i
        esc += c
        if len(esc) < 6:
            self._jesc = esc
            return i + 1
        self._jesc = ""
        code = int(esc[2:], 16)
        if self._jhigh:
            high = ord(self._jhigh)
            if 0xDC00 <= code < 0xE000:
                self._jhigh = ""
                self._jtext(chr(0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00)))
                return i + 1
        if 0xD800 <= code < 0xDC00:
            pending = self._jhigh
            self._jhigh = ""
            if pending:
                self._jtext(pending)  # a lone high surrogate before another one
            self._jhigh = chr(code)  # wait for its low half
        else:
            self._jtext(chr(code))
        return i + 1

    def _jstring_closed(self) -> None:
        role = self._jrole
        if self._jhigh:
            high = self._jhigh
            self._jhigh = ""
            self._jtext(high)
        self._jq_ws = ""
        self._jstate = _J_AFTER
        if self._jis_key:
            key = "".join(self._jparts)
            self._jkey_found(key)
            return
        if role == _R_NAME:
            self._jname = "".join(self._jparts)
            self._jkey_role = ""
            if is_final_answer_name(self._jname):
                self._jfinal = True
                if self._start_answer():
                    self._emit_answer("".join(self._jinput_parts))
                    self._jemit = self._jinput_kind == _IN_STRING
        elif role == _R_INPUT:
            self._jinput_kind = _IN_DONE
            self._jemit = False

    def _jkey_found(self, key: str) -> None:
        self._jstate = _J_COLON
        self._jkey_role = ""
        if not self._at_action_level():
            return
        k = key.strip().lower()
        if k in _NAME_KEYS and self._jname is None:
            self._jkey_role = "name"
        elif _is_input_key(k) and self._jinput_kind == _IN_NONE:
            self._jkey_role = "input"

    def _jword_ended(self) -> None:
        if self._jis_key:
            self._jis_key = False
            self._jkey_found("".join(self._jparts))
        else:
            self._jstate = _J_AFTER

    def _json_abort(self, text: str, start: int, i: int) -> int:
        """The ``{`` started prose, not an action: hand everything read back as thought."""
        self._jbuf.append(text[start:i])
        raw = self._fence_text + "".join(self._jbuf)
        self._fence_text = ""
        self._reset_json()
        self._state = _S_PROSE
        self._thought_text(raw)
        return i

    def _json_done(self, end: int) -> None:
        self._jend = end
        raw = "".join(self._jbuf)
        step = self._json_step(raw, end, truncated=False)
        if step is None:
            self._state = _S_PROSE
            text = self._fence_text + raw
            self._fence_text = ""
            self._reset_json()
            self._thought_text(text)
            return
        if self._jfenced:
            self._jpending = step
            self._state = _S_JSON_AFTER
            return
        self._reset_json()
        self._add_step(step)
        self._state = _S_PROSE
        self._line_start = False

    def _json_closed_by_end(self) -> None:
        """The stream ended inside the action's JSON: complete it if it is an action."""
        if self._jstate == _J_QUOTE:
            self._jstring_closed()
        raw = "".join(self._jbuf)
        step = self._json_step(raw, self._fed, truncated=True)
        if step is None:
            text = self._fence_text + raw
            self._fence_text = ""
            self._reset_json()
            self._thought_text(text)
            return
        self._reset_json()
        self._add_step(step)

    def _json_after(self, text: str, i: int, base: int) -> int:
        n = len(text)
        while i < n:
            c = text[i]
            if c in _WS and not self._jfence_ticks:
                i += 1
                continue
            if c in "`~" and (not self._jfence_ticks or c == self._jfence_ticks[0]):
                self._jfence_ticks += c
                i += 1
                if len(self._jfence_ticks) == 3:
                    self._complete_pending_json(base + i)
                    return i
                continue
            self._complete_pending_json(self._jend)
            return i
        return i

    def _complete_pending_json(self, end: int) -> None:
        step = self._jpending
        self._reset_json()
        self._state = _S_PROSE
        self._line_start = False
        if step is None:
            return
        if end != step.end:
            step = ReActStep(
                kind=step.kind,
                tool=step.tool,
                tool_input=step.tool_input,
                start=step.start,
                end=end,
                layout=step.layout,
                fenced=step.fenced,
                streamed=step.streamed,
                truncated=step.truncated,
                report=step.report,
            )
        self._add_step(step)

    def _json_step(self, raw: str, end: int, *, truncated: bool) -> ReActStep | None:
        """The step the action JSON ``raw`` (ending at ``end``) spells, or ``None``."""
        value, report = _decode_action(raw, self._jstart, fenced=self._jfenced)
        name, has_input, tool_input = _action_fields(value)
        if self._jfinal or name is None:
            name = self._jname
        if name is None:
            return None
        string_input = self._jinput_kind in (_IN_STRING, _IN_DONE)
        if not has_input and string_input:
            has_input = True
            tool_input = "".join(self._jinput_parts)
        if not has_input and not self._jafter_marker:
            return None
        cut = truncated or (report is not None and report.truncated)
        if is_final_answer_name(name):
            if string_input and self._jfinal:
                answer: Any = "".join(self._jinput_parts)
                streamed = self._jemit or self._phase == _PHASE_ANSWER
            else:
                answer = tool_input if has_input else ""
                streamed = False
            return ReActStep(
                kind="finish",
                tool=FINAL_ANSWER_ACTION,
                tool_input=answer,
                start=self._step_start,
                end=end,
                layout="json",
                fenced=self._jfenced,
                streamed=streamed and isinstance(answer, str),
                truncated=cut,
                report=report,
            )
        return ReActStep(
            kind="action",
            tool=name.strip(),
            tool_input=tool_input if has_input else {},
            start=self._step_start,
            end=end,
            layout="json",
            fenced=self._jfenced,
            truncated=cut,
            report=report,
        )


# --------------------------------------------------------------------------- JSON decoding

_STRICT = json.JSONDecoder()
_LAX = json.JSONDecoder(strict=False)


def _decode_action(raw: str, start: int, *, fenced: bool) -> tuple[Any, ParseReport | None]:
    """The value of an action's JSON text ``raw`` (at offset ``start`` of the whole text) and
    what decoding it took; ``(None, None)`` when it holds no JSON value."""
    source: Source = "fenced" if fenced else "span"
    end = start + len(raw)
    try:
        value = _STRICT.decode(raw)
    except (ValueError, RecursionError):
        pass
    else:
        return value, ParseReport(source=source, start=start, end=end)
    try:
        value = _LAX.decode(raw)
    except (ValueError, RecursionError):
        pass
    else:
        repair = Repair("control_character", start)
        return value, ParseReport(source=source, start=start, end=end, repairs=(repair,))
    try:
        value, found = decode(raw)
    except JsonEngineError:
        return None, None
    repairs = tuple(Repair(r.name, start + r.pos) for r in found.repairs)
    report = ParseReport(
        source=source,
        start=start + found.start,
        end=start + found.end,
        repairs=repairs,
        truncated=found.truncated,
    )
    return value, report
