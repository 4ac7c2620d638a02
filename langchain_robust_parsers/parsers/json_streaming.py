"""Streaming for the JSON and Pydantic parsers: LangChain's ``transform`` over the engine's
`JsonValueStream`, which reads each chunk once (linear time), and `SnapshotOutputs`, which says
what to yield; when the stream ends the whole text is parsed once more, so the last value
yielded is always what ``parse`` gives for the full text.

Message chunks are turned into text before LangChain's ``transform`` sees them: its tracing adds
every input chunk to the previous ones, which for ``AIMessageChunk`` merges messages, itself
quadratic in the length of the stream.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

import jsonpatch
from langchain_core.messages import BaseMessage
from langchain_core.output_parsers.transform import BaseCumulativeTransformOutputParser
from langchain_core.runnables import RunnableConfig

from langchain_robust_parsers.engine.errors import EngineError
from langchain_robust_parsers.engine.json.decode import decode
from langchain_robust_parsers.engine.json.snapshot_diff import growth_patch
from langchain_robust_parsers.engine.json.snapshot_outputs import SnapshotOutputs
from langchain_robust_parsers.engine.json.value_stream import JsonValueStream
from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.engine.stats import ParseStats
from langchain_robust_parsers.engine.stop_reason_watch import StopReasonWatch
from langchain_robust_parsers.parsers.boundary import engine_call, guarded_candidates
from langchain_robust_parsers.parsers.message_text import (
    atraced_transform,
    chunk_text,
    traced_transform,
)
from langchain_robust_parsers.parsers.report_events import FinalParse, apublish, publish

__all__ = ["StopReasonWatch", "StreamingJsonParser", "json_patch"]


def json_patch(prev: Any, next: Any) -> Any:
    """JSON-patch operations from ``prev`` to ``next``, as ``jsonpatch.make_patch`` gives them
    (``diff=True``); successive values of a stream are compared along their open path only."""
    ops = None if prev is None else growth_patch(prev, next)
    return jsonpatch.make_patch(prev, next).patch if ops is None else ops


class StreamingJsonParser(BaseCumulativeTransformOutputParser[Any]):
    """Linear-time ``transform``/``atransform`` for the JSON parsers (a mixin): subclasses say
    how a value is shown (`_stream_item`) and what a clean stream's text parses to
    (`_clean_final`); any other stream's text is parsed again once it ends."""

    if TYPE_CHECKING:  # the parsers' fields (each declares and documents them) and readers
        template_opens_reasoning: bool | None
        stats: ParseStats | None

        def _completes(self) -> bool: ...

        def _parse_final(self, text: str, stop_reason: str | None = None) -> FinalParse[Any]: ...

    def _stream_partial(self, text: str) -> Any:
        """The value of a stream prefix by the complete-text engine, or ``None``; never
        raises."""
        try:
            with engine_call(self.get_name(), "reading a partial JSON value"):
                return decode(text, allow_truncated=True, stream_prefix=True)[0]
        except EngineError:  # nothing to show yet
            return None

    def _text_cut(self, text: str) -> bool:
        """True when ``text`` holds only cut-off JSON (asked after a failure)."""
        try:
            with engine_call(self.get_name(), "reading cut-off JSON"):
                opens = self.template_opens_reasoning
                return bool(decode(text, allow_truncated=True, template_opens=opens)[1].truncated)
        except EngineError:
            return False

    def _stream_item(self, value: Any) -> Any:
        """What to yield for a JSON ``value`` (``None`` to skip it)."""
        return value

    def _stream_final(self, stream: JsonValueStream, stop_reason: str | None) -> FinalParse[Any]:
        """What ``parse`` gives for the whole streamed text, with the event that reports it.
        Its value is yielded last unless it equals the last item yielded; its error is raised,
        so a stream fails where ``invoke`` fails. ``stop_reason``: a chunk said the output
        token limit stopped the model."""
        clean = stream.clean_result()  # the value and report, when no second reading is needed
        if clean is not None and stop_reason is None:
            final = self._clean_final(*clean)
            if final is not None:
                return final
        return self._parse_final(stream.text(), stop_reason)

    def _clean_final(self, value: Any, report: ParseReport) -> FinalParse[Any] | None:
        """The final parse of a clean stream whose text gave ``value`` and ``report``, or
        ``None`` to parse the text again."""
        return None

    def _candidates(self, text: str) -> Iterator[tuple[Any, ParseReport]]:
        """The engine's JSON candidates of ``text`` in rank order (see `guarded_candidates`)."""
        return guarded_candidates(
            self.get_name(),
            text,
            allow_truncated=self._completes(),
            template_opens=self.template_opens_reasoning,
        )

    def _diff(self, prev: Any, next: Any) -> Any:
        return json_patch(prev, next)

    def _next_item(self, value: Any, prev: Any) -> Any:
        """The item to yield for a new ``value`` (``None`` for none). A value from the stream
        always differs from the one before; an item made from it may not (two partial JSON
        values can validate to equal models), so only then is it compared."""
        item = self._stream_item(value)
        if item is value or item is None:
            return item
        return None if item == prev else item

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
        """Whether every value from the stream is yielded as it is (no model, no patches): no
        item is made from it then."""
        return type(self)._stream_item is StreamingJsonParser._stream_item and not self.diff

    def _stream_start(self) -> tuple[JsonValueStream, SnapshotOutputs]:
        stream = JsonValueStream(
            self._stream_partial, headless=True, template_opens=self.template_opens_reasoning
        )
        item = None if self._plain_items() else self._next_item
        return stream, SnapshotOutputs(item, self._diff if self.diff else None)

    def _transform(
        self, input: Iterator[str | BaseMessage], watch: StopReasonWatch | None = None
    ) -> Iterator[Any]:
        stream, outputs = self._stream_start()
        push, show = stream.push, outputs.push
        for chunk in input:
            out = show(push(chunk if type(chunk) is str else chunk_text(chunk)))
            if out is not None:
                yield out
        final = self._stream_final(stream, watch.reason if watch else None)
        publish(final.event, self.stats)
        yield from outputs.last(final.unwrap())

    async def _atransform(
        self,
        input: AsyncIterator[str | BaseMessage],
        watch: StopReasonWatch | None = None,
    ) -> AsyncIterator[Any]:
        stream, outputs = self._stream_start()
        push, show = stream.push, outputs.push
        async for chunk in input:
            out = show(push(chunk if type(chunk) is str else chunk_text(chunk)))
            if out is not None:
                yield out
        final = self._stream_final(stream, watch.reason if watch else None)
        await apublish(final.event, self.stats)
        for last in outputs.last(final.unwrap()):
            yield last
