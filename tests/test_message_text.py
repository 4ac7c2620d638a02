"""What each parser reads from a message, and what a refusal content block does to it: one rule
(``parsers/message_text.py``) with one switch, whether the message is streamed or invoked."""

from __future__ import annotations

from typing import Any

import langchain_core.exceptions
import pytest
from langchain_core.messages import AIMessage, AIMessageChunk

from langchain_robust_parsers import (
    DialogOutputParser,
    ReActOutputParser,
    RobustJsonOutputParser,
)
from langchain_robust_parsers.parsers.list_parsers import RobustCommaSeparatedListOutputParser
from langchain_robust_parsers.parsers.message_text import StreamEnd, chunk_text, texts_for_tracing

needs_refusals = pytest.mark.skipif(
    not hasattr(langchain_core.exceptions, "ModelRefusalError"),
    reason="langchain-core < 1.7.5 has no refusal handling",
)

REFUSAL = {"type": "refusal", "refusal": "I can't help with that."}


def test_text_blocks_are_joined_and_strings_pass_through() -> None:
    message = AIMessageChunk(content=[{"type": "text", "text": '{"a": '}, "1}"])
    assert chunk_text(message) == '{"a": 1}'
    assert chunk_text('{"a": 1}') == '{"a": 1}'
    traced = list(texts_for_tracing(["x", AIMessageChunk(content="y"), "z"]))
    assert traced == ["x", "y", "z", ""]  # the chunks, then the end of the stream
    assert type(traced[-1]) is StreamEnd
    total = traced[0]
    for text in traced[1:]:  # LangChain adds the trace's input up: the whole text, a str
        total = total + text
    assert total == "xyz"
    assert type(total) is str
    one = list(texts_for_tracing(["only"]))
    assert one[0] + one[1] == "only"  # a one-chunk stream: its text, once
    assert list(texts_for_tracing([])) == [""]  # an empty stream: the empty text


@needs_refusals
@pytest.mark.parametrize(
    "parser", [RobustJsonOutputParser(), ReActOutputParser()], ids=["json", "react"]
)
def test_a_refusal_raises_in_parsers_whose_langchain_twin_raises(parser: Any) -> None:
    from langchain_core.exceptions import ModelRefusalError  # type: ignore[attr-defined]

    chunks = [
        AIMessageChunk(content=[{"type": "text", "text": "{"}]),
        AIMessageChunk(content=[REFUSAL]),
    ]
    with pytest.raises(ModelRefusalError):
        list(parser.transform(iter(chunks)))
    with pytest.raises(ModelRefusalError):
        parser.invoke(AIMessage(content=[REFUSAL]))


def test_a_refusal_is_skipped_by_the_list_parser_as_langchain_skips_it() -> None:
    parser = RobustCommaSeparatedListOutputParser()
    chunks = [AIMessageChunk(content="red, green, "), AIMessageChunk(content=[REFUSAL]), "blue"]
    items = [item for part in parser.transform(iter(chunks)) for item in part]
    assert items == ["red", "green", "blue"]


def test_the_dialog_parser_never_raises_a_refusal_becomes_its_turn() -> None:
    parser = DialogOutputParser()
    turns = list(parser.transform(iter([AIMessageChunk(content=[REFUSAL])])))
    assert turns[-1].content == "I can't help with that."
    assert parser.invoke(AIMessage(content=[REFUSAL])).content == "I can't help with that."


def test_the_trace_of_a_stream_has_the_whole_text_as_its_input() -> None:
    """Tracing (LangSmith, callbacks) records the answer once, as one ``str``, however it was
    chunked, and the final value as its output."""
    from langchain_core.tracers.base import BaseTracer
    from langchain_core.tracers.schemas import Run

    class Runs(BaseTracer):
        def __init__(self) -> None:
            super().__init__()
            self.ended: list[Run] = []

        def _persist_run(self, run: Run) -> None:
            self.ended.append(run)

    answer = 'Here you go:\n```json\n{"city": "Lyon", "tags": ["old town", "food"]}\n```'
    for chunks in ([answer], [answer[i : i + 3] for i in range(0, len(answer), 3)]):
        runs = Runs()
        values = list(RobustJsonOutputParser().transform(iter(chunks), {"callbacks": [runs]}))
        assert values[-1] == {"city": "Lyon", "tags": ["old town", "food"]}
        assert runs.ended[-1].inputs == {"input": answer}
        assert type(runs.ended[-1].inputs["input"]) is str
        assert runs.ended[-1].outputs == values[-1]  # a dict output is recorded as it is
