"""Tool-call arguments and tool names: what the tools parsers need from the engine.

- `decode_arguments` turns the argument text of one tool call into the object it meant:
  strict ``json.loads`` first (C speed, the common case), then the JSON engine's candidates in
  its order, the first that is an object winning. Empty arguments (``""``, whitespace, ``null``,
  ``[]``) mean a call without parameters, as langchain-core reads them; a list holding exactly one
  object gives that object. Everything else raises `ToolArgumentsError`.
- `ToolNameMatcher` maps the names models write to the names of the bound tools: exactly,
  then ignoring case and the separators ``_``, ``-``, ``.`` and spaces (``get-weather``,
  ``Get_Weather`` and ``get.weather`` all find ``get_weather``; ``math_factorial`` finds
  ``math.factorial``), then by the last dotted component (``functions.get_weather``). A name that
  matches two bound tools equally well matches none.

Nothing here imports LangChain.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Iterable
from typing import Any

from langchain_robust_parsers.engine.calls.json_depth import MAX_JSON_DEPTH, json_too_deep
from langchain_robust_parsers.engine.errors import JsonEngineError
from langchain_robust_parsers.engine.json.decode import iter_candidates
from langchain_robust_parsers.engine.report import ParseReport, Repair

__all__ = [
    "MAX_ARGUMENT_CANDIDATES",
    "RENAME_REPAIR",
    "ToolArgumentsError",
    "ToolNameMatcher",
    "decode_arguments",
    "name_key",
    "tool_name_matcher",
]

MAX_ARGUMENT_CANDIDATES = 8
"""Payload candidates tried in one argument text before giving up. Arguments are one JSON
object; when the first few candidates are not objects, the text is not arguments."""

SINGLE_OBJECT_LIST = "single_object_list"
"""Repair name: ``[{...}]`` given where the arguments object was expected."""

_EMPTY_VALUES: tuple[Any, ...] = (None, "", [])
"""Decoded argument values that mean "no arguments" (langchain-core's ``args or {}``)."""

_NAME_SEPARATORS = str.maketrans("", "", "_-. \t")
_NAMESPACE_SEPARATORS = (".", ":", "/")


class ToolArgumentsError(ValueError):
    """The argument text of a tool call holds no JSON object.

    ``reason`` says why; ``pos`` is where the engine gave up (``-1`` when unknown).
    """

    def __init__(self, reason: str, pos: int = -1) -> None:
        super().__init__(reason)
        self.reason = reason
        self.pos = pos

    def __reduce__(self) -> tuple[type[ToolArgumentsError], tuple[str, int]]:
        return (type(self), (self.reason, self.pos))


def _as_object(value: Any) -> tuple[dict[str, Any], bool] | None:
    """``value`` as an arguments object and whether it was unwrapped from a one-item list."""
    if isinstance(value, dict):
        return value, False
    if value is None or (isinstance(value, (str, list)) and not value):
        return {}, False
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict):
        return value[0], True
    return None


def decode_arguments(
    raw: str | None, *, allow_truncated: bool = True, strict: bool = False
) -> tuple[dict[str, Any], ParseReport]:
    """The arguments object of one tool call, with what was located and repaired.

    ``strict`` is ``json.loads``'s: with ``True``, control characters inside strings fail the
    first, strict pass and are left to the engine's repairs. With ``allow_truncated=False`` a
    cut-off argument text is an error. Raises `ToolArgumentsError`.
    """
    if raw is None or not raw.strip():
        return {}, ParseReport(end=len(raw or ""))
    if json_too_deep(raw, 0, len(raw)):
        raise ToolArgumentsError(f"the arguments nest deeper than {MAX_JSON_DEPTH} levels")
    try:
        value = json.loads(raw, strict=strict)
    except (ValueError, RecursionError):
        pass
    else:
        found = _as_object(value)
        if found is not None and not found[1]:
            return found[0], ParseReport(end=len(raw))
    cut_off: ParseReport | None = None
    not_object = False
    try:
        for n, (value, report) in enumerate(iter_candidates(raw, allow_truncated=True)):
            if n >= MAX_ARGUMENT_CANDIDATES:
                break
            found = _as_object(value)
            if found is None:
                not_object = True
                continue
            if report.truncated and not allow_truncated:
                cut_off = cut_off or report
                continue
            obj, unwrapped = found
            if unwrapped:
                extra = Repair(SINGLE_OBJECT_LIST, report.start)
                report = dataclasses.replace(report, repairs=(*report.repairs, extra))
            return obj, report
    except JsonEngineError as err:
        raise ToolArgumentsError(err.msg, err.pos) from err
    except RecursionError as err:  # the engine bounds its depth; this is a last guard
        raise ToolArgumentsError("the arguments nest too deeply") from err
    if cut_off is not None:
        raise ToolArgumentsError("the arguments are cut off", cut_off.end)
    if not_object:
        raise ToolArgumentsError("the arguments are JSON but not an object")
    raise ToolArgumentsError("no JSON object found in the arguments")


# --------------------------------------------------------------------------- tool names

RENAME_REPAIR = "tool_name"
"""Repair name: the written tool name was matched to a differently spelled bound name."""


def name_key(name: str) -> str:
    """``name`` folded for matching: case-insensitive, without ``_ - .`` and spaces."""
    return name.strip().casefold().translate(_NAME_SEPARATORS)


def _tail(name: str) -> str:
    """The last namespaced component of ``name`` (``functions.get_weather`` gives
    ``get_weather``), or ``""`` when it has no namespace."""
    cut = max(name.rfind(sep) for sep in _NAMESPACE_SEPARATORS)
    return name[cut + 1 :] if 0 <= cut < len(name) - 1 else ""


class ToolNameMatcher:
    """Match written tool names to the names of the bound tools (see the module docs)."""

    def __init__(self, names: Iterable[str]) -> None:
        self.names: tuple[str, ...] = tuple(dict.fromkeys(n for n in names if n))
        self._exact = frozenset(self.names)
        folded: dict[str, str | None] = {}
        for name in self.names:
            key = name_key(name)
            if not key:
                continue
            folded[key] = name if folded.get(key, name) == name else None  # None: ambiguous
        self._folded = folded

    def __bool__(self) -> bool:
        return bool(self.names)

    def match(self, name: str) -> str | None:
        """The bound name ``name`` stands for, or ``None``."""
        if name in self._exact:
            return name
        if not name:
            return None
        found = self._folded.get(name_key(name))
        if found is not None:
            return found
        tail = _tail(name.strip())
        if tail:
            if tail in self._exact:
                return tail
            return self._folded.get(name_key(tail))
        return None

    def may_grow_into_match(self, name: str) -> bool:
        """True when ``name`` is empty or a prefix of a bound name (folded): while a stream is
        still delivering the name it is not yet unknown."""
        key = name_key(name)
        return not key or any(k.startswith(key) for k in self._folded)


@functools.lru_cache(maxsize=256)
def tool_name_matcher(names: tuple[str, ...]) -> ToolNameMatcher:
    """A shared `ToolNameMatcher` for ``names`` (parsers are rebuilt often in chains)."""
    return ToolNameMatcher(names)
