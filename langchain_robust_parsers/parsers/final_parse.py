"""``parse_result`` and ``aparse_result`` for the parsers whose final parse is a
:class:`~langchain_robust_parsers.parsers.report_events.FinalParse`.

The JSON, Pydantic, tools and function-call parsers read a generation the same way: refuse a
refusal, return the best value so far for a stream prefix, else build the final parse without
side effects, publish its event and unwrap it. Only the two readers differ, so each parser passes
them here instead of repeating the steps; the async twin reads in an executor so that a large text
does not block the event loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from langchain_core.outputs import Generation
from langchain_core.runnables.config import run_in_executor

from langchain_robust_parsers.engine.stats import ParseStats
from langchain_robust_parsers.parsers.report_events import (
    FinalParse,
    apublish,
    check_refusal,
    publish,
)

__all__ = ["aparse_generation", "parse_generation"]

T = TypeVar("T")


def _unwrap(final: FinalParse[T]) -> T:
    return final.unwrap()


def parse_generation(
    result: list[Generation],
    *,
    partial: bool,
    read_partial: Callable[[Generation], Any],
    read_final: Callable[[Generation], FinalParse[T]],
    stats: ParseStats | None,
    unwrap: Callable[[FinalParse[T]], Any] = _unwrap,
) -> Any:
    """The value of ``result[0]``: ``read_partial`` for a stream prefix (never an error, never
    counted), else ``read_final``, its event published, then unwrapped (value or error)."""
    generation = result[0]
    check_refusal(generation)
    if partial:
        return read_partial(generation)
    final = read_final(generation)
    publish(final.event, stats)
    return unwrap(final)


async def aparse_generation(
    result: list[Generation],
    *,
    partial: bool,
    read_partial: Callable[[Generation], Any],
    read_final: Callable[[Generation], FinalParse[T]],
    stats: ParseStats | None,
    unwrap: Callable[[FinalParse[T]], Any] = _unwrap,
) -> Any:
    """Async :func:`parse_generation`: reads in an executor, dispatches the event async."""
    generation = result[0]
    check_refusal(generation)
    if partial:
        return await run_in_executor(None, read_partial, generation)
    final = await run_in_executor(None, read_final, generation)
    await apublish(final.event, stats)
    return unwrap(final)
