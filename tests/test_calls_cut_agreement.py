"""A call cut off at the output token limit never runs, whichever entry point reads it.

The same cut answers, under every provider's way of saying "the token limit stopped me", go
through the call parsers (``on_truncation="raise"``, parse and stream), the adapter and the chat
model (their default), and the call review of the middleware. Each verdict is the calls an agent
would run: none when any call may be unfinished, the closed ones when each call stood in a block
of its own and only the last one was cut.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fake_chat_models import ScriptedChatModel, merged
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.outputs import ChatGeneration

from langchain_robust_parsers import (
    FunctionCallOutputParser,
    RobustJsonOutputToolsParser,
    TextToolCallAdapter,
    TextToolCallingChatModel,
)
from langchain_robust_parsers.parsers.vocabulary import UnknownOptionError


def get_weather(city: str) -> str:
    """The current weather in a city."""
    return f"12 degrees in {city}"


def get_time(tz: str) -> str:
    """The time in a time zone."""
    return f"noon in {tz}"


TOOLS = [get_weather, get_time]

# Where each provider says the output token limit stopped the answer, as its LangChain
# integration writes it into response_metadata.
CUT: dict[str, dict[str, Any]] = {
    "openai": {"finish_reason": "length", "model_name": "gpt-4o-mini"},
    "mistral": {"finish_reason": "model_length"},
    "openai-responses": {
        "status": "incomplete",
        "incomplete_details": {"reason": "max_output_tokens"},
    },
    "anthropic": {"stop_reason": "max_tokens", "stop_sequence": None},
    "ollama": {"done": True, "done_reason": "length"},
    "gemini": {"finish_reason": "MAX_TOKENS"},
    "bedrock-converse": {"stopReason": "max_tokens"},
    "watsonx": {"stop_reason": "max_tokens"},
}
FINISHED: dict[str, Any] = {"finish_reason": "stop"}

ONE_WHOLE = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>'
TWO_BLOCKS_LAST_CUT = (
    "I will look up both.\n"
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>\n'
    '<tool_call>\n{"name": "get_time", "arguments": {"tz": "Europe/Os'
)
PYTHON_LIST_CUT = '[get_weather(city="Oslo"), get_time(tz="Europe/Os'
# One bare JSON call, cut: its arguments read as a JSON object once completed, which is how
# LangChain's chunk merge judges a streamed call valid.
BARE_JSON_CUT = '{"name": "get_weather", "arguments": {"city": "Os'

# (answer, calls run under a cut stop reason, calls run when the answer finished normally)
CASES: dict[str, tuple[str, tuple[str, ...]]] = {
    # The text looks whole, but the provider says it was cut: its arguments may be short.
    "whole-looking": (ONE_WHOLE, ()),
    # The first block closed before the cut: it is whole, the cut one is dropped.
    "closed-block-before-cut": (TWO_BLOCKS_LAST_CUT, ("get_weather",)),
    # A cut inside one list of calls proves nothing about the calls before it.
    "cut-python-list": (PYTHON_LIST_CUT, ()),
    "cut-bare-json": (BARE_JSON_CUT, ()),
}


def names(calls: Any) -> tuple[str, ...]:
    return tuple(c.get("name") or c.get("type") for c in calls)


def chunks(text: str, meta: dict[str, Any], size: int = 9) -> list[AIMessageChunk]:
    """``text`` streamed in pieces, the stop reason on the last chunk as providers send it."""
    out = [AIMessageChunk(content=text[i : i + size]) for i in range(0, len(text), size)]
    out.append(AIMessageChunk(content="", response_metadata=dict(meta)))
    return out


def refused(run: Callable[[], Any]) -> tuple[str, ...]:
    """The calls a parser hands out, or none when it refuses the answer."""
    try:
        return names(run())
    except OutputParserException:  # TruncatedOutputError, or a call that does not decode
        return ()


def function_calls(text: str, meta: dict[str, Any]) -> tuple[str, ...]:
    parser = FunctionCallOutputParser(output="tool_calls", on_truncation="raise", tools=TOOLS)
    return refused(lambda: parser.invoke(AIMessage(text, response_metadata=meta)))


def function_calls_stream(text: str, meta: dict[str, Any]) -> tuple[str, ...]:
    parser = FunctionCallOutputParser(output="tool_calls", on_truncation="raise", tools=TOOLS)
    return refused(lambda: list(parser.transform(iter(chunks(text, meta))))[-1])


def tools_parser(text: str, meta: dict[str, Any]) -> tuple[str, ...]:
    parser = RobustJsonOutputToolsParser(on_truncation="raise", tools=TOOLS)
    message = AIMessage(text, response_metadata=meta)
    return refused(lambda: parser.parse_result([ChatGeneration(message=message)]))


def adapter(text: str, meta: dict[str, Any]) -> tuple[str, ...]:
    adapted = TextToolCallAdapter(tools=TOOLS).invoke(AIMessage(text, response_metadata=meta))
    assert isinstance(adapted, AIMessage)
    return names(adapted.tool_calls)


def model(text: str, meta: dict[str, Any]) -> Any:
    inner = ScriptedChatModel(responses=[text], metadata=meta, chunk_size=11)
    return TextToolCallingChatModel(inner).bind_tools(TOOLS)


def chat_model(text: str, meta: dict[str, Any]) -> tuple[str, ...]:
    answer = model(text, meta).invoke("weather and time in Oslo?")
    return names(answer.tool_calls)


def chat_model_stream(text: str, meta: dict[str, Any]) -> tuple[str, ...]:
    merged: Any = None
    for chunk in model(text, meta).stream("weather and time in Oslo?"):
        merged = chunk if merged is None else merged + chunk
    assert isinstance(merged, AIMessageChunk)
    return names(merged.tool_calls)


def chat_model_invoke_streamed(text: str, meta: dict[str, Any]) -> tuple[str, ...]:
    # ``invoke`` adds up the model's own stream when asked to stream (``stream=True``, or a
    # streaming callback such as LangGraph's "messages" stream mode).
    answer = model(text, meta).invoke("weather and time in Oslo?", stream=True)
    return names(answer.tool_calls)


def middleware(text: str, meta: dict[str, Any]) -> tuple[str, ...]:
    from langchain_robust_parsers.middleware.call_review import review_calls

    return names(review_calls(AIMessage(text, response_metadata=meta), TOOLS).accepted)


def _has_middleware() -> bool:
    """The middleware needs langchain>=1.5, an optional extra the floor run does not have."""
    try:
        import langchain_robust_parsers.middleware  # noqa: F401
    except ImportError:
        return False
    return True


ENTRIES: dict[str, Callable[[str, dict[str, Any]], tuple[str, ...]]] = {
    "function-calls": function_calls,
    "function-calls-stream": function_calls_stream,
    "tools-parser": tools_parser,
    "adapter": adapter,
    "chat-model": chat_model,
    "chat-model-stream": chat_model_stream,
    "chat-model-invoke-streamed": chat_model_invoke_streamed,
    **({"middleware": middleware} if _has_middleware() else {}),
}


@pytest.mark.parametrize("spelling", list(CUT))
@pytest.mark.parametrize("case", list(CASES))
def test_every_entry_point_runs_the_same_calls_of_a_cut_answer(case: str, spelling: str) -> None:
    text, runs = CASES[case]
    verdicts = {entry: read(text, CUT[spelling]) for entry, read in ENTRIES.items()}
    assert verdicts == dict.fromkeys(ENTRIES, runs)


@pytest.mark.parametrize("entry", list(ENTRIES))
def test_a_finished_answer_runs_its_whole_calls(entry: str) -> None:
    # Without a cut stop reason the same whole call runs: the verdicts above are the cut's.
    assert ENTRIES[entry](ONE_WHOLE, FINISHED) == ("get_weather",)


@pytest.mark.parametrize("entry", list(ENTRIES))
def test_a_cut_bare_json_call_never_runs_even_when_the_answer_says_it_finished(entry: str) -> None:
    assert ENTRIES[entry](BARE_JSON_CUT, FINISHED) == ()


@pytest.mark.parametrize("size", [1, 7, 200])
def test_the_streamed_message_has_no_call_that_invoke_refused(size: int) -> None:
    def chat() -> Any:
        inner = ScriptedChatModel(responses=[BARE_JSON_CUT], chunk_size=size)
        return TextToolCallingChatModel(inner).bind_tools(TOOLS)

    invoked = chat().invoke("weather in Oslo?")
    assert invoked.tool_calls == [] and len(invoked.invalid_tool_calls) == 1
    streamed = merged(list(chat().stream("weather in Oslo?")))
    assert streamed.tool_calls == [] and streamed.content == invoked.content


def test_complete_hands_out_a_cut_call_on_request() -> None:
    cut = AIMessage(ONE_WHOLE, response_metadata=CUT["anthropic"])
    adapted = TextToolCallAdapter(tools=TOOLS, on_truncation="complete").invoke(cut)
    assert isinstance(adapted, AIMessage) and names(adapted.tool_calls) == ("get_weather",)
    parser = FunctionCallOutputParser(output="tool_calls", tools=TOOLS, on_truncation="complete")
    assert names(parser.invoke(cut)) == ("get_weather",)


def test_under_raise_a_message_keeps_the_cut_call_as_invalid_with_the_reason() -> None:
    adapted = TextToolCallAdapter(tools=TOOLS).invoke(
        AIMessage(ONE_WHOLE, response_metadata=CUT["openai"])
    )
    assert isinstance(adapted, AIMessage) and adapted.tool_calls == []
    [invalid] = adapted.invalid_tool_calls
    assert invalid["name"] == "get_weather" and "token limit" in (invalid["error"] or "")


@pytest.mark.parametrize("owner", [TextToolCallAdapter, TextToolCallingChatModel])
def test_the_old_option_name_is_refused_naming_its_replacement(owner: type[Any]) -> None:
    with pytest.raises(UnknownOptionError, match="on_truncation='complete'") as info:
        owner(allow_truncated_calls=True)
    assert info.value.suggestion == "on_truncation"


def test_a_refused_parse_is_an_output_parser_exception_with_the_text() -> None:
    parser = FunctionCallOutputParser(on_truncation="raise")
    message = AIMessage(PYTHON_LIST_CUT, response_metadata=CUT["gemini"])
    with pytest.raises(OutputParserException) as info:
        parser.invoke(message)
    assert info.value.llm_output == PYTHON_LIST_CUT


def test_a_last_chunk_with_valid_and_invalid_calls_keeps_both() -> None:
    # LangChain keeps only the tool call chunks of a chunk given both kinds of call.
    from langchain_core.messages.tool import invalid_tool_call

    from langchain_robust_parsers.chat_models.stream_chunks import StreamOut
    from langchain_robust_parsers.engine.calls.call_stream import StreamStep
    from langchain_robust_parsers.engine.calls.parsed_call import ParsedCall

    step = StreamStep("", (ParsedCall("get_weather", {"city": "Oslo"}),))
    bad = invalid_tool_call(name="rm_rf", args='rm_rf({"path": "/"})', id="call_1", error="x")
    last = StreamOut(None).chunk(step, final=True, invalid=[bad])
    assert last is not None and isinstance(last.message, AIMessageChunk)
    assert names(last.message.tool_calls) == ("get_weather",)
    assert names(last.message.invalid_tool_calls) == ("rm_rf",)
