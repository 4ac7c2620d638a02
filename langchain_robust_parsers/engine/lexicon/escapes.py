"""Backslash escapes in JSON strings, and where one is cut off at the end of a stream prefix:
the one place every string reader (the lenient scanner, the stream decoder, the C-decoder
repairs and ReAct's action reader) asks, so that they agree on what a prefix holds."""

from __future__ import annotations

import re

__all__ = [
    "HEX4",
    "MAX_UNFINISHED_ESCAPE",
    "MODEL_ESCAPES",
    "SIMPLE_ESCAPES",
    "backslashes_before",
    "escaped_at",
    "is_high_surrogate",
    "is_low_surrogate",
    "join_surrogates",
    "unfinished_escape_start",
]

SIMPLE_ESCAPES: dict[str, str] = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}
"""JSON's short escapes: the character after the backslash and what it stands for."""

MODEL_ESCAPES: dict[str, str] = {**SIMPLE_ESCAPES, "'": "'"}
"""What the lenient readers accept: JSON's short escapes and ``\\'``, which is not JSON but
models write it (a habit from Python and JavaScript strings)."""

HEX4 = re.compile(r"[0-9a-fA-F]{4}")
"""The four hex digits of a ``\\uXXXX`` escape."""

MAX_UNFINISHED_ESCAPE = 11
"""Characters an escape cut at the end can span: a high surrogate escape (6) and the start of
its low half (``\\u`` and three hex digits, 5). Only this much of a prefix's end is read."""

_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def is_high_surrogate(code: int) -> bool:
    """The first half of a UTF-16 surrogate pair (``\\ud800`` to ``\\udbff``)."""
    return 0xD800 <= code < 0xDC00


def is_low_surrogate(code: int) -> bool:
    """The second half of a UTF-16 surrogate pair (``\\udc00`` to ``\\udfff``)."""
    return 0xDC00 <= code < 0xE000


def join_surrogates(high: int, low: int) -> int:
    """The code point a surrogate pair stands for (``0xD83D, 0xDE00`` gives ``0x1F600``)."""
    return 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)


def backslashes_before(text: str, pos: int, start: int = 0) -> int:
    """How many backslashes run up to ``text[pos]`` (not counting any before ``start``)."""
    i = pos
    while i > start and text[i - 1] == "\\":
        i -= 1
    return pos - i


def escaped_at(text: str, pos: int, start: int = 0) -> bool:
    """Is the character at ``pos`` (a quote, or the end of a prefix) escaped: does an odd run
    of backslashes, counted back to ``start``, end just before it? A quote after one or three
    backslashes is escaped; after two it ends its string."""
    if pos <= start or text[pos - 1] != "\\":
        return False  # the common case, answered without counting
    return backslashes_before(text, pos, start) % 2 == 1


def _cut_escape(text: str, start: int, end: int) -> int:
    """Where a lone backslash or a ``\\u`` with fewer than four hex digits ends ``text[:end]``,
    or -1."""
    k = text.rfind("\\", max(start, end - 5), end)
    if k < 0 or escaped_at(text, k, start):
        return -1
    if k == end - 1:
        return k
    if text[k + 1] != "u":
        return -1
    digits = text[k + 2 : end]
    return k if len(digits) < 4 and _HEX_DIGITS.issuperset(digits) else -1


def _high_surrogate_before(text: str, pos: int, start: int) -> int:
    """Where a complete high surrogate escape ending at ``pos`` starts, or -1."""
    h = pos - 6
    if (
        h >= start
        and text.startswith("\\u", h)
        and HEX4.fullmatch(text, h + 2, pos) is not None
        and is_high_surrogate(int(text[h + 2 : pos], 16))
        and not escaped_at(text, h, start)
    ):
        return h
    return -1


def unfinished_escape_start(text: str, end: int, start: int = 0) -> int:
    """Where an escape cut at the end of ``text[start:end]`` starts, or -1 when none is.

    Cut escapes are a lone backslash, ``\\u`` with fewer than four hex digits, and a high
    surrogate escape (``\\ud83d``) waiting for its low half, alone or followed by one of the
    others: the character it stands for is not known yet. A ``\\u`` followed by a non-hex
    character is finished (malformed whatever follows), so it is not cut.
    """
    if "\\" not in text[max(start, end - MAX_UNFINISHED_ESCAPE) : end]:
        return -1
    cut = _cut_escape(text, start, end)
    high = _high_surrogate_before(text, end if cut < 0 else cut, start)
    return high if high >= 0 else cut
