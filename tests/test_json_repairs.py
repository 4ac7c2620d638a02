"""Every named repair rule of the JSON engine, their combinations, and truncation semantics.

Each group holds inputs modelled on what chat models write, the value a user expects and the
repair name the report must carry (DESIGN.md "JSON conventions", "Repairs").
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from langchain_core.exceptions import OutputParserException

from langchain_robust_parsers import loads, repair_json
from langchain_robust_parsers.engine import JsonEngineError, decode
from langchain_robust_parsers.parsers.json_text import loads_with_report


def check(text: str, expected: Any, *names: str) -> None:
    """``text`` decodes to ``expected``, complete (not truncated), with ``names`` reported."""
    value, report = loads_with_report(text)
    assert value == expected
    assert report is not None
    for name in names:
        assert name in report.repair_names, (name, report.repair_names)
    assert not report.truncated
    assert report.outcome == "recovered"
    # Repairs of a complete text are not truncation: they hold with allow_truncated=False too.
    assert loads(text, allow_truncated=False) == expected


# --------------------------------------------------------------------------- bom


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('\ufeff{"a": 1}', {"a": 1}),
        ("\ufeff[1, 2]", [1, 2]),
        ('\ufeff\n```json\n{"ok": true}\n```', {"ok": True}),
    ],
)
def test_bom(text: str, expected: Any) -> None:
    check(text, expected, "bom")


# --------------------------------------------------------------------------- think_block


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('<think>Simple lookup.</think>{"a": 1}', {"a": 1}),
        ("<thinking>\nThree items.\n</thinking>\n[1, 2, 3]", [1, 2, 3]),
        ('<reasoning>x</reasoning> {"b": false}', {"b": False}),
        ('Let me reason about {this}...\n</think>\n{"c": null}', {"c": None}),
    ],
)
def test_think_block(text: str, expected: Any) -> None:
    check(text, expected, "think_block")


# --------------------------------------------------------------------------- trailing_comma


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"name": "Ada", "langs": ["en", "fr",],}', {"name": "Ada", "langs": ["en", "fr"]}),
        ('{\n  "title": "Dune",\n  "year": 1965,\n}', {"title": "Dune", "year": 1965}),
        ("[1, 2, 3, ]", [1, 2, 3]),
        ('[\n  {"id": 1},\n  {"id": 2},\n]', [{"id": 1}, {"id": 2}]),
    ],
)
def test_trailing_comma(text: str, expected: Any) -> None:
    check(text, expected, "trailing_comma")


def test_a_comma_inside_a_string_is_not_a_trailing_comma() -> None:
    check('{"csv": "a,b,", "n": 1,}', {"csv": "a,b,", "n": 1}, "trailing_comma")


# --------------------------------------------------------------------------- comment


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{\n  "a": 1, // the id\n  "b": 2\n}', {"a": 1, "b": 2}),
        ('{"timeout": 30 /* seconds */, "retries": 2}', {"timeout": 30, "retries": 2}),
        ('{\n  "count": 1,  # items in the cart\n  "total": 9.5\n}', {"count": 1, "total": 9.5}),
        ('[\n  /* first */ "x",\n  // second\n  "y"\n]', ["x", "y"]),
    ],
)
def test_comment(text: str, expected: Any) -> None:
    check(text, expected, "comment")


def test_comment_markers_inside_strings_are_data() -> None:
    check(
        '{"url": "https://example.com/a#b", "glob": "src/**/*.py", "n": 1 // note\n}',
        {"url": "https://example.com/a#b", "glob": "src/**/*.py", "n": 1},
        "comment",
    )


# --------------------------------------------------------------------------- single_quotes


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{'name': 'Ada', 'age': 36}", {"name": "Ada", "age": 36}),
        ("{\"name\": 'Ada', 'tags': [\"x\", 'y']}", {"name": "Ada", "tags": ["x", "y"]}),
        ("{'msg': 'It\\'s fine'}", {"msg": "It's fine"}),
        ("{'quote': 'She said \"hi\"'}", {"quote": 'She said "hi"'}),
    ],
)
def test_single_quotes(text: str, expected: Any) -> None:
    check(text, expected, "single_quotes")


# --------------------------------------------------------------------------- smart_quotes


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{“name”: “Ada”, “role”: “admin”}", {"name": "Ada", "role": "admin"}),
        ("{‘a’: ‘b’}", {"a": "b"}),
        ("[“red”, “green”]", ["red", "green"]),
    ],
)
def test_smart_quotes(text: str, expected: Any) -> None:
    check(text, expected, "smart_quotes")


def test_smart_quotes_inside_a_real_string_are_kept() -> None:
    check(
        '{"quote": "He said “hello”", "n": 1,}',
        {"quote": "He said “hello”", "n": 1},
        "trailing_comma",
    )


# --------------------------------------------------------------------------- unquoted_key


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{name: "Ada", age: 36}', {"name": "Ada", "age": 36}),
        ("{user_id: 7, is_admin: false}", {"user_id": 7, "is_admin": False}),
        (
            '{config: {max_tokens: 256, stop: ["###"]}}',
            {"config": {"max_tokens": 256, "stop": ["###"]}},
        ),
        ('{$ref: "#/defs/a"}', {"$ref": "#/defs/a"}),
    ],
)
def test_unquoted_key(text: str, expected: Any) -> None:
    check(text, expected, "unquoted_key")


# --------------------------------------------------------------------------- python_literal


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '{"ok": True, "error": None, "retry": False}',
            {"ok": True, "error": None, "retry": False},
        ),
        ("[True, False, None]", [True, False, None]),
        ('{"note": "True or None", "v": None}', {"note": "True or None", "v": None}),
    ],
)
def test_python_literal(text: str, expected: Any) -> None:
    check(text, expected, "python_literal")


# --------------------------------------------------------------------------- tuple


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"point": (1, 2)}', {"point": [1, 2]}),
        ('[("a", 1), ("b", 2)]', [["a", 1], ["b", 2]]),
        (
            "{'bbox': (10, 20, 30, 40), 'label': 'cat'}",
            {"bbox": [10, 20, 30, 40], "label": "cat"},
        ),
        ('{"single": (1,), "empty": ()}', {"single": [1], "empty": []}),
    ],
)
def test_tuple(text: str, expected: Any) -> None:
    check(text, expected, "tuple")


# --------------------------------------------------------------------------- string_concat


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"text": "Hello " + "world"}', {"text": "Hello world"}),
        ("{'sql': 'SELECT * ' 'FROM t'}", {"sql": "SELECT * FROM t"}),
        (
            '{"prompt": "line one\\n" +\n           "line two"}',
            {"prompt": "line one\nline two"},
        ),
    ],
)
def test_string_concat(text: str, expected: Any) -> None:
    check(text, expected, "string_concat")


# --------------------------------------------------------------------------- inner_quote


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '{"title": "The "Great" Gatsby", "year": 1925}',
            {"title": 'The "Great" Gatsby', "year": 1925},
        ),
        (
            '{"answer": "He said "no" and left"}',
            {"answer": 'He said "no" and left'},
        ),
        (
            '{"product": "32" monitor", "stock": 4}',
            {"product": '32" monitor', "stock": 4},
        ),
        (
            '["27" display", "keyboard"]',
            ['27" display', "keyboard"],
        ),
    ],
)
def test_inner_quote(text: str, expected: Any) -> None:
    check(text, expected, "inner_quote")


def test_seed_000_inner_quotes_with_comment_and_missing_brace() -> None:
    text = (
        "\n    {\n"
        '        "actions": [\n'
        "            {\n"
        '                "action_type": "INPUT_TEXT",\n'
        '                "text": "Hello "world"",  // Unescaped quotes\n'
        '                "element_id": "input-field"\n'
        "            }\n"
        "        ]\n    "
    )
    value, report = loads_with_report(text)
    assert value["actions"][0]["text"] == 'Hello "world"'
    assert value == {
        "actions": [
            {"action_type": "INPUT_TEXT", "text": 'Hello "world"', "element_id": "input-field"}
        ]
    }
    assert report is not None
    assert "inner_quote" in report.repair_names
    assert "comment" in report.repair_names
    assert report.truncated or "missing_closer" in report.repair_names


# --------------------------------------------------------------------------- control_character


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            '{"poem": "Roses are red\nViolets are blue"}',
            {"poem": "Roses are red\nViolets are blue"},
        ),
        ('{"tsv": "name\tage\nAda\t36"}', {"tsv": "name\tage\nAda\t36"}),
        ('{"dos": "line1\r\nline2"}', {"dos": "line1\r\nline2"}),
        (
            # A literal line break right before the closing quote is layout, not content.
            '{"code": "def f():\n    return 1\n", "lang": "python"}',
            {"code": "def f():\n    return 1", "lang": "python"},
        ),
    ],
)
def test_control_character(text: str, expected: Any) -> None:
    check(text, expected, "control_character")


# --------------------------------------------------------------------------- missing_comma


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1 "b": 2}', {"a": 1, "b": 2}),
        ('{\n  "first": "x"\n  "second": "y"\n}', {"first": "x", "second": "y"}),
        ('{"a": {"x": 1} "b": [1] "c": true}', {"a": {"x": 1}, "b": [1], "c": True}),
        ("[1 2 3]", [1, 2, 3]),
    ],
)
def test_missing_comma(text: str, expected: Any) -> None:
    check(text, expected, "missing_comma")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[{"id": 1} {"id": 2}]', [{"id": 1}, {"id": 2}]),
        ('[\n  {"id": 1}\n  {"id": 2}\n  {"id": 3}\n]', [{"id": 1}, {"id": 2}, {"id": 3}]),
        ('{"rows": [[1, 2] [3, 4]]}', {"rows": [[1, 2], [3, 4]]}),
    ],
)
def test_missing_comma_between_containers_in_a_list(text: str, expected: Any) -> None:
    check(text, expected, "missing_comma")


# --------------------------------------------------------------------------- missing_colon


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a" 1, "b" 2}', {"a": 1, "b": 2}),
        ('{"name" "Ada", "age" 36}', {"name": "Ada", "age": 36}),
        ('{"items" [1, 2]}', {"items": [1, 2]}),
    ],
)
def test_missing_colon(text: str, expected: Any) -> None:
    check(text, expected, "missing_colon")


# --------------------------------------------------------------------------- missing_closer


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[{"id": 1, {"id": 2}]', [{"id": 1}, {"id": 2}]),
        ('{"a": [1, 2, "b": 3}', {"a": [1, 2], "b": 3}),
        ('```json\n{"user": {"name": "Ada"}\n```', {"user": {"name": "Ada"}}),
        ('<json>{"a": {"b": 1}</json>', {"a": {"b": 1}}),
    ],
    ids=["object_in_list", "array_in_object", "fenced", "tagged"],
)
def test_missing_closer(text: str, expected: Any) -> None:
    # A closer missing before more content, or before the end of a closed fence or tag: the
    # model finished but forgot a bracket; that is a repair, not truncation.
    check(text, expected, "missing_closer")


def test_wrong_closer_kind() -> None:
    # langchain returns None here; we repair the array's missing ']'.
    value, report = loads_with_report('{"coords": [48.85, 2.35}')
    assert value == {"coords": [48.85, 2.35]}
    assert report is not None
    assert {"missing_closer", "extra_closer"} & set(report.repair_names)


# --------------------------------------------------------------------------- extra_closer


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}}', {"a": 1}),
        ("[1, 2, 3]]", [1, 2, 3]),
        ('```json\n{"a": {"b": 1}}}\n```', {"a": {"b": 1}}),
    ],
)
def test_extra_closer_at_the_end_never_gives_none(text: str, expected: Any) -> None:
    assert loads(text) == expected
    assert loads(text, partial=True) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"items": [1, 2]], "n": 2}', {"items": [1, 2], "n": 2}),
        ('{"a": {"b": 1}}, "c": {"d": 2}}', {"a": {"b": 1}, "c": {"d": 2}}),
        ('[{"id": 1}}, {"id": 2}]', [{"id": 1}, {"id": 2}]),
    ],
)
def test_extra_closer_inside(text: str, expected: Any) -> None:
    check(text, expected, "extra_closer")


# --------------------------------------------------------------------------- ellipsis


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[1, 2, 3, ...]", [1, 2, 3]),
        ('{"items": ["a", "b", ...], "total": 10}', {"items": ["a", "b"], "total": 10}),
        ('{"a": 1, ...}', {"a": 1}),
        ('[{"id": 1}, {"id": 2}, ...]', [{"id": 1}, {"id": 2}]),
    ],
)
def test_ellipsis(text: str, expected: Any) -> None:
    check(text, expected, "ellipsis")


def test_ellipsis_inside_a_string_is_data() -> None:
    check('{"text": "Wait...", "more": [1, ...]}', {"text": "Wait...", "more": [1]}, "ellipsis")


# --------------------------------------------------------------------------- double_encoded


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (r'"{\"name\": \"Ada\", \"age\": 36}"', {"name": "Ada", "age": 36}),
        (r'"[{\"id\": 1}, {\"id\": 2}]"', [{"id": 1}, {"id": 2}]),
        ('```json\n"{\\"a\\": 1}"\n```', {"a": 1}),
    ],
)
def test_double_encoded(text: str, expected: Any) -> None:
    check(text, expected, "double_encoded")


def test_double_encoded_with_a_repairable_inner_document() -> None:
    check(r'"{\"a\": 1,}"', {"a": 1}, "double_encoded")
    check(r'"{\"a\": [1, 2,], \"b\": True}"', {"a": [1, 2], "b": True}, "double_encoded")


def test_a_json_string_inside_an_object_stays_a_string() -> None:
    # OpenAI-style tool arguments are a JSON string on purpose: only the top level is unwrapped.
    text = '{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}'
    value, report = loads_with_report(text)
    assert value == {"name": "get_weather", "arguments": '{"city": "Paris"}'}
    assert report is not None
    assert report.outcome == "success"


@pytest.mark.parametrize("text", ['"hello"', '"42"', '"true"', '"null"', '""'])
def test_a_top_level_string_that_is_not_a_container_stays_a_string(text: str) -> None:
    value, report = loads_with_report(text)
    assert value == json.loads(text)
    assert report is not None
    assert "double_encoded" not in report.repair_names


# --------------------------------------------------------------------------- invalid_escape


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"path": "C:\\Users\\Ada\\Documents"}', {"path": "C:\\Users\\Ada\\Documents"}),
        ('{"pattern": "\\d+\\.\\d+"}', {"pattern": "\\d+\\.\\d+"}),
        (
            '{"latex": "\\(x^2\\) and \\sqrt{2}"}',
            {"latex": "\\(x^2\\) and \\sqrt{2}"},
        ),
        ('{"price": "\\$5", "ok": "line\\nbreak"}', {"price": "\\$5", "ok": "line\nbreak"}),
    ],
)
def test_invalid_escape_keeps_the_backslash(text: str, expected: Any) -> None:
    check(text, expected, "invalid_escape")


# --------------------------------------------------------------------------- unquoted_string


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"city": Paris, "country": France}', {"city": "Paris", "country": "France"}),
        ('{"name": John Smith, "age": 30}', {"name": "John Smith", "age": 30}),
        (
            '{"action": click, "target": submit-button}',
            {"action": "click", "target": "submit-button"},
        ),
        ("[red, green, blue]", ["red", "green", "blue"]),
    ],
)
def test_unquoted_string(text: str, expected: Any) -> None:
    check(text, expected, "unquoted_string")


# --------------------------------------------------------------------------- missing_value


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"name": "Ada", "email": , "age": 36}', {"name": "Ada", "email": None, "age": 36}),
        ('{"a": }', {"a": None}),
        ('{\n  "x": 1,\n  "y":\n}', {"x": 1, "y": None}),
        ('{"delta": -, "n": 2}', {"delta": None, "n": 2}),
    ],
)
def test_missing_value_keeps_the_key_with_null(text: str, expected: Any) -> None:
    # DESIGN: the key a schema asks for is still there, and null (not json_repair's "") tells a
    # missing answer from an empty one; the report names the repair.
    check(text, expected, "missing_value")


# --------------------------------------------------------------------------- NaN and Infinity


def test_nan_and_infinity_are_accepted() -> None:
    value, report = loads_with_report('{"loss": NaN, "best": Infinity, "worst": -Infinity}')
    assert math.isnan(value["loss"])
    assert value["best"] == math.inf
    assert value["worst"] == -math.inf
    assert report is not None
    assert report.outcome == "success"


def test_nan_in_a_repaired_document() -> None:
    value = loads("{'loss': NaN, 'acc': 0.9,}")
    assert math.isnan(value["loss"])
    assert value["acc"] == 0.9


# --------------------------------------------------------------------------- combinations


def test_python_repr_with_everything() -> None:
    check(
        "{'name': 'Ada', 'active': True, 'score': None, 'tags': ('a', 'b'),}",
        {"name": "Ada", "active": True, "score": None, "tags": ["a", "b"]},
        "single_quotes",
        "python_literal",
        "tuple",
        "trailing_comma",
    )


def test_javascript_object_literal() -> None:
    check(
        "{\n  // user profile\n  name: 'Ada',\n  langs: ['en', 'fr',],\n  admin: false,\n}",
        {"name": "Ada", "langs": ["en", "fr"], "admin": False},
        "comment",
        "unquoted_key",
        "single_quotes",
        "trailing_comma",
    )


def test_think_fence_comment_and_trailing_comma() -> None:
    check(
        "<think>The user needs two fields.</think>\nHere you go:\n"
        '```json\n{\n  "a": 1, // first\n  "b": [2, 3,],\n}\n```',
        {"a": 1, "b": [2, 3]},
        "think_block",
        "comment",
        "trailing_comma",
    )


def test_missing_commas_and_unquoted_keys_in_a_list() -> None:
    check(
        "[\n  {id: 1, name: 'a'}\n  {id: 2, name: 'b'}\n]",
        [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}],
        "missing_comma",
        "unquoted_key",
        "single_quotes",
    )


def test_smart_quotes_and_literal_newline() -> None:
    check(
        "{“summary”: “First line.\nSecond line.”}",
        {"summary": "First line.\nSecond line."},
        "smart_quotes",
        "control_character",
    )


def test_ellipsis_with_comment_and_trailing_comma() -> None:
    check(
        '{\n  "users": [\n    {"id": 1},\n    // ... more users\n    ...,\n  ],\n}',
        {"users": [{"id": 1}]},
        "ellipsis",
        "trailing_comma",
    )


# --------------------------------------------------------------------------- repair positions


def test_repair_positions_are_offsets_into_the_original_text() -> None:
    text = 'Here is the config:\n```json\n{"a": 1,}\n```'
    value, report = loads_with_report(text)
    assert value == {"a": 1}
    assert report is not None
    (trailing,) = [r for r in report.repairs if r.name == "trailing_comma"]
    comma = text.index(",}")
    assert comma <= trailing.pos <= comma + 1
    assert report.start <= trailing.pos < report.end


def test_comment_position() -> None:
    text = '{"a": 1, // note\n "b": 2}'
    _, report = loads_with_report(text)
    assert report is not None
    (comment,) = [r for r in report.repairs if r.name == "comment"]
    assert comment.pos == text.index("//")


# --------------------------------------------------------------------------- truncation


TRUNCATED: list[tuple[str, Any]] = [
    ('{"a": 1, "b": "hel', {"a": 1, "b": "hel"}),
    # a literal cut where its completion is unique is completed (engine/json/cut_literals)
    ('{"a": 1, "b": tr', {"a": 1, "b": True}),
    ('{"a": 1, "b": nul', {"a": 1, "b": None}),
    ("[true, fal", [True, False]),
    ('{"a": 1, "b": n', {"a": 1}),  # `n` may also open `new Date(...)`
    ('{"a": 1, "b": f', {"a": 1}),  # `f` may also open an f-string
    ('{"a": 1, "b": Tr', {"a": 1}),  # a capitalized word may be a constructor
    ('{"a": 1, "b', {"a": 1}),
    ('{"a": 1, "b"', {"a": 1}),
    ('{"a": 1, "b":', {"a": 1}),
    ('{"a": 1, "b": ', {"a": 1}),
    ('{"a": 1,', {"a": 1}),
    ('{"a": 1, "b": -', {"a": 1}),
    ('{"a": [1, 2', {"a": [1, 2]}),
    ('{"a": 12', {"a": 12}),
    ('{"a": true', {"a": True}),
    ('["a", "b', ["a", "b"]),
    ('[{"id": 1}, {"id": 2, "na', [{"id": 1}, {"id": 2}]),
    ('{"a": {"b": {"c": "deep', {"a": {"b": {"c": "deep"}}}),
    ('{"text": "He said \\"hi', {"text": 'He said "hi'}),
    ('{"a": "x\\', {"a": "x"}),
    ('{"a": "caf\\u00', {"a": "caf"}),
    ('{"lines": "one\ntwo', {"lines": "one\ntwo"}),
    ("{", {}),
    ("[", []),
    ("{'a': 'hel", {"a": "hel"}),
    ('```json\n{"a": [1, 2', {"a": [1, 2]}),
    ('Here is the JSON:\n{"name": "Ada", "bio": "Born in 18', {"name": "Ada", "bio": "Born in 18"}),
]


@pytest.mark.parametrize(("text", "expected"), TRUNCATED)
def test_truncated_input_is_completed(text: str, expected: Any) -> None:
    value, report = loads_with_report(text)
    assert value == expected
    assert report is not None
    assert report.truncated
    assert report.outcome == "recovered"


@pytest.mark.parametrize(("text", "expected"), TRUNCATED)
def test_truncated_input_as_a_stream_prefix(text: str, expected: Any) -> None:
    assert loads(text, partial=True) == expected
    # partial=True treats the text as a prefix whatever allow_truncated says.
    assert loads(text, partial=True, allow_truncated=False) == expected


@pytest.mark.parametrize(("text", "expected"), TRUNCATED)
def test_allow_truncated_false_makes_truncation_an_error(text: str, expected: Any) -> None:
    with pytest.raises(OutputParserException) as info:
        loads(text, allow_truncated=False)
    assert info.value.llm_output == text
    with pytest.raises(JsonEngineError):
        decode(text, allow_truncated=False)


def test_truncation_with_repairs_before_the_cut() -> None:
    value, report = loads_with_report("{'ok': True, 'items': [1, 2,], 'note': 'cut he")
    assert value == {"ok": True, "items": [1, 2], "note": "cut he"}
    assert report is not None
    assert report.truncated
    assert "single_quotes" in report.repair_names
    assert "python_literal" in report.repair_names


@pytest.mark.parametrize("text", ["", "Sure, here", "```json\n", "<think>still thinking"])
def test_partial_prefix_with_no_value_yet_is_none(text: str) -> None:
    assert loads(text, partial=True) is None


def test_complete_text_needs_no_truncation_allowance() -> None:
    assert loads('{"a": [1, 2]}', allow_truncated=False) == {"a": [1, 2]}
    assert loads('```json\n{"a": 1}\n```', allow_truncated=False) == {"a": 1}


# --------------------------------------------------------------------------- repair_json


def test_repair_json_returns_canonical_json() -> None:
    assert repair_json("{'a': True, 'b': None,}") == '{"a": true, "b": null}'


def test_repair_json_maps_nan_and_infinity_to_null() -> None:
    assert repair_json('{"x": NaN, "y": [Infinity, -Infinity, 1.5]}') == (
        '{"x": null, "y": [null, null, 1.5]}'
    )


def test_repair_json_ensure_ascii_and_indent() -> None:
    text = "```json\n{'city': 'Zürich', 'tags': ['Ä']}\n```"
    assert repair_json(text) == '{"city": "Z\\u00fcrich", "tags": ["\\u00c4"]}'
    assert repair_json(text, ensure_ascii=False) == '{"city": "Zürich", "tags": ["Ä"]}'
    assert repair_json(text, indent=2) == json.dumps({"city": "Zürich", "tags": ["Ä"]}, indent=2)


def test_repair_json_completes_truncated_text() -> None:
    assert repair_json('{"a": [1, 2, {"b": "c') == '{"a": [1, 2, {"b": "c"}]}'


def test_repair_json_raises_without_json() -> None:
    text = "I'm sorry, but I can't provide that information."
    with pytest.raises(OutputParserException) as info:
        repair_json(text)
    assert info.value.llm_output == text


@pytest.mark.parametrize("text", ["Use {0} and {1} here", "{0}", "Dear {name}, hello"])
def test_format_placeholders_in_prose_are_not_python_sets(text: str) -> None:
    with pytest.raises(OutputParserException):
        loads(text)


def test_python_set_reports_where_it_was_read() -> None:
    value, report = loads_with_report("{'ids': {3, 5}, 'ok': True}")
    assert value == {"ids": [3, 5], "ok": True}
    assert [(r.name, r.path) for r in report.repairs if r.name == "python_set"] == [
        ("python_set", "/ids")
    ]


# --------------------------------------------------------------------------- where a string ends
# Each input also lacks a comma or a quote, so the lenient scanner reads it; the value keeps
# every member and item the model wrote.


@pytest.mark.parametrize(
    ("text", "expected", "names"),
    [
        # An escaped curly quote is the curly quote itself; an escape JSON does not know.
        (
            '{"quote": "He said \\“hi\\” to me" "n": 1}',
            {"quote": "He said “hi” to me", "n": 1},
            ("invalid_escape", "missing_comma"),
        ),
        # Inside a curly-quoted string, an escaped closing quote is text.
        ("{“q”: “it\\”s” “n”: 1}", {"q": "it”s", "n": 1}, ("smart_quotes", "missing_comma")),
    ],
)
def test_escaped_curly_quotes(text: str, expected: Any, names: tuple[str, ...]) -> None:
    check(text, expected, *names)


@pytest.mark.parametrize(
    ("text", "expected", "names"),
    [
        # A quote followed by a key and its colon closes the value: a member follows.
        ('{"name": "Ada" age: 36}', {"name": "Ada", "age": 36}, ("missing_comma", "unquoted_key")),
        # In a list, a quote followed by a container or a number closes the item.
        ('["header" {"id": 1}]', ["header", {"id": 1}], ("missing_comma",)),
        ('["total" 42]', ["total", 42], ("missing_comma",)),
        # A bare word that runs to a line break and a comma is an item of its own.
        ('["red", green\n, "blue"]', ["red", "green", "blue"], ("unquoted_string",)),
    ],
)
def test_a_quote_before_the_next_member_or_item_closes_the_string(
    text: str, expected: Any, names: tuple[str, ...]
) -> None:
    check(text, expected, *names)


def test_a_lone_quote_after_a_code_block_closes_the_string() -> None:
    # The quote right after the fence is text; the lone quote before the comma ends the value,
    # and the next member is kept.
    text = '{"snippet": "\n```json\n{}\n```"\n",\n"lang": "json"}'
    check(text, {"snippet": '\n```json\n{}\n```"', "lang": "json"}, "inner_quote")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # The closing quote was forgotten before `, key: "value"`.
        ('{"city": "Paris, country: "France"}', {"city": "Paris", "country": "France"}),
        # ... and before `, key: value}` at the end of the text.
        ('{"city": "Paris, population: 2100000}', {"city": "Paris", "population": 2100000}),
    ],
)
def test_a_forgotten_quote_does_not_swallow_an_unquoted_key(text: str, expected: Any) -> None:
    check(text, expected, "missing_quote", "unquoted_key")


def test_negative_infinity_before_a_missing_comma() -> None:
    check('{"low": -Infinity "high": 1}', {"low": -math.inf, "high": 1}, "missing_comma")
    check("[-Infinity 2.5]", [-math.inf, 2.5], "missing_comma")


def test_a_list_closed_too_early_goes_on() -> None:
    # `["a"], ["b"]` inside an object: one list whose closer came too soon, not a lost item.
    check(
        '{"tags": ["red"], ["blue"], "count": 2}',
        {"tags": ["red", "blue"], "count": 2},
        "extra_closer",
    )


def test_a_cut_off_key_holding_the_whole_member() -> None:
    # The key's string runs to the end of the text, so the report says it was cut off.
    value, report = loads_with_report('{"user:ada}')
    assert value == {"user": "ada"}
    assert report is not None
    assert report.repair_names == ("misplaced_quote",)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": {"b": "value}}', {"a": {"b": "value"}}),
        ('{"rows": [1, {"name": "Ada}]}', {"rows": [1, {"name": "Ada"}]}),
    ],
)
def test_a_missing_closing_quote_before_every_closer(text: str, expected: Any) -> None:
    check(text, expected, "missing_quote")


@pytest.mark.parametrize(
    ("text", "value", "repair"),
    [
        ('{"price": 12 USD, "qty": 2}', {"price": 12, "qty": 2}, "stray_text"),
        ('{"a": "it" junk, "b": 1}', {"a": "it", "b": 1}, "stray_text"),
        ('{"id": 7, 42, "name": "x"}', {"id": 7, "name": "x"}, "stray_text"),
        ('{"id": 7, "name"}', {"id": 7, "name": None}, "missing_value"),
    ],
)
def test_stray_words_in_objects_are_reported_not_silently_dropped(
    text: str, value: dict[str, Any], repair: str
) -> None:
    """A word or bare value that cannot be a member is skipped, and the report says where; the
    members around it are kept (a bare value after a member once lost the whole object)."""
    got, report = loads_with_report(text)
    assert got == value
    assert repair in report.repair_names


@pytest.mark.parametrize(
    ("text", "value", "repair"),
    [
        # A row that lost its `[` in a list of rows; the next `[` opens a row, not a reopening.
        (
            '{"rows": [["a", 1], ["b", 2], "c", 3], ["d", 4]], "n": 4}',
            {"rows": [["a", 1], ["b", 2], ["c", 3], ["d", 4]], "n": 4},
            "missing_opener",
        ),
        # A repeated key in a list's object: the model forgot `}, {` (no record is lost).
        (
            '[{"id": 1, "name": "a" "id": 2, "name": "b"}]',
            [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}],
            "missing_closer",
        ),
        # A quoted word without a colon before a real key is reported, not made a member.
        ('{"a": 1, "note" "b": 2}', {"a": 1, "b": 2}, "stray_text"),
        # A decimal comma in a member's number is kept as written.
        ('{"price": 105,12, "qty": 1}', {"price": "105,12", "qty": 1}, "number_format"),
        # A comma for a colon before a number or a container.
        ('{"id", 42, "tags", ["x"]}', {"id": 42, "tags": ["x"]}, "missing_colon"),
        # Quotes around a word inside a list item: an even count keeps them in the item.
        (
            '["he said "stop" twice, ok", "b"]',
            ['he said "stop" twice, ok', "b"],
            "inner_quote",
        ),
    ],
)
def test_shapes_that_once_lost_or_regrouped_items(text: str, value: Any, repair: str) -> None:
    got, report = loads_with_report(text)
    assert got == value
    assert repair in report.repair_names


def test_a_set_of_strings_stays_a_set() -> None:
    assert loads('{"x", "y", 3}') == ["x", "y", 3]
    assert loads('[{"a": 1, "b": 2}]') == [{"a": 1, "b": 2}]


# --------------------------------------------------------------------------- escaped_quotes


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # gpt-oss style: a value's quotes escaped inside an otherwise plain object
        ('{"query": \\"foo\\"}', {"query": "foo"}),
        (
            '{"query": \\"weather in Paris\\", "limit": 3}',
            {"query": "weather in Paris", "limit": 3},
        ),
        # a nested object printed as if inside a JSON string
        ('{"a": {\\"b\\": \\"c\\"}}', {"a": {"b": "c"}}),
        (
            '{"tool": "search", "args": {\\"q\\": \\"x\\", \\"n\\": 2}}',
            {"tool": "search", "args": {"q": "x", "n": 2}},
        ),
        # an escaped quote inside an over-escaped string is a quote of the value
        ('{"a": \\"say \\\\\\"hi\\\\\\" now\\"}', {"a": 'say "hi" now'}),
        # the inner layer's own escapes are decoded once
        ('{"a": \\"line\\\\nnext\\"}', {"a": "line\nnext"}),
        ('[\\"x\\", \\"y\\"]', ["x", "y"]),
        ('{"items": [\\"x\\", 2, true]}', {"items": ["x", 2, True]}),
    ],
)
def test_escaped_quotes(text: str, expected: Any) -> None:
    check(text, expected, "escaped_quotes")


def test_escaped_quotes_inside_a_real_string_stay_data() -> None:
    assert loads('{"a": "say \\"hi\\""}') == {"a": 'say "hi"'}
    assert loads('{"code": "print(\\"x\\")", "n": 1}') == {"code": 'print("x")', "n": 1}


# --------------------------------------------------------------------------- cut literals


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('["a", t', ["a", True]),
        ('["a", fa', ["a", False]),
        ('["a", nul', ["a", None]),
        ('["a",t', ["a", True]),
        ('["a"\n  , nu', ["a", None]),
        ('{"array": ["hello", n', {"array": ["hello"]}),  # `n`: null or `new Date(...)`
        ('{"a": "x", "b": ["y", tr', {"a": "x", "b": ["y", True]}),
        ('{"a": "x", "b": fals', {"a": "x", "b": False}),
        ('["a", "b", T', ["a", "b"]),  # Python's True, cut: T may be a constructor
        ("['a', tru", ["a", True]),
    ],
)
def test_a_literal_cut_after_a_string_is_never_read_into_it(text: str, expected: Any) -> None:
    assert loads(text, partial=True) == expected
    assert loads(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('"value with \\"quoted\\" text and \\\\ escape', 'value with "quoted" text and \\ escape'),
        ('"a \\"b', 'a "b'),
        ('"tab\\there \\u00e9', "tab\there é"),
    ],
)
def test_a_cut_top_level_string_with_escapes_is_read(text: str, expected: str) -> None:
    assert loads(text, partial=True) == expected
    assert loads(text) == expected
