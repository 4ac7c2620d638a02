"""Bare scalars for the lenient scanner: numbers in the forms models write, literals, and unquoted
words or phrases used as string values.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_robust_parsers.engine.json.numbers import LONG_NUMBER, number_value
from langchain_robust_parsers.engine.json.scan_lexicon import (
    _DANGLING_EXPONENT,
    _DELIMITERS,
    _JSON_NUMBER,
    _LOOSE_NUMBER,
    _OBJ,
    _Frame,
    _looks_like_member_start,
    _next_significant,
)
from langchain_robust_parsers.engine.repair_log import RepairLog

_HEX_NUMBER = re.compile(r"[-+]?0[xX][0-9a-fA-F]+")
_THOUSANDS_GROUP = re.compile(r",[0-9]{3}")
_FRACTION = re.compile(r"\.[0-9]+")
_DECIMAL_COMMA = re.compile(r",[0-9](?:[0-9]|,(?=[0-9]))*")


def _is_bare_end(src: str, stop: int, end: int) -> bool:
    """True when a bare token ending at ``stop`` is followed by a delimiter or the end."""
    return stop >= end or src[stop] in _DELIMITERS or src[stop] in "\"'"


def _thousands(src: str, stop: int, end: int, *, in_object: bool) -> int:
    """Where ``1,000,000`` ends when the digits before ``stop`` open a thousands-separated
    number, else ``stop``. In a list ``[1,500]`` is two items, so a group must start with 0
    (``000`` is no JSON number); after a key a comma and three digits cannot start a member."""
    p = stop
    while True:
        m = _THOUSANDS_GROUP.match(src, p, end)
        if m is None or (m.end() < end and src[m.end()].isdigit()):
            return p
        if not in_object and src[p + 1] != "0":
            return p
        p = m.end()


def _scan_number(
    src: str, pos: int, end: int, log: RepairLog, *, in_object: bool = False
) -> tuple[Any, int, bool] | None:
    """A number at ``pos``: ``(value, end, cut_off)`` or ``None`` if it is not one.

    ``cut_off`` marks a number the end of the text interrupted: its value is the digits so far
    (``2.`` gives 2, as LangChain's partial parser does), or ``None`` for a lone sign.
    """
    m = _JSON_NUMBER.match(src, pos, end)
    if m is not None and m.end() > pos and src[m.end() - 1].isdigit():
        stop = m.end()
        if "." not in m.group() and "e" not in m.group().lower():
            grouped = _thousands(src, stop, end, in_object=in_object)
            fraction = _FRACTION.match(src, grouped, end) if grouped > stop else None
            if fraction is None and grouped > stop and grouped + 1 == end and src[grouped] == ".":
                # `1,299.` cut off: the digits so far, as for `2.`
                log.add("thousands_separator", pos)
                return _number_value(src[pos:grouped].replace(",", ""), end, log, pos)[0], end, True
            grouped = fraction.end() if fraction is not None else grouped
            if grouped > stop and _is_bare_end(src, grouped, end):
                log.add("thousands_separator", pos)
                return _number_value(src[pos:grouped].replace(",", ""), grouped, log, pos)
            comma = _DECIMAL_COMMA.match(src, stop, end) if in_object else None
            if comma is not None and _is_bare_end(src, comma.end(), end):
                after = _next_significant(src, comma.end(), end)
                if after >= end or src[after] != ":":
                    # `{"price": 105,12}`: a decimal comma (a number key would take a colon);
                    # kept as written, since reading 105 would drop the 12.
                    log.add("number_format", pos)
                    return src[pos : comma.end()], comma.end(), False
        if _is_bare_end(src, stop, end):
            return _number_value(m.group(), stop, log, pos)
    h = _HEX_NUMBER.match(src, pos, end)
    if h is not None and _is_bare_end(src, h.end(), end):
        log.add("hex_number", pos)
        return int(h.group(), 16), h.end(), False
    m = _LOOSE_NUMBER.match(src, pos, end)
    if m is None or m.end() == pos:
        if src[pos] in "-+" and pos + 1 >= end:
            return None, end, True  # a lone sign at the end: an unfinished number
        return None
    stop = m.end()
    text = m.group()
    if not _is_bare_end(src, stop, end):
        return None
    if stop >= end and text[-1] in ".eE+-":
        digits = text.rstrip(".eE+-")
        if not any(ch.isdigit() for ch in digits):
            return None, end, True
        return _number_value(digits.lstrip("+"), end, log, pos)[0], end, True
    digits = text.lstrip("+-")
    if len(digits) > 1 and digits[0] == "0" and digits[1].isdigit() and "." not in digits:
        # `0789`: a zip code or an id; as a number it would lose its leading zero.
        log.add("leading_zero", pos)
        return text, stop, False
    cleaned = _DANGLING_EXPONENT.sub("", text.replace("_", "").lstrip("+"))
    try:
        value, long = number_value(cleaned)
    except ValueError:
        return None
    log.add("number_format", pos)
    if long:
        log.add(LONG_NUMBER, pos)
    return value, stop, False


def _number_value(text: str, stop: int, log: RepairLog, pos: int) -> tuple[Any, int, bool]:
    """The number ``text`` (ending at ``stop``); an integer past the interpreter's conversion
    limit is kept as its digits, with the ``long_number`` repair at ``pos``."""
    value, long = number_value(text)
    if long:
        log.add(LONG_NUMBER, pos)
    return value, stop, False


UNQUOTED_QUOTE_REACH = 1024
"""Characters searched for the closing quote of a bare value whose opening quote is missing
(``abc",``). Past it the value ends at its separator: without the bound, every bare value on one
long line would search the rest of the line, quadratic in the line's length."""

_BARE_RUN = {
    ",}]": re.compile(r'[^,}\]{\["\n]*'),
    ",})]": re.compile(r'[^,})\]{\["\n]*'),
}
"""Characters of a bare value up to the next one that may end it (a separator, a quote, a
bracket, a line break), consumed at C speed."""


_NOT_PHRASE = frozenset("}],\"'{[#/`")
"""Characters that cannot continue an unquoted phrase after a comma or a line break."""


def _line_value_end(src: str, pos: int, end: int, stops: str) -> int:
    """Where a bare value starting at ``pos`` ends on its line: at a separator, a quote or the
    line break; brackets it opens (``words{in brackets}``) stay inside. The line's end is found
    by this scan, not searched for first: a search per value would read a long line once for
    every bare value on it."""
    run = _BARE_RUN[stops]
    depth = 0
    i = pos
    while True:
        i = run.match(src, i, end).end()  # type: ignore[union-attr]
        if i >= end:
            return end
        ch = src[i]
        if ch == "\n":
            return i
        if ch in "{[":
            depth += 1
        elif ch in "}]" and depth:
            depth -= 1
        elif ch in stops or ch == '"':
            return i
        i += 1


def _unquoted_value(src: str, pos: int, end: int, frame: _Frame) -> tuple[str, int]:
    """A bare word or phrase used as a string value.

    It ends at a quote followed by a separator (the opening quote was missing: ``abc",``), else
    at the next separator; in an object it runs on over the following lines (an unquoted
    paragraph) until a line starts a member or closes the object.
    """
    quote = src.find('"', pos, min(end, pos + UNQUOTED_QUOTE_REACH))
    if quote > pos and src.find("\n", pos, quote) < 0:
        after = _next_significant(src, quote + 1, end)
        if after >= end or src[after] in ",}]":
            return src[pos:quote].strip(), quote + 1
    stops = ",}]" if frame.closer != ")" else ",})]"
    i = _line_value_end(src, pos, end, stops)
    while i < end and src[i] in "\n," and frame.kind == _OBJ:
        nxt = _next_significant(src, i + 1, end)
        if (
            nxt >= end
            or src[nxt] in _NOT_PHRASE
            or src.startswith("//", nxt)
            or _looks_like_member_start(src, nxt, end)
        ):
            break
        j = _line_value_end(src, nxt, end, stops)
        if src[i] == "," and j < end and src[j] == '"':
            # A comma followed by words that run to the end of their line is the phrase's own
            # (`Paris, France`); words that stop at a quote on that line are stray text.
            break
        i = j
    return src[pos:i].strip(), i


_CONSTRUCTOR = re.compile(r"(?:new[ \t]+)?[A-Z][A-Za-z0-9_]*\(")


def constructor_argument(src: str, pos: int, end: int, log: RepairLog) -> tuple[Any, int] | None:
    """``ObjectId("x")``, ``ISODate("...")``, ``NumberLong(1)``, ``new Date(5)``: a Mongo shell or
    JavaScript constructor around one literal reads as that literal; ``(value, end)`` or
    ``None`` when the text at ``pos`` is not such a call."""
    m = _CONSTRUCTOR.match(src, pos, end)
    if m is None:
        return None
    p = _next_significant(src, m.end(), end)
    value: Any = None
    if p < end and src[p] in "\"'":
        q = src.find(src[p], p + 1, end)
        if q < 0:
            return None
        value, p = src[p + 1 : q], _next_significant(src, q + 1, end)
    elif p < end and src[p] != ")":
        got = _scan_number(src, p, end, RepairLog())
        if got is None or got[2]:
            return None
        value, p = got[0], _next_significant(src, got[1], end)
    if p >= end or src[p] != ")":
        return None
    log.add("js_constructor", pos)
    return value, p + 1
