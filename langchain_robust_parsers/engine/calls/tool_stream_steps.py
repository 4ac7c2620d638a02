"""What a tool-call stream yields, step by step: a value when the calls shown changed, made
again only for the call a chunk changed (linear time in the arguments, whatever the number of
calls).

The parser says how calls become its output (`CallOutputRules`: which calls it returns,
the item of one call, the shape of the output, JSON patches or not); `StreamSteps` says
when to yield and keeps every value yielded unchanged (the next one is a new list).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from langchain_robust_parsers.engine.calls.tool_call_reports import ToolCallOrigin
from langchain_robust_parsers.engine.calls.tool_call_resolution import WorkingCall
from langchain_robust_parsers.engine.calls.tool_call_stream import (
    MANY,
    MessageLike,
    StreamedCall,
    ToolCallStream,
)
from langchain_robust_parsers.engine.json.snapshot_diff import same_json
from langchain_robust_parsers.engine.json.value_stream import (
    JsonValueStream,
    StreamedList,
    streamed,
)

__all__ = [
    "CallOutputRules",
    "StreamSteps",
    "args_version",
    "final_calls",
    "shown_calls",
    "stream_entry",
    "working_call",
]


@dataclass(frozen=True)
class CallOutputRules:
    """How a tools parser turns the calls a stream shows into its output."""

    first_only: bool
    """Only the first selected call is returned (its item, or ``None``), not a list."""
    return_id: bool
    """Items carry the call's id; a changed id changes the output."""
    call_items: bool
    """Items are the call dicts ``{"args", "id" (under ``return_id``), "type"}``, made here."""
    item: Callable[[WorkingCall], Any]
    """The item of one selected call."""
    select: Callable[[list[WorkingCall]], list[WorkingCall]]
    """The calls the output shows, in order."""
    shape: Callable[[list[Any]], Any]
    """The output made of the selected calls' items (a new list, kept as is)."""
    signature: Callable[[list[WorkingCall]], tuple[Any, ...] | None]
    """What of the calls the output shows, cheaply; ``None``: compare values."""
    output: Callable[[list[WorkingCall]], Any]
    """The partial output of the calls shown, the whole way."""
    match: Callable[[str], str]
    """The bound name a written name stands for (the name itself when none)."""
    diff: Callable[[Any, Any], Any] | None = None
    """JSON-patch operations from one output to the next (``None``: yield outputs)."""


def working_call(call: StreamedCall, match: Callable[[str], str]) -> WorkingCall:
    """A chunked call as a stream shows it (arguments ``{}`` before any arrived)."""
    return WorkingCall(
        call.name,
        call.value if call.args_seen else {},
        call.id,
        "tool_call_chunks",
        name=match(call.name),
        state=call,
    )


def shown_calls(stream: ToolCallStream, match: Callable[[str], str]) -> list[WorkingCall]:
    """The calls a stream shows now, as langchain-core's accumulated message shows them: the
    chunked calls whose arguments are an object so far (none yet counts as ``{}``), else the raw
    OpenAI calls that have decoded arguments."""
    calls = [
        working_call(c, match)
        for c in stream.chunk_calls
        if not c.args_seen or isinstance(c.value, dict)
    ]
    if calls or not stream.raw_key:
        return calls
    return [
        WorkingCall(c.name, c.value or {}, c.id, "additional_kwargs", name=match(c.name), state=c)
        for c in stream.raw_values()
        if c.has_function and c.value is not None and (isinstance(c.value, dict) or not c.value)
    ]


def final_calls(stream: ToolCallStream) -> list[WorkingCall]:
    """The calls a whole stream accumulated, for its final parse: the chunked calls, else the
    raw OpenAI calls that named a function; a strict-JSON argument text comes decoded."""
    source: ToolCallOrigin
    if stream.chunk_calls:
        source, streamed_calls = "tool_call_chunks", stream.chunk_calls
    else:
        source = "additional_kwargs"
        streamed_calls = [c for c in stream.raw_calls if c.has_function]
    return [
        WorkingCall(
            c.name,
            c.args_text() if c.args_seen else None,
            c.id,
            source,
            decoded=c.clean_args(),
        )
        for c in streamed_calls
    ]


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
    are shown (see ``CallOutputRules.signature``), by comparing values otherwise.

    When the chunk changed one shown call and nothing else (``ToolCallStream.touched``), only
    that call's item is made again: the others are shared with the value yielded before, which
    is never changed (`advance`). Anything else goes the whole way (`_whole`).
    `feed` takes one chunk of ``stream`` all the way, the usual one the short way.
    """

    def __init__(
        self, rules: CallOutputRules, stream: ToolCallStream, *, chunk_type: type[Any]
    ) -> None:
        """``chunk_type``: the class of the message chunks the usual chunk comes in (LangChain's
        ``AIMessageChunk``); a chunk of another class goes the whole way."""
        self._rules = rules
        self._stream = stream
        self._chunk_type = chunk_type
        self._call_items = rules.call_items
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
        self._make_item = rules.item
        self._first_only = rules.first_only
        self._return_id = rules.return_id
        self._diff_mode = rules.diff is not None
        # The usual chunk's call (``ToolCallStream.last``), its decoder and its position in the
        # output (see `feed`): they hold until a chunk goes the whole way or a step is
        # worked out by `advance`, which both clear them.
        self._hot: tuple[StreamedCall, JsonValueStream, int] | None = None

    def feed(self, message: Any, text: str) -> Any:
        """The item to yield for one more chunk of the stream (``text`` its text), or ``None``:
        ``ToolCallStream.push`` then `advance`. The usual chunk (one piece of more
        arguments of the call the last chunk fed, a call the output shows) goes the short way,
        fused: each field of the message read once, only that call's item made again."""
        hot = self._hot
        if hot is None:
            hot = self._heat()
            if hot is None:
                return self._feed(message, text)
        if type(message) is not self._chunk_type:  # the cheapest test (a subclass: whole way)
            return self._feed(message, text)
        pieces = message.tool_call_chunks
        if pieces is None or len(pieces) != 1:  # None: set by hand after validation
            return self._feed(message, text)
        piece = pieces[0]
        if piece.__class__ is not dict:
            return self._feed(message, text)
        last, decoder, pos = hot
        try:  # `is_more_args` (tool_call_stream.py), with text to decode
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

    def _feed(self, message: MessageLike | str, text: str) -> Any:
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
            return self._whole(shown_calls(stream, self._rules.match))
        if call is None:
            return None
        pos = where.get(call)
        shown = not call.args_seen or isinstance(call.value, dict)
        if pos is None:
            if not shown:
                return None  # hidden before and now
            if call is not stream.chunk_calls[-1]:
                return self._whole(shown_calls(stream, self._rules.match))
            return self._append(call)
        if not shown:
            return self._whole(shown_calls(stream, self._rules.match))
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
        # As ``CallOutputRules.shape`` makes it: the item of the first call, or a new list.
        value = items[0] if self._first_only else StreamedList(items)
        if self._diff_mode or not self._yielded:
            return self._emit(value)
        self._prev = value
        return value

    def _append(self, call: StreamedCall) -> Any:
        """The step when ``call``, the last chunked call, is shown for the first time: its
        item follows the others when the parser selects it (``CallOutputRules.select`` keeps the
        calls that pass a test, in order, only the first under ``first_only``)."""
        rules = self._rules
        working = working_call(call, rules.match)
        where = self._where
        assert where is not None
        selected = rules.select([working])
        if not selected or (self._first_only and self._calls):
            where[call] = -1
            return None
        where[call] = len(self._calls)
        self._calls.append(working)
        self._entries.append(stream_entry(working, self._return_id))
        self._items.append(self._make_item(working))
        self._prev_sig = None  # the next whole step compares values
        return self._emit(rules.shape(self._items.copy()))

    def _whole(self, calls: list[WorkingCall]) -> Any:
        """The step from all the calls shown (``calls``), compared with the last step."""
        self.fresh = False
        rules = self._rules
        sig = rules.signature(calls)
        self._where = None
        if sig is not None and calls and calls[0].origin == "tool_call_chunks":
            self._keep(calls)
        if sig is not None and sig == self._prev_sig:
            return None
        where = self._where
        parsed = rules.shape(self._items.copy()) if where is not None else rules.output(calls)
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
        selected = self._rules.select(calls)
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

    def last(self, value: Any) -> Any:
        """The item to yield for ``value``, the final parse of the whole stream, or ``None``."""
        if value is None or same_json(value, self._prev):
            return None
        return self._emit(value)

    def _emit(self, value: Any) -> Any:
        diff = self._rules.diff
        out = value if diff is None else diff(self._prev, value)
        self._prev = value
        self._yielded = True
        return streamed(out)
