"""Arguments typed by the bound tools' schemas (markup values are text by nature), each
coercion named in the report; calls to tools that are not bound and calls cut off are invalid
calls, never calls, unless the user opts in."""

from __future__ import annotations

from typing import Any

import pytest
from fake_chat_models import ScriptedChatModel
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, AIMessageChunk, message_chunk_to_message
from pydantic import BaseModel

from langchain_robust_parsers import FunctionCallOutputParser, TextToolCallAdapter
from langchain_robust_parsers.chat_models import TextToolCallingChatModel
from langchain_robust_parsers.engine.calls.parsed_call import ParsedCall
from langchain_robust_parsers.engine.calls.schema_types import tool_schemas, type_calls


class book_room(BaseModel):  # a tool is named as the model calls it
    """Book a meeting room."""

    room: str
    people: int
    hours: float
    projector: bool
    extras: dict[str, Any]
    invitees: list[str]
    note: str | None = None


XML_ANSWER = (
    "Booking it.\n<tool_call>\n<function=book_room>\n<parameter=room>\n042\n</parameter>\n"
    "<parameter=people>\n6\n</parameter>\n<parameter=hours>\n1.5\n</parameter>\n"
    "<parameter=projector>\ntrue\n</parameter>\n<parameter=extras>\n"
    '{"coffee": true}\n</parameter>\n<parameter=invitees>\n["ana", "bo"]\n</parameter>\n'
    "</function>\n</tool_call>"
)
TYPED = {
    "room": "042",
    "people": 6,
    "hours": 1.5,
    "projector": True,
    "extras": {"coffee": True},
    "invitees": ["ana", "bo"],
}


def test_markup_values_are_typed_by_the_schema_and_each_coercion_is_named() -> None:
    parser = FunctionCallOutputParser(tools=[book_room])
    value, report = parser.parse_with_report(XML_ANSWER)
    assert value == [{"book_room": TYPED}]
    coerced = {n for n in report.repair_names if n.startswith("coerce:")}
    assert coerced == {
        "coerce:book_room.people:integer",
        "coerce:book_room.hours:number",
        "coerce:book_room.projector:boolean",
        "coerce:book_room.extras:object",
        "coerce:book_room.invitees:array",
    }
    untyped = FunctionCallOutputParser().parse(XML_ANSWER)
    assert untyped[0]["book_room"]["people"] == "6"  # without tools the text stays text


def test_a_string_parameter_keeps_the_text_glm_would_read_as_json() -> None:
    text = "<tool_call>book_room<arg_key>room</arg_key><arg_value>12</arg_value></tool_call>"
    assert FunctionCallOutputParser().parse(text) == [{"book_room": {"room": 12}}]
    typed = FunctionCallOutputParser(tools=[book_room]).parse(text)
    assert typed == [{"book_room": {"room": "12"}}]


def test_json_dialects_quoted_numbers_are_typed_and_fitting_values_untouched() -> None:
    schemas = tool_schemas([book_room.model_json_schema()])
    calls, coercions = type_calls(
        [ParsedCall("book_room", {"people": "7", "room": 12, "projector": "False"})], schemas
    )
    assert calls[0].args == {"people": 7, "room": 12, "projector": False}
    assert coercions == ["coerce:book_room.people:integer", "coerce:book_room.projector:boolean"]
    same, none = type_calls([ParsedCall("book_room", {"people": "many"})], schemas)
    assert same[0].args == {"people": "many"} and none == []


def test_unknown_tools_fail_the_parser_unless_allowed() -> None:
    text = '<tool_call>{"name": "drop_tables", "arguments": {}}</tool_call>'
    with pytest.raises(OutputParserException, match="Unknown tool 'drop_tables'"):
        FunctionCallOutputParser(tools=[book_room]).parse(text)
    allowed = FunctionCallOutputParser(tools=[book_room], allow_unknown_tools=True)
    assert allowed.parse(text) == [{"drop_tables": {}}]


def test_adapter_sets_apart_unknown_and_cut_off_calls() -> None:
    text = (
        '<tool_call>{"name": "book_room", "arguments": {"room": "A", "people": "3"}}</tool_call>'
        '<tool_call>{"name": "drop_tables", "arguments": {}}</tool_call>'
        '<tool_call>{"name": "book_room", "arguments": {"room": "B", "peo'
    )
    adapted = TextToolCallAdapter(tools=[book_room]).invoke(AIMessage(content=text))
    assert isinstance(adapted, AIMessage)
    assert [(c["name"], c["args"]) for c in adapted.tool_calls] == [
        ("book_room", {"room": "A", "people": 3})
    ]
    errors = [str(c["error"]) for c in adapted.invalid_tool_calls]
    assert len(errors) == 2
    assert "Unknown tool 'drop_tables'" in errors[0] and "cut off" in errors[1]


@pytest.mark.parametrize("chunk_size", [1, 6])
def test_the_chat_model_types_invoked_and_streamed_calls_alike(chunk_size: int) -> None:
    fake = ScriptedChatModel(responses=[XML_ANSWER, XML_ANSWER], chunk_size=chunk_size)
    bound = TextToolCallingChatModel(fake).bind_tools([book_room])
    invoked = bound.invoke("book it")
    chunks = list(bound.stream("book it"))
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    assert isinstance(total, AIMessageChunk)
    streamed = message_chunk_to_message(total)
    assert isinstance(streamed, AIMessage)
    assert [(c["name"], c["args"]) for c in invoked.tool_calls] == [("book_room", TYPED)]
    assert [(c["name"], c["args"]) for c in streamed.tool_calls] == [("book_room", TYPED)]
    assert invoked.content == streamed.content == "Booking it.\n"


def test_calls_of_an_answer_stopped_at_the_token_limit_are_not_run() -> None:
    text = '[book_room(room="A", people=3)]'
    cut = AIMessage(content=text, response_metadata={"finish_reason": "length"})
    adapted = TextToolCallAdapter().invoke(cut)
    assert isinstance(adapted, AIMessage)
    assert not adapted.tool_calls
    (invalid,) = adapted.invalid_tool_calls
    assert invalid["name"] == "book_room" and "token limit" in str(invalid["error"])
    allowed = TextToolCallAdapter(on_truncation="complete").invoke(cut)
    assert isinstance(allowed, AIMessage)
    assert [c["name"] for c in allowed.tool_calls] == ["book_room"]
