"""gpt-oss's harmony answers around their first header: the prompt ends with
``<|start|>assistant``, so what the model writes before its first ``<|channel|>`` is the rest of
that header (a recipient, or the role name when the prompt ended with ``<|start|>``) and is
removed; any other text there is the model's words and stays in the content. The analysis
message is reasoning: streamed as ``reasoning_content`` as it comes, never counted as content,
so a stream that hands it out reaches the same message as ``invoke`` without a warning."""

from __future__ import annotations

import logging

import pytest
from dialect_family_checks import Calls, check_adapter, check_chat_model, tool
from fake_chat_models import ScriptedChatModel, merged
from langchain_core.messages import AIMessage

from langchain_robust_parsers.chat_models import TextToolCallingChatModel

_CALL = "<|constrain|>json<|message|>"
_ROME = [("get_weather", {"city": "Rome"})]

CASES: list[tuple[str, str, Calls, str]] = [
    (
        "a sentence before the first channel, then the final message",
        "One moment.<|channel|>final<|message|>It is 21 °C in Paris.<|return|>",
        [],
        "One moment. It is 21 °C in Paris.",
    ),
    (
        "a sentence before the analysis, then a call",
        "Checking.<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant"
        f'<|channel|>commentary to=functions.get_weather {_CALL}{{"city": "Rome"}}<|call|>',
        _ROME,
        "Checking.",
    ),
    (
        "the recipient written before the channel",
        f'to=functions.get_weather<|channel|>commentary {_CALL}{{"city": "Rome"}}<|call|>',
        _ROME,
        "",
    ),
    (
        "the role name and the recipient before the channel",
        "assistant to=functions.get_weather<|channel|>commentary "
        f'{_CALL}{{"city": "Rome"}}<|call|>',
        _ROME,
        "",
    ),
    (
        "the role name before the channel of the final message",
        "assistant<|channel|>final<|message|>Hi there.<|return|>",
        [],
        "Hi there.",
    ),
    (
        "a word that starts like a recipient is prose",
        "to be sure:<|channel|>final<|message|>Yes.<|return|>",
        [],
        "to be sure: Yes.",
    ),
]


@pytest.mark.parametrize(("name", "text", "calls", "content"), CASES, ids=[c[0] for c in CASES])
def test_invoke_and_stream_keep_the_same_text(
    name: str, text: str, calls: Calls, content: str
) -> None:
    check_adapter(text, calls, content)
    check_chat_model(text, [tool("get_weather")], calls, content)


REASONED: list[tuple[str, str, Calls, str, str]] = [
    (
        "analysis then a call",
        "<|channel|>analysis<|message|>The user wants Rome's weather.<|end|><|start|>assistant"
        f'<|channel|>commentary to=functions.get_weather {_CALL}{{"city": "Rome"}}<|call|>',
        _ROME,
        "",
        "The user wants Rome's weather.",
    ),
    (
        "analysis then the final answer",
        "<|channel|>analysis<|message|>Simple arithmetic.<|end|><|start|>assistant<|channel|>"
        "final<|message|>2 + 2 = 4.<|return|>",
        [],
        "2 + 2 = 4.",
        "Simple arithmetic.",
    ),
    (
        "text, analysis, a preamble and a call",
        "Sure.<|channel|>analysis<|message|>Look it up.<|end|><|start|>assistant<|channel|>"
        "commentary<|message|>Checking now.<|end|><|start|>assistant<|channel|>commentary "
        f'to=functions.get_weather {_CALL}{{"city": "Rome"}}<|call|>',
        _ROME,
        "Sure.Checking now.",  # the blank space after reasoning goes with it, as after </think>
        "Look it up.",
    ),
    (
        "analysis cut off by the token limit",
        "<|channel|>analysis<|message|>The user asks for the weather in Ro",
        [],
        "",
        "The user asks for the weather in Ro",
    ),
    (
        "a call header cut off before its message",
        "<|channel|>analysis<|message|>Call the tool.<|end|><|start|>assistant "
        "to=functions.get_weather<|channel|>commentary <|constrain|>js",
        [],
        "",
        "Call the tool.",
    ),
    (
        "the final message's header cut off",
        "<|channel|>analysis<|message|>Easy one.<|end|><|start|>assistant<|channel|>fin",
        [],
        "",
        "Easy one.",
    ),
    (
        "a call, then the next header cut off",
        "<|channel|>analysis<|message|>Two steps.<|end|><|start|>assistant<|channel|>commentary "
        f'to=functions.get_weather {_CALL}{{"city": "Rome"}}<|call|><|start|>assistant<|chan',
        _ROME,
        "",
        "Two steps.",
    ),
]


def _streamed(model: TextToolCallingChatModel, tools: list[dict[str, object]]) -> AIMessage:
    return merged(list(model.bind_tools(tools).stream("q")))


@pytest.mark.parametrize("opens", [None, False], ids=["auto", "no-template-reasoning"])
@pytest.mark.parametrize(
    ("name", "text", "calls", "content", "reasoning"), REASONED, ids=[r[0] for r in REASONED]
)
def test_streamed_analysis_is_reasoning_not_conflicting_content(
    name: str,
    text: str,
    calls: Calls,
    content: str,
    reasoning: str,
    opens: bool | None,
    caplog: pytest.LogCaptureFixture,
) -> None:
    tools = [tool("get_weather")]
    fake = ScriptedChatModel(responses=[text], chunk_size=len(text))
    invoked = TextToolCallingChatModel(fake, template_opens_reasoning=opens).bind_tools(tools)
    message = invoked.invoke("q")
    assert isinstance(message, AIMessage)
    assert [(c["name"], c["args"]) for c in message.tool_calls] == calls
    assert (message.content, message.additional_kwargs.get("reasoning_content")) == (
        content,
        reasoning,
    )
    with caplog.at_level(logging.WARNING, logger="langchain_robust_parsers"):
        for size in range(1, 65):
            fake = ScriptedChatModel(responses=[text], chunk_size=size)
            model = TextToolCallingChatModel(fake, template_opens_reasoning=opens)
            streamed = _streamed(model, tools)
            assert [(c["name"], c["args"]) for c in streamed.tool_calls] == calls, size
            assert streamed.content == content, size
            assert streamed.additional_kwargs.get("reasoning_content") == reasoning, size
    assert not [r.getMessage() for r in caplog.records if "differs" in r.getMessage()]
