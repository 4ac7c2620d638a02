"""Which decoded calls may run: named and typed by the bound tools, and the calls that must not
run (to a tool that is not bound, or cut off) set apart as invalid calls with their reason.

A written name is matched to a bound tool's by `ToolNameMatcher` (``GetWeather``,
``getWeather`` and ``get-weather`` all call ``get_weather``), the one rule every call reader
follows; the report names each renaming (``tool_name``).

An agent must never execute half a call or a call to a tool it does not have: such calls go
to ``AIMessage.invalid_tool_calls`` (with the reason), not to ``tool_calls``, unless the user
opts in (``allow_unknown``).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Sequence, Set
from dataclasses import dataclass, field
from typing import Any

from langchain_robust_parsers.engine.calls.parsed_call import DecodedCalls, ParsedCall
from langchain_robust_parsers.engine.calls.python_calls import Positional
from langchain_robust_parsers.engine.calls.schema_types import (
    ToolSchemas,
    place_positional,
    type_calls,
)
from langchain_robust_parsers.engine.calls.tool_args import RENAME_REPAIR, tool_name_matcher
from langchain_robust_parsers.engine.report import ParseReport, Repair

__all__ = ["CUT_OFF_REASON", "CallPolicy", "InvalidCall", "VettedCalls", "call_text"]

CUT_OFF_REASON = "A tool call was cut off before its end; it was not run."
MALFORMED_REASON = "A tool call block was malformed; it was not run."
CUT_OFF_ARGS = "(cut off)"
MALFORMED_ARGS = "(malformed)"
"""The args text of a call that was not read: not JSON, so that LangChain's chunk merging keeps
the streamed call invalid (empty args would merge into a call named ``''``)."""
UNKNOWN_TOOL_REASON = "Unknown tool {name!r}: it is not among the bound tools ({names})."


@dataclass(frozen=True)
class InvalidCall:
    """A call that must not run: its name when known, the call as text (``name({..})``, or
    `CUT_OFF_ARGS` / `MALFORMED_ARGS` when it was not read), why, and the id the call had
    (``None`` when it has none yet)."""

    name: str | None
    args: str
    error: str
    id: str | None = None


@dataclass(frozen=True)
class VettedCalls:
    """The calls that may run, the invalid ones, and the report with the coercions made."""

    calls: tuple[ParsedCall, ...]
    invalid: tuple[InvalidCall, ...] = ()
    report: ParseReport = field(default_factory=ParseReport)


@dataclass(frozen=True)
class CallPolicy:
    """``schemas``: the bound tools' parameter schemas (arguments are typed by them);
    ``allow_unknown``: calls to tools not among the bound names run all the same."""

    schemas: ToolSchemas | None = None
    allow_unknown: bool = True

    @property
    def positional(self) -> Positional:
        """How the decoder keeps Python positional arguments: aside, to be placed on the bound
        tools' parameters (`place`), when there are schemas; else dropped, as BFCL does."""
        return "map" if self.schemas else "drop"

    def name(
        self, calls: Sequence[ParsedCall], tool_names: Iterable[str] = ()
    ) -> tuple[list[ParsedCall], int]:
        """``calls`` with each written name replaced by the bound name it means (among
        ``tool_names`` and the schemas' names), and how many were renamed."""
        matcher = tool_name_matcher((*tool_names, *(self.schemas or {})))
        if not matcher:
            return list(calls), 0
        named: list[ParsedCall] = []
        for call in calls:
            bound = matcher.match(call.name)
            named.append(
                call if bound in (None, call.name) else dataclasses.replace(call, name=bound)
            )
        return named, sum(a is not b for a, b in zip(calls, named, strict=True))

    def place(self, calls: Sequence[ParsedCall]) -> tuple[list[ParsedCall], list[InvalidCall]]:
        """``calls`` with their positional arguments on their tools' parameters, and those
        whose positional arguments do not fit as invalid calls."""
        placed: list[ParsedCall] = []
        invalid: list[InvalidCall] = []
        for call in calls:
            result = place_positional(call, self.schemas or {})
            if isinstance(result, str):
                invalid.append(InvalidCall(call.name, _python_text(call), result))
            else:
                placed.append(result)
        return placed, invalid

    def type(self, calls: Sequence[ParsedCall]) -> tuple[list[ParsedCall], list[str]]:
        """``calls`` named and typed by the schemas (those whose positional arguments do not
        fit left out), and the coercions made: what a final parse will show of them."""
        placed, _ = self.place(self.name(calls)[0])
        if not self.schemas:
            return placed, []
        return type_calls(placed, self.schemas)

    def runnable(self, calls: Sequence[ParsedCall], tool_names: Set[str]) -> list[ParsedCall]:
        """The calls that may run (typed), without the invalid ones (for streaming)."""
        named, _ = self.name(calls, tool_names)
        typed, _ = self.type(named)
        if self.allow_unknown or not tool_names:
            return typed
        return [c for c in typed if c.name in tool_names]

    def vet(self, decoded: DecodedCalls, tool_names: Set[str]) -> VettedCalls:
        """Type ``decoded.calls`` and set apart the calls that must not run."""
        named, renamed = self.name(decoded.calls, tool_names)
        placed, invalid = self.place(named)
        typed, coercions = self.type(placed)
        coercions = [RENAME_REPAIR] * renamed + coercions
        keep: list[ParsedCall] = []
        names = ", ".join(sorted(tool_names)) or "none"
        for call in typed:
            if self.allow_unknown or not tool_names or call.name in tool_names:
                keep.append(call)
                continue
            reason = UNKNOWN_TOOL_REASON.format(name=call.name, names=names)
            invalid.append(InvalidCall(call.name, call_text(call.name, call.args), reason))
        report = decoded.report
        if "truncated_call_dropped" in report.repair_names:
            invalid.append(InvalidCall(None, CUT_OFF_ARGS, CUT_OFF_REASON))
        if "dropped_block" in report.repair_names:
            invalid.append(InvalidCall(None, MALFORMED_ARGS, MALFORMED_REASON))
        if coercions:
            extra = tuple(Repair(name, report.start) for name in coercions)
            report = ParseReport(
                report.source, report.start, report.end, report.repairs + extra, report.truncated
            )
        return VettedCalls(tuple(keep), tuple(invalid), report)


def call_text(name: str, args: dict[str, Any]) -> str:
    """A call that must not run, as the args text of its invalid call: ``name({..})``. Not a
    bare JSON object, so that LangChain's chunk merging keeps it invalid when it streams."""
    return f"{name}({json.dumps(args, ensure_ascii=False, default=str)})"


def _python_text(call: ParsedCall) -> str:
    """``call`` as the Python call it was written as: ``area(10, 5, 3)``."""
    parts = [json.dumps(v, ensure_ascii=False, default=str) for v in call.positional]
    parts += [f"{k}={json.dumps(v, ensure_ascii=False, default=str)}" for k, v in call.args.items()]
    return f"{call.name}({', '.join(parts)})"
