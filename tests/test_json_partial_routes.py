"""Partial JSON values: every reader gives the same value for the same prefix, and it only grows.

A stream prefix is read by one of four readers depending on its size, its chunks and whether it
is plain JSON: the complete-text engine (``loads(..., partial=True)``), the incremental decoder,
jiter's partial mode and the windowed reader. A user sees whichever one ran, so they must agree;
and a value once shown may only grow (a string or a list at its end, a number digit by digit),
never swallow the next item into a string nor drop a literal it showed.
"""

from __future__ import annotations

import itertools
import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from langchain_robust_parsers import RobustJsonOutputParser, loads
from langchain_robust_parsers.engine.json.cut_literals import LITERAL_COMPLETIONS
from langchain_robust_parsers.engine.json.plain_partial import NOT_PLAIN, partial_value
from langchain_robust_parsers.engine.json.stream_decoder import JsonStreamDecoder
from langchain_robust_parsers.engine.json.window_stream import WindowDecoder


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON text, so that NaN (never ``==`` to itself) counts as the same value."""
    return _as_json(a) == _as_json(b)


def grows_into(part: Any, full: Any) -> bool:
    """True when ``part`` is an earlier view of ``full``: strings are prefixes, containers hold
    the same members and items with only the last one still growing, numbers may still change
    (they show digit by digit), literals and non-finite floats are final."""
    if isinstance(full, bool) or full is None:
        return part is full
    if isinstance(full, float) and not math.isfinite(full):
        return _same(part, full)  # `NaN`, `-Infinity`: shown only once whole
    if isinstance(full, (int, float)):
        return isinstance(part, (int, float)) and not isinstance(part, bool)
    if isinstance(full, str):
        return isinstance(part, str) and full.startswith(part)
    if isinstance(full, list):
        if not isinstance(part, list) or len(part) > len(full):
            return False
        if not part:
            return True
        done = len(part) - 1
        return _same(part[:-1], full[:done]) and grows_into(part[-1], full[done])
    if isinstance(full, dict):
        keys = list(part) if isinstance(part, dict) else None
        if keys is None or keys != list(full)[: len(keys)]:
            return False
        if any(not _same(part[k], full[k]) for k in keys[:-1]):
            return False
        return not keys or grows_into(part[keys[-1]], full[keys[-1]])
    return _same(part, full)


def assert_only_grows(values: list[Any]) -> None:
    """Each value a stream yielded grows into the next one."""
    for earlier, later in itertools.pairwise(values):
        assert grows_into(earlier, later), (earlier, later)


def _by_decoder(text: str, size: int) -> Any:
    decoder = JsonStreamDecoder()
    value = None
    for i in range(0, len(text), size):
        if decoder.feed(text[i : i + size]):
            value = decoder.snapshot()
    assert not decoder.failed
    return value


def _by_window(text: str) -> Any:
    """The window's value, or `NOT_PLAIN` when it gives the text up to the decoder (it reads
    through jiter, which reads fewer texts on an older pydantic-core)."""
    window = WindowDecoder()
    window.feed(text)
    return NOT_PLAIN if window.failed else window.snapshot()


def _by_jiter(text: str) -> Any:
    """jiter's value, or `NOT_PLAIN` when it hands the text to the decoder (an older
    pydantic-core reads fewer prefixes; the stream then goes on with the other readers)."""
    return partial_value(text)


def _as_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def assert_routes_agree(prefix: str) -> Any:
    """Every reader's value for ``prefix`` (strict JSON so far, starting with its container)."""
    expected = loads(prefix, partial=True)
    if prefix.strip() == "[":
        return expected  # a lone `[` may still become `[THINK]`: the stream readers wait
    got = {
        "decoder, one chunk": _by_decoder(prefix, len(prefix)),
        "decoder, by character": _by_decoder(prefix, 1),
        "jiter": _by_jiter(prefix),
        "window": _by_window(prefix),
    }
    for route, value in got.items():
        if value is NOT_PLAIN:
            continue  # the route declined the text and handed it on: nothing shown by it
        assert _as_json(value) == _as_json(expected), (route, prefix)
    return expected


DOCUMENTS = [
    '{"ok": true, "items": ["a", false, null, "b"], "n": null, "z": [true, true]}',
    '[{"name": "Ada", "admin": false}, {"name": "Lin", "admin": true}, null]',
    '{"nested": {"deep": [null, {"v": true}]}, "s": "t", "f": "fa"}',
    '{"empty": [], "e2": {}, "last": false}',
    '["t", "fa", "nu", true, "true", false]',
    '{"text": "she wrote \\"true\\" and then, x: y", "flag": true}',
    '{\n  "done": false,\n  "tags": [\n    "x",\n    null\n  ]\n}',
    '{"score": -12.5e2, "valid": true, "next": null}',
    # Non-finite floats as Python's json.dumps writes them: a cut word is never a string.
    '{"loss": NaN, "best": -Infinity, "worst": Infinity, "step": -3}',
    "[-Infinity, 1.5, NaN, -2, Infinity]",
    '{"bounds": [-Infinity, 0], "ok": true}',
]


@pytest.mark.parametrize("doc", DOCUMENTS)
def test_every_route_reads_every_prefix_alike_and_it_grows(doc: str) -> None:
    final = json.loads(doc)
    for k in range(1, len(doc) + 1):
        value = assert_routes_agree(doc[:k])
        assert grows_into(value, final), doc[:k]


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [
        ('["a", t', ["a", True]),
        ('["a", tr', ["a", True]),
        ('["a", tru', ["a", True]),
        ('{"a": fa', {"a": False}),
        ('{"a": fals', {"a": False}),
        ('{"a": [1, nu', {"a": [1, None]}),
        ('{"a": "x", "b": nul', {"a": "x", "b": None}),
        ('["a",\n  t', ["a", True]),
        # `f` may open an f-string and `n` a `new Date(...)`: not shown until they can't
        ('{"a": f', {}),
        ('{"array": ["hello", n', {"array": ["hello"]}),
        # text in a string is never a literal
        ('["a, t', ["a, t"]),
        ('{"a": "x: nu', {"a": "x: nu"}),
    ],
)
def test_a_cut_literal_is_shown_alike_by_every_route(prefix: str, expected: Any) -> None:
    assert assert_routes_agree(prefix) == expected


def test_the_completion_table_is_what_the_docs_say() -> None:
    assert set(LITERAL_COMPLETIONS) == {"t", "tr", "tru", "fa", "fal", "fals", "nu", "nul"}
    for prefix, value in LITERAL_COMPLETIONS.items():
        (word,) = [w for w in ("true", "false", "null") if w.startswith(prefix)]
        assert json.loads(word) is value


def test_a_stream_shows_a_cut_literal_once_and_never_takes_it_back() -> None:
    text = '{"ok": true, "items": ["a", false, null], "done": true}'
    values = list(RobustJsonOutputParser().transform(iter(text)))
    assert {"ok": True} in values  # shown from the `t`
    assert {"ok": True, "items": ["a", False]} in values  # from `fa`
    final = json.loads(text)
    assert values[-1] == final
    assert_only_grows(values)


def test_a_stream_cut_inside_a_literal_ends_with_it_completed() -> None:
    parser = RobustJsonOutputParser()
    text = '{"answer": "yes", "sure": tr'
    values = list(parser.transform(iter([text[:5], text[5:20], text[20:]])))
    assert values[-1] == parser.parse(text) == {"answer": "yes", "sure": True}


_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-999, 999)
    | st.sampled_from([math.nan, math.inf, -math.inf])
    | st.text(alphabet='abc tfn,:"\\', max_size=6),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.text(alphabet="abtfn", max_size=3), children, max_size=3)
    ),
    max_leaves=10,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    value=st.lists(_json, max_size=4) | st.dictionaries(st.text(max_size=3), _json, max_size=4),
    indent=st.sampled_from([None, 1]),
)
def test_any_json_prefix_reads_alike_and_grows(value: Any, indent: int | None) -> None:
    doc = json.dumps(value, indent=indent)
    for k in range(1, len(doc) + 1):
        assert grows_into(assert_routes_agree(doc[:k]), value), doc[:k]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    value=st.lists(_json, max_size=4) | st.dictionaries(st.text(max_size=3), _json, max_size=4),
    size=st.integers(1, 9),
)
def test_streamed_values_only_grow(value: Any, size: int) -> None:
    doc = json.dumps(value)
    chunks = [doc[i : i + size] for i in range(0, len(doc), size)]
    values = list(RobustJsonOutputParser().transform(iter(chunks)))
    assert _same(values[-1], value)
    assert_only_grows(values)


@pytest.mark.parametrize("size", range(1, 9))
def test_a_streamed_non_finite_float_is_never_shown_as_a_string(size: int) -> None:
    text = '{"a": -Infinity, "b": 1, "c": NaN, "d": Infinity}'
    chunks = [text[i : i + size] for i in range(0, len(text), size)]
    values = list(RobustJsonOutputParser().transform(iter(chunks)))
    assert all(not isinstance(v, str) for value in values for v in value.values()), values
    assert _same(values[-1], {"a": -math.inf, "b": 1, "c": math.nan, "d": math.inf})
    assert_only_grows(values)
