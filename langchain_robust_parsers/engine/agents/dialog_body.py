"""The content of a dialog turn, after its bracket header: quoted speech, unquoted lines and
``*non-verbal*`` parts, read incrementally so that a stream reads each character once.

Part of the dialog format (`langchain_robust_parsers.engine.agents.dialog`). Linear in the
text; no regular expression has nested quantifiers. Nothing here imports LangChain.
"""

from __future__ import annotations

from langchain_robust_parsers.engine.agents.dialog_header import (
    _ALNUM,
    _APOSTROPHES,
    _DOUBLE,
    _FAMILY_OF,
    _NARRATIVE_RUN,
    _OPENING_CONTEXT,
    _PART_RUN,
    _QUOTE_OPENERS,
    _SENTENCE_END,
    _TRAILING_RUN,
    _UNQUOTED_RUN,
    _WS_RUN,
    _is_space,
)
from langchain_robust_parsers.engine.lexicon.fences import FENCE_MARKS

__all__ = ["BodyScanner", "scan_body"]

# --------------------------------------------------------------------------- the content

_OUTSIDE, _QUOTED, _UNQUOTED, _NONVERBAL, _IGNORE = range(5)


class BodyScanner:
    """Reads the text after the header, incrementally: each character once, whatever the
    chunking, with one character of look-ahead held back (a quote that may close).

    The first significant character decides the mode. A quote opens **quoted** content: quoted
    segments are the content (joined with a space), ``*gestures*`` between them are non-verbal
    parts, other text outside the quotes is ignored (and reported), and a ``[`` after the
    content ends the turn (the model went on with another one). Anything else starts
    **unquoted** content, which runs to the end (or to a closing code fence or a ``[`` at the
    start of a line); there a ``*gesture*`` counts as non-verbal at a sentence boundary and as
    emphasis inside a sentence. With ``free_text`` (the salvage step) only quoted segments are
    content, and the text outside them is kept in `narrative` (pieces to join with
    ``""``; breaks between words are kept as spaces).

    Content only grows: what `content` shows after a chunk is a prefix of what it shows
    after any later chunk.
    """

    def __init__(self, *, free_text: bool = False) -> None:
        self.free_text = free_text
        self.content = ""
        self.parts: list[str] = []
        self.narrative: list[str] = []
        self.segments = 0
        self.trailing = False
        self.unclosed_quote = False
        self.unclosed_part = False
        self.finished = False
        self._mode = _OUTSIDE
        self._return_mode = _OUTSIDE
        self._family = _DOUBLE
        self._depth = 0
        self._prev = ""
        self._pending_quote = ""
        self._pending_prev = ""
        self._pending_ws: list[str] = []
        self._pending_nl = False
        self._gap = False
        self._star_run = False
        self._emphasis = False
        self._seg_empty = True
        self._has_content = False
        self._last = ""
        self._held = ""
        self._part: list[str] = []
        self._new: list[str] = []
        self._joined_count = 0
        self._joined = ""

    # ----------------------------------------------------------------- output

    def _emit(self, s: str) -> None:
        if self._has_content and (self._pending_ws or self._gap):
            ws = "".join(self._pending_ws)
            if self._gap and not self._pending_nl:
                ws = " "
            self._new.append(ws)
        self._pending_ws.clear()
        self._pending_nl = False
        self._gap = False
        self._new.append(s)
        self._has_content = True
        self._seg_empty = False
        self._last = s[-1]

    def _space(self, ws: str) -> None:
        if self._has_content:
            self._pending_ws.append(ws)
            if "\n" in ws:
                self._pending_nl = True

    def _end_part(self, *, closed: bool) -> None:
        part = " ".join("".join(self._part).split())
        self._part.clear()
        if part:
            self.parts.append(part)
        if not closed:
            self.unclosed_part = True
        self._mode = self._return_mode
        if self._mode == _UNQUOTED:
            self._gap = True

    def nonverbal_text(self) -> str:
        """The finished non-verbal parts joined with ``"; "`` (extended, not rebuilt)."""
        if len(self.parts) > self._joined_count:
            fresh = self.parts[self._joined_count :]
            if self._joined:
                fresh = [self._joined, *fresh]
            self._joined = "; ".join(fresh)
            self._joined_count = len(self.parts)
        return self._joined

    # ----------------------------------------------------------------- quotes

    def _open_segment(self, opener: str) -> None:
        self._mode = _QUOTED
        self._family = _FAMILY_OF[opener]
        self._depth = 1
        self._seg_empty = True
        self._pending_ws.clear()
        self._pending_nl = False
        if self._has_content:
            self._pending_ws.append(" ")

    def _close_one(self, q: str) -> None:
        self._depth -= 1
        if self._depth > 0:
            self._emit(q)
            return
        self._mode = _OUTSIDE
        self.segments += 1
        self._pending_ws.clear()
        self._pending_nl = False

    def _resolve_quote(self, nxt: str) -> None:
        """Decide the held ambiguous quote now that the character after it (``""`` at the end
        of the text) is known: an apostrophe, a nested opening quote, or a closing one."""
        q, p = self._pending_quote, self._pending_prev
        self._pending_quote = ""
        if q in _APOSTROPHES and p.isalnum() and nxt.isalnum():
            self._emit(q)
        elif (_is_space(p) or p in _OPENING_CONTEXT) and nxt != "" and not nxt.isspace():
            self._depth += 1
            self._emit(q)
        else:
            self._close_one(q)

    # ----------------------------------------------------------------- feeding

    def feed(self, s: str) -> None:
        """Read the next chunk of the body."""
        i, n = 0, len(s)
        while i < n:
            if self._pending_quote:
                self._resolve_quote(s[i])
            c = s[i]
            if c == "*" and self._star_run:
                i += 1
                self._prev = c
                continue
            self._star_run = False
            mode = self._mode
            if mode == _QUOTED:
                j = self._feed_quoted(s, i, c)
            elif mode == _UNQUOTED:
                j = self._feed_unquoted(s, i, c)
            elif mode == _NONVERBAL:
                j = self._feed_part(s, i, c)
            elif mode == _OUTSIDE:
                j = self._feed_outside(s, i, c)
            else:  # _IGNORE
                if not self.trailing and _ALNUM.search(s, i):
                    self.trailing = True
                j = n
            if j > i:
                self._prev = s[j - 1]
            i = j
        if self._new:
            self.content += "".join(self._new)
            self._new.clear()

    def _feed_quoted(self, s: str, i: int, c: str) -> int:
        family = self._family
        if c.isspace():
            m = _WS_RUN.match(s, i)
            assert m is not None
            if not self._seg_empty:
                self._space(m.group())
            return m.end()
        m = family.run.match(s, i)
        if m is not None:  # emitted up to its trailing space, which may end the segment
            run = m.group().rstrip()
            self._emit(run)
            return i + len(run)
        if c in family.openers:
            self._depth += 1
            self._emit(c)
        elif c in family.closers:
            self._close_one(c)
        else:  # ambiguous: decided by the next character
            self._pending_quote = c
            self._pending_prev = self._prev
        return i + 1

    def _start_part(self, return_mode: int) -> None:
        self._mode = _NONVERBAL
        self._return_mode = return_mode
        self._star_run = True

    def _feed_outside(self, s: str, i: int, c: str) -> int:
        if c.isspace():
            m = _WS_RUN.match(s, i)
            assert m is not None
            if self.free_text:
                self.narrative.append(" ")
            return m.end()
        if c == "*":
            if self.free_text:
                self.narrative.append(" ")
            self._start_part(_OUTSIDE)
            return i + 1
        if c in _QUOTE_OPENERS and not (c in _APOSTROPHES and self._prev.isalnum()):
            if self.free_text:
                self.narrative.append(" ")
            self._open_segment(c)
            return i + 1
        if not self.free_text and self.segments == 0:
            if c == ":" and not self._has_content:  # ``[TONE: calm]: "..."``
                return i + 1
            self._mode = _UNQUOTED
            return i
        if c == "[" and not self.free_text:
            self._mode = _IGNORE
            return i
        m = (_NARRATIVE_RUN if self.free_text else _TRAILING_RUN).match(s, i)
        end = m.end() if m is not None else i + 1
        run = s[i:end]
        if self.free_text:
            self.narrative.append(run)
        elif not self.trailing and _ALNUM.search(run):
            self.trailing = True
        return end

    def _feed_unquoted(self, s: str, i: int, c: str) -> int:
        if c.isspace() and not self._held:
            m = _WS_RUN.match(s, i)
            assert m is not None
            self._space(m.group())
            return m.end()
        if c == "*" and not self._held:
            if self._emphasis:
                self._emphasis = False
                self._emit(c)
            elif not self._has_content or self._pending_nl or self._last in _SENTENCE_END:
                self._start_part(_UNQUOTED)
            else:
                self._emphasis = True
                self._emit(c)
            return i + 1
        if self._held:  # a line that starts with ` or ~: a closing code fence?
            if c == self._held[0]:
                self._held += c
                if len(self._held) == len(FENCE_MARKS[0]):
                    self._held = ""
                    self._mode = _IGNORE
                return i + 1
            held, self._held = self._held, ""
            self._emit(held)
            return i
        if self._pending_nl and c in "`~":
            self._held = c
            return i + 1
        if c == "[" and self._pending_nl:  # a new turn on a new line
            self._mode = _IGNORE
            return i
        m = _UNQUOTED_RUN.match(s, i)
        assert m is not None  # ``c`` is neither a space nor ``*``
        run = m.group().rstrip()  # trailing space waits for what follows it
        self._emit(run)
        return i + len(run)

    def _feed_part(self, s: str, i: int, c: str) -> int:
        if c == "*":
            self._end_part(closed=True)
            self._star_run = True
            return i + 1
        if c in "\r\n":
            self._end_part(closed=False)
            return i
        m = _PART_RUN.match(s, i)
        end = m.end() if m is not None else i + 1
        self._part.append(s[i:end])
        return end

    def finish(self) -> None:
        """The end of the text: decide a held quote, close what is open."""
        if self.finished:
            return
        self.finished = True
        if self._pending_quote:
            self._resolve_quote("")
        if self._mode == _NONVERBAL:
            self._end_part(closed=False)
        if self._mode == _QUOTED:
            self.unclosed_quote = True
        if self._held:
            self._emit(self._held)
            self._held = ""
        if self._new:
            self.content += "".join(self._new)
            self._new.clear()


def scan_body(text: str, start: int, *, free_text: bool = False) -> BodyScanner:
    body = BodyScanner(free_text=free_text)
    body.feed(text[start:] if start else text)
    body.finish()
    return body
