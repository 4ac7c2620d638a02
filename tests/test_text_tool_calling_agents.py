"""TextToolCallingChatModel where LangChain users run tools: LangGraph's prebuilt agent and
langchain's ``create_agent``, driven by a scripted "open model" answering in each dialect through
two tool calls and a final answer. Each test is skipped when its framework is not installed
(``langchain`` 1.x needs langchain-core 1.x, so it is absent at the floor versions)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from chain_fakes import text_of
from fake_chat_models import ScriptedChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage
from pydantic import BaseModel
from tool_calling_fakes import (
    EXPECTED_CALLS,
    FINAL_ANSWER,
    PARALLEL,
    QUESTION,
    SEQUENTIAL,
    TOOLS,
    check_loop,
)

from langchain_robust_parsers.chat_models import TextToolCallingChatModel

DIALECTS = ("hermes", "python", "json")


def react_agent(llm: TextToolCallingChatModel) -> Any:
    prebuilt = pytest.importorskip("langgraph.prebuilt")
    with warnings.catch_warnings():  # deprecated in favour of langchain's create_agent (1.x)
        warnings.simplefilter("ignore", DeprecationWarning)
        return prebuilt.create_react_agent(llm, TOOLS)


def langchain_agent(llm: TextToolCallingChatModel, **kwargs: Any) -> Any:
    agents = pytest.importorskip("langchain.agents")
    create_agent = getattr(agents, "create_agent", None)
    if create_agent is None:
        pytest.skip("langchain.agents.create_agent needs langchain 1.x")
    return create_agent(llm, TOOLS, **kwargs)


BUILDERS = {"langgraph": react_agent, "create_agent": langchain_agent}


def wrapped(dialect: str, script: list[str], chunk_size: int = 4) -> TextToolCallingChatModel:
    return TextToolCallingChatModel(
        ScriptedChatModel(responses=script, chunk_size=chunk_size), dialect=dialect
    )


@pytest.mark.parametrize("framework", list(BUILDERS))
@pytest.mark.parametrize("dialect", DIALECTS)
def test_agent_runs_two_tool_calls(framework: str, dialect: str) -> None:
    agent = BUILDERS[framework](wrapped(dialect, SEQUENTIAL[dialect]))
    result = agent.invoke({"messages": [HumanMessage(QUESTION)]})
    check_loop(result["messages"])


@pytest.mark.parametrize("framework", list(BUILDERS))
@pytest.mark.parametrize("dialect", DIALECTS)
def test_agent_runs_parallel_calls(framework: str, dialect: str) -> None:
    agent = BUILDERS[framework](wrapped(dialect, PARALLEL[dialect]))
    result = agent.invoke({"messages": [HumanMessage(QUESTION)]})
    check_loop(result["messages"], parallel=True)


@pytest.mark.parametrize("framework", list(BUILDERS))
@pytest.mark.parametrize("dialect", DIALECTS)
async def test_agent_async(framework: str, dialect: str) -> None:
    agent = BUILDERS[framework](wrapped(dialect, SEQUENTIAL[dialect]))
    result = await agent.ainvoke({"messages": [HumanMessage(QUESTION)]})
    check_loop(result["messages"])


@pytest.mark.parametrize("framework", list(BUILDERS))
@pytest.mark.parametrize("dialect", DIALECTS)
def test_agent_streams_parsed_messages(framework: str, dialect: str) -> None:
    """``stream_mode="messages"`` shows the wrapper's parsed stream: prose as content, calls as
    tool-call chunks, never the raw call text (the wrapped model's runs are tagged
    ``nostream``)."""
    agent = BUILDERS[framework](wrapped(dialect, SEQUENTIAL[dialect], chunk_size=3))
    chunks: list[AIMessageChunk] = []
    tool_results: list[ToolMessage] = []
    for message, _meta in agent.stream(
        {"messages": [HumanMessage(QUESTION)]}, stream_mode="messages"
    ):
        if isinstance(message, AIMessageChunk):
            chunks.append(message)
        elif isinstance(message, ToolMessage):
            tool_results.append(message)
    text = "".join(text_of(c) for c in chunks)
    for raw in ("<tool_call>", "get_weather(", '"arguments"', "```"):
        assert raw not in text
    expected_prose = "I will look up the weather first.\n" if dialect == "hermes" else ""
    assert text == expected_prose + FINAL_ANSWER
    names = [c["name"] for chunk in chunks for c in chunk.tool_call_chunks if c.get("name")]
    assert names == [name for name, _args in EXPECTED_CALLS]
    assert len(tool_results) == 2


async def test_agent_astreams_parsed_messages() -> None:
    agent = react_agent(wrapped("hermes", PARALLEL["hermes"], chunk_size=5))
    text = ""
    names: list[str] = []
    async for message, _meta in agent.astream(
        {"messages": [HumanMessage(QUESTION)]}, stream_mode="messages"
    ):
        if isinstance(message, AIMessageChunk):
            text += text_of(message)
            names += [c["name"] for c in message.tool_call_chunks if c.get("name")]
    assert text == "Let me check both.\n" + FINAL_ANSWER
    assert names == ["get_weather", "get_time"]


class Weather(BaseModel):
    """A weather report."""

    city: str
    degrees: int


def test_create_agent_structured_response() -> None:
    """``create_agent(response_format=...)`` falls back to its tool strategy for a model without
    native structured output: a required call the wrapper reads like any other."""
    llm = wrapped(
        "hermes",
        [
            '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>',
            "Cold, I think.",  # no call although one is required: one clarification
            '<tool_call>{"name": "Weather", "arguments": {"city": "Oslo", "degrees": 3}}'
            "</tool_call>",
        ],
    )
    agent = langchain_agent(llm, response_format=Weather)
    result = agent.invoke({"messages": [HumanMessage("Weather in Oslo?")]})
    assert result["structured_response"] == Weather(city="Oslo", degrees=3)
    ais = [m for m in result["messages"] if isinstance(m, AIMessage)]
    assert [c["name"] for m in ais for c in m.tool_calls] == ["get_weather", "Weather"]


def test_langgraph_agent_with_a_prebound_model() -> None:
    """A model bound beforehand is taken as it is: LangGraph checks its tools and binds none."""
    llm = wrapped("json", SEQUENTIAL["json"])
    agent = react_agent(llm.bind_tools(TOOLS))  # type: ignore[arg-type]
    result = agent.invoke({"messages": [HumanMessage(QUESTION)]})
    check_loop(result["messages"])
