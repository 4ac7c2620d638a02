"""A stream's texts, handed on one by one and added up into the whole text once.

A consumer that adds a stream's texts together with ``+`` (LangChain's tracing does, after the
stream) copies the whole text so far at each addition: quadratic in the length of an answer
streamed in small chunks. `traced_texts` marks the first text (`FirstText`) and the end
(`StreamEnd`), so that such a sum collects the texts in a list (`TextSum`) and joins them
once, as a plain ``str``. The texts are the ones the consumer already keeps, so none is kept
twice. `without_marks` gives a reader of the same stream plain texts and no end mark.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any, TypeVar

__all__ = [
    "FirstText",
    "StreamEnd",
    "TextSum",
    "awithout_marks",
    "traced_texts",
    "without_marks",
]

Item = TypeVar("Item")


class FirstText(str):
    """The first text of a stream: a ``str`` whose sum with the next text is a `TextSum`."""

    __slots__ = ()

    def __add__(self, other: object) -> Any:
        if not isinstance(other, str):
            return NotImplemented
        return TextSum(self) + other


class StreamEnd(str):
    """The empty text after a stream's last one: added to a `TextSum`, it joins it."""

    __slots__ = ()


class TextSum:
    """A stream's texts as they are added up: collected in a list, joined once into a plain
    ``str`` when `StreamEnd` is added."""

    __slots__ = ("_parts",)

    def __init__(self, first: str) -> None:
        self._parts = [str(first)]

    def __add__(self, other: object) -> Any:
        if not isinstance(other, str):
            return NotImplemented
        if other.__class__ is StreamEnd:
            return "".join(self._parts)
        self._parts.append(other)
        return self


def traced_texts(texts: Iterator[str]) -> Iterator[str]:
    """``texts``, the first one as a `FirstText`, then `StreamEnd`."""
    first = next(texts, None)
    if first is not None:
        yield FirstText(first)
        yield from texts
    yield StreamEnd()


def _unmarked(item: Any) -> Any:
    """``item`` as a reader takes it: a `FirstText` as a plain ``str``, ``None`` for the
    `StreamEnd`, anything else as it is."""
    kind = item.__class__
    if kind is StreamEnd:
        return None
    return str(item) if kind is FirstText else item


def without_marks(items: Iterable[Item]) -> Iterator[Item]:
    """``items`` (texts of `traced_texts`, or other items) as a reader takes them."""
    for item in items:
        if item.__class__ is str:  # almost every text: the check is per chunk
            yield item
        elif (read := _unmarked(item)) is not None:
            yield read


async def awithout_marks(items: AsyncIterator[Item]) -> AsyncIterator[Item]:
    """Async `without_marks`."""
    async for item in items:
        if item.__class__ is str:
            yield item
        elif (read := _unmarked(item)) is not None:
            yield read
