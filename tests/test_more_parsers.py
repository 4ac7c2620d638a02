"""Lists, enum, boolean, datetime, structured, OpenAI-functions and YAML parsers: what a user
relies on beyond the corpus (streaming, errors, options, pickling, the any-text contract)."""

from __future__ import annotations

import asyncio
import contextlib
import pickle
import time
from collections.abc import Iterator
from datetime import date, datetime, timezone
from enum import Enum
from typing import Any

import pytest
from cpu_clock import best_cpu_seconds
from hypothesis import given, settings, strategies as st
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.outputs import ChatGeneration
from pydantic import BaseModel

from langchain_robust_parsers import (
    ParseStats,
    ResponseSchema,
    RobustBooleanOutputParser,
    RobustCommaSeparatedListOutputParser,
    RobustDatetimeOutputParser,
    RobustEnumOutputParser,
    RobustJsonKeyOutputFunctionsParser,
    RobustJsonOutputFunctionsParser,
    RobustMarkdownListOutputParser,
    RobustNumberedListOutputParser,
    RobustPydanticOutputFunctionsParser,
    RobustStructuredOutputParser,
    RobustYamlOutputParser,
)


class Color(Enum):
    RED = "red"
    GREEN = "green"
    LIGHT_BLUE = "light blue"
    BLUE = "blue"


class Point(BaseModel):
    x: int
    y: int


def _call(arguments: Any, name: str = "point") -> list[ChatGeneration]:
    message = AIMessage(
        content="", additional_kwargs={"function_call": {"name": name, "arguments": arguments}}
    )
    return [ChatGeneration(message=message)]


# --------------------------------------------------------------------------- lists


def test_numbered_list_streams_each_item_as_soon_as_its_line_ends() -> None:
    fed: list[str] = []

    def chunks() -> Iterator[str]:
        for piece in ["Here:\n1) Pa", "ris\n2) Ro", "me\n3) Berlin"]:
            fed.append(piece)
            yield piece

    seen = []
    for chunk in RobustNumberedListOutputParser().transform(chunks()):
        seen.append((chunk, len(fed)))
    assert seen == [(["Paris"], 2), (["Rome"], 3), (["Berlin"], 3)]


def test_comma_list_streams_items_before_the_end_and_keeps_quoted_commas() -> None:
    text = 'Colors: "red, dark", green, and blue.'
    parser = RobustCommaSeparatedListOutputParser()
    assert parser.parse(text) == ["red, dark", "green", "blue"]
    assert list(parser.transform(iter(text))) == [["red, dark"], ["green"], ["blue"]]


def test_lists_in_content_block_messages_and_async() -> None:
    parser = RobustMarkdownListOutputParser()
    blocks = [AIMessageChunk(content=[{"type": "text", "text": "- a\n- b"}])]
    assert list(parser.transform(iter(blocks))) == [["a"], ["b"]]

    async def run() -> list[list[str]]:
        async def gen() -> Any:
            for c in "• x\n• y":
                yield c

        return [c async for c in parser.atransform(gen())]

    assert asyncio.run(run()) == [["x"], ["y"]]
    assert asyncio.run(parser.aparse("- a\n- b")) == ["a", "b"]


def test_list_report_names_the_repairs() -> None:
    value, report = RobustCommaSeparatedListOutputParser().parse_with_report(
        "Here they are: red, green and blue."
    )
    assert value == ["red", "green", "blue"]
    assert {"lead_in_dropped", "final_and", "final_full_stop"} <= set(report.repair_names)


def test_custom_numbered_pattern_keeps_langchain_behaviour() -> None:
    parser = RobustNumberedListOutputParser(pattern=r"Step \d+: ([^\n]+)")
    assert parser.parse("Step 1: mix\nStep 2: bake") == ["mix", "bake"]


# --------------------------------------------------------------------------- enum / boolean


def test_enum_prefers_the_longer_value_and_refuses_ambiguity() -> None:
    parser = RobustEnumOutputParser(enum=Color)
    assert parser.parse("It is light blue.") is Color.LIGHT_BLUE
    assert parser.parse("LIGHT_BLUE") is Color.LIGHT_BLUE
    with pytest.raises(OutputParserException, match="not one of the expected values"):
        parser.parse("red or green")
    with pytest.raises(OutputParserException) as info:
        parser.parse("purple")
    assert info.value.llm_output == "purple"


def test_enum_edit_distance_only_when_one_value_is_close() -> None:
    class Size(Enum):
        LARGE = "large"
        LARGER = "larger"

    assert RobustEnumOutputParser(enum=Color).parse("gren") is Color.GREEN
    with pytest.raises(OutputParserException):
        RobustEnumOutputParser(enum=Size).parse("largr")  # one edit from both


def test_enum_rejects_non_string_values_and_keeps_output_type() -> None:
    class Number(Enum):
        ONE = 1

    with pytest.raises(ValueError, match="must be strings"):
        RobustEnumOutputParser(enum=Number)
    parser = pickle.loads(pickle.dumps(RobustEnumOutputParser(enum=Color)))
    assert parser.OutputType is Color
    assert parser.get_format_instructions().endswith("red, green, light blue, blue")


def test_boolean_custom_values_do_not_take_yes_and_no() -> None:
    parser = RobustBooleanOutputParser(true_val="ALLOW", false_val="DENY")
    assert parser.parse("Decision: **allow**.") is True
    assert parser.parse("deny") is False
    with pytest.raises(OutputParserException):
        parser.parse("yes")


def test_boolean_ambiguity_keeps_langchain_message() -> None:
    with pytest.raises(ValueError, match=r"Ambiguous response\. Both YES and NO"):
        RobustBooleanOutputParser().parse("yes and no")
    assert RobustBooleanOutputParser().parse("**No**, although yes was tempting") is False


# --------------------------------------------------------------------------- datetime


def test_configured_format_is_tried_first() -> None:
    day_first = RobustDatetimeOutputParser(format="%d/%m/%Y")
    assert day_first.parse("04/07/2023") == datetime(2023, 7, 4)
    assert RobustDatetimeOutputParser().parse("04/07/2023") == datetime(2023, 4, 7)


def test_offsets_become_naive_utc_unless_the_format_has_one() -> None:
    assert RobustDatetimeOutputParser().parse("2023-07-04T16:30:00+02:00") == datetime(
        2023, 7, 4, 14, 30
    )
    aware = RobustDatetimeOutputParser(format="%Y-%m-%dT%H:%M:%S%z")
    assert aware.parse("It is 2023-07-04T16:30:00+02:00.").astimezone(timezone.utc) == datetime(
        2023, 7, 4, 14, 30, tzinfo=timezone.utc
    )


def test_datetime_failure_and_report() -> None:
    parser = RobustDatetimeOutputParser()
    with pytest.raises(OutputParserException, match="Could not parse datetime string"):
        parser.parse("sometime next week")
    _, report = parser.parse_with_report("The launch: July 4, 2023 at 9:00 AM.")
    assert "date_in_prose" in report.repair_names


# --------------------------------------------------------------------------- structured


class _ClassicLikeSchema:
    """A stand-in for langchain-classic's ResponseSchema, which is not installed here."""

    def __init__(self, name: str, description: str, type: str = "string") -> None:
        self.name, self.description, self.type = name, description, type


def test_structured_accepts_foreign_schemas_and_checks_keys() -> None:
    parser = RobustStructuredOutputParser(
        response_schemas=[
            _ClassicLikeSchema("name", "who"),
            ResponseSchema(name="age", description="n"),
        ]
    )
    assert parser.parse('{"name": "Ada", "age": 36,}') == {"name": "Ada", "age": 36}
    with pytest.raises(OutputParserException, match="Expected key `age`"):
        parser.parse('```json\n{"name": "Ada"}\n```')
    assert '"age": string  // n' in parser.get_format_instructions()
    assert parser.get_format_instructions(only_json=True).startswith("\n```json")
    assert pickle.loads(pickle.dumps(parser)).parse('{"name": "A", "age": 1}')["age"] == 1


def test_structured_picks_the_object_with_every_key() -> None:
    parser = RobustStructuredOutputParser.from_response_schemas(
        [ResponseSchema(name="a", description="x"), ResponseSchema(name="b", description="y")]
    )
    text = 'Draft: {"a": 1}. Final: {"a": 2, "b": 3}'
    assert parser.parse(text) == {"a": 2, "b": 3}


# --------------------------------------------------------------------------- functions


def test_functions_parser_repairs_arguments_and_reads_tool_calls() -> None:
    parser = RobustJsonOutputFunctionsParser(args_only=False)
    assert parser.parse_result(_call("{'x': 1, 'y': 2,}")) == {
        "name": "point",
        "arguments": {"x": 1, "y": 2},
    }
    message = AIMessage(content="", tool_calls=[{"name": "point", "args": {"x": 3}, "id": "1"}])
    assert RobustJsonOutputFunctionsParser().parse_result([ChatGeneration(message=message)]) == {
        "x": 3
    }


def test_functions_strict_and_errors() -> None:
    with pytest.raises(OutputParserException):
        RobustJsonOutputFunctionsParser(strict=True).parse_result(_call('{"a": "x\ny"}'))
    with pytest.raises(OutputParserException):
        RobustJsonOutputFunctionsParser().parse_result(_call("no json at all"))
    with pytest.raises(OutputParserException):
        RobustJsonOutputFunctionsParser().parse_result(
            [ChatGeneration(message=AIMessage(content="hi"))]
        )


def test_functions_streaming_and_key_parser() -> None:
    chunks = [
        AIMessageChunk(
            content="", additional_kwargs={"function_call": {"name": "p", "arguments": piece}}
        )
        for piece in ['{"x": 1', ', "y": [2', ", 3]}"]
    ]
    assert list(RobustJsonOutputFunctionsParser().transform(iter(chunks))) == [
        {"x": 1},
        {"x": 1, "y": [2]},
        {"x": 1, "y": [2, 3]},
    ]
    key = RobustJsonKeyOutputFunctionsParser(key_name="y")
    assert key.parse_result(_call('{"x": 1, "y": [2, 3],}')) == [2, 3]
    with pytest.raises(OutputParserException):
        key.parse_result(_call('{"x": 1}'))


def test_pydantic_functions_parser() -> None:
    single = RobustPydanticOutputFunctionsParser(pydantic_schema=Point)
    assert single.parse_result(_call("{x: 1, y: 2}")) == Point(x=1, y=2)
    many = RobustPydanticOutputFunctionsParser(pydantic_schema={"point": Point})
    assert many.parse_result(_call('```json\n{"x": 1, "y": 2}\n```')) == Point(x=1, y=2)
    with pytest.raises(OutputParserException):
        single.parse_result(_call('{"x": "not a number"}'))
    with pytest.raises(OutputParserException):
        many.parse_result(_call('{"x": 1, "y": 2}', name="unknown"))


# --------------------------------------------------------------------------- YAML


class _Release(BaseModel):
    country: str
    version: str
    released: str
    build: int
    stable: bool
    notes: str | None


@pytest.mark.parametrize(
    "answer",
    [
        "country: NO\nversion: 1.10\nreleased: 2024-13-45\nbuild: 7\nstable: yes\nnotes: ~",
        "```yaml\ncountry: NO\nversion: 1.10\nreleased: 2024-13-45\nbuild: '7'\n"
        "stable: on\nnotes: null\n```",
        "Here it is:\ncountry: NO\nversion: 1.10\nreleased: 2024-13-45\nbuild: 7\n"
        "stable: true\nnotes:",
    ],
)
def test_yaml_scalars_in_str_fields_are_what_the_model_wrote(
    answer: str, caplog: pytest.LogCaptureFixture
) -> None:
    """YAML 1.1 reads ``NO`` as false, ``1.10`` as 1.1 and fails on an impossible date; a
    ``str`` field gets the text as written, the other fields their types."""
    with caplog.at_level("WARNING", logger="langchain_robust_parsers"):
        value, report = RobustYamlOutputParser(pydantic_object=_Release).parse_with_report(answer)
    assert value == _Release(
        country="NO", version="1.10", released="2024-13-45", build=7, stable=True, notes=None
    )
    assert "scalars_as_written" in report.repair_names
    assert not caplog.records  # ordinary model output: nothing logged as an internal error


def test_yaml_impossible_date_in_a_date_field_is_a_clear_validation_error() -> None:
    class Event(BaseModel):
        day: date

    parser = RobustYamlOutputParser(pydantic_object=Event)
    assert parser.parse("day: 2024-01-05") == Event(day=date(2024, 1, 5))
    with pytest.raises(OutputParserException, match="day") as info:
        parser.parse("day: 2024-13-45")
    assert "internal error" not in str(info.value)
    assert info.value.llm_output == "day: 2024-13-45"


def test_yaml_refuses_unsafe_tags_and_alias_bombs() -> None:
    parser = RobustYamlOutputParser[Point](pydantic_object=Point)
    with pytest.raises(OutputParserException):
        parser.parse("x: !!python/object/apply:os.system ['echo hi']\ny: 2")
    bomb = "a: &a [1,1,1,1,1,1,1,1,1,1]\n" + "".join(
        f"{n}: &{n} [{', '.join([f'*{p}'] * 10)}]\n"
        for p, n in zip("abcdefg", "bcdefgh", strict=True)
    )
    with pytest.raises(OutputParserException):
        RobustYamlOutputParser[Point](pydantic_object=Point).parse("x: 1\ny: 2\n" + bomb)


@pytest.mark.slow
def test_yaml_alias_bomb_is_refused_in_bounded_cpu_time() -> None:
    bomb = "a: &a [1,1,1,1,1,1,1,1,1,1]\n" + "".join(
        f"{n}: &{n} [{', '.join([f'*{p}'] * 10)}]\n"
        for p, n in zip("abcdefg", "bcdefgh", strict=True)
    )
    start = time.process_time()
    with pytest.raises(OutputParserException):
        RobustYamlOutputParser[Point](pydantic_object=Point).parse("x: 1\ny: 2\n" + bomb)
    assert time.process_time() - start < 2.0


def test_yaml_failure_message_output_type_and_report() -> None:
    parser = RobustYamlOutputParser[Point](pydantic_object=Point)
    with pytest.raises(OutputParserException, match="Failed to parse Point from completion"):
        parser.parse("x: one\ny: two")
    assert parser.OutputType is Point
    assert '"x"' in parser.get_format_instructions()
    _, report = parser.parse_with_report('{"x": 1, "y": 2,}')
    assert report.outcome in ("success", "recovered")


# --------------------------------------------------------------------------- every parser


PARSERS: list[Any] = [
    RobustNumberedListOutputParser(),
    RobustMarkdownListOutputParser(),
    RobustCommaSeparatedListOutputParser(),
    RobustEnumOutputParser(enum=Color),
    RobustBooleanOutputParser(),
    RobustDatetimeOutputParser(),
    RobustStructuredOutputParser(response_schemas=[ResponseSchema(name="a", description="x")]),
    RobustYamlOutputParser[Point](pydantic_object=Point),
]


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=80))
def test_any_text_gives_a_value_or_output_parser_exception(text: str) -> None:
    for parser in PARSERS:
        with contextlib.suppress(OutputParserException):
            parser.parse(text)


def test_every_parser_counts_into_stats_and_pickles() -> None:
    stats = ParseStats()
    for parser in PARSERS:
        counting = parser.model_copy(update={"stats": stats})
        with contextlib.suppress(OutputParserException):
            counting.parse("- a\n- b")
        assert pickle.loads(pickle.dumps(counting))._type == parser._type
        assert parser._type.startswith("robust_")
    counted = stats.snapshot()
    assert sum(sum(row.values()) for row in counted.values()) == len(PARSERS)
    assert {"list", "enum", "bool", "datetime", "structured", "yaml"} <= set(counted)


@pytest.mark.slow
def test_list_streaming_is_linear() -> None:
    def cost(n: int, parser: Any) -> float:
        text = "".join(f"{i}. item number {i}\n" for i in range(1, n)) + "a long last line " * n
        return best_cpu_seconds(lambda: list(parser.transform(iter(text))), 3)

    for parser in (RobustNumberedListOutputParser(), RobustCommaSeparatedListOutputParser()):
        small, large = cost(1_000, parser), cost(4_000, parser)
        assert large < small * 4 * 2.5  # 4x the text: about 4x the time, never 16x


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet="1.)(-*• ab,\"':\n`<>/think", max_size=50),
    st.lists(st.integers(min_value=0, max_value=50), max_size=5),
)
def test_streamed_list_items_are_the_first_items_of_the_final_list(
    text: str, cuts: list[int]
) -> None:
    points = sorted({min(c, len(text)) for c in cuts})
    chunks = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    for parser in (
        RobustNumberedListOutputParser(),
        RobustMarkdownListOutputParser(),
        RobustCommaSeparatedListOutputParser(),
    ):
        streamed = [item for chunk in parser.transform(iter(chunks)) for item in chunk]
        final = parser.parse(text)
        assert final[: len(streamed)] == streamed
