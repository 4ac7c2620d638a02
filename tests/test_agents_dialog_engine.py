"""The dialog engine: header scans, the body scanner's chunking invariance, stream consistency,
the tone lexicon and the bounds."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings, strategies as st

from langchain_robust_parsers.engine.agents import dialog as engine
from langchain_robust_parsers.engine.agents.dialog import (
    MAX_HEADER_LENGTH,
    TONE_LEXICON,
    BodyScanner,
    DialogHeader,
    DialogStream,
    locate_header,
    parse_dialog,
    scan_header,
    tone_from_text,
)

_PIECES = st.sampled_from(
    [
        *"[]\"'*“”‘’«»:,;| \n`~-.!?ab",
        *("TO: ", "TONE: ", "tone:", "INTERRUPT after ", "SILENT", "REACT", ", "),
        *("Bob", "angry", "sadly", "```\n", "**", "Alice: ", "I can't", "*sighs*", '"Hi!"'),
    ]
)
_TEXT = st.lists(_PIECES, max_size=50).map("".join)
_SIZES = st.lists(st.integers(1, 9), min_size=1, max_size=30)


def _split(text: str, sizes: list[int]) -> list[str]:
    chunks, i = [], 0
    for size in itertools.cycle(sizes):
        if i >= len(text):
            break
        chunks.append(text[i : i + size])
        i += size
    return chunks


def _body(chunks: list[str], *, free_text: bool = False) -> BodyScanner:
    body = BodyScanner(free_text=free_text)
    for chunk in chunks:
        body.feed(chunk)
    body.finish()
    return body


def _state(body: BodyScanner) -> tuple[object, ...]:
    return (
        body.content,
        tuple(body.parts),
        body.segments,
        body.trailing,
        body.unclosed_quote,
        body.unclosed_part,
        "".join(body.narrative).split(),
    )


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(_TEXT, _SIZES, st.booleans())
def test_body_scanner_does_not_depend_on_chunking(text: str, sizes: list[int], free: bool) -> None:
    whole = _body([text], free_text=free)
    chunked = _body(_split(text, sizes), free_text=free)
    assert _state(chunked) == _state(whole)


@settings(max_examples=250, deadline=None)
@given(_TEXT, _SIZES)
def test_body_content_only_grows(text: str, sizes: list[int]) -> None:
    body = BodyScanner()
    seen = ""
    for chunk in _split(text, sizes):
        body.feed(chunk)
        assert body.content.startswith(seen)
        seen = body.content
    body.finish()
    assert body.content.startswith(seen)


@settings(max_examples=250, deadline=None)
@given(_TEXT, _SIZES)
def test_stream_header_is_the_final_header(text: str, sizes: list[int]) -> None:
    stream = DialogStream()
    snapshots = [s for chunk in _split(text, sizes) if (s := stream.feed(chunk)) is not None]
    final = stream.finish()
    assert final == parse_dialog(text)
    if stream.header is not None:
        assert locate_header(text) == stream.header
        last = snapshots[-1]
        assert (last.action, last.target, last.tone, last.interrupt_after) == (
            final.action,
            final.target,
            final.tone,
            final.interrupt_after,
        )
        assert final.content.startswith(last.content)
    else:
        assert snapshots == []


def test_locate_header_waits_for_an_undecided_prefix() -> None:
    for prefix in ["", "  ", "`", "``", "```", "**", "[TO: Bob", "[TONE: angry,\n", "Alice: "]:
        assert locate_header(prefix, final=False) == "incomplete", prefix
    assert isinstance(locate_header("[TONE: angry]", final=False), DialogHeader)
    assert isinstance(locate_header('[TONE: angry "Hi', final=False), DialogHeader)
    assert locate_header("Hello", final=False) is None


def test_scan_header_positions() -> None:
    text = 'x [TO: Bob, TONE: angry, *waves*] "Hi"'
    header = scan_header(text, 2)
    assert header is not None
    assert (header.start, header.end, header.closed) == (2, text.index("]") + 1, True)
    assert (header.target, header.tone, header.nonverbal) == ("Bob", "angry", ("waves",))


def test_a_header_longer_than_the_bound_is_not_a_header() -> None:
    text = "[TONE: angry, " + "x" * MAX_HEADER_LENGTH + '] "Hi"'
    assert scan_header(text, 0) is None
    assert parse_dialog(text).outcome != "strict"


def test_header_candidates_later_in_the_text_are_bounded() -> None:
    text = "[x] " * (engine.MAX_HEADER_CANDIDATES + 1) + '[TONE: wistful] "Hi"'
    assert parse_dialog(text).warnings[0] == engine.NO_HEADER  # too far in: prose, not a turn
    text = "[x] " * (engine.MAX_HEADER_CANDIDATES - 1) + '[TONE: wistful] "Hi"'
    assert parse_dialog(text).tone == "wistful"


def test_outcomes() -> None:
    assert parse_dialog('[TONE: sad] "Hi"').outcome == "strict"
    assert parse_dialog('[TO: Bob] "Hi"').outcome == "salvaged"
    assert parse_dialog('He said "hi".').outcome == "salvaged"
    assert parse_dialog("plain").outcome == "wrapped"


@pytest.mark.parametrize(
    ("word", "tone"),
    [("angry", "angry"), ("angrily", "angry"), ("Sadly", "sad"), ("furiously", "furious")],
)
def test_tone_lexicon(word: str, tone: str) -> None:
    assert TONE_LEXICON[word.lower()] == tone
    assert tone_from_text(f"She said it {word}.") == tone


def test_tone_lexicon_is_lower_case_and_read_only() -> None:
    assert all(word == word.lower() and tone == tone.lower() for word, tone in TONE_LEXICON.items())
    assert {"angry", "happy", "sad", "nervous"} <= set(TONE_LEXICON.values())
    assert "cold" not in TONE_LEXICON and "coldly" in TONE_LEXICON
    with pytest.raises(TypeError):
        TONE_LEXICON["x"] = "y"  # type: ignore[index]


def test_tone_words_match_whole_words_only() -> None:
    assert tone_from_text("The sadness museum") == "sad"
    assert tone_from_text("Madrid is calmer") is None  # "calmer" is not "calm"
