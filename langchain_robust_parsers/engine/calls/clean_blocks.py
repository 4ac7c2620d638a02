"""The fast path of :func:`~langchain_robust_parsers.engine.calls.dialects.decode_calls`: an
answer whose call blocks are all plainly well formed, in the dialects open models write most.

Dialects read here: Hermes JSON, Qwen3-Coder XML and GLM inside ``<tool_call>``; MiniMax-M2's
``<invoke>``; Kimi K2; FunctionGemma; Mistral's ``[TOOL_CALLS]name[ARGS]{..}``. A block is
matched part by part with compiled patterns whose quantifiers are flat and each stop at the
character the next part starts with (linear, no backtracking), its values read with no repair
machinery, and the next block found with one search of the marker pattern.

The path returns exactly what the general reader returns for the same answer (calls, spans,
repairs), or ``None`` as soon as the answer leaves the plain shape it knows: a ``<`` inside a
value, a marker in another case, a block cut off or holding prose, a value that nests, a repair
other than the general reader's own. The general reader then reads the answer from its start,
so the fast path changes no result, only the time of the common one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, NamedTuple

from langchain_robust_parsers.engine.calls.call_blocks import (
    ALL_MARKERS,
    MAX_BLOCKS,
    has_wrappers,
    widen,
)
from langchain_robust_parsers.engine.calls.markup_calls import json_or_text, layout_trimmed
from langchain_robust_parsers.engine.calls.parsed_call import ParsedCall
from langchain_robust_parsers.engine.repair_log import RepairLog

__all__ = ["CleanBlocks", "JsonCalls", "read_clean_blocks"]

MAX_CLEAN_BLOCKS = MAX_BLOCKS // 2
"""Blocks the fast path reads; an XML block holds two marker hits (``<tool_call>`` and the
nested ``<function=``), so past this the general reader's own cap could differ."""

JsonCalls = Callable[[Any, RepairLog, int], "list[ParsedCall] | None"]
"""How a decoded JSON payload becomes calls (the general reader's, so that both agree)."""


class CleanBlocks(NamedTuple):
    """What the fast path read: the calls, the block spans, the first block's dialect and body
    (the general reader types the answer from it), and the repairs the JSON items needed."""

    calls: list[ParsedCall]
    spans: list[tuple[int, int]]
    dialect: str
    first_body: tuple[int, int]
    log: RepairLog


class _Block(NamedTuple):
    calls: list[ParsedCall]
    body_stop: int
    end: int


_STRICT = json.JSONDecoder()
_WS = "[ \\t\\r\\n]*"
_NAME = r"([A-Za-z_][\w.\-]*)"
_ONE_LINE = r"(?:\r?\n)?([^<\r\n]*)(?:\r?\n)?"
"""A one-line value with the line break next to each tag that is layout: the value the general
reader keeps after :func:`layout_trimmed`, with no trimming to do."""

_TOOL_CALL_CLOSE = re.compile(_WS + "</tool_call>")
_FUNCTION_OPEN = re.compile(_WS + "<function=" + _NAME + ">")
_FUNCTION_CLOSE = re.compile(_WS + "</function>")
_XML_PARAM = re.compile(_WS + r"<parameter=([\w.\-]+)>" + _ONE_LINE + "</parameter>")
_XML_PARAM_ANY = re.compile(_WS + r"<parameter=([\w.\-]+)>([^<]*)</parameter>")
_INVOKE_OPEN = re.compile(_WS + r'<invoke name="([^"<>]+)">')
_INVOKE_CLOSE = re.compile(_WS + "</invoke>")
_INVOKE_PARAM = re.compile(_WS + r'<parameter name="([^"<>]+)">' + _ONE_LINE + "</parameter>")
_INVOKE_PARAM_ANY = re.compile(_WS + r'<parameter name="([^"<>]+)">([^<]*)</parameter>')
_MINIMAX_CLOSE = re.compile(_WS + "</minimax:tool_call>")
_GLM_HEAD = re.compile(_WS + _NAME + _WS + "(?=<arg_key>)")
_GLM_PAIR = re.compile(
    r"<arg_key>([\w.\-]+)</arg_key>" + _WS + "<arg_value>([^<]*)</arg_value>" + _WS
)
_KIMI_HEAD = re.compile(
    _WS + r"(functions\." + _NAME + r":[0-9]+)<\|tool_call_argument_begin\|>" + _WS
)
_KIMI_CLOSE = re.compile(_WS + r"<\|tool_call_end\|>")
_GEMMA_CALL = re.compile(_WS + "call:" + _NAME + r"\{")
_GEMMA_ITEM = re.compile(_NAME + r":(?:<escape>([^<]*)<escape>|([^,{}\[\]<\s]+))(,?)")
_GEMMA_CLOSE = re.compile(_WS + "<end_function_call>")
_MISTRAL_HEAD = re.compile(
    "[ \\t\\r\\n,;]*" + _NAME + r"(?:\[CALL_ID\]([\w\-]+))?(?:\[ARGS\])?" + _WS + r"(?=\{)"
)
_MISTRAL_TAIL = re.compile("[ \\t\\r\\n,;]*")
_MISTRAL_CLOSE = "[/TOOL_CALLS]"


def _json_at(text: str, pos: int) -> tuple[Any, int] | None:
    """The JSON value at ``pos`` read by the C decoder, when it holds no ``<`` (no marker and
    no closing tag can then sit inside it); ``None`` otherwise."""
    try:
        value, end = _STRICT.raw_decode(text, pos)
    except (ValueError, RecursionError):
        return None
    if text.find("<", pos, end) >= 0:
        return None
    return value, end


# ----------------------------------------------------------------------------- elements


def _params(
    text: str, pos: int, one_line: re.Pattern[str], any_line: re.Pattern[str]
) -> tuple[dict[str, Any], dict[str, str], int]:
    """Parameter elements from ``pos`` while they follow one another: the values, the same
    as written, and where the run ends."""
    args: dict[str, Any] = {}
    raws: dict[str, str] = {}
    match = one_line.match
    while True:
        m = match(text, pos)
        if m is None:
            m = any_line.match(text, pos)
            if m is None:
                return args, raws, pos
            value = layout_trimmed(m.group(2))
        else:
            value = m.group(2)
        args[m.group(1)] = raws[m.group(1)] = value
        pos = m.end()


def _elements(
    text: str,
    pos: int,
    opener: re.Pattern[str],
    closer: re.Pattern[str],
    params: tuple[re.Pattern[str], re.Pattern[str]],
) -> tuple[list[ParsedCall], int] | None:
    """One or more call elements (``<function=NAME>``, ``<invoke name="NAME">``) from ``pos``,
    each holding only parameter elements; ``None`` for any other content."""
    calls: list[ParsedCall] = []
    while True:
        m = opener.match(text, pos)
        if m is None:
            return (calls, pos) if calls else None
        args, raws, pos = _params(text, m.end(), *params)
        end = closer.match(text, pos)
        if end is None:
            return None
        calls.append(ParsedCall(m.group(1), args, raw=raws))
        pos = end.end()


def _xml_block(text: str, body: int) -> _Block | None:
    got = _elements(text, body, _FUNCTION_OPEN, _FUNCTION_CLOSE, (_XML_PARAM, _XML_PARAM_ANY))
    return _closed(text, got, _TOOL_CALL_CLOSE)


def _minimax_block(text: str, body: int, _json: JsonCalls, _log: RepairLog) -> _Block | None:
    got = _elements(text, body, _INVOKE_OPEN, _INVOKE_CLOSE, (_INVOKE_PARAM, _INVOKE_PARAM_ANY))
    return _closed(text, got, _MINIMAX_CLOSE)


def _closed(
    text: str, got: tuple[list[ParsedCall], int] | None, closer: re.Pattern[str]
) -> _Block | None:
    """The block whose calls end at ``got[1]``, when its closing tag follows them."""
    if got is None:
        return None
    m = closer.match(text, got[1])
    return None if m is None else _Block(got[0], m.end() - len(m.group().lstrip()), m.end())


# ----------------------------------------------------------------------------- <tool_call>


def _tool_call_block(text: str, body: int, json_calls: JsonCalls, log: RepairLog) -> _Block | None:
    """A ``<tool_call>`` block holding one JSON payload, Qwen3-Coder's elements, or GLM's
    key/value pairs (the general reader's sniffing, on the shapes read here)."""
    pos = body
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    if text.startswith("{", pos):
        return _hermes_block(text, pos, json_calls, log)
    if text.startswith("<function=", pos):
        return _xml_block(text, pos)
    return _glm_block(text, pos)


def _hermes_block(text: str, pos: int, json_calls: JsonCalls, log: RepairLog) -> _Block | None:
    got = _json_at(text, pos)
    if got is None:
        return None
    calls = json_calls(got[0], log, pos)
    return None if calls is None else _closed(text, (calls, got[1]), _TOOL_CALL_CLOSE)


def _glm_block(text: str, pos: int) -> _Block | None:
    head = _GLM_HEAD.match(text, pos)
    if head is None:
        return None
    args: dict[str, Any] = {}
    raws: dict[str, str] = {}
    pos = head.end()
    match = _GLM_PAIR.match
    while (m := match(text, pos)) is not None:
        key, raw = m.group(1, 2)
        raws[key] = raw
        args[key] = json_or_text(raw)
        pos = m.end()
    return _closed(text, ([ParsedCall(head.group(1), args, raw=raws)], pos), _TOOL_CALL_CLOSE)


# ----------------------------------------------------------------------------- JSON bodies


def _kimi_block(text: str, body: int, _json: JsonCalls, _log: RepairLog) -> _Block | None:
    head = _KIMI_HEAD.match(text, body)
    if head is None:
        return None
    got = _json_at(text, head.end())
    if got is None or not isinstance(got[0], dict):
        return None
    call = ParsedCall(head.group(2), got[0], head.group(1))
    return _closed(text, ([call], got[1]), _KIMI_CLOSE)


def _gemma_block(text: str, body: int, _json: JsonCalls, _log: RepairLog) -> _Block | None:
    calls: list[ParsedCall] = []
    pos = body
    while (m := _GEMMA_CALL.match(text, pos)) is not None:
        args: dict[str, Any] = {}
        pos = m.end()
        while (item := _GEMMA_ITEM.match(text, pos)) is not None:
            key, escaped, bare, comma = item.group(1, 2, 3, 4)
            args[key] = escaped if escaped is not None else json_or_text(bare)
            pos = item.end()
            if not comma:
                break
        if not text.startswith("}", pos):
            return None
        calls.append(ParsedCall(m.group(1), args))
        pos += 1
    return _closed(text, (calls, pos), _GEMMA_CLOSE) if calls else None


def _mistral_block(text: str, body: int, stop: int) -> _Block | None:
    """``name[ARGS]{..}`` calls up to ``stop`` (the next marker: a Mistral block has no closing
    tag and runs to it), nothing else but separators between and after them."""
    calls: list[ParsedCall] = []
    pos = body
    while (m := _MISTRAL_HEAD.match(text, pos, stop)) is not None:
        got = _json_at(text, m.end())
        if got is None or got[1] > stop or not isinstance(got[0], dict):
            return None
        calls.append(ParsedCall(m.group(1), got[0], m.group(2)))
        pos = got[1]
    tail = _MISTRAL_TAIL.match(text, pos, stop)
    if not calls or tail is None or tail.end() != stop:
        return None
    return _Block(calls, stop, stop)


BlockReader = Callable[[str, int, JsonCalls, RepairLog], "_Block | None"]

_READERS: dict[str, tuple[str, BlockReader]] = {
    "<tool_call>": ("tool_call", _tool_call_block),
    "<minimax:tool_call>": ("minimax", _minimax_block),
    "<|tool_call_begin|>": ("kimi", _kimi_block),
    "<start_function_call>": ("gemma", _gemma_block),
}
"""Openers read by the fast path (exactly as written: another case goes the general way)."""
_MISTRAL = "[TOOL_CALLS]"


def read_clean_blocks(text: str, begin: int, json_calls: JsonCalls) -> CleanBlocks | None:
    """The calls of an answer made of plain well-formed blocks from ``begin`` on (no reasoning
    block after it), or ``None`` when the general reader must read it."""
    hit = ALL_MARKERS.search(text, begin)
    if hit is None:
        return None
    log = RepairLog()
    calls: list[ParsedCall] = []
    spans: list[tuple[int, int]] = []
    dialect = ""
    first_body = (0, 0)
    closes_mistral = -1
    while hit is not None:
        opener, start, body = hit.group(), hit.start(), hit.end()
        if opener == _MISTRAL:
            if closes_mistral < 0:  # once an answer: a closing tag anywhere changes the blocks
                closes_mistral = 1 if _MISTRAL_CLOSE in text else 0
            hit = ALL_MARKERS.search(text, body)
            stop = len(text) if hit is None else hit.start()
            name, block = "mistral", None if closes_mistral else _mistral_block(text, body, stop)
        else:
            name, reader = _READERS.get(opener, ("", None))
            block = None if reader is None else reader(text, body, json_calls, log)
            # a marker inside a closed block is part of it, as for the general reader
            hit = None if block is None else ALL_MARKERS.search(text, block.end)
        if block is None or len(spans) >= MAX_CLEAN_BLOCKS:
            return None
        if not spans:
            dialect, first_body = name, (body, block.body_stop)
        calls.extend(block.calls)
        spans.append((start, block.end))
    if has_wrappers(text):
        spans = [widen(text, a, b) for a, b in spans]
    return CleanBlocks(calls, spans, dialect, first_body, log)
