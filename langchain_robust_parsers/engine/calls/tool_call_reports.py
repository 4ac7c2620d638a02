"""What was done to obtain the tool calls of a parse: one report per returned call, and the
report of the whole parse (its outcome for `ParseStats`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_robust_parsers.engine.parse_events import ParseEvent
from langchain_robust_parsers.engine.report import ParseReport, Truncation, merge_truncation
from langchain_robust_parsers.engine.stats import Outcome

__all__ = ["ToolCallOrigin", "ToolCallReport", "ToolsParseEvent", "ToolsParseReport"]

ToolCallOrigin = Literal[
    "tool_calls", "invalid_tool_calls", "tool_call_chunks", "additional_kwargs", "text"
]
"""Where a call came from: the message's valid ``tool_calls``, its ``invalid_tool_calls``, the
(streamed) ``tool_call_chunks``, OpenAI's raw ``additional_kwargs["tool_calls"]``, or the text."""


@dataclass(frozen=True)
class ToolCallReport:
    """What was done to obtain one returned tool call.

    ``name`` is the name returned, ``raw_name`` the name the model wrote; ``report`` says what
    was located and repaired in the arguments (coercions of the Pydantic variant appear as
    repairs ``coerce:<rule>``, a matched name as a ``tool_name`` repair).
    """

    name: str
    raw_name: str
    id: str | None
    origin: ToolCallOrigin
    report: ParseReport = field(default_factory=ParseReport)

    @property
    def renamed(self) -> bool:
        """True when the written name was matched to a differently spelled bound name."""
        return self.name != self.raw_name

    @property
    def outcome(self) -> Outcome:
        """``fallback`` for a call read from the text, ``recovered`` for a repaired, cut-off or
        renamed call, else ``success``."""
        if self.origin == "text":
            return "fallback"
        return "recovered" if self.report.repaired or self.renamed else "success"

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready summary, as carried by the ``parse_report`` event."""
        data = self.report.to_dict()
        data.update(
            name=self.name,
            raw_name=self.raw_name,
            id=self.id,
            origin=self.origin,
            outcome=self.outcome,
        )
        return data


@dataclass(frozen=True)
class ToolsParseReport:
    """What was done to obtain the calls of one final parse, one entry per returned call."""

    calls: tuple[ToolCallReport, ...] = ()

    @property
    def outcome(self) -> Outcome:
        """``fallback`` when the calls came from the text, ``recovered`` when any call was
        repaired or renamed, else ``success`` (also for no calls at all)."""
        outcomes = {c.outcome for c in self.calls}
        for outcome in ("fallback", "recovered"):
            if outcome in outcomes:
                return outcome
        return "success"

    @property
    def repaired(self) -> bool:
        """True when any call was repaired, cut off, renamed or read from the text."""
        return self.outcome != "success"

    def to_dict(self) -> dict[str, object]:
        return {"outcome": self.outcome, "calls": [c.to_dict() for c in self.calls]}

    def cut(self, stop_reason: str | None) -> Truncation | None:
        """How the answer was cut off: a returned call's arguments were unfinished (``text``),
        ``stop_reason`` (the provider's word) says so, both, or neither (``None``)."""
        text_cut = any(c.report.truncated in ("text", "both") for c in self.calls)
        return merge_truncation(text_cut, stop_reason is not None)


@dataclass(frozen=True)
class ToolsParseEvent(ParseEvent):
    """A `ParseEvent` that also lists what was done per call (``calls`` in its data)."""

    calls: tuple[ToolCallReport, ...] = ()

    @classmethod
    def of(cls, parser: str, format: str, report: ToolsParseReport) -> ToolsParseEvent:
        """The event of a parse that returned the calls ``report`` describes; its ``report`` is
        the first call's that was not a plain success."""
        first = next((c.report for c in report.calls if c.outcome != "success"), None)
        return cls(parser, format, report.outcome, first, calls=report.calls)

    def to_data(self) -> dict[str, Any]:
        data = super().to_data()
        data["calls"] = [c.to_dict() for c in self.calls]
        return data
