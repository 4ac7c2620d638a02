"""What issue 15 left open: text-fallback calls typed by the tools parsers' ``tools=``, gpt-oss
harmony answers without calls, the chat model's token-limit rule, and long answers read whole."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from cpu_clock import best_cpu_seconds
from fake_chat_models import ScriptedChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration
from pydantic import BaseModel

from langchain_robust_parsers.chat_models import TextToolCallingChatModel
from langchain_robust_parsers.engine.calls.call_blocks import MAX_FAILED_BLOCKS
from langchain_robust_parsers.engine.calls.call_stream import remaining_text
from langchain_robust_parsers.engine.calls.dialects import decode_calls
from langchain_robust_parsers.parsers.function_calls import TextToolCallAdapter
from langchain_robust_parsers.parsers.tools import (
    RobustJsonOutputKeyToolsParser,
    RobustJsonOutputToolsParser,
    RobustPydanticToolsParser,
    ToolCallReport,
    ToolsParseReport,
)


class book_table(BaseModel):
    """Book a restaurant table."""

    restaurant: str
    guests: int
    terrace: bool = False
    budget: float | None = None


FLIGHT_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "search_flights",
        "description": "Search flights.",
        "parameters": {
            "type": "object",
            "properties": {
                "origin": {"type": "string"},
                "stops": {"type": "integer"},
                "airlines": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["origin"],
        },
    },
}


def _message(text: str) -> list[ChatGeneration]:
    return [ChatGeneration(message=AIMessage(content=text))]


# --------------------------------------------------------------------------- typed by tools=

QWEN_BOOKING = (
    "I'll book it.\n<tool_call>\n<function=book_table>\n<parameter=restaurant>\n1789\n"
    "</parameter>\n<parameter=guests>\n4\n</parameter>\n<parameter=terrace>\ntrue\n"
    "</parameter>\n</function>\n</tool_call>"
)
GLM_FLIGHTS = (
    "<tool_call>search_flights<arg_key>origin</arg_key><arg_value>0042</arg_value>"
    '<arg_key>stops</arg_key><arg_value>1</arg_value><arg_key>airlines</arg_key><arg_value>["KL", '
    '"AF"]</arg_value></tool_call>'
)
MINIMAX_FLIGHTS = (
    '<minimax:tool_call><invoke name="search_flights"><parameter name="origin">AMS</parameter>'
    '<parameter name="stops">two</parameter></invoke></minimax:tool_call>'
)


def test_xml_parameters_typed_by_pydantic_tools() -> None:
    parser = RobustJsonOutputToolsParser(tools=[book_table])
    got = parser.parse_result(_message(QWEN_BOOKING))
    # the restaurant "1789" stays text (a string parameter); guests and terrace are typed
    assert got == [
        {"type": "book_table", "args": {"restaurant": "1789", "guests": 4, "terrace": True}}
    ]


def test_without_tools_markup_values_stay_as_read() -> None:
    got = RobustJsonOutputToolsParser().parse_result(_message(QWEN_BOOKING))
    assert got[0]["args"]["guests"] == "4"


def test_glm_values_typed_by_an_openai_tool_dict() -> None:
    parser = RobustJsonOutputToolsParser(tools=[FLIGHT_TOOL], return_id=True)
    got = parser.parse_result(_message(GLM_FLIGHTS))
    # GLM reads `0042` as text already; `1` as JSON stays 1; the list is JSON
    assert got[0]["args"] == {"origin": "0042", "stops": 1, "airlines": ["KL", "AF"]}
    assert got[0]["type"] == "search_flights"


def test_a_value_that_does_not_convert_stays_for_the_tool_to_report() -> None:
    parser = RobustJsonOutputToolsParser(tools=[FLIGHT_TOOL])
    got = parser.parse_result(_message(MINIMAX_FLIGHTS))
    assert got[0]["args"] == {"origin": "AMS", "stops": "two"}


def test_the_report_names_each_coercion() -> None:
    parser = RobustJsonOutputToolsParser(tools=[book_table])
    _, report = parser.parse_with_report(AIMessage(content=QWEN_BOOKING))
    assert isinstance(report, ToolsParseReport)
    call: ToolCallReport = report.calls[0]
    names = {r.name for r in call.report.repairs}
    assert {"coerce:book_table.guests:integer", "coerce:book_table.terrace:boolean"} <= names


def test_written_name_matched_to_the_bound_name_before_typing() -> None:
    text = QWEN_BOOKING.replace("function=book_table", "function=Book-Table")
    parser = RobustJsonOutputToolsParser(tools=[book_table], tool_names=["book_table"])
    got = parser.parse_result(_message(text))
    assert got == [
        {"type": "book_table", "args": {"restaurant": "1789", "guests": 4, "terrace": True}}
    ]


def test_key_and_pydantic_parsers_type_text_calls_too() -> None:
    key = RobustJsonOutputKeyToolsParser(key_name="book_table", tools=[book_table])
    assert key.parse_result(_message(QWEN_BOOKING)) == [
        {"restaurant": "1789", "guests": 4, "terrace": True}
    ]
    models = RobustPydanticToolsParser(tools=[book_table]).parse_result(_message(QWEN_BOOKING))
    assert models == [book_table(restaurant="1789", guests=4, terrace=True)]


def test_native_tool_calls_are_left_as_the_provider_gave_them() -> None:
    message = AIMessage(
        content="",
        tool_calls=[{"name": "book_table", "args": {"guests": "4"}, "id": "c1"}],
    )
    parser = RobustJsonOutputToolsParser(tools=[book_table])
    got = parser.parse_result([ChatGeneration(message=message)])
    assert got == [{"type": "book_table", "args": {"guests": "4"}}]


def test_pydantic_parser_still_requires_its_tools() -> None:
    with pytest.raises(ValueError):
        RobustPydanticToolsParser()  # type: ignore[call-arg]


# --------------------------------------------------------------------------- harmony, no call

HARMONY_ANSWER = (
    "<|channel|>analysis<|message|>The user greets me; no tool is needed.<|end|>"
    "<|start|>assistant<|channel|>final<|message|>Hello! How can I help you today?<|return|>"
)


def test_engine_reads_a_harmony_answer_without_calls_as_harmony() -> None:
    decoded = decode_calls(HARMONY_ANSWER)
    assert decoded.calls == ()
    assert decoded.dialect == "harmony"


@pytest.mark.parametrize(
    ("text", "content"),
    [
        (HARMONY_ANSWER, "Hello! How can I help you today?"),
        # the final message alone, as some servers return the assistant turn
        ("<|channel|>final<|message|>Paris is in France.<|end|>", "Paris is in France."),
        # multi-line final text keeps its lines
        (
            "<|channel|>analysis<|message|>List them.<|end|><|start|>assistant<|channel|>final"
            "<|message|>1. Oslo\n2. Bergen<|return|>",
            "1. Oslo\n2. Bergen",
        ),
    ],
)
def test_adapter_leaves_only_the_final_text(text: str, content: str) -> None:
    message = TextToolCallAdapter().invoke(AIMessage(content=text))
    assert isinstance(message, AIMessage)
    assert message.content == content
    assert message.tool_calls == []
    assert "<|channel|>" not in str(message.content)


def test_chat_model_leaves_only_the_final_text() -> None:
    model = TextToolCallingChatModel(ScriptedChatModel(responses=[HARMONY_ANSWER]))
    answer = model.bind_tools([book_table]).invoke("hi")
    assert answer.content == "Hello! How can I help you today?"
    assert answer.tool_calls == []


def test_harmony_with_a_call_is_unchanged() -> None:
    text = (
        "<|channel|>analysis<|message|>Book it.<|end|><|start|>assistant<|channel|>commentary "
        'to=functions.book_table <|constrain|>json<|message|>{"restaurant": "Noma", "guests": 2}'
        "<|call|>"
    )
    message = TextToolCallAdapter(tools=[book_table]).invoke(AIMessage(content=text))
    assert isinstance(message, AIMessage)
    assert [c["args"] for c in message.tool_calls] == [{"restaurant": "Noma", "guests": 2}]


def test_prose_naming_harmony_tokens_is_no_harmony_answer() -> None:
    text = "Harmony messages start with <|start|> and end with <|end|>."
    message = TextToolCallAdapter().invoke(AIMessage(content=text))
    assert message.content == text


# --------------------------------------------------------------------------- token limit

HERMES_CALL = (
    'Let me book.\n<tool_call>\n{"name": "book_table", "arguments": {"restaurant": "Noma", '
    '"guests": 2}}\n</tool_call>'
)


def _model(meta: dict[str, Any], **kwargs: Any) -> Any:
    inner = ScriptedChatModel(responses=[HERMES_CALL], metadata=meta, chunk_size=20)
    return TextToolCallingChatModel(inner, **kwargs).bind_tools([book_table])


@pytest.mark.parametrize(
    "meta", [{"finish_reason": "length"}, {"stop_reason": "max_tokens"}], ids=["openai", "claude"]
)
def test_cut_off_answer_gives_invalid_calls(meta: dict[str, Any]) -> None:
    answer = _model(meta).invoke("book")
    assert answer.tool_calls == []
    assert [c["name"] for c in answer.invalid_tool_calls] == ["book_table"]
    assert "token limit" in answer.invalid_tool_calls[0]["error"]
    assert json.loads(answer.invalid_tool_calls[0]["args"][len("book_table(") : -1]) == {
        "restaurant": "Noma",
        "guests": 2,
    }
    assert answer.content == "Let me book.\n"


def test_chat_model_and_adapter_agree_on_a_cut_off_answer() -> None:
    meta = {"finish_reason": "length"}
    ours = _model(meta).invoke("book")
    adapted = TextToolCallAdapter(tools=[book_table]).invoke(
        AIMessage(content=HERMES_CALL, response_metadata=meta)
    )
    assert isinstance(adapted, AIMessage)
    assert ours.tool_calls == adapted.tool_calls == []
    assert [c["error"] for c in ours.invalid_tool_calls] == [
        c["error"] for c in adapted.invalid_tool_calls
    ]


def test_a_finished_answer_runs_its_calls() -> None:
    answer = _model({"finish_reason": "stop"}).invoke("book")
    assert [c["args"] for c in answer.tool_calls] == [{"restaurant": "Noma", "guests": 2}]
    assert answer.invalid_tool_calls == []


def test_opt_in_keeps_calls_of_a_cut_off_answer() -> None:
    answer = _model({"finish_reason": "length"}, on_truncation="complete").invoke("book")
    assert [c["name"] for c in answer.tool_calls] == ["book_table"]


def test_stream_ends_like_invoke_when_the_stop_reason_comes_with_the_call() -> None:
    chunks = list(_model({"finish_reason": "length"}).stream("book"))
    full = chunks[0]
    for chunk in chunks[1:]:
        full = full + chunk
    assert full.tool_calls == []
    assert [c["name"] for c in full.invalid_tool_calls] == ["book_table"]
    assert full.response_metadata.get("finish_reason") == "length"


# --------------------------------------------------------------------------- long answers


def _hermes(count: int) -> str:
    return "\n".join(
        "<tool_call>\n"
        + json.dumps({"name": "book_table", "arguments": {"restaurant": f"R{i}", "guests": i}})
        + "\n</tool_call>"
        for i in range(count)
    )


def test_every_block_of_a_long_answer_is_read() -> None:
    # more blocks than the old cap of 256, and the content around them is removed
    decoded = decode_calls("Booking all.\n" + _hermes(1200))
    assert len(decoded.calls) == 1200
    assert decoded.calls[-1].args == {"restaurant": "R1199", "guests": 1199}


def test_glm_blocks_past_the_old_cap_are_read() -> None:
    text = "".join(
        f"<tool_call>book_table<arg_key>guests</arg_key><arg_value>{i}</arg_value></tool_call>"
        for i in range(700)
    )
    assert [c.args["guests"] for c in decode_calls(text).calls] == list(range(700))


def _many_broken_blocks() -> tuple[str, str]:
    broken = '<tool_call>{"name": "x", "arguments": {oops}}</tool_call>' * (MAX_FAILED_BLOCKS + 50)
    return _hermes(3), broken


@pytest.mark.slow
def test_many_broken_blocks_cost_bounded_cpu_time() -> None:
    good, broken = _many_broken_blocks()
    assert best_cpu_seconds(lambda: decode_calls(good + broken), 3) < 2.0


def test_many_broken_blocks_are_dropped_without_reading_each() -> None:
    good, broken = _many_broken_blocks()
    decoded = decode_calls(good + broken)
    assert [c.args["guests"] for c in decoded.calls] == [0, 1, 2]
    assert "dropped_block" in decoded.report.repair_names
    assert "oops" not in remaining_text(good + broken, decoded.spans)  # their markers go too


@pytest.mark.slow
def test_reading_calls_grows_linearly() -> None:
    def cost(text: str) -> float:
        return best_cpu_seconds(lambda: decode_calls(text), 3)

    small, big = _hermes(500), _hermes(5000)
    per_byte_small = cost(small) / len(small)
    per_byte_big = cost(big) / len(big)
    assert per_byte_big < 3 * per_byte_small


def test_async_stream_withholds_calls_of_the_cut_chunk_too() -> None:
    async def collect() -> Any:
        full = None
        async for chunk in _model({"finish_reason": "length"}).astream("book"):
            full = chunk if full is None else full + chunk
        return full

    full = asyncio.run(collect())
    assert full.tool_calls == []
    assert [c["name"] for c in full.invalid_tool_calls] == ["book_table"]
