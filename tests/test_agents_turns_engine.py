"""The agent pipelines as pure engine functions: a web agent's answer read into actions
(engine/agents/action_reading.py) and a ReAct turn classified (engine/agents/react_turns.py),
without LangChain in the way."""

from __future__ import annotations

from langchain_robust_parsers.engine.agents.action_json import detect_format
from langchain_robust_parsers.engine.agents.action_reading import (
    ActionFailure,
    ActionParse,
    ActionReadOptions,
    read_actions,
)
from langchain_robust_parsers.engine.agents.actions import NullAction
from langchain_robust_parsers.engine.agents.gui_coordinates import CoordinateSpace
from langchain_robust_parsers.engine.agents.react import scan_react
from langchain_robust_parsers.engine.agents.react_turns import decide_turn, tool_input
from langchain_robust_parsers.engine.agents.url_safety import UrlPolicy


def _options(*, raise_on_error: bool = False) -> ActionReadOptions:
    return ActionReadOptions(
        format="auto",
        space=CoordinateSpace((1280, 800), 1000.0, None),
        multiple="last",
        url_policy=UrlPolicy(),
        raise_on_error=raise_on_error,
    )


def _read(text: str, *, raise_on_error: bool = False) -> ActionParse | ActionFailure:
    return read_actions(text, _options(raise_on_error=raise_on_error), detect_format(text))


def test_a_fenced_json_answer_gives_its_actions() -> None:
    text = (
        "I will log in first.\n```json\n"
        '{"actions": [{"action_type": "CLICK", "element_id": "login", "reasoning": "open the '
        'form", "confidence_float": 0.8}]}\n```'
    )
    parsed = _read(text)
    assert isinstance(parsed, ActionParse)
    assert [a.action_type for a in parsed.actions] == ["CLICK"]
    assert parsed.outcome in ("success", "recovered")


def test_a_ui_tars_answer_maps_its_point_to_window_pixels() -> None:
    text = "Thought: The search box is at the top.\nAction: click(start_box='(500,100)')"
    parsed = _read(text)
    assert isinstance(parsed, ActionParse)
    assert parsed.format == "ui_tars"
    assert parsed.actions[0].action_type == "CLICK"
    assert parsed.reasoning is not None and "search box" in parsed.reasoning


def test_prose_without_actions_falls_back_to_a_null_action_with_the_text_as_reasoning() -> None:
    parsed = _read("The page is still loading, so there is nothing to click yet.")
    assert isinstance(parsed, ActionParse)
    assert parsed.outcome == "fallback"
    assert isinstance(parsed.actions[0], NullAction)
    assert parsed.reasoning == "The page is still loading, so there is nothing to click yet."


def test_prose_without_actions_is_a_failure_when_errors_raise() -> None:
    failure = _read("The page is still loading.", raise_on_error=True)
    assert isinstance(failure, ActionFailure)
    assert failure.message.startswith("Failed to parse actions:")


def test_an_explicit_empty_action_list_is_no_actions_not_a_fallback() -> None:
    parsed = _read('{"actions": []}')
    assert isinstance(parsed, ActionParse)
    assert parsed.actions == []
    assert parsed.outcome == "success"


def test_a_react_action_is_one_step() -> None:
    text = 'Thought: I need the weather.\nAction: weather\nAction Input: {"city": "Lyon"}'
    turn = decide_turn(scan_react(text), text, multiple=False, plain_answer=False)
    assert turn.kind == "step"
    assert turn.steps[0].tool == "weather"
    assert turn.outcome == "success"


def test_a_json_list_of_actions_is_read_action_by_action_when_multiple() -> None:
    text = (
        '```json\n[{"action": "search", "action_input": "flights to Oslo"}, '
        '{"action": "search", "action_input": "hotels in Oslo"}]\n```'
    )
    turn = decide_turn(scan_react(text), text, multiple=True, plain_answer=False)
    assert turn.kind == "actions"
    assert [s.tool_input for s in turn.steps] == ["flights to Oslo", "hotels in Oslo"]


def test_an_answer_and_an_action_together_conflict() -> None:
    text = "Action: search\nAction Input: cats\nFinal Answer: cats are great"
    turn = decide_turn(scan_react(text), text, multiple=False, plain_answer=False)
    assert turn.kind == "conflict"
    assert turn.outcome == "failed"


def test_plain_text_is_the_answer_only_when_asked() -> None:
    text = "Paris is the capital of France."
    scan = scan_react(text)
    assert decide_turn(scan, text, multiple=False, plain_answer=False).kind == "no_step"
    turn = decide_turn(scan, text, multiple=False, plain_answer=True)
    assert (turn.kind, turn.answer, turn.outcome) == ("plain_answer", text, "fallback")


def test_tool_input_keeps_strings_and_objects_and_writes_other_json_as_text() -> None:
    assert tool_input("Oslo") == "Oslo"
    assert tool_input({"q": "Oslo"}) == {"q": "Oslo"}
    assert tool_input([1, 2]) == "[1, 2]"
    assert tool_input(None) == {}
