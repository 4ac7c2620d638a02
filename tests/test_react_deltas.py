"""A ReAct text stream says what each piece is: thought text or the final answer, by its type."""

from __future__ import annotations

import asyncio
import pickle
from collections.abc import AsyncIterator
from typing import Any

import pytest
from langchain_core.agents import AgentAction, AgentFinish

from langchain_robust_parsers import AnswerDelta, ReActOutputParser, TextDelta, ThoughtDelta

REPLY = (
    "Thought: The user wants Lisbon's weather; I already have it from the last step.\n"
    "Final Answer: Lisbon is 21 °C and sunny,\nwith a light breeze in the afternoon."
)


def _chunks(text: str, n: int) -> list[str]:
    return [text[i : i + n] for i in range(0, len(text), n)]


async def _astream(parser: ReActOutputParser, chunks: list[str]) -> list[Any]:
    async def source() -> AsyncIterator[str]:
        for chunk in chunks:
            yield chunk

    return [item async for item in parser.atransform(source())]


@pytest.mark.parametrize("n", [1, 4, 17, 1000])
@pytest.mark.parametrize("use_async", [False, True])
def test_thought_and_answer_pieces_have_their_own_types(n: int, use_async: bool) -> None:
    parser = ReActOutputParser(stream_text=True)
    chunks = _chunks(REPLY, n)
    items = asyncio.run(_astream(parser, chunks)) if use_async else list(parser.transform(chunks))
    *deltas, finish = items
    assert isinstance(finish, AgentFinish)
    assert all(type(d) in (ThoughtDelta, AnswerDelta) for d in deltas)
    kinds = [type(d) for d in deltas]
    # thought first, then the answer: never a thought after the answer started
    assert kinds == sorted(kinds, key=lambda k: k is AnswerDelta)
    answer = "".join(d for d in deltas if isinstance(d, AnswerDelta))
    thought = "".join(d for d in deltas if isinstance(d, ThoughtDelta))
    assert (
        answer
        == finish.return_values["output"]
        == ReActOutputParser().parse(REPLY).return_values["output"]
    )
    assert "Lisbon's weather" in thought and "Final Answer" not in thought


def test_answer_only_streams_hold_answer_deltas_only() -> None:
    parser = ReActOutputParser(stream_text=True, stream_thoughts=False)
    items = list(parser.transform(_chunks(REPLY, 3)))
    assert all(type(i) is AnswerDelta for i in items[:-1])


def test_a_tool_turn_streams_thought_then_the_action() -> None:
    text = 'Thought: I need the forecast.\nAction: weather\nAction Input: {"city": "Lisbon"}'
    items = list(ReActOutputParser(stream_text=True).transform(_chunks(text, 5)))
    *deltas, action = items
    assert isinstance(action, AgentAction)
    assert all(type(d) is ThoughtDelta for d in deltas)


def test_deltas_add_up_as_text_and_to_the_step() -> None:
    finish = AgentFinish({"output": "x"}, "log")
    assert type(ThoughtDelta("a") + ThoughtDelta("b")) is ThoughtDelta
    assert type(AnswerDelta("a") + AnswerDelta("b")) is AnswerDelta
    mixed = ThoughtDelta("a") + AnswerDelta("b")
    assert type(mixed) is TextDelta and mixed == "ab"
    assert type("a" + AnswerDelta("b")) is TextDelta
    assert ThoughtDelta("a") + AnswerDelta("b") + finish is finish
    assert "".join([ThoughtDelta("a"), AnswerDelta("b")]) == "ab"


def test_deltas_pickle_as_their_type() -> None:
    for delta in (ThoughtDelta("thinking"), AnswerDelta("answer")):
        again = pickle.loads(pickle.dumps(delta))
        assert type(again) is type(delta) and again == delta


def test_a_chain_streams_typed_deltas() -> None:
    from langchain_core.language_models import FakeListChatModel

    reply = "Thought: rain is likely\nFinal Answer: Take an umbrella."
    chain = FakeListChatModel(responses=[reply]) | ReActOutputParser(stream_text=True)
    items = list(chain.stream("Weather in Lisbon?"))
    answer = "".join(i for i in items if isinstance(i, AnswerDelta))
    assert answer == "Take an umbrella." == items[-1].return_values["output"]
    assert "".join(i for i in items if isinstance(i, ThoughtDelta)).strip() == "rain is likely"

    async def astream() -> list[Any]:
        return [item async for item in chain.astream("Weather in Lisbon?")]

    assert [type(i) for i in asyncio.run(astream())] == [type(i) for i in items]
