"""``RobustXMLOutputParser``: langchain-core's ``XMLOutputParser`` over the tolerant XML reader."""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator, Callable, Iterator
from types import ModuleType
from typing import Any
from xml.etree import ElementTree

from langchain_core.messages import BaseMessage
from langchain_core.output_parsers import XMLOutputParser
from langchain_core.outputs import ChatGeneration, Generation
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.utils import AddableDict

from langchain_robust_parsers.engine.content_blocks import content_text
from langchain_robust_parsers.engine.errors import EngineError, TextEngineError
from langchain_robust_parsers.engine.markup.xml_reader import (
    MAX_DEPTH,
    Element,
    TooDeepXmlError,
    XmlStream,
    read_xml,
    tree_depth,
)
from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.engine.stats import XML, ParseStats
from langchain_robust_parsers.parsers.boundary import engine_call, output_parser_error
from langchain_robust_parsers.parsers.message_text import (
    atraced_transform,
    chunk_text,
    traced_transform,
)
from langchain_robust_parsers.parsers.stop_reason import (
    OnTruncation,
    raise_if_truncated,
    refuse_cut,
    stop_reason_cut,
)
from langchain_robust_parsers.parsers.text_formats import (
    final_parse,
    published_with_report,
)
from langchain_robust_parsers.parsers.vocabulary import OnError, ReportingParser

__all__ = ["RobustXMLOutputParser"]


def _load_defusedxml() -> ModuleType | None:
    try:
        return importlib.import_module("defusedxml.ElementTree")
    except ImportError:
        return None


_DEFUSED = _load_defusedxml()


class RobustXMLOutputParser(ReportingParser, XMLOutputParser):
    """Parse the XML of a model's output into ``XMLOutputParser``'s dict, tolerating what
    models write: unescaped ``&`` and ``<`` in text, unclosed or misspelt closing tags, no root
    element, a fence or prose around the XML, ``<think>`` blocks, a cut-off answer.

    Well-formed XML is read by ``defusedxml`` when it is installed (the ``[xml]`` extra);
    anything else by the package's own reader, which never defines or expands an entity and
    never fetches anything, so it needs no ``defusedxml`` to be safe.
    """

    @property
    def OutputType(self) -> Any:
        """``dict[str, Any]``, declared: langchain-core 0.3 would infer the stream's input type."""
        return dict[str, Any]

    on_truncation: OnTruncation = "complete"
    """A cut-off answer (elements left open at the end of the text, or a provider stop reason
    such as ``finish_reason="length"``): ``"complete"`` it by closing them (the report says
    ``truncated``), or ``"raise"`` ``TruncatedOutputError`` (a stream raises it at its end)."""

    stats: ParseStats | None = None
    """Outcome counters (format ``"xml"``) updated on every final parse; shareable."""

    on_error: OnError = "raise"
    """Text with no XML: ``"raise"`` ``OutputParserException``, or ``"fallback"``: return ``{}``
    (counted as ``fallback``)."""

    def parse(self, text: str) -> dict[str, str | list[Any]]:
        """The dict of the XML in ``text``; raises ``OutputParserException`` when there is none
        (the exception's ``llm_output`` is the raw text), or with ``on_error="fallback"``
        returns ``{}``."""
        return self.parse_with_report(text)[0]

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """The dict of ``result[0]``; a chat generation's stop reason is read too (see
        ``on_truncation``)."""
        if partial or not result or not isinstance(result[0], ChatGeneration):
            return super().parse_result(result, partial=partial)
        return self.parse_with_report(result[0].message)[0]

    def parse_with_report(self, text: str | BaseMessage) -> tuple[dict[str, Any], ParseReport]:
        """The dict of ``text`` with what was located and repaired to obtain it (given a
        message, its stop reason is read too)."""
        stop_reason = None
        if isinstance(text, BaseMessage):
            stop_reason, text = stop_reason_cut(text), content_text(text.content)
        empty: dict[str, Any] = {}
        final = final_parse(self.get_name(), XML, text, self._read, _message, self.on_error, empty)
        final = refuse_cut(final, self.get_name(), XML, text, self.on_truncation, stop_reason)
        return published_with_report(final, self.stats)

    def _read(self, text: str) -> tuple[dict[str, Any], ParseReport]:
        strict = self._strict(text)
        if strict is not None:
            return strict
        return read_xml(text, self.tags)

    def _strict(self, text: str) -> tuple[dict[str, Any], ParseReport] | None:
        """Well-formed XML, the whole text, read by defusedxml (C speed, LangChain's reading)."""
        stripped = text.strip()
        if _DEFUSED is None or not stripped.startswith("<") or "<!" in stripped:
            return None
        try:
            root = _DEFUSED.fromstring(stripped)
        except (ElementTree.ParseError, ValueError):  # DefusedXmlException is a ValueError
            return None
        if tree_depth(root) > MAX_DEPTH:
            raise TooDeepXmlError
        start = len(text) - len(text.lstrip())
        return self._root_to_dict(root), ParseReport("whole", start, start + len(stripped))

    # ---------------------------------------------------------------- streaming

    def transform(
        self,
        input: Iterator[str | BaseMessage],
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> Iterator[dict[str, Any]]:
        """Stream the document as the text arrives; message chunks become text before tracing."""
        yield from traced_transform(self, input, config, "skip")

    async def atransform(
        self,
        input: AsyncIterator[str | BaseMessage],
        config: RunnableConfig | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[dict[str, Any]]:
        """Async `transform`."""
        async for item in atraced_transform(self, input, config, "skip"):
            yield item

    def _transform(self, input: Iterator[str | BaseMessage]) -> Iterator[AddableDict]:
        emitter = _Emitter(self.get_name())
        for chunk in input:
            yield from emitter.feed(chunk_text(chunk, "skip"))
        self._refuse_cut_stream(emitter.texts)
        yield from emitter.close()

    async def _atransform(
        self, input: AsyncIterator[str | BaseMessage]
    ) -> AsyncIterator[AddableDict]:
        emitter = _Emitter(self.get_name())
        async for chunk in input:
            for item in emitter.feed(chunk_text(chunk, "skip")):
                yield item
        self._refuse_cut_stream(emitter.texts)
        for item in emitter.close():
            yield item

    def _refuse_cut_stream(self, texts: list[str]) -> None:
        """Under ``on_truncation="raise"``, raise ``TruncatedOutputError`` for a cut-off
        stream before its completed elements are emitted."""
        if self.on_truncation != "raise":
            return
        text = "".join(texts)
        try:
            with engine_call(self.get_name(), "reading cut-off XML"):
                cut = bool(read_xml(text, self.tags)[1].truncated)
        except EngineError:
            return  # no XML: the stream fails as it would have
        raise_if_truncated(self.get_name(), "raise", None, text, text_cut=cut)

    @property
    def _type(self) -> str:
        return "robust_xml"


class _Emitter:
    """LangChain's streaming shape: each closed element with no child element, nested in its
    ancestors' tags (``{"a": [{"b": [{"c": "text"}]}]}``). A document the reader refuses (too
    deep) ends the stream with ``OutputParserException``, the text so far attached."""

    def __init__(self, parser: str) -> None:
        self.parser = parser
        self.stream = XmlStream()
        self.texts: list[str] = []  # for the exception, and for a cut at the end

    def feed(self, text: str) -> Iterator[AddableDict]:
        self.texts.append(text)
        return self._emit(self.stream.feed, text)

    def close(self) -> Iterator[AddableDict]:
        return self._emit(lambda _: self.stream.close(), "")

    def _emit(
        self, read: Callable[[str], list[tuple[list[str], Element]]], text: str
    ) -> Iterator[AddableDict]:
        try:
            with engine_call(self.parser, "reading streamed XML"):
                closed = read(text)
        except TextEngineError as exc:
            so_far = "".join(self.texts)
            raise output_parser_error(_message(so_far, exc), so_far, exc) from exc
        for path, element in closed:
            if not element.children:
                yield _nested(path, element.tag, element.text)


def _nested(path: list[str], tag: str, text: str | None) -> AddableDict:
    value = AddableDict({tag: text})
    for ancestor in reversed(path):
        value = AddableDict({ancestor: [value]})
    return value


def _message(text: str, exc: Exception) -> str:
    return f"Failed to parse XML format from completion {text}. Got: {exc}"
