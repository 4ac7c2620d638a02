"""Quoted strings for the lenient scanner: escapes, literal control characters, unescaped inner
quotes, a closing quote the model forgot, and string concatenation (``'a' + 'b'``).
"""

from __future__ import annotations

import re

from langchain_robust_parsers.engine.json.scan_lexicon import (
    _ARR,
    _CLOSERS,
    _INLINE_WS,
    _LITERAL_PREFIXES,
    _LITERALS,
    _OBJ,
    _QUOTE_OR_ITEM_END,
    _QUOTE_REPAIR,
    _RUNS,
    _WORD,
    _WS,
    _canonical_closer,
    _closer_is_structural,
    _Frame,
    _junk_until_separator,
    _looks_like_member_start,
    _next_significant,
    after_string_prefix,
)
from langchain_robust_parsers.engine.lexicon.escapes import (
    HEX4,
    MAX_UNFINISHED_ESCAPE,
    MODEL_ESCAPES,
    is_high_surrogate,
    is_low_surrogate,
    join_surrogates,
    unfinished_escape_start,
)
from langchain_robust_parsers.engine.lexicon.fences import FENCE_MARKS
from langchain_robust_parsers.engine.repair_log import RepairLog

_DOUBLED_KEY = re.compile(r'"[ \t]*[^"\s:,{}\[\]][^"\n:,{}\[\]]*"[ \t]*:')
"""``"" key":`` from the second quote: key text (not starting with a space run alone), its
closing quote and the colon; the classes exclude the quote, so the match is linear."""


def _quote_closes(
    src: str,
    q: int,
    end: int,
    role: str,
    frame: _Frame | None,
    inner_quotes: int,
    *,
    after_fence: bool = False,
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
        return f in ":,}=" or (p > q + 1 and (f in "\"'[{-" or f.isalnum()))
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
        n = after_string_prefix(src, _next_significant(src, p + 1, end), end)
        if n >= end:
            return True
        g = src[n]
        if g in "}]{[0123456789-.`/#," or g in _CLOSERS:
            return True
        if frame is not None and frame.kind == _OBJ:
            return _looks_like_member_start(src, n, end)
        w = _WORD.match(src, n, end)
        if w is None:
            return False
        # `["a", t`: a literal cut by the end of the text is the next item, not string text.
        cut_literal = w.end() >= end and w.group() in _LITERAL_PREFIXES
        return w.group() in _LITERALS or cut_literal or _bare_item_follows(src, n, end)
    if f in _CLOSERS:
        # `"a" "b"` separated by whitespace: a closed string and another value. Adjacent quotes
        # (`""`) read as an escaped quote the model wrote the CSV way, unless they open a key.
        if frame is not None and frame.kind == _OBJ and _looks_like_member_start(src, p, end):
            return True
        if after_fence and role == "value" and frame is not None and frame.kind == _OBJ:
            # `"\n```{}```\n"\n",`: after a code block, a lone quote before the separator
            # cannot open a key (no colon follows), so it closes this string.
            after = _next_significant(src, p + 1, end)
            if p > q + 1 and after < end and src[after] in ",}":
                return False
        if frame is not None and frame.kind == _ARR and inner_quotes % 2:
            return False  # `["a "b" c" "d"]`: the quote after `c` closes the inner quotation
        return p > q + 1
    if p > q + 1 and frame is not None:
        return _word_after_quote_closes(src, q, p, end, frame, inner_quotes)
    return False


def _word_after_quote_closes(
    src: str, q: int, p: int, end: int, frame: _Frame, inner_quotes: int
) -> bool:
    """The quote at ``q`` is followed, after a space, by a word at ``p``: whether it closed the
    string (the word is a key, junk or the next item) or is an inner quote."""
    if frame.kind == _OBJ:
        # `"value"\n key: 1` or `"value" key2: 1`: a new member follows without a comma;
        # `"value" junk }`: words with no quote before the member ends are junk (unless
        # this quote closes an inner quotation: `"a "b" c}`).
        if _looks_like_member_start(src, p, end):
            return True
        return inner_quotes % 2 == 0 and _junk_until_separator(src, p, end, src[q])
    # `["27" display", "hdmi"]`: in a list, a word after the quote continues the string
    # (json_repair#152: inch marks and quoted words) when a quote ends it; a bracket, a
    # number or a bare word running to the next separator starts the next item.
    f = src[p]
    if f in "{[-" or f.isdigit():
        return True
    if inner_quotes % 2:
        # `["say "hi" now, "ok"]`: this quote closes an inner quotation, not the item.
        return False
    m = _QUOTE_OR_ITEM_END.search(src, p, end)
    return m is not None and m.group() in ",]"


def _bare_item_follows(src: str, n: int, end: int) -> bool:
    """``["this", that]``: the word at ``n`` runs to the next item or the list's end with no
    quote before it, so it is an unquoted item and the quote before the comma closed a string."""
    m = _QUOTE_OR_ITEM_END.search(src, n, end)
    if m is None:
        return False
    if m.group() == "\n":
        g = _next_significant(src, m.end(), end)
        return g >= end or src[g] in ",]"
    return m.group() in ",]"


def _item_starts_after_comma(src: str, q: int, end: int, text: str) -> int:
    """``[\n"abc,\n"def"\n]`` or ``["red, "green", "blue"]``: the string read so far ends
    with a comma and a line break or a space, and the quote at ``q`` opens an item that closes
    on its line before a separator; returns the comma's position in ``src`` (the string ends
    there), else -1."""
    stripped = text.rstrip()
    if not stripped.endswith(",") or len(stripped) == len(text):
        return -1
    eol = src.find("\n", q + 1, end)
    close = src.find(src[q], q + 1, end if eol < 0 else eol)
    if close < 0:
        return -1
    g = _next_significant(src, close + 1, end)
    if g < end and src[g] not in ",]":
        return -1
    return src.rfind(",", 0, q)


def _triple_quoted(src: str, pos: int, end: int) -> int:
    """Where the Python triple-quoted string at ``pos`` closes (after its closing quotes), or
    -1 when ``pos`` opens none or it never closes."""
    opener = src[pos] * 3
    if src[pos] not in "\"'" or not src.startswith(opener, pos):
        return -1
    close = src.find(opener, pos + 3, end)
    return -1 if close < 0 else close + 3


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
    triple = _triple_quoted(src, pos, end)
    if triple >= 0:
        log.add("triple_quotes", pos)
        return src[pos + 3 : triple - 3], triple, False
    if _QUOTE_REPAIR[opener]:
        log.add(_QUOTE_REPAIR[opener], pos)
    parts: list[str] = []
    pos += 1
    noted_control = False
    fenced = False
    inner_quotes = 0
    doubled = pos + 1 < end and src[pos] == opener
    if doubled and not (src[pos + 1].isalnum() or src[pos + 1] == "_"):
        # `{"" key": 1}`: a doubled opening quote before a key that a single quote and its
        # colon end on the same line.
        doubled = role == "key" and opener == '"' and _DOUBLED_KEY.match(src, pos, end) is not None
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
            pos = _read_escape(src, pos, end, closers, log, parts)
            if pos < 0:
                return "".join(parts), end, True  # cut inside an escape
        elif c in closers:
            if doubled and src.startswith(c, pos + 1):
                return "".join(parts), pos + 2, False
            if _quote_closes(src, pos, end, role, frame, inner_quotes, after_fence=fenced):
                text = "".join(parts)
                if noted_control:
                    text = _strip_layout_break(src, pos, text)
                return text, pos + 1, False
            ended = _ended_before_quote(src, pos, end, log, role, frame, parts)
            if ended is not None:
                return ended
            log.add("inner_quote", pos)
            inner_quotes += 1
            parts.append(c)
            pos += 1
        elif c == "`":
            if src.startswith(_TICK_FENCE, pos) and _fence_ends_string(src, pos, end):
                # The closing fence came before the closing quote: the string ends here.
                return "".join(parts), pos, True
            fenced = fenced or src.startswith(_TICK_FENCE, pos)
            parts.append(c)
            pos += 1
        else:
            if not noted_control:
                log.add("control_character", pos)
                noted_control = True
            parts.append(c)
            pos += 1


def _read_escape(
    src: str, pos: int, end: int, closers: str, log: RepairLog, parts: list[str]
) -> int:
    """Append the character the escape at ``pos`` stands for; returns the position after it,
    or -1 when the text ends inside it (a dangling backslash, half a ``\\uXXXX``)."""
    if pos + 1 >= end:
        return -1
    e = src[pos + 1]
    if e == "u":
        if end - pos <= MAX_UNFINISHED_ESCAPE and unfinished_escape_start(src, end, pos) == pos:
            return -1  # half a `\\uXXXX`, or a high surrogate cut before its low half
        h = HEX4.match(src, pos + 2, end)
        if h is None:
            log.add("invalid_escape", pos)
            parts.append("\\u")
            return pos + 2
        code = int(h.group(), 16)
        pos += 6
        if is_high_surrogate(code) and src.startswith("\\u", pos):
            low = HEX4.match(src, pos + 2, end)
            if low is not None and is_low_surrogate(int(low.group(), 16)):
                code = join_surrogates(code, int(low.group(), 16))
                pos += 6
        parts.append(chr(code))
        return pos
    if e in MODEL_ESCAPES:
        parts.append(MODEL_ESCAPES[e])
    elif e in closers or e in "„“”‘’":
        if e not in closers:
            log.add("invalid_escape", pos)
        parts.append(e)
    else:
        log.add("invalid_escape", pos)
        parts.append("\\" + e)
    return pos + 2


def _ended_before_quote(
    src: str,
    pos: int,
    end: int,
    log: RepairLog,
    role: str,
    frame: _Frame | None,
    parts: list[str],
) -> tuple[str, int, bool] | None:
    """The quote at ``pos`` does not close the string, but it may open the next member or item
    the string swallowed because its own closing quote was forgotten (``missing_quote``):
    returns the string cut where it should have ended, else ``None``."""
    if role != "value" or frame is None:
        return None
    tail = _tail(parts, _KEY_LOOKBACK)
    if frame.kind == _ARR:
        comma = _item_starts_after_comma(src, pos, end, tail)
        if comma < 0:
            return None
        log.add("missing_quote", comma)  # `[\n"abc,\n"def"\n]`
        return "".join(parts).rstrip()[:-1], comma, False
    if tail.rstrip().endswith(",") and _looks_like_member_start(src, pos, end):
        # `"New York, "gender": "male"`: the string lost its closing quote before the comma;
        # end it there and let the quote open the next key.
        log.add("missing_quote", pos)
        return "".join(parts).rstrip()[:-1], pos, False
    resume = _key_inside_string(src, pos, tail)
    if resume is None:
        return None
    # `"first, b: "second"`: an unquoted key was swallowed the same way.
    log.add("missing_quote", pos)
    full = "".join(parts)
    return full[: len(full) - (len(tail) - resume[0])], resume[1], False


_KEY_LOOKBACK = 256
"""Characters of a string examined when a quote inside it might start the next member: enough
for ``, "key": `` with a long key, and a bound that keeps many inner quotes linear."""


def _tail(parts: list[str], n: int) -> str:
    """The last ``n`` characters of ``"".join(parts)`` without joining all of it: the string
    reader never appends an empty part, so the last ``n`` parts hold them."""
    return "".join(parts[-n:])[-n:]


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
    """Like `_key_inside_string` for a string cut off at ``stop``: the last ``, key:`` in
    it marks where the closing quote was forgotten (``{"a": "first, b: 1}``)."""
    m = _LAST_KEY_INSIDE_STRING.match(text)
    if m is None:
        return None
    comma = m.start(1)
    tail = len(text) - comma
    if src[stop - tail : stop] != text[comma:]:
        return None
    return comma, stop - tail


_TICK_FENCE = FENCE_MARKS[0]
"""A backtick fence run: a model that closes its fence before the string's quote ends the
string there."""


def _fence_ends_string(src: str, pos: int, end: int) -> bool:
    """True when a fence at ``pos`` closes the document: only closers and space follow it."""
    rest = src[pos + len(_TICK_FENCE) : end].strip(" \t\r\n`")
    return rest == "" or all(ch in "}]" for ch in rest)


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
