"""One model output in, one result row out: what ``robust-parsers parse`` writes for a line and
what ``parse_frame`` writes for a row of a frame.

A `RowParser` holds a parser and learns how each parse ended the way the parser itself
classifies it (success, recovered, fallback, failed), through the ``stats`` field every parser of
this package has. It pickles, so worker processes (a process pool, Ray, Spark) receive it whole.
Values become JSON data through `to_jsonable` (pydantic models dumped, NaN as ``None``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

import pydantic

from langchain_robust_parsers.engine.jsonable import to_jsonable
from langchain_robust_parsers.engine.stats import Outcome, ParseStats

__all__ = [
    "ERROR_MAX_CHARS",
    "LineResult",
    "OutcomeProbe",
    "ResultOutcome",
    "RowParser",
    "error_text",
    "line_repairs",
    "value_json",
]

ERROR_MAX_CHARS = 300
"""Error messages in results are cut to this length: a parser's message may repeat the whole
model output, which the input already holds; the reason fits in a few hundred characters."""

_TROUBLESHOOTING = "\nFor troubleshooting, visit:"
"""langchain-core appends a link to this text to every ``OutputParserException`` message."""

ResultOutcome = Literal["success", "recovered", "fallback", "failed", "bad_input"]


class OutcomeProbe(ParseStats):
    """A `ParseStats` that also remembers the last outcome recorded, so a caller learns
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
    """The result of one model output (a line of a file, a row of a frame): the fields written,
    plus the format name under which the outcome is counted (``None`` for bad input)."""

    ok: bool
    outcome: ResultOutcome
    value: Any = None
    repairs: tuple[str, ...] = ()
    error: str | None = None
    format: str | None = None


def line_repairs(report: object) -> tuple[str, ...]:
    """``name@pos`` for each repair of ``report``, then ``truncated`` when the payload was
    completed.

    Read through attributes, so a parser whose ``parse_with_report`` gives a report of its own
    shape lists what it can (its ``repairs``, its ``truncated`` flag) or nothing."""
    repairs = getattr(report, "repairs", ())
    names = tuple(str(r) for r in repairs) if isinstance(repairs, (tuple, list)) else ()
    return (*names, "truncated") if getattr(report, "truncated", None) else names


def error_text(exc: BaseException, *, with_type: bool = True) -> str:
    """The message of ``exc`` without langchain-core's link, after its type's name (unless
    ``with_type`` is false: a parse failure), cut to `ERROR_MAX_CHARS`."""
    text = str(exc).split(_TROUBLESHOOTING, 1)[0].strip() or type(exc).__name__
    if with_type:
        text = f"{type(exc).__name__}: {text}"
    if len(text) > ERROR_MAX_CHARS:
        text = text[: ERROR_MAX_CHARS - 1] + "…"
    return text


Rows = TypeVar("Rows", bound="RowParser")


class RowParser:
    """Parse model outputs with ``parser`` into `LineResult` rows.

    ``parser`` must be built with ``stats=`` this object's `probe` (see
    `from_parser` for a parser built elsewhere); ``default_format`` is the statistics row
    of a parse the parser did not count itself. Picklable: the parser and its probe travel
    together.
    """

    def __init__(self, parser: Any, probe: OutcomeProbe, default_format: str) -> None:
        self.parser = parser
        self.probe = probe
        self.default_format = default_format
        self._with_report = callable(getattr(parser, "parse_with_report", None))

    @classmethod
    def from_parser(cls: type[Rows], parser: Any, default_format: str) -> Rows:
        """A row parser over a copy of ``parser`` that counts into a fresh probe (the copy
        shares everything else with ``parser``; ``parser`` itself is left as it is). A parser
        without a ``stats`` field is used as it is, and its outcomes are read from its
        reports, or ``success``/``failed``."""
        probe = OutcomeProbe()
        if isinstance(parser, pydantic.BaseModel) and "stats" in type(parser).model_fields:
            parser = parser.model_copy(update={"stats": probe})
        return cls(parser, probe, default_format)

    def _error_text(self, exc: Exception) -> str:
        """The row's error for what the parser raised."""
        return error_text(exc)

    def _outcome(self, default: Outcome, report: object = None) -> tuple[str, Outcome]:
        """The statistics row and outcome of the parse just done, as the parser counted it;
        else as its report says; else ``default``."""
        if self.probe.last is not None:
            return self.probe.last
        said = getattr(report, "outcome", None)
        if said in ("success", "recovered", "fallback"):
            return self.default_format, said
        return self.default_format, default

    def parse(self, text: str) -> LineResult:
        """The result for one model output; never raises for a ``str`` (a parser that breaks
        its contract gives a failed result, not a stopped run)."""
        self.probe.last = None
        repairs: tuple[str, ...] = ()
        report: object = None
        try:
            if self._with_report:
                value, report = self.parser.parse_with_report(text)
                repairs = line_repairs(report)
            else:
                value = self.parser.parse(text)
        except Exception as exc:
            fmt, outcome = self._outcome("failed")
            return LineResult(False, outcome, None, (), self._error_text(exc), fmt)
        fmt, outcome = self._outcome("success", report)
        return LineResult(True, outcome, value, repairs, None, fmt)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def value_json(value: Any) -> str:
    """``value`` as one JSON document (non-ASCII characters kept as they are); values that are
    not JSON data go through `to_jsonable` first. Raises ``ValueError`` for a value that
    cannot be written (nested deeper than ``MAX_OUTPUT_DEPTH``)."""
    try:
        return _dumps(value)  # the common case: the value is JSON data already
    except (TypeError, ValueError, RecursionError):
        pass
    try:
        return _dumps(to_jsonable(value))
    except (TypeError, RecursionError) as exc:
        raise ValueError(error_text(exc)) from exc
