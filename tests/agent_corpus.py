"""Realistic agent replies for the cross-entry-point tests: ReAct (LangChain's text and JSON
layouts, LlamaIndex's, a smolagents-style JSON blob), web-agent JSON actions and UI-TARS calls,
each with what it must read as, and every reasoning form models write in front of them.

Each reasoning block holds a decoy in the reader's own format (a ``Final Answer:``, an
``Answer:`` line, an action JSON, a click), which no entry point may ever return or yield.
The cases were written for these tests from the layouts' documentation.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from reasoning_forms import FORMS as ALL_FORMS, HEADLESS, NO_REASONING, Form

FORMS = (NO_REASONING, *(f for f in ALL_FORMS if f is not HEADLESS))
"""The forms the action readers are tested behind: the headless form is left out, since the
web-agent and UI-TARS readers have no ``template_opens_reasoning`` yet and read a step drafted
before a lone closing marker as a real one."""
REACT_FORMS = (NO_REASONING, *ALL_FORMS)
"""The forms ReAct is tested behind: all of them; its auto mode holds a reply back until it
knows whether the chat template opened reasoning (``template_opens_reasoning``)."""
"""Every reasoning form of ``engine/lexicon/reasoning.py``, as its model family writes it."""

DECOY = "Madrid"
"""A word that appears only inside reasoning: never in an answer, an action or a value."""

REACT_DECOY = (
    "The user asked about Spain. Final Answer: Madrid?\n"
    'Or maybe Action: {"action": "search", "action_input": "Madrid"}\n'
    "Answer: Madrid\n"
    "No, I should follow the instructions below."
)
"""Reasoning that holds a step of every ReAct layout, all about the decoy."""

PLAIN_REASONING = "The user wants the answer below; nothing here decides it."
"""Reasoning without markup: a headless block (no opener) is only known at its closer, so a
stream can hold back nothing before it; its text must simply not decide the step."""


@dataclass(frozen=True)
class Finish:
    """An ``AgentFinish`` with this output."""

    output: Any


@dataclass(frozen=True)
class Act:
    """An ``AgentAction`` of this tool and input."""

    tool: str
    tool_input: Any


@dataclass(frozen=True)
class Fails:
    """An ``OutputParserException`` whose observation is this."""

    observation: str


Expected = Finish | Act | Fails


@dataclass(frozen=True)
class ReActCase:
    name: str
    reply: str
    expected: Expected


MISSING_ACTION = "Invalid Format: Missing 'Action:' after 'Thought:'"
BOTH = (
    "Invalid Format: the reply holds both a 'Final Answer' and an 'Action'. "
    "Write either one action (and wait for its observation) or the final answer."
)

REACT_CASES = (
    ReActCase(
        "classic-action",
        "Thought: I should check the forecast before answering.\n"
        "Action: get_weather\nAction Input: Lisbon, Portugal",
        Act("get_weather", "Lisbon, Portugal"),
    ),
    ReActCase(
        "classic-finish",
        "Thought: I now know the final answer.\n"
        "Final Answer: Lisbon will be sunny tomorrow, 24 °C, with a light breeze.",
        Finish("Lisbon will be sunny tomorrow, 24 °C, with a light breeze."),
    ),
    ReActCase(
        "prose-around-action",
        "Sure, let me look that up for you.\n\n"
        "Thought: the user needs today's exchange rate\n"
        "Action: currency_rate\nAction Input: EUR to JPY\n"
        "Observation: 1 EUR = 162.3 JPY\nThought: done",
        Act("currency_rate", "EUR to JPY"),
    ),
    ReActCase(
        "bold-multiline-finish",
        "**Thought:** I have both prices.\n"
        "**Final Answer:** The train is cheaper:\n\n1. Train: €39\n2. Flight: €84\n\n"
        "Book a week ahead for the best fares.",
        Finish(
            "The train is cheaper:\n\n1. Train: €39\n2. Flight: €84\n\n"
            "Book a week ahead for the best fares."
        ),
    ),
    ReActCase(
        "llamaindex-action",
        "Thought: The current language of the user is: English. I need to use a tool to help "
        "me answer the question.\nAction: multiply (multiply two integers)\n"
        'Action Input: {"a": 6, "b": 7}',
        Act("multiply", '{"a": 6, "b": 7}'),
    ),
    ReActCase(
        "llamaindex-answer",
        "Thought: I can answer without using any more tools. I'll use the user's language to "
        "answer.\nAnswer: 6 × 7 = 42.",
        Finish("6 × 7 = 42."),
    ),
    ReActCase(
        "json-fenced-action",
        "Thought: I'll search for flights first.\nAction:\n```json\n"
        '{"action": "search_flights", "action_input": {"from": "LIS", "to": "OSL", '
        '"date": "2026-12-20"}}\n```',
        Act("search_flights", {"from": "LIS", "to": "OSL", "date": "2026-12-20"}),
    ),
    ReActCase(
        "json-escaped-finish",
        "Thought: I can reply now.\n```json\n"
        '{"action": "Final Answer", "action_input": "Two lines:\\nshe said \\"oui\\" '
        '\\u00e0 Paris \\ud83d\\ude00"}\n```',
        Finish('Two lines:\nshe said "oui" à Paris 😀'),
    ),
    ReActCase(
        "smolagents-blob",
        "Thought: I need the population figure.\nAction:\n{\n"
        '  "name": "web_search",\n  "arguments": {"query": "population of Lima 2025"}\n}',
        Act("web_search", {"query": "population of Lima 2025"}),
    ),
    ReActCase(
        "wrapped-input",
        "Thought: compute it exactly.\nAction: calculator\n"
        'Action Input: Calculator({"expression": "2**10 + 3"})',
        Act("calculator", '{"expression": "2**10 + 3"}'),
    ),
    ReActCase(
        "unclosed-input",
        'Thought: fetch the user.\nAction: lookup_user\nAction Input: {"id": 42, "fields": '
        '["name", "email"',
        Act("lookup_user", '{"id": 42, "fields": ["name", "email"]}'),
    ),
    ReActCase(
        "both",
        "Thought: search first\nAction: search\nAction Input: cat breeds\n"
        "Final Answer: there are many cat breeds",
        Fails(BOTH),
    ),
    ReActCase(
        "no-step",
        "I am not sure which tool fits here, could you tell me more about the trip?",
        Fails(MISSING_ACTION),
    ),
)


@dataclass(frozen=True)
class ActionCase:
    """A web agent's reply and the ``action_type`` of each action it must give."""

    name: str
    reply: str
    types: tuple[str, ...]


ACTION_DECOY = (
    "The page shows a cookie banner. Maybe Action: click(start_box='(5,5)') on Madrid? "
    '{"actions": [{"action_type": "GOTO_URL", "url": "https://madrid.example"}]} No.'
)
"""Reasoning holding a UI-TARS call and a JSON action list, both about the decoy."""

ACTION_CASES = (
    ActionCase(
        "ui-tars-click",
        "Thought: The search box is at the top of the page; I'll click it first.\n"
        "Action: click(start_box='(512,88)')",
        ("CLICK",),
    ),
    ActionCase(
        "ui-tars-type",
        "Thought: Now I type the query and submit it.\n"
        "Action: type(content='weekend trips from Lisbon\\n')",
        ("INPUT_TEXT",),
    ),
    ActionCase(
        "json-fenced",
        "I will accept the cookies, then open the deals page.\n```json\n"
        '{"actions": [{"action_type": "CLICK", "id": "accept"}, '
        '{"action_type": "GOTO_URL", "url": "https://travel.example/deals"}]}\n```',
        ("CLICK", "GOTO_URL"),
    ),
    ActionCase(
        "json-bare-list",
        '[{"action_type": "SCROLL", "direction": "down"}]\nScrolling to see more results.',
        ("SCROLL",),
    ),
)


def react_texts() -> Iterator[tuple[str, Form, ReActCase, str]]:
    """``(id, form, case, text)`` for every ReAct case behind every reasoning form."""
    for form in REACT_FORMS:
        reasoning = REACT_DECOY
        for case in REACT_CASES:
            text = form.wrap(reasoning, case.reply) if form.open or form.close else case.reply
            yield f"{form.name}-{case.name}", form, case, text


def action_texts() -> Iterator[tuple[str, Form, ActionCase, str]]:
    """``(id, form, case, text)`` for every web-agent case behind every reasoning form."""
    for form in FORMS:
        reasoning = PLAIN_REASONING if form.name == "headless" else ACTION_DECOY
        for case in ACTION_CASES:
            text = form.wrap(reasoning, case.reply) if form.open or form.close else case.reply
            yield f"{form.name}-{case.name}", form, case, text


_TOKEN = re.compile(r"\s+|\w+|[^\w\s]")
"""A tokenizer's way of cutting text: runs of blanks, words, one punctuation mark at a time, so
a marker such as ``<|channel|>`` or ``Final Answer:`` arrives in several pieces."""

_SPECIAL = re.compile(
    r"(<\|[^<>|]*\|>|<\|[^<>|]*>|<[^<>|]*\|>|</?[\w:|]+(?: [^<>]*)?>|\[/?THINK\])"
)
"""Special tokens of the chat templates, whole: the other way a serving engine streams them."""


def token_splits(text: str) -> Iterator[list[str]]:
    """Two token-like chunkings: punctuation by punctuation, and special tokens whole."""
    yield _TOKEN.findall(text)
    yield [piece for piece in _SPECIAL.split(text) if piece]


def fixed_chunks(text: str, n: int) -> list[str]:
    return [text[i : i + n] for i in range(0, len(text), n)]
