"""One result row for one model output: its outcome, value, repairs and error, as the command
line writes a line and ``parse_frame`` a row of a frame."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from langchain_robust_parsers.engine.stats import Outcome, ParseStats

__all__ = ["LineResult", "OutcomeProbe", "ResultOutcome", "line_repairs"]

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
