"""The checks every tool-call dialect passes, for the per-family test modules
(``test_dialect_<family>.py``): the adapter, the chat model (invoked and streamed at several
chunk sizes) and ``RobustJsonOutputToolsParser`` agree on the calls and the content."""

from __future__ import annotations

from typing import Any

from fake_chat_models import ScriptedChatModel, merged
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration

from langchain_robust_parsers import RobustJsonOutputToolsParser, TextToolCallAdapter
from langchain_robust_parsers.chat_models import TextToolCallingChatModel

Calls = list[tuple[str, dict[str, Any]]]
CHUNK_SIZES = (1, 3, 7, 64)
"""Chunkings of a streamed answer: one character, a few, a whole line."""


def tool(name: str, properties: dict[str, Any] | None = None) -> dict[str, Any]:
    """An OpenAI-style tool schema."""
    parameters = {"type": "object", "properties": properties or {}}
    return {"type": "function", "function": {"name": name, "parameters": parameters}}


def calls_of(message: AIMessage) -> Calls:
    return [(c["name"], c["args"]) for c in message.tool_calls]


def adapted(text: str) -> AIMessage:
    message = TextToolCallAdapter().invoke(AIMessage(content=text))
    assert isinstance(message, AIMessage)
    return message


def check_adapter(text: str, calls: Calls, content: str) -> None:
    message = adapted(text)
    assert calls_of(message) == calls
    assert message.content == content
    parsed = RobustJsonOutputToolsParser().parse_result([ChatGeneration(message=AIMessage(text))])
    assert [(c["type"], c["args"]) for c in parsed] == calls


def check_chat_model(text: str, tools: list[dict[str, Any]], calls: Calls, content: str) -> None:
    for size in CHUNK_SIZES:
        fake = ScriptedChatModel(responses=[text, text], chunk_size=size)
        bound = TextToolCallingChatModel(fake).bind_tools(tools)
        invoked = bound.invoke("q")
        streamed = merged(list(bound.stream("q")))
        assert calls_of(invoked) == calls, size
        assert calls_of(streamed) == calls, size
        assert streamed.content == invoked.content == content, size
