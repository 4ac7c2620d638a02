"""Streaming for the tool-call parsers: LangChain's ``transform`` over the engine's
`ToolCallStream` (one incremental decoder per call) and `StreamSteps` (what to yield), ending on
the final parse of the whole stream, so a stream ends where ``invoke`` ends. Tracing sees the
chunks' text; the messages reach the parser through a side channel (`texts_with_side_channel`)."""

from __future__ import annotations

import functools
from collections import deque
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.output_parsers.transform import BaseCumulativeTransformOutputParser
from langchain_core.runnables import RunnableConfig

from langchain_robust_parsers.engine import decode
from langchain_robust_parsers.engine.calls.tool_call_stream import ToolCallStream
from langchain_robust_parsers.engine.calls.tool_stream_steps import CallOutputRules, StreamSteps
from langchain_robust_parsers.engine.errors import EngineError
from langchain_robust_parsers.engine.stats import ParseStats
from langchain_robust_parsers.parsers.boundary import engine_call
from langchain_robust_parsers.parsers.message_text import (
    apaired_messages,
    atexts_with_side_channel,
    texts_with_side_channel,
)
from langchain_robust_parsers.parsers.report_events import FinalParse, apublish, publish

__all__ = ["CHAT_ONLY", "StreamingToolsParser", "partial_value"]

CHAT_ONLY = "This output parser can only be used with a chat generation."
"""langchain-core's message when a parser that reads chat messages is given text."""


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


class StreamingToolsParser(BaseCumulativeTransformOutputParser[Any]):
    """Linear-time ``transform``/``atransform`` for the tool-call parsers (a mixin): subclasses
    say how their output is made of the calls shown (`_output_rules`) and what the whole stream
    parses to (`_stream_final`)."""

    if TYPE_CHECKING:  # pydantic fields of the parser classes using the mixin
        text_fallback: bool
        stats: ParseStats | None

    def _output_rules(self) -> CallOutputRules:
        raise NotImplementedError

    def _stream_final(self, stream: ToolCallStream) -> FinalParse[Any]:
        raise NotImplementedError

    def transform(
        self,
        input: Iterator[str | BaseMessage],
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> Iterator[Any]:
        """Stream the calls as their arguments arrive. Tracing sees the chunks' text, never a
        merge of message chunks (see ``parsers/message_text.py``)."""
        side: deque[BaseMessage | str] = deque()
        run = functools.partial(self._stream, side=side)
        texts = texts_with_side_channel(input, side)
        yield from self._transform_stream_with_config(texts, run, config, run_type="parser")

    async def atransform(
        self,
        input: AsyncIterator[str | BaseMessage],
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[Any]:
        """Async `transform`."""
        side: deque[BaseMessage | str] = deque()

        def run(texts: AsyncIterator[Any]) -> AsyncIterator[Any]:
            return self._astream(apaired_messages(texts, side))

        texts = atexts_with_side_channel(input, side)
        async for chunk in self._atransform_stream_with_config(
            texts, run, config, run_type="parser"
        ):
            yield chunk

    def _transform(self, input: Iterator[str | BaseMessage]) -> Iterator[Any]:
        """langchain-core's hook, for callers that use it directly: messages or text."""
        side: deque[BaseMessage | str] = deque()
        return self._stream(texts_with_side_channel(input, side), side)

    async def _atransform(self, input: AsyncIterator[str | BaseMessage]) -> AsyncIterator[Any]:
        side: deque[BaseMessage | str] = deque()
        async for value in self._astream(
            apaired_messages(atexts_with_side_channel(input, side), side)
        ):
            yield value

    def _steps(self) -> tuple[ToolCallStream, StreamSteps]:
        """A new stream of calls and the steps of what it yields."""
        read = functools.partial(partial_value, self.get_name())
        stream = ToolCallStream(read, keep_text=self.text_fallback)
        return stream, StreamSteps(self._output_rules(), stream, chunk_type=AIMessageChunk)

    @staticmethod
    def _last(final: FinalParse[Any], step: StreamSteps) -> list[Any]:
        """What a stream yields last: its final parse's value unless already yielded; its
        error is raised, so a stream fails where ``invoke`` fails."""
        if final.error is not None:
            raise final.error
        out = step.last(final.value)
        return [] if out is None else [out]

    def _stream(self, texts: Iterator[str], side: deque[BaseMessage | str]) -> Iterator[Any]:
        """The values of a stream: the chunks' ``texts``, each chunk waiting in ``side`` (see
        ``texts_with_side_channel``)."""
        stream, step = self._steps()
        feed, pop = step.feed, side.popleft
        for text in texts:
            out = feed(pop(), text)
            if out is not None:
                yield out
        final = self._stream_final(stream)
        publish(final.event, self.stats)
        yield from self._last(final, step)

    async def _astream(
        self, pairs: AsyncIterator[tuple[BaseMessage | str, str]]
    ) -> AsyncIterator[Any]:
        stream, step = self._steps()
        async for message, text in pairs:
            out = step.feed(message, text)
            if out is not None:
                yield out
        final = self._stream_final(stream)
        await apublish(final.event, self.stats)
        for out in self._last(final, step):
            yield out
