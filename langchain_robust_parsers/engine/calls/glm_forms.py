"""GLM's other call bodies inside ``<tool_call>``, beside its ``<arg_key>`` pairs.

- ``NAME>{json}``: GLM-5.3-Flash writes the function name, a ``>`` and the arguments as one
  JSON object (``<tool_call>get_weather>{"city": "Paris"}</tool_call>``).
- The compact form ``NAME key=value key=value``: GLM's short calls
  (``<tool_call>get_weather city=Paris days=3</tool_call>``). A value is a quoted string
  (``"New York"``, ``'New York'``), a JSON object or array, or the bare text up to the next
  ``key=`` (``city=New York days=3`` gives ``New York``); bare text is JSON when it reads as
  JSON (``3``, ``true``), and the bound tools' schemas type it later.

A body cut off before its block's closing tag is dropped (``truncated_call_dropped``): its last
value may be unfinished.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_robust_parsers.engine.calls.markup_calls import (
    ARG_KEY_CLOSE,
    json_object,
    json_or_text,
    strict_json_at,
)
from langchain_robust_parsers.engine.calls.parsed_call import (
    CallDecodeError,
    ParsedCall,
    drop_cut_call,
)
from langchain_robust_parsers.engine.lexicon.names import TOOL_NAME
from langchain_robust_parsers.engine.lexicon.tags import skip_chars
from langchain_robust_parsers.engine.repair_log import RepairLog

__all__ = ["GLM_JSON_SEP", "glm_form", "read_glm_compact", "read_glm_json"]

GLM_JSON_SEP = ">"
"""Between the function name and its JSON arguments in GLM-5.3-Flash's ``NAME>{..}``."""

_KEY = re.compile(r"[ \t\r\n]+([A-Za-z_][\w\-]*)[ \t]*=")
"""A compact argument's key, after the white space that separates it from what came before."""
_WS = " \t\r\n"


def glm_form(text: str, a: int, b: int) -> str | None:
    """``glm_json`` when ``text[a:b]`` is ``NAME>{..}``, ``glm_compact`` when it is
    ``NAME key=value ..``, ``glm`` when it is GLM's pairs whose first key lost its opener
    (``NAME city</arg_key>..``), else ``None``."""
    pos = skip_chars(text, a, b)
    m = TOOL_NAME.match(text, pos, b)
    if m is None:
        return None
    after = m.end()
    if text.startswith(GLM_JSON_SEP, after) and text.startswith(
        "{", skip_chars(text, after + 1, b)
    ):
        return "glm_json"
    if _KEY.match(text, after, b) is not None:
        return "glm_compact"
    key = TOOL_NAME.match(text, skip_chars(text, after, b), b)
    if key is not None and text.startswith(ARG_KEY_CLOSE, key.end()):
        return "glm"
    return None


def read_glm_json(text: str, a: int, b: int, log: RepairLog, closed: bool) -> list[ParsedCall]:
    """``NAME>{..}``: one call."""
    pos = skip_chars(text, a, b)
    m = TOOL_NAME.match(text, pos, b)
    sep = -1 if m is None else text.find(GLM_JSON_SEP, m.end(), b)
    if m is None or sep != m.end():
        raise CallDecodeError("json", "A GLM tool call without a function name.", a)
    args, truncated = json_object(text, sep + 1, b, log, repr(m.group()))
    if truncated or (not closed and not text[a:b].rstrip().endswith("}")):
        drop_cut_call(log, a)
        return []
    return [ParsedCall(m.group(), args)]


def read_glm_compact(text: str, a: int, b: int, log: RepairLog, closed: bool) -> list[ParsedCall]:
    """``NAME key=value ..``: one call."""
    pos = skip_chars(text, a, b)
    m = TOOL_NAME.match(text, pos, b)
    if m is None:
        raise CallDecodeError("json", "A GLM tool call without a function name.", a)
    if not closed:
        drop_cut_call(log, a)
        return []
    args: dict[str, Any] = {}
    raws: dict[str, str] = {}
    pos = m.end()
    while True:
        key = _KEY.match(text, pos, b)
        if key is None:
            break
        value, raw, pos = _compact_value(text, key.end(), b)
        args[key.group(1)] = value
        if raw is not None:
            raws[key.group(1)] = raw
    if text[pos:b].strip():
        raise CallDecodeError("json", f"Unreadable arguments of {m.group()!r}.", pos)
    return [ParsedCall(m.group(), args, raw=raws or None)]


def _compact_value(text: str, pos: int, b: int) -> tuple[Any, str | None, int]:
    """The value at ``pos``, its raw text when it was bare (for the schemas to type), and
    where it ends."""
    pos = skip_chars(text, pos, b, " \t")
    c = text[pos] if pos < b else ""
    if c in '{["':
        try:
            value, end = strict_json_at(text, pos, b)
            return value, None, end
        except (ValueError, RecursionError):
            pass
    if c in "'\"":
        end = text.find(c, pos + 1, b)
        if end >= 0:
            return text[pos + 1 : end], None, end + 1
    nxt = _KEY.search(text, pos, b)
    end = b if nxt is None else nxt.start()
    raw = text[pos:end].strip(_WS)
    return json_or_text(raw), raw, end
