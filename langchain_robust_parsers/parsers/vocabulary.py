"""One vocabulary for every parser: ``on_error``, ``parse_with_report`` and ``aparse_with_report``.

``on_error`` says what a final parse that cannot read the text does: ``"raise"`` an
``OutputParserException``, or ``"fallback"`` return the parser's documented degraded value
(counted as ``fallback``). Each parser's docstring says what its degraded value is; the table of
every parser is in ``docs/vocabulary.md``.

The options that said the same before (``fallback="plain_text"``, ``errors="return"``,
``fallback_to_null_action``, ``lenient_finish``) are deprecated aliases for one release: given to
the constructor, they set ``on_error`` and warn with a ``DeprecationWarning`` naming it.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, ClassVar, Literal, cast

from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGeneration, Generation
from langchain_core.runnables.config import run_in_executor
from pydantic import model_validator

from langchain_robust_parsers.engine import ParseReport

__all__ = ["OnError", "ReportingParser", "captured_events", "generation_of", "record_event"]

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


def _alias_value(cls_name: str, old: str, value: Any, mapping: Mapping[Any, OnError]) -> OnError:
    for key, new in mapping.items():
        if type(key) is type(value) and key == value:
            return new
    allowed = ", ".join(repr(k) for k in mapping)
    raise ValueError(f"{cls_name}: {old}={value!r} is not one of {allowed}")


class ReportingParser:
    """Mixin for the parser classes: ``on_error``'s deprecated aliases, and the report methods.

    A class lists its old option names in ``_on_error_aliases`` as ``{old: {old value:
    on_error value}}``; the ``before`` model validator maps them to ``on_error``.
    """

    _on_error_aliases: ClassVar[Mapping[str, Mapping[Any, OnError]]] = {}

    @model_validator(mode="before")
    @classmethod
    def _on_error_from_old_names(cls, data: Any) -> Any:
        if not isinstance(data, dict) or not cls._on_error_aliases:
            return data
        for old, mapping in cls._on_error_aliases.items():
            if old not in data:
                continue
            data = dict(data)
            new = _alias_value(cls.__name__, old, data.pop(old), mapping)
            warnings.warn(
                f"{cls.__name__}({old}=...) is deprecated and will be removed in the next "
                f"release; use on_error={new!r}",
                DeprecationWarning,
                stacklevel=4,
            )
            given = data.get("on_error")
            if given is not None and given != new:
                raise ValueError(
                    f"{cls.__name__}: {old} says on_error={new!r} but on_error={given!r} is given"
                )
            data["on_error"] = new
        return data

    if not TYPE_CHECKING:  # checked code keeps its attribute errors

        def __getattr__(self, name: str) -> Any:
            """An old option name read as an attribute: its value for ``on_error``, with the
            same ``DeprecationWarning``."""
            mapping = type(self)._on_error_aliases.get(name)
            if mapping is None:
                return super().__getattr__(name)  # pydantic's private attributes
            current = self.__dict__.get("on_error")
            warnings.warn(
                f"{type(self).__name__}.{name} is deprecated and will be removed in the next "
                f"release; read on_error",
                DeprecationWarning,
                stacklevel=2,
            )
            return next(old for old, new in mapping.items() if new == current)

    def parse_with_report(self, text: str | BaseMessage) -> tuple[Any, Any]:
        """The value of ``text`` with what was located and repaired to obtain it.

        Counted and dispatched like `parse`, and raising what it raises. The report is the
        one the parse's ``parse_report`` event carries (an empty ``ParseReport`` when the parse
        needed no locating, or returned its ``on_error="fallback"`` value).
        """
        with captured_events() as seen:
            value = cast(Any, self).parse_result([generation_of(text)])
        return value, _report_of(seen)

    async def aparse_with_report(self, text: str | BaseMessage) -> tuple[Any, Any]:
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
