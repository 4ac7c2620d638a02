"""``robust-parsers demo``: bundled messy model outputs through every parser, offline.

The samples are package data (``demo_samples.jsonl``: ``format``, ``label``, ``text`` per line).
Samples of a format whose parser is not in this installation are left out and named at the end.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from typing import Any, TextIO

import pydantic

from langchain_robust_parsers.cli.formats import FormatEntry, registry
from langchain_robust_parsers.cli.runner import (
    FormatRunner,
    LineResult,
    parse_outcome,
    to_jsonable,
)
from langchain_robust_parsers.engine.stats import ParseStats

__all__ = ["DemoSample", "load_samples", "run_demo"]

SAMPLES_FILE = "demo_samples.jsonl"
"""The bundled samples, next to this module in the package."""

DEMO_WIDTH = 110
"""Inputs and values longer than this are cut with an ellipsis, so each fits on a line of a
common terminal; the point is the shape of the result, not every character."""


@dataclass(frozen=True)
class DemoSample:
    """One bundled model output: the format spec to parse it with, a label and the text."""

    format: str
    label: str
    text: str


def load_samples() -> list[DemoSample]:
    """The bundled samples, in file order."""
    text = resources.files(__package__).joinpath(SAMPLES_FILE).read_text(encoding="utf-8")
    return [DemoSample(**json.loads(line)) for line in text.splitlines() if line.strip()]


def _clip(text: str) -> str:
    return text if len(text) <= DEMO_WIDTH else text[: DEMO_WIDTH - 1] + "…"


def _repair_summary(repairs: tuple[str, ...]) -> str:
    """Repair names in the order they first fired, with a count when one fired repeatedly."""
    counts: dict[str, int] = {}
    for repair in repairs:
        name = repair.rpartition("@")[0] or repair
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(name if n == 1 else f"{name} x{n}" for name, n in counts.items())


def _describe(result: LineResult) -> str:
    if not result.ok:
        return f"{result.outcome}: {result.error}"
    details = _repair_summary(result.repairs)
    return f"{result.outcome}: {details}" if details else result.outcome


def _display_value(value: Any) -> Any:
    """The value as shown: models' unset (``None``) fields are left out to keep it short."""
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(mode="json", exclude_none=True)
    if isinstance(value, (list, tuple)) and any(isinstance(v, pydantic.BaseModel) for v in value):
        return [_display_value(v) for v in value]
    return to_jsonable(value)


def _show(out: TextIO, sample: DemoSample, result: LineResult) -> None:
    out.write(f"  {sample.label}\n")
    out.write(f"    in   {_clip(repr(sample.text))}\n")
    if result.ok:
        value = json.dumps(to_jsonable(_display_value(result.value)), ensure_ascii=False)
        out.write(f"    out  {_clip(value)}\n")
    out.write(f"         {_clip(_describe(result))}\n")


def _entry_of(spec: str, entries: tuple[FormatEntry, ...]) -> FormatEntry | None:
    name = spec.partition(":")[0]
    return next((e for e in entries if e.name == name), None)


def run_demo(out: TextIO, entries: Iterable[FormatEntry] | None = None) -> ParseStats:
    """Print every available format's samples, parsed, and the outcome table; the counts."""
    known = registry(entries)
    stats = ParseStats()
    samples = load_samples()
    missing: list[str] = []
    for entry in known:
        mine = [s for s in samples if _entry_of(s.format, known) is entry]
        if not mine:
            continue
        if entry.load_class() is None:
            missing.append(entry.name)
            continue
        runners: dict[str, FormatRunner] = {}
        out.write(f"\n== {entry.name}: {entry.class_name} ({entry.summary})\n")
        for sample in mine:
            if sample.format not in runners and sample.format != entry.name:
                out.write(f"   --format {sample.format}\n")
            runner = runners.setdefault(sample.format, FormatRunner(sample.format, known))
            result = runner.parse(sample.text)
            counted = parse_outcome(result.outcome)
            if counted is not None:
                stats.record(result.format or entry.stats_format, counted)
            _show(out, sample, result)
    unknown = sorted({s.format.partition(":")[0] for s in samples} - {e.name for e in known})
    missing.extend(unknown)
    out.write("\nOutcomes per format (ParseStats.table()):\n\n")
    out.write(stats.table() + "\n")
    if missing:
        out.write(f"\nNot in this version, so not shown: {', '.join(missing)}.\n")
    return stats
