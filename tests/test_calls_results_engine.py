"""What the call readers hand on once the text is decoded (`engine/calls/call_results`): the
calls a parser returns or why it fails, the parts of a message a tool loop needs, and the
format instructions. Pure functions, no LangChain: `FunctionCallOutputParser` and
`TextToolCallAdapter` only translate these results, so both agree with them."""

from __future__ import annotations

import pytest

from langchain_robust_parsers.engine.calls.call_instructions import call_instructions
from langchain_robust_parsers.engine.calls.call_policy import CallPolicy
from langchain_robust_parsers.engine.calls.call_results import (
    LIMIT_REASON,
    NO_CALL_REASON,
    BoundPolicy,
    accepted_calls,
    bound_policy,
    call_outcome,
    message_calls,
    new_call_id,
    undecoded_message,
)
from langchain_robust_parsers.engine.calls.dialects import decode_calls
from langchain_robust_parsers.engine.calls.parsed_call import CallDecodeError
from langchain_robust_parsers.engine.content_blocks import with_text
from langchain_robust_parsers.engine.errors import EngineBugError

WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
}
ROOM = {"type": "object", "properties": {"room": {"type": "string"}, "hours": {"type": "integer"}}}
BOUND = bound_policy({"get_weather": WEATHER, "book_room": ROOM}, allow_unknown=False)

CUT_SECOND_BLOCK = (
    "Let me check both.\n"
    '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}, "id": "call_7"}\n'
    "</tool_call>\n"
    '<tool_call>\n{"name": "book_room", "arguments": {"room": "B1'
)
"""A Hermes-style answer stopped at the token limit inside its second call block."""


def _never_bound() -> BoundPolicy:
    raise AssertionError("the tools were bound for a message without calls")


def test_a_message_without_calls_stays_as_it_is_and_binds_no_tool() -> None:
    text = "It is sunny in Lima today, 24 degrees; no need for an umbrella."
    found = message_calls(text, decode_calls(text), _never_bound, refuse_cut=False)
    assert found.content is None and not found.calls and not found.invalid
    assert found.outcome == "success"


def test_harmony_final_text_is_the_content_without_binding_tools() -> None:
    text = (
        "<|channel|>analysis<|message|>Plain answer.<|end|>"
        "<|start|>assistant<|channel|>final<|message|>It is 14 degrees in Oslo.<|return|>"
    )
    found = message_calls(text, decode_calls(text), _never_bound, refuse_cut=False)
    assert found.content == "It is 14 degrees in Oslo."
    assert not found.calls


def test_calls_are_typed_by_the_bound_schemas_and_the_prose_stays() -> None:
    text = (
        "I will book it now.\n<tool_call>\n"
        '{"name": "book_room", "arguments": {"room": "B12", "hours": "2"}}\n</tool_call>'
    )
    found = message_calls(text, decode_calls(text), lambda: BOUND, refuse_cut=False)
    assert [(c.name, c.args) for c in found.calls] == [("book_room", {"room": "B12", "hours": 2})]
    assert found.content == "I will book it now.\n"  # the text before the calls, as written
    assert found.outcome == "recovered"  # "2" became 2: the report names the coercion
    assert found.report is not None and any(
        r.startswith("coerce:book_room.hours") for r in found.report.repair_names
    )


def test_a_call_to_a_tool_that_is_not_bound_is_invalid_with_the_reason() -> None:
    text = '[send_email(to="ops@example.com", body="Room B12 booked")]'
    found = message_calls(text, decode_calls(text), lambda: BOUND, refuse_cut=False)
    assert not found.calls
    (invalid,) = found.invalid
    assert invalid.name == "send_email" and "not among the bound tools" in invalid.error
    assert invalid.args.startswith("send_email({")


def test_a_cut_answer_refuses_its_calls_keeping_the_model_ids() -> None:
    text = '[get_weather(city="Oslo", days=3), book_room(room="B12", hours=2)]'
    decoded = decode_calls(text)
    found = message_calls(text, decoded, lambda: BOUND, refuse_cut=True)
    assert not found.calls
    assert [(c.name, c.error) for c in found.invalid] == [
        ("get_weather", LIMIT_REASON),
        ("book_room", LIMIT_REASON),
    ]
    assert found.invalid[0].args == 'get_weather({"city": "Oslo", "days": 3})'
    kept = message_calls(text, decoded, lambda: BOUND, refuse_cut=False)
    assert [c.name for c in kept.calls] == ["get_weather", "book_room"]


def test_blocks_closed_before_the_cut_stay_calls_when_the_cut_is_refused() -> None:
    found = message_calls(
        CUT_SECOND_BLOCK, decode_calls(CUT_SECOND_BLOCK), lambda: BOUND, refuse_cut=True
    )
    assert [(c.name, c.id) for c in found.calls] == [("get_weather", "call_7")]
    assert [c.error for c in found.invalid if c.name is None]  # the dropped block is named
    assert found.content == "Let me check both.\n"


def test_undecodable_text_is_recorded_as_one_invalid_call_on_request() -> None:
    text = "[get_weather(city=Oslo, days=)]"
    with pytest.raises(CallDecodeError) as caught:
        decode_calls(text)
    recorded = undecoded_message(text, caught.value, record=True)
    assert recorded.outcome == "failed" and recorded.content is None
    (invalid,) = recorded.invalid
    assert invalid.name is None and invalid.args == text
    assert invalid.error == recorded.error and invalid.error.startswith("Failed to decode AST:")
    assert not undecoded_message(text, caught.value, record=False).invalid


def test_an_engine_bug_is_worded_as_bfcl_evaluators_expect() -> None:
    bug = EngineBugError("internal error while reading function calls")
    bug.__cause__ = KeyError("name")
    assert undecoded_message("[f()]", bug, record=True).error == (
        "Failed to decode AST: Unexpected error: KeyError('name')"
    )


def test_a_parser_gets_an_error_for_text_without_calls_unless_empty_is_allowed() -> None:
    decoded = decode_calls("I could not find a matching function for that request.")
    with pytest.raises(CallDecodeError, match=NO_CALL_REASON):
        accepted_calls(decoded, CallPolicy(), frozenset(), allow_empty=False)
    assert accepted_calls(decoded, CallPolicy(), frozenset(), allow_empty=True) is decoded
    assert call_outcome(decoded) == "success"


def test_a_parser_fails_on_a_call_to_another_tool_but_not_on_a_dropped_block() -> None:
    unknown = decode_calls('[reserve_table(restaurant="Noma", guests=4)]')
    with pytest.raises(CallDecodeError, match="reserve_table"):
        accepted_calls(unknown, *BOUND, allow_empty=False)
    cut = accepted_calls(decode_calls(CUT_SECOND_BLOCK), *BOUND, allow_empty=False)
    assert [c.name for c in cut.calls] == ["get_weather"]
    assert cut.report.truncated


def test_fresh_call_ids_look_like_openai_ids_and_differ() -> None:
    first, second = new_call_id(), new_call_id()
    assert first != second
    assert first.startswith("call_") and len(first) == len("call_") + 24


def test_replacing_the_text_keeps_the_other_blocks() -> None:
    reasoning = {"type": "reasoning", "reasoning": "The user wants Oslo."}
    content: list[str | dict[str, object]] = [reasoning, {"type": "text", "text": "[f(a=1)]"}]
    assert with_text(content, "Checking.") == [reasoning, {"type": "text", "text": "Checking."}]
    assert with_text(content, "") == [reasoning]
    assert with_text([{"type": "text", "text": "[f(a=1)]"}], "Checking.") == "Checking."
    assert with_text("[f(a=1)]", "") == ""


@pytest.mark.parametrize(
    ("dialect", "expected"),
    [
        ("auto", "as a Python list, with keyword arguments"),
        ("bare", "as a JSON list"),
        ("tool_call", "inside <tool_call> and </tool_call> tags"),
    ],
)
def test_format_instructions_follow_the_dialect(dialect: str, expected: str) -> None:
    assert expected in call_instructions(dialect, allow_empty=False)
    if "list" in expected:
        assert call_instructions(dialect, allow_empty=True).endswith("respond with [].")
