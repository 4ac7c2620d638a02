"""RetryWithClarification: local repair first, clarifications that restate the error and the
fixed requirement, every attempt a child run, the plain-text fallback last."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pydantic
import pytest
from chain_fakes import AsyncRecordingHandler, RecordingHandler, text_of
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import (
    FakeListChatModel,
    FakeListLLM,
    FakeMessagesListChatModel,
    GenericFakeChatModel,
)
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.output_parsers import BaseOutputParser, CommaSeparatedListOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnableLambda

from langchain_robust_parsers import RobustJsonOutputParser, RobustPydanticOutputParser
from langchain_robust_parsers.chains import (
    FormatLockedPromptTemplate,
    GenerateOutput,
    JudgeOutput,
    RetryExhaustedError,
    RetryWithClarification,
)
from langchain_robust_parsers.chains.step_types import GENERATE_INSTRUCTIONS, JUDGE_INSTRUCTIONS

GOOD = '{"text": "Lá vàng rơi", "name": "Thu"}'
GOOD_VALUE = GenerateOutput(text="Lá vàng rơi", name="Thu")
YAML = "text: Lá vàng rơi\nname: Thu"


def generate_prompt(language: str = "en") -> FormatLockedPromptTemplate:
    return FormatLockedPromptTemplate.from_template(
        "Write a short poem about {topic}. Answer in YAML.", step_type="GENERATE", language=language
    )


def judge_prompt(language: str = "vi") -> FormatLockedPromptTemplate:
    return FormatLockedPromptTemplate.from_messages(
        [("system", "Bạn là giám khảo."), ("human", "Chấm điểm bài viết: {essay}")],
        step_type="JUDGE",
        language=language,
    )


def retry(*responses: str, prompt: Any = None, **kwargs: Any) -> RetryWithClarification:
    return RetryWithClarification(
        prompt=prompt if prompt is not None else generate_prompt(),
        llm=FakeListChatModel(responses=list(responses)),
        **kwargs,
    )


def run(chain: Any, value: Any = None) -> tuple[Any, RecordingHandler]:
    handler = RecordingHandler()
    result = chain.invoke({"topic": "autumn"} if value is None else value, {"callbacks": [handler]})
    return result, handler


# --------------------------------------------------------------------------- the loop


def test_broken_then_good() -> None:
    result, handler = run(retry(YAML, GOOD))
    assert result == GOOD_VALUE
    calls = handler.seen.model_calls
    assert len(calls) == 2
    first, second = calls
    prompt_text = (
        f"Write a short poem about autumn. Answer in YAML.\n\n{GENERATE_INSTRUCTIONS['en']}"
    )
    assert [text_of(m) for m in first.messages] == [prompt_text]
    # The retry sends the original messages, the bad answer, and a clarification.
    assert [m.type for m in second.messages] == ["human", "ai", "human"]
    assert text_of(second.messages[0]) == prompt_text
    assert text_of(second.messages[1]) == YAML
    clarification = text_of(second.messages[2])
    assert clarification.startswith("Your previous answer could not be used.")
    assert "Problem: No valid JSON was found in the answer." in clarification
    assert clarification.endswith(GENERATE_INSTRUCTIONS["en"])


def test_good_after_two_clarifications() -> None:
    result, handler = run(retry("no idea", '{"text": ""}', GOOD, max_retries=2))
    assert result == GOOD_VALUE
    calls = handler.seen.model_calls
    assert len(calls) == 3
    # Each retry carries the original prompt, the latest bad answer and its own error.
    third = calls[2].messages
    assert [m.type for m in third] == ["human", "ai", "human"]
    assert text_of(third[1]) == '{"text": ""}'
    assert "Field 'text' is required but missing or empty" in text_of(third[2])


def test_never_good_lists_every_attempt() -> None:
    chain = retry("no json 1", "no json 2", '{"name": "only a name"}', max_retries=2)
    handler = RecordingHandler()
    with pytest.raises(RetryExhaustedError) as info:
        chain.invoke({"topic": "x"}, {"callbacks": [handler]})
    error = info.value
    assert isinstance(error, OutputParserException)
    assert len(handler.seen.model_calls) == 3
    message = str(error)
    assert "No valid output after 3 attempt(s):" in message
    assert "- attempt 1: No valid JSON was found in the answer." in message
    assert "- attempt 2: No valid JSON was found in the answer." in message
    assert "- attempt 3: Field 'text' is required but missing or empty" in message
    assert [a.attempt for a in error.attempts] == [1, 2, 3]
    assert [a.output for a in error.attempts] == [
        "no json 1",
        "no json 2",
        '{"name": "only a name"}',
    ]
    assert all(isinstance(a.exception, OutputParserException) for a in error.attempts)
    assert error.llm_output == '{"name": "only a name"}'


def test_never_good_with_plain_text_fallback(caplog: pytest.LogCaptureFixture) -> None:
    chain = retry("Lá vàng rơi (không có JSON)", on_error="fallback", max_retries=1)
    with caplog.at_level(logging.WARNING, logger="langchain_robust_parsers"):
        result, handler = run(chain)
    raw = "Lá vàng rơi (không có JSON)"
    assert result["text"] == raw
    assert result["rawResponse"] == raw
    assert result["parseError"].startswith("No valid output after 2 attempt(s):")
    assert set(result) == {"text", "parseError", "rawResponse"}
    assert len(handler.seen.model_calls) == 2
    assert any("plain-text fallback" in r.getMessage() for r in caplog.records)


def test_max_retries_zero_is_one_call() -> None:
    handler = RecordingHandler()
    with pytest.raises(RetryExhaustedError):
        retry("nope", GOOD, max_retries=0).invoke({"topic": "x"}, {"callbacks": [handler]})
    assert len(handler.seen.model_calls) == 1


def test_max_retries_must_not_be_negative() -> None:
    with pytest.raises(pydantic.ValidationError):
        retry(GOOD, max_retries=-1)


@pytest.mark.parametrize(
    "answer",
    [
        '```json\n{"text": "Lá vàng rơi", "name": "Thu",}\n```',
        "<think>YAML was asked, JSON is required.</think>\n{'text': 'Lá vàng rơi', 'name': 'Thu'}",
        'Sure! {"Text": "Lá vàng rơi", "name": "Thu"} Hope you like it.',
        '{"result": {"text": "Lá vàng rơi", "name": "Thu"}}',
        '{"text": "Lá vàng rơi", "name": "Thu"',
    ],
    ids=["fenced-trailing-comma", "think-python-literals", "prose-key-case", "wrapper", "cut-off"],
)
def test_locally_repairable_answer_costs_one_call(answer: str) -> None:
    result, handler = run(retry(answer, GOOD))
    assert result == GOOD_VALUE
    assert len(handler.seen.model_calls) == 1


def test_parser_fallback_is_not_used_before_the_last_attempt() -> None:
    parser = RobustJsonOutputParser(on_error="fallback")
    chain = retry("plain prose", '{"text": "ok"}', parser=parser)
    result, handler = run(chain)
    assert result == {"text": "ok"}
    assert len(handler.seen.model_calls) == 2
    # ...but after the last one it is: the parser's setting is the default fallback.
    result, _ = run(retry("prose 1", "prose 2", parser=parser, max_retries=1))
    assert result["rawResponse"] == "prose 2"
    assert result["parseError"].startswith("No valid output after 2 attempt(s)")
    assert parser.on_error == "fallback"  # the parser itself is left as it was


def test_explicit_raise_overrides_parser_fallback() -> None:
    parser = RobustJsonOutputParser(on_error="fallback")
    with pytest.raises(RetryExhaustedError):
        retry("prose", parser=parser, on_error="raise", max_retries=0).invoke({"topic": "x"})


def test_json_parser_schema_is_validated() -> None:
    parser = RobustJsonOutputParser(pydantic_object=JudgeOutput)
    chain = retry('{"score": 42}', '{"score": 7}', prompt=judge_prompt("en"), parser=parser)
    result, handler = run(chain, {"essay": "..."})
    assert result == {"score": 7}
    assert "Score must be between 0 and 10, got: 42" in text_of(
        handler.seen.model_calls[1].messages[-1]
    )


def test_vietnamese_judge_clarification() -> None:
    chain = retry(
        '{"score": 12, "feedback": "Rất hay"}',
        '{"score": 9, "feedback": "Rất hay", "criteriaScores": {"clarity": 9}}',
        prompt=judge_prompt("vi"),
    )
    result, handler = run(chain, {"essay": "Mùa thu Hà Nội"})
    assert result == JudgeOutput(score=9, feedback="Rất hay", criteriaScores={"clarity": 9})
    second = handler.seen.model_calls[1].messages
    assert [m.type for m in second] == ["system", "human", "ai", "human"]
    assert text_of(second[1]).endswith(JUDGE_INSTRUCTIONS["vi"])
    clarification = text_of(second[-1])
    assert clarification.startswith("Câu trả lời trước của bạn không dùng được.")
    assert "Lỗi: Score phải từ 0-10, nhận được: 12" in clarification
    assert "Hãy trả lời lại, tuân thủ chính xác định dạng bắt buộc sau:" in clarification
    assert clarification.endswith(JUDGE_INSTRUCTIONS["vi"])


def test_vietnamese_error_listing() -> None:
    with pytest.raises(RetryExhaustedError) as info:
        retry("không có JSON", prompt=judge_prompt("vi"), max_retries=1).invoke({"essay": "x"})
    message = str(info.value)
    assert "Không nhận được kết quả hợp lệ sau 2 lần thử:" in message
    assert "- lần 1: Không tìm thấy JSON hợp lệ trong câu trả lời." in message


def test_language_override_and_several_problems() -> None:
    class Pair(pydantic.BaseModel):
        left: int
        right: int

    chain = RetryWithClarification(
        llm=FakeListChatModel(responses=['{"left": "a"}', '{"left": 1, "right": 2}']),
        parser=RobustPydanticOutputParser(pydantic_object=Pair),
        language="vi",
    )
    result, handler = run(chain, "Cho hai số")
    assert result == Pair(left=1, right=2)
    clarification = text_of(handler.seen.model_calls[1].messages[-1])
    assert (
        "Các lỗi:\n- Field 'left' phải là số nguyên\n- Field 'right' là bắt buộc" in clarification
    )


def test_clarification_template_override() -> None:
    chain = retry(
        "nope", GOOD, clarification_template="Wrong ({error}). Braces {{}} stay. {requirement}"
    )
    _, handler = run(chain)
    text = text_of(handler.seen.model_calls[1].messages[-1])
    assert text.startswith("Wrong (Problem: No valid JSON was found in the answer.). Braces {{}}")
    assert text.endswith(GENERATE_INSTRUCTIONS["en"])


def test_unknown_language_needs_a_template() -> None:
    with pytest.raises(pydantic.ValidationError, match="no clarification text in language 'fr'"):
        retry(GOOD, language="fr")
    assert retry(GOOD, language="fr", clarification_template="{error}").get_language() == "fr"


def test_model_errors_are_not_retried() -> None:
    calls: list[Any] = []

    def broken(value: Any) -> Any:
        calls.append(value)
        raise ConnectionError("model down")

    chain = RetryWithClarification(prompt=generate_prompt(), llm=RunnableLambda(broken))
    with pytest.raises(ConnectionError):
        chain.invoke({"topic": "x"})
    assert len(calls) == 1


def test_refusals_are_not_retried() -> None:
    class ModelRefusalError(OutputParserException):
        pass

    class RefusingParser(BaseOutputParser[str]):
        def parse(self, text: str) -> str:
            raise ModelRefusalError("refused")

        def get_format_instructions(self) -> str:
            return "Say anything."

    handler = RecordingHandler()
    chain = retry("I can't help with that.", parser=RefusingParser())
    with pytest.raises(ModelRefusalError):
        chain.invoke({"topic": "x"}, {"callbacks": [handler]})
    assert len(handler.seen.model_calls) == 1


def test_non_json_parser_failures_use_its_message() -> None:
    class Strict(CommaSeparatedListOutputParser):
        def parse(self, text: str) -> list[str]:
            items = super().parse(text)
            if len(items) != 3:
                raise OutputParserException(f"expected 3 items, got {len(items)}")
            return items

    chain = RetryWithClarification(
        llm=FakeListChatModel(responses=["red, green", "red, green, blue"]),
        parser=Strict(),
        lock_format=True,
    )
    result, handler = run(chain, "Three colours")
    assert result == ["red", "green", "blue"]
    first, second = handler.seen.model_calls
    assert text_of(first.messages[0]).startswith("Three colours\n\nYour response should be a list")
    assert "Problem: expected 3 items, got 2" in text_of(second.messages[-1])


def test_needs_a_parser() -> None:
    with pytest.raises(pydantic.ValidationError, match="needs a parser"):
        RetryWithClarification(
            prompt=ChatPromptTemplate.from_template("{x}"), llm=FakeListChatModel(responses=[])
        )


# --------------------------------------------------------------------------- input shapes


def test_without_prompt_takes_model_input() -> None:
    parser = RobustPydanticOutputParser(pydantic_object=GenerateOutput)
    chain = RetryWithClarification(llm=FakeListChatModel(responses=["nope", GOOD]), parser=parser)
    messages = [SystemMessage(content="sys"), HumanMessage(content="Write.")]
    result, handler = run(chain, messages)
    assert result == GOOD_VALUE
    first, second = handler.seen.model_calls
    assert first.messages == messages  # no lock_format: the input is sent as is
    assert [m.type for m in second.messages] == ["system", "human", "ai", "human"]
    # The clarification restates the parser's format instructions.
    assert text_of(second.messages[-1]).endswith(parser.get_format_instructions())


def test_lock_format_without_prompt() -> None:
    parser = RobustPydanticOutputParser(pydantic_object=GenerateOutput)
    chain = RetryWithClarification(
        llm=FakeListChatModel(responses=[GOOD]), parser=parser, lock_format=True
    )
    _, handler = run(chain, "Write a poem.")
    [call] = handler.seen.model_calls
    assert text_of(call.messages[0]) == f"Write a poem.\n\n{parser.get_format_instructions()}"


def test_lock_format_over_an_ordinary_prompt() -> None:
    chain = RetryWithClarification(
        prompt=ChatPromptTemplate.from_template("Write about {topic}, in YAML."),
        llm=FakeListChatModel(responses=[GOOD]),
        parser=RobustPydanticOutputParser(pydantic_object=GenerateOutput),
        language="vi",
        lock_format=True,
    )
    _, handler = run(chain)
    text = text_of(handler.seen.model_calls[0].messages[-1])
    assert text.startswith("Write about autumn, in YAML.\n\n📤 ĐỊNH DẠNG ĐẦU RA")


def test_bad_model_input_without_prompt() -> None:
    chain = RetryWithClarification(
        llm=FakeListChatModel(responses=[GOOD]),
        parser=RobustPydanticOutputParser(pydantic_object=GenerateOutput),
    )
    with pytest.raises(TypeError, match="takes a string, messages or a PromptValue"):
        chain.invoke(42)


def test_message_content_blocks_and_messages_list_model() -> None:
    model = FakeMessagesListChatModel(
        responses=[
            AIMessage(content=[{"type": "text", "text": "thinking aloud, no JSON"}]),
            AIMessage(content=[{"type": "text", "text": GOOD}]),
        ]
    )
    result, handler = run(RetryWithClarification(prompt=generate_prompt(), llm=model))
    assert result == GOOD_VALUE
    assert text_of(handler.seen.model_calls[1].messages[1]) == "thinking aloud, no JSON"


def test_text_completion_model() -> None:
    chain = RetryWithClarification(
        prompt=generate_prompt(), llm=FakeListLLM(responses=["nope", GOOD]), max_retries=1
    )
    assert chain.invoke({"topic": "x"}) == GOOD_VALUE
    assert list(
        RetryWithClarification(
            prompt=generate_prompt(), llm=FakeListLLM(responses=["nope", GOOD])
        ).stream({"topic": "x"})
    ) == [GOOD_VALUE]


def test_in_an_lcel_chain() -> None:
    chain = (
        RunnableLambda(lambda topic: {"topic": topic})
        | retry("nope", GOOD)
        | RunnableLambda(lambda out: out.text.upper())
    )
    assert chain.invoke("autumn") == "LÁ VÀNG RƠI"


def test_schemas() -> None:
    chain = retry(GOOD)
    assert chain.get_input_jsonschema()["required"] == ["topic"]
    assert chain.get_output_jsonschema()["title"] == "GenerateOutput"
    assert chain.requirement == GENERATE_INSTRUCTIONS["en"]
    assert chain.get_language() == "en"
    assert retry(GOOD, prompt=judge_prompt("vi")).get_language() == "vi"


# --------------------------------------------------------------------------- callbacks


def test_attempts_are_child_runs() -> None:
    result, handler = run(retry("nope", "still nope", GOOD))
    assert result == GOOD_VALUE
    seen = handler.seen
    root = seen.root()
    assert root.name == "RetryWithClarification"
    assert len(seen.model_calls) == 3
    for n, call in enumerate(seen.model_calls, start=1):
        assert call.parent_run_id == root.run_id
        assert f"attempt:{n}" in call.tags
        assert call.metadata["attempt"] == n
    children = seen.children_of(root.run_id)
    assert [c.name for c in children] == [
        "FormatLockedPromptTemplate",
        "RobustPydanticOutputParser",
        "RobustPydanticOutputParser",
        "RobustPydanticOutputParser",
    ]
    parser_runs = children[1:]
    assert [f"attempt:{n}" in c.tags for n, c in enumerate(parser_runs, 1)] == [True] * 3
    # The two failed parses show as errored runs; the chain itself did not fail.
    assert [c.run_id for c in parser_runs[:2]] == seen.errors


def test_nested_in_a_parent_run() -> None:
    handler = RecordingHandler()
    chain = RunnableLambda(lambda x: x) | retry("nope", GOOD)
    chain.invoke({"topic": "x"}, {"callbacks": [handler], "tags": ["outer"]})
    seen = handler.seen
    retry_run = next(c for c in seen.chains if c.name == "RetryWithClarification")
    assert retry_run.parent_run_id == seen.root().run_id
    assert all(call.parent_run_id == retry_run.run_id for call in seen.model_calls)
    assert all("outer" in call.tags for call in seen.model_calls)


def test_batch() -> None:
    chain = RetryWithClarification(
        prompt=generate_prompt(),
        llm=FakeListChatModel(responses=[GOOD, "nope", GOOD]),
    )
    results = chain.batch([{"topic": "a"}, {"topic": "b"}], {"max_concurrency": 1})
    assert results == [GOOD_VALUE, GOOD_VALUE]


# --------------------------------------------------------------------------- streaming


def test_stream_yields_the_validated_result_once() -> None:
    model = GenericFakeChatModel(messages=iter(["Here is YAML: text: hi", GOOD]))
    chain = RetryWithClarification(prompt=generate_prompt(), llm=model)
    handler = RecordingHandler()
    chunks = list(chain.stream({"topic": "x"}, {"callbacks": [handler]}))
    assert chunks == [GOOD_VALUE]
    assert len(handler.seen.model_calls) == 2
    # The attempts streamed their tokens to callbacks, the failed one included.
    streamed = "".join(handler.seen.tokens)
    assert "YAML" in streamed
    assert "Lá vàng rơi" in streamed


def test_stream_through_a_chain() -> None:
    model = GenericFakeChatModel(messages=iter(["nope", GOOD]))
    chain = RetryWithClarification(prompt=generate_prompt(), llm=model) | RunnableLambda(
        lambda out: out.name
    )
    assert list(chain.stream({"topic": "x"})) == ["Thu"]


def test_stream_never_good_raises() -> None:
    model = GenericFakeChatModel(messages=iter(["a", "b"]))
    chain = RetryWithClarification(prompt=generate_prompt(), llm=model, max_retries=1)
    with pytest.raises(RetryExhaustedError):
        list(chain.stream({"topic": "x"}))


# --------------------------------------------------------------------------- async


async def test_ainvoke_broken_then_good() -> None:
    handler = AsyncRecordingHandler()
    chain = retry(YAML, '{"text": ""}', GOOD)
    result = await chain.ainvoke({"topic": "autumn"}, {"callbacks": [handler]})
    assert result == GOOD_VALUE
    calls = handler.seen.model_calls
    assert len(calls) == 3
    root = handler.seen.root()
    assert all(call.parent_run_id == root.run_id for call in calls)
    assert [call.metadata["attempt"] for call in calls] == [1, 2, 3]
    assert "Field 'text' is required" in text_of(calls[2].messages[-1])


async def test_ainvoke_locally_repairable_is_one_call() -> None:
    handler = AsyncRecordingHandler()
    answer = '```json\n{"text": "Lá vàng rơi", "name": "Thu",}\n```'
    result = await retry(answer).ainvoke({"topic": "x"}, {"callbacks": [handler]})
    assert result == GOOD_VALUE
    assert len(handler.seen.model_calls) == 1


async def test_ainvoke_never_good() -> None:
    with pytest.raises(RetryExhaustedError) as info:
        await retry("a", "b", "c").ainvoke({"topic": "x"})
    assert len(info.value.attempts) == 3
    result = await retry("a", on_error="fallback", max_retries=0).ainvoke({"topic": "x"})
    assert result == {"text": "a", "parseError": result["parseError"], "rawResponse": "a"}


async def test_abatch() -> None:
    chain = RetryWithClarification(
        prompt=judge_prompt("vi"),
        llm=FakeListChatModel(responses=['{"score": 11}', '{"score": 8}']),
    )
    results = await chain.abatch([{"essay": "a"}], {"max_concurrency": 1})
    assert results == [JudgeOutput(score=8)]


async def test_astream() -> None:
    handler = AsyncRecordingHandler()
    model = GenericFakeChatModel(messages=iter(["nope", GOOD]))
    chain = RetryWithClarification(prompt=generate_prompt(), llm=model)
    chunks = [c async for c in chain.astream({"topic": "x"}, {"callbacks": [handler]})]
    assert chunks == [GOOD_VALUE]
    assert len(handler.seen.model_calls) == 2
    assert handler.seen.tokens


async def test_astream_events() -> None:
    model = GenericFakeChatModel(messages=iter(["nope", GOOD]))
    chain = RetryWithClarification(prompt=generate_prompt(), llm=model)
    events = [e async for e in chain.astream_events({"topic": "x"}, version="v2")]
    kinds = [(e["event"], e["name"]) for e in events]
    assert kinds.count(("on_chat_model_start", "GenericFakeChatModel")) == 2
    assert ("on_chat_model_stream", "GenericFakeChatModel") in kinds
    streamed = [e["data"]["chunk"] for e in events if e["event"] == "on_chain_stream"]
    assert streamed == [GOOD_VALUE]


async def test_concurrent_ainvoke() -> None:
    def chain() -> RetryWithClarification:
        return retry("nope", GOOD)

    results = await asyncio.gather(*(chain().ainvoke({"topic": str(i)}) for i in range(5)))
    assert results == [GOOD_VALUE] * 5


def test_the_chain_speaks_the_parsers_word_for_a_fallback() -> None:
    """``on_error`` on the chain as on every parser; the 0.2 name is refused, naming it."""
    chain = retry("Lá vàng rơi (không có JSON)", on_error="fallback", max_retries=0)
    result = chain.invoke({"topic": "x"})
    assert result["text"] == "Lá vàng rơi (không có JSON)"
    with pytest.raises(TypeError, match="on_error='fallback'"):
        retry("a", fallback="plain_text")
