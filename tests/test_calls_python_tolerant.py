"""Python calls that ast rejects, read by the tolerant pass (never evaluated): unescaped inner
quotes, literal line breaks in strings, leading zeros, NUL bytes."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from langchain_robust_parsers import FunctionCallOutputParser
from langchain_robust_parsers.engine.calls.dialects import decode_calls
from langchain_robust_parsers.engine.calls.python_repair import tolerant_source

CASES: list[tuple[str, list[dict[str, Any]], str]] = [
    (
        "[run_shell(cmd='grep -n 'def main' src/app.py')]",
        [{"run_shell": {"cmd": "grep -n 'def main' src/app.py"}}],
        "inner_quote_escaped",
    ),
    (
        '[post(msg="She said "ok" and left", channel="#général")]',
        [{"post": {"msg": 'She said "ok" and left', "channel": "#général"}}],
        "inner_quote_escaped",
    ),
    (
        "[book(date='2025-03-01', month=03, seats=007)]",
        [{"book": {"date": "2025-03-01", "month": 3, "seats": 7}}],
        "leading_zeros",
    ),
    (
        "[note(title='Todo', body='buy milk\ncall mum')]",
        [{"note": {"title": "Todo", "body": "buy milk\ncall mum"}}],
        "newline_in_string",
    ),
    (
        "<tool_call>[search(q='rust\x00 lang', n=2)]</tool_call>",
        [{"search": {"q": "rust lang", "n": 2}}],
        "nul_removed",
    ),
]


@pytest.mark.parametrize(("text", "expected", "repair"), CASES)
def test_tolerant_reader(text: str, expected: list[dict[str, Any]], repair: str) -> None:
    value, report = FunctionCallOutputParser().parse_with_report(text)
    assert value == expected
    assert repair in report.repair_names


def test_valid_calls_never_take_the_tolerant_path() -> None:
    text = "[f(a='x', b=\"it's\", c=0, d=0.5, e='''two\nlines''')]"
    decoded = decode_calls(text)
    assert decoded.calls[0].args == {"a": "x", "b": "it's", "c": 0, "d": 0.5, "e": "two\nlines"}
    assert decoded.report.repair_names == ()


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="f(a='\"\n0 7,)]\\\x00x", max_size=60))
def test_the_tolerant_pass_never_fails_and_keeps_the_shape(text: str) -> None:
    repaired, repairs = tolerant_source(text)
    assert isinstance(repaired, str)
    if not repairs:
        assert repaired == text
    assert "\x00" not in repaired
