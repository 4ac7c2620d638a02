"""Cut-off answers are recognised from the text and from every provider's stop reason, by every
parser that can see one, with one option (``on_truncation``) to complete or raise."""

from __future__ import annotations

import enum
import pickle
from typing import Any

import pydantic
import pytest
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, Generation

from langchain_robust_parsers import (
    ActionOutputParser,
    FunctionCallOutputParser,
    ReActOutputParser,
    RobustJsonOutputParser,
    RobustJsonOutputToolsParser,
    RobustPydanticOutputParser,
    TruncatedOutputError,
)
from langchain_robust_parsers.parsers.stop_reason import stop_reason_cut


class FinishReason(enum.Enum):
    """Gemini's SDK enum, as some versions of langchain-google put it in the metadata."""

    STOP = 1
    MAX_TOKENS = 2


# (provider, response_metadata of a cut answer, response_metadata of a finished one)
STOP_REASON_FORMS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("openai", {"finish_reason": "length"}, {"finish_reason": "stop"}),
    ("anthropic", {"stop_reason": "max_tokens"}, {"stop_reason": "end_turn"}),
    ("ollama", {"done_reason": "length", "done": True}, {"done_reason": "stop", "done": True}),
    ("gemini", {"finish_reason": "MAX_TOKENS"}, {"finish_reason": "STOP"}),
    (
        "gemini-enum",
        {"finish_reason": FinishReason.MAX_TOKENS},
        {"finish_reason": FinishReason.STOP},
    ),
    ("bedrock-converse", {"stopReason": "max_tokens"}, {"stopReason": "end_turn"}),
    ("mistral", {"finish_reason": "model_length"}, {"finish_reason": "stop"}),
    ("groq", {"finish_reason": "length"}, {"finish_reason": "tool_calls"}),
    ("cohere", {"finish_reason": "MAX_TOKENS"}, {"finish_reason": "COMPLETE"}),
    (
        "openai-responses",
        {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}},
        {"status": "completed"},
    ),
]
FORM_IDS = [form[0] for form in STOP_REASON_FORMS]

CUT_JSON = '{"title": "Dune", "tags": ["sf", "desert'
CLOSED_JSON = '{"title": "Dune", "year": 1965}'


class Book(pydantic.BaseModel):
    title: str
    year: int | None = None
    tags: list[str] = []


@pytest.mark.parametrize(("provider", "cut", "done"), STOP_REASON_FORMS, ids=FORM_IDS)
def test_every_stop_reason_form_is_read(
    provider: str, cut: dict[str, Any], done: dict[str, Any]
) -> None:
    assert stop_reason_cut(AIMessage("x", response_metadata=cut)) is not None
    assert stop_reason_cut(AIMessage("x", response_metadata=done)) is None
    # Completion models put it in generation_info.
    assert stop_reason_cut(Generation(text="x", generation_info=cut)) is not None
    assert stop_reason_cut(Generation(text="x", generation_info=done)) is None


@pytest.mark.parametrize(("provider", "cut", "done"), STOP_REASON_FORMS, ids=FORM_IDS)
def test_a_closed_looking_answer_cut_by_the_provider_is_reported_as_cut(
    provider: str, cut: dict[str, Any], done: dict[str, Any]
) -> None:
    parser = RobustJsonOutputParser()
    _, report = parser.parse_with_report(AIMessage(CLOSED_JSON, response_metadata=cut))
    assert report.truncated == "stop_reason"
    # The default completes: the value comes back, as before.
    assert parser.invoke(AIMessage(CLOSED_JSON, response_metadata=cut)) == {
        "title": "Dune",
        "year": 1965,
    }
    strict = RobustJsonOutputParser(on_truncation="raise")
    with pytest.raises(TruncatedOutputError) as info:
        strict.invoke(AIMessage(CLOSED_JSON, response_metadata=cut))
    assert info.value.truncated == "stop_reason"
    assert "token limit" in str(info.value)
    assert info.value.llm_output == CLOSED_JSON
    assert strict.invoke(AIMessage(CLOSED_JSON, response_metadata=done)) == {
        "title": "Dune",
        "year": 1965,
    }


def test_report_says_text_stop_reason_or_both() -> None:
    parser = RobustJsonOutputParser()
    assert parser.parse_with_report(CUT_JSON)[1].truncated == "text"
    assert parser.parse_with_report(CLOSED_JSON)[1].truncated is None
    _, both = parser.parse_with_report(
        AIMessage(CUT_JSON, response_metadata={"finish_reason": "length"})
    )
    assert both.truncated == "both"
    assert both.to_dict()["truncated"] == "both"


def test_truncated_stays_truthy_compatible() -> None:
    _, report = RobustJsonOutputParser().parse_with_report(CUT_JSON)
    assert report.truncated  # code written for the boolean keeps working
    assert report.repaired and report.outcome == "recovered"
    _, clean = RobustJsonOutputParser().parse_with_report(CLOSED_JSON)
    assert not clean.truncated


def test_raise_mode_sees_the_text_and_the_stop_reason() -> None:
    with pytest.raises(TruncatedOutputError) as info:
        RobustJsonOutputParser(on_truncation="raise").parse(CUT_JSON)
    assert info.value.truncated == "text"
    with pytest.raises(TruncatedOutputError):
        RobustJsonOutputParser(on_truncation="raise").invoke(
            AIMessage(CLOSED_JSON, response_metadata={"finish_reason": "length"})
        )


def test_cut_before_any_json_says_cut_not_no_json() -> None:
    message = AIMessage(
        "Sure! Here is the JSON you asked", response_metadata={"stop_reason": "max_tokens"}
    )
    with pytest.raises(TruncatedOutputError) as info:
        RobustJsonOutputParser().invoke(message)
    assert info.value.truncated == "stop_reason"


def test_pydantic_cut_answer_is_a_truncation_not_a_missing_field() -> None:
    class Strict(pydantic.BaseModel):
        title: str
        summary: str

    message = AIMessage('{"title": "Dune", "summ', response_metadata={"finish_reason": "length"})
    with pytest.raises(TruncatedOutputError) as info:
        RobustPydanticOutputParser(pydantic_object=Strict).invoke(message)
    assert info.value.truncated == "both"
    assert "Field required" not in str(info.value)


def test_pydantic_parser_option() -> None:
    parser = RobustPydanticOutputParser(pydantic_object=Book)
    assert parser.invoke(AIMessage(CUT_JSON)) == Book(title="Dune", tags=["sf", "desert"])
    strict = RobustPydanticOutputParser(pydantic_object=Book, on_truncation="raise")
    with pytest.raises(TruncatedOutputError):
        strict.invoke(AIMessage(CUT_JSON))
    with pytest.raises(TruncatedOutputError):
        strict.invoke(AIMessage(CLOSED_JSON, response_metadata={"done_reason": "length"}))
    assert strict.invoke(AIMessage(CLOSED_JSON)) == Book(title="Dune", year=1965)


def test_the_error_is_an_output_parser_exception_and_pickles() -> None:
    with pytest.raises(OutputParserException) as info:
        RobustJsonOutputParser(on_truncation="raise").parse(CUT_JSON)
    clone = pickle.loads(pickle.dumps(info.value))
    assert isinstance(clone, TruncatedOutputError)
    assert clone.truncated == "text" and clone.llm_output == CUT_JSON


def test_async_reads_the_stop_reason_too() -> None:
    import asyncio

    strict = RobustJsonOutputParser(on_truncation="raise")
    message = AIMessage(CLOSED_JSON, response_metadata={"finish_reason": "length"})
    with pytest.raises(TruncatedOutputError):
        asyncio.run(strict.ainvoke(message))


def test_generation_info_of_a_completion_model() -> None:
    strict = RobustJsonOutputParser(on_truncation="raise")
    with pytest.raises(TruncatedOutputError):
        strict.parse_result(
            [Generation(text=CLOSED_JSON, generation_info={"finish_reason": "length"})]
        )
    chat = ChatGeneration(
        message=AIMessage(CLOSED_JSON), generation_info={"finish_reason": "length"}
    )
    with pytest.raises(TruncatedOutputError):
        strict.parse_result([chat])


# ------------------------------------------------------------------ the other parsers


CUT_META = {"finish_reason": "length"}


def test_tools_parser() -> None:
    native = AIMessage(
        "",
        tool_calls=[{"name": "f", "args": {"a": 1}, "id": "1"}],
        response_metadata={"stop_reason": "max_tokens"},
    )
    assert RobustJsonOutputToolsParser().invoke(native) == [{"args": {"a": 1}, "type": "f"}]
    with pytest.raises(TruncatedOutputError) as info:
        RobustJsonOutputToolsParser(on_truncation="raise").invoke(native)
    assert info.value.truncated == "stop_reason"
    cut_args = AIMessage(
        "",
        invalid_tool_calls=[
            {
                "name": "f",
                "args": '{"a": 1, "b": "x',
                "id": "1",
                "error": None,
                "type": "invalid_tool_call",
            }
        ],
    )
    with pytest.raises(TruncatedOutputError) as info:
        RobustJsonOutputToolsParser(on_truncation="raise").invoke(cut_args)
    assert info.value.truncated == "text"


def test_function_call_parser() -> None:
    text = '[get_weather(city="Paris"), get_time(tz="Eur'
    assert FunctionCallOutputParser().invoke(AIMessage(text)) == [
        {"get_weather": {"city": "Paris"}}
    ]
    strict = FunctionCallOutputParser(on_truncation="raise")
    with pytest.raises(TruncatedOutputError) as info:
        strict.invoke(AIMessage(text, response_metadata=CUT_META))
    assert info.value.truncated == "both"
    closed = '[get_weather(city="Paris")]'
    with pytest.raises(TruncatedOutputError):
        strict.invoke(AIMessage(closed, response_metadata=CUT_META))
    returned = FunctionCallOutputParser(on_truncation="raise", on_error="fallback")
    assert "token limit" in returned.invoke(AIMessage(closed, response_metadata=CUT_META))


def test_react_parser() -> None:
    text = "Thought: I know it.\nFinal Answer: Paris is sunny and"
    assert ReActOutputParser().invoke(
        AIMessage(text, response_metadata=CUT_META)
    ).return_values == {"output": "Paris is sunny and"}
    with pytest.raises(TruncatedOutputError):
        ReActOutputParser(on_truncation="raise").invoke(AIMessage(text, response_metadata=CUT_META))
    assert ReActOutputParser(on_truncation="raise").invoke(AIMessage(text)).return_values


def test_action_parser() -> None:
    text = '{"actions": [{"action_type": "CLICK", "id": "ok"}, {"action_type": "INPUT_TE'
    [click] = ActionOutputParser().invoke(AIMessage(text))
    assert click.action_type == "CLICK"
    with pytest.raises(TruncatedOutputError) as info:
        ActionOutputParser(on_truncation="raise").invoke(AIMessage(text))
    assert info.value.truncated == "text"
    closed = '{"actions": [{"action_type": "CLICK", "id": "ok"}]}'
    with pytest.raises(TruncatedOutputError) as info:
        ActionOutputParser(on_truncation="raise").invoke(
            AIMessage(closed, response_metadata=CUT_META)
        )
    assert info.value.truncated == "stop_reason"


@pytest.mark.parametrize(
    "parser",
    [
        RobustJsonOutputParser(),
        RobustPydanticOutputParser(pydantic_object=Book),
        RobustJsonOutputToolsParser(),
        FunctionCallOutputParser(),
        ReActOutputParser(),
        ActionOutputParser(),
    ],
    ids=lambda p: type(p).__name__,
)
def test_one_option_with_one_name_everywhere(parser: Any) -> None:
    assert type(parser).model_fields["on_truncation"].default == "complete"
    assert parser.model_copy(update={"on_truncation": "raise"}).on_truncation == "raise"


def test_every_field_is_read_not_only_the_first() -> None:
    # Wrappers sometimes carry a generic field next to the provider's own.
    assert stop_reason_cut({"finish_reason": None, "stop_reason": "max_tokens"}) == "max_tokens"
    assert stop_reason_cut({"finish_reason": "stop", "done_reason": "length"}) == "length"
    assert stop_reason_cut({"finish_reason": 3}) is None  # not a stop reason we can read
    assert stop_reason_cut(None) is None
