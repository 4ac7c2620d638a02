"""``RobustPydanticOutputParser(partial=True)``: models that stream while their fields arrive.

What a user showing a form or a card as the model writes relies on: a model as soon as any
field is there, missing fields unset, nested models and lists of models partial too, a field
once shown never changing except by growing (no half-typed number, enum or date), and the last
value the same model ``parse`` gives.
"""

from __future__ import annotations

import asyncio
import datetime
import enum
import itertools
import json
import pickle
from typing import Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from langchain_core.outputs import Generation
from pydantic import BaseModel, Field, field_validator, v1 as pydantic_v1

from langchain_robust_parsers import RobustPydanticOutputParser
from langchain_robust_parsers.engine.partial_models import partial_model


class Status(str, enum.Enum):
    ACTIVE = "active"
    ARCHIVED = "archived"


class Address(BaseModel):
    street: str
    city: str


class Contact(BaseModel):
    name: str
    age: int
    status: Status
    kind: Literal["person", "company"]
    joined: datetime.date
    emails: list[str]
    address: Address
    offices: list[Address] = []
    note: str | None = None


CONTACT = {
    "name": "Grace Hopper",
    "age": 1234,
    "status": "archived",
    "kind": "person",
    "joined": "1944-07-02",
    "emails": ["grace@navy.mil", "cobol@example.org"],
    "address": {"street": "1 Harvard Yard", "city": "Cambridge"},
    "offices": [{"street": "Pier 4", "city": "Arlington"}],
    "note": None,
}


def stream(parser: Any, text: str, size: int) -> list[Any]:
    return list(parser.transform(iter([text[i : i + size] for i in range(0, len(text), size)])))


def set_fields(model: BaseModel) -> Any:
    return model.model_dump(exclude_unset=True)


def grew(before: Any, after: Any) -> bool:
    """``after`` keeps every value of ``before``, strings and lists growing at their end."""
    if isinstance(before, dict):
        return isinstance(after, dict) and all(
            k in after and grew(v, after[k]) for k, v in before.items()
        )
    if isinstance(before, list):
        if not isinstance(after, list) or len(after) < len(before):
            return False
        return all(grew(a, b) for a, b in zip(before, after, strict=False)) and all(
            a == b for a, b in zip(before[:-1], after, strict=False)
        )
    if isinstance(before, str) and not isinstance(before, enum.Enum):
        return isinstance(after, str) and after.startswith(before)
    return bool(before == after) and type(before) is type(after)


def assert_progressive(values: list[Any]) -> None:
    *partials, final = values
    for earlier, later in itertools.pairwise(partials):
        assert set_fields(earlier) != set_fields(later)  # yielded only when it grew
        assert grew(set_fields(earlier), set_fields(later)), (earlier, later)
    if partials:
        assert grew(set_fields(partials[-1]), final.model_dump())


@pytest.mark.parametrize("size", [1, 3, 7, 40])
def test_models_stream_as_fields_arrive_and_end_as_parse(size: int) -> None:
    parser = RobustPydanticOutputParser(pydantic_object=Contact, partial=True)
    text = json.dumps(CONTACT, indent=2)
    values = stream(parser, text, size)
    assert type(values[-1]) is Contact
    assert values[-1] == parser.parse(text)
    assert_progressive(values)
    assert all(isinstance(v, Contact) for v in values)  # partial classes subclass the model


def test_the_first_model_comes_with_the_first_field() -> None:
    class Joke(BaseModel):
        setup: str
        punchline: str
        rating: int

    text = json.dumps({"setup": "Why did the chicken", "punchline": "To get across", "rating": 7})
    chunks = [text[i : i + 7] for i in range(0, len(text), 7)]
    whole = list(RobustPydanticOutputParser(pydantic_object=Joke).transform(iter(chunks)))
    progressive = RobustPydanticOutputParser(pydantic_object=Joke, partial=True)
    seen = []
    for i, value in enumerate(progressive.transform(iter(chunks))):
        seen.append((i, value))
    assert len(whole) <= 2  # whole models only: the last fields are almost the end of the text
    assert len(seen) > len(chunks) // 2
    assert any(getattr(v, "setup", None) == "Why" for _, v in seen)


def test_missing_fields_are_unset_and_null_is_kept_apart() -> None:
    parser = RobustPydanticOutputParser(pydantic_object=Contact, partial=True)
    values = stream(parser, json.dumps(CONTACT), 5)
    early = next(v for v in values if "name" in v.model_fields_set)
    assert "address" not in early.model_fields_set
    assert early.address is None
    last_partial = values[-2]
    assert set_fields(last_partial).get("note", "unset") in ("unset", None)


def test_half_written_numbers_enums_literals_and_dates_are_never_shown() -> None:
    parser = RobustPydanticOutputParser(pydantic_object=Contact, partial=True)
    values = stream(parser, json.dumps(CONTACT), 1)
    for value in values:
        fields = set_fields(value)
        assert fields.get("age", 1234) == 1234
        assert fields.get("status", Status.ARCHIVED) is Status.ARCHIVED
        assert fields.get("kind", "person") == "person"
        assert fields.get("joined", datetime.date(1944, 7, 2)) == datetime.date(1944, 7, 2)
    assert any(set_fields(v).get("name") == "Grace" for v in values)  # strings do grow


def test_nested_models_and_lists_of_models_are_partial_too() -> None:
    parser = RobustPydanticOutputParser(pydantic_object=Contact, partial=True)
    text = '{"name": "Ada", "address": {"street": "12 St James Sq", "ci'
    model = parser.parse_result([Generation(text=text)], partial=True)
    assert model is not None
    assert isinstance(model.address, Address)
    assert set_fields(model) == {"name": "Ada", "address": {"street": "12 St James Sq"}}
    text = '{"offices": [{"street": "Pier 4", "city": "Arl'
    model = parser.parse_result([Generation(text=text)], partial=True)
    assert model is not None
    assert set_fields(model) == {"offices": [{"street": "Pier 4", "city": "Arl"}]}


def test_constraints_hold_for_the_values_that_are_there() -> None:
    class Code(BaseModel):
        language: str = Field(min_length=4)
        lines: list[str]

    parser = RobustPydanticOutputParser(pydantic_object=Code, partial=True)
    values = stream(parser, json.dumps({"language": "python", "lines": ["a", "b"]}), 1)
    assert all(len(set_fields(v).get("language", "xxxx")) >= 4 for v in values)
    assert values[-1] == Code(language="python", lines=["a", "b"])


def test_a_validator_that_expects_a_whole_model_only_delays_it() -> None:
    class Range(BaseModel):
        low: int
        high: int

        @field_validator("high")
        @classmethod
        def above(cls, v: int) -> int:
            return v + 0  # raises TypeError on None: the partial class must not care

    parser = RobustPydanticOutputParser(pydantic_object=Range, partial=True)
    values = stream(parser, '{"low": 1, "high": 5}', 2)
    assert values[-1] == Range(low=1, high=5)


def test_a_model_inside_itself_streams() -> None:
    class Node(BaseModel):
        label: str
        children: list[Node] = []

    Node.model_rebuild()
    parser = RobustPydanticOutputParser(pydantic_object=Node, partial=True)
    text = json.dumps({"label": "root", "children": [{"label": "leaf", "children": []}]})
    values = stream(parser, text, 4)
    assert values[-1] == parser.parse(text)
    assert_progressive(values)


def test_partial_models_pickle_and_the_parser_too() -> None:
    parser = RobustPydanticOutputParser(pydantic_object=Contact, partial=True)
    model = parser.parse_result(
        [Generation(text='{"name": "Ada", "age": 36, "emails": ["a')], partial=True
    )
    assert model is not None
    again = pickle.loads(pickle.dumps(model))
    assert again == model and again.model_fields_set == model.model_fields_set
    assert pickle.loads(pickle.dumps(parser)).partial is True


def test_async_streams_the_same_models() -> None:
    parser = RobustPydanticOutputParser(pydantic_object=Contact, partial=True)
    text = json.dumps(CONTACT)
    chunks = [text[i : i + 6] for i in range(0, len(text), 6)]

    async def collect() -> list[Any]:
        async def agen() -> Any:
            for c in chunks:
                yield c

        return [v async for v in parser.atransform(agen())]

    assert asyncio.run(collect()) == list(parser.transform(iter(chunks)))


def test_pydantic_v1_models_stream_whole_models_as_before() -> None:
    class Old(pydantic_v1.BaseModel):
        a: str
        b: int

    assert partial_model(Old) is None
    parser = RobustPydanticOutputParser(pydantic_object=Old, partial=True)
    values = stream(parser, '{"a": "x", "b": 2}', 3)
    assert values[-1] == Old(a="x", b=2)
    assert all(isinstance(v, Old) for v in values)


def test_a_final_answer_that_does_not_validate_still_raises() -> None:
    from langchain_core.exceptions import OutputParserException

    parser = RobustPydanticOutputParser(pydantic_object=Address, partial=True)
    with pytest.raises(OutputParserException):
        stream(parser, '{"street": "Main"}', 4)


_values = st.fixed_dictionaries(
    {
        "name": st.text(max_size=12),
        "age": st.integers(-10_000, 10_000),
        "status": st.sampled_from(["active", "archived"]),
        "kind": st.sampled_from(["person", "company"]),
        "joined": st.dates().map(str),
        "emails": st.lists(st.text(max_size=8), max_size=3),
        "address": st.fixed_dictionaries(
            {"street": st.text(max_size=8), "city": st.text(max_size=8)}
        ),
    },
    optional={
        "offices": st.lists(
            st.fixed_dictionaries({"street": st.text(max_size=5), "city": st.text(max_size=5)}),
            max_size=2,
        ),
        "note": st.none() | st.text(max_size=5),
    },
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=_values, size=st.integers(1, 12), indent=st.sampled_from([None, 2]))
def test_any_contact_streams_progressively(
    value: dict[str, Any], size: int, indent: int | None
) -> None:
    parser = RobustPydanticOutputParser(pydantic_object=Contact, partial=True)
    text = json.dumps(value, indent=indent)
    values = stream(parser, text, size)
    assert values[-1] == parser.parse(text) == Contact.model_validate(value)
    assert_progressive(values)
