"""What a tool's name, as a model writes it in a call, may look like: the one pattern every call
reader (JSON keys, markup tags, Mistral's and GLM's name-first forms, ReAct's call wrapper)
matches a name with, so that a name one dialect reads is read by all of them.

A Python call's callee is Python syntax (an identifier, dotted), read from the AST; it is
`PYTHON_CALLEE`.
"""

from __future__ import annotations

import re

__all__ = ["PYTHON_CALLEE", "PYTHON_CALLEE_PATTERN", "TOOL_NAME", "TOOL_NAME_PATTERN"]

TOOL_NAME_PATTERN = r"[^\W\d][\w.\-]*"
"""A tool name: a letter of any script or ``_``, then word characters, ``.`` or ``-``
(``get_weather``, ``weather.get``, ``get-weather``, ``天气查询``). Servers accept the names of
OpenAI's function schema (``^[a-zA-Z0-9_-]+$``) and more; models also write namespaced
(``functions.get_weather``) and non-Latin names. The text of a pattern, for readers that build a
larger pattern around it."""

TOOL_NAME = re.compile(TOOL_NAME_PATTERN)
"""`TOOL_NAME_PATTERN`, compiled."""

PYTHON_CALLEE_PATTERN = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"
"""A Python call's callee as the call readers look for one in text: an identifier, possibly
dotted (``search``, ``math.sqrt``)."""

PYTHON_CALLEE = re.compile(PYTHON_CALLEE_PATTERN)
"""`PYTHON_CALLEE_PATTERN`, compiled."""
