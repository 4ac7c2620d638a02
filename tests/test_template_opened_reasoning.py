"""``template_opens_reasoning``: one rule for reasoning whose opener the chat template wrote,
read alike by ``parse``/``invoke`` and by every stream, at every chunking.

The answers are written as reasoning models' chat templates leave them: DeepSeek-R1 and
QwQ-style templates end the prompt with ``<think>\\n``, so the reply holds only ``</think>``.
"""

from __future__ import annotations

import json
import pickle
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fake_chat_models import ScriptedChatModel
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage
from pydantic import BaseModel, Field
from reasoning_forms import HEADLESS, NO_REASONING, Form
from tool_calling_fakes import get_weather

from langchain_robust_parsers import (
    FunctionCallOutputParser,
    RobustJsonOutputParser,
    RobustPydanticOutputParser,
    TextToolCallAdapter,
    TextToolCallingChatModel,
)
from langchain_robust_parsers.chains.parser_config import parser_from_config, parser_to_config
from langchain_robust_parsers.engine.lexicon.reasoning import ReasoningStream, split_reasoning

OPTIONS = (None, True, False)
CHUNK_SIZES = (1, 2, 3, 5, 8, 16, 64)
_MARKER_SPLIT = re.compile(r"(<[^<>]*>)")

THINK = Form("think", "<think>\n", "\n</think>\n\n")

THOUGHT = (
    "The user asks about the weather. I could call "
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Madrid"}}</tool_call> '
    'but they said Paris, so {"city": "Madrid"} is wrong.'
)
"""Reasoning that drafts a call and a JSON value about a decoy city: neither may ever show."""

CALL_ANSWER = (
    "Checking Paris.\n"
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
)
PROSE_ANSWER = "It is sunny in Paris today."


def chunkings(text: str) -> Iterator[list[str]]:
    """The text cut every ``n`` characters, and cut at every marker (as a tokenizer would)."""
    for n in CHUNK_SIZES:
        yield [text[i : i + n] for i in range(0, len(text), n)]
    yield [piece for piece in _MARKER_SPLIT.split(text) if piece]


class _Chunks(ScriptedChatModel):
    """A scripted model streaming the given pieces (marker splits included)."""

    pieces: list[str] = Field(default_factory=list)

    def _stream(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any) -> Any:
        from langchain_core.messages import AIMessageChunk
        from langchain_core.outputs import ChatGenerationChunk

        for piece in self.pieces:
            yield ChatGenerationChunk(message=AIMessageChunk(content=piece))


def _model(text: str, pieces: list[str], option: bool | None) -> Any:
    scripted = _Chunks(responses=[text] * 2, pieces=pieces)
    model = TextToolCallingChatModel(scripted, template_opens_reasoning=option)
    return model.bind_tools([get_weather])


def _summary(message: Any) -> tuple[Any, ...]:
    calls = [(c["name"], c["args"]) for c in message.tool_calls]
    reasoning = message.additional_kwargs.get("reasoning_content", "")
    return str(message.content).strip(), calls, reasoning.strip()


def _expected_reasoning(option: bool | None, form: Form) -> bool:
    """Whether the reply's text before its answer is reasoning under ``option``."""
    if form is THINK:
        return True
    if form is HEADLESS:
        return option is not False
    return False


FORMS = (HEADLESS, THINK, NO_REASONING)
FORM_IDS = [f.name for f in FORMS]


@pytest.mark.parametrize("option", OPTIONS, ids=str)
@pytest.mark.parametrize("form", FORMS, ids=FORM_IDS)
@pytest.mark.parametrize("answer", [CALL_ANSWER, PROSE_ANSWER], ids=["call", "prose"])
def test_chat_model_stream_equals_invoke(option: bool | None, form: Form, answer: str) -> None:
    thought = THOUGHT if form is not NO_REASONING else ""
    text = form.wrap(thought, answer)
    invoked = _model(text, [text], option).invoke("weather?")
    adapted = TextToolCallAdapter(tools=[get_weather], template_opens_reasoning=option).invoke(
        AIMessage(content=text)
    )
    assert _summary(adapted)[:2] == _summary(invoked)[:2]
    if _expected_reasoning(option, form):
        assert "Madrid" not in str(invoked.content)
        assert [c["args"] for c in invoked.tool_calls] in ([], [{"city": "Paris"}])
    if option is True and form is NO_REASONING:
        # the template said it opened reasoning and no closer came: all of it is reasoning
        assert invoked.content == "" and not invoked.tool_calls
    for pieces in chunkings(text):
        chunks = list(_model(text, pieces, option).stream("weather?"))
        merged = chunks[0]
        for chunk in chunks[1:]:
            merged = merged + chunk
        assert _summary(merged)[:2] == _summary(invoked)[:2], pieces
        if _expected_reasoning(option, form):
            # no piece of reasoning ever streamed as content or as a call
            assert all("Madrid" not in str(c.content) for c in chunks)
            assert all("Madrid" not in json.dumps(c.tool_call_chunks) for c in chunks)
            streamed = "".join(c.additional_kwargs.get("reasoning_content", "") for c in chunks)
            assert "Madrid" in streamed


def test_true_streams_reasoning_live() -> None:
    """With ``True`` the reasoning streams as ``reasoning_content`` before its closer arrives."""
    text = HEADLESS.wrap(THOUGHT, PROSE_ANSWER)
    pieces = [text[i : i + 8] for i in range(0, len(text), 8)]
    seen = ""
    for chunk in _model(text, pieces, True).stream("weather?"):
        seen += chunk.additional_kwargs.get("reasoning_content", "")
        if "Madrid" in seen:
            break
    assert "Madrid" in seen and "</think>" not in seen


def test_auto_holds_prose_until_it_knows_and_false_does_not() -> None:
    """Auto mode's cost: an answer that opens with prose is held until a closer, an opener or
    the end; ``False`` streams it at once; an answer opening with a call marker streams."""
    text = "Sure, let me check that for you right now.\n" + CALL_ANSWER
    pieces = [text[i : i + 4] for i in range(0, len(text), 4)]
    auto = [str(c.content) for c in _model(text, pieces, None).stream("weather?")]
    eager = [str(c.content) for c in _model(text, pieces, False).stream("weather?")]
    assert sum(1 for c in auto if c) == 1
    assert sum(1 for c in eager if c) > 5
    assert "".join(auto).strip() == "".join(eager).strip()


def test_long_template_opened_reasoning_never_streams_as_content() -> None:
    """No length cap: reasoning far past a few thousand characters is still reasoning."""
    thought = (THOUGHT + "\n") * 60
    assert len(thought) > 8192
    text = HEADLESS.wrap(thought, CALL_ANSWER)
    pieces = [text[i : i + 16] for i in range(0, len(text), 16)]
    chunks = list(_model(text, pieces, None).stream("weather?"))
    assert all("Madrid" not in str(c.content) for c in chunks)
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged = merged + chunk
    assert [c["args"] for c in merged.tool_calls] == [{"city": "Paris"}]


# ----------------------------------------------------------------------------- split_reasoning


@pytest.mark.parametrize("option", OPTIONS, ids=str)
@pytest.mark.parametrize("form", FORMS, ids=FORM_IDS)
def test_reasoning_stream_splits_as_split_reasoning(option: bool | None, form: Form) -> None:
    text = form.wrap(THOUGHT if form is not NO_REASONING else "", PROSE_ANSWER)
    answer, reasoning = split_reasoning(text, option)
    for pieces in chunkings(text):
        stream = ReasoningStream(option)
        parts = [stream.feed(p) for p in pieces] + [stream.close()]
        assert "".join(a for a, _ in parts) == answer
        assert "".join(r for _, r in parts).strip() == reasoning


# ----------------------------------------------------------------------------- function calls


@pytest.mark.parametrize("option", OPTIONS, ids=str)
def test_function_call_parser_reads_by_the_same_rule(option: bool | None) -> None:
    text = HEADLESS.wrap(THOUGHT, CALL_ANSWER)
    parser = FunctionCallOutputParser(template_opens_reasoning=option)
    cities = [call["get_weather"]["city"] for call in parser.parse(text)]
    assert cities == (["Madrid", "Paris"] if option is False else ["Paris"])
    # a stream prefix before the closer shows no call from the reasoning
    prefix = text[: text.index("</think>")]
    if option is not False:
        partial = parser.parse_result([_generation(prefix)], partial=True)
        assert not partial or "Madrid" not in json.dumps(partial)


def _generation(text: str) -> Any:
    from langchain_core.outputs import Generation

    return Generation(text=text)


# ----------------------------------------------------------------------------- JSON


class Trip(BaseModel):
    city: str
    days: int


JSON_ANSWER = '{"city": "Paris", "days": 3}'


@pytest.mark.parametrize("option", OPTIONS, ids=str)
@pytest.mark.parametrize("form", FORMS, ids=FORM_IDS)
def test_json_stream_ends_as_parse(option: bool | None, form: Form) -> None:
    text = form.wrap(THOUGHT if form is not NO_REASONING else "", JSON_ANSWER)
    for parser in (
        RobustJsonOutputParser(template_opens_reasoning=option),
        RobustPydanticOutputParser(pydantic_object=Trip, template_opens_reasoning=option),
    ):
        try:
            expected: Any = parser.parse(text)
        except OutputParserException:
            expected = OutputParserException
        for pieces in chunkings(text):
            if expected is OutputParserException:
                with pytest.raises(OutputParserException):
                    list(parser.transform(iter(pieces)))
                continue
            values = list(parser.transform(iter(pieces)))
            assert values[-1] == expected
            if _expected_reasoning(option, form):
                assert all("Madrid" not in repr(v) for v in values)


def test_json_true_without_a_closer_is_all_reasoning() -> None:
    parser = RobustJsonOutputParser(template_opens_reasoning=True)
    with pytest.raises(OutputParserException):
        parser.parse(JSON_ANSWER)
    assert RobustJsonOutputParser().parse(JSON_ANSWER) == {"city": "Paris", "days": 3}


def test_json_auto_reads_an_answer_opening_with_json_as_the_answer() -> None:
    """Auto: an answer that opens with JSON is no reasoning, even with a lone closer after."""
    text = JSON_ANSWER + "\n</think>\n"
    assert RobustJsonOutputParser().parse(text) == {"city": "Paris", "days": 3}


# ----------------------------------------------------------------------------- the option


@pytest.mark.parametrize("option", OPTIONS, ids=str)
def test_option_round_trips(option: bool | None) -> None:
    for parser in (
        RobustJsonOutputParser(template_opens_reasoning=option),
        RobustPydanticOutputParser(pydantic_object=Trip, template_opens_reasoning=option),
    ):
        assert parser_from_config(parser_to_config(parser)).template_opens_reasoning is option
        assert pickle.loads(pickle.dumps(parser)).template_opens_reasoning is option
    for other in (
        FunctionCallOutputParser(template_opens_reasoning=option),
        TextToolCallAdapter(template_opens_reasoning=option),
        TextToolCallingChatModel(
            ScriptedChatModel(responses=["x"]), template_opens_reasoning=option
        ),
    ):
        assert pickle.loads(pickle.dumps(other)).template_opens_reasoning is option


# ----------------------------------------------------------------------------- ReAct

REACT_THOUGHT = "Draft:\nThought: guess\nFinal Answer: Madrid\nno, check the tool first."
REACT_REPLIES = (
    "Thought: I know it now.\nFinal Answer: Paris",
    "Thought: look it up.\nAction: get_weather\nAction Input: Paris",
)


def _react_value(step: Any) -> Any:
    from langchain_core.agents import AgentFinish

    if isinstance(step, AgentFinish):
        return step.return_values["output"]
    return (step.tool, step.tool_input)


@pytest.mark.parametrize("option", OPTIONS, ids=str)
@pytest.mark.parametrize("form", FORMS, ids=FORM_IDS)
def test_react_stream_equals_parse(option: bool | None, form: Form) -> None:
    from langchain_robust_parsers import ReActOutputParser

    for reply in REACT_REPLIES:
        text = form.wrap(REACT_THOUGHT if form is not NO_REASONING else "", reply)
        parser = ReActOutputParser(template_opens_reasoning=option)
        texts = ReActOutputParser(stream_text=True, template_opens_reasoning=option)
        try:
            expected: Any = _react_value(parser.parse(text))
        except OutputParserException:
            expected = OutputParserException
        if _expected_reasoning(option, form):
            assert "Madrid" not in repr(expected)
        for pieces in chunkings(text):
            if expected is OutputParserException:
                with pytest.raises(OutputParserException):
                    list(parser.transform(iter(pieces)))
                continue
            steps = [s for s in parser.transform(iter(pieces)) if not isinstance(s, str)]
            assert _react_value(steps[-1]) == expected, pieces
            if form is HEADLESS and option is not False:
                # skipped whole (thought text of a `<think>` block streams as thought deltas)
                deltas = [s for s in texts.transform(iter(pieces)) if isinstance(s, str)]
                assert "Madrid" not in "".join(deltas)
