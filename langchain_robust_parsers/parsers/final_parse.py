"""``parse_result`` and ``aparse_result`` for the parsers whose final parse is a
`FinalParse`.

The JSON, Pydantic, tools and function-call parsers read a generation the same way: refuse a
refusal, return the best value so far for a stream prefix, else build the final parse without
side effects, publish its event and unwrap it. Only the readers differ, so each parser hands its
`GenerationReaders` here instead of repeating the steps; the async twin reads in an
executor so that a large text does not block the event loop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from langchain_core.outputs import Generation
from langchain_core.runnables.config import run_in_executor

from langchain_robust_parsers.engine.stats import ParseStats
from langchain_robust_parsers.parsers.report_events import (
    FinalParse,
    apublish,
    check_refusal,
    publish,
)
from langchain_robust_parsers.parsers.stop_reason import stop_reason_cut

__all__ = ["GenerationReaders", "aparse_generation", "parse_generation"]

T = TypeVar("T")


def _unwrap(final: FinalParse[T]) -> T:
    return final.unwrap()


@dataclass(frozen=True)
class GenerationReaders(Generic[T]):
    """How one parser reads a generation: ``read_partial`` a stream prefix (never an error,
    never counted), ``read_final`` the whole output; ``stats`` counts the final outcomes and
    ``unwrap`` turns a final parse into the returned value (or raises its error)."""

    read_partial: Callable[[Generation], Any]
    read_final: Callable[[Generation], FinalParse[T]]
    stats: ParseStats | None
    unwrap: Callable[[FinalParse[T]], Any] = _unwrap

    @classmethod
    def of_text(
        cls,
        read_partial: Callable[[str], Any],
        read_final: Callable[[str, str | None], FinalParse[T]],
        stats: ParseStats | None,
    ) -> GenerationReaders[T]:
        """Readers of the generation's text; ``read_final`` also gets the provider's stop
        reason when it says the output limit was hit."""
        return cls(
            lambda generation: read_partial(generation.text),
            lambda generation: read_final(generation.text, stop_reason_cut(generation)),
            stats,
        )


def parse_generation(
    result: list[Generation], partial: bool, readers: GenerationReaders[Any]
) -> Any:
    """The value of ``result[0]``: a refusal raises, a prefix gives its partial value, a final
    parse publishes its event and is unwrapped (value or error)."""
    generation = result[0]
    check_refusal(generation)
    if partial:
        return readers.read_partial(generation)
    final = readers.read_final(generation)
    publish(final.event, readers.stats)
    return readers.unwrap(final)


async def aparse_generation(
    result: list[Generation], partial: bool, readers: GenerationReaders[Any]
) -> Any:
    """Async `parse_generation`: reads in an executor, dispatches the event async."""
    generation = result[0]
    check_refusal(generation)
    if partial:
        return await run_in_executor(None, readers.read_partial, generation)
    final = await run_in_executor(None, readers.read_final, generation)
    await apublish(final.event, readers.stats)
    return readers.unwrap(final)
