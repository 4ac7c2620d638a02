"""How the tools parsers read the calls of a chat message: the calls a prefix shows, the calls
a final parse returns (the message's own, else those written in its text), and whether a cut-off
answer must be refused. The parser gives the message's calls and text and turns the result into
LangChain's contract (its output, errors and events)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from langchain_robust_parsers.engine.calls.parsed_call import DecodedCalls, whole_before_cut
from langchain_robust_parsers.engine.calls.schema_types import ToolSchemas
from langchain_robust_parsers.engine.calls.tool_args import ToolNameMatcher
from langchain_robust_parsers.engine.calls.tool_call_output import CallChoice
from langchain_robust_parsers.engine.calls.tool_call_reports import ToolsParseReport
from langchain_robust_parsers.engine.calls.tool_call_resolution import (
    UnrecoverableCall,
    WorkingCall,
    partial_calls,
    resolve_calls,
    text_calls,
)
from langchain_robust_parsers.engine.report import Truncation

__all__ = ["ToolCallsReader"]


@dataclass(frozen=True)
class ToolCallsReader:
    """One tools parser's way of reading calls, for one parse or one stream."""

    choice: CallChoice
    matcher: ToolNameMatcher
    """The bound names written names are matched to (empty: names kept as written)."""
    strict: bool
    """``json.loads``'s ``strict`` for argument text."""
    decode: Callable[[str], DecodedCalls | None]
    """The calls written in a text (``None``: call-like text that does not decode)."""
    schemas: Callable[[], ToolSchemas | None]
    """The bound tools' parameter schemas, which type calls read from text."""
    new_id: Callable[[], str]
    """An id for a call written in the text without one."""

    def match(self, name: str) -> str:
        """The bound name a written name stands for (the name itself when none)."""
        matcher = self.matcher
        return (matcher.match(name) or name) if matcher else name

    def shown(self, calls: list[WorkingCall], value: Callable[[str], Any]) -> list[WorkingCall]:
        """The calls of a message prefix worth showing (`partial_calls`), argument text read
        by ``value``."""
        return partial_calls(calls, self.match, value)

    def final(
        self, calls: list[WorkingCall], text: str | None, stop_reason: str | None
    ) -> tuple[list[WorkingCall], list[UnrecoverableCall]]:
        """The calls a final parse returns, resolved, and the errors of those that cannot be:
        ``calls``, else those written in ``text`` (``None``: no text fallback), named as bound.
        ``stop_reason``: the provider's word for a cut at the token limit (every call is then
        cut off)."""
        if not calls and text:
            calls = self.written(text)
        for call in calls:
            call.name = self.match(call.raw_name)
        selected = self.choice.select(calls)
        return selected, resolve_calls(selected, strict=self.strict, stop_reason=stop_reason)

    def written(self, text: str) -> list[WorkingCall]:
        """The calls written in ``text`` worth returning as calls (see `text_calls`)."""
        decoded = self.decode(text)
        if decoded is None or not decoded.calls:
            return []
        return text_calls(decoded, self.matcher, self.schemas(), self.new_id)

    def cut(
        self, report: ToolsParseReport, stop_reason: str | None, text: str, *, from_text: bool
    ) -> Truncation | None:
        """How an answer whose returned calls ``report`` describes was cut off (``None``: it
        was not, or its calls are whole). Calls read from ``text`` (``from_text``) that closed
        in blocks of their own before the cut are whole (`whole_before_cut`)."""
        truncated = report.cut(stop_reason)
        if truncated is None or not from_text:
            return truncated
        decoded = self.decode(text)
        return None if decoded is not None and whole_before_cut(decoded.report) else truncated
