"""Muse Glimmer's ``<atem:function_calls>`` calls: read by the adapter, the chat model
(streamed alike) and the tools parser; a bound tool's schema types the text values."""

from __future__ import annotations

import pytest
from dialect_family_checks import Calls, adapted, check_adapter, check_chat_model, tool
from fake_chat_models import ScriptedChatModel
from langchain_core.messages import AIMessage

from langchain_robust_parsers.chat_models import TextToolCallingChatModel
from langchain_robust_parsers.engine.calls.dialects import decode_calls


def block(*invokes: str) -> str:
    return "<atem:function_calls>\n" + "\n".join(invokes) + "\n</atem:function_calls>"


def invoke(name: str, **params: str) -> str:
    body = "".join(f'<atem:parameter name="{k}">{v}</atem:parameter>\n' for k, v in params.items())
    return f'<atem:invoke name="{name}">\n{body}</atem:invoke>'


CASES: list[tuple[str, str, Calls, str]] = [
    (
        "one call after prose",
        "Pulling the calendar.\n" + block(invoke("list_events", day="2026-12-01")),
        [("list_events", {"day": "2026-12-01"})],
        "Pulling the calendar.\n",
    ),
    (
        "two calls",
        block(invoke("get_weather", city="Quito"), invoke("get_time", tz="America/Guayaquil")),
        [("get_weather", {"city": "Quito"}), ("get_time", {"tz": "America/Guayaquil"})],
        "",
    ),
    (
        "markup-like text inside a value",
        block(invoke("write_file", path="a.xml", body="<root><a>1</a></root>")),
        [("write_file", {"path": "a.xml", "body": "<root><a>1</a></root>"})],
        "",
    ),
]
TOOLS = [tool(n) for n in ("list_events", "get_weather", "get_time", "write_file")]


@pytest.mark.parametrize(("name", "text", "calls", "content"), CASES, ids=[c[0] for c in CASES])
def test_adapter_and_parser_read_the_calls(
    name: str, text: str, calls: Calls, content: str
) -> None:
    check_adapter(text, calls, content)
    assert decode_calls(text).dialect == "atem"


@pytest.mark.parametrize(("name", "text", "calls", "content"), CASES, ids=[c[0] for c in CASES])
def test_chat_model_streams_what_it_invokes(
    name: str, text: str, calls: Calls, content: str
) -> None:
    check_chat_model(text, TOOLS, calls, content)


def test_the_tool_schema_types_the_values() -> None:
    text = block(invoke("set_volume", level="7", muted="false"))
    schema = {"level": {"type": "integer"}, "muted": {"type": "boolean"}}
    fake = ScriptedChatModel(responses=[text])
    message = TextToolCallingChatModel(fake).bind_tools([tool("set_volume", schema)]).invoke("q")
    assert isinstance(message, AIMessage)
    assert message.tool_calls[0]["args"] == {"level": 7, "muted": False}


def test_a_block_cut_off_inside_an_invoke_gives_no_call() -> None:
    text = '<atem:function_calls>\n<atem:invoke name="get_weather">\n<atem:parameter name="ci'
    assert not adapted(text).tool_calls
