"""RobustPydanticOutputParser: validation first, coercion on failure, LangChain's contract."""

from __future__ import annotations

import contextlib
import copy
import enum
import pickle
import sys
from typing import Any, Literal

import jsonpatch
import langchain_core.exceptions
import pydantic
import pydantic.v1
import pytest
from event_recorders import AsyncEventRecorder, EventRecorder
from hypothesis import given, settings, strategies as st
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import PydanticOutputParser
from langchain_core.outputs import ChatGeneration, Generation
from langchain_core.prompts import ChatPromptTemplate

from langchain_robust_parsers import ParseStats, RobustPydanticOutputParser

PROMPT = ChatPromptTemplate.from_template("Review this film: {film}")


class Verdict(str, enum.Enum):
    RECOMMEND = "recommend"
    SKIP = "skip"


class FilmReview(pydantic.BaseModel):
    """A model reviewer's structured answer."""

    title: str = pydantic.Field(description="the film's title")
    score: float = pydantic.Field(description="out of 10")
    verdict: Verdict
    genres: list[str] = []
    audience: Literal["kids", "teens", "adults"] = "adults"


class GenerateStep(pydantic.BaseModel):
    """The GENERATE step of a format-locked prompt pipeline."""

    text: str
    name: str | None = None
    summary: str | None = None


class V1Forecast(pydantic.v1.BaseModel):
    city: str
    high_c: float
    rain: bool = False


REVIEW = FilmReview(
    title="Spirited Away", score=9.5, verdict=Verdict.RECOMMEND, genres=["animation"]
)
REVIEW_TEXT = (
    '{"title": "Spirited Away", "score": 9.5, "verdict": "recommend", "genres": ["animation"]}'
)


def review_parser(**kwargs: Any) -> RobustPydanticOutputParser[FilmReview]:
    return RobustPydanticOutputParser[FilmReview](pydantic_object=FilmReview, **kwargs)


def chat_chain(parser: Any, *responses: str) -> Any:
    return PROMPT | FakeListChatModel(responses=list(responses)) | parser


# --------------------------------------------------------------------------- basic contract


def test_is_a_drop_in_pydantic_output_parser() -> None:
    parser = review_parser()
    assert isinstance(parser, PydanticOutputParser)
    assert parser._type == "pydantic"
    lc = PydanticOutputParser(pydantic_object=FilmReview)
    assert parser.get_format_instructions() == lc.get_format_instructions()


def test_generic_subscription_and_plain_construction() -> None:
    subscripted = RobustPydanticOutputParser[FilmReview](pydantic_object=FilmReview)
    plain = RobustPydanticOutputParser(pydantic_object=FilmReview)
    assert subscripted.parse(REVIEW_TEXT) == REVIEW
    assert plain.parse(REVIEW_TEXT) == REVIEW


def test_pydantic_object_is_required() -> None:
    with pytest.raises(pydantic.ValidationError):
        RobustPydanticOutputParser()  # type: ignore[call-arg]


def test_clean_output_is_a_success() -> None:
    model, report = review_parser().parse_with_report(REVIEW_TEXT)
    assert model == REVIEW
    assert report.outcome == "success"
    assert report.repairs == ()


def test_chat_generation() -> None:
    generation = ChatGeneration(message=AIMessage(content=REVIEW_TEXT))
    assert review_parser().parse_result([generation]) == REVIEW


# --------------------------------------------------------------------------- engine + coercion


def test_fenced_with_prose() -> None:
    text = f"Sure! Here's my review:\n```json\n{REVIEW_TEXT}\n```\nEnjoy the film."
    model, report = review_parser().parse_with_report(text)
    assert model == REVIEW
    assert report.source == "fenced"


def test_coercion_applies_when_validation_fails() -> None:
    text = (
        '{"review": {"Title": "Spirited Away", "score": "9.5/10", "Verdict": "RECOMMEND", '
        '"genres": "animation"}}'
    )
    model, report = review_parser().parse_with_report(text)
    assert model == REVIEW
    assert report.outcome == "recovered"
    names = report.repair_names
    assert "coerce:unwrap_wrapper_key" in names
    assert "coerce:rating_numerator" in names
    assert "coerce:match_enum" in names
    assert "coerce:object_to_list" in names
    assert all(r.pos == report.start for r in report.repairs if r.name.startswith("coerce:"))


def test_literal_case_is_aligned() -> None:
    text = '{"title": "Coco", "score": 8, "verdict": "recommend", "audience": "Kids"}'
    assert review_parser().parse(text).audience == "kids"


def test_valid_values_are_not_coerced() -> None:
    # "8/10" is a valid str for a str field; coercion must not touch it.
    parser = RobustPydanticOutputParser[GenerateStep](pydantic_object=GenerateStep)
    model, report = parser.parse_with_report('{"text": "8/10", "name": "Rating"}')
    assert model.text == "8/10"
    assert report.repairs == ()


def test_seed_004_generate_step_in_vietnamese() -> None:
    text = (
        "Đây là kết quả:\n```json\n"
        '{"Text": "Hà Nội mùa thu rất đẹp.", "name": "Mùa thu", "summary": null}\n```'
    )
    parser = RobustPydanticOutputParser[GenerateStep](pydantic_object=GenerateStep)
    assert parser.parse(text) == GenerateStep(text="Hà Nội mùa thu rất đẹp.", name="Mùa thu")


def test_first_validating_candidate_wins() -> None:
    text = (
        'The schema asks for {"title": ..., "score": ...}. Draft: {"title": "Up"}.\n'
        'Final answer: {"title": "Up", "score": 8.2, "verdict": "recommend"}'
    )
    assert review_parser().parse(text) == FilmReview(
        title="Up", score=8.2, verdict=Verdict.RECOMMEND
    )


def test_truncated_output_that_validates() -> None:
    text = '{"title": "Up", "score": 8.2, "verdict": "recommend", "genres": ["animation", "adv'
    model, report = review_parser().parse_with_report(text)
    assert model.title == "Up"
    assert report.truncated


def test_truncation_can_be_an_error() -> None:
    text = '{"title": "Up", "score": 8.2, "verdict": "recommend", "genres": ["animation", "adv'
    with pytest.raises(OutputParserException):
        review_parser(on_truncation="raise").parse(text)


# --------------------------------------------------------------------------- failures


def test_validation_failure_keeps_langchains_message_and_raw_llm_output() -> None:
    text = 'Here you go: {"title": "Up", "score": "great", "verdict": "maybe"}'
    with pytest.raises(OutputParserException) as info:
        review_parser().parse(text)
    message = str(info.value)
    assert message.startswith(
        'Failed to parse FilmReview from completion {"title": "Up", "score": "great", '
    )
    assert "Got: " in message
    assert "validation error" in message
    assert info.value.llm_output == text


def test_no_json_failure() -> None:
    text = "I'd rather not review this film."
    with pytest.raises(OutputParserException) as info:
        review_parser().parse(text)
    assert str(info.value).startswith(f"Failed to parse FilmReview from completion {text}")
    assert info.value.llm_output == text


def test_validator_raising_a_plain_error_becomes_output_parser_exception() -> None:
    class Picky(pydantic.BaseModel):
        word: str

        @pydantic.field_validator("word")
        @classmethod
        def no_digits(cls, value: str) -> str:
            if any(ch.isdigit() for ch in value):
                raise ValueError("no digits please")
            return value

    parser = RobustPydanticOutputParser[Picky](pydantic_object=Picky)
    with pytest.raises(OutputParserException, match="no digits please"):
        parser.parse('{"word": "r2d2"}')


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200))
def test_any_text_gives_a_model_or_output_parser_exception(text: str) -> None:
    parser = review_parser()
    with contextlib.suppress(OutputParserException):
        assert isinstance(parser.parse(text), FilmReview)
    partial = parser.parse_result([Generation(text=text)], partial=True)
    assert partial is None or isinstance(partial, FilmReview)


# --------------------------------------------------------------------------- partial / streaming


def test_partial_returns_none_until_the_model_validates() -> None:
    parser = review_parser()
    assert parser.parse_result([Generation(text='{"title": "Up", "sc')], partial=True) is None
    prefix = '{"title": "Up", "score": 8.2, "verdict": "recommend", "genres": ["anim'
    partial = parser.parse_result([Generation(text=prefix)], partial=True)
    assert isinstance(partial, FilmReview)
    assert partial.genres == ["anim"]


def test_streaming_ends_with_the_model() -> None:
    chunks = list(chat_chain(review_parser(), REVIEW_TEXT).stream({"film": "x"}))
    assert chunks[-1] == REVIEW
    assert all(isinstance(c, FilmReview) for c in chunks)


async def test_async_streaming_ends_with_the_model() -> None:
    chunks = [c async for c in chat_chain(review_parser(), REVIEW_TEXT).astream({"film": "x"})]
    assert chunks[-1] == REVIEW


# --------------------------------------------------------------------------- pydantic.v1


def test_v1_model() -> None:
    parser = RobustPydanticOutputParser[V1Forecast](pydantic_object=V1Forecast)
    assert parser.parse('{"city": "Hanoi", "high_c": 31.5}') == V1Forecast(
        city="Hanoi", high_c=31.5
    )


def test_v1_model_coercion_of_keys_and_wrapper() -> None:
    parser = RobustPydanticOutputParser[V1Forecast](pydantic_object=V1Forecast)
    model, report = parser.parse_with_report(
        '{"forecast": {"City": "Hanoi", "High-C": "31.5", "RAIN": true}}'
    )
    assert model == V1Forecast(city="Hanoi", high_c=31.5, rain=True)
    assert "coerce:unwrap_wrapper_key" in report.repair_names


def test_v1_model_failure_message() -> None:
    parser = RobustPydanticOutputParser[V1Forecast](pydantic_object=V1Forecast)
    with pytest.raises(OutputParserException, match="Failed to parse V1Forecast from completion"):
        parser.parse('{"town": "Hanoi"}')


def test_v1_output_type() -> None:
    parser = RobustPydanticOutputParser[V1Forecast](pydantic_object=V1Forecast)
    assert parser.OutputType is V1Forecast


# --------------------------------------------------------------------------- types, pickling


def test_output_type_and_json_schema() -> None:
    parser = review_parser()
    assert parser.OutputType is FilmReview
    schema = parser.get_output_jsonschema()
    assert schema["title"] == "FilmReview"
    assert set(schema["properties"]) == {"title", "score", "verdict", "genres", "audience"}


def test_pickle_and_deepcopy() -> None:
    stats = ParseStats()
    parser = review_parser(stats=stats, on_truncation="raise")
    parser.parse(REVIEW_TEXT)
    for clone in (pickle.loads(pickle.dumps(parser)), copy.deepcopy(parser)):
        assert clone.pydantic_object is FilmReview
        assert clone.on_truncation == "raise"
        assert clone.stats == stats
        assert clone.parse(REVIEW_TEXT) == REVIEW


def test_pickle_plain_construction() -> None:
    parser = RobustPydanticOutputParser(pydantic_object=FilmReview)
    assert pickle.loads(pickle.dumps(parser)).parse(REVIEW_TEXT) == REVIEW


# --------------------------------------------------------------------------- LCEL and events


def test_lcel_invoke_batch() -> None:
    chain = chat_chain(review_parser(), REVIEW_TEXT)
    assert chain.invoke({"film": "x"}) == REVIEW
    assert chain.batch([{"film": "a"}, {"film": "b"}]) == [REVIEW, REVIEW]


async def test_lcel_ainvoke_abatch() -> None:
    chain = chat_chain(review_parser(), REVIEW_TEXT)
    assert await chain.ainvoke({"film": "x"}) == REVIEW
    assert await chain.abatch([{"film": "a"}, {"film": "b"}]) == [REVIEW, REVIEW]


def test_generic_fake_chat_model_chain() -> None:
    model = GenericFakeChatModel(messages=iter([AIMessage(content=REVIEW_TEXT)]))
    assert (PROMPT | model | review_parser()).invoke({"film": "x"}) == REVIEW


def test_lcel_failure_is_output_parser_exception() -> None:
    reply = "Sorry, I haven't seen it."
    with pytest.raises(OutputParserException) as info:
        chat_chain(review_parser(), reply).invoke({"film": "x"})
    assert info.value.llm_output == reply


def test_event_reports_coercions() -> None:
    recorder = EventRecorder()
    reply = '{"Title": "Up", "score": "8/10", "verdict": "Recommend"}'
    chat_chain(review_parser(), reply).invoke({"film": "x"}, {"callbacks": [recorder]})
    ((name, data),) = recorder.events
    assert name == "parse_report"
    assert data["format"] == "pydantic"
    assert data["outcome"] == "recovered"
    assert data["parser"] == "RobustPydanticOutputParser"
    assert {"coerce:match_key", "coerce:rating_numerator"} <= {r["name"] for r in data["repairs"]}


def test_failure_event() -> None:
    recorder = EventRecorder()
    with pytest.raises(OutputParserException):
        review_parser().invoke("no review", {"callbacks": [recorder]})
    assert recorder.events[0][1]["outcome"] == "failed"


@pytest.mark.skipif(sys.version_info < (3, 11), reason="run context in asyncio needs 3.11")
async def test_event_in_async_run() -> None:
    recorder = AsyncEventRecorder()
    await chat_chain(review_parser(), REVIEW_TEXT).ainvoke({"film": "x"}, {"callbacks": [recorder]})
    assert [name for name, _ in recorder.events] == ["parse_report"]


def test_no_event_outside_a_run() -> None:
    assert review_parser().parse_with_report(REVIEW_TEXT)[0] == REVIEW


@pytest.mark.skipif(
    not hasattr(langchain_core.exceptions, "ModelRefusalError"),
    reason="langchain-core < 1.7.5 has no refusal handling",
)
def test_refusal_raises_like_the_parent() -> None:
    from langchain_core.exceptions import ModelRefusalError  # type: ignore[attr-defined]

    message = AIMessage(content=[{"type": "refusal", "refusal": "I can't help with that."}])
    with pytest.raises(ModelRefusalError):
        review_parser().parse_result([ChatGeneration(message=message)])


# ---------------------------------------------------------------- diff=True

STREAMED_REVIEW = [
    'Here is my review:\n```json\n{"title": "Past ',
    'Lives", "score": 8.',
    '5, "verdict": "recommend"',
    ', "genres": ["drama", "roman',
    'ce"]}\n```',
]


def _applied(patches: list[Any]) -> Any:
    """The document the streamed patches build, applied in order from nothing."""
    doc: Any = None
    for patch in patches:
        doc = jsonpatch.apply_patch(doc, patch)
    return doc


def test_diff_streams_patches_of_the_model_data() -> None:
    parser = RobustPydanticOutputParser(pydantic_object=FilmReview, diff=True)
    patches = list(parser.transform(iter(STREAMED_REVIEW)))
    assert patches and all(isinstance(p, list) and p for p in patches)
    final = parser.parse("".join(STREAMED_REVIEW))
    assert _applied(patches) == final.model_dump(mode="json")


async def test_diff_streams_the_same_patches_async() -> None:
    parser = RobustPydanticOutputParser(pydantic_object=FilmReview, diff=True)

    async def chunks() -> Any:
        for chunk in STREAMED_REVIEW:
            yield chunk

    patches = [p async for p in parser.atransform(chunks())]
    assert patches == list(parser.transform(iter(STREAMED_REVIEW)))


def test_diff_with_partial_models_ends_on_the_final_data() -> None:
    parser = RobustPydanticOutputParser(pydantic_object=FilmReview, diff=True, partial=True)
    patches = list(parser.transform(iter(STREAMED_REVIEW)))
    assert len(patches) > 2 and all(patches)  # fields arrive one by one; no empty patch
    assert _applied(patches) == parser.parse("".join(STREAMED_REVIEW)).model_dump(mode="json")


def test_diff_for_a_list_target_and_a_v1_model() -> None:
    class Step(pydantic.BaseModel):
        action: str

    class OldStep(pydantic.v1.BaseModel):
        action: str

    text = '[{"action": "search"}, {"action": "click"}]'
    steps = RobustPydanticOutputParser(pydantic_object=list[Step], diff=True)
    assert _applied(list(steps.transform(iter([text[:20], text[20:]])))) == [
        {"action": "search"},
        {"action": "click"},
    ]
    old = RobustPydanticOutputParser(pydantic_object=OldStep, diff=True)
    assert _applied(list(old.transform(iter(['{"action": "sea', 'rch"}'])))) == {"action": "search"}


def test_diff_parser_pickles_and_invokes_the_model() -> None:
    parser = RobustPydanticOutputParser(pydantic_object=FilmReview, diff=True)
    clone = pickle.loads(pickle.dumps(parser))
    assert clone.diff
    assert clone.invoke("".join(STREAMED_REVIEW)).title == "Past Lives"
