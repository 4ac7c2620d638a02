"""Where the JSON payload is found in a model's answer, and which candidate wins.

DESIGN.md "JSON conventions": strict ``json.loads`` of the whole text first; think blocks
dropped; fenced blocks preferred, then ``<json>``/``<output>`` tags, then the whole text, then
balanced spans in prose; ties broken by fewer repairs, then the earlier position.
"""

from __future__ import annotations

import pytest
from corpus import CORPUS, CORPUS_IDS, Case
from langchain_core.exceptions import OutputParserException

from langchain_robust_parsers import loads
from langchain_robust_parsers.engine import JsonEngineError, decode, iter_candidates
from langchain_robust_parsers.parsers.json_text import loads_with_report

# DESIGN.md's total order of sources (best first).
RANK = {"fenced": 0, "tagged": 1, "whole": 2, "span": 3}


def report_for(text: str) -> tuple[object, object]:
    value, report = loads_with_report(text)
    assert report is not None
    return value, report


# --------------------------------------------------------------------------- the shared corpus


@pytest.mark.parametrize("case", CORPUS, ids=CORPUS_IDS)
def test_corpus_case(case: Case) -> None:
    value, report = loads_with_report(case.text)
    assert value == case.expected
    assert report is not None
    if case.truncated is not None:
        assert (report.truncated == "text") is case.truncated
    for name in case.repairs:
        assert name in report.repair_names, (name, report.repair_names)
    assert loads(case.text) == case.expected


# --------------------------------------------------------------------------- the whole text


def test_strict_json_is_a_clean_whole_text_success() -> None:
    text = '{"name": "Ada", "languages": ["en", "fr"], "active": true}'
    value, report = report_for(text)
    assert value == {"name": "Ada", "languages": ["en", "fr"], "active": True}
    assert report.source == "whole"
    assert (report.start, report.end) == (0, len(text))
    assert report.repairs == ()
    assert not report.truncated
    assert report.outcome == "success"


def test_surrounding_whitespace_is_still_a_clean_whole_text() -> None:
    text = '\n\n  {"ok": true}  \n'
    value, report = report_for(text)
    assert value == {"ok": True}
    assert report.source == "whole"
    assert report.outcome == "success"
    assert text[report.start : report.end].strip() == '{"ok": true}'


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("42", 42),
        ("-3.5", -3.5),
        ('"just a string"', "just a string"),
        ("true", True),
        ("null", None),
        ("[]", []),
        ("{}", {}),
    ],
)
def test_a_whole_text_scalar_or_empty_container_is_its_value(text: str, expected: object) -> None:
    assert loads(text) == expected


def test_valid_whole_json_wins_even_if_a_string_holds_a_fence() -> None:
    # Strict json.loads of the whole text comes first: a fence inside a string value is data.
    text = '{"markdown": "```json\\n{\\"x\\": 1}\\n```", "n": 2}'
    value, report = report_for(text)
    assert value == {"markdown": '```json\n{"x": 1}\n```', "n": 2}
    assert report.source == "whole"
    assert report.outcome == "success"


def test_valid_whole_json_wins_even_if_a_string_holds_think_tags() -> None:
    text = '{"explanation": "Models wrap reasoning in <think>...</think> tags", "ok": true}'
    assert loads(text) == {
        "explanation": "Models wrap reasoning in <think>...</think> tags",
        "ok": True,
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('Sure! Here it is:\n\n```json\n"</think>"\n```\n\nAnything else?', "</think>"),
        ('Here:\n~~~json\n["a", "b </SEED:THINK> c"]\n~~~', ["a", "b </SEED:THINK> c"]),
        ('Result:\n```\n{"log": "done</reasoning>"}\n```', {"log": "done</reasoning>"}),
        # Outside a fence a lone closer still ends template-opened reasoning.
        ('Fences like ```x``` are fine\n</think>\n```json\n{"a": 1}\n```', {"a": 1}),
    ],
)
def test_a_closing_think_tag_inside_a_fence_is_data(text: str, expected: object) -> None:
    assert loads(text) == expected


# --------------------------------------------------------------------------- fences


@pytest.mark.parametrize(
    "fence_open",
    ["```json", "```", "```JSON", "```Json", "``` json", "```jsonc", "```json5", "~~~json", "~~~"],
)
def test_fence_variants(fence_open: str) -> None:
    closer = "~~~" if fence_open.startswith("~") else "```"
    text = f'Here is the result:\n\n{fence_open}\n{{"id": 7, "tags": ["a", "b"]}}\n{closer}\n'
    value, report = report_for(text)
    assert value == {"id": 7, "tags": ["a", "b"]}
    assert report.source == "fenced"
    assert text[report.start : report.end].strip() == '{"id": 7, "tags": ["a", "b"]}'
    assert report.outcome == "recovered"


def test_fence_with_prose_before_and_after() -> None:
    text = (
        "Sure! Here's the JSON you asked for:\n\n"
        "```json\n"
        "{\n"
        '  "city": "Kyoto",\n'
        '  "population": 1464890,\n'
        '  "landmarks": ["Kinkaku-ji", "Fushimi Inari"]\n'
        "}\n"
        "```\n\n"
        "The population figure is from the 2020 census. Let me know if you need more!"
    )
    value, report = report_for(text)
    assert value == {
        "city": "Kyoto",
        "population": 1464890,
        "landmarks": ["Kinkaku-ji", "Fushimi Inari"],
    }
    assert report.source == "fenced"
    assert not report.repaired


def test_unclosed_fence_with_complete_json() -> None:
    # The model stopped after the object without closing the fence.
    text = 'Result:\n```json\n{"done": true, "steps": 3}\n'
    value, report = report_for(text)
    assert value == {"done": True, "steps": 3}
    assert report.source == "fenced"
    assert not report.truncated


def test_unclosed_fence_with_cut_off_json() -> None:
    text = '```json\n{"title": "Dune", "tags": ["sci-fi", "clas'
    value, report = report_for(text)
    assert value == {"title": "Dune", "tags": ["sci-fi", "clas"]}
    assert report.source == "fenced"
    assert report.truncated


def test_indented_fence_inside_a_list_item() -> None:
    text = '1. Parse the order:\n   ```json\n   {"order_id": "A-17", "qty": 2}\n   ```\n2. Ship it.'
    value, report = report_for(text)
    assert value == {"order_id": "A-17", "qty": 2}
    assert report.source == "fenced"


def test_python_fenced_dict() -> None:
    text = "```python\n{'label': 'spam', 'score': 0.98, 'flagged': True}\n```"
    value, report = report_for(text)
    assert value == {"label": "spam", "score": 0.98, "flagged": True}
    assert report.source == "fenced"
    assert "single_quotes" in report.repair_names
    assert "python_literal" in report.repair_names


def test_non_json_fence_is_skipped_for_the_json_one() -> None:
    text = (
        "First install the client:\n\n"
        "```bash\npip install requests\n```\n\n"
        "Then the payload is:\n\n"
        '```json\n{"method": "POST", "path": "/v1/items"}\n```'
    )
    assert loads(text) == {"method": "POST", "path": "/v1/items"}


def test_two_json_fences_the_first_wins() -> None:
    text = (
        'Request:\n```json\n{"q": "weather"}\n```\nExpected response:\n```json\n{"temp": 21}\n```'
    )
    value, report = report_for(text)
    assert value == {"q": "weather"}
    assert report.start < text.index("Expected")


def test_fence_with_triple_backticks_inside_a_json_string() -> None:
    # langchain#19646: a string value holding ``` must not end the fence.
    text = (
        "Here is the answer:\n```json\n"
        '{"answer": "Run ```pip install x``` first", "confidence": "high"}\n'
        "```\nHope this helps."
    )
    assert loads(text) == {"answer": "Run ```pip install x``` first", "confidence": "high"}


def test_fence_whose_json_string_holds_a_multiline_fenced_block() -> None:
    # The string has literal newlines and its own fences at line starts (a model asked to put
    # markdown inside JSON). A string-aware scan of the fenced payload keeps them as data.
    text = (
        "```json\n"
        '{"reply": "Use this:\n```python\nprint(1)\n```\nDone.", "format": "markdown"}\n'
        "```"
    )
    assert loads(text) == {
        "reply": "Use this:\n```python\nprint(1)\n```\nDone.",
        "format": "markdown",
    }


def test_four_backtick_fence_around_json_holding_triple_backticks() -> None:
    # Markdown's rule for content with ``` in it: a longer fence. Claude does this.
    text = '````json\n{"md": "```\\ncode\\n```", "lines": 3}\n````'
    assert loads(text) == {"md": "```\ncode\n```", "lines": 3}


def test_fake_fence_inside_a_json_string_in_prose() -> None:
    # The only real payload is the object; the ```json inside its string is not a fence.
    text = 'Result: {"doc": "```json\\n{\\"a\\": 1}\\n```", "ok": true} as requested.'
    assert loads(text) == {"doc": '```json\n{"a": 1}\n```', "ok": True}


def test_fenced_beats_an_earlier_object_in_prose() -> None:
    text = 'The schema is {"type": "object"}. Filled in:\n```json\n{"name": "Ada", "age": 36}\n```'
    value, report = report_for(text)
    assert value == {"name": "Ada", "age": 36}
    assert report.source == "fenced"


def test_fenced_json_after_citation_brackets() -> None:
    text = (
        "According to [1] and [2], the capital is Canberra.\n\n"
        '```json\n[{"country": "Australia", "capital": "Canberra"}]\n```'
    )
    assert loads(text) == [{"country": "Australia", "capital": "Canberra"}]


# --------------------------------------------------------------------------- tags


@pytest.mark.parametrize("tag", ["json", "output", "JSON"])
def test_tagged_payload(tag: str) -> None:
    text = f'Analysis complete.\n<{tag}>\n{{"label": "invoice", "pages": 2}}\n</{tag}>\nDone.'
    value, report = report_for(text)
    assert value == {"label": "invoice", "pages": 2}
    assert report.source == "tagged"
    assert text[report.start : report.end].strip() == '{"label": "invoice", "pages": 2}'


def test_tag_beats_an_earlier_object_in_prose() -> None:
    text = 'For example {"x": 0} would be wrong.\n<json>{"x": 1}</json>'
    value, report = report_for(text)
    assert value == {"x": 1}
    assert report.source == "tagged"


def test_fence_beats_tag() -> None:
    text = '<output>{"from": "tag"}</output>\n```json\n{"from": "fence"}\n```'
    value, report = report_for(text)
    assert value == {"from": "fence"}
    assert report.source == "fenced"


def test_fence_inside_output_tag() -> None:
    text = '<output>\n```json\n{"status": "ok"}\n```\n</output>'
    value, report = report_for(text)
    assert value == {"status": "ok"}
    assert report.source == "fenced"


# --------------------------------------------------------------------------- think blocks


@pytest.mark.parametrize("tag", ["think", "thinking", "reasoning"])
def test_think_block_is_dropped(tag: str) -> None:
    text = (
        f'<{tag}>\nThe user wants JSON like {{"score": 0}}. '
        f"Let me compute: 3 of 4 tests pass, so 0.75.\n</{tag}>\n\n"
        '{"score": 0.75}'
    )
    value, report = report_for(text)
    assert value == {"score": 0.75}
    assert "think_block" in report.repair_names
    assert report.outcome == "recovered"


def test_text_before_a_lone_closing_think_is_dropped() -> None:
    # DeepSeek-R1 templates put <think> in the prompt, so the answer starts inside it.
    text = (
        'Okay, so the answer should look like ["a", "b"]. I need the primes below 10.\n'
        "</think>\n\n[2, 3, 5, 7]"
    )
    value, report = report_for(text)
    assert value == [2, 3, 5, 7]
    assert "think_block" in report.repair_names


def test_empty_think_block_from_no_think_mode() -> None:
    # langchain#31585: /no_think still emits an empty block.
    text = '<think>\n\n</think>\n\n{"answer": "Paris"}'
    value, report = report_for(text)
    assert value == {"answer": "Paris"}
    assert "think_block" in report.repair_names


def test_fenced_draft_inside_think_loses_to_the_final_fence() -> None:
    text = (
        '<think>\nDraft:\n```json\n{"verdict": "reject"}\n```\n'
        "Wait, the evidence supports it. Change to accept.\n</think>\n"
        '```json\n{"verdict": "accept"}\n```'
    )
    assert loads(text) == {"verdict": "accept"}


def test_think_block_then_prose_then_fence() -> None:
    text = (
        "<think>Need name and age.</think>\n"
        "Based on the profile, here is the structured data:\n"
        '```json\n{"name": "Lin", "age": 29}\n```'
    )
    assert loads(text) == {"name": "Lin", "age": 29}


def test_only_a_think_block_is_no_json() -> None:
    text = '<think>I will answer with {"a": 1}.</think>'
    with pytest.raises(OutputParserException) as info:
        loads(text)
    assert info.value.llm_output == text


def test_unclosed_think_block_is_no_answer() -> None:
    # Cut off while still reasoning: the draft inside the reasoning is not the answer.
    text = '<think>\nThe output should be {"a": 1} but let me double-check the'
    with pytest.raises(OutputParserException):
        loads(text)
    assert loads(text, partial=True) is None


# --------------------------------------------------------------------------- spans in prose


def test_bare_object_in_prose_is_a_span() -> None:
    text = 'Sure! Here you go: {"a": 1, "b": [true, null]} Hope that helps.'
    value, report = report_for(text)
    assert value == {"a": 1, "b": [True, None]}
    assert report.source == "span"
    assert text[report.start : report.end] == '{"a": 1, "b": [true, null]}'
    assert report.outcome == "recovered"


def test_bare_array_in_prose() -> None:
    text = 'The extracted entities are: ["Berlin", "Munich", "Hamburg"].'
    value, report = report_for(text)
    assert value == ["Berlin", "Munich", "Hamburg"]
    assert report.source == "span"


def test_placeholder_braces_before_the_real_object() -> None:
    text = 'Use {name} as placeholder. Result: {"a": 1}'
    value, report = report_for(text)
    assert value == {"a": 1}
    assert text[report.start : report.end] == '{"a": 1}'


def test_several_placeholders_and_a_set_before_the_real_object() -> None:
    text = (
        "Fill in {first_name} and {last_name}; the set {1, 2, 3} has three elements.\n"
        'Answer: {"count": 3, "template": "Hi {first_name}"}'
    )
    assert loads(text) == {"count": 3, "template": "Hi {first_name}"}


@pytest.mark.parametrize(
    "text",
    [
        '2 results found:\n[{"id": 1}, {"id": 2}]',
        '1. Here is the JSON:\n[{"id": 1}, {"id": 2}]',
        'true to the schema, here it is: [{"id": 1}, {"id": 2}]',
        '"Great question!" Here you go: [{"id": 1}, {"id": 2}]',
    ],
    ids=["count", "numbered_list", "literal_word", "quoted_prose"],
)
def test_prose_starting_like_a_json_scalar_is_not_the_answer(text: str) -> None:
    # A scalar is a value only when it is the whole text (or the whole fence); here it is prose.
    assert loads(text) == [{"id": 1}, {"id": 2}]


def test_prose_braces_after_the_object() -> None:
    text = '{"greeting": "Hello"}\n\nReplace {name} with the customer name before sending.'
    assert loads(text) == {"greeting": "Hello"}


def test_braces_inside_a_string_do_not_end_the_span() -> None:
    text = 'Here you go: {"template": "Hello {name}, your code is }{", "n": 1} Hope this helps'
    value, report = report_for(text)
    assert value == {"template": "Hello {name}, your code is }{", "n": 1}
    assert report.source == "span"


def test_brackets_inside_strings_in_an_array_span() -> None:
    text = 'Tokens: ["a]", "[b", "c}"] end.'
    assert loads(text) == ["a]", "[b", "c}"]


def test_escaped_quotes_inside_a_span() -> None:
    text = 'Output: {"q": "She said \\"hi {there}\\"", "ok": true} done'
    assert loads(text) == {"q": 'She said "hi {there}"', "ok": True}


def test_apostrophes_in_the_prose_do_not_open_strings() -> None:
    text = (
        'I\'ve put the user\'s data here: {"user": "Ada", "note": "it\'s {fine}"} '
        "- it's all there, isn't it?"
    )
    assert loads(text) == {"user": "Ada", "note": "it's {fine}"}


def test_python_dict_in_prose() -> None:
    text = "Here is the dict: {'name': 'x', 'tags': ['a', 'b']} which you can use directly."
    value, report = report_for(text)
    assert value == {"name": "x", "tags": ["a", "b"]}
    assert "single_quotes" in report.repair_names


def test_truncated_object_after_prose_is_completed_not_replaced_by_an_inner_object() -> None:
    # A nested object is balanced and clean, but it is part of the answer, not the answer.
    text = (
        "Here is the JSON:\n\n"
        '{"user": {"id": 7, "name": "Ada"}, "orders": [{"id": 1}, {"id": 2, "total": 9'
    )
    value, report = report_for(text)
    assert value == {"user": {"id": 7, "name": "Ada"}, "orders": [{"id": 1}, {"id": 2, "total": 9}]}
    assert report.truncated


def test_truncated_whole_text_is_completed_not_replaced_by_an_inner_object() -> None:
    text = '{"meta": {"v": 2}, "rows": [[1, 2], [3, 4'
    value, report = report_for(text)
    assert value == {"meta": {"v": 2}, "rows": [[1, 2], [3, 4]]}
    assert report.truncated


# --------------------------------------------------------------------------- several values


def test_two_top_level_objects_first_wins() -> None:
    assert loads('{"a": 1} {"a": 2}') == {"a": 1}


def test_json_lines_first_wins() -> None:
    assert loads('{"event": "start"}\n{"event": "stop"}\n') == {"event": "start"}


def test_fewer_repairs_beats_earlier_position_within_fences() -> None:
    text = (
        "```json\n{'score': 7,}\n```\n"
        "Sorry, that was not valid JSON. Corrected:\n"
        '```json\n{"score": 8}\n```'
    )
    value, report = report_for(text)
    assert value == {"score": 8}
    assert not report.repaired


def test_fewer_repairs_beats_earlier_position_within_spans() -> None:
    text = "First attempt: {'a': 1,} - no wait, proper JSON: {\"a\": 2}"
    assert loads(text) == {"a": 2}


def test_equal_repairs_earlier_position_wins() -> None:
    text = 'Option A: {"pick": "a"}  Option B: {"pick": "b"}'
    assert loads(text) == {"pick": "a"}


def test_iter_candidates_is_in_rank_order() -> None:
    text = 'Inline example: {"s": 1}\n<json>{"t": 1}</json>\n```json\n{"f": 1}\n```\n'
    candidates = list(iter_candidates(text))
    keys = [(RANK[r.source], r.cost, r.start) for _, r in candidates]
    assert keys == sorted(keys)
    distinct: list[object] = []
    for value, _ in candidates:
        if value not in distinct:
            distinct.append(value)
    assert distinct[:3] == [{"f": 1}, {"t": 1}, {"s": 1}]


def test_decode_matches_loads_and_raises_the_engine_error() -> None:
    text = 'Result: {"a": [1, 2,]}'
    value, report = decode(text)
    assert value == {"a": [1, 2]}
    assert "trailing_comma" in report.repair_names
    with pytest.raises(JsonEngineError) as info:
        decode("No JSON in this answer, sorry.")
    assert not isinstance(info.value, OutputParserException)


# --------------------------------------------------------------------------- BOM


def test_bom_before_an_object() -> None:
    value, report = report_for('\ufeff{"a": 1}')
    assert value == {"a": 1}
    assert "bom" in report.repair_names


def test_bom_before_a_fence() -> None:
    assert loads('\ufeff```json\n{"a": [1]}\n```') == {"a": [1]}


# --------------------------------------------------------------------------- no JSON at all


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n\t ",
        "Sorry, I can't help with that request.",
        "The answer is 42.",
        "The answer is null.",
        "yarn",
        "```json\n```",
        "```\n\n```",
        "<json></json>",
        "Please provide the {customer_name} first.",
    ],
    ids=[
        "empty",
        "whitespace",
        "refusal",
        "number_in_prose",
        "null_in_prose",
        "bare_word",
        "empty_json_fence",
        "empty_plain_fence",
        "empty_tag",
        "placeholder_only",
    ],
)
def test_no_json_value_raises(text: str) -> None:
    with pytest.raises(OutputParserException) as info:
        loads(text)
    assert info.value.llm_output == text
    assert loads(text, partial=True) is None
