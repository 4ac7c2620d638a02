"""What the parsers do after each final parse: count it and tell the run's callbacks.

A final (non-partial) parse ends in one `ParseEvent`. `publish` (sync) and
`apublish` (async) record its outcome in a `ParseStats` when the parser holds one and,
inside a LangChain run with callbacks, dispatch it as the custom event ``parse_report`` so tracing
shows what was located and repaired. Outside a run, or with no callbacks, the dispatch is skipped.
"""

from __future__ import annotations

import logging

from langchain_core.callbacks import BaseCallbackManager
from langchain_core.callbacks.manager import adispatch_custom_event, dispatch_custom_event
from langchain_core.runnables import ensure_config

from langchain_robust_parsers.engine.event_capture import record_event
from langchain_robust_parsers.engine.parse_events import FinalParse, ParseEvent, fallback_on_error
from langchain_robust_parsers.engine.stats import ParseStats
from langchain_robust_parsers.parsers.message_text import check_refusal

__all__ = [
    "PARSE_REPORT_EVENT",
    "FinalParse",
    "ParseEvent",
    "apublish",
    "check_refusal",
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
