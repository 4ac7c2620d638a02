"""What the tool-call parsers return and read in LangChain's terms: the item types, the
``parse_report`` event, the calls of a message, and the partial value of argument text behind
the engine boundary. The calls' journey itself is the engine's
(`tool_call_resolution`,
`tool_stream_steps`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from typing_extensions import TypedDict

from langchain_robust_parsers.engine import decode
from langchain_robust_parsers.engine.calls.tool_call_reports import ToolCallReport
from langchain_robust_parsers.engine.calls.tool_call_resolution import WorkingCall, origin_order
from langchain_robust_parsers.engine.errors import EngineError
from langchain_robust_parsers.parsers.boundary import engine_call
from langchain_robust_parsers.parsers.report_events import ParseEvent

__all__ = [
    "CHAT_ONLY",
    "ToolCallItem",
    "ToolCallItemWithId",
    "ToolsParseEvent",
    "message_calls",
    "partial_value",
]

CHAT_ONLY = "This output parser can only be used with a chat generation."


class ToolCallItem(TypedDict):
    """One call as the tools parsers return it (``return_id=False``)."""

    args: dict[str, Any]
    type: str


class ToolCallItemWithId(TypedDict):
    """One call as the tools parsers return it with ``return_id=True``."""

    args: dict[str, Any]
    id: str | None
    type: str


@dataclass(frozen=True)
class ToolsParseEvent(ParseEvent):
    """A `ParseEvent` that also lists what was done per call (``calls`` in its data)."""

    calls: tuple[ToolCallReport, ...] = ()

    def to_data(self) -> dict[str, Any]:
        data = super().to_data()
        data["calls"] = [c.to_dict() for c in self.calls]
        return data


def message_calls(message: BaseMessage) -> list[WorkingCall]:
    """The calls of a message, raw: from ``tool_call_chunks`` (a merged ``AIMessageChunk``),
    else ``tool_calls`` with ``invalid_tool_calls``, else ``additional_kwargs["tool_calls"]``."""
    if isinstance(message, AIMessageChunk) and message.tool_call_chunks:
        return [
            WorkingCall(c.get("name") or "", c.get("args"), c.get("id"), "tool_call_chunks")
            for c in message.tool_call_chunks
        ]
    raw = message.additional_kwargs.get("tool_calls")
    if isinstance(message, AIMessage) and (message.tool_calls or message.invalid_tool_calls):
        calls = [
            WorkingCall(tc["name"] or "", tc["args"], tc.get("id"), "tool_calls")
            for tc in message.tool_calls
        ]
        calls += [
            WorkingCall(tc.get("name") or "", tc.get("args"), tc.get("id"), "invalid_tool_calls")
            for tc in message.invalid_tool_calls
        ]
        return origin_order(calls, raw)
    out: list[WorkingCall] = []
    if isinstance(raw, list):
        for entry in raw:
            function = entry.get("function") if isinstance(entry, dict) else None
            if isinstance(function, dict):
                name = function.get("name")
                out.append(
                    WorkingCall(
                        name if isinstance(name, str) else "",
                        function.get("arguments"),
                        entry.get("id"),
                        "additional_kwargs",
                    )
                )
    return out


def partial_value(parser: str, text: str) -> Any:
    """The JSON value of a prefix of argument text, or ``None``; an engine bug is logged once by
    the boundary (raised in strict mode) and never breaks a stream."""
    try:
        with engine_call(parser, "reading partial tool arguments"):
            # Read as a stream prefix, as the JSON parsers read one: an open string keeps
            # a ", key:" it holds.
            return decode(text, allow_truncated=True, stream_prefix=True)[0]
    except EngineError:
        return None
