"""The bulk repair route (whole-document lexical rewrite at C speed) reads what the scanner
would, and its repairs point at the characters they changed."""

from __future__ import annotations

import json

import pytest

from langchain_robust_parsers.parsers.json_text import loads_with_report

CASES = [
    # (text, value, [(repair, the text at its offset)])
    (
        '{a: "x\\"y", b: "z:w", c: [1, 2], d: True}',
        {"a": 'x"y', "b": "z:w", "c": [1, 2], "d": True},
        [
            ("unquoted_key", "a:"),
            ("unquoted_key", "b:"),
            ("unquoted_key", "c:"),
            ("unquoted_key", "d:"),
            ("python_literal", "True"),
        ],
    ),
    (
        '{a: "he said \\"hi\\", b: no", b: "x"}',
        {"a": 'he said "hi", b: no', "b": "x"},
        [("unquoted_key", "a:"), ("unquoted_key", "b:")],
    ),
    (
        "{'a': 'say \"hi\"', 'b': None}",
        {"a": 'say "hi"', "b": None},
        [
            ("single_quotes", "'a'"),
            ("single_quotes", "'say"),
            ("single_quotes", "'b'"),
            ("python_literal", "None"),
        ],
    ),
    (
        '{a: 1, // a "quoted" note, c: 3\n b: "x"}',
        {"a": 1, "b": "x"},
        [("unquoted_key", "a:"), ("comment", "//"), ("unquoted_key", "b:")],
    ),
    (
        '{"a": "x", "b": \'y\', "c": [1,],}',
        {"a": "x", "b": "y", "c": [1]},
        [("single_quotes", "'y'"), ("trailing_comma", ",]"), ("trailing_comma", ",}")],
    ),
    (
        '{"a": "x", b: "y", "c": "z, d: 1 // not a comment"}',
        {"a": "x", "b": "y", "c": "z, d: 1 // not a comment"},
        [("unquoted_key", "b:")],
    ),
    (
        '{"a": "x", b : "y", "n": 1e5, "t": [true, False]}',
        {"a": "x", "b": "y", "n": 1e5, "t": [True, False]},
        [("unquoted_key", "b :"), ("python_literal", "False")],
    ),
]


@pytest.mark.parametrize(("text", "value", "repairs"), CASES)
def test_bulk_rewrite_value_and_offsets(
    text: str, value: object, repairs: list[tuple[str, str]]
) -> None:
    got, report = loads_with_report(text)
    assert got == value
    assert len(report.repairs) == len(repairs)
    for r, (name, at) in zip(report.repairs, repairs, strict=True):
        assert (r.name, text[r.pos : r.pos + len(at)]) == (name, at)


def test_many_rewrites_are_counted_beyond_the_listed_ones() -> None:
    doc = {f"key_{i}": [i, None, True, f"it's {i}"] for i in range(300)}
    got, report = loads_with_report(repr(doc))
    assert got == json.loads(json.dumps(doc))
    assert 0 < len(report.repairs) < 300 * 4
    first = report.repairs[0]
    assert first.name == "single_quotes" and first.pos == 1 and first.path == "/key_0"


def test_unquoted_keys_with_escaped_quotes_keep_every_string_whole() -> None:
    doc = {f"k{i}": f'say "{i}" then \\ back, k{i}: x' for i in range(200)}
    text = json.dumps(doc, indent=2)
    unquoted = text.replace('"k', "k").replace('":', ":")
    got, report = loads_with_report(unquoted)
    assert got == doc
    assert all(r.name == "unquoted_key" for r in report.repairs)
    assert all(unquoted[r.pos] == "k" for r in report.repairs)
