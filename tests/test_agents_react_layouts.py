"""ReAct layouts that other agent frameworks' prompts teach, read as the layout means them.

LlamaIndex asks for ``Answer:`` as the final answer and for the ``Action Input`` "in a JSON
format representing the kwargs"; tool lists written as ``name (description)`` make models copy
the description onto the ``Action:`` line; models dress a JSON input in backticks, a fence, a
call or Python's ``**`` unpacking, or leave it unclosed. Each is read the same when parsed and
when streamed in any chunking, and a repair is reported by its name.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.agents import AgentAction, AgentFinish

from langchain_robust_parsers import ReActOutputParser
from langchain_robust_parsers.engine.agents.react import scan_react
from langchain_robust_parsers.engine.agents.react_input_rules import (
    TEXT_INPUT_RULES,
    clean_action_input,
    close_json_text,
)
from langchain_robust_parsers.engine.json.repair_names import REPAIR_NAMES

CHUNK_SIZES = (1, 2, 3, 7, 64)


def read_everywhere(text: str) -> AgentAction | AgentFinish:
    """What ``parse`` gives, checked equal to the last item of every stream of ``text``."""
    parser = ReActOutputParser()
    parsed = parser.parse(text)
    assert not isinstance(parsed, list)
    for n in CHUNK_SIZES:
        chunks = [text[i : i + n] for i in range(0, len(text), n)]
        assert list(parser.transform(iter(chunks))) == [parsed], n
    return parsed


def repairs_of(text: str) -> tuple[str, ...]:
    steps = scan_react(text).steps
    report = steps[0].report if steps else None
    return report.repair_names if report is not None else ()


# --------------------------------------------------------------------------- LlamaIndex


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        (
            "Thought: I can answer without using any more tools. I'll use the user's language.\n"
            "Answer: La capitale de la France est Paris.",
            "La capitale de la France est Paris.",
        ),
        (
            "Thought: The sum is known now.\nAnswer: 3 + 4 = 7.\n\nBoth numbers were given.",
            "3 + 4 = 7.\n\nBoth numbers were given.",
        ),
        ("**Answer:** 42", "42"),
        ("Thought: I cannot answer with the tools I have.\nanswer: I don't know.", "I don't know."),
    ],
    ids=["llamaindex", "paragraphs", "bold", "lower-case"],
)
def test_answer_marker_at_a_line_start_is_the_final_answer(text: str, answer: str) -> None:
    finish = read_everywhere(text)
    assert isinstance(finish, AgentFinish)
    assert finish.return_values == {"output": answer}


def test_answer_inside_a_line_is_prose() -> None:
    text = (
        "Thought: the short answer: it depends on the unit.\n"
        "Action: convert\nAction Input: 3 miles to km"
    )
    action = read_everywhere(text)
    assert isinstance(action, AgentAction)
    assert (action.tool, action.tool_input) == ("convert", "3 miles to km")


def test_answer_after_an_action_is_a_conflict_as_final_answer_is() -> None:
    text = 'Thought: add\nAction: add\nAction Input: {"a": 1}\nAnswer: 2'
    assert scan_react(text).conflict


def test_llamaindex_json_kwargs_reach_the_tool_as_written() -> None:
    text = (
        "Thought: The current language of the user is English. I need to use a tool.\n"
        "Action: multiply (multiply two integers and return the result)\n"
        'Action Input: {"a": 12, "b": 7}'
    )
    action = read_everywhere(text)
    assert isinstance(action, AgentAction)
    assert (action.tool, action.tool_input) == ("multiply", '{"a": 12, "b": 7}')


@pytest.mark.parametrize(
    ("line", "tool"),
    [
        ("add (add two numbers)", "add"),
        ("`search` (search the web)", "search"),
        ("get_weather (one of get_weather, get_time)", "get_weather"),
        ("add(1, 2)", "add(1, 2)"),  # arguments, not a description: kept as written
        ("web search", "web search"),
    ],
)
def test_a_described_tool_name_is_the_name(line: str, tool: str) -> None:
    action = read_everywhere(f"Action: {line}\nAction Input: 3")
    assert isinstance(action, AgentAction)
    assert action.tool == tool


# --------------------------------------------------------------------------- wrapped inputs


@pytest.mark.parametrize(
    ("written", "tool_input", "repairs"),
    [
        ('Calculator({"a": 1, "b": 2})', '{"a": 1, "b": 2}', ("stray_text",)),
        ('** {"city": "Lima"}', '{"city": "Lima"}', ("stray_text",)),
        ('**{"city": "Lima"}**', '{"city": "Lima"}', ("stray_text",)),
        ('`{"city": "Lima"}`', '{"city": "Lima"}', ()),
        ('```json\n{"city": "Lima"}\n```', '{"city": "Lima"}', ()),
        ("`ls -la /tmp`", "ls -la /tmp", ()),
        ('{"query": "rust", "limit": 5', '{"query": "rust", "limit": 5}', ("missing_closer",)),
        ('{"note": "call me at 9', '{"note": "call me at 9"}', ("missing_closer",)),
        ('{"tags": ["a", "b"', '{"tags": ["a", "b"]}', ("missing_closer",)),
        ('```json\n{"city": "Lima"\n```', '{"city": "Lima"}', ("missing_closer",)),
    ],
    ids=[
        "call",
        "unpacking",
        "bold",
        "backticks",
        "fence",
        "backticks-text",
        "unclosed",
        "unclosed-string",
        "unclosed-list",
        "fenced-unclosed",
    ],
)
def test_a_wrapped_json_input_is_unwrapped(
    written: str, tool_input: str, repairs: tuple[str, ...]
) -> None:
    text = f"Thought: I need the tool.\nAction: lookup\nAction Input: {written}"
    action = read_everywhere(text)
    assert isinstance(action, AgentAction)
    assert (action.tool, action.tool_input) == ("lookup", tool_input)
    assert repairs_of(text) == repairs


@pytest.mark.parametrize(
    "written",
    [
        "sqrt(16) + 2",
        "**bold** claims need sources",
        "print(f(x))",
        '{"a": 1}} extra',
        "{not json at all",
        "```python\nprint('hi')\n```",
    ],
)
def test_an_input_that_is_not_wrapped_json_stays_as_written(written: str) -> None:
    action = read_everywhere(f"Action: run\nAction Input: {written}")
    assert isinstance(action, AgentAction)
    assert action.tool_input == written


def test_a_repaired_input_makes_the_parse_recovered() -> None:
    _value, report = ReActOutputParser().parse_with_report(
        'Action: lookup\nAction Input: {"city": "Lima"'
    )
    assert report is not None
    assert report.repair_names == ("missing_closer",)
    assert report.outcome == "recovered"


def test_every_input_rule_names_a_repair_of_the_closed_set() -> None:
    for rule in TEXT_INPUT_RULES:
        assert rule.repair is None or rule.repair in REPAIR_NAMES, rule.name


def test_closing_keeps_what_the_model_wrote() -> None:
    assert close_json_text('{"a": [1, 2], "b": {"c": "x') == '{"a": [1, 2], "b": {"c": "x"}}'
    assert close_json_text('{"a": 1,') == '{"a": 1}'
    assert close_json_text('{"a": 1}') is None  # nothing open
    assert close_json_text('{"a": 1]') is None  # a closer that closes nothing open
    assert clean_action_input("Oslo", 0) == ("Oslo", ())


# --------------------------------------------------------------------------- text after


def _streamed(text: str, n: int) -> tuple[str, Any]:
    parser = ReActOutputParser(stream_text=True, stream_thoughts=False)
    items = list(parser.transform(iter([text[i : i + n] for i in range(0, len(text), n)])))
    return "".join(x for x in items if isinstance(x, str)), items[-1]


@pytest.mark.parametrize(
    "text",
    [
        "Thought: I have it.\nFinal Answer: Lima is the capital.\n\nAbout 10 million live there.",
        "Thought: I have it.\nAnswer: - Lima\n- Cusco\n  Thought about Arequipa too, but no.",
        "Final Answer: Done.\n\nNext steps:\n1. Book\n2. Pack",
    ],
    ids=["paragraph", "list", "numbered"],
)
def test_text_after_a_streamed_final_answer_is_kept(text: str) -> None:
    parsed = ReActOutputParser().parse(text)
    assert isinstance(parsed, AgentFinish)
    for n in CHUNK_SIZES:
        streamed, finish = _streamed(text, n)
        assert streamed == parsed.return_values["output"], n
        assert finish.return_values["output"] == parsed.return_values["output"]
        assert finish.return_values["final_answer_streamed"] is True


def test_text_after_a_json_final_answer_stays_in_the_log() -> None:
    text = (
        'Thought: done\n```json\n{"action": "Final Answer", "action_input": "Lima"}\n```\n'
        "Hope this helps!"
    )
    finish = read_everywhere(text)
    assert isinstance(finish, AgentFinish)
    assert finish.return_values == {"output": "Lima"}
    assert finish.log.endswith("Hope this helps!")


# --------------------------------------------------------------------------- section frames


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("Final Answer: Lisbon.<|close|>response<|sep|>", "Lisbon."),
        ("Action: weather\nAction Input: Lisbon<|close|>response<|sep|>", ("weather", "Lisbon")),
    ],
    ids=["finish", "action"],
)
def test_a_response_frame_closer_ends_a_text_value(reply: str, expected: Any) -> None:
    step = read_everywhere("<|open|>response<|sep|>" + reply)
    if isinstance(step, AgentFinish):
        assert step.return_values["output"] == expected
    else:
        assert (step.tool, step.tool_input) == expected


@pytest.mark.parametrize(
    "answer",
    [
        "use a < b, then <b>bold</b> and <|im_end|> as written",
        "the tag <think> is how reasoning starts",
        "compare <|close|>other<|sep|> with the frame",
    ],
)
def test_angle_brackets_in_an_answer_are_the_answers(answer: str) -> None:
    finish = read_everywhere(f"Thought: explain\nFinal Answer: {answer}")
    assert isinstance(finish, AgentFinish)
    assert finish.return_values["output"] == answer
    for n in CHUNK_SIZES:
        streamed, _finish = _streamed(f"Final Answer: {answer}", n)
        assert streamed == answer


def test_answer_lines_inside_a_final_answer_are_the_answers() -> None:
    text = (
        "Thought: I will write the FAQ.\nFinal Answer: Here is the FAQ:\n"
        "Question: Can I bring a bike?\nAnswer: Yes, on regional trains.\n"
        "Question: Are dogs allowed?\nAnswer: Small dogs travel free."
    )
    finish = read_everywhere(text)
    assert isinstance(finish, AgentFinish)
    assert finish.return_values["output"] == text.split("Final Answer: ", 1)[1]
