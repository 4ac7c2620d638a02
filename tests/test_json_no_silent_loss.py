"""No silent data loss: the whole payload wins, members after a stray closer are kept, further
top-level values and every repair's JSON path are in the report; LangChain's partial semantics
for top-level scalars and open strings."""

from __future__ import annotations

from typing import Any

import pytest

from langchain_robust_parsers import loads
from langchain_robust_parsers.engine.json.decode import decode


def test_whole_payload_beats_a_fragment_inside_it() -> None:
    value, report = decode('[{"a": -100.00}, {"a": -2,000.00}]')
    assert value == [{"a": -100.0}, {"a": -2000.0}]
    assert report.source == "whole"
    assert report.repair_names == ("thousands_separator",)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"items":[{"a":{"b":1}}}],"size":50}', {"items": [{"a": {"b": 1}}], "size": 50}),
        ('{"a": {"b": 1}}}, "c": 2}', {"a": {"b": 1}, "c": 2}),
        ('{"a": [1, 2]]], "b": 3}', {"a": [1, 2], "b": 3}),
    ],
)
def test_an_extra_closer_does_not_end_the_root_while_members_follow(
    text: str, expected: Any
) -> None:
    value, report = decode(text)
    assert value == expected
    assert "extra_closer" in report.repair_names


def test_several_top_level_values_are_reported_as_dropped() -> None:
    text = '{"a": 1}\n{"a": 2}\n{"a": 3}'
    value, report = decode(text)
    assert value == {"a": 1}
    assert report.dropped_values == (text.index('{"a": 2}'), text.index('{"a": 3}'))
    assert report.outcome == "recovered"
    assert report.to_dict()["dropped_values"] == list(report.dropped_values)


def test_several_fenced_blocks_are_reported_as_dropped() -> None:
    text = '```json\n{"a": 1}\n```\nor\n```json\n{"b": 2}\n```'
    value, report = decode(text)
    assert value == {"a": 1}
    assert report.dropped_values == (text.index('{"b": 2}'),)
    assert report.outcome == "recovered"


def test_prose_after_a_value_is_not_a_dropped_value() -> None:
    _value, report = decode('{"a": 1}\nThat is all.')
    assert report.dropped_values == ()


def test_a_clean_document_reports_success() -> None:
    _value, report = decode('{"a": [1, 2]}')
    assert report.outcome == "success"
    assert report.dropped_values == ()


def test_repairs_carry_the_json_path_where_they_fired() -> None:
    text = '{"items": [{"price": 1}, {"price": 1,299.99}], "note": hello, \'x\': True}'
    _value, report = decode(text)
    paths = {r.name: r.path for r in report.repairs}
    assert paths["thousands_separator"] == "/items/1/price"
    assert paths["unquoted_string"] == "/note"
    assert paths["python_literal"] == "/x"
    assert all("path" in r for r in report.to_dict()["repairs"])  # type: ignore[attr-defined]


def test_path_escapes_slashes_and_tildes() -> None:
    _value, report = decode('{"a/b": {"c~d": .5}}')
    assert [r.path for r in report.repairs] == ["/a~1b/c~0d"]


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ('{"a": 1, // it\'s "x"\n "b": [1, 2 3]}', "/b/1"),
        ('{"a": 1, # say "hi\n "b": {"c": True}}', "/b/c"),
        ('{"a": 1, /* "q\' */ "b": {"c": None}}', "/b/c"),
        ('{"url": http://x.com/a, "b": {"c": True}}', "/b/c"),
    ],
)
def test_quotes_in_a_comment_or_a_bare_url_do_not_shift_later_paths(text: str, path: str) -> None:
    _value, report = decode(text)
    assert report.repairs[-1].path == path


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('"abc', "abc"),
        ("2.", 2),
        ('"hello\nworld"', "hello\nworld"),
        ('{"a":2.', {"a": 2}),
        ('{"foo": "bar", "bar": "foo}', {"foo": "bar", "bar": "foo}"}),
        ("-7.", -7),
        ('"', ""),
        # Cut between the halves of a surrogate pair: the character is not there yet.
        ('{"e": "ok \\ud83d', {"e": "ok "}),
        ('{"e": "ok \\ud83d\\ude', {"e": "ok "}),
        ('{"a": `unfinis', {"a": "unfinis"}),
        ('{"n": 1,299.', {"n": 1299}),
    ],
)
def test_stream_prefixes_follow_langchain_parse_partial_json(text: str, expected: Any) -> None:
    assert loads(text, partial=True) == expected


def test_a_complete_text_still_reads_closers_after_an_open_string_as_a_missing_quote() -> None:
    # Not a stream prefix: the model closed the object and forgot the quote.
    assert loads('{"key": "value}') == {"key": "value"}


def test_a_top_level_scalar_is_returned_only_when_it_is_the_whole_text() -> None:
    assert loads('"abc', partial=False) == "abc"
    assert loads("12 apples", partial=True) is None
    assert loads('"Sure!" here you go', partial=True) is None


def test_a_repaired_key_carries_its_members_path() -> None:
    _value, report = decode("{'a': {b: None}}")
    assert [(r.name, r.path) for r in report.repairs] == [
        ("single_quotes", "/a"),
        ("unquoted_key", "/a/b"),
        ("python_literal", "/a/b"),
    ]


def test_a_list_where_a_key_belongs_does_not_lose_the_object() -> None:
    # Before: the object failed and the span `["x"]` inside it was returned instead.
    value, report = decode('{"tags": ["x"], "n": 1, ["extra"]}')
    assert value == {"tags": ["x"], "n": 1, "extra": None}
    assert report.source == "whole"
    assert "missing_value" in report.repair_names
