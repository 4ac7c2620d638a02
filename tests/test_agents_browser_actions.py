"""Browser actions as Skyvern-like agents write them: tabs, reloads, extraction, repeats, the
intention and context fields, ``download`` on select, and ``null`` meaning "the default"."""

from __future__ import annotations

import json
from typing import Any

import pytest

from langchain_robust_parsers import ActionOutputParser
from langchain_robust_parsers.engine.agents.actions import (
    ClickAction,
    ClosePageAction,
    ExtractAction,
    InputTextAction,
    KeypressAction,
    NewTabAction,
    NullAction,
    ReloadPageAction,
    SelectOption,
    SelectOptionAction,
    SwitchTabAction,
    action_adapter,
    build_action,
)

PARSER = ActionOutputParser()


def one(item: dict[str, Any]) -> Any:
    (action,) = PARSER.parse(json.dumps({"actions": [item]}))
    return action


# ----------------------------------------------------------------------------- tabs and pages


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ({"action_type": "CLOSE_PAGE"}, ClosePageAction()),
        ({"action_type": "close_tab", "reasoning": "the popup is done"}, None),
        ({"action_type": "RELOAD_PAGE"}, ReloadPageAction()),
        ({"action_type": "refresh"}, ReloadPageAction()),
        ({"type": "reload"}, ReloadPageAction()),
        ({"action_type": "NEW_TAB"}, NewTabAction()),
        ({"action_type": "open_tab", "url": "https://news.example.com"}, None),
        ({"action_type": "SWITCH_TAB", "tab_index": 0}, SwitchTabAction(tab_index=0)),
        ({"action_type": "switch_tab", "tab": "2"}, SwitchTabAction(tab_index=2)),
        ({"action": "change_tab", "page_id": 1}, SwitchTabAction(tab_index=1)),
    ],
)
def test_tab_and_page_actions(item: dict[str, Any], expected: Any) -> None:
    action = one(item)
    if expected is None:
        assert not isinstance(action, NullAction), action
    else:
        assert action == expected


def test_close_tab_keeps_its_reasoning() -> None:
    action = one({"action_type": "close_tab", "reasoning": "the popup is done"})
    assert action == ClosePageAction(reasoning="the popup is done")


def test_new_tab_url_is_normalised() -> None:
    action = one({"action_type": "open_tab", "url": "news.example.com/today"})
    assert action == NewTabAction(url="https://news.example.com/today")


@pytest.mark.parametrize(
    "item",
    [
        {"action_type": "SWITCH_TAB"},
        {"action_type": "SWITCH_TAB", "tab_index": -1},
        {"action_type": "SWITCH_TAB", "tab_index": "the second one"},
    ],
)
def test_switch_tab_needs_a_tab_index(item: dict[str, Any]) -> None:
    action = one(item)
    assert isinstance(action, NullAction)
    assert action.reason is not None and "SWITCH_TAB" in action.reason


# ----------------------------------------------------------------------------- extraction


@pytest.mark.parametrize("name", ["EXTRACT", "EXTRACT_INFORMATION", "extract_information"])
def test_extract_and_its_alias(name: str) -> None:
    action = one(
        {
            "action_type": name,
            "data_extraction_goal": "the order number and the delivery date",
            "data_extraction_schema": {"order": "string", "date": "string"},
        }
    )
    assert isinstance(action, ExtractAction)
    assert action.data_extraction_goal == "the order number and the delivery date"
    assert action.data_extraction_schema == {"order": "string", "date": "string"}


def test_extract_goal_under_another_key() -> None:
    action = one({"action_type": "EXTRACT", "goal": "all prices on the page"})
    assert action == ExtractAction(data_extraction_goal="all prices on the page")


# ----------------------------------------------------------------------------- repeats


def test_double_click_is_a_click_repeated_twice() -> None:
    action = one({"action_type": "double_click", "id": "row-3"})
    assert action == ClickAction(element_id="row-3", repeat=2)


@pytest.mark.parametrize(
    ("item", "key", "repeat"),
    [
        ({"action_type": "KEYPRESS", "key": "ArrowDown", "repeat": 5}, "ArrowDown", 5),
        ({"action_type": "press_key", "key": "Tab", "times": 3}, "Tab", 3),
        ({"action_type": "KEYPRESS", "keys": ["Backspace"], "count": "12"}, "Backspace", 12),
        ({"action_type": "press_enter"}, "Enter", 1),
    ],
)
def test_key_repeat(item: dict[str, Any], key: str, repeat: int) -> None:
    action = one(item)
    assert isinstance(action, KeypressAction)
    assert (action.key, action.repeat) == (key, repeat)


def test_a_runaway_key_repeat_is_refused() -> None:
    action = one({"action_type": "KEYPRESS", "key": "ArrowDown", "repeat": 100_000})
    assert isinstance(action, NullAction)


# ----------------------------------------------------------------------------- intention, context


def test_click_intention_and_context() -> None:
    action = one(
        {
            "action_type": "CLICK",
            "id": "AAAB",
            "intention": "open the shipping options",
            "context": "a button labelled 'Shipping' under the cart total",
        }
    )
    assert isinstance(action, ClickAction)
    assert action.intention == "open the shipping options"
    assert action.context == "a button labelled 'Shipping' under the cart total"


def test_intent_and_input_or_select_context_spellings() -> None:
    action = one(
        {
            "action_type": "INPUT_TEXT",
            "id": "zip",
            "text": 75001,
            "intent": "fill the postcode",
            "input_or_select_context": {"field": "postcode", "required": True},
        }
    )
    assert isinstance(action, InputTextAction)
    assert action.text == "75001"
    assert action.intention == "fill the postcode"
    assert action.context == "{'field': 'postcode', 'required': True}"


# ----------------------------------------------------------------------------- select


def test_download_on_select() -> None:
    action = one(
        {"action_type": "SELECT_OPTION", "id": "fmt", "option": {"value": "pdf"}, "download": True}
    )
    assert isinstance(action, SelectOptionAction)
    assert action.download is True
    assert action.option == SelectOption(value="pdf")


@pytest.mark.parametrize("option", ["California", "CA", "2"])
def test_a_string_option_is_a_label(option: str) -> None:
    action = one({"action_type": "SELECT_OPTION", "id": "state", "option": option})
    assert isinstance(action, SelectOptionAction)
    assert action.option == SelectOption(label=option)


# ----------------------------------------------------------------------------- null = default


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        (
            {"action_type": "CLICK", "id": "1", "download": None},
            ClickAction(element_id="1"),
        ),
        (
            {
                "action_type": "CLICK",
                "id": "1",
                "button": None,
                "repeat": None,
                "file_url": None,
                "reasoning": None,
                "confidence_float": None,
                "x": None,
                "y": None,
            },
            ClickAction(element_id="1"),
        ),
        (
            {"action_type": "INPUT_TEXT", "id": "q", "text": "boots", "submit": None},
            InputTextAction(element_id="q", text="boots"),
        ),
        (
            {"action_type": "SELECT_OPTION", "id": "s", "option": "M", "download": None},
            SelectOptionAction(element_id="s", option=SelectOption(label="M")),
        ),
        (
            {"action_type": "KEYPRESS", "key": "Escape", "repeat": None, "mode": None},
            KeypressAction(key="Escape"),
        ),
        ({"action_type": "NEW_TAB", "url": None}, NewTabAction()),
    ],
)
def test_null_in_an_optional_field_means_its_default(item: dict[str, Any], expected: Any) -> None:
    assert one(item) == expected


def test_null_in_a_required_field_says_it_is_missing() -> None:
    action = one({"action_type": "INPUT_TEXT", "id": "q", "text": None})
    assert isinstance(action, NullAction)
    assert action.reason == "invalid INPUT_TEXT action: missing text"


# ----------------------------------------------------------------------------- schema


def test_the_output_schema_names_every_new_type() -> None:
    schema = json.dumps(PARSER.get_output_jsonschema())
    for name in ("CLOSE_PAGE", "NEW_TAB", "SWITCH_TAB", "RELOAD_PAGE", "EXTRACT"):
        assert name in schema


def test_new_actions_round_trip_through_json() -> None:
    actions = [
        build_action(item).action
        for item in (
            {"action_type": "SWITCH_TAB", "tab_index": 3},
            {"action_type": "EXTRACT", "goal": "the title"},
            {"action_type": "NEW_TAB", "url": "https://example.org/"},
        )
    ]
    adapter = action_adapter()
    dumped = adapter.dump_json(actions)  # type: ignore[arg-type]
    assert adapter.validate_json(dumped) == actions


def test_a_bare_close_is_not_taken_for_closing_the_page() -> None:
    # "close" may mean a cookie banner or a dialog: closing the whole tab would lose the task.
    action = one({"action_type": "close", "id": "banner-x"})
    assert isinstance(action, NullAction)
    assert action.reason == "unknown action type 'close'"
    assert action.element_id == "banner-x"
