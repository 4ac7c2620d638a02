"""Callback handlers that collect the custom events (``parse_report``) a run dispatches."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from langchain_core.callbacks import AsyncCallbackHandler, BaseCallbackHandler


class EventRecorder(BaseCallbackHandler):
    """Collects ``(name, data)`` of every custom event seen during a run."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def on_custom_event(
        self,
        name: str,
        data: Any,
        *,
        run_id: UUID,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self.events.append((name, data))


class AsyncEventRecorder(AsyncCallbackHandler):
    """:class:`EventRecorder` for async runs."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    async def on_custom_event(
        self,
        name: str,
        data: Any,
        *,
        run_id: UUID,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        self.events.append((name, data))
