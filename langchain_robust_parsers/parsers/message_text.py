"""The text a parser reads from a ``str`` or a message (chunk), and what a refusal does.

One rule for every parser, with one switch for a refusal content block (a model declining to
answer, as OpenAI's and Anthropic's chat models report it):

- ``"raise"``: langchain-core's ``ModelRefusalError`` (1.7.5 and later; on earlier versions the
  block is skipped), as langchain-core's JSON, Pydantic and tool-call parsers do. Our JSON,
  Pydantic, tools, function-call and ReAct parsers use it.
- ``"skip"``: the refusal's text is left out, as langchain-core's XML and list parsers read a
  message (its text blocks only). Our XML and list parsers use it.
- ``"text"``: the refusal's text is read as the answer. :class:`DialogOutputParser` uses it: it
  never raises by design, so a refusal becomes a turn.

``message.text`` is a method in langchain-core 0.3 and a property in 1.x, so the content is read
directly (:func:`~langchain_robust_parsers.engine.content_blocks.content_text`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from typing import Literal, TypeVar

from langchain_core.messages import BaseMessage
from langchain_core.output_parsers.transform import BaseTransformOutputParser
from langchain_core.runnables import RunnableConfig

from langchain_robust_parsers.engine.content_blocks import content_text
from langchain_robust_parsers.parsers.report_events import check_refusal_message

__all__ = [
    "RefusalRule",
    "atexts_for_tracing",
    "atraced_transform",
    "chunk_text",
    "texts_for_tracing",
    "traced_transform",
]

T = TypeVar("T")

RefusalRule = Literal["raise", "skip", "text"]
"""What a refusal content block does: raise ``ModelRefusalError``, be skipped, or be read."""


def _raising(chunk: str | BaseMessage) -> str:
    if isinstance(chunk, str):
        return chunk
    check_refusal_message(chunk)
    return content_text(chunk.content)


def _skipping(chunk: str | BaseMessage) -> str:
    return chunk if isinstance(chunk, str) else content_text(chunk.content)


def _reading(chunk: str | BaseMessage) -> str:
    return chunk if isinstance(chunk, str) else content_text(chunk.content, refusals=True)


_READERS: dict[str, Callable[[str | BaseMessage], str]] = {
    "raise": _raising,
    "skip": _skipping,
    "text": _reading,
}


def chunk_text(chunk: str | BaseMessage, refusal: RefusalRule = "raise") -> str:
    """The text of a ``str`` or a message (chunk): a string content, or its text blocks joined;
    a refusal block follows ``refusal`` (see the module's notes for which parser uses which)."""
    return _READERS[refusal](chunk)


def texts_for_tracing(
    chunks: Iterable[str | BaseMessage], refusal: RefusalRule = "raise"
) -> Iterator[str]:
    """``chunks`` as text, for a streaming parser to hand to LangChain's tracing, which would
    otherwise merge every message chunk into the previous ones (quadratic in the stream)."""
    return map(_READERS[refusal], chunks)


async def atexts_for_tracing(
    chunks: AsyncIterator[str | BaseMessage], refusal: RefusalRule = "raise"
) -> AsyncIterator[str]:
    """Async :func:`texts_for_tracing`."""
    read = _READERS[refusal]
    async for chunk in chunks:
        yield read(chunk)


def traced_transform(
    parser: BaseTransformOutputParser[T],
    chunks: Iterator[str | BaseMessage],
    config: RunnableConfig | None,
    refusal: RefusalRule = "raise",
    transformer: Callable[[Iterator[str | BaseMessage]], Iterator[T]] | None = None,
) -> Iterator[T]:
    """``parser.transform`` with message chunks turned to text before LangChain's tracing sees
    them (:func:`texts_for_tracing`): what every streaming parser's ``transform`` returns.
    ``transformer`` reads the texts (``parser._transform`` by default)."""
    return parser._transform_stream_with_config(
        texts_for_tracing(chunks, refusal),
        transformer or parser._transform,
        config,
        run_type="parser",
    )


def atraced_transform(
    parser: BaseTransformOutputParser[T],
    chunks: AsyncIterator[str | BaseMessage],
    config: RunnableConfig | None,
    refusal: RefusalRule = "raise",
    transformer: Callable[[AsyncIterator[str | BaseMessage]], AsyncIterator[T]] | None = None,
) -> AsyncIterator[T]:
    """Async :func:`traced_transform`."""
    return parser._atransform_stream_with_config(
        atexts_for_tracing(chunks, refusal),
        transformer or parser._atransform,
        config,
        run_type="parser",
    )
