"""The bulk repair route (whole-document lexical rewrite at C speed) reads what the scanner
would, and its repairs point at the characters they changed."""

from __future__ import annotations

import contextlib
import json
import random
import re

import pytest
from cpu_clock import best_cpu_seconds
from langchain_core.exceptions import OutputParserException

from langchain_robust_parsers.engine.json.bulk_repair import _split_tokens, bulk_decode
from langchain_robust_parsers.engine.json.lenient import LenientError, scan_value
from langchain_robust_parsers.engine.repair_log import RepairLog
from langchain_robust_parsers.parsers.json_text import loads_with_report

CASES = [
    # (text, value, [(repair, the text at its offset)])
    (
        '{a: "x\\"y", b: "z:w", c: [1, 2], d: True}',
        {"a": 'x"y', "b": "z:w", "c": [1, 2], "d": True},
        [
            ("unquoted_key", "a:"),
            ("unquoted_key", "b:"),
            ("unquoted_key", "c:"),
            ("unquoted_key", "d:"),
            ("python_literal", "True"),
        ],
    ),
    (
        '{a: "he said \\"hi\\", b: no", b: "x"}',
        {"a": 'he said "hi", b: no', "b": "x"},
        [("unquoted_key", "a:"), ("unquoted_key", "b:")],
    ),
    (
        "{'a': 'say \"hi\"', 'b': None}",
        {"a": 'say "hi"', "b": None},
        [
            ("single_quotes", "'a'"),
            ("single_quotes", "'say"),
            ("single_quotes", "'b'"),
            ("python_literal", "None"),
        ],
    ),
    (
        '{a: 1, // a "quoted" note, c: 3\n b: "x"}',
        {"a": 1, "b": "x"},
        [("unquoted_key", "a:"), ("comment", "//"), ("unquoted_key", "b:")],
    ),
    (
        '{"a": "x", "b": \'y\', "c": [1,],}',
        {"a": "x", "b": "y", "c": [1]},
        [("single_quotes", "'y'"), ("trailing_comma", ",]"), ("trailing_comma", ",}")],
    ),
    (
        '{"a": "x", b: "y", "c": "z, d: 1 // not a comment"}',
        {"a": "x", "b": "y", "c": "z, d: 1 // not a comment"},
        [("unquoted_key", "b:")],
    ),
    (
        '{"a": "x", b : "y", "n": 1e5, "t": [true, False]}',
        {"a": "x", "b": "y", "n": 1e5, "t": [True, False]},
        [("unquoted_key", "b :"), ("python_literal", "False")],
    ),
]


@pytest.mark.parametrize(("text", "value", "repairs"), CASES)
def test_bulk_rewrite_value_and_offsets(
    text: str, value: object, repairs: list[tuple[str, str]]
) -> None:
    got, report = loads_with_report(text)
    assert got == value
    assert len(report.repairs) == len(repairs)
    for r, (name, at) in zip(report.repairs, repairs, strict=True):
        assert (r.name, text[r.pos : r.pos + len(at)]) == (name, at)


def test_many_rewrites_are_counted_beyond_the_listed_ones() -> None:
    doc = {f"key_{i}": [i, None, True, f"it's {i}"] for i in range(300)}
    got, report = loads_with_report(repr(doc))
    assert got == json.loads(json.dumps(doc))
    assert 0 < len(report.repairs) < 300 * 4
    first = report.repairs[0]
    assert first.name == "single_quotes" and first.pos == 1 and first.path == "/key_0"


def test_unquoted_keys_with_escaped_quotes_keep_every_string_whole() -> None:
    doc = {f"k{i}": f'say "{i}" then \\ back, k{i}: x' for i in range(200)}
    text = json.dumps(doc, indent=2)
    unquoted = text.replace('"k', "k").replace('":', ":")
    got, report = loads_with_report(unquoted)
    assert got == doc
    assert all(r.name == "unquoted_key" for r in report.repairs)
    assert all(unquoted[r.pos] == "k" for r in report.repairs)


_TRICKY_STRINGS = [
    "it's",
    'say "hi", then: go',
    "a, ] b, } c",
    "key: value",
    "// not a comment",
    "# not a comment either",
    "True or None",
    "back\\slash",
    'ends in a backslash \\" quote',
    "tab\tand line\nbreak",
    "Zoë 🎉",
]


def _export(rng: random.Random, records: int) -> dict[str, object]:
    """A pretty-printable document whose strings hold every character the routes look at."""
    return {
        "records": [
            {
                "id": i,
                "note": rng.choice(_TRICKY_STRINGS) if i % 4 == 0 else f"note {i}",
                "plain": f"word{i}",
                "flags": [rng.random() < 0.5, None, rng.randint(0, 9)],
                "nested": {"k": rng.choice(_TRICKY_STRINGS) if i % 5 == 0 else "", "n": [i]},
            }
            for i in range(records)
        ]
    }


_DEFECTS = {
    # name: (pattern of a site in clean pretty-printed text, rewrite, text at the repair offset)
    "trailing_comma": (re.compile(r"(?<=[\]}\"0-9el])(?=\n *[\]}])"), lambda m: ",", ","),
    "single_quotes": (re.compile(r'"(word[0-9]+)"'), lambda m: f"'{m.group(1)}'", "'word"),
    "unquoted_key": (re.compile(r'"(plain)":'), lambda m: "plain:", "plain:"),
    "python_literal": (re.compile(r"\btrue\b"), lambda m: "True", "True"),
    "comment": (
        re.compile(r"(?<=,)\n"),
        lambda m: ' // a "quoted" remark, b: 1\n',
        "//",
    ),
}


@pytest.mark.parametrize("seed", range(12))
def test_sparse_defects_in_a_long_document_read_as_the_clean_one(seed: int) -> None:
    """A long export with a defect every few records (the shape the C-speed sparse route is
    for): the value is the clean document's, and every repair points at what it changed."""
    rng = random.Random(seed)
    doc = _export(rng, 60)
    clean = json.dumps(doc, indent=2, ensure_ascii=rng.random() < 0.3)
    parts: list[str] = []
    expected: list[tuple[str, str]] = []
    pos = 0
    out_len = 0
    while True:
        name = rng.choice(sorted(_DEFECTS))
        pattern, rewrite, marker = _DEFECTS[name]
        m = pattern.search(clean, pos + rng.randint(300, 900))
        if m is None:
            break
        piece = clean[pos : m.start()] + rewrite(m)
        parts.append(piece)
        at = out_len + len(clean[pos : m.start()]) + rewrite(m).find(marker[0])
        expected.append((name, at))
        out_len += len(piece)
        pos = m.end()
    parts.append(clean[pos:])
    broken = "".join(parts)
    assert len(expected) >= 5
    got, report = loads_with_report(broken)
    assert got == doc
    assert sorted((r.name, r.pos) for r in report.repairs) == sorted(expected)
    # The C-speed route reads it by itself, without the character-by-character scanner.
    log = RepairLog()
    assert bulk_decode(broken, 0, len(broken), log) == (doc, len(broken))
    assert sorted((r.name, r.pos) for r in log.repairs) == sorted(expected)


def test_sparse_route_keeps_an_escaped_backslash_before_a_quote() -> None:
    doc = {"a": "x\\", "b": 'q"', "c": [1, 2]}
    text = json.dumps(doc, indent=2).replace("2\n", "2,\n")
    assert loads_with_report(text)[0] == doc
    assert bulk_decode(text, 0, len(text), RepairLog()) == (doc, len(text))


def test_javascript_object_with_trailing_commas_is_read_by_the_bulk_route() -> None:
    """Unquoted keys on every line and a trailing comma in a few places: the bulk route still
    reads it by itself and lists both kinds of repair."""
    doc = {f"key_{i}": {"name": f'item "{i}"', "tags": ["a", "b"], "n": i} for i in range(40)}
    text = json.dumps(doc, indent=2)
    text = re.sub(r'"([a-z_0-9]+)":', r"\1:", text)
    text = text.replace('"b"\n', '"b",\n', 3)
    log = RepairLog()
    assert bulk_decode(text, 0, len(text), log) == (doc, len(text))
    names = {r.name for r in log.repairs}
    assert names == {"unquoted_key", "trailing_comma"}
    assert log.count == 40 * 4 + 3
    assert all(text[r.pos] == "," for r in log.repairs if r.name == "trailing_comma")


def _escaped_single_quotes(k: int) -> str:
    """A line of `\\'` with no closing quote, between enough double quotes for the sparse route:
    each quote would otherwise be read to the end of the line."""
    return "[" + '""' * (k + 1) + "'" + ("\\'" + "x" * 200) * k + "]"


def _cpu_seconds(text: str) -> float:
    return best_cpu_seconds(lambda: bulk_decode(text, 0, len(text), RepairLog()), 3)


@pytest.mark.slow
def test_unclosed_single_quotes_on_one_line_cost_linear_time() -> None:
    small, large = (
        _cpu_seconds(_escaped_single_quotes(250)),
        _cpu_seconds(_escaped_single_quotes(1_000)),
    )
    assert large < 0.5
    assert large < 10 * max(small, 1e-3)  # 4x the text: quadratic would be 16x


_UNCLOSED_QUOTE_SHAPES = {
    # Lines of quotes that never close, which every route must read in linear time.
    "escaped single quotes": lambda n: "[" + "'" + "\\'" * n + "]",
    "escaped double quotes": lambda n: "{a: True, b: " + '"' + '\\"' * n + "}",
    "escaped quotes of both kinds": lambda n: "[" + "\\'\\\"" * n + "]",
    "single then escaped double": lambda n: "[" + "'\\\"" * n + "]",
    "single and double": lambda n: "[" + "'\"" * n + "]",
    "escaped backticks": lambda n: "[" + "'" + "\\`" * n + "]",
    "many short unclosed lines": lambda n: "[" + "'\\'\\'\\'\\'\n" * (n // 4) + "]",
    "quotes without backslashes": lambda n: "[" + "'a" * n + "]",
    "an odd number of them": lambda n: "[" + "'a" * (n + 1) + "]",
    "unclosed values": lambda n: "{" + "'k': 'v" * n,
    "strings then a line of escapes": lambda n: "[" + '"x", ' * n + "'" + "\\'" * n + "]",
}


def _min_cpu(run: object, text: str) -> float:
    assert callable(run)
    return best_cpu_seconds(lambda: run(text), 3)


def _public(text: str) -> None:
    # A refusal is an allowed answer; another exception type fails the test.
    with contextlib.suppress(OutputParserException):
        loads_with_report(text)


def _scanner(text: str) -> None:
    with contextlib.suppress(LenientError):
        scan_value(text, 0, len(text), RepairLog())


@pytest.mark.slow
@pytest.mark.parametrize("shape", sorted(_UNCLOSED_QUOTE_SHAPES))
@pytest.mark.parametrize(
    "route",
    [
        lambda t: bulk_decode(t, 0, len(t), RepairLog()),
        _scanner,
        _public,
    ],
    ids=["bulk", "scanner", "public"],
)
def test_unclosed_quotes_cost_linear_time_on_every_route(route: object, shape: str) -> None:
    make = _UNCLOSED_QUOTE_SHAPES[shape]
    small, large = _min_cpu(route, make(4_000)), _min_cpu(route, make(16_000))
    assert large < 8 * max(small, 2e-3)  # 4x the text: quadratic would be 16x


def _plain_token_pattern(quotes: str) -> re.Pattern[str]:
    """The token pattern as written before lines of unclosed quotes were read once: each quote
    tries its string to the end of the line."""
    strings = "".join(rf"(?<={q})[^{q}\\\n]*{q}|(?<={q})(?:[^{q}\\\n]|\\.)*{q}|" for q in quotes)
    return re.compile(
        rf"([{quotes}/#,A-Za-z_](?:{strings}(?<=/)/[^\n]*|(?<=\#)[^\n]*"
        r"|(?<=[A-Za-z_])[A-Za-z0-9_]*(?:[ \t]*:)?|(?<=,)(?=[ \t\r\n]*[}\]])))"
    )


@pytest.mark.parametrize("quotes", ["\"'", "'"])
def test_linear_token_split_gives_the_plain_pattern_tokens(quotes: str) -> None:
    """Reading the rest of a line once without a quote kind that cannot close changes no
    token: the split is the one the plain pattern gives, on text made of the characters the
    pattern looks at."""
    plain = _plain_token_pattern(quotes)
    rng = random.Random(14)
    alphabet = ["'", '"', "\\", "\n", " ", ",", "]", "}", "a", ":", "/", "#", "\t"]
    for _ in range(4_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
        assert _split_tokens(text, quotes) == plain.split(text), text
