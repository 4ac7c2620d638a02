"""Python call syntax: the node table, bounded arithmetic, layouts, shape scan, hostile text."""

from __future__ import annotations

import ast
import time
from pathlib import Path
from typing import Any

import pytest

from langchain_robust_parsers.engine.calls.parsed_call import CallDecodeError, ParsedCall
from langchain_robust_parsers.engine.calls.python_calls import (
    MAX_ARGUMENT_DEPTH,
    MAX_ARITH_DEPTH,
    MAX_SYNTAX_DEPTH,
    NOT_EVALUABLE,
    decode_python_calls,
    evaluate_arithmetic,
    iter_prose_calls,
    matching_close,
    scan_shape,
)
from langchain_robust_parsers.engine.repair_log import RepairLog

HOSTILE_SECONDS = 2.0
"""Every hostile input answers well within this (they take milliseconds; CI machines vary)."""


def calls(text: str, **kwargs: Any) -> list[dict[str, dict[str, Any]]]:
    return [{c.name: c.args} for c in decode_python_calls(text, **kwargs)]


def arg(value_text: str) -> Any:
    """The value of one keyword argument written as ``value_text``."""
    ((call,),) = [decode_python_calls(f"[f(x={value_text})]")]
    return call.args["x"]


def repairs(text: str, **kwargs: Any) -> list[str]:
    log = RepairLog()
    decode_python_calls(text, log=log, **kwargs)
    return [r.name for r in log.repairs]


# --------------------------------------------------------------------------- the node table


@pytest.mark.parametrize(
    ("source", "value"),
    [
        ("'Paris'", "Paris"),
        ('"a" "b"', "ab"),  # implicit concatenation is one constant
        ("42", 42),
        ("-5", -5),
        ("+5", 5),  # BFCL negates every unary operand (+5 -> -5); we do not
        ("-(-5)", 5),
        ("2.5e-3", 0.0025),
        ("None", None),
        ("True", True),
        ("true", True),
        ("false", False),
        ("null", None),
        ("...", "..."),
        ("[1, 'two', [3]]", [1, "two", [3]]),
        ("(1, 2)", [1, 2]),  # tuples are lists, as JSON has them
        ("{1, 2}", [1, 2]),
        ("{'a': 1, 'b': [True, None]}", {"a": 1, "b": [True, None]}),
        ("celsius", "celsius"),  # an unquoted identifier is kept as text
        ("math.pi", "math.pi"),
        ("h(2)", "h(2)"),  # a nested call without keywords is its source text
        ("g(y=1)", {"g": {"y": 1}}),  # with keywords, a nested call
        ("m.g(y=[1, 2])", {"m.g": {"y": [1, 2]}}),
        ("arr[0]", "arr[0]"),
        ("data['k'][1:3]", "data['k'][1:3]"),
        ("lambda x: x + 1", "lambda x: x + 1"),
        ("f'{name}!'", "f'{name}!'"),
        ("a < b", "a < b"),
        ("x if y else z", "x if y else z"),
        ("-x", "-x"),
        ("not done", "not done"),
        ("1j", 1j),
    ],
)
def test_node_table(source: str, value: Any) -> None:
    got = arg(source)
    assert got == value
    assert type(got) is type(value)


def test_dict_keys_are_resolved_and_unhashable_keys_become_text() -> None:
    assert arg("{(1, 2): 'pair', true: 1}") == {"(1, 2)": "pair", True: 1}


def test_dict_unpacking_is_kept_as_text() -> None:
    assert arg("{**base, 'a': 1}") == "{**base, 'a': 1}"


def test_huge_integer_literal_is_text() -> None:
    literal = "0x" + "f" * 2000  # 8000 bits: too wide to print as decimal downstream
    assert arg(literal) == literal


def test_nested_call_positional_follows_the_option() -> None:
    (call,) = decode_python_calls("[f(x=g(1, y=2))]", positional="keep")
    assert call.args == {"x": {"g": {"arg0": 1, "y": 2}}}
    assert arg("g(1, y=2)") == {"g": {"y": 2}}


# --------------------------------------------------------------------------- arithmetic


@pytest.mark.parametrize(
    ("source", "value"),
    [
        ("2**3", 8),
        ("1/4", 0.25),
        ("7//2", 3),
        ("7 % 3", 1),
        ("3 * 4 + 1", 13),
        ("-2 ** 2", -4),
        ("1 + 2j", 1 + 2j),
        ("2 ** -1", 0.5),
        ("'ab' + 'cd'", "abcd"),
        ("'ab' * 3", "ababab"),
        ("3 * '-'", "---"),
        ("~5", -6),
    ],
)
def test_arithmetic_on_literals(source: str, value: Any) -> None:
    assert arg(source) == value


@pytest.mark.slow
@pytest.mark.parametrize(
    "source",
    [
        "10**10**10",  # refused before any work: its exponent is far past the bound
        "2**100000",
        "(10**300) * (10**300)",
        "2.0 ** 5000",  # a float overflow
        "1e308 * 10",  # infinity is not a value JSON has
        "1/0",
        "5 % 0",
        "'x' * 10**9",
        "True + 1",  # booleans are not numbers here
        "1 << 10",  # shifts and bit operations stay text
        "x + 1",
        "len('abc') * 2",
        "[1] + [2]",
    ],
)
def test_arithmetic_beyond_the_rules_stays_text(source: str) -> None:
    started = time.process_time()
    assert arg(source) == ast.unparse(ast.parse(source, mode="eval").body)
    assert time.process_time() - started < HOSTILE_SECONDS


def test_arithmetic_depth_is_bounded() -> None:
    short = " + ".join(["1"] * (MAX_ARITH_DEPTH // 2))
    assert arg(short) == MAX_ARITH_DEPTH // 2
    long = " + ".join(["1"] * (MAX_ARITH_DEPTH + 5))
    assert arg(long) == long


def test_evaluate_arithmetic_never_looks_at_names_or_calls() -> None:
    for source in ("__import__('os').getpid()", "x", "f(1) + 1", "a.b * 2"):
        node = ast.parse(source, mode="eval").body
        assert evaluate_arithmetic(node) is NOT_EVALUABLE


# --------------------------------------------------------------------------- calls and names


def test_positional_arguments_are_dropped_by_default_and_reported() -> None:
    assert calls("[f(1, 2, x=3)]") == [{"f": {"x": 3}}]
    assert "positional_args_dropped" in repairs("[f(1, 2, x=3)]")


def test_positional_arguments_can_be_kept() -> None:
    assert calls("[f(1, 'b', *rest, x=3)]", positional="keep") == [
        {"f": {"arg0": 1, "arg1": "b", "arg2": "*rest", "x": 3}}
    ]


def test_keyword_unpacking() -> None:
    assert calls("[f(a=1, **{'b': 2})]") == [{"f": {"a": 1, "b": 2}}]
    assert calls("[f(a=1, **opts)]") == [{"f": {"a": 1, "**": "opts"}}]


def test_repeated_keyword_keeps_the_last() -> None:
    assert calls("[f(a=1, a=2)]") == [{"f": {"a": 2}}]


def test_dotted_names() -> None:
    assert calls("[a.b.c.d(x=1)]") == [{"a.b.c.d": {"x": 1}}]


def test_gemini_print_and_default_api_are_unwrapped() -> None:
    text = "print(default_api.get_weather(city='Paris'))"
    assert calls(text) == [{"get_weather": {"city": "Paris"}}]
    assert repairs(text) == ["print_wrapper", "gemini_default_api"]


def test_print_with_keywords_is_a_call_named_print() -> None:
    assert calls("print(message='hi')") == [{"print": {"message": "hi"}}]


@pytest.mark.parametrize(
    "text",
    ["[f()(x=1)]", "[a[0].f(x=1)]", "[__import__('os').system(cmd='ls')]", "[(lambda: 1)()]"],
)
def test_a_call_must_be_named(text: str) -> None:
    with pytest.raises(CallDecodeError) as info:
        decode_python_calls(text)
    assert str(info.value).startswith("Failed to decode AST: Expected a function name")


# --------------------------------------------------------------------------- layouts


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("[f(a=1), g(b=2)]", None),
        ("f(a=1), g(b=2)", None),
        ("f(a=1)\ng(b=2)", "one_call_per_line"),
        ("f(a=1); g(b=2);", "one_call_per_line"),
        ("f(a=1),\ng(b=2)", "added_brackets"),
        ("[f(a=1), g(b=2)", "added_brackets"),
        ("f(a=1), g(b=2)]", "added_brackets"),
        ("'[f(a=1), g(b=2)]'", "quoted_calls"),
        ('"f(a=1); g(b=2)"', "quoted_calls"),  # then one_call_per_line
        ("``[f(a=1), g(b=2)]``", None),
        ("  \n[f(a=1), g(b=2)];\n", None),
        ("[f(a=1)]\n[g(b=2)]", "one_call_per_line"),
    ],
)
def test_layouts(text: str, rule: str | None) -> None:
    assert calls(text) == [{"f": {"a": 1}}, {"g": {"b": 2}}]
    assert repairs(text)[:1] == ([] if rule is None else [rule])


def test_single_call() -> None:
    assert calls("get_time(tz='UTC')") == [{"get_time": {"tz": "UTC"}}]


def test_empty_text_and_empty_list_are_no_calls() -> None:
    assert decode_python_calls("") == []
    assert decode_python_calls(" `` ") == []
    assert decode_python_calls("[]") == []


def test_strings_keep_semicolons_newlines_and_brackets() -> None:
    text = "[run(sql=\"SELECT 1; -- ]\", note='a\\nb', pat=r'\\d+(')]"
    assert calls(text) == [{"run": {"sql": "SELECT 1; -- ]", "note": "a\nb", "pat": "\\d+("}}]


def test_invalid_escape_does_not_warn(recwarn: pytest.WarningsRecorder) -> None:
    assert calls("[grep(pattern='\\d+')]") == [{"grep": {"pattern": "\\d+"}}]
    assert not [w for w in recwarn if issubclass(w.category, (SyntaxWarning, DeprecationWarning))]


def test_cut_off_list_keeps_its_complete_calls() -> None:
    log = RepairLog()
    got = decode_python_calls('[get_weather(city="Paris"), get_time(tz="Europe/Pa', log=log)
    assert [c.name for c in got] == ["get_weather"]
    assert log.truncated
    assert [r.name for r in log.repairs] == ["truncated_call_dropped"]


def test_cut_off_lines_keep_their_complete_calls() -> None:
    assert calls("f(a=1)\ng(b=2)\nh(c=[1, 2") == [{"f": {"a": 1}}, {"g": {"b": 2}}]


def test_a_lone_cut_off_call_is_an_error() -> None:
    with pytest.raises(CallDecodeError, match="Failed to decode AST: Invalid syntax"):
        decode_python_calls('get_weather(city="Par')


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1, 2]", "Expected AST Call node, but got Constant"),
        ("[f(a=1), 'x']", "Expected AST Call node, but got Constant"),
        ("x = f(a=1)", "Expected AST Call node, but got Assign"),
        ("import os", "Expected AST Call node, but got Import"),
        ("[get_weather(city='Paris']", "Invalid syntax"),
        ("def f(): pass", "Expected AST Call node, but got FunctionDef"),
    ],
)
def test_errors_say_what_was_wrong(text: str, message: str) -> None:
    with pytest.raises(CallDecodeError) as info:
        decode_python_calls(text)
    assert info.value.kind == "ast"
    assert str(info.value).startswith("Failed to decode AST: ")
    assert message in str(info.value)


def test_parsed_call_fields() -> None:
    (call,) = decode_python_calls("[f(a=1)]")
    assert call == ParsedCall("f", {"a": 1}, None)


def test_values_are_fresh_objects_each_time() -> None:
    first = decode_python_calls("[f(a=[1])]")[0].args["a"]
    first.append(2)
    assert decode_python_calls("[f(a=[1])]")[0].args["a"] == [1]


# --------------------------------------------------------------------------- shape scan


def test_scan_shape_counts_brackets_and_operator_runs() -> None:
    assert scan_shape("[f(a=[1, 2])]").end_depth == 0
    assert scan_shape("(" * 20, bound=10).too_deep_at == 10
    assert scan_shape("f(x=" + "-" * 50 + "1)", bound=10).too_deep_at >= 0
    assert scan_shape("f(x=" + "not " * 50 + "y)", bound=10).too_deep_at >= 0
    assert scan_shape("f" + "()" * 50, bound=10).too_deep_at >= 0
    assert scan_shape("a" + ".b" * 50, bound=10).too_deep_at >= 0


def test_scan_shape_separators_end_operator_chains() -> None:
    assert scan_shape("[f(a=-1, b=-2, c=-3, d=-4)]", bound=4).too_deep_at == -1
    assert scan_shape("-1\n-1\n-1\n-1", bound=2).too_deep_at == -1


def test_scan_shape_skips_strings_and_comments() -> None:
    shape = scan_shape("[f(a='((((((((', b=\"]]]]\", c='''(((\n'''), # ((((\n]", bound=4)
    assert shape.too_deep_at == -1
    assert shape.end_depth == 0


def test_scan_shape_sees_where_a_text_was_cut() -> None:
    shape = scan_shape('[f(a=1), g(b="x')
    assert shape.cut_off and shape.end_in_string
    assert shape.last_item_comma == len("[f(a=1)")
    shape = scan_shape("f(a=1)\ng(b=[1")
    assert shape.cut_off and shape.end_depth == 2
    assert shape.last_top_separator == len("f(a=1)")


def test_matching_close() -> None:
    text = "call f(a=')', b=[1, (2)]) now"
    assert matching_close(text, 6, len(text)) == text.index(" now") - 1
    assert matching_close("f(a=[1)", 1, 7) == -1  # a closer that does not match
    assert matching_close("f(a='x", 1, 6) == -1
    assert (
        matching_close("(" * (MAX_SYNTAX_DEPTH + 5) + ")" * (MAX_SYNTAX_DEPTH + 5), 0, 1000) == -1
    )


# --------------------------------------------------------------------------- prose


def spans(text: str) -> list[str]:
    return [text[a:b] for a, b in iter_prose_calls(text, 0, len(text), [])]


def test_prose_calls_with_keywords_are_found() -> None:
    text = "First I'll call get_weather(city='Paris') and then get_time(tz='CET')."
    assert spans(text) == ["get_weather(city='Paris')", "get_time(tz='CET')"]


def test_prose_calls_on_their_own_line_or_in_inline_code() -> None:
    text = "Calling now:\n\nget_time()\n\n- list_files()\nOr run `refresh()` yourself."
    assert spans(text) == ["get_time()", "list_files()", "refresh()"]


def test_prose_math_is_not_a_call() -> None:
    assert spans("The derivative f(x) grows, and g(2) = 4 (roughly).") == []


def test_prose_bracketed_list() -> None:
    assert spans("Answer: [f(a=1), g(b=2)] done") == ["[f(a=1), g(b=2)]"]


def test_prose_skips_regions() -> None:
    text = "draft: f(a=1)\nfinal: g(b=2)"
    assert [text[a:b] for a, b in iter_prose_calls(text, 0, len(text), [(0, 13)])] == ["g(b=2)"]


# --------------------------------------------------------------------------- hostile input


SENTINEL = Path("/tmp/langchain_robust_parsers_sentinel_should_not_exist")

HOSTILE = {
    "import": f"[f(x=__import__('pathlib').Path('{SENTINEL}').touch())]",
    "import_top": f"__import__('pathlib').Path('{SENTINEL}').touch()",
    "lambda": f"[f(x=(lambda: __import__('pathlib').Path('{SENTINEL}').touch())())]",
    "dunder": "[f(x=().__class__.__bases__[0].__subclasses__())]",
    "binop_code": f"[f(x=1 + __import__('pathlib').Path('{SENTINEL}').touch())]",
    "huge_exponent": "[f(x=10**10**10**10)]",
    "huge_power_chain": "[f(x=" + "9**" * 40 + "9)]",
    "nested_brackets": "[f(x=" + "[" * 100_000 + "]" * 100_000 + ")]",
    "unclosed_brackets": "[" * 100_000,
    "unary_minus": "[f(x=" + "-" * 100_000 + "1)]",
    "plus_one_chain": "[f(x=1" + "+1" * 100_000 + ")]",
    "not_chain": "[f(x=" + "not " * 50_000 + "y)]",
    "call_chain": "[f(x=g" + "()" * 50_000 + ")]",
    "attribute_chain": "[f(x=a" + ".b" * 50_000 + ")]",
    "lambda_chain": "[f(x=" + "lambda: " * 20_000 + "1)]",
    "many_calls": "[" + ", ".join(["f(a=1)"] * 5_000) + "]",
    "big_decimal": "[f(x=" + "9" * 10_000 + ")]",
    "null_byte": "[f(x='a\x00b')]",
    "many_quotes": "'" * 100_001,
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_input_runs_nothing_and_answers_fast(name: str) -> None:
    started = time.process_time()
    try:
        decode_python_calls(HOSTILE[name])
    except CallDecodeError as err:
        assert str(err).startswith("Failed to decode AST: ")
    assert time.process_time() - started < HOSTILE_SECONDS
    assert not SENTINEL.exists()


def test_deep_but_legal_values_are_an_error_not_a_crash() -> None:
    depth = MAX_ARGUMENT_DEPTH + 5
    text = "[f(x=" + "[" * depth + "]" * depth + ")]"
    assert depth < MAX_SYNTAX_DEPTH
    with pytest.raises(CallDecodeError, match="nested deeper"):
        decode_python_calls(text)
