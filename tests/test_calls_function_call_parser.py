"""FunctionCallOutputParser and TextToolCallAdapter: LangChain's contract, outputs, errors,
events, hostile text, and a tool loop with a fake chat model."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import pickle
import re
import sys
import time
from typing import Any, Literal

import pytest
from call_corpus import CALL_CORPUS, CallCase
from event_recorders import EventRecorder
from hypothesis import given, settings, strategies as st
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import FakeListChatModel, GenericFakeChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)
from langchain_core.output_parsers import BaseOutputParser
from langchain_core.outputs import ChatGeneration
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.tools import tool

from langchain_robust_parsers import TextToolCallingChatModel
from langchain_robust_parsers.engine.stats import ParseStats
from langchain_robust_parsers.parsers.function_calls import (
    Dialect,
    FunctionCallOutputParser,
    TextToolCallAdapter,
    new_call_id,
)

CALL_ID = re.compile(r"call_[0-9a-f]{24}")
HOSTILE_SECONDS = 2.0
PROMPT = ChatPromptTemplate.from_template("{question}")


# --------------------------------------------------------------------------- basic contract


def test_is_a_base_output_parser() -> None:
    parser = FunctionCallOutputParser()
    assert isinstance(parser, BaseOutputParser)
    assert parser._type == "robust_function_calls"
    assert (parser.dialect, parser.output, parser.positional, parser.on_error) == (
        "auto",
        "bfcl",
        "drop",
        "raise",
    )
    assert parser.allow_empty is False


def test_bfcl_shape() -> None:
    text = '[get_weather(city="Paris", days=3), calc.area(dims=[2, 3])]'
    assert FunctionCallOutputParser().parse(text) == [
        {"get_weather": {"city": "Paris", "days": 3}},
        {"calc.area": {"dims": [2, 3]}},
    ]


@pytest.mark.parametrize("case", CALL_CORPUS, ids=[c.id for c in CALL_CORPUS])
def test_corpus(case: CallCase) -> None:
    assert FunctionCallOutputParser().parse(case.text) == case.expected


def test_tool_calls_output_keeps_model_ids_and_makes_unique_ones() -> None:
    parser = FunctionCallOutputParser(output="tool_calls")
    text = (
        '<tool_call>{"name": "a", "arguments": {"x": 1}, "id": "call_model_1"}</tool_call>'
        '<tool_call>{"name": "b", "arguments": {}}</tool_call>'
        '<tool_call>{"name": "b", "arguments": {}}</tool_call>'
    )
    first, second, third = parser.parse(text)
    assert first == {"name": "a", "args": {"x": 1}, "id": "call_model_1", "type": "tool_call"}
    assert second["name"] == "b" and second["type"] == "tool_call"
    assert CALL_ID.fullmatch(second["id"]) and CALL_ID.fullmatch(third["id"])
    assert second["id"] != third["id"]
    assert parser.parse(text)[1]["id"] != second["id"]  # fresh for every parse


def test_new_call_id() -> None:
    ids = {new_call_id() for _ in range(1000)}
    assert len(ids) == 1000 and all(CALL_ID.fullmatch(i) for i in ids)


def test_positional_keep() -> None:
    parser = FunctionCallOutputParser(positional="keep")
    assert parser.parse("[f(1, 'two', z=3)]") == [{"f": {"arg0": 1, "arg1": "two", "z": 3}}]


def test_explicit_dialects() -> None:
    assert FunctionCallOutputParser(dialect="python").parse("[f(a=1)]") == [{"f": {"a": 1}}]
    json_parser = FunctionCallOutputParser(dialect="json")
    assert json_parser.parse('[{"name": "f", "arguments": {"a": 1}}]') == [{"f": {"a": 1}}]
    with pytest.raises(OutputParserException, match=r"^Failed to decode AST"):
        FunctionCallOutputParser(dialect="python").parse('[{"name": "f", "arguments": {}}]')


def test_dialect_names_match_the_engine() -> None:
    from typing import get_args

    from langchain_robust_parsers.engine.calls.dialects import DIALECTS

    assert set(get_args(Dialect)) == set(DIALECTS)


def test_invalid_options_are_rejected() -> None:
    for bad in ({"dialect": "klingon"}, {"output": "xml"}, {"on_error": "ignore"}):
        with pytest.raises(ValueError):
            FunctionCallOutputParser(**bad)


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("text", "prefix"),
    [
        ("[get_weather(city='Paris']", "Failed to decode AST: "),
        ("The capital of France is Paris.", "Failed to decode AST: "),
        ("<tool_call>\nnot json\n</tool_call>", "Failed to decode JSON: "),
        ('<tool_call>{"name": "f", "arguments": "oops"}</tool_call>', "Failed to decode JSON: "),
        ('<tool_call>{"name": "get_weather", "arguments": {"city": "Pa', "Failed to decode JSON: "),
        ("", "Failed to decode AST: "),
        ("[]", "Failed to decode AST: "),
    ],
)
def test_errors_raise_with_the_raw_text_and_bfcl_prefix(text: str, prefix: str) -> None:
    with pytest.raises(OutputParserException) as info:
        FunctionCallOutputParser().parse(text)
    assert str(info.value).startswith(prefix)
    assert info.value.llm_output == text


def test_errors_return_the_message() -> None:
    parser = FunctionCallOutputParser(on_error="fallback")
    message = parser.parse("<tool_call>\nnot json\n</tool_call>")
    assert message == "Failed to decode JSON: Invalid JSON format."
    assert parser.parse("no calls") == "Failed to decode AST: No function call found in the text."
    assert parser.parse("[f(a=1)]") == [{"f": {"a": 1}}]


def test_allow_empty() -> None:
    parser = FunctionCallOutputParser(allow_empty=True)
    assert parser.parse("I can answer that directly: 4.") == []
    assert parser.parse("[]") == []
    assert parser.parse("") == []
    with pytest.raises(OutputParserException):  # call-like but broken is still an error
        parser.parse("[f(a=1]")


def test_errors_in_a_chain() -> None:
    chain = PROMPT | FakeListChatModel(responses=["I don't know."]) | FunctionCallOutputParser()
    with pytest.raises(OutputParserException) as info:
        chain.invoke({"question": "q"})
    assert info.value.llm_output == "I don't know."


# --------------------------------------------------------------------------- BFCL behaviour


BFCL_SAME = [
    # (text, what BFCL's default_decode_ast_prompting gives; ours is the same)
    ("[f(a=1)]", [{"f": {"a": 1}}]),
    ("f(a=1)", [{"f": {"a": 1}}]),
    ("[f(1, 2, x=3)]", [{"f": {"x": 3}}]),
    ("[f(x=h(2))]", [{"f": {"x": "h(2)"}}]),
    ("[f(x=a.b(y=1))]", [{"f": {"x": {"a.b": {"y": 1}}}}]),
    ("[f(x=arr[0])]", [{"f": {"x": "arr[0]"}}]),
    ("[f(x=...)]", [{"f": {"x": "..."}}]),
    ("[f(x=2**3)]", [{"f": {"x": 8}}]),
    ("[f(x=-5)]", [{"f": {"x": -5}}]),
    ("[f(x=celsius)]", [{"f": {"x": "celsius"}}]),
    ("\n\n[m.n.o(x='y')]  ", [{"m.n.o": {"x": "y"}}]),
]

BFCL_DIFFERENT = [
    # (text, BFCL's value or failure, ours): the documented deliberate differences
    ("[f(x=true)]", [{"f": {"x": "true"}}], [{"f": {"x": True}}]),
    ("[f(x=(1, 2))]", [{"f": {"x": (1, 2)}}], [{"f": {"x": [1, 2]}}]),
    ("[f(x=+5)]", [{"f": {"x": -5}}], [{"f": {"x": 5}}]),
    ("```json\n[f(a=1)]\n```", "fails: '[' was never closed", [{"f": {"a": 1}}]),
    ("'f(a=1)'", "fails: AssertionError", [{"f": {"a": 1}}]),
    ("[f(x=math.pi)]", "fails: Unsupported AST type", [{"f": {"x": "math.pi"}}]),
    ("[f(x=lambda: 1)]", "fails: TypeError", [{"f": {"x": "lambda: 1"}}]),
    ("[f(x=1/0)]", "fails: ZeroDivisionError", [{"f": {"x": "1 / 0"}}]),
    ("print(default_api.f(a=1))", [{"print": {}}], [{"f": {"a": 1}}]),
]


@pytest.mark.parametrize(("text", "expected"), BFCL_SAME)
def test_agrees_with_bfcl(text: str, expected: Any) -> None:
    assert FunctionCallOutputParser().parse(text) == expected


@pytest.mark.parametrize(("text", "bfcl", "ours"), BFCL_DIFFERENT)
def test_differs_from_bfcl_on_purpose(text: str, bfcl: Any, ours: Any) -> None:
    assert FunctionCallOutputParser().parse(text) == ours
    assert ours != bfcl


# --------------------------------------------------------------------------- reliability


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_any_text_gives_calls_or_output_parser_exception(text: str) -> None:
    try:
        value = FunctionCallOutputParser().parse(text)
    except OutputParserException:
        return
    assert isinstance(value, list) and value


CALLISH = st.text(alphabet="[](){}'\",=:;. \n\\abfx01-+*<>|_`#", max_size=80)


@settings(max_examples=200, deadline=None)
@given(CALLISH)
def test_call_looking_noise_gives_calls_or_output_parser_exception(text: str) -> None:
    for parser in (FunctionCallOutputParser(), FunctionCallOutputParser(on_error="fallback")):
        try:
            value = parser.parse(text)
        except OutputParserException:
            continue
        assert isinstance(value, (list, str))


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["<tool_call>", "<|python_tag|>", "[TOOL_CALLS]", "<function_call>", ""]),
    st.text(alphabet='{}[]":,; nameargumts01\n', max_size=60),
)
def test_marker_noise_gives_calls_or_output_parser_exception(marker: str, body: str) -> None:
    with contextlib.suppress(OutputParserException):
        FunctionCallOutputParser(output="tool_calls").parse(marker + body)


SENTINEL = "/tmp/langchain_robust_parsers_parser_sentinel"

HOSTILE = {
    "import": f"[f(x=__import__('os').system('touch {SENTINEL}'))]",
    "lambda": f"[f(x=(lambda: __import__('os').system('touch {SENTINEL}'))())]",
    "dunder": "[f(x=().__class__.__mro__[1].__subclasses__())]",
    "dunder_call": "[().__class__.__base__.__subclasses__(x=1)]",
    "huge_exponent": "[f(x=10**10**10)]",
    "nested_brackets": "[" * 100_000 + "]" * 100_000,
    "nested_in_call": "[f(x=" + "[" * 100_000 + "]" * 100_000 + ")]",
    "unary_minus": "[f(x=" + "-" * 100_000 + "1)]",
    "plus_one_chain": "[f(x=1" + "+1" * 100_000 + ")]",
    "tool_call_flood": '<tool_call>{"name": "f"}' * 20_000,
    "megabyte": "x" * 1_000_000,
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_input(name: str) -> None:
    import os

    started = time.process_time()
    with contextlib.suppress(OutputParserException):
        FunctionCallOutputParser().parse(HOSTILE[name])
    assert time.process_time() - started < HOSTILE_SECONDS
    assert not os.path.exists(SENTINEL)


def test_engine_bug_becomes_output_parser_exception(monkeypatch: pytest.MonkeyPatch) -> None:
    import langchain_robust_parsers.parsers.function_calls as module

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise KeyError("bug")

    monkeypatch.delenv("LANGCHAIN_ROBUST_PARSERS_STRICT", raising=False)  # strict: it raises
    monkeypatch.setattr(module, "decode_calls", broken)
    with pytest.raises(OutputParserException, match=r"^Failed to decode AST: Unexpected error"):
        FunctionCallOutputParser().parse("[f(a=1)]")
    message = TextToolCallAdapter().invoke(AIMessage(content="[f(a=1)]"))
    assert isinstance(message, AIMessage) and message.invalid_tool_calls


# --------------------------------------------------------------------------- LangChain plumbing


def test_output_type_and_json_schema() -> None:
    bfcl = FunctionCallOutputParser().get_output_jsonschema()
    assert bfcl["type"] == "array"
    assert bfcl["items"]["additionalProperties"]["type"] == "object"
    tool_calls = FunctionCallOutputParser(output="tool_calls").get_output_jsonschema()
    assert tool_calls["items"]["$ref"].endswith("ToolCall")
    returned = FunctionCallOutputParser(on_error="fallback").get_output_jsonschema()
    assert {"type": "string"} in returned["anyOf"]


def test_format_instructions() -> None:
    python = FunctionCallOutputParser().get_format_instructions()
    assert "[func_name1(param1=value1" in python and "[]" not in python
    assert "respond with []" in FunctionCallOutputParser(allow_empty=True).get_format_instructions()
    assert '"arguments"' in FunctionCallOutputParser(dialect="json").get_format_instructions()
    tag = FunctionCallOutputParser(dialect="tool_call").get_format_instructions()
    assert "<tool_call>" in tag and "</tool_call>" in tag


def test_chat_generation_text_is_used() -> None:
    message = AIMessage(content='[get_time(tz="UTC")]')
    result = FunctionCallOutputParser().parse_result([ChatGeneration(message=message)])
    assert result == [{"get_time": {"tz": "UTC"}}]


def test_native_tool_calls_are_returned() -> None:
    message = AIMessage(
        content="", tool_calls=[{"name": "f", "args": {"a": 1}, "id": "c1", "type": "tool_call"}]
    )
    generation = [ChatGeneration(message=message)]
    assert FunctionCallOutputParser().parse_result(generation) == [{"f": {"a": 1}}]
    assert FunctionCallOutputParser(output="tool_calls").parse_result(generation)[0]["id"] == "c1"


def test_partial_never_raises() -> None:
    parser = FunctionCallOutputParser()
    assert (
        parser.parse_result([ChatGeneration(message=AIMessage(content="[f(a="))], partial=True)
        is None
    )
    got = parser.parse_result([ChatGeneration(message=AIMessage(content="[f(a=1)"))], partial=True)
    assert got == [{"f": {"a": 1}}]


def test_parse_with_report() -> None:
    calls, report = FunctionCallOutputParser().parse_with_report(
        "<think>hmm</think>\n```python\n[f(a=1,)]\n```"
    )
    assert calls == [{"f": {"a": 1}}]
    assert report.source == "fenced" and "think_block" in report.repair_names
    with pytest.raises(OutputParserException):
        FunctionCallOutputParser(on_error="fallback").parse_with_report("nothing")


def test_lcel_chain_invoke_batch_stream() -> None:
    responses = ['[get_weather(city="Paris")]', '<tool_call>{"name": "get_time"}</tool_call>']
    chain = PROMPT | FakeListChatModel(responses=responses) | FunctionCallOutputParser()
    assert chain.batch([{"question": "a"}, {"question": "b"}]) == [
        [{"get_weather": {"city": "Paris"}}],
        [{"get_time": {}}],
    ]
    chain = PROMPT | FakeListChatModel(responses=responses[:1]) | FunctionCallOutputParser()
    assert list(chain.stream({"question": "a"}))[-1] == [{"get_weather": {"city": "Paris"}}]


async def test_async() -> None:
    parser = FunctionCallOutputParser()
    assert await parser.aparse("[f(a=1)]") == [{"f": {"a": 1}}]
    assert await parser.ainvoke(AIMessage(content="[f(a=1)]")) == [{"f": {"a": 1}}]
    with pytest.raises(OutputParserException):
        await parser.aparse("no call")
    results = await parser.abatch(["[f(a=1)]", "[g(b=2)]"])
    assert results == [[{"f": {"a": 1}}], [{"g": {"b": 2}}]]
    assert (await FunctionCallOutputParser(on_error="fallback").aparse("x")).startswith("Failed")


def test_pickle_and_deepcopy_keep_options_and_counts() -> None:
    stats = ParseStats()
    parser = FunctionCallOutputParser(
        dialect="json", output="tool_calls", positional="keep", on_error="fallback", stats=stats
    )
    parser.parse('[{"name": "f"}]')
    for clone in (pickle.loads(pickle.dumps(parser)), copy.deepcopy(parser)):
        assert (clone.dialect, clone.output, clone.positional, clone.on_error) == (
            "json",
            "tool_calls",
            "keep",
            "fallback",
        )
        assert clone.stats is not None and clone.stats.total() == 1
        assert clone.parse('[{"name": "f"}]')[0]["name"] == "f"


def test_stats_outcomes() -> None:
    stats = ParseStats()
    parser = FunctionCallOutputParser(stats=stats, on_error="fallback")
    parser.parse("[f(a=1)]")  # success
    parser.parse('<tool_call>{"name": "f"}</tool_call>')  # success: the dialect's own markers
    parser.parse("Sure: f(a=1)")  # recovered: found in prose
    parser.parse("<think>x</think>[f(a=1)]")  # recovered: reasoning skipped
    parser.parse("nothing")  # fallback: the error string is returned, not raised
    assert stats.snapshot()["function_calls"] == {
        "success": 2,
        "recovered": 2,
        "fallback": 1,
        "failed": 0,
    }


def test_parse_report_event() -> None:
    recorder = EventRecorder()
    chain = PROMPT | FakeListChatModel(responses=["Calling:\nf(a=1)"]) | FunctionCallOutputParser()
    chain.invoke({"question": "q"}, {"callbacks": [recorder]})
    ((name, data),) = recorder.events
    assert name == "parse_report"
    assert data["parser"] == "FunctionCallOutputParser"
    assert data["format"] == "function_calls"
    assert data["outcome"] == "recovered"
    assert data["source"] == "span"


# --------------------------------------------------------------------------- the adapter


@tool
def get_weather(city: str, unit: str = "celsius") -> str:
    """The current weather in a city."""
    return f"18 degrees {unit} and sunny in {city}"


def run_tool_loop(responses: list[BaseMessage], question: str) -> list[BaseMessage]:
    """The classic loop: call the model, run the tools it asks for, until it answers."""
    model = GenericFakeChatModel(messages=iter(responses))
    chain = model | TextToolCallAdapter()
    tools = {"get_weather": get_weather}
    messages: list[BaseMessage] = [HumanMessage(content=question)]
    for _ in range(5):
        reply = chain.invoke(messages)
        messages.append(reply)
        assert isinstance(reply, AIMessage)
        if not reply.tool_calls:
            return messages
        for call in reply.tool_calls:
            messages.append(tools[call["name"]].invoke(call))
    raise AssertionError("the loop did not end")


@pytest.mark.parametrize(
    "first",
    [
        'Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
        "</tool_call>",
        '```tool_code\nprint(default_api.get_weather(city="Paris"))\n```',
        '[get_weather(city="Paris")]',
        '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "abcDEF123"}]',
    ],
    ids=["hermes", "gemini", "bfcl", "mistral"],
)
def test_tool_loop_with_a_fake_chat_model(first: str) -> None:
    final = "It is 18 degrees and sunny in Paris."
    messages = run_tool_loop([AIMessage(content=first), AIMessage(content=final)], "Paris?")
    _question, call_message, tool_message, answer = messages
    assert isinstance(call_message, AIMessage)
    ((call,),) = [call_message.tool_calls]
    assert call["name"] == "get_weather" and call["args"] == {"city": "Paris"}
    assert "tool_call" not in str(call_message.content) and "get_weather" not in str(
        call_message.content
    )
    assert isinstance(tool_message, ToolMessage)
    assert tool_message.tool_call_id == call["id"]
    assert "sunny in Paris" in str(tool_message.content)
    assert answer.content == final


def test_adapter_keeps_prose_and_metadata() -> None:
    message = AIMessage(
        content='I will check both.\n\n[get_weather(city="Paris"), get_weather(city="Rome")]\n\n'
        "One moment.",
        id="run-42",
        response_metadata={"model_name": "fake"},
        usage_metadata={"input_tokens": 3, "output_tokens": 5, "total_tokens": 8},
    )
    adapted = TextToolCallAdapter().invoke(message)
    assert isinstance(adapted, AIMessage)
    assert adapted.content == "I will check both.\n\nOne moment."
    assert [c["args"]["city"] for c in adapted.tool_calls] == ["Paris", "Rome"]
    assert all(CALL_ID.fullmatch(c["id"] or "") for c in adapted.tool_calls)
    assert adapted.id == "run-42"
    assert adapted.response_metadata == {"model_name": "fake"}
    assert adapted.usage_metadata == message.usage_metadata


def test_adapter_uses_model_ids() -> None:
    text = (
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}, "id": "x-1"}</tool_call>'
    )
    adapted = TextToolCallAdapter().invoke(AIMessage(content=text))
    assert isinstance(adapted, AIMessage)
    assert adapted.tool_calls[0]["id"] == "x-1"
    assert adapted.content == ""


def test_adapter_passes_other_messages_through_unchanged() -> None:
    adapter = TextToolCallAdapter()
    plain = AIMessage(content="Paris is lovely in spring.")
    assert adapter.invoke(plain) is plain
    native = AIMessage(
        content="[f(a=1)]", tool_calls=[{"name": "g", "args": {}, "id": "1", "type": "tool_call"}]
    )
    assert adapter.invoke(native) is native
    human = HumanMessage(content="[f(a=1)]")
    assert adapter.invoke(human) is human


def test_adapter_accepts_text_and_chunks() -> None:
    adapted = TextToolCallAdapter().invoke("[f(a=1)]")
    assert isinstance(adapted, AIMessage) and adapted.tool_calls[0]["name"] == "f"
    chunk = AIMessageChunk(content='<tool_call>{"name": "f"}</tool_call>')
    adapted = TextToolCallAdapter().invoke(chunk)
    assert type(adapted) is AIMessage and adapted.tool_calls[0]["name"] == "f"


def test_adapter_with_content_blocks() -> None:
    message = AIMessage(
        content=[
            {"type": "reasoning", "reasoning": "The user wants weather."},
            {"type": "text", "text": 'Checking. [get_weather(city="Paris")]'},
        ]
    )
    adapted = TextToolCallAdapter().invoke(message)
    assert isinstance(adapted, AIMessage)
    assert adapted.tool_calls[0]["args"] == {"city": "Paris"}
    assert adapted.content == [
        {"type": "reasoning", "reasoning": "The user wants weather."},
        {"type": "text", "text": "Checking."},
    ]


def test_adapter_records_invalid_calls() -> None:
    text = "<tool_call>\n{not json at all\n</tool_call>"
    adapted = TextToolCallAdapter().invoke(AIMessage(content=text))
    assert isinstance(adapted, AIMessage)
    assert adapted.content == text and adapted.tool_calls == []
    (invalid,) = adapted.invalid_tool_calls
    assert invalid["error"] is not None and invalid["error"].startswith("Failed to decode JSON")
    original = AIMessage(content=text)
    assert TextToolCallAdapter(record_invalid=False).invoke(original) is original


def test_adapter_dialect_and_positional_options() -> None:
    adapter = TextToolCallAdapter(dialect="python", positional="keep")
    adapted = adapter.invoke(AIMessage(content="[f(1, b=2)]"))
    assert isinstance(adapted, AIMessage)
    assert adapted.tool_calls[0]["args"] == {"arg0": 1, "b": 2}


async def test_adapter_async_and_batch() -> None:
    adapter = TextToolCallAdapter()
    adapted = await adapter.ainvoke(AIMessage(content="[f(a=1)]"))
    assert isinstance(adapted, AIMessage) and adapted.tool_calls[0]["args"] == {"a": 1}
    results = await adapter.abatch([AIMessage(content="[f(a=1)]"), AIMessage(content="hi")])
    assert [len(getattr(r, "tool_calls", [])) for r in results] == [1, 0]


def test_adapter_pickles_and_counts() -> None:
    stats = ParseStats()
    adapter = TextToolCallAdapter(dialect="json", stats=stats)
    clone = pickle.loads(pickle.dumps(adapter))
    assert clone.dialect == "json"
    adapter.invoke(AIMessage(content='[{"name": "f"}]'))
    adapter.invoke(AIMessage(content="no calls"))
    assert stats.snapshot()["function_calls"]["success"] == 2


def test_adapter_schemas() -> None:
    adapter = TextToolCallAdapter()
    assert adapter.get_output_jsonschema()["title"] == "BaseMessage"
    assert "anyOf" in adapter.get_input_jsonschema()


@pytest.mark.skipif(sys.version_info < (3, 11), reason="run context in asyncio needs 3.11")
def test_adapter_event_in_a_run() -> None:
    recorder = EventRecorder()
    model = GenericFakeChatModel(messages=iter([AIMessage(content="[f(a=1)]")]))
    (model | TextToolCallAdapter()).invoke("q", {"callbacks": [recorder]})
    assert [name for name, _ in recorder.events] == ["parse_report"]
    assert recorder.events[0][1]["outcome"] == "success"


def test_asyncio_run_of_the_parser_inside_a_loop() -> None:
    async def main() -> Any:
        return await asyncio.gather(
            *(FunctionCallOutputParser().aparse(f"[f(a={i})]") for i in range(5))
        )

    assert asyncio.run(main()) == [[{"f": {"a": i}}] for i in range(5)]


# --------------------------------------------------------------------------- positional arguments


def rectangle_area(width: float, height: float) -> float:
    """The area of a rectangle."""
    return width * height


def book_flight(origin: str, destination: str, seats: int = 1) -> str:
    """Book a flight."""
    return f"{origin}-{destination}x{seats}"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[rectangle_area(10, 5)]", {"rectangle_area": {"width": 10, "height": 5}}),
        ("rectangle_area(10, height=5)", {"rectangle_area": {"width": 10, "height": 5}}),
        ('[book_flight("SFO", "NYC")]', {"book_flight": {"origin": "SFO", "destination": "NYC"}}),
        (
            '[book_flight("SFO", "NYC", 2)]',
            {"book_flight": {"origin": "SFO", "destination": "NYC", "seats": 2}},
        ),
        (
            "```python\n[book_flight('SFO', destination='NYC', seats='3')]\n```",
            {"book_flight": {"origin": "SFO", "destination": "NYC", "seats": 3}},
        ),
    ],
)
def test_positional_arguments_map_onto_a_bound_signature(text: str, expected: Any) -> None:
    parser = FunctionCallOutputParser(tools=[rectangle_area, book_flight])
    assert parser.parse(text) == [expected]
    streamed = list(parser.transform(iter([text[:7], text[7:15], text[15:]])))
    assert streamed[-1] == [expected]
    name = next(iter(expected))
    message = TextToolCallAdapter(tools=[rectangle_area, book_flight]).invoke(
        AIMessage(content=text)
    )
    assert [(c["name"], c["args"]) for c in message.tool_calls] == [(name, expected[name])]
    fake = GenericFakeChatModel(messages=iter([AIMessage(content=text)] * 2))
    bound = TextToolCallingChatModel(fake, dialect="python").bind_tools(
        [rectangle_area, book_flight]
    )
    invoked = bound.invoke("q")
    assert [(c["name"], c["args"]) for c in invoked.tool_calls] == [(name, expected[name])]
    merged: Any = None
    for chunk in bound.stream("q"):
        merged = chunk if merged is None else merged + chunk
    assert [(c["name"], c["args"]) for c in merged.tool_calls] == [(name, expected[name])]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("[rectangle_area(10, 5, 3)]", "takes 2 positional arguments but 3 were given"),
        ("[rectangle_area(10, width=5)]", "multiple values for argument 'width'"),
    ],
)
def test_positional_arguments_that_do_not_fit_are_an_error_never_an_empty_call(
    text: str, reason: str
) -> None:
    with pytest.raises(OutputParserException, match=reason):
        FunctionCallOutputParser(tools=[rectangle_area]).parse(text)
    message = TextToolCallAdapter(tools=[rectangle_area]).invoke(AIMessage(content=text))
    assert message.tool_calls == []
    assert reason in message.invalid_tool_calls[0]["error"]


_AREA_SCHEMA = {
    "name": "rectangle_area",
    "description": "The area of a rectangle.",
    "parameters": {
        "type": "object",
        "properties": {"width": {"type": "number"}, "height": {"type": "number"}},
        "required": ["width", "height"],
    },
}


@pytest.mark.parametrize(
    "bound",
    [
        rectangle_area,
        tool(rectangle_area),
        _AREA_SCHEMA,
        {"type": "function", "function": _AREA_SCHEMA},
    ],
    ids=["function", "langchain_tool", "json_schema", "openai_tool"],
)
@pytest.mark.parametrize("positional", ["drop", "keep"])
def test_every_kind_of_bound_signature_places_positional_arguments(
    bound: Any, positional: Literal["drop", "keep"]
) -> None:
    # The option only concerns unbound calls: a bound signature says what each argument means.
    parser = FunctionCallOutputParser(tools=[bound], positional=positional)
    assert parser.parse("[rectangle_area(10, 5)]") == [
        {"rectangle_area": {"width": 10, "height": 5}}
    ]
    adapter = TextToolCallAdapter(tools=[bound], positional=positional)
    message = adapter.invoke(AIMessage(content="rectangle_area(7.5, height=2)"))
    assert [c["args"] for c in message.tool_calls] == [{"width": 7.5, "height": 2}]
    with pytest.raises(OutputParserException, match=r"rectangle_area\(\) takes 2 positional"):
        parser.parse("[rectangle_area(10, 5, 3)]")


def test_without_bound_tools_positional_arguments_are_dropped_as_bfcl_does() -> None:
    value, report = FunctionCallOutputParser().parse_with_report("[rectangle_area(10, 5)]")
    assert value == [{"rectangle_area": {}}]
    assert "positional_args_dropped" in report.repair_names
