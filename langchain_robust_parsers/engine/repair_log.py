"""The collector the decoders write repairs into while they work on one candidate."""

from __future__ import annotations

from collections.abc import Iterable

from langchain_robust_parsers.engine.report import Repair

MAX_RECORDED_REPAIRS = 256
"""Repairs kept with their positions; beyond this only the count grows, so a megabyte of broken
text cannot make the report itself the largest object in memory."""


class RepairLog:
    """Named repairs in the order they fired, plus whether the payload was cut off."""

    __slots__ = ("count", "repairs", "truncated")

    def __init__(self) -> None:
        self.repairs: list[Repair] = []
        self.count = 0
        self.truncated = False

    def add(self, name: str, pos: int) -> None:
        self.count += 1
        if len(self.repairs) < MAX_RECORDED_REPAIRS:
            self.repairs.append(Repair(name, pos))

    @property
    def repair_names(self) -> list[str]:
        """The names of the repairs recorded, in order."""
        return [r.name for r in self.repairs]

    def add_many(self, names: Iterable[str], positions: Iterable[int]) -> None:
        """`add` for each name and position in turn (pairs up to the shorter one); one
        call for a bulk rewrite's list instead of one per repair."""
        made = list(map(Repair, names, positions))
        self.count += len(made)
        self.repairs.extend(made[: MAX_RECORDED_REPAIRS - len(self.repairs)])

    def extend(self, other: RepairLog) -> None:
        # Repairs are immutable: the other log's records are shared, not rebuilt.
        self.repairs.extend(other.repairs[: MAX_RECORDED_REPAIRS - len(self.repairs)])
        self.count += other.count
        self.truncated = self.truncated or other.truncated
