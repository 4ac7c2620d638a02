"""Incremental JSON decoding for streams: each chunk is read once, where it arrives.

:class:`JsonStreamDecoder` keeps its scanner state between chunks (where it is in the text, the
open containers, the scalar being read) and consumes only the new characters. After a chunk that
changed the value, :meth:`JsonStreamDecoder.snapshot` builds a new value to hand out: open
containers along the current path are copied shallowly and the growing scalar is added, while
closed sub-values are shared between snapshots, never copied and never changed again. A snapshot
is therefore read-only: mutating it would change later snapshots that share its closed parts.

Partial values follow LangChain's observable semantics: a string value appears as soon as its
opening quote arrives and then grows; a number shows its longest valid prefix (``1.`` reads as
``1``); an unfinished ``true``/``false``/``null`` and a key without a value are not shown.

The lenient rules that can be decided on the spot are applied as in the complete-text engine: a
BOM, ``<think>`` blocks and prose or a fence before the payload, trailing commas, comments,
single-quoted strings, unquoted keys, Python literals. Anything else (an unescaped inner quote, a
missing comma...) needs look-ahead the stream has not delivered yet: the decoder then stops and
says so (:attr:`JsonStreamDecoder.failed`), and the caller falls back to re-reading the text
with the complete-text engine, rarely (see ``parsers/json_streaming.py``).
"""

from __future__ import annotations

import re
from typing import Any

from langchain_robust_parsers.engine.json.lenient import (
    MAX_DEPTH,
    SIMPLE_ESCAPES as _SIMPLE_ESCAPES,
)
from langchain_robust_parsers.engine.json.locate import THINK_CLOSE

_JSON_NUMBER_PREFIX = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_NUMBER_CHARS = frozenset("0123456789+-.eE")
_WS = frozenset(" \t\r\n\f\v\u00a0\ufeff")
_KEY_CHARS = re.compile(r"[A-Za-z0-9_$\-]+")
_LITERALS: dict[str, Any] = {
    "true": True,
    "false": False,
    "null": None,
    "True": True,
    "False": False,
    "None": None,
    "NaN": float("nan"),
    "Infinity": float("inf"),
    "-Infinity": float("-inf"),
}
_JSON_LITERALS = frozenset(("true", "false", "null", "NaN", "Infinity", "-Infinity"))
_STRING_RUN = {
    '"': re.compile(r'[^"\\]+'),
    "'": re.compile(r"[^'\\]+"),
}
_FENCE_LINE_END = re.compile(r"[^\n]*\n")
_TAG_OPENERS = ("<json", "<output", "<answer", "<result", "<response", "<data")
_THINK_OPENERS = ("<think", "<reasoning")

THINK_TAIL = 24
"""Characters of a reasoning block kept between chunks, so that a closing tag split across two
chunks is still found; longer than the longest closing tag (``</reasoning  >``)."""

PREFIX_LOOKAHEAD = 16
"""Characters held back before the payload while they may still become a fence or a tag."""

# Where the scanner is. Prefix states come before the payload; the rest are inside it.
_PREFIX = 0  # before the payload: whitespace, prose, fences, tags
_THINK = 1  # inside a reasoning block
_FENCE_INFO = 2  # after a fence marker, skipping its info string to the line end
_VALUE = 3  # a value is expected
_KEY = 4  # a key (or `}`) is expected
_COLON = 5  # the `:` after a key is expected
_AFTER = 6  # `,` or a closer is expected
_STRING = 7  # inside a quoted string
_NUMBER = 8  # inside a number
_WORD = 9  # inside a literal or an unquoted key
_COMMENT_LINE = 10
_COMMENT_BLOCK = 11
_SLASH = 12  # a `/` that may start a comment
_DONE = 13  # the root value closed; the rest is ignored

_BETWEEN_TOKENS = frozenset((_VALUE, _KEY, _COLON, _AFTER))
_WS_RUN = re.compile(r"[ \t\r\n\f\v\u00a0\ufeff]+")

_OBJ = 0
_ARR = 1
_MISSING = object()
_AFTER_ROOT_OK = " \t\r\n`~"
_CONTROL = re.compile(r"[\x00-\x1f]")


class _Frame:
    __slots__ = ("container", "key", "kind")

    def __init__(self, kind: int) -> None:
        self.kind = kind
        self.container: Any = {} if kind == _OBJ else []
        self.key: str | None = None


class JsonStreamDecoder:
    """Feed text chunks with :meth:`feed`; take values with :meth:`snapshot`.

    ``feed`` returns True when the chunk changed the value. Once :attr:`failed` is set the text
    needs a look-ahead this decoder does not have, and further chunks are ignored.
    """

    def __init__(self) -> None:
        self.failed = False
        self.started = False
        self.lenient = False
        """A rule beyond strict JSON was applied (comment, trailing comma, single quotes...)."""
        self.prose = False
        """Text other than whitespace or a fence came before the payload (prose, a tag, a BOM
        or reasoning: the complete-text engine reports or ranks those)."""
        self.fenced = False
        """The payload follows a fence marker."""
        self.trailing_text = False
        """Something other than whitespace or a closing fence followed the root value."""
        self.start = -1
        """Offset of the payload's first character in the whole text (-1 before it starts)."""
        self.end = -1
        """Offset just past the root value (-1 until it closes)."""
        self._fed = 0  # characters fed before the current chunk
        self._after_comma = False
        self._state = _PREFIX
        self._return_state = _VALUE  # where a comment or the prefix hands back control
        self._stack: list[_Frame] = []
        self._root: Any = _MISSING
        self._pending = ""  # prefix text held back while it may become a fence or tag
        self._think_tail = ""
        # The scalar being read.
        self._parts: list[str] = []
        self._quote = ""
        self._role_key = False
        self._escape = ""  # "" (none), "\\" (after a backslash) or "\\uXXX..." being read
        self._high_surrogate = ""
        self._leaf: Any = _MISSING  # the partial scalar shown in snapshots
        self._changed = False

    # ------------------------------------------------------------------ public

    @property
    def done(self) -> bool:
        """True once the root value has closed."""
        return self._state == _DONE

    @property
    def clean(self) -> bool:
        """True when the root closed and everything was strict JSON in a standard place: the
        complete-text engine would find exactly this value, so it need not run again."""
        return (
            self._state == _DONE
            and not self.failed
            and not self.lenient
            and not self.prose
            and not self.trailing_text
        )

    def feed(self, chunk: str) -> bool:
        """Consume ``chunk``; True when the value shown by :meth:`snapshot` changed."""
        if self.failed or not chunk:
            return False
        if self._state == _DONE:
            if not self.trailing_text and chunk.strip(_AFTER_ROOT_OK):
                self.trailing_text = True
            return False
        self._changed = False
        try:
            self._consume(chunk, self._fed)
        except _Unsupported:
            self.failed = True
            return False
        finally:
            self._fed += len(chunk)
        return self._changed

    def snapshot(self) -> Any:
        """The value so far as a new object: open containers copied, closed ones shared.

        Returns ``None`` before the payload starts.
        """
        if self._root is not _MISSING:
            return self._root
        child: Any = self._leaf
        for frame in reversed(self._stack):
            copy: Any = frame.container.copy()
            if child is not _MISSING:
                if frame.kind == _OBJ:
                    if frame.key is not None:
                        copy[frame.key] = child
                else:
                    copy.append(child)
            child = copy
        return None if child is _MISSING else child

    # ------------------------------------------------------------------ scanning

    def _consume(self, text: str, base: int) -> None:
        """Scan ``text``, whose first character is at offset ``base`` of the whole text."""
        self._base = base
        i = 0
        n = len(text)
        while i < n:
            state = self._state
            if state == _STRING:
                i = self._string(text, i)
                continue
            c = text[i]
            if c in _WS and state in _BETWEEN_TOKENS:
                m = _WS_RUN.match(text, i)
                i = m.end() if m is not None else i + 1
                continue
            if state == _VALUE:
                i = self._value(text, i, c)
                if self._state == _DONE:
                    self._root_closed(text, i)
                    return
            elif state == _AFTER:
                i = self._after(c, i)
                if self._state == _DONE:
                    self._root_closed(text, i)
                    return
            elif state == _KEY:
                i = self._key(text, i, c)
                if self._state == _DONE:
                    self._root_closed(text, i)
                    return
            elif state == _COLON:
                if c == ":":
                    self._state = _VALUE
                elif not self._skippable(c, _COLON):
                    raise _Unsupported
                i += 1
            elif state == _NUMBER:
                if c in _NUMBER_CHARS:
                    self._parts.append(c)
                    self._number_grew()
                    i += 1
                else:
                    self._end_number()
            elif state == _WORD:
                if c.isalnum() or c in "_$-":
                    self._parts.append(c)
                    i += 1
                    if not self._role_key:
                        self._word_grew()
                else:
                    self._end_word()
            elif state == _COMMENT_LINE:
                eol = text.find("\n", i)
                if eol < 0:
                    return
                self._state = self._return_state
                i = eol + 1
            elif state == _COMMENT_BLOCK:
                i = self._comment_block(text, i)
            elif state == _SLASH:
                if c == "/":
                    self._state = _COMMENT_LINE
                elif c == "*":
                    self._state = _COMMENT_BLOCK
                    self._parts = []
                else:
                    raise _Unsupported
                i += 1
            elif state == _PREFIX:
                i = self._prefix(text, i)
            elif state == _THINK:
                i = self._think(text, i)
            elif state == _FENCE_INFO:
                m = _FENCE_LINE_END.match(text, i)
                if m is None:
                    if text[i:].strip():
                        # `~~~json {"a": 1}`: the payload starts on the fence's line
                        self._state = _PREFIX
                        continue
                    return
                self._state = _PREFIX
                i = m.end()
            else:  # _DONE
                return

    def _root_closed(self, text: str, i: int) -> None:
        """The root value ended just before ``text[i]``: note where, and what follows."""
        self.end = self._base + i
        if text[i:].strip(_AFTER_ROOT_OK):
            self.trailing_text = True

    def _skippable(self, c: str, state: int) -> bool:
        """Whitespace or the start of a comment between tokens."""
        if c in _WS:
            return True
        if c == "/":
            self._return_state = state
            self._state = _SLASH
            self.lenient = True
            return True
        if c == "#":
            self._return_state = state
            self._state = _COMMENT_LINE
            self.lenient = True
            return True
        return False

    def _comment_block(self, text: str, i: int) -> int:
        # A `*` at the end of the previous chunk may pair with a `/` at the start of this one.
        if self._parts and text[i] == "/":
            self._parts = []
            self._state = self._return_state
            return i + 1
        close = text.find("*/", i)
        if close < 0:
            self._parts = ["*"] if text.endswith("*") else []
            return len(text)
        self._parts = []
        self._state = self._return_state
        return close + 2

    # ------------------------------------------------------------------ before the payload

    def _prefix(self, text: str, i: int) -> int:
        """Skip what comes before the payload; held-back text waits for the next chunk."""
        origin = self._base + i - len(self._pending)  # offset of buf[0]
        buf = self._pending + text[i:]
        self._pending = ""
        j = 0
        n = len(buf)
        while j < n:
            c = buf[j]
            if c in "{[":
                self._start_payload(origin + j)
                self._consume(buf[j:], origin + j)
                return len(text)
            if c in "`~":
                run = len(buf) - j - len(buf[j:].lstrip(c))
                if run >= 3:
                    self._state = _FENCE_INFO
                    self.fenced = True
                    self._consume(buf[j + run :], origin + j + run)
                    return len(text)
                if j + run >= n:
                    self._pending = buf[j:]
                    return len(text)
                j += run
                continue
            if c == "<":
                head = buf[j : j + PREFIX_LOOKAHEAD].lower()
                if any(head.startswith(t) for t in _THINK_OPENERS):
                    close = buf.find(">", j)
                    if close < 0:
                        self._pending = buf[j:]
                        return len(text)
                    self._state = _THINK
                    self.prose = True  # reported as a repair by the complete-text engine
                    self._think_tail = ""
                    self._consume(buf[close + 1 :], origin + close + 1)
                    return len(text)
                if any(head.startswith(t) for t in _TAG_OPENERS):
                    self.prose = True
                    close = buf.find(">", j)
                    if close < 0:
                        self._pending = buf[j:]
                        return len(text)
                    j = close + 1
                    continue
                if len(head) < PREFIX_LOOKAHEAD and ">" not in head:
                    self._pending = buf[j:]
                    return len(text)
            if c not in _WS or c == "\ufeff":
                self.prose = True
            j += 1
        return len(text)

    def _think(self, text: str, i: int) -> int:
        origin = self._base + i - len(self._think_tail)
        window = self._think_tail + text[i:]
        m = THINK_CLOSE.search(window)
        if m is None:
            self._think_tail = window[-THINK_TAIL:]
            return len(text)
        self._think_tail = ""
        self._state = _PREFIX
        self._consume(window[m.end() :], origin + m.end())
        return len(text)

    def _start_payload(self, offset: int) -> None:
        self.started = True
        self.start = offset
        self._state = _VALUE

    # ------------------------------------------------------------------ structure

    def _value(self, text: str, i: int, c: str) -> int:
        if c == "{" or c == "[":
            if len(self._stack) >= MAX_DEPTH:
                raise _Unsupported  # the complete-text engine bounds what it returns
            frame = _Frame(_OBJ if c == "{" else _ARR)
            self._stack.append(frame)
            self._state = _KEY if c == "{" else _VALUE
            self._changed = True
            return i + 1
        if c == '"' or c == "'":
            self._open_string(c, role_key=False)
            return i + 1
        if c in "-0123456789":
            self._parts = [c]
            self._state = _NUMBER
            self._leaf = _MISSING
            self._number_grew()
            return i + 1
        if c.isalpha():
            self._parts = [c]
            self._state = _WORD
            self._role_key = False
            return i + 1
        if c == "]" and self._stack and self._stack[-1].kind == _ARR:
            if self._after_comma:
                self.lenient = True  # a trailing comma
            return self._after(c, i)
        if self._skippable(c, _VALUE):
            return i + 1
        raise _Unsupported

    def _key(self, text: str, i: int, c: str) -> int:
        if c == '"' or c == "'":
            self._open_string(c, role_key=True)
            return i + 1
        if c == "}":
            if self._after_comma:
                self.lenient = True  # a trailing comma
            return self._after(c, i)
        m = _KEY_CHARS.match(text, i)
        if m is not None:
            self._parts = [m.group()]
            self._state = _WORD
            self._role_key = True
            self.lenient = True  # an unquoted key
            return m.end()
        if self._skippable(c, _KEY):
            return i + 1
        raise _Unsupported

    def _after(self, c: str, i: int) -> int:
        if not self._stack:
            raise _Unsupported
        frame = self._stack[-1]
        if c == ",":
            self._state = _KEY if frame.kind == _OBJ else _VALUE
            self._after_comma = True
            return i + 1
        if (c == "}" and frame.kind == _OBJ) or (c == "]" and frame.kind == _ARR):
            self._stack.pop()
            self._emit(frame.container, changed=False)
            return i + 1
        if self._skippable(c, _AFTER):
            return i + 1
        raise _Unsupported

    def _emit(self, value: Any, *, changed: bool = True) -> None:
        """A value is complete: attach it to its container (or make it the root)."""
        self._leaf = _MISSING
        self._after_comma = False
        if changed:
            self._changed = True
        if not self._stack:
            self._root = value
            self._state = _DONE
            return
        frame = self._stack[-1]
        if frame.kind == _OBJ:
            if frame.key is not None:
                frame.container[frame.key] = value
                frame.key = None
        else:
            frame.container.append(value)
        self._state = _AFTER

    # ------------------------------------------------------------------ scalars

    def _open_string(self, quote: str, *, role_key: bool) -> None:
        if quote != '"':
            self.lenient = True
        self._after_comma = False
        self._quote = quote
        self._role_key = role_key
        self._parts = []
        self._escape = ""
        self._high_surrogate = ""
        self._state = _STRING
        if not role_key:
            self._leaf = ""
            self._changed = True

    def _string(self, text: str, i: int) -> int:
        n = len(text)
        run = _STRING_RUN[self._quote]
        grew = False
        while i < n:
            if self._escape:
                before = len(self._parts)
                i = self._escape_char(text, i)
                grew = grew or len(self._parts) != before  # half an escape shows nothing
                continue
            m = run.match(text, i)
            if m is not None:
                if not self.lenient and _CONTROL.search(m.group()):
                    self.lenient = True  # a literal control character
                if self._high_surrogate:
                    self._parts.append(self._high_surrogate)
                    self._high_surrogate = ""
                self._parts.append(m.group())
                grew = True
                i = m.end()
                continue
            c = text[i]
            if c == "\\":
                self._escape = "\\"
                i += 1
                continue
            # the closing quote
            if self._high_surrogate:
                self._parts.append(self._high_surrogate)
                self._high_surrogate = ""
            value = "".join(self._parts)
            self._parts = []
            if self._role_key:
                self._stack[-1].key = value
                self._state = _COLON
            else:
                self._emit(value, changed=grew)
            return i + 1
        if grew and not self._role_key:
            # Keep one part: the next join then copies the string once instead of walking
            # every chunk it was built from.
            self._leaf = "".join(self._parts)
            self._parts = [self._leaf]
            self._changed = True
        return i

    def _escape_char(self, text: str, i: int) -> int:
        """Continue the escape sequence in ``self._escape`` with ``text[i]``."""
        c = text[i]
        if self._escape == "\\":
            if c == "u":
                self._escape = "\\u"
                return i + 1
            self._escape = ""
            if self._high_surrogate:
                self._parts.append(self._high_surrogate)
                self._high_surrogate = ""
            if c not in _SIMPLE_ESCAPES or c == "'":
                self.lenient = True  # an escape JSON does not have
            self._parts.append(_SIMPLE_ESCAPES.get(c, "\\" + c))
            return i + 1
        self._escape += c
        if len(self._escape) < 6:
            return i + 1
        try:
            code = int(self._escape[2:], 16)
        except ValueError:
            raise _Unsupported from None
        self._escape = ""
        if self._high_surrogate:
            high = ord(self._high_surrogate)
            self._high_surrogate = ""
            if 0xDC00 <= code < 0xE000:
                self._parts.append(chr(0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00)))
                return i + 1
            self._parts.append(chr(high))
        if 0xD800 <= code < 0xDC00:
            self._high_surrogate = chr(code)  # wait for its low half
        else:
            self._parts.append(chr(code))
        return i + 1

    def _number_grew(self) -> None:
        """Show the longest valid prefix of the number (``1.`` reads as ``1``)."""
        m = _JSON_NUMBER_PREFIX.match("".join(self._parts))
        if m is None or not m.group():
            return
        text = m.group()
        value: Any = float(text) if any(ch in text for ch in ".eE") else int(text)
        # Changed only by LangChain's `!=`, under which 1 and 1.0 are the same value.
        if self._leaf is _MISSING or self._leaf != value:
            self._changed = True
        self._leaf = value

    def _end_number(self) -> None:
        text = "".join(self._parts)
        m = _JSON_NUMBER_PREFIX.fullmatch(text)
        if m is None:
            raise _Unsupported
        value: Any = float(text) if any(ch in text for ch in ".eE") else int(text)
        changed = self._leaf is _MISSING or self._leaf != value
        self._parts = []
        self._emit(value, changed=changed)

    def _word_grew(self) -> None:
        """Show a literal as soon as it is spelled out, as LangChain does (``tr`` shows nothing,
        ``true`` shows ``True``)."""
        value = _LITERALS.get("".join(self._parts), _MISSING)
        if value is not _MISSING and (self._leaf is _MISSING or self._leaf is not value):
            self._leaf = value
            self._changed = True
        elif value is _MISSING and self._leaf is not _MISSING:
            self._leaf = _MISSING  # `nullable`: not a literal after all

    def _end_word(self) -> None:
        word = "".join(self._parts)
        self._parts = []
        if self._role_key:
            self._role_key = False
            self._stack[-1].key = word
            self._state = _COLON
            return
        if word not in _LITERALS:
            raise _Unsupported
        if word not in _JSON_LITERALS:
            self.lenient = True  # a Python literal
        self._emit(_LITERALS[word], changed=self._leaf is _MISSING)


class _Unsupported(Exception):
    """The text needs a repair that cannot be decided without look-ahead."""
