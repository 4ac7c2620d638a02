"""ReActOutputParser: the behaviours of issue 5 (Dify's published cases, fed one character per
chunk with ``stream_text=True``), LangChain's ReAct parser contract, both streaming modes,
message chunks, async, a real tool loop, and that no text makes it fail otherwise or go
quadratic."""

from __future__ import annotations

import asyncio
import copy
import json
import pickle
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from cpu_clock import best_cpu_seconds
from event_recorders import EventRecorder
from hypothesis import given, settings, strategies as st
from langchain_core.agents import AgentAction, AgentFinish
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.outputs import ChatGeneration, Generation
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.tools import tool

from langchain_robust_parsers import ParseStats
from langchain_robust_parsers.parsers.react import (
    ANSWER_STREAMED_KEY,
    BOTH_ANSWER_AND_ACTION,
    MISSING_ACTION,
    MISSING_ACTION_INPUT,
    REACT_JSON_FORMAT_INSTRUCTIONS,
    REACT_TEXT_FORMAT_INSTRUCTIONS,
    ReActOutputParser,
)

ECHARTS = "```echarts\n {}\n```"
"""The answer of Dify's tests: a fenced block inside the JSON string, with real newlines."""


def streamed(text: str, *, size: int = 1, **fields: Any) -> list[Any]:
    """Everything ``transform`` yields for ``text`` in chunks of ``size`` characters."""
    parser = ReActOutputParser(stream_text=True, **fields)
    chunks = [text[i : i + size] for i in range(0, len(text), size)]
    return list(parser.transform(iter(chunks)))


def streamed_until_error(
    parser: ReActOutputParser, chunks: list[str]
) -> tuple[list[Any], OutputParserException | None]:
    """What ``parser.transform`` yields for ``chunks`` before it ends, and what it raised."""
    items: list[Any] = []
    try:
        for item in parser.transform(iter(chunks)):
            items.append(item)
    except OutputParserException as err:
        return items, err
    return items, None


def text_of(items: list[Any]) -> str:
    return "".join(item for item in items if isinstance(item, str))


def steps_of(items: list[Any]) -> list[AgentAction | AgentFinish]:
    return [item for item in items if not isinstance(item, str)]


# --------------------------------------------------------------------------- issue 5 behaviours

ACT = f'{{"action": "Final Answer", "action_input": "{ECHARTS}"}}'
DIFY_LAYOUTS = {
    "fence": f"Through: abc\nAction: ```{ACT}```",
    "json-fence": f"Through: abc\nAction: ```json\n{ACT}```",
    "JSON-fence": f"Through: abc\nAction: ```JSON\n{ACT}```",
    "list": f"Through: abc\nAction: ```[{ACT}]```",
    "inline": f"Through: abc\nAction: {ACT}",
}


@pytest.mark.parametrize("text", DIFY_LAYOUTS.values(), ids=DIFY_LAYOUTS.keys())
def test_final_answer_layouts_stream_thought_and_answer(text: str) -> None:
    items = streamed(text)
    shown = text_of(items)
    assert "Through: abc" in shown
    assert ECHARTS in shown
    assert shown == "Through: abc\n" + ECHARTS  # markers and JSON are not shown
    (finish,) = steps_of(items)
    assert finish == AgentFinish(
        return_values={"output": ECHARTS, ANSWER_STREAMED_KEY: True}, log=text
    )
    assert items[-1] is finish
    parsed = ReActOutputParser().parse(text)
    assert parsed == AgentFinish(return_values={"output": ECHARTS}, log=text)


def test_action_text_that_is_no_action_streams_text_then_raises_as_parse() -> None:
    text = "Through: abc\nAction: efg"
    items: list[Any] = []
    with pytest.raises(OutputParserException) as streamed_error:
        for item in ReActOutputParser(stream_text=True).transform(iter(text)):
            items.append(item)
    assert all(isinstance(item, str) for item in items)
    assert text_of(items) == "Through: abc\nefg"  # the `Action:` marker is not shown
    with pytest.raises(OutputParserException) as info:
        ReActOutputParser().parse(text)
    assert info.value.observation == MISSING_ACTION_INPUT
    assert info.value.send_to_llm
    assert streamed_error.value.observation == info.value.observation
    assert streamed_error.value.send_to_llm


@pytest.mark.parametrize("cut", ["\\u4f", "\\"], ids=["unicode-escape", "backslash"])
def test_cut_off_answer_streams_no_escape_fragment(cut: str) -> None:
    text = 'Action: {"action": "Final Answer", "action_input": "hello ' + cut
    items = streamed(text)
    assert text_of(items) == "hello "
    assert not any("\\" in item for item in items if isinstance(item, str))
    (finish,) = steps_of(items)
    assert isinstance(finish, AgentFinish)
    assert finish.return_values == {"output": "hello ", ANSWER_STREAMED_KEY: True}


def test_action_split_over_chunks() -> None:
    chunks = ['{"action": ', '"multi", ', '"input": "step"}']
    items = list(ReActOutputParser(stream_text=True).transform(iter(chunks)))
    assert items == [AgentAction("multi", "step", "".join(chunks))]
    for char_items in (streamed("".join(chunks)), streamed("".join(chunks), size=3)):
        assert char_items == [AgentAction("multi", "step", "".join(chunks))]


def test_list_wrapped_action_leaks_no_brackets() -> None:
    text = '[{"action": "lookup", "input": "abc"}]'
    assert streamed(text) == [AgentAction("lookup", "abc", text)]


@pytest.mark.parametrize(
    "text",
    ["```json\n{not valid json at all!}\n```", "```json\n{'single': 'quotes'}\n```"],
)
def test_invalid_json_in_a_fence_passes_through_as_text(text: str) -> None:
    for size in (1, 4, len(text)):
        chunks = [text[i : i + size] for i in range(0, len(text), size)]
        items, error = streamed_until_error(ReActOutputParser(stream_text=True), chunks)
        assert text_of(items) == text
        assert steps_of(items) == []
        # no step: the stream ends as parse does, not on text alone
        assert error is not None and error.observation == MISSING_ACTION


# --------------------------------------------------------------------------- more streaming


def test_tool_action_is_yielded_as_soon_as_it_is_complete() -> None:
    text = (
        "Thought: look it up\nAction:\n```json\n"
        '{"action": "search", "action_input": {"q": "x"}}\n```\nObservation: made up'
    )
    consumed: list[int] = []

    def chunks() -> Iterator[str]:
        for i, ch in enumerate(text):
            consumed.append(i)
            yield ch

    parser = ReActOutputParser(stream_text=True, template_opens_reasoning=False)
    for item in parser.transform(chunks()):
        if isinstance(item, AgentAction):
            assert consumed[-1] == text.index("```\nObservation") + 2  # the closing fence
            assert item == AgentAction("search", {"q": "x"}, text[: text.index("\nObservation")])
            break
    else:
        pytest.fail("no action")


def test_first_answer_delta_comes_with_the_chunk_that_brings_it() -> None:
    for text in [
        'Thought: ok\nAction: {"action": "Final Answer", "action_input": "Paris is big"}',
        "Thought: ok\nFinal Answer: Paris is big",
        'Action:\n```json\n{"action": "Final Answer", "action_input": "\\u00e9t\\u00e9"}\n```',
    ]:
        for size in (1, 4):
            first = _first_answer_char(text)
            arrived: list[int] = []

            def chunks(
                text: str = text, size: int = size, arrived: list[int] = arrived
            ) -> Iterator[str]:
                for i in range(0, len(text), size):
                    arrived.append(i + size)
                    yield text[i : i + size]

            thoughts_done = False
            for item in ReActOutputParser(
                stream_text=True, template_opens_reasoning=False
            ).transform(chunks()):
                if isinstance(item, str) and arrived[-1] > first:
                    thoughts_done = True
                    # the chunk holding the first answer character (an escape may end a
                    # few characters later) has just been read
                    assert arrived[-1] - first <= size + 6, (text, size, arrived[-1], first)
                    break
            assert thoughts_done


def _first_answer_char(text: str) -> int:
    if "Final Answer:" in text:
        return text.index("Final Answer:") + len("Final Answer: ")
    return text.index('"action_input": "') + len('"action_input": "')


def test_classic_final_answer_streams() -> None:
    text = "Thought: I now know the final answer\nFinal Answer: The temperature is 100\n"
    items = streamed(text)
    assert text_of(items) == "I now know the final answer\nThe temperature is 100"
    assert steps_of(items) == [
        AgentFinish(
            return_values={"output": "The temperature is 100", ANSWER_STREAMED_KEY: True},
            log=text,
        )
    ]


def test_stream_thoughts_false_streams_the_answer_only() -> None:
    text = 'Thought: secret plan\nAction: {"action": "Final Answer", "action_input": "Hi!"}'
    items = streamed(text, stream_thoughts=False)
    assert text_of(items) == "Hi!"
    text = "Thought: a\nAction: search\nAction Input: x"
    assert streamed(text, stream_thoughts=False) == [AgentAction("search", "x", text)]


def test_non_string_final_answer_is_not_marked_streamed() -> None:
    text = 'Action: {"action": "Final Answer", "action_input": {"city": "Paris"}}'
    items = streamed(text)
    assert text_of(items) == ""
    assert steps_of(items) == [
        AgentFinish(
            return_values={"output": {"city": "Paris"}, ANSWER_STREAMED_KEY: False}, log=text
        )
    ]


def test_stream_mode_keeps_the_first_step_when_a_conflicting_one_follows() -> None:
    text = "Action: search\nAction Input: x\nObservation: made up\nFinal Answer: y"
    items = streamed(text)
    assert steps_of(items) == [AgentAction("search", "x", "Action: search\nAction Input: x")]
    with pytest.raises(OutputParserException):
        ReActOutputParser().parse(text)


def test_default_stream_is_one_item_equal_to_parse() -> None:
    for text in [*DIFY_LAYOUTS.values(), '{"action": "a", "input": "b"}', "Final Answer: x"]:
        parser = ReActOutputParser()
        for size in (1, 5):
            chunks = [text[i : i + size] for i in range(0, len(text), size)]
            assert list(parser.transform(iter(chunks))) == [parser.parse(text)]


def test_default_stream_raises_what_parse_raises() -> None:
    parser = ReActOutputParser()
    with pytest.raises(OutputParserException) as info:
        list(parser.transform(iter("I am not sure.")))
    assert info.value.observation == MISSING_ACTION
    assert info.value.send_to_llm


def test_message_chunks_and_content_blocks() -> None:
    text = 'Thought: t\nAction: {"action": "Final Answer", "action_input": "a\\nb"}'
    chunks = [AIMessageChunk(content=text[i : i + 3]) for i in range(0, len(text), 3)]
    items = list(ReActOutputParser(stream_text=True).transform(iter(chunks)))
    assert text_of(items) == "t\na\nb"
    assert steps_of(items)[-1].return_values["output"] == "a\nb"  # type: ignore[union-attr]
    blocks = [AIMessageChunk(content=[{"type": "text", "text": c.content}]) for c in chunks]
    assert list(ReActOutputParser(stream_text=True).transform(iter(blocks))) == items
    assert ReActOutputParser().invoke(AIMessage(content=text)).return_values == {"output": "a\nb"}


async def test_atransform_both_modes() -> None:
    text = DIFY_LAYOUTS["json-fence"]

    async def chunks() -> AsyncIterator[str]:
        for ch in text:
            yield ch

    items = [item async for item in ReActOutputParser(stream_text=True).atransform(chunks())]
    assert items == streamed(text)
    items = [item async for item in ReActOutputParser().atransform(chunks())]
    assert items == [ReActOutputParser().parse(text)]

    async def bad() -> AsyncIterator[str]:
        yield "no markup at all"

    with pytest.raises(OutputParserException):
        _ = [item async for item in ReActOutputParser().atransform(bad())]


async def test_async_parse_and_chain() -> None:
    text = "Thought: x\nAction: search\nAction Input: y"
    parser = ReActOutputParser()
    assert await parser.aparse(text) == AgentAction("search", "y", text)
    assert await parser.ainvoke(text) == AgentAction("search", "y", text)
    model = GenericFakeChatModel(messages=iter([AIMessage(content=DIFY_LAYOUTS["inline"])]))
    chain = model | ReActOutputParser(stream_text=True)
    items = [item async for item in chain.astream("q")]
    assert text_of(items) == "Through: abc\n" + ECHARTS


def test_chain_stream_with_generic_fake_chat_model() -> None:
    answer = 'Paris, "the City of Light", is the capital.'
    reply = "I know this.\nAction: " + json.dumps(
        {"action": "Final Answer", "action_input": answer}
    )
    model = GenericFakeChatModel(messages=iter([AIMessage(content=reply)]))
    items = list(
        (model | ReActOutputParser(stream_text=True, template_opens_reasoning=False)).stream("q")
    )
    assert text_of(items) == "I know this.\n" + answer
    assert len([i for i in items if isinstance(i, str)]) > 5  # token by token


# --------------------------------------------------------------------------- parse()


def test_classic_action_and_finish() -> None:
    parser = ReActOutputParser()
    text = (
        "Thought: agent thought here\nAction: search\nAction Input: what is the temperature in SF?"
    )
    assert parser.invoke(text) == AgentAction("search", "what is the temperature in SF?", text)
    text = "Thought: agent thought here\nFinal Answer: The temperature is 100"
    assert parser.invoke(text) == AgentFinish({"output": "The temperature is 100"}, text)


def test_classic_json_action_in_a_fence_keeps_the_whole_log() -> None:
    text = (
        "Thought: agent thought here\n```\n{\n"
        '    "action": "search",\n    "action_input": "what is the temperature in SF?"\n}\n```\n'
    )
    assert ReActOutputParser().invoke(text) == AgentAction(
        "search", "what is the temperature in SF?", text
    )


def test_log_leaves_out_a_hallucinated_observation() -> None:
    text = "Action: search\nAction Input: x\nObservation: invented\nThought: hmm"
    assert ReActOutputParser().parse(text) == AgentAction(
        "search", "x", "Action: search\nAction Input: x"
    )


@pytest.mark.parametrize(
    "text",
    [
        "Thought: agent thought here\nAction: search Final Answer:\nAction Input: what?",
        "Action: search\nAction Input: x\nObservation: y\nThought: ok\nFinal Answer: z",
        'Action: {"action": "search", "action_input": "x"}\nFinal Answer: z',
    ],
)
def test_both_answer_and_action_raise_for_the_model(text: str) -> None:
    with pytest.raises(OutputParserException) as info:
        ReActOutputParser().parse(text)
    err = info.value
    assert err.observation == BOTH_ANSWER_AND_ACTION
    assert err.send_to_llm
    assert err.llm_output == text
    assert "both a final answer and a parse-able action" in str(err)


@pytest.mark.parametrize(
    ("text", "observation"),
    [
        ("Thought: I should think more.", MISSING_ACTION),
        ("", MISSING_ACTION),
        ("Thought: x\nAction: search", MISSING_ACTION_INPUT),
        ('{"foo": "bar"}', MISSING_ACTION),
    ],
)
def test_neither_raises_for_the_model(text: str, observation: str) -> None:
    with pytest.raises(OutputParserException) as info:
        ReActOutputParser().parse(text)
    err = info.value
    assert (err.observation, err.send_to_llm, err.llm_output) == (observation, True, text)
    assert str(err).startswith("Could not parse LLM output: `")


def test_on_error_fallback_takes_a_bare_answer() -> None:
    parser = ReActOutputParser(on_error="fallback")
    assert parser.parse("  Paris is the capital.\n") == AgentFinish(
        {"output": "Paris is the capital."}, "  Paris is the capital.\n"
    )
    assert parser.parse("<think>hmm</think>Paris.").return_values == {  # type: ignore[union-attr]
        "output": "Paris."
    }
    with pytest.raises(OutputParserException):
        parser.parse("Thought: markup but no step")
    with pytest.raises(OutputParserException):
        parser.parse("   ")
    items = streamed("Just Paris.", on_error="fallback")
    assert items[-1] == AgentFinish(
        {"output": "Just Paris.", ANSWER_STREAMED_KEY: True}, "Just Paris."
    )
    assert text_of(items) == "Just Paris."


def test_parse_result_partial_never_raises() -> None:
    parser = ReActOutputParser()
    assert parser.parse_result([Generation(text="Thought: x\nAction: se")], partial=True) is None
    text = '{"action": "search", "action_input": "x"} and more'
    assert parser.parse_result([Generation(text=text)], partial=True) == AgentAction(
        "search", "x", '{"action": "search", "action_input": "x"}'
    )
    message = AIMessage(content="Final Answer: 42")
    assert parser.parse_result([ChatGeneration(message=message)]) == AgentFinish(
        {"output": "42"}, "Final Answer: 42"
    )


# --------------------------------------------------------------------------- robustness

_REACT_PIECES = st.sampled_from(
    [
        *"ab \n:{}[]\"'\\`*<>,",
        *("Thought:", "Action:", "Action Input:", "Final Answer:", "Observation:", "```json\n"),
        *('"action"', '"action_input"', '"Final Answer"', '"search"', "\\u00e9", "\\ud83d"),
        *('{"action": "Final Answer", "action_input": "', '{"action": "x", "input": "', '"}'),
        *("<think>", "</think>", "😀", "[{", "Act", "Final Ans", "Action Inp", "``"),
    ]
)
_REACT_TEXT = st.one_of(st.text(max_size=150), st.lists(_REACT_PIECES, max_size=40).map("".join))


@settings(max_examples=250, deadline=None)
@given(_REACT_TEXT, st.integers(1, 6), st.booleans())
def test_any_text_gives_a_step_or_an_output_parser_exception(
    text: str, size: int, lenient: bool
) -> None:
    parser = ReActOutputParser(on_error="fallback" if lenient else "raise")
    chunks = [text[i : i + size] for i in range(0, len(text), size)]
    try:
        expected: Any = parser.parse(text)
    except OutputParserException as err:
        expected = err
    # default stream: one item, what parse gives, or the same exception
    try:
        items = list(parser.transform(iter(chunks)))
    except OutputParserException as err:
        assert isinstance(expected, OutputParserException)
        assert err.observation == expected.observation
    else:
        assert items == [expected]
    # text stream: text, then one step, or (no step at all) what parse raises; never text only
    text_parser = ReActOutputParser(stream_text=True, on_error="fallback" if lenient else "raise")
    items, error = streamed_until_error(text_parser, chunks)
    found = steps_of(items)
    if error is not None:
        assert found == []
        assert isinstance(expected, OutputParserException)
        assert error.observation == expected.observation
    else:
        assert len(found) == 1
        assert items[-1] is found[0]
        if isinstance(expected, (AgentAction, AgentFinish)):
            assert type(found[0]) is type(expected)
        if isinstance(found[0], AgentFinish) and found[0].return_values[ANSWER_STREAMED_KEY]:
            assert found[0].return_values["output"].strip() in text_of(items)


@pytest.mark.slow
def test_growth_per_chunk_cost_is_constant() -> None:
    parser = ReActOutputParser(stream_text=True)

    def per_chunk(size: int) -> float:
        answer = 'word, and "quoted" words\n' * (size // 26)
        text = "Thought: x\nAction: " + json.dumps(
            {"action": "Final Answer", "action_input": answer}, ensure_ascii=False
        )
        chunks = [text[i : i + 4] for i in range(0, len(text), 4)]
        best = best_cpu_seconds(lambda: list(parser.transform(iter(chunks))), 5)
        return best / len(chunks)

    per_chunk(2_000)  # warm up
    small, large = per_chunk(20_000), per_chunk(400_000)
    assert large <= 2 * small + 2e-6, (small, large)


# --------------------------------------------------------------------------- a real tool loop


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"Sunny and 24 C in {city}."


TOOLS = {"get_weather": get_weather}
LOOP_PROMPT = ChatPromptTemplate.from_messages(
    [
        ("system", "Answer with tools. {format_instructions}"),
        ("human", "{input}\n{agent_scratchpad}"),
    ]
)
ANSWER = 'It is "sunny" in Paris: 24 °C.\nEnjoy!'
REPLIES = [
    "I should check the weather.\nAction:\n```json\n"
    '{"action": "get_weather", "action_input": {"city": "Paris"}}\n```',
    "I now know the final answer.\nAction:\n```json\n"
    + json.dumps({"action": "Final Answer", "action_input": ANSWER}, ensure_ascii=False)
    + "\n```",
]


def run_tool_loop(parser: ReActOutputParser) -> tuple[AgentFinish, list[str], list[str]]:
    """A minimal ReAct loop: stream the chain, run the tool it asks for, feed the observation
    back, stop at the final answer. Returns the finish, the text shown and the observations."""
    model = GenericFakeChatModel(messages=iter([AIMessage(content=r) for r in REPLIES]))
    chain = LOOP_PROMPT.partial(format_instructions=parser.get_format_instructions())
    runnable = chain | model | parser
    scratchpad = ""
    shown: list[str] = []
    observations: list[str] = []
    for _ in range(4):
        step: AgentAction | AgentFinish | None = None
        for item in runnable.stream({"input": "Weather in Paris?", "agent_scratchpad": scratchpad}):
            if isinstance(item, str):
                shown.append(item)
            else:
                assert step is None, "one step per reply"
                step = item
        if isinstance(step, AgentFinish):
            return step, shown, observations
        assert isinstance(step, AgentAction)
        observation = TOOLS[step.tool].invoke(step.tool_input)
        observations.append(observation)
        scratchpad += f"{step.log}\nObservation: {observation}\nThought: "
    raise AssertionError("the loop did not finish")


def test_tool_loop_default_mode() -> None:
    finish, shown, observations = run_tool_loop(ReActOutputParser())
    assert observations == ["Sunny and 24 C in Paris."]
    assert shown == []
    assert finish.return_values == {"output": ANSWER}


def test_tool_loop_streams_the_answer_token_by_token() -> None:
    finish, shown, observations = run_tool_loop(
        ReActOutputParser(stream_text=True, template_opens_reasoning=False)
    )
    assert observations == ["Sunny and 24 C in Paris."]
    assert "".join(shown) == (
        "I should check the weather.\nI now know the final answer.\n" + ANSWER
    )
    assert len(shown) > 10
    assert finish.return_values == {"output": ANSWER, ANSWER_STREAMED_KEY: True}


# --------------------------------------------------------------------------- langchain-classic

CLASSIC_PROMPT = """Answer the following questions as best you can. You have access to the \
following tools:

{tools}

Use the following format:

Question: the input question you must answer
Thought: you should always think about what to do
Action: the action to take, should be one of [{tool_names}]
Action Input: the input to the action
Observation: the result of the action
... (this Thought/Action/Action Input/Observation can repeat N times)
Thought: I now know the final answer
Final Answer: the final answer to the original input question

Begin!

Question: {input}
Thought:{agent_scratchpad}"""


@pytest.mark.parametrize("stream_text", [False, True])
@pytest.mark.parametrize("layout", ["text", "json"])
def test_agent_executor(layout: str, stream_text: bool) -> None:
    agents = pytest.importorskip("langchain_classic.agents")
    from langchain_core.prompts import PromptTemplate

    if layout == "text":
        replies = [
            " I need the weather.\nAction: get_weather\nAction Input: Paris",
            " I now know the final answer\nFinal Answer: It is sunny in Paris.",
        ]
    else:
        replies = [
            ' I need the weather.\nAction: {"action": "get_weather", "action_input": "Paris"}',
            ' Done.\nAction: {"action": "Final Answer", "action_input": "It is sunny in Paris."}',
        ]
    parser = ReActOutputParser(stream_text=stream_text)
    llm = FakeListChatModel(responses=replies)
    agent = agents.create_react_agent(
        llm, [get_weather], PromptTemplate.from_template(CLASSIC_PROMPT), output_parser=parser
    )
    # AgentExecutor streams by default and adds the streamed items together: text deltas add
    # up to the step, so stream_text needs no stream_runnable=False.
    executor = agents.AgentExecutor(
        agent=agent, tools=[get_weather], return_intermediate_steps=True
    )
    result = executor.invoke({"input": "Weather in Paris?"})
    assert result["output"] == "It is sunny in Paris."
    ((action, observation),) = result["intermediate_steps"]
    assert (action.tool, action.tool_input) == ("get_weather", "Paris")
    assert observation == "Sunny and 24 C in Paris."


def test_agent_executor_sends_parsing_errors_back_to_the_model() -> None:
    agents = pytest.importorskip("langchain_classic.agents")
    from langchain_core.prompts import PromptTemplate

    llm = FakeListChatModel(responses=[" I am not sure what to do.", " I know.\nFinal Answer: 42"])
    agent = agents.create_react_agent(
        llm,
        [get_weather],
        PromptTemplate.from_template(CLASSIC_PROMPT),
        output_parser=ReActOutputParser(),
    )
    executor = agents.AgentExecutor(
        agent=agent, tools=[get_weather], handle_parsing_errors=True, return_intermediate_steps=True
    )
    result = executor.invoke({"input": "?"})
    assert result["output"] == "42"
    ((action, observation),) = result["intermediate_steps"]
    assert action.tool == "_Exception"
    assert observation == MISSING_ACTION


@pytest.mark.parametrize("on_error", ["raise", "fallback"])
def test_agent_executor_stream_text_reply_with_no_step(on_error: str) -> None:
    # AgentExecutor adds up what the agent streams; a reply with no ReAct step used to stream
    # text only, so the run ended on a ``str`` and failed with an AttributeError.
    agents = pytest.importorskip("langchain_classic.agents")
    from langchain_core.prompts import PromptTemplate

    llm = FakeListChatModel(responses=[" I am not sure what to do."])
    parser = ReActOutputParser(stream_text=True, on_error=on_error)  # type: ignore[arg-type]
    agent = agents.create_react_agent(
        llm, [get_weather], PromptTemplate.from_template(CLASSIC_PROMPT), output_parser=parser
    )
    executor = agents.AgentExecutor(agent=agent, tools=[get_weather])
    if on_error == "fallback":  # the text is the answer, as parse gives it
        result = executor.invoke({"input": "?"})
        assert result["output"] == "I am not sure what to do."
        return
    # parse's OutputParserException, which the executor reports as it does without stream_text
    with pytest.raises(ValueError, match="handle_parsing_errors=True") as info:
        executor.invoke({"input": "?"})
    assert "Could not parse LLM output: ` I am not sure what to do.`" in str(info.value)
    assert isinstance(info.value.__cause__ or info.value.__context__, OutputParserException)


def test_agent_executor_stream_text_sends_a_reply_with_no_step_back_to_the_model() -> None:
    agents = pytest.importorskip("langchain_classic.agents")
    from langchain_core.prompts import PromptTemplate

    llm = FakeListChatModel(responses=[" I am not sure what to do.", " I know.\nFinal Answer: 42"])
    agent = agents.create_react_agent(
        llm,
        [get_weather],
        PromptTemplate.from_template(CLASSIC_PROMPT),
        output_parser=ReActOutputParser(stream_text=True),
    )
    executor = agents.AgentExecutor(
        agent=agent, tools=[get_weather], handle_parsing_errors=True, return_intermediate_steps=True
    )
    result = executor.invoke({"input": "?"})
    assert result["output"] == "42"
    ((action, observation),) = result["intermediate_steps"]
    assert action.tool == "_Exception"
    assert observation == MISSING_ACTION


# --------------------------------------------------------------------------- LangChain contract


def test_type_output_type_and_schema() -> None:
    from langchain_core.output_parsers import BaseTransformOutputParser

    parser = ReActOutputParser()
    assert isinstance(parser, BaseTransformOutputParser)
    assert parser._type == "robust_react"
    assert parser.OutputType == AgentAction | AgentFinish
    assert ReActOutputParser(stream_text=True).OutputType == AgentAction | AgentFinish | str
    schema = json.dumps(parser.get_output_jsonschema())
    assert "AgentAction" in schema and "AgentFinish" in schema
    schema = json.dumps(ReActOutputParser(stream_text=True).get_output_jsonschema())
    assert '"string"' in schema


def test_format_instructions_parse() -> None:
    assert ReActOutputParser().get_format_instructions() == REACT_JSON_FORMAT_INSTRUCTIONS
    text_parser = ReActOutputParser(instructions="text")
    assert text_parser.get_format_instructions() == REACT_TEXT_FORMAT_INSTRUCTIONS
    example = REACT_JSON_FORMAT_INSTRUCTIONS.split("Observation:")[0]
    assert ReActOutputParser().parse(example) == AgentAction(
        "the name of one of the tools", "the input to the tool", example
    )


def test_pickle_and_deepcopy_keep_the_configuration_and_stats() -> None:
    stats = ParseStats()
    parser = ReActOutputParser(stream_text=True, on_error="fallback", stats=stats)
    parser.parse("Final Answer: x")
    for clone in (pickle.loads(pickle.dumps(parser)), copy.deepcopy(parser)):
        assert isinstance(clone, ReActOutputParser)
        assert (clone.stream_text, clone.on_error) == (True, "fallback")
        assert clone.stats == stats
        assert clone.parse("bare") == AgentFinish({"output": "bare"}, "bare")
    action = AgentAction("search", {"q": 1}, "log")
    assert pickle.loads(pickle.dumps(action)) == action


def test_stats_outcomes() -> None:
    stats = ParseStats()
    parser = ReActOutputParser(on_error="fallback", stats=stats)
    parser.parse("Thought: x\nAction: search\nAction Input: y")  # success
    parser.parse("Action: {'action': 'search', 'action_input': 'y',}")  # recovered
    parser.parse("Action: search\nAction Input: y\nObservation: made up")  # recovered
    parser.parse("a bare answer")  # fallback
    with pytest.raises(OutputParserException):
        parser.parse("Thought: nothing")  # failed
    with pytest.raises(OutputParserException):  # failed
        list(ReActOutputParser(stream_text=True, stats=stats).transform(iter("no step")))
    assert stats.snapshot() == {"react": {"success": 1, "recovered": 2, "fallback": 1, "failed": 2}}


def test_parse_report_event_in_a_run() -> None:
    recorder = EventRecorder()
    model = FakeListChatModel(responses=['Action: {"action": "search", "action_input": "x"}'])
    (model | ReActOutputParser()).invoke("q", config={"callbacks": [recorder]})
    ((name, data),) = recorder.events
    assert name == "parse_report"
    assert (data["parser"], data["format"], data["outcome"]) == (
        "ReActOutputParser",
        "react",
        "success",
    )
    assert data["source"] == "span"


def test_streaming_many_times_in_parallel_threads() -> None:
    parser = ReActOutputParser(stream_text=True)
    text = DIFY_LAYOUTS["list"]

    async def one() -> list[Any]:
        async def chunks() -> AsyncIterator[str]:
            for ch in text:
                yield ch

        return [item async for item in parser.atransform(chunks())]

    async def many() -> list[list[Any]]:
        return list(await asyncio.gather(*(one() for _ in range(8))))

    for items in asyncio.run(many()):
        assert items == streamed(text)


# ------------------------------------------------------------------ issue 16: several actions

TWO_FENCES = (
    "Thought: I need the weather in both cities.\n"
    "Action:\n```json\n"
    '{"action": "weather", "action_input": "Oslo"}\n'
    "```\n"
    "Action:\n```json\n"
    '{"action": "weather", "action_input": "Lima"}\n'
    "```\n"
)
JSON_LIST = (
    "Thought: two lookups at once.\n"
    '[{"action": "weather", "action_input": "Oslo"}, '
    '{"tool": "currency", "tool_input": {"from": "NOK", "to": "PEN"}}]'
)
TEXT_TWICE = (
    "Thought: first the search.\nAction: search\nAction Input: tallest tower\n"
    "Action: calculator\nAction Input: 828 * 2\n"
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (TWO_FENCES, [("weather", "Oslo"), ("weather", "Lima")]),
        (JSON_LIST, [("weather", "Oslo"), ("currency", {"from": "NOK", "to": "PEN"})]),
        (TEXT_TWICE, [("search", "tallest tower"), ("calculator", "828 * 2")]),
        ('Action: {"action": "search", "action_input": "x"}', [("search", "x")]),
    ],
    ids=["two-fences", "json-list", "text-twice", "one"],
)
def test_multiple_gives_every_action_of_the_turn(text: str, expected: list[Any]) -> None:
    actions = ReActOutputParser(multiple=True).parse(text)
    assert isinstance(actions, list)
    assert [(a.tool, a.tool_input) for a in actions] == expected
    # the turn's log once, on the first action (a scratchpad joins logs and observations)
    assert actions[0].log.startswith(text.split("\n", 1)[0])
    assert all(a.log == "" for a in actions[1:])
    # the default is unchanged: the first action alone
    first = ReActOutputParser().parse(text)
    assert isinstance(first, AgentAction)
    assert (first.tool, first.tool_input) == expected[0]


def test_multiple_keeps_the_finish_and_the_errors() -> None:
    parser = ReActOutputParser(multiple=True)
    finish = parser.parse("Thought: done\nFinal Answer: 42")
    assert isinstance(finish, AgentFinish) and finish.return_values == {"output": "42"}
    mixed = (
        '[{"action": "search", "action_input": "x"}, '
        '{"action": "Final Answer", "action_input": "y"}]'
    )
    with pytest.raises(OutputParserException) as info:
        parser.parse(mixed)
    assert info.value.observation == BOTH_ANSWER_AND_ACTION
    assert isinstance(ReActOutputParser().parse(mixed), AgentAction)  # default: as before
    with pytest.raises(OutputParserException):
        parser.parse("Thought: no step here")


@pytest.mark.parametrize("stream_text", [False, True])
def test_multiple_streams_the_list_once_at_the_end(stream_text: bool) -> None:
    parser = ReActOutputParser(multiple=True, stream_text=stream_text)
    for size in (1, 5, len(TWO_FENCES)):
        chunks = [TWO_FENCES[i : i + size] for i in range(0, len(TWO_FENCES), size)]
        items = [item for item in parser.transform(iter(chunks)) if not isinstance(item, str)]
        assert len(items) == 1
        assert [(a.tool, a.tool_input) for a in items[0]] == [
            ("weather", "Oslo"),
            ("weather", "Lima"),
        ]


def test_multiple_output_type() -> None:
    assert ReActOutputParser(multiple=True).OutputType == list[AgentAction] | AgentFinish


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("42", "42"), ("[1, 2]", "[1, 2]"), ("true", "true"), ("null", {}), ('{"q": 1}', {"q": 1})],
)
def test_action_input_of_any_json_type_becomes_an_agent_action(raw: str, expected: Any) -> None:
    step = ReActOutputParser().parse('Action: {"action": "calc", "action_input": ' + raw + "}")
    assert isinstance(step, AgentAction)
    assert step.tool_input == expected


def test_say_hi_keeps_its_quotes_through_the_parser() -> None:
    step = ReActOutputParser().parse('Thought: greet\nAction: speak\nAction Input: say "hi"')
    assert isinstance(step, AgentAction) and step.tool_input == 'say "hi"'


# --------------------------------------------------------------------------- langchain-classic
# What a user moving from langchain-classic's agent parsers (ReActSingleInputOutputParser,
# MRKLOutputParser, the JSON/structured-chat parsers) relies on; the deliberate differences are
# in docs/react.md. Each case is parsed whole and streamed in small chunks (default mode).


def parsed_both_ways(text: str) -> AgentAction | AgentFinish:
    """``parse`` of ``text``, checked against the default-mode stream of it in 3-character
    chunks (one item, the same value)."""
    whole = ReActOutputParser().parse(text)
    chunks = [text[i : i + 3] for i in range(0, len(text), 3)]
    assert list(ReActOutputParser().transform(iter(chunks))) == [whole]
    assert not isinstance(whole, list)
    return whole


def test_multi_line_final_answer_keeps_its_lines_and_blank_lines() -> None:
    text = (
        "Thought: I have the recipe.\n"
        "Final Answer: Three steps:\n"
        "1. boil salted water\n"
        "2. cook the pasta for 9 minutes\n"
        "\n"
        "Drain and serve.\n"
    )
    answer = (
        "Three steps:\n1. boil salted water\n2. cook the pasta for 9 minutes\n\nDrain and serve."
    )
    assert parsed_both_ways(text) == AgentFinish(return_values={"output": answer}, log=text)


@pytest.mark.parametrize(
    ("text", "tool", "tool_input"),
    [
        ("Action: calculator\nAction Input:\n  17 * 3\n", "calculator", "17 * 3"),
        ("Thought: rain?\nAction:\nweather\n\nAction Input:\nLima", "weather", "Lima"),
        ("Action: sql\nAction Input:\n\nSELECT 1;\nSELECT 2;", "sql", "SELECT 1;\nSELECT 2;"),
    ],
    ids=["input-next-line", "name-and-input-next-line", "multi-line-input"],
)
def test_action_input_on_the_next_line(text: str, tool: str, tool_input: str) -> None:
    step = parsed_both_ways(text)
    assert isinstance(step, AgentAction)
    assert (step.tool, step.tool_input) == (tool, tool_input)


def test_hallucinated_observation_is_cut_from_input_and_log() -> None:
    action = "Thought: look her up\nAction: wiki\nAction Input: Ada Lovelace\n"
    text = action + "Observation: an English mathematician\nThought: I see"
    step = parsed_both_ways(text)
    assert isinstance(step, AgentAction)
    assert (step.tool, step.tool_input) == ("wiki", "Ada Lovelace")
    assert step.log == action.rstrip("\n")
    assert "Observation" not in step.log


@pytest.mark.parametrize(
    ("text", "tool_input"),
    [
        # the text layout hands a JSON object on as written, as LangChain's text parsers do
        (
            'Action: geo\nAction Input: {"city": "Lima", "unit": "C"}',
            '{"city": "Lima", "unit": "C"}',
        ),
        # the JSON layout decodes it
        (
            'Action: {"action": "geo", "action_input": {"city": "Lima", "n": 2}}',
            {"city": "Lima", "n": 2},
        ),
        (
            '```json\n{"action": "geo", "action_input": {"nested": {"a": [1, 2]}}}\n```',
            {"nested": {"a": [1, 2]}},
        ),
    ],
    ids=["text-layout", "json-inline", "json-fenced-nested"],
)
def test_action_inputs_that_are_json_objects(text: str, tool_input: Any) -> None:
    step = parsed_both_ways(text)
    assert isinstance(step, AgentAction)
    assert (step.tool, step.tool_input) == ("geo", tool_input)


@pytest.mark.parametrize(
    ("raw", "tool_input"),
    [
        ('"Lima, Peru"', "Lima, Peru"),
        ('the "Lima" office', 'the "Lima" office'),
        ("5' 11\"", "5' 11\""),
        ('""', ""),
    ],
    ids=["wrapped", "inner-quotes", "closing-only", "empty-quoted"],
)
def test_quotes_in_a_text_action_input(raw: str, tool_input: str) -> None:
    step = parsed_both_ways(f"Action: note\nAction Input: {raw}")
    assert isinstance(step, AgentAction)
    assert step.tool_input == tool_input


def test_quotes_in_a_json_action_input_are_decoded() -> None:
    text = '{"action": "say", "action_input": "he said \\"no\\" and left"}'
    step = parsed_both_ways(text)
    assert isinstance(step, AgentAction)
    assert step.tool_input == 'he said "no" and left'


@pytest.mark.parametrize(
    "fence",
    [
        "```json\n{body}\n```",
        "```JSON\n\n{body}\n```\n",
        "```\n{body}\n```",
        "Action:\n```{body}```",
    ],
    ids=["json", "upper-blank-line", "bare", "one-line"],
)
def test_fenced_json_action(fence: str) -> None:
    text = "I will check the clock.\n" + fence.format(
        body='{"action": "clock", "action_input": "UTC"}'
    )
    step = parsed_both_ways(text)
    assert isinstance(step, AgentAction)
    assert (step.tool, step.tool_input) == ("clock", "UTC")


@pytest.mark.parametrize(
    "text",
    [
        '```json\n{"action": "list_files"}\n```',
        'Thought: no arguments needed\n```\n{\n  "action": "get_time"\n}\n```\n',
        '```json\n[{"action": "reset_cache"}]\n```',
    ],
    ids=["fenced", "fenced-after-thought", "fenced-list"],
)
def test_fenced_json_action_without_an_input_takes_no_arguments(text: str) -> None:
    step = parsed_both_ways(text)
    assert isinstance(step, AgentAction)
    assert step.tool_input == {}
    assert step.tool in {"list_files", "get_time", "reset_cache"}
    streamed_items = streamed(text, size=2)
    (action,) = steps_of(streamed_items)  # yielded once complete: its log ends with the fence
    assert isinstance(action, AgentAction)
    assert (action.tool, action.tool_input) == (step.tool, {})


@pytest.mark.parametrize(
    "text",
    ['```json\n{"name": "Bob", "age": 41}\n```', 'The event was {"action": "click"} twice.'],
    ids=["fenced-data-named-by-name", "unfenced-in-prose"],
)
def test_json_without_an_input_that_is_not_an_action(text: str) -> None:
    with pytest.raises(OutputParserException) as info:
        ReActOutputParser().parse(text)
    assert info.value.observation == MISSING_ACTION


def test_action_none_is_a_tool_named_none_as_in_langchain() -> None:
    # An agent executor answers an unknown tool with an observation; the parser does not guess.
    step = parsed_both_ways("Thought: nothing to do\nAction: None\nAction Input: n/a")
    assert isinstance(step, AgentAction)
    assert (step.tool, step.tool_input) == ("None", "n/a")


@pytest.mark.parametrize(
    "text",
    ["Thought: search it\nAction: search", "Action: None\n", "Action: translate\nThought: hmm"],
)
def test_missing_action_input_asks_the_model_for_it(text: str) -> None:
    with pytest.raises(OutputParserException) as info:
        ReActOutputParser().parse(text)
    assert info.value.observation == MISSING_ACTION_INPUT
    assert info.value.send_to_llm
    assert info.value.llm_output == text


@pytest.mark.parametrize(
    "text",
    [
        "Action: search\nAction Input: tides\nFinal Answer: high at 6",
        "Final Answer: high at 6\n\nAction: search\nAction Input: tides",
    ],
    ids=["action-first", "answer-first"],
)
def test_both_an_action_and_a_final_answer_raise(text: str) -> None:
    with pytest.raises(OutputParserException) as info:
        ReActOutputParser().parse(text)
    assert info.value.observation == BOTH_ANSWER_AND_ACTION
    assert info.value.send_to_llm


def test_fence_inside_a_final_answer_is_answer_text() -> None:
    # LangChain's text parsers agree: what follows "Final Answer:" is the answer.
    text = 'Final Answer: use\n```json\n{"action": "search", "action_input": "tides"}\n```'
    step = parsed_both_ways(text)
    assert isinstance(step, AgentFinish)
    assert step.return_values["output"].startswith("use\n```json")


def test_surrounding_whitespace_is_dropped_from_name_and_input_not_log() -> None:
    text = "\n\n  Thought: time\nAction:   clock  \nAction Input:   UTC   \n\n"
    step = parsed_both_ways(text)
    assert isinstance(step, AgentAction)
    assert (step.tool, step.tool_input, step.log) == ("clock", "UTC", text)
    finish = parsed_both_ways("  Final Answer:   noon  \n")
    assert isinstance(finish, AgentFinish)
    assert finish.return_values["output"] == "noon"


def test_markers_inside_think_blocks_are_reasoning() -> None:
    text = (
        "<think>Final Answer: 3? No, check.\nAction: guess</think>\nAction: calc\nAction Input: 1+2"
    )
    step = parsed_both_ways(text)
    assert isinstance(step, AgentAction)
    assert (step.tool, step.tool_input) == ("calc", "1+2")
    finish = parsed_both_ways("<think>\nAction: search\nAction Input: x\n</think>\nFinal Answer: 3")
    assert isinstance(finish, AgentFinish)
    assert finish.return_values["output"] == "3"


def test_classic_agent_output_parser_fits_the_classic_agent_classes() -> None:
    agent_module = pytest.importorskip("langchain_classic.agents.agent")
    from langchain_classic.agents.structured_chat.output_parser import (
        StructuredChatOutputParserWithRetries,
    )

    from langchain_robust_parsers.parsers.react import classic_agent_output_parser

    parser = classic_agent_output_parser(on_error="fallback")
    assert isinstance(parser, ReActOutputParser)
    assert isinstance(parser, agent_module.AgentOutputParser)
    assert parser.on_error == "fallback"
    # a field typed AgentOutputParser rejects a plain ReActOutputParser, not this one
    with pytest.raises(ValueError, match="AgentOutputParser"):
        StructuredChatOutputParserWithRetries(base_parser=ReActOutputParser())
    retries = StructuredChatOutputParserWithRetries(base_parser=parser)
    step = retries.parse('Thought: no input needed\n```json\n{"action": "uptime"}\n```')
    assert isinstance(step, AgentAction)
    assert (step.tool, step.tool_input) == ("uptime", {})
    assert retries.parse("It is 4 pm.") == AgentFinish({"output": "It is 4 pm."}, "It is 4 pm.")
