"""The rules of the lenient scanner, listed per scanner state in the order they are tried.

The scanner is in one of three states: expecting a value (`VALUE`), expecting a key or the
end of an object (`KEY`), or after a value (`AFTER`). Each rule is
``rule(scan, pos, c) -> (state, pos) | None``: ``c`` is ``src[pos]``, the first significant
character; ``None`` means the rule does not apply and the next one is tried. A rule that reads a
value stores it in ``scan.pending`` and moves to `COMPLETE`; a rule that ends the scan
stores ``scan.result`` and moves to `DONE`. The last rule of each state always applies.
The repairs a rule records are named in `repair_names`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from langchain_robust_parsers.engine.json.cut_literals import CUT_NONFINITE, completed_literal
from langchain_robust_parsers.engine.json.over_escaped import (
    ESCAPED_QUOTE,
    read_cut_over_escaped,
    read_over_escaped,
)
from langchain_robust_parsers.engine.json.scan_containers import (
    _NOT_CLOSED,
    C_FIRST_WINDOW,
    C_SUBTREE_MAX_DEPTH,
    MAX_DEPTH,
    TOO_DEEP,
    _attach,
    _attach_member,
    _c_decode,
    _close,
    _closed_value,
    _reopen_root,
)
from langchain_robust_parsers.engine.json.scan_lexicon import (
    _ARR,
    _CLOSERS,
    _DELIMITERS,
    _LITERAL_PREFIXES,
    _LITERALS,
    _OBJ,
    _UNQUOTED_KEY,
    _WORD,
    SKIP_STARTS,
    LenientError,
    _Frame,
    _looks_like_member_start,
    _next_member_on_line,
    _next_significant,
    _spaced_key_end,
    after_string_prefix,
    skip_ws_and_comments,
)
from langchain_robust_parsers.engine.json.scan_scalars import (
    _scan_number,
    _unquoted_value,
    constructor_argument,
)
from langchain_robust_parsers.engine.json.scan_strings import (
    _closers_after_unclosed_string,
    _concatenate,
    key_in_unclosed_string,
    scan_string,
)
from langchain_robust_parsers.engine.lexicon.literals import PYTHON_LITERALS
from langchain_robust_parsers.engine.repair_log import RepairLog

VALUE, KEY, AFTER, COMPLETE, DONE = range(5)

MEMBER_LOOKAHEAD = 200
"""Characters searched for the closing quote of a key that may follow a stray word (keys are
short; the bound keeps a run of stray words linear)."""

MAX_STRING_RESUMES = 4
"""Times one scan may re-read the tail of a cut-off string as members (``"first, b: 1}``).
Each re-read covers text already read once, so the cap keeps the scan linear."""


class Scan:
    """Everything one scan works on, passed to every rule; created per call, never shared."""

    __slots__ = (
        "after_comma",
        "at_text_end",
        "c_window",
        "end",
        "log",
        "pending",
        "result",
        "resumes",
        "src",
        "stack",
        "stream_prefix",
        "use_c",
    )

    def __init__(
        self, src: str, end: int, log: RepairLog, *, at_text_end: bool, stream_prefix: bool
    ) -> None:
        self.src = src
        self.end = end
        self.log = log
        self.at_text_end = at_text_end
        self.stream_prefix = stream_prefix
        self.stack: list[_Frame] = []
        self.use_c = True
        self.c_window = C_FIRST_WINDOW
        self.resumes = 0
        self.after_comma = False
        self.pending: Any = None
        self.result: tuple[Any, int] = (None, 0)

    @property
    def frame(self) -> _Frame | None:
        return self.stack[-1] if self.stack else None

    def in_object(self) -> bool:
        return bool(self.stack) and self.stack[-1].kind == _OBJ

    def too_deep(self, pos: int) -> None:
        if len(self.stack) >= MAX_DEPTH:
            raise LenientError(f"nesting deeper than {MAX_DEPTH} levels", pos, too_deep=True)


Step = tuple[int, int]
Rule = Callable[[Scan, int, str], "Step | None"]


def finish(scan: Scan, at: int) -> Step:
    """The text ends inside open containers: close them all (``truncated`` when the text is
    cut off, else ``missing_closer``); a key still waiting for its value is dropped."""
    if scan.at_text_end:
        scan.log.truncated = True
    else:
        scan.log.add("missing_closer", at)
    if scan.in_object():
        scan.stack[-1].key = None
    value: Any = None
    while scan.stack:
        value = _closed_value(scan.stack.pop())
        if scan.stack:
            _attach(scan.stack[-1], value)
    if value is None:
        raise LenientError("no value before the end of the text", at)
    scan.result = (value, at)
    return DONE, at


def complete(scan: Scan, pos: int) -> Step:
    """A value is in ``scan.pending``: attach it, or end the scan when it is the root."""
    scan.after_comma = False
    if not scan.stack:
        reopened = _reopen_root(scan.stack, scan.pending, scan.src, pos, scan.end, scan.log)
        if reopened >= 0:
            return AFTER, reopened
        scan.result = (scan.pending, pos)
        return DONE, pos
    _attach(scan.stack[-1], scan.pending)
    return AFTER, pos


# ------------------------------------------------------------------ after a value (AFTER)


def comma(scan: Scan, pos: int, c: str) -> Step | None:
    """``[1, 2]``; ``[1,, 2]`` is ``extra_comma``, ``[1, 2,]`` is ``trailing_comma``."""
    if c != ",":
        return None
    frame = scan.stack[-1]
    frame.commas += 1
    src, end, log = scan.src, scan.end, scan.log
    n = skip_ws_and_comments(src, pos + 1, end, log)
    while n < end and src[n] == ",":
        log.add("extra_comma", n)
        n = skip_ws_and_comments(src, n + 1, end, log)
    if n < end and src[n] in "}])":
        log.add("trailing_comma", pos)
    scan.after_comma = True
    return (KEY if frame.kind == _OBJ else VALUE), n


def closer(scan: Scan, pos: int, c: str) -> Step | None:
    """``}``/``]``/``)``: close the container it belongs to (``missing_closer``,
    ``mismatched_closer``, ``extra_closer`` when it is not the innermost one's)."""
    return _close_step(scan, pos, c, AFTER)


def key_closer(scan: Scan, pos: int, c: str) -> Step | None:
    """``{}`` or ``{"a": 1,}``: the closer where a key was expected."""
    return _close_step(scan, pos, c, KEY)


def _close_step(scan: Scan, pos: int, c: str, stay: int) -> Step | None:
    if c not in "}])":
        return None
    pos, closed = _close(scan.stack, c, pos, scan.log, scan.src, scan.end)
    if closed is _NOT_CLOSED:
        return stay, pos  # a stray closer, skipped
    scan.pending = closed
    return complete(scan, pos)


BACKTICK_REACH = 4096
"""Characters searched for the closing backtick of a template-literal string; past it the
backtick is left to the other rules (without the bound, a run of lone backticks would each
search the rest of the text)."""


def _backtick_close(scan: Scan, pos: int, c: str) -> int:
    """Where the JavaScript template literal opened at ``pos`` closes, or -1 (a fence's three
    backticks open none)."""
    if c != "`" or scan.src.startswith("``", pos):
        return -1
    return scan.src.find("`", pos + 1, min(scan.end, pos + BACKTICK_REACH))


def backtick_key(scan: Scan, pos: int, c: str) -> Step | None:
    """``{`a`: 1}``: a key in JavaScript template-literal quotes (``backtick_quotes``)."""
    close = _backtick_close(scan, pos, c)
    if close < 0:
        return None
    colon = _next_significant(scan.src, close + 1, scan.end)
    if colon >= scan.end or scan.src[colon] != ":":
        return None
    scan.log.add("backtick_quotes", pos)
    scan.stack[-1].key = scan.src[pos + 1 : close]
    return VALUE, colon + 1


def backtick_string(scan: Scan, pos: int, c: str) -> Step | None:
    """``{"a": `b`}``: a value in JavaScript template-literal quotes (``backtick_quotes``)."""
    close = _backtick_close(scan, pos, c)
    cut = close < 0 and c == "`" and scan.at_text_end and scan.end - pos < BACKTICK_REACH
    if cut and not scan.src.startswith("``", pos):
        scan.log.truncated = True  # `{"a": `unfinis`: cut inside the string
        scan.pending = scan.src[pos + 1 : scan.end]
        return COMPLETE, scan.end
    if close < 0:
        return None
    scan.log.add("backtick_quotes", pos)
    scan.pending = scan.src[pos + 1 : close]
    return COMPLETE, close + 1


def fence(scan: Scan, pos: int, c: str) -> Step | None:
    """A closing fence inside open containers ends the payload: ``{"a": 1\\n```."""
    return finish(scan, pos) if c == "`" else None


def list_left_open(scan: Scan, pos: int, c: str) -> Step | None:
    """``{"a": [1, 2, "b": 3}``: the list was never closed; ``"b"`` is the object's key."""
    stack = scan.stack
    frame = stack[-1]
    if not (
        c == ":"
        and frame.kind == _ARR
        and frame.members > 1
        and len(stack) > 1
        and stack[-2].kind == _OBJ
        and isinstance(frame.container[-1], str)
    ):
        return None
    key = frame.container.pop()
    stack.pop()
    scan.log.add("missing_closer", pos)
    _attach(stack[-1], _closed_value(frame))
    stack[-1].key = key
    return VALUE, pos + 1


def object_in_list(scan: Scan, pos: int, c: str) -> Step | None:
    """``["key": "value"]``: the model forgot the object's braces inside the list."""
    frame = scan.stack[-1]
    if not (c == ":" and frame.kind == _ARR and frame.members == 1 and not scan.after_comma):
        return None
    scan.too_deep(pos)
    key = frame.container.pop()
    frame.members = 0
    obj = _Frame(_OBJ, "}")
    obj.key = key if isinstance(key, str) else json.dumps(key)
    scan.stack.append(obj)
    scan.log.add("missing_opener", pos)
    return VALUE, pos + 1


def missing_comma(scan: Scan, pos: int, c: str) -> Step:
    """Anything else starts the next member or item: ``{"a": 1 "b": 2}``; a word that starts
    no member (``COMMENT "key": 1``) is skipped."""
    frame = scan.stack[-1]
    scan.after_comma = False
    if frame.kind != _OBJ:
        scan.log.add("missing_comma", pos)
        return VALUE, pos
    if c not in _CLOSERS and not _looks_like_member_start(scan.src, pos, scan.end):
        # Not dropped silently: the report names the skipped word and where it stood.
        scan.log.add("stray_text", pos)
        w = _UNQUOTED_KEY.match(scan.src, pos, scan.end)
        after = w.end() if w is not None and w.end() > pos else pos + 1
        nxt = skip_ws_and_comments(scan.src, after, scan.end, scan.log)
        return KEY, nxt + 1 if nxt < scan.end and scan.src[nxt] == "," else after
    scan.log.add("missing_comma", pos)
    return KEY, pos


# ------------------------------------------------------------------ expecting a key (KEY)


def key_comma(scan: Scan, pos: int, c: str) -> Step | None:
    """``{, "a": 1}``: a comma where a key belongs is ``extra_comma``."""
    if c != ",":
        return None
    scan.log.add("extra_comma", pos)
    return KEY, pos + 1


def object_left_open(scan: Scan, pos: int, c: str) -> Step | None:
    """``[{"id": 1, {"id": 2}]``: the first object was never closed."""
    stack = scan.stack
    if not (c == "{" and scan.after_comma and len(stack) > 1 and stack[-2].kind == _ARR):
        return None
    scan.log.add("missing_closer", pos)
    _attach(stack[-2], _closed_value(stack.pop()))
    return VALUE, pos


def list_goes_on(scan: Scan, pos: int, c: str) -> Step | None:
    """``"key": ["a"], ["b"]``: the model closed the list too early; its items go on. In a
    list of rows (``[["a"], "b", "c"], ["d"]``) a ``[`` before an item opens the next row, and
    the items after the last row were a row that lost its ``[`` (``missing_opener``)."""
    frame = scan.stack[-1]
    items = frame.last_value
    if c != "[" or not isinstance(items, list) or len(scan.stack) >= MAX_DEPTH:
        return None
    scan.log.add("extra_closer", pos)
    more = _Frame(_ARR, "]")
    more.container = items
    scan.stack.append(more)
    nxt = _next_significant(scan.src, pos + 1, scan.end)
    if not (items and isinstance(items[0], list)) or scan.src.startswith("[", nxt):
        return VALUE, pos + 1  # `[[1], "a"], [[2], [3]]`: this `[` reopens the list of rows
    rows = next(i for i in range(len(items), 0, -1) if isinstance(items[i - 1], list))
    if rows < len(items) and all(isinstance(row, list) for row in items[:rows]):
        scan.log.add("missing_opener", pos)
        items[rows:] = [items[rows:]]
    return VALUE, pos


def items_go_on(scan: Scan, pos: int, c: str) -> Step | None:
    """``{"a": [{"b": 1}], {"c": 2}}``: an object where a key belongs, after a list of objects,
    is the list's next item: the list was closed too early (``extra_closer``)."""
    frame = scan.stack[-1]
    items = frame.last_value
    if not (c == "{" and scan.after_comma and isinstance(items, list) and items):
        return None
    if not isinstance(items[-1], dict) or len(scan.stack) >= MAX_DEPTH:
        return None
    scan.log.add("extra_closer", pos)
    more = _Frame(_ARR, "]")
    more.container = items
    scan.stack.append(more)
    return VALUE, pos


def members_in_braces(scan: Scan, pos: int, c: str) -> Step | None:
    """``{"a": 1, {"b": 2}}`` or ``{{"a": 1}}`` (a prompt's escaped braces): an opener where a
    key belongs; its members are this object's (``extra_opener``), its closer is then extra."""
    if c != "{":
        return None
    nxt = _next_significant(scan.src, pos + 1, scan.end)
    if not _looks_like_member_start(scan.src, nxt, scan.end):
        return None  # `{{{`: no member inside, nothing to lend
    scan.log.add("extra_opener", pos)
    return KEY, nxt


def missing_key(scan: Scan, pos: int, c: str) -> Step | None:
    """``{"a": 1, : "x"}``: a colon where a key belongs; the value is kept under ``""``."""
    if c != ":":
        return None
    scan.log.add("missing_key", pos)
    scan.stack[-1].key = ""
    return VALUE, pos + 1


def listed_key(scan: Scan, pos: int, c: str) -> Step | None:
    """``{"a": 1, ["b"]}``: a one-string list where a key belongs is that key, its value
    missing (``missing_value``), rather than a reason to give up the whole object."""
    if c != "[":
        return None
    got = _c_decode(scan.src, pos, scan.end, C_FIRST_WINDOW)
    if got is None or got is TOO_DEEP or not (len(got[0]) == 1 and isinstance(got[0][0], str)):
        return None
    scan.log.add("missing_value", pos)
    _attach_member(scan.stack[-1], got[0][0], None)
    return AFTER, got[1]


def ellipsis(scan: Scan, pos: int, c: str) -> Step | None:
    """``[1, 2, ...]``: a placeholder the model wrote for "and so on" is dropped."""
    if c != "." or not scan.src.startswith("...", pos):
        return None
    scan.log.add("ellipsis", pos)
    if scan.frame is None:
        raise LenientError("only a placeholder", pos)
    if scan.in_object():
        scan.stack[-1].key = None
    return AFTER, pos + 3


_SET_ITEM = re.compile(
    r"(?:-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|"
    + "|".join(PYTHON_LITERALS)
    + r")[ \t\r\n]*([,}])"
)
"""The first item of a Python set of numbers or literals (``{1, 2}``, ``{None}``) and what follows
it; a bare word is not one (``{name}`` in prose is a placeholder)."""


_VALUE_NOT_STRING = frozenset("{[0123456789-.")
"""First characters of a value that is neither a string nor a word."""


def _as_list(scan: Scan, pos: int) -> None:
    """Turn the empty object on top of the stack into a list closed by its ``}``."""
    frame = scan.stack[-1]
    scan.stack[-1] = _Frame(_ARR, frame.closer, is_root=frame.is_root)
    scan.log.add("python_set", pos)


def python_set(scan: Scan, pos: int, c: str) -> Step | None:
    """``{1, 2}`` or ``[{5}]``: numbers or ``True``/``False``/``None`` where the first key was
    expected are a Python set, read as a list (``python_set``). A lone number at the root stays
    unread (``{0}`` in prose is a format placeholder)."""
    frame = scan.stack[-1]
    if frame.members or frame.key is not None or not (c.isdigit() or c in "-TFN"):
        return None
    m = _SET_ITEM.match(scan.src, pos, scan.end)
    if m is None or (frame.is_root and m.group(1) == "}"):
        return None
    _as_list(scan, pos)
    return VALUE, pos


def key(scan: Scan, pos: int, c: str) -> Step:
    """A quoted or unquoted key, then its colon (``missing_colon``, ``misplaced_quote``)."""
    src, end, log = scan.src, scan.end, scan.log
    frame = scan.stack[-1]
    name, p, step = _read_key(scan, pos, c)
    if step is not None:
        return step
    p = skip_ws_and_comments(src, p, end, log)
    if p >= end:
        return finish(scan, end)  # a key without a value is dropped
    if src[p] == "=" and not src.startswith("==", p):
        log.add("missing_colon", p)  # `{"a" = 1}`: an assignment's `=` where the colon goes
        frame.key = name
        return VALUE, p + 1
    if src[p] == ":":
        if name in frame.container and len(scan.stack) > 1 and scan.stack[-2].kind == _ARR:
            # `[{"id": 1, "id": 2}]`: a key repeats in a list's object, so the model forgot
            # `}, {`; keeping only the last value would silently drop the first record.
            log.add("missing_closer", pos)
            _attach(scan.stack[-2], _closed_value(scan.stack.pop()))
            scan.stack.append(_Frame(_OBJ, "}"))
            frame = scan.stack[-1]
        frame.key = name
        return VALUE, p + 1
    if src[p] in _CLOSERS and _quoted_key_at(src, p, end):
        # `{"a": 1, """" "b": 2}`: a quoted word with no colon stands before a real key.
        log.add("stray_text", pos)
        return KEY, p
    if src[p] in ",}" and ":" in name:
        # `{"key:"value"}`: the quotes moved and the colon ended up inside the key.
        k, _, rest = name.partition(":")
        log.add("misplaced_quote", pos)
        _attach_member(frame, k.strip(), rest.strip().strip("\"'"))
        return AFTER, p
    if src[p] == "," and c in _CLOSERS:
        n = _next_significant(src, p + 1, end)
        if n < end and (src[n] in _VALUE_NOT_STRING or _SET_ITEM.match(src, n, end)):
            # `{"key", 105}`: a number or a container after a quoted key takes the comma for
            # its colon (a Python set of strings, `{"a", "b"}`, stays a set).
            log.add("missing_colon", p)
            frame.key = name
            return VALUE, n
    if src[p] in ",}":
        if not frame.members and c in _CLOSERS:
            # `{'a', 'b'}`, `{"x"}`: a Python set of strings, read as a list.
            _as_list(scan, pos)
            _attach(scan.stack[-1], name)
            return AFTER, p
        if c in _CLOSERS:  # `{"a": 1, "b"}`: a quoted key whose value is missing is null
            log.add("missing_value", p)
            _attach_member(frame, name, None)
            return AFTER, p
        if not frame.members:  # `{0}`, `{name}`: a format placeholder in prose, not JSON
            raise LenientError("key without a value", p)
        # `{"a": 1, 2, "b": 3}`: a bare value where a key belongs; skipped, and reported
        log.add("stray_text", pos)
        return KEY, p + 1 if src[p] == "," else p
    log.add("missing_colon", p)
    frame.key = name
    return VALUE, p


def _quoted_key_at(src: str, p: int, end: int) -> bool:
    """True when ``p`` starts a quoted key and its colon (``"b": 2``) on the same line."""
    close = src.find(src[p], p + 1, min(end, p + MEMBER_LOOKAHEAD))
    if close < 0 or "\n" in src[p:close]:
        return False
    after = _next_significant(src, close + 1, end)
    return after < end and src[after] == ":"


def _misplaced_quote(cut_key: str) -> bool:
    """True when a key cut off by the end holds ``key:value}``: a whole member, not a key."""
    k, colon, v = cut_key.rstrip().partition(":")
    return bool(colon) and bool(k.strip()) and v.rstrip().endswith("}") and "\n" not in cut_key


def _read_key(scan: Scan, pos: int, c: str) -> tuple[str, int, Step | None]:
    """The key at ``pos`` and the position after it, or a step to take instead of reading a
    colon and a value."""
    src, end, log = scan.src, scan.end, scan.log
    quote = after_string_prefix(src, pos, end)
    if quote > pos:
        log.add("string_prefix", pos)  # `{u'name': 1}`: a Python 2 repr's key
        pos, c = quote, src[quote]
    if c in _CLOSERS:
        name, p, cut = scan_string(src, pos, end, log, "key", scan.stack[-1])
        if cut and not scan.stream_prefix and _misplaced_quote(name):
            # `{"key:value}`: one quote went missing and the other ended up before the key.
            k, _, v = name.rstrip().rstrip("}").partition(":")
            log.add("misplaced_quote", pos)
            _attach_member(scan.stack[-1], k.strip(), v.strip().strip("\"'"))
            return name, p, finish(scan, end)
        return name, p, (finish(scan, end) if cut else None)  # an unfinished key is dropped
    m = _UNQUOTED_KEY.match(src, pos, end)
    if m is None or m.end() == pos:
        raise LenientError("expected a key", pos)
    p = m.end()
    if p >= end and scan.at_text_end:
        return "", p, finish(scan, end)
    member = _next_member_on_line(src, p, end)
    if member >= 0:
        # `COMMENT "key": 1`: words that are not a key stand before the real one.
        log.add("stray_text", pos)
        return "", p, (KEY, member)
    colon = _spaced_key_end(src, p, end)
    if colon >= 0:
        log.add("spaced_key", pos)  # `first name: 1`
        return src[pos:colon].strip(), colon, None
    log.add("unquoted_key", pos)
    return m.group(), p, None


# ------------------------------------------------------------------ expecting a value (VALUE)


def container(scan: Scan, pos: int, c: str) -> Step | None:
    """``{``, ``[`` or a Python tuple's ``(`` (``tuple``); a clean subtree near the root is
    decoded whole by the C decoder."""
    if c not in "{[(":
        return None
    if scan.use_c and c != "(" and len(scan.stack) < C_SUBTREE_MAX_DEPTH:
        got = _c_decode(scan.src, pos, scan.end, scan.c_window)
        if got is TOO_DEEP:
            scan.use_c = False
        elif got is not None:
            scan.c_window = max(C_FIRST_WINDOW, 2 * (got[1] - pos))
            scan.pending = got[0]
            return COMPLETE, got[1]
    if len(scan.stack) >= MAX_DEPTH:
        scan.too_deep(pos)
    if c == "(":
        scan.log.add("tuple", pos)
    kind = _OBJ if c == "{" else _ARR
    scan.stack.append(_Frame(kind, _OPENER_CLOSES[c], is_root=not scan.stack))
    scan.after_comma = False
    if kind == _OBJ:
        return KEY, pos + 1
    n = pos + 1
    if n < scan.end and scan.src[n] in SKIP_STARTS:
        n = skip_ws_and_comments(scan.src, n, scan.end, scan.log)
    return (AFTER, n) if n < scan.end and scan.src[n] in "])}" else (VALUE, pos + 1)


_OPENER_CLOSES = {"{": "}", "[": "]", "(": ")"}


def string(scan: Scan, pos: int, c: str) -> Step | None:
    """A quoted string (single, smart, fullwidth and triple quotes; ``'a' + 'b'``); one cut
    off by the end of the text is closed, or ends where a member visibly starts (unless the text
    is a stream prefix, where the string is still being written: ``{"msg": "a, b: c``)."""
    if c not in _CLOSERS:
        return None
    src, end, log, frame = scan.src, scan.end, scan.log, scan.frame
    text, pos, cut = scan_string(src, pos, end, log, "value", frame)
    if cut and not scan.stream_prefix and scan.resumes < MAX_STRING_RESUMES and scan.in_object():
        resume = key_in_unclosed_string(src, pos, text)
        if resume is not None:
            # `{"a": "first, b: 1}`: the quote was forgotten before `, b:`.
            scan.resumes += 1
            log.add("missing_quote", resume[1])
            text, pos, cut = text[: resume[0]], resume[1], False
    if not cut:
        scan.pending, pos = _concatenate(src, text, pos, end, log, frame)
        return COMPLETE, pos
    closing = 0 if scan.stream_prefix else _closers_after_unclosed_string(text, scan.stack)
    if closing:
        # `{"key": "value}`: the quote is missing, the closers are there.
        log.add("missing_quote", pos)
        scan.pending = text[: len(text) - closing].rstrip()
        if scan.stack:
            _attach(scan.stack[-1], scan.pending)
        while scan.stack:
            scan.pending = _closed_value(scan.stack.pop())
            if scan.stack:
                _attach(scan.stack[-1], scan.pending)
        scan.result = (scan.pending, pos)
        return DONE, pos
    log.truncated = log.truncated or scan.at_text_end
    scan.pending = text
    return COMPLETE, pos


def escaped_string(scan: Scan, pos: int, c: str) -> Step | None:
    """``{"query": \\"foo\\"}``: a string whose quotes are escaped, as in JSON printed inside a
    JSON string (``escaped_quotes``); read with that layer of escaping removed. One cut by the
    end of the text holds what it read so far, as a cut string does (see ``over_escaped``)."""
    if c != "\\":
        return None
    if _cut_escaped_opener(scan, pos):
        return finish(scan, scan.end)  # `{"query": \\`: nothing of the value yet
    if not scan.src.startswith(ESCAPED_QUOTE, pos):
        return None
    read = read_over_escaped(scan.src, pos, scan.end)
    if read is None:
        text = read_cut_over_escaped(scan.src, pos, scan.end) if scan.at_text_end else None
        if text is None or (
            not scan.stream_prefix and _closers_after_unclosed_string(text, scan.stack)
        ):
            return None
        scan.log.truncated = True
        read = text, scan.end
    scan.log.add("escaped_quotes", pos)
    scan.pending, stop = read
    return COMPLETE, stop


def _cut_escaped_opener(scan: Scan, pos: int) -> bool:
    """True when the text is cut right after a backslash where a value or key starts: half of
    an over-escaped string's opening quote."""
    return pos + 1 == scan.end and scan.at_text_end


def escaped_key(scan: Scan, pos: int, c: str) -> Step | None:
    """``{\\"b\\": 1}``: a key whose quotes are escaped (``escaped_quotes``), before its colon;
    one cut by the end of the text is dropped, as a cut key is."""
    if c != "\\":
        return None
    if _cut_escaped_opener(scan, pos):
        return finish(scan, scan.end)
    if not scan.src.startswith(ESCAPED_QUOTE, pos):
        return None
    read = read_over_escaped(scan.src, pos, scan.end)
    if read is None:
        cut = scan.at_text_end and read_cut_over_escaped(scan.src, pos, scan.end) is not None
        return finish(scan, scan.end) if cut else None
    colon = _next_significant(scan.src, read[1], scan.end)
    if colon >= scan.end and scan.at_text_end:
        return finish(scan, scan.end)  # `{\\"b\\"`: a key without its value yet
    if colon >= scan.end or scan.src[colon] != ":":
        return None
    scan.log.add("escaped_quotes", pos)
    scan.stack[-1].key = read[0]
    return VALUE, colon + 1


def prefixed_string(scan: Scan, pos: int, c: str) -> Step | None:
    """``u'Ada'``, ``b'raw'``: a Python string prefix is dropped (``string_prefix``)."""
    quote = after_string_prefix(scan.src, pos, scan.end)
    if quote == pos:
        return None
    scan.log.add("string_prefix", pos)
    return string(scan, quote, scan.src[quote])


def missing_value(scan: Scan, pos: int, c: str) -> Step | None:
    """``{"a": }`` or ``{"a": , "b": 1}``: the value is null (``missing_value``); ``[1,, 2]``
    is ``extra_comma``."""
    if c not in "}]),":
        return None
    frame = scan.frame
    if frame is None:
        raise LenientError("a closer or comma where a value was expected", pos)
    if frame.kind == _OBJ and frame.key is not None:
        scan.log.add("missing_value", pos)
        _attach(frame, None)
    elif c == ",":
        scan.log.add("extra_comma", pos)
    return AFTER, pos


def number(scan: Scan, pos: int, c: str) -> Step | None:
    """Numbers in the forms models write: ``.5``, ``2.``, ``+1``, ``0xFF``, ``1,000``,
    ``1_000``, ``0789`` (kept as a string); a number cut off keeps its digits."""
    if c not in "-+.0123456789":
        return None
    src, end = scan.src, scan.end
    got = _scan_number(src, pos, end, scan.log, in_object=scan.in_object())
    if got is None:
        return None
    value, stop, cut = got
    if cut and value is None:
        return finish(scan, end)  # a lone sign at the end: an unfinished number
    scan.pending = value
    if stop < end and src[stop] == '"':
        after = _next_significant(src, stop + 1, end)
        if after >= end or src[after] in ",}]":
            scan.log.add("stray_quote", stop)  # `12345",`
            stop += 1
    return COMPLETE, stop


def constructor(scan: Scan, pos: int, c: str) -> Step | None:
    """``ObjectId("x")``, ``ISODate("...")``, ``NumberLong(1)``, ``new Date(0)``: read as the
    argument."""
    if not c.isalpha():
        return None
    call = constructor_argument(scan.src, pos, scan.end, scan.log)
    if call is None:
        return None
    scan.pending = call[0]
    return COMPLETE, call[1]


def literal(scan: Scan, pos: int, c: str) -> Step | None:
    """``true``/``null``, Python's ``True``/``None`` and other spellings (``python_literal``);
    a literal cut by the end of the text is completed when its completion is unique (``tr`` is
    ``true``), else dropped with its key (``N``: ``None`` or ``NaN``)."""
    src, end = scan.src, scan.end
    w = _WORD.match(src, pos, end)
    if c == "-" and src.startswith("-Infinity", pos):
        scan.pending = float("-inf")
        return COMPLETE, pos + 9
    if c == "-" and scan.at_text_end and src[pos:end] in CUT_NONFINITE:
        return finish(scan, end)  # `-In`: a float being written, not the string "-In"
    if w is None:
        return None
    word, stop = w.group(), w.end()
    if stop < end and src[stop] not in _DELIMITERS and src[stop] not in "\"'":
        return None
    if word in _LITERALS:
        scan.pending, repaired = _LITERALS[word]
        if repaired:
            scan.log.add("python_literal", pos)
        return COMPLETE, stop
    if stop >= end and scan.at_text_end and word in _LITERAL_PREFIXES:
        unique, value = completed_literal(word)
        if not unique:
            return finish(scan, end)
        scan.log.truncated = True  # `["a", t`: shown as `true` (see engine/json/cut_literals)
        scan.pending = value
        return COMPLETE, stop
    return None


def unquoted(scan: Scan, pos: int, c: str) -> Step:
    """A bare word or phrase used as a string (``unquoted_string``); a lone sign is a missing
    value."""
    frame = scan.frame
    if frame is None:
        raise LenientError("expected a JSON value", pos)
    text, stop = _unquoted_value(scan.src, pos, scan.end, frame)
    if text not in ("", "-", "+"):
        scan.log.add("unquoted_string", pos)
        scan.pending = text
        return COMPLETE, stop
    if stop == pos:
        raise LenientError("expected a value", pos)
    if _next_significant(scan.src, stop, scan.end) >= scan.end and scan.at_text_end:
        return finish(scan, scan.end)  # `[- `: a number cut at its sign
    scan.log.add("missing_value", pos)
    _attach(frame, None)
    return AFTER, stop


RULES: dict[int, tuple[Rule, ...]] = {
    AFTER: (comma, closer, fence, list_left_open, object_in_list, missing_comma),
    KEY: (
        key_closer,
        key_comma,
        object_left_open,
        list_goes_on,
        listed_key,
        items_go_on,
        members_in_braces,
        missing_key,
        ellipsis,
        backtick_key,
        escaped_key,
        fence,
        python_set,
        key,
    ),
    VALUE: (
        container,
        string,
        escaped_string,
        backtick_string,
        prefixed_string,
        missing_value,
        ellipsis,
        number,
        constructor,
        literal,
        unquoted,
    ),
}
"""The rules of each state, in the order they are tried; the last one always applies."""
