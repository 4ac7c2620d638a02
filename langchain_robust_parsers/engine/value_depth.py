"""How deep a value read from model text may nest: the one bound the readers that build values
(the JSON parsers on every route, the tool-call decoder on both its routes, the XML
and YAML readers) share, so that a payload one of them reads is not refused by another.

Depth counts containers (``[[1]]`` is 2); the XML reader's dicts take two levels an element
(``{"a": [...]}``), so it reads elements half as deep."""

from __future__ import annotations

__all__ = ["MAX_VALUE_DEPTH"]

MAX_VALUE_DEPTH = 256
"""Deepest nesting a reader builds. ``copy.deepcopy`` and ``pickle`` spend about two Python
frames a level, so a 500-deep value already fails them at the top of a script under CPython's
default recursion limit (1000); 256 leaves room for the caller's own stack (LangChain
runnables, tracing, test runners). Model answers nest a few levels, rarely twenty. The JSON
parsers' repairs and lenient reads refuse a value nested deeper as a whole (never an inner
fragment of it); valid JSON the C decoder reads whole is returned as ``json.loads`` and
LangChain's parsers return it, so that a drop-in never refuses what they accept. A tool call's
arguments are bounded on every route (`calls.json_depth`): an agent should not run a call
whose arguments it cannot copy."""
