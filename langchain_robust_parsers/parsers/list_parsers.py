"""Robust twins of langchain-core's list parsers: comma-separated, numbered and Markdown lists.

Each reads every common way of writing a list (numbered ``1.``/``1)``/``(1)``, bulleted
``-``/``*``/``•``, comma-separated with quotes and a final "and", one item a line), its own
kind preferred, and streams item by item as LangChain's do.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any, ClassVar, cast

from langchain_core.messages import BaseMessage
from langchain_core.output_parsers import (
    BaseTransformOutputParser,
    CommaSeparatedListOutputParser,
    MarkdownListOutputParser,
    NumberedListOutputParser,
)
from langchain_core.runnables import RunnableConfig

from langchain_robust_parsers.engine.errors import EngineError
from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.engine.stats import LIST, ParseStats
from langchain_robust_parsers.engine.text_values.lists import ListKind, ListStream, read_list
from langchain_robust_parsers.parsers.boundary import engine_call, output_parser_error
from langchain_robust_parsers.parsers.message_text import (
    atraced_transform,
    chunk_text,
    traced_transform,
)
from langchain_robust_parsers.parsers.text_formats import TextValueParser
from langchain_robust_parsers.parsers.vocabulary import OnError

__all__ = [
    "RobustCommaSeparatedListOutputParser",
    "RobustMarkdownListOutputParser",
    "RobustNumberedListOutputParser",
]


class _RobustList(TextValueParser):
    """The parse, report and streaming methods the three list parsers share."""

    value_format: ClassVar[str] = LIST
    list_kind: ClassVar[ListKind]

    def _read(self, text: str) -> tuple[list[str], ParseReport]:
        return read_list(text, self.list_kind)

    def _message(self, text: str, exc: Exception) -> str:
        return f"Could not read a list from completion {text}. Got: {exc}"

    def _degraded(self) -> list[str]:
        return []

    def _as_parser(self) -> BaseTransformOutputParser[list[str]]:
        # Every concrete list parser is one (this class is mixed into langchain-core's).
        return cast("BaseTransformOutputParser[list[str]]", self)

    def transform(
        self,
        input: Iterator[str | BaseMessage],
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> Iterator[list[str]]:
        """Stream items as the text arrives; message chunks become text before tracing."""
        yield from traced_transform(self._as_parser(), input, config, "skip")

    async def atransform(
        self,
        input: AsyncIterator[str | BaseMessage],
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[list[str]]:
        """Async `transform`."""
        async for item in atraced_transform(self._as_parser(), input, config, "skip"):
            yield item

    def _transform(self, input: Iterator[str | BaseMessage]) -> Iterator[list[str]]:
        stream = ListStream(self.list_kind)
        for chunk in input:
            for item in stream.feed(chunk_text(chunk, "skip")):
                yield [item]
        for item in self._close(stream):
            yield [item]

    async def _atransform(
        self, input: AsyncIterator[str | BaseMessage]
    ) -> AsyncIterator[list[str]]:
        stream = ListStream(self.list_kind)
        async for chunk in input:
            for item in stream.feed(chunk_text(chunk, "skip")):
                yield [item]
        for item in self._close(stream):
            yield [item]

    def _close(self, stream: ListStream) -> list[str]:
        """The stream's last items; a refusal raises the error `parse` raises (or gives
        nothing more under ``on_error="fallback"``)."""
        try:
            with engine_call(self.get_name(), f"reading {LIST}"):
                return stream.close()
        except EngineError as exc:
            if self.on_error == "fallback":
                return []
            text = stream.text()
            raise output_parser_error(self._message(text, exc), text, exc) from exc


class _PatternList(_RobustList):
    """A list parser whose LangChain parent reads by a ``pattern`` field: a pattern the user
    set is honoured exactly as the parent honours it; the default one is read robustly."""

    langchain_parent: ClassVar[type[NumberedListOutputParser | MarkdownListOutputParser]]

    if TYPE_CHECKING:  # the parent's field
        pattern: str

    def _read(self, text: str) -> tuple[list[str], ParseReport]:
        parent = self.langchain_parent
        if self.pattern != parent.model_fields["pattern"].default:
            return parent.parse(cast(Any, self), text), ParseReport("whole", 0, len(text))
        return read_list(text, self.list_kind)


class RobustCommaSeparatedListOutputParser(_RobustList, CommaSeparatedListOutputParser):
    """``CommaSeparatedListOutputParser`` that also reads a lead-in (``Here they are: a, b``),
    brackets, a final "and" and full stop, a fence, or a list written one item a line or with
    markers."""

    list_kind: ClassVar[ListKind] = "comma"
    stats: ParseStats | None = None
    """Outcome counters (format ``"list"``) updated on every final parse; shareable."""
    on_error: OnError = "raise"
    """A refusal (``I'm sorry, I can't list those.``): ``"raise"`` ``OutputParserException``,
    or ``"fallback"``: return ``[]``. Other text with no list gives ``[]`` either way."""

    @classmethod
    def is_lc_serializable(cls) -> bool:
        return False  # LangChain's serializer would load it back as the parent class

    @property
    def _type(self) -> str:
        return "robust_comma_separated_list"


class RobustNumberedListOutputParser(_PatternList, NumberedListOutputParser):
    """``NumberedListOutputParser`` that also reads ``1)``, ``(1)``, a list on one line, bullets
    or one item a line when the model used no numbers, and emphasis around an item."""

    list_kind: ClassVar[ListKind] = "numbered"
    langchain_parent: ClassVar[type[NumberedListOutputParser]] = NumberedListOutputParser
    stats: ParseStats | None = None
    """Outcome counters (format ``"list"``) updated on every final parse; shareable."""
    on_error: OnError = "raise"
    """A refusal (``I'm sorry, I can't list those.``): ``"raise"`` ``OutputParserException``,
    or ``"fallback"``: return ``[]``. Other text with no list gives ``[]`` either way."""

    @property
    def _type(self) -> str:
        return "robust_numbered_list"


class RobustMarkdownListOutputParser(_PatternList, MarkdownListOutputParser):
    """``MarkdownListOutputParser`` that also reads ``•`` and ``+`` bullets, numbers when the
    model used them instead, one item a line, and emphasis around an item."""

    list_kind: ClassVar[ListKind] = "bulleted"
    langchain_parent: ClassVar[type[MarkdownListOutputParser]] = MarkdownListOutputParser
    stats: ParseStats | None = None
    """Outcome counters (format ``"list"``) updated on every final parse; shareable."""
    on_error: OnError = "raise"
    """A refusal (``I'm sorry, I can't list those.``): ``"raise"`` ``OutputParserException``,
    or ``"fallback"``: return ``[]``. Other text with no list gives ``[]`` either way."""

    @property
    def _type(self) -> str:
        return "robust_markdown_list"
