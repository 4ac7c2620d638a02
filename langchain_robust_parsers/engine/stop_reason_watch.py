"""The stop reason a stream reports: providers send it on the stream's last chunk, and the final
parse of a stream must see the cut that a whole answer's parse sees."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator
from typing import TypeVar

from langchain_robust_parsers.engine.lexicon.stop_reasons import cut_stop_reason

__all__ = ["StopReasonWatch"]

T = TypeVar("T")


class StopReasonWatch:
    """Passes a stream's chunks on, noting the provider's word when a chunk's
    ``response_metadata`` says the output token limit stopped the model (``reason``)."""

    __slots__ = ("reason",)

    def __init__(self) -> None:
        self.reason: str | None = None

    def _note(self, chunk: object) -> None:
        meta = getattr(chunk, "response_metadata", None)
        if meta:
            self.reason = cut_stop_reason(meta) or self.reason

    def chunks(self, chunks: Iterable[T]) -> Iterator[T]:
        """``chunks``, as they are."""
        for chunk in chunks:
            if type(chunk) is not str:
                self._note(chunk)
            yield chunk

    async def achunks(self, chunks: AsyncIterator[T]) -> AsyncIterator[T]:
        """``chunks``, as they are, asynchronously."""
        async for chunk in chunks:
            if type(chunk) is not str:
                self._note(chunk)
            yield chunk
