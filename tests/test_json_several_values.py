"""Answers that hold several JSON values: a list target gets them all, any other target gets
the best one and the report names every other one; streaming ends where ``parse`` does."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Literal

import pytest
from langchain_core.exceptions import OutputParserException
from pydantic import BaseModel

from langchain_robust_parsers import RobustJsonOutputParser, RobustPydanticOutputParser
from langchain_robust_parsers.parsers.schema_parser import RobustDictOutputParser


class Ticket(BaseModel):
    order_id: int
    status: str


SEVERAL = {
    "json_lines": '{"order_id": 1, "status": "open"}\n{"order_id": 2, "status": "closed"}\n',
    "json_lines_in_fence": (
        "Here are the tickets:\n```json\n"
        '{"order_id": 1, "status": "open"}\n{"order_id": 2, "status": "closed"}\n```'
    ),
    "back_to_back": '{"order_id": 1, "status": "open"}{"order_id": 2, "status": "closed"}',
    "fence_per_value": (
        '```json\n{"order_id": 1, "status": "open"}\n```\n\nAnd the second one:\n\n'
        '```json\n{"order_id": 2, "status": "closed"}\n```\n'
    ),
    "between_sentences": (
        'The first ticket is {"order_id": 1, "status": "open"} and the second is '
        '{"order_id": 2, "status": "closed"}, both from today.'
    ),
    "object_then_prose_then_object": (
        '{"order_id": 1, "status": "open"}\nI also found this one:\n'
        '{"order_id": 2, "status": "closed"}'
    ),
    "tagged": (
        '<json>{"order_id": 1, "status": "open"}</json>\n'
        '<json>{"order_id": 2, "status": "closed"}</json>'
    ),
}
BOTH: list[dict[str, Any]] = [
    {"order_id": 1, "status": "open"},
    {"order_id": 2, "status": "closed"},
]


def _chunks(text: str, size: int = 7) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _is_state_of(partial: Any, final: Any) -> bool:
    """True when ``partial`` is what ``final`` looked like while it was being written: lists
    and strings are prefixes (the last item itself a state), objects have some of the keys."""
    if isinstance(final, list):
        if not isinstance(partial, list) or len(partial) > len(final):
            return False
        if not partial:
            return True
        *done, last = partial
        return done == final[: len(done)] and _is_state_of(last, final[len(done)])
    if isinstance(final, dict):
        return isinstance(partial, dict) and all(
            k in final and _is_state_of(v, final[k]) for k, v in partial.items()
        )
    if isinstance(final, str):
        return isinstance(partial, str) and final.startswith(partial)
    numbers = isinstance(partial, (int, float)) and isinstance(final, (int, float))
    return partial == final or (numbers and str(final).startswith(str(partial)))


@pytest.mark.parametrize("text", SEVERAL.values(), ids=SEVERAL.keys())
def test_every_other_value_is_named_in_the_report(text: str) -> None:
    value, report = RobustJsonOutputParser().parse_with_report(text)
    assert value == BOTH[0]
    assert len(report.dropped_values) == 1
    assert json.loads(text[report.dropped_values[0] :].split("}")[0] + "}") == BOTH[1]
    assert report.outcome == "recovered"


@pytest.mark.parametrize("text", SEVERAL.values(), ids=SEVERAL.keys())
def test_several_values_list_returns_them_all(text: str) -> None:
    parser = RobustJsonOutputParser(several_values="list")
    value, report = parser.parse_with_report(text)
    assert value == BOTH
    assert report.dropped_values == ()
    assert parser.invoke(text) == BOTH
    assert asyncio.run(parser.ainvoke(text)) == BOTH


@pytest.mark.parametrize("text", SEVERAL.values(), ids=SEVERAL.keys())
@pytest.mark.parametrize("several_values", ["first", "list"])
def test_streaming_ends_on_the_parse_value_through_states_of_it(
    text: str, several_values: Literal["first", "list"]
) -> None:
    parser = RobustJsonOutputParser(several_values=several_values)
    final = parser.parse(text)
    streamed = list(parser.transform(iter(_chunks(text))))
    assert streamed[-1] == final
    assert all(_is_state_of(item, final) for item in streamed)
    assert asyncio.run(_astream(parser, text)) == streamed


async def _astream(parser: RobustJsonOutputParser, text: str) -> list[Any]:
    async def chunks() -> Any:
        for chunk in _chunks(text):
            yield chunk

    return [item async for item in parser.atransform(chunks())]


def test_list_mode_returns_the_value_and_what_first_mode_names_as_dropped() -> None:
    text = "Rows:\n```jsonl\n" + "\n".join(json.dumps({"n": i}) for i in range(5)) + "\n```"
    first, report = RobustJsonOutputParser().parse_with_report(text)
    assert first == {"n": 0}
    assert len(report.dropped_values) == 4
    assert RobustJsonOutputParser(several_values="list").parse(text) == [{"n": i} for i in range(5)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', [{"a": 1}]),  # one object: a one-item list
        ("[1, 2, 3]", [1, 2, 3]),  # one array: as it is
        ("[1, 2]\n[3]", [1, 2, 3]),  # an array written in parts
        ('Sure! ```json\n[{"a": 1},]\n```', [{"a": 1}]),  # repaired as always
    ],
)
def test_list_mode_shapes(text: str, expected: Any) -> None:
    assert RobustJsonOutputParser(several_values="list").parse(text) == expected


def test_list_mode_past_the_report_limit_keeps_every_value() -> None:
    # A report names at most 64 dropped values; a list target must not lose the 65th.
    text = "\n".join(json.dumps({"n": i}) for i in range(200))
    assert RobustJsonOutputParser(several_values="list").parse(text) == [
        {"n": i} for i in range(200)
    ]
    assert len(RobustJsonOutputParser().parse_with_report(text)[1].dropped_values) == 64


def test_list_mode_with_no_json_still_fails_and_says_why() -> None:
    with pytest.raises(OutputParserException, match="Invalid json output"):
        RobustJsonOutputParser(several_values="list").parse("I could not find any tickets.")


def test_list_mode_with_a_cut_last_value_follows_on_truncation() -> None:
    text = '{"n": 1}\n{"n": 2}\n{"n": 3, "note": "half'
    value, report = RobustJsonOutputParser(several_values="list").parse_with_report(text)
    assert value == [{"n": 1}, {"n": 2}, {"n": 3, "note": "half"}]
    assert report.truncated == "text"
    strict = RobustJsonOutputParser(several_values="list", on_truncation="raise")
    with pytest.raises(OutputParserException, match="cut off"):
        strict.parse(text)


@pytest.mark.parametrize("text", SEVERAL.values(), ids=SEVERAL.keys())
def test_a_list_of_models_target_gets_every_value(text: str) -> None:
    parser = RobustPydanticOutputParser(pydantic_object=list[Ticket])  # type: ignore[type-var]
    value = parser.parse(text)
    assert value == [Ticket(**item) for item in BOTH]
    streamed = list(parser.transform(iter(_chunks(text))))
    assert streamed[-1] == value
    assert all(_is_state_of(item, value) for item in streamed)


def test_a_list_of_models_target_coerces_each_item_and_reads_a_json_array() -> None:
    parser = RobustPydanticOutputParser(pydantic_object=list[Ticket])  # type: ignore[type-var]
    text = '{"orderId": "1", "status": "open"}\n{"order_id": 2, "Status": "closed"}'
    assert parser.parse(text) == [Ticket(**item) for item in BOTH]
    assert parser.parse(json.dumps(BOTH)) == [Ticket(**item) for item in BOTH]
    assert parser.parse('```json\n{"order_id": 7, "status": "new"}\n```') == [
        Ticket(order_id=7, status="new")
    ]
    assert '"type": "array"' in parser.get_format_instructions()
    with pytest.raises(OutputParserException, match=r"list\[.*Ticket\]"):
        parser.parse('{"status": "open"}')


def test_a_model_target_takes_the_first_value_and_names_the_rest() -> None:
    parser = RobustPydanticOutputParser(pydantic_object=Ticket)
    value, report = parser.parse_with_report(SEVERAL["json_lines_in_fence"])
    assert value == Ticket(order_id=1, status="open")
    assert len(report.dropped_values) == 1


def test_a_json_schema_of_an_array_gets_every_value() -> None:
    schema = {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {"order_id": {"type": "integer"}, "status": {"type": "string"}},
            "required": ["order_id", "status"],
        },
    }
    parser = RobustDictOutputParser.for_schema(schema)
    for text in SEVERAL.values():
        assert parser.parse(text) == BOTH
    assert parser.OutputType == list[dict[str, Any]]


def test_brackets_in_the_prose_after_an_object_are_not_records() -> None:
    text = '{"order_id": 1, "status": "open"}\n\nSources: [1], [2]. Fill in {name} later.'
    value, report = RobustJsonOutputParser().parse_with_report(text)
    assert value == BOTH[0] and report.dropped_values == ()
    assert RobustJsonOutputParser(several_values="list").parse(text) == [BOTH[0]]
    parser = RobustPydanticOutputParser(pydantic_object=list[Ticket])  # type: ignore[type-var]
    assert parser.parse(text) == [Ticket(**BOTH[0])]


def test_a_long_explanation_after_the_value_is_read_once() -> None:
    # Thousands of brackets in prose: each is tried once, and the values of the answer's shape
    # are still found after them.
    prose = "See [1] and {note}; " * 5_000
    text = '{"n": 1}\n' + prose + '{"n": 2}'
    assert RobustJsonOutputParser(several_values="list").parse(text) == [{"n": 1}, {"n": 2}]
