"""RobustJsonOutputToolsParser, RobustJsonOutputKeyToolsParser, RobustPydanticToolsParser.

What a user of native tool calling relies on: broken or cut-off calls repaired instead of
dropped, names matched to the bound tools, calls written in the text picked up, errors that name
the call, and streaming whose partial values are langchain-core's, computed in linear time.
"""

from __future__ import annotations

import copy
import functools
import itertools
import json
import operator
import pickle
import random
from collections.abc import Callable, Iterator
from typing import Any

import jsonpatch
import pydantic
import pytest
from cpu_clock import best_cpu_seconds
from event_recorders import EventRecorder
from fake_chat_models import ToolStreamingModel
from hypothesis import HealthCheck, given, settings, strategies as st
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.tool import invalid_tool_call, tool_call_chunk
from langchain_core.output_parsers import (
    JsonOutputKeyToolsParser,
    JsonOutputToolsParser,
    PydanticToolsParser,
)
from langchain_core.outputs import ChatGeneration, Generation
from langchain_core.runnables import RunnableLambda
from pydantic import BaseModel, Field, ValidationError

from langchain_robust_parsers import (
    RobustJsonOutputParser,
    TextToolCallAdapter,
    TextToolCallingChatModel,
)
from langchain_robust_parsers.engine.calls.tool_args import (
    ToolArgumentsError,
    ToolNameMatcher,
    decode_arguments,
)
from langchain_robust_parsers.engine.json.value_stream import StreamedList
from langchain_robust_parsers.engine.stats import ParseStats
from langchain_robust_parsers.parsers.tools import (
    RobustJsonOutputKeyToolsParser,
    RobustJsonOutputToolsParser,
    RobustPydanticToolsParser,
    ToolsParseReport,
)

# --------------------------------------------------------------------------- helpers


class GetWeather(BaseModel):
    """Weather for a city."""

    city: str
    days: int = 1


class GetTime(BaseModel):
    """Current time in a time zone."""

    tz: str


class Person(BaseModel):
    age: int
    hair_color: str
    job: str


class NameCollector(BaseModel):
    names: list[str] = Field(..., description="all names mentioned")
    person: Person


def invalid_message(args: str, name: str = "get_weather", call_id: str = "call_1") -> AIMessage:
    """A message as langchain-openai builds one for a call whose JSON does not load: the call
    in ``invalid_tool_calls`` and the raw call in ``additional_kwargs``."""
    raw = {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}
    return AIMessage(
        content="",
        additional_kwargs={"tool_calls": [raw]},
        invalid_tool_calls=[invalid_tool_call(name=name, args=args, id=call_id, error="bad")],
    )


def chunked_message(args: str, name: str = "get_weather") -> AIMessageChunk:
    """The accumulated chunk of a streamed call (LangChain sorts it into tool_calls or
    invalid_tool_calls with parse_partial_json)."""
    return AIMessageChunk(
        content="", tool_call_chunks=[tool_call_chunk(name=name, args=args, id="c1", index=0)]
    )


def pieces(text: str, rnd: random.Random, most: int = 6) -> list[str]:
    out = []
    pos = 0
    while pos < len(text):
        n = rnd.randint(1, most)
        out.append(text[pos : pos + n])
        pos += n
    return out


def stream_of(
    calls: list[tuple[str, str]], *, seed: int = 0, most: int = 6, raw: bool = False
) -> list[AIMessageChunk]:
    """Calls ``(name, argument text)`` streamed as a provider streams them, their pieces
    interleaved at random: as ``tool_call_chunks``, or as OpenAI deltas in
    ``additional_kwargs["tool_calls"]`` with ``raw=True``."""
    rnd = random.Random(seed)
    queues: list[list[tuple[int, str | None, str | None, str]]] = []
    for index, (name, args) in enumerate(calls):
        parts = pieces(args, rnd, most)
        queue = [(index, name, f"call_{index}", parts[0] if parts else "")]
        queue += [(index, None, None, p) for p in parts[1:]]
        queues.append(queue)
    out = [AIMessageChunk(content="")]
    while any(queues):
        index, name, call_id, piece = rnd.choice([q for q in queues if q]).pop(0)
        if raw:
            delta = {
                "index": index,
                "id": call_id,
                "function": {"name": name, "arguments": piece},
                "type": "function" if name else None,
            }
            out.append(AIMessageChunk(content="", additional_kwargs={"tool_calls": [delta]}))
        else:
            chunk = tool_call_chunk(name=name, args=piece, id=call_id, index=index)
            out.append(AIMessageChunk(content="", tool_call_chunks=[chunk]))
    return out


def stream(parser: Any, chunks: list[Any]) -> list[Any]:
    return list(parser.transform(iter(chunks)))


def merged(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    return functools.reduce(operator.add, chunks)


def _consume(values: Iterator[Any]) -> None:
    for _ in values:
        pass


def _best_time(fn: Callable[[], None], runs: int = 3) -> float:
    return best_cpu_seconds(fn, runs)


# --------------------------------------------------------------------------- repair

BROKEN = [
    pytest.param('{"city": "Paris", "days": 3,}', {"city": "Paris", "days": 3}, id="trailing"),
    pytest.param("{'city': 'Paris', 'days': 3}", {"city": "Paris", "days": 3}, id="quotes"),
    pytest.param('{"city": "Paris", "days": 3', {"city": "Paris", "days": 3}, id="cut-off"),
    pytest.param('{"city": "Par', {"city": "Par"}, id="cut-off-string"),
    pytest.param(json.dumps(json.dumps({"city": "Paris"})), {"city": "Paris"}, id="double"),
    pytest.param('{\\"city\\": \\"Paris\\"}', {"city": "Paris"}, id="escaped-quotes"),
    pytest.param('```json\n{"city": "Paris"}\n```', {"city": "Paris"}, id="fenced"),
    pytest.param('Arguments: {"city": "Paris"}', {"city": "Paris"}, id="prose"),
    pytest.param('{"ok": True, "note": None}', {"ok": True, "note": None}, id="python"),
    pytest.param('[{"city": "Paris"}]', {"city": "Paris"}, id="one-object-list"),
]


@pytest.mark.parametrize(("args", "expected"), BROKEN)
def test_invalid_tool_calls_are_repaired(args: str, expected: dict[str, Any]) -> None:
    message = invalid_message(args)
    want = [{"args": expected, "type": "get_weather"}]
    assert RobustJsonOutputToolsParser().invoke(message) == want
    assert RobustJsonOutputToolsParser().invoke(chunked_message(args)) == want
    # langchain-core drops or rejects the same call
    try:
        core = JsonOutputToolsParser().invoke(message)
    except OutputParserException:
        core = None
    assert core != want


def test_repaired_call_report() -> None:
    parser = RobustJsonOutputToolsParser()
    value, report = parser.parse_with_report(invalid_message('{"city": "Paris",}'))
    assert value == [{"args": {"city": "Paris"}, "type": "get_weather"}]
    assert isinstance(report, ToolsParseReport)
    assert report.outcome == "recovered"
    (call,) = report.calls
    assert call.origin == "invalid_tool_calls"
    assert call.report.repair_names == ("trailing_comma",)
    assert call.to_dict()["outcome"] == "recovered"

    _, report = parser.parse_with_report(invalid_message('{"city": "Par'))
    assert report.calls[0].report.truncated

    _, report = parser.parse_with_report(
        AIMessage(content="", tool_calls=[{"name": "f", "args": {"a": 1}, "id": "1"}])
    )
    assert report.outcome == "success"
    assert not report.repaired


def test_valid_and_repaired_calls_keep_the_models_order() -> None:
    raws = [
        {"id": "1", "type": "function", "function": {"name": "a", "arguments": "{'x': 1}"}},
        {"id": "2", "type": "function", "function": {"name": "b", "arguments": '{"y": 2}'}},
    ]
    message = AIMessage(
        content="",
        additional_kwargs={"tool_calls": raws},
        tool_calls=[{"name": "b", "args": {"y": 2}, "id": "2"}],
        invalid_tool_calls=[invalid_tool_call(name="a", args="{'x': 1}", id="1", error="e")],
    )
    out = RobustJsonOutputToolsParser(return_id=True).invoke(message)
    assert out == [
        {"args": {"x": 1}, "id": "1", "type": "a"},
        {"args": {"y": 2}, "id": "2", "type": "b"},
    ]


def test_legacy_additional_kwargs_calls_are_repaired() -> None:
    raw = {"id": "1", "type": "function", "function": {"name": "f", "arguments": "{a: 1,}"}}
    message = AIMessage(content="", additional_kwargs={"tool_calls": [raw]})
    with pytest.raises(OutputParserException):
        JsonOutputToolsParser().invoke(message)
    assert RobustJsonOutputToolsParser().invoke(message) == [{"args": {"a": 1}, "type": "f"}]


def test_on_truncation_raise_makes_cut_off_calls_errors() -> None:
    parser = RobustJsonOutputToolsParser(on_truncation="raise")
    with pytest.raises(OutputParserException, match="cut off"):
        parser.invoke(invalid_message('{"command": "rm -rf /tmp/ca'))
    assert parser.invoke(invalid_message('{"a": 1,}')) == [
        {"args": {"a": 1}, "type": "get_weather"}
    ]


def test_empty_and_null_arguments_mean_no_parameters() -> None:
    for args in ("", "   ", "null"):
        out = RobustJsonOutputToolsParser().invoke(invalid_message(args))
        assert out == [{"args": {}, "type": "get_weather"}]


def test_decode_arguments_engine_function() -> None:
    assert decode_arguments('{"a": 1}') == ({"a": 1}, decode_arguments('{"a": 1}')[1])
    value, report = decode_arguments("{'a': 1,}")
    assert value == {"a": 1} and report.repaired
    with pytest.raises(ToolArgumentsError):
        decode_arguments("[1, 2]")
    with pytest.raises(ToolArgumentsError):
        decode_arguments("no arguments here")
    with pytest.raises(ToolArgumentsError, match="cut off"):
        decode_arguments('{"a": "b', allow_truncated=False)
    err = pickle.loads(pickle.dumps(ToolArgumentsError("x", 3)))
    assert (err.reason, err.pos) == ("x", 3)


# --------------------------------------------------------------------------- names


@pytest.mark.parametrize(
    "written",
    ["get_weather", "GET_WEATHER", "get-weather", "Get.Weather", "functions.get_weather"],
)
def test_names_are_matched_to_bound_tools(written: str) -> None:
    message = AIMessage(content="", tool_calls=[{"name": written, "args": {}, "id": "1"}])
    parser = RobustJsonOutputToolsParser(tool_names=["get_weather", "math.factorial"])
    assert parser.invoke(message) == [{"args": {}, "type": "get_weather"}]
    _, report = parser.parse_with_report(message)
    assert report.calls[0].renamed == (written != "get_weather")


def test_dotted_and_underscored_names_match_each_other() -> None:
    parser = RobustJsonOutputToolsParser(tool_names=["math.factorial"])
    message = AIMessage(content="", tool_calls=[{"name": "math_factorial", "args": {}, "id": "1"}])
    assert parser.invoke(message) == [{"args": {}, "type": "math.factorial"}]
    matcher = ToolNameMatcher(["math_factorial"])
    assert matcher.match("math.factorial") == "math_factorial"


def test_unbound_and_ambiguous_names_are_left_alone() -> None:
    matcher = ToolNameMatcher(["get_weather", "getWeather"])
    assert matcher.match("getWeather") == "getWeather"  # exact first
    assert matcher.match("GET-WEATHER") is None  # both fold to the same key
    message = AIMessage(content="", tool_calls=[{"name": "other", "args": {}, "id": "1"}])
    assert RobustJsonOutputToolsParser(tool_names=["get_weather"]).invoke(message) == [
        {"args": {}, "type": "other"}
    ]
    assert RobustJsonOutputToolsParser().invoke(message) == [{"args": {}, "type": "other"}]


def test_key_parser_matches_its_key_loosely() -> None:
    message = AIMessage(
        content="",
        tool_calls=[
            {"name": "Get-Weather", "args": {"city": "Oslo"}, "id": "1"},
            {"name": "other", "args": {"x": 1}, "id": "2"},
        ],
    )
    parser = RobustJsonOutputKeyToolsParser(key_name="get_weather")
    assert parser.invoke(message) == [{"city": "Oslo"}]
    assert JsonOutputKeyToolsParser(key_name="get_weather").invoke(message) == []


def test_pydantic_names_title_class_name_and_loose() -> None:
    class Custom(BaseModel):
        model_config = {"title": "my_tool"}
        value: int

    parser = RobustPydanticToolsParser(tools=[Custom, GetWeather])
    calls = [
        {"name": "my_tool", "args": {"value": 1}, "id": "1"},
        {"name": "Custom", "args": {"value": 2}, "id": "2"},
        {"name": "get_weather", "args": {"city": "Oslo"}, "id": "3"},
    ]
    out = parser.invoke(AIMessage(content="", tool_calls=calls))
    assert out == [Custom(value=1), Custom(value=2), GetWeather(city="Oslo")]


@pytest.mark.parametrize("partial", [False, True])
def test_pydantic_unknown_tool_raises(partial: bool) -> None:
    parser = RobustPydanticToolsParser(tools=[GetWeather])
    message = AIMessage(content="", tool_calls=[{"name": "Unknown", "args": {}, "id": "1"}])
    with pytest.raises(OutputParserException, match="Unknown tool type: 'Unknown'"):
        parser.parse_result([ChatGeneration(message=message)], partial=partial)


def test_pydantic_partial_name_still_arriving_is_not_unknown() -> None:
    parser = RobustPydanticToolsParser(tools=[GetWeather])
    for name in ("", "Get", "get_wea"):
        message = AIMessage(content="", tool_calls=[{"name": name, "args": {}, "id": "1"}])
        assert parser.parse_result([ChatGeneration(message=message)], partial=True) == []


# --------------------------------------------------------------------------- text fallback

HERMES = (
    "I'll check the weather.\n<tool_call>\n"
    '{"name": "get_weather", "arguments": {"city": "Paris", "days": 2,}}\n</tool_call>'
)


def test_text_fallback_hermes_dialect() -> None:
    out = RobustJsonOutputToolsParser(return_id=True).invoke(AIMessage(content=HERMES))
    assert len(out) == 1
    assert out[0]["type"] == "get_weather"
    assert out[0]["args"] == {"city": "Paris", "days": 2}
    assert out[0]["id"].startswith("call_")
    assert JsonOutputToolsParser().invoke(AIMessage(content=HERMES)) == []


def test_text_fallback_python_dialect() -> None:
    text = '[get_weather(city="Paris"), get_time(tz="UTC")]'
    out = RobustJsonOutputToolsParser().invoke(AIMessage(content=text))
    assert out == [
        {"args": {"city": "Paris"}, "type": "get_weather"},
        {"args": {"tz": "UTC"}, "type": "get_time"},
    ]
    fenced = '```python\nget_weather(city="Rome")\n```'
    assert RobustJsonOutputKeyToolsParser(key_name="get_weather").invoke(
        AIMessage(content=fenced)
    ) == [{"city": "Rome"}]


def test_text_fallback_with_bound_names_keeps_only_their_calls() -> None:
    text = 'Sure: [get_weather(city="Paris"), launch_rockets(n=3)]'
    parser = RobustJsonOutputToolsParser(tool_names=["get_weather"])
    assert parser.invoke(AIMessage(content=text)) == [
        {"args": {"city": "Paris"}, "type": "get_weather"}
    ]
    models = RobustPydanticToolsParser(tools=[GetWeather]).invoke(
        AIMessage(content='<tool_call>{"name": "GetWeather", "arguments": {"city": "Oslo"}}')
    )
    assert models == [GetWeather(city="Oslo")]


@pytest.mark.parametrize(
    "text",
    [
        "The weather in Paris is sunny.",
        'Here is the data: {"name": "Alice", "age": 30}',
        "Use print(x) to see it, or len(items).",
        'In Python: get_weather(city="Paris") would work.',
        "",
    ],
)
def test_text_fallback_does_not_invent_calls(text: str) -> None:
    assert RobustJsonOutputToolsParser().invoke(AIMessage(content=text)) == []
    assert RobustJsonOutputToolsParser(first_tool_only=True).invoke(AIMessage(content=text)) is None


def test_text_fallback_off_and_native_calls_first() -> None:
    parser = RobustJsonOutputToolsParser(text_fallback=False)
    assert parser.invoke(AIMessage(content=HERMES)) == []
    native = AIMessage(content=HERMES, tool_calls=[{"name": "x", "args": {}, "id": "1"}])
    assert RobustJsonOutputToolsParser().invoke(native) == [{"args": {}, "type": "x"}]


def test_text_input_and_parse() -> None:
    parser = RobustJsonOutputToolsParser()
    assert parser.invoke(HERMES) == [{"args": {"city": "Paris", "days": 2}, "type": "get_weather"}]
    assert parser.parse(HERMES) == parser.invoke(HERMES)
    with pytest.raises(OutputParserException, match="chat generation"):
        RobustJsonOutputToolsParser(text_fallback=False).parse(HERMES)
    with pytest.raises(OutputParserException):
        JsonOutputToolsParser().invoke(HERMES)


def test_text_fallback_outcome_and_stats() -> None:
    stats = ParseStats()
    parser = RobustJsonOutputToolsParser(stats=stats)
    _, report = parser.parse_with_report(HERMES)
    assert report.outcome == "fallback"
    assert report.calls[0].origin == "text"
    parser.invoke(invalid_message("{'a': 1}"))
    parser.invoke(AIMessage(content="", tool_calls=[{"name": "f", "args": {}, "id": "1"}]))
    with pytest.raises(OutputParserException):
        parser.invoke(invalid_message("not json"))
    counts = stats.snapshot()
    assert counts["tools"] == {"success": 1, "recovered": 1, "fallback": 1, "failed": 1}


# --------------------------------------------------------------------------- errors


def test_unrecoverable_call_names_the_tool_and_its_arguments() -> None:
    with pytest.raises(OutputParserException) as info:
        RobustJsonOutputToolsParser().invoke(invalid_message("city = Paris", name="get_weather"))
    assert "get_weather" in str(info.value)
    assert "city = Paris" in str(info.value)
    assert info.value.llm_output == "city = Paris"
    with pytest.raises(OutputParserException, match="not an object"):
        RobustJsonOutputToolsParser().invoke(invalid_message("[1, 2, 3]", name="f"))


def test_only_returned_calls_must_resolve() -> None:
    message = AIMessage(
        content="",
        tool_calls=[{"name": "good", "args": {"a": 1}, "id": "1"}],
        invalid_tool_calls=[invalid_tool_call(name="bad", args="???", id="2", error="e")],
    )
    assert RobustJsonOutputKeyToolsParser(key_name="good").invoke(message) == [{"a": 1}]
    assert RobustJsonOutputToolsParser(first_tool_only=True).invoke(message) == {
        "args": {"a": 1},
        "type": "good",
    }
    with pytest.raises(OutputParserException, match="bad"):
        RobustJsonOutputToolsParser().invoke(message)


def test_pydantic_validation_failure_is_an_output_parser_exception() -> None:
    message = AIMessage(
        content="",
        tool_calls=[{"name": "NameCollector", "args": {"names": ["suz"]}, "id": "c9"}],
        response_metadata={"stop_reason": "max_tokens"},
    )
    parser = RobustPydanticToolsParser(tools=[NameCollector], first_tool_only=True)
    with pytest.raises(OutputParserException) as info:
        parser.invoke(message)
    text = str(info.value)
    assert "NameCollector" in text and '["suz"]' in text and "max_tokens" in text
    assert isinstance(info.value.__cause__, ValidationError)
    assert json.loads(info.value.llm_output or "") == {"names": ["suz"]}


def test_pydantic_coercion_and_report() -> None:
    message = AIMessage(
        content="",
        tool_calls=[{"name": "getweather", "args": {"City": "Paris", "days": "3"}, "id": "1"}],
    )
    with pytest.raises(ValidationError):
        PydanticToolsParser(tools=[GetWeather]).invoke(
            AIMessage(
                content="", tool_calls=[{"name": "GetWeather", "args": {"City": "P"}, "id": "1"}]
            )
        )
    value, report = RobustPydanticToolsParser(tools=[GetWeather]).parse_with_report(message)
    assert value == [GetWeather(city="Paris", days=3)]
    names = report.calls[0].report.repair_names
    assert "coerce:match_key" in names and "tool_name" in names
    assert report.outcome == "recovered"


def test_pydantic_repairs_invalid_calls_too() -> None:
    parser = RobustPydanticToolsParser(tools=[GetWeather])
    assert parser.invoke(invalid_message("{'city': 'Oslo', 'days': 2", name="GetWeather")) == [
        GetWeather(city="Oslo", days=2)
    ]


# --------------------------------------------------------------------------- streaming

TWO_CALLS = [
    ("get_weather", json.dumps({"city": "Paris", "days": 3, "notes": ["a b", "c"]})),
    ("get_time", json.dumps({"tz": "Europe/Paris", "format": {"h24": 1, "sep": ":"}})),
]


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("raw", [False, True])
def test_stream_of_interleaved_calls_matches_langchain(seed: int, raw: bool) -> None:
    chunks = stream_of(TWO_CALLS, seed=seed, raw=raw)
    for ours, core in (
        (RobustJsonOutputToolsParser(), JsonOutputToolsParser()),
        (RobustJsonOutputToolsParser(return_id=True), JsonOutputToolsParser(return_id=True)),
        (
            RobustJsonOutputToolsParser(first_tool_only=True),
            JsonOutputToolsParser(first_tool_only=True),
        ),
        (
            RobustJsonOutputKeyToolsParser(key_name="get_time"),
            JsonOutputKeyToolsParser(key_name="get_time"),
        ),
        (
            RobustJsonOutputKeyToolsParser(key_name="get_time", first_tool_only=True),
            JsonOutputKeyToolsParser(key_name="get_time", first_tool_only=True),
        ),
    ):
        expected = stream(core, chunks)
        if ours.first_tool_only and type(ours) is RobustJsonOutputToolsParser:
            # langchain-core returns [] rather than its documented None for a message with no
            # tool calls at all (its stream's first chunk); ours returns None, not yielded
            assert expected[0] == []
            expected = expected[1:]
        assert stream(ours, chunks) == expected


def test_partial_values_look_like_langchains() -> None:
    chunks = stream_of([("f", '{"s": "ab", "n": 12.5, "l": [1]}')], most=1)
    values = [v[0]["args"] for v in stream(RobustJsonOutputToolsParser(), chunks)[1:]]
    assert values[:5] == [{}, {"s": ""}, {"s": "a"}, {"s": "ab"}, {"s": "ab", "n": 1}]
    assert {"s": "ab", "n": 12} in values  # digit by digit; "12." is 12 and not repeated
    assert values[-1] == {"s": "ab", "n": 12.5, "l": [1]}
    assert all("" not in v for v in values)  # a key without a value is never shown


def test_stream_through_a_chat_model() -> None:
    answer = AIMessage(
        content="Checking both.",
        tool_calls=[
            {"name": "GetWeather", "args": {"city": "Paris", "days": 2}, "id": "c1"},
            {"name": "GetTime", "args": {"tz": "UTC"}, "id": "c2"},
        ],
    )
    llm = ToolStreamingModel(answer=answer)
    chain = llm | RobustJsonOutputToolsParser(return_id=True)
    values = list(chain.stream("hi"))
    assert values[-1] == chain.invoke("hi")
    assert values[-1] == [
        {"args": {"city": "Paris", "days": 2}, "id": "c1", "type": "GetWeather"},
        {"args": {"tz": "UTC"}, "id": "c2", "type": "GetTime"},
    ]
    core = list((llm | JsonOutputToolsParser(return_id=True)).stream("hi"))
    assert values == core
    pydantic_chain = llm | RobustPydanticToolsParser(tools=[GetWeather, GetTime])
    assert list(pydantic_chain.stream("hi"))[-1] == [
        GetWeather(city="Paris", days=2),
        GetTime(tz="UTC"),
    ]


def test_pydantic_stream_matches_langchain() -> None:
    calls = [
        (
            "NameCollector",
            json.dumps(
                {
                    "names": ["suzy", "al"],
                    "person": {"age": 39, "hair_color": "brown", "job": "concierge"},
                }
            ),
        ),
        ("GetWeather", json.dumps({"city": "Paris", "days": 3})),
    ]
    for seed in range(3):
        chunks = stream_of(calls, seed=seed)
        for first in (False, True):
            tools: list[type[BaseModel]] = [NameCollector, GetWeather]
            ours = stream(RobustPydanticToolsParser(tools=tools, first_tool_only=first), chunks)
            core = stream(PydanticToolsParser(tools=tools, first_tool_only=first), chunks)
            assert ours == core


def test_stream_shows_lenient_arguments_and_ends_repaired() -> None:
    chunks = stream_of([("f", "{'city': 'Paris', 'tags': ['a', 'b',],}")], most=3)
    values = stream(RobustJsonOutputToolsParser(), chunks)
    assert {"args": {"city": "Pa"}, "type": "f"} in [v[0] for v in values if v]
    assert values[-1] == [{"args": {"city": "Paris", "tags": ["a", "b"]}, "type": "f"}]
    assert stream(JsonOutputToolsParser(), chunks)[-1] == []  # langchain-core shows nothing


def test_cut_off_stream_ends_with_the_repaired_call() -> None:
    chunks = stream_of([("f", '{"city": "Paris", "note": "bring an umbr')])
    assert stream(RobustJsonOutputToolsParser(), chunks)[-1] == [
        {"args": {"city": "Paris", "note": "bring an umbr"}, "type": "f"}
    ]
    stats = ParseStats()
    strict = RobustJsonOutputToolsParser(on_truncation="raise", stats=stats)
    shown: list[Any] = []
    with pytest.raises(OutputParserException, match="cut off"):
        shown.extend(strict.transform(iter(chunks)))
    # partial values are shown; then the stream raises what invoke raises
    assert shown[-1] == [{"args": {"city": "Paris", "note": "bring an umbr"}, "type": "f"}]
    with pytest.raises(OutputParserException, match="cut off"):
        strict.invoke(merged(chunks))
    assert stats.snapshot()["tools"]["failed"] == 2


def test_stream_text_fallback_at_the_end() -> None:
    words = HERMES.split(" ")
    chunks = [
        AIMessageChunk(content=w + (" " if i < len(words) - 1 else "")) for i, w in enumerate(words)
    ]
    values = stream(RobustJsonOutputToolsParser(), chunks)
    assert values[0] == []
    assert values[-1] == [{"args": {"city": "Paris", "days": 2}, "type": "get_weather"}]
    str_values = stream(RobustJsonOutputToolsParser(), [c.content for c in chunks])
    assert str_values == values


def test_calls_with_the_same_index_but_different_ids_stay_apart() -> None:
    chunks = [
        AIMessageChunk(
            content="",
            tool_call_chunks=[tool_call_chunk(name="a", args='{"x": 1}', id="id_a", index=0)],
        ),
        AIMessageChunk(
            content="",
            tool_call_chunks=[tool_call_chunk(name="b", args='{"y": 2}', id="id_b", index=0)],
        ),
    ]
    assert stream(RobustJsonOutputToolsParser(), chunks)[-1] == [
        {"args": {"x": 1}, "type": "a"},
        {"args": {"y": 2}, "type": "b"},
    ]


def test_escapes_split_across_chunks_yield_no_repeats() -> None:
    args = json.dumps({"text": "caf\u00e9 \ud83d\ude00 ok", "n": 1}, ensure_ascii=True)
    for size in (1, 2, 3):
        chunks = stream_of([("f", args)], most=size)
        values = stream(RobustJsonOutputToolsParser(), chunks)
        assert all(a != b for a, b in itertools.pairwise(values))
        assert values[-1] == [{"args": json.loads(args), "type": "f"}]


def test_streamed_values_never_change() -> None:
    chunks = stream_of(TWO_CALLS, seed=3, most=2)
    seen = []
    for value in RobustJsonOutputToolsParser().transform(iter(chunks)):
        seen.append((value, copy.deepcopy(value)))
    assert all(value == snapshot for value, snapshot in seen)


def test_diff_mode_patches_rebuild_the_values() -> None:
    chunks = stream_of(TWO_CALLS, seed=1)
    plain = stream(RobustJsonOutputToolsParser(), chunks)
    patches = stream(RobustJsonOutputToolsParser(diff=True), chunks)
    value: Any = None
    rebuilt = []
    for ops in patches:
        value = jsonpatch.apply_patch(value, ops)
        rebuilt.append(value)
    assert rebuilt == plain
    with pytest.raises(NotImplementedError):
        stream(RobustPydanticToolsParser(tools=[GetWeather], diff=True), chunks)


def test_streamed_lists_are_lists_whose_sum_is_the_last() -> None:
    values = stream(RobustJsonOutputToolsParser(), stream_of(TWO_CALLS))
    assert all(isinstance(v, StreamedList) for v in values)
    total = values[0]
    for value in values[1:]:
        total = total + value
    assert total is values[-1]  # what LangChain's accumulators compute: the last state
    assert values[-1] + [1] == [*values[-1], 1]  # a plain list concatenates as usual
    before = list(values[0])
    merged = values[0]
    merged += values[1]
    assert values[0] == before  # never changed in place
    copy = pickle.loads(pickle.dumps(values[-1]))
    assert copy == values[-1] and type(copy) is StreamedList


_ARGS = st.dictionaries(
    st.text(alphabet="abc xyz", max_size=4),
    st.one_of(
        st.integers(-1000, 1000),
        st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=6),
        st.lists(st.integers(0, 9), max_size=3),
    ),
    max_size=4,
)


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_ARGS, min_size=1, max_size=3), st.integers(0, 10**6))
def test_random_streams_match_langchain_and_end_at_the_final_parse(
    calls: list[dict[str, Any]], seed: int
) -> None:
    named = [(f"tool_{i}", json.dumps(args)) for i, args in enumerate(calls)]
    chunks = stream_of(named, seed=seed)
    ours = stream(RobustJsonOutputToolsParser(return_id=True), chunks)
    assert ours == stream(JsonOutputToolsParser(return_id=True), chunks)
    assert ours[-1] == RobustJsonOutputToolsParser(return_id=True).invoke(merged(chunks))


@pytest.mark.slow
def test_stream_time_grows_linearly() -> None:
    def doc(n: int) -> str:
        return json.dumps({"rows": [{"id": i, "text": f"row {i} " * 3} for i in range(n)]})

    def run(n: int) -> Callable[[], None]:
        chunks = stream_of([("f", doc(n))], most=4)
        parser = RobustJsonOutputToolsParser()
        return lambda: _consume(parser.transform(iter(chunks)))

    small = _best_time(run(500))
    large = _best_time(run(1000))
    assert large < 3.0 * small, (small, large)  # linear is 2x; langchain-core's is about 4x


# --------------------------------------------------------------------------- async


async def test_async_stream_and_parse() -> None:
    chunks = stream_of(TWO_CALLS, seed=2)

    async def agen(_: Any) -> Any:
        for chunk in chunks:
            yield chunk

    parser = RobustJsonOutputToolsParser(return_id=True)
    values = [v async for v in (RunnableLambda(agen) | parser).astream(None)]
    assert values == stream(parser, chunks)
    message = invalid_message("{'city': 'Oslo'}")
    assert await parser.ainvoke(message) == parser.invoke(message)
    plain = RobustJsonOutputToolsParser()
    assert await plain.aparse(HERMES) == plain.parse(HERMES)
    partial = await parser.aparse_result([ChatGeneration(message=merged(chunks[:6]))], partial=True)
    assert partial == parser.parse_result(
        [ChatGeneration(message=merged(chunks[:6]))], partial=True
    )
    models = RobustPydanticToolsParser(tools=[GetWeather], first_tool_only=True)
    answer = AIMessage(
        content="", tool_calls=[{"name": "GetWeather", "args": {"city": "X"}, "id": "1"}]
    )
    llm = ToolStreamingModel(answer=answer)
    assert [v async for v in (llm | models).astream("hi")][-1] == GetWeather(city="X")


# --------------------------------------------------------------------------- contract


def test_parsers_are_langchain_parsers() -> None:
    assert isinstance(RobustJsonOutputToolsParser(), JsonOutputToolsParser)
    key = RobustJsonOutputKeyToolsParser(key_name="k")
    assert isinstance(key, JsonOutputKeyToolsParser)
    assert isinstance(key, RobustJsonOutputToolsParser)
    assert isinstance(RobustPydanticToolsParser(tools=[GetWeather]), PydanticToolsParser)
    assert RobustJsonOutputToolsParser()._type == "robust_json_output_tools"
    assert key._type == "robust_json_output_key_tools"
    assert RobustPydanticToolsParser(tools=[])._type == "robust_pydantic_tools"


def test_pickle_and_deepcopy() -> None:
    stats = ParseStats()
    parsers: list[Any] = [
        RobustJsonOutputToolsParser(return_id=True, tool_names=["get_weather"], stats=stats),
        RobustJsonOutputKeyToolsParser(key_name="get_weather", first_tool_only=True),
        RobustPydanticToolsParser(tools=[GetWeather, GetTime], stats=stats),
    ]
    message = invalid_message("{'city': 'Oslo'}", name="GetWeather")
    for parser in parsers:
        for clone in (pickle.loads(pickle.dumps(parser)), copy.deepcopy(parser)):
            assert type(clone) is type(parser)
            assert clone.invoke(message) == parser.invoke(message)


def test_output_types_and_schemas() -> None:
    schema = RobustJsonOutputToolsParser().get_output_jsonschema()
    assert schema["type"] == "array"
    assert schema["items"]["$ref"].endswith("ToolCallItem")
    schema = RobustJsonOutputToolsParser(return_id=True, first_tool_only=True)
    assert "ToolCallItemWithId" in json.dumps(schema.get_output_jsonschema())
    key = RobustJsonOutputKeyToolsParser(key_name="k").get_output_jsonschema()
    assert key["type"] == "array" and key["items"]["type"] == "object"
    models = RobustPydanticToolsParser(tools=[GetWeather, GetTime]).get_output_jsonschema()
    assert {"GetWeather", "GetTime"} <= set(models["$defs"])
    one = RobustPydanticToolsParser(tools=[GetWeather], first_tool_only=True)
    assert one.OutputType == GetWeather | None

    class Legacy(pydantic.v1.BaseModel):
        a: int

    legacy = RobustPydanticToolsParser(tools=[Legacy, GetWeather])
    assert legacy.get_output_jsonschema()["type"] == "array"  # items: anything


def test_parse_report_event_in_a_chain() -> None:
    recorder = EventRecorder()
    chain = RunnableLambda(lambda _: invalid_message("{'city': 'Oslo',}")) | (
        RobustJsonOutputToolsParser()
    )
    chain.invoke(None, config={"callbacks": [recorder]})
    ((name, data),) = recorder.events
    assert name == "parse_report"
    assert data["format"] == "tools" and data["outcome"] == "recovered"
    assert data["calls"][0]["name"] == "get_weather"
    assert "single_quotes" in [r["name"] for r in data["calls"][0]["repairs"]]

    recorder = EventRecorder()
    chunks = stream_of(TWO_CALLS)

    def chunk_stream(_: Any) -> Iterator[AIMessageChunk]:
        yield from chunks

    streaming = RunnableLambda(chunk_stream) | RobustJsonOutputToolsParser()
    list(streaming.stream(None, config={"callbacks": [recorder]}))
    assert [n for n, _ in recorder.events] == ["parse_report"]  # one event, at the end


async def test_tracing_keeps_the_last_value_not_all_of_them() -> None:
    chunks = stream_of(TWO_CALLS, seed=4)

    async def agen(_: Any) -> Any:
        for chunk in chunks:
            yield chunk

    chain = RunnableLambda(agen) | RobustJsonOutputToolsParser().with_config(run_name="tools")
    streamed = []
    end_output: Any = None
    async for event in chain.astream_events(None, version="v2"):
        if event["name"] == "tools" and event["event"] == "on_parser_stream":
            streamed.append(event["data"]["chunk"])
        if event["name"] == "tools" and event["event"] == "on_parser_end":
            end_output = event["data"]["output"]
    assert streamed == stream(RobustJsonOutputToolsParser(), chunks)
    assert end_output == streamed[-1]


def test_non_chat_generation_without_text_fallback() -> None:
    parser = RobustJsonOutputToolsParser(text_fallback=False)
    with pytest.raises(OutputParserException, match="chat generation"):
        parser.parse_result([Generation(text="x")])
    with pytest.raises(OutputParserException, match="chat generation"):
        parser.parse_result([Generation(text="x")], partial=True)
    assert RobustJsonOutputToolsParser().parse_result([Generation(text="x")], partial=True) == []


def test_messages_of_other_kinds_in_a_stream() -> None:
    whole = AIMessage(
        content="",
        tool_calls=[{"name": "a", "args": {"x": 1}, "id": "1"}],
        invalid_tool_calls=[invalid_tool_call(name="b", args="{'y': 2}", id="2", error="e")],
    )
    values = stream(RobustJsonOutputToolsParser(), [whole])
    assert values[-1] == [{"args": {"x": 1}, "type": "a"}, {"args": {"y": 2}, "type": "b"}]
    human: list[BaseMessage] = [AIMessageChunk(content="no calls")]
    assert stream(RobustJsonOutputToolsParser(), human) == [[]]


# --------------------------------------------------------------------------- closed blocks


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}\n</tool_call>',
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"</tool_call>',
        'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"'
        "\n</tool_call>",
    ],
)
def test_a_closed_block_missing_its_braces_is_repaired_not_cut(text: str) -> None:
    """The end marker says the model finished the call: the braces it forgot are a repair,
    and the call runs, wherever it is read."""
    expected = [{"args": {"city": "Paris"}, "type": "get_weather"}]
    parser = RobustJsonOutputToolsParser()
    assert parser.invoke(AIMessage(content=text)) == expected
    value, report = parser.parse_with_report(AIMessage(content=text))
    assert value == expected
    (call,) = report.calls
    assert "missing_closer" in call.report.repair_names
    assert not call.report.truncated
    chunks = [AIMessageChunk(content=text[i : i + 9]) for i in range(0, len(text), 9)]
    assert stream(parser, chunks)[-1] == expected
    adapted = TextToolCallAdapter().invoke(AIMessage(content=text))
    assert [(c["name"], c["args"]) for c in adapted.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert adapted.invalid_tool_calls == []
    fake = GenericFakeChatModel(messages=iter([AIMessage(content=text)] * 2))
    model = TextToolCallingChatModel(fake).bind_tools([get_weather])
    invoked = model.invoke("Weather in Paris?")
    assert [(c["name"], c["args"]) for c in invoked.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert invoked.invalid_tool_calls == []
    merged: Any = None
    for chunk in model.stream("Weather in Paris?"):
        merged = chunk if merged is None else merged + chunk
    assert [(c["name"], c["args"]) for c in merged.tool_calls] == [
        ("get_weather", {"city": "Paris"})
    ]
    assert merged.invalid_tool_calls == []


def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny in {city}"


def test_a_closed_block_cut_inside_a_string_is_never_run() -> None:
    text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Par</tool_call>'
    assert RobustJsonOutputToolsParser().invoke(AIMessage(content=text)) == []
    adapted = TextToolCallAdapter().invoke(AIMessage(content=text))
    assert adapted.tool_calls == [] and len(adapted.invalid_tool_calls) == 1


@pytest.mark.parametrize("args", ['{"q": "a, b: c', '{"note": "x, y: 1", "k": "v, w:'])
def test_a_partial_call_reads_its_open_string_as_the_stream_does(args: str) -> None:
    """A cut argument string holding ``, key:`` stays one string in a partial parse, as in
    the stream and in the JSON parsers (no key appears that vanishes once the string closes)."""
    message = AIMessageChunk(
        content="", tool_call_chunks=[tool_call_chunk(name="search", args=args, id="1", index=0)]
    )
    parser = RobustJsonOutputToolsParser()
    partial = parser.parse_result([ChatGeneration(message=message)], partial=True)
    streamed = list(parser.transform(iter([message])))
    json_prefix = RobustJsonOutputParser().parse_result([Generation(text=args)], partial=True)
    assert partial[0]["args"] == streamed[0][0]["args"] == json_prefix
