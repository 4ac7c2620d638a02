"""Inkling's typed message blocks: the ``<|content_invoke_tool_json|>`` call blocks read by the
adapter, the chat model (streamed alike) and the tools parser; the content is the text blocks,
with no block token or tool name left in it."""

from __future__ import annotations

import pytest
from dialect_family_checks import Calls, adapted, check_adapter, check_chat_model, tool

from langchain_robust_parsers.engine.calls.dialects import decode_calls

MSG, END = "<|message_model|>", "<|end_message|>"


def text_block(body: str) -> str:
    return f"{MSG}<|content_text|>{body}{END}"


def call_block(name: str, args: str) -> str:
    return f'{MSG}{name}<|content_invoke_tool_json|>{{"name": "{name}", "args": {args}}}{END}'


CASES: list[tuple[str, str, Calls, str]] = [
    (
        "a call alone",
        call_block("get_weather", '{"city": "Lima"}'),
        [("get_weather", {"city": "Lima"})],
        "",
    ),
    (
        "a text block, then two calls",
        text_block("Checking both.")
        + call_block("get_weather", '{"city": "Lima", "units": "metric"}')
        + call_block("get_time", '{"tz": "America/Lima"}'),
        [
            ("get_weather", {"city": "Lima", "units": "metric"}),
            ("get_time", {"tz": "America/Lima"}),
        ],
        "Checking both.",
    ),
    (
        "a thinking block is never content",
        f"{MSG}<|content_thinking|>Both cities, then compare.{END}"
        + call_block("get_weather", '{"city": "Quito"}'),
        [("get_weather", {"city": "Quito"})],
        "",
    ),
    (
        "nested arguments",
        call_block("search", '{"q": "ferries", "filters": {"days": [1, 2]}, "exact": false}'),
        [("search", {"q": "ferries", "filters": {"days": [1, 2]}, "exact": False})],
        "",
    ),
]
TOOLS = [tool(n) for n in ("get_weather", "get_time", "search")]


@pytest.mark.parametrize(("name", "text", "calls", "content"), CASES, ids=[c[0] for c in CASES])
def test_adapter_and_parser_read_the_calls(
    name: str, text: str, calls: Calls, content: str
) -> None:
    check_adapter(text, calls, content)
    assert decode_calls(text).dialect == "inkling"


@pytest.mark.parametrize(("name", "text", "calls", "content"), CASES, ids=[c[0] for c in CASES])
def test_chat_model_streams_what_it_invokes(
    name: str, text: str, calls: Calls, content: str
) -> None:
    check_chat_model(text, TOOLS, calls, content)


def test_a_call_cut_off_in_its_json_gives_no_call() -> None:
    text = f'{MSG}get_weather<|content_invoke_tool_json|>{{"name": "get_weather", "args": {{"ci'
    assert not adapted(text).tool_calls
