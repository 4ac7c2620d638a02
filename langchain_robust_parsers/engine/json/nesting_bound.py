"""Whether a JSON answer nests deeper than the readers' one bound (`value_depth`), told from
its text before any route decodes it, so that every route (the C decoder, the repairs, the
lenient scanner, the stream decoders) refuses the same answers as a whole instead of returning
an inner fragment of them."""

from __future__ import annotations

import re

from langchain_robust_parsers.engine.failure_reasons import NoValueReason
from langchain_robust_parsers.engine.value_depth import MAX_VALUE_DEPTH

__all__ = ["MAX_JSON_NESTING", "TOO_DEEP_REASON", "nests_too_deep"]

MAX_JSON_NESTING = MAX_VALUE_DEPTH
"""Deepest nesting of containers a JSON value may have (``[[1]]`` is 2)."""

TOO_DEEP_REASON = NoValueReason(
    "too_deep",
    f"The JSON is nested deeper than {MAX_JSON_NESTING} levels, deeper than copy.deepcopy, "
    "pickle and LangChain's tracing can follow, so no part of it is returned",
    "Ask the model for a flatter value, or read the text with json.loads yourself",
)
"""The reason a parser gives for such an answer."""

BLOCK_CHARS = 4_096
"""Text counted at a time by the cheap bound: the openers of a block plus the nesting at its
start bound the nesting inside it, and a few ``str.count`` calls a block cost about 1% of what
``json.loads`` spends on the same text."""

_DEPTH_TOKEN = re.compile(r'"(?:[^"\\]|\\[\s\S])*"|(?P<quote>")|(?P<open>[\[{])|(?P<close>[\]}])')


def _openers(text: str, a: int, b: int) -> int:
    return text.count("[", a, b) + text.count("{", a, b)


def _may_nest_too_deep(text: str) -> bool:
    """False when the brackets alone (strings not told apart) cannot nest past the bound: a
    few C-speed counts a block, so a large shallow document costs next to nothing. Closers
    inside strings could hide nesting from this bound, so text with more closers than openers
    (where strings must hold some) counts as possibly too deep."""
    depth = opened_total = closed_total = 0
    for a in range(0, len(text), BLOCK_CHARS):
        b = a + BLOCK_CHARS
        opened = _openers(text, a, b)
        if depth + opened > MAX_JSON_NESTING:
            return True
        closed = text.count("]", a, b) + text.count("}", a, b)
        depth = max(0, depth + opened - closed)
        opened_total += opened
        closed_total += closed
    return closed_total > opened_total


def _scan_too_deep(text: str) -> bool:
    """The exact answer: containers open at once, strings skipped, past the bound anywhere
    (an unclosed string ends the scan: what it holds is text, not nesting)."""
    depth = 0
    for m in _DEPTH_TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "open":
            depth += 1
            if depth > MAX_JSON_NESTING:
                return True
        elif kind == "close":
            depth = max(0, depth - 1)
        elif kind == "quote":
            return False
    return False


def nests_too_deep(text: str) -> bool:
    """Do the brackets of ``text`` (outside strings) nest deeper than `MAX_JSON_NESTING`?

    Text with no more openers than the bound, the common answer, is answered by two counts."""
    if _openers(text, 0, len(text)) <= MAX_JSON_NESTING:
        return False
    return _may_nest_too_deep(text) and _scan_too_deep(text)
