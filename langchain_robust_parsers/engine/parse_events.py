"""How a final parse ended, as data: the `ParseEvent` that is counted and reported, and the
`FinalParse` a parser builds (value or error, with its event) before anything is published."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, cast

from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.engine.stats import Outcome

__all__ = ["FinalParse", "ParseEvent", "fallback_on_error"]

T = TypeVar("T")


@dataclass(frozen=True)
class FinalParse(Generic[T]):
    """One final parse before it is published: a value (with its report), or the error to
    raise; ``event`` says how it ended. Parsers build it without side effects, publish
    ``event``, then `unwrap` it."""

    value: T | None
    report: Any
    event: ParseEvent
    error: Exception | None = None

    def unwrap(self) -> T:
        """The value, or raise the error."""
        if self.error is not None:
            raise self.error
        # ``value`` is None only with an error, or for a parser whose T includes None.
        return cast(T, self.value)


def fallback_on_error(
    final: FinalParse[T], on_error: str, value: T | None, report: Any
) -> FinalParse[T]:
    """``final``, unless it failed and ``on_error`` is ``"fallback"``: then the parser's degraded
    ``value`` with ``report``, no error, and the event counted as ``fallback`` (it keeps the
    failure's message). A stream that ends on it yields ``value`` as ``invoke`` returns it."""
    if final.error is None or on_error != "fallback":
        return final
    return FinalParse(value, report, dataclasses.replace(final.event, outcome="fallback"))


@dataclass(frozen=True)
class ParseEvent:
    """How one final parse ended: ``report`` is ``None`` when no value was recovered."""

    parser: str
    format: str
    outcome: Outcome
    report: ParseReport | None = None
    error: str | None = None

    def to_data(self) -> dict[str, Any]:
        """The event payload: the report's ``to_dict()`` plus parser, format and outcome."""
        data: dict[str, Any] = {} if self.report is None else self.report.to_dict()
        data["outcome"] = self.outcome
        data["parser"] = self.parser
        data["format"] = self.format
        if self.error is not None:
            data["error"] = self.error
        return data
