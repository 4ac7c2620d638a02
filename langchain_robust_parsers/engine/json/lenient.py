"""The last-resort decoder: an iterative, linear-time scanner that repairs as it reads.

It runs only when the C decoder and the error-position repairs have given up. Each repair is a
named rule (the names are what :class:`~langchain_robust_parsers.engine.report.ParseReport`
lists). Work stays linear in the text: runs of ordinary characters are consumed by compiled
regular expressions without nested quantifiers, well-formed sub-values near the root are handed
to the C decoder, and nesting is held on an explicit stack bounded by :data:`MAX_DEPTH`.

Positions are offsets into the original input: the scanner reads ``src`` between ``pos`` and
``end`` and never slices the payload out of it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from langchain_robust_parsers.engine.json.numbers import LONG_NUMBER, number_value
from langchain_robust_parsers.engine.repair_log import RepairLog

MAX_DEPTH = 500
"""Deepest nesting accepted. Below CPython's default recursion limit (1000) so that the values we
return can still be compared, copied, pickled and serialised by recursive code downstream."""

WINDOW_CUT_SLACK = 6
"""An error this close to the end of a slice may be the slice's doing (a ``\\uXXXX`` escape cut
in two reports its start); the slice is then doubled rather than the container failed."""

C_FIRST_WINDOW = 1024
"""First slice offered to the C decoder for a container; later ones start at twice the size of
the last container it decoded, so siblings of similar size usually need one attempt."""

MAX_STRING_RESUMES = 4
"""Times one scan may re-read the tail of a cut-off string as members (``"first, b: 1}``).
Each re-read covers text already read once, so the cap keeps the scan linear."""

C_SUBTREE_MAX_DEPTH = 8
"""Containers this close to the root are first offered to the C decoder whole. A failed attempt
costs the distance to its error, so the cap bounds the re-reads along the path to one error."""

UNQUOTED_QUOTE_REACH = 1024
"""Characters searched for the closing quote of a bare value whose opening quote is missing
(``abc",``). Past it the value ends at its separator: without the bound, every bare value on one
long line would search the rest of the line, quadratic in the line's length."""

_STRICT_DECODER = json.JSONDecoder(strict=True)

_WS = re.compile(r"[ \t\r\n\f\v\u00a0\u2028\u2029\ufeff]*")
_INLINE_WS = re.compile(r"[ \t]*")
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_LOOSE_NUMBER = re.compile(
    r"[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][-+]?[0-9]*)?"
)
_WORD = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
_UNQUOTED_KEY = re.compile(r"[^\s:,{}\[\]\"'/#`“”‘’]+")
_UNQUOTED_VALUE_IN_OBJECT = re.compile(r"[^,}\]\n\r\"“”]*")
_UNQUOTED_VALUE_IN_ARRAY = re.compile(r"[^,\]}\n\r\"“”]*")
_DANGLING_EXPONENT = re.compile(r"[eE][-+]?\Z")
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")

# Characters that end a bare token (number, literal, unquoted key).
_DELIMITERS = frozenset(" \t\r\n\f\v,:}])#`\u00a0")

# Opening quote -> the characters accepted as its closing quote. Models mix straight and smart.
_CLOSERS: dict[str, str] = {
    '"': '"',
    "'": "'",
    "“": '”“"',
    "”": '”"',
    "‘": "’‘'",
    "’": "’'",
}
_QUOTE_REPAIR = {
    '"': "",
    "'": "single_quotes",
    "“": "smart_quotes",
    "”": "smart_quotes",
    "‘": "smart_quotes",
    "’": "smart_quotes",
}
_RUNS: dict[str, re.Pattern[str]] = {
    q: re.compile("[^" + re.escape(c) + r"\\\x00-\x1f`]*") for q, c in _CLOSERS.items()
}
SIMPLE_ESCAPES: dict[str, str] = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "'": "'",  # not JSON, but models escape apostrophes; shared by every string reader
}
_LITERALS: dict[str, tuple[Any, bool]] = {
    # word -> (value, is a repair)
    "true": (True, False),
    "false": (False, False),
    "null": (None, False),
    "True": (True, True),
    "False": (False, True),
    "None": (None, True),
    "TRUE": (True, True),
    "FALSE": (False, True),
    "NULL": (None, True),
    "Null": (None, True),
    "NaN": (float("nan"), False),
    "Infinity": (float("inf"), False),
    "undefined": (None, True),
}
_LITERAL_PREFIXES = frozenset(w[:i] for w in _LITERALS for i in range(1, len(w)))

_OBJ = 0
_ARR = 1


class LenientError(ValueError):
    """The scanner found no value it could stand behind; ``pos`` says where it stopped.

    ``too_deep`` marks the nesting bound: every start inside the same run of openers would hit
    it too, so callers searching for payloads skip to ``pos``.
    """

    def __init__(self, msg: str, pos: int, *, too_deep: bool = False) -> None:
        super().__init__(f"{msg} at offset {pos}")
        self.msg = msg
        self.pos = pos
        self.too_deep = too_deep


class _Frame:
    __slots__ = (
        "closer",
        "commas",
        "container",
        "is_root",
        "key",
        "kind",
        "last_value",
        "members",
    )

    def __init__(self, kind: int, closer: str, *, is_root: bool = False) -> None:
        self.kind = kind
        self.is_root = is_root
        self.closer = closer
        self.container: Any = {} if kind == _OBJ else []
        self.key: str | None = None
        self.members = 0
        self.commas = 0
        self.last_value: Any = None


def skip_ws_and_comments(src: str, pos: int, end: int, log: RepairLog) -> int:
    """Skip whitespace and ``//``, ``/* */`` and ``#`` comments (each a ``comment`` repair)."""
    while True:
        pos = _WS.match(src, pos, end).end()  # type: ignore[union-attr]
        if pos >= end:
            return end
        c = src[pos]
        if c == "#" or (c == "/" and src.startswith("//", pos)):
            log.add("comment", pos)
            eol = src.find("\n", pos, end)
            pos = end if eol < 0 else eol + 1
        elif c == "/" and src.startswith("/*", pos):
            log.add("comment", pos)
            close = src.find("*/", pos + 2, end)
            pos = end if close < 0 else close + 2
        else:
            return pos


def _next_significant(src: str, pos: int, end: int) -> int:
    """The position of the next non-whitespace character (``end`` if none)."""
    return _WS.match(src, pos, end).end()  # type: ignore[union-attr]


def _looks_like_member_start(src: str, pos: int, end: int, *, jumped: bool = False) -> bool:
    """True when ``pos`` starts ``"key":`` or ``key:``: a quote there opens a new member."""
    if pos >= end:
        return False
    c = src[pos]
    if c in _CLOSERS:
        close = src.find(c if c in "\"'" else _CLOSERS[c][0], pos + 1, min(end, pos + 200))
        if close < 0:
            return False
        after = _next_significant(src, close + 1, end)
        if after < end and src[after] == c and after > close + 1 and not jumped:
            # `"key" "value"`: a member whose colon is missing.
            return True
        return after < end and src[after] == ":"
    m = _WORD.match(src, pos, end)
    if m is None:
        return False
    after = _next_significant(src, m.end(), end)
    if after < end and src[after] in _CLOSERS and after > m.end() and not jumped:
        # `COMMENT "key": 1`: a stray word before a quoted key.
        return _looks_like_member_start(src, after, end, jumped=True)
    return after < end and src[after] == ":"


def _closer_is_structural(src: str, p: int, end: int) -> bool:
    """True when the ``}``/``]`` at ``p`` is followed by what may follow a closed container: the
    end, another closer, a fence, or a comma before a new member or value."""
    g = _next_significant(src, p + 1, end)
    if g >= end or src[g] in "}])`{[":
        return True
    if src[g] in _CLOSERS:
        return _looks_like_member_start(src, g, end)
    if src[g] != ",":
        return False
    h = _next_significant(src, g + 1, end)
    if h >= end or src[h] in "{[}]0123456789-" or src[h] in _CLOSERS:
        return True
    return _looks_like_member_start(src, h, end)


_QUOTE_OR_SEPARATOR = re.compile(r"[\"“”,}\n]")
_QUOTE_OR_ITEM_END = re.compile(r"[\"“”,\]\n]")


def _junk_until_separator(src: str, p: int, end: int) -> bool:
    """True when the text at ``p`` reaches the end of the member (a ``,`` before the next key,
    or the object's ``}``) on its line before any quote."""
    m = _QUOTE_OR_SEPARATOR.search(src, p, end)
    if m is None:
        return False
    if m.group() == "}":
        return _closer_is_structural(src, m.start(), end)
    if m.group() == ",":
        n = _next_significant(src, m.end(), end)
        return n >= end or src[n] == "}" or _looks_like_member_start(src, n, end)
    return False


def _quote_closes(
    src: str, q: int, end: int, role: str, frame: _Frame | None, inner_quotes: int
) -> bool:
    """Decide whether the quote at ``q`` closes the string or is an unescaped inner quote.

    A closing quote is followed by what JSON allows there: a separator, a closer, a colon after a
    key, the end of the text, a comment or a fence. Anything else means the model forgot to
    escape a quote inside the string (``"say "hi" now"``).
    """
    p = _next_significant(src, q + 1, end)
    if p >= end:
        return True
    f = src[p]
    in_array = frame is not None and frame.kind == _ARR
    if role == "key":
        # `"a": 1`, or `"a" 1` / `"a" "x"` / `"a" [1]` with the colon missing.
        return f in ":,}" or (p > q + 1 and (f in "\"'[{-" or f.isalnum()))
    if f in "}]":
        if _closer_is_structural(src, p, end):
            return True
        # The closer of the whole value may be followed by prose, unless a comma says the
        # value goes on (`{"a": "is {"k": 1}, which"}`).
        if frame is None or not frame.is_root or f != _canonical_closer(frame.closer):
            return False
        after = _next_significant(src, p + 1, end)
        return after >= end or src[after] != ","
    if f == ")":
        return frame is not None and frame.closer == ")"
    if f in "`#+" or src.startswith("//", p) or src.startswith("/*", p):
        return True
    if f == ":":
        # `["key": "value"]`: an object in list brackets; `{"a": [1, "b": 2}`: a key of the
        # object around a list left open. Elsewhere a colon is text.
        return in_array
    if f == ",":
        n = _next_significant(src, p + 1, end)
        if n >= end:
            return True
        g = src[n]
        if g in "}]{[0123456789-.`/#" or g in _CLOSERS:
            return True
        if frame is not None and frame.kind == _OBJ:
            return _looks_like_member_start(src, n, end)
        w = _WORD.match(src, n, end)
        return w is not None and w.group() in _LITERALS
    if f in _CLOSERS:
        # `"a" "b"` separated by whitespace: a closed string and another value. Adjacent quotes
        # (`""`) read as an escaped quote the model wrote the CSV way, unless they open a key.
        if frame is not None and frame.kind == _OBJ and _looks_like_member_start(src, p, end):
            return True
        return p > q + 1
    if p > q + 1 and frame is not None:
        if frame.kind == _OBJ:
            # `"value"\n key: 1` or `"value" key2: 1`: a new member follows without a comma;
            # `"value" junk }`: words with no quote before the member ends are junk (unless
            # this quote closes an inner quotation: `"a "b" c}`).
            if _looks_like_member_start(src, p, end):
                return True
            return inner_quotes % 2 == 0 and _junk_until_separator(src, p, end)
        # `["27" display", "hdmi"]`: in a list, a word after the quote continues the string
        # (json_repair#152: inch marks and quoted words) when a quote ends it; a bracket, a
        # number or a bare word running to the next separator starts the next item.
        if f in "{[-" or f.isdigit():
            return True
        m = _QUOTE_OR_ITEM_END.search(src, p, end)
        return m is not None and m.group() in ",]"
    return False


def scan_string(
    src: str, pos: int, end: int, log: RepairLog, role: str, frame: _Frame | None
) -> tuple[str, int, bool]:
    """Read a quoted string whose opening quote is at ``pos``.

    Returns the text, the position after the closing quote and whether the string was cut off
    by the end of the text. Handles escapes, literal control characters and unescaped inner
    quotes.
    """
    opener = src[pos]
    closers = _CLOSERS[opener]
    run = _RUNS[opener]
    if _QUOTE_REPAIR[opener]:
        log.add(_QUOTE_REPAIR[opener], pos)
    parts: list[str] = []
    pos += 1
    noted_control = False
    inner_quotes = 0
    doubled = (
        pos + 1 < end and src[pos] == opener and (src[pos + 1].isalnum() or src[pos + 1] == "_")
    )
    if doubled:
        # `""key""`: quotes doubled the CSV way around the whole string.
        log.add("doubled_quote", pos)
        pos += 1
    while True:
        m = run.match(src, pos, end)
        assert m is not None  # a starred class always matches
        if m.end() > pos:
            parts.append(m.group())
            pos = m.end()
        if pos >= end:
            return "".join(parts), end, True
        c = src[pos]
        if c == "\\":
            if pos + 1 >= end:
                return "".join(parts), end, True  # a dangling backslash is half an escape
            e = src[pos + 1]
            if e == "u":
                h = _HEX4.match(src, pos + 2, end)
                if h is None:
                    if end - (pos + 2) < 4 and re.fullmatch(r"[0-9a-fA-F]*", src[pos + 2 : end]):
                        return "".join(parts), end, True  # cut inside \uXXXX
                    log.add("invalid_escape", pos)
                    parts.append("\\u")
                    pos += 2
                    continue
                code = int(h.group(), 16)
                pos += 6
                if 0xD800 <= code < 0xDC00 and src.startswith("\\u", pos):
                    low = _HEX4.match(src, pos + 2, end)
                    if low is not None and 0xDC00 <= int(low.group(), 16) < 0xE000:
                        code = 0x10000 + ((code - 0xD800) << 10) + (int(low.group(), 16) - 0xDC00)
                        pos += 6
                parts.append(chr(code))
            elif e in SIMPLE_ESCAPES:
                parts.append(SIMPLE_ESCAPES[e])
                pos += 2
            elif e in closers or e in "„“”‘’":
                if e not in closers:
                    log.add("invalid_escape", pos)
                parts.append(e)
                pos += 2
            else:
                log.add("invalid_escape", pos)
                parts.append("\\" + e)
                pos += 2
        elif c in closers:
            if doubled and src.startswith(c, pos + 1):
                return "".join(parts), pos + 2, False
            if _quote_closes(src, pos, end, role, frame, inner_quotes):
                text = "".join(parts)
                if noted_control:
                    text = _strip_layout_break(src, pos, text)
                return text, pos + 1, False
            if role == "value" and frame is not None and frame.kind == _OBJ:
                text = _tail(parts, _KEY_LOOKBACK)
                if text.rstrip().endswith(",") and _looks_like_member_start(src, pos, end):
                    # `"New York, "gender": "male"`: the string lost its closing quote before
                    # the comma; end it there and let the quote open the next key.
                    log.add("missing_quote", pos)
                    full = "".join(parts).rstrip()
                    return full[:-1], pos, False
                resume = _key_inside_string(src, pos, text)
                if resume is not None:
                    # `"first, b: "second"`: an unquoted key was swallowed the same way.
                    log.add("missing_quote", pos)
                    full = "".join(parts)
                    return full[: len(full) - (len(text) - resume[0])], resume[1], False
            log.add("inner_quote", pos)
            inner_quotes += 1
            parts.append(c)
            pos += 1
        elif c == "`":
            if src.startswith("```", pos) and _fence_ends_string(src, pos, end):
                # The closing fence came before the closing quote: the string ends here.
                return "".join(parts), pos, True
            parts.append(c)
            pos += 1
        else:
            if not noted_control:
                log.add("control_character", pos)
                noted_control = True
            parts.append(c)
            pos += 1


_KEY_LOOKBACK = 256
"""Characters of a string examined when a quote inside it might start the next member: enough
for ``, "key": `` with a long key, and a bound that keeps many inner quotes linear."""


def _tail(parts: list[str], n: int) -> str:
    """The last ``n`` characters of ``"".join(parts)`` without joining all of it."""
    tail = "".join(parts[-n:])  # at C speed: n parts hold n characters unless some are empty
    if len(tail) >= n or len(parts) <= n:
        return tail[-n:]
    out: list[str] = []
    size = 0
    for part in reversed(parts):
        out.append(part)
        size += len(part)
        if size >= n:
            break
    return "".join(reversed(out))[-n:]


def _closers_after_unclosed_string(text: str, stack: list[_Frame]) -> int:
    """How many trailing characters of a string cut off at the end are really the closers (and
    a closing fence) of every open container; 0 when they are not."""
    if not stack:
        return 0
    want = "".join(_canonical_closer(f.closer) for f in reversed(stack))
    i = len(text)
    while i > 0 and text[i - 1] in " \t\r\n`":
        i -= 1
    got: list[str] = []
    while i > 0 and text[i - 1] in "}]) \t\r\n":
        if not text[i - 1].isspace():
            got.append(_canonical_closer(text[i - 1]))
        i -= 1
    return len(text) - i if "".join(reversed(got)) == want else 0


def _strip_layout_break(src: str, q: int, text: str) -> str:
    """Drop literal whitespace holding a line break just before the closing quote at ``q``: the
    model broke the line to lay out the JSON, not to end the string with a newline."""
    i = q
    while i > 0 and src[i - 1] in " \t\r\n":
        i -= 1
    run = src[i:q]
    if "\n" in run and text.endswith(run):
        return text[: len(text) - len(run)]
    return text


_KEY_INSIDE_STRING = re.compile(r",[ \t]*([A-Za-z_][A-Za-z0-9_\-]*)[ \t]*:[ \t]*\Z")
_LAST_KEY_INSIDE_STRING = re.compile(r".*(,)[ \t]*[A-Za-z_][A-Za-z0-9_\-]*[ \t]*:", re.S)


def _key_inside_string(src: str, q: int, text: str) -> tuple[int, int] | None:
    """``(cut, resume)`` when ``text`` (read up to the quote at ``q``) ends with ``, key: ``: the
    string should have ended at the comma (``cut`` in ``text``), and scanning resumes at the
    comma (``resume`` in ``src``). ``None`` unless the tail was copied verbatim from ``src``."""
    m = _KEY_INSIDE_STRING.search(text)
    if m is None:
        return None
    tail = len(text) - m.start()
    if src[q - tail : q] != text[m.start() :]:
        return None
    return m.start(), q - tail


def key_in_unclosed_string(src: str, stop: int, text: str) -> tuple[int, int] | None:
    """Like :func:`_key_inside_string` for a string cut off at ``stop``: the last ``, key:`` in
    it marks where the closing quote was forgotten (``{"a": "first, b: 1}``)."""
    m = _LAST_KEY_INSIDE_STRING.match(text)
    if m is None:
        return None
    comma = m.start(1)
    tail = len(text) - comma
    if src[stop - tail : stop] != text[comma:]:
        return None
    return comma, stop - tail


def _fence_ends_string(src: str, pos: int, end: int) -> bool:
    """True when a fence at ``pos`` closes the document: only closers and space follow it."""
    rest = src[pos + 3 : end].strip(" \t\r\n`")
    return rest == "" or all(ch in "}]" for ch in rest)


def _scan_number(src: str, pos: int, end: int, log: RepairLog) -> tuple[Any, int, bool] | None:
    """A number at ``pos``: ``(value, end, cut_off_incomplete)`` or ``None`` if it is not one."""
    m = _JSON_NUMBER.match(src, pos, end)
    if m is not None and m.end() > pos and src[m.end() - 1].isdigit():
        stop = m.end()
        if stop >= end or src[stop] in _DELIMITERS or src[stop] in "\"'":
            text = m.group()
            if stop >= end and end == len(src):
                # Cut off: a number is complete only when followed by something; keep it (the
                # digits so far), as LangChain's partial parser shows numbers growing.
                pass
            value, long = number_value(text)
            if long:
                log.add(LONG_NUMBER, pos)
            return value, stop, False
    m = _LOOSE_NUMBER.match(src, pos, end)
    if m is None or m.end() == pos:
        if src[pos] in "-+" and pos + 1 >= end:
            return None, end, True  # a lone sign at the end: an unfinished number
        return None
    stop = m.end()
    text = m.group()
    if stop < end and src[stop] not in _DELIMITERS and src[stop] not in "\"'":
        return None
    if stop >= end and text[-1] in ".eE+-":
        return None, end, True
    cleaned = _DANGLING_EXPONENT.sub("", text.replace("_", "").lstrip("+"))
    try:
        value, long = number_value(cleaned)
    except ValueError:
        return None
    log.add("number_format", pos)
    if long:
        log.add(LONG_NUMBER, pos)
    return value, stop, False


TOO_DEEP = (None, -1)
"""Returned by :func:`_c_decode` when the C decoder ran out of recursion: deeper attempts in the
same text would too, so the caller stops offering it containers."""


def decode_clean_container(src: str, pos: int, end: int) -> tuple[Any, int] | None:
    """The well-formed JSON container at ``pos``, decoded at C speed, or ``None``."""
    got = _c_decode(src, pos, end, C_FIRST_WINDOW)
    return None if got is TOO_DEEP else got


def _c_decode(src: str, pos: int, end: int, window: int) -> tuple[Any, int] | None:
    """Offer the container at ``pos`` to the C decoder; ``None`` when it is not clean JSON.

    The decoder reads a slice that starts at ``pos`` and doubles from ``window`` until it holds
    the container: a failure then costs about the container's size, not the distance from the
    start of the text (``json.JSONDecodeError`` counts the lines before its position).
    """
    while True:
        stop_at = min(end, pos + window)
        try:
            value, stop = _STRICT_DECODER.raw_decode(src[pos:stop_at])
        except RecursionError:
            return TOO_DEEP
        except ValueError as err:
            at = getattr(err, "pos", 0)
            cut = at >= stop_at - pos - WINDOW_CUT_SLACK or str(err).startswith("Unterminated")
            if stop_at < end and cut:
                window *= 2  # the slice may have cut the container: read more
                continue
            return None
        return value, pos + stop


def scan_value(
    src: str, pos: int, end: int, log: RepairLog, *, at_text_end: bool = True
) -> tuple[Any, int]:
    """Decode one JSON value starting at ``pos`` (after whitespace), repairing as it goes.

    ``end`` bounds the payload (a fence closer, or the end of the text). When the payload stops
    inside open containers, they are closed: ``log.truncated`` is set when ``end`` is the end of
    the text (``at_text_end``), else a ``missing_closer`` repair is recorded. Raises
    :class:`LenientError` when no value can be recovered.
    """
    stack: list[_Frame] = []
    use_c = True
    c_window = C_FIRST_WINDOW
    resumes = 0
    after_comma = False
    # States: 0 = expecting a value, 1 = expecting a key (or `}`), 2 = after a value.
    state = 0
    pending: Any = None
    have_pending = False

    def finish_at_end(at: int) -> tuple[Any, int]:
        if at_text_end:
            log.truncated = True
        else:
            log.add("missing_closer", at)
        value: Any = None
        while stack:
            value = _closed_value(stack.pop())
            if stack:
                _attach(stack[-1], value)
        if value is None:
            raise LenientError("no value before the end of the text", at)
        return value, at

    while True:
        if state == 2:
            if not stack:
                return pending, pos
            frame = stack[-1]
            pos = skip_ws_and_comments(src, pos, end, log)
            if pos >= end:
                return finish_at_end(pos)
            c = src[pos]
            if c == ",":
                frame.commas += 1
                pos += 1
                n = skip_ws_and_comments(src, pos, end, log)
                while n < end and src[n] == ",":
                    log.add("extra_comma", n)
                    n = skip_ws_and_comments(src, n + 1, end, log)
                if n < end and src[n] in "}])":
                    log.add("trailing_comma", pos - 1)
                pos = n
                after_comma = True
                state = 1 if frame.kind == _OBJ else 0
                continue
            if c in "}])":
                pos, closed = _close(stack, c, pos, log, src, end)
                if closed is _NOT_CLOSED:
                    continue
                if not stack:
                    if not _reopen_root(stack, closed, src, pos, end, log):
                        return closed, pos
                    continue
                _attach(stack[-1], closed)
                continue
            if c == "`":
                return finish_at_end(pos)
            if (
                frame.kind == _ARR
                and c == ":"
                and frame.members > 1
                and len(stack) > 1
                and stack[-2].kind == _OBJ
                and isinstance(frame.container[-1], str)
            ):
                # `{"a": [1, 2, "b": 3}`: the list was never closed; "b" is the object's key.
                key = frame.container.pop()
                stack.pop()
                log.add("missing_closer", pos)
                _attach(stack[-1], _closed_value(frame))
                stack[-1].key = key
                pos += 1
                state = 0
                continue
            if frame.kind == _ARR and c == ":" and frame.members == 1 and not after_comma:
                # `["key": "value"]`: the model forgot the object's braces inside the list.
                if len(stack) >= MAX_DEPTH:
                    raise LenientError(
                        f"nesting deeper than {MAX_DEPTH} levels", pos, too_deep=True
                    )
                key = frame.container.pop()
                frame.members = 0
                obj_frame = _Frame(_OBJ, "}")
                obj_frame.key = key if isinstance(key, str) else json.dumps(key)
                stack.append(obj_frame)
                log.add("missing_opener", pos)
                pos += 1
                state = 0
                continue
            # Anything else starts the next member: the comma is missing.
            log.add("missing_comma", pos)
            after_comma = False
            state = 1 if frame.kind == _OBJ else 0
            if (
                frame.kind == _OBJ
                and c not in _CLOSERS
                and not _looks_like_member_start(src, pos, end)
            ):
                # Junk between members (`COMMENT "key": ...`): skip the word.
                w = _UNQUOTED_KEY.match(src, pos, end)
                pos = w.end() if w is not None and w.end() > pos else pos + 1
            continue

        if state == 1:
            frame = stack[-1]
            pos = skip_ws_and_comments(src, pos, end, log)
            if pos >= end:
                return finish_at_end(pos)
            c = src[pos]
            if c in "}])":
                pos, closed = _close(stack, c, pos, log, src, end)
                if closed is _NOT_CLOSED:
                    continue
                state = 2
                if not stack:
                    if not _reopen_root(stack, closed, src, pos, end, log):
                        return closed, pos
                    continue
                _attach(stack[-1], closed)
                continue
            if c == ",":
                log.add("extra_comma", pos)
                pos += 1
                continue
            if c == "{" and after_comma and len(stack) > 1 and stack[-2].kind == _ARR:
                # `[{"id": 1, {"id": 2}]`: the first object was never closed.
                log.add("missing_closer", pos)
                stack.pop()
                _attach(stack[-1], _closed_value(frame))
                state = 0
                continue
            if c == "[" and isinstance(frame.last_value, list) and len(stack) < MAX_DEPTH:
                # `"key": ["a"], ["b"]`: the model closed the list too early; its items go on.
                log.add("extra_closer", pos)
                more = _Frame(_ARR, "]")
                more.container = frame.last_value
                stack.append(more)
                pos += 1
                state = 0
                continue
            if src.startswith("...", pos):
                log.add("ellipsis", pos)
                pos += 3
                state = 2
                continue
            if c == "`":
                return finish_at_end(pos)
            key_start = pos
            if c in _CLOSERS:
                key, pos, cut = scan_string(src, pos, end, log, "key", frame)
                if cut:
                    return finish_at_end(end)  # an unfinished key is dropped
            else:
                m = _UNQUOTED_KEY.match(src, pos, end)
                if m is None or m.end() == pos:
                    raise LenientError("expected a key", pos)
                key = m.group()
                pos = m.end()
                if pos >= end and at_text_end:
                    return finish_at_end(end)
                member = _next_member_on_line(src, pos, end)
                if member >= 0:
                    # `COMMENT "key": 1`: words that are not a key stand before the real one.
                    log.add("stray_text", key_start)
                    pos = member
                    continue
                log.add("unquoted_key", key_start)
            pos = skip_ws_and_comments(src, pos, end, log)
            if pos >= end:
                return finish_at_end(end)  # a key without a value is dropped
            if src[pos] == ":":
                pos += 1
            elif src[pos] in ",}" and ":" in key:
                # `{"key:"value"}`: the quotes moved and the colon ended up inside the key.
                key, _, rest = key.partition(":")
                log.add("misplaced_quote", key_start)
                _attach_member(frame, key.strip(), rest.strip().strip("\"'"))
                state = 2
                continue
            elif src[pos] in ",}":
                if frame.kind == _OBJ and src[pos] == "," and not frame.members and c in _CLOSERS:
                    # `{'a', 'b'}`: a Python set of strings, read as a list.
                    arr = _Frame(_ARR, frame.closer)
                    arr.container.append(key)
                    arr.members = 1
                    stack[-1] = arr
                    log.add("mismatched_closer", key_start)
                    state = 2
                    continue
                raise LenientError("key without a value", pos)
            else:
                log.add("missing_colon", pos)
            frame.key = key
            state = 0
            continue

        # state 0: a value
        pos = skip_ws_and_comments(src, pos, end, log)
        frame_or_none = stack[-1] if stack else None
        if pos >= end:
            if frame_or_none is not None and frame_or_none.kind == _OBJ:
                frame_or_none.key = None  # the key's value never came
            return finish_at_end(pos)
        c = src[pos]
        if c in "{[(":
            if use_c and c != "(" and len(stack) < C_SUBTREE_MAX_DEPTH:
                got = _c_decode(src, pos, end, c_window)
                if got is TOO_DEEP:
                    use_c = False
                elif got is not None:
                    c_window = max(C_FIRST_WINDOW, 2 * (got[1] - pos))
                    pending, pos = got
                    have_pending = True
            if not have_pending:
                if len(stack) >= MAX_DEPTH:
                    raise LenientError(
                        f"nesting deeper than {MAX_DEPTH} levels", pos, too_deep=True
                    )
                if c == "(":
                    log.add("tuple", pos)
                stack.append(
                    _Frame(
                        _OBJ if c == "{" else _ARR,
                        {"{": "}", "[": "]", "(": ")"}[c],
                        is_root=not stack,
                    )
                )
                pos += 1
                after_comma = False
                state = 1 if c == "{" else 0
                if c != "{":
                    n = skip_ws_and_comments(src, pos, end, log)
                    if n < end and src[n] in "])}":
                        pos = n
                        state = 2
                continue
        elif c in _CLOSERS:
            role_frame = frame_or_none
            text, pos, cut = scan_string(src, pos, end, log, "value", role_frame)
            if cut:
                resume = (
                    key_in_unclosed_string(src, pos, text)
                    if resumes < MAX_STRING_RESUMES
                    and role_frame is not None
                    and role_frame.kind == _OBJ
                    else None
                )
                if resume is not None:
                    resumes += 1
                    log.add("missing_quote", resume[1])
                    text, pos, cut = text[: resume[0]], resume[1], False
            if cut:
                closing = _closers_after_unclosed_string(text, stack)
                if closing:
                    # `{"key": "value}`: the quote is missing, the closers are there.
                    log.add("missing_quote", pos)
                    text = text[: len(text) - closing].rstrip()
                    if stack:
                        _attach(stack[-1], text)
                    value: Any = text
                    while stack:
                        value = _closed_value(stack.pop())
                        if stack:
                            _attach(stack[-1], value)
                    return value, pos
                log.truncated = log.truncated or at_text_end
            else:
                text, pos = _concatenate(src, text, pos, end, log, role_frame)
            pending = text
            have_pending = True
        elif c in "}])":
            if frame_or_none is None:
                raise LenientError("a closer where a value was expected", pos)
            if frame_or_none.kind == _OBJ and frame_or_none.key is not None:
                log.add("missing_value", pos)
                _attach(frame_or_none, "")
            state = 2
            continue
        elif c == ",":
            if frame_or_none is None:
                raise LenientError("a comma where a value was expected", pos)
            if frame_or_none.kind == _OBJ and frame_or_none.key is not None:
                log.add("missing_value", pos)
                _attach(frame_or_none, "")
            else:
                log.add("extra_comma", pos)
            state = 2
            continue
        elif src.startswith("...", pos):
            log.add("ellipsis", pos)
            pos += 3
            if frame_or_none is not None and frame_or_none.kind == _OBJ:
                frame_or_none.key = None
            state = 2
            if frame_or_none is None:
                raise LenientError("only a placeholder", pos)
            continue
        else:
            got_num = _scan_number(src, pos, end, log) if c in "-+.0123456789" else None
            if got_num is not None:
                value, stop, incomplete = got_num
                if incomplete:
                    if frame_or_none is not None and frame_or_none.kind == _OBJ:
                        frame_or_none.key = None
                    return finish_at_end(end)
                pending, pos, have_pending = value, stop, True
                if pos < end and src[pos] == '"':
                    after = _next_significant(src, pos + 1, end)
                    if after >= end or src[after] in ",}]":
                        log.add("stray_quote", pos)  # `12345",`
                        pos += 1
            else:
                w = _WORD.match(src, pos, end)
                word = w.group() if w is not None else ""
                stop = w.end() if w is not None else pos
                if word and (stop >= end or src[stop] in _DELIMITERS or src[stop] in "\"'"):
                    if word in _LITERALS:
                        value, repaired = _LITERALS[word]
                        if repaired:
                            log.add("python_literal", pos)
                        pending, pos, have_pending = value, stop, True
                    elif stop >= end and at_text_end and word in _LITERAL_PREFIXES:
                        # An unfinished `tr`/`nul`: dropped, with its key.
                        if frame_or_none is not None and frame_or_none.kind == _OBJ:
                            frame_or_none.key = None
                        return finish_at_end(end)
                    elif c == "-" and src.startswith("-Infinity", pos):
                        pending, pos, have_pending = float("-inf"), pos + 9, True
                if not have_pending:
                    if frame_or_none is None:
                        raise LenientError("expected a JSON value", pos)
                    start = pos
                    text, pos = _unquoted_value(src, pos, end, frame_or_none)
                    if text in ("", "-", "+"):
                        if pos == start:
                            raise LenientError("expected a value", pos)
                        # A lone sign is an unfinished number: dropped.
                        log.add("missing_value", start)
                        if frame_or_none.kind == _OBJ:
                            frame_or_none.key = None
                        state = 2
                        continue
                    log.add("unquoted_string", start)
                    pending, have_pending = text, True

        # A value is complete.
        have_pending = False
        after_comma = False
        if not stack:
            if _reopen_root(stack, pending, src, pos, end, log):
                state = 2
                continue
            return pending, pos
        _attach(stack[-1], pending)
        state = 2


def _attach(frame: _Frame, value: Any) -> None:
    if frame.kind == _OBJ:
        if frame.key is not None:
            frame.container[frame.key] = value
            frame.key = None
            frame.members += 1
            frame.last_value = value
    else:
        frame.container.append(value)
        frame.members += 1


_NOT_CLOSED = object()
"""Returned by :func:`_close` for a stray closer that matched no open container."""


def _reopen_root(
    stack: list[_Frame], closed: Any, src: str, pos: int, end: int, log: RepairLog
) -> bool:
    """``{"a": 1}, "b": 2}``: members follow the root's closer, so that closer was extra and
    the root object goes on. Returns True after reopening it."""
    if not isinstance(closed, dict) or not more_members_follow(src, pos, end):
        return False
    log.add("extra_closer", pos - 1)
    frame = _Frame(_OBJ, "}")
    frame.container = closed
    frame.members = len(closed)
    stack.append(frame)
    return True


def _next_member_on_line(src: str, pos: int, end: int) -> int:
    """Where a quoted ``"key":`` starts later on this line when no colon follows ``pos``; -1 if
    the text at ``pos`` continues normally."""
    p = _next_significant(src, pos, end)
    if p >= end or src[p] == ":":
        return -1
    stop = src.find("\n", p, end)
    stop = end if stop < 0 else stop
    while p < stop:
        if src[p] in _CLOSERS:
            return p if _looks_like_member_start(src, p, end) else -1
        if src[p] in "{}[],:":
            return -1
        p += 1
    return -1


def more_members_follow(src: str, pos: int, end: int) -> bool:
    """True when ``, "key":`` (or ``, key:``) follows ``pos``: the object is not finished."""
    p = _next_significant(src, pos, end)
    if p >= end or src[p] != ",":
        return False
    return _looks_like_member_start(src, _next_significant(src, p + 1, end), end)


def _attach_member(frame: _Frame, key: str, value: Any) -> None:
    frame.key = key
    _attach(frame, value)


def _close(
    stack: list[_Frame], closer: str, pos: int, log: RepairLog, src: str, end: int
) -> tuple[int, Any]:
    """Close the innermost container that ``closer`` at ``pos`` belongs to.

    Returns the position after the closer and the closed container. A closer of an outer
    container also closes the ones inside it (``missing_closer``); a closer that matches nothing
    open is skipped (``extra_closer``) and :data:`_NOT_CLOSED` is returned.
    """
    want = _canonical_closer(closer)
    depth = next(
        (i for i in range(len(stack) - 1, -1, -1) if _canonical_closer(stack[i].closer) == want),
        None,
    )
    if depth == 0 and len(stack) > 1 and more_members_follow(src, pos + 1, end):
        # `{"a": ["x", "y"}, "b": 1}`: the root goes on, so this closer was a typo for the
        # innermost container's.
        log.add("mismatched_closer", pos)
        return pos + 1, _closed_value(stack.pop())
    if depth is None:
        log.add("extra_closer", pos)
        return pos + 1, _NOT_CLOSED
    while len(stack) - 1 > depth:
        inner = stack.pop()
        log.add("missing_closer", pos)
        _attach(stack[-1], _closed_value(inner))
    return pos + 1, _closed_value(stack.pop())


def _closed_value(frame: _Frame) -> Any:
    """The container a frame built; ``(x)`` without a comma is a parenthesised ``x``."""
    if frame.closer == ")" and frame.members == 1 and frame.commas == 0:
        return frame.container[0]
    return frame.container


def _canonical_closer(closer: str) -> str:
    """A tuple's ``)`` and a list's ``]`` close the same kind of container."""
    return "]" if closer == ")" else closer


def _concatenate(
    src: str, text: str, pos: int, end: int, log: RepairLog, frame: _Frame | None
) -> tuple[str, int]:
    """Join ``'a' + 'b'`` and ``'a' 'b'`` on one line into one string."""
    while True:
        n = _INLINE_WS.match(src, pos, end).end()  # type: ignore[union-attr]
        if n >= end:
            return text, pos
        c = src[n]
        if c == "+":
            m = _WS.match(src, n + 1, end).end()  # type: ignore[union-attr]
            if m < end and src[m] in _CLOSERS:
                log.add("string_concat", n)
                more, pos, _ = scan_string(src, m, end, log, "value", frame)
                text += more
                continue
            return text, pos
        if c in _CLOSERS and n > pos and (frame is None or frame.kind == _OBJ):
            if frame is not None and _looks_like_member_start(src, n, end):
                return text, pos
            log.add("string_concat", n)
            more, pos, _ = scan_string(src, n, end, log, "value", frame)
            text += more
            continue
        return text, pos


def _unquoted_value(src: str, pos: int, end: int, frame: _Frame) -> tuple[str, int]:
    """A bare word or phrase used as a string value.

    It ends at a quote followed by a separator (the opening quote was missing: ``abc",``), else
    at the next separator or line end; brackets it opens (``words{in brackets}``) stay inside.
    """
    reach = min(end, pos + UNQUOTED_QUOTE_REACH)
    eol = src.find("\n", pos, reach)
    quote = src.find('"', pos, reach if eol < 0 else eol)
    if quote > pos:
        after = _next_significant(src, quote + 1, end)
        if after >= end or src[after] in ",}]":
            return src[pos:quote].strip(), quote + 1
    stops = ",}]" if frame.closer != ")" else ",})]"
    depth = 0
    i = pos
    while i < end:
        ch = src[i]
        if ch == "\n":
            break
        if ch in "{[":
            depth += 1
        elif ch in "}]" and depth:
            depth -= 1
        elif ch in stops or ch == '"':
            break
        i += 1
    return src[pos:i].strip(), i
