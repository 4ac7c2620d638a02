"""``template_opens_reasoning`` on the tools parsers' text fallback: a call the model drafted
before a lone ``</think>`` (its chat template opened the reasoning) is read alike by
``RobustJsonOutputToolsParser`` (parse, invoke on a message, transform of text or message chunks
at any chunk size, async) and by ``TextToolCallAdapter``, in auto mode, ``True`` and ``False``."""

from __future__ import annotations

import asyncio
import pickle
from collections.abc import AsyncIterator
from typing import Any

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk

from langchain_robust_parsers import (
    RobustJsonOutputKeyToolsParser,
    RobustJsonOutputToolsParser,
    TextToolCallAdapter,
)
from langchain_robust_parsers.parsers.vocabulary import UnknownOptionError

CHUNK_SIZES = (1, 2, 3, 5, 8, 13, 16, 32, 64)

LYON = ("get_weather", {"city": "Lyon", "days": 2})
PARIS = ("get_weather", {"city": "Paris"})

# Hermes-style blocks: the draft call sits in reasoning that opens with prose, so auto mode
# reads the closer as the reasoning's end; with False the closer is text and both are calls.
HERMES = (
    "The user asks about Lyon. A first draft: <tool_call>\n"
    '{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call> '
    "no, that is the wrong city.\n</think>\n\n<tool_call>\n"
    '{"name": "get_weather", "arguments": {"city": "Lyon", "days": 2}}\n</tool_call>'
)
# BFCL-style Python calls after the closer; the draft is a call inside prose.
PYTHON = (
    'Plan: call [get_weather(city="Paris")] first? No, Lyon, for two days.\n'
    '</think>\n[get_weather(city="Lyon", days=2)]'
)
# The answer opens with a tag: auto mode does not take what comes before the closer for
# reasoning (a model that does not reason may write a lone closer), True does.
TAG_FIRST = (
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>\n'
    '</think>\n<tool_call>{"name": "get_weather", "arguments": {"city": "Lyon", "days": 2}}'
    "</tool_call>"
)

CASES = [
    pytest.param(HERMES, None, [LYON], id="hermes-auto"),
    pytest.param(HERMES, True, [LYON], id="hermes-opened"),
    pytest.param(HERMES, False, [PARIS, LYON], id="hermes-not-opened"),
    pytest.param(PYTHON, None, [LYON], id="python-auto"),
    pytest.param(PYTHON, True, [LYON], id="python-opened"),
    pytest.param(PYTHON, False, [PARIS, LYON], id="python-not-opened"),
    pytest.param(TAG_FIRST, None, [PARIS, LYON], id="tag-first-auto"),
    pytest.param(TAG_FIRST, True, [LYON], id="tag-first-opened"),
    pytest.param(TAG_FIRST, False, [PARIS, LYON], id="tag-first-not-opened"),
]


def _pairs(items: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    return [(item["type"], item["args"]) for item in items]


def _parser(opens: bool | None) -> RobustJsonOutputToolsParser:
    # Bound names: without them a call inside prose is not taken for a call (it is often data).
    return RobustJsonOutputToolsParser(template_opens_reasoning=opens, tool_names=["get_weather"])


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


@pytest.mark.parametrize(("text", "opens", "expected"), CASES)
def test_parse_invoke_and_adapter_read_the_same_calls(
    text: str, opens: bool | None, expected: list[Any]
) -> None:
    parser = _parser(opens)
    assert _pairs(parser.parse(text)) == expected
    assert _pairs(parser.invoke(AIMessage(content=text))) == expected
    adapted = TextToolCallAdapter(template_opens_reasoning=opens).invoke(AIMessage(content=text))
    assert isinstance(adapted, AIMessage)
    assert [(c["name"], c["args"]) for c in adapted.tool_calls] == expected
    assert adapted.invalid_tool_calls == []


@pytest.mark.parametrize("size", CHUNK_SIZES)
@pytest.mark.parametrize(("text", "opens", "expected"), CASES)
def test_a_stream_ends_on_the_calls_parse_reads(
    text: str, opens: bool | None, expected: list[Any], size: int
) -> None:
    parser = _parser(opens)
    from_text = list(parser.transform(iter(_pieces(text, size))))
    chunks = [AIMessageChunk(content=piece) for piece in _pieces(text, size)]
    from_messages = list(parser.transform(iter(chunks)))
    assert _pairs(from_text[-1]) == expected
    assert _pairs(from_messages[-1]) == expected


@pytest.mark.parametrize(("text", "opens", "expected"), CASES)
def test_async_entry_points_agree(text: str, opens: bool | None, expected: list[Any]) -> None:
    parser = _parser(opens)

    async def chunks() -> AsyncIterator[AIMessageChunk]:
        for piece in _pieces(text, 7):
            yield AIMessageChunk(content=piece)

    async def run() -> tuple[Any, list[Any]]:
        parsed = await parser.aparse(text)
        return parsed, [value async for value in parser.atransform(chunks())]

    parsed, streamed = asyncio.run(run())
    assert _pairs(parsed) == _pairs(streamed[-1]) == expected


def test_the_key_parser_reads_the_option_too() -> None:
    parser = RobustJsonOutputKeyToolsParser(key_name="get_weather", template_opens_reasoning=True)
    assert parser.parse(TAG_FIRST) == [{"city": "Lyon", "days": 2}]


def test_the_option_is_declared_like_the_adapters_and_pickles() -> None:
    parser = RobustJsonOutputToolsParser(template_opens_reasoning=True)
    field = RobustJsonOutputToolsParser.model_fields["template_opens_reasoning"]
    assert (
        field.description
        == TextToolCallAdapter.model_fields["template_opens_reasoning"].description
    )
    copy = pickle.loads(pickle.dumps(parser))
    assert copy.template_opens_reasoning is True
    assert _pairs(copy.parse(TAG_FIRST)) == [LYON]
    with pytest.raises(UnknownOptionError, match="did you mean 'template_opens_reasoning'"):
        RobustJsonOutputToolsParser(template_opens_reasonning=True)
