"""Kimi K3's XTML calls (``<|open|>tools<|sep|>`` sections of ``call`` and ``argument``
elements): read by the adapter, the chat model (streamed alike) and the tools parser, with
escaped attribute values, typed arguments, and the think and response sections kept out of the
content."""

from __future__ import annotations

import pytest
from dialect_family_checks import Calls, adapted, check_adapter, check_chat_model, tool

from langchain_robust_parsers.engine.calls.dialects import decode_calls

OPEN, C, S = "<|open|>", "<|close|>", "<|sep|>"


def tools(*calls: str) -> str:
    return f"{OPEN}tools{S}" + "".join(calls) + f"{C}tools{S}"


def call(name: str, index: int, *args: str) -> str:
    return f'{OPEN}call tool="{name}" index="{index}"{S}' + "".join(args) + f"{C}call{S}"


def arg(key: str, value: str, type_: str = "string") -> str:
    return f'{OPEN}argument key="{key}" type="{type_}"{S}{value}{C}argument{S}'


CASES: list[tuple[str, str, Calls, str]] = [
    (
        "one call with typed arguments",
        "Let me look.\n"
        + tools(call("get_weather", 1, arg("city", "Nairobi"), arg("days", "5", "integer"))),
        [("get_weather", {"city": "Nairobi", "days": 5})],
        "Let me look.\n",
    ),
    (
        "two calls, object and array arguments",
        tools(
            call("search", 1, arg("q", "rust async"), arg("opts", '{"limit": 3}', "object")),
            call("tag", 2, arg("labels", '["a", "b"]', "array"), arg("on", "true", "boolean")),
        ),
        [
            ("search", {"q": "rust async", "opts": {"limit": 3}}),
            ("tag", {"labels": ["a", "b"], "on": True}),
        ],
        "",
    ),
    (
        "escaped attribute values",
        tools(call("say", 1, arg("a&amp;b", "x"), arg("q&quot;k", "y"))),
        [("say", {"a&b": "x", 'q"k': "y"})],
        "",
    ),
    (
        "a string argument that looks like JSON stays text",
        tools(call("say", 1, arg("text", "[not a list]"), arg("n", "42"))),
        [("say", {"text": "[not a list]", "n": "42"})],
        "",
    ),
    (
        "a closing token written inside a value is data",
        tools(call("write_file", 1, arg("body", f"end with {C}argument{S} then"), arg("p", "x"))),
        [("write_file", {"body": f"end with {C}argument{S} then", "p": "x"})],
        "",
    ),
    (
        "think and response sections",
        f"{OPEN}think{S}The user wants Oslo.{C}think{S}{OPEN}response{S}On it."
        + tools(call("get_weather", 1, arg("city", "Oslo")))
        + f"{C}response{S}",
        [("get_weather", {"city": "Oslo"})],
        "On it.",
    ),
]
TOOLS = [tool(n) for n in ("get_weather", "search", "tag", "say", "write_file")]


@pytest.mark.parametrize(("name", "text", "calls", "content"), CASES, ids=[c[0] for c in CASES])
def test_adapter_and_parser_read_the_calls(
    name: str, text: str, calls: Calls, content: str
) -> None:
    check_adapter(text, calls, content)
    assert decode_calls(text).dialect == "xtml"


@pytest.mark.parametrize(("name", "text", "calls", "content"), CASES, ids=[c[0] for c in CASES])
def test_chat_model_streams_what_it_invokes(
    name: str, text: str, calls: Calls, content: str
) -> None:
    check_chat_model(text, TOOLS, calls, content)


def test_the_think_section_is_reasoning() -> None:
    text = f"{OPEN}think{S}Check Oslo first.{C}think{S}" + tools(
        call("get_weather", 1, arg("city", "Oslo"))
    )
    message = adapted(text)
    assert message.additional_kwargs.get("reasoning_content") == "Check Oslo first."
    assert message.content == ""


def test_a_section_cut_off_inside_a_call_gives_no_call() -> None:
    text = tools()[: -len(f"{C}tools{S}")] + f'{OPEN}call tool="get_weather" index="1"{S}{OPEN}argu'
    assert not adapted(text).tool_calls


def test_a_response_without_calls_loses_its_frame() -> None:
    message = adapted(f"{OPEN}response{S}Nothing to call.{C}response{S}")
    assert message.content == "Nothing to call."
    assert not message.tool_calls


def test_the_end_of_message_token_is_no_content() -> None:
    text = f"{OPEN}response{S}Hello there.{C}response{S}{C}message{S}"
    assert adapted(text).content == "Hello there."
    calls_text = tools(call("get_time", 1, arg("tz", "UTC"))) + f"{C}message{S}"
    check_adapter(calls_text, [("get_time", {"tz": "UTC"})], "")
    check_chat_model(calls_text, [tool("get_time")], [("get_time", {"tz": "UTC"})], "")
