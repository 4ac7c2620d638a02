"""One tool call on its way through a parse (`WorkingCall`), from a message's fields,
its stream or its text to the arguments a parser returns, and the errors that stop it."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_robust_parsers.engine.calls.cut_calls import cut_call_hint
from langchain_robust_parsers.engine.calls.parsed_call import DecodedCalls, ParsedCall
from langchain_robust_parsers.engine.calls.schema_types import ToolSchemas, type_calls
from langchain_robust_parsers.engine.calls.tool_args import (
    RENAME_REPAIR,
    ToolArgumentsError,
    ToolNameMatcher,
    decode_arguments,
)
from langchain_robust_parsers.engine.calls.tool_call_reports import ToolCallOrigin, ToolCallReport
from langchain_robust_parsers.engine.report import ParseReport, Repair, with_stop_reason

if TYPE_CHECKING:
    from langchain_robust_parsers.engine.calls.tool_call_stream import StreamedCall

__all__ = [
    "UnrecoverableCall",
    "WorkingCall",
    "mark_cut",
    "message_calls",
    "origin_order",
    "partial_calls",
    "resolve_arguments",
    "resolve_calls",
    "text_calls",
    "typed_text_calls",
]


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


def message_calls(message: Any) -> list[WorkingCall]:
    """The calls of a chat message, raw, read by its fields (LangChain's ``AIMessage`` and
    ``AIMessageChunk`` have them): ``tool_call_chunks`` (a merged chunk), else ``tool_calls``
    with ``invalid_tool_calls``, else OpenAI's ``additional_kwargs["tool_calls"]``."""
    chunks = getattr(message, "tool_call_chunks", None)
    if chunks:
        return [
            WorkingCall(c.get("name") or "", c.get("args"), c.get("id"), "tool_call_chunks")
            for c in chunks
        ]
    raw = message.additional_kwargs.get("tool_calls")
    valid, invalid = (getattr(message, f, None) for f in ("tool_calls", "invalid_tool_calls"))
    if valid or invalid:
        calls = [
            WorkingCall(c["name"] or "", c["args"], c.get("id"), "tool_calls") for c in valid or ()
        ]
        calls += [
            WorkingCall(c.get("name") or "", c.get("args"), c.get("id"), "invalid_tool_calls")
            for c in invalid or ()
        ]
        return origin_order(calls, raw)
    entries = raw if isinstance(raw, list) else []
    functions = [(e, e.get("function")) for e in entries if isinstance(e, dict)]
    return [
        WorkingCall(
            name if isinstance(name := f.get("name"), str) else "",
            f.get("arguments"),
            e.get("id"),
            "additional_kwargs",
        )
        for e, f in functions
        if isinstance(f, dict)
    ]


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


def resolve_arguments(call: WorkingCall, *, strict: bool, max_tokens: bool) -> None:
    """Turn ``call.args`` into an object and set ``call.report``; raises
    `UnrecoverableCall`. ``max_tokens``: the model stopped at its token limit (the
    error then says so)."""
    if call.report is not None and call.origin == "text":
        return
    if isinstance(call.args, dict):
        call.report = ParseReport()
        return
    if call.decoded is not None and isinstance(call.decoded[0], dict):
        call.args, call.report = call.decoded
        return
    raw = call.args
    if raw is not None and not isinstance(raw, str):
        raw = call.raw_args_text()
    try:
        args, report = decode_arguments(raw, allow_truncated=True, strict=strict)
    except ToolArgumentsError as err:
        hint = f"\n{cut_call_hint()}" if max_tokens else ""
        message = (
            f"Could not recover the arguments of tool call {call.raw_name!r} "
            f"(id {call.id}): {err.reason}.{hint}\nRaw arguments:\n{raw}"
        )
        raise UnrecoverableCall(message, raw or "") from err
    call.args = args
    call.report = report


def mark_cut(call: WorkingCall, stop_reason: str | None) -> None:
    """A call of an answer stopped at the token limit (``stop_reason``, the provider's word) is
    cut off, as if its arguments were: its report says ``truncated`` (a parser's
    ``on_truncation="raise"`` then refuses it)."""
    if stop_reason is None:
        return
    call.report = with_stop_reason(call.report or ParseReport(), stop_reason)


def resolve_calls(
    calls: list[WorkingCall], *, strict: bool, stop_reason: str | None
) -> list[UnrecoverableCall]:
    """Resolve the arguments of every call and mark those cut by ``stop_reason``; the errors
    of the calls that cannot be returned (the others are resolved either way)."""
    errors: list[UnrecoverableCall] = []
    max_tokens = stop_reason is not None
    for call in calls:
        try:
            resolve_arguments(call, strict=strict, max_tokens=max_tokens)
            mark_cut(call, stop_reason)
        except UnrecoverableCall as err:
            errors.append(err)
    return errors


def text_calls(
    decoded: DecodedCalls,
    matcher: ToolNameMatcher,
    schemas: ToolSchemas | None,
    new_id: Callable[[], str],
) -> list[WorkingCall]:
    """The calls written in a message's text worth returning as calls. With bound names
    (``matcher``), only calls to them; without, only calls in a dialect's markers, or Python
    calls making up the text or a fence (a bare JSON object in an answer is too often just
    data). Named as bound, typed by ``schemas``; ``new_id`` gives a call without an id one."""
    report = decoded.report
    if matcher:
        found = [c for c in decoded.calls if matcher.match(c.name) is not None]
    elif report.source == "tagged" or (
        decoded.kind == "ast" and report.source in ("whole", "fenced")
    ):
        found = list(decoded.calls)
    else:
        found = []
    named = [
        dataclasses.replace(c, name=matcher.match(c.name) or c.name) if matcher else c
        for c in found
    ]
    typed, report = typed_text_calls(named, report, schemas)
    return [
        WorkingCall(raw.name, c.args, c.id or new_id(), "text", report=report)
        for raw, c in zip(found, typed, strict=True)
    ]


def partial_calls(
    calls: list[WorkingCall],
    match: Callable[[str], str],
    partial_value: Callable[[str], Any],
) -> list[WorkingCall]:
    """The calls of a message prefix worth showing: arguments read leniently by
    ``partial_value``, calls whose arguments are not (yet) an object left out; a raw OpenAI call
    without arguments is left out too, as langchain-core skips it while streaming."""
    shown: list[WorkingCall] = []
    for call in calls:
        args = call.args
        if not isinstance(args, dict):
            if args is None or args == "":
                if call.origin == "additional_kwargs":
                    continue
                args = {}
            elif isinstance(args, str):
                args = partial_value(args)
                if call.origin == "additional_kwargs" and args is not None and not args:
                    args = {}
            if not isinstance(args, dict):
                continue
        call.args = args
        call.name = match(call.raw_name)
        shown.append(call)
    return shown
