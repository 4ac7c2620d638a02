"""The JSON object of an answer that holds a given set of keys: among the answer's ranked JSON
candidates, the first object with every key, a key written in another case or with spaces
(``"Name"``, ``"first name"``) read as the expected one (repair ``key_renamed``: a schema-level
repair, like coercion's, not one of the JSON decoder's).

This is what ``RobustStructuredOutputParser`` returns for its response schemas.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from langchain_robust_parsers.engine.errors import JsonEngineError, TextEngineError
from langchain_robust_parsers.engine.repair_log import RepairLog
from langchain_robust_parsers.engine.report import ParseReport

__all__ = ["MAX_CANDIDATES", "match_keys", "object_with_keys"]

MAX_CANDIDATES = 16
"""JSON candidates examined for one holding every expected key; the first is kept when none
does, and candidates past this many are prose brackets, not answers."""


def _key_fold(key: str) -> str:
    return key.casefold().replace(" ", "_").replace("-", "_")


def match_keys(value: dict[str, Any], keys: list[str], log: RepairLog, pos: int) -> dict[str, Any]:
    """``value`` with a key written in another case or with spaces (``"Name"``, ``"first
    name"``) renamed to the expected one (repair ``key_renamed`` at ``pos``); an exact key
    always wins."""
    missing = [k for k in keys if k not in value]
    if not missing:
        return value
    wanted = {_key_fold(k): k for k in missing}
    renamed: dict[str, Any] = {}
    for key, item in value.items():
        target = wanted.get(_key_fold(key)) if isinstance(key, str) else None
        if target is not None and target not in renamed:
            log.add("key_renamed", pos)
            renamed[target] = item
        else:
            renamed.setdefault(key, item)
    return renamed


def object_with_keys(
    candidates: Iterable[tuple[Any, ParseReport]], keys: list[str]
) -> tuple[dict[str, Any], ParseReport]:
    """The first object among ``candidates`` (ranked, as ``iter_candidates`` gives them)
    holding every one of ``keys``, with its report. Raises ``JsonEngineError`` when there is no
    object, and ``TextEngineError`` naming the first missing key (of the first object) when
    none has them all."""
    first: tuple[dict[str, Any], ParseReport] | None = None
    for count, (value, report) in enumerate(candidates):
        if count >= MAX_CANDIDATES:
            break
        if not isinstance(value, dict):
            continue
        log = RepairLog()
        matched = match_keys(value, keys, log, report.start)
        if log.repairs:
            repairs = report.repairs + tuple(log.repairs)
            report = ParseReport(report.source, report.start, report.end, repairs, report.truncated)
        if all(k in matched for k in keys):
            return matched, report
        if first is None:
            first = (matched, report)
    if first is None:
        raise JsonEngineError("no JSON object found in the text")
    missing = next(k for k in keys if k not in first[0])
    raise TextEngineError(
        f"Got invalid return object. Expected key `{missing}` to be present, but got {first[0]}"
    )
