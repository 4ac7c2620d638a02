"""UI-TARS answers: ``Thought: ...`` then ``Action: click(start_box='(100,200)')``, read into
action dicts with pixel coordinates.

The grammar (UI-TARS and UI-TARS-desktop prompts)::

    Thought: ...            (or Reflection: ... Action_Summary: ...; or <think>...</think>)
    Action: click(start_box='<|box_start|>(x1,y1)<|box_end|>')

    click / left_single / left_double / right_single / long_press / hover (start_box | point)
    drag / select (start_box, end_box | start_point, end_point)     hotkey(key='ctrl c')
    press(key='ctrl') / release(key='ctrl')      type(content='...', start_box optional)
    scroll(start_box, direction='down')    wait()   finished(content='...')   call_user()
    open_app(app_name='...')  open_computer()  press_home()  press_back()

The omni layout (the action inside ``<computer_env>``, the final answer in ``<answer>``) and
Seed's ``<seed:tool_call><function=...>`` calls are read too (`gui_layouts`), and
`gui_coordinates` maps every coordinate form to the window. With several ``Action:``
sections the last counts, as in UI-TARS's own reader (``multiple="all"`` keeps them all).

Each call is read with Python's own grammar first (`decode_python_calls`: ``ast.parse``
only, nothing evaluated), so ``type(content='it\\'s done\\n')`` decodes its escapes exactly.
What Python cannot read (an unescaped quote inside ``content``, a literal line break, an unquoted
``<|box_start|>`` token, a missing comma between keyword arguments, a closing ``)`` or quote
missing where the answer ends) is read by a small lenient scanner instead, the repair recorded
and a warning put on the action. Nothing here imports LangChain.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_robust_parsers.engine.agents.gui_coordinates import (
    DEFAULT_COORDINATE_SCALE,
    MAX_NUMBER_DIGITS,
    NUMBER,
    CoordinateSpace,
    read_coordinates,
)
from langchain_robust_parsers.engine.agents.gui_layouts import (
    answer_block,
    env_regions,
    reasoning_blocks,
    seed_calls,
)
from langchain_robust_parsers.engine.calls.dialect_registry import SEED_MARKER
from langchain_robust_parsers.engine.calls.parsed_call import CallDecodeError, drop_cut_call
from langchain_robust_parsers.engine.calls.python_calls import decode_python_calls
from langchain_robust_parsers.engine.json import locate
from langchain_robust_parsers.engine.lexicon.tags import skip_chars
from langchain_robust_parsers.engine.repair_log import RepairLog
from langchain_robust_parsers.engine.report import Repair

__all__ = [
    "DEFAULT_COORDINATE_SCALE",
    "MAX_CALLS",
    "UI_TARS_WAIT_SECONDS",
    "CoordinateSpace",
    "Multiple",
    "UiTarsCall",
    "UiTarsItem",
    "UiTarsResponse",
    "call_to_action",
    "find_calls",
    "parse_ui_tars",
    "read_coordinates",
]

UI_TARS_WAIT_SECONDS = 5.0
"""``wait()`` in the UI-TARS prompt means "sleep for 5 s and take a screenshot"."""

MAX_CALLS = 64
"""Calls read from one answer. An agent step acts a few times; hundreds of calls are a model
repeating itself, and each costs a parse."""

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
        "open_computer",
        "press_home",
        "press_back",
        "press",
        "release",
    }
)
"""Call names read from text that has no ``Action:`` marker (anything else there is prose)."""

# `Thought:` / `Reflection:` / `Action_Summary:` / `Action:` at a line start, any case, after
# markdown decoration (`**Action:**`, `## Thought:`), with an ASCII or a full-width colon.
_HEADER_LINE = re.compile(
    r"^[ \t>#*_-]*(?P<name>(?i:thought|reflection|action_summary|actions?))\**[ \t]*[:：]\**[ \t]*",
    re.M,
)
_HEADER_AT = re.compile(_HEADER_LINE.pattern.removeprefix("^"))
"""A header right where the answer starts: after a reasoning closer on the same line
(``<channel|>Thought: ...``), the answer's first line starts mid-line."""
# The same markers in the middle of a line, exact case only (`Thought: ... Action: click(...)`).
_HEADER_INLINE = re.compile(r"(?<=[ \t])(?P<name>Thought|Reflection|Action_Summary|Action):[ \t]*")
_CALL_NAME = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\(")
_KEYWORD = re.compile(r"([A-Za-z_]\w*)[ \t]*=(?!=)")
_QUOTES = "'\""
_OPENERS = {"(": ")", "[": "]", "{": "}"}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"'}


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
    at_begin = _HEADER_AT.match(text, begin)
    for m in itertools.chain((at_begin,) if at_begin else (), _HEADER_LINE.finditer(text, begin)):
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
    repairs: tuple[str, ...] = ()
    """What was repaired in the call's syntax (``missing_paren``, ``missing_quote``,
    ``missing_comma``...); each becomes a warning on its action."""


_OK = "ok"
_MISSING_PAREN = "missing_paren"  # the arguments ended at a line break or the section's end
_CUT = "cut"  # the text ended inside the call
_MALFORMED = "malformed"  # not a call after all (a guard: every value ends where a call may)


@dataclass(frozen=True)
class _Scanned:
    args: dict[str, Any]
    end: int  # after the call (its closing parenthesis, when it has one)
    status: str
    repairs: tuple[str, ...] = ()


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
    quote_end = pos
    while pos < stop and text[pos] in " \t":
        pos += 1
    if pos >= stop or text[pos] in ")\n\r":
        return True
    if pos > quote_end and _next_argument(text, pos, stop):
        return True  # `start_box='(1,2)' end_box='(3,4)'`: the comma was left out
    if text[pos] != ",":
        return False
    pos = skip_chars(text, pos + 1, stop)
    return (
        pos >= stop
        or text[pos] in _QUOTES
        or text[pos] == ")"
        or _KEYWORD.match(text, pos, stop) is not None
    )


def _next_argument(text: str, pos: int, stop: int) -> bool:
    """Does a keyword argument with a quoted, bracketed or numeric value start at ``pos``
    (``end_box='...'``)? Prose inside a string (``'a b=c'``) seldom looks like that."""
    m = _KEYWORD.match(text, pos, stop)
    if m is None:
        return False
    after = skip_chars(text, m.end(), stop)
    return after < stop and (
        text[after] in _QUOTES or text[after] in "([<" or text[after].isdigit()
    )


def _unclosed_string(text: str, pos: int, stop: int, key: str) -> tuple[str, int, str] | None:
    """A quoted value whose closing quote is missing where the call ends: ``'hello)`` at the
    end of the section (the last ``)`` closes the call), or a coordinate value
    (``'<point>1 2</point>``) that is complete without it. The decoded text, the position after
    it and the repair's name; ``None`` when the value may be cut off."""
    quote = text[pos]
    body_end = stop
    while body_end > pos + 1 and text[body_end - 1].isspace():
        body_end -= 1
    if text.find(quote, pos + 1, body_end) >= 0:
        return None  # a quote inside: not simply a missing closing one
    if text[body_end - 1] == ")" and body_end - 1 > pos + 1:
        return _decode_escapes(text[pos + 1 : body_end - 1]), body_end, "missing_quote"
    if key in _START_KEYS + _END_KEYS and text[body_end - 1] in ">)]":
        return _decode_escapes(text[pos + 1 : body_end]), body_end, "missing_quote_and_paren"
    return None


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
    if NUMBER.fullmatch(raw) and len(raw) <= MAX_NUMBER_DIGITS:
        return float(raw) if "." in raw else int(raw)
    return raw


def _scan_args(text: str, pos: int, stop: int) -> _Scanned:
    """The arguments after a call's ``(`` at ``pos - 1``: keyword and positional, quoted or bare.

    The status says how the call ended: ``ok`` at its ``)``; ``missing_paren`` at a line break,
    at the end of the section, or at the end of the text after a complete argument (repaired,
    with the repair named); ``cut`` when the text ends inside an argument (the answer was cut
    off); ``malformed`` when what follows is not arguments.
    """
    args: dict[str, Any] = {}
    repairs: list[str] = []
    positional = 0
    ended = _CUT if stop >= len(text) else _MISSING_PAREN
    while True:
        pos = skip_chars(text, pos, stop)
        if pos >= stop:
            return _Scanned(args, stop, ended, tuple(repairs))
        if text[pos] == ")":
            return _Scanned(args, pos + 1, _OK, tuple(repairs))
        m = _KEYWORD.match(text, pos, stop)
        if m is not None:
            key = m.group(1)
            pos = skip_chars(text, m.end(), stop)
        else:
            key = f"arg{positional}"
            positional += 1
        if pos >= stop:
            return _Scanned(args, stop, ended, tuple(repairs))
        quoted = text[pos] in _QUOTES
        got = _scan_string(text, pos, stop) if quoted else _scan_bare(text, pos, stop)
        if got is None and quoted:
            unclosed = _unclosed_string(text, pos, stop, key)
            if unclosed is not None:
                args[key] = unclosed[0]
                return _Scanned(args, unclosed[1], _MISSING_PAREN, (*repairs, unclosed[2]))
        elif got is None and ended == _CUT:
            value = text[pos:stop].strip()
            if value and value[-1] in ">)]" and key in _START_KEYS + _END_KEYS:
                args[key] = _bare_value(value)  # `start_box=<point>1 2</point>` at the end
                return _Scanned(args, stop, _MISSING_PAREN, tuple(repairs))
        if got is None:
            return _Scanned(args, stop, ended, tuple(repairs))
        args[key], pos = got
        after = skip_chars(text, pos, stop)
        if after >= stop:
            return _Scanned(args, stop, _MISSING_PAREN, tuple(repairs))
        if text[after] == ",":
            pos = after + 1
        elif text[after] == ")":
            return _Scanned(args, after + 1, _OK, tuple(repairs))
        elif "\n" in text[pos:after]:
            return _Scanned(args, pos, _MISSING_PAREN, tuple(repairs))
        elif after > pos and _next_argument(text, after, stop):
            repairs.append("missing_comma")
            pos = after
        else:
            return _Scanned(args, after, _MALFORMED, tuple(repairs))


def _strict(text: str, start: int, end: int, name: str) -> dict[str, Any] | None:
    """The arguments of ``text[start:end]`` read with Python's grammar, or ``None``."""
    try:
        calls = decode_python_calls(text, start, end, positional="keep", tolerant=False)
    except CallDecodeError:  # the lenient reading decides
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
    off: ``log.truncated``); more than `MAX_CALLS` calls are not read.
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
            drop_cut_call(log, m.start())
            break
        if scanned.status == _MALFORMED:
            budget -= scanned.end - m.start()
            pos = m.end()
            continue
        args = None
        repairs = list(scanned.repairs)
        if scanned.status == _OK:
            args = _strict(text, m.start(), scanned.end, name)
        elif not {"missing_quote", "missing_quote_and_paren"} & set(repairs):
            repairs.insert(0, "missing_paren")
        for repair in repairs:
            log.add(repair, scanned.end)
        if args is None:
            log.add("lenient_call", m.start())
        lenient = args is None
        read = scanned.args if args is None else args
        calls.append(UiTarsCall(name, read, m.start(), scanned.end, lenient, tuple(repairs)))
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


_REPAIR_WARNINGS = {
    "missing_paren": "the call's closing ')' was missing; repaired",
    "missing_quote": "a closing quote was missing before the call's ')'; repaired",
    "missing_quote_and_paren": "the closing quote and ')' were missing at the end; repaired",
    "missing_comma": "a comma between arguments was missing; repaired",
}
_PASSED_ON = ("element_id", "id", "reasoning", "intention", "intent", "context", "confidence_float")
"""Common action fields a call may carry (``click(element_id='b3')``, a function call's
``{"element_id": ...}``), kept on the action the call maps to."""
_KEY_MODES = {"press": "down", "release": "up"}
"""UI-TARS ``press(key=...)`` holds a key down until ``release(key=...)``."""


def _map_pointer(
    name: str, args: dict[str, Any], space: CoordinateSpace, action: dict[str, Any]
) -> None:
    if name in ("drag", "select"):
        action["action_type"] = "DRAG"
        _point(action, _arg(args, *_START_KEYS), space, ("x", "y"))
        _point(action, _arg(args, *_END_KEYS), space, ("end_x", "end_y"))
        return
    action["action_type"] = "HOVER" if name == "hover" else "CLICK"
    action.update(_CLICKS.get(name, {}))
    _point(action, _arg(args, *_START_KEYS), space, ("x", "y"))


def _map_keys(name: str, args: dict[str, Any], action: dict[str, Any]) -> None:
    action["action_type"] = "KEYPRESS"
    if name in _KEYS:
        action["key"] = _KEYS[name]
        return
    key = _arg(args, "key", "hotkey", "keys", "arg0")
    if key is not None:
        action["key"] = key if isinstance(key, str) else " ".join(str(k) for k in key)
    if name in _KEY_MODES:
        action["mode"] = _KEY_MODES[name]


def _map_scroll(args: dict[str, Any], space: CoordinateSpace, action: dict[str, Any]) -> None:
    action["action_type"] = "SCROLL"
    direction = _scroll_direction(args)
    if direction is not None:
        action["direction"] = direction
    start = _arg(args, *_START_KEYS[:-1])
    if start is None and args.get("arg0") is not None and args.get("arg0") != direction:
        start = args["arg0"]
    _point(action, start, space, ("x", "y"))


def _map_text(
    name: str, args: dict[str, Any], space: CoordinateSpace, action: dict[str, Any]
) -> None:
    if name == "type":
        content = _text_arg(_arg(args, "content", "text", "arg0"))
        action["action_type"] = "INPUT_TEXT"
        if content is not None:
            action["text"], action["submit"] = _typed(content)
        _point(action, _arg(args, *_START_KEYS[:-1]), space, ("x", "y"))
    elif name in ("finished", "call_user"):
        action["action_type"] = "COMPLETE" if name == "finished" else "TERMINATE"
        action["message"] = _text_arg(_arg(args, "content", "arg0"))
        if name == "call_user":
            action["needs_user"] = True
    else:  # open_app, open_computer
        action["action_type"] = "OPEN_APP"
        app = "computer" if name == "open_computer" else _arg(args, "app_name", "app", "arg0")
        action["app_name"] = _text_arg(app)


_POINTER_CALLS = frozenset({*_CLICKS, "hover", "drag", "select"})
_KEY_CALLS = frozenset({"hotkey", "press", "release", *_KEYS})
_TEXT_CALLS = frozenset({"type", "finished", "call_user", "open_app", "open_computer"})


def call_to_action(call: UiTarsCall, space: CoordinateSpace) -> UiTarsItem:
    """The action dict of one UI-TARS call (common fields other than ``warnings`` left out).

    Known calls map to the action types (see the module docs); any other name is passed on as
    ``{"action_type": name, **args}``, so ``goto_url(url=...)`` works and an unknown name
    becomes an unknown type for the validator to report. A call whose syntax was repaired
    carries a warning for each repair.
    """
    name = call.name.lower()
    args = call.args
    action: dict[str, Any] = {"warnings": []}
    if name in _POINTER_CALLS:
        _map_pointer(name, args, space, action)
    elif name in _KEY_CALLS:
        _map_keys(name, args, action)
    elif name == "scroll":
        _map_scroll(args, space, action)
    elif name in _TEXT_CALLS:
        _map_text(name, args, space, action)
    elif name == "wait":
        action["action_type"] = "WAIT"
        action["seconds"] = UI_TARS_WAIT_SECONDS
    else:
        action = {**args, "action_type": call.name, "warnings": []}
    for key in _PASSED_ON:
        if key in args and key not in action:
            action[key] = args[key]
    action["warnings"][:0] = [_REPAIR_WARNINGS[r] for r in call.repairs if r in _REPAIR_WARNINGS]
    return UiTarsItem(call, action)


# ----------------------------------------------------------------------------- response

Multiple = Literal["last", "all"]
"""Which ``Action:`` sections count: the ``last`` (UI-TARS's own reader: a model that wrote
several steps means the final one) or ``all`` of them, in order."""


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
    think: str | None = None
    """The text of the reasoning blocks before the answer (``<think>``, ``<Thought>``...)."""

    @property
    def reasoning(self) -> str | None:
        """The thought, reflection and action summary in order, joined by line breaks; else the
        reasoning blocks; else the text before the action."""
        parts = [p for p in (self.thought, self.reflection, self.action_summary) if p]
        if parts:
            return "\n".join(parts)
        return self.think or self.preamble or None


_WRAPPER_TAG = re.compile(r"</?(?:[A-Za-z]{1,20}_env|" + re.escape(SEED_MARKER.open[1:-1]) + ")>")
"""Tags around the calls (omni ``<computer_env>``, Seed's ``<seed:tool_call>``): not reasoning."""


def _clip_to_envs(
    regions: list[tuple[int, int]], envs: list[tuple[int, int, int, int]]
) -> list[tuple[int, int]]:
    """Action sections end where their ``<computer_env>`` block does."""
    if not envs:
        return regions
    clipped = []
    for a, b in regions:
        close = next((body_end for _, body, body_end, _ in envs if body <= a < body_end), b)
        clipped.append((a, min(b, close)))
    return clipped


def _last_calls(
    text: str, regions: list[tuple[int, int]], log: RepairLog
) -> tuple[list[UiTarsCall], int]:
    """The calls of the last section that has any (or was cut off), and its index."""
    for index in range(len(regions) - 1, -1, -1):
        scratch = RepairLog()
        a, b = regions[index]
        calls = find_calls(text, a, b, known_only=False, log=scratch)
        if calls or scratch.truncated:
            log.extend(scratch)
            return calls, index
    return [], len(regions) - 1


def _layout_calls(text: str, begin: int, log: RepairLog) -> tuple[list[UiTarsCall], int]:
    """The calls of an answer without ``Action:`` sections: Seed's XML calls, an omni
    ``<answer>`` (``finished``), else the known UI-TARS calls in the text; and where the
    reasoning before them stops."""
    seed, cut = seed_calls(text, begin)
    if seed or cut:
        if cut:
            drop_cut_call(log, begin)
        calls = [UiTarsCall(c.name, c.args, c.start, c.end) for c in seed]
        return calls, calls[0].start if calls else len(text)
    answer = answer_block(text, begin)
    if answer is not None:
        content, start = answer
        return [UiTarsCall("finished", {"content": content}, start, start)], start
    log.add("no_action_marker", begin)
    calls = find_calls(text, begin, len(text), known_only=True, log=log)
    return calls, calls[0].start if calls else len(text)


def _section_headers(
    headers: list[_Header], regions: list[tuple[int, int]], index: int
) -> list[_Header]:
    """The headers after the previous ``Action:`` section up to section ``index``'s own (the
    reasoning that belongs to it), or all of them when it has no reasoning header of its own."""
    start = regions[index - 1][0] if index > 0 else -1
    stop = regions[index][0]
    own = [h for h in headers if start < h.start < stop]
    return own if any(h.name != "action" for h in own) else headers


def parse_ui_tars(
    text: str,
    space: CoordinateSpace | None = None,
    *,
    multiple: Multiple = "last",
    template_opens: bool | None = None,
) -> UiTarsResponse:
    """Read a UI-TARS answer: reasoning headers, calls, action dicts in window pixels.

    The calls are those after the last ``Action:`` marker (every section's with
    ``multiple="all"``; any name: an unknown one is reported by the validator), inside an omni
    ``<computer_env>`` block or not; else Seed's ``<function=...>`` calls, an omni
    ``<answer>`` (a ``finished`` call), or every known UI-TARS call in the text (a repair).
    Reasoning blocks (``<think>``, ``<Thought>``) before the answer are its reasoning when it
    has no ``Thought:`` header; so is text before a lone closing marker, by
    `reasoning.headless_end`'s rule with ``template_opens``. Never raises for a ``str``.
    """
    space = space or CoordinateSpace()
    log = RepairLog()
    bom = 1 if text.startswith("\ufeff") else 0
    think, after_think = reasoning_blocks(text, bom)
    # Reasoning blocks read above are the answer's layout, not a repair.
    begin = after_think if after_think > bom else locate.payload_start(text, log, template_opens)
    headers = _headers(text, begin)
    regions = _clip_to_envs(_action_regions(text, headers), env_regions(text, begin))
    calls: list[UiTarsCall] = []
    reasoning_headers = headers
    if regions and multiple == "last":
        calls, index = _last_calls(text, regions, log)
        reasoning_headers = _section_headers(headers, regions, index)
        limit = len(text)
    elif regions:
        for a, b in regions:
            calls.extend(find_calls(text, a, b, known_only=False, log=log))
            if log.truncated or len(calls) >= MAX_CALLS:
                break
        limit = len(text)
    else:
        calls, limit = _layout_calls(text, begin, log)
    texts, preamble = _reasoning_texts(text, begin, reasoning_headers, limit)
    preamble = _WRAPPER_TAG.sub("", preamble).strip()
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
        think=think,
    )
    reasoning = response.reasoning
    for item in items:
        if reasoning is not None:
            item.action.setdefault("reasoning", reasoning)
    return response
