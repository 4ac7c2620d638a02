"""Fakes for the text tool-calling tests: two tools, and scripts in each dialect (the scripted
chat model that plays them is in ``fake_chat_models.py``)."""

from __future__ import annotations

from typing import Any

from chain_fakes import text_of
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import tool

# ----------------------------------------------------------------------------- tools and scripts

WEATHER_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
            },
            "required": ["city"],
        },
    },
}
TIME_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_time",
        "description": "Current local time in a time zone.",
        "parameters": {
            "type": "object",
            "properties": {"tz": {"type": "string", "description": "IANA time zone"}},
            "required": ["tz"],
        },
    },
}
TOOL_SCHEMAS = [WEATHER_TOOL, TIME_TOOL]
"""The two tools as fixed JSON schemas (the same text at every langchain-core version)."""


@tool
def get_weather(city: str, unit: str = "celsius") -> str:
    """Current weather in a city."""
    return f"Sunny, 21 degrees {unit} in {city}"


@tool
def get_time(tz: str) -> str:
    """Current local time in a time zone."""
    return f"14:05 in {tz}"


TOOLS = [get_weather, get_time]
TOOLS_BY_NAME = {t.name: t for t in TOOLS}

QUESTION = "What is the weather in Paris, and what time is it there?"
FINAL_ANSWER = "It is sunny, 21 degrees in Paris, and the local time is 14:05."

SEQUENTIAL: dict[str, list[str]] = {
    "hermes": [
        "I will look up the weather first.\n<tool_call>\n"
        '{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
        '<tool_call>\n{"name": "get_time", "arguments": {"tz": "Europe/Paris"}}\n</tool_call>',
        FINAL_ANSWER,
    ],
    "python": [
        '[get_weather(city="Paris")]',
        '```python\n[get_time(tz="Europe/Paris")]\n```',
        FINAL_ANSWER,
    ],
    "json": [
        '[{"name": "get_weather", "arguments": {"city": "Paris"}}]',
        '{"name": "get_time", "arguments": {"tz": "Europe/Paris"}}',
        FINAL_ANSWER,
    ],
    "xml": [
        "I will look up the weather first.\n<tool_call>\n<function=get_weather>\n"
        "<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
        "<tool_call>\n<function=get_time>\n<parameter=tz>\nEurope/Paris\n</parameter>\n"
        "</function>\n</tool_call>",
        FINAL_ANSWER,
    ],
    "mistral": [
        '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}',
        '[TOOL_CALLS]get_time[ARGS]{"tz": "Europe/Paris"}',
        FINAL_ANSWER,
    ],
}
"""An "open model" answering in each dialect: one call, another call, the final answer."""

PARALLEL: dict[str, list[str]] = {
    "hermes": [
        "Let me check both.\n<tool_call>\n"
        '{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n<tool_call>\n'
        '{"name": "get_time", "arguments": {"tz": "Europe/Paris"}}\n</tool_call>',
        FINAL_ANSWER,
    ],
    "python": ['[get_weather(city="Paris"), get_time(tz="Europe/Paris")]', FINAL_ANSWER],
    "json": [
        '[{"name": "get_weather", "arguments": {"city": "Paris"}}, '
        '{"name": "get_time", "arguments": {"tz": "Europe/Paris"}}]',
        FINAL_ANSWER,
    ],
    "xml": [
        "Let me check both.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n"
        "</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=get_time>\n"
        "<parameter=tz>\nEurope/Paris\n</parameter>\n</function>\n</tool_call>",
        FINAL_ANSWER,
    ],
    "mistral": [
        '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}'
        '[TOOL_CALLS]get_time[ARGS]{"tz": "Europe/Paris"}',
        FINAL_ANSWER,
    ],
}
"""The same with both calls in the first answer."""

EXPECTED_CALLS = [("get_weather", {"city": "Paris"}), ("get_time", {"tz": "Europe/Paris"})]


def check_loop(messages: list[BaseMessage], *, parallel: bool = False) -> None:
    ais = [m for m in messages if isinstance(m, AIMessage)]
    tools = [m for m in messages if isinstance(m, ToolMessage)]
    calls = [call for m in ais for call in m.tool_calls]
    assert [(c["name"], c["args"]) for c in calls] == EXPECTED_CALLS
    ids = [c["id"] for c in calls]
    assert all(isinstance(i, str) and i.startswith("call_") for i in ids)
    assert len(set(ids)) == len(ids)
    assert [t.tool_call_id for t in tools] == ids
    assert len(ais) == (2 if parallel else 3)
    assert text_of(ais[-1]) == FINAL_ANSWER
    assert not ais[-1].tool_calls
    for ai in ais:
        assert "<tool_call>" not in text_of(ai)
        assert "get_time(" not in text_of(ai) and '"name"' not in text_of(ai)
