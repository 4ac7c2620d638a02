"""The windowed route for plain JSON streams yields exactly what the incremental decoder yields."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from cpu_clock import best_cpu_seconds
from hypothesis import HealthCheck, given, settings, strategies as st
from langchain_core.exceptions import OutputParserException

import langchain_robust_parsers.engine.json.snapshot_policy as snapshot_policy
import langchain_robust_parsers.engine.json.window_stream as window_stream
from langchain_robust_parsers import RobustJsonOutputParser
from langchain_robust_parsers.engine.json import value_stream
from langchain_robust_parsers.engine.json.plain_partial import CUT_ESCAPES_KEPT
from langchain_robust_parsers.engine.json.stream_decoder import JsonStreamDecoder
from langchain_robust_parsers.engine.json.window_stream import WindowDecoder

_TEXT = st.text(
    st.sampled_from([*list('abc xyz"\\/[]{},:\n\té€😀0-'), "\u2028", "\x00"]), max_size=30
)
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(10**15), 10**15)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _TEXT
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(_TEXT, inner, max_size=6),
    max_leaves=40,
)
_CONTAINERS = st.lists(_VALUES, max_size=8) | st.dictionaries(_TEXT, _VALUES, max_size=8)


def _records(count: int) -> dict[str, Any]:
    return {
        "results": [
            {
                "id": i,
                "name": f"Item {i}",
                "price": -3.5 + i * 1.25,
                "ok": i % 3 == 0,
                "note": None,
                "tags": ["sale", f"g-{i % 4}", [i, {"deep": "[x]"}]],
                "text": f'Record {i}: "quoted", \\ back, {{braces}} [brackets] é 😀',
            }
            for i in range(count)
        ],
        "count": count,
    }


@st.composite
def _documents(draw: st.DrawFn) -> str:
    value = draw(_CONTAINERS | st.builds(_records, st.integers(0, 12)))
    indent = draw(st.sampled_from([None, 0, 1, 2]))
    ascii_only = draw(st.booleans())
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    return draw(st.sampled_from(["", " ", "\n "])) + text + draw(st.sampled_from(["", "\n"]))


@st.composite
def _chunked(draw: st.DrawFn) -> list[str]:
    text = draw(_documents())
    if draw(st.booleans()):
        text = text[: draw(st.integers(1, max(1, len(text))))]  # cut off
    size = draw(st.sampled_from([1, 3, 8, 32, 100]))
    cuts = sorted(
        set(draw(st.lists(st.integers(1, max(1, len(text) - 1)), max_size=len(text) // size)))
    )
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds) if b > a]


def _values(decoder: Any, chunks: list[str]) -> tuple[list[Any], bool]:
    out = []
    for chunk in chunks:
        if decoder.feed(chunk):
            out.append(decoder.snapshot())
    return out, decoder.failed


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_chunked())
def test_window_yields_what_the_decoder_yields(chunks: list[str]) -> None:
    window, failed = _values(WindowDecoder(), chunks)
    expected, _ = _values(JsonStreamDecoder(), chunks)
    if not failed:
        assert window == expected


@pytest.mark.parametrize(("free_size", "free_width"), [(12, 128), (4096, 1), (40, 3), (300, 10)])
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(chunks=_chunked())
def test_past_the_free_bounds_every_value_shown_is_the_text_so_far(
    free_size: int, free_width: int, chunks: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Both readers skip some intermediate values there (not always the same ones); each value
    # the window does show is the decoder's value of the text read so far.
    monkeypatch.setattr(snapshot_policy, "SNAPSHOT_FREE_SIZE", free_size)
    monkeypatch.setattr(snapshot_policy, "SNAPSHOT_FREE_WIDTH", free_width)
    window = WindowDecoder()
    reference = JsonStreamDecoder()
    shown: list[Any] = []
    for chunk in chunks:
        reference.feed(chunk)
        if window.feed(chunk):
            value = window.snapshot()
            assert value == reference.snapshot()
            assert not shown or value != shown[-1]
            shown.append(value)
    if not window.failed and window.done:
        assert shown and shown[-1] == json.loads("".join(chunks))


def test_records_documents_stay_on_the_window() -> None:
    if not CUT_ESCAPES_KEPT:
        pytest.skip("this pydantic-core drops strings cut in an escape: the decoder reads those")
    text = json.dumps(_records(60), indent=2)
    decoder = WindowDecoder()
    values, failed = _values(decoder, [text[i : i + 32] for i in range(0, len(text), 32)])
    assert not failed and decoder.done
    assert values[-1] == json.loads(text)


def test_a_long_list_of_records_is_copied_in_linear_time_and_ends_exact() -> None:
    text = json.dumps(_records(600), indent=2)
    chunks = [text[i : i + 32] for i in range(0, len(text), 32)]
    values = list(RobustJsonOutputParser().transform(iter(chunks)))
    assert values[-1] == json.loads(text)
    counts = [len(v.get("results", [])) for v in values]
    assert counts == sorted(counts)
    # Every record count is shown while the list is narrow; past that, the items copied by
    # all snapshots together stay within 1 / SNAPSHOT_GROWTH times the text.
    assert set(range(1, snapshot_policy.SNAPSHOT_FREE_WIDTH - 2)) <= set(counts)
    wide = [n for n in counts if n > snapshot_policy.SNAPSHOT_FREE_WIDTH]
    assert wide and sum(wide) <= len(text) / snapshot_policy.SNAPSHOT_GROWTH


def test_snapshots_are_fresh_and_never_change() -> None:
    text = json.dumps(_records(8))
    decoder = WindowDecoder()
    seen: list[tuple[Any, str]] = []
    for i in range(0, len(text), 16):
        if decoder.feed(text[i : i + 16]):
            value = decoder.snapshot()
            seen.append((value, json.dumps(value)))
    assert len({id(value) for value, _ in seen}) == len(seen)
    assert all(json.dumps(value) == dumped for value, dumped in seen)


@pytest.mark.parametrize(
    "text",
    [
        '{"a": [1, 2,], "b": 1}',  # a trailing comma
        "{'a': [1, 2]}",  # single quotes
        '[{"a": 1} {"b": 2}]',  # a missing comma
        '{"a": NaN, "b": [1]}',
        '{"a": "' + "x" * 5000 + '"}',  # a long string: the decoder reads it
        '{"a": [1]} trailing prose',
    ],
)
def test_text_that_is_not_plain_is_handed_to_the_decoder(text: str) -> None:
    chunks = [text[i : i + 32] for i in range(0, len(text), 32)]
    _, failed = _values(WindowDecoder(), chunks)
    assert failed


# Items of a list that are containers are read whole: their end is the first of their closing
# brackets up to which the text is a whole value. Each text below is cut at every position.
_ITEM_ENDS = [
    '[{"a": "}"}, {"b": "}}", "c": "]"}, {"d": "\\\\"}]',  # closers and a backslash in strings
    '{"rows": [[[1], [2, [3]]], [[4]], []], "n": 2}',  # inner lists: closers not the end
    '[{"a": {"b": {"c": {}}}}, {"x": [{"y": 1}]}]',  # inner objects
    '[{"a": 1}]',  # the list closes right after its item
    '{"a": [{"k": "v"}], "b": [{"k": "w"}, 3, "s", [{"z": null}]]}',  # mixed items
    '[{"": 1, "e": ""}, {"a": ", \\""}]',  # an empty key, a string like the probe
]


@pytest.mark.parametrize("text", _ITEM_ENDS)
def test_items_read_whole_end_where_their_text_is_a_whole_value(text: str) -> None:
    for cut in range(1, len(text)):
        for chunks in ([text[:cut], text[cut:]], [text[i : i + 3] for i in range(0, len(text), 3)]):
            window, failed = _values(WindowDecoder(), chunks)
            expected, _ = _values(JsonStreamDecoder(), chunks)
            if failed:  # a text ending in an escape, on a pydantic-core that drops those
                assert not CUT_ESCAPES_KEPT
                continue
            assert window == expected
            assert window[-1] == json.loads(text)


def test_an_item_full_of_inner_closers_goes_to_the_decoder() -> None:
    item = "{" + ", ".join(f'"k{i}": {{"v": {i}}}' for i in range(window_stream.ITEM_MAX_TRIES + 4))
    text = "[" + item + "}, " + item + "}]"
    chunks = [text[i : i + 32] for i in range(0, len(text), 32)]
    _, failed = _values(WindowDecoder(), chunks)
    assert failed
    assert _stream(chunks)[-1] == json.loads(text)  # the decoder takes over, nothing lost


@pytest.mark.parametrize("follow_max_tries", [window_stream.FOLLOW_MAX_TRIES, 100])
def test_a_long_item_is_followed_unless_it_is_full_of_small_containers(
    follow_max_tries: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Both past NESTED_MAX_SIZE, fewer inner closers than ITEM_MAX_TRIES: long strings are
    # followed on the window; an order with many line items goes to the decoder (unless the
    # bound is raised). Either way the values are the decoder's.
    monkeypatch.setattr(window_stream, "FOLLOW_MAX_TRIES", follow_max_tries)
    long_strings = [{"body": "lorem ipsum " * 120, "tags": ["a"]}, {"id": 1}, {"id": 2}]
    line = "a line item with a longer name, " * 2
    many_items = [{"items": [{"name": f"{line}{j}", "qty": j} for j in range(12)]}, {"id": 1}]
    many_fail = follow_max_tries < 100
    for value, fails in ((long_strings, False), (many_items, many_fail)):
        text = json.dumps(value, indent=2)
        chunks = [text[i : i + 32] for i in range(0, len(text), 32)]
        window, failed = _values(WindowDecoder(), chunks)
        assert failed is fails
        if not failed:
            assert window == _values(JsonStreamDecoder(), chunks)[0]
        assert _stream(chunks)[-1] == value


@pytest.mark.slow
def test_one_big_chunk_is_read_in_linear_time() -> None:
    if not CUT_ESCAPES_KEPT:
        pytest.skip("this pydantic-core drops strings cut in an escape: the decoder reads those")

    def cost(count: int) -> float:
        text = json.dumps(_records(count))
        decoder = WindowDecoder()

        def feed() -> None:
            nonlocal decoder
            decoder = WindowDecoder()
            decoder.feed(text)

        best = best_cpu_seconds(feed, 3)
        assert decoder.done and decoder.snapshot() == json.loads(text)
        return best

    small, large = cost(1_000), cost(4_000)
    assert large < 8 * small  # linear: 4x the text; quadratic would be 16x


def _stream(chunks: list[str]) -> list[Any]:
    out: list[Any] = []
    try:
        out.extend(RobustJsonOutputParser().transform(iter(chunks)))
    except OutputParserException as exc:
        out.append(("raised", str(exc)))
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_chunked(), st.sampled_from(["", ",", "} extra", '{"k": [1,]}']))
def test_parser_streams_the_same_with_and_without_the_window(chunks: list[str], tail: str) -> None:
    if tail:
        chunks = [*chunks, tail]
    with_window = _stream(chunks)
    saved = value_stream.WINDOW_MIN_CHUNK
    value_stream.WINDOW_MIN_CHUNK = 1 << 30
    try:
        without = _stream(chunks)
    finally:
        value_stream.WINDOW_MIN_CHUNK = saved
    assert with_window == without
    try:
        expected = RobustJsonOutputParser().invoke("".join(chunks))
    except OutputParserException:
        assert with_window[-1][0] == "raised"
        return
    assert with_window[-1] == expected
