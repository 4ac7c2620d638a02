"""Tags and the space before them: how every reader finds what an answer opens with."""

from __future__ import annotations

import functools
import re

__all__ = ["LAYOUT_SPACE", "closing_tag", "skip_chars", "skip_space"]

LAYOUT_SPACE = " \t\r\n"
"""The blanks models put between tags, names and values (the space of a markup layout)."""


def skip_chars(text: str, pos: int, stop: int, chars: str = LAYOUT_SPACE) -> int:
    """The first position at or after ``pos`` (before ``stop``) whose character is not in
    ``chars``: past the blanks, or the separators, between the parts of a call."""
    while pos < stop and text[pos] in chars:
        pos += 1
    return pos


def skip_space(text: str, pos: int, stop: int = -1) -> int:
    """The first position at or after ``pos`` (before ``stop``, the end of the text when
    negative) that is not whitespace: where every reader looks for what an answer opens with."""
    end = len(text) if stop < 0 else stop
    while pos < end and text[pos].isspace():
        pos += 1
    return pos


@functools.lru_cache(maxsize=64)
def closing_tag(name: str) -> re.Pattern[str]:
    """The closing tag of ``<name>`` in any case, spaces allowed before its ``>``."""
    return re.compile(r"</" + re.escape(name) + r"\s*>", re.I)
