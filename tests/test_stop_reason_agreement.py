"""Every entry point reads a provider's "stopped at the token limit" the same way, whatever the
provider's words for it, and maps tool names and ``Literal`` values by the same rules.

A cut answer's verdict under each provider's spelling must equal the verdict under OpenAI's
``finish_reason="length"``, and differ from the verdict of an answer that finished normally
(otherwise agreement would prove nothing).
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Callable
from typing import Any, Literal

import pytest
from fake_chat_models import ScriptedChatModel
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.tool import tool_call, tool_call_chunk
from langchain_core.outputs import Generation
from pydantic import BaseModel, ConfigDict

from langchain_robust_parsers import (
    FunctionCallOutputParser,
    RobustJsonKeyOutputFunctionsParser,
    RobustJsonOutputFunctionsParser,
    RobustJsonOutputKeyToolsParser,
    RobustJsonOutputParser,
    RobustJsonOutputToolsParser,
    RobustPydanticOutputFunctionsParser,
    RobustPydanticOutputParser,
    RobustPydanticToolsParser,
    TextToolCallAdapter,
    TextToolCallingChatModel,
    TruncatedOutputError,
)
from langchain_robust_parsers.engine.lexicon.stop_reasons import (
    cut_stop_reason,
    stop_reason_of,
)
from langchain_robust_parsers.parsers.stop_reason import stop_reason_cut


class FinishReason(enum.Enum):
    """Gemini's SDK enum, as some langchain-google versions leave it in the metadata."""

    STOP = 1
    MAX_TOKENS = 2


# Where each provider says "the output token limit stopped me" (response_metadata of a chat
# model), as its LangChain integration writes it.
CUT_SPELLINGS: dict[str, dict[str, Any]] = {
    "openai": {"finish_reason": "length", "model_name": "gpt-4o-mini"},
    "azure": {"finish_reason": "length", "model_name": "gpt-4o", "system_fingerprint": "fp_1"},
    "vllm": {"finish_reason": "length", "stop_reason": None},
    "mistral": {"finish_reason": "model_length", "model_name": "mistral-small"},
    "openai-responses": {
        "status": "incomplete",
        "incomplete_details": {"reason": "max_output_tokens"},
    },
    "anthropic": {"stop_reason": "max_tokens", "stop_sequence": None},
    "ollama": {"done": True, "done_reason": "length", "model": "qwen3:8b"},
    "gemini": {"finish_reason": "MAX_TOKENS", "safety_ratings": []},
    "gemini-enum": {"finish_reason": FinishReason.MAX_TOKENS},
    "bedrock-converse": {"stopReason": "max_tokens", "metrics": {"latencyMs": 812}},
    "cohere": {"finish_reason": "MAX_TOKENS"},
    "watsonx": {"stop_reason": "max_tokens", "model_id": "ibm/granite-3-8b-instruct"},
    "normalized": {"normalized_finish_reason": "length", "finish_reason": "budget_exhausted"},
}
REFERENCE = {"finish_reason": "length"}

FINISHED_SPELLINGS: dict[str, dict[str, Any]] = {
    "openai-stop": {"finish_reason": "stop"},
    "anthropic-end-turn": {"stop_reason": "end_turn"},
    "gemini-stop": {"finish_reason": "STOP"},
    "gemini-enum-stop": {"finish_reason": FinishReason.STOP},
    "openai-tool-calls": {"finish_reason": "tool_calls"},
    "normalized-stop": {"normalized_finish_reason": "stop", "finish_reason": "stop"},
    "normalized-tool-call": {"normalized_finish_reason": "tool_call", "finish_reason": "tool_use"},
    "ollama-stop": {"done": True, "done_reason": "stop"},
    "none": {},
}
FINISHED = {"finish_reason": "stop"}


def get_weather(city: str, unit: Literal["c", "f"] = "c") -> str:
    """The current weather in a city."""
    return f"12 degrees {unit} in {city}"


class GetWeatherArgs(BaseModel):
    """The current weather in a city."""

    model_config = ConfigDict(title="get_weather")

    city: str
    unit: Literal["c", "f"] = "c"


class Forecast(BaseModel):
    city: str
    high: int


JSON_ANSWER = '{"city": "Oslo", "high": 12}'
HERMES_CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>'
PYTHON_CALL = '[get_weather(city="Oslo")]'


def outcome(run: Callable[[], Any]) -> tuple[str, Any]:
    """What the user sees: the value (summarised by the caller) or the kind of error."""
    try:
        return "value", run()
    except TruncatedOutputError as error:
        return "truncated-error", error.truncated
    except OutputParserException:
        return "error", None


def chunks_of(text: str, meta: dict[str, Any], size: int = 7) -> list[AIMessageChunk]:
    """``text`` streamed in pieces, the stop reason on the last chunk as providers send it."""
    pieces = [text[i : i + size] for i in range(0, len(text), size)] or [""]
    out = [AIMessageChunk(content=p) for p in pieces]
    out.append(AIMessageChunk(content="", response_metadata=dict(meta)))
    return out


def message_calls(message: BaseMessage) -> tuple[Any, Any]:
    """A message's runnable calls and its invalid calls, by name (ids are random)."""
    assert isinstance(message, AIMessage)
    return (
        [(c["name"], c["args"]) for c in message.tool_calls],
        [(c["name"], "token limit" in (c["error"] or "")) for c in message.invalid_tool_calls],
    )


# --------------------------------------------------------------------------- verdicts


def json_verdict(meta: dict[str, Any], mode: str, stream: bool) -> Any:
    parser = RobustJsonOutputParser(on_truncation=mode)  # type: ignore[arg-type]
    if stream:
        return outcome(lambda: list(parser.transform(iter(chunks_of(JSON_ANSWER, meta))))[-1])
    message = AIMessage(JSON_ANSWER, response_metadata=meta)
    return outcome(lambda: parser.parse_with_report(message)[1].truncated), outcome(
        lambda: parser.invoke(message)
    )


def pydantic_verdict(meta: dict[str, Any], mode: str, stream: bool) -> Any:
    parser = RobustPydanticOutputParser(pydantic_object=Forecast, on_truncation=mode)  # type: ignore[arg-type]
    if stream:
        return outcome(lambda: list(parser.transform(iter(chunks_of(JSON_ANSWER, meta))))[-1])
    message = AIMessage(JSON_ANSWER, response_metadata=meta)
    return outcome(lambda: parser.parse_with_report(message)[1].truncated), outcome(
        lambda: parser.invoke(message)
    )


def native_call_message(meta: dict[str, Any]) -> AIMessage:
    call = tool_call(name="get_weather", args={"city": "Oslo", "unit": "c"}, id="call_1")
    return AIMessage("", tool_calls=[call], response_metadata=meta)


def native_call_chunks(meta: dict[str, Any]) -> list[AIMessageChunk]:
    args = '{"city": "Oslo", "unit": "c"}'
    out = [
        AIMessageChunk(
            content="",
            tool_call_chunks=[
                tool_call_chunk(
                    name="get_weather" if i == 0 else None, args=part, id="call_1", index=0
                )
            ],
        )
        for i, part in enumerate([args[:9], args[9:20], args[20:]])
    ]
    out.append(AIMessageChunk(content="", response_metadata=dict(meta)))
    return out


TOOLS_PARSERS: dict[str, Callable[..., Any]] = {
    "tools": lambda **kw: RobustJsonOutputToolsParser(**kw),
    "key-tools": lambda **kw: RobustJsonOutputKeyToolsParser(key_name="get_weather", **kw),
    "pydantic-tools": lambda **kw: RobustPydanticToolsParser(tools=[GetWeatherArgs], **kw),
}


def tools_verdict(kind: str, meta: dict[str, Any], options: dict[str, Any], stream: bool) -> Any:
    parser = TOOLS_PARSERS[kind](**options)
    if stream:
        return outcome(lambda: list(parser.transform(iter(native_call_chunks(meta))))[-1])
    message = native_call_message(meta)
    calls = outcome(
        lambda: [c.report.truncated for c in parser.parse_with_report(message)[1].calls]
    )
    return calls, outcome(lambda: parser.invoke(message))


def function_call_verdict(meta: dict[str, Any], mode: str, stream: bool) -> Any:
    parser = FunctionCallOutputParser(on_truncation=mode)  # type: ignore[arg-type]
    if stream:
        return outcome(lambda: list(parser.transform(iter(chunks_of(PYTHON_CALL, meta))))[-1])
    return outcome(lambda: parser.invoke(AIMessage(PYTHON_CALL, response_metadata=meta)))


def adapter_verdict(meta: dict[str, Any], allow: bool) -> Any:
    mode = "complete" if allow else "raise"
    adapter = TextToolCallAdapter(tools=[get_weather], on_truncation=mode)
    return message_calls(adapter.invoke(AIMessage(HERMES_CALL, response_metadata=meta)))


def chat_model(text: str, meta: dict[str, Any]) -> Any:
    # The stop reason rides on the chunk that ends the text, as Anthropic's and Ollama's last
    # deltas carry it: a call completed in an earlier chunk has been handed out already, and a
    # streamed value never changes.
    inner = ScriptedChatModel(responses=[text], metadata=meta, chunk_size=11)
    return TextToolCallingChatModel(inner).bind_tools([get_weather])


def streamed_message(model: Any) -> AIMessage:
    merged: Any = None
    for chunk in model.stream("weather in Oslo?"):
        merged = chunk if merged is None else merged + chunk
    assert isinstance(merged, AIMessageChunk)
    return AIMessage(
        merged.content,
        tool_calls=merged.tool_calls,
        invalid_tool_calls=merged.invalid_tool_calls,
    )


def chat_verdict(meta: dict[str, Any], stream: bool) -> Any:
    model = chat_model(HERMES_CALL, meta)
    answer = streamed_message(model) if stream else model.invoke("weather in Oslo?")
    return message_calls(answer)


VERDICTS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "json": lambda m: json_verdict(m, "complete", False),
    "json-raise": lambda m: json_verdict(m, "raise", False),
    "json-stream-raise": lambda m: json_verdict(m, "raise", True),
    "pydantic": lambda m: pydantic_verdict(m, "complete", False),
    "pydantic-raise": lambda m: pydantic_verdict(m, "raise", False),
    "pydantic-stream-raise": lambda m: pydantic_verdict(m, "raise", True),
    **{
        f"{kind}{suffix}": (
            lambda m, kind=kind, options=options, stream=stream: tools_verdict(
                kind, m, options, stream
            )
        )
        for kind in TOOLS_PARSERS
        for suffix, options, stream in [
            ("", {}, False),
            ("-raise", {"on_truncation": "raise"}, False),
            ("-stream-raise", {"on_truncation": "raise"}, True),
        ]
    },
    "function-calls-raise": lambda m: function_call_verdict(m, "raise", False),
    "function-calls-stream-raise": lambda m: function_call_verdict(m, "raise", True),
    "adapter": lambda m: adapter_verdict(m, allow=False),
    "chat-model": lambda m: chat_verdict(m, stream=False),
    "chat-model-stream": lambda m: chat_verdict(m, stream=True),
}


@pytest.mark.parametrize("entry", list(VERDICTS))
def test_a_cut_answer_is_seen_under_openai_words(entry: str) -> None:
    # The reference itself must make a difference, or the agreement below proves nothing.
    assert VERDICTS[entry](REFERENCE) != VERDICTS[entry](FINISHED)


@pytest.mark.parametrize("spelling", list(CUT_SPELLINGS))
@pytest.mark.parametrize("entry", list(VERDICTS))
def test_every_provider_spelling_gives_the_openai_verdict(entry: str, spelling: str) -> None:
    assert VERDICTS[entry](CUT_SPELLINGS[spelling]) == VERDICTS[entry](REFERENCE)


@pytest.mark.parametrize("spelling", list(FINISHED_SPELLINGS))
@pytest.mark.parametrize("entry", list(VERDICTS))
def test_a_finished_answer_is_never_a_cut(entry: str, spelling: str) -> None:
    assert VERDICTS[entry](FINISHED_SPELLINGS[spelling]) == VERDICTS[entry](FINISHED)


def test_a_cut_call_is_never_runnable_in_a_message() -> None:
    for meta in CUT_SPELLINGS.values():
        assert adapter_verdict(meta, allow=False) == ([], [("get_weather", True)])
        assert chat_verdict(meta, stream=False) == ([], [("get_weather", True)])
        assert chat_verdict(meta, stream=True)[0] == []
    # Opting in runs it, whatever the provider.
    opted = adapter_verdict(CUT_SPELLINGS["gemini"], allow=True)
    assert opted == ([("get_weather", {"city": "Oslo"})], [])


def test_the_tools_parsers_report_a_cut_call_as_truncated() -> None:
    for meta in CUT_SPELLINGS.values():
        _, report = RobustJsonOutputToolsParser().parse_with_report(native_call_message(meta))
        assert [c.report.truncated for c in report.calls] == ["stop_reason"]
        with pytest.raises(OutputParserException, match="output token limit"):
            RobustJsonOutputToolsParser(on_truncation="raise").invoke(native_call_message(meta))


@pytest.mark.parametrize("spelling", ["openai", "gemini-enum", "normalized", "watsonx"])
def test_completion_models_say_it_in_generation_info(spelling: str) -> None:
    meta = CUT_SPELLINGS[spelling]
    generation = Generation(text=JSON_ANSWER, generation_info=meta)
    with pytest.raises(TruncatedOutputError) as info:
        RobustJsonOutputParser(on_truncation="raise").parse_result([generation])
    assert info.value.truncated == "stop_reason"
    with pytest.raises(TruncatedOutputError):
        FunctionCallOutputParser(on_truncation="raise").parse_result(
            [Generation(text=PYTHON_CALL, generation_info=meta)]
        )
    assert RobustJsonOutputParser().parse_result([Generation(text=JSON_ANSWER)]) == {
        "city": "Oslo",
        "high": 12,
    }


def test_async_readers_agree() -> None:
    async def run(meta: dict[str, Any]) -> Any:
        tools = RobustJsonOutputToolsParser(on_truncation="raise")
        try:
            await tools.ainvoke(native_call_message(meta))
            tools_result = "value"
        except TruncatedOutputError:
            tools_result = "cut"
        adapted = await TextToolCallAdapter(tools=[get_weather]).ainvoke(
            AIMessage(HERMES_CALL, response_metadata=meta)
        )
        answer = await chat_model(HERMES_CALL, meta).ainvoke("weather in Oslo?")
        return tools_result, message_calls(adapted), message_calls(answer)

    reference = asyncio.run(run(REFERENCE))
    assert reference[0] == "cut" and reference[1][0] == [] and reference[2][0] == []
    for meta in CUT_SPELLINGS.values():
        assert asyncio.run(run(meta)) == reference


def test_the_table_reads_the_normalised_field_first() -> None:
    meta = {"normalized_finish_reason": "length", "finish_reason": "budget_exhausted"}
    assert stop_reason_of(meta) == "length"
    assert cut_stop_reason(meta) == "length"
    # Any source saying "cut" is believed: a wrapper's generic field may say "stop".
    assert cut_stop_reason({"normalized_finish_reason": "stop", "done_reason": "length"})
    assert cut_stop_reason({"finish_state": "max_tokens"}) == "max_tokens"
    assert stop_reason_cut(AIMessage("x", response_metadata={"finish_reason": 7})) is None


def test_functions_parsers_read_every_spelling_alike() -> None:
    # The OpenAI functions parsers have no truncation option: every spelling gives one value.
    message = AIMessage(
        "",
        additional_kwargs={
            "function_call": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}
        },
    )
    parsers: list[Any] = [
        RobustJsonOutputFunctionsParser(),
        RobustJsonKeyOutputFunctionsParser(key_name="city"),
        RobustPydanticOutputFunctionsParser(pydantic_schema=GetWeatherArgs),
    ]
    for parser in parsers:
        values = {
            repr(parser.invoke(message.model_copy(update={"response_metadata": meta})))
            for meta in [*CUT_SPELLINGS.values(), REFERENCE]
        }
        assert len(values) == 1


# --------------------------------------------------------------------------- names and values

WRITTEN_NAMES = ["get_weather", "GetWeather", "getWeather", "get-weather", "Get_Weather"]


def hermes(name: str, unit: str = "C") -> str:
    call = f'{{"name": "{name}", "arguments": {{"city": "Oslo", "unit": "{unit}"}}}}'
    return f"I'll look that up.\n<tool_call>\n{call}\n</tool_call>"


NAME_READERS: dict[str, Callable[[str], Any]] = {
    "tools-text": lambda n: [
        (c["type"], c["args"])
        for c in RobustJsonOutputToolsParser(tools=[get_weather]).invoke(AIMessage(hermes(n)))
    ],
    "pydantic-tools-native": lambda n: [
        ("get_weather", m.model_dump())
        for m in RobustPydanticToolsParser(tools=[GetWeatherArgs]).invoke(
            AIMessage(
                "",
                tool_calls=[tool_call(name=n, args={"city": "Oslo", "unit": "C"}, id="call_9")],
            )
        )
    ],
    "key-tools-native": lambda n: [
        ("get_weather", args)
        for args in RobustJsonOutputKeyToolsParser(
            key_name="get_weather", tools=[get_weather]
        ).invoke(
            AIMessage(
                "", tool_calls=[tool_call(name=n, args={"city": "Oslo", "unit": "c"}, id="c")]
            )
        )
    ],
    "function-calls": lambda n: [
        next(iter(call.items()))
        for call in FunctionCallOutputParser(tools=[get_weather]).invoke(hermes(n))
    ],
    "adapter": lambda n: message_calls(
        TextToolCallAdapter(tools=[get_weather]).invoke(AIMessage(hermes(n)))
    )[0],
    "chat-model": lambda n: message_calls(chat_model(hermes(n), {}).invoke("weather?"))[0],
    "chat-model-stream": lambda n: message_calls(streamed_message(chat_model(hermes(n), {})))[0],
}


@pytest.mark.parametrize("written", WRITTEN_NAMES)
@pytest.mark.parametrize("reader", list(NAME_READERS))
def test_every_reader_finds_the_bound_tool_and_its_literal(reader: str, written: str) -> None:
    assert NAME_READERS[reader](written) == [("get_weather", {"city": "Oslo", "unit": "c"})]


@pytest.mark.parametrize("reader", ["tools-text", "function-calls", "adapter", "chat-model"])
def test_an_unknown_name_is_unknown_everywhere(reader: str) -> None:
    try:
        calls = NAME_READERS[reader]("weather_lookup")
    except OutputParserException:
        calls = []
    assert calls == []


def test_an_ambiguous_value_is_left_for_validation_to_report() -> None:
    # Two members folding alike: neither is chosen, the tool's own validation reports it.
    def pick(mode: Literal["Fast", "fast", "slow"]) -> str:
        """Pick a mode."""
        return mode

    text = '<tool_call>{"name": "pick", "arguments": {"mode": "FAST"}}</tool_call>'
    adapted = TextToolCallAdapter(tools=[pick]).invoke(AIMessage(text))
    assert message_calls(adapted)[0] == [("pick", {"mode": "FAST"})]


def test_a_tool_without_a_schema_leaves_native_calls_readable() -> None:
    parser = RobustJsonOutputToolsParser(tools=[{"description": "not a tool definition"}])
    message = native_call_message(FINISHED)
    assert parser.invoke(message) == [
        {"args": {"city": "Oslo", "unit": "c"}, "type": "get_weather"}
    ]


@pytest.mark.parametrize("spelling", ["openai", "gemini-enum", "ollama", "normalized"])
def test_async_streams_end_as_invoke_ends(spelling: str) -> None:
    async def chunks(text: str) -> Any:
        for chunk in chunks_of(text, CUT_SPELLINGS[spelling]):
            yield chunk

    async def last(parser: Any, text: str) -> Any:
        out = [value async for value in parser.atransform(chunks(text))]
        return out[-1]

    for parser, text in [
        (RobustJsonOutputParser(on_truncation="raise"), JSON_ANSWER),
        (RobustPydanticOutputParser(pydantic_object=Forecast, on_truncation="raise"), JSON_ANSWER),
        (FunctionCallOutputParser(on_truncation="raise"), PYTHON_CALL),
    ]:
        with pytest.raises(TruncatedOutputError):
            asyncio.run(last(parser, text))
        assert asyncio.run(last(parser.model_copy(update={"on_truncation": "complete"}), text))


def test_reports_name_the_renaming_and_the_literal_coercion() -> None:
    text = hermes("GetWeather")
    _, report = FunctionCallOutputParser(tools=[get_weather]).parse_with_report(text)
    assert {"tool_name", "coerce:get_weather.unit:enum"} <= set(report.repair_names)
    _, tools_report = RobustJsonOutputToolsParser(tools=[get_weather]).parse_with_report(text)
    (call,) = tools_report.calls
    assert {"tool_name", "coerce:get_weather.unit:enum"} <= set(call.report.repair_names)
    assert call.name == "get_weather" and call.raw_name == "GetWeather"


@pytest.mark.parametrize("written", ["GetWeather", "getWeather"])
def test_a_streamed_call_keeps_the_name_it_was_first_shown_with(written: str) -> None:
    parser = FunctionCallOutputParser(tools=[get_weather])
    values = list(parser.transform(iter(chunks_of(hermes(written), FINISHED, size=5))))
    assert values and all(next(iter(v[0])) == "get_weather" for v in values if v)
    assert values[-1] == parser.invoke(hermes(written))


CUT_AFTER_A_WHOLE_CALL = [
    HERMES_CALL + '\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Ber',
    "<function=get_weather>\n<parameter=city>\nOslo\n</parameter>\n</function>\n"
    "<function=get_weather>\n<parameter=city>\nBer",
]


@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini", "bedrock-converse"])
@pytest.mark.parametrize("text", CUT_AFTER_A_WHOLE_CALL)
def test_a_whole_call_before_the_cut_runs_wherever_it_is_read(text: str, provider: str) -> None:
    """The text shows where the token limit cut it, and the unfinished call is dropped: the
    call closed before it is whole, so the adapter, the chat model and its stream at any
    chunking all run it, and none runs the unfinished one."""
    meta = CUT_SPELLINGS[provider]
    adapted = TextToolCallAdapter(tools=[get_weather]).invoke(
        AIMessage(text, response_metadata=meta)
    )
    want = [("get_weather", {"city": "Oslo"})]
    assert [(c["name"], c["args"]) for c in adapted.tool_calls] == want
    assert all("Ber" not in str(c["args"]) for c in adapted.tool_calls)
    for size in (1, 5, 11, len(text)):
        inner = ScriptedChatModel(responses=[text, text], metadata=meta, chunk_size=size)
        model = TextToolCallingChatModel(inner).bind_tools([get_weather])
        invoked = model.invoke("weather?")
        streamed = streamed_message(model)
        for message in (invoked, streamed):
            assert [(c["name"], c["args"]) for c in message.tool_calls] == want, size


def test_a_cut_answer_whose_text_looks_whole_runs_no_call() -> None:
    """Without a cut seen in the text, the stop reason alone says every call may be unfinished."""
    meta = CUT_SPELLINGS["openai"]
    adapted = TextToolCallAdapter(tools=[get_weather]).invoke(
        AIMessage(HERMES_CALL, response_metadata=meta)
    )
    assert adapted.tool_calls == []
    assert adapted.invalid_tool_calls


@pytest.mark.parametrize(
    "text",
    [
        '[get_weather(city="Oslo"), get_weather(city="Ber',  # one list, cut: no call is whole
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}',  # completed by repair
    ],
)
def test_a_cut_inside_one_container_or_a_repaired_last_block_runs_no_call(text: str) -> None:
    """Only closed blocks of their own survive a cut: a list of calls cut inside, or a block
    whose closers were added by repair, runs nothing under a cut stop reason."""
    meta = CUT_SPELLINGS["anthropic"]
    adapted = TextToolCallAdapter(tools=[get_weather]).invoke(
        AIMessage(text, response_metadata=meta)
    )
    assert adapted.tool_calls == []
    for size in (1, 7, len(text)):
        inner = ScriptedChatModel(responses=[text, text], metadata=meta, chunk_size=size)
        model = TextToolCallingChatModel(inner).bind_tools([get_weather])
        assert model.invoke("weather?").tool_calls == []
        assert streamed_message(model).tool_calls == []
