"""GUI-agent answer formats beyond ``Thought:/Action:``: omni and Seed layouts, reasoning tags,
function-call JSON, and the call repairs (missing commas, a missing ``)`` or quote at the end)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st
from langchain_core.exceptions import OutputParserException

from langchain_robust_parsers import ActionOutputParser
from langchain_robust_parsers.engine.agents.actions import (
    ClickAction,
    CompleteAction,
    DragAction,
    GotoUrlAction,
    InputTextAction,
    KeypressAction,
    NullAction,
    OpenAppAction,
    ScrollAction,
)
from langchain_robust_parsers.engine.agents.gui_layouts import (
    answer_block,
    function_calls,
    reasoning_blocks,
    seed_calls,
)
from langchain_robust_parsers.engine.agents.ui_tars import CoordinateSpace, parse_ui_tars

WINDOW = CoordinateSpace(window=(1000, 1000))
PARSER = ActionOutputParser(window=(1000, 1000))
HOSTILE_SECONDS = 2.0


def names(text: str, **kwargs: Any) -> list[str]:
    return [i.call.name for i in parse_ui_tars(text, WINDOW, **kwargs).items]


def only(text: str, parser: ActionOutputParser = PARSER) -> Any:
    actions = parser.parse(text)
    assert len(actions) == 1, actions
    return actions[0]


# ----------------------------------------------------------------------------- coordinates on type


@pytest.mark.parametrize(
    ("call", "point"),
    [
        ("type(text='Hello', start_box='(300,400)')", (300, 400)),
        ("type(content='alice@example.com', point='<point>120 640</point>')", (120, 640)),
        ("type(content='42', start_box='[100, 100, 300, 300]')", (200, 200)),
    ],
)
def test_type_keeps_its_coordinates(call: str, point: tuple[int, int]) -> None:
    action = only("Thought: fill the field\nAction: " + call)
    assert isinstance(action, InputTextAction)
    assert (action.x, action.y) == point


def test_type_without_coordinates_types_into_the_focused_field() -> None:
    action = only("Action: type(content='hello world\\n')")
    assert isinstance(action, InputTextAction)
    assert (action.x, action.y, action.text, action.submit) == (None, None, "hello world", True)


# ----------------------------------------------------------------------------- call repairs


def test_keyword_arguments_without_commas() -> None:
    action = only(
        "Action: drag(start_point='<point>100 200</point>' end_point='<point>300 400</point>')"
    )
    assert isinstance(action, DragAction)
    assert (action.x, action.y, action.end_x, action.end_y) == (100, 200, 300, 400)
    assert action.warnings == ["a comma between arguments was missing; repaired"]


def test_missing_commas_between_three_arguments() -> None:
    action = only(
        "Action: scroll(point='<point>500 500</point>'  direction='down' amount=300)",
        ActionOutputParser(window=(1000, 1000)),
    )
    assert isinstance(action, ScrollAction)
    assert (action.x, action.direction) == (500, "down")


def test_a_quote_inside_content_is_not_taken_for_a_missing_comma() -> None:
    action = only("Action: type(content='set x = 5 and y = 6')")
    assert isinstance(action, InputTextAction)
    assert action.text == "set x = 5 and y = 6"


@pytest.mark.parametrize(
    ("text", "expected", "warning"),
    [
        (
            "Thought: open the menu\nAction: click(start_box='(100,200)'",
            ClickAction(x=100, y=200),
            "the call's closing ')' was missing; repaired",
        ),
        (
            "Action: hotkey(key='ctrl shift t'",
            KeypressAction(key="ctrl shift t"),
            "the call's closing ')' was missing; repaired",
        ),
        (
            "Action: finished(content='The invoice was downloaded.)",
            CompleteAction(message="The invoice was downloaded."),
            "a closing quote was missing before the call's ')'; repaired",
        ),
        (
            "Action: click(point='<point>250 750</point>",
            ClickAction(x=250, y=750),
            "the closing quote and ')' were missing at the end; repaired",
        ),
        (
            "Action: click(start_box=<point>10 20</point>",
            ClickAction(x=10, y=20),
            "the call's closing ')' was missing; repaired",
        ),
    ],
)
def test_a_call_missing_its_end_is_repaired_with_a_warning(
    text: str, expected: Any, warning: str
) -> None:
    action = only(text)
    assert type(action) is type(expected)
    fields = expected.model_dump(exclude_defaults=True)
    assert action.model_dump(include=set(fields)) == fields
    assert warning in action.warnings


@pytest.mark.parametrize(
    "text",
    [
        "Action: type(content='Dear Sir, I am writing to",
        "Action: click(start_box='(100,",
        "Action: drag(start_point='<point>1 2</point>', ",
        "Action: scroll(direction=do",
        "Action: wait(",
    ],
)
def test_a_call_cut_off_inside_its_arguments_is_not_executed(text: str) -> None:
    response = parse_ui_tars(text, WINDOW)
    assert response.items == ()
    assert response.truncated
    (action,) = PARSER.parse(text)
    assert isinstance(action, NullAction)


# ----------------------------------------------------------------------------- reasoning tags


@pytest.mark.parametrize(
    "text",
    [
        "<think>The search box is at the top.</think>\nAction: click(point='<point>1 2</point>')",
        "<Thought>The search box is at the top.</Thought>\n"
        "Action: click(point='<point>1 2</point>')",
        "<seed:think>The search box is at the top.</seed:think>"
        "Action: click(point='<point>1 2</point>')",
        "<think>The search box is at the top.</think>\n<computer_env>\n"
        "Action: click(point='<point>1 2</point>')\n</computer_env>",
    ],
)
def test_reasoning_tags_are_the_reasoning(text: str) -> None:
    action = only(text)
    assert action.reasoning == "The search box is at the top."


def test_a_thought_header_wins_over_a_think_block() -> None:
    response = parse_ui_tars(
        "<think>long deliberation</think>\nThought: Click Save.\n"
        "Action: click(point='<point>1 2</point>')"
    )
    assert response.think == "long deliberation"
    assert response.reasoning == "Click Save."


def test_reasoning_blocks_reader() -> None:
    assert reasoning_blocks("  <think>a</think>\n<THOUGHT> b </THOUGHT>rest") == ("a\nb", 41)
    assert reasoning_blocks("<think>never closed") == (None, 0)
    assert reasoning_blocks("no tags") == (None, 0)


# ----------------------------------------------------------------------------- omni layout


def test_omni_computer_env() -> None:
    text = (
        "<think>I should open the Downloads folder.</think>\n<computer_env>\n"
        "Action: left_double(point='<point>80 120</point>')\n</computer_env>"
    )
    action = only(text)
    assert isinstance(action, ClickAction)
    assert (action.x, action.y, action.repeat) == (80, 120, 2)
    assert action.reasoning == "I should open the Downloads folder."
    assert PARSER.parse_with_details(text).outcome == "success"


def test_omni_open_computer() -> None:
    action = only("<think>Start.</think>\n<computer_env>\nAction: open_computer()\n</computer_env>")
    assert action == OpenAppAction(app_name="computer", reasoning="Start.")


def test_omni_answer_is_finished() -> None:
    text = "<think>I have read the price.</think>\n<answer>\nThe total is $42.50.\n</answer>"
    action = only(text)
    assert isinstance(action, CompleteAction)
    assert action.message == "The total is $42.50."
    assert action.reasoning == "I have read the price."


def test_an_answer_holding_json_actions_is_read_as_json() -> None:
    action = only('<answer>{"actions": [{"action_type": "CLICK", "id": "ok"}]}</answer>')
    assert action == ClickAction(element_id="ok")


def test_answer_block_reader() -> None:
    assert answer_block("x <ANSWER> 7 </answer>", 0) == ("7", 2)
    assert answer_block("<answer>cut off", 0) == ("cut off", 0)
    assert answer_block("none here", 0) is None


def test_the_env_block_ends_the_action_section() -> None:
    text = (
        "<computer_env>\nAction: click(point='<point>5 5</point>'\n</computer_env>\n"
        "Some notes after the block: wait()"
    )
    assert names(text) == ["click"]


# ----------------------------------------------------------------------------- function-call JSON


@pytest.mark.parametrize(
    "text",
    [
        json.dumps(
            {
                "name": "scroll",
                "arguments": json.dumps({"direction": "up", "point": "<point>500 500</point>"}),
            }
        ),
        json.dumps(
            {"name": "scroll", "arguments": {"direction": "up", "point": "<point>500 500</point>"}}
        ),
        json.dumps(
            {
                "type": "function",
                "function": {
                    "name": "scroll",
                    "arguments": '{"direction": "up", "point": "<point>500 500</point>"}',
                },
            }
        ),
        '<tool_call>\n{"name": "scroll", "parameters": {"direction": "up", '
        '"point": "<point>500 500</point>"}}\n</tool_call>',
    ],
)
def test_function_call_json(text: str) -> None:
    action = only(text)
    assert isinstance(action, ScrollAction)
    assert (action.direction, action.x, action.y) == ("up", 500, 500)


def test_a_list_of_function_calls() -> None:
    text = json.dumps(
        {
            "tool_calls": [
                {"function": {"name": "click", "arguments": '{"point": "<point>10 10</point>"}'}},
                {"function": {"name": "type", "arguments": '{"content": "shoes\\n"}'}},
            ]
        }
    )
    click, typed = PARSER.parse(text)
    assert isinstance(click, ClickAction) and (click.x, click.y) == (10, 10)
    assert isinstance(typed, InputTextAction) and (typed.text, typed.submit) == ("shoes", True)


def test_a_function_call_to_a_browser_action_is_checked_like_any_action() -> None:
    ok = only('{"name": "goto_url", "arguments": "{\\"url\\": \\"docs.python.org/3/\\"}"}')
    assert ok == GotoUrlAction(url="https://docs.python.org/3/")
    refused = only('{"name": "goto_url", "arguments": {"url": "http://127.0.0.1:8000/"}}')
    assert isinstance(refused, NullAction)


def test_a_function_call_keeps_the_element_id_and_reasoning() -> None:
    text = json.dumps(
        {"name": "click", "arguments": {"element_id": "btn-7", "reasoning": "submit the form"}}
    )
    assert only(text) == ClickAction(element_id="btn-7", reasoning="submit the form")


def test_function_calls_reader() -> None:
    assert function_calls({"name": "wait", "arguments": ""}) == [("wait", {})]
    assert function_calls({"name": "Submit"}) is None  # no arguments: not a call
    assert function_calls({"action_type": "CLICK", "name": "x", "arguments": {}}) is None
    assert function_calls({"name": "click", "arguments": "{not json"}) is None
    assert function_calls([{"name": "a", "args": {}}, "text"]) is None


# ----------------------------------------------------------------------------- Seed XML


def test_seed_xml_calls() -> None:
    text = (
        "<seed:tool_call>\n<function=scroll>\n<parameter=direction>up</parameter>\n"
        "<parameter=point><point>500 500</point></parameter>\n</function>\n</seed:tool_call>"
    )
    action = only(text)
    assert isinstance(action, ScrollAction)
    assert (action.direction, action.x, action.y) == ("up", 500, 500)
    assert action.reasoning is None


def test_seed_xml_several_calls_with_reasoning() -> None:
    text = (
        "<seed:think>Fill in the city, then submit.</seed:think>"
        "<seed:tool_call><function=click><parameter=point><point>300 420</point></parameter>"
        "</function><function=type><parameter=content>Lyon\n</parameter></function>"
        "</seed:tool_call>"
    )
    click, typed = PARSER.parse(text)
    assert isinstance(click, ClickAction) and (click.x, click.y) == (300, 420)
    assert isinstance(typed, InputTextAction) and typed.text == "Lyon"
    assert click.reasoning == typed.reasoning == "Fill in the city, then submit."


def test_seed_xml_cut_off_call_is_dropped() -> None:
    calls, cut = seed_calls(
        "<function=wait></function><function=click><parameter=point><point>1", 0
    )
    assert [c.name for c in calls] == ["wait"]
    assert cut


# ----------------------------------------------------------------------------- several sections


_TWO_STEPS = (
    "Thought: First I open the menu.\nAction: click(point='<point>10 10</point>')\n\n"
    "Thought: Then I pick Settings.\nAction: click(point='<point>10 90</point>')"
)


def test_the_last_action_section_wins_by_default() -> None:
    action = only(_TWO_STEPS)
    assert isinstance(action, ClickAction)
    assert (action.y, action.reasoning) == (90, "Then I pick Settings.")


def test_multiple_all_keeps_every_section() -> None:
    first, second = ActionOutputParser(window=(1000, 1000), multiple="all").parse(_TWO_STEPS)
    assert isinstance(first, ClickAction) and isinstance(second, ClickAction)
    assert (first.y, second.y) == (10, 90)


def test_several_calls_in_the_last_section_are_all_kept() -> None:
    text = (
        "Action: click(point='<point>1 1</point>')\n"
        "Action: click(point='<point>5 5</point>')\n\ntype(content='hi')"
    )
    assert names(text) == ["click", "type"]


def test_an_empty_last_section_falls_back_to_the_one_before() -> None:
    assert names("Action: wait()\nAction: \n") == ["wait"]


# ----------------------------------------------------------------------------- press and release


def test_press_and_release_hold_a_key() -> None:
    text = (
        "Action: press(key='ctrl')\n\nclick(point='<point>20 20</point>')\n\n"
        "click(point='<point>20 60</point>')\n\nrelease(key='ctrl')"
    )
    press, _, _, release = PARSER.parse(text)
    assert isinstance(press, KeypressAction) and (press.key, press.mode) == ("ctrl", "down")
    assert isinstance(release, KeypressAction) and (release.key, release.mode) == ("ctrl", "up")


# ----------------------------------------------------------------------------- robustness


@pytest.mark.parametrize(
    "text",
    [
        "<function=f>" * 50_000,
        "<seed:tool_call><function=a><parameter=b>" * 30_000,
        "<computer_env>" * 50_000,
        "<think>" * 50_000 + "</think>",
        "<answer>" * 50_000,
        '{"name": "click", "arguments": "' + "\\" * 100_000 + '"}',
        "Action: drag(a='1' " + "b='2' " * 50_000,
        "Action: f('x' " * 50_000,
    ],
)
@pytest.mark.slow
def test_hostile_layouts_stay_fast(text: str) -> None:
    start = time.process_time()
    PARSER.parse(text)
    assert time.process_time() - start < HOSTILE_SECONDS


_LAYOUT_PIECES = st.sampled_from(
    [
        "<think>",
        "</think>",
        "<Thought>",
        "</Thought>",
        "<computer_env>",
        "</computer_env>",
        "<answer>",
        "</answer>",
        "<seed:tool_call>",
        "</seed:tool_call>",
        "<function=click>",
        "<function=type>",
        "<parameter=point>",
        "<parameter=content>",
        "</parameter>",
        "</function>",
        "<point>10 20</point>",
        "Action: ",
        "Thought: ",
        "click(",
        "drag(",
        "type(content=",
        "start_point=",
        "end_point=",
        "'",
        ")",
        " ",
        "\n",
        '{"name": "click", "arguments": ',
        '"{\\"point\\": \\"<point>1 2</point>\\"}"',
        "}",
        "hi",
    ]
)


@given(st.lists(_LAYOUT_PIECES, max_size=40).map("".join))
@settings(max_examples=200, deadline=None)
def test_any_layout_soup_gives_actions_or_a_parser_exception(text: str) -> None:
    try:
        actions = PARSER.parse(text)
    except OutputParserException:
        return
    assert isinstance(actions, list)
    response = parse_ui_tars(text, WINDOW, multiple="all")
    assert len(response.items) <= 64
