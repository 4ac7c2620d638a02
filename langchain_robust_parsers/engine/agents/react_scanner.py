"""The ReAct scanner's driver: prose, look-ahead, markers, reasoning blocks and fences.

`ReActScanner` reads the text chunk by chunk, each character once, through one handler a
`ScanState`; the text layout's handlers come from `react_text`, the
JSON action's from `react_json`. The only text held back is a bounded look-ahead (a
marker that may still be forming, a fence, a tag) or the JSON of an action being read.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from langchain_robust_parsers.engine.agents.react_base import (
    MARKER_START,
    HoldKind,
    MarkerKind,
    ScanState,
)
from langchain_robust_parsers.engine.agents.react_json import ActionJson, JsonActions, JState
from langchain_robust_parsers.engine.agents.react_steps import ANSWER, FINAL_ANSWER_ACTION, Delta
from langchain_robust_parsers.engine.agents.react_text import (
    MARKER_HEADS,
    MARKER_HOLD_LIMIT,
    Match,
    NameLine,
    TextLayout,
    TextValue,
    classify_marker,
)
from langchain_robust_parsers.engine.lexicon.fences import FENCE_MARKS, MAX_FENCE_INFO
from langchain_robust_parsers.engine.lexicon.reasoning import (
    THINK_CLOSE,
    THINK_OPEN,
    THINK_TAIL,
    TemplateGate,
    bracket_may_open,
    closer_of,
    may_become_marker,
)

# the members, for the hot paths (a module global is read faster than an enum member)
_H_FENCE = HoldKind.FENCE
_H_LIST = HoldKind.LIST
_H_MARKER = HoldKind.MARKER
_H_TAG = HoldKind.TAG
_M_MAYBE = Match.MAYBE
_M_YES = Match.YES
_S_ACTION_NAME = ScanState.ACTION_NAME
_S_AFTER_ACTION = ScanState.AFTER_ACTION
_S_AFTER_NAME = ScanState.AFTER_NAME
_S_FENCE_BODY = ScanState.FENCE_BODY
_S_FENCE_INFO = ScanState.FENCE_INFO
_S_HOLD = ScanState.HOLD
_S_JSON = ScanState.JSON
_S_JSON_AFTER = ScanState.JSON_AFTER
_S_PROSE = ScanState.PROSE
_S_THINK = ScanState.THINK
_S_THOUGHT_START = ScanState.THOUGHT_START
_S_VALUE = ScanState.VALUE
_S_VALUE_START = ScanState.VALUE_START

__all__ = ["TAG_HOLD_LIMIT", "ReActScanner"]

TAG_HOLD_LIMIT = 256
"""Characters held back while a ``<`` or ``[`` may still open or close a reasoning block: room
for an opening tag's attributes (``<think budget="512">``); past it the text is prose."""

_HSPACE = " \t"
_J_STRING = JState.STRING
_WS = frozenset(" \t\r\n\f\v")
_MARKER_CHAR = re.compile(r"[<\[]")
"""Where a reasoning marker may start (the lexicon's markers all start with one of these)."""

# A marker can start only where its first three letters do (or its emphasis); a stop at a
# boundary letter whose next letters already rule a marker out would only be released again.
_BRACE_RUN = re.compile(r"\{+")
_PROSE_STOP = re.compile(
    r"[\n`~<{\[]|(?<!\w)(?:[Tt][Hh][Oo]|[Aa][Cc][Tt]|[Aa][Nn][Ss]|[Ff][Ii][Nn]|[Oo][Bb][Ss]|\*)"
)


@dataclass
class ThinkState:
    """A reasoning block: the tail held back in case its closing tag is split."""

    tail: str = ""
    close: re.Pattern[str] = THINK_CLOSE


class ReActScanner(JsonActions, TextLayout):
    """Feed text chunks with `feed`, end with `close`; both return the deltas the
    chunk completed. Completed steps accumulate in `steps`.

    Deltas follow the first step only: thought text while the turn is undecided; once the first
    step is known to be a final answer, its answer; nothing after the first step completes.
    """

    def __init__(self, template_opens: bool | None = None) -> None:
        """``template_opens``: whether the chat template opened reasoning before the text (see
        `reasoning.headless_end`); that reasoning is never read for a step."""
        self._gate = TemplateGate(template_opens)
        self._gated = template_opens is not False  # the gate may still hold text back
        self._init_base()
        self._think = ThinkState()
        self._name = NameLine()
        self._value = TextValue()
        self._j = ActionJson()
        self._handlers: list[Callable[[str, int, int], int]] = [
            self._prose,
            self._thought_start,
            self._hold_char,
            self._think_block,
            self._fence_info,
            self._fence_body,
            self._after_action,
            self._action_name,
            self._after_name,
            self._value_start,
            self._value_lines,
            self._json,
            self._json_after,
        ]

    # ------------------------------------------------------------------ public

    def feed(self, chunk: str) -> list[Delta]:
        """Consume ``chunk``; the deltas it completed."""
        if not self._gated:  # the usual chunk: the gate has opened
            return self._read(chunk)
        skipped, passed = self._gate.feed(chunk)
        if skipped:
            self._skip(skipped)
        if skipped or passed:
            self._gated = False
        return self._read(passed)

    def _skip(self, reasoning: str) -> None:
        """Reasoning the template opened: part of the text (positions count it), never read."""
        self._raw.append(reasoning)
        self._fed += len(reasoning)

    def _read(self, chunk: str) -> list[Delta]:
        """Consume ``chunk`` of the text after the template's reasoning."""
        if not chunk:
            return []
        if self._in_plain_input and '"' not in chunk and "\\" not in chunk:
            # The hot path: plain content of the action input string, as a long answer streams.
            self._raw.append(chunk)
            self._fed += len(chunk)
            self._run_prev = chunk[-1]
            j = self._j
            j.buf.append(chunk)
            j.input_parts.append(chunk)
            return [(ANSWER, chunk)] if j.emit else []
        if self.closed:
            raise ValueError("the scanner is closed")
        self._raw.append(chunk)
        base = self._fed
        self._fed += len(chunk)
        prev = self._run_prev
        self._run_prev = chunk[-1]
        state = self._state
        if state == _S_JSON and self._j.state == _J_STRING and self._fast_string(chunk):
            return self._deltas()
        out: list[Delta] = []
        self._emitted.out = out
        if state == _S_VALUE and not self._line_start and "\n" not in chunk and "<" not in chunk:
            self._value_text(chunk, base)  # a piece of a text-layout value: the common case
            return self._deltas()
        self._run(chunk, base, prev)
        self._in_plain_input = self._state == _S_JSON and self._plain_input()
        return self._deltas()

    def close(self) -> list[Delta]:
        """End of the stream: flush what was held back and complete an open step."""
        if self.closed:
            return []
        skipped, rest = self._gate.close()
        if skipped:
            self._skip(skipped)
        if rest:
            return self._read(rest) + self.close()
        self._in_plain_input = False
        self._emitted.out = []
        # Each round either finishes or replays a strictly shorter held text.
        while self._state == _S_HOLD:
            hold = self._hold
            held = hold.text
            if hold.kind == _H_FENCE and len(held) >= 3:
                hold.text = ""
                self._state = hold.back
                self._line_start = hold.line_start
                self._thought_text(held)  # a fence marker with nothing after it
                continue
            self._release(held)
        state = self._state
        if state == _S_THINK:
            self._emit_thought(self._think.tail, plain=False)
            self._think.tail = ""
        elif state in (_S_FENCE_INFO, _S_FENCE_BODY):
            self._thought_text(self._fence.text)
        elif state in (_S_ACTION_NAME, _S_AFTER_NAME):
            self._thought_text(self._name.text() + self._name.ws)
        elif state in (_S_VALUE_START, _S_VALUE):
            self._complete_value(self._value.end)
        elif state == _S_JSON:
            self._json_closed_by_end()
        elif state == _S_JSON_AFTER:
            self._complete_pending_json(self._j.end)
        self._state = _S_PROSE
        self.closed = True
        return self._deltas()

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
            if c in MARKER_START:
                if not self._can_hold(text, k, base):
                    i = k + 1
                    continue
                self._thought_text(text[start:k])
                return self._start_hold(_H_MARKER, text, k, base, _S_PROSE)
            if base + k == self._no_hold_at:
                i = k + 1
                continue
            self._thought_text(text[start:k])
            start = k
            if c == "[" and bracket_may_open(text, k):
                return self._start_hold(_H_TAG, text, k, base, _S_PROSE)  # `[THINK]`?
            if c == "[" and not self._line_start:
                i = k + 1  # a list of actions starts a line; mid-line `[` is prose
                continue
            if c in "`~":
                return self._start_hold(_H_FENCE, text, k, base, _S_PROSE)
            if c == "<":
                return self._start_hold(_H_TAG, text, k, base, _S_PROSE)
            if c == "[":
                return self._start_hold(_H_LIST, text, k, base, _S_PROSE)
            if k + 1 < n and text[k + 1] == "{":
                # `{{`: an object whose first key would be `{` is handed back by the JSON
                # reader at once, so a run of braces is prose up to its last one
                run = _BRACE_RUN.match(text, k)
                i = (run.end() if run else k + 1) - 1
                continue
            # `{`, at the start of a line or inside one: an action object, or prose that the
            # JSON reader hands back as soon as it cannot be one
            self._begin_json(base + k, after_marker=False, fenced=False)
            return k

    def _marker_head_at_end(self, text: str, i: int, base: int) -> int:
        """Where a marker may start in the last two characters of ``text`` (from ``i``), its
        first three letters not all arrived yet; -1 for none."""
        n = len(text)
        for k in (n - 2, n - 1):
            if k >= i and self._can_hold(text, k, base) and text[k] != "*":
                head = text[k:].lower()
                if any(h.startswith(head) for h in MARKER_HEADS):
                    return k
        return -1

    def _thought_start(self, text: str, i: int, base: int) -> int:
        i = self._skip_blank(text, i)
        if i < len(text):
            self._state = _S_PROSE
        return i

    # ------------------------------------------------------------------ look-ahead

    def _hold_char(self, text: str, i: int, base: int) -> int:
        kind = self._hold.kind
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
        hold = self._hold
        hold.text = ""
        if hold.back == _S_AFTER_NAME:
            # No `Action Input:` after the tool name's line: that line was prose.
            self._state = _S_PROSE
            self._thought_text(self._name.text() + self._name.ws)
            hold.back = _S_PROSE
            hold.line_start = self._line_start
        self._state = hold.back
        self._line_start = hold.line_start
        self._no_hold_at = hold.start
        self._run(held, hold.start, hold.prev)

    def _hold_marker(self, text: str, i: int, base: int) -> int:
        n = len(text)
        hold = self._hold
        while i < n:
            held = hold.text + text[i]
            status, kind, stars = classify_marker(held)
            if status == _M_MAYBE and len(held) < MARKER_HOLD_LIMIT:
                hold.text = held
                i += 1
                continue
            if status == _M_YES and kind == MarkerKind.ANSWER:
                # `Answer:` ends the turn only where a line starts (`the answer: no` is prose),
                # and not inside a final answer, where it is the answer's own text (an FAQ)
                in_answer = hold.back == _S_VALUE and self._value.final
                status = _M_YES if hold.line_start and not in_answer else Match.NO
                kind = MarkerKind.FINAL
            if status == _M_YES:
                hold.text = ""
                self._marker(kind, stars, hold.start, held)
                return i + 1
            self._release(held)
            return i + 1
        return i

    def _hold_fence(self, text: str, i: int, base: int) -> int:
        n = len(text)
        hold = self._hold
        if i < n:
            # The whole run at once: adding a character at a time to an attribute copies the
            # held run each time (quadratic in a long run of backticks).
            mark = hold.text[0] if hold.text else text[i]
            j = i
            while j < n and text[j] == mark:
                j += 1
            hold.text += text[i:j]
            i = j
        if i < n:
            held = hold.text
            if len(held) < 3:
                self._release(held)
                return i
            hold.text = ""
            self._fence.text = held
            self._fence.start = hold.start
            self._fence.after_marker = hold.back == _S_ACTION_NAME
            self._state = _S_FENCE_INFO
            return i
        return i

    def _hold_tag(self, text: str, i: int, base: int) -> int:
        """A ``<`` or ``[`` in prose: held while it may still become a reasoning marker."""
        n = len(text)
        hold = self._hold
        while i < n:
            held = hold.text + text[i]
            i += 1
            if hold.back == _S_VALUE:
                if self._value_tag(held):
                    return i
                continue
            opener = THINK_OPEN.match(held)
            if opener is not None and opener.end() == len(held):
                hold.text = ""
                self._state = _S_THINK
                self._think.tail = ""
                self._think.close = closer_of(opener)
                return i
            closer = THINK_CLOSE.match(held)
            if closer is not None and closer.end() == len(held):
                hold.text = ""
                if held.lower().startswith("</thought"):
                    self._state = _S_PROSE  # a stray </Thought>: dropped
                else:
                    # A lone closing marker: what came before it was reasoning.
                    self._emitted.plain.clear()
                    self._state = _S_PROSE
                return i
            if len(held) > TAG_HOLD_LIMIT or not may_become_marker(held):
                if hold.text == "[" and hold.line_start:  # not `[THINK]`: maybe a list
                    hold.kind = _H_LIST
                    return i - 1
                self._release(held)
                return i
            hold.text = held
        return i

    def _value_tag(self, held: str) -> bool:
        """A ``<`` inside a text-layout value: a section frame marker (Kimi K3's
        ``<|close|>response<|sep|>``) ends the value and is dropped; any other text is the
        value's. True when the look-ahead is decided."""
        hold = self._hold
        opener = THINK_OPEN.match(held)
        if opener is not None and opener.end() == len(held) and opener.lastgroup == "frame":
            hold.text = ""
            self._complete_value(self._value.end)
            self._state = _S_PROSE
            self._line_start = False
            return True
        if len(held) > TAG_HOLD_LIMIT or not may_become_marker(held) or opener is not None:
            self._release(held)
            return True
        hold.text = held
        return False

    def _hold_list(self, text: str, i: int, base: int) -> int:
        n = len(text)
        hold = self._hold
        while i < n:
            c = text[i]
            if not hold.text or (c in _WS and len(hold.text) < MARKER_HOLD_LIMIT):
                hold.text += c
                i += 1
                continue
            held = hold.text
            if c != "{":
                self._release(held)
                return i
            hold.text = ""
            after_marker = hold.back == _S_ACTION_NAME
            self._begin_json(hold.start, after_marker=after_marker, fenced=False)
            self._run(held, hold.start, hold.prev)
            return i
        return i

    # ------------------------------------------------------------------ markers

    def _marker(self, kind: str, stars: int, start: int, held: str) -> None:
        """A complete marker ``held`` at ``start``, read in the state the look-ahead left."""
        back = self._hold.back
        self._state = back
        self._line_start = self._hold.line_start
        if back == _S_VALUE:
            self._complete_value(self._value.end)
        elif back in (_S_ACTION_NAME, _S_AFTER_NAME):
            if kind == MarkerKind.INPUT:
                self._marker_seen(kind)
                self._begin_value(final=False, name=self._name.text())
                self._skip_stars = stars
                return
            self._thought_text(self._name.text() + self._name.ws)
        self._prose_marker(kind, stars, start, held)

    def _prose_marker(self, kind: str, stars: int, start: int, held: str) -> None:
        self._marker_seen(kind)
        self._skip_stars = stars
        if kind == MarkerKind.ACTION:
            self._step_start = start
            self._state = _S_AFTER_ACTION
        elif kind == MarkerKind.FINAL:
            self._step_start = start
            self._begin_value(final=True, name=FINAL_ANSWER_ACTION)
        elif kind == MarkerKind.INPUT:
            # `Action Input:` with no `Action:` before it is text.
            self._state = _S_PROSE
            self._thought_text(held)
        else:
            self._state = _S_THOUGHT_START
            self._line_start = False

    # ------------------------------------------------------------------ reasoning blocks

    def _think_block(self, text: str, i: int, base: int) -> int:
        tail = self._think.tail
        window = tail + text[i:]
        m = self._think.close.search(window)
        if m is not None:
            self._think.tail = ""
            self._emit_thought(window[: m.start()], plain=False)
            self._state = _S_PROSE
            self._line_start = False
            return i + m.end() - len(tail)
        # Hold back from the first marker character near the end: a closing marker split
        # across chunks is found whole with the next one.
        cut = len(window) - THINK_TAIL
        k = _MARKER_CHAR.search(window, max(0, cut))
        keep = k.start() if k is not None else len(window)
        self._emit_thought(window[:keep], plain=False)
        self._think.tail = window[keep:]
        return len(text)

    # ------------------------------------------------------------------ fences

    def _fence_info(self, text: str, i: int, base: int) -> int:
        n = len(text)
        fence = self._fence
        while i < n:
            c = text[i]
            if c == "\n":
                fence.text += c
                self._state = _S_FENCE_BODY
                return i + 1
            if c in "{[":
                self._begin_fenced_json(base + i)
                return i
            # A second run, or a line too long for an info string: prose, not a fence.
            if c in "`~" or len(fence.text) > len(FENCE_MARKS[0]) + MAX_FENCE_INFO:
                self._fence_failed()
                return i
            fence.text += c
            i += 1
        return i

    def _fence_body(self, text: str, i: int, base: int) -> int:
        n = len(text)
        while i < n:
            c = text[i]
            if c in _WS:
                self._fence.text += c
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
        self._thought_text(self._fence.text)
        self._fence.text = ""

    def _begin_fenced_json(self, pos: int) -> None:
        after_marker = self._fence.after_marker
        self._begin_json(pos, after_marker=after_marker, fenced=True)
        if not after_marker:
            self._step_start = self._fence.start
