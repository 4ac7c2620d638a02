"""JSON numbers as the model wrote them, for the fields that want text.

A model answering ``{"zip_code": 12345, "version": 1.10}`` for two ``str`` fields meant the
strings ``"12345"`` and ``"1.10"``; decoding made them ``12345`` and ``1.1``, and ``str(1.1)`` is
not what was written. When a value must be coerced, `with_number_literals` reads its
payload again, keeping each fraction's text in a `NumberLiteral` (a ``float`` that knows
its spelling), so that coercion can give a ``str`` field the literal; `plain_numbers`
turns the literals left elsewhere back into plain floats before the value is handed out.

Only a payload that is strict JSON as written can be read again this way; a repaired one keeps
its decoded numbers (an integer's text is its decimal form anyway).
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["NumberLiteral", "number_text", "plain_numbers", "with_number_literals"]

MAX_REREAD_CHARS = 1_000_000
"""Longest payload read a second time for its number literals (a second C-speed decode)."""

MAX_LITERAL_DEPTH = 100
"""Deepest value read again: schemas nest a few levels, and `plain_numbers` recurses."""


class NumberLiteral(float):
    """A decoded JSON fraction that keeps the text it was written as (``1.10``)."""

    __slots__ = ("text",)

    text: str

    def __new__(cls, text: str) -> NumberLiteral:
        number = super().__new__(cls, text)
        number.text = text
        return number


def number_text(value: int | float) -> str:
    """The text of a decoded JSON number: its literal when known, else its decimal form."""
    if isinstance(value, NumberLiteral):
        return value.text
    return str(value)


def with_number_literals(value: Any, payload: str) -> Any:
    """``value`` with every fraction a `NumberLiteral` spelt as in ``payload`` (the text
    it was decoded from); ``value`` itself when the spellings cannot be known for sure.

    Strict JSON is read again by the C decoder. A payload the engine repaired is scanned for
    its fraction literals outside strings, which are given to the value's fractions in document
    order only when they match one for one, each equal to the number it spells."""
    if len(payload) > MAX_REREAD_CHARS or not _shallow_with_fraction(value):
        return value
    try:
        again = json.loads(payload, parse_float=NumberLiteral)
    except (ValueError, RecursionError):
        return _matched_literals(value, [m.group() for m in _FRACTION_OR_STRING.finditer(payload)])
    return again if again == value else value


_FRACTION_OR_STRING = re.compile(
    r'"(?:[^"\\\n]|\\.)*"'
    r"|'(?:[^'\\\n]|\\.)*'"
    r"|(?<![\w.])-?(?:\d+\.\d+(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+)(?![\w.])"
)
"""A quoted string (skipped) or a fraction literal standing alone (``1.10``, ``2e3``)."""


def _matched_literals(value: Any, tokens: list[str]) -> Any:
    """``value`` with its fractions, in document order, spelt as the fraction ``tokens`` (the
    strings among them skipped); ``value`` itself unless they match one for one."""
    literals = [t for t in tokens if t[0] not in "\"'"]
    position = iter(literals)

    def spell(item: Any) -> Any:
        if isinstance(item, float):
            text = next(position, None)
            if text is None or float(text) != item:
                raise _Mismatch
            return NumberLiteral(text)
        if isinstance(item, dict):
            return {k: spell(v) for k, v in item.items()}
        if isinstance(item, list):
            return [spell(v) for v in item]
        return item

    try:
        spelt = spell(value)
    except _Mismatch:
        return value
    return value if next(position, None) is not None else spelt


class _Mismatch(Exception):
    """The literals found do not spell the value's fractions one for one."""


def _shallow_with_fraction(value: Any) -> bool:
    """True when ``value`` holds a ``float`` and nests at most `MAX_LITERAL_DEPTH` levels
    (walked iteratively: decoded values can be deep)."""
    found = False
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_LITERAL_DEPTH:
            return False
        if isinstance(item, float):
            found = True
        elif isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return found


def plain_numbers(value: Any) -> Any:
    """``value`` with every `NumberLiteral` a plain ``float``; containers that hold none
    are returned as they are (the same objects)."""
    if isinstance(value, NumberLiteral):
        return float(value)
    if isinstance(value, dict):
        items = {k: plain_numbers(v) for k, v in value.items()}
        same = all(items[k] is v for k, v in value.items())
        return value if same else items
    if isinstance(value, list):
        out = [plain_numbers(v) for v in value]
        return value if all(a is b for a, b in zip(out, value, strict=True)) else out
    return value
