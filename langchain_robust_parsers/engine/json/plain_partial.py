"""Partial values of short, plain JSON streams read by jiter (``pydantic_core.from_json``).

Re-reading the whole text on every chunk is quadratic, but jiter reads about a hundred times
faster than the incremental decoder's Python scanner: for the first chunks of a stream
(:data:`SMALL_CHUNKS`, at most :data:`SMALL_MAX_SIZE` characters) the re-read costs less than
scanning the chunk would. Past that, or as soon as the text is not plain JSON (prose, a fence,
anything lenient), the caller hands the whole text to the incremental decoder once, which
costs what it would have cost from the start.

The values match the decoder's (LangChain's observable partial semantics): jiter's
``trailing-strings`` mode shows a string from its opening quote, leaves out unfinished literals
and keys without values; the one difference, a number cut after its ``.`` or exponent marker
(``1.`` reads as ``1``, where jiter drops it), is evened out by cutting that tail first.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic_core import from_json

SMALL_CHUNKS = 128
"""Chunks read by jiter before the stream moves to the incremental decoder. Re-reading ``n``
characters costs jiter about what the decoder spends on ``n / 90`` of them: over ``k`` chunks of
length ``c`` the re-reads cost about ``k / 180`` of the decoder's scan of those ``k * c``
characters, so up to about 180 chunks a document that ends there is read faster by jiter. One
that goes on pays the re-reads on top of the decoder's scan; 128 keeps that within a few
tenths of it (measured: ``benchmarks/stream_peers.py``)."""

SMALL_MAX_SIZE = 8192
"""Characters past which jiter no longer re-reads the text, whatever the chunk count: each
re-read stays within a few microseconds."""

JSON_WS = " \t\r\n"
"""The whitespace JSON allows around a value (a BOM or other space is for the lenient path)."""

_NUMBER_TAIL = re.compile(r"[0-9](?:\.|[eE][+-]?)\Z")
_ESCAPED_QUOTE = re.compile(r'\\+"')

NOT_PLAIN = object()
"""Returned when the text is not plain JSON (so far): the decoder takes over."""


def plain_start(text: str) -> bool | None:
    """Whether ``text`` starts a plain JSON container: None while it is only whitespace."""
    head = text.lstrip(JSON_WS)
    if not head:
        return None
    return head[0] in "{["


def _inside_string(text: str) -> bool:
    """True when strict JSON ``text`` ends inside a string: an odd count of unescaped quotes."""
    quotes = text.count('"')
    for m in _ESCAPED_QUOTE.finditer(text):
        if (m.end() - m.start() - 1) % 2:
            quotes -= 1
    return quotes % 2 == 1


def partial_value(text: str) -> Any:
    """The partial value of plain JSON ``text`` (which starts with ``{`` or ``[``), or
    :data:`NOT_PLAIN` when jiter rejects it."""
    m = _NUMBER_TAIL.search(text, max(0, len(text) - 3))
    if m is not None and not _inside_string(text):
        text = text[: m.start() + 1]  # `1.` and `1e-` read as `1`, as in the decoder
    try:
        return from_json(text, allow_partial="trailing-strings", allow_inf_nan=False)
    except (ValueError, TypeError):  # TypeError: a lone surrogate does not encode to UTF-8
        return NOT_PLAIN


def complete_value(text: str) -> Any:
    """The value of ``text`` when it is exactly one strict JSON container with whitespace
    around it, else :data:`NOT_PLAIN`."""
    if not plain_start(text):
        return NOT_PLAIN
    try:
        return from_json(text, allow_inf_nan=False)
    except (ValueError, TypeError):
        return NOT_PLAIN
