"""ActionOutputParser: the web-agent action format, the accepted JSON shapes, UI-TARS answers,
format detection, the validation pipeline, aliases, statistics, LangChain's contract, and
arbitrary text."""

from __future__ import annotations

import asyncio
import copy
import pickle
import time
from typing import Any

import pytest
from event_recorders import EventRecorder
from hypothesis import given, settings, strategies as st
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, Generation
from langchain_core.prompts import ChatPromptTemplate

from langchain_robust_parsers.engine.agents.action_json import detect_format
from langchain_robust_parsers.engine.agents.actions import (
    ACTION_TYPES,
    BaseAction,
    CheckboxAction,
    ClickAction,
    CompleteAction,
    DragAction,
    GotoUrlAction,
    InputTextAction,
    KeypressAction,
    NullAction,
    ScrollAction,
    SelectOption,
    SelectOptionAction,
    TerminateAction,
    action_adapter,
)
from langchain_robust_parsers.engine.stats import ParseStats
from langchain_robust_parsers.parsers.actions import ActionOutputParser

HOSTILE_SECONDS = 2.0
PARSER = ActionOutputParser(window=(1280, 720))


def parse(text: str, **config: Any) -> list[Any]:
    parser = ActionOutputParser(window=(1280, 720), **config) if config else PARSER
    return parser.parse(text)


# ----------------------------------------------------------------------------- web-agent actions


def test_parse_valid_json_response() -> None:
    response_content = """
    {
        "actions": [
            {
                "action_type": "CLICK",
                "element_id": "submit-btn",
                "reasoning": "Click submit to proceed"
            }
        ]
    }
    """
    details = PARSER.parse_with_details(response_content)
    assert details.actions == [
        ClickAction(element_id="submit-btn", reasoning="Click submit to proceed")
    ]
    assert details.actions[0].action_type == "CLICK"
    assert (details.format, details.outcome) == ("json", "success")


def test_recovery_from_malformed_json() -> None:
    malformed_content = """
    {
        "actions": [
            {
                "action_type": "INPUT_TEXT",
                "text": "Hello "world"",  // Unescaped quotes
                "element_id": "input-field"
            }
        ]
    """
    details = PARSER.parse_with_details(malformed_content)
    assert details.actions == [InputTextAction(element_id="input-field", text='Hello "world"')]
    assert details.outcome == "recovered"
    assert details.report is not None
    assert {"inner_quote", "comment"} <= set(details.report.repair_names)
    assert details.report.truncated  # the missing brace


def test_seed_standard_json_format() -> None:
    actions = parse(
        '{"actions": [{"action_type": "INPUT_TEXT", "element_id": "email-field", '
        '"text": "user@example.com", "reasoning": "Fill the email field with provided '
        'credentials", "confidence_float": 0.95}]}'
    )
    assert actions == [
        InputTextAction(
            element_id="email-field",
            text="user@example.com",
            reasoning="Fill the email field with provided credentials",
            confidence_float=0.95,
        )
    ]


def test_seed_ui_tars_example() -> None:
    actions = parse(
        "Thought: I need to click on the login button to proceed with authentication\n\n"
        "Action: click(start_box=(100, 200, 150, 230))"
    )
    assert actions == [
        ClickAction(
            x=160,
            y=155,
            reasoning="I need to click on the login button to proceed with authentication",
        )
    ]


# ----------------------------------------------------------------------------- JSON shapes

CLICK = '{"action_type": "CLICK", "element_id": "b1"}'
TYPE = '{"action_type": "INPUT_TEXT", "element_id": "q", "text": "shoes"}'


@pytest.mark.parametrize(
    "text",
    [
        '{"actions": [' + CLICK + ", " + TYPE + "]}",
        "[" + CLICK + ", " + TYPE + "]",
        '[{"reasoning": "fill the search", "user_goal_achieved": false}, ['
        + CLICK
        + ", "
        + TYPE
        + "]]",
        '{"Actions": [' + CLICK + ", " + TYPE + "]}",
        '```json\n{"actions": [' + CLICK + ", " + TYPE + "]}\n```",
        "Here is what I will do:\n```\n[" + CLICK + ", " + TYPE + "]\n```\nDone.",
        "<think>The search box is q.</think>\n[" + CLICK + ", " + TYPE + "]",
        "I will click and type.\n[" + CLICK + ", " + TYPE + "]",
        "{'actions': [{'action_type': 'CLICK', 'element_id': 'b1'}, {'action_type': "
        "'INPUT_TEXT', 'element_id': 'q', 'text': 'shoes',},],}",
    ],
)
def test_accepted_json_shapes(text: str) -> None:
    assert [(type(a), a.element_id) for a in parse(text)] == [
        (ClickAction, "b1"),
        (InputTextAction, "q"),
    ]


@pytest.mark.parametrize("text", [CLICK, '{"action": ' + CLICK + "}", '{"actions": ' + CLICK + "}"])
def test_a_single_action_object(text: str) -> None:
    assert parse(text) == [ClickAction(element_id="b1")]


@pytest.mark.parametrize("text", ["[]", '{"actions": []}', '```json\n{"actions": []}\n```'])
def test_a_valid_empty_list_gives_no_actions(text: str) -> None:
    assert parse(text) == []
    assert parse(text, on_error="raise") == []


def test_a_brace_in_prose_does_not_hide_the_actions() -> None:
    text = 'Fill {name} first.\n```json\n{"actions": [' + CLICK + "]}\n```"
    assert parse(text) == [ClickAction(element_id="b1")]


# ----------------------------------------------------------------------------- truncation


def test_cut_off_list_keeps_its_complete_actions() -> None:
    text = (
        '{"actions": [' + CLICK + ', {"action_type": "INPUT_TEXT", "element_id": "q", "text": "sh'
    )
    details = PARSER.parse_with_details(text)
    assert details.actions == [ClickAction(element_id="b1")]
    assert details.outcome == "recovered"
    assert "the last action was cut off and dropped" in details.notes


@pytest.mark.parametrize(
    "tail",
    [
        ', {"action_type": "SELECT_OPTION", "element_id": "c", "option": {"label": "Canada"}',
        ', {"action_type": "SELECT_OPTION", "element_id": "c", "option": {"lab',
        ', {"action_',
        ", {",
        ', "a stray str',
    ],
)
def test_the_action_being_written_when_cut_off_is_dropped(tail: str) -> None:
    assert parse('{"actions": [' + CLICK + tail) == [ClickAction(element_id="b1")]


@pytest.mark.parametrize(
    "text",
    [
        '{"actions": [' + CLICK,
        '{"actions": [' + CLICK + ",",
        '{"actions": [' + CLICK + "]",
        '{"actions": [' + CLICK + '], "user_goal_achieved": fal',
        '{"actions": [' + CLICK + '], "reasoning": "all don',
        "[" + CLICK,
        "```json\n[" + CLICK + ",\n",
    ],
)
def test_a_complete_last_action_is_kept(text: str) -> None:
    assert parse(text) == [ClickAction(element_id="b1")]


def test_cut_off_before_the_first_action_is_complete() -> None:
    actions = parse('{"actions": [{"action_type": "INPUT_TEXT", "element_id": "q", "text": "sh')
    assert len(actions) == 1
    assert isinstance(actions[0], NullAction)
    assert actions[0].reason == "the response was cut off before its first action was complete"
    with pytest.raises(OutputParserException, match="cut off"):
        parse('{"actions": [{"action_type": "CLICK", "id": "a', on_error="raise")


def test_single_cut_off_action_object_is_not_executed() -> None:
    actions = parse('{"action_type": "INPUT_TEXT", "element_id": "q", "text": "pass')
    assert isinstance(actions[0], NullAction)


def test_cut_off_with_unescaped_quotes_and_comments_before_the_cut() -> None:
    text = (
        '{"actions": [\n  {"action_type": "INPUT_TEXT", "text": "say "hi"", // greet\n'
        '   "element_id": "msg"},\n  {"action_type": "CLICK", "element_id": "se'
    )
    assert parse(text) == [InputTextAction(element_id="msg", text='say "hi"')]


# ----------------------------------------------------------------------------- UI-TARS

UI_TARS_OUTPUTS = {
    "ui-tars-1.5 point": (
        "Thought: The search field is empty; I'll click it first.\n"
        "Action: click(point='<point>512 88</point>')",
        [ClickAction(x=655, y=63)],
    ),
    "ui-tars v1 box tokens": (
        "Thought: Click the blue Sign in button.\n"
        "Action: click(start_box='<|box_start|>(833,46)<|box_end|>')",
        [ClickAction(x=1066, y=33)],
    ),
    "tuple": ("Action: left_double(start_box='(100,200)')", [ClickAction(x=128, y=144, repeat=2)]),
    "box": (
        "Action: right_single(start_box='[100,200,300,400]')",
        [ClickAction(x=256, y=216, button="right")],
    ),
    "drag": (
        "Action: drag(start_box='(100,100)', end_box='(900,900)')",
        [DragAction(x=128, y=72, end_x=1152, end_y=648)],
    ),
    "hotkey": ("Action: hotkey(key='ctrl c')", [KeypressAction(key="ctrl+c")]),
    "type and submit": (
        "Action: type(content='it\\'s done\\n')",
        [InputTextAction(text="it's done", submit=True)],
    ),
    "scroll": (
        "Action: scroll(start_box='(500,500)', direction='down')",
        [ScrollAction(direction="down", x=640, y=360)],
    ),
    "finished": (
        "Action: finished(content='The order is placed.')",
        [CompleteAction(message="The order is placed.")],
    ),
    "call_user": ("Action: call_user()", [TerminateAction(needs_user=True)]),
}


@pytest.mark.parametrize("name", list(UI_TARS_OUTPUTS))
def test_ui_tars_outputs(name: str) -> None:
    text, expected = UI_TARS_OUTPUTS[name]
    actions = parse(text)
    for action in actions:
        action.reasoning = None
    assert actions == expected


def test_ui_tars_several_actions_with_reasoning() -> None:
    text = (
        "Reflection: The form did not submit.\nAction_Summary: Type the email and press enter.\n"
        "Action: click(start_box='(500,300)')\n\ntype(content='ann@example.com\\n')"
    )
    details = PARSER.parse_with_details(text)
    assert [a.action_type for a in details.actions] == ["CLICK", "INPUT_TEXT"]
    assert details.reasoning == "The form did not submit.\nType the email and press enter."
    assert all(a.reasoning == details.reasoning for a in details.actions)
    assert (details.format, details.outcome) == ("ui_tars", "success")


def test_ui_tars_mobile_actions() -> None:
    text = (
        "Thought: Open settings and go back home.\nAction: open_app(app_name='Settings')\n"
        "long_press(start_box='(500,500)')\npress_back()\npress_home()"
    )
    actions = ActionOutputParser(window=(1080, 2400)).parse(text)
    assert [a.action_type for a in actions] == ["OPEN_APP", "CLICK", "KEYPRESS", "KEYPRESS"]
    assert actions[1] == ClickAction(x=540, y=1200, long_press=True, reasoning=actions[1].reasoning)
    assert [a.key for a in actions[2:]] == ["GoBack", "GoHome"]


def test_ui_tars_image_size_space() -> None:
    parser = ActionOutputParser(window=(1920, 1080), image_size=(1280, 720))
    assert parser.parse("Action: click(start_box='(640,360)')")[0].x == 960


def test_ui_tars_without_window_warns() -> None:
    action = ActionOutputParser().parse("Action: click(start_box='(450,320)')")[0]
    assert (action.x, action.y) == (450, 320)
    assert action.warnings == ["no window size given: coordinates are in the model's space"]


def test_ui_tars_unreadable_coordinates_give_a_null_action_with_the_reason() -> None:
    action = parse("Action: click(start_box='somewhere')")[0]
    assert isinstance(action, NullAction)
    assert action.reason == "invalid CLICK action: CLICK needs an element_id or x/y coordinates"
    assert action.warnings == ["could not read coordinates from 'somewhere'"]


def test_ui_tars_cut_off_keeps_complete_calls() -> None:
    details = PARSER.parse_with_details(
        "Thought: t\nAction: click(start_box='(1,1)')\ntype(content='hel"
    )
    assert [a.action_type for a in details.actions] == ["CLICK"]
    assert details.outcome == "recovered"


def test_ui_tars_forced_format() -> None:
    parser = ActionOutputParser(format="ui_tars", window=(100, 100))
    assert parser.parse("click(start_box='(500,500)')")[0].x == 50
    with pytest.raises(OutputParserException):
        ActionOutputParser(format="ui_tars", on_error="raise").parse(CLICK)


def test_json_forced_format_does_not_read_ui_tars() -> None:
    actions = ActionOutputParser(format="json").parse("Action: click(start_box='(1,1)')")
    assert isinstance(actions[0], NullAction)


# ----------------------------------------------------------------------------- detection


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"actions": []}', "json"),
        ('  \n[{"action_type": "CLICK"}]', "json"),
        ('<think>Thought: x</think>{"actions": []}', "json"),
        ('{"reasoning": "Thought: click(it)"}', "json"),  # JSON first, whatever it quotes
        ('```json\n{"actions": []}\n```', "markdown_json"),
        ("~~~\n[]\n~~~", "markdown_json"),
        ("Thought: x\nAction: click(start_box='(1,1)')", "ui_tars"),
        ("Action: wait()", "ui_tars"),
        ("drag(start_box='(1,1)', end_box='(2,2)')", "ui_tars"),
        ('Sure!\n```json\n{"actions": []}\n```', "markdown_json"),
        ("I cannot find the button.", "text"),
        ('Plan: {"action_type": "CLICK", "id": "a"}', "text"),
        ("", "text"),
    ],
)
def test_detect_format(text: str, expected: str) -> None:
    assert detect_format(text) == expected


def test_auto_falls_back_to_the_other_reader() -> None:
    details = PARSER.parse_with_details(
        'Thought: the button is b1.\nAction: {"action_type": "CLICK", "id": "b1"}'
    )
    assert details.actions == [ClickAction(element_id="b1")]
    assert (details.format, details.outcome) == ("ui_tars", "recovered")


# ----------------------------------------------------------------------------- validation


def test_unknown_type_becomes_a_null_action_or_raises() -> None:
    text = '{"actions": [' + CLICK + ', {"action_type": "TELEPORT", "element_id": "x"}]}'
    actions = parse(text)
    assert actions[0] == ClickAction(element_id="b1")
    assert isinstance(actions[1], NullAction)
    assert actions[1].reason == "unknown action type 'TELEPORT'"
    assert actions[1].raw == {"action_type": "TELEPORT", "element_id": "x"}
    with pytest.raises(OutputParserException, match="unknown action type 'TELEPORT'") as info:
        parse(text, on_error="raise")
    assert info.value.llm_output == text


def test_no_actions_at_all() -> None:
    actions = parse("I could not find a login button on this page.")
    assert actions == [
        NullAction(
            reason="no JSON or UI-TARS actions found in the response",
            reasoning="I could not find a login button on this page.",
        )
    ]
    assert parse('{"status": "thinking"}')[0].reason == "the response holds no actions"
    with pytest.raises(OutputParserException, match="no JSON or UI-TARS actions"):
        parse("nothing here", on_error="raise")


def test_no_actions_keeps_the_reasoning() -> None:
    (action,) = parse("Thought: The page is still loading; I'll wait for it.\nAction: ")
    assert isinstance(action, NullAction)
    assert action.reason == "the response holds no actions"
    assert action.reasoning == "The page is still loading; I'll wait for it."
    (action,) = parse("I tried [1] and it failed; there is nothing to click.")
    assert action.reasoning == "I tried [1] and it failed; there is nothing to click."
    long_text = "word " * 1000
    (action,) = parse(long_text)
    assert action.reasoning is not None
    assert len(action.reasoning) == 2000 and action.reasoning.endswith("...")


def test_item_without_type_is_a_null_action() -> None:
    actions = parse('[{"element_id": "b1", "reasoning": "hmm"}]')
    assert actions == [
        NullAction(
            element_id="b1",
            reasoning="hmm",
            reason="the action has no action_type",
            raw={"element_id": "b1", "reasoning": "hmm"},
        )
    ]


def test_elements_unknown_id_warns_or_drops() -> None:
    text = '{"actions": [' + CLICK + ', {"action_type": "CLICK", "element_id": "ghost"}]}'
    elements = {"b1": {"tag": "button"}}
    warned = parse(text, elements=elements)
    assert warned[0].warnings == []
    assert warned[1].warnings == ["element 'ghost' is not among the page's elements"]
    details = ActionOutputParser(elements=elements, drop_unknown_elements=True).parse_with_details(
        text
    )
    assert details.actions == [ClickAction(element_id="b1")]
    assert details.outcome == "recovered"
    only_ghost = parse(
        '[{"action_type": "CLICK", "element_id": "ghost"}]',
        elements=elements,
        drop_unknown_elements=True,
    )
    assert isinstance(only_ghost[0], NullAction)
    assert only_ghost[0].reason == "every action referred to an element that is not on the page"


def test_for_page_shares_stats() -> None:
    stats = ParseStats()
    page = ActionOutputParser(stats=stats).for_page({"b1": None})
    assert page.elements == {"b1": None}
    page.parse(CLICK)
    assert stats.total() == 1


@pytest.mark.parametrize(
    ("item", "reason"),
    [
        (
            {"action_type": "INPUT_TEXT", "element_id": "q"},
            "invalid INPUT_TEXT action: missing text",
        ),
        (
            {"action_type": "SELECT_OPTION", "element_id": "c"},
            "invalid SELECT_OPTION action: missing option",
        ),
        (
            {"action_type": "SELECT_OPTION", "element_id": "c", "option": {}},
            "invalid SELECT_OPTION action: option: an option needs a label, a value or an index",
        ),
        (
            {"action_type": "CHECKBOX", "element_id": "t"},
            "invalid CHECKBOX action: missing is_checked",
        ),
        (
            {"action_type": "UPLOAD_FILE", "element_id": "f"},
            "invalid UPLOAD_FILE action: missing file_url",
        ),
        ({"action_type": "SCROLL"}, "invalid SCROLL action: missing direction"),
        ({"action_type": "KEYPRESS"}, "invalid KEYPRESS action: missing key"),
        ({"action_type": "GOTO_URL"}, "invalid GOTO_URL action: missing url"),
        ({"action_type": "DRAG", "x": 1, "y": 2}, "invalid DRAG action: missing end_x, end_y"),
        ({"action_type": "OPEN_APP"}, "invalid OPEN_APP action: missing app_name"),
        (
            {"action_type": "CLICK"},
            "invalid CLICK action: CLICK needs an element_id or x/y coordinates",
        ),
        ({"action_type": "HOVER", "x": 3}, "invalid HOVER action: give both x and y, or neither"),
        (
            {"action_type": "SCROLL", "direction": "sideways"},
            "invalid SCROLL action: direction: Input should be 'up', 'down', 'left' or 'right'",
        ),
    ],
)
def test_missing_or_invalid_parameters_give_a_null_action(
    item: dict[str, Any], reason: str
) -> None:
    details = PARSER.parse_with_details(str([item]).replace("'", '"'))
    (action,) = details.actions
    assert isinstance(action, NullAction)
    assert action.reason == reason
    assert action.raw == item
    assert details.outcome == "fallback"
    # missing parameters never raise, even without the fallback
    parse(str([item]).replace("'", '"'), on_error="raise")


def test_optional_common_fields() -> None:
    assert parse('{"action_type": "CLICK", "element_id": "b1"}')[0].confidence_float is None
    action = parse('{"action_type": "CLICK", "element_id": "b1", "confidence_float": "high"}')[0]
    assert isinstance(action, ClickAction)
    assert action.warnings == ["confidence_float 'high' is not a number; ignored"]
    assert parse('{"type": "click", "id": "b", "confidence": 0.5}')[0].confidence_float == 0.5


def test_every_type_validates() -> None:
    minimal: dict[str, dict[str, Any]] = {
        "CLICK": {"element_id": "a"},
        "INPUT_TEXT": {"text": "x"},
        "SELECT_OPTION": {"element_id": "a", "option": {"index": 2}},
        "CHECKBOX": {"element_id": "a", "is_checked": True},
        "UPLOAD_FILE": {"element_id": "a", "file_url": "https://files.example.com/f.pdf"},
        "HOVER": {"element_id": "a"},
        "SCROLL": {"direction": "down"},
        "KEYPRESS": {"key": "Tab"},
        "GOTO_URL": {"url": "https://example.com"},
        "WAIT": {},
        "DRAG": {"x": 1, "y": 2, "end_x": 3, "end_y": 4},
        "SOLVE_CAPTCHA": {},
        "TERMINATE": {},
        "COMPLETE": {},
        "OPEN_APP": {"app_name": "Maps"},
        "CLOSE_PAGE": {},
        "NEW_TAB": {},
        "SWITCH_TAB": {"tab_index": 1},
        "RELOAD_PAGE": {},
        "EXTRACT": {},
        "NULL_ACTION": {},
    }
    assert set(minimal) == set(ACTION_TYPES)
    items = [{"action_type": name, **fields} for name, fields in minimal.items()]
    details = PARSER.parse_with_details(str(items))
    assert [a.action_type for a in details.actions] == list(minimal)
    assert details.outcome == "recovered"  # single quotes were repaired
    assert not any(isinstance(a, NullAction) and a.reason for a in details.actions)


# ----------------------------------------------------------------------------- aliases


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ({"action_type": "click", "id": "b1"}, ClickAction(element_id="b1")),
        ({"type": "CLICK", "id": "b1"}, ClickAction(element_id="b1")),
        ({"action": "click", "element_id": "b1"}, ClickAction(element_id="b1")),
        ({"action_type": "Click", "id": 7}, ClickAction(element_id="7")),
        (
            {"action_type": "PRESS_ENTER", "id": "q"},
            KeypressAction(element_id="q", key="Enter"),
        ),
        ({"type": "press enter"}, KeypressAction(key="Enter")),
        (
            {"action_type": "input_text", "id": "q", "text": 12345},
            InputTextAction(element_id="q", text="12345"),
        ),
        ({"action_type": "double_click", "id": "b"}, ClickAction(element_id="b", repeat=2)),
        ({"action_type": "check", "id": "t"}, CheckboxAction(element_id="t", is_checked=True)),
        ({"action_type": "goto", "url": "https://a.b"}, GotoUrlAction(url="https://a.b")),
        ({"action_type": "scroll_down"}, ScrollAction(direction="down")),
        (
            {"action_type": "select_option", "id": "c", "option": "Canada"},
            SelectOptionAction(element_id="c", option=SelectOption(label="Canada")),
        ),
        ({"action_type": "KEYPRESS", "keys": ["ctrl", "a"]}, KeypressAction(key="ctrl+a")),
        (
            {"action_type": "DRAG", "x": 1.4, "y": "2", "end_x": 3, "end_y": 4.6},
            DragAction(x=1, y=2, end_x=3, end_y=5),
        ),
    ],
)
def test_aliases(item: dict[str, Any], expected: BaseAction) -> None:
    import json

    assert parse(json.dumps([item])) == [expected]


def test_the_union_accepts_aliases_too() -> None:
    actions = action_adapter().validate_python(
        [{"type": "press_enter"}, {"action_type": "NULL_ACTION"}]
    )
    assert actions == [KeypressAction(key="Enter"), NullAction()]
    dumped = action_adapter().dump_python(actions)
    assert action_adapter().validate_python(dumped) == actions


# ----------------------------------------------------------------------------- statistics


def test_stats_table_by_detected_format() -> None:
    stats = ParseStats()
    parser = ActionOutputParser(window=(1280, 720), stats=stats)
    parser.parse('{"actions": [' + CLICK + "]}")  # json success
    parser.parse('{"actions": [' + CLICK + ",]}")  # json recovered
    parser.parse('{"actions": [{"action_type": "FLY"}]}')  # json fallback
    parser.parse('```json\n{"actions": [' + CLICK + "]}\n```")  # markdown_json success
    parser.parse("Thought: t\nAction: click(start_box='(1,1)')")  # ui_tars success
    parser.parse("Action: type(content='it's')")  # ui_tars recovered (inner quote)
    parser.parse("no idea")  # text fallback
    parser.parse("I'll do this: [" + CLICK + "]")  # text recovered
    with pytest.raises(OutputParserException):
        ActionOutputParser(stats=stats, on_error="raise").parse("still no idea")
    assert stats.snapshot() == {
        "json": {"success": 1, "recovered": 1, "fallback": 1, "failed": 0},
        "markdown_json": {"success": 1, "recovered": 0, "fallback": 0, "failed": 0},
        "text": {"success": 0, "recovered": 1, "fallback": 1, "failed": 1},
        "ui_tars": {"success": 1, "recovered": 1, "fallback": 0, "failed": 0},
    }
    assert stats.table() == (
        "Format        | Success | Recovered | Fallback | Failed | Total\n"
        "--------------+---------+-----------+----------+--------+------\n"
        "json          |   33.3% |     33.3% |    33.3% |   0.0% |     3\n"
        "markdown_json |  100.0% |      0.0% |     0.0% |   0.0% |     1\n"
        "text          |    0.0% |     33.3% |    33.3% |  33.3% |     3\n"
        "ui_tars       |   50.0% |     50.0% |     0.0% |   0.0% |     2"
    )


def test_fixed_format_keys() -> None:
    stats = ParseStats()
    parser = ActionOutputParser(format="json", stats=stats)
    parser.parse(CLICK)
    parser.parse("```json\n" + CLICK + "\n```")
    ActionOutputParser(format="ui_tars", stats=stats).parse("Action: wait()")
    assert set(stats.snapshot()) == {"json", "markdown_json", "ui_tars"}


def test_parse_report_event() -> None:
    recorder = EventRecorder()
    chain = (
        ChatPromptTemplate.from_template("{q}")
        | GenericFakeChatModel(messages=iter([AIMessage(content='{"actions": [' + CLICK + ",]}")]))
        | ActionOutputParser()
    )
    chain.invoke({"q": "go"}, config={"callbacks": [recorder]})
    ((name, data),) = recorder.events
    assert name == "parse_report"
    assert (data["format"], data["outcome"], data["parser"]) == (
        "json",
        "recovered",
        "ActionOutputParser",
    )
    assert data["repairs"][0]["name"] == "trailing_comma"


# ----------------------------------------------------------------------------- LangChain


def test_type_output_type_and_schema() -> None:
    parser = ActionOutputParser()
    assert parser._type == "robust_actions"
    schema = parser.get_output_jsonschema()
    assert schema["type"] == "array"
    names = set(schema["$defs"])
    assert {"ClickAction", "InputTextAction", "NullAction", "DragAction"} <= names


def test_chain_with_a_chat_model_sync_and_async() -> None:
    answer = "Thought: Search for shoes.\nAction: type(content='running shoes\\n')"
    model = GenericFakeChatModel(messages=iter([AIMessage(content=answer)] * 2))
    chain = ChatPromptTemplate.from_template("{goal}") | model | ActionOutputParser()
    expected = [InputTextAction(text="running shoes", submit=True, reasoning="Search for shoes.")]
    assert chain.invoke({"goal": "buy shoes"}) == expected
    assert asyncio.run(chain.ainvoke({"goal": "buy shoes"})) == expected


def test_async_parse_and_errors() -> None:
    parser = ActionOutputParser(on_error="raise")
    assert asyncio.run(parser.aparse(CLICK)) == [ClickAction(element_id="b1")]
    with pytest.raises(OutputParserException):
        asyncio.run(parser.aparse("nothing"))


def test_message_content_blocks() -> None:
    message = AIMessage(content=[{"type": "text", "text": CLICK}])
    assert PARSER.parse_result([ChatGeneration(message=message)]) == [ClickAction(element_id="b1")]


def test_partial() -> None:
    text = '{"actions": [' + CLICK + ', {"action_type": "INPUT_TEXT", "id": "q", "text": "sh'
    assert PARSER.parse_result([Generation(text=text)], partial=True) == [
        ClickAction(element_id="b1")
    ]
    assert PARSER.parse_result([Generation(text='{"actions": [{"act')], partial=True) is None


def test_pickle_and_deepcopy() -> None:
    stats = ParseStats()
    parser = ActionOutputParser(
        window=(800, 600), elements={"b1": {"tag": "button"}}, stats=stats, format="ui_tars"
    )
    parser.parse("Action: wait()")
    for clone in (pickle.loads(pickle.dumps(parser)), copy.deepcopy(parser)):
        assert clone.window == (800, 600)
        assert clone.elements == {"b1": {"tag": "button"}}
        assert clone.stats == stats
        assert clone.parse("Action: click(start_box='(500,500)')")[0].x == 400
    actions = parser.parse("Action: wait()")
    assert pickle.loads(pickle.dumps(actions)) == actions


def test_format_instructions() -> None:
    json_text = ActionOutputParser().get_format_instructions()
    assert '{"actions": [{"action_type": "CLICK"' in json_text
    for name in ACTION_TYPES:
        if name not in ("NULL_ACTION", "OPEN_APP"):
            assert f"- {name}" in json_text
    ui = ActionOutputParser(format="ui_tars").get_format_instructions()
    assert "Thought:" in ui and "type(content='text')" in ui
    assert "from 0 to 1000 on each axis" in ui
    pixels = ActionOutputParser(format="ui_tars", image_size=(1280, 720)).get_format_instructions()
    assert "pixels of the 1280x720 screenshot" in pixels


def test_separate_parses_never_share_objects() -> None:
    first = PARSER.parse(CLICK)
    first[0].warnings.append("mine")
    assert PARSER.parse(CLICK)[0].warnings == []


# ----------------------------------------------------------------------------- realistic outputs

REALISTIC: dict[str, tuple[str, list[str]]] = {
    "gpt-4o fenced with prose": (
        'I\'ll fill in the login form now.\n\n```json\n{\n  "actions": [\n    {\n'
        '      "action_type": "INPUT_TEXT",\n      "id": "email",\n'
        '      "text": "ann@example.com",\n      "reasoning": "The email field is empty.",\n'
        '      "confidence_float": 0.93\n    },\n    {\n      "action_type": "INPUT_TEXT",\n'
        '      "id": "password",\n      "text": "hunter2",\n'
        '      "reasoning": "Then the password."\n    },\n    {\n'
        '      "action_type": "CLICK",\n      "id": "submit",\n'
        '      "reasoning": "Submit the form."\n    }\n  ]\n}\n```',
        ["INPUT_TEXT", "INPUT_TEXT", "CLICK"],
    ),
    "skyvern reasoning + actions array": (
        '[{"user_goal_stage": "searching", "user_goal_achieved": false, "action_plan": '
        '"Search, then open the first result."}, [{"action_type": "INPUT_TEXT", "id": "AAAB", '
        '"text": "blue sneakers"}, {"action_type": "PRESS_ENTER", "id": "AAAB"}]]',
        ["INPUT_TEXT", "KEYPRESS"],
    ),
    "qwen3 with think and python literals": (
        "<think>\nThe cookie banner blocks the page. Accept it first.\n</think>\n\n"
        "{'actions': [{'action_type': 'CLICK', 'element_id': 'accept-cookies', "
        "'download': False, 'reasoning': None}]}",
        ["CLICK"],
    ),
    "claude with comments and trailing commas": (
        '{\n  // choose the country\n  "actions": [\n    {"action_type": "SELECT_OPTION", '
        '"element_id": "country", "option": {"label": "Canada", "value": "CA"},},\n  ],\n}',
        ["SELECT_OPTION"],
    ),
    "truncated by max_tokens": (
        '{"actions": [{"action_type": "CHECKBOX", "element_id": "terms", "is_checked": true}, '
        '{"action_type": "CLICK", "element_id": "continue"}, {"action_type": "GOTO_URL", "url": '
        '"https://exa',
        ["CHECKBOX", "CLICK"],
    ),
    "ui-tars desktop": (
        "Thought: A modal dialog asks to save changes. I'll press Save, then close the tab.\n"
        "Action: click(start_box='<|box_start|>(612,540)<|box_end|>')\n\n"
        "hotkey(key='ctrl w')",
        ["CLICK", "KEYPRESS"],
    ),
    "ui-tars completes": (
        "Thought: The confirmation page shows order #1043. The task is complete.\n"
        "Action: finished(content='Order #1043 placed.')",
        ["COMPLETE"],
    ),
    "model gives up in prose": (
        "I'm sorry, but I can't see any element that matches the requested product.",
        ["NULL_ACTION"],
    ),
}


@pytest.mark.parametrize("name", list(REALISTIC))
def test_realistic_outputs(name: str) -> None:
    text, expected = REALISTIC[name]
    assert [a.action_type for a in parse(text)] == expected


# ----------------------------------------------------------------------------- any text

_PIECES = st.sampled_from(
    [
        '{"actions": [',
        '{"action_type": "CLICK", "id": "a"}',
        '{"action_type": "INPUT_TEXT", "text": "',
        '{"type": "fly"}',
        "Thought: ",
        "Action: ",
        "click(start_box='(1,2)')",
        "type(content='",
        "```json\n",
        "```",
        "<think>",
        "</think>",
        "]",
        "}",
        ",",
        '"',
        "'",
        "\\",
        "\n",
        "// c\n",
        "null",
        "[]",
        "x",
    ]
)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_arbitrary_text_gives_actions_never_an_error(text: str) -> None:
    actions = PARSER.parse(text)
    assert actions is not None
    assert all(isinstance(a, BaseAction) for a in actions)


@settings(max_examples=200, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join), st.booleans())
def test_arbitrary_pieces_give_actions_or_output_parser_exception(
    text: str, fallback: bool
) -> None:
    parser = ActionOutputParser(
        window=(640, 480), on_error="fallback" if fallback else "raise", elements={"a": 1}
    )
    try:
        actions = parser.parse(text)
    except OutputParserException as err:
        assert not fallback
        assert err.llm_output == text
        return
    assert isinstance(actions, list)
    assert all(isinstance(a, BaseAction) for a in actions)


@pytest.mark.parametrize(
    "text",
    [
        "Action: click(start_box='(" + "1" * 5000 + ",2)')",
        "Action: click(start_box=(" + "9" * 400 + ", 2))",
        '[{"action_type": "DRAG", "x": ' + "9" * 400 + ', "y": 1, "end_x": 1, "end_y": 1}]',
        '[{"action_type": "DRAG", "x": 1e400, "y": 1, "end_x": 1, "end_y": 1}]',
        '[{"action_type": "CLICK", "id": "a", "repeat": 100000}]',
        '[{"action_type": "WAIT", "seconds": ' + "9" * 400 + "}]",
    ],
)
def test_absurd_numbers_give_null_actions(text: str) -> None:
    actions = ActionOutputParser(window=(100, 100), on_error="raise").parse(text)
    assert isinstance(actions[0], NullAction)
    assert actions[0].reason


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000,
        "{" * 100_000,
        "Action: wait(seconds=" + "1" * 5000 + ")",
        '{"actions": [' + '{"action_type": "CLICK", "id": "a"},' * 20_000,
        "Thought: x\n" * 50_000,
        "click(" * 100_000,
        "Action: type(content='" + "'x" * 50_000,
        '"' * 100_000,
        "a" * 1_000_000,
    ],
)
@pytest.mark.slow
def test_hostile_text_stays_fast(text: str) -> None:
    start = time.process_time()
    actions = PARSER.parse(text)
    assert isinstance(actions, list)
    assert time.process_time() - start < HOSTILE_SECONDS
