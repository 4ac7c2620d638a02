"""K2-Horizon's IFM tool calls.

A group ``<ifm|tool_calls>`` holds one ``<ifm|tool_call>`` element a call, and the group's
closing tag ends it (``</ifm|tool_calls>``). A call's body is either

- the function name and key/value tags, each value optionally typed:
  ``NAME<ifm|arg_key>k</ifm|arg_key><ifm|arg_type>integer</ifm|arg_type><ifm|arg_value>3
  </ifm|arg_value>`` (the type tag is optional; ``string`` keeps the value as text, any other
  type reads it as JSON when it is JSON; the bound tools' schemas type it later), or
- one JSON object ``{"name": .., "arguments": {..}}`` (the ``json`` tool format).

Text before and after the group is the answer's content. A call whose closing tag is missing
in a group the answer ends in was cut off: it is dropped (``truncated_call_dropped``).
"""

from __future__ import annotations

from typing import Any

from langchain_robust_parsers.engine.calls.markup_calls import arg_pairs, json_object, json_or_text
from langchain_robust_parsers.engine.calls.parsed_call import (
    CallDecodeError,
    ParsedCall,
    drop_cut_call,
)
from langchain_robust_parsers.engine.repair_log import RepairLog

__all__ = [
    "IFM_ARG_TAGS",
    "IFM_ARG_TYPE_CLOSE",
    "IFM_ARG_TYPE_OPEN",
    "IFM_CALL_CLOSE",
    "IFM_CALL_OPEN",
    "IFM_GROUP_CLOSE",
    "IFM_GROUP_OPEN",
    "ifm_unclosed_is_prose",
    "read_ifm",
]

IFM_GROUP_OPEN, IFM_GROUP_CLOSE = "<ifm|tool_calls>", "</ifm|tool_calls>"
IFM_CALL_OPEN, IFM_CALL_CLOSE = "<ifm|tool_call>", "</ifm|tool_call>"
IFM_ARG_TAGS = ("<ifm|arg_key>", "</ifm|arg_key>", "<ifm|arg_value>", "</ifm|arg_value>")
"""The key and value tags, in the order `arg_pairs` takes them."""
IFM_ARG_TYPE_OPEN, IFM_ARG_TYPE_CLOSE = "<ifm|arg_type>", "</ifm|arg_type>"
"""The optional type tag between a key and its value (the ``xml_typed`` tool format)."""
_TEXT_TYPES = frozenset(("string", "str", "text"))
"""Declared types whose values stay text even when they read as JSON (``"007"``)."""


def read_ifm(text: str, a: int, b: int, log: RepairLog, closed: bool) -> list[ParsedCall]:
    """The calls in an IFM group body ``text[a:b]``, or in one call's body when the group tag
    was not written."""
    if text.find(IFM_CALL_OPEN, a, b) < 0:
        return _call(text, a, b, log, closed)
    calls: list[ParsedCall] = []
    pos = text.find(IFM_CALL_OPEN, a, b)
    while pos >= 0:
        start = pos + len(IFM_CALL_OPEN)
        end = text.find(IFM_CALL_CLOSE, start, b)
        if end < 0 and not closed:
            drop_cut_call(log, pos)
            break
        stop = b if end < 0 else end
        calls.extend(_call(text, start, stop, log, True))
        pos = -1 if end < 0 else text.find(IFM_CALL_OPEN, end, b)
    if not calls and not log.truncated:
        raise CallDecodeError("json", "No IFM call in the block.", a)
    return calls


def _call(text: str, a: int, b: int, log: RepairLog, closed: bool) -> list[ParsedCall]:
    """One call body: JSON, or a name and its key/value tags."""
    body = text[a:b].strip()
    if body.startswith("{"):
        # the JSON call reader sits above the registry this module feeds
        from langchain_robust_parsers.engine.calls.dialects import calls_from_json

        value, truncated = json_object(text, a, b, log, "an IFM call")
        if truncated and not closed:
            drop_cut_call(log, a)
            return []
        got = calls_from_json(value, log, a, in_marker=True)
        if got is None:
            raise CallDecodeError("json", "Invalid IFM tool call structure.", a)
        return got[0]
    key_open = IFM_ARG_TAGS[0]
    first = text.find(key_open, a, b)
    name = text[a : b if first < 0 else first].strip()
    if not name or any(c.isspace() for c in name) or "<" in name:
        raise CallDecodeError("json", "An IFM tool call without a function name.", a)
    if first < 0:
        if not closed:
            drop_cut_call(log, a)
            return []
        return [ParsedCall(name, {})]
    pairs = arg_pairs(text, first, b, name, IFM_ARG_TAGS, None if closed else log, log)
    if pairs is None:
        return []
    args, raws = pairs
    _apply_types(text, first, b, args, raws)
    return [ParsedCall(name, args, raw=raws)]


def _apply_types(text: str, a: int, b: int, args: dict[str, Any], raws: dict[str, str]) -> None:
    """Values whose type tag says text stay text; others are read as JSON when they are."""
    pos = text.find(IFM_ARG_TYPE_OPEN, a, b)
    for key, kind in _typed_keys(text, pos, b):
        if key in raws:
            args[key] = raws[key] if kind in _TEXT_TYPES else json_or_text(raws[key])


def _typed_keys(text: str, pos: int, b: int) -> list[tuple[str, str]]:
    """(key, declared type) of each type tag from ``pos``, the key being the one closed just
    before the tag."""
    key_open, key_close = IFM_ARG_TAGS[0], IFM_ARG_TAGS[1]
    out: list[tuple[str, str]] = []
    while pos >= 0:
        end = text.find(IFM_ARG_TYPE_CLOSE, pos, b)
        if end < 0:
            break
        kind = text[pos + len(IFM_ARG_TYPE_OPEN) : end].strip().split("[", 1)[0].lower()
        close = text.rfind(key_close, 0, pos)
        opener = text.rfind(key_open, 0, max(close, 0))
        if close >= 0 and opener >= 0:
            out.append((text[opener + len(key_open) : close].strip(), kind))
        pos = text.find(IFM_ARG_TYPE_OPEN, end, b)
    return out


def ifm_unclosed_is_prose(text: str, a: int, b: int) -> bool:
    """An unclosed IFM tag followed by words that are neither a call element, a JSON call nor
    a name and its key tags (``the group opens with <ifm|tool_calls> and ..``) is prose naming
    the tag."""
    body = text[a:b].strip()
    if body.startswith((IFM_CALL_OPEN, "{")):
        return False
    key = body.find(IFM_ARG_TAGS[0])
    name = body if key < 0 else body[:key]
    return any(c.isspace() for c in name.strip())
