"""The UI-TARS reader: reasoning headers, every call and coordinate form, the coordinate spaces,
escapes in ``type(content=...)``, several actions, cut-off and malformed calls."""

from __future__ import annotations

import time
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from langchain_robust_parsers.engine.agents.ui_tars import (
    MAX_CALLS,
    CoordinateSpace,
    UiTarsResponse,
    parse_ui_tars,
    read_coordinates,
)

WINDOW = CoordinateSpace(window=(1280, 720))
HOSTILE_SECONDS = 2.0


def actions(text: str, space: CoordinateSpace = WINDOW) -> list[dict[str, Any]]:
    """The action dicts of ``text`` without their empty warning lists and reasoning."""
    out = []
    for item in parse_ui_tars(text, space).items:
        action = {k: v for k, v in item.action.items() if k != "reasoning"}
        if not action["warnings"]:
            del action["warnings"]
        out.append(action)
    return out


def one(text: str, space: CoordinateSpace = WINDOW) -> dict[str, Any]:
    found = actions(text, space)
    assert len(found) == 1, found
    return found[0]


# ----------------------------------------------------------------------------- coordinates


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("<point>500 500</point>", (640, 360)),  # UI-TARS-1.5
        ("<point>500,500</point>", (640, 360)),
        ("<|box_start|>(450,320)<|box_end|>", (576, 230)),  # UI-TARS v1 (qwen2vl tokens)
        ("<|box_start|>(100,200),(300,400)<|box_end|>", (256, 216)),  # a v1 box: its centre
        ("(450,320)", (576, 230)),
        ("(450, 320)", (576, 230)),
        ("[100, 200, 300, 400]", (256, 216)),  # a box: its centre
        ("[450,320]", (576, 230)),
        ([450, 320], (576, 230)),  # an unquoted tuple, read by Python's grammar
        ([100, 200, 300, 400], (256, 216)),
        ("<bbox>100 200 300 400</bbox>", (256, 216)),
    ],
)
def test_every_coordinate_form_maps_to_window_pixels(value: Any, expected: tuple[int, int]) -> None:
    point, warnings = read_coordinates(value, WINDOW)
    assert point == expected
    assert warnings == []


def test_image_space_coordinates_scale_from_the_screenshot_size() -> None:
    space = CoordinateSpace(window=(1920, 1080), image_size=(1280, 720))
    assert read_coordinates("(640,360)", space) == ((960, 540), [])
    assert read_coordinates("<point>1280 0</point>", space)[0] == (1919, 0)  # clamped inside


def test_custom_scale_and_fractions() -> None:
    assert read_coordinates("(50,50)", CoordinateSpace((1000, 500), scale=100))[0] == (500, 250)
    assert read_coordinates("(0.5,0.25)", WINDOW)[0] == (640, 180)  # decimals in [0, 1]
    assert read_coordinates("(1,1)", WINDOW)[0] == (1, 1)  # integers stay in the 0-1000 space


def test_without_a_window_coordinates_stay_in_the_model_space_with_a_warning() -> None:
    point, warnings = read_coordinates("(450,320)", CoordinateSpace())
    assert point == (450, 320)
    assert warnings == ["no window size given: coordinates are in the model's space"]


def test_out_of_range_coordinates_are_clamped_with_a_warning() -> None:
    point, warnings = read_coordinates("(1500,-20)", WINDOW)
    assert point == (1279, 0)
    assert warnings == ["coordinates '(1500,-20)' lie outside the model's space"]


@pytest.mark.parametrize("value", ["", "abc", "(1,2,3)", "(1,2,3,4,5,6)", None, {"x": 1}, [1, "a"]])
def test_unreadable_coordinates(value: Any) -> None:
    point, warnings = read_coordinates(value, WINDOW)
    assert point is None
    assert warnings[0].startswith("could not read coordinates from")


# ----------------------------------------------------------------------------- actions


def test_skyvern_verified_table() -> None:
    """The values measured for Skyvern's parser on a 1280x720 window, and the cases it drops
    (box tokens, an escaped quote in type, call_user), which are read here."""
    assert one("Action: click(start_box='(450,320)')") == {
        "action_type": "CLICK",
        "x": 576,
        "y": 230,
    }
    assert one("Action: click(point='<point>500 500</point>')")["x"] == 640
    assert one("Action: click(start_box='[100, 200, 300, 400]')")["y"] == 216
    drag = one(
        "Action: drag(start_point='<point>100 100</point>', end_point='<point>900 900</point>')"
    )
    assert (drag["x"], drag["y"], drag["end_x"], drag["end_y"]) == (128, 72, 1152, 648)
    assert one("Action: click(start_box='<|box_start|>(112,224)<|box_end|>')")["x"] == 143
    assert one("Action: type(content='it\\'s done\\n')") == {
        "action_type": "INPUT_TEXT",
        "text": "it's done",
        "submit": True,
    }
    assert one("Action: type(content='say 'hi' now')")["text"] == "say 'hi' now"
    assert one("Action: call_user()") == {
        "action_type": "TERMINATE",
        "message": None,
        "needs_user": True,
    }


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ("click(start_box='(500,500)')", {"action_type": "CLICK", "x": 640, "y": 360}),
        ("left_single(start_box='(500,500)')", {"action_type": "CLICK", "x": 640, "y": 360}),
        (
            "left_double(start_box='(500,500)')",
            {"action_type": "CLICK", "repeat": 2, "x": 640, "y": 360},
        ),
        (
            "right_single(start_box='(500,500)')",
            {"action_type": "CLICK", "button": "right", "x": 640, "y": 360},
        ),
        (
            "drag(start_box='(0,0)', end_box='(500,500)')",
            {"action_type": "DRAG", "x": 0, "y": 0, "end_x": 640, "end_y": 360},
        ),
        (
            "select(start_box='(0,0)', end_box='(500,500)')",
            {"action_type": "DRAG", "x": 0, "y": 0, "end_x": 640, "end_y": 360},
        ),
        ("hotkey(key='ctrl c')", {"action_type": "KEYPRESS", "key": "ctrl c"}),
        ("hotkey(hotkey='enter')", {"action_type": "KEYPRESS", "key": "enter"}),
        ("type(content='hello')", {"action_type": "INPUT_TEXT", "text": "hello", "submit": False}),
        (
            "scroll(start_box='(500,500)', direction='down')",
            {"action_type": "SCROLL", "direction": "down", "x": 640, "y": 360},
        ),
        ("scroll(direction='up')", {"action_type": "SCROLL", "direction": "up"}),
        ("wait()", {"action_type": "WAIT", "seconds": 5.0}),
        ("finished()", {"action_type": "COMPLETE", "message": None}),
        ("finished(content='Booked.')", {"action_type": "COMPLETE", "message": "Booked."}),
        ("call_user()", {"action_type": "TERMINATE", "message": None, "needs_user": True}),
        (
            "long_press(start_box='(500,500)')",
            {"action_type": "CLICK", "long_press": True, "x": 640, "y": 360},
        ),
        ("open_app(app_name='Settings')", {"action_type": "OPEN_APP", "app_name": "Settings"}),
        ("press_home()", {"action_type": "KEYPRESS", "key": "GoHome"}),
        ("press_back()", {"action_type": "KEYPRESS", "key": "GoBack"}),
        ("hover(start_box='(500,500)')", {"action_type": "HOVER", "x": 640, "y": 360}),
        (
            "goto_url(url='https://a.example')",
            {"action_type": "goto_url", "url": "https://a.example"},
        ),
    ],
)
def test_every_action(call: str, expected: dict[str, Any]) -> None:
    assert one("Thought: acting.\nAction: " + call) == expected


@pytest.mark.parametrize(
    ("content", "text", "submit"),
    [
        ("'it\\'s done\\n'", "it's done", True),  # escaped quote and newline (the prompt's rule)
        ('"say \\"hi\\""', 'say "hi"', False),
        ("'line one\\nline two'", "line one\nline two", False),
        ("'query\\n\\n'", "query", True),
        ("'say 'hi' now'", "say 'hi' now", False),  # unescaped inner quotes
        ("'don't stop'", "don't stop", False),
        ("'typed\n'", "typed", True),  # a literal line break before the closing quote
        ("'typed\\\\n'", "typed", True),  # the escape escaped: still meant as a newline
        ("'C:\\\\dir'", "C:\\dir", False),
        ("''", "", False),
        ("'tab\\there'", "tab\there", False),
    ],
)
def test_type_content_escapes(content: str, text: str, submit: bool) -> None:
    action = one(f"Action: type(content={content})")
    assert (action["text"], action["submit"]) == (text, submit)


def test_unquoted_box_tokens_and_tuples() -> None:
    assert one("Action: click(start_box=<|box_start|>(100,200)<|box_end|>)")["x"] == 128
    assert one("Action: click(start_box=(100, 200, 150, 230))")["x"] == 160
    assert one("Action: click(start_box=[100, 200])")["y"] == 144


def test_positional_arguments() -> None:
    assert one("Action: click('(500,500)')")["x"] == 640
    assert one("Action: hotkey('ctrl v')")["key"] == "ctrl v"
    assert one("Action: type('hi\\n')")["submit"] is True
    assert one("Action: scroll('(500,500)', 'down')")["direction"] == "down"


def test_several_actions() -> None:
    text = (
        "Thought: Fill the form and submit it.\n"
        "Action: click(start_box='(100,100)')\n\n"
        "type(content='alice@example.com')\n"
        "hotkey(key='enter'); wait()"
    )
    found = actions(text)
    assert [a["action_type"] for a in found] == ["CLICK", "INPUT_TEXT", "KEYPRESS", "WAIT"]
    response = parse_ui_tars(text, WINDOW)
    assert all(i.action["reasoning"] == response.thought for i in response.items)


def test_several_action_sections_the_last_wins_by_default() -> None:
    text = "Thought: a\nAction: click(start_box='(1,1)')\nThought: b\nAction: press_back()"
    response = parse_ui_tars(text, WINDOW)
    assert [i.call.name for i in response.items] == ["press_back"]
    assert response.thought == "b"
    assert response.items[0].action["reasoning"] == "b"


def test_several_action_sections_all_kept_on_request() -> None:
    text = "Thought: a\nAction: click(start_box='(1,1)')\nThought: b\nAction: press_back()"
    response = parse_ui_tars(text, WINDOW, multiple="all")
    assert [i.call.name for i in response.items] == ["click", "press_back"]
    assert response.thought == "a"


def test_calls_are_capped() -> None:
    text = "Action: " + "wait()\n" * (MAX_CALLS + 10)
    response = parse_ui_tars(text, WINDOW)
    assert len(response.items) == MAX_CALLS
    assert "too_many_calls" in [r.name for r in response.repairs]


# ----------------------------------------------------------------------------- reasoning


def test_thought() -> None:
    response = parse_ui_tars(
        "Thought: The login button is at the top.\nAction: click(start_box='(1,2)')"
    )
    assert response.thought == "The login button is at the top."
    assert response.reasoning == "The login button is at the top."
    assert response.repairs == ()


def test_reflection_and_action_summary() -> None:
    response = parse_ui_tars(
        "Reflection: The last click opened the wrong menu.\n"
        "Action_Summary: Close it and click Settings.\n"
        "Action: click(start_box='(10,10)')"
    )
    assert response.reflection == "The last click opened the wrong menu."
    assert response.action_summary == "Close it and click Settings."
    assert response.reasoning == (
        "The last click opened the wrong menu.\nClose it and click Settings."
    )


@pytest.mark.parametrize(
    "text",
    [
        "**Thought:** Click it.\n**Action:** click(start_box='(1,2)')",
        "## Thought: Click it.\n## Action: click(start_box='(1,2)')",
        "thought: Click it.\naction: click(start_box='(1,2)')",
        "Thought：Click it.\nAction：click(start_box='(1,2)')",  # full-width colons
        "Thought: Click it. Action: click(start_box='(1,2)')",  # one line
        "<think>the user wants me to log in</think>\nThought: Click it.\n"
        "Action: click(start_box='(1,2)')",
    ],
)
def test_header_variants(text: str) -> None:
    response = parse_ui_tars(text, WINDOW)
    assert response.thought == "Click it."
    assert [i.call.name for i in response.items] == ["click"]


def test_text_before_the_action_is_the_reasoning_when_there_is_no_header() -> None:
    response = parse_ui_tars("I will open the menu.\nAction: click(start_box='(1,2)')")
    assert response.reasoning == "I will open the menu."


def test_header_words_inside_type_content_do_not_split_the_action() -> None:
    found = actions("Thought: t\nAction: type(content='my Thought: hi Action: x')")
    assert found[0]["text"] == "my Thought: hi Action: x"


# ----------------------------------------------------------------------------- repairs


def test_without_action_marker_only_known_calls_count() -> None:
    response = parse_ui_tars("We could compute f(x) here, then click(start_box='(1,2)').")
    assert [i.call.name for i in response.items] == ["click"]
    assert [r.name for r in response.repairs] == ["no_action_marker"]
    assert response.reasoning == "We could compute f(x) here, then"


def test_cut_off_call_is_dropped_and_earlier_ones_kept() -> None:
    response = parse_ui_tars(
        "Thought: t\nAction: click(start_box='(1,2)')\ntype(content='hello wor", WINDOW
    )
    assert [i.call.name for i in response.items] == ["click"]
    assert response.truncated
    assert "truncated_call_dropped" in [r.name for r in response.repairs]


def test_missing_closing_parenthesis_before_a_new_line() -> None:
    found = actions("Action: click(start_box='(500,500)'\nwait()")
    assert [a["action_type"] for a in found] == ["CLICK", "WAIT"]


def test_unknown_call_in_action_section_is_passed_on() -> None:
    assert one("Action: teleport(to='mars')") == {"action_type": "teleport", "to": "mars"}


def test_a_quote_that_never_ends_its_string_reads_as_cut_off() -> None:
    """Text after a closing quote (``'(1,2)' junk)``) makes the quote an inner one; the string
    then runs to the end, like a cut-off answer, and nothing half-read is executed."""
    response = parse_ui_tars("Action: click(start_box='(1,2)' junk) wait()", WINDOW)
    assert response.items == ()
    assert response.truncated


def test_no_calls() -> None:
    assert parse_ui_tars("Thought: nothing to do\nAction: ") == UiTarsResponse(
        thought="nothing to do", has_action_marker=True
    )


# ----------------------------------------------------------------------------- robustness

_FRAGMENTS = st.sampled_from(
    [
        "Thought: ",
        "Action: ",
        "Reflection: ",
        "Action_Summary: ",
        "click(",
        "type(content=",
        "drag(",
        "start_box=",
        "'",
        '"',
        "\\",
        "(",
        ")",
        "[",
        "]",
        ",",
        "=",
        "\n",
        " ",
        "<point>",
        "</point>",
        "<|box_start|>",
        "<|box_end|>",
        "100",
        "0.5",
        "-3",
        "x",
        "<think>",
        "</think>",
    ]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_FRAGMENTS, max_size=40).map("".join))
def test_any_fragment_soup_reads_without_error(text: str) -> None:
    response = parse_ui_tars(text, WINDOW)
    for item in response.items:
        assert isinstance(item.action["action_type"], str)
        assert item.call.start < item.call.end <= len(text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_any_text_reads_without_error(text: str) -> None:
    parse_ui_tars(text, WINDOW)


@pytest.mark.parametrize(
    "text",
    [
        "click(" * 50_000,
        "Action: " + "a(" * 50_000,
        "Action: type(content='" + "'x" * 50_000,
        "Action: f('" + "', x='" * 50_000,
        "Thought: x\n" * 50_000,
        "Action:" * 50_000,
        "Action: click(start_box=" + "<(" * 50_000,
        "Action: " + "f('a' b " * 50_000,
    ],
)
@pytest.mark.slow
def test_hostile_text_stays_fast(text: str) -> None:
    start = time.process_time()
    parse_ui_tars(text, WINDOW)
    assert time.process_time() - start < HOSTILE_SECONDS
