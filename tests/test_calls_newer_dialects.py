"""Behaviour users rely on in the newer tool-call formats beyond the shared case table
(``newer_dialect_cases``): repairs reported, values typed by the bound tools' schemas, Python
keywords as argument names, the tools parser, and the content left around calls."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration

from langchain_robust_parsers import FunctionCallOutputParser, TextToolCallAdapter
from langchain_robust_parsers.engine.calls.call_stream import parse_answer
from langchain_robust_parsers.engine.calls.dialects import decode_calls
from langchain_robust_parsers.engine.calls.remaining_content import content_around_calls
from langchain_robust_parsers.parsers.tools import RobustJsonOutputToolsParser


def _tool(name: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": name,
            "parameters": {"type": "object", "properties": properties},
        },
    }


CATALOG = _tool(
    "find_products",
    {
        "query": {"type": "string"},
        "filters": {"type": "object"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "note": {"type": ["string", "null"]},
        "label": {"type": "string"},
        "limit": {"type": "integer"},
        "options": {"anyOf": [{"type": "object"}, {"type": "string"}]},
    },
)
FLIGHTS = _tool(
    "book_flight",
    {"from": {"type": "string"}, "to": {"type": "string"}, "class": {"type": "string"}},
)


def _adapt(text: str, tools: list[dict[str, Any]] | None = None, **meta: Any) -> AIMessage:
    adapter = TextToolCallAdapter(tools=tools or [])
    out = adapter.invoke(AIMessage(content=text, response_metadata=meta))
    assert isinstance(out, AIMessage)
    return out


def _calls(message: AIMessage) -> list[tuple[str, dict[str, Any]]]:
    return [(c["name"], c["args"]) for c in message.tool_calls]


# --------------------------------------------------------------------------- GLM repairs


@pytest.mark.parametrize(
    ("body", "repair"),
    [
        (
            "<arg_key>city</arg_key><arg_value>Lima<arg_key>days</arg_key><arg_value>2"
            "</arg_value>",
            "unclosed_arg_value",
        ),
        ("<arg_key>city</arg_key>Lima</arg_value><arg_key>days</arg_key><arg_value>2</arg_value>",
         "missing_arg_value_open"),
        ("<arg_key>city</arg_key><arg_value>Lima</arg_value>days</arg_key><arg_value>2</arg_value>",
         "missing_arg_key_open"),
        ("<arg_key>city</arg_key><arg_value>Lima</arg_value><arg_key>days</arg_key><arg_value>2",
         "unclosed_arg_value"),
    ],
)  # fmt: skip
def test_broken_glm_tags_are_repaired_and_reported(body: str, repair: str) -> None:
    decoded = decode_calls(f"<tool_call>get_weather{body}</tool_call>")
    assert [(c.name, c.args) for c in decoded.calls] == [
        ("get_weather", {"city": "Lima", "days": 2})
    ]
    assert repair in decoded.report.repair_names
    answer = parse_answer(f"<tool_call>get_weather{body}</tool_call>", {"get_weather"})
    assert answer.report is not None and repair in answer.report.repair_names


def test_a_first_key_without_its_opener_is_repaired() -> None:
    decoded = decode_calls(
        "<tool_call>get_weather city</arg_key><arg_value>Bern</arg_value></tool_call>"
    )
    assert [(c.name, c.args) for c in decoded.calls] == [("get_weather", {"city": "Bern"})]
    assert "missing_arg_key_open" in decoded.report.repair_names


def test_well_formed_glm_pairs_report_no_repair() -> None:
    decoded = decode_calls(
        "<tool_call>get_weather<arg_key>note</arg_key><arg_value>a <arg_key> b</arg_value>"
        "</tool_call>"
    )
    assert decoded.calls[0].args == {"note": "a <arg_key> b"}
    assert decoded.report.repair_names == ()


# --------------------------------------------------------------------------- schema typing

QWEN_FILTERS = (
    "<tool_call>\n<function=find_products>\n<parameter=query>\nnovels \n</parameter>\n"
    "<parameter=filters>\n{'category': 'books', 'in_stock': True, 'max_price': None}\n"
    "</parameter>\n<parameter=tags>\n['paperback', \"used\"]\n</parameter>\n"
    "<parameter=note>\nnull\n</parameter>\n<parameter=label>\nnull\n</parameter>\n"
    '<parameter=limit>\n5\n</parameter>\n<parameter=options>\n{"sort": "price"}\n'
    "</parameter>\n</function>\n</tool_call>"
)


def test_markup_values_are_typed_by_the_schema() -> None:
    message = _adapt(QWEN_FILTERS, [CATALOG])
    assert _calls(message) == [
        (
            "find_products",
            {
                "query": "novels ",  # a string keeps its trailing white space
                "filters": {"category": "books", "in_stock": True, "max_price": None},
                "tags": ["paperback", "used"],
                "note": None,  # nullable: null is no value
                "label": "null",  # a plain string: the word itself
                "limit": 5,
                "options": {"sort": "price"},  # anyOf: the object before the text
            },
        )
    ]


def test_a_python_literal_with_text_around_it_stays_text() -> None:
    text = (
        "<tool_call>find_products<arg_key>filters</arg_key><arg_value>{'a': 1} or so"
        "</arg_value><arg_key>options</arg_key><arg_value>fast please</arg_value></tool_call>"
    )
    assert _calls(_adapt(text, [CATALOG])) == [
        ("find_products", {"filters": "{'a': 1} or so", "options": "fast please"})
    ]


def test_json_dialect_string_holding_a_python_dict_becomes_the_object() -> None:
    text = (
        '<tool_call>{"name": "find_products", "arguments": {"filters": '
        "\"{'category': 'toys', 'new': False}\"}}</tool_call>"
    )
    assert _calls(_adapt(text, [CATALOG])) == [
        ("find_products", {"filters": {"category": "toys", "new": False}})
    ]


def test_ifm_declared_types_and_schema_agree() -> None:
    text = (
        "<ifm|tool_calls><ifm|tool_call>find_products<ifm|arg_key>label</ifm|arg_key>"
        "<ifm|arg_type>string</ifm|arg_type><ifm|arg_value>0042</ifm|arg_value>"
        "<ifm|arg_key>limit</ifm|arg_key><ifm|arg_value>12</ifm|arg_value></ifm|tool_call>"
        "</ifm|tool_calls>"
    )
    assert _calls(_adapt(text)) == [("find_products", {"label": "0042", "limit": 12})]
    assert _calls(_adapt(text, [CATALOG])) == [("find_products", {"label": "0042", "limit": 12})]


# --------------------------------------------------------------------------- Python keywords


def test_python_keywords_as_argument_names() -> None:
    parser = FunctionCallOutputParser()
    text = '[book_flight(from="SFO", to="NYC", class="economy"), get_time(global=True)]'
    assert parser.parse(text) == [
        {"book_flight": {"from": "SFO", "to": "NYC", "class": "economy"}},
        {"get_time": {"global": True}},
    ]


def test_keyword_names_inside_strings_and_nested_calls() -> None:
    text = 'plan(note="from= is fine here", step=book_flight(from="OSL", to="BGO"))'
    decoded = decode_calls(text)
    assert decoded.calls[0].args == {
        "note": "from= is fine here",
        "step": {"book_flight": {"from": "OSL", "to": "BGO"}},
    }
    assert "keyword_argument_renamed" in decoded.report.repair_names


def test_keyword_names_reach_the_adapter_and_the_tools_parser() -> None:
    text = 'book_flight(from="LIS", to="OPO")'
    assert _calls(_adapt(text, [FLIGHTS])) == [("book_flight", {"from": "LIS", "to": "OPO"})]
    got = RobustJsonOutputToolsParser(tools=[FLIGHTS]).parse_result(
        [ChatGeneration(message=AIMessage(content=text))]
    )
    assert got == [{"type": "book_flight", "args": {"from": "LIS", "to": "OPO"}}]


def test_a_keyword_used_as_a_value_is_still_not_code() -> None:
    # `lambda` as an argument name is renamed; a lambda as a value is source text, never run
    decoded = decode_calls("f(lambda=1, g=lambda x: x)")
    assert decoded.calls[0].args == {"lambda": 1, "g": "lambda x: x"}


# --------------------------------------------------------------------------- tools parser


@pytest.mark.parametrize(
    "text",
    [
        "<ifm|tool_calls><ifm|tool_call>book_flight<ifm|arg_key>to</ifm|arg_key>"
        "<ifm|arg_value>NYC</ifm|arg_value></ifm|tool_call></ifm|tool_calls>",
        '<tool_call>book_flight>{"to": "NYC"}</tool_call>',
        "<tool_call>book_flight to=NYC</tool_call>",
        '<functionname="book_flight"><paramname="to">NYC</param></function>',
    ],
)
def test_tools_parser_reads_the_newer_formats(text: str) -> None:
    parser = RobustJsonOutputToolsParser(tools=[FLIGHTS])
    got = parser.parse_result([ChatGeneration(message=AIMessage(content=text))])
    assert got == [{"type": "book_flight", "args": {"to": "NYC"}}]


def test_async_adapter_reads_ifm() -> None:
    text = (
        "Looking.<ifm|tool_calls><ifm|tool_call>book_flight<ifm|arg_key>to</ifm|arg_key>"
        "<ifm|arg_value>Rome</ifm|arg_value></ifm|tool_call></ifm|tool_calls>"
    )
    out = asyncio.run(TextToolCallAdapter(tools=[FLIGHTS]).ainvoke(AIMessage(content=text)))
    assert isinstance(out, AIMessage)
    assert _calls(out) == [("book_flight", {"to": "Rome"})]
    assert out.content == "Looking."


# --------------------------------------------------------------------------- remaining content


def test_content_around_calls_keeps_every_piece_as_written() -> None:
    text = "Before <A> middle <B>\nafter."
    spans = [(7, 10), (18, 21)]
    assert content_around_calls(text, spans) == "Before  middle \nafter."
    assert content_around_calls("<A>\n  Done.", [(0, 3)]) == "Done."
    assert content_around_calls("Lead:\n<A>\n \n", [(6, 9)]) == "Lead:\n"
    assert content_around_calls("no calls", []) == "no calls"


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("Let me check that.[TOOL_CALLS]", "Let me check that."),
        ("Checking now.\n\n<tool_call>\n", "Checking now.\n\n"),
        ("[THINK]Weather in Oslo.[/THINK]One moment.[TOOL_CALLS]", "One moment."),
    ],
)
def test_an_answer_cut_at_a_call_marker_leaves_the_marker_out(text: str, content: str) -> None:
    message = _adapt(text, finish_reason="length")
    assert not message.tool_calls
    assert message.content == content
    assert parse_answer(text, set()).content.endswith(content)


def test_a_marker_named_inside_a_sentence_stays_in_the_content() -> None:
    text = "Wrap each call in <tool_call>"
    assert _adapt(text).content == text
