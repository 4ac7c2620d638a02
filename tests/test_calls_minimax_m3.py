"""MiniMax M3's namespaced calls (every tag after ``]<]minimax[>[``, a parameter's name is its
tag, nested tags an object, ``<item>`` tags an array): read by the adapter, the chat model
(streamed alike) and the tools parser; a bound tool's schema types the values."""

from __future__ import annotations

from typing import Any

import pytest
from dialect_family_checks import Calls, adapted, check_adapter, check_chat_model, tool
from fake_chat_models import ScriptedChatModel
from langchain_core.messages import AIMessage

from langchain_robust_parsers.chat_models import TextToolCallingChatModel
from langchain_robust_parsers.engine.calls.dialects import decode_calls

NS = "]<]minimax[>["


def el(name: str, *inner: str) -> str:
    return f"{NS}<{name}>" + "".join(inner) + f"{NS}</{name}>"


def block(*invokes: str) -> str:
    return f"{NS}<tool_call>\n" + "\n".join(invokes) + f"\n{NS}</tool_call>"


def invoke(name: str, *params: str) -> str:
    return f'{NS}<invoke name="{name}">\n' + "\n".join(params) + f"\n{NS}</invoke>"


CASES: list[tuple[str, str, Calls, str]] = [
    (
        "flat parameters after prose",
        "Searching now.\n" + block(invoke("search", el("query", "tide tables"), el("limit", "6"))),
        [("search", {"query": "tide tables", "limit": 6})],
        "Searching now.\n",
    ),
    (
        "a nested object",
        block(invoke("book", el("guest", el("name", "Ada"), el("age", "36")), el("nights", "2"))),
        [("book", {"guest": {"name": "Ada", "age": 36}, "nights": 2})],
        "",
    ),
    (
        "an array of items and an array of objects",
        block(
            invoke(
                "tag",
                el("labels", el("item", "red"), el("item", "blue")),
                el("rows", el("item", el("id", "1")), el("item", el("id", "2"))),
            )
        ),
        [("tag", {"labels": ["red", "blue"], "rows": [{"id": 1}, {"id": 2}]})],
        "",
    ),
    (
        "two calls in one block, keys in Chinese",
        block(invoke("获取天气", el("城市", "上海")), invoke("get_time", el("tz", "UTC"))),
        [("获取天气", {"城市": "上海"}), ("get_time", {"tz": "UTC"})],
        "",
    ),
    (
        "an un-namespaced tag inside a value is data",
        block(invoke("write_file", el("body", "<p>hi</p> and </body>"), el("path", "i.html"))),
        [("write_file", {"body": "<p>hi</p> and </body>", "path": "i.html"})],
        "",
    ),
]
TOOLS = [tool(n) for n in ("search", "book", "tag", "获取天气", "get_time", "write_file")]


@pytest.mark.parametrize(("name", "text", "calls", "content"), CASES, ids=[c[0] for c in CASES])
def test_adapter_and_parser_read_the_calls(
    name: str, text: str, calls: Calls, content: str
) -> None:
    check_adapter(text, calls, content)
    assert decode_calls(text).dialect == "minimax_ns"


@pytest.mark.parametrize(("name", "text", "calls", "content"), CASES, ids=[c[0] for c in CASES])
def test_chat_model_streams_what_it_invokes(
    name: str, text: str, calls: Calls, content: str
) -> None:
    check_chat_model(text, TOOLS, calls, content)


def test_the_tool_schema_types_the_values() -> None:
    schema: dict[str, Any] = {
        "code": {"type": "string"},
        "count": {"type": "integer"},
        "ids": {"type": "array", "items": {"type": "integer"}},
    }
    text = block(
        invoke(
            "lookup",
            el("code", "1234"),
            el("count", "3"),
            el("ids", el("item", "7"), el("item", "8")),
        )
    )
    fake = ScriptedChatModel(responses=[text])
    message = TextToolCallingChatModel(fake).bind_tools([tool("lookup", schema)]).invoke("q")
    assert isinstance(message, AIMessage)
    assert message.tool_calls[0]["args"] == {"code": "1234", "count": 3, "ids": [7, 8]}


def test_a_block_cut_off_inside_a_parameter_gives_no_call() -> None:
    text = f'Let me see.{NS}<tool_call>\n{NS}<invoke name="search">\n{NS}<query>tide'
    assert not adapted(text).tool_calls
