"""Bare scalars for the lenient scanner: numbers in the forms models write, literals, and unquoted
words or phrases used as string values.
"""

from __future__ import annotations

from typing import Any

from langchain_robust_parsers.engine.json.scan_lexicon import (
    _DANGLING_EXPONENT,
    _DELIMITERS,
    _JSON_NUMBER,
    _LOOSE_NUMBER,
    _Frame,
    _next_significant,
)
from langchain_robust_parsers.engine.repair_log import RepairLog


def _scan_number(src: str, pos: int, end: int, log: RepairLog) -> tuple[Any, int, bool] | None:
    """A number at ``pos``: ``(value, end, cut_off_incomplete)`` or ``None`` if it is not one."""
    m = _JSON_NUMBER.match(src, pos, end)
    if m is not None and m.end() > pos and src[m.end() - 1].isdigit():
        stop = m.end()
        if stop >= end or src[stop] in _DELIMITERS or src[stop] in "\"'":
            text = m.group()
            if stop >= end and end == len(src):
                # Cut off: a number is complete only when followed by something; keep it (the
                # digits so far), as LangChain's partial parser shows numbers growing.
                pass
            if "." in text or "e" in text or "E" in text:
                return float(text), stop, False
            return int(text), stop, False
    m = _LOOSE_NUMBER.match(src, pos, end)
    if m is None or m.end() == pos:
        if src[pos] in "-+" and pos + 1 >= end:
            return None, end, True  # a lone sign at the end: an unfinished number
        return None
    stop = m.end()
    text = m.group()
    if stop < end and src[stop] not in _DELIMITERS and src[stop] not in "\"'":
        return None
    if stop >= end and text[-1] in ".eE+-":
        return None, end, True
    cleaned = _DANGLING_EXPONENT.sub("", text.replace("_", "").lstrip("+"))
    try:
        value: Any = float(cleaned) if any(ch in cleaned for ch in ".eE") else int(cleaned)
    except ValueError:
        return None
    log.add("number_format", pos)
    return value, stop, False


def _unquoted_value(src: str, pos: int, end: int, frame: _Frame) -> tuple[str, int]:
    """A bare word or phrase used as a string value.

    It ends at a quote followed by a separator (the opening quote was missing: ``abc",``), else
    at the next separator or line end; brackets it opens (``words{in brackets}``) stay inside.
    """
    eol = src.find("\n", pos, end)
    eol = end if eol < 0 else eol
    quote = src.find('"', pos, eol)
    if quote > pos and '"' not in src[pos:quote]:
        after = _next_significant(src, quote + 1, end)
        if after >= end or src[after] in ",}]":
            return src[pos:quote].strip(), quote + 1
    stops = ",}]" if frame.closer != ")" else ",})]"
    depth = 0
    i = pos
    while i < eol:
        ch = src[i]
        if ch in "{[":
            depth += 1
        elif ch in "}]" and depth:
            depth -= 1
        elif ch in stops or ch == '"':
            break
        i += 1
    return src[pos:i].strip(), i
