"""Every reader agrees on reasoning: text inside a reasoning block is never the answer, a call or
an action, whichever parser reads it, invoked or streamed at any chunking.

Each form is written the way its model family writes it; the reasoning holds a decoy in the
reader's own format (a JSON object, a ``Final Answer:``, a tool call, a list, an XML element)
and the answer after it holds the real one.
"""

from __future__ import annotations

import ast
import json
import pickle
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_chat_models import ScriptedChatModel
from langchain_core.agents import AgentAction, AgentFinish
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration
from pydantic import BaseModel
from reasoning_forms import FORM_IDS, FORMS, Form
from source_walk import docstring_ids
from tool_calling_fakes import get_weather

from langchain_robust_parsers import (
    ActionOutputParser,
    FunctionCallOutputParser,
    ReActOutputParser,
    RobustCommaSeparatedListOutputParser,
    RobustJsonOutputParser,
    RobustJsonOutputToolsParser,
    RobustMarkdownListOutputParser,
    RobustPydanticOutputParser,
    RobustXMLOutputParser,
    TextToolCallAdapter,
    TextToolCallingChatModel,
    loads,
)
from langchain_robust_parsers.engine.calls.dialects import decode_calls
from langchain_robust_parsers.engine.lexicon.reasoning import split_reasoning

CHUNK_SIZES = (1, 2, 3, 5, 8, 16, 64)

_MARKER_SPLIT = re.compile(r"(<[^<>]*>|\[/?THINK\])")


def chunkings(text: str) -> Iterator[list[str]]:
    """The text cut every ``n`` characters, and cut at every marker boundary (as tokens)."""
    for n in CHUNK_SIZES:
        yield [text[i : i + n] for i in range(0, len(text), n)]
    yield [piece for piece in _MARKER_SPLIT.split(text) if piece]


# ----------------------------------------------------------------------------- JSON

JSON_THOUGHT = 'The user wants a city. Maybe {"city": "Oslo", "days": 2}? No, Paris fits.'
JSON_ANSWER = '{"city": "Paris", "days": 3}'
JSON_VALUE = {"city": "Paris", "days": 3}


def _is_state_of(value: Any, final: Any) -> bool:
    """Whether a streamed ``value`` is a state on the way to ``final`` (a prefix of it)."""
    if isinstance(value, dict) and isinstance(final, dict):
        return all(k in final and _is_state_of(v, final[k]) for k, v in value.items())
    if isinstance(value, list) and isinstance(final, list):
        return len(value) <= len(final) and all(map(_is_state_of, value, final))
    if isinstance(value, str) and isinstance(final, str):
        return final.startswith(value)
    return bool(value == final)


@pytest.mark.parametrize("form", FORMS, ids=FORM_IDS)
def test_json_readers_skip_reasoning(form: Form) -> None:
    text = form.wrap(JSON_THOUGHT, JSON_ANSWER)
    assert loads(text) == JSON_VALUE
    assert RobustJsonOutputParser().parse(text) == JSON_VALUE

    class Trip(BaseModel):
        city: str
        days: int

    assert RobustPydanticOutputParser(pydantic_object=Trip).parse(text) == Trip(
        city="Paris", days=3
    )


@pytest.mark.parametrize("form", FORMS, ids=FORM_IDS)
def test_json_stream_yields_only_states_of_the_answer(form: Form) -> None:
    text = form.wrap(JSON_THOUGHT, JSON_ANSWER)
    parser = RobustJsonOutputParser()
    for chunks in chunkings(text):
        values = list(parser.transform(iter(chunks)))
        assert values, chunks
        assert values[-1] == JSON_VALUE, chunks
        for value in values:
            assert _is_state_of(value, JSON_VALUE), (value, chunks)


def _first_value_at(text: str, size: int = 4) -> tuple[int, int]:
    """How many chunks a JSON stream had read when it yielded its first value, of how many."""
    chunks = [text[i : i + size] for i in range(0, len(text), size)]
    read = 0

    def feed() -> Iterator[str]:
        nonlocal read
        for chunk in chunks:
            read += 1
            yield chunk

    for _ in RobustJsonOutputParser().transform(feed()):
        return read, len(chunks)
    raise AssertionError("no value")


def test_json_stream_shows_an_answer_that_opens_with_json_at_once() -> None:
    """An answer opening with a payload is no reasoning (reasoning is prose): it streams."""
    for text in (
        json.dumps({"city": "Paris", "stops": [f"stop {n}" for n in range(40)]}),
        "```json\n" + json.dumps({"city": "Paris", "stops": ["Louvre"] * 40}) + "\n```",
    ):
        read, total = _first_value_at(text)
        assert read < total / 4


LONG_THOUGHT = (
    "Let me think about which city suits a short trip in spring. Maybe "
    + json.dumps({"city": "Madrid", "stops": ["Prado"]})
    + " would do, but the user said France.\n"
) * 80
"""Template-opened reasoning far longer than a few thousand characters, with JSON inside."""


def test_json_stream_never_shows_json_from_long_template_opened_reasoning() -> None:
    """However long the reasoning before a lone closer, none of its JSON is yielded: a stream
    holds prose back until it knows, as a complete parse reads it."""
    payload = {"city": "Paris", "stops": [f"stop {n}" for n in range(40)]}
    text = LONG_THOUGHT + "</think>\n\n" + json.dumps(payload)
    assert len(LONG_THOUGHT) > 8192
    parser = RobustJsonOutputParser()
    assert parser.parse(text) == payload
    for size in (1, 7, 64, 1000):
        chunks = [text[i : i + size] for i in range(0, len(text), size)]
        values = list(parser.transform(iter(chunks)))
        assert values and values[-1] == payload
        assert all("Madrid" not in json.dumps(v) for v in values)


def test_json_stream_of_prose_then_a_fence_streams_the_fenced_value() -> None:
    """ "Here is the JSON:" and a fence is an answer's shape: in auto mode a fence line before
    any closing marker ends the hold, so the fenced value streams as it comes and ends as a
    complete parse reads it."""
    text = (
        "Here is the trip you asked for:\n```json\n"
        + json.dumps({"city": "Paris", "stops": ["Louvre", "Orsay"]})
        + "\n```"
    )
    parser = RobustJsonOutputParser()
    for size in (1, 4, 16):
        chunks = [text[i : i + size] for i in range(0, len(text), size)]
        values = list(parser.transform(iter(chunks)))
        assert len(values) > 1 and values[-1] == parser.parse(text), size


def test_a_fence_line_before_a_lone_closer_means_no_template_reasoning() -> None:
    """The auto rule is one rule: a fenced block before a lone closer makes the text the
    answer for parse and for every stream alike; ``template_opens_reasoning=True`` reads the
    same text as reasoning first."""
    text = 'Draft:\n```json\n{"city": "Lyon"}\n```\n</think>\n{"city": "Paris"}'
    auto = RobustJsonOutputParser()
    assert auto.parse(text) == {"city": "Lyon"}
    opened = RobustJsonOutputParser(template_opens_reasoning=True)
    assert opened.parse(text) == {"city": "Paris"}
    for parser in (auto, opened):
        for size in (1, 3, 8, 64):
            chunks = [text[i : i + size] for i in range(0, len(text), size)]
            assert list(parser.transform(iter(chunks)))[-1] == parser.parse(text), size


@pytest.mark.parametrize("form", FORMS, ids=FORM_IDS)
def test_unclosed_reasoning_holds_no_answer(form: Form) -> None:
    if not form.open:
        pytest.skip("a headless block is known by its closing marker")
    text = form.open + JSON_THOUGHT
    with pytest.raises(OutputParserException):
        RobustJsonOutputParser().parse(text)


# ----------------------------------------------------------------------------- ReAct

REACT_THOUGHT = "Draft:\nThought: guess\nFinal Answer: Oslo\nno, check the tool first."
REACT_FINAL = "Thought: I know it now.\nFinal Answer: Paris"
REACT_ACTION = "Thought: look it up.\nAction: get_weather\nAction Input: Paris"


def _react_forms() -> list[Any]:
    """Every form, the template-opened one (a lone closing marker) among them."""
    return [pytest.param(f, id=f.name) for f in FORMS]


def _react_answer(step: Any) -> Any:
    if isinstance(step, AgentFinish):
        return step.return_values["output"]
    if isinstance(step, AgentAction):
        return (step.tool, step.tool_input)
    return step


@pytest.mark.parametrize("form", _react_forms())
def test_react_reads_after_reasoning(form: Form) -> None:
    parser = ReActOutputParser()
    final = parser.parse(form.wrap(REACT_THOUGHT, REACT_FINAL))
    assert isinstance(final, AgentFinish)
    assert final.return_values["output"] == "Paris"
    action = parser.parse(form.wrap(REACT_THOUGHT, REACT_ACTION))
    assert isinstance(action, AgentAction)
    assert (action.tool, action.tool_input) == ("get_weather", "Paris")


@pytest.mark.parametrize("form", FORMS, ids=FORM_IDS)
def test_react_stream_agrees_with_parse(form: Form) -> None:
    parser = ReActOutputParser()
    for answer in (REACT_FINAL, REACT_ACTION):
        text = form.wrap(REACT_THOUGHT, answer)
        expected = _react_answer(parser.parse(text))
        for chunks in chunkings(text):
            steps = [_react_answer(s) for s in parser.transform(iter(chunks))]
            assert steps and steps[-1] == expected, chunks
            for step in steps:
                assert "Oslo" not in str(step), (step, chunks)


# ----------------------------------------------------------------------------- lists, XML


@pytest.mark.parametrize("form", FORMS, ids=FORM_IDS)
def test_list_parsers_skip_reasoning(form: Form) -> None:
    markdown = form.wrap("Options:\n- Oslo\n- Bergen", "- Paris\n- Lyon")
    assert RobustMarkdownListOutputParser().parse(markdown) == ["Paris", "Lyon"]
    comma = form.wrap("Oslo, Bergen maybe", "Paris, Lyon")
    assert RobustCommaSeparatedListOutputParser().parse(comma) == ["Paris", "Lyon"]


@pytest.mark.parametrize("form", FORMS, ids=FORM_IDS)
def test_xml_parser_skips_reasoning(form: Form) -> None:
    text = form.wrap("Try <city>Oslo</city>?", "<city>Paris</city>")
    assert RobustXMLOutputParser().parse(text) == {"city": "Paris"}


# ----------------------------------------------------------------------------- calls

CALL_THOUGHT = (
    'I could call <tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}'
    "</tool_call> but the user said Paris."
)
CALL_ANSWER = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
CALL = ("get_weather", {"city": "Paris"})
HARMONY_CALL = (
    "<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json"
    '<|message|>{"city": "Paris"}<|call|>'
)


def _call_text(form: Form) -> str:
    """The form's reasoning with a drafted call, then the real call (gpt-oss writes its calls
    in harmony's commentary channel, after the analysis message's end)."""
    if form.name == "harmony":
        return form.open + CALL_THOUGHT + "<|end|>" + HARMONY_CALL
    return form.wrap(CALL_THOUGHT, CALL_ANSWER)


def _calls(items: Any) -> list[tuple[str, Any]]:
    out = []
    for c in items:
        if isinstance(c, dict) and len(c) == 1:  # FunctionCallOutputParser: {name: args}
            ((name, args),) = c.items()
            out.append((name, args))
        elif isinstance(c, dict):
            out.append((c.get("name") or c.get("type"), c.get("args") or c.get("arguments")))
        else:
            out.append((c.name, c.args))
    return out


@pytest.mark.parametrize("form", FORMS, ids=FORM_IDS)
def test_call_readers_skip_reasoning(form: Form) -> None:
    text = _call_text(form)
    assert _calls(decode_calls(text).calls) == [CALL]
    parsed = FunctionCallOutputParser().parse(text)
    assert _calls(parsed if isinstance(parsed, list) else [parsed]) == [CALL]
    tools = RobustJsonOutputToolsParser().parse_result(
        [ChatGeneration(message=AIMessage(content=text))]
    )
    assert _calls(tools) == [CALL]


@pytest.mark.parametrize("form", FORMS, ids=FORM_IDS)
def test_adapter_moves_reasoning_out_of_content(form: Form) -> None:
    text = _call_text(form)
    message = TextToolCallAdapter().invoke(AIMessage(content=text))
    assert isinstance(message, AIMessage)
    assert [(c["name"], c["args"]) for c in message.tool_calls] == [CALL]
    assert "Oslo" not in str(message.content)
    assert "Oslo" in message.additional_kwargs["reasoning_content"]
    assert "think" not in message.additional_kwargs["reasoning_content"].lower()
    kept = TextToolCallAdapter(keep_reasoning_in_content=True).invoke(AIMessage(content=text))
    assert isinstance(kept, AIMessage)
    assert "reasoning_content" not in kept.additional_kwargs
    if form.name != "harmony":  # harmony's reader keeps the final message only, as vLLM does
        assert "Oslo" in str(kept.content)
    assert [(c["name"], c["args"]) for c in kept.tool_calls] == [CALL]


CHAT_THOUGHT = "The user wants Paris, not Oslo."
CHAT_ANSWER = "It is sunny in Paris."


def _chat_model(text: str, chunk_size: int, **options: Any) -> Any:
    scripted = ScriptedChatModel(responses=[text], chunk_size=chunk_size)
    return TextToolCallingChatModel(scripted, **options).bind_tools([get_weather])


@pytest.mark.parametrize("form", FORMS, ids=FORM_IDS)
def test_chat_model_moves_reasoning_out_of_content(form: Form) -> None:
    text = form.wrap(CHAT_THOUGHT, CHAT_ANSWER)
    answer = _chat_model(text, 4).invoke("weather?")
    assert answer.content.strip() == CHAT_ANSWER
    assert answer.additional_kwargs["reasoning_content"] == CHAT_THOUGHT
    if hasattr(answer, "content_blocks"):  # langchain-core 1.x: a standard reasoning block
        assert {"type": "reasoning", "reasoning": CHAT_THOUGHT} in answer.content_blocks
    kept = _chat_model(text, 4, keep_reasoning_in_content=True).invoke("weather?")
    assert "reasoning_content" not in kept.additional_kwargs
    if form.name != "harmony":  # harmony's reader keeps the final message only, as vLLM does
        assert "Oslo" in kept.content


@pytest.mark.parametrize("form", FORMS, ids=FORM_IDS)
@pytest.mark.parametrize("chunk_size", CHUNK_SIZES)
def test_chat_model_streams_reasoning_as_reasoning(form: Form, chunk_size: int) -> None:
    text = form.wrap(CHAT_THOUGHT, CHAT_ANSWER)
    invoked = _chat_model(text, chunk_size).invoke("weather?")
    chunks = list(_chat_model(text, chunk_size).stream("weather?"))
    assert all("Oslo" not in str(c.content) for c in chunks)
    reasoning = "".join(c.additional_kwargs.get("reasoning_content", "") for c in chunks)
    assert reasoning.strip() == CHAT_THOUGHT
    assert "".join(str(c.content) for c in chunks) == invoked.content


def save_note(title: str, body: str) -> str:
    """Save a note."""
    return title


@pytest.mark.parametrize("form", [f for f in FORMS if f.name != "harmony"], ids=lambda f: f.name)
def test_reasoning_markers_inside_call_arguments_are_data(form: Form) -> None:
    # A note that documents the model's own reasoning markers: its text is an argument value.
    body = form.wrap("a decoy thought", "a decoy answer")
    call = json.dumps({"name": "save_note", "arguments": {"title": "markers", "body": body}})
    text = form.wrap(CHAT_THOUGHT, f"<tool_call>{call}</tool_call>")
    adapted = TextToolCallAdapter(tools=[save_note]).invoke(AIMessage(content=text))
    assert isinstance(adapted, AIMessage)

    def chat() -> Any:
        scripted = ScriptedChatModel(responses=[text], chunk_size=5)
        return TextToolCallingChatModel(scripted).bind_tools([save_note])

    invoked = chat().invoke("save it")
    chunks = list(chat().stream("save it"))
    streamed = "".join(c.additional_kwargs.get("reasoning_content", "") for c in chunks)
    readings = [
        adapted.additional_kwargs.get("reasoning_content"),
        invoked.additional_kwargs.get("reasoning_content"),
        streamed.strip(),
    ]
    assert readings == [CHAT_THOUGHT] * 3
    assert [c["args"]["body"] for c in invoked.tool_calls] == [body]


def test_harmony_tokens_inside_call_arguments_are_data_under_a_named_dialect() -> None:
    body = "<think>draft</think> to=bob <|message|>hi"
    call = json.dumps({"name": "save_note", "arguments": {"title": "t", "body": body}})
    text = f"<tool_call>{call}</tool_call>"
    adapted = TextToolCallAdapter(tools=[save_note], dialect="tool_call").invoke(
        AIMessage(content=text)
    )
    scripted = ScriptedChatModel(responses=[text])
    chat = TextToolCallingChatModel(scripted, parse_dialect="tool_call").bind_tools([save_note])
    invoked = chat.invoke("save it")
    for message in (adapted, invoked):
        assert isinstance(message, AIMessage)
        assert [c["args"]["body"] for c in message.tool_calls] == [body]
        assert "reasoning_content" not in message.additional_kwargs


# ----------------------------------------------------------------------------- actions


@pytest.mark.parametrize("form", FORMS, ids=FORM_IDS)
def test_action_parser_skips_reasoning(form: Form) -> None:
    text = form.wrap(
        "Action: click(start_box='(10,10)')",
        "Thought: submit.\nAction: click(start_box='(450,320)')",
    )
    (action,) = ActionOutputParser().parse(text)
    assert "450" in repr(action) and "10, 10" not in repr(action)


# ----------------------------------------------------------------------------- the lexicon


@pytest.mark.parametrize("form", FORMS, ids=FORM_IDS)
def test_split_reasoning_drops_markers(form: Form) -> None:
    answer, reasoning = split_reasoning(form.wrap("weigh Oslo", "Paris"))
    assert reasoning == "weigh Oslo"
    assert "Oslo" not in answer and "Paris" in answer


def test_parsers_still_pickle() -> None:
    parser = RobustJsonOutputParser()
    text = FORMS[7].wrap(JSON_THOUGHT, JSON_ANSWER)
    assert pickle.loads(pickle.dumps(parser)).parse(text) == JSON_VALUE


PACKAGE = Path(__file__).resolve().parent.parent / "langchain_robust_parsers"
HOME = Path("engine/lexicon/reasoning.py")
SPELLINGS = re.compile(
    r"think>|\[/?think\]|seed:think|<\|channel>thought|ifm\|think|<\|open\|>think"
    r"|\(\?:think|think\|thinking|thinking\|reasoning",
    re.I,
)
ALLOWED: dict[tuple[str, str], str] = {
    (
        "cli/formats.py",
        "any JSON value (fenced, in prose, after <think>, repaired, completed)",
    ): "the CLI's one-line description of the format, shown to users",
    ("engine/json/repair_names.py", '<think>let me see</think>{"a": 1}'): (
        "the documented example of the think_block repair"
    ),
}
"""``{(module, literal): reason}`` for a reasoning spelling that must stay outside the lexicon."""


def test_reasoning_spellings_live_only_in_the_lexicon() -> None:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel == HOME:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = docstring_ids(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docs
                and SPELLINGS.search(node.value)
                and (str(rel), node.value) not in ALLOWED
            ):
                found.append((str(rel), node.lineno, node.value[:60]))
    assert not found, found


_ = Callable
