"""How deep a JSON text nests, told by one scan of its brackets and strings, without decoding
it: a call payload cut off inside its arguments, and a flood of brackets refused before the
repairing engine spends time on it."""

from __future__ import annotations

import re

from langchain_robust_parsers.engine.value_depth import MAX_VALUE_DEPTH

__all__ = ["MAX_JSON_DEPTH", "json_too_deep", "open_at_end"]

MAX_JSON_DEPTH = MAX_VALUE_DEPTH
"""How deep a call's JSON (payload or arguments) may nest: the readers' one bound,
`value_depth`. Text the C decoder reads whole is checked too, so that no route returns
arguments that ``copy.deepcopy`` (LangChain's tracing) cannot copy; a payload that fails strict
decoding and nests deeper is refused before the engine sees it, as a flood of ``[{`` would
cost the engine time for nothing."""

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
    """Does the JSON text at ``a`` nest deeper than `MAX_JSON_DEPTH`? Stops there. Text with
    no more openers than the bound is answered at C speed (the common payload)."""
    if text.count("[", a, b) + text.count("{", a, b) <= MAX_JSON_DEPTH:
        return False
    depth = 0
    for m in _DEPTH_TOKEN.finditer(text, a, b):
        kind = m.lastgroup
        if kind == "open":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return True
        elif kind == "close":
            depth = max(0, depth - 1)
        elif kind == "quote":
            return False
    return False
