"""Dropping the list items that fail validation, keeping the rest (``drop_invalid_items``).

A model asked for twenty records often gets one wrong; rejecting the whole answer for it throws
away nineteen good ones. `drop_invalid_items` validates, reads the error locations, removes
each list item an error points into, and validates again, reporting every dropped item by its
JSON path (``$.items[3]``). An error outside any list (a missing top-level field) cannot be
mended this way and is left to the caller. No LangChain import here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pydantic
import pydantic.v1

__all__ = ["MAX_DROP_ROUNDS", "drop_invalid_items", "json_path"]

MAX_DROP_ROUNDS = 8
"""Validation rounds before giving up: each round drops every item an error points into, so
only items made invalid by the dropping itself (a ``min_length`` now unmet) need another."""

_ERRORS = (pydantic.ValidationError, pydantic.v1.ValidationError)

Path = tuple[str | int, ...]


def json_path(path: Path) -> str:
    """``("items", 3, "name")`` as ``$.items[3].name``."""
    parts = ["$"]
    for part in path:
        parts.append(f"[{part}]" if isinstance(part, int) else f".{part}")
    return "".join(parts)


def _item_path(value: Any, loc: Sequence[Any]) -> Path | None:
    """The path of the deepest list item ``loc`` (an error location) points into, or ``None``."""
    node = value
    walked: list[str | int] = []
    found: Path | None = None
    for part in loc:
        if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            walked.append(part)
            found = tuple(walked)
            node = node[part]
        elif isinstance(node, dict) and isinstance(part, str) and part in node:
            walked.append(part)
            node = node[part]
        else:
            break  # a union arm's or validator's name: the data path ends here
    return found


def _without(value: Any, path: Path) -> Any:
    """A copy of ``value`` without the item at ``path`` (the containers on the way copied)."""
    head, rest = path[0], path[1:]
    if isinstance(value, list):
        assert isinstance(head, int)
        if not rest:
            return value[:head] + value[head + 1 :]
        return [*value[:head], _without(value[head], rest), *value[head + 1 :]]
    copy = dict(value)
    copy[head] = _without(value[head], rest)
    return copy


def _errors(exc: Exception) -> list[Any]:
    errors = getattr(exc, "errors", None)
    return list(errors()) if callable(errors) else []


def drop_invalid_items(value: Any, validate: Callable[[Any], Any]) -> tuple[Any, tuple[str, ...]]:
    """``value`` without the list items that fail ``validate`` (which raises pydantic's
    ``ValidationError``), and the JSON paths of the items dropped (in the value as it was when
    each was dropped: the original value for all but a later round's). The input is never
    mutated. When nothing can be dropped, ``value`` comes back with ``()``."""
    dropped: list[str] = []
    current = value
    for _ in range(MAX_DROP_ROUNDS):
        try:
            validate(current)
        except _ERRORS as exc:
            paths = {
                p for e in _errors(exc) if (p := _item_path(current, e.get("loc", ()))) is not None
            }
        else:
            return current, tuple(dropped)
        if not paths:
            break
        # Deepest and last first, so earlier paths stay valid while items are removed.
        dropped.extend(sorted(json_path(path) for path in paths))
        for path in sorted(paths, key=lambda p: (len(p), p[-1]), reverse=True):
            current = _without(current, path)
    return (value, ()) if not dropped else (current, tuple(dropped))
