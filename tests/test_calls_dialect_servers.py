"""Behaviour the serving stacks' tool parsers share, checked on our own answers: what content
remains once the calls are out, and details of single families (Llama 3.1's built-in tools,
Hunyuan's answer section, Functionary's recipient lines, Gemma 4's delimiters)."""

from __future__ import annotations

from typing import Any

import pytest
from cpu_clock import best_cpu_seconds
from fake_chat_models import ScriptedChatModel
from hypothesis import given, settings, strategies as st
from langchain_core.messages import AIMessage, AIMessageChunk, message_chunk_to_message

from langchain_robust_parsers import FunctionCallOutputParser, TextToolCallAdapter
from langchain_robust_parsers.chat_models import TextToolCallingChatModel
from langchain_robust_parsers.engine.calls.call_stream import (
    CallStreamSplitter,
    content_before_calls,
    parse_answer,
)
from langchain_robust_parsers.engine.calls.dialects import decode_calls
from langchain_robust_parsers.engine.calls.parsed_call import CallDecodeError

NAMES = frozenset({"get_weather", "get_time"})
HERMES_CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>'


def _tool(name: str) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}


def _adapted(text: str, **kw: Any) -> AIMessage:
    message = TextToolCallAdapter(**kw).invoke(AIMessage(content=text))
    assert isinstance(message, AIMessage)
    return message


def _streamed(text: str, chunk_size: int) -> AIMessage:
    fake = ScriptedChatModel(responses=[text], chunk_size=chunk_size)
    bound = TextToolCallingChatModel(fake).bind_tools([_tool(n) for n in sorted(NAMES)])
    chunks = list(bound.stream("q"))
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    assert isinstance(total, AIMessageChunk)
    message = message_chunk_to_message(total)
    assert isinstance(message, AIMessage)
    return message


# ----------------------------------------------------------------------------- content


@pytest.mark.parametrize(
    ("before", "content"),
    [
        ("Let me check.\n", "Let me check.\n"),
        ("Let me check. ", "Let me check. "),
        ("  Indented first line.\n\n", "  Indented first line.\n\n"),
        ("\n\n", ""),
        ("", ""),
    ],
)
def test_content_is_the_text_before_the_first_call_as_written(before: str, content: str) -> None:
    text = before + HERMES_CALL
    assert parse_answer(text, NAMES).content == content
    assert _adapted(text).content == content
    for size in (1, 4, 64):
        streamed = _streamed(text, size)
        assert streamed.content == content
        assert [c["name"] for c in streamed.tool_calls] == ["get_weather"]


def test_text_between_and_after_calls_stays_in_the_content() -> None:
    text = f"First.\n{HERMES_CALL}\nSecond.\n{HERMES_CALL}\nThird."
    answer = parse_answer(text, NAMES)
    assert [c.name for c in answer.calls] == ["get_weather", "get_weather"]
    assert answer.content == "First.\n\nSecond.\n\nThird."
    assert _adapted(text).content == answer.content
    assert _streamed(text, 7).content == answer.content


def test_content_before_calls_without_calls_is_the_text() -> None:
    assert content_before_calls("no calls here", []) == "no calls here"
    assert content_before_calls("ab<x>cd", [(2, 5)]) == "ab"
    assert content_before_calls(" \t\n<x>", [(3, 6)]) == ""


def test_calls_written_inside_prose_leave_the_prose_around_them() -> None:
    text = 'I will call get_weather(city="Oslo") now, then report back.'
    answer = parse_answer(text, NAMES)
    assert [c.name for c in answer.calls] == ["get_weather"]
    assert answer.content == "I will call now, then report back."


def test_a_malformed_block_beside_good_ones_loses_its_markers_too() -> None:
    text = (
        "Working.<tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key>"
        "<arg_value>Oslo</arg_value></tool_call></tool_calls>"
        "<tool_call>{broken</tool_call>"
    )
    answer = parse_answer(text, NAMES)
    assert [(c.name, c.args) for c in answer.calls] == [("get_weather", {"city": "Oslo"})]
    assert answer.content == "Working."


# ----------------------------------------------------------------------------- families


def test_llama31_built_in_tools_are_named_without_call() -> None:
    text = '<|python_tag|>wolfram_alpha.call(query="integral of x^2")<|eom_id|>'
    decoded = decode_calls(text)
    assert [(c.name, c.args) for c in decoded.calls] == [
        ("wolfram_alpha", {"query": "integral of x^2"})
    ]
    message = _adapted(text, tools=[_tool("wolfram_alpha")])
    assert [(c["name"], c["args"]) for c in message.tool_calls] == [
        ("wolfram_alpha", {"query": "integral of x^2"})
    ]
    assert message.content == ""


def test_a_dotted_name_outside_python_tag_is_kept() -> None:
    decoded = decode_calls("[math.call(x=1)]", dialect="python")
    assert [c.name for c in decoded.calls] == ["math.call"]


def test_hunyuan_answer_without_calls_is_left_alone_and_streams() -> None:
    text = "<think>\nsmall talk\n</think>\n<answer>\nHello! How can I help?\n</answer>"
    assert parse_answer(text, NAMES).content == text
    answer = "<answer>\nHello! How can I help?\n</answer>"  # the reasoning: reasoning_content
    assert _adapted(text).content == answer
    assert _adapted(text).additional_kwargs["reasoning_content"] == "small talk"
    assert _streamed(text, 5).content == answer


def test_an_answer_section_closed_before_the_calls_stays_content() -> None:
    text = f"<answer>Here you go.</answer>\n{HERMES_CALL}"
    assert parse_answer(text, NAMES).content == "<answer>Here you go.</answer>\n"


def test_hunyuan_v4_reads_any_tag_suffix() -> None:
    s = ":a1"
    text = (
        f"<tool_calls{s}><tool_call{s}>get_time<arg_key{s}>tz</arg_key{s}>"
        f"<arg_value{s}>UTC</arg_value{s}></tool_call{s}></tool_calls{s}>"
    )
    assert [(c.name, c.args) for c in decode_calls(text).calls] == [("get_time", {"tz": "UTC"})]


def test_hunyuan_values_are_typed_by_the_bound_tools() -> None:
    schema = {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            },
        },
    }
    text = (
        "<tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key>"
        "<arg_value>123</arg_value><arg_key>days</arg_key><arg_value>3</arg_value>"
        "</tool_call></tool_calls>"
    )
    parser = FunctionCallOutputParser(tools=[schema])
    assert parser.parse(text) == [{"get_weather": {"city": "123", "days": 3}}]


def test_functionary_python_recipient_takes_raw_code() -> None:
    text = ">>>python\nimport math\nprint(math.pi)"
    assert [(c.name, c.args) for c in decode_calls(text).calls] == [
        ("python", {"code": "import math\nprint(math.pi)"})
    ]


def test_functionary_all_alone_is_text() -> None:
    text = "all\nNothing to call here."
    assert decode_calls(text).calls == ()
    assert parse_answer(text, NAMES).content == text


@pytest.mark.parametrize(
    "body",
    ['search {"q": "weather in Par', 'search {"q": "weather", "n": ', 'search {"q": ["a", "b"'],
)
def test_cwm_json_arguments_cut_off_inside_a_closed_block_are_no_call(body: str) -> None:
    with pytest.raises(CallDecodeError):
        decode_calls(f"<tool: search>\n{body}</tool>")
    good = '<tool: search>\nsearch {"q": "a"}</tool>'
    message = TextToolCallAdapter().invoke(AIMessage(f"{good}\n<tool: search>\n{body}</tool>"))
    assert [c["args"] for c in message.tool_calls] == [{"q": "a"}]
    assert len(message.invalid_tool_calls) == 1


def test_cwm_text_after_the_name_is_a_command() -> None:
    calls = decode_calls("<tool: bash>\nbash ls -la /tmp</tool>").calls
    assert [(c.name, c.args) for c in calls] == [("bash", {"command": "ls -la /tmp"})]


def test_gemma4_call_closed_by_end_of_turn() -> None:
    q = '<|"|>'
    text = f"<|tool_call>call:get_weather{{city:{q}Lima{q}}}<turn|>"
    assert [(c.name, c.args) for c in decode_calls(text).calls] == [
        ("get_weather", {"city": "Lima"})
    ]


def test_gemma4_with_functiongemma_delimiter_inside_is_refused() -> None:
    with pytest.raises(CallDecodeError):
        decode_calls("<|tool_call>call:f{k:<escape>v<escape>}<tool_call|>")


@pytest.mark.parametrize(
    "text",
    [
        "In the REPL:\n>>> import os\n>>> os.getcwd()",
        "The arrow >>>right points right.",
        "a >>> b means shifted, not a call",
    ],
)
def test_arrows_in_prose_are_no_functionary_call(text: str) -> None:
    answer = parse_answer(text, NAMES)
    assert not answer.calls and answer.content == text and answer.error is None
    message = _adapted(text)
    assert not message.tool_calls and not message.invalid_tool_calls


def test_deepseek_ascii_spellings_lose_their_wrapper_tokens() -> None:
    text = (
        'Sure.<|tool▁calls▁begin|><|tool▁call▁begin|>get_time<|tool▁sep|>{"tz": "UTC"}'
        "<|tool▁call▁end|><|tool▁calls▁end|><|end▁of▁sentence|>"
    )
    answer = parse_answer(text, NAMES)
    assert [(c.name, c.args) for c in answer.calls] == [("get_time", {"tz": "UTC"})]
    assert answer.content == "Sure."
    assert _streamed(text, 3).content == "Sure."


def test_kimi_and_step3_markers_still_read_their_own_bodies() -> None:
    kimi = (
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_time:0"
        '<|tool_call_argument_begin|>{"tz": "UTC"}<|tool_call_end|><|tool_calls_section_end|>'
    )
    step3 = (
        "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>"
        '<steptml:invoke name="get_time"><steptml:parameter name="tz">UTC</steptml:parameter>'
        "</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>"
    )
    for text in (kimi, step3):
        assert [(c.name, c.args) for c in decode_calls(text).calls] == [("get_time", {"tz": "UTC"})]


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "Alice", "age": 31}',
        'The record: {"name": "get_weather", "unit": "C", "source": "api"}',
        '[{"name": "Oslo", "population": 709000}]',
    ],
)
def test_json_data_with_a_name_is_no_call(text: str) -> None:
    # Outside markers an object is a call only with its arguments key (or nothing but its
    # name): the servers' JSON parsers want one too.
    assert decode_calls(text).calls == ()
    answer = parse_answer(text, NAMES | {"Alice", "Oslo"})
    assert not answer.calls and answer.content == text


def test_a_bare_call_without_arguments_is_still_a_call() -> None:
    assert [(c.name, c.args) for c in decode_calls('{"name": "get_time"}').calls] == [
        ("get_time", {})
    ]


SERVER_FRAGMENTS = [
    ">>>",
    "all\n",
    "get_time\n",
    "<answer>\n",
    "</answer>",
    "<tool_calls>",
    "</tool_calls>",
    "<tool_calls:9f>",
    "<tool_call:9f>",
    "</tool_call:9f>",
    "<tool_call>",
    "</tool_call>",
    "<tool_sep>",
    "<arg_key>k</arg_key>",
    "<arg_value>",
    "</arg_value>",
    "<|tool_call>",
    "call:f{",
    '<|"|>',
    "<tool_call|>",
    "<|tool▁calls▁begin|>",
    "<|tool▁call▁begin|>",
    "<|tool_sep|>",
    "<|tool_call_end|>",
    "analysis",
    "<|message|>",
    "<|call|>",
    "commentary to=functions.f",
    '{"a": 1}',
    "[",
    "]",
    "x",
    "\n",
    " ",
]


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.lists(st.sampled_from(SERVER_FRAGMENTS), max_size=24).map("".join))
def test_streamed_pieces_add_up_to_the_whole_answer(text: str) -> None:
    answer = parse_answer(text, NAMES | {"f", "get_time"})
    for size in (1, 3):
        splitter = CallStreamSplitter(NAMES | {"f", "get_time"})
        shown = [splitter.feed(text[i : i + size]) for i in range(0, len(text), size)]
        last = splitter.finish(answer)
        streamed = [c for step in [*shown, last] for c in step.calls]
        assert [(c.name, c.args) for c in streamed] == [(c.name, c.args) for c in answer.calls]
        assert "".join(step.content for step in [*shown, last]) == answer.content
        assert not last.conflicts


def _many_calls(kind: str, n: int) -> str:
    if kind == "hunyuan":
        one = (
            "<tool_call>get_time<tool_sep><arg_key>tz</arg_key><arg_value>UTC</arg_value>"
            "</tool_call>"
        )
        return "<tool_calls>" + one * (n // len(one) + 1) + "</tool_calls>"
    if kind == "hunyuan_v4":
        s = ":9f"
        one = (
            f"<tool_call{s}>get_time<arg_key{s}>tz</arg_key{s}><arg_value{s}>UTC"
            f"</arg_value{s}></tool_call{s}>"
        )
        return f"<tool_calls{s}>" + one * (n // len(one) + 1) + f"</tool_calls{s}>"
    if kind == "gemma4":
        one = '<|tool_call>call:get_time{tz:<|"|>UTC<|"|>}<tool_call|>'
        return one * (n // len(one) + 1)
    one = '>>>get_time\n{"tz": "UTC"}'
    return one * (n // len(one) + 1)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["hunyuan", "hunyuan_v4", "gemma4", "functionary"])
def test_new_readers_are_linear(kind: str) -> None:

    def per_byte(n: int) -> float:
        text = _many_calls(kind, n)
        best = best_cpu_seconds(lambda: decode_calls(text), 3)
        return max(best, 1e-6) / len(text)

    assert per_byte(400_000) < 4 * per_byte(20_000)


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>{"name": "get_weather", "arguments": {invalid json}}</tool_call>',
        '<tool_call>{"name": "get_weather", "arguments": {"city": }}</tool_call>',
        '>>>get_weather\n{"city": }',
        "<|channel|>commentary to=functions.get_weather <|constrain|>json"
        '<|message|>{"city": }<|call|>',
        '[TOOL_CALLS]get_weather[ARGS]{"city": "Oslo" and more words}',
    ],
)
def test_arguments_that_would_be_invented_make_no_call(text: str) -> None:
    with pytest.raises(CallDecodeError, match="Malformed"):
        decode_calls(text)
    message = _adapted(text)
    assert not message.tool_calls
    assert message.invalid_tool_calls and "Malformed" in str(message.invalid_tool_calls[0]["error"])


def test_a_malformed_block_beside_a_good_one_is_an_invalid_call() -> None:
    text = (
        f"Both.\n{HERMES_CALL}\n"
        '<tool_call>{"name": "get_time", "arguments": {"tz": }}</tool_call>'
    )
    message = _adapted(text)
    assert [c["name"] for c in message.tool_calls] == ["get_weather"]
    assert [c["error"] for c in message.invalid_tool_calls] == [
        "A tool call block was malformed; it was not run."
    ]
    assert message.content == "Both.\n"
    streamed = _streamed(text, 5)
    assert [c["name"] for c in streamed.tool_calls] == ["get_weather"]
    assert streamed.content == "Both.\n"


def test_a_cut_off_call_after_a_good_one_streams_as_invalid_not_as_a_nameless_call() -> None:
    text = f'{HERMES_CALL}\n<tool_call>{{"name": "get_time", "arguments": {{"tz": "Eu'
    for size in (3, 64):
        streamed = _streamed(text, size)
        assert [c["name"] for c in streamed.tool_calls] == ["get_weather"]
        assert [c["args"] for c in streamed.invalid_tool_calls] == ["(cut off)"]


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "get_weather", "arguments": {"city": }}',
        '```json\n[{"name": "get_weather", "arguments": {invalid json}}]\n```',
    ],
)
def test_bare_and_fenced_calls_with_invented_arguments_are_no_calls(text: str) -> None:
    with pytest.raises(CallDecodeError, match="Malformed"):
        decode_calls(text)
    assert not parse_answer(text, NAMES).calls
