"""The fast path of `decode_calls`: an
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
    whole_sections,
    widen,
)
from langchain_robust_parsers.engine.calls.dialect_registry import (
    GEMMA_MARKER,
    KIMI_MARKER,
    MINIMAX_MARKER,
    MISTRAL_ARGS,
    MISTRAL_CALL_ID,
    MISTRAL_MARKER,
    TOOL_CALL_MARKER,
)
from langchain_robust_parsers.engine.calls.json_depth import json_too_deep
from langchain_robust_parsers.engine.calls.markup_calls import (
    ARG_KEY_CLOSE,
    ARG_KEY_OPEN,
    ARG_VALUE_CLOSE,
    ARG_VALUE_OPEN,
    FUNCTION_CLOSE,
    FUNCTION_OPEN,
    GEMMA_CALL,
    GEMMA_ESCAPE,
    INVOKE_CLOSE,
    INVOKE_OPEN,
    KIMI_ARGS,
    KIMI_NAMESPACE,
    NAMED_PARAMETER_OPEN,
    PARAMETER_CLOSE,
    PARAMETER_OPEN,
    json_or_text,
    layout_trimmed,
)
from langchain_robust_parsers.engine.calls.parsed_call import ParsedCall
from langchain_robust_parsers.engine.lexicon.names import TOOL_NAME_PATTERN
from langchain_robust_parsers.engine.lexicon.reasoning import has_marker
from langchain_robust_parsers.engine.lexicon.tags import LAYOUT_SPACE, skip_chars
from langchain_robust_parsers.engine.repair_log import RepairLog

__all__ = ["CleanBlocks", "JsonCalls", "read_clean_blocks"]

MAX_CLEAN_BLOCKS = MAX_BLOCKS // 2
"""Blocks the fast path reads; an XML block holds two marker hits (``<tool_call>`` and the
nested ``<function=``), so past this the general reader's own cap could differ."""

JsonCalls = Callable[[Any, RepairLog, int], "list[ParsedCall] | None"]
"""How a decoded JSON payload becomes calls (the general reader's, so that both agree)."""


CleanBlocks = tuple[list[ParsedCall], list[tuple[int, int]], str, RepairLog]
"""What the fast path read: the calls, the block spans, the first block's dialect, and the
repairs the JSON items needed (a plain tuple: one is made for every answer)."""


_Block = tuple[list[ParsedCall], int, int]
"""A block read: its calls, where its body stops and where it ends (a plain tuple: one is made
for every block)."""


_STRICT = json.JSONDecoder()
_WS = "[ \\t\\r\\n]*"
_NAME = "(" + TOOL_NAME_PATTERN + ")"
_VALUE = r"(?:(?:\r\n|\n)?([^<\r\n]*)(?:\r\n|\n)?|([^<]*))"
"""A parameter's value: one line, with the line break next to each tag that is layout (group
1: what the general reader keeps after `layout_trimmed`, nothing to trim), else any
text without ``<`` (group 2, trimmed as the general reader trims it)."""
_ANY_VALUE = "[^<]*"
"""The strings `_VALUE` matches, without its groups: what checking an element's shape needs."""

# Every tag below is spelled once, by the general reader (markup_calls) or the registry's
# markers, and escaped here; the patterns are compiled once, at import.
_E = re.escape
_TOOL_CALL_CLOSE = TOOL_CALL_MARKER.close[0]
_XML_KEY = _E(PARAMETER_OPEN) + r"([^<>\s\"']+)>"
_INVOKE_KEY = _E(NAMED_PARAMETER_OPEN) + r'([^"<>]+)">'
_MINIMAX_CLOSE = MINIMAX_MARKER.close[0]
_GLM_HEAD = re.compile(_WS + _NAME + _WS + "(?=" + _E(ARG_KEY_OPEN) + ")")
_GLM_PAIR = re.compile(
    _E(ARG_KEY_OPEN) + r"([^<\s]+)" + _E(ARG_KEY_CLOSE) + _WS
    + _E(ARG_VALUE_OPEN) + "([^<]*)" + _E(ARG_VALUE_CLOSE)
)  # fmt: skip
_KIMI_HEAD = re.compile(_WS + "(" + _E(KIMI_NAMESPACE) + _NAME + ":[0-9]+)" + _E(KIMI_ARGS) + _WS)
_KIMI_CLOSE = re.compile(_WS + _E(KIMI_MARKER.close[0]))
_GEMMA_CALL = re.compile(_WS + _E(GEMMA_CALL) + _NAME + r"\{")
_GEMMA_ITEM = re.compile(
    _NAME + ":(?:" + _E(GEMMA_ESCAPE) + "([^<]*)" + _E(GEMMA_ESCAPE) + r"|([^,{}\[\]<\s]+))(,?)"
)
_GEMMA_CLOSE = re.compile(_WS + _E(GEMMA_MARKER.close[0]))
_MISTRAL_HEAD = re.compile(
    "[ \\t\\r\\n,;]*" + _NAME + "(?:" + _E(MISTRAL_CALL_ID) + r"([\w\-]+))?"
    + "(?:" + _E(MISTRAL_ARGS) + ")?" + _WS + r"(?=\{)"
)  # fmt: skip
_MISTRAL_TAIL = re.compile("[ \\t\\r\\n,;]*")
_MISTRAL_CLOSE = MISTRAL_MARKER.close[0]
_JSON_STARTS = frozenset('-0123456789[{"tfn')


def _text_or_json(raw: str) -> Any:
    """`json_or_text`, without its work for the commonest values: plain text and small
    integers."""
    c = raw[:1]
    if c and c not in _JSON_STARTS and not c.isspace():
        return raw
    if raw.isdigit() and raw.isascii() and (c != "0" or len(raw) == 1):
        return int(raw)  # a JSON integer: digits, no leading zero
    return json_or_text(raw)


def _json_at(text: str, pos: int) -> tuple[Any, int] | None:
    """The JSON value at ``pos`` read by the C decoder, when it holds no ``<`` (no marker and
    no closing tag can then sit inside it); ``None`` otherwise."""
    try:
        value, end = _STRICT.raw_decode(text, pos)
    except (ValueError, RecursionError):
        return None
    if text.find("<", pos, end) >= 0 or json_too_deep(text, pos, end):
        return None
    return value, end


def _closed(text: str, calls: list[ParsedCall], pos: int, closer: re.Pattern[str]) -> _Block | None:
    """The block whose calls end at ``pos``, when its closing tag follows them."""
    m = closer.match(text, pos)
    return None if m is None else (calls, m.end() - len(m.group().lstrip()), m.end())


# ----------------------------------------------------------------------------- elements


def _element_pattern(opener: str, name: str, param: str, close: str, block_close: str) -> str:
    """One call element, matched whole: its opening tag, parameter elements with only
    whitespace between them (text between them may be a value holding tags, which the general
    reader judges), any text without ``<`` after the last one (the general reader passes over
    it), the closing tag, and the block's closing tag when it follows (group ``end``). Every
    ``<`` of the element then belongs to one of its parameters, so the general reader, which
    reads parameters from ``<param`` to ``</param`` and passes over text between them, reads
    the same ones. Group 1 is the name, group ``params`` the parameter elements (read again
    with ``param``'s own pattern, one C call)."""
    return (
        _WS + opener + name + _WS + "(?=<)"
        + "(?P<params>(?:" + param + "(?:" + _WS + param + ")*)?)"
        + "[^<]*" + _E(close) + _WS + "(?P<end>" + _E(block_close) + ")?"
    )  # fmt: skip


def _uncaptured(pattern: str) -> str:
    """``pattern`` with its groups made non-capturing (it is repeated inside another one)."""
    return re.sub(r"(?<!\\)\((?!\?)", "(?:", pattern)


class _ElementForm(NamedTuple):
    """How one dialect's call elements are read: the whole element (its shape checked, its
    parameters group ``params``), and its parameters (key, one-line value, other value)."""

    element: re.Pattern[str]
    param: re.Pattern[str]


def _element_form(opener: str, name: str, key: str, close: str, block_close: str) -> _ElementForm:
    # The element's own parameter pattern takes `_ANY_VALUE`: the same strings as `_VALUE`,
    # checked without choosing between its two forms at every parameter.
    shape = _uncaptured(key + _ANY_VALUE + _E(PARAMETER_CLOSE))
    return _ElementForm(
        re.compile(_element_pattern(opener, name, shape, close, block_close)),
        re.compile(key + _VALUE + _E(PARAMETER_CLOSE)),
    )


_FUNCTION_ELEMENT = _element_form(
    _E(FUNCTION_OPEN), _NAME + ">", _XML_KEY, FUNCTION_CLOSE, _TOOL_CALL_CLOSE
)
_INVOKE_ELEMENT = _element_form(
    _E(INVOKE_OPEN), r'([^"<>]+)">', _INVOKE_KEY, INVOKE_CLOSE, _MINIMAX_CLOSE
)


def _elements(text: str, pos: int, form: _ElementForm) -> _Block | None:
    """Call elements (``<function=NAME>``, ``<invoke name="NAME">``) from ``pos``, then the
    block's closing tag; ``None`` unless each holds parameter elements whose values have no
    ``<`` (see `_element_pattern`). One match an element, one C call for its parameters."""
    calls: list[ParsedCall] = []
    while (m := form.element.match(text, pos)) is not None:
        raws: dict[str, str] = {}
        for key, line, other in form.param.findall(text, *m.span("params")):
            # `other` is empty when the value is on one line
            raws[key] = layout_trimmed(other) if other else line
        calls.append(ParsedCall(m.group(1), raws.copy(), None, 0, 0, raws))
        end, pos = m.span("end")
        if end >= 0:
            return (calls, end, pos)
        pos = m.end()
    return None


def _minimax_block(text: str, body: int, _json: JsonCalls, _log: RepairLog) -> _Block | None:
    return _elements(text, body, _INVOKE_ELEMENT)


# ----------------------------------------------------------------------------- <tool_call>


def _tool_call_block(text: str, body: int, json_calls: JsonCalls, log: RepairLog) -> _Block | None:
    """A ``<tool_call>`` block holding one JSON payload, Qwen3-Coder's elements, or GLM's
    key/value pairs (the general reader's sniffing, on the shapes read here)."""
    # Qwen3-Coder's elements first (their pattern passes the layout space itself), unless the
    # body opens with a name (GLM)
    if text.startswith(_SPACE_OR_TAG, body):
        block = _elements(text, body, _FUNCTION_ELEMENT)
        if block is not None:
            return block
    pos = skip_chars(text, body, len(text))
    if text.startswith("<", pos):
        return None
    if text.startswith("{", pos):
        got = _json_at(text, pos)
        calls = None if got is None else json_calls(got[0], log, pos)
        if got is None or calls is None:
            return None
        return _closed(text, calls, got[1], _TOOL_CALL_CLOSE_PATTERN)
    return _glm_block(text, pos)


_TOOL_CALL_CLOSE_PATTERN = re.compile(_WS + _TOOL_CALL_CLOSE)
_SPACE_OR_TAG = ("<", *LAYOUT_SPACE)


def _glm_block(text: str, pos: int) -> _Block | None:
    """GLM's ``NAME<arg_key>..``: every ``<`` up to the closing tag must belong to a pair."""
    head = _GLM_HEAD.match(text, pos)
    if head is None:
        return None
    pos = head.end()
    stop = text.find(_TOOL_CALL_CLOSE, pos)
    if stop < 0:
        return None
    pairs = _GLM_PAIR.findall(text, pos, stop)
    if text.count("<", pos, stop) != 4 * len(pairs):
        return None
    raws: dict[str, str] = dict(pairs)
    args: dict[str, Any] = raws.copy()
    for key, raw in raws.items():
        c = raw[:1]  # plain text, the commonest value, stays as it is
        if not c or c in _JSON_STARTS or c.isspace():
            args[key] = _text_or_json(raw)
    calls = [ParsedCall(head.group(1), args, None, 0, 0, raws)]
    return (calls, stop, stop + len(_TOOL_CALL_CLOSE))


# ----------------------------------------------------------------------------- JSON bodies


def _kimi_block(text: str, body: int, _json: JsonCalls, _log: RepairLog) -> _Block | None:
    head = _KIMI_HEAD.match(text, body)
    if head is None:
        return None
    got = _json_at(text, head.end())
    if got is None or not isinstance(got[0], dict):
        return None
    return _closed(text, [ParsedCall(head.group(2), got[0], head.group(1))], got[1], _KIMI_CLOSE)


def _gemma_block(text: str, body: int, _json: JsonCalls, _log: RepairLog) -> _Block | None:
    calls: list[ParsedCall] = []
    pos = body
    match_item = _GEMMA_ITEM.match
    while (m := _GEMMA_CALL.match(text, pos)) is not None:
        args: dict[str, Any] = {}
        pos = m.end()
        while (item := match_item(text, pos)) is not None:
            key, escaped, bare, comma = item.group(1, 2, 3, 4)
            args[key] = escaped if bare is None else _text_or_json(bare)
            pos = item.end()
            if not comma:
                break
        if not text.startswith("}", pos):
            return None
        calls.append(ParsedCall(m.group(1), args))
        pos += 1
    return _closed(text, calls, pos, _GEMMA_CLOSE) if calls else None


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
    return (calls, stop, stop)


BlockReader = Callable[[str, int, JsonCalls, RepairLog], "_Block | None"]

_READERS: dict[str, tuple[str, BlockReader]] = {
    m.open: (m.dialect, reader)
    for m, reader in (
        (TOOL_CALL_MARKER, _tool_call_block),
        (MINIMAX_MARKER, _minimax_block),
        (KIMI_MARKER, _kimi_block),
        (GEMMA_MARKER, _gemma_block),
    )
}
"""Openers read by the fast path (exactly as written: another case goes the general way)."""
_MISTRAL = MISTRAL_MARKER.open
_MISTRAL_READER: tuple[str, BlockReader | None] = ("mistral", None)
"""Mistral's opener: its blocks run to the next marker, read by `_mistral_block`."""


def read_clean_blocks(text: str, begin: int, json_calls: JsonCalls) -> CleanBlocks | None:
    """The calls of an answer made of plain well-formed blocks from ``begin`` on, with no
    reasoning tag anywhere, or ``None`` when the general reader must read it."""
    hit = ALL_MARKERS.search(text, begin)
    if hit is None:
        return None
    opener, start = hit.group(), hit.start()
    # Wrapper tokens count only outside the blocks (`widen` looks past a block's two ends, and
    # no block ends with one), so only the text before, between and after them is searched.
    wrapped = False
    if start > begin:
        if has_marker(text, begin, start):
            return None
        wrapped = has_wrappers(text, begin, start)
    log = RepairLog()
    calls: list[ParsedCall] = []
    spans: list[tuple[int, int]] = []
    size = len(text)
    closes_mistral = -1
    dialect, reader = _READERS.get(opener, _MISTRAL_READER)
    while start >= 0:
        body = start + len(opener)
        if opener == _MISTRAL:
            if closes_mistral < 0:  # once an answer: a closing tag anywhere changes the blocks
                closes_mistral = 1 if _MISTRAL_CLOSE in text else 0
            hit = ALL_MARKERS.search(text, body)
            stop = len(text) if hit is None else hit.start()
            block = None if closes_mistral else _mistral_block(text, body, stop)
        else:
            block = None if reader is None else reader(text, body, json_calls, log)
        if block is None or len(spans) >= MAX_CLEAN_BLOCKS:
            return None
        calls.extend(block[0])
        spans.append((start, block[2]))
        if opener != _MISTRAL:
            # a marker inside a closed block is part of it, as for the general reader; the
            # next block of the same kind, after nothing but whitespace, needs no search
            pos = block[2]
            while pos < size and text[pos] in LAYOUT_SPACE:  # `skip_chars`, once a block
                pos += 1
            if text.startswith(opener, pos):
                start = pos
                continue
            # (an answer that ends with its block, the commonest, needs no search either)
            hit = ALL_MARKERS.search(text, pos) if pos < size else None
            # reasoning can only sit in the text between blocks: nothing in one holds a `<`
            # that is not one of its own tags
            gap_end = size if hit is None else hit.start()
            if gap_end > pos:
                if has_marker(text, pos, gap_end):
                    return None
                wrapped = wrapped or has_wrappers(text, pos, gap_end)
        opener, start = ("", -1) if hit is None else (hit.group(), hit.start())
        reader = _READERS.get(opener, _MISTRAL_READER)[1]
    if wrapped:
        spans = whole_sections(text, [widen(text, a, b) for a, b in spans])
    return (calls, spans, dialect, log)
