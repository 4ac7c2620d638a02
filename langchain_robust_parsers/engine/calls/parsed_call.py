"""What the function-call decoders return, and the error they raise.

Shared by `python_calls` (Python call syntax, the BFCL
format) and `dialects` (the JSON tool-call dialects of
open models). Nothing here imports LangChain.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_robust_parsers.engine.errors import EngineError
from langchain_robust_parsers.engine.repair_log import RepairLog
from langchain_robust_parsers.engine.report import ParseReport

__all__ = [
    "CallDecodeError",
    "CallKind",
    "DecodedCalls",
    "ParsedCall",
    "drop_cut_call",
    "invented_arguments",
    "whole_before_cut",
]


def drop_cut_call(log: RepairLog, pos: int) -> None:
    """The answer ends inside the call at ``pos``: the call is dropped (its arguments are not
    known), and the log says the answer was cut (``truncated_call_dropped``)."""
    log.truncated = True
    log.add("truncated_call_dropped", pos)


CallKind = Literal["ast", "json"]
"""What the text was taken for: Python call syntax (``ast``) or a JSON dialect (``json``). It
picks the error prefix, ``Failed to decode AST:`` or ``Failed to decode JSON:``, as BFCL's
evaluators expect."""

ERROR_PREFIX: dict[CallKind, str] = {
    "ast": "Failed to decode AST: ",
    "json": "Failed to decode JSON: ",
}


@dataclass
class ParsedCall:
    """One function call: its (dotted) name, its arguments and the id the model gave, if any.

    ``start``/``end`` delimit the text of the call (with its markers) in the decoded input.
    ``raw``: for markup dialects, each argument's text as written, before any typing (the
    bound tools' schemas type it). ``positional``: Python positional arguments waiting to be
    placed on a bound tool's parameters (decoded with ``positional="map"``).
    """

    name: str
    args: dict[str, Any]
    id: str | None = None
    start: int = 0
    end: int = 0
    raw: dict[str, str] | None = None
    positional: tuple[Any, ...] = ()


@dataclass(frozen=True)
class DecodedCalls:
    """The calls found in a text, in order, with where they came from.

    ``dialect`` names the format that held them (``python``, ``tool_call``, ``bare``...),
    ``kind`` whether they were Python or JSON, ``spans`` the regions of the input that held them
    (markers, fences and brackets included: removing them leaves the model's prose), and
    ``report`` what was located and repaired. ``calls`` is empty when the text holds no call.
    """

    calls: tuple[ParsedCall, ...]
    dialect: str
    kind: CallKind
    spans: tuple[tuple[int, int], ...] = ()
    report: ParseReport = field(default_factory=ParseReport)

    def __init__(
        self,
        calls: tuple[ParsedCall, ...],
        dialect: str,
        kind: CallKind,
        spans: tuple[tuple[int, int], ...] = (),
        report: ParseReport | None = None,
    ) -> None:
        # The instance dict written directly (see ParseReport): one is made for every answer.
        fields = self.__dict__
        fields["calls"] = calls
        fields["dialect"] = dialect
        fields["kind"] = kind
        fields["spans"] = spans
        fields["report"] = ParseReport() if report is None else report


INVENTED_REPAIRS = frozenset(("missing_value", "stray_text"))
"""JSON repairs after which a call's arguments are no longer what the model wrote: a value
made up for a key without one (``{"a": }``), words dropped inside an object. With
``missing_colon`` and ``unquoted_string`` together (``{invalid json}`` read as
``{"invalid": "json"}``) a key and its value are made up from prose."""


def invented_arguments(names: Sequence[str]) -> str | None:
    """The repair, among ``names``, that means arguments had to be invented; ``None`` if none."""
    for name in names:
        if name in INVENTED_REPAIRS:
            return name
    if "missing_colon" in names and "unquoted_string" in names:
        return "missing_colon"
    return None


class CallDecodeError(EngineError):
    """Something call-like was found but could not be decoded.

    ``kind`` says whether the text was taken for Python calls or JSON; ``reason`` is the bare
    explanation and ``str(error)`` the BFCL-style message (``Failed to decode AST: ...``).
    ``pos`` is an offset into the input, ``-1`` when unknown.
    """

    def __init__(self, kind: CallKind, reason: str, pos: int = -1) -> None:
        super().__init__(ERROR_PREFIX[kind] + reason)
        self.kind: CallKind = kind
        self.reason = reason
        self.pos = pos

    @property
    def message(self) -> str:
        """The BFCL-style message: ``Failed to decode AST: <reason>`` (or ``JSON``)."""
        return ERROR_PREFIX[self.kind] + self.reason

    def __reduce__(self) -> tuple[type[CallDecodeError], tuple[CallKind, str, int]]:
        return (type(self), (self.kind, self.reason, self.pos))


def whole_before_cut(report: ParseReport | None) -> bool:
    """Whether the calls read with ``report`` are whole even though the provider says the
    token limit stopped the model: each call stood in a block of its own markers
    (``source="tagged"``), and the reader dropped the one the cut left unfinished
    (``truncated_call_dropped``), so the blocks before it had closed. A cut inside one
    container of calls (a Python or JSON list), or a last block completed by repair, proves
    nothing: every call of such an answer may be unfinished."""
    return (
        report is not None
        and report.source == "tagged"
        and "truncated_call_dropped" in report.repair_names
    )
