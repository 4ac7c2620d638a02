"""The rules that clean a text-layout ``Action Input``: wrappers other frameworks' prompts teach.

LangChain's classic layout hands the input on as written; agents prompted by other frameworks
write a JSON object there and often dress it up: LlamaIndex asks for "the input to the tool, in
a JSON format representing the kwargs", and models answer with the object in backticks or a
fence, as a call (``Tool({"a": 1})``), unpacked like Python keyword arguments (``** {...}``),
or left unclosed. Each rule below takes what the previous one left and either gives the cleaned
input or ``None`` (it does not apply); a rule that changes what the model wrote names its repair
from the JSON engine's closed set (`repair_names`),
so a step read through one is reported as recovered. A wrapper is taken off only around a JSON
value that decodes, so a plain input such as ``sqrt(16)`` or ``**bold** text`` stays as written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from langchain_robust_parsers.engine.json.lenient import LenientError, scan_value
from langchain_robust_parsers.engine.json.repair_names import JsonRepairName
from langchain_robust_parsers.engine.lexicon.fences import find_fences
from langchain_robust_parsers.engine.lexicon.names import TOOL_NAME_PATTERN
from langchain_robust_parsers.engine.repair_log import RepairLog
from langchain_robust_parsers.engine.report import Repair

__all__ = ["TEXT_INPUT_RULES", "InputRule", "clean_action_input", "close_json_text"]

_LAX = json.JSONDecoder(strict=False)
"""Control characters (a line break inside a string) are common in a written input."""

_BACKTICKS = re.compile(r"`([^`\n]+)`")
"""One backtick pair around a one-line input (a fence is read by the lexicon's fence rule)."""

_CALL_WRAPPER = re.compile(TOOL_NAME_PATTERN + r"[ \t]*\((.*)\)", re.DOTALL)
"""``Tool({...})``: a name and parentheses around the JSON (the kwargs of a Python call)."""

_UNPACKING = re.compile(r"\*{1,2}[ \t]*(.*)", re.DOTALL)
"""``** {...}``: Python's keyword unpacking written before the JSON object."""

_CLOSERS = {"{": "}", "[": "]"}

_WRITTEN_AS_IS = frozenset({"control_character"})
"""Repairs a cut input may need and still be the object as written: a line break typed inside a
string (common in a written input; the completed text escapes it)."""


def _is_json(text: str) -> bool:
    try:
        _LAX.decode(text)
    except (ValueError, RecursionError):
        return False
    return True


def _json_payload(inner: str) -> str | None:
    """``inner`` stripped, when it is a JSON object or list."""
    inner = inner.strip()
    if inner[:1] in _CLOSERS and _is_json(inner):
        return inner
    return None


def _unfenced(text: str) -> str | None:
    fences = list(find_fences(text))
    if len(fences) != 1:
        return None
    fence = fences[0]
    if fence.start != 0 or text[fence.end :].strip():
        return None
    body = text[fence.body_start : fence.body_stop].strip()
    return body if body[:1] in _CLOSERS else None  # a fence around code is the code's


def _unquoted_by_backticks(text: str) -> str | None:
    m = _BACKTICKS.fullmatch(text)
    return None if m is None else m.group(1).strip()


def _call_wrapper(text: str) -> str | None:
    m = _CALL_WRAPPER.fullmatch(text)
    return None if m is None else _json_payload(m.group(1))


def _unpacking(text: str) -> str | None:
    m = _UNPACKING.fullmatch(text)
    if m is None or not m.group(1).startswith("{"):
        return None
    return _json_payload(m.group(1).rstrip("* \t"))


def close_json_text(text: str) -> str | None:
    """``text``, a JSON object or list that was cut off, completed by the JSON engine's reader
    of cut-off text (a string left open is closed, an unfinished key or literal dropped, the
    containers closed) and written as JSON; ``None`` when nothing is open, or when the text
    needs another repair than a line break typed inside a string (it is then not a cut
    object, and is handed on as written)."""
    if text[:1] not in _CLOSERS:
        return None
    log = RepairLog()
    try:
        value, end = scan_value(text, 0, len(text), log)
    except LenientError:
        return None
    if not log.truncated or set(log.repair_names) - _WRITTEN_AS_IS or text[end:].strip():
        return None
    return json.dumps(value, ensure_ascii=False)


@dataclass(frozen=True)
class InputRule:
    """One rule: its name, the repair it reports (``None`` for a layout, not a repair) and the
    function that gives the cleaned input or ``None``."""

    name: str
    repair: JsonRepairName | None
    apply: Callable[[str], str | None]


TEXT_INPUT_RULES: tuple[InputRule, ...] = (
    InputRule("fenced", None, _unfenced),  # ```json\n{"a": 1}\n```
    InputRule("backticks", None, _unquoted_by_backticks),  # `{"a": 1}`
    InputRule("unpacking", "stray_text", _unpacking),  # ** {"a": 1}
    InputRule("call_wrapper", "stray_text", _call_wrapper),  # Tool({"a": 1})
    InputRule("unclosed_json", "missing_closer", close_json_text),  # {"a": 1, "b": 2
)
"""Applied in this order, each to what the ones before left."""


def clean_action_input(text: str, pos: int) -> tuple[str, tuple[Repair, ...]]:
    """The input ``text`` (at offset ``pos`` of the whole text) after `TEXT_INPUT_RULES`,
    with the repairs that changed it. A fence is taken off a JSON value only (an input that is
    code keeps its fence), backticks off a one-line input."""
    repairs: list[Repair] = []
    for rule in TEXT_INPUT_RULES:
        cleaned = rule.apply(text)
        if not cleaned:
            continue
        if rule.repair is not None:
            repairs.append(Repair(rule.repair, pos))
        text = cleaned
    return text, tuple(repairs)
