"""DESIGN.md "Reliability rules" for the JSON engine's public face.

Any ``str``: a value or ``OutputParserException``, never another exception, never a hang; valid
JSON comes back exactly as ``json.loads`` reads it; deep nesting, megabyte inputs and pathological
repetition stay linear.
"""

from __future__ import annotations

import contextlib
import json
import math
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from cpu_clock import best_cpu_seconds
from hypothesis import HealthCheck, assume, given, settings, strategies as st
from langchain_core.exceptions import OutputParserException

from langchain_robust_parsers import loads, repair_json

# A linear implementation handles every hostile input below in well under 2 s; a quadratic one
# needs minutes on the megabyte inputs, so this budget separates them with a wide margin.
TIME_BUDGET_S = 5.0

FUZZ = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
ROUND_TRIP = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_FAILED = object()


def value_or_error(text: str, **kwargs: Any) -> Any:
    """``loads(text)``, or ``_FAILED`` when it raised ``OutputParserException`` (anything else
    propagates and fails the test)."""
    try:
        return loads(text, **kwargs)
    except OutputParserException as exc:
        assert exc.llm_output == text
        return _FAILED


def assert_json_shaped(value: Any) -> None:
    """Only JSON's types come back: dicts with ``str`` keys, lists, str, int, float, bool, None."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            assert all(isinstance(k, str) for k in item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        else:
            assert item is None or isinstance(item, (str, int, float, bool)), type(item)


def finite(value: Any) -> Any:
    """``value`` with NaN and infinities replaced by ``None`` (what ``repair_json`` writes)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite(v) for v in value]
    return value


def _reject_constant(name: str) -> Any:
    raise AssertionError(f"repair_json wrote the non-JSON constant {name}")


# --------------------------------------------------------------------------- strategies

# Characters and tokens that steer a lenient parser into its repair paths.
PUNCTUATION = st.text(alphabet="{}[]\",:'\\ \n\t0123456789abcdefnrtuls-+.eE#/*`", max_size=200)
TOKENS = st.sampled_from(
    [
        "{",
        "}",
        "[",
        "]",
        '"',
        "'",
        ":",
        ",",
        "\\",
        " ",
        "\n",
        "\t",
        "true",
        "fal",
        "null",
        "None",
        "True",
        "NaN",
        "-Infinity",
        "...",
        "…",
        "12",
        "-",
        "1e5",
        "0.",
        "\\u00",
        '\\"',
        "“",
        "”",
        "‘",
        "’",
        "(",
        ")",
        "+",
        "//",
        "/*",
        "*/",
        "#",
        "```json\n",
        "```",
        "~~~",
        "<think>",
        "</think>",
        "<json>",
        "</json>",
        "<output>",
        "key",
        "a b",
        "\ufeff",
        "\x00",
        "\r",
        '"k": ',
        "'v', ",
        '{"a": 1}',
    ]
)
TOKEN_SOUP = st.lists(TOKENS, max_size=80).map("".join)
MESSY = st.one_of(st.text(max_size=300), PUNCTUATION, TOKEN_SOUP)

JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(st.text(max_size=10), children, max_size=5),
    ),
    max_leaves=30,
)
JSON_CONTAINERS = st.one_of(
    st.lists(JSON_VALUES, max_size=6),
    st.dictionaries(st.text(max_size=10), JSON_VALUES, max_size=6),
)
DUMPS_OPTIONS = st.fixed_dictionaries(
    {
        "indent": st.sampled_from([None, 0, 1, 2, 4, "\t"]),
        "ensure_ascii": st.booleans(),
    }
)
# Prose as a model writes it around a payload, without braces, brackets, fences or tags. It
# starts with a word, so the whole text never starts with a JSON scalar.
PROSE_TAIL = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJ ,.!?:;'-\n", max_size=80)
PROSE_BEFORE = PROSE_TAIL.map(lambda s: "Here is the result" + s + "\n")
PROSE_AFTER = PROSE_TAIL.map(lambda s: "\n" + s)


def _looks_double_encoded(value: Any) -> bool:
    return isinstance(value, str) and value.strip()[:1] in ("{", "[")


# --------------------------------------------------------------------------- arbitrary text


@FUZZ
@given(MESSY)
def test_loads_gives_a_value_or_output_parser_exception(text: str) -> None:
    value = value_or_error(text)
    if value is not _FAILED:
        assert_json_shaped(value)


@FUZZ
@given(MESSY)
def test_loads_without_truncation_gives_a_value_or_output_parser_exception(text: str) -> None:
    value = value_or_error(text, allow_truncated=False)
    if value is not _FAILED:
        assert_json_shaped(value)


@FUZZ
@given(MESSY)
def test_partial_loads_never_raises(text: str) -> None:
    value = loads(text, partial=True)
    assert_json_shaped(value)


@FUZZ
@given(MESSY)
def test_repair_json_always_writes_valid_json_that_agrees_with_loads(text: str) -> None:
    try:
        out = repair_json(text)
    except OutputParserException:
        assert value_or_error(text) is _FAILED
        return
    decoded = json.loads(out, parse_constant=_reject_constant)
    assert decoded == finite(loads(text))
    out_unicode = repair_json(text, ensure_ascii=False, indent=2)
    assert json.loads(out_unicode, parse_constant=_reject_constant) == decoded


@FUZZ
@given(MESSY)
def test_separate_calls_never_share_mutable_values(text: str) -> None:
    first = value_or_error(text)
    second = value_or_error(text)
    assert json.dumps(first, default=repr) == json.dumps(second, default=repr)
    if isinstance(first, (dict, list)):
        assert first is not second
        if isinstance(first, dict):
            first["__mutated__"] = 1
            assert "__mutated__" not in second
        else:
            first.append("__mutated__")
            assert "__mutated__" not in second


# --------------------------------------------------------------------------- valid JSON


@ROUND_TRIP
@given(JSON_VALUES, DUMPS_OPTIONS)
def test_valid_json_comes_back_exactly(value: Any, options: dict[str, Any]) -> None:
    assume(not _looks_double_encoded(value))
    doc = json.dumps(value, **options)
    assert loads(doc) == json.loads(doc)
    assert loads(doc, allow_truncated=False) == json.loads(doc)
    assert loads(doc, partial=True) == json.loads(doc)


@ROUND_TRIP
@given(JSON_VALUES, DUMPS_OPTIONS, st.sampled_from(["```json", "```", "```JSON", "~~~json"]))
def test_valid_json_in_a_fence_comes_back_exactly(
    value: Any, options: dict[str, Any], fence: str
) -> None:
    assume(not _looks_double_encoded(value))
    doc = json.dumps(value, **options)
    closer = "~~~" if fence.startswith("~") else "```"
    text = f"Sure! Here it is:\n\n{fence}\n{doc}\n{closer}\n\nAnything else?"
    assert loads(text) == json.loads(doc)


@ROUND_TRIP
@given(JSON_CONTAINERS, DUMPS_OPTIONS, PROSE_BEFORE, PROSE_AFTER)
def test_valid_json_in_prose_comes_back_exactly(
    value: Any, options: dict[str, Any], before: str, after: str
) -> None:
    doc = json.dumps(value, **options)
    assert loads(before + doc + after) == json.loads(doc)


@ROUND_TRIP
@given(JSON_VALUES)
def test_repair_json_of_valid_json_is_json_dumps(value: Any) -> None:
    assume(not _looks_double_encoded(value))
    doc = json.dumps(value, indent=2)
    assert repair_json(doc) == json.dumps(json.loads(doc))


@ROUND_TRIP
@given(JSON_CONTAINERS, DUMPS_OPTIONS, st.data())
def test_a_cut_off_document_gives_a_value_of_its_type_and_never_raises(
    value: Any, options: dict[str, Any], data: st.DataObject
) -> None:
    doc = json.dumps(value, **options)
    cut = data.draw(st.integers(min_value=0, max_value=len(doc)), label="cut")
    prefix = doc[:cut]

    partial = loads(prefix, partial=True)
    assert partial is None or type(partial) is type(value)
    assert_json_shaped(partial)

    completed = value_or_error(prefix)
    assert completed is _FAILED or type(completed) is type(value)

    strict = value_or_error(prefix, allow_truncated=False)
    if prefix.rstrip() == doc.rstrip():
        assert partial == completed == strict == json.loads(doc)
    else:
        # A cut-off container is an error when truncation is not allowed, never a fragment.
        assert strict is _FAILED


# --------------------------------------------------------------------------- hostile inputs


class _Overtime(BaseException):
    """Raised from a SIGPROF handler; a BaseException so that no ``except Exception`` in the
    code under test swallows it."""


def _on_overtime(signum: int, frame: Any) -> None:
    raise _Overtime


def _timed(fn: Callable[[], Any], budget: float = TIME_BUDGET_S) -> tuple[Any, float]:
    """``fn()`` and the CPU time it took; fails the test as soon as ``budget`` CPU seconds have
    passed (pytest-timeout is not a dependency), so a quadratic path fails fast instead of
    hanging. CPU time, not wall time, so that a busy machine does not fail the test."""
    use_timer = (
        hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    )
    previous = signal.signal(signal.SIGPROF, _on_overtime) if use_timer else None
    start = time.process_time()
    try:
        if use_timer:
            signal.setitimer(signal.ITIMER_PROF, budget)
        result = fn()
    except _Overtime:
        pytest.fail(f"still running after the {budget:.0f} s CPU budget")
    finally:
        if use_timer:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, previous)
    return result, time.process_time() - start


HOSTILE: dict[str, Callable[[], str]] = {
    "nested_brackets_100k": lambda: "[" * 100_000,
    "nested_objects_100k": lambda: '{"a":' * 100_000,
    "nested_mixed_50k": lambda: '{"a": [' * 50_000,
    "open_braces_1mb": lambda: "{" * 1_000_000,
    "quotes_1mb": lambda: '"' * 1_000_000,
    "backslashes_200k": lambda: "\\" * 200_001,
    "backslashes_in_string": lambda: '{"a": "' + "\\" * 200_001 + '"}',
    "closers_1mb": lambda: "}]" * 500_000,
    "fence_openers": lambda: "```json\n{\n" * 50_000,
    "think_openers": lambda: "<think>" * 100_000,
    "think_closers": lambda: "</think>" * 100_000,
    "unclosed_string_then_fragments": lambda: '{"text": "unclosed' + ', "x": 1' * 50_000,
    "inner_quotes": lambda: '{"a": "' + 'x "y" ' * 50_000 + '"}',
    "colons_and_commas": lambda: '{"a"' + ":," * 200_000,
    "ellipses": lambda: "[" + "..., " * 100_000 + "]",
    "comment_openers": lambda: '{"a": 1 ' + "/*" * 200_000,
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_input_gives_a_value_or_an_error_quickly(name: str) -> None:
    text = HOSTILE[name]()
    value, elapsed = _timed(lambda: value_or_error(text))
    assert elapsed < TIME_BUDGET_S, f"{name}: loads took {elapsed:.2f} s"
    if value is not _FAILED:
        assert_json_shaped(value)
    _, elapsed = _timed(lambda: loads(text, partial=True))
    assert elapsed < TIME_BUDGET_S, f"{name}: partial loads took {elapsed:.2f} s"


def _prose_then_object() -> str:
    prose = "The quick brown fox jumps over the lazy dog. It's a sentence, isn't it? " * 15_000
    return prose[:1_000_000] + '\nFinal answer: {"answer": "yes", "confidence": 0.9}'


def _placeholders_then_object() -> str:
    return "Use {name} here. " * 20_000 + '{"a": 1}'


def _cut_inside_a_string() -> tuple[str, list[dict[str, Any]]]:
    items = [{"id": i, "text": "lorem ipsum " * 8} for i in range(1_000)]
    doc = json.dumps(items)
    cut = doc.index('"lorem ipsum', len(doc) // 2) + len('"lorem')
    return doc[:cut], items


def test_megabyte_of_prose_then_a_small_object() -> None:
    assert loads(_prose_then_object()) == {"answer": "yes", "confidence": 0.9}


def test_many_placeholders_then_the_object() -> None:
    assert loads(_placeholders_then_object()) == {"a": 1}


@pytest.mark.slow
def test_many_repairs_in_one_large_document() -> None:
    text = "[" + "{'a': True, 'b': None,}, " * 50_000 + "]"
    value, elapsed = _timed(lambda: loads(text))
    assert value == [{"a": True, "b": None}] * 50_000
    assert elapsed < TIME_BUDGET_S


def test_large_document_cut_off_inside_a_string() -> None:
    text, items = _cut_inside_a_string()
    value = loads(text)
    assert isinstance(value, list)
    assert value[:-1] == items[: len(value) - 1]
    assert value[-1] == {"id": len(value) - 1, "text": "lorem"}


@pytest.mark.slow
@pytest.mark.parametrize(
    "make",
    [_prose_then_object, _placeholders_then_object, lambda: _cut_inside_a_string()[0]],
    ids=["prose-then-object", "placeholders-then-object", "cut-inside-a-string"],
)
def test_large_inputs_stay_within_the_cpu_budget(make: Callable[[], str]) -> None:
    text = make()
    _, elapsed = _timed(lambda: loads(text))
    assert elapsed < TIME_BUDGET_S


def test_moderate_nesting_comes_back_exactly() -> None:
    nested: Any = []
    for _ in range(499):
        nested = [nested]
    text = "[" * 500 + "]" * 500
    assert loads(text) == nested
    assert loads(text, partial=True) == nested


def test_moderate_nesting_with_a_repair() -> None:
    expected: Any = [1]
    for _ in range(49):
        expected = [expected]
    assert loads("[" * 50 + "1," + "]" * 50) == expected


@pytest.mark.slow
@pytest.mark.parametrize("depth", [2_000, 20_000])
def test_deep_valid_nesting_gives_a_value_or_an_error(depth: int) -> None:
    # Beyond the C decoder's recursion limit: RecursionError must not escape.
    for text in ("[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth):
        value = value_or_error(text)
        if value is not _FAILED:
            assert_json_shaped(value)
        assert_json_shaped(loads(text, partial=True))
        with contextlib.suppress(OutputParserException):
            json.loads(repair_json(text))


# --------------------------------------------------------------------------- linear growth


def _document_with_errors(size: int) -> tuple[str, int]:
    """A list of ~2 KB records, each with one error (alternately a trailing comma or a
    single-quoted string), about ``size`` characters long; returns the text and record count."""
    filler = "lorem ipsum dolor sit amet " * 70
    records = []
    total = 0
    i = 0
    while total < size:
        if i % 2:
            record = f'{{"id": {i}, "text": "{filler}", "tag": \'odd\'}}'
        else:
            record = f'{{"id": {i}, "text": "{filler}", "tag": "even",}}'
        records.append(record)
        total += len(record) + 2
        i += 1
    return "[" + ",\n".join(records) + "]", len(records)


def _best_time(text: str, repeats: int = 5) -> float:
    loads(text)  # warm up
    return best_cpu_seconds(lambda: loads(text), repeats)


@pytest.mark.slow
def test_repair_time_grows_linearly() -> None:
    small, n_small = _document_with_errors(100_000)
    large, n_large = _document_with_errors(400_000)
    value = loads(large)
    assert len(value) == n_large
    assert value[1]["tag"] == "odd"
    assert value[2]["tag"] == "even"
    t_small = _best_time(small)
    t_large = _best_time(large)
    # 4x the input may cost at most 6x the CPU time (a quadratic path would cost 16x), plus a
    # few ms of slack for timer resolution.
    assert t_large <= 6 * t_small + 0.005, (t_small, t_large, n_small)
