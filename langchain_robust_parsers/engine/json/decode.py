"""Decode the JSON value of a model's answer: the order of work and the ranking of candidates.

1. ``json.loads`` on the whole text: C speed for the common case.
2. Locate: skip a BOM and leading reasoning; collect fenced blocks, then tagged blocks, then the
   whole text, then ``{``/``[`` spans in prose.
3. Decode each candidate: the C decoder with error-position repairs, jiter for cut-off text,
   and the linear lenient scanner as the last resort.
4. Rank: source (fenced, tagged, whole, span), then fewer repairs, then earlier position.

The lenient scanner, the bulk repair pass and the string scanner are imported where they are
first used: they compile some hundred patterns, which reading well-formed JSON never needs, and
``import langchain_robust_parsers`` should cost about what langchain-core's own parser does.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from langchain_robust_parsers.engine.errors import JsonEngineError
from langchain_robust_parsers.engine.json import locate
from langchain_robust_parsers.engine.json.decoder_repair import decode_with_repairs
from langchain_robust_parsers.engine.json.json_path import paths_at
from langchain_robust_parsers.engine.json.nesting_bound import MAX_JSON_NESTING
from langchain_robust_parsers.engine.json.numbers import number_value
from langchain_robust_parsers.engine.json.scan_containers import (
    MAX_STRAY_CLOSERS,
    decode_clean_container,
)
from langchain_robust_parsers.engine.json.scan_lexicon import LenientError, more_members_follow
from langchain_robust_parsers.engine.lexicon.fences import (
    FENCE_MARKS,
    match_fence_open,
    trailing_fence,
)
from langchain_robust_parsers.engine.lexicon.tags import skip_space
from langchain_robust_parsers.engine.repair_log import RepairLog
from langchain_robust_parsers.engine.report import ParseReport, Repair, Source

MAX_DROPPED_VALUES = 64
"""Further top-level values listed in a report (NDJSON may hold millions); the first ones are
enough to tell a user that values were not returned."""

MAX_PATHED_REPAIRS = 8
"""Repairs given their JSON path, the earliest first. Finding a path walks the payload up to the
repair in Python; a document with hundreds of repairs gets paths for the first ones and costs
a walk of the text up to them, not of the whole document."""
PATH_WALK_CHARS = 1_024
"""Only repairs this close to the payload start are given a path by the walk: it reads about 20
times slower than the C decoder, so a longer walk would cost more than a bulk repair of a 10 KB
document itself (a repair far into a megabyte keeps its offset, and a rule may set its path)."""

SPAN_SCAN_BUDGET = 4
"""Failed payload starts in prose (``{name}``, ``[1]``...) may together re-read at most this
many times the text. Most fail within a few characters, so thousands can be tried; text made of
brackets that each fail late stops being tried before the work turns quadratic."""

_WHOLE_STARTS = "{[("
_SCALAR_STARTS = '"-0123456789'
_STRICT = json.JSONDecoder(strict=True)
_STRICT_LAX = json.JSONDecoder(strict=False)
_TRAILING_CLOSERS = frozenset(" \t\r\n}])")


@dataclass
class _Decoded:
    value: Any
    report: ParseReport


def _decode_region(
    text: str,
    region: locate.Region,
    prefix: RepairLog,
    source: Source,
    known_error: tuple[int, str] | None = None,
    *,
    stream_prefix: bool = False,
    scanner_error: bool = False,
) -> _Decoded | None:
    """Decode the value that starts ``region``, or ``None`` if it holds none. With
    ``scanner_error``, when the lenient scanner gave up its `LenientError` is raised
    instead (its ``pos`` and ``too_deep`` tell a search where to go on)."""
    a = skip_space(text, region.start, region.stop)
    if a >= region.stop:
        return None
    at_text_end = region.stop == len(text) and not region.closed
    log = RepairLog()
    log.extend(prefix)
    got: tuple[Any, int] | None = None
    if source == "fenced" and region.closed and text[a] in "{[":
        got, known_error = _decode_fenced(text, a, region.stop)
    if got is None and source == "span":
        # No slice of the rest of the text per attempt: prose may hold thousands of brackets.
        got = decode_clean_container(text, a, region.stop)
    elif got is None and text[a] in "{[":
        got = decode_with_repairs(
            text[a : region.stop], log, a, at_text_end=at_text_end, known_error=known_error
        )
        if got is not None:
            got = (got[0], a + got[1])
            if _members_follow_closers(text, got[1], region.stop):
                got = None  # `{"a": 1}, "b": 2}`: the lenient scanner merges the members
        else:
            log = RepairLog()
            log.extend(prefix)
            from langchain_robust_parsers.engine.json.bulk_repair import bulk_decode

            got = bulk_decode(text, a, region.stop, log)
    elif got is None:
        try:
            got = (json.loads(text[a : region.stop]), region.stop)
        except (ValueError, RecursionError):
            got = None
    if got is None and source == "whole" and text[a] not in _WHOLE_STARTS:
        scalar = _top_level_scalar(text, a, region.stop)
        if scalar is None:
            return None
        value, end, log.truncated = scalar
        return _Decoded(value, ParseReport(source, a, end, tuple(log.repairs), log.truncated))
    if got is None:
        if text[a] not in _WHOLE_STARTS:
            return None  # only containers are worth repairing; scalars must be exact
        log = RepairLog()
        log.extend(prefix)
        got = _scan_leniently(text, a, region.stop, log, at_text_end, stream_prefix, scanner_error)
        if got is None:
            return None
    value, end = got
    rest = text[end : region.stop]
    if source != "span" and rest and not rest.isspace() and set(rest) <= _TRAILING_CLOSERS:
        log.add("extra_closer", end + len(rest) - len(rest.lstrip()))
    value = _undo_double_encoding(value, log, a)
    dropped = _values_after(text, end, region.stop) if source != "span" else ()  # JSON Lines
    report = ParseReport(
        source=source,
        start=a,
        end=end,
        repairs=_with_paths(text, a, end, log.repairs),
        truncated=log.truncated,
        dropped_values=dropped,
    )
    return _Decoded(value, report)


def _with_paths(text: str, a: int, end: int, repairs: list[Repair]) -> tuple[Repair, ...]:
    """The repairs, each with the JSON pointer of the place it changed."""
    if not repairs:
        return ()
    limit = a + PATH_WALK_CHARS
    near = sorted((r.pos, i) for i, r in enumerate(repairs) if r.pos < limit and not r.path)
    if not near:
        return tuple(repairs)
    wanted = [pos for pos, _i in near[:MAX_PATHED_REPAIRS]]
    paths = paths_at(text, a, max(end, a), wanted)
    out = list(repairs)  # a bulk repair lists 64: only the few given a path are rebuilt
    for pos, i in near:
        if pos > wanted[-1]:
            break
        if paths.get(pos):
            out[i] = Repair(out[i].name, pos, paths[pos])
    return tuple(out)


def _values_after(text: str, pos: int, stop: int) -> tuple[int, ...]:
    """Offsets of the further top-level values (``{..}\n{..}``, ``[..], [..]``) that follow the
    value ending at ``pos``; prose after the value is not one."""
    found: list[int] = []
    while len(found) < MAX_DROPPED_VALUES:
        p = pos
        while p < stop and (text[p].isspace() or text[p] == ","):
            p += 1
        if p >= stop or text[p] not in "{[":
            break
        found.append(p)
        try:
            pos = _STRICT.raw_decode(text, p)[1]  # no copy of the rest per value
            if pos > stop:
                raise ValueError("past the payload")
        except (ValueError, RecursionError):
            from langchain_robust_parsers.engine.json.lenient import scan_value

            try:
                pos = scan_value(text, p, stop, RepairLog(), at_text_end=stop == len(text))[1]
            except LenientError:
                break
        pos = max(pos, p + 1)
    return tuple(found)


_CUT_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]*)?")


_UNESCAPED_QUOTE = re.compile(r'(?<!\\)(?:\\\\)*"')
"""A quote that no backslash escapes (``"a \\"b`` holds none after its opening quote)."""


def _top_level_scalar(text: str, a: int, stop: int) -> tuple[Any, int, bool] | None:
    """A string or number that is the whole text, as LangChain's ``parse_partial_json`` reads
    it: ``"abc`` gives ``"abc"``, ``2.`` gives ``2``, a literal line break stays in the string.
    Returns ``(value, end, cut_off)``, or ``None`` when the text is not one scalar."""
    last = len(text[a:stop].rstrip()) + a
    if text[a] == '"':
        try:
            return json.loads(text[a:last], strict=False), last, False
        except (ValueError, RecursionError):
            pass
        if _UNESCAPED_QUOTE.search(text, a + 1, last):
            return None  # `"Sure!" Here it is: ...`: a quotation opening prose
        from langchain_robust_parsers.engine.json.scan_strings import scan_string

        body, end, cut = scan_string(text, a, last, RepairLog(), "value", None)
        return (body, last, True) if cut and end >= last else None
    m = _CUT_NUMBER.fullmatch(text, a, last)
    if m is None:
        return None
    digits = m.group().rstrip(".eE+-")
    if not digits or not digits[-1].isdigit():
        return None
    value, _long = number_value(digits)  # a long integer stays its digits, as everywhere
    return value, last, digits != m.group()


def _members_follow_closers(text: str, pos: int, stop: int) -> bool:
    """True when ``, "key":`` follows ``pos``, after at most a few stray closers: the value the
    C decoder read is a fragment of a larger object (``{"a": {"b": 1}}}, "c": 2}``)."""
    for _ in range(MAX_STRAY_CLOSERS + 1):
        if more_members_follow(text, pos, stop):
            return True
        pos = skip_space(text, pos, stop)
        if pos >= stop or text[pos] not in "}]":
            return False
        pos += 1
    return False


_Decode = tuple[Any, int]
_DecoderError = tuple[int, str]


def _decode_fenced(text: str, a: int, stop: int) -> tuple[_Decode | None, _DecoderError | None]:
    """Strict decode of a fenced document, not bounded by the first closing-fence line.

    A document whose strings hold a fence of their own (```` "```python\\n...```" ```` written
    with literal line breaks) ends at a closing fence after its value. Returns ``(value, end)``
    on success, else the decoder's ``(pos, msg)`` relative to ``a`` when it lies inside the
    fence, which spares the repair path its first pass.
    """
    try:
        value, end = _STRICT.raw_decode(text, a)
    except json.JSONDecodeError as err:
        if not err.msg.startswith("Invalid control character"):
            return None, ((err.pos - a, err.msg) if err.pos < stop else None)
        try:
            value, end = _STRICT_LAX.raw_decode(text, a)
        except (ValueError, RecursionError):
            return None, None
        if end <= stop:
            return None, None  # literal control characters: the lenient scanner judges them
    except (ValueError, RecursionError):
        return None, None
    if end <= stop:
        return (value, end), None
    after = skip_space(text, end, len(text))
    return ((value, end) if text.startswith(FENCE_MARKS, after) else None), None


def _fenced_body(inner: str) -> str | None:
    """The body of a fenced block that is the whole of ``inner`` (a string payload), or None."""
    opening = match_fence_open(inner, 0)
    if opening is None or not inner.startswith("\n", opening.body - 1):
        return None
    close = trailing_fence(inner, opening.body)
    return None if close < 0 else inner[opening.body : close]


def _undo_double_encoding(value: Any, log: RepairLog, pos: int) -> Any:
    """A JSON document serialised into a JSON string is decoded once more."""
    if not isinstance(value, str):
        return value
    inner = value.strip()
    fenced = _fenced_body(inner) if inner.startswith(FENCE_MARKS) else None
    if fenced is not None:
        inner = fenced.strip()  # `"```json\n{...}\n```"`: a fenced answer, encoded
    if len(inner) < 2 or inner[0] not in "{[" or inner[-1] not in "}]":
        return value
    try:
        decoded = json.loads(inner)
    except (ValueError, RecursionError):
        from langchain_robust_parsers.engine.json.lenient import scan_value

        inner_log = RepairLog()
        try:
            decoded, stop = scan_value(inner, 0, len(inner), inner_log, at_text_end=False)
        except LenientError:
            return value
        if stop != len(inner) or inner_log.count > 2:
            return value
    log.add("double_encoded", pos)
    return decoded


def _unescape_document(text: str, begin: int) -> str | None:
    """``{\\"key\\": \\"value\\"}``: a document printed with its quotes escaped, as if cut out of a
    JSON string. Returns it with ``\\"`` unescaped, or ``None`` when the text is not like that."""
    a = skip_space(text, begin, len(text))
    if not (text.startswith('{\\"', a) or text.startswith('[\\"', a)):
        return None
    return text[:a] + text[a:].replace('\\"', '"')


def iter_candidates(
    text: str,
    *,
    allow_truncated: bool = True,
    stream_prefix: bool = False,
    template_opens: bool | None = None,
) -> Iterator[tuple[Any, ParseReport]]:
    """Every decodable payload of ``text`` with its report, best first.

    The order is DESIGN.md's total order: source (fenced, tagged, whole text, spans in prose),
    then fewer repairs, then earlier position. With ``allow_truncated=False`` payloads that were
    cut off are skipped; ``stream_prefix`` reads ``text`` as an unfinished stream (LangChain's
    partial semantics for an open string). ``template_opens`` says whether the chat template
    opened reasoning (`reasoning.headless_end`). A value the lenient scanner finds nested deeper
    than `MAX_JSON_NESTING` raises `JsonEngineError` (no part of it is a candidate); valid JSON
    the C decoder reads whole is returned as `json.loads` returns it.
    """
    if not isinstance(text, str):
        raise JsonEngineError(f"expected text, got {type(text).__name__}")
    first_error: tuple[int, str] | None = None
    try:
        if template_opens:  # the text starts in reasoning: never the whole of it
            raise ValueError("template-opened reasoning")
        value = json.loads(text)
    except json.JSONDecodeError as err:
        if err.msg != "Extra data":
            first_error = (err.pos, err.msg)
    except (ValueError, RecursionError):
        pass
    else:
        log = RepairLog()
        value = _undo_double_encoding(value, log, 0)
        yield value, ParseReport(source="whole", start=0, end=len(text), repairs=tuple(log.repairs))
        return
    prefix = RepairLog()
    begin = locate.payload_start(text, prefix, template_opens)
    unescaped = _unescape_document(text, begin)
    if unescaped is not None:
        prefix.add("escaped_quotes", begin)
        yield from _unescaped_candidates(text, unescaped, prefix, allow_truncated)
        return
    yield from _located_candidates(
        text,
        begin,
        prefix,
        first_error,
        allow_truncated=allow_truncated,
        stream=stream_prefix,
    )


def _unescaped_candidates(
    text: str, unescaped: str, prefix: RepairLog, allow_truncated: bool
) -> Iterator[tuple[Any, ParseReport]]:
    """The candidates of a document printed with its quotes escaped, reported on ``text``."""
    for value, report in iter_candidates(unescaped, allow_truncated=allow_truncated):
        yield (
            value,
            ParseReport(
                source=report.source,
                start=report.start,
                end=min(report.end, len(text)),
                repairs=(*prefix.repairs, *report.repairs),
                truncated=report.truncated,
                dropped_values=report.dropped_values,
            ),
        )


def _ranked(found: list[_Decoded], allow_truncated: bool) -> Iterator[tuple[Any, ParseReport]]:
    """One source's candidates in order; the first one lists the others as dropped values."""
    found.sort(key=lambda d: (d.report.cost, d.report.start))
    kept = [d for d in found if allow_truncated or not d.report.truncated]
    for i, d in enumerate(kept):
        report = d.report
        if i == 0 and len(kept) > 1:
            others = tuple(sorted(o.report.start for o in kept[1:]))[:MAX_DROPPED_VALUES]
            report = replace(report, dropped_values=report.dropped_values + others)
        yield d.value, report


def _located_candidates(
    text: str,
    begin: int,
    prefix: RepairLog,
    first_error: tuple[int, str] | None,
    *,
    allow_truncated: bool,
    stream: bool,
) -> Iterator[tuple[Any, ParseReport]]:
    """Fenced, tagged, whole-text and prose-span candidates, in that order."""
    skip = locate.think_regions(text, begin)
    taken: list[tuple[int, int]] = []
    # A document that starts the text is decoded first so that fences and tags inside its
    # strings (```` "```python ...```" ````) are not mistaken for payloads of their own; it is
    # still yielded in its place in the order, after fenced and tagged payloads outside it.
    whole: _Decoded | None = None
    a = skip_space(text, begin, len(text))
    in_reasoning = bool(skip) and skip[0][0] <= a < skip[0][1]  # an unclosed `[THINK]...`
    if (
        a < len(text)
        and (text[a] in _WHOLE_STARTS or text[a] in _SCALAR_STARTS)
        and not in_reasoning
    ):
        known = None
        if first_error is not None and first_error[0] >= a and not prefix.count:
            known = (first_error[0] - a, first_error[1])
        region = locate.Region("whole", a, len(text), False)
        whole = _decode_region(text, region, prefix, "whole", known, stream_prefix=stream)
        if whole is not None:
            skip = [*skip, (whole.report.start, whole.report.end)]
    for source, regions in (
        ("fenced", locate.fenced_regions(text, begin, skip)),
        ("tagged", locate.tagged_regions(text, begin, skip)),
    ):
        found = []
        for region in regions:
            d = _decode_region(text, region, prefix, source)  # type: ignore[arg-type]
            if d is not None:
                found.append(d)
                taken.append((d.report.start, d.report.end))
        yield from _ranked(found, allow_truncated)
    if whole is not None:
        taken.append((whole.report.start, max(whole.report.end, a + 1)))
        yield from _ranked([whole], allow_truncated)
    yield from _ranked(_span_candidates(text, begin, prefix, skip + taken), allow_truncated)


def _scan_leniently(
    text: str,
    a: int,
    stop: int,
    log: RepairLog,
    at_text_end: bool,
    stream_prefix: bool,
    scanner_error: bool,
) -> tuple[Any, int] | None:
    """The lenient scanner's value at ``a`` and its end, or ``None`` (or its `LenientError`
    with ``scanner_error``). A value nested past the bound refuses the whole text: every other
    route would return an inner fragment of it."""
    from langchain_robust_parsers.engine.json.lenient import scan_value

    try:
        return scan_value(text, a, stop, log, at_text_end=at_text_end, stream_prefix=stream_prefix)
    except LenientError as err:
        if err.too_deep:
            raise _too_deep() from err
        if scanner_error:
            raise
        return None


def _too_deep() -> JsonEngineError:
    return JsonEngineError(f"the JSON is nested deeper than {MAX_JSON_NESTING} levels")


def _span_candidates(
    text: str, begin: int, prefix: RepairLog, skip: list[tuple[int, int]]
) -> list[_Decoded]:
    """Payloads that start at a ``{`` or ``[`` in prose, within `SPAN_SCAN_BUDGET`."""
    found = []
    pos = begin
    budget = SPAN_SCAN_BUDGET * (len(text) + 1)
    while budget > 0:
        s = locate.next_span_start(text, pos, skip)
        if s < 0:
            break
        region = locate.Region("span", s, len(text), False)
        try:
            d = _decode_region(text, region, prefix, "span", scanner_error=True)
        except LenientError as err:
            budget -= 1 + max(0, err.pos - s)
            pos = s + 1
            continue
        if d is None:
            budget -= 1 + len(text) - s
            pos = s + 1
            continue
        found.append(d)
        pos = max(d.report.end, s + 1)
    return found


def decode(
    text: str,
    *,
    allow_truncated: bool = True,
    stream_prefix: bool = False,
    template_opens: bool | None = None,
) -> tuple[Any, ParseReport]:
    """The best payload of ``text``; raises `JsonEngineError` when there is none.
    ``stream_prefix`` and ``template_opens``: see `iter_candidates`."""
    for value, report in iter_candidates(
        text,
        allow_truncated=allow_truncated,
        stream_prefix=stream_prefix,
        template_opens=template_opens,
    ):
        return value, report
    if not allow_truncated:
        for _value, report in iter_candidates(
            text, allow_truncated=True, template_opens=template_opens
        ):
            raise JsonEngineError("the JSON value is cut off", report.end)
    raise JsonEngineError("no JSON value found in the text")
