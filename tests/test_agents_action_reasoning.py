"""``ActionOutputParser(template_opens_reasoning=...)``: a web agent's reasoning, whose opener
the chat template wrote (the reply holds only ``</think>``), is never read as an action; parse,
invoke, streams at every chunking, async and stream prefixes all read it by one rule.

The replies are written as UI-TARS and JSON browser agents answer behind a template that ends
the prompt with ``<think>\\n``: the model plans, sometimes drafting an action it then drops.
"""

from __future__ import annotations

import asyncio
import pickle
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from langchain_core.exceptions import OutputParserException
from langchain_core.outputs import Generation

from langchain_robust_parsers import ActionOutputParser
from langchain_robust_parsers.chains.parser_config import parser_to_config
from langchain_robust_parsers.parsers.vocabulary import UnknownOptionError

OPTIONS = (None, True, False)
CHUNK_SIZES = (1, 2, 3, 5, 8, 16, 64)
WINDOW = (1000, 1000)  # a 0-1000 relative space maps onto it one to one

UI_TARS_DRAFTED = (
    "The results page is loading. Thought: search again. Action: click(start_box='(500,80)')\n"
    "No: the results are already shown, the first one is the right shoe.\n"
    "</think>\n"
    "Thought: Open the first result.\n"
    "Action: click(start_box='(320,410)')"
)
"""A UI-TARS step drafted, ``Action:`` header and all, in reasoning the template opened."""

UI_TARS_ONLY_DRAFT = (
    "I would type(content='running shoes') into the search box... wait, the user only asked "
    "what the shoes cost, and the page shows it.\n"
    "</think>\n"
    "The page already answers it: the running shoes cost $40."
)
"""Reasoning that drafts a call, then an answer with no action at all."""

JSON_DRAFTED = (
    'The cart button has id "cart". Maybe {"actions": [{"action_type": "CLICK", "id": "cart"}]}?'
    " No, the size has to be picked first.\n"
    "</think>\n"
    '{"actions": [{"action_type": "CLICK", "id": "size-42"}]}'
)
"""A JSON action list drafted in prose reasoning, then the real list."""

JSON_OPENS_WITH_DRAFT = (
    '{"actions": [{"action_type": "CLICK", "id": "cart"}]} hmm, no: the size comes first.\n'
    "</think>\n"
    '{"actions": [{"action_type": "CLICK", "id": "size-42"}]}'
)
"""Reasoning that opens with a JSON draft: auto mode reads a reply opening with JSON as the
answer (reasoning is prose), so only ``True`` skips the draft."""

NO_CLOSER = "Thought: Open the first result.\nAction: click(start_box='(320,410)')"
"""An ordinary UI-TARS answer, no reasoning marker anywhere."""


def _summary(actions: list[Any]) -> list[tuple[Any, ...]]:
    """What an agent acts on: the type and the target of each action."""
    return [
        (a.action_type, getattr(a, "x", None), getattr(a, "y", None), a.element_id) for a in actions
    ]


CLICK_FIRST_RESULT = [("CLICK", 320, 410, None)]
CLICK_SIZE = [("CLICK", None, None, "size-42")]
CLICK_CART = [("CLICK", None, None, "cart")]

EXPECTED: dict[str, tuple[str, dict[str, Any], dict[bool | None, Any]]] = {
    # name: (reply, parser fields, {option: expected summary or "none" for a NullAction})
    "ui_tars_all_sections": (
        UI_TARS_DRAFTED,
        {"multiple": "all"},
        {
            None: CLICK_FIRST_RESULT,
            True: CLICK_FIRST_RESULT,
            False: [("CLICK", 500, 80, None), *CLICK_FIRST_RESULT],
        },
    ),
    "ui_tars_last_section": (
        UI_TARS_DRAFTED,
        {},
        {None: CLICK_FIRST_RESULT, True: CLICK_FIRST_RESULT, False: CLICK_FIRST_RESULT},
    ),
    "ui_tars_only_a_draft": (
        UI_TARS_ONLY_DRAFT,
        {},
        {None: "none", True: "none", False: [("INPUT_TEXT", None, None, None)]},
    ),
    "json_drafted_in_prose": (
        JSON_DRAFTED,
        {},
        {None: CLICK_SIZE, True: CLICK_SIZE, False: CLICK_CART},
    ),
    "json_opens_with_draft": (
        JSON_OPENS_WITH_DRAFT,
        {},
        {None: CLICK_CART, True: CLICK_SIZE, False: CLICK_CART},
    ),
    "no_reasoning": (
        NO_CLOSER,
        {},
        {None: CLICK_FIRST_RESULT, True: "none", False: CLICK_FIRST_RESULT},
    ),
}
CASES = [(name, option) for name in EXPECTED for option in OPTIONS]


def _parser(fields: dict[str, Any], option: bool | None, **more: Any) -> ActionOutputParser:
    return ActionOutputParser(window=WINDOW, template_opens_reasoning=option, **fields, **more)


def _check(actions: list[Any], expected: Any) -> None:
    if expected == "none":
        assert [a.action_type for a in actions] == ["NULL_ACTION"]
    else:
        assert _summary(actions) == expected


def _chunks(text: str, size: int) -> Iterator[str]:
    return (text[i : i + size] for i in range(0, len(text), size))


async def _achunks(text: str, size: int) -> AsyncIterator[str]:
    for piece in _chunks(text, size):
        yield piece


@pytest.mark.parametrize(("name", "option"), CASES, ids=[f"{n}-{o}" for n, o in CASES])
def test_parse_reads_reasoning_by_the_option(name: str, option: bool | None) -> None:
    text, fields, expected = EXPECTED[name]
    _check(_parser(fields, option).parse(text), expected[option])


@pytest.mark.parametrize(("name", "option"), CASES, ids=[f"{n}-{o}" for n, o in CASES])
def test_every_entry_point_agrees_with_parse(name: str, option: bool | None) -> None:
    text, fields, _ = EXPECTED[name]
    parser = _parser(fields, option)
    parsed = parser.parse(text)
    assert parser.invoke(text) == parsed
    assert asyncio.run(parser.aparse(text)) == parsed
    assert asyncio.run(parser.ainvoke(text)) == parsed
    for size in CHUNK_SIZES:
        assert list(parser.transform(_chunks(text, size)))[-1] == parsed, size

        async def astreamed(size: int = size) -> list[Any]:
            return [value async for value in parser.atransform(_achunks(text, size))]

        assert asyncio.run(astreamed())[-1] == parsed, size


@pytest.mark.parametrize("option", OPTIONS, ids=str)
def test_raise_mode_refuses_a_reply_whose_only_action_was_a_draft(option: bool | None) -> None:
    parser = _parser({}, option, on_error="raise")
    if option is False:
        assert _summary(parser.parse(UI_TARS_ONLY_DRAFT)) == [("INPUT_TEXT", None, None, None)]
        return
    with pytest.raises(OutputParserException) as info:
        parser.parse(UI_TARS_ONLY_DRAFT)
    assert info.value.llm_output == UI_TARS_ONLY_DRAFT
    with pytest.raises(OutputParserException):
        asyncio.run(parser.ainvoke(UI_TARS_ONLY_DRAFT))


@pytest.mark.parametrize("option", (None, True), ids=str)
@pytest.mark.parametrize("text", (UI_TARS_DRAFTED, JSON_DRAFTED, UI_TARS_ONLY_DRAFT))
def test_a_stream_prefix_never_shows_the_drafted_step(text: str, option: bool | None) -> None:
    parser = _parser({"multiple": "all"}, option)
    final = parser.parse(text)
    drafts = {("CLICK", 500, 80, None), ("CLICK", None, None, "cart")}
    for end in range(1, len(text) + 1):
        shown = parser.parse_result([Generation(text=text[:end])], partial=True)
        if shown is None:
            continue
        assert not drafts & set(_summary(shown)), text[:end]
        assert [a.action_type for a in shown] != ["INPUT_TEXT"], text[:end]
    whole = parser.parse_result([Generation(text=text)], partial=True)
    assert whole == (None if final[0].action_type == "NULL_ACTION" else final)


def test_without_a_template_a_prefix_shows_the_actions_it_has() -> None:
    parser = _parser({}, False)
    shown = parser.parse_result([Generation(text=NO_CLOSER)], partial=True)
    assert _summary(shown) == CLICK_FIRST_RESULT


@pytest.mark.parametrize("option", OPTIONS, ids=str)
def test_the_option_pickles_and_stays_a_parser_object(option: bool | None) -> None:
    parser = ActionOutputParser(template_opens_reasoning=option)
    assert pickle.loads(pickle.dumps(parser)).template_opens_reasoning is option
    # not one of the JSON/Pydantic parsers stored as configuration: left to LangChain
    assert parser_to_config(parser) is parser
    assert parser.for_page({"b1": None}).template_opens_reasoning is option


def test_the_option_has_the_default_of_every_other_reader() -> None:
    from langchain_robust_parsers import ReActOutputParser, RobustJsonOutputParser

    for cls in (ActionOutputParser, ReActOutputParser, RobustJsonOutputParser):
        assert cls().template_opens_reasoning is None


def test_a_misspelled_option_is_refused_with_a_suggestion() -> None:
    with pytest.raises(UnknownOptionError, match="did you mean 'template_opens_reasoning'"):
        ActionOutputParser(template_open_reasoning=True)
