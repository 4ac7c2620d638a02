"""Linear-time streaming of one JSON value: text chunks in, the successive values they spell out.

A cumulative parser re-reads all the text so far on every chunk and compares the whole value
with the previous one: quadratic in the length of the stream. `JsonValueStream` sends each chunk
once through `JsonStreamDecoder`, which says whether the value changed, and builds a snapshot
only then. The first kilobyte or so of plain JSON is re-read by jiter instead
(``plain_partial``), and plain JSON in chunks of `WINDOW_MIN_CHUNK` characters or more then goes
on through `WindowDecoder`, which re-reads only the element still open; either hands the whole
text to the decoder once as soon as it is not plain.

Text the decoder cannot follow without look-ahead (an unescaped inner quote, a missing comma)
is handed to the complete-text engine instead, re-read only each time the stream has grown by
`REPARSE_GROWTH`, so the total work stays linear. The caller parses the whole text once
more when the stream ends, so that the last value is always what a complete parse gives.

Every list a stream yields is a `StreamedList`, whose sum with a later one is the later
one: callers that add a stream's values together (tracing does) get the last value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from langchain_robust_parsers.engine.json.locate import payload_start
from langchain_robust_parsers.engine.json.plain_partial import (
    JSON_WS,
    NOT_PLAIN,
    HandOver,
    complete_value,
    partial_value,
    plain_start,
)
from langchain_robust_parsers.engine.json.snapshot_diff import same_json
from langchain_robust_parsers.engine.lexicon import reasoning
from langchain_robust_parsers.engine.repair_log import RepairLog
from langchain_robust_parsers.engine.report import ParseReport, Source

if TYPE_CHECKING:
    from langchain_robust_parsers.engine.json.stream_decoder import JsonStreamDecoder
    from langchain_robust_parsers.engine.json.window_stream import WindowDecoder

__all__ = [
    "REPARSE_GROWTH",
    "REPARSE_MAX_SIZE",
    "REPARSE_MIN_GROWTH",
    "WINDOW_MIN_CHUNK",
    "JsonValueStream",
    "StreamedList",
    "streamed",
]

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

    A stream of the JSON and tool-call parsers yields states of one value (or, with
    ``diff=True``, patches), not pieces of it. LangChain adds a stream's yielded values together
    with ``+`` wherever it needs one value for the whole stream (the traced output of
    ``on_parser_end``/``on_chain_end``, ``astream_events``, the input a following runnable
    collects): for plain lists that concatenates every snapshot, quadratic in the stream and
    wrong as a value. With this type the sum is the last value, on every langchain-core version,
    through nothing but ``+``. Adding any other list concatenates as usual, and nothing is ever
    changed in place.
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

    With ``headless``, a stream of a whole answer (not tool arguments) that opens with prose
    is held back until it shows, by the rule a complete parse applies
    (`reasoning.headless_settled`, auto mode), whether it starts in reasoning the chat template
    opened: a lone closing marker (the values then come from the text after it, as a complete
    parse reads them), an opener, or the end of the stream. A value from the reasoning is
    therefore never yielded as a state of the answer, however long the reasoning is.
    ``template_opens``: ``True`` holds the text back up to the first closing marker (all of it
    when none comes); ``False`` holds nothing (see `reasoning.headless_end`).
    """

    def __init__(
        self,
        reparse: Callable[[str], Any],
        *,
        headless: bool = False,
        template_opens: bool | None = None,
    ) -> None:
        self._reparse = reparse
        # the text may still be reasoning the template opened: held back
        self._watch = headless and template_opens is not False
        self._opens = template_opens
        self._hold = reasoning.TemplateHold(template_opens)
        self._head = ""  # a headless reasoning block, skipped
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
        if self._watch:
            if self._held(chunk):
                return None
            chunk = self._body()  # nothing was read while held
        if not self._small:
            return self._decode(chunk, moved=False)
        self._chunks += 1
        if self._hand_over.reread_pays(self._size, len(chunk)):
            value = self._small_value()
            if value is not NOT_PLAIN:
                return None if value is None else self.settle(value)
        # The next reader reads the whole text once: what it would have cost from the start.
        self._small = False
        text = self._body()
        if self._size < WINDOW_MIN_CHUNK * self._chunks or not plain_start(text):
            return self._decode(text, moved=True)
        window = self._window = _window_decoder()
        if window.feed(text):
            return self.settle(window.snapshot())
        return None if not window.failed else self._leave_window()

    def _held(self, chunk: str) -> bool:
        """Whether the text so far (the last ``chunk`` new) is still held back as possible
        headless reasoning; when it no longer is, a headless block found is skipped (`_head`)."""
        if not self._hold.settled(chunk):
            return True
        text = self._body()
        self._watch = False
        end = payload_start(text, RepairLog(), self._opens)
        if end > 0:  # reasoning the template opened: the answer starts after it
            self._head = text[:end]
            rest = text[end:]
            self._parts = [rest] if rest else []
            self._size = len(rest)
        return False

    def _leave_window(self) -> Any:
        """The text is not plain JSON after all: the decoder reads it all once."""
        self._window = None
        return self._decode(self._body(), moved=True)

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
        return self.settle(self._reparse(self._body()))

    def _small_value(self) -> Any:
        """The value by jiter's re-read, ``None`` before the payload starts, or
        `NOT_PLAIN`."""
        text = self._body()
        start = plain_start(text)
        if start is None:
            return None
        if not start:
            return NOT_PLAIN
        return partial_value(text)

    def clean_result(self) -> tuple[Any, ParseReport] | None:
        """The final value and its report when the stream was strict JSON in a standard place
        (see ``JsonStreamDecoder.clean``), so that parsing the whole text again is not needed."""
        if self._head or self._watch:
            return None  # reasoning to skip, or text never read: a complete parse decides
        if self._small:
            text = self._body()
            value = complete_value(text)
            if value is NOT_PLAIN:
                return None
            start = len(text) - len(text.lstrip(JSON_WS))
            return value, ParseReport(source="whole", start=start, end=len(text.rstrip(JSON_WS)))
        window = self._window
        if window is not None:
            if not window.done:
                return None
            text = self._body()
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
        return self._head + self._body() if self._head else self._body()

    def _body(self) -> str:
        """The text so far after a skipped headless reasoning block: what the readers read."""
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
        if value is None or (self._last is not None and same_json(value, self._last)):
            return None
        self._last = value
        return value
