"""ReAct steps in the layouts other agent frameworks prompt for, written from their
documentation: the parsed step and the streamed step agree at every chunk size.

A row is ``(layout, model output, expected step)``; a step is ``("action", tool, input)`` or
``("finish", output)``."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.agents import AgentAction, AgentFinish

from langchain_robust_parsers import ReActOutputParser

CHUNK_SIZES = (1, 3, 7, 64)
"""Chunkings of a streamed answer: one character, a few, a whole line."""

CASES: list[tuple[str, str, tuple[Any, ...]]] = [
    (
        "smolagents JSON blob, a tool call",
        'Thought: search it\nAction:\n{\n  "name": "web_search",\n  "arguments": '
        '{"query": "weather Paris"}\n}',
        ("action", "web_search", {"query": "weather Paris"}),
    ),
    (
        "smolagents JSON blob, the final_answer tool gives its answer argument",
        'Thought: I have it.\nAction:\n{\n  "name": "final_answer",\n  "arguments": '
        '{"answer": "42"}\n}',
        ("finish", "42"),
    ),
    (
        "smolagents JSON blob, a structured answer",
        'Action:\n{\n  "name": "final_answer",\n  "arguments": {"answer": {"city": "Paris", '
        '"temp_c": 21}}\n}',
        ("finish", {"city": "Paris", "temp_c": 21}),
    ),
    (
        "LangChain structured chat, a dict answer stays whole",
        'Action:\n```json\n{\n  "action": "Final Answer",\n  "action_input": {"answer": 42}\n}'
        "\n```",
        ("finish", {"answer": 42}),
    ),
    (
        "LlamaIndex, an answer without tools",
        "Thought: I can answer without using any more tools. I'll use the user's language to "
        "answer\nAnswer: Paris is the capital.",
        ("finish", "Paris is the capital."),
    ),
    (
        "LangChain ReAct, markers in bold",
        "**Thought:** need data\n**Action:** search\n**Action Input:** dogs",
        ("action", "search", "dogs"),
    ),
]


def _step(step: Any) -> tuple[Any, ...]:
    if isinstance(step, AgentAction):
        return ("action", step.tool, step.tool_input)
    assert isinstance(step, AgentFinish)
    return ("finish", step.return_values["output"])


@pytest.mark.parametrize(("layout", "text", "expected"), CASES, ids=[c[0] for c in CASES])
def test_parse_and_stream_read_the_step(layout: str, text: str, expected: tuple[Any, ...]) -> None:
    assert _step(ReActOutputParser().parse(text)) == expected, layout
    for size in CHUNK_SIZES:
        chunks = [text[i : i + size] for i in range(0, len(text), size)]
        steps = [s for s in ReActOutputParser().transform(iter(chunks)) if not isinstance(s, str)]
        assert _step(steps[-1]) == expected, size
