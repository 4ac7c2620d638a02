"""``RobustToolCallMiddleware`` in LangChain's real ``create_agent``, driven by scripted chat
models (never a live model): broken native calls repaired and run, calls written as text, calls
that cannot run sent back to the model as errors (and the model recovering), answers cut at the
token limit never run, unknown tools, the retry limit, structured answers, and streaming."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any, Literal

import pytest

pytest.importorskip(
    "langchain_robust_parsers.middleware",
    reason="the middleware needs langchain>=1.5",
    exc_type=ImportError,
)
agents = pytest.importorskip("langchain.agents")
if getattr(agents, "create_agent", None) is None:
    pytest.skip("create_agent needs langchain 1.x", allow_module_level=True)

from fake_chat_models import ScriptedToolModel  # noqa: E402
from hypothesis import (  # noqa: E402
    given,
    settings,
    strategies as st,
)
from langchain.agents import create_agent  # noqa: E402
from langchain.agents.middleware import ModelCallLimitMiddleware  # noqa: E402
from langchain.agents.structured_output import ProviderStrategy, ToolStrategy  # noqa: E402
from langchain_core.messages import (  # noqa: E402
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)
from langchain_core.messages.tool import invalid_tool_call, tool_call  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from pydantic import BaseModel  # noqa: E402

from langchain_robust_parsers import RobustToolCallMiddleware  # noqa: E402
from langchain_robust_parsers.middleware import METADATA_KEY  # noqa: E402
from langchain_robust_parsers.middleware.call_review import review_calls  # noqa: E402

RAN: list[tuple[str, dict[str, Any]]] = []


@tool
def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Current weather in a city."""
    RAN.append(("get_weather", {"city": city, "unit": unit}))
    return f"18 degrees {unit} and cloudy in {city}"


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    RAN.append(("add", {"a": a, "b": b}))
    return a + b


TOOLS = [get_weather, add]


@pytest.fixture(autouse=True)
def _fresh_runs() -> Iterator[None]:
    RAN.clear()
    yield
    RAN.clear()


def broken(name: str, args: str, call_id: str = "call_1") -> AIMessage:
    """An answer whose one native call LangChain could not parse."""
    bad = invalid_tool_call(name=name, args=args, id=call_id, error="Function arguments not JSON")
    return AIMessage(content="", invalid_tool_calls=[bad])


def calls(name: str, args: dict[str, Any], call_id: str = "call_1", **meta: Any) -> AIMessage:
    return AIMessage(
        content="", tool_calls=[tool_call(name=name, args=args, id=call_id)], response_metadata=meta
    )


FINAL = AIMessage(content="It is 18 degrees and cloudy in Paris.")


def run(script: list[AIMessage], **kwargs: Any) -> tuple[dict[str, Any], ScriptedToolModel]:
    model = ScriptedToolModel(script=script)
    middleware = kwargs.pop("middleware", [RobustToolCallMiddleware()])
    agent = create_agent(model, TOOLS, middleware=middleware, **kwargs)
    state = agent.invoke({"messages": [HumanMessage("What is the weather in Paris?")]})
    return state, model


def tool_messages(state: dict[str, Any]) -> list[ToolMessage]:
    return [m for m in state["messages"] if isinstance(m, ToolMessage)]


# ----------------------------------------------------------------------------- repaired calls


@pytest.mark.parametrize(
    "args",
    [
        "{'city': 'Paris'}",  # single quotes
        '{"city": "Paris",}',  # trailing comma
        '"{\\"city\\": \\"Paris\\"}"',  # a JSON document inside a JSON string
        "{city: 'Paris'}",  # an unquoted key
        '```json\n{"city": "Paris"}\n```',
    ],
)
def test_broken_native_call_is_repaired_and_runs(args: str) -> None:
    state, _ = run([broken("get_weather", args), FINAL])
    assert RAN == [("get_weather", {"city": "Paris", "unit": "celsius"})]
    assert state["messages"][-1].content == FINAL.content
    answer = state["messages"][1]
    assert isinstance(answer, AIMessage) and answer.invalid_tool_calls == []
    assert answer.tool_calls[0]["args"] == {"city": "Paris"}
    assert answer.response_metadata[METADATA_KEY]["repaired"]["call_1"]
    assert tool_messages(state)[0].status == "success"


def test_python_literals_in_arguments_are_read() -> None:
    state, _ = run([broken("add", "{'a': 2, 'b': 3, }"), FINAL])
    assert RAN == [("add", {"a": 2, "b": 3})]
    assert tool_messages(state)[0].content == "5"


def test_arguments_are_bent_to_the_tool_schema() -> None:
    """Key spelling, a Literal written in another case and numbers as strings are fixed before
    the tool runs, and the repairs are recorded."""
    script = [
        AIMessage(
            content="",
            tool_calls=[
                tool_call(name="get_weather", args={"City": "Paris", "unit": "Celsius"}, id="w"),
                tool_call(name="add", args={"a": "2", "b": "40"}, id="s"),
            ],
        ),
        FINAL,
    ]
    state, _ = run(script)
    assert sorted(RAN) == [
        ("add", {"a": 2, "b": 40}),
        ("get_weather", {"city": "Paris", "unit": "celsius"}),
    ]
    repaired = state["messages"][1].response_metadata[METADATA_KEY]["repaired"]
    assert set(repaired) == {"w", "s"}


def test_tool_name_is_matched_to_the_bound_tool() -> None:
    state, _ = run([calls("Get-Weather", {"city": "Paris"}), FINAL])
    assert RAN == [("get_weather", {"city": "Paris", "unit": "celsius"})]
    assert tool_messages(state)[0].name == "get_weather"


def test_a_clean_call_passes_unchanged() -> None:
    state, _ = run([calls("get_weather", {"city": "Paris"}), FINAL])
    assert RAN == [("get_weather", {"city": "Paris", "unit": "celsius"})]
    assert METADATA_KEY not in state["messages"][1].response_metadata


# ----------------------------------------------------------------------------- text-written calls


@pytest.mark.parametrize(
    "text",
    [
        "Let me look that up.\n<tool_call>\n"
        '{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
        "Let me look that up.\n"
        '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}]',
        "Let me look that up.\n```python\nget_weather(city='Paris')\n```",
    ],
)
def test_calls_written_as_text_become_tool_calls(text: str) -> None:
    state, _ = run([AIMessage(content=text), FINAL])
    assert RAN == [("get_weather", {"city": "Paris", "unit": "celsius"})]
    answer = state["messages"][1]
    assert answer.tool_calls[0]["name"] == "get_weather"
    assert answer.content.strip() == "Let me look that up."
    assert (
        "text_tool_call"
        in answer.response_metadata[METADATA_KEY]["repaired"][answer.tool_calls[0]["id"]]
    )


def test_text_call_with_a_loosely_written_name_runs() -> None:
    text = '<tool_call>{"name": "Get-Weather", "arguments": {"city": "Paris"}}</tool_call>'
    state, _ = run([AIMessage(content=text), FINAL])
    assert RAN == [("get_weather", {"city": "Paris", "unit": "celsius"})]
    assert state["messages"][1].tool_calls[0]["name"] == "get_weather"


def test_text_call_to_an_unknown_tool_is_refused() -> None:
    text = '<tool_call>{"name": "search_web", "arguments": {"q": "Paris weather"}}</tool_call>'
    state, _ = run([AIMessage(content=text), calls("get_weather", {"city": "Paris"}), FINAL])
    error = tool_messages(state)[0]
    assert error.status == "error" and "search_web" in error.content
    assert RAN == [("get_weather", {"city": "Paris", "unit": "celsius"})]


def test_reasoning_never_yields_a_call() -> None:
    """A call the model only considered inside its reasoning is not run."""
    text = (
        '<think>Maybe <tool_call>{"name": "add", "arguments": {"a": 1, "b": 2}}</tool_call>? '
        "No, I know this.</think>Paris is usually mild in spring."
    )
    state, _ = run([AIMessage(content=text)])
    assert RAN == []
    assert "Paris is usually mild" in state["messages"][-1].text


def test_plain_answer_ends_the_run() -> None:
    state, model = run([FINAL])
    assert state["messages"][-1].content == FINAL.content and len(model.received) == 1


# ----------------------------------------------------------------------------- refused calls


def test_unrepairable_call_goes_back_to_the_model_which_recovers() -> None:
    script = [
        broken("get_weather", "city is Paris, I think"),
        calls("get_weather", {"city": "Paris"}, "call_2"),
        FINAL,
    ]
    state, model = run(script)
    assert RAN == [("get_weather", {"city": "Paris", "unit": "celsius"})]
    error = tool_messages(state)[0]
    assert error.status == "error" and error.tool_call_id == "call_1"
    assert "could not be read (no JSON object found" in error.content
    assert '"city"' in error.content  # the schema to follow
    seen = model.received[1]
    assert any(isinstance(m, ToolMessage) and m.status == "error" for m in seen)
    assert state["messages"][-1].content == FINAL.content


def test_arguments_that_cannot_be_made_valid_never_run() -> None:
    script = [calls("add", {"a": "two", "b": 3}), calls("add", {"a": 2, "b": 3}, "call_2"), FINAL]
    state, _ = run(script)
    assert RAN == [("add", {"a": 2, "b": 3})]
    error = tool_messages(state)[0]
    assert error.status == "error" and "Field 'a'" in error.content and "integer" in error.content


def test_unknown_tool_is_refused_with_the_available_names() -> None:
    script = [
        calls("get_forecast", {"city": "Paris"}),
        calls("get_weather", {"city": "Paris"}, "call_2"),
        FINAL,
    ]
    state, _ = run(script)
    assert RAN == [("get_weather", {"city": "Paris", "unit": "celsius"})]
    error = tool_messages(state)[0]
    assert "get_forecast" in error.content and "add, get_weather" in error.content


@pytest.mark.parametrize("meta", [{"finish_reason": "length"}, {"stop_reason": "max_tokens"}])
def test_call_cut_at_the_token_limit_never_runs(meta: dict[str, str]) -> None:
    script = [
        calls("get_weather", {"city": "Par"}, **meta),
        calls("get_weather", {"city": "Paris"}, "call_2"),
        FINAL,
    ]
    state, _ = run(script)
    assert RAN == [("get_weather", {"city": "Paris", "unit": "celsius"})]
    error = tool_messages(state)[0]
    assert error.status == "error" and "cut off" in error.content


def test_native_call_with_cut_arguments_never_runs() -> None:
    """No stop reason, but the arguments end mid-string: the call is not completed and run."""
    script = [
        broken("get_weather", '{"city": "Par'),
        calls("get_weather", {"city": "Paris"}),
        FINAL,
    ]
    state, _ = run(script)
    assert RAN == [("get_weather", {"city": "Paris", "unit": "celsius"})]
    assert "cut off" in tool_messages(state)[0].content


def test_text_call_cut_off_mid_arguments_never_runs() -> None:
    cut = AIMessage(
        content='<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par',
        response_metadata={"finish_reason": "length"},
    )
    state, _ = run([cut, calls("get_weather", {"city": "Paris"}, "call_2"), FINAL])
    assert RAN == [("get_weather", {"city": "Paris", "unit": "celsius"})]
    assert tool_messages(state)[0].status == "error"


def test_call_block_too_broken_to_name_is_refused_under_a_name() -> None:
    """A call block cut before its name: the model is told, and the refused call keeps a
    non-empty name (providers refuse an empty one in the history)."""
    cut = AIMessage(content='<tool_call>\n{"na', response_metadata={"finish_reason": "length"})
    state, _ = run([cut, calls("get_weather", {"city": "Paris"}), FINAL])
    refused = state["messages"][1]
    assert all(c["name"] for c in refused.tool_calls)
    assert tool_messages(state)[0].status == "error"
    assert RAN == [("get_weather", {"city": "Paris", "unit": "celsius"})]


def test_retries_are_bounded_and_the_run_ends_with_a_clear_message() -> None:
    bad = [broken("get_weather", "???", f"call_{i}") for i in range(3)]
    state, model = run(bad, middleware=[RobustToolCallMiddleware(max_retries=2)])
    assert RAN == [] and len(model.received) == 3
    last = state["messages"][-1]
    assert isinstance(last, AIMessage) and last.tool_calls == []
    assert "stopped" in last.text and "get_weather" in last.text
    assert last.response_metadata[METADATA_KEY]["stopped"] is True


def test_valid_and_refused_calls_in_one_answer() -> None:
    """The valid call runs; the refused one is answered with an error; the model goes on."""
    answer = AIMessage(
        content="",
        tool_calls=[tool_call(name="add", args={"a": 1, "b": 2}, id="ok")],
        invalid_tool_calls=[invalid_tool_call(name="get_weather", args="!!", id="bad", error="x")],
    )
    state, _ = run([answer, FINAL])
    assert RAN == [("add", {"a": 1, "b": 2})]
    by_id = {m.tool_call_id: m for m in tool_messages(state)}
    assert by_id["ok"].status == "success" and by_id["bad"].status == "error"


# ---------------------------------------------------------------- beside others, structured


def test_works_beside_other_middleware() -> None:
    middleware = [ModelCallLimitMiddleware(run_limit=5), RobustToolCallMiddleware()]
    state, _ = run([broken("get_weather", "{'city': 'Paris'}"), FINAL], middleware=middleware)
    assert RAN == [("get_weather", {"city": "Paris", "unit": "celsius"})]
    assert state["messages"][-1].content == FINAL.content


class Weather(BaseModel):
    city: str
    temperature: float
    conditions: Literal["sunny", "cloudy", "rain"]


def test_structured_answer_written_as_fenced_json() -> None:
    text = (
        'Here it is:\n```json\n{"city": "Paris", "temperature": "18", "conditions": "Cloudy",}\n```'
    )
    state, _ = run([AIMessage(content=text)], response_format=Weather)
    assert state["structured_response"] == Weather(
        city="Paris", temperature=18, conditions="cloudy"
    )


def test_structured_answer_through_the_output_tool_with_broken_arguments() -> None:
    args = "{'city': 'Paris', 'temperature': 18, 'conditions': 'cloudy'}"
    state, _ = run([broken("Weather", args)], response_format=Weather)
    assert state["structured_response"] == Weather(
        city="Paris", temperature=18, conditions="cloudy"
    )
    assert isinstance(state["messages"][-1], ToolMessage)


def test_structured_answer_through_the_output_tool_bent_to_the_schema() -> None:
    """Valid JSON that LangChain's validation refuses ("18", "Cloudy") is coerced, not retried."""
    answer = calls("Weather", {"City": "Paris", "temperature": "18", "conditions": "Cloudy"})
    state, model = run([answer], response_format=Weather)
    assert state["structured_response"] == Weather(
        city="Paris", temperature=18, conditions="cloudy"
    )
    assert len(model.received) == 1


def test_structured_answer_written_as_a_text_call_to_the_output_tool() -> None:
    text = (
        '<tool_call>{"name": "Weather", "arguments": '
        '{"city": "Paris", "temperature": 18, "conditions": "rain"}}</tool_call>'
    )
    state, _ = run([AIMessage(content=text)], response_format=Weather)
    assert state["structured_response"] == Weather(city="Paris", temperature=18, conditions="rain")


def test_output_tool_without_langchain_retries_is_coerced_too() -> None:
    """``ToolStrategy(handle_errors=False)`` raises on arguments it cannot validate; the
    middleware's coercion gives the structured response instead."""
    answer = calls("Weather", {"City": "Paris", "temperature": "18", "conditions": "Cloudy"})
    state, _ = run([answer], response_format=ToolStrategy(Weather, handle_errors=False))
    assert state["structured_response"].conditions == "cloudy"


def test_structured_answer_after_a_tool_call() -> None:
    answer = AIMessage(content='{"city": "Paris", "temperature": 18, "conditions": "cloudy"')
    state, _ = run([broken("get_weather", "{'city': 'Paris'}"), answer], response_format=Weather)
    assert RAN and state["structured_response"].temperature == 18


def test_provider_strategy_answer_is_repaired() -> None:
    answer = AIMessage(
        content='```json\n{"city": "Paris", "temperature": 18, "conditions": "cloudy"}\n```'
    )
    state, _ = run([answer], response_format=ProviderStrategy(Weather))
    assert state["structured_response"].city == "Paris"


# ----------------------------------------------------------------------------- streaming


def test_stream_updates_and_messages_match_invoke() -> None:
    script = [broken("get_weather", "{'city': 'Paris'}"), FINAL]
    invoked, _ = run(list(script))
    RAN.clear()
    agent = create_agent(
        ScriptedToolModel(script=list(script)), TOOLS, middleware=[RobustToolCallMiddleware()]
    )
    updates: list[Any] = []
    streamed: list[BaseMessage] = []
    question = {"messages": [HumanMessage("What is the weather in Paris?")]}
    for mode, data in agent.stream(question, stream_mode=["updates", "messages"]):
        if mode == "updates":
            updates.append(data)
        else:
            streamed.append(data[0])
    assert RAN == [("get_weather", {"city": "Paris", "unit": "celsius"})]
    model_updates = [u for u in updates if "model" in u]
    first = model_updates[0]["model"]["messages"][0]
    assert first.tool_calls[0]["args"] == {"city": "Paris"}
    reviewed = [
        m for m in streamed if isinstance(m, AIMessage) and not isinstance(m, AIMessageChunk)
    ]
    assert any(m.tool_calls and m.id.endswith("-reviewed") for m in reviewed)
    assert model_updates[-1]["model"]["messages"][-1].content == invoked["messages"][-1].content


def test_async_stream_recovers_from_an_unrepairable_call() -> None:
    script = [
        broken("get_weather", "city is Paris"),
        broken("get_weather", "{'city': 'Paris'}", "call_2"),
        FINAL,
    ]
    agent = create_agent(
        ScriptedToolModel(script=script), TOOLS, middleware=[RobustToolCallMiddleware()]
    )

    async def go() -> list[tuple[str, Any]]:
        question = {"messages": [HumanMessage("What is the weather in Paris?")]}
        modes = ["updates", "messages"]
        return [(mode, data) async for mode, data in agent.astream(question, stream_mode=modes)]

    both = asyncio.run(go())
    updates = [data for mode, data in both if mode == "updates"]
    tokens = [data[0] for mode, data in both if mode == "messages"]
    assert any(isinstance(m, AIMessageChunk) for m in tokens)
    assert RAN == [("get_weather", {"city": "Paris", "unit": "celsius"})]
    errors = [
        m
        for u in updates
        for node in u.values()
        if isinstance(node, dict)
        for m in node.get("messages", [])
        if isinstance(m, ToolMessage) and m.status == "error"
    ]
    assert len(errors) == 1 and errors[0].tool_call_id == "call_1"


def test_async_invoke_matches_sync() -> None:
    script = [broken("add", "{'a': '2', 'b': 3}"), FINAL]
    sync_state, _ = run(list(script))
    sync_ran = list(RAN)
    RAN.clear()
    agent = create_agent(
        ScriptedToolModel(script=list(script)), TOOLS, middleware=[RobustToolCallMiddleware()]
    )
    state = asyncio.run(agent.ainvoke({"messages": [HumanMessage("2 + 3?")]}))
    assert RAN == sync_ran == [("add", {"a": 2, "b": 3})]
    assert [type(m) for m in state["messages"]] == [type(m) for m in sync_state["messages"]]


def test_parse_report_event_names_the_repair() -> None:
    events: list[dict[str, Any]] = []
    from langchain_core.callbacks import BaseCallbackHandler

    class Collect(BaseCallbackHandler):
        def on_custom_event(self, name: str, data: Any, **kwargs: Any) -> None:
            if name == "parse_report":
                events.append(data)

    model = ScriptedToolModel(script=[broken("get_weather", "{'city': 'Paris'}"), FINAL])
    agent = create_agent(model, TOOLS, middleware=[RobustToolCallMiddleware()])
    agent.invoke({"messages": [HumanMessage("Weather?")]}, config={"callbacks": [Collect()]})
    assert any(e.get("outcome") == "recovered" for e in events)


@pytest.mark.parametrize(
    "args",
    [
        "",
        "{",
        "}",
        "null",
        "[1, 2]",
        '"just a string"',
        "{'a': [1, {'b': ",
        "\x00\ud800",
        "{" * 5000,
    ],
)
def test_any_arguments_give_a_run_or_an_error_message(args: str) -> None:
    """Whatever the model sends, the agent runs a tool or tells the model; it never raises."""
    state, _ = run([broken("add", args), calls("add", {"a": 1, "b": 1}, "call_2"), FINAL])
    first = tool_messages(state)[0]
    assert first.tool_call_id == "call_1"
    assert first.status == "error" or RAN[0][0] == "add"


def test_stats_count_each_review() -> None:
    from langchain_robust_parsers import ParseStats

    stats = ParseStats()
    middleware = [RobustToolCallMiddleware(stats=stats)]
    run([broken("get_weather", "{'city': 'Paris'}"), FINAL], middleware=middleware)
    counts = stats.snapshot()
    assert counts["tools"]["recovered"] == 1  # the repaired native call
    assert counts["function_calls"]["success"] == 1  # the final answer, read for text calls


def test_middleware_pickles_with_its_options() -> None:
    import pickle

    copy = pickle.loads(pickle.dumps(RobustToolCallMiddleware(max_retries=5)))
    assert copy.max_retries == 5 and copy.structured_answers is True


def test_package_imports_without_langchain_and_says_what_is_missing() -> None:
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['langchain'] = None\n"
        "import langchain_robust_parsers as p\n"
        "p.RobustJsonOutputParser\n"
        "try:\n    p.RobustToolCallMiddleware\n"
        "except ImportError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "langchain>=1.5" in out.stdout


# ----------------------------------------------------------------------------- any text

CALL_TEXT = st.one_of(
    st.text(max_size=80),
    st.sampled_from(
        [
            '<tool_call>{"name": "add", "arguments": {"a": "1", "b": 2}}</tool_call>',
            '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": 3}}]',
            "add(a='x', b=2)",
            '{"name": "nope", "arguments": {}}',
            "<tool_call>{'name': 'add', 'arguments': {'a': 1",
        ]
    ),
)


@settings(max_examples=60, deadline=None)
@given(
    content=CALL_TEXT,
    args=st.one_of(st.text(max_size=40), CALL_TEXT),
    name=st.sampled_from(["add", "get_weather", "Add", "missing", ""]),
    cut=st.booleans(),
)
def test_review_accepts_only_calls_that_fit_a_bound_tool(
    content: str, args: str, name: str, cut: bool
) -> None:
    """For any text and any arguments: the review returns, every accepted call names a bound
    tool with arguments that validate, and nothing of a cut answer is accepted."""
    bad = invalid_tool_call(name=name, args=args, id="x", error="")
    meta = {"finish_reason": "length"} if cut else {}
    for message in (
        AIMessage(content=content, response_metadata=meta),
        AIMessage(content="", invalid_tool_calls=[bad], response_metadata=meta),
    ):
        review = review_calls(message, TOOLS)
        schemas = {t.name: t.tool_call_schema for t in TOOLS}
        for call in review.accepted:
            schemas[call["name"]].model_validate(call["args"])  # type: ignore[union-attr]
        assert not (cut and review.accepted)
        assert all(r.call["name"] and r.problems for r in review.rejected)
