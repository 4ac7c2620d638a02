"""How deep JSON text nests, told by one scan of its brackets and strings without decoding
it, against the readers' one bound (`value_depth`): the reason a parser gives when an answer
is refused for it, the tool-call readers' check of a payload before and after decoding, and a
cut payload's open containers."""

from __future__ import annotations

import re

from langchain_robust_parsers.engine.failure_reasons import NoValueReason
from langchain_robust_parsers.engine.value_depth import MAX_VALUE_DEPTH

__all__ = ["MAX_JSON_NESTING", "TOO_DEEP_REASON", "json_too_deep", "nests_too_deep", "open_at_end"]

MAX_JSON_NESTING = MAX_VALUE_DEPTH
"""Deepest nesting of containers a JSON value may have (``[[1]]`` is 2)."""

TOO_DEEP_REASON = NoValueReason(
    "too_deep",
    f"The JSON is nested deeper than {MAX_JSON_NESTING} levels, deeper than copy.deepcopy, "
    "pickle and LangChain's tracing can follow, so no part of it is returned",
    "Ask the model for a flatter value, or read the text with json.loads yourself",
)
"""The reason a parser gives for such an answer."""

_DEPTH_TOKEN = re.compile(r'"(?:[^"\\]|\\[\s\S])*"|(?P<quote>")|(?P<open>[\[{])|(?P<close>[\]}])')


def open_at_end(text: str, a: int, b: int) -> tuple[int, bool]:
    """Containers still open at ``b`` in the JSON text starting at ``a``, and whether it ends
    inside a string."""
    depth = 0
    for m in _DEPTH_TOKEN.finditer(text, a, b):
        kind = m.lastgroup
        if kind == "open":
            depth += 1
        elif kind == "close":
            depth = max(0, depth - 1)
        elif kind == "quote":
            return depth, True
    return depth, False


def json_too_deep(text: str, a: int, b: int) -> bool:
    """Does the JSON text at ``a`` nest deeper than `MAX_JSON_NESTING`? Stops there. Text with
    no more openers than the bound is answered at C speed (the common payload)."""
    if text.count("[", a, b) + text.count("{", a, b) <= MAX_JSON_NESTING:
        return False
    depth = 0
    for m in _DEPTH_TOKEN.finditer(text, a, b):
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
    """Do the brackets of ``text`` (outside strings) nest deeper than `MAX_JSON_NESTING`?"""
    return json_too_deep(text, 0, len(text))
