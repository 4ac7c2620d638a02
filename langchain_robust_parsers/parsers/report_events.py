"""What the parsers do after each final parse: count it and tell the run's callbacks.

A final (non-partial) parse ends in one `ParseEvent`. `publish` (sync) and
`apublish` (async) record its outcome in a `ParseStats` when the parser holds one and,
inside a LangChain run with callbacks, dispatch it as the custom event ``parse_report`` so tracing
shows what was located and repaired. Outside a run, or with no callbacks, the dispatch is skipped.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import langchain_core.exceptions as lc_exceptions
from langchain_core.callbacks import BaseCallbackManager
from langchain_core.callbacks.manager import adispatch_custom_event, dispatch_custom_event
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGeneration, Generation
from langchain_core.runnables import ensure_config

from langchain_robust_parsers.engine.event_capture import record_event
from langchain_robust_parsers.engine.parse_events import FinalParse, ParseEvent, fallback_on_error
from langchain_robust_parsers.engine.stats import ParseStats

__all__ = [
    "PARSE_REPORT_EVENT",
    "FinalParse",
    "ParseEvent",
    "apublish",
    "check_refusal",
    "check_refusal_message",
    "fallback_on_error",
    "publish",
]

logger = logging.getLogger("langchain_robust_parsers")

PARSE_REPORT_EVENT = "parse_report"
"""The name of the custom callback event carrying a parse's report."""


def _run_has_callbacks() -> bool:
    """True inside a run whose callback manager has a parent run and at least one handler.

    ``dispatch_custom_event`` raises outside a run; checking first keeps the parsers usable
    anywhere and skips building an event nobody receives.
    """
    callbacks = ensure_config().get("callbacks")
    return (
        isinstance(callbacks, BaseCallbackManager)
        and callbacks.parent_run_id is not None
        and bool(callbacks.handlers)
    )


def _record(event: ParseEvent, stats: ParseStats | None) -> None:
    record_event(event)
    if stats is not None:
        stats.record(event.format, event.outcome)
    if event.outcome == "failed":
        logger.debug("%s failed: %s", event.parser, event.error)


def publish(event: ParseEvent, stats: ParseStats | None) -> None:
    """Count ``event`` in ``stats`` and dispatch it to the current run's callbacks, if any."""
    _record(event, stats)
    if not _run_has_callbacks():
        return
    try:
        dispatch_custom_event(PARSE_REPORT_EVENT, event.to_data())
    except RuntimeError:  # no parent run after all (a config passed around by hand)
        logger.debug("parse_report event not dispatched: no parent run", exc_info=True)


async def apublish(event: ParseEvent, stats: ParseStats | None) -> None:
    """Async `publish`: dispatches through the async callback manager.

    On Python 3.10 asyncio does not carry LangChain's run context into tasks, so inside an
    async run the event may find no run and is skipped.
    """
    _record(event, stats)
    if not _run_has_callbacks():
        return
    try:
        await adispatch_custom_event(PARSE_REPORT_EVENT, event.to_data())
    except RuntimeError:
        logger.debug("parse_report event not dispatched: no parent run", exc_info=True)


_REFUSAL_ERROR: Any = getattr(lc_exceptions, "ModelRefusalError", None)
"""langchain-core's ``ModelRefusalError`` (1.7.5 and later), or ``None`` before it existed."""


def check_refusal_message(message: BaseMessage) -> None:
    """Raise langchain-core's ``ModelRefusalError`` when ``message`` holds a refusal content
    block, as langchain-core's own JSON and Pydantic parsers do (1.7.5 and later); a no-op on
    versions without it. Read through the public ``content_blocks`` of the message."""
    if _REFUSAL_ERROR is None:
        return
    for block in message.content_blocks:
        if block.get("type") == "refusal":
            raise _REFUSAL_ERROR.from_refusal(block, raw_message=message)


def refusal_check() -> Callable[[BaseMessage], None] | None:
    """The check `check_refusal_message` makes, or ``None`` when there is none (before
    langchain-core 1.7.5): for loops that look it up once."""
    return None if _REFUSAL_ERROR is None else check_refusal_message


def check_refusal(generation: Generation) -> None:
    """Raise langchain-core's ``ModelRefusalError`` when a chat message holds a refusal block,
    as langchain-core's own JSON and Pydantic parsers do; a no-op on versions without it."""
    if _REFUSAL_ERROR is not None and isinstance(generation, ChatGeneration):
        check_refusal_message(generation.message)
