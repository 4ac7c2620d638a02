"""A number written for a text field, and a YAML 1.1 scalar read into one, become the text the
model wrote; an impossible YAML date is ordinary model output."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest
from langchain_core.exceptions import OutputParserException
from pydantic import BaseModel, RootModel

from langchain_robust_parsers import RobustPydanticOutputParser, RobustYamlOutputParser
from langchain_robust_parsers.engine.number_literals import NumberLiteral


class Shipping(BaseModel):
    zip_code: str
    version: str
    weight_kg: float
    tags: list[str] = []
    extra: dict[str, Any] = {}


def _chunks(text: str, size: int) -> Iterator[str]:
    return iter([text[i : i + size] for i in range(0, len(text), size)])


async def _astream_last(parser: Any, text: str) -> Any:
    return [value async for value in parser.astream(text)][-1]


def _every_entry(parser: Any, text: str) -> list[Any]:
    return [
        parser.parse(text),
        list(parser.transform(_chunks(text, 6)))[-1],
        asyncio.run(parser.ainvoke(text)),
        asyncio.run(_astream_last(parser, text)),
    ]


@pytest.mark.parametrize(
    "text",
    [
        '{"zip_code": 12345, "version": 1.10, "weight_kg": 2.50, "tags": [7, "fragile"]}',
        'Here is the record:\n```json\n{"zip_code": 12345, "version": 1.10, "weight_kg": 2.50, '
        '"tags": [7, "fragile"]}\n```',
    ],
)
def test_a_number_in_a_str_field_is_the_text_written(text: str) -> None:
    parser = RobustPydanticOutputParser(pydantic_object=Shipping)
    expected = Shipping(zip_code="12345", version="1.10", weight_kg=2.5, tags=["7", "fragile"])
    assert _every_entry(parser, text) == [expected] * 4
    _, report = parser.parse_with_report(text)
    assert "coerce:number_to_string" in report.repair_names


def test_the_literal_never_leaks_into_other_fields() -> None:
    text = '{"zip_code": 12345, "version": "2", "weight_kg": 1.50, "extra": {"ratio": 0.50}}'
    value = RobustPydanticOutputParser(pydantic_object=Shipping).parse(text)
    assert value.zip_code == "12345"
    assert type(value.extra["ratio"]) is float
    assert not isinstance(value.weight_kg, NumberLiteral)


def test_a_repaired_payload_keeps_the_numbers_as_written_too() -> None:
    # Unquoted keys, single quotes, a comment and a trailing comma: not strict JSON.
    text = "{zip_code: 12345, version: 1.10, // the API version\n 'weight_kg': 4.50,}"
    value = RobustPydanticOutputParser(pydantic_object=Shipping).parse(text)
    assert value == Shipping(zip_code="12345", version="1.10", weight_kg=4.5)


def test_a_number_inside_a_string_is_not_taken_for_a_literal() -> None:
    text = "{note: 'v 2.50 first', zip_code: 75001, version: 3.0, weight_kg: 1,}"

    class Parcel(Shipping):
        note: str

    value = RobustPydanticOutputParser(pydantic_object=Parcel).parse(text)
    assert (value.version, value.note, value.zip_code) == ("3.0", "v 2.50 first", "75001")


def test_a_boolean_is_not_a_number_for_a_str_field() -> None:
    parser = RobustPydanticOutputParser(pydantic_object=Shipping)
    with pytest.raises(OutputParserException, match="zip_code"):
        parser.parse('{"zip_code": true, "version": "1", "weight_kg": 1}')


def test_a_field_that_takes_a_number_keeps_it() -> None:
    class Label(BaseModel):
        code: str | int
        name: str

    value = RobustPydanticOutputParser(pydantic_object=Label).parse('{"code": 7, "name": 8}')
    assert value == Label(code=7, name="8")


# --------------------------------------------------------------------------- YAML


class Release(BaseModel):
    country: str
    version: str
    on: str
    build: int


def test_yaml_scalars_in_str_fields_are_what_the_model_wrote_on_every_path() -> None:
    text = "country: NO\nversion: 1.10\non: yes\nbuild: 7\n"
    parser = RobustYamlOutputParser(pydantic_object=Release)
    expected = Release(country="NO", version="1.10", on="yes", build=7)
    assert parser.parse(text) == expected
    assert list(parser.stream(text))[-1] == expected
    assert asyncio.run(parser.ainvoke(text)) == expected


def test_an_impossible_date_without_a_schema_is_the_text_written(
    caplog: pytest.LogCaptureFixture,
) -> None:
    text = "title: Launch party\ndate: 2024-13-45\nguests: 40\n"
    parser = RobustYamlOutputParser(pydantic_object=RootModel[dict[str, Any]])
    with caplog.at_level("DEBUG", logger="langchain_robust_parsers"):
        value = parser.parse(text)
        streamed = list(parser.stream(text))[-1]
        awaited = asyncio.run(parser.ainvoke(text))
    expected = {"title": "Launch party", "date": "2024-13-45", "guests": "40"}
    assert value.root == streamed.root == awaited.root == expected
    assert not [r for r in caplog.records if r.levelname != "DEBUG"]


def test_an_impossible_date_in_a_date_field_says_which_value() -> None:
    class Event(BaseModel):
        title: str
        day: date

    parser = RobustYamlOutputParser(pydantic_object=Event)
    with pytest.raises(OutputParserException) as info:
        parser.parse("title: Launch\nday: 2024-13-45\n")
    message = str(info.value)
    assert "day" in message
    assert "2024-13-45" in message
    assert "internal error" not in message
