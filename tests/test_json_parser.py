"""RobustJsonOutputParser: LangChain's contract, the engine's recoveries, options, events."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import itertools
import pickle
import sys
from typing import Any

import langchain_core.exceptions
import pydantic
import pytest
from event_recorders import AsyncEventRecorder, EventRecorder
from hypothesis import given, settings, strategies as st
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.output_parsers import JsonOutputParser
from langchain_core.outputs import ChatGeneration, Generation
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableConfig, RunnableLambda

from langchain_robust_parsers import ParseReport, ParseStats, RobustJsonOutputParser

PROMPT = ChatPromptTemplate.from_template("Extract the order from: {email}")

ORDER = {"customer": "Ana Souza", "items": [{"sku": "A-113", "qty": 2}], "rush": False}
ORDER_TEXT = '{"customer": "Ana Souza", "items": [{"sku": "A-113", "qty": 2}], "rush": false}'

FENCED_WITH_PROSE = (
    "Here is the order I extracted:\n\n```json\n" + ORDER_TEXT + "\n```\n\nLet me know if you "
    "need anything else!"
)


def chat_chain(parser: Any, *responses: str) -> Any:
    return PROMPT | FakeListChatModel(responses=list(responses)) | parser


# --------------------------------------------------------------------------- basic contract


def test_is_a_drop_in_json_output_parser() -> None:
    parser = RobustJsonOutputParser()
    assert isinstance(parser, JsonOutputParser)
    assert parser._type == JsonOutputParser()._type
    assert parser.diff is False
    assert parser.pydantic_object is None
    assert parser.get_format_instructions() == JsonOutputParser().get_format_instructions()


def test_clean_json() -> None:
    assert RobustJsonOutputParser().parse(ORDER_TEXT) == ORDER


def test_clean_json_report_is_success() -> None:
    value, report = RobustJsonOutputParser().parse_with_report(ORDER_TEXT)
    assert value == ORDER
    assert isinstance(report, ParseReport)
    assert report.source == "whole"
    assert report.outcome == "success"
    assert not report.repaired


def test_scalars_and_arrays_are_values_too() -> None:
    parser = RobustJsonOutputParser()
    assert parser.parse("[1, 2, 3]") == [1, 2, 3]
    assert parser.parse('"yes"') == "yes"
    assert parser.parse("null") is None


def test_generation_text_is_used_for_chat_generations() -> None:
    # ChatGeneration.text works on every langchain-core; message.text is a method on 0.3.x.
    message = AIMessage(content=ORDER_TEXT)
    assert RobustJsonOutputParser().parse_result([ChatGeneration(message=message)]) == ORDER


# --------------------------------------------------------------------------- engine recoveries


def test_fenced_json_in_prose() -> None:
    value, report = RobustJsonOutputParser().parse_with_report(FENCED_WITH_PROSE)
    assert value == ORDER
    assert report.source == "fenced"
    assert report.outcome == "recovered"


def test_trailing_comma_is_repaired_and_reported() -> None:
    value, report = RobustJsonOutputParser().parse_with_report('{"city": "Lyon", "days": 3,}')
    assert value == {"city": "Lyon", "days": 3}
    assert "trailing_comma" in report.repair_names


def test_think_block_is_skipped() -> None:
    text = '<think>The user wants {"draft": true}... no.</think>\n{"answer": 42}'
    assert RobustJsonOutputParser().parse(text) == {"answer": 42}


def test_truncated_output_is_completed() -> None:
    value, report = RobustJsonOutputParser().parse_with_report(
        '{"summary": "The quarterly numbers show", "tags": ["fin'
    )
    assert value["summary"] == "The quarterly numbers show"
    assert report.truncated


def test_truncation_can_be_an_error() -> None:
    parser = RobustJsonOutputParser(on_truncation="raise")
    with pytest.raises(OutputParserException):
        parser.parse('{"summary": "The quarterly numbers show", "tags": ["fin')


def test_brace_in_prose_does_not_beat_the_real_object() -> None:
    text = 'Fill in {name} as asked. Result: {"name": "Kenji", "age": 31}'
    assert RobustJsonOutputParser().parse(text) == {"name": "Kenji", "age": 31}


# --------------------------------------------------------------------------- failures


@pytest.mark.parametrize(
    "text", ["I'm sorry, I can't help with that.", "", "   \n", "{name} is not JSON"]
)
def test_no_json_raises_output_parser_exception_with_raw_text(text: str) -> None:
    with pytest.raises(OutputParserException) as info:
        RobustJsonOutputParser().parse(text)
    assert info.value.llm_output == text
    assert str(info.value).startswith(f"Invalid json output: {text}")


def test_fallback_plain_text_returns_the_seed_004_shape() -> None:
    text = "Xin lỗi, tôi không thể trả lời câu hỏi này."
    parser = RobustJsonOutputParser(on_error="fallback")
    value = parser.parse(text)
    assert value["text"] == text
    assert value["rawResponse"] == text
    assert value["parseError"].startswith("Invalid json output")
    assert parser.parse(ORDER_TEXT) == ORDER  # JSON still wins when there is some


def test_fallback_values_are_fresh_objects() -> None:
    parser = RobustJsonOutputParser(on_error="fallback")
    first = parser.parse("no json")
    first["text"] = "changed"
    assert parser.parse("no json")["text"] == "no json"


def test_fallback_does_not_apply_to_parse_with_report() -> None:
    with pytest.raises(OutputParserException):
        RobustJsonOutputParser(on_error="fallback").parse_with_report("no json")


def test_fallback_does_not_apply_to_partials() -> None:
    parser = RobustJsonOutputParser(on_error="fallback")
    assert parser.parse_result([Generation(text="no json")], partial=True) is None


def test_unknown_on_error_value_is_rejected() -> None:
    with pytest.raises(pydantic.ValidationError):
        RobustJsonOutputParser(on_error="guess")  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_any_text_gives_a_value_or_output_parser_exception(text: str) -> None:
    parser = RobustJsonOutputParser()
    with contextlib.suppress(OutputParserException):
        parser.parse(text)
    parser.parse_result([Generation(text=text)], partial=True)  # never raises


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet='{}[]",:0123456789truefalsn \\', max_size=120))
def test_json_looking_noise_gives_a_value_or_output_parser_exception(text: str) -> None:
    with contextlib.suppress(OutputParserException):
        RobustJsonOutputParser().parse(text)


# --------------------------------------------------------------------------- partial / streaming


def test_partial_returns_best_value_so_far() -> None:
    parser = RobustJsonOutputParser()
    assert parser.parse_result([Generation(text='{"city": "Osa')], partial=True) == {"city": "Osa"}


def test_partial_returns_none_when_nothing_yet() -> None:
    parser = RobustJsonOutputParser()
    assert parser.parse_result([Generation(text="Sure, here")], partial=True) is None
    assert parser.parse_result([Generation(text="")], partial=True) is None


def test_partial_ignores_on_truncation_raise() -> None:
    # A stream prefix is cut off by nature; the option is about final parses.
    parser = RobustJsonOutputParser(on_truncation="raise")
    assert parser.parse_result([Generation(text='{"a": 1, "b": [2')], partial=True) == {
        "a": 1,
        "b": [2],
    }


def test_streaming_through_a_chain_ends_with_the_full_value() -> None:
    chain = PROMPT | GenericFakeChatModel(messages=iter([AIMessage(content=ORDER_TEXT)]))
    chunks = list((chain | RobustJsonOutputParser()).stream({"email": "..."}))
    assert chunks
    assert chunks[-1] == ORDER


def test_streaming_yields_growing_partials() -> None:
    chunks = list(chat_chain(RobustJsonOutputParser(), ORDER_TEXT).stream({"email": "..."}))
    assert chunks[-1] == ORDER
    assert len(chunks) > 3  # partial values arrive before the closing brace
    assert all(a != b for a, b in itertools.pairwise(chunks))


def test_streaming_with_diff_yields_patches() -> None:
    parser = RobustJsonOutputParser(diff=True)
    patches = list(chat_chain(parser, '{"a": 1, "b": 2}').stream({"email": "..."}))
    assert patches
    assert all(isinstance(p, list) for p in patches)


async def test_async_streaming_ends_with_the_full_value() -> None:
    chunks = [
        c async for c in chat_chain(RobustJsonOutputParser(), ORDER_TEXT).astream({"email": "x"})
    ]
    assert chunks[-1] == ORDER


def test_streamed_message_chunks_parse_like_text() -> None:
    parser = RobustJsonOutputParser()
    chunks = [AIMessageChunk(content=ORDER_TEXT[:20]), AIMessageChunk(content=ORDER_TEXT[20:])]
    assert list(parser.transform(iter(chunks)))[-1] == ORDER


# --------------------------------------------------------------------------- pydantic_object


class Forecast(pydantic.BaseModel):
    city: str
    high_c: float


def test_pydantic_object_picks_the_first_candidate_that_validates() -> None:
    text = (
        'Format: {"example": true}. My answer:\n'
        '{"note": "draft"}\n'
        'Final: {"city": "Porto", "high_c": 24.5}'
    )
    parser = RobustJsonOutputParser(pydantic_object=Forecast)
    value = parser.parse(text)
    assert value == {"city": "Porto", "high_c": 24.5}
    assert isinstance(value, dict)  # still plain JSON data, not the model


def test_pydantic_object_without_a_valid_candidate_returns_the_best() -> None:
    parser = RobustJsonOutputParser(pydantic_object=Forecast)
    assert parser.parse('{"city": "Porto"}') == {"city": "Porto"}


def test_pydantic_object_format_instructions_mention_the_schema() -> None:
    instructions = RobustJsonOutputParser(pydantic_object=Forecast).get_format_instructions()
    assert "high_c" in instructions


# --------------------------------------------------------------------------- types, pickling


def test_output_type_and_json_schema() -> None:
    parser = RobustJsonOutputParser()
    assert parser.OutputType is Any
    assert parser.get_output_jsonschema()["title"] == "RobustJsonOutputParserOutput"
    assert parser.InputType == JsonOutputParser().InputType


def test_pickle_and_deepcopy_keep_options_and_counts() -> None:
    stats = ParseStats()
    parser = RobustJsonOutputParser(pydantic_object=Forecast, on_error="fallback", stats=stats)
    parser.parse('{"city": "Porto", "high_c": 1}')
    for clone in (pickle.loads(pickle.dumps(parser)), copy.deepcopy(parser)):
        assert clone.on_error == "fallback"
        assert clone.pydantic_object is Forecast
        assert clone.stats == stats
        assert clone.stats is not stats
        assert clone.parse('{"city": "Oslo", "high_c": -2}') == {"city": "Oslo", "high_c": -2}


def test_stats_must_be_a_parse_stats() -> None:
    with pytest.raises(pydantic.ValidationError):
        RobustJsonOutputParser(stats={"json": 1})  # type: ignore[arg-type]


# --------------------------------------------------------------------------- LCEL


def test_lcel_invoke() -> None:
    assert chat_chain(RobustJsonOutputParser(), FENCED_WITH_PROSE).invoke({"email": "x"}) == ORDER


async def test_lcel_ainvoke() -> None:
    chain = chat_chain(RobustJsonOutputParser(), FENCED_WITH_PROSE)
    assert await chain.ainvoke({"email": "x"}) == ORDER


def test_lcel_batch() -> None:
    chain = chat_chain(RobustJsonOutputParser(), ORDER_TEXT)
    assert chain.batch([{"email": "a"}, {"email": "b"}, {"email": "c"}]) == [ORDER] * 3


async def test_lcel_abatch() -> None:
    chain = chat_chain(RobustJsonOutputParser(), ORDER_TEXT)
    assert await chain.abatch([{"email": "a"}, {"email": "b"}]) == [ORDER] * 2


def test_lcel_error_is_output_parser_exception_with_raw_text() -> None:
    reply = "I could not find an order in this email."
    with pytest.raises(OutputParserException) as info:
        chat_chain(RobustJsonOutputParser(), reply).invoke({"email": "x"})
    assert info.value.llm_output == reply


def test_generic_fake_chat_model_chain() -> None:
    model = GenericFakeChatModel(messages=iter([AIMessage(content=FENCED_WITH_PROSE)]))
    assert (PROMPT | model | RobustJsonOutputParser()).invoke({"email": "x"}) == ORDER


async def test_aparse() -> None:
    assert await RobustJsonOutputParser().aparse(ORDER_TEXT) == ORDER


async def test_aparse_result_raises_output_parser_exception() -> None:
    with pytest.raises(OutputParserException):
        await RobustJsonOutputParser().aparse_result([Generation(text="nothing")])


# --------------------------------------------------------------------------- events


def test_parse_report_event_is_seen_in_a_run() -> None:
    recorder = EventRecorder()
    chain = chat_chain(RobustJsonOutputParser(), FENCED_WITH_PROSE)
    chain.invoke({"email": "x"}, {"callbacks": [recorder]})
    reports = [data for name, data in recorder.events if name == "parse_report"]
    assert len(reports) == 1
    report = reports[0]
    assert report["parser"] == "RobustJsonOutputParser"
    assert report["format"] == "json"
    assert report["source"] == "fenced"
    assert report["outcome"] == "recovered"
    assert {"start", "end", "repairs", "truncated"} <= set(report)


def test_parse_report_event_on_direct_invoke() -> None:
    recorder = EventRecorder()
    RobustJsonOutputParser().invoke(ORDER_TEXT, {"callbacks": [recorder]})
    assert [name for name, _ in recorder.events] == ["parse_report"]
    assert recorder.events[0][1]["outcome"] == "success"


def test_failure_event_carries_the_error() -> None:
    recorder = EventRecorder()
    with pytest.raises(OutputParserException):
        RobustJsonOutputParser().invoke("no json", {"callbacks": [recorder]})
    ((name, data),) = recorder.events
    assert name == "parse_report"
    assert data["outcome"] == "failed"
    assert "error" in data


def test_fallback_event() -> None:
    recorder = EventRecorder()
    RobustJsonOutputParser(on_error="fallback").invoke("no json", {"callbacks": [recorder]})
    assert recorder.events[0][1]["outcome"] == "fallback"


def test_event_name_is_usable_from_a_custom_runnable() -> None:
    # A parser called inside a RunnableLambda reports to the lambda's run.
    recorder = EventRecorder()
    parser = RobustJsonOutputParser()
    RunnableLambda(lambda text: parser.parse(text)).invoke(ORDER_TEXT, {"callbacks": [recorder]})
    assert [name for name, _ in recorder.events] == ["parse_report"]


def test_no_event_and_no_error_outside_a_run() -> None:
    assert RobustJsonOutputParser().parse(ORDER_TEXT) == ORDER
    assert RobustJsonOutputParser().parse_with_report(ORDER_TEXT)[0] == ORDER


def test_no_error_in_a_run_without_callbacks() -> None:
    assert chat_chain(RobustJsonOutputParser(), ORDER_TEXT).invoke({"email": "x"}) == ORDER


def test_a_stream_emits_one_event_when_it_ends() -> None:
    recorder = EventRecorder()
    stats = ParseStats()
    chunks = list(
        chat_chain(RobustJsonOutputParser(stats=stats), ORDER_TEXT).stream(
            {"email": "x"}, {"callbacks": [recorder]}
        )
    )
    assert len(chunks) > 1  # partial values streamed, but reported once, for the whole text
    assert [name for name, _ in recorder.events] == ["parse_report"]
    assert stats.total() == 1


@pytest.mark.skipif(
    sys.version_info < (3, 11),
    reason="asyncio on 3.10 does not carry LangChain's run context into the parser's coroutine",
)
async def test_parse_report_event_in_an_async_run() -> None:
    recorder = AsyncEventRecorder()
    chain = chat_chain(RobustJsonOutputParser(), FENCED_WITH_PROSE)
    assert await chain.ainvoke({"email": "x"}, {"callbacks": [recorder]}) == ORDER
    assert [name for name, _ in recorder.events] == ["parse_report"]
    assert recorder.events[0][1]["source"] == "fenced"


@pytest.mark.skipif(sys.version_info < (3, 11), reason="run context in asyncio needs 3.11")
async def test_parse_report_in_astream_events() -> None:
    # Streaming the parser runs partial parses only, which report nothing; called from a lambda
    # it makes one final parse.
    parser = RobustJsonOutputParser()

    async def final_parse(message: AIMessage, config: RunnableConfig) -> Any:
        return await parser.ainvoke(message, config)

    model = FakeListChatModel(responses=[FENCED_WITH_PROSE])
    chain = PROMPT | model | RunnableLambda(final_parse)
    custom = [
        e
        async for e in chain.astream_events({"email": "x"}, version="v2")
        if e["event"] == "on_custom_event"
    ]
    assert [e["name"] for e in custom] == ["parse_report"]
    assert custom[0]["data"]["source"] == "fenced"


async def test_async_run_without_callbacks_is_fine() -> None:
    results = await asyncio.gather(
        *(RobustJsonOutputParser().ainvoke(ORDER_TEXT) for _ in range(5))
    )
    assert results == [ORDER] * 5


# --------------------------------------------------------------------------- refusals


@pytest.mark.skipif(
    not hasattr(langchain_core.exceptions, "ModelRefusalError"),
    reason="langchain-core < 1.7.5 has no refusal handling",
)
def test_refusal_raises_like_the_parent() -> None:
    from langchain_core.exceptions import ModelRefusalError  # type: ignore[attr-defined]

    message = AIMessage(content=[{"type": "refusal", "refusal": "I can't help with that."}])
    with pytest.raises(ModelRefusalError):
        RobustJsonOutputParser().parse_result([ChatGeneration(message=message)])
