"""The fast path for well-formed call blocks gives exactly what the general reader gives.

Answers are built from blocks of the fast path's dialects, clean and spoilt in the ways models
and hostile text spoil them (values holding ``<`` or markers, other cases, missing closing
tags, prose between and after, wrappers, reasoning), and decoded twice: as shipped, and with the
fast path turned off. Calls, spans, repairs and errors must agree.
"""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings, strategies as st

from langchain_robust_parsers.engine.calls import dialects
from langchain_robust_parsers.engine.calls.clean_blocks import read_clean_blocks
from langchain_robust_parsers.engine.calls.dialects import decode_calls
from langchain_robust_parsers.engine.calls.parsed_call import CallDecodeError

VALUES = [
    "Paris",
    "São Paulo",
    "O'Hare",
    '"quoted"',
    "3",
    "-1.5",
    "07",
    "true",
    "null",
    "",
    " padded ",
    "two\nlines",
    "\n",
    "\r\n",
    "\n\nx\n\n",
    "a, b",
    "<b>bold</b>",
    "x</parameter>",
    "[TOOL_CALLS]",
    "functools[1]",
    "<tool_call>",
    "</TOOL_CALL>",
    '{"a": 1}',
    "[1, 2]",
    "}",
    "<escape>",
    "東京",
]
NAMES = ["get_weather", "web.search", "a-b", "f1", "", "1bad", "x y", "functions.get"]
KEYS = ["city", "days", "unit.name", "", "a b", '"q"']
SEPARATORS = [
    *["", "\n", " ", "\n\n", "Done.", "\nLet me check.\n", ", ", ";"] * 3,
    "<think>then</think>",
    "</Thinking>",
    "<|channel|>final<|message|>ok",
    "<|eot_id|>",
]

# Mostly plain parts, so that whole answers often take the fast path and are compared there.
names = st.sampled_from(NAMES + ["get_weather"] * 12)
keys = st.sampled_from(KEYS + ["city", "days"] * 6)
values = st.sampled_from(VALUES + ["Paris", "3", "two\nlines", "\nx\n"] * 8)
args = st.lists(st.tuples(keys, values), max_size=4)
layout = st.sampled_from(["", "\n", " ", "\r\n", "\n\n"])


@st.composite
def xml_block(draw: st.DrawFn) -> str:
    nl = draw(layout)
    params = "".join(
        f"{nl}<parameter={k}>{draw(layout)}{v}{draw(layout)}</parameter>" for k, v in draw(args)
    )
    open_, close = draw(st.sampled_from([("<tool_call>", "</tool_call>")] * 8 + [("", "")]))
    fn_close = draw(st.sampled_from(["</function>"] * 10 + ["", "</FUNCTION>"]))
    return f"{open_}{nl}<function={draw(names)}>{params}{nl}{fn_close}{nl}{close}"


@st.composite
def glm_block(draw: st.DrawFn) -> str:
    pairs = "".join(
        f"<arg_key>{k}</arg_key>{draw(layout)}<arg_value>{v}</arg_value>{draw(layout)}"
        for k, v in draw(args)
    )
    close = draw(st.sampled_from(["</tool_call>"] * 5 + ["", "</Tool_Call>"]))
    return f"<tool_call>{draw(layout)}{draw(names)}{draw(layout)}{pairs}{close}"


@st.composite
def minimax_block(draw: st.DrawFn) -> str:
    invokes = ""
    for _ in range(draw(st.integers(1, 2))):
        params = "".join(
            f'{draw(layout)}<parameter name="{k}">{v}</parameter>' for k, v in draw(args)
        )
        invokes += f'{draw(layout)}<invoke name="{draw(names)}">{params}{draw(layout)}</invoke>'
    close = draw(st.sampled_from(["</minimax:tool_call>"] * 4 + ["", "</invoke>"]))
    return f"<minimax:tool_call>{invokes}{draw(layout)}{close}"


def _json_args(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    return dict(pairs)


@st.composite
def kimi_block(draw: st.DrawFn) -> str:
    payload = json.dumps(_json_args(draw(args)))
    payload = draw(st.sampled_from([payload] * 4 + [payload[:-1], "[1]", "{bad"]))
    close = draw(st.sampled_from(["<|tool_call_end|>"] * 4 + [""]))
    index = draw(st.sampled_from(["0", "12", "x", ""]))
    return (
        f"<|tool_call_begin|>{draw(layout)}functions.{draw(names)}:{index}"
        f"<|tool_call_argument_begin|>{draw(layout)}{payload}{draw(layout)}{close}"
    )


@st.composite
def gemma_block(draw: st.DrawFn) -> str:
    items = []
    for k, v in draw(args):
        bare = draw(st.booleans()) and v.strip() != ""
        items.append(f"{k}:{v}" if bare else f"{k}:<escape>{v}<escape>")
    body = ",".join(items) + draw(st.sampled_from(["", "", ",", " "]))
    close = draw(st.sampled_from(["<end_function_call>"] * 4 + [""]))
    return f"<start_function_call>call:{draw(names)}{{{body}}}{close}"


@st.composite
def mistral_block(draw: st.DrawFn) -> str:
    payload = json.dumps(_json_args(draw(args)))
    payload = draw(st.sampled_from([payload] * 4 + [payload[:-1], "[1]"]))
    form = draw(st.sampled_from(["[ARGS]", "", "[CALL_ID]a1[ARGS]", " ", "\n"]))
    return f"[TOOL_CALLS]{draw(names)}{form}{payload}"


@st.composite
def hermes_block(draw: st.DrawFn) -> str:
    call: dict[str, Any] = {"name": draw(names), "arguments": _json_args(draw(args))}
    if draw(st.booleans()):
        call["arguments"] = json.dumps(call["arguments"])
    payload = json.dumps(draw(st.sampled_from([call, [call], {"f": {"a": 1}}, [], 3])))
    payload = draw(st.sampled_from([payload] * 4 + [payload[:-1], payload + " x"]))
    close = draw(st.sampled_from(["</tool_call>"] * 4 + ["", "</TOOL_CALL>"]))
    return f"<tool_call>{draw(layout)}{payload}{draw(layout)}{close}"


BLOCKS = st.one_of(
    xml_block(),
    glm_block(),
    minimax_block(),
    kimi_block(),
    gemma_block(),
    mistral_block(),
    hermes_block(),
)
AROUND = st.sampled_from(
    [
        "",
        "",
        "",
        "",
        "",
        "I will check.\n",
        "<think>use <tool_call> tags</think>",
        "\ufeff",
        "<|tool_calls_section_begin|>",
        "<|tool_calls_section_end|>",
        "<|im_end|>",
        "```json\n{}\n```",
    ]
)


def _outcome(text: str, dialect: str) -> Any:
    try:
        return decode_calls(text, dialect=dialect)
    except CallDecodeError as err:
        return ("error", err.kind, err.reason, err.pos)


def _both(text: str, dialect: str = "auto") -> tuple[Any, Any]:
    fast = _outcome(text, dialect)
    with mock.patch.object(dialects, "read_clean_blocks", lambda *_a: None):
        slow = _outcome(text, dialect)
    return fast, slow


@settings(max_examples=1500)
@given(
    AROUND,
    st.lists(st.tuples(BLOCKS, st.sampled_from(SEPARATORS)), min_size=1, max_size=4),
    AROUND,
    st.sampled_from(["auto", "auto", "json", "mistral"]),
)
def test_fast_path_agrees_with_the_general_reader(
    head: str, blocks: list[tuple[str, str]], tail: str, dialect: str
) -> None:
    text = head + "".join(b + s for b, s in blocks) + tail
    fast, slow = _both(text, dialect)
    assert fast == slow


CLEAN = {
    "hermes": '<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>',
    "xml": "<tool_call>\n<function=f>\n<parameter=a>\nx\n</parameter>\n</function>\n</tool_call>",
    "xml_multiline": "<tool_call><function=f><parameter=a>\nx\ny\n</parameter></function>"
    "</tool_call>",
    "glm": "<tool_call>f<arg_key>a</arg_key><arg_value>3</arg_value></tool_call>",
    "minimax": '<minimax:tool_call><invoke name="f"><parameter name="a">x</parameter></invoke>'
    '<invoke name="g"></invoke></minimax:tool_call>',
    "kimi": "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0"
    '<|tool_call_argument_begin|>{"a": 1}<|tool_call_end|><|tool_calls_section_end|>',
    "gemma": "<start_function_call>call:f{a:<escape>x<escape>,n:3}<end_function_call>",
    "mistral": '[TOOL_CALLS]f[ARGS]{"a": 1}[TOOL_CALLS]g{"b": 2}',
}


@pytest.mark.parametrize("name", sorted(CLEAN))
def test_clean_answers_take_the_fast_path(name: str) -> None:
    text = "Let me look.\n" + CLEAN[name] + "\n" + CLEAN[name]
    assert read_clean_blocks(text, 0, lambda v, _log, _pos: None) is not None or name == "hermes"
    fast, slow = _both(text)
    assert fast == slow
    assert not isinstance(fast, tuple) and len(fast.calls) >= 2
