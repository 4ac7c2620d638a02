"""One model output in, one result out: the unit of work of ``robust-parsers parse``.

A `FormatRunner` builds the parser of a format and parses with it through a
`RowParser`, the same row logic
`parse_frame` uses. It pickles, so worker processes
receive it whole. `encode_result` turns a result into one JSON line; values become JSON
data (pydantic models dumped, NaN as ``null``); `encode_rows` turns lines into the UTF-8
bytes written, whatever characters they hold.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Mapping
from typing import Any

from langchain_robust_parsers.cli.formats import FormatEntry, build_parser, resolve_format
from langchain_robust_parsers.engine.stats import OUTCOMES, Outcome
from langchain_robust_parsers.parsers.row_results import (
    MAX_OUTPUT_DEPTH,
    LineResult,
    OutcomeProbe,
    ResultOutcome,
    RowParser,
    error_text,
    to_jsonable,
)

__all__ = [
    "BAD_INPUT",
    "MAX_OUTPUT_DEPTH",
    "FormatRunner",
    "LineResult",
    "OutcomeProbe",
    "encode_result",
    "encode_rows",
    "error_text",
    "parse_outcome",
    "to_jsonable",
]

BAD_INPUT = "bad_input"
"""The outcome of an input line that holds no model output to parse (not JSON, no such field).
It is not a parse outcome, so it is reported beside the statistics table, not in it."""


def parse_outcome(outcome: str) -> Outcome | None:
    """``outcome`` as a `ParseStats` outcome, or ``None`` for one it does not count
    (`BAD_INPUT`)."""
    return next((o for o in OUTCOMES if o == outcome), None)


class FormatRunner:
    """Parse model outputs in one format (``json``, ``pydantic:module:Model``, ...); ``options``
    are more keyword arguments for the parser class (``{"window": (1280, 800)}`` for actions).

    Picklable: the parser and its probe travel together to worker processes.
    """

    def __init__(
        self,
        spec: str,
        entries: Iterable[FormatEntry] | None = None,
        *,
        options: Mapping[str, Any] | None = None,
    ) -> None:
        entry, _ = resolve_format(spec, entries)
        self.spec = spec
        self.name = entry.name
        self.entry = entry
        self.probe = OutcomeProbe()
        self.parser: Any = build_parser(spec, stats=self.probe, entries=[entry], options=options)
        self._rows = RowParser(self.parser, self.probe, entry.stats_format)

    def parse(self, text: str) -> LineResult:
        """The result for one model output; never raises for a ``str`` (a parser that breaks
        its contract gives a failed result, not a stopped run)."""
        result = self._rows.parse(text)
        if result.format is None or result.format == self.entry.stats_format:
            return result
        return dataclasses.replace(result, format=self.entry.stats_row(result.format))


# --------------------------------------------------------------------------- JSON output


def _dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, allow_nan=False)


def encode_result(line: int, result: LineResult) -> tuple[str, ResultOutcome]:
    """One output line (without its newline) holding ``line``, ``ok``, ``outcome``, ``value``,
    ``repairs`` and ``error``, and the outcome it records: a value that cannot be written as
    JSON makes the line ``failed``."""
    record: dict[str, Any] = {
        "line": line,
        "ok": result.ok,
        "outcome": result.outcome,
        "value": result.value,
        "repairs": list(result.repairs),
        "error": result.error,
    }
    try:
        return _dumps(record), result.outcome  # the common case: the value is JSON data already
    except (TypeError, ValueError, RecursionError):
        pass
    try:
        record["value"] = to_jsonable(result.value)
        return _dumps(record), result.outcome
    except (TypeError, ValueError, RecursionError) as exc:
        record.update(ok=False, outcome="failed", value=None, repairs=[])
        record["error"] = f"the value cannot be written as JSON: {error_text(exc)}"
        return _dumps(record), "failed"


LINE_BREAKS_IN_STRINGS = {"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}
"""Characters that ``str.splitlines`` (and some JSON-lines readers) take for line ends but
``json.dumps(ensure_ascii=False)`` leaves as they are: written as their JSON escapes, so that a
row is one line for every reader. Every other line end is a control character, which JSON
escapes anyway."""


def encode_rows(rows: Iterable[str]) -> bytes:
    """``rows`` (JSON lines from `encode_result`) as UTF-8, each ended by a newline.

    Model text may hold lone surrogates (an emoji escape such as ``"\\ud83d\\ude`` cut off by
    the token limit decodes to one), which UTF-8 cannot hold. JSON text has non-ASCII characters
    only inside strings, where the ``\\udXXX`` escape that ``backslashreplace`` writes for a
    lone surrogate is the JSON escape of that same character: a reader gets the string back
    (a high and a low surrogate side by side come back as the one character they stand for),
    and every other character stays readable UTF-8. The error handler only runs on a
    surrogate, so the common case costs one plain encode. The characters of
    `LINE_BREAKS_IN_STRINGS` are escaped the same way, for the same reason (they too only
    occur inside strings).
    """
    text = "".join(row + "\n" for row in rows)
    if not text.isascii():
        for char, escape in LINE_BREAKS_IN_STRINGS.items():
            if char in text:
                text = text.replace(char, escape)
    return text.encode("utf-8", "backslashreplace")
