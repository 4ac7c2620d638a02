"""Whole-document repair at C speed for text whose defects are all lexical.

A Python ``repr`` (single quotes, ``True``/``None``), a JavaScript object (unquoted keys, ``//``
comments) or a document with a trailing comma every few records has hundreds of defects, too
many for the error-position repairs, and the lenient scanner would walk every character in
Python. Here one compiled pattern consumes whole tokens (strings, literals, keys, commas,
comments) and rewrites only the defective ones; the C decoder then reads the result. Anything
the pattern cannot fix makes the decode fail, and the caller falls back to the scanner: this
route never returns a value the scanner would read differently on clean input.
"""

from __future__ import annotations

import json
import re
from typing import Any

from langchain_robust_parsers.engine.repair_log import RepairLog

MAX_BULK_CHARS = 20_000_000
"""Documents longer than this go straight to the scanner: the rewritten copy doubles memory."""

_NEXT = re.compile(
    r"""\"[^"\\\n]*"|'[^'\\\n]*'|["']|//|\#|[A-Za-z_][A-Za-z0-9_]*|,(?=[ \t\r\n]*[}\]])"""
)
"""The next token that is a string or may need a rewrite. Every alternative starts with a
literal character, so the engine skips the text between tokens at C speed; a string without
escapes is one match, one with escapes is finished with ``str.find``."""
_COLON_AFTER = re.compile(r"[ \t]*:")
_PY_JSON = {"True": "true", "False": "false", "None": "null"}
_HINTS = re.compile(r"""['#]|//|\b(?:True|False|None)\b|,[ \t\r\n]*[}\]]|[{,][ \t\r\n]*[A-Za-z_]""")
"""A defect the rewrite can fix; without one the rewrite is not tried."""


def _string_end(text: str, q: int, stop: int) -> int:
    """The position after the string whose quote is at ``q``, or -1 if it does not close."""
    quote = text[q]
    j = q + 1
    while True:
        j = text.find(quote, j, stop)
        if j < 0:
            return -1
        k = j
        while text[k - 1] == "\\":
            k -= 1
        if (j - k) % 2 == 0:
            return j + 1
        j += 1


def _rewrite(text: str, start: int, stop: int, fixes: list[tuple[str, int]]) -> str | None:
    """``text[start:stop]`` with its lexical defects rewritten, each noted in ``fixes``."""
    out: list[str] = []
    pos = start
    while True:
        m = _NEXT.search(text, pos, stop)
        if m is None:
            out.append(text[pos:stop])
            return "".join(out)
        at, end = m.start(), m.end()
        out.append(text[pos:at])
        token = m.group()
        first = token[0]
        if first in "\"'":
            if len(token) == 1:  # a string with escapes
                end = _string_end(text, at, stop)
                if end < 0:
                    return None
                token = text[at:end]
            if first == "'":
                fixes.append(("single_quotes", at))
                token = '"' + token[1:-1].replace("\\'", "'").replace('"', '\\"') + '"'
        elif first in "/#":
            fixes.append(("comment", at))
            eol = text.find("\n", end, stop)
            end, token = (stop if eol < 0 else eol), ""
        elif first == ",":
            fixes.append(("trailing_comma", at))
            token = ""
        elif token in _PY_JSON:
            fixes.append(("python_literal", at))
            token = _PY_JSON[token]
        elif _COLON_AFTER.match(text, end, stop) and (at == start or not text[at - 1].isalnum()):
            fixes.append(("unquoted_key", at))
            token = '"' + token + '"'
        out.append(token)
        pos = end


def bulk_decode(text: str, start: int, stop: int, log: RepairLog) -> tuple[Any, int] | None:
    """The value of ``text[start:stop]`` after rewriting its lexical defects, with one repair
    recorded per rewrite, or ``None`` (nothing recorded) when the result is not exactly one
    JSON value."""
    if stop - start > MAX_BULK_CHARS or _HINTS.search(text, start, stop) is None:
        return None
    fixes: list[tuple[str, int]] = []
    fixed = _rewrite(text, start, stop, fixes)
    if fixed is None or not fixes:
        return None
    try:
        value = json.loads(fixed)
    except (ValueError, RecursionError):
        return None
    for name, at in fixes:
        log.add(name, at)
    end = stop
    while end > start and text[end - 1].isspace():
        end -= 1
    return value, end
