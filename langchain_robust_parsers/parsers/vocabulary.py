"""One vocabulary for every parser: strict options, ``on_error``, ``parse_with_report`` and
``aparse_with_report``.

Every public class of the package with options refuses an option it does not have
(`UnknownOptionError`, in `langchain_robust_parsers.engine.option_names` with the options
removed in 0.3.0). ``on_error`` says what a final parse that cannot read the text does:
``"raise"`` an ``OutputParserException``, or ``"fallback"`` return the parser's documented
degraded value (counted as ``fallback``); the table of every parser is in ``docs/vocabulary.md``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal, cast

from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGeneration, Generation
from langchain_core.runnables.config import run_in_executor
from pydantic import ConfigDict, Field, model_validator

from langchain_robust_parsers.engine import ParseReport
from langchain_robust_parsers.engine.event_capture import captured_events, record_event
from langchain_robust_parsers.engine.option_names import (
    REMOVED_OPTIONS,
    UnknownOptionError,
    unknown_option_error,
)

_logger = logging.getLogger("langchain_robust_parsers")

__all__ = [
    "REMOVED_OPTIONS",
    "OnError",
    "ReportingParser",
    "StrictOptions",
    "UnknownOptionError",
    "captured_events",
    "generation_of",
    "record_event",
]


class StrictOptions:
    """Mixin for the pydantic classes with options: refuse an option the class does not have.

    Checked before pydantic validates, against the class's fields and their aliases, so every
    field the LangChain parent class accepts is still accepted. A class lists in
    ``_ignored_options`` the names a LangChain contract makes it accept without a field; they
    are dropped with a logged warning, never silently. The classes' fields may hold any type
    (`ParseStats`, tools, models), which pydantic reads from this mixin's config.
    """

    model_config: ClassVar[ConfigDict] = ConfigDict(arbitrary_types_allowed=True)

    _ignored_options: ClassVar[Mapping[str, str]] = {}
    """``{name: why it is ignored and where to set it instead}``."""

    @model_validator(mode="before")
    @classmethod
    def _refuse_unknown_options(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        fields: Mapping[str, Any] = getattr(cls, "model_fields", {})
        known = set(fields)
        for field in fields.values():
            known.update(a for a in (field.alias, field.validation_alias) if isinstance(a, str))
        unknown = [key for key in data if isinstance(key, str) and key not in known]
        ignored = [key for key in unknown if key in cls._ignored_options]
        for key in ignored:
            _logger.warning("%s ignores %s: %s", cls.__name__, key, cls._ignored_options[key])
        refused = [key for key in unknown if key not in cls._ignored_options]
        if refused:
            raise unknown_option_error(cls.__name__, refused[0], fields)
        if ignored:
            data = {k: v for k, v in data.items() if k not in ignored}
        return data


TemplateOpensReasoning = Annotated[
    bool | None,
    Field(description="Whether the chat template opened the model's reasoning (None: auto)."),
]
"""Whether the chat template opened the model's reasoning (the answer holds only its closer,
``...</think>``): ``None`` (auto) reads a closer with no opener before it as that reasoning's
end, unless the answer opens with JSON, a tag or a fence, or a fence starts a line before the
closer; a stream holds an answer that opens with prose back until it can tell. ``True``:
everything up to the first closer is reasoning (all of it when none comes); ``False``: a lone
closer is text and nothing is held back (models that never reason). Parse and every stream
read it by one rule (see the Reasoning page)."""

OnError = Literal["raise", "fallback"]
"""What a final parse that cannot read the text does: raise, or return the degraded value."""


def generation_of(text: str | BaseMessage) -> Generation:
    """``text`` as the generation a parser's ``parse_result`` reads (a message keeps its
    metadata, so its stop reason and native tool calls are seen)."""
    if isinstance(text, BaseMessage):
        return ChatGeneration(message=text)
    return Generation(text=text)


class ReportingParser(StrictOptions):
    """Mixin for every public parser: strict options, and the report methods.

    ``parse_with_report`` reads the report back from the parse's ``parse_report`` event;
    a parser whose report has its own shape overrides it, and ``aparse_with_report`` then
    runs that override in an executor, so every parser has both with one signature.
    """

    def parse_with_report(self, text: str | BaseMessage) -> tuple[Any, ParseReport]:
        """The value of ``text`` with what was located and repaired to obtain it.

        Counted and dispatched like `parse`, and raising what it raises. The report is the
        one the parse's ``parse_report`` event carries (an empty ``ParseReport`` when the parse
        needed no locating, or returned its ``on_error="fallback"`` value).
        """
        with captured_events() as seen:
            value = cast(Any, self).parse_result([generation_of(text)])
        return value, _report_of(seen)

    async def aparse_with_report(self, text: str | BaseMessage) -> tuple[Any, ParseReport]:
        """Async `parse_with_report`: the same value, report, count and event."""
        if type(self).parse_with_report is not ReportingParser.parse_with_report:
            # A parser with a report of its own shape: the same method, in an executor.
            return await run_in_executor(None, self.parse_with_report, text)
        with captured_events() as seen:
            value = await cast(Any, self).aparse_result([generation_of(text)])
        return value, _report_of(seen)


def _report_of(events: list[Any]) -> ParseReport:
    report = getattr(events[-1], "report", None) if events else None
    return report if isinstance(report, ParseReport) else ParseReport()
