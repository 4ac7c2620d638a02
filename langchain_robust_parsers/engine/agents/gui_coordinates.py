"""Where a GUI agent's coordinates point: the coordinate forms models write and the spaces they
write them in, mapped to pixels of the window.

Coordinates come as ``<point>x y</point>``, ``<bbox>x1 y1 x2 y2</bbox>``,
``<|box_start|>(x,y)<|box_end|>``, ``(x,y)``, ``[x1,y1,x2,y2]`` (a box: its centre) or a bare
tuple, in a relative space (0-1000 by default), in the pixels of the image the model saw, or as
fractions; `CoordinateSpace` maps them to the window. Nothing here imports LangChain.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

__all__ = [
    "DEFAULT_COORDINATE_SCALE",
    "MAX_COORDINATE_NUMBERS",
    "MAX_NUMBER_DIGITS",
    "NUMBER",
    "CoordinateSpace",
    "read_coordinates",
]

DEFAULT_COORDINATE_SCALE = 1000.0
"""UI-TARS writes coordinates relative to the screenshot, from 0 to 1000 on each axis."""

MAX_COORDINATE_NUMBERS = 4
"""A point is 2 numbers and a box 4; a value with more numbers is not a coordinate."""

MAX_PREVIEW = 60
"""Characters of an unreadable value quoted in a warning."""

NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
"""A coordinate number as models write it."""


def _preview(value: object) -> str:
    text = repr(value)
    return text if len(text) <= MAX_PREVIEW else text[: MAX_PREVIEW - 3] + "..."


@dataclass(frozen=True)
class CoordinateSpace:
    """How the model's coordinates map to pixels of the window.

    ``window`` is the window's ``(width, height)`` in pixels; without it coordinates are kept in
    the model's space (with a warning). The model's space is ``image_size`` (the pixels of the
    screenshot it saw, for models that answer in absolute pixels) or, by default, ``scale`` units
    per axis (UI-TARS: 0-1000). Decimal values all within [0, 1] are read as fractions.
    """

    window: tuple[int, int] | None = None
    scale: float = DEFAULT_COORDINATE_SCALE
    image_size: tuple[int, int] | None = None

    def extent(self) -> tuple[float, float]:
        """The size of the model's space on each axis."""
        if self.image_size is not None:
            return float(self.image_size[0]), float(self.image_size[1])
        return self.scale, self.scale


MAX_NUMBER_DIGITS = 12
"""Digits in one coordinate number: screens and relative spaces need a handful, and a longer run
of digits is not a coordinate (nor convertible: Python refuses ints of more than 4300 digits)."""


def _number(token: str) -> float | None:
    """One coordinate number; ``None`` for a run of digits too long to be one."""
    if len(token) > MAX_NUMBER_DIGITS:
        return None
    return float(token)


def _numbers(value: Any) -> tuple[list[float], bool] | None:
    """The numbers of a coordinate value, and whether all were written as decimals: from a list
    of numbers, or from the numbers written in a string (``"<point>10 20</point>"``,
    ``"<|box_start|>(1,2)<|box_end|>"``, ``"[1, 2, 3, 4]"``). ``None`` when it holds none."""
    found: list[float] = []
    decimal = True
    if isinstance(value, (list, tuple)):
        flat: list[Any] = []
        for item in value:
            flat.extend(item if isinstance(item, (list, tuple)) else [item])
        for item in flat[: MAX_COORDINATE_NUMBERS + 1]:
            if isinstance(item, bool) or not isinstance(item, (int, float)):
                return None
            number = _number(str(item)) if isinstance(item, int) else item
            if number is None or not math.isfinite(number):
                return None
            found.append(float(number))
            decimal = decimal and isinstance(item, float)
        return found, decimal
    if not isinstance(value, str):
        return None
    for m in NUMBER.finditer(value):
        if len(found) > MAX_COORDINATE_NUMBERS:
            return None
        number = _number(m.group())
        if number is None:
            return None
        found.append(number)
        decimal = decimal and "." in m.group()
    return found, decimal


def read_coordinates(
    value: Any, space: CoordinateSpace
) -> tuple[tuple[int, int] | None, list[str]]:
    """The window pixel ``(x, y)`` of a point or box written by the model, and warnings.

    A box ``[x1, y1, x2, y2]`` gives its centre. Returns ``(None, [why])`` when the value holds
    neither a point nor a box.
    """
    read = _numbers(value)
    if read is None or len(read[0]) not in (2, MAX_COORDINATE_NUMBERS):
        return None, [f"could not read coordinates from {_preview(value)}"]
    numbers, decimal = read
    if len(numbers) == MAX_COORDINATE_NUMBERS:
        x = (numbers[0] + numbers[2]) / 2
        y = (numbers[1] + numbers[3]) / 2
    else:
        x, y = numbers[0], numbers[1]
    fractions = decimal and all(0.0 <= n <= 1.0 for n in numbers)
    ext_w, ext_h = (1.0, 1.0) if fractions else space.extent()
    warnings: list[str] = []
    if not (0 <= x <= ext_w and 0 <= y <= ext_h):
        warnings.append(f"coordinates {_preview(value)} lie outside the model's space")
    if space.window is None:
        if fractions:
            x, y = x * space.extent()[0], y * space.extent()[1]
        warnings.append("no window size given: coordinates are in the model's space")
        return (round(x), round(y)), warnings
    width, height = space.window
    px = _clamp(round(x / ext_w * width), width)
    py = _clamp(round(y / ext_h * height), height)
    return (px, py), warnings


def _clamp(value: int, size: int) -> int:
    return max(0, min(value, max(size - 1, 0)))
