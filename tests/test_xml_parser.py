"""RobustXMLOutputParser: LangChain's dict shape, tolerance, safety and streaming."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import pickle
import time
from collections.abc import AsyncIterator, Iterable

import pytest
from cpu_clock import best_cpu_seconds
from hypothesis import given, settings, strategies as st
from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessageChunk

from langchain_robust_parsers import ParseStats, RobustXMLOutputParser

SAMPLE = """<playlist>
  <song><title>Hey Jude</title><artist>The Beatles</artist></song>
  <song><title>Imagine</title><artist/></song>
</playlist>"""
SAMPLE_DICT = {
    "playlist": [
        {"song": [{"title": "Hey Jude"}, {"artist": "The Beatles"}]},
        {"song": [{"title": "Imagine"}, {"artist": None}]},
    ]
}
SAMPLE_STREAM = [
    {"playlist": [{"song": [{"title": "Hey Jude"}]}]},
    {"playlist": [{"song": [{"artist": "The Beatles"}]}]},
    {"playlist": [{"song": [{"title": "Imagine"}]}]},
    {"playlist": [{"song": [{"artist": None}]}]},
]

BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE bomb [
 <!ENTITY a "haha">
 <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
 <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
 <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
 <!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">
 <!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">
 <!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;">
 <!ENTITY h "&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;">
]>
<bomb>&h;</bomb>"""
XXE_FILE = """<?xml version="1.0"?>
<!DOCTYPE data [<!ENTITY secret SYSTEM "file:///etc/hostname">]>
<data>&secret;</data>"""
XXE_PARAMETER = """<!DOCTYPE data [<!ENTITY % remote SYSTEM "http://127.0.0.1:9/x.dtd"> %remote;]>
<data>ok</data>"""


async def _aiter(items: Iterable[object]) -> AsyncIterator[object]:
    for item in items:
        yield item


def test_same_dict_shape_as_langchain_on_clean_xml() -> None:
    from langchain_core.output_parsers import XMLOutputParser

    assert RobustXMLOutputParser().parse(SAMPLE) == SAMPLE_DICT
    assert XMLOutputParser(parser="xml").parse(SAMPLE) == SAMPLE_DICT


@pytest.mark.parametrize(
    ("text", "repair"),
    [
        ("<a><b>salt & pepper</b></a>", "unescaped_amp"),
        ("<a><b>x</b><c>y</c>", None),
        ("<b>x</b><c>y</c>", "missing_root"),
        ("<a><b>x</bee><c>y</c></a>", "mismatched_close_tag"),
        ("<think>draft <a></think><a><b>x</b><c>y</c></a>", "think_block"),
    ],
)
def test_tolerated_mistakes_are_reported(text: str, repair: str | None) -> None:
    parser = RobustXMLOutputParser(tags=["a", "b", "c"])
    value, report = parser.parse_with_report(text)
    assert list(value) == ["a"]
    if repair is not None:
        assert repair in report.repair_names
    assert report.outcome == "recovered"


def test_cut_off_answer_is_completed_or_refused_on_request() -> None:
    text = "<a><b>first</b><b>sec"
    value, report = RobustXMLOutputParser().parse_with_report(text)
    assert value == {"a": [{"b": "first"}, {"b": "sec"}]}
    assert report.truncated
    with pytest.raises(OutputParserException):
        RobustXMLOutputParser(on_truncation="raise").parse(text)


@pytest.mark.parametrize("text", ["", "just prose, no markup", "foo></foo>", "a < b and c > d"])
def test_no_element_raises_with_the_raw_text(text: str) -> None:
    with pytest.raises(OutputParserException) as info:
        RobustXMLOutputParser().parse(text)
    assert info.value.llm_output == text
    assert "Failed to parse" in str(info.value)


def test_billion_laughs_is_refused() -> None:
    with pytest.raises(OutputParserException):
        RobustXMLOutputParser().parse(BILLION_LAUGHS)


@pytest.mark.slow
def test_billion_laughs_is_refused_quickly() -> None:
    start = time.process_time()
    with pytest.raises(OutputParserException):
        RobustXMLOutputParser().parse(BILLION_LAUGHS)
    assert time.process_time() - start < 1.0


@pytest.mark.parametrize("text", [XXE_FILE, XXE_PARAMETER])
def test_external_entities_are_refused(text: str) -> None:
    with pytest.raises(OutputParserException):
        RobustXMLOutputParser().parse(text)


def test_an_undeclared_entity_stays_literal_text() -> None:
    value = RobustXMLOutputParser().parse("<data>&secret; &#65; &lt;</data>")
    assert value == {"data": "&secret; A <"}


def test_streamed_doctype_never_expands() -> None:
    chunks = list(RobustXMLOutputParser().transform(iter(BILLION_LAUGHS)))
    assert chunks == [{"bomb": "&h;"}]


def test_streaming_shape_matches_langchain_for_any_chunking() -> None:
    parser = RobustXMLOutputParser()
    assert list(parser.transform(iter(SAMPLE))) == SAMPLE_STREAM
    assert list(parser.transform(iter([SAMPLE]))) == SAMPLE_STREAM
    halves = [SAMPLE[:37], SAMPLE[37:]]
    assert list(parser.transform(iter(halves))) == SAMPLE_STREAM


def test_streaming_reads_content_block_messages() -> None:
    """LangChain's parser skips a chunk whose content is a list of blocks (#39744)."""
    blocks = [
        AIMessageChunk(content=[{"type": "text", "text": SAMPLE[:50], "index": 0}]),
        AIMessageChunk(content=[{"type": "text", "text": SAMPLE[50:], "index": 0}]),
    ]
    assert list(RobustXMLOutputParser().transform(iter(blocks))) == SAMPLE_STREAM


def test_streaming_past_prose_fences_and_cut_off_end() -> None:
    text = "Sure:\n```xml\n<a><b>x & y</b><c>cut"
    assert list(RobustXMLOutputParser().transform(iter(text))) == [
        {"a": [{"b": "x & y"}]},
        {"a": [{"c": "cut"}]},
    ]


def test_async_parse_and_stream() -> None:
    parser = RobustXMLOutputParser()

    async def run() -> tuple[object, list[object]]:
        value = await parser.aparse(SAMPLE)
        chunks = [c async for c in parser.atransform(_aiter(SAMPLE))]
        return value, chunks

    value, chunks = asyncio.run(run())
    assert value == SAMPLE_DICT
    assert chunks == SAMPLE_STREAM


def test_pickles_with_stats_and_counts_outcomes() -> None:
    stats = ParseStats()
    parser = pickle.loads(pickle.dumps(RobustXMLOutputParser(tags=["a"], stats=stats)))
    parser.parse("<a>1</a>")
    parser.parse("<a>1 & 2</a>")
    with pytest.raises(OutputParserException):
        parser.parse("nothing")
    assert parser.stats.snapshot()["xml"] == {
        "success": 1,
        "recovered": 1,
        "fallback": 0,
        "failed": 1,
    }
    assert parser.tags == ["a"]
    assert "Here are the output tags" in parser.get_format_instructions()


def test_parser_type_and_output_schema() -> None:
    parser = RobustXMLOutputParser()
    assert parser._type == "robust_xml"
    assert parser.get_output_jsonschema()["type"] == "object"


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="<>/!?&;#x[]-=\"' abAB\n", max_size=60))
def test_any_text_gives_a_value_or_output_parser_exception(text: str) -> None:
    parser = RobustXMLOutputParser()
    with contextlib.suppress(OutputParserException):
        parser.parse(text)
    list(parser.transform(iter(text)))


@pytest.mark.slow
def test_streaming_a_growing_element_is_linear() -> None:
    def cost(n: int) -> float:
        text = "<a><b>" + "word & more " * n + "</b></a>"
        return best_cpu_seconds(lambda: list(RobustXMLOutputParser().transform(iter(text))), 3)

    small, large = cost(4_000), cost(16_000)
    assert large < small * 4 * 2.5  # 4x the text: about 4x the time, never 16x


@pytest.mark.slow
def test_streaming_a_long_cdata_section_is_linear() -> None:
    def cost(n: int) -> float:
        text = "<a><code><![CDATA[" + "if (x > 1) y = 2;\n" * n + "]]></code></a>"
        out = list(RobustXMLOutputParser().transform(iter(text)))
        assert out[0]["a"][0]["code"].startswith("if (x > 1)")
        return best_cpu_seconds(lambda: list(RobustXMLOutputParser().transform(iter(text))), 3)

    small, large = cost(1_000), cost(4_000)
    assert large < small * 4 * 2.5


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet="<>/!-[]?&;#x=\"' abAB\n", max_size=60),
    st.lists(st.integers(min_value=0, max_value=60), max_size=6),
)
def test_streamed_output_does_not_depend_on_the_chunking(text: str, cuts: list[int]) -> None:
    points = sorted({min(c, len(text)) for c in cuts})
    chunks = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    parser = RobustXMLOutputParser()
    assert list(parser.transform(iter(chunks))) == list(parser.transform(iter([text])))


# --------------------------------------------------------------------------- nesting bound


def _nested_outline(depth: int) -> str:
    """An outline nested ``depth`` elements deep, a leaf with text at the bottom."""
    opens = "".join(f'<section level="{i}">' for i in range(depth - 1))
    closes = "</section>" * (depth - 1)
    return f"Here is the outline:\n{opens}<point>bottom line</point>{closes}"


def _value_depth(value: object) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            stack.extend(
                (child, depth + 1) for child in (item.values() if isinstance(item, dict) else item)
            )
    return deepest


def _assert_too_deep(error: OutputParserException, text: str) -> None:
    message = str(error)
    assert "more than 128 deep" in message and "flatter document" in message
    assert error.llm_output is not None and text.startswith(error.llm_output[:100])


@pytest.mark.parametrize("whole_xml", [False, True])
def test_a_document_just_inside_the_nesting_bound_reads_copies_and_pickles(whole_xml: bool) -> None:
    text = _nested_outline(128)
    if whole_xml:
        text = text.split("\n", 1)[1]  # the whole text is well-formed XML: the strict route
    value = RobustXMLOutputParser().parse(text)
    assert _value_depth(value) <= 256
    assert copy.deepcopy(value) == value
    assert pickle.loads(pickle.dumps(value)) == value
    streamed = list(
        RobustXMLOutputParser().transform(iter([text[i : i + 9] for i in range(0, len(text), 9)]))
    )
    assert len(streamed) == 1 and copy.deepcopy(streamed[0]) == streamed[0]


@pytest.mark.parametrize("depth", [129, 300, 5000])
@pytest.mark.parametrize("whole_xml", [False, True])
def test_a_document_nested_too_deep_fails_cleanly_in_parse(depth: int, whole_xml: bool) -> None:
    text = _nested_outline(depth)
    if whole_xml:
        text = text.split("\n", 1)[1]  # well-formed XML: the strict route
    with pytest.raises(OutputParserException) as info:
        RobustXMLOutputParser().parse(text)
    _assert_too_deep(info.value, text)


@pytest.mark.parametrize("depth", [129, 300])
def test_a_document_nested_too_deep_fails_cleanly_in_a_stream(depth: int) -> None:
    text = _nested_outline(depth)
    chunks = [text[i : i + 5] for i in range(0, len(text), 5)]
    with pytest.raises(OutputParserException) as info:
        list(RobustXMLOutputParser().transform(iter(chunks)))
    _assert_too_deep(info.value, text)


def test_a_document_nested_too_deep_fails_cleanly_in_an_async_stream() -> None:
    text = _nested_outline(300)
    parser = RobustXMLOutputParser()

    async def run() -> list[object]:
        return [item async for item in parser.atransform(_aiter([text[:400], text[400:]]))]

    with pytest.raises(OutputParserException) as info:
        asyncio.run(run())
    _assert_too_deep(info.value, text)
    with pytest.raises(OutputParserException):
        asyncio.run(parser.ainvoke(text))
    inside = _nested_outline(128)
    assert asyncio.run(parser.ainvoke(inside)) == parser.invoke(inside)
