"""Counts of parse outcomes per format, shared by parsers, threads and worker processes."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any, Literal

Outcome = Literal["success", "recovered", "fallback", "failed"]
OUTCOMES: tuple[Outcome, ...] = ("success", "recovered", "fallback", "failed")


class ParseStats:
    """Thread-safe counters keyed by ``(format, outcome)``.

    ``success`` is a clean parse, ``recovered`` needed locating or repair, ``fallback`` returned a
    degraded value (plain text, a null action, a wrapped dialog turn), ``failed`` raised.
    Instances pickle and deep-copy (the lock is recreated), and counts from worker processes
    combine with :meth:`merge`.
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
        """The counts as a text table of percentages per format (the seed-000 metrics table)."""
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
