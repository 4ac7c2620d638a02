"""Markdown code fences, as models write them around a payload."""

from __future__ import annotations

import re

__all__ = ["FENCE_OPEN"]

FENCE_OPEN = re.compile(r"(`{3,}|~{3,})[ \t]*([A-Za-z][\w+.\-]*)?[^\S\n]*\n?")
"""A code fence opening: the fence run (group 1) and its language tag (group 2)."""
