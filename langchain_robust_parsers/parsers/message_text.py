"""The text a parser reads from a ``str`` or a message (chunk), and what a refusal does.

One rule for every parser, with one switch for a refusal content block (a model declining to
answer, as OpenAI's and Anthropic's chat models report it):

- ``"raise"``: langchain-core's ``ModelRefusalError`` (1.7.5 and later; on earlier versions the
  block is skipped), as langchain-core's JSON, Pydantic and tool-call parsers do. Our JSON,
  Pydantic, tools, function-call and ReAct parsers use it.
- ``"skip"``: the refusal's text is left out, as langchain-core's XML and list parsers read a
  message (its text blocks only). Our XML and list parsers use it.
- ``"text"``: the refusal's text is read as the answer. `DialogOutputParser` uses it: it
  never raises by design, so a refusal becomes a turn.

``message.text`` is a method in langchain-core 0.3 and a property in 1.x, so the content is read
directly (`content_text`).

LangChain's tracing adds a stream's input chunks up (merging message chunks: quadratic in the
length of the stream), so the streaming parsers hand it the chunks' text (`traced_transform`;
`texts_with_side_channel` also hands the messages to the tools parsers).
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from typing import Any, Literal, TypeVar

import langchain_core.exceptions as lc_exceptions
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.output_parsers.transform import BaseTransformOutputParser
from langchain_core.outputs import ChatGeneration, Generation
from langchain_core.runnables import RunnableConfig

from langchain_robust_parsers.engine.content_blocks import content_text
from langchain_robust_parsers.engine.stream_texts import (
    FirstText,
    StreamEnd,
    awithout_marks,
    traced_texts,
    without_marks,
)

__all__ = [
    "RefusalRule",
    "StreamEnd",
    "apaired_messages",
    "atexts_for_tracing",
    "atexts_with_side_channel",
    "atraced_transform",
    "check_refusal",
    "check_refusal_message",
    "chunk_text",
    "generation_text",
    "texts_for_tracing",
    "texts_with_side_channel",
    "traced_transform",
]

T = TypeVar("T")

RefusalRule = Literal["raise", "skip", "text"]
"""What a refusal content block does: raise ``ModelRefusalError``, be skipped, or be read."""


_REFUSAL_ERROR: Any = getattr(lc_exceptions, "ModelRefusalError", None)
"""langchain-core's ``ModelRefusalError`` (1.7.5 and later), or ``None`` before it existed."""


def check_refusal_message(message: BaseMessage) -> None:
    """Raise langchain-core's ``ModelRefusalError`` when ``message`` holds a refusal content
    block, as langchain-core's own JSON and Pydantic parsers do (1.7.5 and later); a no-op on
    versions without it. Read through the public ``content_blocks`` of the message."""
    if _REFUSAL_ERROR is None:
        return
    for block in message.content_blocks:
        if block.get("type") == "refusal":
            raise _REFUSAL_ERROR.from_refusal(block, raw_message=message)


def check_refusal(generation: Generation) -> None:
    """`check_refusal_message` for a chat generation's message (a no-op for other ones)."""
    if _REFUSAL_ERROR is not None and isinstance(generation, ChatGeneration):
        check_refusal_message(generation.message)


def chunk_text(chunk: str | BaseMessage, refusal: RefusalRule = "raise") -> str:
    """The text of a ``str`` or a message (chunk): a string content, or its text blocks joined;
    a refusal block follows ``refusal`` (see the module's notes for which parser uses which)."""
    if isinstance(chunk, str):
        return chunk
    if refusal == "raise":
        check_refusal_message(chunk)
    return content_text(chunk.content, refusals=refusal == "text")


def generation_text(generation: Generation, refusal: RefusalRule = "raise") -> str:
    """The text a parser reads from ``generation``: a chat message's by `chunk_text` (its
    content, not ``message.text``, a method in langchain-core 0.3), else its ``text``."""
    message = generation.message if isinstance(generation, ChatGeneration) else None
    return generation.text if message is None else chunk_text(message, refusal)


def texts_for_tracing(
    chunks: Iterable[str | BaseMessage], refusal: RefusalRule = "raise"
) -> Iterator[str]:
    """``chunks`` as text, for a streaming parser to hand to LangChain's tracing (which would
    otherwise merge every message chunk into the previous ones), then `StreamEnd`: LangChain's
    sum of them is the whole text, joined once (`langchain_robust_parsers.engine.stream_texts`)."""
    return traced_texts(map(chunk_text, chunks, itertools.repeat(refusal)))


async def atexts_for_tracing(
    chunks: AsyncIterator[str | BaseMessage], refusal: RefusalRule = "raise"
) -> AsyncIterator[str]:
    """Async `texts_for_tracing`."""
    first = True
    async for chunk in chunks:
        yield FirstText(chunk_text(chunk, refusal)) if first else chunk_text(chunk, refusal)
        first = False
    yield StreamEnd()


def traced_transform(
    parser: BaseTransformOutputParser[T],
    chunks: Iterator[str | BaseMessage],
    config: RunnableConfig | None,
    refusal: RefusalRule = "raise",
    transformer: Callable[[Iterator[str | BaseMessage]], Iterator[T]] | None = None,
) -> Iterator[T]:
    """``parser.transform`` with message chunks turned to text before LangChain's tracing sees
    them (`texts_for_tracing`): what every streaming parser's ``transform`` returns.
    ``transformer`` reads the texts (``parser._transform`` by default)."""
    read = transformer or parser._transform

    def without_end(texts: Iterator[str | BaseMessage]) -> Iterator[T]:
        return read(without_marks(texts))

    return parser._transform_stream_with_config(
        texts_for_tracing(chunks, refusal), without_end, config, run_type="parser"
    )


def atraced_transform(
    parser: BaseTransformOutputParser[T],
    chunks: AsyncIterator[str | BaseMessage],
    config: RunnableConfig | None,
    refusal: RefusalRule = "raise",
    transformer: Callable[[AsyncIterator[str | BaseMessage]], AsyncIterator[T]] | None = None,
) -> AsyncIterator[T]:
    """Async `traced_transform`."""
    read = transformer or parser._atransform

    def without_end(texts: AsyncIterator[str | BaseMessage]) -> AsyncIterator[T]:
        return read(awithout_marks(texts))

    return parser._atransform_stream_with_config(
        atexts_for_tracing(chunks, refusal), without_end, config, run_type="parser"
    )


def texts_with_side_channel(
    chunks: Iterable[BaseMessage | str], side: deque[BaseMessage | str]
) -> Iterator[str]:
    """The text of each chunk, for tracing; each chunk itself is appended to ``side`` first.

    The parser pops one message from ``side`` per text item it reads (`apaired_messages`
    does it for the async parser): in order, whatever the buffering between the two
    (``itertools.tee``). A refusal raises here
    (langchain-core's ``ModelRefusalError``, 1.7.5 and later).
    """
    append = side.append
    refused = None if _REFUSAL_ERROR is None else check_refusal_message  # looked up once
    for chunk in chunks:
        append(chunk)
        # The exact class first: `isinstance` walks a message's long MRO.
        if type(chunk) is AIMessageChunk or not isinstance(chunk, str):
            if refused is not None:
                refused(chunk)
            content = chunk.content
            yield content if content.__class__ is str else content_text(content)
        else:
            yield chunk


async def atexts_with_side_channel(
    chunks: AsyncIterator[BaseMessage | str], side: deque[BaseMessage | str]
) -> AsyncIterator[str]:
    """Async `texts_with_side_channel`."""
    async for chunk in chunks:
        side.append(chunk)
        yield chunk_text(chunk)


async def apaired_messages(
    texts: AsyncIterator[str], side: deque[BaseMessage | str]
) -> AsyncIterator[tuple[BaseMessage | str, str]]:
    """Each message of ``side`` with its text from ``texts`` (the async parser's half of
    `texts_with_side_channel`)."""
    async for text in texts:
        yield side.popleft(), text
