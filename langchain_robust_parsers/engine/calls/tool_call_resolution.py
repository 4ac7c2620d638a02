"""One tool call on its way through a parse (:class:`WorkingCall`), from a message's fields,
its stream or its text to the arguments a parser returns, and the errors that stop it."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_robust_parsers.engine.calls.parsed_call import ParsedCall
from langchain_robust_parsers.engine.calls.schema_types import ToolSchemas, type_calls
from langchain_robust_parsers.engine.calls.tool_args import RENAME_REPAIR
from langchain_robust_parsers.engine.calls.tool_call_reports import ToolCallOrigin, ToolCallReport
from langchain_robust_parsers.engine.report import ParseReport, Repair

if TYPE_CHECKING:
    from langchain_robust_parsers.engine.calls.tool_call_stream import StreamedCall

__all__ = [
    "MAX_TOKENS_HINT",
    "UnrecoverableCall",
    "WorkingCall",
    "origin_order",
    "typed_text_calls",
]

MAX_TOKENS_HINT = (
    "The model stopped at its output token limit (max_tokens): the arguments are likely "
    "incomplete. Increase max_tokens or shorten the prompt."
)


@dataclass
class WorkingCall:
    """One tool call on its way through a parse: ``args`` is the raw value until resolved."""

    raw_name: str
    args: Any
    id: str | None
    origin: ToolCallOrigin
    name: str = ""
    report: ParseReport | None = None
    decoded: tuple[Any, ParseReport] | None = None  # a stream's clean decode of ``args``
    state: StreamedCall | None = None  # the streamed call, for per-call caches

    def tool_report(self) -> ToolCallReport:
        report = self.report or ParseReport()
        if self.name != self.raw_name:
            report = dataclasses.replace(
                report, repairs=(*report.repairs, Repair(RENAME_REPAIR, 0))
            )
        return ToolCallReport(self.name, self.raw_name, self.id, self.origin, report)

    def raw_args_text(self) -> str:
        """The arguments as the model gave them, for error messages."""
        if isinstance(self.args, str):
            return self.args
        try:
            return json.dumps(self.args, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError):
            return repr(self.args)


class UnrecoverableCall(Exception):
    """A call that cannot be returned; becomes ``OutputParserException`` (message, raw args)."""

    def __init__(self, message: str, llm_output: str) -> None:
        super().__init__(message)
        self.message = message
        self.llm_output = llm_output


def origin_order(calls: list[WorkingCall], raw: Any) -> list[WorkingCall]:
    """``calls`` (valid first, then invalid) in the order of the raw OpenAI calls, when those
    carry their ids; calls not found there keep their place at the end."""
    if not isinstance(raw, list) or len(calls) < 2:
        return calls
    position = {
        entry.get("id"): n
        for n, entry in enumerate(raw)
        if isinstance(entry, dict) and isinstance(entry.get("id"), str)
    }
    if not position:
        return calls
    end = len(position)
    return sorted(calls, key=lambda c: position.get(c.id, end))


def typed_text_calls(
    calls: Sequence[ParsedCall], report: ParseReport, schemas: ToolSchemas | None
) -> tuple[list[ParsedCall], ParseReport]:
    """Calls read from text (named as bound), typed by the bound tools' schemas as
    ``FunctionCallOutputParser`` types them: ``"2"`` to 2 for an ``integer``, a markup value to
    its parameter's type; each coercion joins ``report`` as ``coerce:<tool>.<argument>:<type>``."""
    if not schemas:
        return list(calls), report
    typed, coercions = type_calls(calls, schemas)
    if coercions:
        extra = tuple(Repair(name, report.start) for name in coercions)
        report = dataclasses.replace(report, repairs=(*report.repairs, *extra))
    return typed, report
