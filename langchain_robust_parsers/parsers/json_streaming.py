"""Linear-time streaming for the JSON and Pydantic parsers.

langchain-core's cumulative parsers add every chunk to the text so far and re-parse all of it,
then compare the whole value with the previous one: quadratic in the length of the stream. Here
each chunk goes once through `JsonStreamDecoder`, which says whether the value changed, and a
snapshot is built only then.
The first kilobyte or so of plain JSON is re-read by jiter instead (``engine/json/plain_partial``),
and plain JSON in chunks of `WINDOW_MIN_CHUNK` characters or more then goes on through
`WindowDecoder`, which re-reads only the
element still open; either hands the whole text to the decoder once as soon as it is not plain.

Text the decoder cannot follow without look-ahead (an unescaped inner quote, a missing comma)
is handed to the complete-text engine instead, re-read only each time the stream has grown by
`REPARSE_GROWTH`, so the total work stays linear. When the stream ends, the whole text is
parsed once more: the last value yielded is always what ``parse`` gives for the full text.

Message chunks are turned into text before LangChain's ``transform`` sees them: its tracing adds
every input chunk to the previous ones, which for ``AIMessageChunk`` merges messages, itself
quadratic in the length of the stream. Tracing adds the yielded values together too, which for
lists (a JSON array, or ``diff=True`` patches) would concatenate every snapshot: every list
yielded is a `StreamedList`, whose sum is the last one.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import jsonpatch
from langchain_core.messages import BaseMessage
from langchain_core.output_parsers.transform import BaseCumulativeTransformOutputParser
from langchain_core.runnables import RunnableConfig

from langchain_robust_parsers.engine.json.plain_partial import (
    JSON_WS,
    NOT_PLAIN,
    HandOver,
    complete_value,
    partial_value,
    plain_start,
)
from langchain_robust_parsers.engine.json.snapshot_diff import growth_patch
from langchain_robust_parsers.engine.lexicon.stop_reasons import cut_stop_reason
from langchain_robust_parsers.engine.report import ParseReport, Source
from langchain_robust_parsers.engine.stats import ParseStats
from langchain_robust_parsers.parsers.message_text import (
    atraced_transform,
    chunk_text,
    traced_transform,
)
from langchain_robust_parsers.parsers.report_events import (
    FinalParse,
    apublish,
    publish,
)

if TYPE_CHECKING:
    from langchain_robust_parsers.engine.json.stream_decoder import JsonStreamDecoder
    from langchain_robust_parsers.engine.json.window_stream import WindowDecoder

WINDOW_MIN_CHUNK = 16
"""Average chunk length from which plain JSON leaving jiter's re-read goes to the
`WindowDecoder` rather than the incremental decoder: its fixed cost a chunk (a regex pass
and a jiter re-read of the open element) pays off against the decoder's cost per character."""

REPARSE_GROWTH = 1.5
"""In fallback mode the text is re-read when it has grown by this factor since the last read:
a geometric series, so all re-reads together cost a small multiple of the text."""

REPARSE_MIN_GROWTH = 256
"""Characters the text must grow by before a fallback re-read, so short streams are not re-read
on every chunk."""

REPARSE_MAX_SIZE = 1 << 18
"""Past this many characters (256 KiB), text the decoder cannot follow is no longer re-read while
it streams: only once, when it ends. The re-reads cost a few times the text at the lenient
scanner's speed (about a microsecond a character), which past a megabyte is seconds; a model's
broken answer that long is a runaway, and its final value is still exact."""


class StreamedList(list[Any]):
    """A list a stream yields: a ``list`` in every way, except that adding a later
    `StreamedList` gives that later list.

    A stream of these parsers yields states of one value (or, with ``diff=True``, patches), not
    pieces of it. LangChain adds a stream's yielded values together with ``+`` wherever it needs
    one value for the whole stream (the traced output of ``on_parser_end``/``on_chain_end``,
    ``astream_events``, the input a following runnable collects): for plain lists that
    concatenates every snapshot, quadratic in the stream and wrong as a value. With this type the
    sum is the last value, on every langchain-core version, through nothing but ``+``. Adding
    any other list concatenates as usual, and nothing is ever changed in place.
    """

    __slots__ = ()

    def __add__(self, other: Any) -> Any:
        if isinstance(other, StreamedList):
            return other
        return list.__add__(self, other)

    def __iadd__(self, other: Any) -> Any:
        if isinstance(other, StreamedList):
            return other
        return list.__iadd__(self, other)


def streamed(value: Any) -> Any:
    """``value`` as a stream yields it: a list becomes a `StreamedList`."""
    return StreamedList(value) if type(value) is list else value


class StopReasonWatch:
    """Passes a stream's chunks on, noting the provider's word when a message chunk says the
    output token limit stopped the model (providers send it on the last chunk): the final parse
    of a stream must see the cut that ``invoke`` sees."""

    __slots__ = ("reason",)

    def __init__(self) -> None:
        self.reason: str | None = None

    def _note(self, chunk: str | BaseMessage) -> None:
        meta = getattr(chunk, "response_metadata", None)
        if meta:
            self.reason = cut_stop_reason(meta) or self.reason

    def chunks(self, chunks: Iterable[str | BaseMessage]) -> Iterator[str | BaseMessage]:
        """``chunks``, as they are."""
        for chunk in chunks:
            if type(chunk) is not str:
                self._note(chunk)
            yield chunk

    async def achunks(
        self, chunks: AsyncIterator[str | BaseMessage]
    ) -> AsyncIterator[str | BaseMessage]:
        """``chunks``, as they are, asynchronously."""
        async for chunk in chunks:
            if type(chunk) is not str:
                self._note(chunk)
            yield chunk


def _stream_decoder() -> JsonStreamDecoder:
    """A new incremental decoder. The stream readers are imported with the first stream, not
    with the parsers: a parser that is only invoked never needs them."""
    from langchain_robust_parsers.engine.json.stream_decoder import JsonStreamDecoder

    return JsonStreamDecoder()


def _window_decoder() -> WindowDecoder:
    """A new windowed reader (imported with the first stream that uses one)."""
    from langchain_robust_parsers.engine.json.window_stream import WindowDecoder

    return WindowDecoder()


class JsonValueStream:
    """Turns text chunks into the successive JSON values they spell.

    ``reparse`` is the complete-text engine's partial parse (``None`` when nothing is found),
    used in fallback mode, when the incremental decoder cannot follow the text.
    """

    def __init__(self, reparse: Callable[[str], Any]) -> None:
        self._reparse = reparse
        self._decoder: JsonStreamDecoder | None = None  # made when first needed
        self._parts: list[str] = []
        self._size = 0
        self._next_reparse = 0
        self._last: Any = None
        self._small = True  # plain JSON read by jiter so far (see engine/json/plain_partial)
        self._hand_over = HandOver()
        self._window: WindowDecoder | None = None  # plain JSON followed by its structure
        self._chunks = 0

    def push(self, chunk: str) -> Any:
        """Consume ``chunk``; the new value, or ``None`` when it did not change."""
        if not chunk:
            return None
        self._parts.append(chunk)
        self._size += len(chunk)
        window = self._window
        if window is not None:  # the usual chunk of a long plain stream, first
            if window.feed(chunk):
                value = self._last = window.snapshot()
                return value
            return None if not window.failed else self._leave_window()
        if not self._small:
            return self._decode(chunk, moved=False)
        self._chunks += 1
        if self._hand_over.reread_pays(self._size, len(chunk)):
            value = self._small_value()
            if value is not NOT_PLAIN:
                return None if value is None else self.settle(value)
        # The next reader reads the whole text once: what it would have cost from the start.
        self._small = False
        text = self.text()
        if self._size < WINDOW_MIN_CHUNK * self._chunks or not plain_start(text):
            return self._decode(text, moved=True)
        window = self._window = _window_decoder()
        if window.feed(text):
            return self.settle(window.snapshot())
        return None if not window.failed else self._leave_window()

    def _leave_window(self) -> Any:
        """The text is not plain JSON after all: the decoder reads it all once."""
        self._window = None
        return self._decode(self.text(), moved=True)

    def _decode(self, chunk: str, *, moved: bool) -> Any:
        """``chunk`` through the incremental decoder, or the complete-text engine once the
        decoder gave up; ``moved`` when the reader has just taken over (see `_report`)."""
        decoder = self._decoder
        if decoder is None:
            decoder = self._decoder = _stream_decoder()
        if not decoder.failed:
            if decoder.feed(chunk):
                return self._report(decoder.snapshot(), moved)
            if not decoder.failed:
                return None
            self._next_reparse = self._size  # the decoder gave up: re-read now
        if self._size < self._next_reparse or self._size > REPARSE_MAX_SIZE:
            return None
        self._next_reparse = max(int(self._size * REPARSE_GROWTH), self._size + REPARSE_MIN_GROWTH)
        return self.settle(self._reparse(self.text()))

    def _small_value(self) -> Any:
        """The value by jiter's re-read, ``None`` before the payload starts, or
        `NOT_PLAIN`."""
        text = self.text()
        start = plain_start(text)
        if start is None:
            return None
        if not start:
            return NOT_PLAIN
        return partial_value(text)

    def clean_result(self) -> tuple[Any, ParseReport] | None:
        """The final value and its report when the stream was strict JSON in a standard place
        (see ``JsonStreamDecoder.clean``), so that parsing the whole text again is not needed."""
        if self._small:
            text = self.text()
            value = complete_value(text)
            if value is NOT_PLAIN:
                return None
            start = len(text) - len(text.lstrip(JSON_WS))
            return value, ParseReport(source="whole", start=start, end=len(text.rstrip(JSON_WS)))
        window = self._window
        if window is not None:
            if not window.done:
                return None
            text = self.text()
            start = len(text) - len(text.lstrip(JSON_WS))
            end = len(text.rstrip(JSON_WS))
            return window.snapshot(), ParseReport(source="whole", start=start, end=end)
        decoder = self._decoder
        if decoder is None or not decoder.clean:
            return None
        source: Source = "fenced" if decoder.fenced else "whole"
        return decoder.snapshot(), ParseReport(source=source, start=decoder.start, end=decoder.end)

    def text(self) -> str:
        """All the text so far."""
        if len(self._parts) > 1:
            self._parts = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    def _report(self, value: Any, moved: bool) -> Any:
        """``value``, which a reader reports as changed: compared with the last value only
        when the reader has just ``moved`` (took over from another, which may have shown it)."""
        if moved:
            return self.settle(value)
        self._last = value
        return value

    def settle(self, value: Any) -> Any:
        """``value`` when it differs from the last value returned, else ``None``."""
        if value is None or (self._last is not None and value == self._last):
            return None
        self._last = value
        return value


class StreamingJsonParser(BaseCumulativeTransformOutputParser[Any]):
    """Linear-time ``transform``/``atransform`` for the JSON parsers (a mixin).

    Subclasses say how a value is shown (`_stream_item`), how text is read when the
    incremental decoder gives up (`_stream_partial`) and what the whole text parses to
    (`_stream_final`, which also returns the event to publish once the stream ends).
    """

    def _stream_partial(self, text: str) -> Any:
        """The value of a stream prefix by the complete-text engine, or ``None``."""
        raise NotImplementedError

    def _stream_item(self, value: Any) -> Any:
        """What to yield for a JSON ``value`` (``None`` to skip it)."""
        return value

    def _stream_final(
        self,
        stream: JsonValueStream,
        clean: tuple[Any, ParseReport] | None,
        stop_reason: str | None = None,
    ) -> FinalParse[Any]:
        """What ``parse`` gives for the whole streamed text, with the event that reports it.
        Its value is yielded last unless it equals the last item yielded; its error is raised,
        so a stream fails where ``invoke`` fails. ``clean`` is the value and report when the
        stream needs no second reading; ``stop_reason``: a chunk said the output token limit
        stopped the model."""
        raise NotImplementedError

    def _diff(self, prev: Any, next: Any) -> Any:
        """JSON-patch operations from ``prev`` to ``next``, as ``jsonpatch.make_patch`` gives
        them; successive snapshots are compared along their open path only."""
        if prev is not None:
            ops = growth_patch(prev, next)
            if ops is not None:
                return ops
        return jsonpatch.make_patch(prev, next).patch

    def _output(self, prev: Any, item: Any) -> Any:
        """What to yield for ``item`` after ``prev`` (``None`` before the first): the item or
        its patch, a list as a `StreamedList`."""
        return streamed(self._diff(prev, item) if self.diff else item)

    def _next_item(self, value: Any, prev: Any) -> Any:
        """The item to yield for a new ``value`` (``None`` for none). A value from the stream
        always differs from the one before; an item made from it may not (two partial JSON
        values can validate to equal models), so only then is it compared."""
        if value is None:
            return None
        item = self._stream_item(value)
        if item is value or item is None:
            return item
        return None if item == prev else item

    @property
    def _stats(self) -> ParseStats | None:
        stats = getattr(self, "stats", None)
        return stats if isinstance(stats, ParseStats) else None

    def transform(
        self,
        input: Iterator[str | BaseMessage],
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> Iterator[Any]:
        """Stream values as the text arrives; message chunks become text before tracing."""
        watch = StopReasonWatch()
        transformer = functools.partial(self._transform, watch=watch)
        yield from traced_transform(self, watch.chunks(input), config, transformer=transformer)

    async def atransform(
        self,
        input: AsyncIterator[str | BaseMessage],
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[Any]:
        """Async `transform`."""
        watch = StopReasonWatch()
        transformer = functools.partial(self._atransform, watch=watch)
        async for chunk in atraced_transform(
            self, watch.achunks(input), config, transformer=transformer
        ):
            yield chunk

    def _plain_items(self) -> bool:
        """Whether every value from the stream is yielded as it is (no model, no patches): the
        per-chunk loops then skip the item and output steps."""
        return type(self)._stream_item is StreamingJsonParser._stream_item and not self.diff

    def _transform(
        self, input: Iterator[str | BaseMessage], watch: StopReasonWatch | None = None
    ) -> Iterator[Any]:
        stream = JsonValueStream(self._stream_partial)
        push = stream.push
        plain = self._plain_items()
        prev: Any = None
        for chunk in input:
            value = push(chunk if type(chunk) is str else chunk_text(chunk))
            if value is None:
                continue
            if plain:
                yield streamed(value)
                prev = value
                continue
            item = self._next_item(value, prev)
            if item is not None:
                yield self._output(prev, item)
                prev = item
        final = self._stream_final(stream, stream.clean_result(), watch.reason if watch else None)
        publish(final.event, self._stats)
        value = final.unwrap()
        if value != prev:  # a final None after values (an on_error fallback) is yielded too
            yield self._output(prev, value)

    async def _atransform(
        self,
        input: AsyncIterator[str | BaseMessage],
        watch: StopReasonWatch | None = None,
    ) -> AsyncIterator[Any]:
        stream = JsonValueStream(self._stream_partial)
        push = stream.push
        plain = self._plain_items()
        prev: Any = None
        async for chunk in input:
            value = push(chunk if type(chunk) is str else chunk_text(chunk))
            if value is None:
                continue
            if plain:
                yield streamed(value)
                prev = value
                continue
            item = self._next_item(value, prev)
            if item is not None:
                yield self._output(prev, item)
                prev = item
        final = self._stream_final(stream, stream.clean_result(), watch.reason if watch else None)
        await apublish(final.event, self._stats)
        value = final.unwrap()
        if value != prev:  # a final None after values (an on_error fallback) is yielded too
            yield self._output(prev, value)
