"""The tool-call dialects of current open models: each read into the right calls and the
same remaining content by the decoder, the adapter and the chat model (streamed or not); cut-off
calls never come out as calls; prose that mentions markers is no call."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from cpu_clock import best_cpu_seconds
from dialect_cases import CASES, CUT_OFF, PROSE
from fake_chat_models import ScriptedChatModel
from hypothesis import given, settings, strategies as st
from langchain_core.messages import AIMessage, AIMessageChunk, message_chunk_to_message

from langchain_robust_parsers import FunctionCallOutputParser, TextToolCallAdapter
from langchain_robust_parsers.chat_models import TextToolCallingChatModel
from langchain_robust_parsers.engine.calls.call_stream import CallStreamSplitter, parse_answer
from langchain_robust_parsers.engine.calls.dialect_registry import DIALECT_RECORDS, MARKERS
from langchain_robust_parsers.engine.calls.dialects import DIALECTS, decode_calls
from langchain_robust_parsers.engine.calls.parsed_call import CallDecodeError
from langchain_robust_parsers.engine.lexicon.reasoning import split_reasoning

NAMES = frozenset({"get_weather", "get_time", "search", "write_file"})


def _schema(name: str) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": name, "description": name, "parameters": {"type": "object"}},
    }


TOOLS = [_schema(n) for n in sorted(NAMES)]
IDS = [c[0] for c in CASES]


def calls_of(message: AIMessage) -> list[tuple[str, dict[str, Any]]]:
    return [(c["name"], c["args"]) for c in message.tool_calls]


@pytest.mark.parametrize(("name", "text", "calls", "content"), CASES, ids=IDS)
def test_decoder_reads_the_calls(
    name: str, text: str, calls: list[tuple[str, dict[str, Any]]], content: str
) -> None:
    decoded = decode_calls(text)
    assert [(c.name, c.args) for c in decoded.calls] == calls


@pytest.mark.parametrize(("name", "text", "calls", "content"), CASES, ids=IDS)
def test_adapter_and_chat_model_leave_the_same_content(
    name: str, text: str, calls: list[tuple[str, dict[str, Any]]], content: str
) -> None:
    answer = parse_answer(text, NAMES)
    assert [(c.name, c.args) for c in answer.calls] == calls
    assert answer.content == content
    adapted = TextToolCallAdapter().invoke(AIMessage(content=text))
    assert isinstance(adapted, AIMessage)
    assert calls_of(adapted) == calls
    assert adapted.content == split_reasoning(content)[0]  # reasoning: in reasoning_content
    kept = TextToolCallAdapter(keep_reasoning_in_content=True).invoke(AIMessage(content=text))
    assert kept.content == content


@pytest.mark.parametrize("chunk_size", [1, 5, 64])
@pytest.mark.parametrize(("name", "text", "calls", "content"), CASES, ids=IDS)
def test_stream_ends_with_the_invoke_calls(
    name: str, text: str, calls: list[tuple[str, dict[str, Any]]], content: str, chunk_size: int
) -> None:
    fake = ScriptedChatModel(responses=[text, text], chunk_size=chunk_size)
    bound = TextToolCallingChatModel(fake).bind_tools(TOOLS)
    invoked = bound.invoke("q")
    chunks = list(bound.stream("q"))
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    assert isinstance(total, AIMessageChunk)
    streamed = message_chunk_to_message(total)
    assert isinstance(streamed, AIMessage)
    assert calls_of(invoked) == calls
    assert calls_of(streamed) == calls_of(invoked)
    assert streamed.content == invoked.content == split_reasoning(content)[0]
    reasoning = split_reasoning(text)[1]
    assert invoked.additional_kwargs.get("reasoning_content", "") == reasoning


@pytest.mark.parametrize(("name", "text"), CUT_OFF, ids=[c[0] for c in CUT_OFF])
def test_a_cut_off_call_is_never_a_call(name: str, text: str) -> None:
    with pytest.raises(CallDecodeError, match="cut off"):
        decode_calls(text)
    adapted = TextToolCallAdapter().invoke(AIMessage(content=text))
    assert isinstance(adapted, AIMessage)
    assert not adapted.tool_calls
    assert adapted.invalid_tool_calls and "cut off" in str(adapted.invalid_tool_calls[0]["error"])


@pytest.mark.parametrize("text", PROSE)
def test_prose_that_names_markers_is_no_call(text: str) -> None:
    assert not decode_calls(text).calls
    answer = parse_answer(text, NAMES)
    assert not answer.calls and answer.error is None and answer.content == text
    assert FunctionCallOutputParser(allow_empty=True).parse(text) == []


def test_every_record_is_a_dialect_name_and_its_markers_are_read() -> None:
    names = {r.name for r in DIALECT_RECORDS}
    assert names <= set(DIALECTS)
    assert {m.dialect for m in MARKERS} <= names
    covered = {decode_calls(text).dialect for _n, text, _c, _t in CASES}
    assert {m.dialect for m in MARKERS} - covered <= {
        "python_tag",
        "tool_call_start",
        "function_call",
        "toolcall",
        "command",
        "gigachat",
    }


@pytest.mark.parametrize("record", DIALECT_RECORDS, ids=[r.name for r in DIALECT_RECORDS])
def test_a_dialect_given_by_name_reads_only_its_own_markers(record: Any) -> None:
    texts = [t for _n, t, _c, _x in CASES if decode_calls(t).dialect == record.name]
    for text in texts:
        assert decode_calls(text, dialect=record.name).calls


FRAGMENTS = [
    "<tool_call>",
    "</tool_call>",
    "<function=f>",
    "</function>",
    "<parameter=k>",
    "</parameter>",
    '<invoke name="f">',
    "</invoke>",
    '<parameter name="k" string="false">',
    "<minimax:tool_call>",
    "<｜DSML｜function_calls>",
    "<arg_key>",
    "</arg_key>",
    "<arg_value>",
    "</arg_value>",
    "<|tool_call_begin|>",
    "functions.f:0",
    "<|tool_call_argument_begin|>",
    "<|tool_call_end|>",
    "<|channel|>",
    "commentary to=functions.f",
    "<|message|>",
    "<|call|>",
    "<start_function_call>",
    "call:f{",
    "<escape>",
    "}",
    "[TOOL_CALLS]",
    "[ARGS]",
    "functools[",
    '{"a": ',
    "1",
    '"x"',
    "\n",
    " ",
    "(",
    ")",
]


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=30).map("".join))
def test_any_mix_of_dialect_fragments_gives_calls_or_a_decode_error(text: str) -> None:
    try:
        decoded = decode_calls(text)
    except CallDecodeError:
        decoded = None
    assert decoded is None or all(isinstance(c.args, dict) for c in decoded.calls)
    answer = parse_answer(text, NAMES)
    splitter = CallStreamSplitter(NAMES)
    shown = [splitter.feed(text[i : i + 3]) for i in range(0, len(text), 3)]
    last = splitter.finish(answer)
    streamed = [c for step in [*shown, last] for c in step.calls]
    assert [(c.name, c.args) for c in streamed] == [(c.name, c.args) for c in answer.calls]
    assert "".join(step.content for step in [*shown, last]) == answer.content


def _one_big_call(kind: str, n: int) -> str:
    value = ("abc, def {x} [y] <z " * (n // 20 + 1))[:n]
    if kind == "xml":
        return f"<tool_call>\n<function=f>\n<parameter=k>\n{value}\n</parameter>\n</function>"
    if kind == "glm":
        return f"<tool_call>f<arg_key>k</arg_key><arg_value>{value}</arg_value></tool_call>"
    if kind == "gemma":
        items = ",".join(["1"] * (n // 2))
        return f"<start_function_call>call:f{{k:[{items}]}}<end_function_call>"
    if kind == "minimax":
        params = "".join(f'<parameter name="k{i}">v</parameter>' for i in range(n // 30))
        return f'<minimax:tool_call><invoke name="f">{params}</invoke></minimax:tool_call>'
    return f'<|channel|>commentary to=functions.f json<|message|>{{"k": "{value}"}}<|call|>'


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["xml", "glm", "gemma", "minimax", "harmony"])
def test_markup_readers_are_linear(kind: str) -> None:

    def per_byte(n: int) -> float:
        text = _one_big_call(kind, n)

        def decode() -> None:
            with contextlib.suppress(CallDecodeError):
                decode_calls(text)

        return max(best_cpu_seconds(decode, 3), 1e-6) / len(text)

    assert per_byte(400_000) < 4 * per_byte(20_000)
