"""One nesting bound for every value read from model text (``value_depth.MAX_VALUE_DEPTH``).

A value nested past it cannot be deep-copied or pickled under CPython's default recursion
limit, and LangChain's tracing deep-copies every output. So no reader returns one: a payload
just inside the bound is read and copies; one past it fails cleanly (an
``OutputParserException`` or an invalid tool call saying why), on every entry point. The XML
reader's own tests are in test_xml_parser.py.
"""

from __future__ import annotations

import asyncio
import copy
import pickle
from typing import Any

import pytest
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, AIMessageChunk
from pydantic import BaseModel

from langchain_robust_parsers import (
    RobustJsonOutputToolsParser,
    RobustYamlOutputParser,
    TextToolCallAdapter,
)
from langchain_robust_parsers.engine.value_depth import MAX_VALUE_DEPTH


def value_depth(value: Any) -> int:
    """How many containers nest in ``value`` (a scalar is 0), walked without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return deepest


def matrix(levels: int) -> str:
    """A JSON list nested ``levels`` deep around one number, as a tensor-shaped answer is."""
    return "[" * levels + "0.5" + "]" * levels


def call_text(argument_levels: int) -> str:
    """A Hermes-style call whose ``shape`` argument nests ``argument_levels`` lists: the payload
    adds two levels (the call object and its arguments)."""
    payload = f'{{"name": "set_weights", "arguments": {{"shape": {matrix(argument_levels)}}}}}'
    return f"I'll set the weights now.\n<tool_call>{payload}</tool_call>"


JUST_INSIDE = MAX_VALUE_DEPTH - 2  # the payload nests exactly MAX_VALUE_DEPTH levels
PAST = [MAX_VALUE_DEPTH - 1, 300, 600]


def _assert_copies(value: Any) -> None:
    assert copy.deepcopy(value) == value
    assert pickle.loads(pickle.dumps(value)) == value


def _chunks(text: str, size: int = 37) -> list[AIMessageChunk]:
    return [AIMessageChunk(content=text[i : i + size]) for i in range(0, len(text), size)]


# --------------------------------------------------------------------------- tool-call arguments


def test_a_call_just_inside_the_bound_is_read_on_every_entry_point() -> None:
    adapter = TextToolCallAdapter()
    message = AIMessage(content=call_text(JUST_INSIDE))
    invoked = adapter.invoke(message)
    streamed = list(adapter.transform(iter(_chunks(str(message.content)))))[-1]
    awaited = asyncio.run(adapter.ainvoke(message))
    for result in (invoked, streamed, awaited):
        assert isinstance(result, AIMessage)
        (call,) = result.tool_calls
        assert call["name"] == "set_weights"
        assert value_depth(call["args"]["shape"]) == JUST_INSIDE
        _assert_copies(result)


@pytest.mark.parametrize("levels", PAST)
def test_a_call_nested_past_the_bound_is_an_invalid_call_saying_why(levels: int) -> None:
    adapter = TextToolCallAdapter()
    message = AIMessage(content=call_text(levels))
    invoked = adapter.invoke(message)
    streamed = list(adapter.transform(iter(_chunks(str(message.content)))))[-1]
    awaited = asyncio.run(adapter.ainvoke(message))
    for result in (invoked, streamed, awaited):
        assert isinstance(result, AIMessage)
        assert result.tool_calls == []
        (invalid,) = result.invalid_tool_calls
        assert f"nested deeper than {MAX_VALUE_DEPTH} levels" in (invalid["error"] or "")
        _assert_copies(result)


def test_arguments_encoded_as_a_string_are_bounded_too() -> None:
    inner = '{"shape": ' + matrix(300) + "}"
    payload = (
        '{"name": "set_weights", "arguments": '
        + f'"{inner.replace(chr(34), chr(92) + chr(34))}"'
        + "}"
    )
    result = TextToolCallAdapter().invoke(AIMessage(content=f"<tool_call>{payload}</tool_call>"))
    assert result.tool_calls == []
    assert len(result.invalid_tool_calls) == 1
    _assert_copies(result)


def test_a_parameter_value_nested_past_the_bound_stays_text() -> None:
    deep, shallow = matrix(300), matrix(3)
    text = (
        "<tool_call>\n<function=set_weights>\n"
        f"<parameter=shape>\n{deep}\n</parameter>\n"
        f"<parameter=bias>\n{shallow}\n</parameter>\n"
        "</function>\n</tool_call>"
    )
    result = TextToolCallAdapter().invoke(AIMessage(content=text))
    (call,) = result.tool_calls
    assert call["args"]["shape"] == deep  # as written: deeper than any reader builds
    assert call["args"]["bias"] == shallow  # untyped parameters stay text (no tool bound)
    _assert_copies(result)


@pytest.mark.parametrize("levels", [JUST_INSIDE, *PAST])
def test_the_tools_parser_never_returns_arguments_past_the_bound(levels: int) -> None:
    parser = RobustJsonOutputToolsParser()
    message = AIMessage(content=call_text(levels))
    results: list[Any] = [parser.invoke(message), asyncio.run(parser.ainvoke(message))]
    results += list(parser.transform(iter(_chunks(str(message.content)))))
    for result in results:
        # The bound is on the payload read from the text (the call object and its arguments);
        # the parser's list of calls adds one level, well inside the bound's margin.
        assert value_depth(result) <= MAX_VALUE_DEPTH + 1
        _assert_copies(result)
    if levels == JUST_INSIDE:
        assert value_depth(results[0][0]["args"]["shape"]) == JUST_INSIDE


# --------------------------------------------------------------------------- YAML


class Weights(BaseModel):
    shape: Any


@pytest.mark.parametrize("innermost", ["[0.5]", "[]"])
def test_yaml_just_inside_the_bound_reads_and_copies(innermost: str) -> None:
    levels = MAX_VALUE_DEPTH - 1  # the mapping holding `shape` is the first level
    text = "shape: " + "[" * (levels - 1) + innermost + "]" * (levels - 1)
    parser = RobustYamlOutputParser(pydantic_object=Weights)
    for value in (parser.parse(text), asyncio.run(parser.ainvoke(text))):
        assert value_depth(value.model_dump()) == MAX_VALUE_DEPTH
        _assert_copies(value)


@pytest.mark.parametrize("innermost", ["[0.5]", "[]"])
@pytest.mark.parametrize("levels", [MAX_VALUE_DEPTH, 2000])
def test_yaml_past_the_bound_fails_cleanly(levels: int, innermost: str) -> None:
    text = "shape: " + "[" * (levels - 1) + innermost + "]" * (levels - 1)
    parser = RobustYamlOutputParser(pydantic_object=Weights)
    with pytest.raises(OutputParserException):
        parser.parse(text)
    with pytest.raises(OutputParserException):
        asyncio.run(parser.ainvoke(text))


def test_block_yaml_past_the_bound_fails_cleanly() -> None:
    lines = ["shape:"] + ["  " * (i + 1) + f"level{i}:" for i in range(MAX_VALUE_DEPTH)]
    with pytest.raises(OutputParserException):
        RobustYamlOutputParser(pydantic_object=Weights).parse("\n".join(lines) + " 1\n")
