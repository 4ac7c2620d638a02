"""Readers for markup dialects that vary a known form: Hunyuan's key/value tags, Gemma 4's
compact calls, Functionary's recipient lines and CWM's ``<tool:>`` tags.

- Hunyuan (HY v3, HY v4): ``<tool_calls><tool_call>NAME<tool_sep><arg_key>k</arg_key>
  <arg_value>v</arg_value></tool_call></tool_calls>``; HY v4 drops ``<tool_sep>`` and may give
  every tag one checkpoint suffix (``<tool_calls:6124c78e>`` .. ``</arg_value:6124c78e>``). A
  value is JSON when it reads as JSON, else text, as GLM's (the bound tools' schemas type it
  later).
- Gemma 4: ``<|tool_call>call:NAME{key:<|"|>text<|"|>,n:3}<tool_call|>``: FunctionGemma's
  body with ``<|"|>`` as the string delimiter.
- Functionary v3.2: ``>>>NAME\\n{..}`` (``all`` addresses the user: text, no call; ``python``
  takes raw code).

Each reader takes the block body ``text[a:b]`` and whether the block was closed, as the readers
of `markup_calls` do: a call cut off at the end of
the answer is dropped and the answer marked truncated.
"""

from __future__ import annotations

import re

from langchain_robust_parsers.engine.calls.markup_calls import (
    ARG_KEY_CLOSE,
    ARG_KEY_OPEN,
    ARG_VALUE_CLOSE,
    ARG_VALUE_OPEN,
    GEMMA_ESCAPE,
    arg_pairs,
    json_object,
    read_gemma,
)
from langchain_robust_parsers.engine.calls.parsed_call import (
    CallDecodeError,
    ParsedCall,
    drop_cut_call,
)
from langchain_robust_parsers.engine.lexicon.names import TOOL_NAME
from langchain_robust_parsers.engine.lexicon.tags import skip_chars
from langchain_robust_parsers.engine.repair_log import RepairLog

__all__ = [
    "HY_SEP",
    "cwm_unclosed_is_prose",
    "functionary_unclosed_is_prose",
    "is_hunyuan_body",
    "is_hunyuan_call",
    "read_cwm",
    "read_functionary",
    "read_gemma4",
    "read_hunyuan",
]

_SUFFIX = re.compile(r":[^\s<>]{1,64}")
"""A checkpoint suffix of HY v4's tags (a colon and a short hash); bounded, no nesting."""
_WS = " \t\r\n"
HY_SEP = "<tool_sep>"
"""HY v3's separator between a call's name and its arguments."""
_GEMMA4_QUOTE = '<|"|>'


# ----------------------------------------------------------------------------- Hunyuan


def is_hunyuan_body(text: str, a: int, b: int) -> bool:
    """Does a ``<tool_calls>`` body hold Hunyuan's ``<tool_call>`` elements (rather than the
    JSON list of Hunyuan A13B, Jamba and MiniMax-M1)?"""
    return text.startswith("<tool_call", skip_chars(text, a, b))


def is_hunyuan_call(text: str, a: int, b: int) -> bool:
    """Is a ``<tool_call>`` body HY v3's ``NAME<tool_sep>..`` (read alone when the answer was
    cut off before the outer ``</tool_calls>``)?"""
    m = TOOL_NAME.match(text, skip_chars(text, a, b), b)
    return m is not None and text.startswith(HY_SEP, m.end())


def read_hunyuan(text: str, a: int, b: int, log: RepairLog, *, closed: bool) -> list[ParsedCall]:
    """Hunyuan's ``<tool_call{S}>NAME[<tool_sep>]<arg_key{S}>k</arg_key{S}><arg_value{S}>v
    </arg_value{S}></tool_call{S}>`` elements, ``S`` the tags' suffix (none, or HY v4's
    ``:HASH``); the body may start at the outer ``<tool_calls{S}>`` tag."""
    pos = skip_chars(text, a, b)
    suffix = ""
    if text.startswith("<tool_calls", pos):
        m = _SUFFIX.match(text, pos + len("<tool_calls"), b)
        suffix = m.group() if m is not None else ""
        head_end = text.find(">", pos, b)
        if head_end < 0:
            drop_cut_call(log, pos)
            return []
        pos = head_end + 1
    elif not text.startswith("<tool_call", pos):  # the body of one <tool_call> block
        if not closed:
            drop_cut_call(log, pos)
            return []
        return [_hunyuan_call(text, pos, b, "")]
    else:
        m = _SUFFIX.match(text, pos + len("<tool_call"), b)
        suffix = m.group() if m is not None else ""
    outer_end = text.find("</tool_calls" + suffix + ">", pos, b)
    stop = b if outer_end < 0 else outer_end
    opener, closer = "<tool_call" + suffix + ">", "</tool_call" + suffix + ">"
    calls: list[ParsedCall] = []
    start = text.find(opener, pos, stop)
    while start >= 0:
        body = start + len(opener)
        end = text.find(closer, body, stop)
        if end < 0 and not (closed and outer_end >= 0):
            drop_cut_call(log, start)  # the answer ends inside this call
            break
        end = stop if end < 0 else end
        calls.append(_hunyuan_call(text, body, end, suffix))
        start = text.find(opener, end, stop)
    if not calls and not log.truncated:
        raise CallDecodeError("json", "No Hunyuan <tool_call> in the block.", a)
    return calls


def _suffixed(tag: str, suffix: str) -> str:
    """GLM's ``tag`` with HY v4's checkpoint ``suffix`` before its ``>``."""
    return tag[:-1] + suffix + ">"


def _hunyuan_call(text: str, a: int, b: int, suffix: str) -> ParsedCall:
    key_open = _suffixed(ARG_KEY_OPEN, suffix)
    first = text.find(key_open, a, b)
    name_end = b if first < 0 else first
    sep = text.find(HY_SEP, a, name_end)
    name = text[a : name_end if sep < 0 else sep].strip()
    if not TOOL_NAME.fullmatch(name):
        raise CallDecodeError("json", "A Hunyuan tool call without a function name.", a)
    # The caller hands over only calls read whole: an unfinished pair is an error here.
    tags = (
        key_open,
        _suffixed(ARG_KEY_CLOSE, suffix),
        _suffixed(ARG_VALUE_OPEN, suffix),
        _suffixed(ARG_VALUE_CLOSE, suffix),
    )
    pairs = arg_pairs(text, first, b, name, tags, None)
    assert pairs is not None  # no cut-off log: never a cut-off
    args, raws = pairs
    return ParsedCall(name, args, raw=raws)


# ----------------------------------------------------------------------------- Gemma 4


def read_gemma4(text: str, a: int, b: int, log: RepairLog, *, closed: bool) -> list[ParsedCall]:
    """Gemma 4's ``call:NAME{key:<|"|>text<|"|>,...}``: FunctionGemma's form with its own
    string delimiter, read by FunctionGemma's reader (positions in the log are the body's)."""
    body = text[a:b]
    if GEMMA_ESCAPE in body:  # a literal FunctionGemma delimiter inside Gemma 4 text
        raise CallDecodeError("json", "Invalid Gemma 4 call.", a)
    body = body.replace(_GEMMA4_QUOTE, GEMMA_ESCAPE)
    return read_gemma(body, 0, len(body), log, closed=closed)


# ----------------------------------------------------------------------------- Functionary


def functionary_unclosed_is_prose(text: str, a: int, b: int) -> bool:
    """An unclosed ``>>>`` is a Functionary message only as ``>>>NAME`` and a line break;
    otherwise it is an arrow in prose."""
    m = TOOL_NAME.match(text, a, b)
    if m is None:
        return True
    nxt = m.end()
    while nxt < b and text[nxt] in " \t":
        nxt += 1
    return nxt < b and text[nxt] not in "\r\n"


def cwm_unclosed_is_prose(text: str, a: int, b: int) -> bool:
    """A ``<tool: x>`` without its ``</tool>`` is prose naming the tag."""
    return True


def read_functionary(
    text: str, a: int, b: int, log: RepairLog, *, closed: bool
) -> list[ParsedCall]:
    """One ``>>>`` message of Functionary v3.2: ``NAME\\n{..}``; ``all\\n..`` is text for the
    user (no call); ``python\\n..`` is code, passed as ``{"code": ..}``."""
    m = TOOL_NAME.match(text, a, b)
    if m is None:
        raise CallDecodeError("json", "A Functionary message without a recipient.", a)
    name = m.group()
    if name == "all":
        return []
    pos = m.end()
    while pos < b and text[pos] in " \t":
        pos += 1
    if pos >= b:
        drop_cut_call(log, a)
        return []
    if text[pos] == "\n":
        pos += 1
    if name == "python":
        return [ParsedCall(name, {"code": text[pos:b].strip()})]
    start = skip_chars(text, pos, b)
    if start >= b or text[start] != "{":
        if start >= b and not closed:
            drop_cut_call(log, a)
            return []
        raise CallDecodeError("json", f"Invalid arguments for {name!r}: expected a JSON object.", a)
    args, truncated = json_object(text, start, b, log, repr(name))
    if truncated:
        drop_cut_call(log, a)
        return []
    return [ParsedCall(name, args)]


# ----------------------------------------------------------------------------- CWM


def read_cwm(text: str, a: int, b: int, log: RepairLog, *, closed: bool) -> list[ParsedCall]:
    """Code World Model's ``<tool: LABEL>\nNAME rest..</tool>``: the call is named by the first
    word of the body, its arguments are the rest as a JSON object, else ``{"command": rest}``;
    without the ``>`` (``<tool: python print(1)</tool>``) the label is the name."""
    if not closed:
        drop_cut_call(log, a)
        return []
    label = TOOL_NAME.match(text, skip_chars(text, a, b), b)
    if label is None:
        raise CallDecodeError("json", "A <tool:> block without a label.", a)
    after = skip_chars(text, label.end(), b)
    if after < b and text[after] == ">":
        body = skip_chars(text, after + 1, b)
        m = TOOL_NAME.match(text, body, b)
        if m is None:
            raise CallDecodeError("json", "A <tool:> block without a tool name.", body)
        name, rest = m.group(), text[m.end() : b].strip()
    else:
        name, rest = label.group(), text[after:b].strip()
    if rest[:1] == "{":
        args, truncated = json_object(text, text.index("{", a, b), b, log, repr(name))
        if truncated:  # a JSON object that stops before its end is a broken call, not a command
            raise CallDecodeError("json", f"The JSON arguments of {name!r} are cut off.", a)
        return [ParsedCall(name, args)]
    return [ParsedCall(name, {"command": rest})]
