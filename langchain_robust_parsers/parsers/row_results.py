"""One model output in, one result row out: what ``robust-parsers parse`` writes for a line and
what `parse_frame` writes for a row of a frame.

A `RowParser` holds a parser and learns how each parse ended the way the parser itself
classifies it (success, recovered, fallback, failed), through the ``stats`` field every parser of
this package has. It pickles, so worker processes (a process pool, Ray, Spark) receive it whole.
Values become JSON data through `to_jsonable` (pydantic models dumped, NaN as ``None``).
"""

from __future__ import annotations

import json
from typing import Any

import pydantic
import pydantic.v1
from langchain_core.exceptions import OutputParserException

from langchain_robust_parsers.engine.jsonable import MAX_OUTPUT_DEPTH, to_jsonable
from langchain_robust_parsers.engine.result_rows import (
    LineResult,
    OutcomeProbe,
    ResultOutcome,
    line_repairs,
)
from langchain_robust_parsers.engine.stats import Outcome

__all__ = [
    "ERROR_MAX_CHARS",
    "MAX_OUTPUT_DEPTH",
    "LineResult",
    "OutcomeProbe",
    "ResultOutcome",
    "RowParser",
    "error_text",
    "to_jsonable",
    "value_json",
]

ERROR_MAX_CHARS = 300
"""Error messages in results are cut to this length: a parser's message may repeat the whole
model output, which the input already holds; the reason fits in a few hundred characters."""

_TROUBLESHOOTING = "\nFor troubleshooting, visit:"
"""langchain-core appends a link to this text to every ``OutputParserException`` message."""


def error_text(exc: BaseException) -> str:
    """The message of ``exc`` without langchain-core's link, cut to `ERROR_MAX_CHARS`."""
    text = str(exc).split(_TROUBLESHOOTING, 1)[0].strip() or type(exc).__name__
    if not isinstance(exc, OutputParserException):
        text = f"{type(exc).__name__}: {text}"
    if len(text) > ERROR_MAX_CHARS:
        text = text[: ERROR_MAX_CHARS - 1] + "…"
    return text


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
    def from_parser(cls, parser: Any, default_format: str) -> RowParser:
        """A row parser over a copy of ``parser`` that counts into a fresh probe (the copy
        shares everything else with ``parser``; ``parser`` itself is left as it is). A parser
        without a ``stats`` field is used as it is, and its outcomes are read from its
        reports, or ``success``/``failed``."""
        probe = OutcomeProbe()
        if isinstance(parser, pydantic.BaseModel) and "stats" in type(parser).model_fields:
            parser = parser.model_copy(update={"stats": probe})
        return cls(parser, probe, default_format)

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
            return LineResult(False, outcome, None, (), error_text(exc), fmt)
        fmt, outcome = self._outcome("success", report)
        return LineResult(True, outcome, value, repairs, None, fmt)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False)


def value_json(value: Any) -> str:
    """``value`` as one JSON document (non-ASCII characters kept as they are); values that are
    not JSON data go through `to_jsonable` first. Raises ``ValueError`` for a value that
    cannot be written (nested deeper than `MAX_OUTPUT_DEPTH`)."""
    try:
        return _dumps(value)  # the common case: the value is JSON data already
    except (TypeError, ValueError, RecursionError):
        pass
    try:
        return _dumps(to_jsonable(value))
    except (TypeError, RecursionError) as exc:
        raise ValueError(error_text(exc)) from exc
