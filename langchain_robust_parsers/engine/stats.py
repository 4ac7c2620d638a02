"""Counts of parse outcomes per format, shared by parsers, threads and worker processes."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Mapping
from typing import Any, Literal

Outcome = Literal["success", "recovered", "fallback", "failed"]
OUTCOMES: tuple[Outcome, ...] = ("success", "recovered", "fallback", "failed")

# The format names outcomes are counted under: one table for the library and the command line.
JSON = "json"
PYDANTIC = "pydantic"
TOOLS = "tools"
FUNCTION_CALLS = "function_calls"
DIALOG = "dialog"
REACT = "react"
XML = "xml"
YAML = "yaml"
LIST = "list"
ENUM = "enum"
BOOLEAN = "bool"
DATETIME = "datetime"
STRUCTURED = "structured"
FUNCTIONS = "functions"
ACTION_FORMATS: tuple[str, ...] = ("json", "markdown_json", "ui_tars", "text")
"""The action parser counts each answer under the format it detected (UI-TARS output, JSON,
fenced JSON, prose), so its ``json`` row is shared with the JSON parser's in one ``ParseStats``."""

FORMAT_NAMES: dict[str, tuple[str, ...]] = {
    "RobustJsonOutputParser": (JSON,),
    "RobustPydanticOutputParser": (PYDANTIC,),
    "RobustDictOutputParser": (PYDANTIC,),
    "RobustJsonOutputToolsParser": (TOOLS,),
    "RobustJsonOutputKeyToolsParser": (TOOLS,),
    "RobustPydanticToolsParser": (TOOLS,),
    "FunctionCallOutputParser": (FUNCTION_CALLS,),
    "TextToolCallingChatModel": (FUNCTION_CALLS,),
    "DialogOutputParser": (DIALOG,),
    "ReActOutputParser": (REACT,),
    "ActionOutputParser": ACTION_FORMATS,
    "RobustXMLOutputParser": (XML,),
    "RobustYamlOutputParser": (YAML,),
    "RobustCommaSeparatedListOutputParser": (LIST,),
    "RobustNumberedListOutputParser": (LIST,),
    "RobustMarkdownListOutputParser": (LIST,),
    "RobustEnumOutputParser": (ENUM,),
    "ChoicesParser": (ENUM,),
    "RobustBooleanOutputParser": (BOOLEAN,),
    "RobustDatetimeOutputParser": (DATETIME,),
    "RobustStructuredOutputParser": (STRUCTURED,),
    "RobustJsonOutputFunctionsParser": (FUNCTIONS,),
    "RobustPydanticOutputFunctionsParser": (FUNCTIONS,),
    "RobustJsonKeyOutputFunctionsParser": (FUNCTIONS,),
}
"""The format names each class counts its outcomes under in `ParseStats` (and the
command line prints), by class name."""


class ParseStats:
    """Thread-safe counters keyed by ``(format, outcome)``.

    ``success`` is a clean parse, ``recovered`` needed locating or repair, ``fallback`` returned a
    degraded value (plain text, a null action, a wrapped dialog turn), ``failed`` raised.
    Instances pickle and deep-copy (the lock is recreated), and counts from worker processes
    combine with `merge`.
    """

    def __init__(self, counts: dict[tuple[str, str], int] | None = None) -> None:
        self._lock = threading.Lock()
        self._counts: Counter[tuple[str, str]] = Counter(counts or {})

    def record(self, format: str, outcome: Outcome) -> None:
        """Count one parse of ``format`` that ended in ``outcome``."""
        if outcome not in OUTCOMES:
            raise ValueError(f"unknown outcome {outcome!r}; expected one of {OUTCOMES}")
        with self._lock:
            self._counts[(format, outcome)] += 1

    def snapshot(self) -> dict[str, dict[str, int]]:
        """A copy of the counts as ``{format: {outcome: n}}`` with every outcome present."""
        with self._lock:
            items = list(self._counts.items())
        out: dict[str, dict[str, int]] = {}
        for (fmt, outcome), n in sorted(items):
            out.setdefault(fmt, dict.fromkeys(OUTCOMES, 0))[outcome] = n
        return out

    def to_dict(self) -> dict[str, dict[str, int]]:
        """The counts as plain JSON data, ``{format: {outcome: n}}`` with every outcome present
        (`snapshot`); `from_dict` reads it back."""
        return self.snapshot()

    @classmethod
    def from_dict(cls, data: Mapping[str, Mapping[str, int]]) -> ParseStats:
        """The stats `to_dict` gave (say, read back from a JSON file). Raises
        ``ValueError`` for an unknown outcome or a count that is not a whole number >= 0."""
        counts: dict[tuple[str, str], int] = {}
        for fmt, outcomes in data.items():
            for outcome, n in outcomes.items():
                if outcome not in OUTCOMES:
                    raise ValueError(f"unknown outcome {outcome!r}; expected one of {OUTCOMES}")
                if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                    raise ValueError(f"count of {fmt}/{outcome} is not a whole number: {n!r}")
                if n:
                    counts[(str(fmt), outcome)] = n
        return cls(counts)

    def merge(self, other: ParseStats) -> ParseStats:
        """Add the counts of ``other`` (say, from a worker process) into this one; returns self."""
        if other is self:
            raise ValueError("cannot merge a ParseStats into itself")
        with other._lock:
            theirs = Counter(other._counts)
        with self._lock:
            self._counts.update(theirs)
        return self

    def total(self) -> int:
        """The number of parses recorded."""
        with self._lock:
            return sum(self._counts.values())

    def table(self) -> str:
        """The counts as a text table of percentages per format."""
        snap = self.snapshot()
        header = ["Format", "Success", "Recovered", "Fallback", "Failed", "Total"]
        rows = [header]
        for fmt, counts in snap.items():
            n = sum(counts.values())
            rows.append(
                [fmt] + [f"{100.0 * counts[o] / n:.1f}%" if n else "-" for o in OUTCOMES] + [str(n)]
            )
        widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
        lines = []
        for idx, row in enumerate(rows):
            cells = [row[0].ljust(widths[0])] + [
                c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
            ]
            lines.append(" | ".join(cells))
            if idx == 0:
                lines.append("-+-".join("-" * w for w in widths))
        return "\n".join(lines)

    def __getstate__(self) -> dict[str, Any]:
        with self._lock:
            return {"counts": dict(self._counts)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._lock = threading.Lock()
        self._counts = Counter(state["counts"])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ParseStats):
            return NotImplemented
        return self.snapshot() == other.snapshot()

    __hash__ = None  # type: ignore[assignment]  # mutable: equal by counts, not hashable

    def __repr__(self) -> str:
        return f"ParseStats({self.snapshot()!r})"
