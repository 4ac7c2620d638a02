"""Incremental JSON decoding for streams: each chunk is read once, where it arrives.

`JsonStreamDecoder` keeps its scanner state between chunks (where it is in the text, the
open containers, the scalar being read) and consumes only the new characters. After a chunk that
changed the value, `JsonStreamDecoder.snapshot` builds a new value to hand out: open
containers along the current path are copied shallowly and the growing scalar is added, while
closed sub-values are shared between snapshots, never copied and never changed again. A snapshot
is therefore read-only: mutating it would change later snapshots that share its closed parts.

Snapshots cost what they copy: the open containers along the path (their width and depth) and
the growing leaf. To keep a whole stream linear even when one string value or one flat list
runs to megabytes, a snapshot whose size (that copy) is past `SNAPSHOT_FREE_SIZE`, or whose
containers hold more than
``SNAPSHOT_FREE_WIDTH`` items, is handed out only once the text read since the last one is
``SNAPSHOT_GROWTH`` of its size (``engine/json/snapshot_policy.py``): each copy is then paid for
by new text, so all copies together cost a few times the text. The value in between is the last
snapshot's (an earlier, valid partial value); the final value is always exact, since the root
closes with nothing open. Nesting is held on an explicit stack
bounded by `MAX_DEPTH`; every state is
handled by a loop, so no input makes the decoder recurse.

Partial values follow LangChain's observable semantics: a string value appears as soon as its
opening quote arrives and then grows; a number shows its longest valid prefix (``1.`` reads as
``1``); a cut literal shows when its completion is unique (``tr`` is ``true``, see
``cut_literals``), and a key without a value is not shown.

The lenient rules that can be decided on the spot are applied as in the complete-text engine: a
BOM, ``<think>`` blocks and prose or a fence before the payload, trailing commas, comments,
single-quoted strings, unquoted keys, Python literals. Anything else (an unescaped inner quote, a
missing comma...) needs look-ahead the stream has not delivered yet: the decoder then stops and
says so (`JsonStreamDecoder.failed`), and the caller falls back to re-reading the text
with the complete-text engine, rarely (see ``engine/json/value_stream.py``).
"""

from __future__ import annotations

import re
from typing import Any

from langchain_robust_parsers.engine.json.lenient import MAX_DEPTH
from langchain_robust_parsers.engine.json.numbers import number_value
from langchain_robust_parsers.engine.json.snapshot_policy import (  # noqa: F401 (kept importable here)
    SNAPSHOT_FREE_SIZE,
    SNAPSHOT_GROWTH,
    snapshot_waits,
)
from langchain_robust_parsers.engine.json.stream_lexicon import (
    JSON_LITERALS as _JSON_LITERALS,
    LITERALS as _LITERALS,
    RUN_ITEM as _RUN_ITEM,
    RUN_MEMBER as _RUN_MEMBER,
    SHOWN_WORDS as _SHOWN_WORDS,
    SIMPLE_KEY as _SIMPLE_KEY,
    SIMPLE_STRING as _SIMPLE_STRING,
    STRING_END as _STRING_END,
    WHOLE_LITERAL as _WHOLE_LITERAL,
    WHOLE_NUMBER as _WHOLE_NUMBER,
    scanstring as _scanstring,
)
from langchain_robust_parsers.engine.lexicon import reasoning
from langchain_robust_parsers.engine.lexicon.escapes import (
    HEX4,
    MODEL_ESCAPES,
    SIMPLE_ESCAPES,
    is_high_surrogate,
    is_low_surrogate,
    join_surrogates,
)

_JSON_NUMBER_PREFIX = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_NUMBER_RUN = re.compile(r"[0-9+\-.eE]+")
_WORD_RUN = re.compile(r"[\w$\-]+")
_PROSE_RUN = re.compile(r"[^{\[`~<]+")
_PLAIN_WS = " \t\r\n\f\v\u00a0"  # a BOM is not plain: it counts as something before the payload
_MARKER_RUN = {"`": re.compile("`+"), "~": re.compile("~+")}
_WS = frozenset(" \t\r\n\f\v\u00a0\ufeff")
_KEY_CHARS = re.compile(r"[A-Za-z0-9_$\-]+")
_STRING_RUN = {
    '"': re.compile(r'[^"\\]+'),
    "'": re.compile(r"[^'\\]+"),
}
_FENCE_LINE_END = re.compile(r"[^\n]*\n")
_TAG_OPENERS = ("<json", "<output", "<answer", "<result", "<response", "<data")
_LONGEST_LITERAL = max(len(word) for word in _LITERALS)

PREFIX_LOOKAHEAD = 16
"""Characters held back before the payload while they may still become a fence or a tag."""

MAX_TAG_LENGTH = 256
"""Characters looked at for the ``>`` of an opening tag before the payload (``<think ...>``,
``<json ...>``). Past it the ``<`` is prose: text held back between chunks stays bounded, so a
``<think`` that never closes cannot make every chunk re-read everything before it."""

RUN_MIN_TEXT = 160
"""Characters left from which `JsonStreamDecoder._runs` reads a member or an item per match:
twice as fast on long text (the whole text at the hand-over from jiter), while in a short chunk
the runs are mostly cut by its end and the token-at-a-time reader costs less."""

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
_RUN_WS = " \t\r\n"


class _Frame:
    """An open container. An open list keeps only its values since the last snapshot: the
    earlier ones are read from that snapshot's copy (``head``), never changed, so a long list
    is not held twice."""

    __slots__ = ("container", "head", "head_len", "key", "kind", "size")

    def __init__(self, kind: int) -> None:
        self.kind = kind
        self.container: Any = {} if kind == _OBJ else []
        self.key: str | None = None
        self.size = 0  # values attached so far: what copying the container costs
        self.head: list[Any] | None = None
        self.head_len = 0

    def items(self) -> list[Any]:
        """An open list's values so far, as a new list."""
        if self.head is None:
            return list(self.container)
        out = self.head[: self.head_len]
        out += self.container
        return out


class JsonStreamDecoder:
    """Feed text chunks with `feed`; take values with `snapshot`.

    ``feed`` returns True when a new value is ready for `snapshot`: the value changed and
    the snapshot policy (``snapshot_policy``) lets it be copied now. Once `failed` is
    set the text needs a look-ahead this decoder does not have, and further chunks are ignored.
    """

    def __init__(self) -> None:
        self.failed = False
        self.started = False
        self.lenient = False
        """A rule beyond strict JSON was applied (comment, trailing comma, single quotes, an
        integer too long for Python kept as text...)."""
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
        self._fed = 0  # characters fed so far
        self._base = 0  # offset of the text being consumed in the whole text
        self._after_comma = False
        self._state = _PREFIX
        self._return_state = _VALUE  # where a comment hands back control
        self._stack: list[_Frame] = []
        self._root: Any = _MISSING
        self._pending = ""  # prefix text held back while it may become a fence or tag
        self._think_tail = ""
        self._think_close = reasoning.THINK_CLOSE  # the reasoning block's closing marker
        # The scalar being read.
        self._parts: list[str] = []
        self._quote = ""
        self._role_key = False
        self._escape = ""  # "" (none), "\\" (after a backslash) or "\\uXXX..." being read
        self._high_surrogate = ""
        self._leaf: Any = _MISSING  # the partial scalar shown in snapshots
        self._leaf_len = 0  # characters of the scalar being read
        self._leaf_stale = False  # the scalar grew since `_leaf` was computed
        self._dirty = False  # the value differs from the last snapshot
        self._open_size = 0  # what a snapshot copies: open frames and their values
        self._snap_at = 0  # `_fed` when the last snapshot was taken

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
        """Consume ``chunk``; True when a new value is ready for `snapshot`."""
        if self.failed or not chunk:
            return False
        if self._state == _DONE:
            if not self.trailing_text and chunk.strip(_AFTER_ROOT_OK):
                self.trailing_text = True
            return False
        # Text held back before the payload is read again with the chunk that completes it.
        held = self._pending or self._think_tail
        self._pending = self._think_tail = ""
        try:
            self._consume(held + chunk if held else chunk, self._fed - len(held))
        except _Unsupported:
            self.failed = True
            return False
        finally:
            self._fed += len(chunk)
        return self._due()

    def snapshot(self) -> Any:
        """The value so far as a new object: open containers copied, closed ones shared.

        Returns ``None`` before the payload starts.
        """
        self._dirty = False
        self._snap_at = self._fed
        if self._root is not _MISSING:
            return self._root
        if self._leaf_stale:
            self._refresh_leaf()
        child: Any = self._leaf
        for frame in reversed(self._stack):
            if frame.kind == _OBJ:
                copy: Any = frame.container.copy()
                if child is not _MISSING and frame.key is not None:
                    copy[frame.key] = child
            else:
                copy = frame.items()
                frame.head = copy
                frame.head_len = len(copy)
                if frame.container:
                    frame.container = []
                if child is not _MISSING:
                    copy.append(child)
            child = copy
        return None if child is _MISSING else child

    # ------------------------------------------------------------------ snapshot policy

    def _due(self) -> bool:
        """True when the value changed and a snapshot may be copied now (see
        ``snapshot_policy``); a growing scalar is worked out only then."""
        if not (self._dirty or self._leaf_stale):
            return False
        if snapshot_waits(
            self._open_size, self._open_size + self._leaf_len, self._fed - self._snap_at
        ):
            return False
        if self._leaf_stale:
            self._refresh_leaf()
        return self._dirty

    def _refresh_leaf(self) -> None:
        """Work out the growing scalar from the characters read so far."""
        self._leaf_stale = False
        if self._state == _NUMBER:
            self._number_grew()
        elif self._state == _STRING and not self._role_key:
            # One part kept: the next join copies the string once, not every piece of it.
            self._leaf = "".join(self._parts)
            self._parts = [self._leaf]
            self._dirty = True

    # ------------------------------------------------------------------ scanning

    def _consume(self, text: str, base: int) -> None:
        """Scan ``text``, whose first character is at offset ``base`` of the whole text."""
        self._base = base
        i = 0
        n = len(text)
        runs_until = n - RUN_MIN_TEXT
        while i < n:
            state = self._state
            if state == _STRING:
                i = self._string(text, i)
            elif state in _BETWEEN_TOKENS:
                if i <= runs_until:
                    i = self._runs(text, i)
                if i < n and self._state in _BETWEEN_TOKENS:
                    i = self._token(text, i, self._state, runs_until)
            elif state == _NUMBER:
                i = self._number(text, i)
            elif state == _WORD:
                i = self._word(text, i)
            elif state == _COMMENT_LINE:
                eol = text.find("\n", i)
                if eol < 0:
                    return
                self._state = self._return_state
                i = eol + 1
            elif state == _COMMENT_BLOCK:
                i = self._comment_block(text, i)
            elif state == _SLASH:
                i = self._slash(text[i], i)
            elif state == _PREFIX:
                i = self._prefix(text, i)
            elif state == _THINK:
                i = self._think(text, i)
            elif state == _FENCE_INFO:
                i = self._fence_info(text, i)
            else:  # _DONE
                return
            if self._state == _DONE:
                self._root_closed(text, i)
                return

    def _runs(self, text: str, i: int) -> int:
        """Read strict JSON a member or an item per match (see `RUN_MIN_TEXT`), up to
        what this cannot decide alone (cut by the text's end, lenient, or wrong here), which
        `_token` reads. Does what `_value`, `_key` and `_after` do."""
        n = len(text)
        stack = self._stack
        while i < n:
            c = text[i]
            if c in _RUN_WS:
                i = _WS_RUN.match(text, i).end()  # type: ignore[union-attr]
                if i >= n:
                    break
                c = text[i]
            state = self._state
            if c == '"' and state in (_KEY, _VALUE):
                if state == _KEY:
                    m = _RUN_MEMBER.match(text, i)
                    j = i if m is None else self._member(m)  # a lone key: `_key` reads it
                else:
                    j = self._string_item(text, i)
                if j == i:
                    break
                i = j
            elif c == "," and state == _AFTER:
                i = self._after(c, i)
            elif c == "}" or c == "]":
                if (stack[-1].kind == _OBJ) != (c == "}") or (
                    state != _AFTER
                    and (self._after_comma or state == _COLON or (state == _VALUE and c == "}"))
                ):
                    break  # the slow way: a trailing comma, a key without its value...
                self._after(c, i)
                i += 1
                if self._state == _DONE:
                    break
            elif state == _VALUE and (c == "{" or c == "[") and len(stack) < MAX_DEPTH:
                self._open(c)
                i += 1
            elif state == _VALUE:
                m = _RUN_ITEM.match(text, i)
                if m is None:
                    break
                string, number, literal, comma = m.groups()
                self._attach(self._scalar(string, number, literal), comma is not None)
                i = m.end()
            elif c == ":" and state == _COLON:
                self._state = _VALUE
                i += 1
            else:
                break
        return i

    def _open(self, c: str) -> None:
        self._stack.append(_Frame(_OBJ if c == "{" else _ARR))
        self._open_size += 1
        self._state = _KEY if c == "{" else _VALUE
        self._after_comma = False
        self._dirty = True

    def _member(self, m: re.Match[str]) -> int:
        """A key and its value, or the opener of its value (`_RUN_MEMBER`)."""
        key, string, number, literal, comma, opener = m.groups()
        if opener is not None and len(self._stack) >= MAX_DEPTH:
            return m.start()
        self._stack[-1].key = key
        if opener is not None:
            self._open(opener)
        else:
            self._attach(self._scalar(string, number, literal), comma is not None)
        return m.end()

    def _scalar(self, string: str | None, number: str | None, literal: str) -> Any:
        if string is not None:
            return string
        if number is not None:
            value, long = number_value(number)
            self.lenient = self.lenient or long
            return value
        return _LITERALS[literal]

    def _string_item(self, text: str, i: int) -> int:
        """A string value at ``text[i]``: where reading stopped (``i`` when nothing was read)."""
        m = _RUN_ITEM.match(text, i)
        if m is not None:
            self._attach(m.group(1), m.group(4) is not None)
            return m.end()
        if _STRING_END.match(text, i + 1) is None:
            return i  # the text cuts it: the slow way shows it growing
        try:
            value, stop = _scanstring(text, i + 1, True)
        except ValueError:
            return i  # not strict JSON: the slow way decides
        self._attach(value, False)
        return stop

    def _attach(self, value: Any, comma: bool) -> None:
        """A new value is complete in the innermost container (and ``comma``: the comma after
        it was read too)."""
        frame = self._stack[-1]
        frame.size += 1
        self._open_size += 1
        if frame.kind == _OBJ:
            frame.container[frame.key] = value
            frame.key = None
        else:
            frame.container.append(value)
        self._dirty = True
        self._after_comma = comma
        self._state = (_KEY if frame.kind == _OBJ else _VALUE) if comma else _AFTER

    def _token(self, text: str, i: int, state: int, runs_until: int) -> int:
        """Read between tokens: whitespace, a structural character, or a token's start; and on
        while between tokens, unless `_runs` can take over again (past ``runs_until``)."""
        n = len(text)
        while True:
            c = text[i]
            if c in _WS:
                i = _WS_RUN.match(text, i).end()  # type: ignore[union-attr]
                if i >= n:
                    return i
                c = text[i]
            if state == _VALUE:
                i = self._value(text, i, c)
            elif state == _AFTER:
                i = self._after(c, i)
            elif state == _KEY:
                i = self._key(text, i, c)
            elif c == ":":
                self._state = _VALUE
                i += 1
            elif self._skippable(c, _COLON):
                i += 1
            else:
                raise _Unsupported
            state = self._state
            if i >= n or i <= runs_until or state not in _BETWEEN_TOKENS:
                return i

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

    def _slash(self, c: str, i: int) -> int:
        if c == "/":
            self._state = _COMMENT_LINE
        elif c == "*":
            self._state = _COMMENT_BLOCK
            self._parts = []
        else:
            raise _Unsupported
        return i + 1

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
        """Skip what comes before the payload, up to the state that reads what follows; text
        that may still become a fence or a tag is held back for the next chunk."""
        n = len(text)
        while i < n:
            c = text[i]
            if c == "[" and (stop := self._reasoning_opener(text, i)) >= 0:  # `[THINK]`
                return stop
            if c in "{[":
                self._start_payload(self._base + i)
                return i
            if c in "`~":
                stop = _MARKER_RUN[c].match(text, i).end()  # type: ignore[union-attr]
                if stop - i >= 3:
                    self._state = _FENCE_INFO
                    self.fenced = True
                    return stop
                if stop >= n:
                    self._pending = text[i:]
                    return n
                i = stop
                continue
            if c == "<":
                i = self._prefix_tag(text, i)
                if self._state != _PREFIX:
                    return i
                continue
            m = _PROSE_RUN.match(text, i)
            stop = m.end() if m is not None else i + 1
            if not self.prose and (text[i:stop].strip(_PLAIN_WS) or "\ufeff" in text[i:stop]):
                self.prose = True
            i = stop
        return n

    def _reasoning_opener(self, text: str, i: int) -> int:
        """Past a reasoning opener at ``i`` (then inside the block), ``len(text)`` when the rest
        is held back while it may still become one, or -1."""
        if text[i] == "[" and not reasoning.bracket_may_open(text, i):
            return -1  # the usual `[`: an array
        stop, closer = reasoning.stream_opener(text, i)
        if closer is not None:
            self.prose = True  # reported as a repair by the complete-text engine
            self._state, self._think_close = _THINK, closer
        elif stop >= 0:
            self._pending = text[i:]
        return stop

    def _prefix_tag(self, text: str, i: int) -> int:
        """A ``<`` before the payload: a reasoning block, a payload tag, or prose."""
        n = len(text)
        if (stop := self._reasoning_opener(text, i)) >= 0:
            return stop
        head = text[i : i + PREFIX_LOOKAHEAD].lower()
        if head.startswith(_TAG_OPENERS):
            self.prose = True  # reported as a repair, or ranked, by the complete-text engine
            close = text.find(">", i, i + MAX_TAG_LENGTH)
            if close < 0:
                if n - i < MAX_TAG_LENGTH:
                    self._pending = text[i:]
                    return n
                return i + 1  # no `>` within a tag's length: prose
            return close + 1
        if len(head) < PREFIX_LOOKAHEAD and ">" not in head:
            self._pending = text[i:]
            return n
        self.prose = True
        return i + 1

    def _think(self, text: str, i: int) -> int:
        m = self._think_close.search(text, i)
        if m is None:
            self._think_tail = text[max(i, len(text) - reasoning.THINK_TAIL) :]
            return len(text)
        self._state = _PREFIX
        return m.end()

    def _fence_info(self, text: str, i: int) -> int:
        """Skip a fence's info string to the end of its line."""
        m = _FENCE_LINE_END.match(text, i)
        if m is not None:
            self._state = _PREFIX
            return m.end()
        if text[i:].strip():
            self._state = _PREFIX  # `~~~json {"a": 1}`: the payload starts on the fence's line
            return i
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
            self._open(c)
            return i + 1
        if c == '"':
            m = _SIMPLE_STRING.match(text, i)
            if m is not None:
                self._emit(m.group(1))
                return m.end()
        if c == '"' or c == "'":
            self._open_string(c, role_key=False)
            return i + 1
        if c == "-" and text.startswith("I", i + 1):  # `-Infinity`, shown once whole
            self._parts, self._state, self._role_key = [], _WORD, False
            return i
        if c in "-0123456789":
            m = _WHOLE_NUMBER.match(text, i)
            if m is not None:
                value, long = number_value(m.group())
                self.lenient = self.lenient or long
                self._emit(value)
                return m.end()
            self._parts = []
            self._state = _NUMBER
            self._leaf = _MISSING
            self._leaf_len = 0
            return i
        if c.isalpha():
            m = _WHOLE_LITERAL.match(text, i)
            if m is not None:
                self._emit(_LITERALS[m.group()])
                return m.end()
            self._parts = []
            self._state = _WORD
            self._role_key = False
            return i
        if c == "]" and self._stack and self._stack[-1].kind == _ARR:
            if self._after_comma:
                self.lenient = True  # a trailing comma
            return self._after(c, i)
        if self._skippable(c, _VALUE):
            return i + 1
        raise _Unsupported

    def _key(self, text: str, i: int, c: str) -> int:
        if c == '"':
            m = _SIMPLE_KEY.match(text, i)
            if m is not None:
                self._after_comma = False
                self._stack[-1].key = m.group(1)
                self._state = _COLON if m.group(2) is None else _VALUE
                return m.end()
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
            self._open_size -= frame.size + 1
            closed = frame.items() if frame.head is not None else frame.container
            self._emit(closed, changed=False)
            return i + 1
        if self._skippable(c, _AFTER):
            return i + 1
        raise _Unsupported

    def _emit(self, value: Any, *, changed: bool = True) -> None:
        """A value is complete: attach it to its container (or make it the root)."""
        self._leaf = _MISSING
        self._leaf_len = 0
        self._leaf_stale = False
        self._after_comma = False
        if changed:
            self._dirty = True
        if not self._stack:
            self._root = value
            self._state = _DONE
            return
        frame = self._stack[-1]
        frame.size += 1
        self._open_size += 1
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
            self._leaf_len = 0
            self._dirty = True

    def _add(self, piece: str) -> None:
        """Append ``piece`` to the string being read (after a high surrogate left waiting)."""
        if self._high_surrogate:
            piece = self._high_surrogate + piece
            self._high_surrogate = ""
        self._parts.append(piece)
        if not self._role_key:
            self._leaf_len += len(piece)
            self._leaf_stale = True

    def _string(self, text: str, i: int) -> int:
        n = len(text)
        run = _STRING_RUN[self._quote]
        while i < n:
            if self._escape:
                i = self._escape_char(text, i)
                continue
            m = run.match(text, i)
            if m is not None:
                if not self.lenient and _CONTROL.search(m.group()):
                    self.lenient = True  # a literal control character
                self._add(m.group())
                i = m.end()
                continue
            if text[i] == "\\":
                self._escape = "\\"
                i += 1
                continue
            # the closing quote
            if self._high_surrogate:
                self._add("")  # a high surrogate without its low half stands alone
            value = "".join(self._parts)
            self._parts = []
            if self._role_key:
                self._stack[-1].key = value
                self._state = _COLON
            else:
                self._emit(value, changed=self._leaf != value)
            return i + 1
        return i

    def _escape_char(self, text: str, i: int) -> int:
        """Continue the escape sequence in ``self._escape`` with ``text[i]``."""
        c = text[i]
        if self._escape == "\\":
            if c == "u":
                self._escape = "\\u"
                return i + 1
            self._escape = ""
            if c not in SIMPLE_ESCAPES:
                self.lenient = True  # an escape JSON does not have
            self._add(MODEL_ESCAPES.get(c, "\\" + c))
            return i + 1
        self._escape += c
        if len(self._escape) < 6:
            return i + 1
        digits = self._escape[2:]
        if HEX4.fullmatch(digits) is None:
            # `int(.., 16)` alone would accept " f22", "+f22", "0x12" and "f_22"
            raise _Unsupported
        code = int(digits, 16)
        self._escape = ""
        if self._high_surrogate and is_low_surrogate(code):
            high, self._high_surrogate = ord(self._high_surrogate), ""
            self._add(chr(join_surrogates(high, code)))
            return i + 1
        if is_high_surrogate(code):
            if self._high_surrogate:
                self._add("")  # the high surrogate before this one stands alone
            self._high_surrogate = chr(code)  # wait for its low half
        else:
            self._add(chr(code))
        return i + 1

    def _number(self, text: str, i: int) -> int:
        """Read a run of number characters; the number ends at anything else."""
        m = _NUMBER_RUN.match(text, i)
        if m is None:
            if self._parts == ["-"] and text[i] == "I":  # `-` and `Infinity` cut apart
                self._state, self._role_key = _WORD, False
                return i
            self._end_number()
            return i
        self._parts.append(m.group())
        self._leaf_len += m.end() - i
        self._leaf_stale = True
        if m.end() < len(text):
            self._end_number()
        return m.end()

    def _number_grew(self) -> None:
        """Show the longest valid prefix of the number (``1.`` reads as ``1``)."""
        self._parts = ["".join(self._parts)]
        m = _JSON_NUMBER_PREFIX.match(self._parts[0])
        if m is None or not m.group():
            return
        value, long = number_value(m.group())
        self.lenient = self.lenient or long
        # Changed only by LangChain's `!=`, under which 1 and 1.0 are the same value.
        if self._leaf is _MISSING or self._leaf != value:
            self._dirty = True
        self._leaf = value

    def _end_number(self) -> None:
        text = "".join(self._parts)
        if _JSON_NUMBER_PREFIX.fullmatch(text) is None:
            raise _Unsupported
        value, long = number_value(text)
        self.lenient = self.lenient or long
        changed = self._leaf is _MISSING or self._leaf != value
        self._parts = []
        self._emit(value, changed=changed)

    def _word(self, text: str, i: int) -> int:
        """Read a run of word characters: a literal, or an unquoted key."""
        m = _WORD_RUN.match(text, i)
        if m is None:
            self._end_word()
            return i
        self._parts.append(m.group())
        if not self._role_key:
            if len(self._parts) > _LONGEST_LITERAL or sum(map(len, self._parts)) > _LONGEST_LITERAL:
                raise _Unsupported  # not a literal: an unquoted value needs look-ahead
            self._word_grew()
        if m.end() < len(text):
            self._end_word()
        return m.end()

    def _word_grew(self) -> None:
        """Show a literal as soon as it is spelled out, as LangChain does, or as soon as its
        completion is unique (``t``, ``tr``: ``True``; ``N`` is ``None`` or ``NaN``: nothing)."""
        value = _SHOWN_WORDS.get("".join(self._parts), _MISSING)
        if value is not _MISSING and (self._leaf is _MISSING or self._leaf is not value):
            self._leaf = value
            self._dirty = True
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
