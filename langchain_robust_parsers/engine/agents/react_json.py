"""A ReAct action written as JSON, read as it streams.

``Action: {"action": "search", "action_input": "weather"}``, inline, fenced, list-wrapped or
alone on a line (and, found the same way, inside a line of prose). `JsonActions` follows
the JSON's structure chunk by chunk (only as far as finding where it ends and which strings are
the action's name and input) and hands the input of a ``Final Answer`` out as it arrives.

String content is never decoded here: the raw text of a string is cut where no escape is left
unfinished (a high surrogate waits for its low half), and the complete part is decoded by the
package's decoders (`decode_content`): the standard library's C string decoder for strict
JSON, on which every JSON reader agrees by definition, else the shared
`JsonStreamDecoder`. A malformed
``\\u`` escape, which that decoder leaves to the complete-text engine, is kept as written, the
engine's rule, by escaping it before decoding; so every piece of a string decodes alone as it
does inside the whole, no delta ever holds half an escape, and an answer reads the same
streamed, parsed whole or passed to ``loads``. The whole JSON is decoded once when it closes.
"""

from __future__ import annotations

import json
import json.decoder
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import IntEnum
from typing import Any

from langchain_robust_parsers.engine.agents.react_base import Phase, ScannerBase, ScanState
from langchain_robust_parsers.engine.agents.react_steps import (
    ANSWER,
    FINAL_ANSWER_ACTION,
    ReActStep,
    final_answer_value,
    is_final_answer_name,
)
from langchain_robust_parsers.engine.errors import JsonEngineError
from langchain_robust_parsers.engine.json.decode import decode
from langchain_robust_parsers.engine.json.stream_decoder import JsonStreamDecoder
from langchain_robust_parsers.engine.lexicon.escapes import (
    HEX4,
    escaped_at,
    unfinished_escape_start,
)
from langchain_robust_parsers.engine.report import ParseReport, Repair, Source

__all__ = [
    "KEY_LIMIT",
    "ActionJson",
    "JsonActions",
    "action_fields",
    "decode_action",
    "decode_content",
    "split_decodable",
]

KEY_LIMIT = 128
"""Raw characters a key of the action object may have. Real keys (``action``,
``action_input``) are short; a longer one, or one with a line break, means the ``{`` started
prose, not JSON, and the text is handed back as thought text without waiting for a closer."""

_scanstring: Callable[[str, int, bool], tuple[str, int]] = vars(json.decoder)["scanstring"]
"""The standard library's JSON string decoder (C-accelerated; not in the type stubs)."""

_NAME_KEYS = frozenset({"action", "tool", "name", "tool_name", "action_name"})
_INPUT_KEYS = frozenset({"args", "arguments", "parameters", "params"})
_STRING_RUN = {'"': re.compile(r'[^"\\]+'), "'": re.compile(r"[^'\\]+")}
_WORD_RUN = re.compile(r"[^\s,:{}\[\]\"']+")
_WS = frozenset(" \t\r\n\f\v")
_KEY_START = re.compile(r"[\w$\-]")
_STRING_CLOSERS = frozenset(",:}]")


class JState(IntEnum):
    """Where the JSON reader is."""

    VALUE = 0
    KEY = 1
    COLON = 2
    AFTER = 3
    STRING = 4
    QUOTE = 5  # a quote inside a string: its end, or an unescaped inner quote?
    WORD = 6


class Role(IntEnum):
    """What a string at the action object's level is."""

    SKIP = 0
    KEY = 1
    NAME = 2
    INPUT = 3


class InputKind(IntEnum):
    """The action input as read so far."""

    NONE = 0
    STRING = 1
    DONE = 2
    OTHER = 3


# the members, for the hot paths (a module global is read faster than an enum member)
_IN_DONE = InputKind.DONE
_IN_NONE = InputKind.NONE
_IN_OTHER = InputKind.OTHER
_IN_STRING = InputKind.STRING
_J_AFTER = JState.AFTER
_J_COLON = JState.COLON
_J_KEY = JState.KEY
_J_QUOTE = JState.QUOTE
_J_STRING = JState.STRING
_J_VALUE = JState.VALUE
_J_WORD = JState.WORD
_P_ANSWER = Phase.ANSWER
_R_INPUT = Role.INPUT
_R_KEY = Role.KEY
_R_NAME = Role.NAME
_R_SKIP = Role.SKIP
_S_JSON = ScanState.JSON
_S_JSON_AFTER = ScanState.JSON_AFTER
_S_PROSE = ScanState.PROSE


# --------------------------------------------------------------------------- strings


def _quotes_escaped(text: str) -> bool:
    """Every ``"`` in ``text`` (string content from its start) is escaped."""
    i = text.find('"')
    while i >= 0:
        if not escaped_at(text, i):
            return False
        i = text.find('"', i + 1)
    return True


def _ends_in_escape(text: str) -> bool:
    """``text`` ends with a backslash that escapes what comes next."""
    return text.endswith("\\") and escaped_at(text, len(text))


def split_decodable(text: str) -> tuple[int, int]:
    """Where raw string content ``text`` can be decoded now: ``(cut, unfinished)``.

    ``text[:cut]`` decodes the same alone as followed by anything; ``text[cut:unfinished]`` is
    a high surrogate escape (``\\ud83d``) waiting for its low half; ``text[unfinished:]`` is an
    escape not finished yet (``\\``, ``\\u00``). A ``\\u`` followed by a non-hex character is
    finished: it is malformed whatever follows."""
    start = unfinished_escape_start(text, len(text))
    if start < 0:
        return len(text), len(text)
    if text.startswith("\\u", start) and len(text) - start >= 6:
        return start, start + 6  # the complete high half, then what is cut after it
    return start, start


def _keep_malformed_unicode_escapes(raw: str) -> str:
    """``raw`` with each malformed ``\\u`` escape (not four hex digits) escaped itself, so that
    it reads as written: the JSON engine's rule for it, applied before decoding so that any
    piece of a string decodes alone as it does inside the whole."""
    out: list[str] = []
    i = 0
    k = raw.find("\\")
    while k >= 0:
        if raw.startswith("u", k + 1) and HEX4.fullmatch(raw, k + 2, k + 6) is None:
            out.append(raw[i:k])
            out.append("\\\\u")
            i = k + 2
        k = raw.find("\\", k + 2)
    out.append(raw[i:])
    return "".join(out)


def decode_content(raw: str, quote: str = '"') -> str:
    """The value of complete raw string content ``raw`` (between quotes ``quote``)."""
    if "\\" not in raw:
        return raw
    if quote == '"':
        try:
            return _scanstring(raw + '"', 0, False)[0]
        except ValueError:
            pass  # not strict JSON: the shared decoders below read it
    source = "[" + quote + _keep_malformed_unicode_escapes(raw) + quote + "]"
    decoder = JsonStreamDecoder()
    decoder.feed(source)
    if decoder.done and not decoder.failed:
        value = decoder.snapshot()
        if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
            return value[0]
    # Whatever the stream decoder leaves to look-ahead goes to the complete-text engine, as all
    # its callers do (malformed `\u` escapes, its one case today, no longer reach it).
    try:
        value, _ = decode(source)
    except JsonEngineError:
        return raw
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], str):
        return value[0]
    return raw


# --------------------------------------------------------------------------- action values


def _is_input_key(key: str) -> bool:
    return "input" in key or key in _INPUT_KEYS


def _dict_fields(value: dict[Any, Any]) -> tuple[str | None, bool, Any]:
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


def action_fields(value: Any) -> tuple[str | None, bool, Any]:
    """``(name, has_input, input)`` of an action value (an object, or a list whose first object
    is the action); ``name`` is ``None`` when the value is not an action."""
    if isinstance(value, list):
        value = next((item for item in value if isinstance(item, dict)), None)
    if not isinstance(value, dict):
        return None, False, None
    return _dict_fields(value)


def _names_by_action_key(value: Any) -> bool:
    """The action object names its tool with the ``action`` key itself. Fenced, such an object
    is an action even without an input (a tool that takes no arguments), as the JSON agent
    layouts read it. One named by ``name``/``tool`` needs an input or an ``Action:`` marker,
    since ``{"name": "Bob"}`` is as likely plain data; so does an unfenced one in prose."""
    if isinstance(value, list):
        value = next((item for item in value if isinstance(item, dict)), None)
    if not isinstance(value, dict):
        return False
    return any(str(key).strip().lower() == "action" for key in value)


def _list_siblings(value: Any) -> list[tuple[str, bool, Any]]:
    """The actions after the first in a JSON list of actions."""
    if not isinstance(value, list):
        return []
    found = [_dict_fields(item) for item in value if isinstance(item, dict)]
    return [(name, has, given) for name, has, given in found[1:] if name is not None]


_STRICT = json.JSONDecoder()
_LAX = json.JSONDecoder(strict=False)


def decode_action(raw: str, start: int, *, fenced: bool) -> tuple[Any, ParseReport | None]:
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
    repairs = tuple(Repair(r.name, start + r.pos, r.path) for r in found.repairs)
    report = ParseReport(
        source=source,
        start=start + found.start,
        end=start + found.end,
        repairs=repairs,
        truncated=found.truncated,
    )
    return value, report


# --------------------------------------------------------------------------- reader state


@dataclass
class JString:
    """The string being read: its quote, what it is and its raw content not yet decoded."""

    quote: str = '"'
    is_key: bool = False
    role: Role = Role.SKIP
    raw: list[str] = field(default_factory=list)
    length: int = 0  # raw characters of a key, against KEY_LIMIT
    esc: bool = False  # the last character was an escaping backslash
    q_ws: str = ""  # blanks after a quote that may be content


@dataclass
class ActionJson:
    """The action JSON being read."""

    buf: list[str] = field(default_factory=list)
    start: int = 0
    end: int = 0
    fenced: bool = False
    after_marker: bool = False
    stack: list[str] = field(default_factory=list)
    state: JState = JState.VALUE
    action_depth: int = 0
    action_closed: bool = False
    list_first: bool = False
    key_role: str = ""
    name: str | None = None
    final: bool = False
    emit: bool = False
    input_kind: InputKind = InputKind.NONE
    input_parts: list[str] = field(default_factory=list)
    pending: ReActStep | None = None
    fence_ticks: str = ""
    open: dict[str, int] = field(default_factory=lambda: {"{": 0, "[": 0})
    s: JString = field(default_factory=JString)

    def at_action_level(self) -> bool:
        return (
            not self.action_closed
            and self.action_depth > 0
            and (len(self.stack) == self.action_depth)
        )


# --------------------------------------------------------------------------- the reader


class JsonActions(ScannerBase):
    """The states that read an action's JSON (``ScanState.JSON`` and ``JSON_AFTER``)."""

    _j: ActionJson

    # ------------------------------------------------------------------ fast path

    def _fast_string(self, chunk: str) -> bool:
        """A chunk that lies inside the action input string (or a string that is skipped):
        the common case of a long answer. False (nothing changed) when it needs the full scan:
        it may end the string."""
        j = self._j
        s = j.s
        if s.role == _R_SKIP:
            if s.esc or "\\" in chunk or s.quote in chunk:
                return False
            j.buf.append(chunk)
            self._emitted.out = []
            self._in_plain_input = False
            return True
        if s.role != _R_INPUT or s.quote != '"':
            return False
        text = "".join(s.raw) + chunk if s.raw else chunk
        if '"' in text and not _quotes_escaped(text):
            return False
        j.buf.append(chunk)
        self._emitted.out = []
        k = text.rfind("\\")
        if k < len(text) - 1 and text[k + 1] != "u":
            # Every escape is complete (the last one is not a `\u`, so no high surrogate waits
            # either): decode it all at once, the common case.
            s.raw = []
            s.esc = False
            try:
                piece = _scanstring(text + '"', 0, False)[0]
            except ValueError:
                piece = decode_content(text)
            j.input_parts.append(piece)
            if j.emit and self._phase == _P_ANSWER:
                self._emitted.out = [(ANSWER, piece)] if piece else []
                self._in_plain_input = True
            else:
                self._in_plain_input = not j.emit
            return True
        # An escape is unfinished at the end (`\`, `\u00`, or a high surrogate that waits
        # for its low half): decode up to it, carry the rest.
        cut = split_decodable(text)[0]
        s.raw = [text[cut:]] if cut < len(text) else []
        s.esc = _ends_in_escape(text)
        if cut:
            try:
                piece = _scanstring(text[:cut] + '"', 0, False)[0]
            except ValueError:
                piece = decode_content(text[:cut])
            j.input_parts.append(piece)
            if j.emit and self._phase == _P_ANSWER:
                self._emitted.out = [(ANSWER, piece)] if piece else []
        self._in_plain_input = not s.raw and (not j.emit or self._phase == _P_ANSWER)
        return True

    def _plain_input(self) -> bool:
        """Inside the action input string with nothing held: a chunk with no quote and no
        backslash is content as it stands."""
        j = self._j
        s = j.s
        return (
            self._state == _S_JSON
            and j.state == _J_STRING
            and s.role == _R_INPUT
            and s.quote == '"'
            and not s.esc
            and not s.raw
            and (not j.emit or self._phase == _P_ANSWER)
        )

    def _flush_input(self, *, closed: bool = False, cut_off: bool = False) -> None:
        """Decode the input string's raw content as far as no escape is left unfinished (all
        of it once ``closed``; an unfinished escape is dropped when the stream is ``cut_off``)
        and hand it out."""
        j = self._j
        s = j.s
        if not s.raw:
            return
        text = s.raw[0] if len(s.raw) == 1 else "".join(s.raw)
        cut = len(text) if closed else split_decodable(text)[0]
        s.raw = [] if closed or cut_off or cut == len(text) else [text[cut:]]
        if cut_off:
            s.esc = False
        piece = decode_content(text[:cut], s.quote)
        if piece:
            j.input_parts.append(piece)
            if j.emit:
                self._emit_answer(piece)

    # ------------------------------------------------------------------ structure

    def _begin_json(self, pos: int, *, after_marker: bool, fenced: bool) -> None:
        if not fenced:
            self._fence.text = ""
        j = self._j = ActionJson()
        j.start = pos
        j.fenced = fenced
        j.after_marker = after_marker
        if not after_marker and not fenced:
            self._step_start = pos
        self._state = _S_JSON

    def _json(self, text: str, i: int, base: int) -> int:
        n = len(text)
        start = i
        j = self._j
        while i < n:
            st = j.state
            if st == _J_STRING:
                i = self._jstring(text, i)
                if j.s.role == _R_KEY and j.s.length > KEY_LIMIT:
                    return self._json_abort(text, start, i)
                continue
            c = text[i]
            if st == _J_QUOTE:
                i = self._jquote(c, i)
                if j.s.role == _R_KEY and j.s.length > KEY_LIMIT:
                    return self._json_abort(text, start, i)
                continue
            if st == _J_WORD:
                m = _WORD_RUN.match(text, i)
                if m is None:
                    self._jword_ended()
                    continue
                if j.s.is_key:
                    word = m.group()[: KEY_LIMIT + 1 - j.s.length]  # cut as in _jstring
                    j.s.raw.append(word)
                    j.s.length += len(word)
                    if j.s.length > KEY_LIMIT:
                        return self._json_abort(text, start, i + len(word))
                i = m.end()
                continue
            if c in _WS:
                i += 1
                continue
            if c == "}" or c == "]":
                i += 1
                if self._jclose(c):
                    j.buf.append(text[start:i])
                    self._json_done(base + i)
                    return i
                continue
            i = self._jtoken(text, c, start, i)
            if self._state != _S_JSON:
                return i
        j.buf.append(text[start:n])
        if j.s.role == _R_INPUT and j.state in (_J_STRING, _J_QUOTE):
            self._flush_input()
        return n

    def _jquote(self, c: str, i: int) -> int:
        """After a quote inside a string: its end, or a quote that is content."""
        s = self._j.s
        if c in _WS:
            s.q_ws += c
            return i + 1
        if c in _STRING_CLOSERS or (c in "\"'" and "\n" in s.q_ws):
            self._jstring_closed()
            return i
        # an unescaped quote inside the string: it is content, escaped for the decoder
        if s.role != _R_SKIP:
            s.raw.append("\\" + s.quote + s.q_ws)
            s.length += 1 + len(s.q_ws)
            if s.role == _R_KEY and "\n" in s.q_ws:
                s.length = KEY_LIMIT + 1  # a key never spans lines: this is prose
        s.q_ws = ""
        self._j.state = _J_STRING
        return i

    def _jtoken(self, text: str, c: str, start: int, i: int) -> int:
        """A structural character between tokens; the position after it."""
        j = self._j
        st = j.state
        level = j.at_action_level() and not j.final
        if st == _J_VALUE:
            if (
                c != "{"
                and len(j.stack) == 1
                and j.stack[0] == "["
                and not j.list_first
                and not j.final
            ):
                return self._json_abort(text, start, i)  # `[` wraps an action object only
            if c == "{" or c == "[":
                self._jpush(c)
            elif c == '"' or c == "'":
                self._jopen_string(c, is_key=False)
            elif c == ",":
                self._jcomma()
            elif c != ":":
                self._jvalue_started(other=True)
                j.s = JString(is_key=False)
                j.state = _J_WORD
                return i
            return i + 1
        if st == _J_KEY:
            if c == '"' or c == "'":
                self._jopen_string(c, is_key=True)
            elif _KEY_START.match(c):
                j.s = JString(is_key=True)
                j.state = _J_WORD
                return i
            elif c != "," and level:
                return self._json_abort(text, start, i)
            return i + 1
        if st == _J_COLON:
            if c == ":":
                j.state = _J_VALUE
                return i + 1
            if level:
                return self._json_abort(text, start, i)
            j.state = _J_VALUE  # a missing colon
            return i
        # _J_AFTER
        if c == ",":
            self._jcomma()
            return i + 1
        if c == '"' or c == "'":
            self._jcomma()  # a missing comma
            return i
        if level:
            return self._json_abort(text, start, i)
        return i + 1

    def _jcomma(self) -> None:
        j = self._j
        j.key_role = ""
        top = j.stack[-1] if j.stack else "{"
        j.state = _J_KEY if top == "{" else _J_VALUE

    def _jpush(self, c: str) -> None:
        self._jvalue_started(other=True)
        j = self._j
        stack = j.stack
        stack.append(c)
        j.open[c] += 1
        depth = len(stack)
        if depth == 1:
            if c == "{":
                j.action_depth = 1
        elif depth == 2 and stack[0] == "[" and not j.list_first:
            j.list_first = True
            if c == "{":
                j.action_depth = 2
        j.key_role = ""
        j.state = _J_KEY if c == "{" else _J_VALUE

    def _jclose(self, c: str) -> bool:
        """Close a container; True when the root closed."""
        j = self._j
        stack = j.stack
        opener = "{" if c == "}" else "["
        if not j.open[opener]:
            return False  # an extra closer: ignored
        while stack:
            depth = len(stack)
            top = stack.pop()
            j.open[top] -= 1
            if depth == j.action_depth and not j.action_closed:
                j.action_closed = True
            if top == opener:
                break
        if not stack:
            return True
        j.state = _J_AFTER
        return False

    def _jvalue_started(self, *, other: bool) -> None:
        """A value starts; at the action level it may be the action input."""
        j = self._j
        if j.key_role == "input" and j.at_action_level():
            j.input_kind = _IN_OTHER if other else _IN_STRING
            j.key_role = ""

    # ------------------------------------------------------------------ strings

    def _jopen_string(self, quote: str, *, is_key: bool) -> None:
        j = self._j
        role = _R_SKIP
        if j.at_action_level():
            if is_key:
                role = _R_KEY
            elif j.key_role == "input":
                role = _R_INPUT
                self._jvalue_started(other=False)
                j.emit = j.final and self._phase == _P_ANSWER
            elif j.key_role == "name":
                role = _R_NAME
        j.s = JString(quote=quote, is_key=is_key, role=role)
        j.state = _J_STRING

    def _jstring(self, text: str, i: int) -> int:
        """Raw string content up to the next quote (escapes are kept as written)."""
        n = len(text)
        s = self._j.s
        run = _STRING_RUN[s.quote]
        role = s.role
        raw = s.raw
        while i < n:
            if s.esc:
                s.esc = False
                if role != _R_SKIP:
                    raw.append(text[i])
                    s.length += 1
                i += 1
                continue
            m = run.match(text, i)
            if m is not None:
                if role == _R_KEY:
                    # A key ends the capture at its first line break or past KEY_LIMIT
                    # characters: cut there, wherever the chunk ends, so that the text after
                    # it is read the same in any chunking.
                    piece = m.group()
                    cut = min(len(piece), KEY_LIMIT + 1 - s.length)
                    newline = piece.find("\n", 0, cut)
                    if newline >= 0:
                        cut = newline + 1
                    raw.append(piece[:cut])
                    s.length = KEY_LIMIT + 1 if newline >= 0 else s.length + cut
                    i += cut
                    if s.length > KEY_LIMIT:
                        return i
                    continue
                if role != _R_SKIP:
                    raw.append(m.group())
                i = m.end()
                continue
            if text[i] == "\\":
                s.esc = True
                if role != _R_SKIP:
                    raw.append("\\")
                    s.length += 1
                i += 1
                continue
            self._j.state = _J_QUOTE
            s.q_ws = ""
            return i + 1
        return i

    def _jstring_closed(self) -> None:
        j = self._j
        s = j.s
        s.q_ws = ""
        j.state = _J_AFTER
        if s.is_key:
            self._jkey_found(decode_content("".join(s.raw), s.quote))
            return
        if s.role == _R_NAME:
            j.name = decode_content("".join(s.raw), s.quote)
            j.key_role = ""
            if is_final_answer_name(j.name):
                j.final = True
                if self._start_answer():
                    self._emit_answer("".join(j.input_parts))
                    j.emit = j.input_kind == _IN_STRING
        elif s.role == _R_INPUT:
            self._flush_input(closed=True)
            j.input_kind = _IN_DONE
            j.emit = False

    def _jkey_found(self, key: str) -> None:
        j = self._j
        j.state = _J_COLON
        j.key_role = ""
        if not j.at_action_level():
            return
        k = key.strip().lower()
        if k in _NAME_KEYS and j.name is None:
            j.key_role = "name"
        elif _is_input_key(k) and j.input_kind == _IN_NONE:
            j.key_role = "input"

    def _jword_ended(self) -> None:
        j = self._j
        if j.s.is_key:
            j.s.is_key = False
            self._jkey_found("".join(j.s.raw))
        else:
            j.state = _J_AFTER

    # ------------------------------------------------------------------ the end of the JSON

    def _json_abort(self, text: str, start: int, i: int) -> int:
        """The ``{`` started prose, not an action: hand everything read back as thought."""
        j = self._j
        j.buf.append(text[start:i])
        raw = self._fence.text + "".join(j.buf)
        self._fence.text = ""
        self._j = ActionJson()
        self._state = _S_PROSE
        self._thought_text(raw)
        return i

    def _json_done(self, end: int) -> None:
        j = self._j
        j.end = end
        raw = "".join(j.buf)
        step = self._json_step(raw, end, truncated=False)
        if step is None:
            self._state = _S_PROSE
            text = self._fence.text + raw
            self._fence.text = ""
            self._j = ActionJson()
            self._thought_text(text)
            return
        if j.fenced:
            j.pending = step
            self._state = _S_JSON_AFTER
            return
        self._j = ActionJson()
        self._add_step(step)
        self._state = _S_PROSE
        self._line_start = False

    def _json_closed_by_end(self) -> None:
        """The stream ended inside the action's JSON: complete it if it is an action."""
        j = self._j
        if j.state == _J_QUOTE:
            self._jstring_closed()
        elif j.state == _J_STRING and j.s.role == _R_INPUT:
            self._flush_input(cut_off=True)
        raw = "".join(j.buf)
        step = self._json_step(raw, self._fed, truncated=True)
        self._j = ActionJson()
        if step is None:
            text = self._fence.text + raw
            self._fence.text = ""
            self._thought_text(text)
            return
        self._add_step(step)

    def _json_after(self, text: str, i: int, base: int) -> int:
        j = self._j
        n = len(text)
        while i < n:
            c = text[i]
            if c in _WS and not j.fence_ticks:
                i += 1
                continue
            if c in "`~" and (not j.fence_ticks or c == j.fence_ticks[0]):
                j.fence_ticks += c
                i += 1
                if len(j.fence_ticks) == 3:
                    self._complete_pending_json(base + i)
                    return i
                continue
            self._complete_pending_json(j.end)
            return i
        return i

    def _complete_pending_json(self, end: int) -> None:
        step = self._j.pending
        self._j = ActionJson()
        self._state = _S_PROSE
        self._line_start = False
        if step is None:
            return
        if end != step.end:
            siblings = tuple(replace(s, end=end) for s in step.siblings)
            step = replace(step, end=end, siblings=siblings)
        self._add_step(step)

    def _json_step(self, raw: str, end: int, *, truncated: bool) -> ReActStep | None:
        """The step the action JSON ``raw`` (ending at ``end``) spells, or ``None``."""
        j = self._j
        value, report = decode_action(raw, j.start, fenced=j.fenced)
        name, has_input, tool_input = action_fields(value)
        if j.final or name is None:
            name = j.name
        if name is None:
            return None
        string_input = j.input_kind in (_IN_STRING, _IN_DONE)
        if not has_input and string_input:
            has_input = True
            tool_input = "".join(j.input_parts)
        if not has_input and not j.after_marker and not (j.fenced and _names_by_action_key(value)):
            return None
        cut = truncated or (report is not None and bool(report.truncated))
        step = ReActStep(
            kind="action",
            tool=name.strip(),
            tool_input=tool_input if has_input else {},
            start=self._step_start,
            end=end,
            layout="json",
            fenced=j.fenced,
            truncated=cut,
            report=report,
        )
        siblings = tuple(_sibling(step, *fields) for fields in _list_siblings(value) if not j.final)
        if not is_final_answer_name(name):
            return replace(step, siblings=siblings)
        if string_input and j.final:
            answer: Any = "".join(j.input_parts)
            streamed = j.emit or self._phase == _P_ANSWER
        else:
            answer = final_answer_value(name, tool_input) if has_input else ""
            streamed = False
        return replace(
            step,
            kind="finish",
            tool=FINAL_ANSWER_ACTION,
            tool_input=answer,
            streamed=streamed and isinstance(answer, str),
            siblings=siblings,
        )


def _sibling(first: ReActStep, name: str, has_input: bool, tool_input: Any) -> ReActStep:
    """A further action of a JSON list of actions, spanning the same markup as the first."""
    if is_final_answer_name(name):
        answer = final_answer_value(name, tool_input) if has_input else ""
        return replace(first, kind="finish", tool=FINAL_ANSWER_ACTION, tool_input=answer)
    return replace(first, tool=name.strip(), tool_input=tool_input if has_input else {})
