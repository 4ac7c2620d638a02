"""The lexicon of the lenient scanner: character classes, quote pairs, literals, the open-container
frame, and the look-ahead predicates its rules share (is a member starting here? does this closer
end a container?). Pure functions over ``(src, pos, end)``.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_robust_parsers.engine.errors import EngineError
from langchain_robust_parsers.engine.lexicon.literals import (
    JSON_LITERALS as _JSON_WORDS,
    MODEL_LITERALS,
    NONFINITE_LITERALS,
    PYTHON_LITERALS,
)
from langchain_robust_parsers.engine.repair_log import RepairLog

_ODD_SPACES = "\u1680\u180e\u2000-\u200b\u202f\u205f\u3000\ufeff"
"""Unicode spaces (and zero-width ones, and a BOM) that models and editors put between tokens;
skipping them is the ``unicode_space`` repair."""
_PLAIN_SPACE_CHARS = frozenset(" \t\r\n\f\v\u00a0\u2028\u2029")
_ODD_SPACE_CHARS = frozenset(
    "\u1680\u180e\u202f\u205f\u3000\ufeff" + "".join(chr(c) for c in range(0x2000, 0x200C))
)
SKIP_STARTS = _PLAIN_SPACE_CHARS | _ODD_SPACE_CHARS | frozenset("#/")
"""Characters `skip_ws_and_comments` may skip; any other character is significant."""
_PLAIN_WS = re.compile(r"[ \t\r\n\f\v\u00a0\u2028\u2029]*")
_WS = re.compile(r"[ \t\r\n\f\v\u00a0\u2028\u2029" + _ODD_SPACES + "]*")


_INLINE_WS = re.compile(r"[ \t]*")


_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")


_LOOSE_NUMBER = re.compile(
    r"[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][-+]?[0-9]*)?"
)


_WORD = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


_UNQUOTED_KEY = re.compile(r"[^\s:,{}\[\]\"'/#`“”‘’＂" + _ODD_SPACES + "]+")


_UNQUOTED_VALUE_IN_OBJECT = re.compile(r"[^,}\]\n\r\"“”]*")


_UNQUOTED_VALUE_IN_ARRAY = re.compile(r"[^,\]}\n\r\"“”]*")


_DANGLING_EXPONENT = re.compile(r"[eE][-+]?\Z")


# Characters that end a bare token (number, literal, unquoted key).
_DELIMITERS = frozenset(
    " \t\r\n\f\v,:}])#`\u00a0\u1680\u180e\u202f\u205f\u3000\ufeff"
    + "".join(chr(c) for c in range(0x2000, 0x200C))
)


# Opening quote -> the characters accepted as its closing quote. Models mix straight and smart.
_CLOSERS: dict[str, str] = {
    '"': '"',
    "'": "'",
    "“": '”“"',
    "”": '”"',
    "‘": "’‘'",
    "’": "’'",
    "＂": '＂"',
}


_QUOTE_REPAIR = {
    '"': "",
    "'": "single_quotes",
    "“": "smart_quotes",
    "”": "smart_quotes",
    "‘": "smart_quotes",
    "’": "smart_quotes",
    "＂": "fullwidth_quote",
}


_RUNS: dict[str, re.Pattern[str]] = {
    q: re.compile("[^" + re.escape(c) + r"\\\x00-\x1f`]*") for q, c in _CLOSERS.items()
}


_LITERALS: dict[str, tuple[Any, bool]] = {
    # word -> (value, is a repair); ``-Infinity`` is read as a sign and a word
    **{word: (value, False) for word, value in _JSON_WORDS.items()},
    **{word: (value, True) for word, value in PYTHON_LITERALS.items()},
    **{word: (value, True) for word, value in MODEL_LITERALS.items()},
    **{word: (value, False) for word, value in NONFINITE_LITERALS.items() if word[0] != "-"},
}


_LITERAL_PREFIXES = frozenset(w[:i] for w in _LITERALS for i in range(1, len(w)))


_OBJ = 0


_ARR = 1


class LenientError(EngineError):
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
        if pos < end and src[pos] in _PLAIN_SPACE_CHARS:
            pos = _PLAIN_WS.match(src, pos, end).end()  # type: ignore[union-attr]
        if pos >= end:
            return end
        c = src[pos]
        if c in _ODD_SPACE_CHARS:
            log.add("unicode_space", pos)
            pos = _WS.match(src, pos, end).end()  # type: ignore[union-attr]
            continue
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


_PREFIX_LETTERS = frozenset("uUbBrRfF")
_STRING_PREFIX = re.compile(r"(?:[rR][bBfF]?|[bBfF][rR]?|[uU])(?=['\"])")
"""A Python string prefix (``u``, ``b``, ``r``, ``f``, ``rb``...) glued to its opening quote."""


def after_string_prefix(src: str, pos: int, end: int) -> int:
    """The position of the quote when ``pos`` starts a prefixed string (``u'x'``), else ``pos``."""
    if pos < end and src[pos] in _PREFIX_LETTERS:
        m = _STRING_PREFIX.match(src, pos, end)
        if m is not None:
            return m.end()
    return pos


def _looks_like_member_start(src: str, pos: int, end: int, *, jumped: bool = False) -> bool:
    """True when ``pos`` starts ``"key":`` or ``key:``: a quote there opens a new member."""
    pos = after_string_prefix(src, pos, end)
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
    return after < end and (src[after] == ":" or _spaced_key_end(src, m.end(), end) >= 0)


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


def _junk_until_separator(src: str, p: int, end: int, quote: str = '"') -> bool:
    """True when the text at ``p`` reaches the end of the member (a ``,`` before the next key,
    or the object's ``}``) on its line before any quote (``quote``, the string's own, too:
    ``'it'   s'``)."""
    m = _QUOTE_OR_SEPARATOR.search(src, p, end)
    if m is None:
        # `{"a": "x, y" tail` cut off: the words after the quote run to the end of the text on
        # its line with no quote, so no inner quotation closes there; the quote ended the value.
        return src.find(quote, p, end) < 0
    if quote != '"' and src.find(quote, p, m.start()) >= 0:
        return False
    if m.group() == "}":
        return _closer_is_structural(src, m.start(), end)
    if m.group() == ",":
        n = _next_significant(src, m.end(), end)
        return n >= end or src[n] == "}" or _looks_like_member_start(src, n, end)
    return False


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


def _canonical_closer(closer: str) -> str:
    """A tuple's ``)`` and a list's ``]`` close the same kind of container."""
    return "]" if closer == ")" else closer


MAX_SPACED_KEY = 80
"""Characters searched for the colon of an unquoted key of several words: keys are short, and
the bound keeps a line of prose from being re-read per word."""
_KEY_BREAKERS = re.compile(r"[,{}\[\]\"'\n]")


def _spaced_key_end(src: str, pos: int, end: int) -> int:
    """After the first word of an unquoted key at ``pos``: the position of the colon when more
    words on the same line lead to it (``my key: 1``), else -1."""
    if pos >= end or src[pos] not in " \t":
        return -1
    if _next_significant(src, pos, end) < end and src[_next_significant(src, pos, end)] == ":":
        return -1
    colon = src.find(":", pos, min(end, pos + MAX_SPACED_KEY))
    if colon < 0 or _KEY_BREAKERS.search(src, pos, colon) is not None:
        return -1
    return colon
