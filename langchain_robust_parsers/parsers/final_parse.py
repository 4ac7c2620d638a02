"""``parse_result`` and ``aparse_result`` for the parsers whose final parse is a `FinalParse`.

The JSON, Pydantic, tools and function-call parsers read a generation the same way: refuse a
refusal, return the best value so far for a stream prefix, else build the final parse without
side effects, publish its event and unwrap it. Only the readers differ (`GenerationReaders`);
the async twin reads in an executor so that a large text does not block the event loop.
`FinalParseMethods` gives a parser that reads text all of its LangChain reading methods.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from langchain_core.messages import BaseMessage
from langchain_core.outputs import Generation
from langchain_core.runnables.config import run_in_executor

from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.engine.stats import ParseStats
from langchain_robust_parsers.parsers.report_events import (
    FinalParse,
    apublish,
    check_refusal,
    publish,
)
from langchain_robust_parsers.parsers.stop_reason import stop_reason_cut
from langchain_robust_parsers.parsers.text_formats import answer_text

__all__ = [
    "FinalParseMethods",
    "GenerationMethods",
    "GenerationReaders",
    "ResultMethods",
    "aparse_generation",
    "parse_generation",
]

T = TypeVar("T")


@dataclass(frozen=True)
class GenerationReaders(Generic[T]):
    """How one parser reads a generation: ``read_partial`` a stream prefix (never an error,
    never counted), ``read_final`` the whole output; ``stats`` counts the final outcomes and
    ``unwrap`` turns a final parse into the returned value (or raises its error)."""

    read_partial: Callable[[Generation], Any]
    read_final: Callable[[Generation], FinalParse[T]]
    stats: ParseStats | None
    unwrap: Callable[[FinalParse[T]], Any] = FinalParse.unwrap


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


class ResultMethods:
    """``parse_result``, ``aparse_result`` and ``aparse`` (a mixin) over the class's
    `GenerationReaders` (``_readers``)."""

    if TYPE_CHECKING:

        def _readers(self) -> GenerationReaders[Any]: ...

    def parse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """The value of ``result[0]``; with ``partial=True`` (a stream prefix) the best value so
        far or ``None``, never an error. Raises ``ModelRefusalError`` (langchain-core 1.7.5+)
        when the model refused, and ``OutputParserException`` when a final parse fails."""
        return parse_generation(result, partial, self._readers())

    async def aparse_result(self, result: list[Generation], *, partial: bool = False) -> Any:
        """Async `parse_result`: parses in an executor, dispatches the event async."""
        return await aparse_generation(result, partial, self._readers())

    async def aparse(self, text: str) -> Any:
        """Async ``parse``."""
        return await self.aparse_result([Generation(text=text)])


class GenerationMethods(ResultMethods):
    """`ResultMethods` and ``parse`` (a mixin), for the parsers whose LangChain twin has no
    text ``parse`` of its own to keep."""

    def parse(self, text: str) -> Any:
        """The value of ``text``; raises ``OutputParserException`` when it holds none."""
        return self.parse_result([Generation(text=text)])


class FinalParseMethods(ResultMethods):
    """`ResultMethods` and ``parse_with_report`` (a mixin) over the class's
    ``_parse_partial(text)`` and ``_parse_final(text, stop_reason)``."""

    if TYPE_CHECKING:  # the parser's field and readers
        stats: ParseStats | None

        def _parse_partial(self, text: str) -> Any: ...

        def _parse_final(self, text: str, stop_reason: str | None = None) -> FinalParse[Any]: ...

    def _readers(self) -> GenerationReaders[Any]:
        """Readers of the generation's text; the final one also gets the provider's stop
        reason when it says the output limit was hit."""
        return GenerationReaders(
            lambda generation: self._parse_partial(generation.text),
            lambda generation: self._parse_final(generation.text, stop_reason_cut(generation)),
            self.stats,
        )

    def parse_with_report(self, text: str | BaseMessage) -> tuple[Any, ParseReport]:
        """The value of ``text`` with what was located, repaired and coerced to obtain it,
        counted and dispatched like ``parse`` (given a message, its stop reason is read too:
        the report's ``truncated``)."""
        stop_reason = stop_reason_cut(text) if isinstance(text, BaseMessage) else None
        final = self._report_parse(answer_text(text), stop_reason)
        publish(final.event, self.stats)
        value = final.unwrap()
        assert final.report is not None  # a value always comes with its report
        return value, final.report

    def _report_parse(self, text: str, stop_reason: str | None) -> FinalParse[Any]:
        """The final parse `parse_with_report` returns."""
        return self._parse_final(text, stop_reason)
