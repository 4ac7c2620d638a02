"""Linear-time streaming of tool calls: one incremental JSON decoder per tool-call index.

A cumulative tools parser adds every message chunk to the message so far (merging the
``tool_call_chunks`` of equal index by string concatenation, then re-parsing every call's whole
argument text) and compares the whole result with the previous one: quadratic in the length of
the arguments. Here each chunk's pieces go to the call they belong to: its name and id are
extended, and only the new argument text is fed to that call's
`JsonValueStream`, which says whether
the value changed. The argument text itself is kept as an append-only list of pieces.

A chunk's work does not grow with the number of calls: the usual chunk (more arguments of the
call the last chunk fed) goes straight to that call's decoder, and `ToolCallStream`
says which one call a chunk changed (``touched``), so that only that call's item is made again
(`tool_stream_steps`). The raw OpenAI deltas sent
beside the ``tool_call_chunks`` are only decoded if they are ever shown (no chunked call is):
otherwise every argument would be decoded twice.

Calls are merged as langchain-core merges ``tool_call_chunks`` (and the raw OpenAI deltas in
``additional_kwargs["tool_calls"]``): pieces with the same integer ``index`` (or ``lc_`` string
index) and no conflicting ids belong to one call, in order of first appearance; a piece without
an index is a call of its own.

Messages are read by their fields only (`MessageLike`), so the engine needs no message
class: a chunk has ``tool_call_chunks``, a whole message ``tool_calls`` and
``invalid_tool_calls``, and both ``response_metadata`` and ``additional_kwargs``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol

from langchain_robust_parsers.engine.json.value_stream import JsonValueStream
from langchain_robust_parsers.engine.lexicon.stop_reasons import cut_stop_reason
from langchain_robust_parsers.engine.report import ParseReport

__all__ = [
    "MANY",
    "MessageLike",
    "StreamedCall",
    "ToolCallStream",
    "is_more_args",
]


class MessageLike(Protocol):
    """The fields of a chat message chunk the stream reads (LangChain's ``AIMessageChunk`` has
    them; a whole ``AIMessage`` has ``tool_calls`` and ``invalid_tool_calls`` instead of
    ``tool_call_chunks``)."""

    response_metadata: dict[str, Any]
    additional_kwargs: dict[str, Any]


def is_more_args(piece: dict[str, Any], last: StreamedCall) -> bool:
    """Whether a chunk's only ``tool_call_chunks`` piece is nothing but more arguments of
    ``last`` (`ToolCallStream.last`): its index, no name, no other id."""
    index = piece.get("index")
    call_id = piece.get("id")
    return (
        index.__class__ is int
        and index == last.index
        and not piece.get("name")
        and (not call_id or call_id == last.id)
    )


def _mergeable(index: Any) -> bool:
    """langchain-core merges list items by an integer index, or a string one starting ``lc_``."""
    if isinstance(index, bool):
        return False
    return isinstance(index, int) or (isinstance(index, str) and index.startswith("lc_"))


class StreamedCall:
    """One tool call as it streams: its name, id and argument text so far.

    ``value`` is the partial argument value (``None`` until something decoded); ``version``
    grows whenever the name, id or value changed, ``args_version`` whenever the value changed
    (it is then different under ``!=``); ``cache`` is free for the parser (the Pydantic variant
    keeps its last validation there).

    A raw OpenAI call (``lazy``) only keeps its argument text until its value is asked for
    (`catch_up`): when a message also has ``tool_call_chunks`` (langchain-openai sends
    both), its raw calls are never shown and never decoded.
    """

    __slots__ = (
        "_pending",
        "_reparse",
        "args_closed",
        "args_seen",
        "args_version",
        "cache",
        "decoder",
        "has_function",
        "id",
        "index",
        "lazy",
        "name",
        "value",
        "version",
    )

    def __init__(self, index: Any, reparse: Callable[[str], Any], *, lazy: bool = False) -> None:
        self.index = index
        self._reparse = reparse
        self.id: str | None = None
        self.name = ""
        self.has_function = False
        self.args_seen = False
        self.args_closed = False
        """The argument text so far ends with a closer: no scalar at its end is still growing."""
        self.decoder: JsonValueStream | None = None
        """The decoder of the argument text, made when the first text arrives."""
        self._pending: list[str] = []
        self.lazy = lazy
        self.value: Any = None
        self.version = 0
        self.args_version = 0
        self.cache: Any = None

    def feed(self, name: Any, args: Any, call_id: Any) -> bool:
        """Extend the call with one piece; True when its name, id or value changed (for a
        ``lazy`` call, when argument text arrived: its value is not worked out yet)."""
        changed = False
        if isinstance(name, str) and name:
            self.name += name
            changed = True
        if isinstance(call_id, str) and call_id and not self.id:
            self.id = call_id
            changed = True
        if changed:
            self.version += 1
        if isinstance(args, str) and args:
            self.args_seen = True
            if self.lazy:
                self._pending.append(args)
                return True
            if self.push_args(args):
                return True
        return changed

    def push_args(self, args: str) -> bool:
        """Decode more argument text; True when the value changed (the versions are bumped).
        A value from `JsonValueStream` always differs from the one before it."""
        stream = self.decoder
        if stream is None:
            stream = self.decoder = JsonValueStream(self._reparse)
        value = stream.push(args)
        tail = args.rstrip()
        closed = self.args_closed if not tail else tail[-1] in "}]"
        if value is None:
            if closed and not self.args_closed:  # the last number is whole now
                self.args_closed = True
                self.version += 1
                return True
            self.args_closed = closed
            return False
        self.args_closed = closed
        self.value = value
        self.args_version += 1
        self.version += 1
        return True

    def catch_up(self) -> None:
        """Decode the argument text a ``lazy`` call kept, in one piece."""
        if self._pending:
            pending = self._pending
            self._pending = []
            self.push_args(pending[0] if len(pending) == 1 else "".join(pending))

    def args_text(self) -> str:
        """The whole argument text so far."""
        self.catch_up()
        return "" if self.decoder is None else self.decoder.text()

    def clean_args(self) -> tuple[Any, ParseReport] | None:
        """The final argument value and its report when the text was strict JSON."""
        self.catch_up()
        return None if self.decoder is None else self.decoder.clean_result()


class _CallList:
    """Calls of one source, merged by index as langchain-core merges them."""

    def __init__(self, reparse: Callable[[str], Any], *, lazy: bool = False) -> None:
        self._reparse = reparse
        self._lazy = lazy
        self.calls: list[StreamedCall] = []
        self._by_index: dict[Any, list[StreamedCall]] = {}
        self.created = 0
        """How many calls `find` made (the owner resets it)."""

    def at(self, index: Any) -> list[StreamedCall]:
        """The calls merged by ``index`` (a mergeable one)."""
        return self._by_index.get(index, [])

    def find(self, index: Any, call_id: Any) -> StreamedCall:
        mergeable = index.__class__ is int or _mergeable(index)
        if mergeable:
            for call in self._by_index.get(index, ()):
                if not call.id or not call_id or call.id == call_id:
                    return call
        call = StreamedCall(index, self._reparse, lazy=self._lazy)
        self.calls.append(call)
        self.created += 1
        if mergeable:
            self._by_index.setdefault(index, []).append(call)
        return call


MANY = object()
"""`ToolCallStream.touched` when the last chunk changed more than one call."""


class ToolCallStream:
    """The tool calls of a message stream, fed one message chunk at a time.

    ``chunk_calls`` come from ``tool_call_chunks`` (or the ``tool_calls`` and
    ``invalid_tool_calls`` of a whole ``AIMessage``), ``raw_calls`` from the OpenAI deltas in
    ``additional_kwargs["tool_calls"]`` (``raw_key`` says that key was seen; their values are
    worked out by `raw_values` only). The text content is kept (as pieces) when
    ``keep_text`` is set, for the text fallback at the end.

    After `push`, ``touched`` is the one chunked call the chunk changed or made (the
    others are as they were), `MANY`, or ``None`` when the chunk changed no chunked call.

    ``last`` is the call the usual chunk feeds (`is_more_args`): the call the last chunk
    fed, alone at its integer index (``find`` would return it for a piece of that index without
    an id, or with its own). ``StreamSteps.feed`` takes such a chunk the short way, doing what
    `push` does with it (``kept_text``, `note_stop`, `raw_deltas`).
    """

    def __init__(self, reparse: Callable[[str], Any], *, keep_text: bool) -> None:
        self._chunks = _CallList(reparse)
        self._raw = _CallList(reparse, lazy=True)
        self.raw_key = False
        self.cut_stop_reason: str | None = None  # a chunk said the token limit stopped it
        """A chunk said the model stopped at its output token limit."""
        self.kept_text: list[str] | None = [] if keep_text else None
        """The text pieces kept for the text fallback (``None``: not kept)."""
        self.touched: Any = None
        self.last: StreamedCall | None = None

    @property
    def chunk_calls(self) -> list[StreamedCall]:
        return self._chunks.calls

    @property
    def raw_calls(self) -> list[StreamedCall]:
        return self._raw.calls

    def raw_values(self) -> list[StreamedCall]:
        """The raw calls, their values worked out."""
        for call in self._raw.calls:
            call.catch_up()
        return self._raw.calls

    def text(self) -> str:
        """The text content of the stream so far (when kept)."""
        kept = self.kept_text
        if not kept:
            return ""
        if len(kept) > 1:
            kept[:] = ["".join(kept)]
        return kept[0]

    def note_stop(self, meta: dict[str, Any]) -> None:
        """Note a chunk's ``response_metadata`` saying the model stopped at its token limit."""
        reason = cut_stop_reason(meta) if meta else None
        if reason is not None:
            self.cut_stop_reason = reason

    def push(self, message: MessageLike | str, text: str) -> bool:
        """Consume one chunk (a message chunk, a whole message or text; see
        `MessageLike`) whose text is ``text``; True when a call changed."""
        self.touched = None
        kept = self.kept_text
        if kept is not None and text:
            kept.append(text)
        if isinstance(message, str):
            return False
        meta = message.response_metadata
        if meta:
            self.note_stop(meta)
        changed = False
        pieces = getattr(message, "tool_call_chunks", None)
        if pieces:
            last = self.last
            if last is not None and len(pieces) == 1 and is_more_args(pieces[0], last):
                # Only more arguments of the last call (the usual chunk): straight to it.
                args = pieces[0].get("args")
                if args and args.__class__ is str:
                    last.args_seen = True
                    changed = last.push_args(args)
                    if changed:
                        self.touched = last
            else:
                changed = self._pieces(pieces)
        elif pieces is None and hasattr(message, "invalid_tool_calls"):
            self._whole(message)
            changed = True
        kwargs = message.additional_kwargs
        if kwargs and "tool_calls" in kwargs and self.raw_deltas(kwargs["tool_calls"]):
            changed = True
        return changed

    def raw_deltas(self, deltas: Any) -> bool:
        """Consume the raw OpenAI deltas of a chunk (``additional_kwargs["tool_calls"]``); True
        when a raw call changed."""
        self.raw_key = True
        changed = False
        if isinstance(deltas, list):
            for delta in deltas:
                if isinstance(delta, dict) and self._raw_delta(delta):
                    changed = True
        return changed

    def _pieces(self, pieces: list[Any]) -> bool:
        calls = self._chunks
        find = calls.find
        touched: Any = None
        renamed: StreamedCall | None = None
        for piece in pieces:
            call_id = piece.get("id")
            call = find(piece.get("index"), call_id)
            name = piece.get("name")
            if call.feed(name, piece.get("args"), call_id):
                touched = call if touched is None or touched is call else MANY
                if isinstance(name, str) and name:
                    renamed = call
        if renamed is not None and renamed not in calls.calls[len(calls.calls) - calls.created :]:
            touched = MANY  # a shown call's name grew: what it matches may have changed
        if calls.created:
            # One new call (the last) and no other change: it is the one touched.
            if calls.created > 1 or touched not in (None, calls.calls[-1]):
                touched = MANY
            else:
                touched = calls.calls[-1]
            calls.created = 0
        # The call `push` may feed directly: alone at its index, so ``find`` would
        # return it for a piece of that index without an id (or with its own).
        self.last = None
        if len(pieces) == 1 and call.index.__class__ is int:
            self.last = call if len(calls.at(call.index)) == 1 else None
        self.touched = touched
        return touched is not None

    def _whole(self, message: Any) -> None:
        """A whole message in the stream: its calls, each on its own."""
        find = self._chunks.find
        for tc in message.tool_calls:
            call = find(None, tc.get("id"))
            call.feed(tc["name"], _dumps(tc["args"]), tc.get("id"))
        for itc in message.invalid_tool_calls:
            call = find(None, itc.get("id"))
            call.feed(itc.get("name"), itc.get("args"), itc.get("id"))
        self._chunks.created = 0
        self.touched = MANY

    def _raw_delta(self, delta: dict[str, Any]) -> bool:
        call_id = delta.get("id")
        call = self._raw.find(delta.get("index"), call_id)
        self._raw.created = 0
        function = delta.get("function")
        if not isinstance(function, dict):
            return call.feed(None, None, call_id)
        first = not call.has_function
        call.has_function = True
        changed = call.feed(function.get("name"), function.get("arguments"), call_id)
        if first and not changed:
            call.version += 1
        return changed or first


def _dumps(args: Any) -> str:
    try:
        return json.dumps(args)
    except (TypeError, ValueError):
        return "{}"
