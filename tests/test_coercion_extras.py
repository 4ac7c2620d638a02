"""Coercion beyond case and separators: enum and Literal values matched by edit distance when
unambiguous, invalid list items dropped with their paths reported, and label-value text read
against the schema when no JSON is present."""

from __future__ import annotations

import enum
from typing import Literal

import pydantic
import pytest
from langchain_core.exceptions import OutputParserException

from langchain_robust_parsers import ParseStats, RobustPydanticOutputParser
from langchain_robust_parsers.engine.coercion import edit_distance, fuzzy_enum, fuzzy_literal
from langchain_robust_parsers.engine.item_dropping import drop_invalid_items
from langchain_robust_parsers.engine.label_values import read_labels


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"
    BLUE = "blue"


class Paint(pydantic.BaseModel):
    color: Color
    finish: Literal["matte", "gloss", "satin"]


# ------------------------------------------------------------------ edit distance


@pytest.mark.parametrize(
    ("written", "expected"),
    [("redd", Color.RED), ("gren", Color.GREEN), ("Blu", Color.BLUE), ("GREEEN", Color.GREEN)],
)
def test_enum_values_matched_by_edit_distance(written: str, expected: Color) -> None:
    parser = RobustPydanticOutputParser(pydantic_object=Paint)
    paint, report = parser.parse_with_report(f'{{"color": "{written}", "finish": "matte"}}')
    assert paint.color is expected
    assert "coerce:fuzzy_enum" in report.repair_names


def test_literal_choices_matched_by_edit_distance() -> None:
    parser = RobustPydanticOutputParser(pydantic_object=Paint)
    assert parser.parse('{"color": "red", "finish": "glos"}').finish == "gloss"
    assert parser.parse('{"color": "red", "finish": "satn"}').finish == "satin"


def test_no_guess_when_nothing_is_close_or_two_are_equally_close() -> None:
    parser = RobustPydanticOutputParser(pydantic_object=Paint)
    with pytest.raises(OutputParserException):
        parser.parse('{"color": "purple", "finish": "matte"}')
    assert fuzzy_literal("bat", ["cat", "hat"]) == "bat"  # one edit from both
    assert fuzzy_literal("cat", ["cat", "hat"]) == "cat"
    assert fuzzy_enum("xyz", Color) == "xyz"
    assert fuzzy_enum(3, Color) == 3


def test_edit_distance_is_bounded() -> None:
    assert edit_distance("kitten", "sitting", 5) == 3
    assert edit_distance("a" * 60, "b" * 60, 2) == 3  # stops early: limit + 1
    assert edit_distance("abc", "abcdefgh", 2) == 3


# ------------------------------------------------------------------ drop_invalid_items


class Line(pydantic.BaseModel):
    sku: str
    qty: int = pydantic.Field(gt=0)


class Order(pydantic.BaseModel):
    customer: str
    lines: list[Line]
    tags: list[str] = []


ORDER = (
    '{"customer": "Ada", "lines": [{"sku": "A1", "qty": 2}, {"sku": "B2", "qty": 0}, '
    '{"sku": "C3"}, {"sku": "D4", "qty": 1}], "tags": ["x", {"bad": 1}, "y"]}'
)


def test_drop_invalid_items_keeps_the_valid_ones_and_reports_paths() -> None:
    stats = ParseStats()
    parser = RobustPydanticOutputParser(pydantic_object=Order, drop_invalid_items=True, stats=stats)
    order, report = parser.parse_with_report(ORDER)
    assert [line.sku for line in order.lines] == ["A1", "D4"]
    assert order.tags == ["x", "y"]
    assert report.dropped == ("$.lines[1]", "$.lines[2]", "$.tags[1]")
    assert "coerce:drop_invalid_items" in report.repair_names
    assert report.to_dict()["dropped"] == ["$.lines[1]", "$.lines[2]", "$.tags[1]"]
    assert report.outcome == "recovered"
    assert stats.snapshot()["pydantic"]["recovered"] == 1


def test_off_by_default_and_never_for_errors_outside_lists() -> None:
    with pytest.raises(OutputParserException):
        RobustPydanticOutputParser(pydantic_object=Order).parse(ORDER)
    parser = RobustPydanticOutputParser(pydantic_object=Order, drop_invalid_items=True)
    with pytest.raises(OutputParserException):
        parser.parse('{"lines": [{"sku": "A1", "qty": 2}]}')  # the customer is missing


def test_drop_invalid_items_does_not_mutate_its_input() -> None:
    value = {"customer": "Ada", "lines": [{"sku": "A1", "qty": 2}, {"sku": "B2", "qty": -1}]}
    kept, dropped = drop_invalid_items(value, Order.model_validate)
    assert dropped == ("$.lines[1]",)
    assert len(value["lines"]) == 2 and len(kept["lines"]) == 1


def test_nested_lists() -> None:
    class Grid(pydantic.BaseModel):
        rows: list[list[int]]

    kept, dropped = drop_invalid_items({"rows": [[1, "x", 3], [4]]}, Grid.model_validate)
    assert kept == {"rows": [[1, 3], [4]]} and dropped == ("$.rows[0][1]",)


# ------------------------------------------------------------------ label-value text


class Review(pydantic.BaseModel):
    score: int
    label: Literal["ok", "bad"]
    reasons: list[str] = []


def test_label_value_text_is_read_against_the_schema() -> None:
    stats = ParseStats()
    parser = RobustPydanticOutputParser(pydantic_object=Review, read_labels=True, stats=stats)
    review, report = parser.parse_with_report("Score: 8/10\nLabel: ok")
    assert review == Review(score=8, label="ok")
    assert report.source == "labels"
    assert report.outcome == "fallback"
    assert stats.snapshot()["pydantic"]["fallback"] == 1


@pytest.mark.parametrize(
    "text",
    [
        "Here is my review.\n\n**Score:** 7/10\n- Label: Bad\nReasons: too long, unclear\n",
        "## Review\nscore = 7\nLABEL: bad\nreasons:\n- too long\n- unclear",
        "> Score: 7 out of 10\n> Label: bad\n> Reasons: too long; unclear",
    ],
    ids=["bold-bullets", "equals-and-list-lines", "quoted"],
)
def test_label_layouts(text: str) -> None:
    parser = RobustPydanticOutputParser(pydantic_object=Review, read_labels=True)
    assert parser.parse(text) == Review(score=7, label="bad", reasons=["too long", "unclear"])


def test_labels_only_when_there_is_no_json_and_only_when_asked() -> None:
    parser = RobustPydanticOutputParser(pydantic_object=Review, read_labels=True)
    review, report = parser.parse_with_report('Score: 1\nLabel: bad\n{"score": 9, "label": "ok"}')
    assert review.score == 9 and report.source != "labels"
    with pytest.raises(OutputParserException):
        RobustPydanticOutputParser(pydantic_object=Review).parse("Score: 8/10\nLabel: ok")
    with pytest.raises(OutputParserException):
        parser.parse("Score: 8/10")  # the label is missing: not a value
    with pytest.raises(OutputParserException):
        parser.parse("I liked it.")


def test_read_labels_ignores_other_labels() -> None:
    text = "Note: not a field\nit goes on\nScore: 5\nThis sentence has a colon far away: yes"
    assert read_labels(text, Review) == {"score": "5"}  # another label ends the value
    assert read_labels("nothing here", Review) is None
