"""Typed web-agent actions and the validation that turns a model's action dicts into them.

A model that drives a browser answers with actions such as ``{"action_type": "INPUT_TEXT",
"element_id": "email", "text": "a@b.c"}``. Each action type is a pydantic model; `Action`
is their union, discriminated by ``action_type``, with `NullAction` standing for "nothing
to execute" (and, with its ``reason``, for an action that could not be understood).

Input is lenient where models are inconsistent: ``type`` or ``action`` for ``action_type``,
lower-case and aliased type names (``press_enter``, ``double_click``...), ``id`` for
``element_id``, numbers for ids, floats for pixel coordinates, a string for a select option.
`build_action` is the validation pipeline: unknown type -> `NullAction`
with the reason; an element id not on the page -> a warning (or the action dropped); missing
required parameters -> `NullAction` with the reason. Nothing here imports LangChain.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from langchain_robust_parsers.engine.agents.url_safety import UrlPolicy, check_url

__all__ = [
    "ACTION_MODELS",
    "ACTION_TYPES",
    "MAX_PIXEL",
    "URL_POLICY_CONTEXT_KEY",
    "Action",
    "ActionTypeName",
    "BaseAction",
    "BuiltAction",
    "CheckboxAction",
    "ClickAction",
    "ClosePageAction",
    "CompleteAction",
    "DragAction",
    "ExtractAction",
    "GotoUrlAction",
    "HoverAction",
    "InputTextAction",
    "KeypressAction",
    "NewTabAction",
    "NullAction",
    "OpenAppAction",
    "ReloadPageAction",
    "ScrollAction",
    "SelectOption",
    "SelectOptionAction",
    "SolveCaptchaAction",
    "SwitchTabAction",
    "TerminateAction",
    "UploadFileAction",
    "WaitAction",
    "action_adapter",
    "build_action",
    "canonical_action_type",
]

ActionTypeName = Literal[
    "CLICK",
    "INPUT_TEXT",
    "SELECT_OPTION",
    "CHECKBOX",
    "UPLOAD_FILE",
    "HOVER",
    "SCROLL",
    "KEYPRESS",
    "GOTO_URL",
    "WAIT",
    "DRAG",
    "SOLVE_CAPTCHA",
    "TERMINATE",
    "COMPLETE",
    "OPEN_APP",
    "CLOSE_PAGE",
    "NEW_TAB",
    "SWITCH_TAB",
    "RELOAD_PAGE",
    "EXTRACT",
    "NULL_ACTION",
]

TYPE_KEYS = ("action_type", "type", "action")
"""Keys a model may put the action type under, in order of trust: Skyvern's own key, then the
generic ``type`` and ``action`` that other prompts use (only when their value is a string)."""

ID_KEYS = ("element_id", "id", "elementId", "element")
"""Keys a model may put the element id under; ``id`` is what Skyvern's prompt asks for."""

ALIASES: dict[str, tuple[str, dict[str, Any]]] = {
    "PRESS_ENTER": ("KEYPRESS", {"key": "Enter"}),
    "ENTER": ("KEYPRESS", {"key": "Enter"}),
    "PRESS_KEY": ("KEYPRESS", {}),
    "PRESS": ("KEYPRESS", {}),
    "KEY": ("KEYPRESS", {}),
    "HOTKEY": ("KEYPRESS", {}),
    "TYPE": ("INPUT_TEXT", {}),
    "INPUT": ("INPUT_TEXT", {}),
    "FILL": ("INPUT_TEXT", {}),
    "TYPE_TEXT": ("INPUT_TEXT", {}),
    "SELECT": ("SELECT_OPTION", {}),
    "CHECK": ("CHECKBOX", {"is_checked": True}),
    "UNCHECK": ("CHECKBOX", {"is_checked": False}),
    "UPLOAD": ("UPLOAD_FILE", {}),
    "DOUBLE_CLICK": ("CLICK", {"repeat": 2}),
    "RIGHT_CLICK": ("CLICK", {"button": "right"}),
    "SCROLL_UP": ("SCROLL", {"direction": "up"}),
    "SCROLL_DOWN": ("SCROLL", {"direction": "down"}),
    "GOTO": ("GOTO_URL", {}),
    "NAVIGATE": ("GOTO_URL", {}),
    "OPEN_URL": ("GOTO_URL", {}),
    "DONE": ("COMPLETE", {}),
    "FINISH": ("COMPLETE", {}),
    "FINISHED": ("COMPLETE", {}),
    "CLOSE_TAB": ("CLOSE_PAGE", {}),
    "OPEN_TAB": ("NEW_TAB", {}),
    "NEW_PAGE": ("NEW_TAB", {}),
    "CHANGE_TAB": ("SWITCH_TAB", {}),
    "GO_TO_TAB": ("SWITCH_TAB", {}),
    "SWITCH_PAGE": ("SWITCH_TAB", {}),
    "RELOAD": ("RELOAD_PAGE", {}),
    "REFRESH": ("RELOAD_PAGE", {}),
    "REFRESH_PAGE": ("RELOAD_PAGE", {}),
    "EXTRACT_INFORMATION": ("EXTRACT", {}),
    "EXTRACT_DATA": ("EXTRACT", {}),
    "EXTRACT_CONTENT": ("EXTRACT", {}),
    "NULL": ("NULL_ACTION", {}),
    "NONE": ("NULL_ACTION", {}),
    "NOOP": ("NULL_ACTION", {}),
}
"""Type names models write for the canonical ones, with the parameters the alias implies (used
only when the model did not give them): ``PRESS_ENTER`` is a ``KEYPRESS`` of ``Enter``."""

MAX_PIXEL = 1_000_000
"""The largest pixel coordinate (either sign) accepted: no window is a million pixels wide, and a
larger number is garbage that would reach the browser as a click far off screen."""

Pixel = Annotated[int, Field(ge=-MAX_PIXEL, le=MAX_PIXEL)]
"""A pixel coordinate in the window."""

MAX_REPEAT = 10
"""Clicks in a row: a double or triple click is 2 or 3; a thousand clicks is a runaway value."""

MAX_KEY_REPEAT = 100
"""Presses of one key in a row: stepping down a long list takes dozens of ``ArrowDown``; a
thousand is a runaway value."""

URL_POLICY_CONTEXT_KEY = "url_policy"
"""The key of the `UrlPolicy` in pydantic's validation context; without it every URL
field is checked under the default policy (http/https, no private hosts)."""

MAX_REASON_PREVIEW = 80
"""Characters of an offending value quoted in a `NullAction`'s reason: enough to
recognise it in a log line, not enough to copy a page into it."""


def _preview(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= MAX_REASON_PREVIEW else text[: MAX_REASON_PREVIEW - 3] + "..."


def _normalise_name(name: str) -> str:
    """``"press enter"``, ``"Press-Enter"`` -> ``"PRESS_ENTER"``."""
    return "_".join(name.replace("-", " ").replace("_", " ").split()).upper()


def _raw_type(data: Mapping[str, Any]) -> str | None:
    """The action type as the model wrote it, from the first key of `TYPE_KEYS` that holds
    a string."""
    for key in TYPE_KEYS:
        value = data.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None


def canonical_action_type(data: Mapping[str, Any]) -> str | None:
    """The canonical type name of an action dict (aliases and case resolved), the upper-cased
    name as written when it is unknown, or ``None`` when the dict names no type."""
    raw = _raw_type(data)
    if raw is None:
        return None
    name = _normalise_name(raw)
    alias = ALIASES.get(name)
    return alias[0] if alias is not None else name


def _first(data: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if data.get(key) is not None:
            return data[key]
    return None


def _as_int(value: Any) -> Any:
    """Pixel coordinates: a float or a numeric string rounded to an int; anything else as is
    (pydantic then says what is wrong with it)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return round(value)
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return value
        return round(number) if math.isfinite(number) else value
    return value


_COORDINATE_FIELDS = ("x", "y", "end_x", "end_y")
_TEXT_ALIASES: dict[str, tuple[str, ...]] = {
    "reasoning": (),
    "intention": ("intent", "user_intention", "purpose"),
    "context": ("input_or_select_context", "click_context", "element_context"),
}
"""Free-text fields, each with the other keys models put it under; a non-string value (a
number, a dict) is kept as its text."""


def _drop_nulls(data: dict[str, Any], fields: Mapping[str, Any]) -> dict[str, Any]:
    """``data`` without the fields a model set to ``null``: ``"download": null`` means "the
    default", not "a boolean that is missing". A required field becomes missing, which says
    more than "None is not a string"."""
    return {k: v for k, v in data.items() if v is not None or k not in fields}


def _normalise_input(data: dict[str, Any]) -> dict[str, Any]:
    """The common leniencies, applied before any model validates ``data`` (a copy)."""
    out = dict(data)
    raw = _raw_type(out)
    if raw is not None:
        name = _normalise_name(raw)
        canonical, implied = ALIASES.get(name, (name, {}))
        out["action_type"] = canonical
        for key, value in implied.items():
            out.setdefault(key, value)
    if out.get("element_id") is None:
        element = _first(out, ID_KEYS)
        if element is not None and not isinstance(element, (dict, list)):
            out["element_id"] = element
    element_id = out.get("element_id")
    if isinstance(element_id, (int, float)) and not isinstance(element_id, bool):
        out["element_id"] = str(element_id)
    warnings = list(out.get("warnings") or [])
    confidence = out.get("confidence_float", out.get("confidence"))
    if confidence is not None:
        out["confidence_float"] = _confidence(confidence, warnings)
    for key, names in _TEXT_ALIASES.items():
        value = out.get(key)
        if value is None:
            value = _first(out, names)
        if value is not None:
            out[key] = value if isinstance(value, str) else str(value)
    for key in _COORDINATE_FIELDS:
        if key in out:
            out[key] = _as_int(out[key])
    out["warnings"] = [str(w) for w in warnings]
    return out


def _confidence(value: Any, warnings: list[str]) -> float | None:
    """A confidence in [0, 1]; an unreadable one is dropped with a warning (it is optional, so
    it never invalidates the action)."""
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        warnings.append(f"confidence_float {_preview(value)} is not a number; ignored")
        return None
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        warnings.append(f"confidence_float {_preview(value)} is outside [0, 1]; ignored")
        return None
    return number


class BaseAction(BaseModel):
    """The fields every action has."""

    model_config = ConfigDict(extra="ignore", use_attribute_docstrings=True)

    action_type: str
    """The discriminator: the canonical type name (``CLICK``, ``INPUT_TEXT``...)."""
    element_id: str | None = None
    """The id of the page element the action applies to (the model may write ``id``)."""
    reasoning: str | None = None
    """Why the model chose the action (for UI-TARS, its ``Thought:`` text)."""
    confidence_float: float | None = None
    """The model's confidence in [0, 1], when it gave one."""
    intention: str | None = None
    """What the action is meant to achieve, when the model said (``intention`` or ``intent``)."""
    warnings: list[str] = Field(default_factory=list)
    """What was doubtful about the action: an element not on the page, coordinates clamped to
    the window, an unreadable confidence..."""

    @model_validator(mode="before")
    @classmethod
    def _lenient_input(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            return _drop_nulls(_normalise_input(dict(data)), cls.model_fields)
        return data


def _policy(info: ValidationInfo) -> UrlPolicy:
    context = info.context
    policy = context.get(URL_POLICY_CONTEXT_KEY) if isinstance(context, Mapping) else None
    return policy if isinstance(policy, UrlPolicy) else UrlPolicy()


def _safe_url(value: Any, info: ValidationInfo, *, optional: bool = False) -> Any:
    """A URL field's value checked under the validation context's `UrlPolicy`: the
    normalised URL, or a ``ValueError`` with the reason (the action becomes a NullAction). In
    an ``optional`` field an empty string means "no URL", as ``null`` does."""
    if not isinstance(value, str):
        return value  # pydantic says what is wrong with a non-string
    if optional and not value.strip():
        return None
    verdict = check_url(value, _policy(info))
    if verdict.url is None:
        raise ValueError(f"unsafe URL {_preview(value)} refused: {verdict.reason}")
    return verdict.url


def _required_url(value: Any, info: ValidationInfo) -> Any:
    """The before-validator of a URL field (shared by the actions that have one)."""
    return _safe_url(value, info)


def _optional_url(value: Any, info: ValidationInfo) -> Any:
    """The before-validator of a URL field that may be absent."""
    return _safe_url(value, info, optional=True)


class _Targeted(BaseAction):
    """An action on an element, found by its id or by pixel coordinates."""

    x: Pixel | None = None
    """Horizontal pixel position of the target in the window (coordinate-based agents)."""
    y: Pixel | None = None
    """Vertical pixel position of the target in the window."""
    context: str | None = None
    """What the model knows about the element (Skyvern's ``input_or_select_context``)."""

    @model_validator(mode="after")
    def _has_target(self) -> _Targeted:
        if (self.x is None) != (self.y is None):
            raise ValueError("give both x and y, or neither")
        if self.element_id is None and self.x is None and self._needs_target():
            raise ValueError(f"{self.action_type} needs an element_id or x/y coordinates")
        return self

    def _needs_target(self) -> bool:
        return True


class ClickAction(_Targeted):
    """Click an element (or a point)."""

    action_type: Literal["CLICK"] = "CLICK"
    file_url: str | None = None
    """A file to download by clicking, when the click starts a download of a known file."""
    download: bool = False
    """The click is expected to download a file."""
    button: Literal["left", "right", "middle"] = "left"
    """The mouse button."""
    repeat: int = Field(default=1, ge=1, le=MAX_REPEAT)
    """Clicks in a row: 2 is a double click."""
    long_press: bool = False
    """Press and hold (mobile ``long_press``)."""

    @field_validator("button", mode="before")
    @classmethod
    def _lower_button(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    _check_file_url = field_validator("file_url", mode="before")(_optional_url)


class InputTextAction(_Targeted):
    """Type text into an element (or the focused one)."""

    action_type: Literal["INPUT_TEXT"] = "INPUT_TEXT"
    text: str
    """The text to type."""
    submit: bool = False
    """Press Enter after typing (UI-TARS: the content ended with a newline)."""

    def _needs_target(self) -> bool:
        return False  # typing goes to the focused element when no target is given

    @field_validator("text", mode="before")
    @classmethod
    def _scalar_text(cls, value: Any) -> Any:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)  # `"text": 12345` (a zip code) is still text to type
        return value


class SelectOption(BaseModel):
    """Which option to select: by label, value or index (at least one)."""

    model_config = ConfigDict(extra="ignore", use_attribute_docstrings=True)

    label: str | None = None
    """The visible text of the option."""
    value: str | None = None
    """The option's ``value`` attribute."""
    index: int | None = None
    """The option's position, from 0."""

    @model_validator(mode="before")
    @classmethod
    def _from_scalar(cls, data: Any) -> Any:
        if isinstance(data, str):
            return {"label": data}
        if isinstance(data, int) and not isinstance(data, bool):
            return {"index": data}
        if isinstance(data, Mapping):
            out = dict(data)
            for key in ("label", "value"):
                if isinstance(out.get(key), (int, float)) and not isinstance(out[key], bool):
                    out[key] = str(out[key])
            return out
        return data

    @model_validator(mode="after")
    def _one_given(self) -> SelectOption:
        if self.label is None and self.value is None and self.index is None:
            raise ValueError("an option needs a label, a value or an index")
        return self


class SelectOptionAction(_Targeted):
    """Select an option of a ``<select>`` element."""

    action_type: Literal["SELECT_OPTION"] = "SELECT_OPTION"
    option: SelectOption
    """The option to select; a string is its label (``"option": "CA"`` selects the option that
    shows ``CA``, not the one whose value is ``CA``)."""
    download: bool = False
    """Selecting the option is expected to download a file."""


class CheckboxAction(_Targeted):
    """Check or uncheck a checkbox."""

    action_type: Literal["CHECKBOX"] = "CHECKBOX"
    is_checked: bool
    """The state the checkbox should end in."""


class UploadFileAction(_Targeted):
    """Upload a file through a file input."""

    action_type: Literal["UPLOAD_FILE"] = "UPLOAD_FILE"
    file_url: str
    """Where the file to upload is (checked like every URL: an upload of a local path or an
    internal address is refused unless the policy allows it)."""

    _check_file_url = field_validator("file_url", mode="before")(_required_url)


class HoverAction(_Targeted):
    """Move the pointer over an element (or a point)."""

    action_type: Literal["HOVER"] = "HOVER"
    hold_seconds: float | None = None
    """How long to stay there."""


class ScrollAction(_Targeted):
    """Scroll the page (or the element / point given)."""

    action_type: Literal["SCROLL"] = "SCROLL"
    direction: Literal["up", "down", "left", "right"]
    """Which way to scroll."""
    amount: Pixel | None = None
    """How far, in pixels, when the model said."""

    def _needs_target(self) -> bool:
        return False  # no target: scroll the page

    @field_validator("direction", mode="before")
    @classmethod
    def _lower_direction(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value


_KEY_SEPARATORS = "+"


def _split_keys(key: str) -> list[str]:
    """``"ctrl c"``, ``"Control+A"`` -> the keys of the combination; ``"+"`` stays itself."""
    keys: list[str] = []
    for part in key.split():
        if len(part) > 1 and _KEY_SEPARATORS in part:
            keys.extend(p for p in part.split(_KEY_SEPARATORS) if p)
        else:
            keys.append(part)
    return keys


class KeypressAction(BaseAction):
    """Press a key or a key combination."""

    action_type: Literal["KEYPRESS"] = "KEYPRESS"
    key: str
    """The key or combination, keys joined with ``+`` (``Enter``, ``ctrl+c``)."""
    keys: list[str] = Field(default_factory=list)
    """The keys of the combination, in order (``["ctrl", "c"]``)."""
    repeat: int = Field(default=1, ge=1, le=MAX_KEY_REPEAT)
    """Presses in a row (``"times"`` or ``"count"`` in the model's words)."""
    mode: Literal["press", "down", "up"] = "press"
    """``press`` (down, then up), ``down`` (held until an ``up``: UI-TARS ``press``) or ``up``
    (UI-TARS ``release``)."""

    @model_validator(mode="before")
    @classmethod
    def _key_from_keys(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and data.get("repeat") is None:
            times = _first(data, ("times", "count", "presses", "repeat_count"))
            if times is not None:
                data = {**data, "repeat": times}
        if isinstance(data, Mapping) and data.get("key") is None:
            keys = data.get("keys")
            if isinstance(keys, list) and keys and all(isinstance(k, str) for k in keys):
                return {**data, "key": "+".join(keys)}
            if isinstance(keys, str):
                return {**data, "key": keys}
        return data

    @model_validator(mode="after")
    def _split(self) -> KeypressAction:
        keys = _split_keys(self.key)
        if not keys:
            raise ValueError("the key is empty")
        self.keys = keys
        self.key = "+".join(keys)
        return self


class GotoUrlAction(BaseAction):
    """Open a URL."""

    action_type: Literal["GOTO_URL"] = "GOTO_URL"
    url: str = Field(min_length=1)
    """The address to open, normalised (``https://`` added when the scheme is missing); an
    unsafe one makes the action a `NullAction` (see `url_safety`)."""

    _check_url = field_validator("url", mode="before")(_required_url)


class WaitAction(BaseAction):
    """Wait before the next step."""

    action_type: Literal["WAIT"] = "WAIT"
    seconds: float | None = Field(default=None, ge=0)
    """How long, when the model said."""


class DragAction(BaseAction):
    """Drag from one point to another."""

    action_type: Literal["DRAG"] = "DRAG"
    x: Pixel
    """Start, horizontal pixel position."""
    y: Pixel
    """Start, vertical pixel position."""
    end_x: Pixel
    """End, horizontal pixel position."""
    end_y: Pixel
    """End, vertical pixel position."""


class SolveCaptchaAction(BaseAction):
    """Solve the captcha on the page."""

    action_type: Literal["SOLVE_CAPTCHA"] = "SOLVE_CAPTCHA"
    captcha_type: str | None = None
    """The kind of captcha, when the model said."""


class TerminateAction(BaseAction):
    """Stop: the task cannot be completed (or needs the user)."""

    action_type: Literal["TERMINATE"] = "TERMINATE"
    message: str | None = None
    """What the model said when it stopped."""
    needs_user: bool = False
    """The model asks for the user's help (UI-TARS ``call_user()``)."""


class CompleteAction(BaseAction):
    """The goal is reached."""

    action_type: Literal["COMPLETE"] = "COMPLETE"
    message: str | None = None
    """What the model reported (UI-TARS ``finished(content=...)``)."""


class OpenAppAction(BaseAction):
    """Open an app (UI-TARS mobile ``open_app``)."""

    action_type: Literal["OPEN_APP"] = "OPEN_APP"
    app_name: str = Field(min_length=1)
    """The app to open, as the model named it."""


class ClosePageAction(BaseAction):
    """Close the current page (tab)."""

    action_type: Literal["CLOSE_PAGE"] = "CLOSE_PAGE"


class NewTabAction(BaseAction):
    """Open a new tab, at ``url`` when given."""

    action_type: Literal["NEW_TAB"] = "NEW_TAB"
    url: str | None = None
    """The address to open in the new tab (checked like ``GOTO_URL``'s)."""

    _check_url = field_validator("url", mode="before")(_optional_url)


class SwitchTabAction(BaseAction):
    """Make another open tab the current one."""

    action_type: Literal["SWITCH_TAB"] = "SWITCH_TAB"
    tab_index: int = Field(ge=0)
    """The tab's position among the open tabs, from 0 (``tab``, ``tab_id``, ``page_id`` or
    ``index`` in the model's words)."""

    @model_validator(mode="before")
    @classmethod
    def _index_aliases(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and data.get("tab_index") is None:
            index = _first(data, ("tab", "tab_id", "page_id", "index", "tab_number"))
            if index is not None:
                return {**data, "tab_index": index}
        return data


class ReloadPageAction(BaseAction):
    """Reload the current page."""

    action_type: Literal["RELOAD_PAGE"] = "RELOAD_PAGE"


class ExtractAction(BaseAction):
    """Read information from the page (Skyvern ``EXTRACT``, ``EXTRACT_INFORMATION``)."""

    action_type: Literal["EXTRACT"] = "EXTRACT"
    data_extraction_goal: str | None = None
    """What to extract, in words (``goal`` or ``query`` in the model's words)."""
    data_extraction_schema: Any = None
    """The shape of the data to extract (a JSON schema, a dict or a text), when given."""

    @model_validator(mode="before")
    @classmethod
    def _goal_aliases(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and data.get("data_extraction_goal") is None:
            goal = _first(data, ("goal", "query", "extraction_goal", "instruction"))
            if goal is not None:
                return {**data, "data_extraction_goal": str(goal)}
        return data


class NullAction(BaseAction):
    """Nothing to execute: the model chose to do nothing, or (with ``reason`` set) what it
    wrote could not be turned into an executable action."""

    action_type: Literal["NULL_ACTION"] = "NULL_ACTION"
    reason: str | None = None
    """Why this is a null action when the model did not ask for one: an unknown type, a missing
    parameter, no actions in the response..."""
    raw: Any = None
    """The action as the model wrote it, when there was one."""


ACTION_MODELS: dict[str, type[BaseAction]] = {
    "CLICK": ClickAction,
    "INPUT_TEXT": InputTextAction,
    "SELECT_OPTION": SelectOptionAction,
    "CHECKBOX": CheckboxAction,
    "UPLOAD_FILE": UploadFileAction,
    "HOVER": HoverAction,
    "SCROLL": ScrollAction,
    "KEYPRESS": KeypressAction,
    "GOTO_URL": GotoUrlAction,
    "WAIT": WaitAction,
    "DRAG": DragAction,
    "SOLVE_CAPTCHA": SolveCaptchaAction,
    "TERMINATE": TerminateAction,
    "COMPLETE": CompleteAction,
    "OPEN_APP": OpenAppAction,
    "CLOSE_PAGE": ClosePageAction,
    "NEW_TAB": NewTabAction,
    "SWITCH_TAB": SwitchTabAction,
    "RELOAD_PAGE": ReloadPageAction,
    "EXTRACT": ExtractAction,
    "NULL_ACTION": NullAction,
}
"""Each canonical type name and its model."""

ACTION_TYPES: tuple[str, ...] = tuple(ACTION_MODELS)
"""The canonical type names, in the order of the format instructions."""


def _tag(value: Any) -> str | None:
    """The union's discriminator: the canonical type of a dict (aliases resolved) or a model."""
    if isinstance(value, BaseAction):
        return value.action_type
    if isinstance(value, Mapping):
        name = canonical_action_type(value)
        return name if name in ACTION_MODELS else None
    return None


Action = Annotated[
    Union[  # noqa: UP007  # a runtime union of classes for pydantic's discriminator
        Annotated[ClickAction, Tag("CLICK")],
        Annotated[InputTextAction, Tag("INPUT_TEXT")],
        Annotated[SelectOptionAction, Tag("SELECT_OPTION")],
        Annotated[CheckboxAction, Tag("CHECKBOX")],
        Annotated[UploadFileAction, Tag("UPLOAD_FILE")],
        Annotated[HoverAction, Tag("HOVER")],
        Annotated[ScrollAction, Tag("SCROLL")],
        Annotated[KeypressAction, Tag("KEYPRESS")],
        Annotated[GotoUrlAction, Tag("GOTO_URL")],
        Annotated[WaitAction, Tag("WAIT")],
        Annotated[DragAction, Tag("DRAG")],
        Annotated[SolveCaptchaAction, Tag("SOLVE_CAPTCHA")],
        Annotated[TerminateAction, Tag("TERMINATE")],
        Annotated[CompleteAction, Tag("COMPLETE")],
        Annotated[OpenAppAction, Tag("OPEN_APP")],
        Annotated[ClosePageAction, Tag("CLOSE_PAGE")],
        Annotated[NewTabAction, Tag("NEW_TAB")],
        Annotated[SwitchTabAction, Tag("SWITCH_TAB")],
        Annotated[ReloadPageAction, Tag("RELOAD_PAGE")],
        Annotated[ExtractAction, Tag("EXTRACT")],
        Annotated[NullAction, Tag("NULL_ACTION")],
    ],
    Discriminator(_tag),
]
"""Any action: a union of the typed models, discriminated by ``action_type`` (aliases and
lower-case names accepted on input)."""

_ADAPTER: TypeAdapter[list[Action]] = TypeAdapter(list[Action])


def action_adapter() -> TypeAdapter[list[Action]]:
    """A ``TypeAdapter`` for ``list[Action]``: validate, dump or make the JSON schema of a
    list of actions."""
    return _ADAPTER


# ----------------------------------------------------------------------------- validation


@dataclass(frozen=True)
class BuiltAction:
    """What the validation pipeline made of one item.

    ``status`` is ``ok`` (a valid action, possibly with warnings), ``null`` (a `NullAction`
    made because the item was unknown or invalid; ``reason`` says why), ``unknown_type`` (the
    same, for a type name that is not an action) or ``dropped`` (an action on an element not on
    the page, under ``drop_unknown_elements``; ``action`` is ``None``).
    """

    action: BaseAction | None
    status: Literal["ok", "null", "unknown_type", "dropped"]
    reason: str | None = None


def _null(reason: str, raw: Any, base: Mapping[str, Any] | None) -> NullAction:
    """A `NullAction` with the reason, keeping the item's common fields that are sound."""
    common: dict[str, Any] = {"reason": reason, "raw": raw}
    if base is not None:
        clean = _normalise_input(dict(base))
        for key in ("element_id", "reasoning", "confidence_float", "intention", "warnings"):
            if clean.get(key) is not None:
                common[key] = clean[key]
        if not isinstance(common.get("element_id", ""), str):
            del common["element_id"]
    try:
        return NullAction.model_validate(common)
    except ValidationError:
        return NullAction(reason=reason, raw=raw)


def _error_text(action_type: str, error: ValidationError) -> str:
    """``invalid INPUT_TEXT action: missing text`` from a validation error."""
    missing: list[str] = []
    problems: list[str] = []
    for item in error.errors(include_url=False):
        where = ".".join(str(p) for p in item["loc"])
        if item["type"] == "missing":
            missing.append(where)
            continue
        message = str(item["msg"]).removeprefix("Value error, ")
        problems.append(f"{where}: {message}" if where else message)
    parts = ([f"missing {', '.join(missing)}"] if missing else []) + problems
    return f"invalid {action_type} action: " + "; ".join(parts)


def build_action(
    item: Any,
    *,
    elements: Mapping[str, Any] | None = None,
    drop_unknown_elements: bool = False,
    url_policy: UrlPolicy | None = None,
) -> BuiltAction:
    """Validate one item a model wrote into an action.

    1. Type: an item that is not an object, has no type, or names an unknown one becomes a
       `NullAction` with the reason (status ``null`` / ``unknown_type``).
    2. Parameters: a missing or invalid required parameter gives a `NullAction` with the
       reason (a missing ``confidence_float`` or ``reasoning`` is fine).
    3. Element: with ``elements`` (the page's known element ids), an ``element_id`` not among
       them adds a warning, or drops the action with ``drop_unknown_elements``.

    Every URL field is checked under ``url_policy`` (the default: http/https, no private
    hosts); an unsafe URL gives a `NullAction` with the reason.
    """
    if not isinstance(item, Mapping):
        return BuiltAction(_null(f"not an action object: {_preview(item)}", item, None), "null")
    name = canonical_action_type(item)
    if name is None:
        reason = "the action has no action_type"
        return BuiltAction(_null(reason, dict(item), item), "null", reason)
    model = ACTION_MODELS.get(name)
    if model is None:
        raw = _raw_type(item)
        reason = f"unknown action type {_preview(raw)}"
        return BuiltAction(_null(reason, dict(item), item), "unknown_type", reason)
    try:
        context = {URL_POLICY_CONTEXT_KEY: url_policy or UrlPolicy()}
        action = model.model_validate(item, context=context)
    except ValidationError as err:
        reason = _error_text(name, err)
        return BuiltAction(_null(reason, dict(item), item), "null", reason)
    if elements is not None and action.element_id is not None and action.element_id not in elements:
        note = f"element {action.element_id!r} is not among the page's elements"
        if drop_unknown_elements:
            return BuiltAction(None, "dropped", note)
        action.warnings.append(note)
    return BuiltAction(action, "ok")
