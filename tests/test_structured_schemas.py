"""robust_structured_output behaves the same for the three schema kinds with_structured_output
accepts (a pydantic class, a TypedDict, a JSON-schema dict), with and without include_raw."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any

import pydantic
import pytest
from chain_fakes import RecordingHandler, text_of
from fake_chat_models import CuttingChatModel, ScriptedChatModel
from langchain_core.language_models import FakeListChatModel
from langchain_core.messages import AIMessage
from typing_extensions import NotRequired, TypedDict

from langchain_robust_parsers import RetryExhaustedError, robust_structured_output
from langchain_robust_parsers.chains import StreamedValue
from langchain_robust_parsers.parsers.schema_parser import RobustDictOutputParser


class Person(pydantic.BaseModel):
    """A person."""

    name: str
    born: int = pydantic.Field(ge=0)
    known_for: list[str] = []


class PersonDict(TypedDict):
    """A person."""

    name: str
    born: Annotated[int, pydantic.Field(ge=0)]
    known_for: NotRequired[list[str]]


PERSON_SCHEMA: dict[str, Any] = {
    "title": "Person",
    "description": "A person.",
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "born": {"type": "integer", "minimum": 0},
        "known_for": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["name", "born"],
}

SCHEMAS = {"pydantic": Person, "typeddict": PersonDict, "json_schema": PERSON_SCHEMA}

ADA = {"name": "Ada Lovelace", "born": 1815, "known_for": ["the first program"]}
ADA_TEXT = json.dumps(ADA)


def _plain(value: Any) -> Any:
    """A result as plain data, whatever the schema kind."""
    return value.model_dump() if isinstance(value, pydantic.BaseModel) else value


def _expected(kind: str, data: dict[str, Any]) -> Any:
    if kind == "pydantic":
        return Person.model_validate(data)
    return data


@pytest.fixture(params=list(SCHEMAS), ids=list(SCHEMAS))
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(params=[False, True], ids=["value", "include_raw"])
def include_raw(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


def _chain(kind: str, responses: list[str], **kwargs: Any) -> Any:
    model = FakeListChatModel(responses=responses)
    return robust_structured_output(model, SCHEMAS[kind], **kwargs)


def _run(chain: Any) -> tuple[Any, RecordingHandler]:
    handler = RecordingHandler()
    return chain.invoke("Tell me about Ada Lovelace.", {"callbacks": [handler]}), handler


def _parsed(result: Any, include_raw: bool) -> Any:
    if not include_raw:
        return result
    assert set(result) == {"raw", "parsed", "parsing_error"}
    assert isinstance(result["raw"], AIMessage)
    assert result["parsing_error"] is None
    return result["parsed"]


def test_clean_answer_one_call(kind: str, include_raw: bool) -> None:
    result, handler = _run(_chain(kind, [ADA_TEXT], include_raw=include_raw))
    assert _parsed(result, include_raw) == _expected(kind, ADA)
    assert len(handler.seen.model_calls) == 1
    if include_raw:
        assert text_of(result["raw"]) == ADA_TEXT


def test_format_requirement_names_the_schema(kind: str) -> None:
    _, handler = _run(_chain(kind, [ADA_TEXT]))
    prompt = text_of(handler.seen.model_calls[0].messages[-1])
    assert prompt.startswith("Tell me about Ada Lovelace.\n\n")
    for field in ("name", "born", "known_for"):
        assert f'"{field}"' in prompt


def test_repairable_answer_costs_one_call(kind: str, include_raw: bool) -> None:
    messy = (
        "Sure!\n```json\n{'Name': 'Ada Lovelace', 'born': '1815', "
        "'known_for': ['the first program'],}\n```"
    )
    result, handler = _run(_chain(kind, [messy], include_raw=include_raw))
    assert _parsed(result, include_raw) == _expected(kind, ADA)
    assert len(handler.seen.model_calls) == 1


def test_invalid_answer_is_clarified_then_accepted(kind: str, include_raw: bool) -> None:
    bad = '{"name": "Ada Lovelace", "born": -5}'
    result, handler = _run(_chain(kind, [bad, ADA_TEXT], include_raw=include_raw))
    expected = _expected(kind, ADA)
    assert _parsed(result, include_raw) == expected
    assert len(handler.seen.model_calls) == 2
    clarification = text_of(handler.seen.model_calls[1].messages[-1])
    assert "born" in clarification and "0" in clarification


def test_optional_key_left_out_stays_out(kind: str) -> None:
    result, _ = _run(_chain(kind, ['{"name": "Ada", "born": 1815}']))
    if kind == "pydantic":
        assert result == Person(name="Ada", born=1815)
    else:
        assert result == {"name": "Ada", "born": 1815}


def test_every_attempt_fails(kind: str, include_raw: bool) -> None:
    chain = _chain(kind, ["no idea", "still no idea"], max_retries=1, include_raw=include_raw)
    if not include_raw:
        with pytest.raises(RetryExhaustedError):
            _run(chain)
        return
    result, handler = _run(chain)
    assert result["parsed"] is None
    assert isinstance(result["parsing_error"], RetryExhaustedError)
    assert text_of(result["raw"]) == "still no idea"
    assert len(handler.seen.model_calls) == 2


def test_cut_answer_is_continued(kind: str, include_raw: bool) -> None:
    model = CuttingChatModel(answers=[ADA_TEXT], max_chars=20)
    chain = robust_structured_output(
        model, SCHEMAS[kind], include_raw=include_raw, on_truncation="continue"
    )
    result, handler = _run(chain)
    assert _parsed(result, include_raw) == _expected(kind, ADA)
    assert len(handler.seen.model_calls) == 4  # 79 characters, 20 a call
    if include_raw:
        assert text_of(result["raw"]) == ADA_TEXT  # the stitched answer


def test_cut_answer_raises_or_is_reported(kind: str, include_raw: bool) -> None:
    model = CuttingChatModel(answers=[ADA_TEXT], max_chars=20)
    chain = robust_structured_output(
        model, SCHEMAS[kind], include_raw=include_raw, on_truncation="raise"
    )
    if not include_raw:
        with pytest.raises(Exception, match="token limit"):
            _run(chain)
        return
    result, _ = _run(chain)
    assert result["parsed"] is None and "token limit" in str(result["parsing_error"])


def test_async(kind: str, include_raw: bool) -> None:
    chain = _chain(
        kind, ['{"name": "Ada Lovelace", "born": -5}', ADA_TEXT], include_raw=include_raw
    )
    result = asyncio.run(chain.ainvoke("Tell me about Ada Lovelace."))
    assert _parsed(result, include_raw) == _expected(kind, ADA)


def test_output_type(kind: str) -> None:
    chain = _chain(kind, [ADA_TEXT])
    expected = {"pydantic": Person, "typeddict": PersonDict, "json_schema": dict[str, Any]}[kind]
    assert chain.OutputType == expected
    assert _chain(kind, [ADA_TEXT], include_raw=True).OutputType == dict[str, Any]


def test_unsupported_schema() -> None:
    with pytest.raises(TypeError, match="TypedDict"):
        robust_structured_output(FakeListChatModel(responses=["x"]), int)
    with pytest.raises(TypeError, match="object"):
        robust_structured_output(FakeListChatModel(responses=["x"]), {"type": "string"})


def test_openai_tool_dict_is_accepted() -> None:
    tool = {"type": "function", "function": {"name": "Person", "parameters": PERSON_SCHEMA}}
    result, _ = _run(_chain_for(tool, [ADA_TEXT]))
    assert result == ADA


def _chain_for(schema: Any, responses: list[str]) -> Any:
    return robust_structured_output(FakeListChatModel(responses=responses), schema)


def test_json_schema_rules_pydantic_applies() -> None:
    schema = {
        "type": "object",
        "properties": {
            "color": {"enum": ["red", "green"]},
            "size": {"type": "integer", "minimum": 1, "maximum": 3},
            "code": {"type": "string", "pattern": "^[A-Z]{2}$"},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
            "home": {"$ref": "#/$defs/Place"},
            "note": {"type": ["string", "null"]},
        },
        "required": ["color", "size"],
        "additionalProperties": False,
        "$defs": {
            "Place": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            }
        },
    }
    parser = RobustDictOutputParser.for_schema(schema)
    good = {
        "color": "red",
        "size": 2,
        "code": "FR",
        "tags": ["a"],
        "home": {"city": "Nice"},
        "note": None,
    }
    assert parser.parse(json.dumps(good)) == good
    for bad in (
        {"color": "blue", "size": 2},
        {"color": "red", "size": 9},
        {"color": "red", "size": 2, "code": "France"},
        {"color": "red", "size": 2, "tags": ["a", "b", "c"]},
        {"color": "red", "size": 2, "home": {}},
        {"color": "red", "size": 2, "extra": 1},
    ):
        with pytest.raises(Exception, match="Failed to parse"):
            parser.parse(json.dumps(bad))


# ------------------------------------------------------------------ streaming partial values


def _streamed(kind: str, model: Any, **kwargs: Any) -> list[StreamedValue]:
    chain = robust_structured_output(model, SCHEMAS[kind], stream_partials=True, **kwargs)
    return list(chain.stream("Tell me about Ada Lovelace."))


def test_stream_partials_of_each_attempt_tagged_with_the_attempt(kind: str) -> None:
    # Valid while it streams, invalid once "known_for" arrives: attempt 1 shows values too.
    bad = '{"name": "Ada Lovelace", "born": 1815, "known_for": {"x": 7}}'
    model = ScriptedChatModel(responses=[bad, ADA_TEXT], chunk_size=6)
    items = _streamed(kind, model)
    assert all(isinstance(i, StreamedValue) for i in items)
    final = items[-1]
    assert final.final and final.attempt == 2
    assert _plain(final.value) == _plain(_expected(kind, ADA))
    partials = items[:-1]
    assert not any(i.final for i in partials)
    assert {i.attempt for i in partials} == {1, 2}
    attempts = [i.attempt for i in partials]
    assert attempts == sorted(attempts)  # attempt 1's values, then attempt 2's
    # The stream shows the answer growing before it is complete.
    assert len([i for i in partials if i.attempt == 2]) >= 2


def test_stream_partials_across_continuations(kind: str) -> None:
    model = CuttingChatModel(answers=[ADA_TEXT], max_chars=20, chunk_size=5)
    items = _streamed(kind, model, on_truncation="continue")
    assert items[-1].final and _plain(items[-1].value) == _plain(_expected(kind, ADA))
    assert {i.attempt for i in items} == {1}
    names = [_plain(i.value).get("name") for i in items[:-1] if isinstance(_plain(i.value), dict)]
    assert "Ada Lovelace" in names  # the value grows across the stitched pieces


def test_astream_partials(kind: str) -> None:
    model = ScriptedChatModel(responses=[ADA_TEXT], chunk_size=6)
    chain = robust_structured_output(model, SCHEMAS[kind], stream_partials=True)

    async def collect() -> list[StreamedValue]:
        return [i async for i in chain.astream("Tell me about Ada Lovelace.")]

    items = asyncio.run(collect())
    assert items[-1].final and _plain(items[-1].value) == _plain(_expected(kind, ADA))
    assert len(items) >= 3


def test_without_stream_partials_stream_yields_the_result_only(kind: str) -> None:
    model = ScriptedChatModel(responses=[ADA_TEXT], chunk_size=6)
    assert list(robust_structured_output(model, SCHEMAS[kind]).stream("q")) == [
        _expected(kind, ADA)
    ]


# --------------------------------------------------------------------------- the whole JSON Schema

_CATALOGUE = {
    "title": "Catalogue",
    "type": "object",
    "properties": {
        "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
        "attributes": {"type": "object", "minProperties": 1},
        "status": {"type": "string", "not": {"const": "unknown"}},
        "contact": {"type": "string", "format": "email"},
    },
    "required": ["tags"],
}


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        ('{"tags": ["red", "red"]}', ["$.tags", "non-unique"]),
        ('{"tags": [], "attributes": {}}', ["$.attributes", "non-empty"]),
        ('{"tags": [], "status": "unknown"}', ["$.status", "should not be valid"]),
        ('{"tags": [], "contact": "nobody"}', ["$.contact", "email"]),
        # repaired first (fence, single quotes, trailing comma), then checked
        ("```json\n{'tags': ['a', 'a'],}\n```", ["$.tags", "non-unique"]),
    ],
)
def test_the_whole_json_schema_is_checked(answer: str, words: list[str]) -> None:
    """Keywords the translated model cannot express are checked by ``jsonschema``, and the
    model is told each violation with its path."""
    good = '{"tags": ["red", "blue"], "attributes": {"size": "L"}, "contact": "ada@example.org"}'
    model = FakeListChatModel(responses=[answer, good])
    handler = RecordingHandler()
    chain = robust_structured_output(model, _CATALOGUE)
    result = chain.invoke("List the product's tags.", {"callbacks": [handler]})
    assert result == json.loads(good)
    assert len(handler.seen.model_calls) == 2
    clarification = text_of(handler.seen.model_calls[1].messages[-1])
    for word in words:
        assert word in clarification


def test_a_value_within_the_whole_schema_passes_in_one_call() -> None:
    answer = '{"tags": ["a", "b"], "status": "active"}'
    parser = RobustDictOutputParser.for_schema(_CATALOGUE)
    assert parser.parse(answer) == {"tags": ["a", "b"], "status": "active"}
    assert list(parser.transform(iter(answer)))[-1] == parser.parse(answer)


_BOOKING = {
    "title": "Booking",
    "type": "object",
    "properties": {
        "guests": {
            "type": "array",
            "items": {"type": "object", "properties": {"name": {"type": "string"}}},
            "uniqueItems": True,
            "minItems": 1,
        },
        "extras": {"type": "object", "minProperties": 1, "maxProperties": 2},
        "room": {"type": "string", "not": {"enum": ["", "TBD"]}},
        "arrives": {"type": "string", "format": "date-time"},
        "checkout": {"type": "string", "format": "time"},
        "day": {"type": "string", "format": "date"},
        "booking_id": {"type": "string", "format": "uuid"},
        "host": {"type": "string", "format": "ipv4"},
    },
    "required": ["guests", "room"],
    "dependentRequired": {"checkout": ["arrives"]},
}

_BOOKING_OK = (
    '{"guests": [{"name": "Ada"}, {"name": "Lin"}], "extras": {"breakfast": true}, "room": "12B",'
    ' "arrives": "2026-11-28T15:00:00+01:00", "checkout": "11:00:00Z", "day": "2026-11-28",'
    ' "booking_id": "0f8fad5b-d9cb-469f-a165-70867728950e", "host": "10.0.0.7"}'
)


@pytest.mark.parametrize(
    ("answer", "words"),
    [
        ('{"guests": [{"name": "Ada"}, {"name": "Ada"}], "room": "1"}', ["$.guests", "non-unique"]),
        ('{"guests": [], "room": "1"}', ["guests", "at least 1"]),  # minItems: translated
        ('{"guests": [{"name": "A"}], "room": "1", "extras": {}}', ["$.extras"]),
        (
            '{"guests": [{"name": "A"}], "room": "1", "extras": {"a": 1, "b": 2, "c": 3}}',
            ["$.extras"],
        ),
        ('{"guests": [{"name": "A"}], "room": "TBD"}', ["$.room", "should not be valid"]),
        (
            '{"guests": [{"name": "A"}], "room": "1", "arrives": "tomorrow at 3"}',
            ["$.arrives", "date-time"],
        ),
        (
            '{"guests": [{"name": "A"}], "room": "1", "arrives": "2026-02-30T10:00:00Z"}',
            ["date-time"],
        ),
        (
            '{"guests": [{"name": "A"}], "room": "1", "arrives": "2026-11-28T15:00:00Z",'
            ' "checkout": "11am"}',
            ["$.checkout", "time"],
        ),
        ('{"guests": [{"name": "A"}], "room": "1", "day": "28/11/2026"}', ["$.day", "date"]),
        ('{"guests": [{"name": "A"}], "room": "1", "booking_id": "42"}', ["$.booking_id", "uuid"]),
        ('{"guests": [{"name": "A"}], "room": "1", "host": "300.1.1.1"}', ["$.host", "ipv4"]),
        ('{"guests": [{"name": "A"}], "room": "1", "checkout": "11:00:00Z"}', ["arrives"]),
    ],
)
def test_keywords_and_formats_the_model_cannot_express_reach_the_clarification(
    answer: str, words: list[str]
) -> None:
    model = FakeListChatModel(responses=[answer, _BOOKING_OK])
    handler = RecordingHandler()
    result = robust_structured_output(model, _BOOKING).invoke("Book it.", {"callbacks": [handler]})
    assert result == json.loads(_BOOKING_OK)
    assert len(handler.seen.model_calls) == 2
    clarification = text_of(handler.seen.model_calls[1].messages[-1])
    for word in words:
        assert word in clarification


def test_a_booking_within_every_keyword_passes_in_one_call() -> None:
    parser = RobustDictOutputParser.for_schema(_BOOKING)
    assert parser.parse(_BOOKING_OK) == json.loads(_BOOKING_OK)
