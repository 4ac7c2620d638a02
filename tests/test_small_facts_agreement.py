"""Small facts with one home each: what a tool name looks like, when a quote is escaped, the
words for true/false/null, how a cut JSON input is completed, whether a number still being
written shows in a typed partial value. Every entry point gives the same answer, and the last
section fails when a second copy of a fact appears in the package."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.outputs import ChatGeneration
from pydantic import BaseModel

from langchain_robust_parsers import (
    FunctionCallOutputParser,
    ReActOutputParser,
    RobustJsonOutputParser,
    RobustPydanticOutputParser,
    TextToolCallAdapter,
    loads,
)
from langchain_robust_parsers.engine.lexicon.escapes import backslashes_before, escaped_at
from langchain_robust_parsers.engine.lexicon.names import TOOL_NAME
from langchain_robust_parsers.parsers.tools import (
    RobustJsonOutputToolsParser,
    RobustPydanticToolsParser,
)

PACKAGE = Path(__file__).resolve().parent.parent / "langchain_robust_parsers"

# ----------------------------------------------------------------------------- tool names

WEATHER_CALLS = {
    # One call to a tool named in Chinese, in each form a model writes a name in.
    "json": '<tool_call>{"name": "查询天气", "arguments": {"城市": "北京"}}</tool_call>',
    "qwen3_coder": (
        "<tool_call>\n<function=查询天气>\n<parameter=城市>\n北京\n</parameter>\n"
        "</function>\n</tool_call>"
    ),
    "glm": (
        "<tool_call>查询天气\n<arg_key>城市</arg_key>\n<arg_value>北京</arg_value>\n</tool_call>"
    ),
    "glm_json": '<tool_call>查询天气>{"城市": "北京"}</tool_call>',
    "mistral": '[TOOL_CALLS]查询天气[ARGS]{"城市": "北京"}',
    "name_line": '查询天气\n{"城市": "北京"}',
}


@pytest.mark.parametrize("form", sorted(WEATHER_CALLS))
def test_a_non_latin_tool_name_reads_alike_in_every_form(form: str) -> None:
    # Before one pattern, Mistral's, GLM's JSON form and the name line read only ASCII names
    # while the XML and JSON forms read any script: the same call ran or vanished by dialect.
    text = WEATHER_CALLS[form]
    assert FunctionCallOutputParser().parse(text) == [{"查询天气": {"城市": "北京"}}]
    message = TextToolCallAdapter().invoke(AIMessage(content=text))
    assert [(c["name"], c["args"]) for c in message.tool_calls] == [("查询天气", {"城市": "北京"})]


def test_react_takes_a_call_wrapper_off_an_input_whatever_the_script() -> None:
    text = 'Thought: ask the tool\nAction: weather\nAction Input: 查询({"城市": "北京"})'
    step = ReActOutputParser().parse(text)
    assert json.loads(step.tool_input) == {"城市": "北京"}  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        ("get_weather", True),
        ("functions.get_weather", True),
        ("get-weather", True),
        ("_private", True),
        ("天气", True),
        ("9lives", False),
        ("-flag", False),
    ],
)
def test_what_a_tool_name_looks_like(name: str, ok: bool) -> None:
    assert (TOOL_NAME.fullmatch(name) is not None) is ok


# ----------------------------------------------------------------------------- escapes


@pytest.mark.parametrize(
    ("text", "pos", "escaped"),
    [
        ('"a"', 2, False),
        ('"a\\"', 3, True),
        ('"a\\\\"', 4, False),
        ('"a\\\\\\"', 5, True),
        ("ends in \\", 9, True),
        ("ends in \\\\", 10, False),
    ],
)
def test_an_odd_run_of_backslashes_escapes(text: str, pos: int, escaped: bool) -> None:
    assert escaped_at(text, pos) is escaped
    assert backslashes_before(text, pos) % 2 == int(escaped)


def test_a_run_is_counted_only_from_where_the_string_starts() -> None:
    # The backslashes before a string's opening quote are not part of its content.
    assert backslashes_before('\\\\"\\"', 3, start=3) == 0
    assert escaped_at('\\\\"\\"', 4, start=3)


@pytest.mark.parametrize(
    "text",
    [
        '{"path": "C:\\\\Users\\\\", "n": 1}',
        '{"say": "he said \\"hi\\"", "n": 1}',
        '{"say": "\\\\\\"", "n": 1}',
        '{"a": "x\\\\"}',
    ],
)
@pytest.mark.parametrize("size", [1, 3, 7])
def test_every_reader_ends_a_string_at_the_same_quote(text: str, size: int) -> None:
    expected = json.loads(text)
    assert loads(text) == expected
    assert loads(text.replace("{", "{\n// note\n", 1)) == expected  # the repairing route
    parser = RobustJsonOutputParser()
    chunks = [text[i : i + size] for i in range(0, len(text), size)]
    assert list(parser.transform(iter(chunks)))[-1] == expected


# ----------------------------------------------------------------------------- ReAct input

REACT = "Thought: look it up\nAction: search\nAction Input: "


@pytest.mark.parametrize(
    "written",
    [
        '{"query": "rust", "limit": 5',
        '{"query": "rust", "lim',  # an unfinished key is dropped, as the JSON parsers drop it
        '{"path": "C:\\',  # an escape cut at the end is not a quote
        '{"a": 1, "b": tr',  # a literal whose completion is unique
        '{"note": "line one\nline two',  # a line break typed in a string
        '{"tags": ["a", "b"',
    ],
)
def test_a_cut_action_input_is_completed_as_the_json_parsers_complete_it(written: str) -> None:
    # ReAct completed cut inputs with a closer-counting copy of its own: an unfinished key or
    # literal left the input unreadable, and an escape cut at the end became a quote.
    step = ReActOutputParser().parse(REACT + written)
    assert json.loads(step.tool_input) == loads(written)  # type: ignore[union-attr]
    assert json.loads(step.tool_input) == RobustJsonOutputParser().parse(written)  # type: ignore[union-attr]


def test_an_input_that_needs_other_repairs_is_handed_on_as_written() -> None:
    written = "{'query': 'rust'"
    step = ReActOutputParser().parse(REACT + written)
    assert step.tool_input == written  # type: ignore[union-attr]


# ----------------------------------------------------------------------------- typed partials


class Order(BaseModel):
    item: str
    qty: int
    price: float


ORDERS = [
    '{"item": "green tea", "qty": 125, "price": 2.5}',
    '{"item": "rice", "price": 10.75, "qty": 3}',
    '{"qty": "40", "item": "oolong", "price": "1.25"}',  # numbers written as strings
]


def _tool_chunks(args: str, size: int) -> Iterator[AIMessageChunk]:
    yield AIMessageChunk(
        content="", tool_call_chunks=[{"name": "Order", "args": "", "id": "c1", "index": 0}]
    )
    for i in range(0, len(args), size):
        piece = args[i : i + size]
        yield AIMessageChunk(
            content="", tool_call_chunks=[{"name": None, "args": piece, "id": None, "index": 0}]
        )


def _fields_shown(models: list[Any]) -> list[tuple[str, Any]]:
    return [
        (name, getattr(model, name))
        for model in models
        for name in ("qty", "price")
        if getattr(model, name, None) is not None
    ]


@pytest.mark.parametrize("text", ORDERS)
@pytest.mark.parametrize("size", [1, 2, 5])
def test_a_typed_partial_never_shows_a_number_before_it_is_whole(text: str, size: int) -> None:
    # The Pydantic tools parser validated the arguments as they stood, so ``price`` showed 2.0
    # while "2.5" was arriving; the Pydantic parser left the growing number out. One rule now.
    final = Order.model_validate_json(text)
    chunks = [text[i : i + size] for i in range(0, len(text), size)]
    pydantic_stream = list(
        RobustPydanticOutputParser(pydantic_object=Order, partial=True).transform(iter(chunks))
    )
    tools_stream = [
        calls[0]
        for calls in RobustPydanticToolsParser(tools=[Order]).transform(_tool_chunks(text, size))
        if calls
    ]
    for stream in (pydantic_stream, tools_stream):
        assert stream[-1] == final
        for name, value in _fields_shown(stream):
            assert value == getattr(final, name), (name, value)


def test_untyped_partial_arguments_show_a_number_digit_by_digit() -> None:
    # Dict arguments follow langchain-core's partial JSON (a number appears as it is written);
    # only a typed value waits for the whole number.
    shown = [
        calls[0]["args"].get("qty")
        for calls in RobustJsonOutputToolsParser().transform(_tool_chunks('{"qty": 125}', 1))
        if calls
    ]
    assert [q for q in shown if q is not None] == [1, 12, 125]


def test_a_finished_call_before_the_open_one_shows_its_last_number() -> None:
    first = '{"item": "tea", "qty": 2, "price": 4}'
    chunks = [
        AIMessageChunk(
            content="",
            tool_call_chunks=[{"name": "Order", "args": first, "id": "c1", "index": 0}],
        ),
        AIMessageChunk(
            content="",
            tool_call_chunks=[{"name": "Order", "args": '{"item": "co', "id": "c2", "index": 1}],
        ),
    ]
    message = chunks[0] + chunks[1]
    shown = RobustPydanticToolsParser(tools=[Order]).parse_result(
        [ChatGeneration(message=message)], partial=True
    )
    assert shown == [Order(item="tea", qty=2, price=4)]  # the second lacks required fields
