"""UI-TARS answers: ``Thought: ...`` then ``Action: click(start_box='(100,200)')``, read into
action dicts with pixel coordinates.

The grammar (UI-TARS and UI-TARS-desktop prompts)::

    Thought: ...            (or Reflection: ... Action_Summary: ...)
    Action: click(start_box='<|box_start|>(x1,y1)<|box_end|>')

    click / left_double / right_single / long_press / hover (start_box | point)
    drag / select (start_box, end_box)     hotkey(key='ctrl c')      type(content='...')
    scroll(start_box, direction='down')    wait()   finished(content='...')   call_user()
    open_app(app_name='...')  press_home()  press_back()

Coordinates come as ``<point>x y</point>``, ``<|box_start|>(x,y)<|box_end|>``, ``(x,y)``,
``[x1,y1,x2,y2]`` (a box: its centre) or a bare tuple, in a relative space (0-1000 by default) or
in the pixels of the image the model saw; :class:`CoordinateSpace` maps them to the window.

Each call is read with Python's own grammar first (:func:`decode_python_calls`: ``ast.parse``
only, nothing evaluated), so ``type(content='it\\'s done\\n')`` decodes its escapes exactly.
What Python cannot read (an unescaped quote inside ``content``, a literal line break, an unquoted
``<|box_start|>`` token) is read by a small lenient scanner instead, and the repair recorded.
Nothing here imports LangChain.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from langchain_robust_parsers.engine.calls.python_calls import decode_python_calls
from langchain_robust_parsers.engine.json import locate
from langchain_robust_parsers.engine.repair_log import RepairLog
from langchain_robust_parsers.engine.report import Repair

__all__ = [
    "DEFAULT_COORDINATE_SCALE",
    "MAX_CALLS",
    "UI_TARS_WAIT_SECONDS",
    "CoordinateSpace",
    "UiTarsCall",
    "UiTarsItem",
    "UiTarsResponse",
    "find_calls",
    "parse_ui_tars",
    "read_coordinates",
]

DEFAULT_COORDINATE_SCALE = 1000.0
"""UI-TARS writes coordinates relative to the screenshot, from 0 to 1000 on each axis."""

UI_TARS_WAIT_SECONDS = 5.0
"""``wait()`` in the UI-TARS prompt means "sleep for 5 s and take a screenshot"."""

MAX_CALLS = 64
"""Calls read from one answer. An agent step acts a few times; hundreds of calls are a model
repeating itself, and each costs a parse."""

MAX_COORDINATE_NUMBERS = 4
"""A point is 2 numbers and a box 4; a value with more numbers is not a coordinate."""

MAX_PREVIEW = 60
"""Characters of an unreadable value quoted in a warning."""

KNOWN_CALLS = frozenset(
    {
        "click",
        "left_single",
        "left_double",
        "right_single",
        "long_press",
        "hover",
        "drag",
        "select",
        "hotkey",
        "type",
        "scroll",
        "wait",
        "finished",
        "call_user",
        "open_app",
        "press_home",
        "press_back",
    }
)
"""Call names read from text that has no ``Action:`` marker (anything else there is prose)."""

# `Thought:` / `Reflection:` / `Action_Summary:` / `Action:` at a line start, any case, after
# markdown decoration (`**Action:**`, `## Thought:`), with an ASCII or a full-width colon.
_HEADER_LINE = re.compile(
    r"^[ \t>#*_-]*(?P<name>(?i:thought|reflection|action_summary|actions?))\**[ \t]*[:：]\**[ \t]*",
    re.M,
)
# The same markers in the middle of a line, exact case only (`Thought: ... Action: click(...)`).
_HEADER_INLINE = re.compile(r"(?<=[ \t])(?P<name>Thought|Reflection|Action_Summary|Action):[ \t]*")
_CALL_NAME = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\(")
_KEYWORD = re.compile(r"([A-Za-z_]\w*)[ \t]*=(?!=)")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_QUOTES = "'\""
_OPENERS = {"(": ")", "[": "]", "{": "}"}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"'}


def _preview(value: object) -> str:
    text = repr(value)
    return text if len(text) <= MAX_PREVIEW else text[: MAX_PREVIEW - 3] + "..."


# ----------------------------------------------------------------------------- coordinates


@dataclass(frozen=True)
class CoordinateSpace:
    """How the model's coordinates map to pixels of the window.

    ``window`` is the window's ``(width, height)`` in pixels; without it coordinates are kept in
    the model's space (with a warning). The model's space is ``image_size`` (the pixels of the
    screenshot it saw, for models that answer in absolute pixels) or, by default, ``scale`` units
    per axis (UI-TARS: 0-1000). Decimal values all within [0, 1] are read as fractions.
    """

    window: tuple[int, int] | None = None
    scale: float = DEFAULT_COORDINATE_SCALE
    image_size: tuple[int, int] | None = None

    def extent(self) -> tuple[float, float]:
        """The size of the model's space on each axis."""
        if self.image_size is not None:
            return float(self.image_size[0]), float(self.image_size[1])
        return self.scale, self.scale


MAX_NUMBER_DIGITS = 12
"""Digits in one coordinate number: screens and relative spaces need a handful, and a longer run
of digits is not a coordinate (nor convertible: Python refuses ints of more than 4300 digits)."""


def _number(token: str) -> float | None:
    """One coordinate number; ``None`` for a run of digits too long to be one."""
    if len(token) > MAX_NUMBER_DIGITS:
        return None
    return float(token)


def _numbers(value: Any) -> tuple[list[float], bool] | None:
    """The numbers of a coordinate value, and whether all were written as decimals: from a list
    of numbers, or from the numbers written in a string (``"<point>10 20</point>"``,
    ``"<|box_start|>(1,2)<|box_end|>"``, ``"[1, 2, 3, 4]"``). ``None`` when it holds none."""
    found: list[float] = []
    decimal = True
    if isinstance(value, (list, tuple)):
        flat: list[Any] = []
        for item in value:
            flat.extend(item if isinstance(item, (list, tuple)) else [item])
        for item in flat[: MAX_COORDINATE_NUMBERS + 1]:
            if isinstance(item, bool) or not isinstance(item, (int, float)):
                return None
            number = _number(str(item)) if isinstance(item, int) else item
            if number is None or not math.isfinite(number):
                return None
            found.append(float(number))
            decimal = decimal and isinstance(item, float)
        return found, decimal
    if not isinstance(value, str):
        return None
    for m in _NUMBER.finditer(value):
        if len(found) > MAX_COORDINATE_NUMBERS:
            return None
        number = _number(m.group())
        if number is None:
            return None
        found.append(number)
        decimal = decimal and "." in m.group()
    return found, decimal


def read_coordinates(
    value: Any, space: CoordinateSpace
) -> tuple[tuple[int, int] | None, list[str]]:
    """The window pixel ``(x, y)`` of a point or box written by the model, and warnings.

    A box ``[x1, y1, x2, y2]`` gives its centre. Returns ``(None, [why])`` when the value holds
    neither a point nor a box.
    """
    read = _numbers(value)
    if read is None or len(read[0]) not in (2, MAX_COORDINATE_NUMBERS):
        return None, [f"could not read coordinates from {_preview(value)}"]
    numbers, decimal = read
    if len(numbers) == MAX_COORDINATE_NUMBERS:
        x = (numbers[0] + numbers[2]) / 2
        y = (numbers[1] + numbers[3]) / 2
    else:
        x, y = numbers[0], numbers[1]
    fractions = decimal and all(0.0 <= n <= 1.0 for n in numbers)
    ext_w, ext_h = (1.0, 1.0) if fractions else space.extent()
    warnings: list[str] = []
    if not (0 <= x <= ext_w and 0 <= y <= ext_h):
        warnings.append(f"coordinates {_preview(value)} lie outside the model's space")
    if space.window is None:
        if fractions:
            x, y = x * space.extent()[0], y * space.extent()[1]
        warnings.append("no window size given: coordinates are in the model's space")
        return (round(x), round(y)), warnings
    width, height = space.window
    px = _clamp(round(x / ext_w * width), width)
    py = _clamp(round(y / ext_h * height), height)
    return (px, py), warnings


def _clamp(value: int, size: int) -> int:
    return max(0, min(value, max(size - 1, 0)))


# ----------------------------------------------------------------------------- sections


@dataclass(frozen=True)
class _Header:
    name: str  # thought, reflection, action_summary, action
    start: int
    body: int


def _headers(text: str, begin: int) -> list[_Header]:
    """The headers after ``begin``, in order. A header in the middle of a line counts only
    before the first ``Action:`` that starts a line, so that ``type(content='... Thought: ...')``
    in an action section does not end the section inside its string."""
    found: dict[int, _Header] = {}
    first_action_line = len(text)
    for m in _HEADER_LINE.finditer(text, begin):
        name = m.group("name").lower()
        name = "action" if name == "actions" else name
        found[m.start("name")] = _Header(name, m.start(), m.end())
        if name == "action":
            first_action_line = min(first_action_line, m.start())
    for m in _HEADER_INLINE.finditer(text, begin, first_action_line):
        found.setdefault(m.start("name"), _Header(m.group("name").lower(), m.start(), m.end()))
    return [found[k] for k in sorted(found)]


def _action_regions(text: str, headers: list[_Header]) -> list[tuple[int, int]]:
    """The text after each ``Action:`` header, up to the next header."""
    regions: list[tuple[int, int]] = []
    for i, header in enumerate(headers):
        if header.name == "action":
            end = headers[i + 1].start if i + 1 < len(headers) else len(text)
            regions.append((header.body, end))
    return regions


def _reasoning_texts(
    text: str, begin: int, headers: list[_Header], limit: int
) -> tuple[dict[str, str], str]:
    """The text of the first of each reasoning header and the text before the first header,
    none of it reaching past ``limit`` (where the calls start)."""
    texts: dict[str, str] = {}
    for i, header in enumerate(headers):
        if header.name == "action" or header.name in texts or header.start >= limit:
            continue
        end = headers[i + 1].start if i + 1 < len(headers) else len(text)
        texts[header.name] = text[header.body : min(end, limit)].strip()
    first = headers[0].start if headers else len(text)
    return texts, text[begin : min(first, limit)].strip()


# ----------------------------------------------------------------------------- call scanning


@dataclass(frozen=True)
class UiTarsCall:
    """One call as written: its name, its arguments (positional ones as ``arg0``, ``arg1``...),
    where it is in the text, and whether the lenient scanner (not Python's grammar) read it."""

    name: str
    args: dict[str, Any]
    start: int
    end: int
    lenient: bool = False


_OK = "ok"
_MISSING_PAREN = "missing_paren"  # the arguments ended at a line break or the section's end
_CUT = "cut"  # the text ended inside the call
_MALFORMED = "malformed"  # not a call after all (a guard: every value ends where a call may)


@dataclass(frozen=True)
class _Scanned:
    args: dict[str, Any]
    end: int  # after the call (its closing parenthesis, when it has one)
    status: str


def _decode_escapes(raw: str) -> str:
    """``\\n``, ``\\t``, ``\\r``, ``\\\\``, ``\\'`` and ``\\"`` decoded; other backslashes kept."""
    if "\\" not in raw:
        return raw
    out: list[str] = []
    pos = 0
    while pos < len(raw):
        c = raw[pos]
        if c == "\\" and pos + 1 < len(raw) and raw[pos + 1] in _ESCAPES:
            out.append(_ESCAPES[raw[pos + 1]])
            pos += 2
            continue
        out.append(c)
        pos += 1
    return "".join(out)


def _string_ends(text: str, pos: int, stop: int) -> bool:
    """Does the quote just before ``pos`` end its string? Yes when a ``)``, a line break, the
    end, or a ``,`` that starts another argument follows: an inner quote (``'say 'hi' now'``)
    is followed by text."""
    while pos < stop and text[pos] in " \t":
        pos += 1
    if pos >= stop or text[pos] in ")\n\r":
        return True
    if text[pos] != ",":
        return False
    pos = _skip_blank(text, pos + 1, stop)
    return (
        pos >= stop
        or text[pos] in _QUOTES
        or text[pos] == ")"
        or _KEYWORD.match(text, pos, stop) is not None
    )


def _scan_string(text: str, pos: int, stop: int) -> tuple[str, int] | None:
    """A quoted value starting at ``pos``: its decoded text and the position after it, or
    ``None`` when it runs to ``stop``."""
    quote = text[pos]
    i = pos + 1
    while i < stop:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == quote and _string_ends(text, i + 1, stop):
            return _decode_escapes(text[pos + 1 : i]), i + 1
        i += 1
    return None


def _scan_bare(text: str, pos: int, stop: int) -> tuple[Any, int] | None:
    """An unquoted value (``down``, ``5``, ``(1,2)``, ``<|box_start|>(1,2)<|box_end|>``) up to a
    ``,``, a ``)`` or a line break outside brackets, or ``None`` when it runs to ``stop``."""
    closers: list[str] = []
    i = pos
    while i < stop:
        c = text[i]
        if c in _QUOTES and closers:
            found = _scan_string(text, i, stop)
            if found is None:
                return None
            i = found[1]
            continue
        if c in _OPENERS:
            closers.append(_OPENERS[c])
        elif closers and c == closers[-1]:
            closers.pop()
        elif not closers and c in ",)\n\r":
            return _bare_value(text[pos:i].strip()), i
        i += 1
    return None


def _bare_value(raw: str) -> Any:
    lowered = raw.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered in ("none", "null"):
        return None
    if _NUMBER.fullmatch(raw) and len(raw) <= MAX_NUMBER_DIGITS:
        return float(raw) if "." in raw else int(raw)
    return raw


def _skip_blank(text: str, pos: int, stop: int) -> int:
    while pos < stop and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _scan_args(text: str, pos: int, stop: int) -> _Scanned:
    """The arguments after a call's ``(`` at ``pos - 1``: keyword and positional, quoted or bare.

    The status says how the call ended: ``ok`` at its ``)``; ``missing_paren`` at a line break
    or the end of the section (more text follows); ``cut`` at the end of the text (the answer
    was cut off inside the call); ``malformed`` when what follows is not arguments.
    """
    args: dict[str, Any] = {}
    positional = 0
    ended = _CUT if stop >= len(text) else _MISSING_PAREN
    while True:
        pos = _skip_blank(text, pos, stop)
        if pos >= stop:
            return _Scanned(args, stop, ended)
        if text[pos] == ")":
            return _Scanned(args, pos + 1, _OK)
        m = _KEYWORD.match(text, pos, stop)
        if m is not None:
            key = m.group(1)
            pos = _skip_blank(text, m.end(), stop)
        else:
            key = f"arg{positional}"
            positional += 1
        if pos >= stop:
            return _Scanned(args, stop, ended)
        got = _scan_string(text, pos, stop) if text[pos] in _QUOTES else _scan_bare(text, pos, stop)
        if got is None:
            return _Scanned(args, stop, ended)
        args[key], pos = got
        after = _skip_blank(text, pos, stop)
        if after >= stop:
            return _Scanned(args, stop, ended)
        if text[after] == ",":
            pos = after + 1
        elif text[after] == ")":
            return _Scanned(args, after + 1, _OK)
        elif "\n" in text[pos:after]:
            return _Scanned(args, pos, _MISSING_PAREN)  # `click(start_box='(1,2)'` + newline
        else:
            return _Scanned(args, after, _MALFORMED)


def _strict(text: str, start: int, end: int, name: str) -> dict[str, Any] | None:
    """The arguments of ``text[start:end]`` read with Python's grammar, or ``None``."""
    try:
        calls = decode_python_calls(text, start, end, positional="keep", tolerant=False)
    except Exception:  # CallDecodeError, or anything unforeseen: the lenient reading decides
        return None
    if len(calls) != 1 or calls[0].name != name:
        return None
    return calls[0].args


SCAN_BUDGET = 4
"""Call candidates that turn out not to be calls may together re-read at most this many times
the section: most fail within a few characters, and text made of ``f(`` followed by long
unclosed strings stops being tried before the work turns quadratic."""


def find_calls(
    text: str, start: int, stop: int, *, known_only: bool, log: RepairLog
) -> list[UiTarsCall]:
    """The calls in ``text[start:stop]``, in order.

    With ``known_only`` only the UI-TARS call names count (text without an ``Action:`` marker,
    where other ``name(`` is prose). A call the text ends inside is dropped (the answer was cut
    off: ``log.truncated``); more than :data:`MAX_CALLS` calls are not read.
    """
    calls: list[UiTarsCall] = []
    budget = SCAN_BUDGET * (stop - start + 1)
    pos = start
    while pos < stop and budget > 0:
        m = _CALL_NAME.search(text, pos, stop)
        if m is None:
            break
        name = m.group(1)
        if known_only and name.lower() not in KNOWN_CALLS:
            pos = m.end()
            continue
        if len(calls) >= MAX_CALLS:
            log.add("too_many_calls", m.start())
            break
        scanned = _scan_args(text, m.end(), stop)
        if scanned.status == _CUT:
            log.truncated = True
            log.add("truncated_call_dropped", m.start())
            break
        if scanned.status == _MALFORMED:
            budget -= scanned.end - m.start()
            pos = m.end()
            continue
        args = None
        if scanned.status == _OK:
            args = _strict(text, m.start(), scanned.end, name)
        else:
            log.add("missing_paren", scanned.end)
        if args is None:
            log.add("lenient_call", m.start())
        lenient = args is None
        read = scanned.args if args is None else args
        calls.append(UiTarsCall(name, read, m.start(), scanned.end, lenient))
        pos = scanned.end
    if budget <= 0:
        log.add("scan_budget_exhausted", pos)
    return calls


# ----------------------------------------------------------------------------- mapping


@dataclass(frozen=True)
class UiTarsItem:
    """One call and the action dict it maps to."""

    call: UiTarsCall
    action: dict[str, Any]


def _arg(args: dict[str, Any], *names: str) -> Any:
    for name in names:
        if args.get(name) is not None:
            return args[name]
    return None


_START_KEYS = (
    "start_box",
    "point",
    "start_point",
    "box",
    "coordinate",
    "coordinates",
    "position",
    "arg0",
)
_END_KEYS = ("end_box", "end_point", "end_coordinate", "arg1")
_DIRECTIONS = frozenset({"up", "down", "left", "right"})
_CLICKS: dict[str, dict[str, Any]] = {
    "click": {},
    "left_single": {},
    "left_double": {"repeat": 2},
    "right_single": {"button": "right"},
    "long_press": {"long_press": True},
}
_KEYS: dict[str, str] = {"press_home": "GoHome", "press_back": "GoBack"}
"""Mobile buttons as the UI Events key values of phone keys (``GoHome``, ``GoBack``), which no
desktop key shares: ``Home`` would move a text cursor."""


def _point(
    action: dict[str, Any], value: Any, space: CoordinateSpace, keys: tuple[str, str]
) -> None:
    """Put the window coordinates of ``value`` into ``action[keys]``; warnings when unreadable."""
    if value is None:
        return
    point, warnings = read_coordinates(value, space)
    action["warnings"].extend(warnings)
    if point is not None:
        action[keys[0]], action[keys[1]] = point


def _text_arg(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else str(value)


def _typed(content: str) -> tuple[str, bool]:
    """The text of ``type(content=...)`` and whether it submits: a trailing line break (or the
    two characters ``\\n``, when the model escaped its escape) means "then press Enter"."""
    submit = False
    while True:
        if content.endswith("\n"):
            content = content[:-1].removesuffix("\r")
        elif content.endswith("\\n") and not content.endswith("\\\\n"):
            content = content[:-2]
        else:
            return content, submit
        submit = True


def _scroll_direction(args: dict[str, Any]) -> Any:
    direction = _arg(args, "direction")
    if direction is not None:
        return direction
    for key in ("arg0", "arg1"):
        value = args.get(key)
        if isinstance(value, str) and value.strip().lower() in _DIRECTIONS:
            return value
    return None


def call_to_action(call: UiTarsCall, space: CoordinateSpace) -> UiTarsItem:
    """The action dict of one UI-TARS call (common fields other than ``warnings`` left out).

    Known calls map to the action types (see the module docs); any other name is passed on as
    ``{"action_type": name, **args}``, so ``goto_url(url=...)`` works and an unknown name
    becomes an unknown type for the validator to report.
    """
    name = call.name.lower()
    args = call.args
    action: dict[str, Any] = {"warnings": []}
    if name in _CLICKS or name == "hover":
        action["action_type"] = "HOVER" if name == "hover" else "CLICK"
        action.update(_CLICKS.get(name, {}))
        _point(action, _arg(args, *_START_KEYS), space, ("x", "y"))
    elif name in ("drag", "select"):
        action["action_type"] = "DRAG"
        _point(action, _arg(args, *_START_KEYS), space, ("x", "y"))
        _point(action, _arg(args, *_END_KEYS), space, ("end_x", "end_y"))
    elif name == "type":
        content = _text_arg(_arg(args, "content", "text", "arg0"))
        action["action_type"] = "INPUT_TEXT"
        if content is not None:
            action["text"], action["submit"] = _typed(content)
    elif name == "hotkey":
        action["action_type"] = "KEYPRESS"
        key = _arg(args, "key", "hotkey", "keys", "arg0")
        if key is not None:
            action["key"] = key if isinstance(key, str) else " ".join(str(k) for k in key)
    elif name == "scroll":
        action["action_type"] = "SCROLL"
        direction = _scroll_direction(args)
        if direction is not None:
            action["direction"] = direction
        start = _arg(args, *_START_KEYS[:-1])
        if start is None and args.get("arg0") is not None and args.get("arg0") != direction:
            start = args["arg0"]
        _point(action, start, space, ("x", "y"))
    elif name == "wait":
        action["action_type"] = "WAIT"
        action["seconds"] = UI_TARS_WAIT_SECONDS
    elif name in ("finished", "call_user"):
        action["action_type"] = "COMPLETE" if name == "finished" else "TERMINATE"
        action["message"] = _text_arg(_arg(args, "content", "arg0"))
        if name == "call_user":
            action["needs_user"] = True
    elif name == "open_app":
        action["action_type"] = "OPEN_APP"
        action["app_name"] = _text_arg(_arg(args, "app_name", "app", "arg0"))
    elif name in _KEYS:
        action["action_type"] = "KEYPRESS"
        action["key"] = _KEYS[name]
    else:
        action = {**args, "action_type": call.name, "warnings": []}
    return UiTarsItem(call, action)


# ----------------------------------------------------------------------------- response


@dataclass(frozen=True)
class UiTarsResponse:
    """What a UI-TARS answer holds: its reasoning headers, its calls mapped to action dicts (each
    with ``reasoning`` set), and what was repaired (``truncated``: a call was cut off)."""

    thought: str | None = None
    reflection: str | None = None
    action_summary: str | None = None
    preamble: str | None = None
    items: tuple[UiTarsItem, ...] = ()
    has_action_marker: bool = False
    repairs: tuple[Repair, ...] = field(default_factory=tuple)
    truncated: bool = False

    @property
    def reasoning(self) -> str | None:
        """The thought, reflection and action summary in order, joined by line breaks; the text
        before the action when the answer has no such header."""
        parts = [p for p in (self.thought, self.reflection, self.action_summary) if p]
        if parts:
            return "\n".join(parts)
        return self.preamble or None


def parse_ui_tars(text: str, space: CoordinateSpace | None = None) -> UiTarsResponse:
    """Read a UI-TARS answer: reasoning headers, calls, action dicts in window pixels.

    The calls are those after each ``Action:`` marker (any name: an unknown one is reported by
    the validator), or, in text without a marker, every known UI-TARS call (a repair). Reasoning
    blocks (``<think>``) before the answer are skipped. Never raises for a ``str``.
    """
    space = space or CoordinateSpace()
    log = RepairLog()
    begin = locate.payload_start(text, log)
    headers = _headers(text, begin)
    regions = _action_regions(text, headers)
    calls: list[UiTarsCall] = []
    if regions:
        for a, b in regions:
            calls.extend(find_calls(text, a, b, known_only=False, log=log))
            if log.truncated or len(calls) >= MAX_CALLS:
                break
        limit = len(text)
    else:
        log.add("no_action_marker", begin)
        calls = find_calls(text, begin, len(text), known_only=True, log=log)
        limit = calls[0].start if calls else len(text)
    texts, preamble = _reasoning_texts(text, begin, headers, limit)
    items = tuple(call_to_action(call, space) for call in calls[:MAX_CALLS])
    response = UiTarsResponse(
        thought=texts.get("thought") or None,
        reflection=texts.get("reflection") or None,
        action_summary=texts.get("action_summary") or None,
        preamble=preamble or None,
        items=items,
        has_action_marker=bool(regions),
        repairs=tuple(log.repairs),
        truncated=log.truncated,
    )
    reasoning = response.reasoning
    for item in items:
        if reasoning is not None:
            item.action.setdefault("reasoning", reasoning)
    return response
