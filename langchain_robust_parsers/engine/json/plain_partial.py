"""Partial values of short, plain JSON streams read by jiter (``pydantic_core.from_json``).

Re-reading the whole text on every chunk is quadratic, but jiter reads about forty times faster
than the incremental decoder's Python scanner, whose fixed cost per chunk is about that of one
jiter call: for the first chunks of a stream the re-read costs less than scanning the chunk
would. `HandOver` keeps the account; once the re-reads, plus the decoder's catching up,
would cost more than the decoder alone (or as soon as the text is not plain JSON: prose, a
fence, anything lenient), the caller hands the whole text to the incremental decoder once. A
stream that goes on therefore costs about what the decoder alone costs, and one that ends
early costs less.

The values match the decoder's (LangChain's observable partial semantics): jiter's
``trailing-strings`` mode shows a string from its opening quote and leaves out keys without
values; the two differences are evened out on the text first: a number cut after its ``.`` or
exponent marker (``1.`` reads as ``1``, where jiter drops it) loses that tail, and a literal cut
where its completion is unique (``["a", tr``, where jiter drops it) is spelled out.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic_core import from_json

from langchain_robust_parsers.engine.json.cut_literals import LITERAL_TAILS
from langchain_robust_parsers.engine.lexicon.reasoning import THINK_OPEN, may_become_opener

# Costs in units of one character re-read by jiter (about 2.9 ns), measured on records
# documents (benchmarks/stream_bench.py) in 4-, 32- and 64-character chunks.
REREAD_CALL_COST = 190
"""A jiter re-read's fixed cost: the call, the text joined and checked, the value compared with
the last one (about 0.55 µs)."""

DECODER_CHUNK_COST = 380
"""The incremental decoder's fixed cost per chunk, its snapshot included (about 1.1 µs)."""

DECODER_CHAR_COST = 34
"""The incremental decoder's cost per character of a chunk (about 0.1 µs)."""

DECODER_BULK_CHAR_COST = 24
"""The decoder's cost per character when it reads the whole text at once at the hand-over
(about 70 ns). The re-reads then pay for about the first 30 chunks of 32 characters (1 KB) or
the first 110 of 4 (0.45 KB), and a document that ends there streams up to twice as fast."""

SMALL_MAX_SIZE = 8192
"""Characters past which jiter no longer re-reads the text, whatever the account says: each
re-read stays within a few tens of microseconds."""

JSON_WS = " \t\r\n"
"""The whitespace JSON allows around a value (a BOM or other space is for the lenient path)."""

_NUMBER_TAIL = re.compile(r"[0-9](?:\.|[eE][+-]?)\Z")
_ESCAPED_QUOTE = re.compile(r'\\+"')
_NUMBER_ENDS = frozenset(".eE+-")  # what a number cut after its `.` or exponent marker ends with

NOT_PLAIN = object()
"""Returned when the text is not plain JSON (so far): the decoder takes over."""

ESCAPE_TAIL_SIZE = 12
"""Characters at the end of a text that can hold an escape cut off (``\\ud83d\\ude``)."""


def _keeps_strings_cut_in_escapes() -> bool:
    """Whether this pydantic-core's partial mode keeps a string cut inside an escape, as the
    decoder does (``["x \\`` reads as ``["x "]``); older releases (pydantic 2.9's) drop the
    whole string, so such a text is left to the decoder."""
    return bool(from_json('["x \\', allow_partial="trailing-strings") == ["x "])


CUT_ESCAPES_KEPT = _keeps_strings_cut_in_escapes()


class HandOver:
    """The account of a stream read by jiter: what its re-reads cost so far, against what the
    incremental decoder would have cost for the same chunks."""

    __slots__ = ("decoder", "reread")

    def __init__(self) -> None:
        self.reread = 0
        self.decoder = 0

    def reread_pays(self, size: int, chunk: int) -> bool:
        """Whether jiter should re-read the text, now ``size`` characters after a chunk of
        ``chunk``: True while the re-reads, this one and the decoder's catching up on the whole
        text included, cost no more than the decoder would have for the same chunks."""
        self.reread += REREAD_CALL_COST + size
        self.decoder += DECODER_CHUNK_COST + DECODER_CHAR_COST * chunk
        return (
            size <= SMALL_MAX_SIZE and self.reread + DECODER_BULK_CHAR_COST * size <= self.decoder
        )


def plain_start(text: str) -> bool | None:
    """Whether ``text`` starts a plain JSON container: None while it is only whitespace, or a
    ``[`` that may still become a ``[THINK]`` reasoning opener."""
    head = text if text[:1] in ("{", "[") else text.lstrip(JSON_WS)
    if not head:
        return None
    if head[0] == "[" and head[1:2] in ("", "T", "t"):
        if THINK_OPEN.match(head) is not None:
            return False
        if may_become_opener(head, 0):
            return None
    return head[0] in "{["


def _inside_string(text: str) -> bool:
    """True when strict JSON ``text`` ends inside a string: an odd count of unescaped quotes."""
    quotes = text.count('"')
    for m in _ESCAPED_QUOTE.finditer(text):
        if (m.end() - m.start() - 1) % 2:
            quotes -= 1
    return quotes % 2 == 1


_LITERAL_LETTERS = "".join(sorted(set("".join(LITERAL_TAILS))))  # the letters of a cut literal
_CUT_ENDS = frozenset(word[-1] for word in LITERAL_TAILS)  # t, r, u, a, l, s: the only last letters
_CUT_SPAN = max(map(len, LITERAL_TAILS)) + 1  # a cut literal and the character before it
_VALUE_OPENERS = frozenset("[,:")  # what comes before a value, whitespace aside
CUT_LITERAL_WINDOW = 64
"""Characters of whitespace looked through, back from a cut literal, for what precedes it."""


def _cut_word(text: str) -> str:
    """The run of a literal's letters at the end of ``text`` (at most `_CUT_SPAN`), read
    in C: most texts that end in a letter end in a word of a string."""
    end = text[-_CUT_SPAN:]
    return end[len(end.rstrip(_LITERAL_LETTERS)) :]


def _complete_cut_literal(text: str, word: str) -> str:
    """``text``, ending in the cut literal ``word``, with it spelled out when it starts a value
    (``["a", tr`` reads as ``["a", true``, as in the decoder; see ``cut_literals``)."""
    tail = LITERAL_TAILS[word]
    before = len(text) - len(word) - 1
    stop = max(0, before - CUT_LITERAL_WINDOW)
    while before >= stop and text[before] in JSON_WS:
        before -= 1
    if before < 0 or text[before] not in _VALUE_OPENERS or _inside_string(text):
        return text
    # A join, not `+`: a stream's first text is a str subclass that refuses `+` (it is traced).
    return "".join((text, tail))


def partial_value(text: str) -> Any:
    """The partial value of plain JSON ``text`` (which starts with ``{`` or ``[``), or
    `NOT_PLAIN` when jiter rejects it."""
    if not CUT_ESCAPES_KEPT and "\\" in text[-ESCAPE_TAIL_SIZE:]:
        return NOT_PLAIN
    last = text[-1:]
    m = _NUMBER_TAIL.search(text, max(0, len(text) - 3)) if last in _NUMBER_ENDS else None
    if m is not None and not _inside_string(text):
        text = text[: m.start() + 1]  # `1.` and `1e-` read as `1`, as in the decoder
    elif last in _CUT_ENDS and (word := _cut_word(text)) in LITERAL_TAILS:
        text = _complete_cut_literal(text, word)
    try:
        return from_json(text, allow_partial="trailing-strings", allow_inf_nan=False)
    except (ValueError, TypeError):  # TypeError: a lone surrogate does not encode to UTF-8
        return NOT_PLAIN


def complete_value(text: str) -> Any:
    """The value of ``text`` when it is exactly one strict JSON container with whitespace
    around it, else `NOT_PLAIN`."""
    if not plain_start(text):
        return NOT_PLAIN
    try:
        return from_json(text, allow_inf_nan=False)
    except (ValueError, TypeError):
        return NOT_PLAIN
