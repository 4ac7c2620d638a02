"""Decode the JSON value of a model's output: STUB (json.loads only) until the engine lands."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from langchain_robust_parsers.engine.errors import JsonEngineError
from langchain_robust_parsers.engine.report import ParseReport


def iter_candidates(text: str, *, allow_truncated: bool = True) -> Iterator[tuple[Any, ParseReport]]:
    """Every decodable payload of ``text`` with its report, best first (DESIGN.md's total order)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return
    yield value, ParseReport(source="whole", start=0, end=len(text))


def decode(text: str, *, allow_truncated: bool = True) -> tuple[Any, ParseReport]:
    """The best payload of ``text``; raises :class:`JsonEngineError` when there is none."""
    for value, report in iter_candidates(text, allow_truncated=allow_truncated):
        return value, report
    raise JsonEngineError("no JSON value found in the text")
