"""Reasoning blocks: the tags models write their thinking in, which is never the answer."""

from __future__ import annotations

import re

__all__ = ["THINK_CLOSE", "THINK_NAMES", "THINK_OPEN", "THINK_OPEN_UNFINISHED", "THINK_TAG"]

THINK_NAMES = ("think", "thinking", "reasoning", "seed:think")
"""Tag names of reasoning blocks (``<seed:think>``: Seed-OSS)."""

# Case-insensitive by character classes rather than re.I: a pattern that starts with a literal
# `<` lets the regex engine skip ahead with a fast search, which re.I would turn off.
_THINK_NAME = (
    r"(?:(?:[Ss][Ee][Ee][Dd]:)?[Tt][Hh][Ii][Nn][Kk](?:[Ii][Nn][Gg])?"
    r"|[Rr][Ee][Aa][Ss][Oo][Nn][Ii][Nn][Gg])"
)
THINK_OPEN = re.compile(r"<" + _THINK_NAME + r"\b[^>]*>")
"""The opening tag of a reasoning block, any case."""
THINK_CLOSE = re.compile(r"</" + _THINK_NAME + r"\s*>")
"""The closing tag of a reasoning block, any case."""
THINK_TAG = re.compile(r"</?" + _THINK_NAME)
"""The start of any reasoning tag, opening or closing: one scan tells that an answer holds none
(it matches wherever :data:`THINK_OPEN` or :data:`THINK_CLOSE` does)."""
THINK_OPEN_UNFINISHED = re.compile(r"<" + _THINK_NAME + r"\b[^>]*\Z")
"""An opening reasoning tag cut off at the end of the text so far (streaming)."""
