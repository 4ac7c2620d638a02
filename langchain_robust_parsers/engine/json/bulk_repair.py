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

_TOKEN = re.compile(
    r"""\"[^"\\\n]*"|"(?:[^"\\\n]|\\.)*"|'[^'\\\n]*'|'(?:[^'\\\n]|\\.)*'"""
    r"""|//[^\n]*|\#[^\n]*|[A-Za-z_][A-Za-z0-9_]*|,(?=[ \t\r\n]*[}\]])"""
)
"""A token that is a string or may need a rewrite; text between tokens is copied by the
engine. A string without escapes is matched by a plain class run; only one with escapes takes
the slower alternative. No alternative nests a quantifier."""
_COLON_AFTER = re.compile(r"[ \t]*:")
_PY_JSON = {"True": "true", "False": "false", "None": "null"}
_HINTS = re.compile(r"""['#]|//|\b(?:True|False|None)\b|,[ \t\r\n]*[}\]]|[{,][ \t\r\n]*[A-Za-z_]""")
"""A defect the rewrite can fix; without one the rewrite is not tried."""


def _rewrite(text: str, start: int, stop: int, fixes: list[tuple[str, int]]) -> str:
    """``text[start:stop]`` with its lexical defects rewritten, each noted in ``fixes``."""

    def fix(m: re.Match[str]) -> str:
        token = m.group()
        first = token[0]
        if first == '"':
            return token
        at = start + m.start()
        if first == "'":
            fixes.append(("single_quotes", at))
            return '"' + token[1:-1].replace("\\'", "'").replace('"', '\\"') + '"'
        if first in "/#":
            fixes.append(("comment", at))
            return ""
        if first == ",":
            fixes.append(("trailing_comma", at))
            return ""
        if token in _PY_JSON:
            fixes.append(("python_literal", at))
            return _PY_JSON[token]
        if _COLON_AFTER.match(chunk, m.end()) is not None:
            fixes.append(("unquoted_key", at))
            return '"' + token + '"'
        return token

    chunk = text[start:stop]
    return _TOKEN.sub(fix, chunk)


def bulk_decode(text: str, start: int, stop: int, log: RepairLog) -> tuple[Any, int] | None:
    """The value of ``text[start:stop]`` after rewriting its lexical defects, with one repair
    recorded per rewrite, or ``None`` (nothing recorded) when the result is not exactly one
    JSON value."""
    if stop - start > MAX_BULK_CHARS or _HINTS.search(text, start, stop) is None:
        return None
    fixes: list[tuple[str, int]] = []
    fixed = _rewrite(text, start, stop, fixes)
    if not fixes:
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
