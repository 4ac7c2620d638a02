"""Web-agent actions written as JSON: format detection, where the actions are, and which of a
cut-off list are complete.

A browser agent's model answers with ``{"actions": [...]}``, a bare list, one action object, or
Skyvern's ``[{reasoning...}, [actions...]]``, possibly fenced, in prose, repaired or cut off by
the token limit. `detect_format` names the response style as the action parser's
``detect_response_format`` does (with JSON recognised first, so a JSON answer quoting
``"Thought:"`` stays JSON); `action_items` finds the action list in a decoded value; and
`drop_incomplete_last` removes the action the token limit cut in half, which the JSON
engine's completion would otherwise hand on as if the model had finished it. Nothing here
imports LangChain.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from langchain_robust_parsers.engine.calls.dialect_registry import SEED_MARKER
from langchain_robust_parsers.engine.calls.markup_calls import FUNCTION_OPEN
from langchain_robust_parsers.engine.json import locate
from langchain_robust_parsers.engine.lexicon.fences import FENCE_MARKS, match_fence_open
from langchain_robust_parsers.engine.lexicon.tags import skip_space
from langchain_robust_parsers.engine.repair_log import RepairLog
from langchain_robust_parsers.engine.report import ParseReport

__all__ = [
    "UI_TARS_KEYWORDS",
    "ActionItems",
    "ResponseFormat",
    "action_items",
    "detect_format",
    "drop_incomplete_last",
    "open_depth_at_end",
]

ResponseFormat = Literal["json", "markdown_json", "ui_tars", "text"]
"""The response formats, the keys of the parser's statistics."""

UI_TARS_KEYWORDS: tuple[str, ...] = (
    # the order in which response formats are detected
    "action:",
    "thought:",
    "click(",
    "type(",
    # the rest of the UI-TARS grammar, so that a bare `drag(...)` or `finished()` is recognised
    "reflection:",
    "action_summary:",
    "left_double(",
    "right_single(",
    "drag(",
    "hotkey(",
    "scroll(",
    "wait(",
    "finished(",
    "call_user(",
    "long_press(",
    "open_app(",
    "press_home(",
    "press_back(",
    "open_computer(",
    # UI-TARS-desktop's omni layout and Seed's XML calls
    "<computer_env>",
    SEED_MARKER.open,
    FUNCTION_OPEN,
)
"""Lower-case markers of a UI-TARS answer (``Thought: ...\\nAction: click(...)``)."""

_ACTION_LIST_KEYS = ("actions", "action")
_TYPE_KEYS = ("action_type", "type", "action")


def _fence_body(text: str, pos: int) -> int:
    """Where the body of the fence opening at ``pos`` starts (after its info string)."""
    opening = match_fence_open(text, pos)
    return len(text) if opening is None else opening.body


def detect_format(text: str, template_opens: bool | None = None) -> ResponseFormat:
    """The style of a response: ``json`` when it starts (after whitespace, reasoning blocks) with
    ``{`` or ``[``; ``markdown_json`` when it starts with a fence holding such a value; otherwise
    in this order: UI-TARS keywords, then any fence, then ``text``. ``template_opens``: see
    `reasoning.headless_end`."""
    begin = skip_space(text, locate.payload_start(text, RepairLog(), template_opens))
    if text.startswith(("{", "["), begin):
        return "json"
    if text.startswith(FENCE_MARKS, begin):
        body = skip_space(text, _fence_body(text, begin))
        if text.startswith(("{", "["), body):
            return "markdown_json"
    rest = text[begin:].lower()
    if any(keyword in rest for keyword in UI_TARS_KEYWORDS):
        return "ui_tars"
    if any(fence in rest for fence in FENCE_MARKS):
        return "markdown_json"
    return "text"


@dataclass(frozen=True)
class ActionItems:
    """The action items of a decoded value.

    ``depth`` is the number of containers around each item in the payload (2 for
    ``{"actions": [...]}``, 1 for a bare list, 0 for a single action object): the check for a cut
    off last item compares it with the depth at which the text ends.
    """

    items: tuple[Any, ...]
    depth: int


def _key(value: Mapping[str, Any], name: str) -> Any:
    """``value[name]``, the key matched without regard to case (``"Actions"``)."""
    if name in value:
        return value[name]
    for key, item in value.items():
        if isinstance(key, str) and key.lower() == name:
            return item
    return None


def _names_a_type(value: Mapping[str, Any]) -> bool:
    return any(isinstance(value.get(key), str) for key in _TYPE_KEYS)


def action_items(value: Any) -> ActionItems | None:
    """The actions in a decoded JSON value, or ``None`` when it holds none.

    Accepted: ``{"actions": [...]}`` (or ``"action"``, any case; a single object there too), a
    list of action objects, one action object (it names an ``action_type``, ``type`` or
    ``action``), and ``[{reasoning...}, [actions...]]``. ``[]`` and ``{"actions": []}`` give an
    empty `ActionItems`: the model chose to do nothing.
    """
    if isinstance(value, Mapping):
        for name in _ACTION_LIST_KEYS:
            inner = _key(value, name)
            if isinstance(inner, list):
                return ActionItems(tuple(inner), 2)
            if isinstance(inner, Mapping):
                return ActionItems((inner,), 1)
            if inner is None and name == "actions" and "actions" in value:
                return ActionItems((), 2)  # `"actions": null`
        if _names_a_type(value):
            return ActionItems((value,), 0)
        return None
    if isinstance(value, list):
        if not value:
            return ActionItems((), 1)
        if (
            len(value) == 2
            and isinstance(value[0], Mapping)
            and not _names_a_type(value[0])
            and isinstance(value[1], list)
        ):
            return ActionItems(tuple(value[1]), 2)
        if any(isinstance(item, Mapping) for item in value):
            return ActionItems(tuple(value), 1)
    return None


_CLOSING_FOLLOWERS = frozenset(",:}]\n\r/#")


def _string_closes(text: str, pos: int, stop: int) -> bool:
    """Does the quote just before ``pos`` close its string? It does when what follows (after
    spaces) can follow a string in JSON: a separator, a closer, a line break, a comment, the end.
    An unescaped inner quote (``"Hello "world""``) is followed by text and does not."""
    while pos < stop and text[pos] in " \t":
        pos += 1
    return pos >= stop or text[pos] in _CLOSING_FOLLOWERS


def open_depth_at_end(text: str, start: int, stop: int) -> tuple[int, bool]:
    """How many containers are still open where ``text[start:stop]`` ends, and whether it ends
    inside a string.

    A linear, tolerant scan of a JSON-like payload: double- and single-quoted strings (a single
    quote opens one only where a key or value may start), ``//``, ``#`` and ``/* */`` comments,
    and unescaped inner quotes judged as the engine judges them (by what follows).
    """
    depth = 0
    quote = ""
    prev = ""  # the last significant character outside strings
    pos = start
    while pos < stop:
        c = text[pos]
        if quote:
            if c == "\\":
                pos += 2
                continue
            if c == quote and _string_closes(text, pos + 1, stop):
                quote = ""
                prev = c
            pos += 1
            continue
        if c == '"' or (c == "'" and prev in ("", "{", "[", ",", ":")):
            quote = c
        elif c in "{[":
            depth += 1
        elif c in "}]":
            depth = max(0, depth - 1)
        elif c == "#" or text.startswith("//", pos):
            line_end = text.find("\n", pos, stop)
            pos = stop if line_end < 0 else line_end
            continue
        elif text.startswith("/*", pos):
            close = text.find("*/", pos + 2, stop)
            pos = stop if close < 0 else close + 2
            continue
        if not c.isspace():
            prev = c
        pos += 1
    return depth, bool(quote)


def drop_incomplete_last(
    text: str, report: ParseReport, found: ActionItems
) -> tuple[tuple[Any, ...], bool]:
    """The items of a payload without the last one when the token limit cut it in half.

    Only for a payload the engine completed (``report.truncated``): the last item is incomplete
    when the text ends inside it (deeper than the list) or inside a string item of the list.
    Returns the items kept and whether one was dropped.
    """
    items = found.items
    if not report.truncated or not items:
        return items, False
    names = report.repair_names
    if "double_encoded" in names:
        return items, False  # the payload was a string holding JSON: its depth is not the text's
    stop = report.end if report.end > report.start else len(text)
    region = text[report.start : stop]
    if "escaped_quotes" in names:
        region = region.replace('\\"', '"')
    depth, in_string = open_depth_at_end(region, 0, len(region))
    if depth > found.depth or (in_string and depth == found.depth):
        return items[:-1], True
    return items, False
