"""Over-escaped JSON: quotes written with one layer of escaping too many (``escaped_quotes``).

gpt-oss and other models sometimes print a value, or a nested object, as if it were inside a
JSON string: ``{"query": \\"foo\\"}``. A backslash-quote where a string must open cannot start
anything in JSON, so it is read as the opening quote of such a string; a backslash-quote inside
a real string is an ordinary escaped quote and stays data. Cut answers and streams show what the
string holds so far, never the backslash.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_json_partial_routes import assert_only_grows, grows_into

from langchain_robust_parsers import RobustJsonOutputParser, loads
from langchain_robust_parsers.engine.json.decode import decode

OVER_ESCAPED: list[tuple[str, Any, list[str]]] = [
    # (text, value, paths of the escaped_quotes repairs)
    (r'{"query": \"weather in Paris\"}', {"query": "weather in Paris"}, ["/query"]),
    (r'{"query":\"x\", "limit": 5}', {"query": "x", "limit": 5}, ["/query"]),
    ('{"query":\n    \\"x\\"\n}', {"query": "x"}, ["/query"]),
    (r'{"args": {\"city\": \"Oslo\"}}', {"args": {"city": "Oslo"}}, ["/args/city", "/args/city"]),
    (r'{"tags": [\"a\", \"b\"]}', {"tags": ["a", "b"]}, ["/tags/0", "/tags/1"]),
    (r'{"tags": [\"a\",\"b\"], "n": 1}', {"tags": ["a", "b"], "n": 1}, ["/tags/0", "/tags/1"]),
    (r'{"q": \"\"}', {"q": ""}, ["/q"]),
    # the inner layer's escapes are decoded once: a quote, a backslash, a newline, a code point
    (r'{"say": \"he said \\\"hi\\\"\"}', {"say": 'he said "hi"'}, ["/say"]),
    (r'{"path": \"C:\\\\temp\"}', {"path": "C:\\temp"}, ["/path"]),
    (r'{"text": \"one\\ntwo\"}', {"text": "one\ntwo"}, ["/text"]),
    (r'{"city": \"Z\\u00fcrich\"}', {"city": "Zürich"}, ["/city"]),
    # mixed with ordinary members, which keep their own escaped quotes
    (
        r'{"title": "The \"Raven\"", "author": \"Poe\"}',
        {"title": 'The "Raven"', "author": "Poe"},
        ["/author"],
    ),
]


@pytest.mark.parametrize(("text", "expected", "paths"), OVER_ESCAPED)
def test_an_over_escaped_value_is_read_and_reported(
    text: str, expected: Any, paths: list[str]
) -> None:
    value, report = decode(text)
    assert value == expected
    assert [r.path for r in report.repairs if r.name == "escaped_quotes"] == paths
    assert report.outcome == "recovered"


@pytest.mark.parametrize(
    "wrapper", ["{}", "```json\n{}\n```", "Here is the call:\n{}\nLet me know.", "<json>{}</json>"]
)
def test_over_escaped_json_is_read_wherever_it_is(wrapper: str) -> None:
    text = wrapper.replace("{}", r'{"tool": "search", "args": {\"q\": \"llamas\", \"k\": 3}}')
    assert RobustJsonOutputParser().parse(text) == {
        "tool": "search",
        "args": {"q": "llamas", "k": 3},
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a backslash-quote inside a real string is an escaped quote: data, never structure
        (r'{"a": "\"quoted\" first"}', {"a": '"quoted" first'}),
        (r'{"a": "last \"quoted\""}', {"a": 'last "quoted"'}),
        (r'["\"x\"", "y"]', ['"x"', "y"]),
        (r'{"a": ["\"x\", \"y\""]}', {"a": ['"x", "y"']}),
        # JSON inside a string value stays a string
        (r'{"payload": "{\"id\": 7, \"ok\": true}"}', {"payload": '{"id": 7, "ok": true}'}),
        (r'{"args": "{\"q\": \"x\"}", "n": 1}', {"args": '{"q": "x"}', "n": 1}),
        (r'"\"quoted\""', '"quoted"'),
        (r'{"dir": "C:\\", "n": 1}', {"dir": "C:\\", "n": 1}),
    ],
)
def test_escaped_quotes_inside_strings_stay_data(text: str, expected: Any) -> None:
    value, report = decode(text)
    assert value == expected
    assert "escaped_quotes" not in [r.name for r in report.repairs]


def test_a_whole_object_written_escaped_is_read() -> None:
    value, report = decode(r"{\"name\": \"Ada\", \"langs\": [\"en\", \"fr\"]}")
    assert value == {"name": "Ada", "langs": ["en", "fr"]}
    assert "escaped_quotes" in [r.name for r in report.repairs]


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [
        (r'{"query": \"', {"query": ""}),
        (r'{"query": \"weath', {"query": "weath"}),
        (r'{"query": \"weath\\', {"query": "weath"}),  # half an escape
        (r'{"query": \"a \\\"b', {"query": 'a "b'}),
        ('{"query": \\', {}),  # half the opening quote
        (r'{"args": {\"ci', {"args": {}}),  # a key is shown only once whole
        (r'{"args": {\"city\"', {"args": {}}),
        (r'{"args": {\"city\": \"Os', {"args": {"city": "Os"}}),
        (r'{"tags": [\"a\", \"b', {"tags": ["a", "b"]}),
    ],
)
def test_a_cut_over_escaped_string_holds_what_it_read(prefix: str, expected: Any) -> None:
    assert loads(prefix, partial=True) == expected
    assert loads(prefix) == expected  # cut off for good: the same value, reported truncated


@pytest.mark.parametrize("text", [case[0] for case in OVER_ESCAPED])
@pytest.mark.parametrize("size", [1, 2, 5])
def test_an_over_escaped_stream_only_grows_and_ends_as_parse(text: str, size: int) -> None:
    parser = RobustJsonOutputParser()
    chunks = [text[i : i + size] for i in range(0, len(text), size)]
    values = list(parser.transform(iter(chunks)))
    assert values[-1] == parser.parse(text)
    assert_only_grows(values)


@pytest.mark.parametrize("text", [case[0] for case in OVER_ESCAPED])
def test_every_prefix_of_an_over_escaped_answer_grows_into_it(text: str) -> None:
    final = loads(text)
    for k in range(1, len(text)):
        value = loads(text[:k], partial=True)
        assert value is None or grows_into(value, final), text[:k]


def test_the_repair_never_fires_on_strict_json() -> None:
    doc = {"a": 'x "y" z', "b": ['"', "\\", '\\"'], "c": {"d": '{"e": "f"}'}}
    text = json.dumps(doc)
    value, report = decode(text)
    assert value == doc and not report.repairs
