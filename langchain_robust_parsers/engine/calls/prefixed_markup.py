"""Call markup whose every structural tag carries a fixed prefix.

- DeepSeek's DSML: ``<｜DSML｜ calls><｜DSML｜ invoke name="f"><｜DSML｜ parameter name="k"
  string="true">v</｜DSML｜ parameter></｜DSML｜ invoke></｜DSML｜ calls>`` in V4.1 (the space
  after ``｜DSML｜`` belongs to each tag name), ``<｜DSML｜tool_calls>`` (V4) and
  ``<｜DSML｜function_calls>`` (V3.2) without the space. A ``string="true"`` value is the text
  exactly as written, trailing whitespace included; a ``string="false"`` value is JSON.
- MiniMax M3: every tag prefixed by ``]<]minimax[>[``; a parameter's name is its tag
  (``<city>Paris</city>``), an object parameter holds one tag a key, an array parameter one
  ``<item>`` tag an item.
- Muse Glimmer: ``<atem:function_calls><atem:invoke name="f"><atem:parameter name="k">v
  </atem:parameter></atem:invoke></atem:function_calls>``.

The prefix is what makes a tag structure: text inside a value that looks like a tag without
the prefix (``</parameter>`` in a code sample) is data.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_robust_parsers.engine.calls.markup_calls import (
    json_object,
    json_or_text,
    layout_trimmed,
    parameter_spans,
    read_elements,
)
from langchain_robust_parsers.engine.calls.parsed_call import (
    CallDecodeError,
    ParsedCall,
    drop_cut_call,
)
from langchain_robust_parsers.engine.repair_log import RepairLog

__all__ = [
    "ATEM_PREFIX",
    "DSML_PREFIX",
    "DSML_SPACED_PREFIX",
    "MINIMAX_NS",
    "read_atem",
    "read_dsml",
    "read_dsml_spaced",
    "read_minimax_ns",
]

DSML_PREFIX = "｜DSML｜"
"""DeepSeek V3.2's and V4's tag prefix."""
DSML_SPACED_PREFIX = DSML_PREFIX + " "
"""DeepSeek V4.1's tag prefix: the space is part of every tag name."""
MINIMAX_NS = "]<]minimax[>["
"""MiniMax M3's namespace token, written before every structural tag."""
ATEM_PREFIX = "atem:"
"""Muse Glimmer's tag namespace."""

_INVOKE = "invoke"
_PARAMETER = "parameter"
_ITEM = "item"
"""MiniMax M3's tag of one array item."""
_NAME_ATTR = re.compile(r"""name\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_STRING_ATTR = re.compile(r"""string\s*=\s*["']?(true|false)""")
_NS_TAG = re.compile(r"<(/?)([^<>\s/]+)([^<>]*)>")
"""A tag right after MiniMax M3's namespace token: closing slash, name, attributes."""


def _attr_name(head: str) -> str | None:
    m = _NAME_ATTR.search(head)
    return None if m is None else (m.group(1) if m.group(1) is not None else m.group(2))


# ----------------------------------------------------------------------------- DSML


def _dsml_params(
    text: str, a: int, b: int, log: RepairLog, prefix: str
) -> tuple[dict[str, Any], dict[str, str]]:
    """The parameters of one invoke body ``text[a:b]``: each value exactly as written (the
    templates put no line break inside a value, so none is layout), JSON when its tag says
    ``string="false"``."""
    opener = "<" + prefix + _PARAMETER
    closer = "</" + prefix + _PARAMETER + ">"
    args: dict[str, Any] = {}
    raws: dict[str, str] = {}
    for pos, head_end, close in parameter_spans(text, a, b, log, opener, closer, _any_tag):
        head = text[pos + len(opener) : head_end]
        key = _attr_name(head)
        if key is not None:
            raw = text[head_end + 1 : close]
            string = _STRING_ATTR.search(head)
            is_text = string is None or string.group(1) == "true"
            args[key] = raw if is_text else json_or_text(raw)
            raws[key] = raw
    return args, raws


def _any_tag(text: str, opener: str, pos: int, b: int) -> int:
    """The next parameter tag: the prefix makes every one structure, wherever it stands."""
    return text.find(opener, pos, b)


def read_dsml(
    text: str, a: int, b: int, log: RepairLog, closed: bool = True, prefix: str = DSML_PREFIX
) -> list[ParsedCall]:
    """DeepSeek's invoke elements (DSML, every tag name led by ``prefix``) in the block body
    ``text[a:b]``."""
    opener = "<" + prefix + _INVOKE
    closer = "</" + prefix + _INVOKE + ">"
    calls: list[ParsedCall] = []
    pos = text.find(opener, a, b)
    while pos >= 0:
        head_end = text.find(">", pos, b)
        close = text.find(closer, head_end, b) if head_end >= 0 else -1
        if head_end < 0 or (close < 0 and not closed):
            drop_cut_call(log, pos)
            break
        name = _attr_name(text[pos:head_end])
        if not name:
            raise CallDecodeError("json", "An invoke element without a name.", pos)
        stop = b if close < 0 else close
        body = text[head_end + 1 : stop].lstrip()
        if body.startswith("{"):
            args, truncated = json_object(text, head_end + 1, stop, log, repr(name))
            if truncated:
                drop_cut_call(log, pos)
                break
            calls.append(ParsedCall(name, args))
        else:
            args, raws = _dsml_params(text, head_end + 1, stop, log, prefix)
            calls.append(ParsedCall(name, args, raw=raws))
        pos = -1 if close < 0 else text.find(opener, close + len(closer), b)
    if not calls and not log.truncated:
        raise CallDecodeError("json", "No invoke element in the DSML block.", a)
    return calls


def read_dsml_spaced(
    text: str, a: int, b: int, log: RepairLog, closed: bool = True
) -> list[ParsedCall]:
    """DeepSeek V4.1's invoke elements in the block body ``text[a:b]``."""
    return read_dsml(text, a, b, log, closed, DSML_SPACED_PREFIX)


# ----------------------------------------------------------------------------- MiniMax M3


Tag = tuple[bool, str, str, int, int]
"""A namespaced tag: (closing, name, attributes, start, end)."""


def _ns_tags(text: str, a: int, b: int) -> list[Tag]:
    """The namespaced tags of ``text[a:b]``."""
    tags: list[Tag] = []
    pos = text.find(MINIMAX_NS, a, b)
    while pos >= 0:
        m = _NS_TAG.match(text, pos + len(MINIMAX_NS), b)
        if m is not None:
            tags.append((m.group(1) == "/", m.group(2), m.group(3), pos, m.end()))
            pos = text.find(MINIMAX_NS, m.end(), b)
        else:
            pos = text.find(MINIMAX_NS, pos + len(MINIMAX_NS), b)
    return tags


def _nest(children: list[tuple[str, Any]]) -> Any:
    """An object of the child elements, or a list when they are all ``<item>``."""
    if all(name == _ITEM for name, _ in children):
        return [value for _, value in children]
    return dict(children)


def _ns_value(text: str, tags: list[Tag], i: int, stop: int) -> tuple[Any, str | None, int, bool]:
    """The value of the element opened by ``tags[i]``: (value, its raw text or ``None`` for a
    nested value, the index of the tag after its close, closed?). Nested opening tags make an
    object (one key a tag) or an array (``<item>`` tags)."""
    name, end = tags[i][1], tags[i][4]
    j = i + 1
    children: list[tuple[str, Any]] = []
    while j < len(tags) and not tags[j][0]:
        child = tags[j][1]
        value, _raw, j, closed = _ns_value(text, tags, j, stop)
        children.append((child, value))
        if not closed:
            return _nest(children), None, j, False
    closed = j < len(tags) and tags[j][1] == name
    content_end = tags[j][3] if j < len(tags) else stop
    after = j + 1 if closed else j
    if children:
        return _nest(children), None, after, closed
    raw = layout_trimmed(text[end:content_end])
    return json_or_text(raw), raw, after, closed


def read_minimax_ns(
    text: str, a: int, b: int, log: RepairLog, closed: bool = True
) -> list[ParsedCall]:
    """MiniMax M3's invoke elements in the block body ``text[a:b]``: a parameter's tag is its
    name, nested tags an object, ``<item>`` tags an array."""
    tags = _ns_tags(text, a, b)
    calls: list[ParsedCall] = []
    i = 0
    while i < len(tags):
        is_close, tag, attrs, start, _end = tags[i]
        if is_close or tag != _INVOKE:
            i += 1
            continue
        name = _attr_name(attrs)
        if not name:
            raise CallDecodeError("json", "An invoke element without a name.", start)
        args: dict[str, Any] = {}
        raws: dict[str, str] = {}
        i += 1
        complete = True
        while i < len(tags) and not tags[i][0]:
            key = tags[i][1]
            value, raw, i, complete = _ns_value(text, tags, i, b)
            args[key] = value
            if raw is not None:
                raws[key] = raw
            if not complete:
                break
        complete = complete and i < len(tags) and tags[i][1] == _INVOKE
        if not complete and not closed:
            drop_cut_call(log, start)
            break
        calls.append(ParsedCall(name, args, raw=raws))
        i += 1
    if not calls and not log.truncated:
        raise CallDecodeError("json", "No invoke element in the MiniMax block.", a)
    return calls


# ----------------------------------------------------------------------------- Muse Glimmer


def read_atem(text: str, a: int, b: int, log: RepairLog, closed: bool = True) -> list[ParsedCall]:
    """Muse Glimmer's ``<atem:invoke>`` elements in the block body ``text[a:b]``."""
    return read_elements(text, a, b, log, closed=closed, element=_INVOKE, prefix=ATEM_PREFIX)
