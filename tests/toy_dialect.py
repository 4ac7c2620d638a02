"""A toy tool-call dialect, defined only by its record and its reader: what a new dialect
needs. Imported by ``test_dialect_registry`` and by the interpreter it starts to register the
dialect before the decoders load (this module imports none of them)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langchain_robust_parsers.engine.calls.call_writers import TOOLS_PLACEHOLDER, CallWriter
from langchain_robust_parsers.engine.calls.dialect_registry import DialectRecord, Marker
from langchain_robust_parsers.engine.calls.parsed_call import ParsedCall
from langchain_robust_parsers.engine.repair_log import RepairLog


def toy_reader(text: str, a: int, b: int, log: RepairLog, closed: bool) -> list[ParsedCall]:
    """A toy dialect's body: ``name key=value key=value`` (values JSON, else text)."""
    name, *pairs = text[a:b].split()
    args: dict[str, Any] = {}
    for pair in pairs:
        key, _, raw = pair.partition("=")
        try:
            args[key] = json.loads(raw)
        except ValueError:
            args[key] = raw
    return [ParsedCall(name, args)]


def _toy_calls(calls: Sequence[tuple[str, Any]]) -> str:
    return "\n".join(
        "<<call "
        + name
        + "".join(f" {k}={json.dumps(v, ensure_ascii=False)}" for k, v in args.items())
        + ">>"
        for name, args in calls
    )


TOY_WRITER = CallWriter(
    "toy",
    "Write each call as <<call name key=value>>.",
    "Tools:\n" + TOOLS_PLACEHOLDER + "\nWrite each call as <<call name key=value>>.",
    _toy_calls,
    lambda results: "\n".join(f"<<result {text}>>" for _name, text in results),
)
TOY = DialectRecord(
    "toy",
    (Marker("toy", "<<call ", (">>",)),),
    toy_reader,
    "a test's own dialect",
    "<<call get_weather city=Oslo days=2>>",
    writers=(TOY_WRITER,),
)
