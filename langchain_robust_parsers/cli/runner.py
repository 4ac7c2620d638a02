"""One model output in, one result out: the unit of work of ``robust-parsers parse``.

A :class:`FormatRunner` holds a parser and learns how each parse ended the way the parser itself
classifies it (success, recovered, fallback, failed), through the ``stats`` field every parser of
this package has. It pickles, so worker processes receive it whole. :func:`encode_result` turns a
result into one JSON line; values become JSON data (pydantic models dumped, NaN as ``null``);
:func:`encode_rows` turns lines into the UTF-8 bytes written, whatever characters they hold.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import pydantic
import pydantic.v1
from langchain_core.exceptions import OutputParserException

from langchain_robust_parsers.cli.formats import FormatEntry, build_parser, resolve_format
from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.engine.stats import OUTCOMES, Outcome, ParseStats

__all__ = [
    "BAD_INPUT",
    "FormatRunner",
    "LineResult",
    "OutcomeProbe",
    "encode_result",
    "encode_rows",
    "error_text",
    "parse_outcome",
    "to_jsonable",
]

BAD_INPUT = "bad_input"
"""The outcome of an input line that holds no model output to parse (not JSON, no such field).
It is not a parse outcome, so it is reported beside the statistics table, not in it."""

ERROR_MAX_CHARS = 300
"""Error messages in the output are cut to this length: a parser's message may repeat the whole
model output, which the input file already holds; the reason fits in a few hundred characters."""

MAX_OUTPUT_DEPTH = 1000
"""Deepest value written. ``json.dumps`` cannot write deeper values under Python's default
recursion limit (1000) anyway, and the bound stops the conversion on a value that contains
itself."""

_TROUBLESHOOTING = "\nFor troubleshooting, visit:"
"""langchain-core appends a link to this text to every ``OutputParserException`` message."""

ResultOutcome = Literal["success", "recovered", "fallback", "failed", "bad_input"]


def parse_outcome(outcome: str) -> Outcome | None:
    """``outcome`` as a :class:`ParseStats` outcome, or ``None`` for one it does not count
    (:data:`BAD_INPUT`)."""
    return next((o for o in OUTCOMES if o == outcome), None)


class OutcomeProbe(ParseStats):
    """A :class:`ParseStats` that also remembers the last outcome recorded, so a caller learns
    how each parse ended as the parser itself classifies it."""

    def __init__(self) -> None:
        super().__init__()
        self.last: tuple[str, Outcome] | None = None

    def record(self, format: str, outcome: Outcome) -> None:
        super().record(format, outcome)
        self.last = (format, outcome)

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        self.last = None


@dataclass(frozen=True)
class LineResult:
    """The result of one input line: the fields written to the output, plus the format name
    under which the outcome is counted (``None`` for bad input)."""

    ok: bool
    outcome: ResultOutcome
    value: Any = None
    repairs: tuple[str, ...] = ()
    error: str | None = None
    format: str | None = None


def _repairs(report: ParseReport | object) -> tuple[str, ...]:
    """``name@pos`` for each repair, then ``truncated`` when the payload was completed.

    Read through attributes, so a parser whose ``parse_with_report`` gives a report of its own
    shape lists what it can (its ``repairs``, its ``truncated`` flag) or nothing."""
    repairs = getattr(report, "repairs", ())
    names = tuple(str(r) for r in repairs) if isinstance(repairs, (tuple, list)) else ()
    return (*names, "truncated") if getattr(report, "truncated", None) else names


def error_text(exc: BaseException) -> str:
    """The message of ``exc`` without langchain-core's link, cut to :data:`ERROR_MAX_CHARS`."""
    text = str(exc).split(_TROUBLESHOOTING, 1)[0].strip() or type(exc).__name__
    if not isinstance(exc, OutputParserException):
        text = f"{type(exc).__name__}: {text}"
    if len(text) > ERROR_MAX_CHARS:
        text = text[: ERROR_MAX_CHARS - 1] + "…"
    return text


class FormatRunner:
    """Parse model outputs in one format (``json``, ``pydantic:module:Model``, ...); ``options``
    are more keyword arguments for the parser class (``{"window": (1280, 800)}`` for actions).

    Picklable: the parser and its probe travel together to worker processes.
    """

    def __init__(
        self,
        spec: str,
        entries: Iterable[FormatEntry] | None = None,
        *,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        entry, _ = resolve_format(spec, entries)
        self.spec = spec
        self.name = entry.name
        self.entry = entry
        self.probe = OutcomeProbe()
        self.parser: Any = build_parser(spec, stats=self.probe, entries=[entry], options=options)
        self._with_report = callable(getattr(self.parser, "parse_with_report", None))

    def _outcome(self, default: Outcome) -> tuple[str, Outcome]:
        """The statistics row and outcome of the parse just done, as the parser counted it
        (``default`` when it counts nothing)."""
        if self.probe.last is None:
            return self.entry.stats_format, default
        counted_as, outcome = self.probe.last
        return self.entry.stats_row(counted_as), outcome

    def parse(self, text: str) -> LineResult:
        """The result for one model output; never raises for a ``str`` (a parser that breaks
        its contract gives a failed result, not a stopped run)."""
        self.probe.last = None
        repairs: tuple[str, ...] = ()
        try:
            if self._with_report:
                value, report = self.parser.parse_with_report(text)
                repairs = _repairs(report)
            else:
                value = self.parser.parse(text)
        except Exception as exc:
            fmt, outcome = self._outcome("failed")
            return LineResult(False, outcome, None, (), error_text(exc), fmt)
        fmt, outcome = self._outcome("success")
        return LineResult(True, outcome, value, repairs, None, fmt)


# --------------------------------------------------------------------------- JSON output


def _leaf(value: Any) -> Any:
    """A JSON-ready scalar, or a container / model still to convert."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, pydantic.v1.BaseModel):
        return value.dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if value is None or isinstance(value, (str, int, float, dict, list, tuple)):
        return value
    return str(value)


def to_jsonable(value: Any) -> Any:
    """``value`` as JSON data: models dumped (``mode="json"``), dataclasses as dicts, tuples as
    lists, NaN and infinities as ``None``, keys as strings, anything else as its ``str``.

    Iterative, bounded by :data:`MAX_OUTPUT_DEPTH` (``ValueError`` beyond it).
    """
    root = _leaf(value)
    if not isinstance(root, (dict, list, tuple)):
        return root
    out: Any = {} if isinstance(root, dict) else []
    stack: list[tuple[Any, Any, int]] = [(root, out, 1)]
    while stack:
        src, dst, depth = stack.pop()
        if depth > MAX_OUTPUT_DEPTH:
            raise ValueError(f"value nested deeper than {MAX_OUTPUT_DEPTH} levels")
        items = src.items() if isinstance(src, dict) else enumerate(src)
        for key, item in items:
            converted = _leaf(item)
            if isinstance(converted, (dict, list, tuple)):
                child: Any = {} if isinstance(converted, dict) else []
                stack.append((converted, child, depth + 1))
                converted = child
            if isinstance(dst, dict):
                dst[key if isinstance(key, str) else str(key)] = converted
            else:
                dst.append(converted)
    return out


def _dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, allow_nan=False)


def encode_result(line: int, result: LineResult) -> tuple[str, ResultOutcome]:
    """One output line (without its newline) holding ``line``, ``ok``, ``outcome``, ``value``,
    ``repairs`` and ``error``, and the outcome it records: a value that cannot be written as
    JSON makes the line ``failed``."""
    record: dict[str, Any] = {
        "line": line,
        "ok": result.ok,
        "outcome": result.outcome,
        "value": result.value,
        "repairs": list(result.repairs),
        "error": result.error,
    }
    try:
        return _dumps(record), result.outcome  # the common case: the value is JSON data already
    except (TypeError, ValueError, RecursionError):
        pass
    try:
        record["value"] = to_jsonable(result.value)
        return _dumps(record), result.outcome
    except (TypeError, ValueError, RecursionError) as exc:
        record.update(ok=False, outcome="failed", value=None, repairs=[])
        record["error"] = f"the value cannot be written as JSON: {error_text(exc)}"
        return _dumps(record), "failed"


LINE_BREAKS_IN_STRINGS = {"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}
"""Characters that ``str.splitlines`` (and some JSON-lines readers) take for line ends but
``json.dumps(ensure_ascii=False)`` leaves as they are: written as their JSON escapes, so that a
row is one line for every reader. Every other line end is a control character, which JSON
escapes anyway."""


def encode_rows(rows: Iterable[str]) -> bytes:
    """``rows`` (JSON lines from :func:`encode_result`) as UTF-8, each ended by a newline.

    Model text may hold lone surrogates (an emoji escape such as ``"\\ud83d\\ude`` cut off by
    the token limit decodes to one), which UTF-8 cannot hold. JSON text has non-ASCII characters
    only inside strings, where the ``\\udXXX`` escape that ``backslashreplace`` writes for a
    lone surrogate is the JSON escape of that same character: a reader gets the string back
    (a high and a low surrogate side by side come back as the one character they stand for),
    and every other character stays readable UTF-8. The error handler only runs on a
    surrogate, so the common case costs one plain encode. The characters of
    :data:`LINE_BREAKS_IN_STRINGS` are escaped the same way, for the same reason (they too only
    occur inside strings).
    """
    text = "".join(row + "\n" for row in rows)
    if not text.isascii():
        for char, escape in LINE_BREAKS_IN_STRINGS.items():
            if char in text:
                text = text.replace(char, escape)
    return text.encode("utf-8", "backslashreplace")
