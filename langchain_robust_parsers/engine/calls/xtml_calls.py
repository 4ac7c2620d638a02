"""Kimi K3's "XTML" tool calls.

A call section holds call elements, each holding argument elements::

    <|open|>tools<|sep|>
    <|open|>call tool="get_weather" index="1"<|sep|>
    <|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|>
    <|open|>argument key="days" type="integer"<|sep|>3<|close|>argument<|sep|>
    <|close|>call<|sep|>
    <|close|>tools<|sep|>

Attribute values are escaped as in XML (``&quot;``, ``&amp;``...). A ``type="string"`` value is
its text as written; any other type is JSON (the text, when it does not read as JSON). A closing
token written inside a value is data: a value ends at the last ``<|close|>argument<|sep|>``
before the next argument, and a call at the last ``<|close|>call<|sep|>`` before the next call.
"""

from __future__ import annotations

import html
import re
from typing import Any

from langchain_robust_parsers.engine.calls.markup_calls import json_or_text
from langchain_robust_parsers.engine.calls.parsed_call import (
    CallDecodeError,
    ParsedCall,
    drop_cut_call,
)
from langchain_robust_parsers.engine.repair_log import RepairLog

__all__ = ["XTML_CLOSE", "XTML_OPEN", "read_xtml"]

_OPEN = "<|open|>"
_CLOSE = "<|close|>"
_SEP = "<|sep|>"
XTML_OPEN = _OPEN + "tools" + _SEP
"""Opens Kimi K3's call section."""
XTML_CLOSE = _CLOSE + "tools" + _SEP
"""Closes Kimi K3's call section."""
_CALL_OPEN = _OPEN + "call "
_CALL_CLOSE = _CLOSE + "call" + _SEP
_ARG_OPEN = _OPEN + "argument "
_ARG_CLOSE = _CLOSE + "argument" + _SEP
_ATTR = re.compile(r"""([\w\-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_TEXT_TYPE = "string"


def _attrs(head: str) -> dict[str, str]:
    return {
        m.group(1): html.unescape(m.group(2) if m.group(2) is not None else m.group(3))
        for m in _ATTR.finditer(head)
    }


def _arguments(
    text: str, a: int, b: int, log: RepairLog
) -> tuple[dict[str, Any], dict[str, str], bool]:
    """The arguments of one call body ``text[a:b]``, their raw texts, and whether the last one
    was cut off before its closing token."""
    args: dict[str, Any] = {}
    raws: dict[str, str] = {}
    pos = text.find(_ARG_OPEN, a, b)
    cut = False
    while pos >= 0:
        head_end = text.find(_SEP, pos, b)
        if head_end < 0:
            return args, raws, True
        attrs = _attrs(text[pos + len(_ARG_OPEN) : head_end])
        start = head_end + len(_SEP)
        nxt = text.find(_ARG_OPEN, start, b)
        limit = b if nxt < 0 else nxt
        close = text.rfind(_ARG_CLOSE, start, limit)
        if close < 0:
            log.add("unclosed_parameter", pos)
            cut = nxt < 0
            close = limit
        raw = text[start:close]
        key = attrs.get("key")
        if key is not None:
            is_text = attrs.get("type", _TEXT_TYPE) == _TEXT_TYPE
            args[key] = raw if is_text else json_or_text(raw)
            raws[key] = raw
        pos = nxt
    return args, raws, cut


def read_xtml(text: str, a: int, b: int, log: RepairLog, closed: bool = True) -> list[ParsedCall]:
    """The call elements of a Kimi K3 call section body ``text[a:b]``."""
    calls: list[ParsedCall] = []
    pos = text.find(_CALL_OPEN, a, b)
    while pos >= 0:
        head_end = text.find(_SEP, pos, b)
        nxt = text.find(_CALL_OPEN, head_end, b) if head_end >= 0 else -1
        limit = b if nxt < 0 else nxt
        close = text.rfind(_CALL_CLOSE, head_end, limit) if head_end >= 0 else -1
        if head_end < 0 or (close < 0 and not closed):
            drop_cut_call(log, pos)
            break
        attrs = _attrs(text[pos + len(_CALL_OPEN) : head_end])
        name = attrs.get("tool")
        if not name:
            raise CallDecodeError("json", "A call element without a tool name.", pos)
        args, raws, cut = _arguments(text, head_end + len(_SEP), limit if close < 0 else close, log)
        if cut and not closed:
            drop_cut_call(log, pos)
            break
        calls.append(ParsedCall(name, args, raw=raws))
        pos = nxt
    if not calls and not log.truncated:
        raise CallDecodeError("json", "No call element in the tools section.", a)
    return calls
