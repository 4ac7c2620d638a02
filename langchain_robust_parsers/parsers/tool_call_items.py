"""The working parts of the tool-call parsers: the items and reports they return, one call on
its way through a parse, the calls of a message, and what a stream yields step by step.

Split from `langchain_robust_parsers.parsers.tools` (which re-exports the public names);
`typed_text_calls` types calls read from text by the bound tools' schemas.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from typing_extensions import TypedDict

from langchain_robust_parsers.engine import ParseReport, Repair, decode
from langchain_robust_parsers.engine.calls.parsed_call import ParsedCall
from langchain_robust_parsers.engine.calls.schema_types import ToolSchemas, type_calls
from langchain_robust_parsers.engine.calls.tool_args import RENAME_REPAIR
from langchain_robust_parsers.engine.errors import EngineError
from langchain_robust_parsers.engine.stats import Outcome
from langchain_robust_parsers.parsers.boundary import engine_call
from langchain_robust_parsers.parsers.json_streaming import JsonValueStream
from langchain_robust_parsers.parsers.report_events import FinalParse, ParseEvent
from langchain_robust_parsers.parsers.tool_stream import (
    MANY,
    StreamedCall,
    StreamedList,
    ToolCallStream,
    streamed,
)

if TYPE_CHECKING:
    from langchain_robust_parsers.parsers.tools import RobustJsonOutputToolsParser

__all__ = [
    "ToolCallItem",
    "ToolCallItemWithId",
    "ToolCallReport",
    "ToolsParseEvent",
    "ToolsParseReport",
    "typed_text_calls",
]

logger = logging.getLogger("langchain_robust_parsers")


MAX_TOKENS_HINT = (
    "The model stopped at its output token limit (max_tokens): the arguments are likely "
    "incomplete. Increase max_tokens or shorten the prompt."
)

CHAT_ONLY = "This output parser can only be used with a chat generation."

ToolCallOrigin = Literal[
    "tool_calls", "invalid_tool_calls", "tool_call_chunks", "additional_kwargs", "text"
]
"""Where a call came from: the message's valid ``tool_calls``, its ``invalid_tool_calls``, the
(streamed) ``tool_call_chunks``, OpenAI's raw ``additional_kwargs["tool_calls"]``, or the text."""


class ToolCallItem(TypedDict):
    """One call as the tools parsers return it (``return_id=False``)."""

    args: dict[str, Any]
    type: str


class ToolCallItemWithId(TypedDict):
    """One call as the tools parsers return it with ``return_id=True``."""

    args: dict[str, Any]
    id: str | None
    type: str


# --------------------------------------------------------------------------- reports


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


@dataclass(frozen=True)
class ToolsParseEvent(ParseEvent):
    """A `ParseEvent` that also lists what was done per call (``calls`` in its data)."""

    calls: tuple[ToolCallReport, ...] = ()

    def to_data(self) -> dict[str, Any]:
        data = super().to_data()
        data["calls"] = [c.to_dict() for c in self.calls]
        return data


# --------------------------------------------------------------------------- calls


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
            return decode(text, allow_truncated=True)[0]
    except EngineError:
        return None


def args_version(call: WorkingCall) -> int:
    """The streamed call's argument version, ``0`` while its arguments are ``{}``: the empty
    object a stream shows before any argument text arrives equals the decoder's first value,
    and arguments only grow, so an empty object is always a call's first value."""
    if call.state is None or not call.args:
        return 0
    return call.state.args_version


def stream_entry(call: WorkingCall, return_id: bool) -> tuple[Any, ...]:
    """What a stream's output shows of one call, cheaply: its argument version, its name and
    (``return_id``) its id (``StreamSteps.advance`` inlines it)."""
    return (args_version(call), call.name, return_id and call.id)


class StreamSteps:
    """What a stream yields, step by step: a value when it differs from the last one yielded
    (langchain-core's ``parsed != prev``), decided from the calls' versions when the same calls
    are shown (see ``_signature``), by comparing values otherwise.

    When the chunk changed one shown call and nothing else (``ToolCallStream.touched``), only
    that call's item is made again: the others are shared with the value yielded before, which
    is never changed (`advance`). Anything else goes the whole way (`_whole`).
    `feed` takes one chunk of ``stream`` all the way, the usual one the short way.
    """

    def __init__(
        self,
        parser: RobustJsonOutputToolsParser,
        stream: ToolCallStream,
        *,
        call_items: bool = False,
    ) -> None:
        """``call_items``: the parser's items are langchain-core's call dicts (``args``, ``id``
        under ``return_id``, ``type``), made here without a call to ``_stream_item``."""
        self._parser = parser
        self._stream = stream
        self._call_items = call_items
        self.fresh = True  # no chunk looked at yet
        self._prev: Any = None
        self._prev_sig: tuple[Any, ...] | None = None
        self._yielded = False
        # The last whole step, when its calls came from ``tool_call_chunks`` and the parser
        # has signatures: each shown call's position among the output's items (-1: shown but
        # not in the output), and per item the call, its signature entry and the item.
        self._where: dict[StreamedCall, int] | None = None
        self._calls: list[WorkingCall] = []
        self._entries: list[Any] = []
        self._items: list[Any] = []
        self._make_item = parser._stream_item
        self._first_only = parser.first_tool_only
        self._return_id = parser.return_id
        self._diff_mode = parser.diff
        # The usual chunk's call (``ToolCallStream.last``), its decoder and its position in the
        # output (see `feed`): they hold until a chunk goes the whole way or a step is
        # worked out by `advance`, which both clear them.
        self._hot: tuple[StreamedCall, JsonValueStream, int] | None = None

    def feed(self, message: BaseMessage | str, text: str) -> Any:
        """The item to yield for one more chunk of the stream (``text`` its text), or ``None``:
        ``ToolCallStream.push`` then `advance`. The usual chunk (one piece of more
        arguments of the call the last chunk fed, a call the output shows) goes the short way,
        fused: each field of the message read once, only that call's item made again."""
        hot = self._hot
        if hot is None:
            hot = self._heat()
            if hot is None:
                return self._feed(message, text)
        if type(message) is not AIMessageChunk:  # the cheapest test (a subclass: the whole way)
            return self._feed(message, text)
        pieces = message.tool_call_chunks
        if pieces is None or len(pieces) != 1:  # None: set by hand after validation
            return self._feed(message, text)
        piece = pieces[0]
        if piece.__class__ is not dict:
            return self._feed(message, text)
        last, decoder, pos = hot
        try:  # `is_more_args` (tool_stream.py), with text to decode
            index, name, call_id, args = piece["index"], piece["name"], piece["id"], piece["args"]
        except KeyError:
            return self._feed(message, text)
        if (
            index.__class__ is not int
            or index != last.index
            or name
            or (call_id and call_id != last.id)
            or not args
            or args.__class__ is not str
        ):
            return self._feed(message, text)
        # What `push` does with this chunk, in its order.
        stream = self._stream
        kept = stream.kept_text
        if kept is not None and text:
            kept.append(text)
        meta = message.response_metadata
        if meta:
            stream.note_stop(meta)
        value = decoder.push(args)
        if value is not None:  # as `StreamedCall.push_args` (``args_seen`` is already set)
            last.value = value
            last.args_version += 1
            last.version += 1
        stream.touched = None if value is None else last
        kwargs = message.additional_kwargs
        if kwargs and "tool_calls" in kwargs:
            stream.raw_deltas(kwargs["tool_calls"])
        if value is None:
            return None  # the calls shown did not change: `advance` would say so
        if value.__class__ is not dict:
            return self.advance(stream)
        return self._remake(pos, last, value)

    def _heat(self) -> tuple[StreamedCall, JsonValueStream, int] | None:
        """What `feed` needs for the usual chunk, when the stream is where it can take
        one: the last call shown in the output, its arguments begun."""
        last = self._stream.last
        where = self._where
        if last is None or where is None or last.decoder is None:
            return None
        pos = where.get(last)
        if pos is None or pos < 0 or not isinstance(last.value, dict):
            return None
        self._hot = (last, last.decoder, pos)
        return self._hot

    def _feed(self, message: BaseMessage | str, text: str) -> Any:
        """`feed` the whole way."""
        self._hot = None
        if self._stream.push(message, text) or self.fresh:
            return self.advance(self._stream)
        return None

    def advance(self, stream: ToolCallStream) -> Any:
        """The item to yield for the calls a stream now shows, or ``None``.

        When the last chunk changed one shown call and nothing else, only that call's item is
        made again (the hot path of a stream, in one method).
        """
        self._hot = None
        call = stream.touched
        where = self._where
        if where is None or call is MANY:
            return self._whole(self._parser._stream_calls(stream))
        if call is None:
            return None
        pos = where.get(call)
        shown = not call.args_seen or isinstance(call.value, dict)
        if pos is None:
            if not shown:
                return None  # hidden before and now
            if call is not stream.chunk_calls[-1]:
                return self._whole(self._parser._stream_calls(stream))
            return self._append(call)
        if not shown:
            return self._whole(self._parser._stream_calls(stream))
        if pos < 0:
            return None  # shown, not in the output
        return self._remake(pos, call, call.value if call.args_seen else {})

    def _remake(self, pos: int, call: StreamedCall, args: Any) -> Any:
        """The step when ``call``, shown at ``pos`` in the output, changed and nothing else: its
        arguments are now ``args``."""
        working = self._calls[pos]
        working.args = args
        working.id = call.id
        # ``stream_entry``, inlined (the hot path); the name did not change.
        entries = self._entries
        old = entries[pos]
        version = call.args_version if args else 0
        if version == old[0] and (not self._return_id or call.id == old[2]):
            return None
        entries[pos] = (version, working.name, self._return_id and call.id)
        items = self._items
        if not self._call_items:
            items[pos] = self._make_item(working)
        elif self._return_id:
            items[pos] = {"args": args, "id": working.id, "type": working.name}
        else:
            items[pos] = {"args": args, "type": working.name}
        self._prev_sig = None  # the next whole step compares values
        # As ``_stream_shape`` makes it: the item of the first call, or a new list.
        value = items[0] if self._first_only else StreamedList(items)
        if self._diff_mode or not self._yielded:
            return self._emit(value)
        self._prev = value
        return value

    def _append(self, call: StreamedCall) -> Any:
        """The step when ``call``, the last chunked call, is shown for the first time: its
        item follows the others when the parser selects it (``_select`` keeps the calls that
        pass a test, in order, only the first under ``first_tool_only``)."""
        parser = self._parser
        working = parser._stream_working(call)
        where = self._where
        assert where is not None
        selected = parser._select([working])
        if not selected or (self._first_only and self._calls):
            where[call] = -1
            return None
        where[call] = len(self._calls)
        self._calls.append(working)
        self._entries.append(stream_entry(working, self._return_id))
        self._items.append(self._make_item(working))
        self._prev_sig = None  # the next whole step compares values
        return self._emit(parser._stream_shape(self._items.copy()))

    def _whole(self, calls: list[WorkingCall]) -> Any:
        """The step from all the calls shown (``calls``), compared with the last step."""
        self.fresh = False
        parser = self._parser
        sig = parser._signature(calls)
        self._where = None
        if sig is not None and calls and calls[0].origin == "tool_call_chunks":
            self._keep(calls)
        if sig is not None and sig == self._prev_sig:
            return None
        if self._where is not None:
            parsed = parser._stream_shape(self._items.copy())
        else:
            parsed = parser._output(calls, partial=True)
        if parsed is None:
            return None
        prev_sig = self._prev_sig
        same_calls = (
            sig is not None
            and prev_sig is not None
            and len(sig) == len(prev_sig)
            and all(a[0] is b[0] and a[0] is not None for a, b in zip(sig, prev_sig, strict=True))
        )
        self._prev_sig = sig
        if not same_calls and parsed == self._prev:
            return None  # the same value (``sig`` now describes it too)
        return self._emit(parsed)

    def _keep(self, calls: list[WorkingCall]) -> None:
        """Remember a whole step for the short way of `advance`."""
        parser = self._parser
        selected = parser._select(calls)
        where: dict[StreamedCall, int] = {}
        for call in calls:
            if call.state is not None:
                where[call.state] = -1
        for pos, call in enumerate(selected):
            if call.state is None:
                return
            where[call.state] = pos
        self._where = where
        self._calls = selected
        self._entries = [stream_entry(c, self._return_id) for c in selected]
        self._items = [self._make_item(c) for c in selected]

    def last(self, final: FinalParse[Any]) -> Any:
        """The item to yield for the final parse of the whole stream, or ``None``."""
        if final.error is not None or final.value is None or final.value == self._prev:
            return None
        return self._emit(final.value)

    def _emit(self, value: Any) -> Any:
        out = self._parser._diff(self._prev, value) if self._diff_mode else value
        self._prev = value
        self._yielded = True
        return streamed(out)


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
