"""Streaming plain JSON by its structure: jiter re-reads only the element still open.

`WindowDecoder` follows a stream of strict JSON with one compiled regex a chunk that skips
string bodies and stops only at brackets, braces and commas, so Python works per structural
character rather than per token. Each open container keeps the elements it has finished,
decoded once by jiter from their exact text when they end; the text of the innermost open
element (one member, or one item) is re-read by jiter's partial mode on every chunk. An item of
a list that is itself a container (a record) is read whole that way while it is short
(`NESTED_MAX_SIZE`): the scanner does not enter it, and its end is the first of its
closing brackets up to which its text is a whole JSON value, so a chunk without one costs a
single jiter call. A snapshot is the finished elements of each open
container, copied, plus the open element's partial value: the same partial semantics as
`plain_partial`, and the same snapshot policy as the
incremental decoder (``engine/json/snapshot_policy.py``): while the open containers are narrow,
the values a stream yields are the decoder's, one for each change.

Anything not plain JSON (jiter rejects an element, text between elements that is not
whitespace), an open element past `WINDOW_MAX_SIZE` (one long string) or nesting past
`WINDOW_MAX_DEPTH` sets `WindowDecoder.failed`: the caller hands the whole text to
the incremental decoder once, which reads lenient text, long strings and deep nesting in linear
time.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic_core import from_json

from langchain_robust_parsers.engine.json.plain_partial import (
    JSON_WS,
    NOT_PLAIN,
    partial_value,
)
from langchain_robust_parsers.engine.json.snapshot_policy import snapshot_waits
from langchain_robust_parsers.engine.lexicon.escapes import escaped_at

WINDOW_MAX_SIZE = 2048
"""Characters of the open element past which it is no longer re-read on every chunk (a long
string): the incremental decoder takes over, so no chunk costs more than this re-read."""

NESTED_MAX_SIZE = 1024
"""Characters of an open element holding containers of its own (a record in a list) past which
those containers are followed one by one rather than re-read whole on every chunk."""

ITEM_MAX_TRIES = 16
"""Closing brackets inside an item read whole that were not its end (inner containers of its
kind, brackets in strings) after which the incremental decoder takes the stream over: each try
re-reads the item so far (about `NESTED_MAX_SIZE` characters, plus at most one piece of a
long chunk, `FEED_PIECE_SIZE`), and an item full of nested containers is read in linear
time there."""

FOLLOW_MAX_TRIES = 8
"""Closing brackets that were not its end in an item grown past `NESTED_MAX_SIZE` from
which the incremental decoder takes the stream over rather than the item being followed
container by container. Followed here, records full of small objects (orders and their line
items) cost about 1.5 times what the decoder costs a chunk; an item of long strings costs about
what the decoder does, and the items after it stay here, where short records cost two thirds
of the decoder's (32-character chunks)."""

_END_PROBE = ', "'
"""Text put after an item's candidate end for jiter's partial mode, which then reads a second
item (an empty string) only when the item is whole up to there: inside the item or one of its
strings the probe is part of it. Unlike a strict parse, a miss raises no exception."""

FEED_PIECE_SIZE = 4096
"""Characters of a long chunk (the whole text at the hand-over, a caller's big chunks) read at a
time: the open element's text is cut off the front of the text held at each element's end, so
holding a whole megabyte would make that copy quadratic."""

WINDOW_MAX_DEPTH = 64
"""Open containers past which the decoder takes over: an element's value is built once per
level it is nested in."""

_EVENTS = re.compile(r'"[^"\\]*"|[][{},"]')
"""A whole string without escapes (skipped in one step), a structural character, or the quote
of a string that has escapes or runs past the chunk."""
_MISSING = object()


class _Failed(Exception):
    """The text is not plain JSON, or not worth following here."""


class _Frame:
    """An open container: its finished elements, and the element after them."""

    __slots__ = (
        "after_comma",
        "cache",
        "commas",
        "head",
        "head_len",
        "is_list",
        "key",
        "pending",
        "pending_key",
    )

    def __init__(self, is_list: bool, key: Any) -> None:
        self.is_list = is_list
        self.cache: Any = [] if is_list else {}
        self.key = key  # the key under which this container sits in an open object
        self.commas = 0
        self.after_comma = False
        self.pending: Any = _MISSING  # a closed container, the element being read
        self.pending_key: Any = None
        # A list keeps only its items since the last snapshot: the earlier ones are read from
        # that snapshot's copy, never changed, so a long list is not held twice.
        self.head: list[Any] | None = None
        self.head_len = 0

    def items(self) -> Any:
        """The finished elements as a new container; a list's copy becomes its ``head``."""
        if not self.is_list:
            return self.cache.copy()
        if self.head is None:
            out = self.cache.copy()
        else:
            out = self.head[: self.head_len]
            out += self.cache
        self.head = out
        self.head_len = len(out)
        self.cache = []
        return out

    def element(self, text: str) -> Any:
        """The finished element whose text is ``text`` (as a one-entry container), empty
        when there is none."""
        if self.pending is not _MISSING:
            if text.strip(JSON_WS):
                raise _Failed
            return [self.pending] if self.is_list else {self.pending_key: self.pending}
        if not text.strip(JSON_WS):
            return [] if self.is_list else {}
        try:
            if self.is_list:
                return from_json("[" + text + "]", allow_inf_nan=False)
            return from_json("{" + text + "}", allow_inf_nan=False)
        except (ValueError, TypeError):
            raise _Failed from None

    def add(self, element: Any) -> None:
        if self.is_list:
            self.cache += element
        else:
            self.cache.update(element)
        self.pending = _MISSING


_HEAD_SIZE = 64
"""Characters at the start of a stream kept to tell a lone ``[`` (with whitespace around it)."""


class WindowDecoder:
    """Feed chunks of a plain JSON stream with `feed`; take values with
    `snapshot`. Once `failed` is set further chunks are ignored."""

    def __init__(self) -> None:
        self.failed = False
        self._stack: list[_Frame] = []
        self._root: Any = _MISSING
        self._buf = ""  # the text of the innermost open element so far
        self._buf_at = 0  # where `_buf` starts in the whole text
        self._in_string = False
        self._escape = False
        self._tail: Any = None  # the open element's last partial value (a one-entry container)
        self._changed = False
        self._dirty = False
        self._open_size = 0  # what the decoder's snapshot copies, without the open element
        self._fed = 0
        self._snap_at = 0
        self._closer = ""  # the closing bracket of the item read whole, if in one
        self._tries = 0  # its closing brackets that were not its end
        self._lazy = True  # items of a list that are containers are read whole (`_item_rest`)
        self._head = ""  # the first characters (see `_HEAD_SIZE`)

    @property
    def done(self) -> bool:
        """True once the root container has closed."""
        return self._root is not _MISSING

    def feed(self, chunk: str) -> bool:
        """Consume ``chunk``; True when a new value is ready for `snapshot`."""
        if len(chunk) > FEED_PIECE_SIZE:
            for k in range(0, len(chunk), FEED_PIECE_SIZE):
                self._feed(chunk[k : k + FEED_PIECE_SIZE])
            return self._dirty and not self.failed and (self.done or self._due())
        return self._feed(chunk)

    def _feed(self, chunk: str) -> bool:
        if self.failed or not chunk:
            return False
        self._fed += len(chunk)
        closer = self._closer
        if closer and closer not in chunk:
            # Inside an item read whole, which this chunk cannot end (the usual chunk of a
            # list of records): only its value is read again (`_read_tail`, inlined).
            buf = self._buf = self._buf + chunk
            if len(buf) <= NESTED_MAX_SIZE:
                tail = partial_value("[" + buf)
                if tail is NOT_PLAIN:
                    self.failed = True
                    return False
                if tail != self._tail:
                    self._tail = tail
                    self._dirty = True
                return self._dirty and self._due()
            chunk_at = self._fed - len(chunk)
            self._buf = buf[: len(buf) - len(chunk)]
        else:
            chunk_at = self._fed - len(chunk)
        try:
            if self._root is not _MISSING:
                if chunk.strip(JSON_WS):
                    raise _Failed
                return False
            self._changed = False
            self._buf += chunk
            self._scan(chunk, chunk_at)
            if self._root is not _MISSING:
                self._dirty = self._dirty or self._changed
                return self._dirty
            self._read_tail()
        except _Failed:
            self.failed = True
            return False
        self._dirty = self._dirty or self._changed
        if self._fed <= _HEAD_SIZE:  # a lone `[` may become `[THINK]`: no value yet, as in
            self._head += chunk  # the decoder (see `reasoning.bracket_may_open`)
            if self._head.lstrip(JSON_WS) == "[":
                return False
        return self._dirty and self._due()

    def snapshot(self) -> Any:
        """The value so far as a new object: open containers copied, finished elements shared;
        ``None`` before the root container opens."""
        self._dirty = False
        self._snap_at = self._fed
        if self._root is not _MISSING:
            return self._root
        stack = self._stack
        if not stack:
            return None
        frame = stack[-1]
        child: Any = frame.items()
        if frame.is_list:
            child += self._tail
        else:
            child.update(self._tail)
        for i in range(len(stack) - 2, -1, -1):
            outer = stack[i]
            copy: Any = outer.items()
            if outer.is_list:
                copy.append(child)
            else:
                copy[stack[i + 1].key] = child
            child = copy
        return child

    # ------------------------------------------------------------------ snapshot policy

    def _due(self) -> bool:
        """Whether a changed value may be copied now, by the incremental decoder's policy: past
        ``SNAPSHOT_FREE_WIDTH`` items of the open containers (or
        ``SNAPSHOT_FREE_SIZE``), a snapshot waits for ``SNAPSHOT_GROWTH`` of its size
        in new text. The open element counts by its text, which bounds the decoder's count
        from above: past the free bounds, which of the intermediate values are shown may
        differ from the decoder's."""
        width = self._open_size + 1
        return not snapshot_waits(width, width + len(self._buf), self._fed - self._snap_at)

    # ------------------------------------------------------------------ scanning

    def _scan(self, chunk: str, base: int) -> None:
        """Follow the structure of ``chunk``, which starts at ``base`` in the whole text: the
        events it holds (its text already ends ``_buf``). A container that is an item of a list
        is read whole (`_item_rest`): its text stays in the element, re-read with it."""
        i = 0
        n = len(chunk)
        if self._closer:
            i = self._item_rest(chunk, i, base)
            if i >= n:
                return
        elif self._escape:
            self._escape = False
            i = 1
        if self._in_string:
            i = self._string(chunk, i)
        commas = 0  # a run of commas of the innermost container, followed in one go
        last_comma = 0
        while i < n:
            for m in _EVENTS.finditer(chunk, i):
                c = m.group()
                if c[0] == '"':
                    if len(c) > 1:
                        continue
                    i = self._string(chunk, m.end())
                    break
                if c == ",":
                    if not self._stack:
                        raise _Failed
                    if commas or self._stack[-1].pending is _MISSING:
                        commas += 1
                        last_comma = base + m.start()
                        continue
                    self._commas(1, base + m.start())  # after a closed container
                elif commas:
                    self._commas(commas, last_comma)
                    commas = 0
                rel = base + m.start() - self._buf_at
                if c == "{" or c == "[":
                    if self._lazy and self._stack and self._stack[-1].is_list:
                        self._start_item(c, rel)
                        i = self._item_rest(chunk, m.end(), base)
                        break
                    self._open(c == "[", rel)
                elif c != ",":
                    self._close(c == "]", rel)
                self._buf_at = base + m.end()
            else:
                break
        if commas:
            self._commas(commas, last_comma)

    def _start_item(self, opener: str, rel: int) -> None:
        """An item of a list that is a container, at ``rel`` in ``_buf``: read whole."""
        if self._stack[-1].pending is not _MISSING or self._buf[:rel].strip(JSON_WS):
            raise _Failed  # `[{..} {` or `[x {`
        self._closer = "}" if opener == "{" else "]"
        self._tries = 0

    def _item_rest(self, chunk: str, i: int, base: int) -> int:
        """Inside an item read whole, from ``chunk[i]``: where it ends, found as the first of
        its closing brackets up to which its text is a whole JSON value (the item is then
        finished, decoded once), or the end of the chunk."""
        closer = self._closer
        j = chunk.find(closer, i)
        while j >= 0:
            rel = base + j + 1 - self._buf_at
            try:
                probe = from_json(
                    "[" + self._buf[:rel] + _END_PROBE,
                    allow_partial="trailing-strings",
                    allow_inf_nan=False,
                )
            except (ValueError, TypeError):
                probe = None
            if probe is not None and len(probe) == 2:
                self._end_item(probe[0], rel, base + j + 1)
                return j + 1
            self._tries += 1
            if self._tries > ITEM_MAX_TRIES:
                raise _Failed
            j = chunk.find(closer, j + 1)
        return len(chunk)

    def _end_item(self, value: Any, rel: int, at: int) -> None:
        """The item read whole is ``value``; its text ends at ``rel`` in ``_buf``, at ``at`` in
        the whole text."""
        self._closer = ""
        self._stack[-1].pending = value
        if self._tail != [value]:
            self._tail = [value]
            self._changed = True
        self._buf = self._buf[rel:]
        self._buf_at = at

    def _replay(self) -> None:
        """Follow the open item's containers as containers of their own: its text has grown
        past `NESTED_MAX_SIZE`."""
        self._closer = ""
        self._in_string = self._escape = False  # an element starts outside any string
        self._lazy = False
        self._scan(self._buf, self._buf_at)
        self._lazy = True

    def _string(self, chunk: str, i: int) -> int:
        """Skip the body of a string from ``chunk[i]``: past its closing quote, or to the end
        (noting a backslash left waiting there). Escapes other than ``\\"`` are skipped by the
        search for the next quote; a quote is escaped when an odd run of backslashes ends
        just before it."""
        n = len(chunk)
        start = i
        while True:
            j = chunk.find('"', i)
            if j < 0:
                self._in_string = True
                self._escape = escaped_at(chunk, n, start)
                return n
            if chunk[j - 1] != "\\" or not escaped_at(chunk, j, start):  # most: no backslash
                self._in_string = False
                return j + 1
            i = j + 1

    def _open(self, is_list: bool, rel: int) -> None:
        stack = self._stack
        key: Any = None
        if self._root is not _MISSING:
            raise _Failed
        if stack:
            if len(stack) >= WINDOW_MAX_DEPTH:
                raise _Failed
            parent = stack[-1]
            head = self._buf[:rel]
            if parent.pending is not _MISSING:
                raise _Failed
            if not parent.is_list:
                try:
                    member = from_json("{" + head + "0}")
                except (ValueError, TypeError):
                    raise _Failed from None
                if len(member) != 1:
                    raise _Failed
                key = next(iter(member))
            elif head.strip(JSON_WS):
                raise _Failed
            parent.after_comma = False
        elif self._buf[:rel].strip(JSON_WS):
            raise _Failed
        stack.append(_Frame(is_list, key))
        self._open_size += 1
        self._buf = self._buf[rel + 1 :]
        self._tail = [] if is_list else {}
        self._changed = True

    def _commas(self, count: int, last: int) -> None:
        """``count`` commas of the innermost container, the last at ``last`` in the whole
        text: the elements before them, decoded by one jiter call (a closed container's own
        comma comes alone: ``_Frame.element`` then gives the container)."""
        frame = self._stack[-1]
        rel = last - self._buf_at
        elements = frame.element(self._buf[:rel])
        if not elements:
            raise _Failed  # `[,` or `[1,,`
        if count > 1 or elements != self._tail:
            self._changed = True
        frame.add(elements)
        frame.commas += count
        frame.after_comma = True
        self._open_size += count
        self._buf = self._buf[rel + 1 :]
        self._buf_at = last + 1
        self._tail = [] if frame.is_list else {}

    def _close(self, is_list: bool, rel: int) -> None:
        stack = self._stack
        if not stack or stack[-1].is_list is not is_list:
            raise _Failed
        frame = stack.pop()
        element = frame.element(self._buf[:rel])
        if not element and frame.after_comma:
            raise _Failed  # a trailing comma
        if element != self._tail:
            self._changed = True
        frame.add(element)
        self._open_size -= frame.commas + 1
        self._buf = self._buf[rel + 1 :]
        value = frame.items() if frame.head is not None else frame.cache
        if not stack:
            self._root = value
            if self._buf.strip(JSON_WS):
                raise _Failed
            return
        parent = stack[-1]
        parent.pending = value
        parent.pending_key = frame.key
        self._tail = [value] if parent.is_list else {frame.key: value}

    def _read_tail(self) -> None:
        """The open element's partial value, and whether it changed."""
        if not self._stack:
            if self._buf.strip(JSON_WS):
                raise _Failed
            return
        frame = self._stack[-1]
        if frame.pending is not _MISSING:
            if self._buf.strip(JSON_WS):
                raise _Failed
            return
        buf = self._buf
        if len(buf) > WINDOW_MAX_SIZE and not self._closer:
            raise _Failed
        tail = partial_value(("[" if frame.is_list else "{") + buf)
        if tail is NOT_PLAIN or len(tail) > 1:
            raise _Failed
        if tail != self._tail:
            self._changed = True
            self._tail = tail
        if self._closer and len(buf) > NESTED_MAX_SIZE:
            if self._tries >= FOLLOW_MAX_TRIES:
                raise _Failed  # many small containers: the decoder reads them faster
            changed = self._changed
            self._replay()
            self._read_tail()
            self._changed = changed  # the value is the same, only followed differently
