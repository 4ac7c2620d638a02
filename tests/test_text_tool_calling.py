"""TextToolCallingChatModel: tool prompts (snapshots), calls read from each dialect, tool loops
with ToolMessages, tool choice and clarification, streaming that adds up to the invoked message,
LCEL tool parsers, structured output, callbacks, async."""

from __future__ import annotations

import os
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from call_corpus import CALL_CORPUS
from chain_fakes import AsyncRecordingHandler, RecordingHandler, text_of
from fake_chat_models import ScriptedChatModel, merged
from hypothesis import given, settings, strategies as st
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.output_parsers.openai_tools import JsonOutputToolsParser
from pydantic import BaseModel, Field
from tool_calling_fakes import (
    EXPECTED_CALLS,
    PARALLEL,
    QUESTION,
    SEQUENTIAL,
    TOOL_SCHEMAS,
    TOOLS,
    TOOLS_BY_NAME,
    check_loop,
)

from langchain_robust_parsers import ParseStats
from langchain_robust_parsers.chat_models import (
    TOOL_PROMPTS,
    TextToolCallingChatModel,
    ToolChoice,
    normalize_tool_choice,
)
from langchain_robust_parsers.chat_models.text_tool_calling import NOSTREAM_TAG
from langchain_robust_parsers.engine.calls.call_stream import (
    CallStreamSplitter,
    parse_answer,
    remaining_text,
)

DIALECTS = ("hermes", "python", "json", "xml", "mistral")
SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"
UPDATE = os.environ.get("UPDATE_SNAPSHOTS") == "1"


def check_snapshot(name: str, text: str) -> None:
    """Compare ``text`` with ``tests/snapshots/<name>`` (written when UPDATE_SNAPSHOTS=1)."""
    path = SNAPSHOTS / name
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"missing snapshot {path}; run with UPDATE_SNAPSHOTS=1"
    assert text == path.read_text(encoding="utf-8")


def dump(messages: Sequence[BaseMessage]) -> str:
    return "".join(f"=== {m.type}\n{text_of(m)}\n" for m in messages)


def model(
    dialect: str, responses: Sequence[str], *, chunk_size: int = 4, **kwargs: Any
) -> tuple[TextToolCallingChatModel, ScriptedChatModel]:
    fake = ScriptedChatModel(responses=list(responses), chunk_size=chunk_size)
    return TextToolCallingChatModel(fake, dialect=dialect, **kwargs), fake


def calls_of(message: AIMessage) -> list[tuple[str, dict[str, Any]]]:
    return [(c["name"], c["args"]) for c in message.tool_calls]


def same_message(a: AIMessage, b: AIMessage) -> None:
    """Equal but for the call ids (fresh in each) and the run id."""
    assert text_of(a) == text_of(b)
    assert calls_of(a) == calls_of(b)
    assert [(c["name"], c["args"]) for c in a.invalid_tool_calls] == [
        (c["name"], c["args"]) for c in b.invalid_tool_calls
    ]
    assert a.usage_metadata == b.usage_metadata


def run_loop(llm: Any, *, stream: bool = False, limit: int = 6) -> list[BaseMessage]:
    """A hand-written agent loop: call the model, run its tool calls, send back ToolMessages,
    until it answers without a call."""
    messages: list[BaseMessage] = [HumanMessage(QUESTION)]
    for _ in range(limit):
        ai = merged(list(llm.stream(messages))) if stream else llm.invoke(messages)
        messages.append(ai)
        if not ai.tool_calls:
            return messages
        for call in ai.tool_calls:
            result = TOOLS_BY_NAME[call["name"]].invoke(call)
            assert isinstance(result, ToolMessage)
            messages.append(result)
    raise AssertionError("the loop did not end")


async def arun_loop(llm: Any, *, stream: bool = False, limit: int = 6) -> list[BaseMessage]:
    messages: list[BaseMessage] = [HumanMessage(QUESTION)]
    for _ in range(limit):
        if stream:
            ai = merged([c async for c in llm.astream(messages)])
        else:
            ai = await llm.ainvoke(messages)
        messages.append(ai)
        if not ai.tool_calls:
            return messages
        for call in ai.tool_calls:
            result = await TOOLS_BY_NAME[call["name"]].ainvoke(call)
            messages.append(result)
    raise AssertionError("the loop did not end")


# ----------------------------------------------------------------------------- prompts


@pytest.mark.parametrize("dialect", DIALECTS)
def test_tool_prompt_snapshot(dialect: str) -> None:
    llm, _ = model(dialect, [])
    messages = llm.render_messages([HumanMessage(QUESTION)], TOOL_SCHEMAS)
    assert isinstance(messages[0], SystemMessage)
    check_snapshot(f"text_tool_calling_prompt_{dialect}.txt", text_of(messages[0]))


@pytest.mark.parametrize("dialect", DIALECTS)
def test_conversation_snapshot(dialect: str) -> None:
    """What the wrapped model receives on the last turn of a two-call loop: its system message
    joined to the tool prompt, earlier calls written back as call text, results as the dialect
    expects."""
    llm, fake = model(dialect, SEQUENTIAL[dialect])
    bound = llm.bind_tools(TOOL_SCHEMAS)  # fixed schemas: the same text at every version
    messages: list[BaseMessage] = [
        SystemMessage("You are a travel assistant."),
        HumanMessage(QUESTION),
    ]
    for _ in range(3):
        ai = bound.invoke(messages)
        messages.append(ai)
        for call in ai.tool_calls:
            messages.append(TOOLS_BY_NAME[call["name"]].invoke(call))
    assert len(fake.received) == 3
    last = fake.received[-1]
    assert [m.type for m in last] == ["system", "human", "ai", "human", "ai", "human"]
    assert text_of(last[0]).startswith("You are a travel assistant.\n\n# Tools\n")
    check_snapshot(f"text_tool_calling_conversation_{dialect}.txt", dump(last))


def test_tool_choice_lines() -> None:
    llm, _ = model("hermes", [])
    required = llm.render_messages([HumanMessage("q")], TOOL_SCHEMAS, tool_choice="any")
    assert text_of(required[0]).endswith("\nYou must call at least one function in this answer.")
    named = llm.render_messages([HumanMessage("q")], TOOL_SCHEMAS, tool_choice="get_time")
    assert text_of(named[0]).endswith('\nYou must call the function "get_time" in this answer.')
    single = llm.render_messages([HumanMessage("q")], TOOL_SCHEMAS, parallel_tool_calls=False)
    assert text_of(single[0]).endswith("\nCall at most one function in each answer.")
    none = llm.render_messages([HumanMessage("q")], TOOL_SCHEMAS, tool_choice="none")
    assert [m.type for m in none] == ["human"]


def test_custom_tool_prompt() -> None:
    template = 'Tools (JSON, {"like": "this"}):\n{tools}\nAnswer with <tool_call> blocks.'
    llm, _ = model("hermes", [], tool_prompt=template)
    system = text_of(llm.render_messages([HumanMessage("q")], TOOL_SCHEMAS)[0])
    assert system.startswith('Tools (JSON, {"like": "this"}):\n{"type": "function"')
    assert system.endswith("Answer with <tool_call> blocks.")
    no_slot, _ = model("json", [], tool_prompt="Use these tools.")
    system = text_of(no_slot.render_messages([HumanMessage("q")], TOOL_SCHEMAS)[0])
    assert system.startswith('Use these tools.\n\n{"name": "get_weather"')


def test_prompts_are_documented_constants() -> None:
    for dialect in DIALECTS:
        assert "{tools}" in TOOL_PROMPTS[dialect]  # type: ignore[index]


def test_history_rendering_details() -> None:
    llm, _ = model("python", [])
    history: list[BaseMessage] = [
        HumanMessage("q"),
        AIMessage(
            content="Checking.",
            tool_calls=[
                {
                    "name": "get_weather",
                    "args": {"city": 'Pa"ris', "n": [1, True, None]},
                    "id": "a",
                },
                {"name": "get_time", "args": {"tz": "UTC", "my-key": 1.5}, "id": "b"},
            ],
        ),
        ToolMessage("sunny", tool_call_id="a"),
        ToolMessage([{"type": "text", "text": "noon"}], tool_call_id="b"),
        ToolMessage("orphan", tool_call_id="zzz"),
        HumanMessage("thanks"),
    ]
    rendered = llm.render_messages(history, TOOL_SCHEMAS)
    assert [m.type for m in rendered] == ["system", "human", "ai", "human", "human"]
    assert text_of(rendered[2]) == (
        'Checking.\n[get_weather(city="Pa\\"ris", n=[1, True, None]), '
        'get_time(tz="UTC", **{"my-key": 1.5})]'
    )
    assert text_of(rendered[3]) == (
        "Result of get_weather: sunny\nResult of get_time: noon\nResult of tool: orphan"
    )
    # The written calls read back to the same calls.
    answer = parse_answer(text_of(rendered[2]), {"get_weather", "get_time"})
    assert [(c.name, c.args) for c in answer.calls] == [
        ("get_weather", {"city": 'Pa"ris', "n": [1, True, None]}),
        ("get_time", {"tz": "UTC", "my-key": 1.5}),
    ]
    hermes, _ = model("hermes", [])
    rendered = hermes.render_messages(history, TOOL_SCHEMAS)
    assert text_of(rendered[3]) == (
        "<tool_response>\nsunny\n</tool_response>\n<tool_response>\nnoon\n</tool_response>\n"
        "<tool_response>\norphan\n</tool_response>"
    )
    assert all(not getattr(m, "tool_calls", None) for m in rendered)


# ----------------------------------------------------------------------------- tool loops


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("stream", [False, True])
def test_tool_loop(dialect: str, stream: bool) -> None:
    llm, fake = model(dialect, SEQUENTIAL[dialect], chunk_size=3)
    messages = run_loop(llm.bind_tools(TOOLS), stream=stream)
    check_loop(messages)
    first = messages[1]
    assert isinstance(first, AIMessage)
    first_words = dialect in ("hermes", "xml")
    expected_content = "I will look up the weather first.\n" if first_words else ""
    assert text_of(first) == expected_content
    # The second call's input shows the first call and its result in the dialect.
    second = fake.received[1]
    results = text_of(second[-1])
    if dialect in ("hermes", "xml"):
        assert results == "<tool_response>\nSunny, 21 degrees celsius in Paris\n</tool_response>"
    elif dialect == "mistral":
        assert results == "[TOOL_RESULTS]Sunny, 21 degrees celsius in Paris[/TOOL_RESULTS]"
    else:
        assert results == "Result of get_weather: Sunny, 21 degrees celsius in Paris"


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("stream", [False, True])
def test_parallel_calls(dialect: str, stream: bool) -> None:
    llm, fake = model(dialect, PARALLEL[dialect], chunk_size=5)
    messages = run_loop(llm.bind_tools(TOOLS), stream=stream)
    check_loop(messages, parallel=True)
    results = text_of(fake.received[1][-1])
    marks = ("Result of ", "<tool_response>", "[TOOL_RESULTS]")
    assert sum(results.count(m) for m in marks) == 2


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("stream", [False, True])
async def test_async_tool_loop(dialect: str, stream: bool) -> None:
    llm, _ = model(dialect, SEQUENTIAL[dialect], chunk_size=2)
    check_loop(await arun_loop(llm.bind_tools(TOOLS), stream=stream))


def test_no_call_is_an_ordinary_answer() -> None:
    text = "  Paris is lovely. Note: max(a, b) picks [1] of {x}.\n"
    llm, _ = model("python", [text, text])
    bound = llm.bind_tools(TOOLS)
    message = bound.invoke("hello")
    assert message.content == text and not message.tool_calls and not message.invalid_tool_calls
    same_message(merged(list(bound.stream("hello"))), message)


def test_without_tools_the_model_passes_through() -> None:
    fake = ScriptedChatModel(responses=["<tool_call>x</tool_call> hi", "plain"], chunk_size=3)
    llm = TextToolCallingChatModel(fake)
    assert llm.invoke([HumanMessage("q")]).content == "<tool_call>x</tool_call> hi"
    chunks = list(llm.stream([HumanMessage("q")]))
    assert "".join(str(c.content) for c in chunks) == "plain"
    assert fake.received[0] == [HumanMessage("q")]


def test_unknown_tools_in_markers_are_invalid_calls_unless_allowed() -> None:
    text = 'Searching.\n<tool_call>{"name": "search", "arguments": {"q": "x"}}</tool_call>'
    llm, _ = model("hermes", [text, text])
    bound = llm.bind_tools(TOOLS)
    message = bound.invoke("q")
    assert not message.tool_calls and message.content == "Searching.\n"
    (invalid,) = message.invalid_tool_calls
    assert invalid["name"] == "search" and "Unknown tool 'search'" in str(invalid["error"])
    streamed = merged(list(bound.stream("q")))
    assert not streamed.tool_calls and streamed.content == "Searching.\n"
    assert [c["name"] for c in streamed.invalid_tool_calls] == ["search"]


def test_unknown_tools_in_markers_are_calls_when_allowed_but_not_in_prose() -> None:
    llm, _ = model(
        "hermes",
        [
            '<tool_call>{"name": "search", "arguments": {"q": "x"}}</tool_call>',
            'You could call search(q="x") for that.',
            'You could call get_weather(city="Oslo") for that.',
        ],
        allow_unknown_tools=True,
    )
    bound = llm.bind_tools(TOOLS)
    assert calls_of(bound.invoke("q")) == [("search", {"q": "x"})]
    prose = bound.invoke("q")
    assert not prose.tool_calls and prose.content == 'You could call search(q="x") for that.'
    known = bound.invoke("q")
    assert calls_of(known) == [("get_weather", {"city": "Oslo"})]
    assert known.content == "You could call for that."


def test_invalid_call_text_is_reported() -> None:
    text = 'Calling.\n<tool_call>{"name": get_weather city: Paris</tool_call>'
    llm, _ = model("hermes", [text, text])
    bound = llm.bind_tools(TOOLS)
    message = bound.invoke("q")
    assert message.content == text and not message.tool_calls
    (invalid,) = message.invalid_tool_calls
    assert invalid["error"] and invalid["error"].startswith("Failed to decode JSON:")
    streamed = merged(list(bound.stream("q")))
    assert streamed.content == text and not streamed.tool_calls
    assert len(streamed.invalid_tool_calls) == 1  # LangChain's chunk merging drops the error


def test_ids_are_unique_and_fresh() -> None:
    text = '<tool_call>{"id": "call_1", "name": "get_time", "arguments": {"tz": "UTC"}}</tool_call>'
    llm, _ = model("hermes", [text] * 4)
    bound = llm.bind_tools(TOOLS)
    ids = [c["id"] for _ in range(2) for c in bound.invoke("q").tool_calls]
    ids += [c["id"] for _ in range(2) for c in merged(list(bound.stream("q"))).tool_calls]
    assert len(set(ids)) == 4 and "call_1" not in ids


def test_parallel_tool_calls_false_keeps_the_first_call() -> None:
    llm, fake = model("python", [PARALLEL["python"][0]] * 2)
    bound = llm.bind_tools(TOOLS, parallel_tool_calls=False)
    message = bound.invoke("q")
    assert calls_of(message) == EXPECTED_CALLS[:1] and message.content == ""
    same_message(merged(list(bound.stream("q"))), message)
    assert text_of(fake.received[0][0]).endswith("Call at most one function in each answer.")


def test_stop_and_other_kwargs_reach_the_wrapped_model() -> None:
    seen: dict[str, Any] = {}

    class Recording(ScriptedChatModel):
        def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any):  # type: ignore[no-untyped-def]
            seen.update(stop=stop, **kw)
            return super()._generate(messages, stop, run_manager, **kw)

    fake = Recording(responses=["hi"])
    TextToolCallingChatModel(fake).bind_tools(TOOLS, tool_choice="auto").invoke(
        "q", stop=["END"], temperature=0.1
    )
    assert seen == {"stop": ["END"], "temperature": 0.1}


def test_stats_count_answers() -> None:
    stats = ParseStats()
    llm, _ = model("python", ['[get_time(tz="UTC")]', "plain", "I'd say get_time(tz='UTC')"])
    bound = llm.bind_tools(TOOLS)
    llm.stats = stats
    for _ in range(3):
        bound.invoke("q")
    counts = stats.snapshot()
    assert counts["function_calls"]["success"] == 2
    assert counts["function_calls"]["recovered"] == 1


# ----------------------------------------------------------------------------- tool choice


def test_normalize_tool_choice() -> None:
    assert normalize_tool_choice(None) == ToolChoice("auto")
    assert normalize_tool_choice("auto") == ToolChoice("auto")
    assert normalize_tool_choice("none") == normalize_tool_choice(False) == ToolChoice("none")
    for value in ("any", "required", True, {"type": "any"}):
        assert normalize_tool_choice(value) == ToolChoice("required")
    assert normalize_tool_choice("get_time") == ToolChoice("tool", "get_time")
    assert normalize_tool_choice(
        {"type": "function", "function": {"name": "get_time"}}
    ) == ToolChoice("tool", "get_time")
    assert normalize_tool_choice({"type": "tool", "name": "x"}) == ToolChoice("tool", "x")
    with pytest.raises(ValueError, match="Unsupported tool_choice"):
        normalize_tool_choice(3)


def test_bind_tools_rejects_an_unknown_named_tool() -> None:
    llm, _ = model("hermes", [])
    with pytest.raises(ValueError, match="not among the tools"):
        llm.bind_tools(TOOLS, tool_choice="search")


@pytest.mark.parametrize("stream", [False, True])
def test_required_call_gets_one_clarification(stream: bool) -> None:
    llm, fake = model(
        "hermes",
        [
            "Paris is usually mild in spring.",
            '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>',
        ],
        chunk_size=3,
    )
    bound = llm.bind_tools(TOOLS, tool_choice="any")
    message = merged(list(bound.stream("q"))) if stream else bound.invoke("q")
    assert calls_of(message) == [("get_weather", {"city": "Paris"})]
    assert message.content == ""  # nothing of the first answer was shown
    retry = fake.received[1]
    assert [m.type for m in retry] == ["system", "human", "ai", "human"]
    assert text_of(retry[2]) == "Paris is usually mild in spring."
    clarification = text_of(retry[3])
    assert clarification.startswith("Your previous answer could not be used.\n")
    assert "Problem: The answer contains no function call." in clarification
    assert "<tool_call>" in clarification
    assert clarification.endswith("You must call at least one function in this answer.")


@pytest.mark.parametrize("stream", [False, True])
def test_named_tool_choice_and_giving_up(stream: bool) -> None:
    wrong = '[get_weather(city="Paris")]'
    llm, fake = model("python", [wrong, "I cannot tell the time."], chunk_size=4)
    bound = llm.bind_tools(TOOLS, tool_choice="get_time")
    message = merged(list(bound.stream("q"))) if stream else bound.invoke("q")
    assert len(fake.received) == 2  # one clarification, then the answer is returned as it is
    assert message.content == "I cannot tell the time." and not message.tool_calls
    clarification = text_of(fake.received[1][-1])
    assert 'Problem: The answer does not call the function "get_time".' in clarification


def test_no_clarification_when_disabled_or_satisfied() -> None:
    llm, fake = model("json", ["No.", '[{"name": "get_time", "arguments": {"tz": "UTC"}}]'])
    llm.max_clarifications = 0
    bound = llm.bind_tools(TOOLS, tool_choice="required")
    assert bound.invoke("q").content == "No."
    assert calls_of(bound.invoke("q")) == [("get_time", {"tz": "UTC"})]
    assert len(fake.received) == 2


def test_tool_choice_none_offers_no_tools() -> None:
    llm, fake = model("hermes", ['<tool_call>{"name": "get_time"}</tool_call>'])
    message = llm.bind_tools(TOOLS, tool_choice="none").invoke("q")
    assert not message.tool_calls and "<tool_call>" in text_of(message)
    assert [m.type for m in fake.received[0]] == ["human"]


async def test_async_clarification() -> None:
    llm, fake = model("json", ["Hmm.", '[{"name": "get_time", "arguments": {"tz": "UTC"}}]'] * 2)
    bound = llm.bind_tools(TOOLS, tool_choice="any")
    assert calls_of(await bound.ainvoke("q")) == [("get_time", {"tz": "UTC"})]
    streamed = merged([c async for c in bound.astream("q")])
    assert calls_of(streamed) == [("get_time", {"tz": "UTC"})] and streamed.content == ""
    assert len(fake.received) == 4


# ----------------------------------------------------------------------------- streaming


def test_stream_shows_content_then_call_chunks() -> None:
    text = (
        "Sure, one moment while I check the weather.\n<tool_call>\n"
        '{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n'
        '<tool_call>\n{"name": "get_time", "arguments": {"tz": "Europe/Paris"}}\n</tool_call>'
    )
    # a model that does not reason: its prose streams at once (see the auto mode's hold in
    # test_reasoning_agreement.py)
    llm, _ = model("hermes", [text], chunk_size=5, template_opens_reasoning=False)
    chunks = list(llm.bind_tools(TOOLS).stream("q"))
    content_chunks = [c for c in chunks if c.content]
    call_chunks = [i for i, c in enumerate(chunks) if c.tool_call_chunks]
    assert len(content_chunks) >= 5  # the prose came piece by piece
    assert "".join(str(c.content) for c in content_chunks) == (
        "Sure, one moment while I check the weather.\n"
    )
    assert len(call_chunks) == 2
    assert call_chunks[0] < call_chunks[1] < len(chunks) - 1  # each block as it closed
    first = chunks[call_chunks[0]].tool_call_chunks[0]
    assert first["name"] == "get_weather" and first["index"] == 0
    assert first["args"] == '{"city": "Paris"}'
    # Nothing of the call text ever appears as content.
    assert all("<" not in str(c.content) for c in chunks)


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("chunk_size", [1, 2, 3, 7, 1000])
def test_stream_adds_up_to_invoke(dialect: str, chunk_size: int) -> None:
    answers = [*SEQUENTIAL[dialect], *PARALLEL[dialect]]
    for answer in answers:
        llm, _ = model(dialect, [answer, answer], chunk_size=chunk_size)
        bound = llm.bind_tools(TOOLS)
        same_message(merged(list(bound.stream("q"))), bound.invoke("q"))


def test_stream_passes_usage_on() -> None:
    fake = ScriptedChatModel(responses=[PARALLEL["hermes"][0]] * 2, chunk_size=6, usage=True)
    bound = TextToolCallingChatModel(fake).bind_tools(TOOLS)
    invoked = bound.invoke("q")
    assert invoked.usage_metadata is not None
    same_message(merged(list(bound.stream("q"))), invoked)


EXTRA_ANSWERS = [
    "<think>\nShould I call <tool_call>? No.\n</think>\nThe answer is 4.",
    "Here is code:\n```python\nimport os\nprint(os.getcwd())\n```\nDone.",
    "Use `get_time(tz='UTC')` to check.",
    "'[get_time(tz=\"UTC\")]'",
    'get_time\n{"tz": "UTC"}',
    '<tool_call>{bad</tool_call> then <tool_call>{"name": "get_time", "arguments": {}}</tool_call>',
    "[1] Smith, 2020. {placeholder} and it's [unclosed",
    'I\'ll call get_weather(city="Paris") and then get_time(tz="UTC").\nDone.',
    '[TOOL_CALLS][{"name": "get_time", "arguments": {"tz": "UTC"}}]',
]


@settings(max_examples=60, deadline=None)
@given(
    case=st.sampled_from([c.text for c in CALL_CORPUS] + EXTRA_ANSWERS),
    seed=st.integers(0, 2**16),
    bound_names=st.booleans(),
)
def test_splitter_hands_out_exactly_the_answer(case: str, seed: int, bound_names: bool) -> None:
    """Whatever the chunking, the content and calls a stream hands out add up to the whole
    answer's, and nothing is taken back."""
    names = (
        {"get_time", "get_weather", "spotify.play", "calculate_area", "f"} if bound_names else set()
    )
    names |= {n for c in CALL_CORPUS for e in c.expected for n in e} if bound_names else set()
    answer = parse_answer(case, names)
    rng = random.Random(seed)
    splitter = CallStreamSplitter(names)
    content, calls, pos = "", [], 0
    while pos < len(case):
        step = rng.choice([1, 1, 2, 3, 5, 8, 30])
        out = splitter.feed(case[pos : pos + step])
        pos += step
        assert answer.content.startswith(content + out.content)
        content += out.content
        calls += out.calls
    rest = splitter.finish(answer)
    assert content + rest.content == answer.content
    assert [(c.name, c.args) for c in [*calls, *rest.calls]] == [
        (c.name, c.args) for c in answer.calls
    ]


def test_gated_stream_holds_everything_until_a_call() -> None:
    def gate(calls: Sequence[Any]) -> bool:
        return any(c.name == "get_time" for c in calls)

    splitter = CallStreamSplitter(
        {"get_time", "get_weather"}, gate=gate, template_opens_reasoning=False
    )
    steps = [
        splitter.feed("Checking.\n<tool_call>"),
        splitter.feed('{"name": "get_weather", "arguments": {}}</tool_call>'),
        splitter.feed('<tool_call>{"name": "get_time", "arguments": {}}</tool_call> more'),
    ]
    assert steps[0].content == steps[1].content == "" and not steps[1].calls
    assert steps[2].content == "Checking."
    assert [c.name for c in steps[2].calls] == ["get_weather", "get_time"]


def test_remaining_text() -> None:
    text = "I think get_weather(city=1) is best."
    assert remaining_text(text, [(8, 27)]) == "I think is best."
    text = "Checking.\n<a>\n<b>\nDone."
    assert remaining_text(text, [(10, 13), (14, 17)]) == "Checking.\n\nDone."
    assert remaining_text("  Hi <a> b", [(5, 8)]) == "  Hi b"
    assert remaining_text("<a>", [(0, 3)]) == ""
    assert remaining_text("x", []) == "x"


@pytest.mark.slow
def test_long_streams_stay_fast() -> None:
    import time

    prose = "The quick brown fox (see [1]) jumps over the lazy dog's back, {fine}. " * 800
    call = (
        '<tool_call>{"name": "get_weather", "arguments": {"city": "'
        + "x [y] {z} " * 5000
        + '"}}</tool_call>'
    )
    for text in (prose, call):
        start = time.process_time()
        splitter = CallStreamSplitter({"get_weather"})
        for i in range(0, len(text), 4):
            splitter.feed(text[i : i + 4])
        splitter.finish(parse_answer(text, {"get_weather"}))
        assert time.process_time() - start < 5


# ----------------------------------------------------------------------------- LCEL and more


@pytest.mark.parametrize("dialect", DIALECTS)
def test_bind_tools_pipe_tools_parser(dialect: str) -> None:
    answer = PARALLEL[dialect][0]
    llm, _ = model(dialect, [answer] * 3, chunk_size=4)
    chain = llm.bind_tools(TOOLS) | JsonOutputToolsParser()
    expected = [{"type": n, "args": a} for n, a in EXPECTED_CALLS]
    assert chain.invoke(QUESTION) == expected
    with_ids = (llm.bind_tools(TOOLS) | JsonOutputToolsParser(return_id=True)).invoke(QUESTION)
    assert [c["id"].startswith("call_") for c in with_ids] == [True, True]
    streamed = list(chain.stream(QUESTION))
    assert streamed[-1] == expected


def test_bind_tools_pipe_robust_tools_parser() -> None:
    """The package's own tools parser, once it is there, reads the same calls."""
    tools = pytest.importorskip("langchain_robust_parsers.parsers.tools")
    parser_class = getattr(tools, "RobustJsonOutputToolsParser", None)
    if parser_class is None:
        pytest.skip("RobustJsonOutputToolsParser is not available")
    llm, _ = model("python", [PARALLEL["python"][0]])
    chain = llm.bind_tools(TOOLS) | parser_class()
    assert chain.invoke(QUESTION) == [{"type": n, "args": a} for n, a in EXPECTED_CALLS]


async def test_async_pipe_tools_parser() -> None:
    llm, _ = model("json", [PARALLEL["json"][0]] * 2)
    chain = llm.bind_tools(TOOLS) | JsonOutputToolsParser()
    expected = [{"type": n, "args": a} for n, a in EXPECTED_CALLS]
    assert await chain.ainvoke(QUESTION) == expected
    assert [v async for v in chain.astream(QUESTION)][-1] == expected


class Weather(BaseModel):
    """A weather report."""

    city: str = Field(description="City name")
    degrees: int


@pytest.mark.parametrize("dialect", DIALECTS)
def test_with_structured_output(dialect: str) -> None:
    answers = {
        "hermes": '<tool_call>{"name": "Weather", "arguments": {"city": "Oslo", "degrees": 3}}'
        "</tool_call>",
        "python": '[Weather(city="Oslo", degrees=3)]',
        "json": '[{"name": "Weather", "arguments": {"city": "Oslo", "degrees": 3}}]',
        "xml": "<tool_call>\n<function=Weather>\n<parameter=city>\nOslo\n</parameter>\n"
        "<parameter=degrees>\n3\n</parameter>\n</function>\n</tool_call>",
        "mistral": '[TOOL_CALLS]Weather[ARGS]{"city": "Oslo", "degrees": 3}',
    }
    llm, fake = model(dialect, ["It is cold.", answers[dialect], answers[dialect]])
    structured = llm.with_structured_output(Weather)
    assert structured.invoke("Weather in Oslo?") == Weather(city="Oslo", degrees=3)
    assert len(fake.received) == 2  # a clarification after the answer without a call
    raw = llm.with_structured_output(Weather, include_raw=True).invoke("again")
    assert isinstance(raw, dict) and raw["parsed"] == Weather(city="Oslo", degrees=3)
    assert isinstance(raw["raw"], AIMessage)


def test_with_structured_output_dict_schema() -> None:
    schema = {
        "title": "weather",
        "description": "A weather report.",
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    }
    llm, _ = model("json", ['[{"name": "weather", "arguments": {"city": "Oslo"}}]'])
    assert llm.with_structured_output(schema).invoke("q") == {"city": "Oslo"}


def test_inner_runs_are_children_tagged_nostream() -> None:
    handler = RecordingHandler()
    llm, _ = model("hermes", ["No call here.", "Still none.", "x"])
    bound = llm.bind_tools(TOOLS, tool_choice="any")
    bound.invoke("q", {"callbacks": [handler]})
    calls = handler.seen.model_calls
    assert len(calls) == 3  # the wrapper, then its model twice (one clarification)
    outer, *inner = calls
    assert NOSTREAM_TAG not in outer.tags
    assert all(c.parent_run_id == outer.run_id and NOSTREAM_TAG in c.tags for c in inner)
    assert text_of(outer.messages[0]) == "q"
    assert inner[0].messages[0].type == "system"


async def test_async_inner_runs_are_children() -> None:
    handler = AsyncRecordingHandler()
    llm, _ = model("hermes", ["Hi."])
    await llm.bind_tools(TOOLS).ainvoke("q", {"callbacks": [handler]})
    outer, inner = handler.seen.model_calls
    assert inner.parent_run_id == outer.run_id and NOSTREAM_TAG in inner.tags


def test_constructor_and_identity() -> None:
    fake = ScriptedChatModel(responses=[])
    llm = TextToolCallingChatModel(fake, dialect="json")
    assert llm.llm is fake and llm.dialect == "json"
    assert TextToolCallingChatModel(llm=fake).dialect == "hermes"
    assert llm._llm_type == "text-tool-calling"
    assert llm._identifying_params["llm"] == "scripted"
    with pytest.raises(ValueError):
        TextToolCallingChatModel(fake, dialect="yaml")
    with pytest.raises(ValueError):
        TextToolCallingChatModel(fake, max_clarifications=-1)


def test_wraps_a_text_completion_model() -> None:
    """A completion model (text in, text out) works too: the conversation reaches it as one
    prompt, its text answer is read for calls."""
    from langchain_core.language_models import FakeListLLM

    answer = '[get_time(tz="UTC")]'
    llm = TextToolCallingChatModel(FakeListLLM(responses=[answer, answer]), dialect="python")
    bound = llm.bind_tools(TOOLS)
    invoked = bound.invoke("What time is it?")
    assert calls_of(invoked) == [("get_time", {"tz": "UTC"})]
    same_message(merged(list(bound.stream("What time is it?"))), invoked)


def test_output_schema_and_bound_tools() -> None:
    llm, _ = model("hermes", [])
    bound = llm.bind_tools(TOOLS, tool_choice="get_time")
    assert llm.get_output_jsonschema()  # a message schema, as for every chat model
    assert bound.get_output_jsonschema()
    kwargs = bound.kwargs  # type: ignore[attr-defined]
    assert [t["function"]["name"] for t in kwargs["tools"]] == ["get_weather", "get_time"]
    assert kwargs["tool_choice"] == "get_time"


async def test_async_stream_without_tools() -> None:
    fake = ScriptedChatModel(responses=["plain text"], chunk_size=3)
    chunks = [c async for c in TextToolCallingChatModel(fake).astream("q")]
    assert "".join(str(c.content) for c in chunks) == "plain text"
