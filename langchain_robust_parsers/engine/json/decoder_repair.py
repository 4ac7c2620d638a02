"""The fast repair path: let the C decoder find the error, fix that one spot, decode again.

Most broken model output has one or two defects (a trailing comma, a comment, a cut-off end).
Re-running ``json``'s C decoder after a targeted edit costs a few passes at C speed, far less
than any scan in Python. Each edit is a named rule keyed on the decoder's message and the
character at its error position; anything the rules do not recognise, or more defects than
`MAX_DECODER_REPAIRS`, is left to the lenient scanner.

Cut-off text goes to jiter's partial mode (through ``pydantic_core.from_json``) once jiter itself
confirms that its first error is the end of the text, because partial mode otherwise stops
silently at the first syntax error (pydantic/jiter#162).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from pydantic_core import from_json

from langchain_robust_parsers.engine.lexicon.escapes import unfinished_escape_start
from langchain_robust_parsers.engine.lexicon.literals import PYTHON_TO_JSON
from langchain_robust_parsers.engine.repair_log import RepairLog

MAX_DECODER_REPAIRS = 12
"""Edits tried before giving up. Each one re-reads the payload at C speed, so the cap keeps text
with many defects (where the linear scanner wins) from costing ``defects x length``."""

_STRICT = json.JSONDecoder(strict=True)
_KEY_AFTER_COMMA = re.compile(r",[ \t]*[A-Za-z_][A-Za-z0-9_\-]*[ \t]*:")

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_WS_BEFORE = re.compile(r"[ \t\r\n]*\Z")
_SINGLE_QUOTED = re.compile(r"'((?:[^'\\\n]|\\.)*)'")
_IDENTIFIER_KEY = re.compile(r"([A-Za-z_$][A-Za-z0-9_$]*)([ \t]*:)")
_PY_LITERAL = re.compile("(" + "|".join(PYTHON_TO_JSON) + r")\b")


class _Edit:
    """One replacement in the working copy, kept to map positions back to the input."""

    __slots__ = ("at", "inserted", "removed")

    def __init__(self, at: int, removed: int, inserted: int) -> None:
        self.at = at
        self.removed = removed
        self.inserted = inserted


def _original_pos(pos: int, edits: list[_Edit]) -> int:
    """Map a position in the edited copy back to the unedited payload."""
    for e in reversed(edits):
        if pos >= e.at + e.inserted:
            pos += e.removed - e.inserted
        elif pos > e.at:
            pos = e.at
    return pos


def _prev_significant(text: str, pos: int) -> int:
    """The index of the last non-whitespace character before ``pos`` (``-1`` if none)."""
    i = pos - 1
    while i >= 0 and text[i] in " \t\r\n":
        i -= 1
    return i


_SPACE_RUN = re.compile(r"\s*")


def _at_end(text: str, pos: int) -> bool:
    # A match, not ``text[pos:].isspace()``: no copy of the rest of a long document.
    return _SPACE_RUN.match(text, pos).end() >= len(text)  # type: ignore[union-attr]


Fix = tuple[str, int, int, str]
"""``(repair name, start, stop, replacement)`` for one edit of the working copy."""


def _fix_trailing_comma(text: str, pos: int) -> Fix | None:
    if pos < len(text) and text[pos] in "}]":
        comma = _prev_significant(text, pos)
        if comma >= 0 and text[comma] == ",":
            return ("trailing_comma", comma, comma + 1, "")
    return None


def _fix_comment(text: str, pos: int) -> Fix | None:
    if text.startswith("//", pos) or text.startswith("#", pos):
        eol = text.find("\n", pos)
        return ("comment", pos, len(text) if eol < 0 else eol, "")
    if text.startswith("/*", pos):
        close = text.find("*/", pos + 2)
        return ("comment", pos, len(text) if close < 0 else close + 2, "")
    return None


def _fix_single_quotes(text: str, pos: int) -> Fix | None:
    if not text.startswith("'", pos):
        return None
    m = _SINGLE_QUOTED.match(text, pos)
    if m is None:
        return None
    body = m.group(1).replace("\\'", "'")
    # Re-encode: keep valid escapes, escape bare double quotes.
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            out.append(body[i : i + 2])
            i += 2
            continue
        out.append('\\"' if ch == '"' else ch)
        i += 1
    return ("single_quotes", pos, m.end(), '"' + "".join(out) + '"')


def _fix_unquoted_key(text: str, pos: int) -> Fix | None:
    m = _IDENTIFIER_KEY.match(text, pos)
    if m is None:
        return None
    return ("unquoted_key", pos, m.end(1), '"' + m.group(1) + '"')


def _fix_python_literal(text: str, pos: int) -> Fix | None:
    m = _PY_LITERAL.match(text, pos)
    if m is None:
        return None
    return ("python_literal", pos, m.end(), PYTHON_TO_JSON[m.group(1)])


_ESCAPED_QUOTE_LIKE = frozenset("'„“”‘’")


def _fix_invalid_escape(text: str, pos: int) -> Fix | None:
    if text.startswith("\\", pos) and pos + 1 < len(text):
        if text[pos + 1] in _ESCAPED_QUOTE_LIKE:
            # `\'` and `\“` are escapes in the model's mind: keep the quote, drop the backslash.
            return ("invalid_escape", pos, pos + 1, "")
        return ("invalid_escape", pos, pos + 1, "\\\\")
    return None


_RULES_BY_MESSAGE: dict[str, tuple[Callable[[str, int], Fix | None], ...]] = {
    "Expecting property name enclosed in double quotes": (
        _fix_trailing_comma,
        _fix_comment,
        _fix_single_quotes,
        _fix_unquoted_key,
    ),
    "Expecting value": (
        _fix_trailing_comma,
        _fix_comment,
        _fix_single_quotes,
        _fix_python_literal,
    ),
    "Expecting ',' delimiter": (_fix_comment,),
    "Expecting ':' delimiter": (_fix_comment,),
    "Invalid \\escape": (_fix_invalid_escape,),
}


def _string_tail_needs_scanner(text: str, pos: int) -> bool:
    """True when a string that runs to the end (opening quote at ``pos``) looks like a missing
    closing quote rather than a cut: it ends in closers or swallowed a ``, key:``."""
    tail = text[pos + 1 :].rstrip(" \t\r\n`")
    return tail.endswith(("}", "]")) or _KEY_AFTER_COMMA.search(tail) is not None


def complete_truncated(text: str, *, prefix_checked: bool = False) -> Any:
    """The value of ``text`` cut off at its end, completed; raises ``ValueError`` when the text
    has an error before its end (jiter's partial mode would silently stop there).

    ``prefix_checked`` says the C decoder already read the whole text as a valid prefix; jiter
    then needs no check of its own, except for ``\\u`` escapes, where it is stricter about lone
    surrogates than the C decoder.
    """
    if not text.isascii() and _LONE_SURROGATE.search(text) is not None:
        # jiter reads UTF-8, which has no lone surrogates (it raises TypeError on them); the
        # lenient scanner keeps them, as the C decoder does.
        raise ValueError("a lone surrogate: not UTF-8")
    if not prefix_checked or "\\u" in text:
        try:
            return from_json(text)
        except ValueError as exc:
            if not str(exc).startswith("EOF while parsing"):
                raise
    # Older jiter (pydantic-core < 2.27, jiter#207) drops the whole string when it ends in half
    # an escape; drop the half escape first, as the value would anyway.
    half = unfinished_escape_start(text, len(text))
    if half >= 0:
        text = text[:half]
    return from_json(text, allow_partial="trailing-strings")


def decode_with_repairs(
    payload: str,
    log: RepairLog,
    offset: int,
    *,
    at_text_end: bool,
    known_error: tuple[int, str] | None = None,
) -> tuple[Any, int] | None:
    """Decode ``payload`` (which starts with its value) with error-position repairs.

    Returns the value and the end of the value within ``payload`` (trailing text is left to the
    caller), or ``None`` when the rules cannot fix it. Repairs are recorded in ``log`` at their
    positions in the input (``offset`` is where ``payload`` starts there). ``known_error`` is the
    decoder's ``(pos, msg)`` for ``payload`` when the caller already ran it, saving one pass.
    """
    text = payload
    edits: list[_Edit] = []
    for _ in range(MAX_DECODER_REPAIRS):
        if known_error is not None:
            (pos, msg), known_error = known_error, None
        else:
            try:
                value, stop = _STRICT.raw_decode(text)
            except RecursionError:
                return None
            except json.JSONDecodeError as err:
                pos, msg = err.pos, err.msg
            except ValueError:
                return None  # an integer past Python's digit limit: the scanner keeps its text
            else:
                return value, _original_pos(stop, edits)
        if msg.startswith("Invalid control character"):
            # Literal line breaks in strings need the lenient scanner's judgement (a break
            # before the closing quote is layout, not content).
            return None
        if msg.startswith("Unterminated string") and _string_tail_needs_scanner(text, pos):
            return None
        if _at_end(text, pos) or msg.startswith("Unterminated string"):
            try:
                value = complete_truncated(text, prefix_checked=True)
            except (ValueError, RecursionError):
                return None
            if at_text_end:
                log.truncated = True
            else:
                log.add("missing_closer", offset + len(payload))
            return value, len(payload)
        fix: Fix | None = None
        for rule in _RULES_BY_MESSAGE.get(msg, ()):
            fix = rule(text, pos)
            if fix is not None:
                break
        if fix is None:
            return None
        name, start, stop, replacement = fix
        if _too_many_ahead(len(edits) + 1, start, len(text)):
            return None
        log.add(name, offset + _original_pos(start, edits))
        text = text[:start] + replacement + text[stop:]
        edits.append(_Edit(start, stop - start, len(replacement)))
    return None


DENSITY_MIN_CHARS = 2_000
"""Documents shorter than this always get all `MAX_DECODER_REPAIRS` attempts."""


def _too_many_ahead(found: int, pos: int, size: int) -> bool:
    """True when ``found`` defects before ``pos`` project to far more than the cap over the
    whole document: each attempt copies and re-reads the text, so a long document with a
    defect every few kilobytes goes to the bulk repair or the scanner at once."""
    return size >= DENSITY_MIN_CHARS and found * size > 2 * MAX_DECODER_REPAIRS * (pos + 1)
