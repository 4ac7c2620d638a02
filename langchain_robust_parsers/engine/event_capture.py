"""The parse events published in a context, for ``parse_with_report`` to read its report back."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

__all__ = ["captured_events", "record_event"]

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
