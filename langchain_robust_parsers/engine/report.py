"""What the engine located and repaired while decoding one text.

The engine never prints or logs; it hands a :class:`ParseReport` back with the value so that a
parser can attach it to a callback event, count it in :class:`ParseStats`, or show it to a user.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Source = Literal["whole", "fenced", "tagged", "span"]
"""Where the payload was found: the whole text, a fenced block, an XML-style tag, or a bracketed
span inside prose. Candidates are ranked in this order."""

SOURCE_RANK: dict[str, int] = {"fenced": 0, "tagged": 1, "whole": 2, "span": 3}


@dataclass(frozen=True)
class Repair:
    """One named repair rule applied at ``pos``, an offset into the original input text;
    ``path`` is the JSON pointer of the member or item it changed (``/items/1/price``; ``""``
    for the root or outside the payload)."""

    name: str
    pos: int
    path: str = ""

    def __str__(self) -> str:
        return f"{self.name}@{self.pos}"


@dataclass(frozen=True)
class ParseReport:
    """What was located and repaired to obtain a value.

    ``start``/``end`` delimit the payload in the original input; ``repairs`` lists the rules
    applied in the order they fired; ``truncated`` says the payload was cut off and completed;
    ``dropped_values`` holds the offsets of further top-level values (NDJSON, several fenced
    blocks) that were not returned.
    """

    source: Source = "whole"
    start: int = 0
    end: int = 0
    repairs: tuple[Repair, ...] = field(default_factory=tuple)
    truncated: bool = False
    dropped_values: tuple[int, ...] = ()

    @property
    def repaired(self) -> bool:
        """True when anything beyond a strict decode of the located payload was needed."""
        return bool(self.repairs) or self.truncated

    @property
    def repair_names(self) -> tuple[str, ...]:
        """The names of the rules that fired, in order, with repeats."""
        return tuple(r.name for r in self.repairs)

    @property
    def cost(self) -> int:
        """How much had to be changed: the ranking key among candidates of one source."""
        return len(self.repairs) + (1 if self.truncated else 0)

    @property
    def outcome(self) -> Literal["success", "recovered"]:
        """``success`` for a clean payload taken as a whole, else ``recovered``."""
        clean = self.source == "whole" and not self.repaired and not self.dropped_values
        return "success" if clean else "recovered"

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready summary, as emitted in the ``parse_report`` callback event."""
        return {
            "source": self.source,
            "start": self.start,
            "end": self.end,
            "repairs": [{"name": r.name, "pos": r.pos, "path": r.path} for r in self.repairs],
            "truncated": self.truncated,
            "dropped_values": list(self.dropped_values),
            "outcome": self.outcome,
        }
