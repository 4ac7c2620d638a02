"""Reading a web agent's answer into validated actions: detect its format (JSON or UI-TARS), run
the readers in the order that format calls for, validate what they found into typed actions,
and classify the outcome (``success``, ``recovered``, ``fallback``) or the failure.

`read_actions` is the pipeline after detection as a pure function: text, options and
the detected format in, an `ActionParse` or an `ActionFailure` out.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from langchain_robust_parsers.engine.agents.action_json import (
    ResponseFormat,
    action_items,
    drop_incomplete_last,
)
from langchain_robust_parsers.engine.agents.actions import (
    BaseAction,
    BuiltAction,
    NullAction,
    build_action,
)
from langchain_robust_parsers.engine.agents.gui_layouts import function_calls
from langchain_robust_parsers.engine.agents.ui_tars import (
    CoordinateSpace,
    Multiple,
    UiTarsCall,
    UiTarsItem,
    call_to_action,
    parse_ui_tars,
)
from langchain_robust_parsers.engine.agents.url_safety import UrlPolicy
from langchain_robust_parsers.engine.errors import EngineError
from langchain_robust_parsers.engine.json.decode import iter_candidates
from langchain_robust_parsers.engine.lexicon.reasoning import headless_settled
from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.engine.stats import Outcome

__all__ = [
    "MAX_REASONING_CHARS",
    "ActionFailure",
    "ActionParse",
    "ActionParserFormat",
    "ActionReadOptions",
    "read_actions",
    "shown_actions",
]

ActionParserFormat = Literal["auto", "json", "ui_tars"]
"""``auto`` detects the format of each answer; ``json`` and ``ui_tars`` read only that one."""

MAX_REASONING_CHARS = 2000
"""Characters of a plain-text answer kept as the ``reasoning`` of the `NullAction` that
stands for it: the model's explanation of why it did nothing, without copying a page."""

_READ_ORDER: dict[ResponseFormat, tuple[Literal["json", "ui_tars"], ...]] = {
    "json": ("json", "ui_tars"),
    "markdown_json": ("json", "ui_tars"),
    "ui_tars": ("ui_tars", "json"),
    "text": ("json", "ui_tars"),
}
"""In ``auto`` mode, the readers tried for each detected format, the detected one first; the
other is the fallback reader (a UI-TARS answer that wrote its action as JSON, prose that holds
a JSON action list...)."""


@dataclass(frozen=True)
class ActionParse:
    """One parse in detail: the actions, the detected format (the statistics key), how it went
    (``success``, ``recovered``, ``fallback``; a failure raises), the JSON engine's report (or
    the UI-TARS reader's, as a `ParseReport` of its repairs), the model's reasoning, and
    notes on what was dropped or replaced."""

    actions: list[BaseAction]
    format: ResponseFormat
    outcome: Outcome
    report: ParseReport | None = None
    reasoning: str | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ActionFailure:
    """An answer that gives no actions when errors must raise: the format it was read as (the
    statistics key) and the message to raise with."""

    format: ResponseFormat
    message: str


@dataclass(frozen=True)
class ActionReadOptions:
    """What the pipeline needs from a parser's configuration."""

    format: ActionParserFormat
    space: CoordinateSpace
    multiple: Multiple
    url_policy: UrlPolicy
    elements: Mapping[str, Any] | None = None
    drop_unknown_elements: bool = False
    raise_on_error: bool = False  # no actions, or an unknown action type, is a failure
    template_opens: bool | None = None  # reasoning.headless_end's: text before a lone closer


@dataclass(frozen=True)
class _Read:
    """What one reader found: items to validate (JSON values or UI-TARS items)."""

    reader: Literal["json", "ui_tars"]
    items: tuple[Any, ...]
    report: ParseReport
    empty_ok: bool  # the model wrote an empty action list on purpose
    cut_dropped: bool  # the last action was cut off by the token limit and dropped
    reasoning: str | None = None

    @property
    def repaired(self) -> bool:
        report = self.report
        return report.repaired or report.source in ("tagged", "span") or self.cut_dropped


def read_actions(
    text: str, options: ActionReadOptions, detected: ResponseFormat | None
) -> ActionParse | ActionFailure:
    """The actions of ``text`` read under ``options``, or the failure (only when
    ``options.raise_on_error``). ``detected``: the answer's format from
    `detect_format` in ``auto`` mode,
    ``None`` for a fixed format. Raises ``EngineError`` when a reader fails."""
    readers: dict[str, Callable[[str, ActionReadOptions], _Read | None]] = {
        "json": _read_json,
        "ui_tars": _read_ui_tars,
    }
    order = _READ_ORDER[detected] if detected is not None else (options.format,)
    read: _Read | None = None
    hollow: _Read | None = None  # the first reader that found its format but no actions
    other_reader = False
    for i, name in enumerate(order):
        got = readers[name](text, options)
        if got is None:
            continue
        if not got.items and not got.empty_ok and not got.cut_dropped:
            hollow = hollow or got
            continue
        read, other_reader = got, i > 0
        break
    key = _key(options.format, detected, read or hollow)
    if read is None or (not read.items and not read.empty_ok):
        return _no_actions(text, key, read or hollow, options)
    recovered = read.repaired or other_reader
    if not read.items:
        outcome: Outcome = "recovered" if recovered else "success"
        return ActionParse([], key, outcome, read.report, read.reasoning)
    return _validate(text, key, read, recovered, options)


def shown_actions(
    read: ActionParse | ActionFailure, text: str, template_opens: bool | None = None
) -> list[BaseAction] | None:
    """What the stream prefix ``text`` shows of ``read``, its reading: its actions, or ``None``
    while it has no real one yet (it fails, or only a `NullAction` stands for what is still to
    come), or while it may still turn out to be reasoning the chat template opened
    (`reasoning.headless_settled`, in auto mode): a shown action is never a draft."""
    if isinstance(read, ActionFailure):
        return None
    if template_opens is None and not headless_settled(text):
        return None
    if read.outcome == "fallback" and all(isinstance(a, NullAction) for a in read.actions):
        return None
    return read.actions


def _key(
    fixed: ActionParserFormat, detected: ResponseFormat | None, read: _Read | None
) -> ResponseFormat:
    """The statistics key: the detected format, or for a fixed format its own name
    (``markdown_json`` for JSON found in a fence)."""
    if detected is not None:
        return detected
    if fixed == "ui_tars":
        return "ui_tars"
    if read is not None and read.report.source == "fenced":
        return "markdown_json"
    return "json"


def _validate(
    text: str, key: ResponseFormat, read: _Read, recovered: bool, options: ActionReadOptions
) -> ActionParse | ActionFailure:
    built = [_build(item, options) for item in read.items]
    notes = [b.reason for b in built if b.reason is not None]
    if read.cut_dropped:
        notes.append("the last action was cut off and dropped")
    unknown = next((b for b in built if b.status == "unknown_type"), None)
    if unknown is not None and options.raise_on_error:
        return ActionFailure(key, f"Failed to parse actions: {unknown.reason}")
    actions = [b.action for b in built if b.action is not None]
    if not actions:
        reason = "every action referred to an element that is not on the page"
        return _no_actions(text, key, read, options, reason)
    if any(b.status in ("null", "unknown_type") for b in built):
        outcome: Outcome = "fallback"
    elif recovered or any(b.status == "dropped" for b in built):
        outcome = "recovered"
    else:
        outcome = "success"
    return ActionParse(actions, key, outcome, read.report, read.reasoning, tuple(notes))


def _build(item: Any, options: ActionReadOptions) -> BuiltAction:
    if isinstance(item, UiTarsItem):
        item = item.action
    return build_action(
        item,
        elements=options.elements,
        drop_unknown_elements=options.drop_unknown_elements,
        url_policy=options.url_policy,
    )


def _no_actions(
    text: str,
    key: ResponseFormat,
    read: _Read | None,
    options: ActionReadOptions,
    reason: str | None = None,
) -> ActionParse | ActionFailure:
    if reason is None:
        if read is not None and read.cut_dropped:
            reason = "the response was cut off before its first action was complete"
        elif read is not None:
            reason = "the response holds no actions"
        else:
            reason = "no JSON or UI-TARS actions found in the response"
    if options.raise_on_error:
        return ActionFailure(key, f"Failed to parse actions: {reason}")
    # Prose (with no format, or only a stray bracket) is the model's explanation.
    if read is None or (read.reader == "json" and read.report.source == "span"):
        reasoning = _reasoning_of(text)
    else:
        reasoning = read.reasoning
    null = NullAction(reason=reason, reasoning=reasoning)
    report = read.report if read is not None else None
    return ActionParse([null], key, "fallback", report, reasoning, (reason,))


def _reasoning_of(text: str) -> str | None:
    stripped = text.strip()
    if not stripped:
        return None
    if len(stripped) <= MAX_REASONING_CHARS:
        return stripped
    return stripped[: MAX_REASONING_CHARS - 3] + "..."


def _read_json(text: str, options: ActionReadOptions) -> _Read | None:
    """The first engine candidate (in the engine's order) that holds actions; else the first
    candidate as a read without items, or ``None`` when the text holds no JSON."""
    first: ParseReport | None = None
    try:
        for value, report in iter_candidates(text, template_opens=options.template_opens):
            calls = function_calls(value)
            if calls is not None:
                return _read_function_calls(calls, report, options.space)
            found = action_items(value)
            if found is None:
                first = first or report
                continue
            items, dropped = drop_incomplete_last(text, report, found)
            return _Read(
                reader="json",
                items=items,
                report=report,
                empty_ok=not found.items,
                cut_dropped=dropped,
            )
    except EngineError:  # this reader found nothing more (a bug propagates)
        pass
    if first is None:
        return None
    return _Read("json", (), first, empty_ok=False, cut_dropped=False)


def _read_function_calls(
    calls: list[tuple[str, dict[str, Any]]], report: ParseReport, space: CoordinateSpace
) -> _Read:
    """GUI calls written as JSON function calls (``{"name": "click", "arguments": "{...}"}``),
    mapped like UI-TARS calls of the same names."""
    items = tuple(
        call_to_action(UiTarsCall(name, args, report.start, report.end), space)
        for name, args in calls
    )
    return _Read("json", items, report, empty_ok=False, cut_dropped=False)


def _read_ui_tars(text: str, options: ActionReadOptions) -> _Read | None:
    """The UI-TARS calls of ``text``; a read without items when it has UI-TARS headers but no
    calls (its reasoning is kept), ``None`` when it has neither."""
    response = parse_ui_tars(
        text, options.space, multiple=options.multiple, template_opens=options.template_opens
    )
    headers = (response.thought, response.reflection, response.action_summary)
    marked = response.has_action_marker or any(headers)
    if not response.items and not response.truncated and not marked:
        return None
    report = ParseReport(
        source="whole",
        start=0,
        end=len(text),
        repairs=response.repairs,
        truncated=response.truncated,
    )
    return _Read(
        reader="ui_tars",
        items=response.items,
        report=report,
        empty_ok=False,
        cut_dropped=response.truncated,
        reasoning=response.reasoning,
    )
