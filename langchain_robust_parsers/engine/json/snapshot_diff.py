"""JSON-patch operations between successive streaming snapshots, without walking shared parts.

langchain-core's ``diff=True`` mode yields ``jsonpatch.make_patch(prev, next).patch``, which
walks both values whole: quadratic over a stream. Successive snapshots share every closed
sub-value by identity and only grow (strings lengthen, numbers gain digits, members and items
are added), so the operations can be found along the open path alone. They are the ones
jsonpatch produces for such a change, in its order: new members (``add``, in the new value's
order), then changes inside existing members; for lists, changes inside existing items, then
new items. Any other change (something removed or shortened) returns ``None`` and the caller
uses jsonpatch itself.
"""

from __future__ import annotations

from typing import Any


def _pointer(path: str, key: str | int) -> str:
    """``path`` extended by ``key`` as a JSON pointer (``~`` and ``/`` escaped, RFC 6901)."""
    return path + "/" + str(key).replace("~", "~0").replace("/", "~1")


def same_json(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` are the same JSON value: Python's ``==`` with the types checked
    too, since ``0 == 0.0`` and ``1 == True`` hold in Python while ``[0]`` and ``[0.0]``, or
    ``1`` and ``true``, are different answers a stream must not skip. The types are only
    walked when ``==`` holds."""
    return a is b or (a == b and _same_types(a, b))


def _same_types(a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b``, equal by ``==``, are of the same JSON kind at every place (a
    list and a `StreamedList` are both arrays)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and all(_same_types(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        return isinstance(b, list) and all(_same_types(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b)


def _same_scalar(a: Any, b: Any) -> bool:
    """Equal as JSON (``1`` and ``True``, ``1`` and ``1.0`` differ, as jsonpatch judges)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    return bool(a == b) or (a != a and b != b)  # NaN equals NaN in JSON text


def growth_patch(prev: Any, new: Any, path: str = "") -> list[dict[str, Any]] | None:
    """The operations turning snapshot ``prev`` into ``new``, or ``None`` when ``new`` is not a
    growth of ``prev``."""
    if prev is new:
        return []
    if isinstance(prev, dict) and isinstance(new, dict):
        if any(key not in new for key in prev):
            return None
        ops = [
            {"op": "add", "path": _pointer(path, key), "value": value}
            for key, value in new.items()
            if key not in prev
        ]
        for key, value in prev.items():
            sub = growth_patch(value, new[key], _pointer(path, key))
            if sub is None:
                return None
            ops.extend(sub)
        return ops
    if isinstance(prev, list) and isinstance(new, list):
        if len(new) < len(prev):
            return None
        ops = []
        for i, value in enumerate(prev):
            sub = growth_patch(value, new[i], _pointer(path, i))
            if sub is None:
                return None
            ops.extend(sub)
        ops.extend(
            {"op": "add", "path": _pointer(path, i), "value": new[i]}
            for i in range(len(prev), len(new))
        )
        return ops
    if isinstance(prev, (dict, list)) or isinstance(new, (dict, list)):
        return [{"op": "replace", "path": path, "value": new}] if path else None
    if _same_scalar(prev, new):
        return []
    return [{"op": "replace", "path": path, "value": new}] if path else None
