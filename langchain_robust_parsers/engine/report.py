"""What the engine located and repaired while decoding one text.

The engine never prints or logs; it hands a `ParseReport` back with the value so that a
parser can attach it to a callback event, count it in `ParseStats`, or show it to a user.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

Source = Literal["whole", "fenced", "tagged", "span", "labels"]
"""Where the payload was found: the whole text, a fenced block, an XML-style tag, or a bracketed
span inside prose (candidates are ranked in this order); ``labels``: no JSON at all, the value
was read from ``label: value`` lines against the schema (outcome ``fallback``)."""

Truncation = Literal["text", "stop_reason", "both"]
"""How a cut-off answer was recognised: from the text (an unclosed payload the engine completed),
from the provider's stop reason (``finish_reason="length"`` and its kin), or both."""


def merge_truncation(text_cut: bool, stop_reason_cut: bool) -> Truncation | None:
    """The `Truncation` for what the text and the stop reason each say (``None``: neither)."""
    if text_cut and stop_reason_cut:
        return "both"
    if text_cut:
        return "text"
    return "stop_reason" if stop_reason_cut else None


def with_stop_reason(report: ParseReport, stop_reason: str | None) -> ParseReport:
    """``report`` with the provider's cut (``stop_reason`` not ``None``) added to ``truncated``."""
    if stop_reason is None:
        return report
    return replace(report, truncated=merge_truncation(bool(report.truncated), stop_reason_cut=True))


@dataclass(frozen=True)
class Repair:
    """One named repair rule applied at ``pos``, an offset into the original input text;
    ``path`` is the JSON pointer of the member or item it changed (``/items/1/price``; ``""``
    for the root or outside the payload)."""

    name: str
    pos: int
    path: str = ""

    def __init__(self, name: str, pos: int, path: str = "") -> None:
        # The frozen dataclass's generated __init__ calls object.__setattr__ per field, twice
        # this cost; a bulk repair records 64 of these per document, and that was a tenth of
        # its time. Writing the instance dict directly is what that call does.
        fields = self.__dict__
        fields["name"] = name
        fields["pos"] = pos
        fields["path"] = path

    def __str__(self) -> str:
        return f"{self.name}@{self.pos}"


@dataclass(frozen=True)
class ParseReport:
    """What was located and repaired to obtain a value.

    ``start``/``end`` delimit the payload in the original input; ``repairs`` lists the rules
    applied in the order they fired; ``truncated`` says whether and how the answer was cut off:
    ``"text"`` (the payload was unclosed and completed), ``"stop_reason"`` (the provider said the
    model hit its token limit) or ``"both"``; ``None`` when it was not. It is truthy exactly when
    the answer was cut, so ``if report.truncated:`` reads as before. A ``bool`` given for it (the
    engine's own flag, or code written before the distinction) means ``"text"`` / ``None``.
    ``dropped_values`` holds the offsets of further top-level values (NDJSON, several fenced
    blocks) that were not returned; ``dropped`` the JSON paths of items left out by
    ``drop_invalid_items``.
    """

    source: Source = "whole"
    start: int = 0
    end: int = 0
    repairs: tuple[Repair, ...] = field(default_factory=tuple)
    truncated: Truncation | bool | None = None
    dropped_values: tuple[int, ...] = ()
    dropped: tuple[str, ...] = ()
    """JSON paths (``$.items[3]``) of the values left out to obtain a valid value
    (``drop_invalid_items``)."""

    def __init__(
        self,
        source: Source = "whole",
        start: int = 0,
        end: int = 0,
        repairs: tuple[Repair, ...] = (),
        truncated: Truncation | bool | None = None,
        dropped_values: tuple[int, ...] = (),
        dropped: tuple[str, ...] = (),
    ) -> None:
        # Written to the instance dict directly, as `Repair` is: the frozen dataclass's
        # generated __init__ (a setattr call per field) cost more than reading a one-call
        # answer's arguments. One report is made for every decoded text.
        if isinstance(truncated, bool):
            truncated = "text" if truncated else None
        fields = self.__dict__
        fields["source"] = source
        fields["start"] = start
        fields["end"] = end
        fields["repairs"] = repairs
        fields["truncated"] = truncated
        fields["dropped_values"] = dropped_values
        fields["dropped"] = dropped

    @property
    def truncation(self) -> Truncation | None:
        """`truncated`, typed as it always is after construction."""
        value = self.truncated
        return None if isinstance(value, bool) else value

    @property
    def repaired(self) -> bool:
        """True when anything beyond a strict decode of the located payload was needed."""
        return bool(self.repairs) or bool(self.truncated)

    @property
    def repair_names(self) -> tuple[str, ...]:
        """The names of the rules that fired, in order, with repeats."""
        return tuple(r.name for r in self.repairs)

    @property
    def cost(self) -> int:
        """How much had to be changed: the ranking key among candidates of one source."""
        return len(self.repairs) + (1 if self.truncated else 0)

    @property
    def outcome(self) -> Literal["success", "recovered", "fallback"]:
        """``success`` for a clean payload taken as a whole, ``fallback`` for a value read from
        labelled lines (no JSON), else ``recovered`` (repaired, located, cut off, or with values
        dropped)."""
        if self.source == "labels":
            return "fallback"
        clean = (
            self.source == "whole"
            and not self.repaired
            and not self.dropped
            and not self.dropped_values
        )
        return "success" if clean else "recovered"

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready summary, as emitted in the ``parse_report`` callback event."""
        return {
            "source": self.source,
            "start": self.start,
            "end": self.end,
            "repairs": [{"name": r.name, "pos": r.pos, "path": r.path} for r in self.repairs],
            "truncated": self.truncated,
            "dropped": list(self.dropped),
            "dropped_values": list(self.dropped_values),
            "outcome": self.outcome,
        }
