"""Any value a parser returns as JSON data, for writing: models dumped, dataclasses as dicts,
NaN as ``None``, the rest as its ``str``; iterative, so a deep or self-containing value stops at a
named bound instead of the recursion limit."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pydantic
import pydantic.v1

__all__ = ["MAX_OUTPUT_DEPTH", "to_jsonable"]

MAX_OUTPUT_DEPTH = 1000
"""Deepest value written. ``json.dumps`` cannot write deeper values under Python's default
recursion limit (1000) anyway, and the bound stops the conversion on a value that contains
itself."""


def _leaf(value: Any) -> Any:
    """A JSON-ready scalar, or a container / model still to convert."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, pydantic.v1.BaseModel):
        return value.dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if value is None or isinstance(value, (str, int, float, dict, list, tuple)):
        return value
    return str(value)


def to_jsonable(value: Any) -> Any:
    """``value`` as JSON data: models dumped (``mode="json"``), dataclasses as dicts, tuples as
    lists, NaN and infinities as ``None``, keys as strings, anything else as its ``str``.

    Iterative, bounded by `MAX_OUTPUT_DEPTH` (``ValueError`` beyond it).
    """
    root = _leaf(value)
    if not isinstance(root, (dict, list, tuple)):
        return root
    out: Any = {} if isinstance(root, dict) else []
    stack: list[tuple[Any, Any, int]] = [(root, out, 1)]
    while stack:
        src, dst, depth = stack.pop()
        if depth > MAX_OUTPUT_DEPTH:
            raise ValueError(f"value nested deeper than {MAX_OUTPUT_DEPTH} levels")
        items = src.items() if isinstance(src, dict) else enumerate(src)
        for key, item in items:
            converted = _leaf(item)
            if isinstance(converted, (dict, list, tuple)):
                child: Any = {} if isinstance(converted, dict) else []
                stack.append((converted, child, depth + 1))
                converted = child
            if isinstance(dst, dict):
                dst[key if isinstance(key, str) else str(key)] = converted
            else:
                dst.append(converted)
    return out
