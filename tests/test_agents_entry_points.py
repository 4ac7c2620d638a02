"""Every entry point of the agent parsers gives the same step for the same reply.

For a corpus of realistic agent replies (``agent_corpus``: ReAct in every layout, web-agent JSON
actions, UI-TARS calls), each behind every reasoning form with a decoy step inside the
reasoning: ``parse``, ``aparse``, ``invoke``, ``ainvoke``, ``transform`` and ``atransform`` (in
pieces of 1 to 64 characters, token by token, as strings or message chunks) give the same
``AgentAction``/``AgentFinish`` (or raise the same exception), and what a stream yields on the
way is only ever a state of that final answer, never the reasoning's decoy.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

import pytest
from agent_corpus import (
    BOTH,
    DECOY,
    Act,
    Fails,
    Finish,
    ReActCase,
    action_texts,
    fixed_chunks,
    react_texts,
    token_splits,
)
from hypothesis import given, settings, strategies as st
from langchain_core.agents import AgentAction, AgentFinish
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.outputs import ChatGeneration
from test_stop_reason_agreement import CUT_SPELLINGS, FINISHED_SPELLINGS, chunks_of as stop_chunks

from langchain_robust_parsers import (
    ActionOutputParser,
    AnswerDelta,
    ReActOutputParser,
    ThoughtDelta,
    TruncatedOutputError,
)

REACT = list(react_texts())
REACT_IDS = [case_id for case_id, *_ in REACT]
ACTIONS = list(action_texts())
ACTION_IDS = [case_id for case_id, *_ in ACTIONS]
CHUNK_SIZES = (1, 2, 3, 5, 8, 13, 21, 34, 64)
FIRST_OF_BOTH = Act("search", "cat breeds")
"""The first step of the corpus's reply that holds both an action and a final answer."""


def chunkings(text: str) -> Iterator[list[str]]:
    for n in CHUNK_SIZES:
        yield fixed_chunks(text, n)
    yield from token_splits(text)


def outcome(call: Any) -> Any:
    """What a call gives: its value, or the identity of the exception it raised."""
    try:
        return call()
    except OutputParserException as exc:
        return ("raised", str(exc), exc.observation, exc.llm_output, exc.send_to_llm)


async def aoutcome(call: Any) -> Any:
    try:
        return await call()
    except OutputParserException as exc:
        return ("raised", str(exc), exc.observation, exc.llm_output, exc.send_to_llm)


async def _source(chunks: Iterable[Any]) -> AsyncIterator[Any]:
    for chunk in chunks:
        yield chunk


def check_expected(value: Any, case: ReActCase) -> None:
    expected = case.expected
    if isinstance(expected, Fails):
        assert isinstance(value, tuple) and value[0] == "raised", value
        assert value[2] == expected.observation
    elif isinstance(expected, Finish):
        assert isinstance(value, AgentFinish), value
        assert value.return_values == {"output": expected.output}
    else:
        assert isinstance(value, AgentAction), value
        assert (value.tool, value.tool_input) == (expected.tool, expected.tool_input)


# ----------------------------------------------------------------------------- ReAct


@pytest.mark.parametrize(("case_id", "form", "case", "text"), REACT, ids=REACT_IDS)
def test_react_entry_points_agree(case_id: str, form: Any, case: ReActCase, text: str) -> None:
    parser = ReActOutputParser()
    parsed = outcome(lambda: parser.parse(text))
    check_expected(parsed, case)
    assert outcome(lambda: parser.invoke(text)) == parsed
    want = parsed if isinstance(parsed, tuple) else [parsed]
    for chunks in chunkings(text):
        assert outcome(lambda c=chunks: list(parser.transform(iter(c)))) == want, chunks

    async def async_side() -> None:
        assert await aoutcome(lambda: parser.aparse(text)) == parsed
        assert await aoutcome(lambda: parser.ainvoke(text)) == parsed
        for chunks in (fixed_chunks(text, 1), fixed_chunks(text, 7), *token_splits(text)):

            async def streamed(c: list[str] = chunks) -> list[Any]:
                return [item async for item in parser.atransform(_source(c))]

            assert await aoutcome(streamed) == want, chunks

    asyncio.run(async_side())


def _text_stream_items(text: str, chunks: list[str]) -> Any:
    parser = ReActOutputParser(stream_text=True)
    return outcome(lambda: list(parser.transform(iter(chunks))))


@pytest.mark.parametrize(("case_id", "form", "case", "text"), REACT, ids=REACT_IDS)
def test_react_text_stream_yields_only_states_of_the_answer(
    case_id: str, form: Any, case: ReActCase, text: str
) -> None:
    expected = case.expected
    if isinstance(expected, Fails) and expected.observation == BOTH:
        expected = FIRST_OF_BOTH  # with stream_text the first step decides (documented)
    for chunks in chunkings(text):
        items = _text_stream_items(text, chunks)
        if isinstance(expected, Fails):
            assert isinstance(items, tuple) and items[2] == expected.observation
            continue
        *shown, last = items
        answer = ""
        answer_started = False
        for item in shown:
            if isinstance(item, AnswerDelta):
                answer_started = True
                answer += item
                assert isinstance(expected, Finish), (item, chunks)
                assert expected.output.startswith(answer), (answer, chunks)
                assert DECOY not in item
            elif isinstance(item, ThoughtDelta):
                assert not answer_started, ("a thought after the answer began", chunks)
            else:
                raise AssertionError(f"a step before the end: {item!r}, {chunks}")
        if isinstance(expected, Finish):
            assert isinstance(last, AgentFinish)
            assert last.return_values["output"] == expected.output
            assert answer in ("", expected.output)
            assert last.return_values["final_answer_streamed"] == (answer == expected.output)
        else:
            assert isinstance(last, AgentAction), (last, chunks)
            assert (last.tool, last.tool_input) == (expected.tool, expected.tool_input)


_CUT_TEXTS = [text for *_, text in REACT]


@settings(max_examples=80)
@given(
    text=st.sampled_from(_CUT_TEXTS),
    sizes=st.lists(st.integers(min_value=1, max_value=64), min_size=1, max_size=40),
    as_messages=st.booleans(),
)
def test_react_streams_do_not_depend_on_chunking(
    text: str, sizes: list[int], as_messages: bool
) -> None:
    parser = ReActOutputParser()
    parsed = outcome(lambda: parser.parse(text))
    chunks: list[Any] = _cut(text, sizes)
    if as_messages:
        chunks = [AIMessageChunk(content=c) for c in chunks]
    want = parsed if isinstance(parsed, tuple) else [parsed]
    assert outcome(lambda: list(parser.transform(iter(chunks)))) == want


def _cut(text: str, sizes: list[int]) -> list[str]:
    """``text`` in pieces of the given sizes, taken in turn."""
    chunks: list[str] = []
    pos = k = 0
    while pos < len(text):
        chunks.append(text[pos : pos + sizes[k % len(sizes)]])
        pos += sizes[k % len(sizes)]
        k += 1
    return chunks


_ANSWERED = [(case, text) for *_, case, text in REACT if isinstance(case.expected, Finish)]


@settings(max_examples=60)
@given(
    pick=st.sampled_from(_ANSWERED),
    sizes=st.lists(st.integers(min_value=1, max_value=64), min_size=1, max_size=40),
    use_async=st.booleans(),
)
def test_a_streamed_answer_only_grows_towards_the_final_answer(
    pick: tuple[ReActCase, str], sizes: list[int], use_async: bool
) -> None:
    case, text = pick
    assert isinstance(case.expected, Finish)
    parser = ReActOutputParser(stream_text=True, stream_thoughts=False)
    chunks = _cut(text, sizes)
    if use_async:

        async def run() -> list[Any]:
            return [item async for item in parser.atransform(_source(chunks))]

        items = asyncio.run(run())
    else:
        items = list(parser.transform(iter(chunks)))
    *deltas, finish = items
    answer = ""
    for delta in deltas:
        assert type(delta) is AnswerDelta
        answer += delta
        assert case.expected.output.startswith(answer), (answer, chunks)
    assert isinstance(finish, AgentFinish)
    assert answer == finish.return_values["output"] == case.expected.output


# ----------------------------------------------------------------------------- web actions


def _shown(actions: list[Any]) -> list[dict[str, Any]]:
    """The actions without their ``reasoning`` field (reasoning is allowed to hold reasoning)."""
    return [a.model_dump(exclude={"reasoning"}) for a in actions]


@pytest.mark.parametrize(("case_id", "form", "case", "text"), ACTIONS, ids=ACTION_IDS)
def test_action_entry_points_agree(case_id: str, form: Any, case: Any, text: str) -> None:
    parser = ActionOutputParser(window=(1280, 720))
    parsed = parser.parse(text)
    assert tuple(a.action_type for a in parsed) == case.types
    assert DECOY.lower() not in str(_shown(parsed)).lower()
    assert parser.invoke(text) == parsed
    assert parser.batch([text, text]) == [parsed, parsed]
    for chunks in (fixed_chunks(text, 1), fixed_chunks(text, 16), *token_splits(text)):
        assert list(parser.transform(iter(chunks))) == [parsed]

    async def async_side() -> None:
        assert await parser.aparse(text) == parsed
        assert await parser.ainvoke(text) == parsed
        streamed = [item async for item in parser.atransform(_source(fixed_chunks(text, 5)))]
        assert streamed == [parsed]

    asyncio.run(async_side())


def test_ui_tars_reasoning_is_the_thought_header_after_any_reasoning_form() -> None:
    """The ``Thought:`` header after a reasoning block is the action's reasoning, in every
    form, also when the closing marker and the header share a line (``<channel|>Thought:``)."""
    parser = ActionOutputParser(window=(1280, 720))
    seen = set()
    for _id, _form, case, text in ACTIONS:
        if case.name == "ui-tars-click":
            (action,) = parser.parse(text)
            seen.add(action.reasoning)
    assert seen == {"The search box is at the top of the page; I'll click it first."}


# ----------------------------------------------------------------------------- stop reasons

CUT_REPLIES = {
    "react-finish": "Thought: I have the forecast.\nFinal Answer: Lisbon will be sunny, with",
    "react-action": "Thought: look it up\nAction: get_weather\nAction Input: Lisbon",
    "ui-tars": "Thought: click the search box\nAction: click(start_box='(512,88)')",
}


def _parser_for(reply_id: str) -> Any:
    if reply_id == "ui-tars":
        return ActionOutputParser(window=(1280, 720), on_truncation="raise")
    return ReActOutputParser(on_truncation="raise")


def _verdicts(parser: Any, text: str, meta: dict[str, Any]) -> list[Any]:
    """What each entry point gives for ``text`` stopped with ``meta``: the kind of error, or
    ``"value"``."""

    def verdict(call: Any) -> Any:
        try:
            call()
        except TruncatedOutputError as error:
            return ("truncated", error.truncated, error.stop_reason)
        return "value"

    async def averdict(call: Any) -> Any:
        try:
            await call()
        except TruncatedOutputError as error:
            return ("truncated", error.truncated, error.stop_reason)
        return "value"

    message = AIMessage(content=text, response_metadata=dict(meta))
    generation = ChatGeneration(message=message)
    found = [
        verdict(lambda: parser.invoke(message)),
        verdict(lambda: parser.parse_result([generation])),
        verdict(lambda: list(parser.transform(iter(stop_chunks(text, meta))))),
    ]

    async def streamed() -> list[Any]:
        return [item async for item in parser.atransform(_source(stop_chunks(text, meta)))]

    async def async_side() -> list[Any]:
        return [
            await averdict(lambda: parser.ainvoke(message)),
            await averdict(lambda: parser.aparse_result([generation])),
            await averdict(streamed),
        ]

    return found + asyncio.run(async_side())


@pytest.mark.parametrize("reply_id", sorted(CUT_REPLIES))
@pytest.mark.parametrize("provider", sorted(CUT_SPELLINGS))
def test_every_entry_point_reads_every_providers_token_limit(reply_id: str, provider: str) -> None:
    parser = _parser_for(reply_id)
    meta = CUT_SPELLINGS[provider]
    verdicts = _verdicts(parser, CUT_REPLIES[reply_id], meta)
    assert {v[:2] if isinstance(v, tuple) else v for v in verdicts} == {
        ("truncated", "stop_reason")
    }
    assert len({v[2] for v in verdicts}) == 1, verdicts  # the same provider word everywhere


@pytest.mark.parametrize("reply_id", sorted(CUT_REPLIES))
@pytest.mark.parametrize("provider", sorted(FINISHED_SPELLINGS))
def test_a_finished_answer_is_a_value_at_every_entry_point(reply_id: str, provider: str) -> None:
    verdicts = _verdicts(_parser_for(reply_id), CUT_REPLIES[reply_id], FINISHED_SPELLINGS[provider])
    assert verdicts == ["value"] * len(verdicts)


def test_an_action_cut_in_its_json_raises_at_every_entry_point() -> None:
    text = 'Thought: search\nAction: {"action": "search", "action_input": "flights to Lis'
    verdicts = _verdicts(ReActOutputParser(on_truncation="raise"), text, {})
    assert verdicts == [("truncated", "text", None)] * len(verdicts)
