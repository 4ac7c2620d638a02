"""Tool calls as the open models write them, each case written from the format's chat template
or tool-calling documentation: every entry point (``FunctionCallOutputParser`` parsed and
streamed, ``TextToolCallAdapter``, ``RobustJsonOutputToolsParser``, the chat model invoked and
streamed at several chunk sizes) gives the same calls and the same content.

A row is ``(format, model output, expected calls, expected content)``; add a row for a new
output. Tools are bound without schemas, so argument values are as written."""

from __future__ import annotations

import logging

import pytest
from dialect_family_checks import (
    CHUNK_SIZES,
    Calls,
    calls_of,
    check_adapter,
    check_chat_model,
    tool,
)
from fake_chat_models import ScriptedChatModel
from langchain_core.messages import AIMessage, message_chunk_to_message

from langchain_robust_parsers import FunctionCallOutputParser, TextToolCallAdapter
from langchain_robust_parsers.chat_models import TextToolCallingChatModel

_DS = "｜DSML｜"
_DSS = "｜DSML｜ "
_PARIS = [("get_weather", {"city": "Paris"})]
_ROME = [("get_weather", {"city": "Rome"})]

CASES: list[tuple[str, str, Calls, str]] = [
    (
        "qwen3 hermes, reasoning and two calls",
        '<think>\nthe user wants two things\n</think>\n\nLet me check.\n<tool_call>\n{"name": '
        '"get_weather", "arguments": {"city": "東京"}}\n</tool_call>\n<tool_call>\n{"name": '
        '"get_time", "arguments": {}}\n</tool_call>',
        [("get_weather", {"city": "東京"}), ("get_time", {})],
        "Let me check.\n",
    ),
    (
        "qwen3 hermes, a closing tag written inside a string",
        '<tool_call>\n{"name": "write", "arguments": {"text": "use </tool_call> to end"}}\n'
        "</tool_call>",
        [("write", {"text": "use </tool_call> to end"})],
        "",
    ),
    (
        "qwen3 hermes, text after the call",
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n'
        "I will report back.",
        _PARIS,
        "I will report back.",
    ),
    (
        "qwen3-coder, a multi-line value holding markup",
        "<tool_call>\n<function=write_file>\n<parameter=path>\n/tmp/a.py\n</parameter>\n"
        '<parameter=content>\ndef f():\n    return "<x>"\n</parameter>\n</function>\n</tool_call>',
        [("write_file", {"path": "/tmp/a.py", "content": 'def f():\n    return "<x>"'})],
        "",
    ),
    (
        "qwen3-coder, no parameters",
        "Sure.\n<tool_call>\n<function=list_files>\n</function>\n</tool_call>",
        [("list_files", {})],
        "Sure.\n",
    ),
    (
        "glm 4.5, two calls after text",
        "Working.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n"
        "</tool_call>\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Rome"
        "</arg_value>\n</tool_call>",
        _PARIS + _ROME,
        "Working.\n",
    ),
    (
        "glm, </arg_value> written inside a value",
        "<tool_call>say\n<arg_key>text</arg_key>\n<arg_value>use </arg_value> wisely</arg_value>"
        "\n</tool_call>",
        [("say", {"text": "use </arg_value> wisely"})],
        "",
    ),
    (
        "glm 4.7 compact, markup inside a value",
        "<tool_call>write<arg_key>html</arg_key><arg_value><b>bold</b></arg_value></tool_call>",
        [("write", {"html": "<b>bold</b>"})],
        "",
    ),
    (
        "deepseek v3.1, two calls after text",
        'Checking.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": '
        '"Paris"}<｜tool▁call▁end｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{}<｜tool▁call▁end｜>'
        "<｜tool▁calls▁end｜>",
        [*_PARIS, ("get_time", {})],
        "Checking.",
    ),
    (
        "deepseek v3.2 DSML, string and JSON values",
        f'Let me look.\n\n<{_DS}function_calls>\n<{_DS}invoke name="get_weather">\n'
        f'<{_DS}parameter name="city" string="true">Paris</{_DS}parameter>\n'
        f'<{_DS}parameter name="days" string="false">3</{_DS}parameter>\n</{_DS}invoke>\n'
        f"</{_DS}function_calls>",
        [("get_weather", {"city": "Paris", "days": 3})],
        "Let me look.\n\n",
    ),
    (
        "deepseek v4.1 spaced DSML under V3.2's block name",
        f'<{_DSS}function_calls>\n<{_DSS}invoke name="get_weather">\n<{_DSS}parameter '
        f'name="city" string="true">Paris</{_DSS}parameter>\n</{_DSS}invoke>\n'
        f"</{_DSS}function_calls>",
        _PARIS,
        "",
    ),
    (
        "deepseek v4.1 spaced DSML under V4's block name",
        f'Looking.\n<{_DSS}tool_calls>\n<{_DSS}invoke name="get_weather">\n<{_DSS}parameter '
        f'name="city" string="true">Paris</{_DSS}parameter>\n</{_DSS}invoke>\n'
        f"</{_DSS}tool_calls>",
        _PARIS,
        "Looking.\n",
    ),
    (
        "deepseek v4.1 spaced DSML, an invoke without parameters",
        f'<{_DSS}calls>\n<{_DSS}invoke name="list_files">\n</{_DSS}invoke>\n</{_DSS}calls>',
        [("list_files", {})],
        "",
    ),
    (
        "kimi k2, reasoning, text and nested unicode arguments",
        "<think>Need the event.</think>Booking now.<|tool_calls_section_begin|><|tool_call_begin|>"
        'functions.create_event:0<|tool_call_argument_begin|>{"title": "Réunion", "attendees": '
        '[{"name": "Zoë", "optional": false}], "meta": {}}<|tool_call_end|>'
        "<|tool_calls_section_end|>",
        [
            (
                "create_event",
                {"title": "Réunion", "attendees": [{"name": "Zoë", "optional": False}], "meta": {}},
            )
        ],
        "Booking now.",
    ),
    (
        "kimi k2, text after the section",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
        '<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>'
        "Done.",
        _PARIS,
        "Done.",
    ),
    (
        "minimax m2, two invokes in one block",
        'Two lookups.\n<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">'
        'Paris</parameter>\n</invoke>\n<invoke name="get_weather">\n<parameter name="city">Rome'
        "</parameter>\n</invoke>\n</minimax:tool_call>",
        _PARIS + _ROME,
        "Two lookups.\n",
    ),
    (
        "gpt-oss harmony, a preamble then the call",
        "<|channel|>commentary<|message|>Checking the weather.<|end|><|start|>assistant"
        "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
        '{"city": "Paris"}<|call|>',
        _PARIS,
        "Checking the weather.",
    ),
    (
        "gpt-oss harmony, two calls",
        "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
        '{"city": "Paris"}<|call|><|start|>assistant<|channel|>commentary '
        'to=functions.get_weather <|constrain|>json<|message|>{"city": "Rome"}<|call|>',
        _PARIS + _ROME,
        "",
    ),
    (
        "gpt-oss harmony, text before the first channel",
        "Sure<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>"
        '{"city": "Paris"}<|call|>',
        _PARIS,
        "Sure",
    ),
    (
        "llama 3.1 python_tag, two calls",
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}; '
        '{"name": "get_time", "parameters": {"tz": "CET"}}',
        [*_PARIS, ("get_time", {"tz": "CET"})],
        "",
    ),
    (
        "llama 4 pythonic, nested and typed values",
        '[search(query="café", filters={"price": [1, 2]}, exact=True, limit=None)]',
        [("search", {"query": "café", "filters": {"price": [1, 2]}, "exact": True, "limit": None})],
        "",
    ),
    (
        "mistral v3 list, arguments as a JSON string",
        '[TOOL_CALLS] [{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}]',
        _PARIS,
        "",
    ),
    (
        "mistral v11, text before, a call id, nested arguments",
        'I will book.[TOOL_CALLS]book[CALL_ID]a1b2c3d4e[ARGS]{"guest": {"name": "Ana", '
        '"nights": 2}, "notes": []}',
        [("book", {"guest": {"name": "Ana", "nights": 2}, "notes": []})],
        "I will book.",
    ),
    (
        "mistral reasoning model, [THINK] then the call",
        '[THINK]Weather needed.[/THINK][TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
        _PARIS,
        "",
    ),
    (
        "mistral v11, [TOOL_CALLS] written inside an argument string",
        '[TOOL_CALLS]say[ARGS]{"text": "type [TOOL_CALLS] literally"}',
        [("say", {"text": "type [TOOL_CALLS] literally"})],
        "",
    ),
    (
        "granite, text before the list",
        'Here you go.<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
        _PARIS,
        "Here you go.",
    ),
    (
        "seed-oss, reasoning then the call",
        "<seed:think>Let me call.</seed:think>\n<seed:tool_call>\n<function=get_weather>\n"
        "<parameter=city>Paris</parameter>\n</function>\n</seed:tool_call>",
        _PARIS,
        "",
    ),
    (
        "gemma 4, nested values",
        '<|tool_call>call:book{guests:[<|"|>Ana<|"|>,<|"|>Bo<|"|>],nights:2,late:true}<tool_call|>',
        [("book", {"guests": ["Ana", "Bo"], "nights": 2, "late": True})],
        "",
    ),
    (
        "step 3, steptml invoke",
        "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke "
        'name="get_weather"><steptml:parameter name="city">Paris</steptml:parameter>'
        "</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>",
        _PARIS,
        "",
    ),
    (
        "a call written inside reasoning is not a call",
        '<think>I could do <tool_call>{"name": "x", "arguments": {}}</tool_call> but no.</think>\n'
        "The answer is 4.",
        [],
        "The answer is 4.",
    ),
]


def _bfcl(calls: Calls) -> list[dict[str, object]]:
    return [{name: args} for name, args in calls]


@pytest.mark.parametrize(("fmt", "text", "calls", "content"), CASES, ids=[c[0] for c in CASES])
def test_every_entry_point_reads_the_output(
    fmt: str, text: str, calls: Calls, content: str
) -> None:
    parser = FunctionCallOutputParser(allow_empty=True)
    assert parser.parse(text) == _bfcl(calls), fmt
    for size in CHUNK_SIZES:
        chunks = [text[i : i + size] for i in range(0, len(text), size)]
        assert list(parser.transform(iter(chunks)))[-1] == _bfcl(calls), size
    check_adapter(text, calls, content)
    tools = [tool(name) for name in dict.fromkeys(n for n, _ in calls)] or [tool("get_weather")]
    check_chat_model(text, tools, calls, content)


def test_harmony_reasoning_then_call_streams_without_a_conflict(
    caplog: pytest.LogCaptureFixture,
) -> None:
    text = (
        "<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant<|channel|>"
        'commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>'
    )
    fake = ScriptedChatModel(responses=[text], chunk_size=64)
    bound = TextToolCallingChatModel(fake).bind_tools([tool("get_weather")])
    with caplog.at_level(logging.WARNING, logger="langchain_robust_parsers"):
        list(bound.stream("q"))
    assert not [r for r in caplog.records if "differs" in r.getMessage()]


def test_glm_value_left_open_keeps_no_layout_line_break() -> None:
    text = (
        "<tool_call>search\n<arg_key>q</arg_key>\n<arg_value>cats\n<arg_key>n</arg_key>\n"
        "<arg_value>3</arg_value>\n</tool_call>"
    )
    assert FunctionCallOutputParser().parse(text) == [{"search": {"q": "cats", "n": 3}}]


CUT_CASES: list[tuple[str, str, Calls]] = [
    (
        "deepseek v3.1, the second call cut at the token limit",
        '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Paris"}'
        '<｜tool▁call▁end｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Ro',
        _PARIS,
    ),
    (
        "mistral v11, the second call cut at the token limit",
        '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]get_weather[ARGS]{"city": "Ro',
        _PARIS,
    ),
    (
        "kimi k2, the second call cut at the token limit",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
        '<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_call_begin|>'
        'functions.get_weather:1<|tool_call_argument_begin|>{"city": "Ro',
        _PARIS,
    ),
    (
        "glm, the second call cut at the token limit",
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n"
        "</tool_call>\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Ro",
        _PARIS,
    ),
    (
        "deepseek v3.1, the only call cut at the token limit",
        '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Ro',
        [],
    ),
]


@pytest.mark.parametrize(("fmt", "text", "calls"), CUT_CASES, ids=[c[0] for c in CUT_CASES])
def test_whole_calls_before_a_cut_run_alike_everywhere(fmt: str, text: str, calls: Calls) -> None:
    """Under ``finish_reason="length"`` the calls whose blocks closed before the cut run, and
    the cut one does not, in the adapter, the chat model invoked and streamed at every chunk
    size (a streamed call, once shown, is never taken back, so invoke must show it too)."""
    meta = {"finish_reason": "length"}
    message = TextToolCallAdapter().invoke(AIMessage(content=text, response_metadata=meta))
    assert calls_of(message) == calls, fmt
    for size in CHUNK_SIZES:
        fake = ScriptedChatModel(responses=[text, text], chunk_size=size, metadata=meta)
        bound = TextToolCallingChatModel(fake).bind_tools([tool("get_weather")])
        invoked = bound.invoke("q")
        chunks = list(bound.stream("q"))
        total = chunks[0]
        for chunk in chunks[1:]:
            total = total + chunk
        streamed = message_chunk_to_message(total)
        assert isinstance(invoked, AIMessage) and isinstance(streamed, AIMessage)
        assert calls_of(invoked) == calls_of(streamed) == calls, size
