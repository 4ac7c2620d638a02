"""Schema-aligned coercion: each rule on its own, then the walk over real-looking models."""

from __future__ import annotations

import copy
import enum
from typing import Annotated, Any, Literal, Optional, Union

import pydantic
import pydantic.v1
import pytest

from langchain_robust_parsers.engine.coercion import (
    MAX_COERCION_DEPTH,
    RULES,
    coerce_to_model,
    coerce_with_notes,
    list_to_object,
    match_enum,
    match_key,
    match_literal,
    normalize_name,
    number_from_string,
    object_to_list,
    unwrap_wrapper_key,
)

# --------------------------------------------------------------------------- models


class Sentiment(str, enum.Enum):
    POSITIVE = "positive"
    NEGATIVE = "negative"
    MIXED = "mixed"


class Status(enum.Enum):
    IN_PROGRESS = "in_progress"
    DONE = "done"


class Priority(enum.IntEnum):
    LOW = 1
    HIGH = 2


class CriteriaScores(pydantic.BaseModel):
    relevance: float
    clarity: float
    engagement: float


class Judgement(pydantic.BaseModel):
    """The JUDGE step of a format-locked prompt pipeline."""

    score: float
    feedback: str
    criteria_scores: CriteriaScores = pydantic.Field(alias="criteriaScores")


class Review(pydantic.BaseModel):
    title: str
    rating: float
    sentiment: Sentiment
    tags: list[str] = []


class Step(pydantic.BaseModel):
    action: Literal["click", "type", "scroll"]
    target: str


class Plan(pydantic.BaseModel):
    goal: str
    steps: list[Step]
    status: Status = Status.IN_PROGRESS
    budget: Optional[int] = None  # noqa: UP045 - the Optional spelling is what is under test


class Inventory(pydantic.BaseModel):
    counts: dict[str, int]
    location: tuple[float, float] | None = None


class Cat(pydantic.BaseModel):
    meows: int


class Dog(pydantic.BaseModel):
    barks: int
    name: str


class Owner(pydantic.BaseModel):
    pet: Union[Cat, Dog]  # noqa: UP007 - typing.Union is what is under test
    nickname: str | int | None = None


class Node(pydantic.BaseModel):
    label: str
    children: list[Node] = []


class StrictScore(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(strict=True)
    value: float
    count: int


class V1Forecast(pydantic.v1.BaseModel):
    city: str
    temperature_c: float
    sentiment: Sentiment


class V1Wrapper(pydantic.v1.BaseModel):
    forecast: V1Forecast
    sources: list[str]


# --------------------------------------------------------------------------- the rules


def test_normalize_name_ignores_case_and_separators() -> None:
    assert normalize_name("criteriaScores") == normalize_name("criteria_scores")
    assert normalize_name(" Criteria-Scores ") == "criteriascores"
    assert normalize_name("in progress") == normalize_name("IN_PROGRESS")


def test_every_reported_rule_has_a_function() -> None:
    assert set(RULES) == {
        "fuzzy_enum",
        "fuzzy_literal",
        "unwrap_wrapper_key",
        "list_to_object",
        "object_to_list",
        "match_key",
        "match_enum",
        "match_literal",
        "number_from_string",
        "rating_numerator",
        "number_to_string",
    }
    assert all(callable(f) for f in RULES.values())


class TestUnwrapWrapperKey:
    def test_unwraps_a_key_that_names_no_field(self) -> None:
        inner = {"title": "Dune"}
        assert unwrap_wrapper_key({"result": inner}, {"title", "rating"}) is inner

    def test_keeps_a_key_that_names_a_field(self) -> None:
        value = {"Title": {"text": "Dune"}}
        assert unwrap_wrapper_key(value, {"title"}) is value

    def test_needs_exactly_one_key_holding_an_object(self) -> None:
        two = {"result": {}, "extra": 1}
        scalar = {"result": "Dune"}
        assert unwrap_wrapper_key(two, {"title"}) is two
        assert unwrap_wrapper_key(scalar, {"title"}) is scalar
        assert unwrap_wrapper_key([1], {"title"}) == [1]


class TestListObjectRules:
    def test_list_to_object_takes_a_lone_object(self) -> None:
        obj = {"goal": "x"}
        assert list_to_object([obj]) is obj

    def test_list_to_object_leaves_other_lists(self) -> None:
        two = [{"a": 1}, {"b": 2}]
        scalars = ["a"]
        assert list_to_object(two) is two
        assert list_to_object(scalars) is scalars

    def test_object_to_list_wraps_objects_and_scalars(self) -> None:
        assert object_to_list({"action": "click"}) == [{"action": "click"}]
        assert object_to_list("sci-fi") == ["sci-fi"]
        assert object_to_list(3) == [3]

    def test_object_to_list_leaves_none_and_lists(self) -> None:
        items = [1]
        assert object_to_list(None) is None
        assert object_to_list(items) is items


def test_match_key_uses_the_accepted_spelling() -> None:
    table: dict[str, tuple[str, Any]] = {
        "criteriascores": ("criteriaScores", CriteriaScores),
        "score": ("score", float),
    }
    assert match_key("criteria_scores", table) == "criteriaScores"
    assert match_key("SCORE", table) == "score"
    assert match_key("comment", table) == "comment"


class TestMatchEnum:
    def test_value_case_insensitive(self) -> None:
        assert match_enum("Positive", Sentiment) == "positive"
        assert match_enum("NEGATIVE", Sentiment) == "negative"

    def test_member_name_and_separators(self) -> None:
        assert match_enum("in progress", Status) == "in_progress"
        assert match_enum("In-Progress", Status) == "in_progress"
        assert match_enum("HIGH", Priority) == 2

    def test_unknown_or_exact_values_unchanged(self) -> None:
        exact = "mixed"
        unknown = "ambivalent"
        assert match_enum(exact, Sentiment) is exact
        assert match_enum(unknown, Sentiment) is unknown
        assert match_enum(7, Sentiment) == 7

    def test_ambiguous_match_unchanged(self) -> None:
        class Clash(enum.Enum):
            A = "b"
            B = "a"

        assert match_enum("A", Clash) == "A"


class TestMatchLiteral:
    def test_case_insensitive(self) -> None:
        assert match_literal("Click", ("click", "type")) == "click"
        assert match_literal("SCROLL_", ("click", "scroll")) == "scroll"

    def test_unchanged_when_exact_unknown_or_not_a_string(self) -> None:
        exact = "type"
        assert match_literal(exact, ("click", "type")) is exact
        assert match_literal("hover", ("click", "type")) == "hover"
        assert match_literal(1, ("1", "2")) == 1

    def test_ambiguous_unchanged(self) -> None:
        assert match_literal("ab", ("a_b", "A-B")) == "ab"


class TestNumberFromString:
    @pytest.mark.parametrize(
        ("text", "expected"),
        [("8.5", 8.5), (" 7 ", 7.0), ("-0.25", -0.25), ("1e3", 1000.0), (".5", 0.5)],
    )
    def test_plain_numbers(self, text: str, expected: float) -> None:
        assert number_from_string(text, float) == expected

    @pytest.mark.parametrize(
        ("text", "expected"),
        [("8.5/10", 8.5), ("8.5 / 10", 8.5), ("4 out of 5", 4.0), ("9/10", 9.0)],
    )
    def test_ratings_give_the_numerator(self, text: str, expected: float) -> None:
        assert number_from_string(text, float) == expected

    def test_int_target_needs_integral_text(self) -> None:
        assert number_from_string("8", int) == 8
        assert number_from_string("8.0", int) == 8
        assert number_from_string("3/5", int) == 3
        assert number_from_string("8.5", int) == "8.5"

    @pytest.mark.parametrize(
        "text", ["eight", "nan", "inf", "8/0", "1/2/3", "8.5 stars", "", "1" * 100]
    )
    def test_not_numbers_unchanged(self, text: str) -> None:
        assert number_from_string(text, float) is text

    def test_non_strings_unchanged(self) -> None:
        assert number_from_string(8, float) == 8
        assert number_from_string(None, float) is None


# --------------------------------------------------------------------------- the walk


def test_seed_004_judge_output_is_aligned() -> None:
    raw = {
        "Score": "8.5/10",
        "feedback": "Bài viết rõ ràng, hấp dẫn.",
        "criteria_scores": {"Relevance": "9", "clarity": 8, "ENGAGEMENT": "8.5"},
    }
    value, notes = coerce_with_notes(raw, Judgement)
    judgement = Judgement.model_validate(value)
    assert judgement.score == 8.5
    assert judgement.criteria_scores == CriteriaScores(relevance=9, clarity=8, engagement=8.5)
    assert "rating_numerator" in notes
    assert notes.count("match_key") == 4


def test_wrapper_key_enum_case_and_single_tag() -> None:
    raw = {"review": {"Title": "Dune", "rating": "9/10", "sentiment": "Positive", "tags": "sf"}}
    value, notes = coerce_with_notes(raw, Review)
    assert Review.model_validate(value) == Review(
        title="Dune", rating=9.0, sentiment=Sentiment.POSITIVE, tags=["sf"]
    )
    assert notes[0] == "unwrap_wrapper_key"
    assert {"match_key", "rating_numerator", "match_enum", "object_to_list"} <= set(notes)


def test_nested_list_of_models_with_literals() -> None:
    raw = [
        {
            "Goal": "log in",
            "steps": {"action": "Click", "target": "#login"},
            "status": "DONE",
            "budget": "3",
        }
    ]
    value, notes = coerce_with_notes(raw, Plan)
    plan = Plan.model_validate(value)
    assert plan.steps == [Step(action="click", target="#login")]
    assert plan.status is Status.DONE
    assert plan.budget == 3
    assert notes[0] == "list_to_object"


def test_dict_values_and_tuples() -> None:
    raw = {"counts": {"apples": "3", "pears": 2}, "location": ["52.5", "13.4"]}
    value = coerce_to_model(raw, Inventory)
    assert value == {"counts": {"apples": 3, "pears": 2}, "location": [52.5, 13.4]}
    inv = Inventory.model_validate(value)
    assert inv.location == (52.5, 13.4)


def test_dict_keys_are_not_renamed() -> None:
    raw = {"counts": {"Apples": 1, "apples": 2}}
    assert coerce_to_model(raw, Inventory) is raw


def test_union_picks_the_model_sharing_most_keys() -> None:
    raw = {"PET": {"Barks": "4", "NAME": "Rex"}}
    value = coerce_to_model(raw, Owner)
    assert Owner.model_validate(value).pet == Dog(barks=4, name="Rex")


def test_union_scalar_that_fits_an_arm_is_kept() -> None:
    raw = {"pet": {"meows": 2}, "nickname": "7/10"}
    value = coerce_to_model(raw, Owner)
    assert value is raw


def test_exact_key_wins_over_a_miscased_duplicate() -> None:
    raw = {"title": "Right", "Title": "Wrong", "rating": 7, "sentiment": "mixed"}
    value = coerce_to_model(raw, Review)
    assert value["title"] == "Right"
    assert Review.model_validate(value).title == "Right"


def test_value_that_fits_comes_back_as_the_same_object() -> None:
    raw = {"title": "Dune", "rating": 9.0, "sentiment": "positive", "tags": ["sf"]}
    value, notes = coerce_with_notes(raw, Review)
    assert value is raw
    assert notes == ()


def test_input_is_never_mutated() -> None:
    raw = {"result": {"Title": "Dune", "rating": "9", "sentiment": "POSITIVE", "tags": "sf"}}
    before = copy.deepcopy(raw)
    coerce_to_model(raw, Review)
    assert raw == before


def test_strict_models_get_numbers_from_strings() -> None:
    raw = {"value": "0.75", "count": "12"}
    with pytest.raises(pydantic.ValidationError):
        StrictScore.model_validate(raw)
    assert StrictScore.model_validate(coerce_to_model(raw, StrictScore)) == StrictScore(
        value=0.75, count=12
    )


def test_aliases_and_annotated_fields() -> None:
    class Ticket(pydantic.BaseModel):
        ticket_id: Annotated[int, pydantic.Field(alias="ticketId")]
        labels: Annotated[list[str], "doc"] = []

    value = coerce_to_model({"TICKET_ID": "42", "labels": "bug"}, Ticket)
    assert value == {"ticketId": 42, "labels": ["bug"]}
    assert Ticket.model_validate(value).ticket_id == 42


def test_recursive_model() -> None:
    raw = {"Label": "root", "children": {"label": "leaf", "Children": []}}
    node = Node.model_validate(coerce_to_model(raw, Node))
    assert node.children[0].label == "leaf"


def test_depth_is_bounded() -> None:
    depth = MAX_COERCION_DEPTH * 3
    raw: dict[str, Any] = {"Label": "deepest"}
    for _ in range(depth):
        raw = {"Label": "n", "children": [raw]}
    value = coerce_to_model(raw, Node)
    # Levels beyond the bound pass through unchanged instead of recursing without limit.
    cursor = value
    levels = 0
    while "children" in cursor:
        cursor = cursor["children"][0]
        levels += 1
    assert levels == depth
    assert "Label" in cursor


def test_v1_models_keys_unwrap_nested_and_enums() -> None:
    raw = {
        "data": {
            "Forecast": {"City": "Hà Nội", "temperature-c": "31.5", "sentiment": "MIXED"},
            "sources": "vnexpress",
        }
    }
    value, notes = coerce_with_notes(raw, V1Wrapper)
    parsed = V1Wrapper.parse_obj(value)
    assert parsed.forecast.city == "Hà Nội"
    assert parsed.forecast.temperature_c == 31.5
    assert parsed.forecast.sentiment is Sentiment.MIXED
    assert parsed.sources == ["vnexpress"]
    assert notes[0] == "unwrap_wrapper_key"


def test_non_object_where_a_model_is_expected_is_left_alone() -> None:
    assert coerce_to_model("just text", Review) == "just text"
    assert coerce_to_model(None, Review) is None
    assert coerce_to_model([{"a": 1}, {"b": 2}], Review) == [{"a": 1}, {"b": 2}]
