"""Every top-level JSON value of an answer, for answers that hold more than one: JSON Lines,
``{..}\\n{..}``, several fenced blocks, values between sentences of prose.

A parser returns one value (the best candidate) and names the others in its report, or, when
its target is a list, returns them all. Both read the same set, so the values a list target
gets are exactly the one returned otherwise plus those the report names as dropped.

The answer's values are the candidates of the kind the best one is: fenced blocks when the
answer is fenced (prose around fences is commentary), tagged blocks when it is tagged, else the
text and the values in its prose; plus the values written right after each of them (JSON Lines
inside a fence), in the order of the text. They are of the best one's shape (objects with an
object, arrays with an array): a citation ``[1]`` after an object is prose, not a record.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from langchain_robust_parsers.engine.json.decode import MAX_DROPPED_VALUES
from langchain_robust_parsers.engine.json.scan_containers import WINDOW_CUT_SLACK
from langchain_robust_parsers.engine.json.scan_lexicon import LenientError
from langchain_robust_parsers.engine.lexicon.fences import FENCE_MARKS
from langchain_robust_parsers.engine.repair_log import RepairLog
from langchain_robust_parsers.engine.report import ParseReport, Source

__all__ = [
    "TopValue",
    "candidates_for_list",
    "clean_value_at",
    "gather_values",
    "is_alone",
    "join_values",
    "with_dropped_values",
]

_STRICT = json.JSONDecoder(strict=True)

PROSE_SCAN_BUDGET = 4
"""The search for values in the prose after a value that opens the text may read at most this
many times that prose: each bracket costs the C decoder the distance to its first error, and
prose full of ``[1]`` or ``{name}`` must stay linear (as the engine's own span search does)."""

ATTEMPT_COST = 16
"""Characters charged for each bracket tried, besides what the decoder read: the Python work
around one attempt."""

FIRST_WINDOW = 1_024
"""First slice of the prose offered to the C decoder for one value; doubled while the value
runs past it. A slice, not the whole text: the decoder's error counts the lines before its
position, which from the start of a long text would cost the whole text per bracket."""

_OBJECT_OPENS = r'\{[ \t\n\r]*["}]'
"""A ``{`` the C decoder can read an object from: before a key or ``}``."""
_ARRAY_BODY = r'[ \t\n\r]*[-0-9"{\[\]tfnNI]'
"""What follows a ``[`` the C decoder can read an array from: a value (``NaN`` and
``Infinity`` included, as the decoder takes them) or ``]``."""
_NOT_FLAT = r'(?![^\[\]{}"]*\])'
"""After a ``[``: not a flat group (``[1]``, ``[see below]``: no quote, brace or bracket before
its ``]``). A flat group holds no other bracket, so whether or not it is an array, the search
goes on after it."""

_MAY_OPEN_VALUE: dict[type, re.Pattern[str]] = {
    list: re.compile(f"{_OBJECT_OPENS}|\\[{_ARRAY_BODY}"),
    dict: re.compile(f"{_OBJECT_OPENS}|\\[{_NOT_FLAT}{_ARRAY_BODY}"),
}
"""Where the search for values of a shape tries the decoder. Every other bracket fails at once
or opens a flat array (never an object, nor holding one): passing over them in C spares a
raised ``JSONDecodeError`` or a decoded list per ``{name}`` or ``[1]`` of a long explanation."""

_OBJECT_START = re.compile(_OBJECT_OPENS)
"""Prose without such a ``{`` holds no object; this search (a literal first character) reads it
several times faster than `_MAY_OPEN_VALUE`."""

PASSED_BRACKET_COST = ATTEMPT_COST + 1
"""Budget charged for a bracket the search passes over: about what trying it would have
charged (the attempt and an error one character in), so the budget ends the search where
trying every bracket would."""


_KIND: dict[Source, str] = {
    "fenced": "fenced",
    "tagged": "tagged",
    "whole": "text",
    "span": "text",
    "labels": "labels",
}
"""Candidates of one kind belong to one answer: the whole text and the spans of its prose are
read together (``{..}`` then a sentence then ``{..}``), fences and tags each apart."""


@dataclass(frozen=True)
class TopValue:
    """One top-level value of the answer and the report of how it was read."""

    value: Any
    report: ParseReport


def _shape(value: Any) -> type:
    """What kind of value ``value`` is: the values of one answer are of one shape (objects with
    objects, arrays with arrays), so a citation ``[1]`` in prose is not a record."""
    return dict if isinstance(value, dict) else list if isinstance(value, list) else object


def _overlaps(report: ParseReport, taken: Iterable[TopValue]) -> bool:
    """True when ``report``'s payload shares text with one already taken."""
    end = max(report.end, report.start + 1)
    return any(
        report.start < max(t.report.end, t.report.start + 1) and t.report.start < end for t in taken
    )


def _values_following(text: str, first: TopValue, stop: int) -> Iterator[TopValue]:
    """The values written right after ``first`` (separated by space or commas) before
    ``stop``: the further lines of JSON Lines, ``[..], [..]``. Prose ends them."""
    from langchain_robust_parsers.engine.json.lenient import scan_value

    pos = first.report.end
    while True:
        p = pos
        while p < stop and (text[p].isspace() or text[p] == ","):
            p += 1
        if p >= stop or text[p] not in "{[":
            return
        log = RepairLog()
        try:
            value, end = _STRICT.raw_decode(text, p)  # no copy of the rest per value
            if end > stop:
                raise ValueError("past the next value")
        except (ValueError, RecursionError):
            try:
                value, end = scan_value(text, p, stop, log, at_text_end=stop == len(text))
            except LenientError:
                return
        report = ParseReport(first.report.source, p, end, tuple(log.repairs), log.truncated)
        yield TopValue(value, report)
        pos = max(end, p + 1)


def clean_value_at(text: str, pos: int) -> tuple[Any, int, int] | None:
    """The well-formed JSON value at ``pos`` as ``(value, end, cost)``, or ``None`` with the
    cost in place of the end: ``(None, -1, cost)`` when it is not one; ``None`` when it nests
    deeper than the C decoder goes. Read through windows of the text (see `FIRST_WINDOW`), so
    that trying many positions of a long text stays linear."""
    window = FIRST_WINDOW
    cost = ATTEMPT_COST
    while True:
        stop = min(len(text), pos + window)
        try:
            value, end = _STRICT.raw_decode(text[pos:stop])
        except RecursionError:
            return None  # deeper than the C decoder goes: no clean value here or after
        except ValueError as err:
            at = getattr(err, "pos", 0)
            cut = at >= stop - pos - WINDOW_CUT_SLACK or str(err).startswith("Unterminated")
            if stop < len(text) and cut:
                cost += stop - pos
                window *= 2
                continue
            return None, -1, cost + at
        return value, pos + end, cost + end


def _brackets(text: str, start: int, end: int) -> int:
    """How many ``{`` and ``[`` ``text[start:end]`` holds."""
    return text.count("{", start, end) + text.count("[", start, end)


def _clean_values_after(text: str, first: TopValue, limit: int | None) -> Iterator[TopValue]:
    """The well-formed values in the prose after ``first`` (a value that opens the text), of
    its shape, within `PROSE_SCAN_BUDGET`; at most ``limit`` of them."""
    pos = first.report.end
    budget = PROSE_SCAN_BUDGET * (len(text) - pos + 1)
    shape = _shape(first.value)
    may_open = _MAY_OPEN_VALUE.get(shape)
    if may_open is None:
        return  # a scalar: the values in prose (objects, arrays) are never of its shape
    if shape is dict and _OBJECT_START.search(text, pos) is None:
        return
    found = 0
    while budget > 0 and (limit is None or found < limit):
        m = may_open.search(text, pos)
        if m is None:
            return
        budget -= PASSED_BRACKET_COST * _brackets(text, pos, m.start())
        if budget <= 0:
            return
        got = clean_value_at(text, m.start())
        if got is None:
            return
        value, end, cost = got
        budget -= cost
        if end < 0:
            pos = m.start() + 1
            continue
        if _shape(value) is shape:
            found += 1
            yield TopValue(value, ParseReport("span", m.start(), end))
        pos = end


def _another_fence(text: str, report: ParseReport) -> bool:
    """Whether a fenced payload's text has a fence besides its own two runs; without one, no
    other candidate of its kind exists, and ranking the rest would read the prose for nothing."""
    start, end = report.start, report.end
    before = sum(text.count(mark, 0, start) for mark in FENCE_MARKS)
    return before > 1 or before + sum(text.count(mark, end) for mark in FENCE_MARKS) > 2


def _may_hold_more(text: str, first: TopValue) -> bool:
    """False when ``first`` is the answer's only fenced block."""
    return first.report.source != "fenced" or _another_fence(text, first.report)


def is_alone(text: str, report: ParseReport) -> bool:
    """True when the value of ``report`` is surely the answer's only one: the whole text, or
    its only fence with no value right after it (JSON Lines). A quick test before
    `gather_values`, which a parse returning one value would otherwise pay for on every
    fenced answer."""
    if report.end >= len(text):
        return True
    if report.source != "fenced" or _another_fence(text, report):
        return False
    nxt = report.end
    while nxt < len(text) and (text[nxt].isspace() or text[nxt] == ","):
        nxt += 1  # what `_values_following` skips between JSON Lines values
    return nxt >= len(text) or text[nxt] not in "{["


def gather_values(
    text: str, candidates: Iterable[tuple[Any, ParseReport]], *, limit: int | None = None
) -> list[TopValue]:
    """The top-level values of ``text`` in text order, from its ``candidates`` (ranked as
    ``iter_candidates`` yields them; the first is the best). ``limit`` stops the search once
    that many values are found (a report names at most `MAX_DROPPED_VALUES`).

    After a value that opens the text, the prose is searched for well-formed values only,
    lazily: the engine's span search would repair every bracket of a long explanation."""
    ranked = iter(candidates)
    best = next(ranked, None)
    if best is None:
        return []
    first = TopValue(*best)
    taken = [first]
    if first.report.source == "whole":
        taken.extend(_clean_values_after(text, first, limit))
    elif _may_hold_more(text, first):
        for value, report in ranked:
            if _KIND[report.source] != _KIND[first.report.source]:
                break  # the ranking yields one kind after another: the rest are of other kinds
            if _shape(value) is _shape(first.value) and not _overlaps(report, taken):
                taken.append(TopValue(value, report))
            if limit is not None and len(taken) >= limit:
                break
    taken.sort(key=lambda t: t.report.start)
    found: list[TopValue] = []
    for i, top in enumerate(taken):
        found.append(top)
        stop = taken[i + 1].report.start if i + 1 < len(taken) else len(text)
        for follower in _values_following(text, top, stop):
            if _shape(follower.value) is _shape(first.value):
                found.append(follower)
            if limit is not None and len(found) >= limit:
                return found
    return found


def with_dropped_values(report: ParseReport, values: Iterable[TopValue]) -> ParseReport:
    """``report`` (of the value returned) naming the start of every other value of
    ``values`` (all the answer's values), the first `MAX_DROPPED_VALUES` in text order."""
    others = sorted(v.report.start for v in values if v.report.start != report.start)
    dropped = tuple(others[:MAX_DROPPED_VALUES])
    return report if dropped == report.dropped_values else replace(report, dropped_values=dropped)


def join_values(values: list[TopValue]) -> tuple[list[Any], ParseReport]:
    """All ``values`` as one list, for a list target: a value that is itself a list gives its
    items (``[..]\\n[..]`` is one list written in parts), any other value is one item. The
    report spans them all, with every value's repairs; it drops nothing."""
    joined: list[Any] = []
    for top in values:
        if isinstance(top.value, list):
            joined.extend(top.value)
        else:
            joined.append(top.value)
    first, last = values[0].report, values[-1].report
    truncated = next((v.report.truncated for v in values if v.report.truncated), None)
    # Values found in different places (the text's start, then prose) were located in prose.
    same = all(v.report.source == first.source for v in values)
    report = ParseReport(
        source=first.source if same else "span",
        start=first.start,
        end=last.end,
        repairs=tuple(r for v in values for r in v.report.repairs),
        truncated=truncated,
        dropped=tuple(p for v in values for p in v.report.dropped),
    )
    return joined, report


def candidates_for_list(
    text: str, found: Iterable[tuple[Any, ParseReport]]
) -> list[tuple[Any, ParseReport]]:
    """The candidates ``found`` in ``text`` for a list target: when the answer holds several
    values, the list of them all first, then each value alone."""
    candidates = list(found)
    values = gather_values(text, candidates)
    if len(values) < 2:
        return candidates
    return [join_values(values), *candidates]
