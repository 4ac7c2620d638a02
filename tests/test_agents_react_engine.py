"""The incremental ReAct scanner: markers, layouts, answer decoding across chunk boundaries,
chunking invariance, and linear work on adversarial text."""

from __future__ import annotations

import json
import random
from collections.abc import Callable

import pytest
from cpu_clock import best_cpu_seconds
from hypothesis import given, settings, strategies as st

from langchain_robust_parsers.engine.agents import react as engine
from langchain_robust_parsers.engine.agents.react import (
    ReActScanner,
    ReActStep,
    is_final_answer_name,
    scan_react,
)


def stream(text: str, sizes: list[int] | int = 1) -> tuple[str, str, list[ReActStep], bool]:
    """``(thought, answer, steps, conflict)`` with ``text`` fed in chunks of ``sizes``."""
    sizes = [sizes] if isinstance(sizes, int) else sizes
    scanner = ReActScanner()
    deltas: list[tuple[str, str]] = []
    i = k = 0
    while i < len(text):
        size = sizes[k % len(sizes)]
        deltas += scanner.feed(text[i : i + size])
        i += size
        k += 1
    deltas += scanner.close()
    thought = "".join(t for kind, t in deltas if kind == "thought")
    answer = "".join(t for kind, t in deltas if kind == "answer")
    return thought, answer, scanner.steps, scanner.result().conflict


def final_json(answer_json: str) -> str:
    return '{"action": "Final Answer", "action_input": ' + answer_json + "}"


# --------------------------------------------------------------------------- markers


@pytest.mark.parametrize(
    ("text", "kind", "stars"),
    [
        ("Thought:", "thought", 0),
        ("thought:", "thought", 0),
        ("Action:", "action", 0),
        ("ACTION:", "action", 0),
        ("Action 1:", "action", 0),
        ("Action Input:", "action_input", 0),
        ("Action_Input:", "action_input", 0),
        ("Action 2 Input 2:", "action_input", 0),
        ("ActionInput:", "action_input", 0),
        ("Final Answer:", "final_answer", 0),
        ("final_answer:", "final_answer", 0),
        ("Observation:", "observation", 0),
        ("**Final Answer:", "final_answer", 2),
        ("**Final Answer**:", "final_answer", 2),
        ("Thought :", "thought", 0),
        ("Answer:", "answer", 0),  # LlamaIndex's final answer, taken at a line start only
        ("**Answer:", "answer", 2),
    ],
)
def test_markers(text: str, kind: str, stars: int) -> None:
    for i in range(1, len(text)):
        assert engine._classify_marker(text[:i])[0] == engine._MAYBE, text[:i]
    assert engine._classify_marker(text) == (engine._YES, kind, stars)


@pytest.mark.parametrize(
    "text",
    ["Through", "Thoughts:", "Action items", "Final:", "Answers:", "***Thought:", "Act now:"],
)
def test_not_markers(text: str) -> None:
    assert any(engine._classify_marker(text[:i])[0] == engine._NO for i in range(1, len(text) + 1))


def test_marker_needs_a_word_boundary() -> None:
    thought, _answer, steps, _ = stream("Reaction: none. xAction: search")
    assert thought == "Reaction: none. xAction: search"
    assert steps == []


@pytest.mark.parametrize(
    "name", ["Final Answer", "final answer", "FINAL_ANSWER", "Final Answer:", "finalAnswer"]
)
def test_final_answer_names(name: str) -> None:
    assert is_final_answer_name(name)
    assert not is_final_answer_name("final")


# --------------------------------------------------------------------------- layouts

ECHARTS = "```echarts\n {}\n```"  # the answer of Dify's tests, a real newline inside
ACT = f'{{"action": "Final Answer", "action_input": "{ECHARTS}"}}'


@pytest.mark.parametrize(
    "text",
    [
        f"Through: abc\nAction: ```{ACT}```",
        f"Through: abc\nAction: ```json\n{ACT}```",
        f"Through: abc\nAction: ```JSON\n{ACT}```",
        f"Through: abc\nAction: ```[{ACT}]```",
        f"Through: abc\nAction: {ACT}",
    ],
    ids=["fence", "json-fence", "JSON-fence", "list", "inline"],
)
def test_dify_layouts_stream_the_answer(text: str) -> None:
    for sizes in (1, 2, 3, 7, len(text)):
        thought, answer, steps, conflict = stream(text, sizes)
        assert thought == "Through: abc\n"
        assert answer == ECHARTS
        assert [(s.kind, s.tool_input, s.streamed) for s in steps] == [("finish", ECHARTS, True)]
        assert not conflict


def test_text_after_action_that_never_becomes_one_is_thought() -> None:
    assert stream("Through: abc\nAction: efg") == ("Through: abc\nefg", "", [], False)


def test_classic_action() -> None:
    text = "Thought: agent thought here\nAction: search\nAction Input: what is the weather?"
    thought, answer, steps, _ = stream(text)
    assert (thought, answer) == ("agent thought here\n", "")
    (step,) = steps
    assert (step.kind, step.tool, step.tool_input, step.layout) == (
        "action",
        "search",
        "what is the weather?",
        "text",
    )
    assert text[step.start : step.end] == "Action: search\nAction Input: what is the weather?"


@pytest.mark.parametrize(
    ("line", "tool"),
    [
        ("search", "search"),
        ("[search]", "search"),
        ("`search`", "search"),
        ("**search**", "search"),
    ],
)
def test_classic_tool_name_wrappers(line: str, tool: str) -> None:
    steps = scan_react(f"Action: {line}\nAction Input: x").steps
    assert [(s.tool, s.tool_input) for s in steps] == [(tool, "x")]


def test_classic_action_on_one_line_and_quoted_input() -> None:
    steps = scan_react('Action: search Action Input: "Paris"').steps
    assert [(s.tool, s.tool_input) for s in steps] == [("search", "Paris")]


def test_classic_action_input_ends_at_observation() -> None:
    text = "Action: search\nAction Input: Paris\nweather\nObservation: sunny\nThought: more"
    scan = scan_react(text)
    assert [(s.tool, s.tool_input) for s in scan.steps] == [("search", "Paris\nweather")]
    assert not scan.conflict


def test_classic_final_answer_streams_and_strips() -> None:
    text = "Thought: done\nFinal Answer:   The temperature is 100  \n\n"
    thought, answer, steps, _ = stream(text)
    assert (thought, answer) == ("done\n", "The temperature is 100")
    assert steps[0].tool_input == "The temperature is 100"


def test_final_answer_as_classic_action_name() -> None:
    thought, answer, steps, _ = stream("Action: Final Answer\nAction Input: Paris, France")
    assert (thought, answer) == ("", "Paris, France")
    assert [(s.kind, s.tool_input) for s in steps] == [("finish", "Paris, France")]


def test_multi_line_final_answer_keeps_inner_lines() -> None:
    text = "Final Answer: line one\n\n  - item\nThe end."
    assert stream(text)[1] == "line one\n\n  - item\nThe end."


def test_final_answer_ends_at_a_marker_line() -> None:
    text = "Final Answer: Paris\nObservation: none\nThought: I am done"
    _thought, answer, steps, conflict = stream(text)
    assert answer == "Paris"
    assert [s.kind for s in steps] == ["finish"]
    assert not conflict


def test_bold_markers() -> None:
    thought, answer, _steps, _ = stream("**Thought:** hmm\n**Final Answer:** **Paris** it is")
    assert (thought, answer) == ("hmm\n", "**Paris** it is")


def test_json_action_keys() -> None:
    for text, tool, tool_input in [
        ('{"tool": "search", "tool_input": "x"}', "search", "x"),
        ('{"name": "search", "arguments": {"q": 1}}', "search", {"q": 1}),
        ('{"action": "search", "Input": "x"}', "search", "x"),
        ('{"action_input": "x", "action": "search"}', "search", "x"),
    ]:
        steps = scan_react(text).steps
        assert [(s.kind, s.tool, s.tool_input) for s in steps] == [("action", tool, tool_input)]


def test_json_after_action_marker_needs_no_input() -> None:
    assert [(s.tool, s.tool_input) for s in scan_react('Action: {"action": "now"}').steps] == [
        ("now", {})
    ]
    assert scan_react('{"action": "now"}').steps == ()


def test_json_object_that_is_not_an_action_is_thought() -> None:
    for text in ['{"foo": "bar"}', '{"foo": "bar"', "```json\n{'single': 'quotes'}\n```"]:
        assert stream(text) == (text, "", [], False)


def test_invalid_json_in_a_fence_is_thought() -> None:
    text = "```json\n{not valid json at all!}\n```"
    for sizes in (1, 5, len(text)):
        assert stream(text, sizes) == (text, "", [], False)


def test_list_wrapper_leaks_no_brackets() -> None:
    text = '[{"action": "lookup", "input": "abc"}]'
    thought, answer, steps, _ = stream(text)
    assert (thought, answer) == ("", "")
    assert [(s.tool, s.tool_input) for s in steps] == [("lookup", "abc")]


def test_bracket_in_prose_is_text() -> None:
    text = "[1] see the notes\n[ x ] done"
    assert stream(text) == (text, "", [], False)


def test_braces_inside_strings_do_not_end_the_json() -> None:
    text = 'Action: {"action": "Final Answer", "action_input": "a } b { c ] ``` d"}'
    assert stream(text)[1] == "a } b { c ] ``` d"


def test_fenced_json_without_marker_and_trailing_newline() -> None:
    text = 'Thought: agi\n```\n{\n  "action": "search",\n  "action_input": "SF"\n}\n```\n'
    (step,) = scan_react(text).steps
    assert (step.tool, step.tool_input, step.fenced) == ("search", "SF", True)
    assert text[step.end :] == "\n"


def test_unclosed_fence_is_fine() -> None:
    text = 'Action:\n```json\n{"action": "search", "action_input": {"q": "x"}}'
    assert [(s.tool, s.tool_input) for s in scan_react(text).steps] == [("search", {"q": "x"})]


def test_lenient_json_is_repaired_when_it_closes() -> None:
    text = "Action: {'action': 'search', 'action_input': {'q': 'x',},}"
    (step,) = scan_react(text).steps
    assert (step.tool, step.tool_input) == ("search", {"q": "x"})
    assert step.report is not None and step.report.repairs


def test_unescaped_inner_quotes_stay_in_the_answer() -> None:
    text = 'Action: {"action": "Final Answer", "action_input": "He said "no" twice"}'
    for sizes in (1, 4, len(text)):
        assert stream(text, sizes)[1] == 'He said "no" twice'


def test_think_blocks_are_thought_not_markup() -> None:
    text = "<think>maybe Final Answer: no</think>Thought: ok\nFinal Answer: yes"
    thought, answer, _steps, _ = stream(text)
    assert answer == "yes"
    assert "maybe Final Answer: no" in thought
    assert scan_react(text).plain_text == "ok\n"


def test_a_lone_closing_think_tag_drops_what_came_before_it_from_plain_text() -> None:
    scan = scan_react("reasoning here</think>The answer is 4.")
    assert scan.plain_text == "The answer is 4."


# --------------------------------------------------------------------------- conflicts


@pytest.mark.parametrize(
    "text",
    [
        "Action: search\nAction Input: x\nObservation: y\nFinal Answer: z",
        "Final Answer: z\nAction: search\nAction Input: x",
        "Thought: t\nAction: search Final Answer:\nAction Input: what?",
        'Action: {"action": "search", "action_input": "x"}\nFinal Answer: z',
    ],
)
def test_final_answer_and_action_conflict(text: str) -> None:
    assert scan_react(text).conflict


def test_json_inside_a_text_final_answer_is_answer_text() -> None:
    text = 'Final Answer: use this:\n{"action": "search", "action_input": "x"}'
    scan = scan_react(text)
    assert not scan.conflict
    assert scan.steps[0].tool_input == 'use this:\n{"action": "search", "action_input": "x"}'


def test_two_actions_do_not_conflict() -> None:
    text = "Action: a\nAction Input: 1\nObservation: ?\nAction: b\nAction Input: 2"
    scan = scan_react(text)
    assert not scan.conflict
    assert [s.tool for s in scan.steps] == ["a", "b"]


# --------------------------------------------------------------------------- escapes


@pytest.mark.parametrize(
    ("raw", "decoded"),
    [
        (r'"hello \u4f', "hello "),
        ('"hello \\', "hello "),
        (r'"caf\u00e9', "café"),
        (r'"smile \ud83d', "smile "),
        (r'"smile \ud83d\ude', "smile "),
        (r'"tab\t', "tab\t"),
    ],
)
def test_cut_off_escapes_are_never_half_streamed(raw: str, decoded: str) -> None:
    text = 'Action: {"action": "Final Answer", "action_input": ' + raw
    for sizes in (1, 2, 3, 4, 5, len(text)):
        _thought, answer, steps, _ = stream(text, sizes)
        assert answer == decoded
        assert "\\" not in answer
        assert [(s.kind, s.tool_input, s.truncated) for s in steps] == [("finish", decoded, True)]


ESCAPED = 'a\\"b\\\\c\\/d\\n\\t\\u00e9\\ud83d\\ude00e\\u4f60\\\\\\"f'
"""Every kind of escape, back to back (a JSON string body)."""


def test_every_split_of_every_escape() -> None:
    text = final_json('"' + ESCAPED + '"')
    expected = json.loads('"' + ESCAPED + '"')
    for cut in range(len(text) + 1):
        scanner = ReActScanner()
        deltas = scanner.feed(text[:cut]) + scanner.feed(text[cut:]) + scanner.close()
        pieces = [t for kind, t in deltas if kind == "answer"]
        assert "".join(pieces) == expected, cut
        for piece in pieces:  # never half a surrogate pair
            assert not ("\ud800" <= piece[-1] <= "\udbff"), (cut, piece)
            assert not ("\udc00" <= piece[0] <= "\udfff"), (cut, piece)


def test_one_char_chunks_through_every_escape() -> None:
    for ensure_ascii in (True, False):
        answer = 'Quote " back \\ slash\nnew é 😀 你好 \t end'
        text = "Action: " + json.dumps(
            {"action": "Final Answer", "action_input": answer}, ensure_ascii=ensure_ascii
        )
        for sizes in (1, 2, 3, 4, 6, [1, 5, 2]):
            assert stream(text, sizes)[1] == answer


def test_invalid_escapes_are_kept_as_written() -> None:
    text = final_json(r'"a \x b \u12G4 c"')
    for sizes in (1, 3, len(text)):
        assert stream(text, sizes)[1] == "a \\x b \\u12G4 c"


def test_single_quoted_answer() -> None:
    text = "Action: {'action': 'Final Answer', 'action_input': 'it\\'s \"ok\"'}"
    for sizes in (1, 4, len(text)):
        assert stream(text, sizes)[1] == 'it\'s "ok"'


def test_answer_key_before_action_key_streams_once_known() -> None:
    text = '{"action_input": "late answer", "action": "Final Answer"}'
    thought, answer, steps, _ = stream(text)
    assert (thought, answer) == ("", "late answer")
    assert steps[0].streamed


def test_non_string_final_answer_is_not_streamed() -> None:
    text = 'Action: {"action": "Final Answer", "action_input": {"answer": 42}}'
    _thought, answer, steps, _ = stream(text)
    assert answer == ""
    assert [(s.kind, s.tool_input, s.streamed) for s in steps] == [
        ("finish", {"answer": 42}, False)
    ]


def test_nothing_is_streamed_after_the_first_step() -> None:
    text = (
        'Action: {"action": "search", "action_input": "x"}\nThought: more\n'
        'Action: {"action": "Final Answer", "action_input": "late"}'
    )
    thought, answer, steps, conflict = stream(text)
    assert (thought, answer) == ("", "")
    assert [s.kind for s in steps] == ["action", "finish"]
    assert conflict


# --------------------------------------------------------------------------- properties

_REACT_ALPHABET = st.sampled_from(
    [
        *"abcT \n\t:{}[]\"'\\`,*<>/",
        *("Thought:", "Action:", "Action Input:", "Final Answer:", "Observation:", "```"),
        *('"action"', '"action_input"', '"Final Answer"', '"search"', '"input"', "```json\n"),
        *("\\u00e9", "\\ud83d", "\\ude00", "\\n", '\\"', "<think>", "</think>", "é", "😀"),
        *('{"action": "Final Answer", "action_input": "', '"}', "**", "Action 1:", "[{"),
        *("Act", "Fin", "Tho", "Obs", "Action Inp", "Final Ans", "<thi", "``", "~~~", "[ "),
    ]
)
_REACT_TEXT = st.lists(_REACT_ALPHABET, max_size=50).map("".join)


def _split(text: str, sizes: list[int]) -> list[str]:
    chunks, i, k = [], 0, 0
    while i < len(text):
        size = sizes[k % len(sizes)]
        chunks.append(text[i : i + size])
        i += size
        k += 1
    return chunks


def _observe(chunks: list[str]) -> tuple[str, str, tuple[ReActStep, ...], bool, frozenset[str]]:
    scanner = ReActScanner()
    deltas = []
    for chunk in chunks:
        deltas += scanner.feed(chunk)
    deltas += scanner.close()
    scan = scanner.result()
    thought = "".join(t for kind, t in deltas if kind == "thought")
    answer = "".join(t for kind, t in deltas if kind == "answer")
    assert thought == scan.thought
    return thought, answer, scan.steps, scan.conflict, scan.markers


@settings(max_examples=200, deadline=None)
@given(_REACT_TEXT, st.lists(st.integers(1, 7), min_size=1, max_size=20))
def test_chunking_never_changes_what_is_read(text: str, sizes: list[int]) -> None:
    assert _observe(_split(text, sizes)) == _observe([text])


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200), st.lists(st.integers(1, 9), min_size=1, max_size=10))
def test_arbitrary_text_is_read_the_same_in_any_chunks(text: str, sizes: list[int]) -> None:
    assert _observe(_split(text, sizes)) == _observe([text])


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=120), st.booleans(), st.lists(st.integers(1, 8), min_size=1, max_size=9))
def test_streamed_answer_is_the_json_string(answer: str, ascii_: bool, sizes: list[int]) -> None:
    text = "Thought: x\nAction: " + json.dumps(
        {"action": "Final Answer", "action_input": answer}, ensure_ascii=ascii_
    )
    thought, streamed, steps, _conflict, _markers = _observe(_split(text, sizes))
    assert thought == "x\n"
    assert streamed == answer
    assert [(s.kind, s.tool_input, s.streamed) for s in steps] == [("finish", answer, True)]


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80), st.lists(st.integers(1, 8), min_size=1, max_size=9))
def test_text_layout_answer_is_the_stripped_text(answer: str, sizes: list[int]) -> None:
    text = "Thought: x\nFinal Answer: " + answer
    _thought, streamed, steps, _conflict, _markers = _observe(_split(text, sizes))
    assert streamed == steps[0].tool_input
    assert answer.strip().startswith(streamed) or not streamed


# --------------------------------------------------------------------------- linear work


def _best(fn: Callable[[], object], *, repeats: int = 5) -> float:
    return best_cpu_seconds(fn, repeats)


def _feed_all(text: str, size: int = 4) -> None:
    scanner = ReActScanner()
    for i in range(0, len(text), size):
        scanner.feed(text[i : i + size])
    scanner.close()


def _noise(size: int, seed: int) -> str:
    rng = random.Random(seed)
    parts = ["{", "}", "[", "\n", '"', "\\", "Act", "Action", "Thought:", "`", " ", "x", "*", "<"]
    out: list[str] = []
    total = 0
    while total < size:
        out.append(rng.choice(parts))
        total += len(out[-1])
    return "".join(out)


@pytest.mark.parametrize(
    "make",
    [
        lambda n: final_json('"' + "word \\n " * (n // 8)),
        lambda n: "Final Answer: " + "word word\n" * (n // 10),
        lambda n: "Thought: " + "the answer to all of that " * (n // 26),
        lambda n: "{\n" * (n // 2),
        lambda n: "[" * n,
        lambda n: "Action Act Action Act " * (n // 22),
        lambda n: "```\n" * (n // 4),
        lambda n: '{"a": "' + "}" * n,
        lambda n: "Action: " + "x" * n,
        lambda n: "<thin" * (n // 5),
        lambda n: _noise(n, 1),
    ],
    ids=[
        "json-answer",
        "text-answer",
        "thought",
        "brace-lines",
        "brackets",
        "marker-prefixes",
        "fences",
        "closers-in-string",
        "long-action-line",
        "tag-prefixes",
        "noise",
    ],
)
@pytest.mark.slow
def test_work_grows_linearly(make: Callable[[int], str]) -> None:
    small, large = make(20_000), make(200_000)
    t_small = _best(lambda: [_feed_all(small) for _ in range(10)]) / 10
    t_large = _best(lambda: _feed_all(large))
    # 10x the text may cost at most ~13x the time (and some slack for timer noise).
    assert t_large <= 13 * t_small + 0.05, (t_small, t_large)


@pytest.mark.parametrize(
    "text",
    [
        '{"\nACTION:',
        '{"key\nAction: search\nAction Input: x',
        "{" + "k" * 200 + " Action: a\nAction Input: b",
        '{"' + "k" * 200 + " Final Answer: c",
    ],
)
def test_prose_after_a_brace_is_read_the_same_in_any_chunks(text: str) -> None:
    one = _observe([text])
    for size in range(1, 9):
        assert _observe(_split(text, [size])) == one, size


def test_escapes_in_a_key_end_the_capture_at_the_same_place_in_any_chunks() -> None:
    for text in ['{"a\\nb Action: x\nAction Input: y', '{"' + "\\t" * 140 + " Final Answer: z"]:
        one = _observe([text])
        for size in range(1, 9):
            assert _observe(_split(text, [size])) == one, (text, size)


PREFIX_CORPUS = [
    f"Through: abc\nAction: ```json\n{ACT}```",
    f"Thought: x\nAction: [{ACT}]",
    "Thought: hmm\nAction: search\nAction Input: Paris\nObservation: sunny\nThought: ok",
    '**Thought:** t\n**Action:** `search`\n**Action Input:** "x"\n**Final Answer:** y',
    "Action: search Action Input: x",
    "Action: Final Answer\nAction Input: Paris\n\nFinal Answer: again",
    "<think>Final Answer: no</think>\n[1] ref\n{x}\n```py\nprint(1)\n```\nFinal Answer: z",
    'Action:\n```\n{"tool": "t", "input": {"a": [1, "}"]}}\n```\n```\nmore',
    'Action: {"action_input": "a\\u00e9\\ud83d\\ude00\\\\\\"", "action": "Final Answer"}',
    "{'action': 'Final Answer', 'action_input': 'it\\'s'}",
    "</think>Thought: a\nAction: x\nAct",
]


@pytest.mark.parametrize("text", PREFIX_CORPUS)
def test_every_prefix_ends_cleanly_and_reads_the_same_in_any_chunks(text: str) -> None:
    for end in range(len(text) + 1):
        prefix = text[:end]
        whole = _observe([prefix])
        assert _observe(list(prefix)) == whole, prefix
        assert _observe(_split(prefix, [3, 1, 2])) == whole, prefix


# ------------------------------------------------------------------ issue 16: shared decoder


def _decoded_by_the_package(raw_string_content: str) -> str:
    """The package's complete-text reading of a JSON string with this raw content."""
    from langchain_robust_parsers import loads

    value = loads('{"a": "' + raw_string_content + '"}')
    assert isinstance(value, dict)
    return str(value["a"])


@pytest.mark.parametrize(
    "raw",
    [
        r"caf\u00e9 and \ud83d\ude00 done",  # a surrogate pair
        r"lone \ud83d then text",  # a high surrogate with no low half
        r"bad \uZZ99 escape",  # not hex: kept as written, as the JSON engine keeps it
        r"short \u12x escape",
        r"it\'s \q odd",  # escapes JSON does not have
        r"tab\tquote\"slash\/back\\",
        r"two highs \ud83d\ud83d\ude00",
    ],
    ids=["pair", "lone-high", "bad-hex", "short-u", "odd-escapes", "simple", "two-highs"],
)
def test_streamed_answer_reads_escapes_as_the_json_engine_does(raw: str) -> None:
    """One decoder for the package: in any chunking the deltas, the step and ``loads`` agree,
    and no delta ends inside an escape."""
    expected = _decoded_by_the_package(raw)
    text = "Action: " + final_json('"' + raw + '"')
    for sizes in (1, 2, 3, 5, [4, 1, 6], len(text)):
        _, answer, steps, _ = stream(text, sizes)
        assert answer == expected, sizes
        assert steps[0].tool_input == expected


def test_no_delta_holds_half_a_surrogate_pair() -> None:
    text = "Action: " + final_json(r'"x\ud83d\ude00y"')
    scanner = ReActScanner()
    deltas = [d for ch in text for d in scanner.feed(ch)] + scanner.close()
    pieces = [piece for kind, piece in deltas if kind == "answer"]
    assert "".join(pieces) == "x\U0001f600y"
    assert all(not ("\ud800" <= c <= "\udfff") for piece in pieces for c in piece)


def test_unescaped_inner_quotes_stream_as_content() -> None:
    text = 'Action: {"action": "Final Answer", "action_input": "She said "no" twice"}'
    for sizes in (1, 4, len(text)):
        _, answer, steps, _ = stream(text, sizes)
        assert answer == 'She said "no" twice'
        assert steps[0].tool_input == answer


# ------------------------------------------------------------------------- issue 16: layouts


@pytest.mark.parametrize(
    "text",
    [
        'Thought: the weather tool fits. I will call {"action": "weather", "action_input": "Oslo"}',
        'I\'ll look it up: {"tool": "weather", "tool_input": "Oslo"} and wait.',
        'Okay -> {"name": "weather", "arguments": "Oslo"}',
    ],
    ids=["after-thought", "mid-sentence", "name-arguments"],
)
def test_json_action_inside_a_line_of_prose_is_found(text: str) -> None:
    for sizes in (1, 3, len(text)):
        thought, _, steps, _ = stream(text, sizes)
        assert [(s.kind, s.tool, s.tool_input) for s in steps] == [("action", "weather", "Oslo")]
        assert "{" not in thought


@pytest.mark.parametrize(
    "text",
    [
        "Thought: the set {a, b} has two members\nFinal Answer: 2",
        "Thought: fill in {name} and {city}\nFinal Answer: done",
        'Thought: the config was {"debug": true}\nFinal Answer: on',
    ],
)
def test_braces_in_prose_that_are_no_action_stay_thought_text(text: str) -> None:
    for sizes in (1, 2, len(text)):
        thought, answer, steps, _ = stream(text, sizes)
        assert thought == text[len("Thought: ") : text.index("\nFinal")] + "\n"
        assert [s.kind for s in steps] == ["finish"]
        assert answer == text.rsplit(": ", 1)[1]


def test_json_list_of_actions_keeps_every_action_as_siblings() -> None:
    text = (
        "Action:\n```json\n"
        '[{"action": "search", "action_input": "Oslo weather"},\n'
        ' {"action": "calculator", "action_input": {"expr": "2+2"}},\n'
        ' {"tool": "clock"}]\n```'
    )
    (step,) = scan_react(text).steps
    assert (step.tool, step.tool_input) == ("search", "Oslo weather")
    assert [(s.kind, s.tool, s.tool_input) for s in step.siblings] == [
        ("action", "calculator", {"expr": "2+2"}),
        ("action", "clock", {}),
    ]
    assert all((s.start, s.end) == (step.start, step.end) for s in step.siblings)


def test_two_fenced_actions_are_two_steps() -> None:
    text = (
        "Thought: both at once\n"
        '```json\n{"action": "a", "action_input": "1"}\n```\n'
        '```json\n{"action": "b", "action_input": "2"}\n```\n'
    )
    scan = scan_react(text)
    assert [(s.tool, s.tool_input) for s in scan.steps] == [("a", "1"), ("b", "2")]
    assert not scan.conflict


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ('say "hi"', 'say "hi"'),  # a closing quote alone stays
        ('"Paris"', "Paris"),  # the pair that wraps the whole input goes
        ('"hi', '"hi'),  # an opening quote alone stays
        ('"a" and "b"', 'a" and "b'),  # outermost pair only
        ('""', ""),
        ('"', '"'),
    ],
)
def test_action_input_quotes_are_stripped_only_in_pairs(value: str, expected: str) -> None:
    (step,) = scan_react(f"Action: speak\nAction Input: {value}").steps
    assert step.tool_input == expected


@pytest.mark.parametrize(
    "text",
    [
        "<Thought>I need the forecast</Thought>\nAction: weather\nAction Input: Oslo",
        "<thought>\nI need the forecast\n</thought>\nAction: weather\nAction Input: Oslo",
        "<think>I need the forecast</think>\nAction: weather\nAction Input: Oslo",
    ],
    ids=["Thought", "thought-lines", "think"],
)
def test_reasoning_tags_are_thought_text_without_their_tags(text: str) -> None:
    for sizes in (1, 4, len(text)):
        thought, _, steps, _ = stream(text, sizes)
        assert "<" not in thought and "forecast" in thought
        assert [(s.tool, s.tool_input) for s in steps] == [("weather", "Oslo")]


def test_markers_inside_a_thought_tag_are_not_steps() -> None:
    text = "<Thought>maybe Final Answer: 3</Thought>\nAction: calc\nAction Input: 1+2"
    steps = scan_react(text).steps
    assert [(s.kind, s.tool) for s in steps] == [("action", "calc")]


# --------------------------------------------------------------------------- issue 16: shape


def test_no_scanner_object_has_more_than_25_fields() -> None:
    import dataclasses

    scanner = ReActScanner()
    scanner.feed('Thought: x\nAction: {"action": "Final Answer", "action_input": "ab')
    assert len(vars(scanner)) <= 25
    for value in vars(scanner).values():
        if dataclasses.is_dataclass(value):
            assert len(dataclasses.fields(value)) <= 25
    assert len(dataclasses.fields(scanner._j)) <= 25


@pytest.mark.parametrize(
    "body",
    [
        "\\uZZ\\nx\\n\n",  # a malformed escape, then a line break written as is
        "\\u12aa\\u12\\u12\"\\'\né\\u00e9",
        "\n\\ud83d\"'\\u\\qx\\u00e9\n",
    ],
)
@pytest.mark.parametrize("quote", ['"', "'"])
def test_odd_answers_read_the_same_in_every_chunking(body: str, quote: str) -> None:
    body = body.replace(quote, "\\" + quote)
    text = (
        f"Action: {{{quote}action{quote}: {quote}Final Answer{quote}, "
        f"{quote}action_input{quote}: {quote}{body}{quote}}}"
    )
    (whole,) = scan_react(text).steps
    for sizes in (1, 2, 3, [5, 1], 7):
        _, answer, steps, _ = stream(text, sizes)
        assert [s.tool_input for s in steps] == [whole.tool_input]
        assert answer == whole.tool_input
