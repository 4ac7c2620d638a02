"""One vocabulary for every parser: strict options, ``on_error``, ``parse_with_report`` and
``aparse_with_report``.

Every public class of the package with options (the parsers, the retry chain, the chat model,
the adapter, the prompt template) refuses an option it does not have instead of ignoring it:
``RobustJsonOutputParser(on_truncaton="raise")`` raises ``UnknownOptionError`` saying
``did you mean 'on_truncation'?``; an option removed in 0.3.0 names the option that replaced
it, and ``on_truncation`` given to a parser that cannot see a cut-off answer says so.

``on_error`` says what a final parse that cannot read the text does: ``"raise"`` an
``OutputParserException``, or ``"fallback"`` return the parser's documented degraded value
(counted as ``fallback``). Each parser's docstring says what its degraded value is; the table of
every parser is in ``docs/vocabulary.md``.

The options that said the same before 0.3.0 (``fallback="plain_text"``, ``errors="return"``,
``fallback_to_null_action``, ``lenient_finish``) are gone: given to a constructor, they are
refused with an error naming ``on_error``, as ``allow_truncated`` is with one naming
``on_truncation``.
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Annotated, Any, ClassVar, Literal, cast

from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGeneration, Generation
from langchain_core.runnables.config import run_in_executor
from pydantic import Field, model_validator

from langchain_robust_parsers.engine import ParseReport

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

REMOVED_OPTIONS: Mapping[str, str] = {
    "fallback": (
        "on_error='fallback' (was fallback='plain_text'; fallback='raise' is on_error='raise')"
    ),
    "errors": "on_error='fallback' (was errors='return'; errors='raise' is on_error='raise')",
    "fallback_to_null_action": (
        "on_error='fallback' (was fallback_to_null_action=True; False is on_error='raise')"
    ),
    "lenient_finish": "on_error='fallback' (was lenient_finish=True; False is on_error='raise')",
    "allow_truncated": "on_truncation='raise' (was allow_truncated=False; True is the default)",
    "allow_truncated_calls": (
        "on_truncation='complete' (was allow_truncated_calls=True; False is on_truncation='raise', "
        "the default)"
    ),
}
"""Options removed in 0.3.0 (deprecated in 0.2), with what to write instead."""

NO_CUT_OPTION = "on_truncation"
"""The option only the parsers that can see a cut-off answer have."""

SUGGESTION_CUTOFF = 0.6
"""``difflib`` similarity above which a known option is offered as the meant one: catches one
or two wrong, missing or swapped letters in names of 6 to 20 characters, not unrelated names."""


class UnknownOptionError(TypeError):
    """An option the class does not have (misspelt, removed, or not supported by it).

    A ``TypeError``, as Python raises for an unexpected keyword argument; ``option`` is the
    name given and ``suggestion`` the option meant, when one is close (else ``None``).
    """

    def __init__(self, message: str, *, option: str, suggestion: str | None) -> None:
        super().__init__(message)
        self.option = option
        self.suggestion = suggestion

    def __reduce__(self) -> Any:
        return (_rebuild, (str(self.args[0]), self.option, self.suggestion))


def _rebuild(message: str, option: str, suggestion: str | None) -> UnknownOptionError:
    return UnknownOptionError(message, option=option, suggestion=suggestion)


def unknown_option_error(owner: str, option: str, known: Iterable[str]) -> UnknownOptionError:
    """The error for ``option`` given to ``owner`` (a class name) whose options are ``known``."""
    names = sorted(known)
    if option in REMOVED_OPTIONS:
        new = REMOVED_OPTIONS[option]
        return UnknownOptionError(
            f"{owner}: the option {option!r} was removed in 0.3.0; use {new}",
            option=option,
            suggestion=new.split("=", 1)[0],
        )
    if option == NO_CUT_OPTION:
        return UnknownOptionError(
            f"{owner} has no option {option!r}: it cannot see a cut-off answer (it has no "
            "unfinished value to complete or refuse). on_truncation is an option of the "
            "parsers that read JSON, XML, structured objects, function or tool calls, browser "
            "actions and ReAct steps",
            option=option,
            suggestion=None,
        )
    close = difflib.get_close_matches(option, names, n=1, cutoff=SUGGESTION_CUTOFF)
    hint = f"did you mean {close[0]!r}?" if close else f"its options are: {', '.join(names)}"
    return UnknownOptionError(
        f"{owner} has no option {option!r}; {hint}",
        option=option,
        suggestion=close[0] if close else None,
    )


class StrictOptions:
    """Mixin for the pydantic classes with options: refuse an option the class does not have.

    Checked before pydantic validates, against the class's fields and their aliases, so every
    field the LangChain parent class accepts is still accepted. A class lists in
    ``_ignored_options`` the names a LangChain contract makes it accept without a field; they
    are dropped with a logged warning, never silently.
    """

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

ON_ERROR_VALUES: tuple[OnError, ...] = ("raise", "fallback")

_CAPTURE: ContextVar[list[Any] | None] = ContextVar("robust_parsers_event_capture", default=None)
"""The events published in this context, while `captured_events` listens."""


@contextmanager
def captured_events() -> Iterator[list[Any]]:
    """Collect every ``ParseEvent`` published in this context (and the executors it starts)."""
    seen: list[Any] = []
    token = _CAPTURE.set(seen)
    try:
        yield seen
    finally:
        _CAPTURE.reset(token)


def record_event(event: Any) -> None:
    """Hand ``event`` to the listening `captured_events`, if any (called on publish)."""
    seen = _CAPTURE.get()
    if seen is not None:
        seen.append(event)


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
