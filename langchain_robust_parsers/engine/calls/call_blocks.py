"""Where the call blocks of an answer are: dialect marker blocks and fenced blocks.

Offsets only; nothing is decoded here. A marker block runs to its closing tag (searched up to
the next marker of its own kind), else to the next marker that does not nest, else to the end
of the answer; a fence runs to its closing fence at the start of a line, else to the end.
"""

from __future__ import annotations

import functools
import json
import re
from typing import NamedTuple

from langchain_robust_parsers.engine.calls.dialect_registry import MARKERS, TOOL_CALL_MARKER, Marker
from langchain_robust_parsers.engine.json.several_values import clean_value_at
from langchain_robust_parsers.engine.lexicon.fences import Fence, find_fences as fenced_blocks
from langchain_robust_parsers.engine.lexicon.markers import (
    ANSWER_OPEN,
    END_TOKENS,
    SECTION_TOKENS,
    WRAPPER_TOKENS,
)
from langchain_robust_parsers.engine.lexicon.tags import skip_chars

__all__ = [
    "ALL_MARKERS",
    "MAX_BLOCKS",
    "MAX_FAILED_BLOCKS",
    "Block",
    "Fence",
    "close_is_data",
    "data_end",
    "find_fences",
    "has_wrappers",
    "in_region",
    "marker_blocks",
    "marker_pattern",
    "only_closers_missing",
    "open_value_closer",
    "skip_chars",
    "whole_sections",
    "widen",
]

MAX_BLOCKS = 1 << 17
"""Marker blocks read from one answer. Each block costs time in proportion to its own length
(its closing tag is searched only up to the next marker of its kind), so reading every block
is linear; the bound only caps the list of offsets kept for a pathological answer (a megabyte
of bare markers, 13 characters each, makes about 80,000) and is never reached by a real one."""

MAX_FAILED_BLOCKS = 256
"""Blocks that fail to decode before the rest are dropped unread: a failed block costs the
lenient repair path (hundreds of times a clean block), and an answer of thousands of broken
calls (``'<tool_call>{"name": ' * 20_000``) is hostile, not a model's."""


def marker_pattern(markers: tuple[Marker, ...]) -> re.Pattern[str]:
    """One pattern for the openers of ``markers``. Those starting with ``<`` share it as a
    prefix, so the regex engine tests the alternatives only where a ``<`` stands."""
    tagged: list[str] = []
    others: list[str] = []
    for m in markers:
        tag = m.open.startswith("<")
        body = re.escape(m.open[1:] if tag else m.open)
        part = ("(?i:" + body + ")") if m.ignore_case else body
        if m.follow:
            part += "(?=[" + re.escape(m.follow) + "])"
        (tagged if tag else others).append(part)
    if tagged:
        others.insert(0, "<(?:" + "|".join(tagged) + ")")
    return re.compile("|".join(others))


ALL_MARKERS = marker_pattern(MARKERS)
_RARE_OPENERS = (">>>",)
"""Openers that do not start with ``<`` or ``[`` and stand in few answers (Functionary's):
the common pattern leaves them out, so that every ``>`` of an XML answer costs no try, and
the full one is used only when the answer holds one."""
_COMMON_MARKERS = marker_pattern(tuple(m for m in MARKERS if m.open not in _RARE_OPENERS))


# ----------------------------------------------------------------------------- locating


class Block(NamedTuple):
    """One marker block (a named tuple: one is made for every call of an answer, and a tuple
    is built several times faster than a frozen dataclass)."""

    dialect: str
    start: int  # the marker
    body_start: int
    body_stop: int
    end: int  # after the closing tag, when there is one
    closed: bool = False  # ended by its closing tag


def in_region(pos: int, regions: list[tuple[int, int]]) -> int:
    """The end of the region holding ``pos``, or -1."""
    for a, b in regions:
        if a <= pos < b:
            return b
    return -1


def marker_hits(
    text: str, begin: int, skip: list[tuple[int, int]], markers: tuple[Marker, ...]
) -> list[tuple[int, int, Marker]]:
    if not markers:
        return []  # no marker to look for (the bare dialect); an empty pattern matches anywhere
    if markers == MARKERS:
        rare = any(opener in text for opener in _RARE_OPENERS)
        pattern = ALL_MARKERS if rare else _COMMON_MARKERS
    else:
        pattern = marker_pattern(markers)
    by_open = {m.open.lower(): m for m in markers}
    hits: list[tuple[int, int, Marker]] = []
    pos = begin
    region = 0  # `skip` is sorted and the search only moves forward: one pass over it
    while len(hits) < MAX_BLOCKS:
        m = pattern.search(text, pos)
        if m is None:
            break
        while region < len(skip) and skip[region][1] <= m.start():
            region += 1
        if region < len(skip) and skip[region][0] <= m.start():
            pos = skip[region][1]
            continue
        marker = by_open[m.group().lower()]
        hits.append((m.start(), m.start() if marker.from_marker else m.end(), marker))
        pos = m.end()
    return hits


def marker_blocks(
    text: str, begin: int, skip: list[tuple[int, int]], markers: tuple[Marker, ...]
) -> list[Block]:
    """The dialect blocks: each runs to its closing tag (searched up to the next marker of its
    own kind), else to the next marker that is not nested in blocks, else to the end."""
    hits = marker_hits(text, begin, skip, markers)
    same_after, outer_after = _next_limits(hits, len(text))
    blocks: list[Block] = []
    for i, (start, body, marker) in enumerate(hits):
        if blocks and blocks[-1].end > start:
            continue  # a marker inside the previous block
        same, other = same_after[i], outer_after[i]
        after_open = max(body, start + len(marker.open))
        stop = end = -1
        for close in marker.close:
            at = find_text(text, close, after_open, same, marker.ignore_case)
            if at >= 0 and (stop < 0 or at < stop):
                stop, end = at, at + len(close)
        stop, end = _close_past_data(text, marker, after_open, same, (stop, end))
        if stop < 0 and marker.close and same < len(text):
            # The next opener may sit inside a JSON string of this block's call
            # (`{"q": "a <tool_call> b"}`): look for the close after the JSON value.
            json_end = _json_end(text, after_open)
            brace = text.find("{", after_open, same)
            if json_end < 0 and brace >= 0:  # after a name: `name<｜tool▁sep｜>{..}`
                json_end = _json_end(text, brace)
            if json_end > same:
                stop, end = _closing(text, marker, json_end, _next_same(hits, i, json_end))
            if stop < 0 and json_end > same:
                # no closing tag (Mistral's is optional): the markers inside the value are
                # data all the same, and the block runs to the first marker after it
                stop = end = _next_hit_from(hits, i, json_end, len(text))
        if stop < 0 and marker.close and same < len(text):
            stop, end = _past_open_value(text, hits, i, after_open, same)
        if stop < 0:
            stop = end = min(same, other, next_hit(hits, i) if marker.nested else len(text))
        blocks.append(Block(marker.dialect, start, body, stop, end, end > stop))
    return blocks


def _past_open_value(
    text: str, hits: list[tuple[int, int, Marker]], i: int, body: int, same: int
) -> tuple[int, int]:
    """The closing tag of ``hits[i]``'s block when the next opener of its kind, at ``same``,
    is written inside a value element still open there (``<arg_value>wrap calls in
    <tool_call>..</arg_value>``): data when the value's own closing tag follows, and the block
    closes after it. ``(-1, -1)`` when it does not."""
    closer = open_value_closer(text, body, same)
    if closer is None:
        return -1, -1
    value_end = text.find(closer, same)
    if value_end < 0:
        return -1, -1
    marker = hits[i][2]
    limit = _next_same(hits, i, value_end)
    first = _closing(text, marker, value_end, limit)
    return _close_past_data(text, marker, value_end, limit, first)


def _close_past_data(
    text: str, marker: Marker, start: int, limit: int, close: tuple[int, int]
) -> tuple[int, int]:
    """The first closing tag from ``close`` on (``(stop, end)``, or ``(-1, -1)``) that is not
    written as data inside a value opened after ``start``."""
    stop, end = close
    resume = start
    seen: dict[str, int] = {}
    while stop >= 0:
        resume = data_end(text, start, stop, limit, resume)
        if resume < 0:
            break
        stop, end = _closing(text, marker, resume, limit, seen)
    return stop, end


def _next_hit_from(hits: list[tuple[int, int, Marker]], i: int, pos: int, n: int) -> int:
    """Where the first marker after ``hits[i]`` at or after ``pos`` starts (``n`` when none)."""
    for j in range(i + 1, len(hits)):
        if hits[j][0] >= pos:
            return hits[j][0]
    return n


def _closing(
    text: str, marker: Marker, a: int, b: int, seen: dict[str, int] | None = None
) -> tuple[int, int]:
    """The first closing tag of ``marker`` in ``text[a:b]``: its start and end, or (-1, -1).
    ``seen`` keeps what earlier searches with the same ``b`` and a smaller ``a`` found, so that
    a spelling absent from the rest of the text is not searched for again."""
    stop = end = -1
    for close in marker.close:
        known = None if seen is None else seen.get(close)
        if known is not None and (known < 0 or known >= a):
            at = known
        else:
            at = find_text(text, close, a, b, marker.ignore_case)
            if seen is not None:
                seen[close] = at
        if at >= 0 and (stop < 0 or at < stop):
            stop, end = at, at + len(close)
    return stop, end


VALUE_ELEMENTS = (
    ("<parameter", "</parameter>"),
    ("<arg_value>", "</arg_value>"),
    ("<｜DSML｜parameter", "</｜DSML｜parameter>"),
    ("<｜DSML｜ parameter", "</｜DSML｜ parameter>"),
)
"""Value elements of the markup dialects (Qwen3-Coder, MiniMax, GLM, DeepSeek's DSML, spaced
in V4.1): a block's closing tag or opener written while one is open is part of its value when
the value's own closing tag follows."""


def close_is_data(text: str, a: int, stop: int, limit: int) -> bool:
    """Is the closing tag at ``stop`` of the block body starting at ``a`` data inside one of
    its values? Yes when a JSON object that opens before it reads through past it (it sits in
    a string), or when a value element is open at it and that element's closing tag comes
    after it, before ``limit`` (the next marker of the kind)."""
    return data_end(text, a, stop, limit) >= 0


def data_end(text: str, a: int, stop: int, limit: int, values_from: int = -1) -> int:
    """Where the value holding the closing tag at ``stop`` ends (see `close_is_data`), or -1
    when the tag is no data. Value elements are looked for from ``values_from`` when given
    (the end of the last such value: none is open there), so that a scan over many closing
    tags written as data does not go back to ``a`` for each."""
    brace = text.find("{", a, stop)
    if brace >= 0:
        found = clean_value_at(text, brace)  # windowed, as `_json_end`
        if found is not None and found[1] > stop:
            return found[1]
    closer = open_value_closer(text, max(a, values_from), stop)
    if closer is None:
        return -1
    at = text.find(closer, stop, limit)
    return -1 if at < 0 else at + len(closer)


STRING_QUOTES = ('<|"|>',)
"""Gemma 4's string quote token, which opens and closes a string alike: a marker between an
odd number of them is inside a string."""


def open_value_closer(text: str, a: int, stop: int) -> str | None:
    """The closing tag of the value element open at ``stop`` in the body starting at ``a``
    (``</parameter>``..., or the quote token of a string left open), or ``None`` when none is
    open there."""
    for quote in STRING_QUOTES:
        if text.count(quote, a, stop) % 2:
            return quote
    for opener, closer in VALUE_ELEMENTS:
        last_open = text.rfind(opener, a, stop)
        if last_open >= 0 and text.rfind(closer, last_open, stop) < 0:
            return closer
    return None


def _json_end(text: str, pos: int) -> int:
    """Where the JSON value that a block body opens with ends (C decoder), or -1."""
    pos = skip_chars(text, pos, len(text))
    if pos >= len(text) or text[pos] not in "{[":
        return -1
    # Windowed: the decoder's error counts the lines before its position, which from the start
    # of a long text costs the whole text per block (quadratic over an answer of many blocks).
    found = clean_value_at(text, pos)
    return -1 if found is None else found[1]


def _next_same(hits: list[tuple[int, int, Marker]], i: int, pos: int) -> int:
    """Where the first opener like ``hits[i]``'s at or after ``pos`` starts (the text's end
    when none)."""
    opener = hits[i][2].open
    for j in range(i + 1, len(hits)):  # no slice: a copy of the rest costs every block
        start, _body, marker = hits[j]
        if start >= pos and marker.open == opener:
            return start
    return 1 << 62


def _next_limits(hits: list[tuple[int, int, Marker]], n: int) -> tuple[list[int], list[int]]:
    """For each hit: where the next hit of the same opener starts, and the next hit that does
    not nest (``n`` when none); one pass from the end."""
    same_after = [n] * len(hits)
    outer_after = [n] * len(hits)
    seen: dict[str, int] = {}
    outer = n
    for i in range(len(hits) - 1, -1, -1):
        start, _body, marker = hits[i]
        same_after[i] = seen.get(marker.open, n)
        outer_after[i] = outer
        seen[marker.open] = start
        if not marker.nested:
            outer = start
    return same_after, outer_after


def next_hit(hits: list[tuple[int, int, Marker]], i: int) -> int:
    return hits[i + 1][0] if i + 1 < len(hits) else 1 << 62


@functools.lru_cache(maxsize=64)
def caseless(needle: str) -> re.Pattern[str]:
    return re.compile(re.escape(needle), re.I)


def find_text(text: str, needle: str, a: int, b: int, ignore_case: bool) -> int:
    if not ignore_case:
        return text.find(needle, a, b)
    m = caseless(needle).search(text, a, b)
    return -1 if m is None else m.start()


def find_fences(text: str, begin: int, skip: list[tuple[int, int]]) -> list[Fence]:
    """Fenced blocks (any language tag or none, closed or not), outside reasoning."""
    return list(fenced_blocks(text, begin, skip))


def has_wrappers(text: str, pos: int = 0, endpos: int | None = None) -> bool:
    """Does ``text[pos:endpos]`` hold any wrapper token? One C-speed scan an answer, so that
    answers without them (most) skip `widen` for every block."""
    end = len(text) if endpos is None else endpos
    return _WRAPPERS.search(text, pos, end) is not None


def _by_lead(tokens: tuple[str, ...]) -> str:
    """An alternation of ``tokens`` grouped by their first two characters: the regex engine
    then tests one branch, not every token, at each ``<`` of the text."""
    groups: dict[str, list[str]] = {}
    for token in tokens:
        groups.setdefault(token[:2], []).append(re.escape(token[2:]))
    return "|".join(re.escape(lead) + "(?:" + "|".join(rest) + ")" for lead, rest in groups.items())


_ORPHAN_CLOSERS = TOOL_CALL_MARKER.close
"""``<tool_call>``'s closing tag right after a block: Qwen3-Coder models leave out the opener
around their ``<function=..>`` element (``<function=f>..</function>\n</tool_call>``), and the
closer they still write goes with the call text."""
_AFTER_BLOCK = WRAPPER_TOKENS + END_TOKENS + _ORPHAN_CLOSERS
"""Tokens that may follow a block and go with it: outer markers, end-of-turn tokens and an
orphan closing tag."""
_WRAPPERS = re.compile(_by_lead(_AFTER_BLOCK))
_BEFORE_BLOCK = tuple(t for t in WRAPPER_TOKENS if t != "</answer>")
"""Tokens that may stand right before a block and go with it (an answer section that closed
before the block is the answer's own text)."""


def widen(text: str, a: int, b: int) -> tuple[int, int]:
    """Extend a block's span over adjacent wrapper tokens (DeepSeek's outer markers) and an
    end-of-turn token after it."""
    changed = True
    while changed:
        changed = False
        s = a
        while s > 0 and text[s - 1] in " \t\r\n":
            s -= 1
        # every wrapper token ends with `>`; one tuple test before finding which one
        if s > 0 and text[s - 1] == ">" and text.endswith(_BEFORE_BLOCK, 0, s):
            for token in _BEFORE_BLOCK:
                if text.endswith(token, 0, s):
                    a, changed = s - len(token), True
                    if token == ANSWER_OPEN:  # the server's content ends before its line
                        while a > 0 and text[a - 1] in " \t\r\n":
                            a -= 1
                    break
        e = skip_chars(text, b, len(text))
        if text.startswith(_AFTER_BLOCK, e):
            for token in _AFTER_BLOCK:
                if text.startswith(token, e):
                    b, changed = e + len(token), True
                    break
    return a, b


_SECTION_TOKEN = re.compile("|".join(re.escape(t) for pair in SECTION_TOKENS for t in pair))
_SECTION_CLOSE = dict(SECTION_TOKENS)


def _sections(text: str) -> list[tuple[int, int]]:
    """Each call section of ``text``: from its opening token to the end of its closing one."""
    found: list[tuple[int, int]] = []
    opened: tuple[int, str] | None = None
    for m in _SECTION_TOKEN.finditer(text):
        token = m.group()
        if token in _SECTION_CLOSE:
            opened = (m.start(), _SECTION_CLOSE[token])
        elif opened is not None and token == opened[1]:
            found.append((opened[0], m.end()))
            opened = None
    return found


def whole_sections(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` (in order) with every call section that holds one taken whole: text a model
    wrote between a section's tokens and its calls (``<|tool_calls_section_begin|> noise
    <|tool_call_begin|>..``) is call text, as the templates write only calls there."""
    out: list[tuple[int, int]] = []
    i = 0
    for start, end in _sections(text):
        while i < len(spans) and spans[i][0] < start:
            out.append(spans[i])
            i += 1
        j = i
        while j < len(spans) and spans[j][0] < end:
            j += 1
        if j > i:
            out.append((start, max(end, spans[j - 1][1])))
            i = j
    out.extend(spans[i:])
    return out


def only_closers_missing(text: str, start: int, end: int) -> bool:
    """``text[start:end]`` is strict JSON but for its last closing brackets, never written: in a
    block whose end marker was written, the model ended the call and only forgot the braces, so
    the call is repaired, not cut off. Anything else unfinished or broken does not qualify."""
    closers: list[str] = []
    in_string = escaped = False
    for c in text[start:end]:
        if in_string:
            escaped, in_string = (False, True) if escaped else (c == "\\", c != '"')
        elif c == '"':
            in_string = True
        elif c in "{[":
            closers.append("}" if c == "{" else "]")
        elif c in "}]" and closers and closers[-1] == c:
            closers.pop()
    if in_string or not closers:
        return False
    try:
        json.loads(text[start:end] + "".join(reversed(closers)))
    except ValueError:
        return False
    return True
