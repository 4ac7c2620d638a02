"""JSON tool-call dialects, detection, locating calls in answers, spans and reports."""

from __future__ import annotations

import contextlib
import time
from typing import Any

import pytest
from call_corpus import CALL_CORPUS, CallCase

from langchain_robust_parsers.engine.calls.dialects import (
    ARGUMENT_KEYS,
    DIALECTS,
    MARKERS,
    NAME_KEYS,
    calls_from_json,
    classify,
    decode_calls,
)
from langchain_robust_parsers.engine.calls.parsed_call import CallDecodeError, DecodedCalls
from langchain_robust_parsers.engine.repair_log import RepairLog

HOSTILE_SECONDS = 2.0


def bfcl(decoded: DecodedCalls) -> list[dict[str, dict[str, Any]]]:
    return [{c.name: c.args} for c in decoded.calls]


def calls(text: str, **kwargs: Any) -> list[dict[str, dict[str, Any]]]:
    return bfcl(decode_calls(text, **kwargs))


# --------------------------------------------------------------------------- the corpus


@pytest.mark.parametrize("case", CALL_CORPUS, ids=[c.id for c in CALL_CORPUS])
def test_corpus_auto(case: CallCase) -> None:
    decoded = decode_calls(case.text)
    assert bfcl(decoded) == case.expected
    if case.ids:
        assert tuple(c.id for c in decoded.calls) == case.ids


@pytest.mark.parametrize("case", CALL_CORPUS, ids=[c.id for c in CALL_CORPUS])
def test_corpus_with_its_explicit_dialect(case: CallCase) -> None:
    assert calls(case.text, dialect=case.dialect) == case.expected


@pytest.mark.parametrize(
    "case", [c for c in CALL_CORPUS if c.dialect in ("tool_call", "python_tag", "mistral")]
)
def test_dialect_detected_from_markers(case: CallCase) -> None:
    assert decode_calls(case.text).dialect == case.dialect


# --------------------------------------------------------------------------- items


@pytest.mark.parametrize("name_key", NAME_KEYS)
@pytest.mark.parametrize("args_key", ARGUMENT_KEYS)
def test_key_variants(name_key: str, args_key: str) -> None:
    text = f'<tool_call>{{"{name_key}": "get_weather", "{args_key}": {{"city": "Paris"}}}}'
    assert calls(text) == [{"get_weather": {"city": "Paris"}}]


def test_arguments_as_a_json_string() -> None:
    text = '[{"name": "f", "arguments": "{\\"a\\": 1, \\"b\\": [true]}"}]'
    assert calls(text) == [{"f": {"a": 1, "b": [True]}}]


def test_arguments_string_is_repaired_by_the_engine() -> None:
    text = '[{"name": "f", "arguments": "{\'a\': 1,}"}]'
    decoded = decode_calls(text)
    assert bfcl(decoded) == [{"f": {"a": 1}}]
    assert "trailing_comma" in decoded.report.repair_names


@pytest.mark.parametrize("raw", ['""', "null", "{}"])
def test_missing_or_empty_arguments_are_no_arguments(raw: str) -> None:
    assert calls(f'[{{"name": "get_time", "arguments": {raw}}}]') == [{"get_time": {}}]
    assert calls('[{"name": "get_time"}]') == [{"get_time": {}}]


@pytest.mark.parametrize(
    "item",
    [
        '{"name": "f", "arguments": [1, 2]}',
        '{"name": "f", "arguments": "not json"}',
        '{"name": 5, "arguments": {}}',
        '{"arguments": {"a": 1}}',
    ],
)
def test_invalid_items_in_a_marker_are_errors(item: str) -> None:
    with pytest.raises(CallDecodeError) as info:
        decode_calls(f"<tool_call>{item}</tool_call>")
    assert str(info.value) == "Failed to decode JSON: Invalid tool call structure."


def test_openai_shape_keeps_the_id() -> None:
    text = (
        '[{"id": "call_abc", "type": "function", "function": {"name": "f", '
        '"arguments": "{\\"x\\": 2}"}}]'
    )
    (call,) = decode_calls(text).calls
    assert (call.name, call.args, call.id) == ("f", {"x": 2}, "call_abc")


def test_name_keyed_objects() -> None:
    # BFCL's own output shape, as some models echo it back.
    assert calls('[{"get_weather": {"city": "Paris"}}, {"get_time": {}}]') == [
        {"get_weather": {"city": "Paris"}},
        {"get_time": {}},
    ]
    assert calls('<tool_call>{"get_weather": {"city": "Paris"}}</tool_call>') == [
        {"get_weather": {"city": "Paris"}}
    ]


def test_a_bare_object_that_is_not_a_call_is_no_call() -> None:
    for text in ('{"answer": "Paris"}', '{"city": {"name": "Paris"}}', '["a", "b"]'):
        decoded = decode_calls(text)
        assert decoded.calls == ()


def test_calls_from_json_depths() -> None:
    log = RepairLog()
    item = {"name": "f", "arguments": {}}
    assert calls_from_json(item, log, 0, in_marker=False) is not None
    assert calls_from_json(item, log, 0, in_marker=False)[1] == 1  # type: ignore[index]
    assert calls_from_json([item], log, 0, in_marker=False)[1] == 2  # type: ignore[index]
    got = calls_from_json({"tool_calls": [item]}, log, 0, in_marker=False)
    assert got is not None and got[1] == 3
    assert calls_from_json("text", log, 0, in_marker=False) is None


# --------------------------------------------------------------------------- blocks


def test_several_blocks_and_one_closing_tag_missing() -> None:
    text = (
        '<tool_call>\n{"name": "a", "arguments": {"x": 1}}\n</tool_call>\n'
        '<tool_call>\n{"name": "b", "arguments": {"y": 2}}\n'
    )
    assert calls(text) == [{"a": {"x": 1}}, {"b": {"y": 2}}]


def test_blocks_without_newlines_and_in_upper_case() -> None:
    text = '<TOOL_CALL>{"name": "a", "arguments": {}}</TOOL_CALL><tool_call>{"name": "b"}'
    assert calls(text) == [{"a": {}}, {"b": {}}]


def test_a_block_that_fails_is_dropped_and_reported() -> None:
    text = (
        '<tool_call>\n{"name": "a", "arguments": {"x": 1}}\n</tool_call>\n'
        "<tool_call>\nnot json at all\n</tool_call>"
    )
    decoded = decode_calls(text)
    assert bfcl(decoded) == [{"a": {"x": 1}}]
    assert "dropped_block" in decoded.report.repair_names


def test_all_blocks_failing_is_an_error() -> None:
    with pytest.raises(CallDecodeError) as info:
        decode_calls("<tool_call>\nnot json at all\n</tool_call>")
    assert str(info.value) == "Failed to decode JSON: Invalid JSON format."


def test_python_tag_objects_separated_by_semicolons_or_newlines() -> None:
    expected = [{"a": {"q": "x; y"}}, {"b": {}}]
    for sep in ("; ", ";\n", "\n", ", "):
        text = '<|python_tag|>{"name": "a", "parameters": {"q": "x; y"}}' + sep + '{"name": "b"}'
        assert calls(text) == expected


def test_python_tag_with_python_call() -> None:
    # Llama 3.1's built-in tools use Python syntax after the same token; `NAME.call(..)` calls
    # the tool NAME, as llama.cpp reads it.
    text = '<|python_tag|>brave_search.call(query="current weather in Menlo Park")<|eom_id|>'
    decoded = decode_calls(text)
    assert bfcl(decoded) == [{"brave_search": {"query": "current weather in Menlo Park"}}]
    assert decoded.spans == ((0, len(text)),)


def test_mistral_named_calls_with_ids() -> None:
    text = (
        '[TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{"city": "Paris"}'
        '[TOOL_CALLS]get_time[ARGS]{"tz": "CET"}'
    )
    decoded = decode_calls(text)
    assert bfcl(decoded) == [{"get_weather": {"city": "Paris"}}, {"get_time": {"tz": "CET"}}]
    assert [c.id for c in decoded.calls] == ["a1b2c3d4e", None]


def test_mistral_token_stripped_by_the_server() -> None:
    text = '[{"name": "get_weather", "arguments": {"city": "Paris"}}]'
    assert calls(text, dialect="mistral") == [{"get_weather": {"city": "Paris"}}]


def test_deepseek_v31_tokens() -> None:
    text = (
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>"
        '{"location": "Tokyo"}<｜tool▁call▁end｜><｜tool▁call▁begin｜>get_time<｜tool▁sep｜>'
        '{"tz": "JST"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
    )
    decoded = decode_calls(text)
    assert bfcl(decoded) == [{"get_weather": {"location": "Tokyo"}}, {"get_time": {"tz": "JST"}}]
    assert decoded.spans[0][0] == 0 and decoded.spans[-1][1] == len(text)


def test_toolcall_tag_with_json_body() -> None:
    text = 'Sure.<TOOLCALL>[{"name": "f", "arguments": {"a": 1}}]</TOOLCALL>'
    assert calls(text) == [{"f": {"a": 1}}]


def test_explicit_dialect_looks_only_for_its_marker() -> None:
    text = '<tool_call>{"name": "a"}</tool_call>'
    assert calls(text, dialect="tool_call") == [{"a": {}}]
    decoded = decode_calls(text, dialect="python_tag")  # `<tool_call>` is only text to it
    assert decoded.report.source == "span"  # the object is still found, as JSON in prose


def test_unknown_dialect_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="unknown dialect"):
        decode_calls("[f()]", dialect="klingon")


def test_dialect_list_names_every_marker() -> None:
    assert {m.dialect for m in MARKERS} < set(DIALECTS)
    assert {"auto", "python", "json", "bare"} < set(DIALECTS)


# --------------------------------------------------------------------------- repairs, cut-off


def test_engine_repairs_apply_inside_markers() -> None:
    text = (
        "<tool_call>\n{name: 'f', // the function\n arguments: {a: True, b: None,},}\n</tool_call>"
    )
    decoded = decode_calls(text)
    assert bfcl(decoded) == [{"f": {"a": True, "b": None}}]
    assert decoded.report.repairs


def test_cut_off_list_drops_the_unfinished_call() -> None:
    text = '[{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {"c": "Par'
    decoded = decode_calls(text)
    assert bfcl(decoded) == [{"a": {"x": 1}}]
    assert decoded.report.truncated
    assert "truncated_call_dropped" in decoded.report.repair_names


def test_cut_off_list_keeps_complete_calls_when_only_closers_are_missing() -> None:
    text = '<|tool_call|>[{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {}}'
    decoded = decode_calls(text)
    assert bfcl(decoded) == [{"a": {"x": 1}}, {"b": {}}]
    assert decoded.report.truncated


def test_deep_broken_json_is_refused_before_the_engine() -> None:
    with pytest.raises(CallDecodeError, match="nested deeper than"):
        decode_calls("<tool_call>" + '{"a": [' * 200)
    # Valid deep JSON is decoded by the C decoder and never refused.
    deep = '{"name": "f", "arguments": {"x": ' + "[" * 150 + "]" * 150 + "}}"
    value: Any = calls("<tool_call>" + deep)[0]["f"]["x"]
    for _ in range(149):
        (value,) = value
    assert value == []


def test_cut_off_single_call_is_an_error() -> None:
    for text in (
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Par',
        '<tool_call>\n{"name": "get_weather", "argu',
        '<tool_call>\n{"name": "get_weather", ',
    ):
        with pytest.raises(CallDecodeError, match="cut off"):
            decode_calls(text)


def test_cut_off_object_with_complete_arguments_is_kept() -> None:
    text = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}'
    assert calls(text) == [{"get_weather": {"city": "Paris"}}]


# --------------------------------------------------------------------------- locating


def test_calls_drafted_inside_reasoning_are_ignored() -> None:
    text = (
        '<think>Maybe <tool_call>{"name": "wrong", "arguments": {}}</tool_call>? '
        "No, the user asked about Rome.</think>\n"
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call>'
    )
    assert calls(text) == [{"get_weather": {"city": "Rome"}}]


def test_python_calls_inside_reasoning_are_ignored() -> None:
    text = "<think>I could call f(a=1) here.</think>\nThe answer is 4."
    assert decode_calls(text).calls == ()


def test_several_fences_are_one_call_list() -> None:
    text = "```tool_code\nget_stock(ticker='A')\n```\nand\n```tool_code\nget_stock(ticker='B')\n```"
    assert calls(text) == [{"get_stock": {"ticker": "A"}}, {"get_stock": {"ticker": "B"}}]


def test_a_fence_that_is_not_calls_is_skipped() -> None:
    text = "```python\nimport os\n```\nSo the call is:\n```python\n[f(a=1)]\n```"
    assert calls(text) == [{"f": {"a": 1}}]


def test_json_call_in_prose() -> None:
    text = 'I will now call {"name": "get_weather", "arguments": {"city": "Paris"}} for you.'
    decoded = decode_calls(text)
    assert bfcl(decoded) == [{"get_weather": {"city": "Paris"}}]
    assert decoded.report.source == "span"
    assert "calls_in_prose" in decoded.report.repair_names


def test_python_and_json_calls_in_prose_keep_their_order() -> None:
    text = 'First {"name": "a", "arguments": {"x": 1}} and then b(y=2), nothing more.'
    assert calls(text) == [{"a": {"x": 1}}, {"b": {"y": 2}}]


def test_spans_cover_markers_fences_and_wrapping() -> None:
    text = 'Let me check.\n<tool_call>\n{"name": "a"}\n</tool_call>\nDone.'
    decoded = decode_calls(text)
    (span,) = decoded.spans
    assert text[span[0] : span[1]] == '<tool_call>\n{"name": "a"}\n</tool_call>'
    text = "Here:\n```python\n[f(a=1)]\n```\nBye"
    (span,) = decode_calls(text).spans
    assert text[span[0] : span[1]] == "```python\n[f(a=1)]\n```"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("[f(a=1)]", "ast"),
        ("f(a=1)", "ast"),
        ("'f(a=1)'", "ast"),
        ("[]", "ast"),
        ("[", "ast"),
        ('["a", "b"]', None),
        ("[1, 2]", None),
        ("'just a string'", None),
        ('{"name": "f"}', "json"),
        ('[ {"name": "f"}]', "json"),
        ('f\n{"a": 1}', "json"),
        ("The weather is nice.", None),
        ("", None),
    ],
)
def test_classify(text: str, kind: str | None) -> None:
    assert classify(text, 0, len(text)) == kind


def test_no_call_reports_what_it_looked_like() -> None:
    assert decode_calls("Paris is the capital of France.").kind == "ast"
    assert decode_calls('I could send {"name": 3} maybe').kind == "json"
    assert decode_calls("hello", dialect="json").kind == "json"


def test_reports() -> None:
    clean = decode_calls("[f(a=1)]").report
    assert clean.source == "whole" and not clean.repairs
    tagged = decode_calls('<tool_call>{"name": "f"}</tool_call>').report
    assert tagged.source == "tagged"
    fenced = decode_calls("```\n[f(a=1)]\n```").report
    assert fenced.source == "fenced"


# --------------------------------------------------------------------------- hostile input


HOSTILE = {
    "tags": "<tool_call>" * 50_000,
    "tags_with_braces": '<tool_call>{"name": ' * 20_000,
    "brackets": "[" * 100_000,
    "braces": "{" * 100_000,
    "list_of_objects": "[{" * 50_000,
    "mistral_named": "[TOOL_CALLS]f[ARGS]" * 20_000,
    "deepseek_sep": "<｜tool▁call▁begin｜>f<｜tool▁sep｜>" * 10_000,
    "fences": "```\n" * 50_000,
    "prose_calls": "f(x) " * 50_000,
    "prose_open_calls": "f(" * 50_000,
    "name_keys": '"name": ' * 50_000,
    "megabyte_prose": "The weather is lovely today. " * 40_000,
    "think": "<think>" * 50_000,
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_text_answers_fast(name: str) -> None:
    started = time.process_time()
    with contextlib.suppress(CallDecodeError):
        decode_calls(HOSTILE[name])
    assert time.process_time() - started < HOSTILE_SECONDS


# --------------------------------------------------------------------------- call or prose


@pytest.mark.parametrize(
    "text",
    [
        "Paris (the capital) is lovely in spring.",
        "Note(s): the museum is closed on Mondays.",
        "f(x) = 2x + 1 is a line.",
        "```python\nimport os\nprint(os.getcwd())\n```",
        "```python\ndef area(r):\n    return 3.14 * r * r\n```\nThat is how you compute it.",
        "```\nx = compute(a=1)\n```",
    ],
)
def test_prose_and_code_that_start_like_calls_are_no_calls(text: str) -> None:
    assert decode_calls(text).calls == ()


@pytest.mark.parametrize(
    "text",
    [
        "[get_weather(city='Paris']",
        "get_weather(city='Paris', days=)",
        "get_weather(city='Paris",
        "```python\n[get_weather(city='Paris']\n```",
        "[f(a=1), 'x']",
    ],
)
def test_broken_call_lists_are_errors(text: str) -> None:
    with pytest.raises(CallDecodeError) as info:
        decode_calls(text)
    assert info.value.kind == "ast"
