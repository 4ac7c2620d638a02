"""robust_structured_output: with_structured_output for models without reliable native
structured output."""

from __future__ import annotations

from typing import Any

import pydantic
import pydantic.v1
import pytest
from chain_fakes import AsyncRecordingHandler, RecordingHandler, text_of
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.prompts import ChatPromptTemplate

from langchain_robust_parsers import RobustPydanticOutputParser
from langchain_robust_parsers.chains import (
    JudgeOutput,
    RetryExhaustedError,
    RetryWithClarification,
    robust_structured_output,
)


class Person(pydantic.BaseModel):
    """A person."""

    name: str
    born: int
    known_for: list[str] = []


class V1Person(pydantic.v1.BaseModel):
    name: str
    born: int


ADA = '{"name": "Ada Lovelace", "born": 1815, "known_for": ["the first program"]}'
ADA_VALUE = Person(name="Ada Lovelace", born=1815, known_for=["the first program"])
INSTRUCTIONS = RobustPydanticOutputParser(pydantic_object=Person).get_format_instructions()


def structured(*responses: str, **kwargs: Any) -> RetryWithClarification:
    return robust_structured_output(FakeListChatModel(responses=list(responses)), Person, **kwargs)


def run(chain: Any, value: Any) -> tuple[Any, RecordingHandler]:
    handler = RecordingHandler()
    return chain.invoke(value, {"callbacks": [handler]}), handler


def test_string_input() -> None:
    result, handler = run(structured(ADA), "Tell me about Ada Lovelace.")
    assert result == ADA_VALUE
    [call] = handler.seen.model_calls
    assert [text_of(m) for m in call.messages] == [f"Tell me about Ada Lovelace.\n\n{INSTRUCTIONS}"]


def test_messages_input_suffix_on_last_human_message() -> None:
    messages = [SystemMessage(content="Answer in YAML."), HumanMessage(content="Who was Ada?")]
    result, handler = run(structured(ADA), messages)
    assert result == ADA_VALUE
    sent = handler.seen.model_calls[0].messages
    assert sent[0] == messages[0]
    assert text_of(sent[1]) == f"Who was Ada?\n\n{INSTRUCTIONS}"
    assert messages[1].content == "Who was Ada?"  # the caller's messages are not modified


def test_after_a_prompt_template() -> None:
    prompt = ChatPromptTemplate.from_messages([("human", "Tell me about {who}. YAML please.")])
    chain = prompt | structured(ADA)
    assert chain.invoke({"who": "Ada"}) == ADA_VALUE


def test_vietnamese_suffix_and_clarification() -> None:
    chain = structured('{"name": "Ada Lovelace"}', ADA, language="vi")
    result, handler = run(chain, "Kể về Ada Lovelace.")
    assert result == ADA_VALUE
    first, second = handler.seen.model_calls
    suffix = chain.requirement
    assert "ĐỊNH DẠNG ĐẦU RA (BẮT BUỘC - JSON)" in suffix
    assert '"born"' in suffix
    assert text_of(first.messages[0]) == f"Kể về Ada Lovelace.\n\n{suffix}"
    clarification = text_of(second.messages[-1])
    assert "Lỗi: Field 'born' là bắt buộc nhưng bị thiếu" in clarification
    assert clarification.endswith(suffix)


def test_local_repair_is_one_call() -> None:
    answer = (
        "<think>hmm</think>```json\n"
        "{'name': 'Ada Lovelace', 'born': '1815', 'known_for': 'the first program',}\n```"
    )
    result, handler = run(structured(answer), "Ada?")
    assert result == ADA_VALUE
    assert len(handler.seen.model_calls) == 1


def test_broken_then_good() -> None:
    result, handler = run(structured("name: Ada\nborn: 1815", ADA), "Ada?")
    assert result == ADA_VALUE
    _, second = handler.seen.model_calls
    assert [m.type for m in second.messages] == ["human", "ai", "human"]
    assert text_of(second.messages[1]) == "name: Ada\nborn: 1815"
    assert "No valid JSON was found in the answer." in text_of(second.messages[2])
    assert text_of(second.messages[2]).endswith(INSTRUCTIONS)


def test_never_good() -> None:
    with pytest.raises(RetryExhaustedError) as info:
        structured("a", "b", max_retries=1).invoke("Ada?")
    assert isinstance(info.value, OutputParserException)
    assert len(info.value.attempts) == 2


def test_judge_schema() -> None:
    chain = robust_structured_output(
        FakeListChatModel(responses=['{"score": "8.5/10", "criteriaScores": {"clarity": 9}}']),
        JudgeOutput,
    )
    assert chain.invoke("Rate this.") == JudgeOutput(score=8.5, criteriaScores={"clarity": 9})


def test_pydantic_v1_schema() -> None:
    chain = robust_structured_output(
        FakeListChatModel(responses=['{"name": "Ada", "born": 1815}']), V1Person, language="vi"
    )
    assert chain.invoke("Ada?") == V1Person(name="Ada", born=1815)
    assert '"born"' in chain.requirement


def test_schema_must_be_a_model() -> None:
    with pytest.raises(TypeError, match="pydantic model class"):
        robust_structured_output(FakeListChatModel(responses=[]), dict)


def test_runnable_shape() -> None:
    chain = structured(ADA)
    assert isinstance(chain, RetryWithClarification)
    assert chain.get_name() == "robust_structured_output"
    assert chain.max_retries == 2
    assert chain.get_output_jsonschema()["title"] == "Person"


def test_stream() -> None:
    model = GenericFakeChatModel(messages=iter(["not json", ADA]))
    chain = robust_structured_output(model, Person)
    assert list(chain.stream("Ada?")) == [ADA_VALUE]


async def test_async() -> None:
    handler = AsyncRecordingHandler()
    chain = structured("nope", ADA)
    assert await chain.ainvoke("Ada?", {"callbacks": [handler]}) == ADA_VALUE
    assert len(handler.seen.model_calls) == 2
    model = GenericFakeChatModel(messages=iter([ADA]))
    chunks = [c async for c in robust_structured_output(model, Person).astream("Ada?")]
    assert chunks == [ADA_VALUE]
    assert await structured(ADA, ADA).abatch(["a", "b"]) == [ADA_VALUE, ADA_VALUE]
