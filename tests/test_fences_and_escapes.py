"""Every reader reads a code fence the same way, and a string escape cut at the end of a stream
prefix is never handed out half-read.

Fences follow one rule (``engine/lexicon/fences.py``): ``` or ~~~, any case language tag, an
info string with attributes, a longer closing run, CRLF line ends, a block cut off at the end.
Each spelling below wraps the same answer for the JSON, YAML, ReAct, function-call, action and
dialog parsers, and for the continuation stitching of ``RetryWithClarification``; each is parsed
whole and streamed at several chunk sizes.
"""

from __future__ import annotations

import ast
import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.agents import AgentAction
from langchain_core.messages import AIMessageChunk
from pydantic import BaseModel

from langchain_robust_parsers import (
    ActionOutputParser,
    DialogOutputParser,
    FunctionCallOutputParser,
    ReActOutputParser,
    RobustJsonOutputParser,
    loads,
)
from langchain_robust_parsers.engine.agents.react_json import split_decodable
from langchain_robust_parsers.engine.lexicon.escapes import (
    join_surrogates,
    unfinished_escape_start,
)
from langchain_robust_parsers.engine.lexicon.fences import (
    MAX_FENCE_INFO,
    fence_opening_cut,
    find_fences,
    match_fence_open,
    trailing_fence,
)
from langchain_robust_parsers.engine.stitching import stitch
from langchain_robust_parsers.parsers.yaml_parser import RobustYamlOutputParser

PACKAGE = Path(__file__).resolve().parents[1] / "langchain_robust_parsers"

# ----------------------------------------------------------------------------- fence spellings

SPELLINGS: dict[str, tuple[str, str]] = {
    # name: (opening line, closing line); "{lang}" is the reader's language tag.
    "backticks": ("```{lang}\n", "\n```"),
    "upper-case tag": ("```{LANG}\n", "\n```"),
    "no tag": ("```\n", "\n```"),
    "tildes": ("~~~{lang}\n", "\n~~~"),
    "longer close": ("````{lang}\n", "\n`````"),
    "attributes": ('```{lang} title="answer" linenums="1"\n', "\n```"),
    "indented close": ("```{lang}\n", "\n   ```"),
    "crlf": ("```{lang}\r\n", "\r\n```\r\n"),
    "unclosed": ("```{lang}\n", "\n"),
}
CHUNK_SIZES = (1, 3, 7, 64)


def fenced(body: str, spelling: str, lang: str, prose: bool = True) -> str:
    opening, closing = SPELLINGS[spelling]
    opening = opening.format(lang=lang, LANG=lang.upper())
    if spelling == "crlf":
        body = body.replace("\n", "\r\n")
    text = opening + body + closing
    if not prose:
        return text
    if spelling == "unclosed":
        return "Sure, here it is:\n\n" + text  # a cut-off answer ends inside its fence
    return "Sure, here it is:\n\n" + text + "\nTell me if you need more."


def pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def streamed(parser: Any, text: str, size: int, as_message: bool = False) -> list[Any]:
    chunks: list[Any] = pieces(text, size)
    if as_message:
        chunks = [AIMessageChunk(content=c) for c in chunks]
    return list(parser.transform(iter(chunks)))


spelled = pytest.mark.parametrize("spelling", list(SPELLINGS))

WEATHER = {"city": "Oslo", "days": 3, "units": "metric", "note": "uses ``` inside a string"}


@spelled
def test_loads_and_json_parser_read_every_spelling(spelling: str) -> None:
    text = fenced(json.dumps(WEATHER, indent=2), spelling, "json")
    assert loads(text) == WEATHER
    parser = RobustJsonOutputParser()
    assert parser.parse(text) == WEATHER
    for size in CHUNK_SIZES:
        for as_message in (False, True):
            values = streamed(parser, text, size, as_message)
            assert values[-1] == WEATHER, (size, as_message)


@spelled
def test_json_parser_streams_async_to_the_invoked_value(spelling: str) -> None:
    text = fenced(json.dumps(WEATHER), spelling, "json")
    parser = RobustJsonOutputParser()

    async def run() -> list[Any]:
        async def chunks() -> Any:
            for piece in pieces(text, 5):
                yield piece

        return [value async for value in parser.atransform(chunks())]

    assert asyncio.run(run())[-1] == parser.invoke(text) == WEATHER


class Trip(BaseModel):
    city: str
    days: int
    tags: list[str]


@spelled
def test_yaml_parser_reads_every_spelling(spelling: str) -> None:
    body = "city: Oslo\ndays: 3\ntags:\n  - fjords\n  - museums"
    text = fenced(body, spelling, "yaml")
    parser = RobustYamlOutputParser(pydantic_object=Trip)
    assert parser.parse(text) == Trip(city="Oslo", days=3, tags=["fjords", "museums"])
    for size in CHUNK_SIZES:
        assert streamed(parser, text, size)[-1] == parser.parse(text), size


@spelled
def test_react_parser_reads_an_action_in_every_spelling(spelling: str) -> None:
    action = json.dumps({"action": "search", "action_input": "weather in Oslo"}, indent=2)
    text = "Thought: I need today's forecast.\nAction:\n" + fenced(action, spelling, "json", False)
    parser = ReActOutputParser()
    step = parser.parse(text)
    assert isinstance(step, AgentAction)
    assert (step.tool, step.tool_input) == ("search", "weather in Oslo")
    for size in CHUNK_SIZES:
        last = streamed(parser, text, size)[-1]
        assert isinstance(last, AgentAction), size
        assert (last.tool, last.tool_input) == (step.tool, step.tool_input), size


@spelled
@pytest.mark.parametrize(
    ("lang", "body"),
    [
        ("json", '{"name": "get_weather", "arguments": {"city": "Oslo", "days": 3}}'),
        ("python", '[get_weather(city="Oslo", days=3)]'),
    ],
)
def test_function_call_parser_reads_every_spelling(spelling: str, lang: str, body: str) -> None:
    text = fenced(body, spelling, lang)
    parser = FunctionCallOutputParser()
    assert parser.parse(text) == [{"get_weather": {"city": "Oslo", "days": 3}}]
    for size in CHUNK_SIZES:
        assert streamed(parser, text, size)[-1] == parser.parse(text), size


@spelled
def test_action_parser_reads_every_spelling(spelling: str) -> None:
    body = '{"action_type": "click", "x": 412, "y": 96}'
    text = fenced(body, spelling, "json")
    parser = ActionOutputParser()
    actions = parser.parse(text)
    for size in CHUNK_SIZES:
        assert streamed(parser, text, size)[-1] == actions, size
    assert [(a.action_type, getattr(a, "x", None), getattr(a, "y", None)) for a in actions] == [
        ("CLICK", 412, 96)
    ]


@spelled
def test_dialog_parser_reads_every_spelling(spelling: str) -> None:
    body = '[SPEAK | to: Mara | tone: warm] "The lighthouse is open until nine."'
    text = fenced(body, spelling, "text", prose=False)
    parser = DialogOutputParser()
    turn = parser.parse(text)
    assert (turn.action, turn.target, turn.tone) == ("speak", "Mara", "warm")
    assert turn.content == "The lighthouse is open until nine."
    for size in CHUNK_SIZES:
        assert streamed(parser, text, size)[-1] == turn, size


@spelled
def test_stitching_drops_a_fence_the_continuation_opens_again(spelling: str) -> None:
    body = json.dumps(WEATHER, indent=2)
    whole = fenced(body, spelling, "json", prose=False)
    opening = whole[: whole.index("{")]
    cut = whole.index('"units"')
    joined = stitch(whole[:cut], opening + whole[cut:])
    assert joined == whole
    assert loads(joined) == WEATHER


# ----------------------------------------------------------------------------- the fence rule


@pytest.mark.parametrize(
    ("opening", "info", "lang", "body_at"),
    [
        ("```json\n", "json", "json", 8),
        ("```JSON\n", "JSON", "json", 8),
        ("~~~ yaml\n", "yaml", "yaml", 9),
        ('```json title="a.json"\n', 'json title="a.json"', "json", 23),
        ("```json\r\n", "json", "json", 9),
        ('```json {"a": 1}', "json", "json", 8),  # the payload on the fence line
        ("```\n", "", "", 4),
        ("~~~python `x`\n", "python `x`", "python", 14),  # backticks allowed after tildes
    ],
)
def test_an_opening_fence_has_one_info_string(
    opening: str, info: str, lang: str, body_at: int
) -> None:
    found = match_fence_open(opening, 0)
    assert found is not None
    assert (found.info, found.lang, found.body) == (info, lang, body_at)


def test_a_fence_line_longer_than_an_info_string_keeps_only_its_language_word() -> None:
    text = "```json " + "x" * (MAX_FENCE_INFO + 5) + "\n"
    found = match_fence_open(text, 0)
    assert found is not None
    assert found.lang == "json"
    assert found.body == len("```json ")


def test_blocks_are_found_closed_or_not_with_a_longer_close() -> None:
    text = 'A:\n````md\n```json\n{"a": 1}\n```\n`````\nB:\n~~~\nopen to the end'
    blocks = list(find_fences(text))
    assert [(b.lang, b.closed) for b in blocks] == [("md", True), ("", False)]
    assert text[blocks[0].body_start : blocks[0].body_stop] == '```json\n{"a": 1}\n```\n'
    assert text[blocks[1].body_start : blocks[1].body_stop] == "open to the end"


def test_a_fence_inside_a_json_string_is_not_a_block() -> None:
    assert list(find_fences('{"md": "```", "alt": "~~~"}')) == []
    text = 'Here:\n```json\n{"md": "a ``` b"}\n```\nDone.'
    (block,) = find_fences(text)
    assert text[block.body_start : block.body_stop] == '{"md": "a ``` b"}\n'


@pytest.mark.parametrize(
    ("prefix", "cut"),
    [("`", True), ("``", True), ("~~", True), ("```", True), ("```js", True),
     ("```json\n", False), ('```json {"', False), ("``x", False)],
)  # fmt: skip
def test_a_fence_opening_cut_at_the_end_of_a_prefix(prefix: str, cut: bool) -> None:
    assert fence_opening_cut(prefix, 0) is cut


@pytest.mark.parametrize(
    ("text", "at"),
    [("abc\n```", 3), ("abc\r\n~~~~  \n", 3), ("abc ```", -1), ("abc\n``", -1), ("```", 0)],
)
def test_a_closing_fence_at_the_end(text: str, at: int) -> None:
    assert trailing_fence(text) == at


# ----------------------------------------------------------------------------- escapes

RAW_STRING = r"Line one\nShe said \"hi\" at the caf\u00e9 \ud83d\ude00 \\ done\/"
EXPECTED = json.loads('"' + RAW_STRING + '"')
DOCUMENT = '{"reply": "' + RAW_STRING + '", "n": 1}'


@pytest.mark.parametrize(
    ("text", "start"),
    [
        ("abc\\", 3),
        ("abc\\\\", -1),
        ("abc\\u", 3),
        ("abc\\u00e", 3),
        ("abc\\u00e9", -1),
        ("abc\\ud83d", 3),
        ("abc\\ud83d\\", 3),
        ("abc\\ud83d\\ude0", 3),
        ("abc\\ud83d\\ude00", -1),
        ("abc\\u00zz", -1),  # malformed whatever follows: finished
        ("abc\\\\ud83d", -1),  # an escaped backslash, then text
    ],
)
def test_where_an_escape_cut_at_the_end_starts(text: str, start: int) -> None:
    assert unfinished_escape_start(text, len(text)) == start


def test_surrogates_join_into_one_character() -> None:
    assert chr(join_surrogates(0xD83D, 0xDE00)) == "\N{GRINNING FACE}"


def test_react_splits_raw_content_where_it_can_be_decoded() -> None:
    assert split_decodable("ab\\ud83d") == (2, 8)
    assert split_decodable("ab\\ud83d\\ude") == (2, 8)
    assert split_decodable("ab\\u00") == (2, 2)
    assert split_decodable("ab\\n") == (4, 4)


def _is_prefix_value(value: Any) -> bool:
    """A snapshot of DOCUMENT holds no broken escape: its reply is a prefix of the final one."""
    if value is None or value == {}:
        return True
    reply = value.get("reply", "")
    return isinstance(reply, str) and EXPECTED.startswith(reply)


def test_loads_never_reads_half_an_escape_at_any_cut() -> None:
    for cut in range(len(DOCUMENT) + 1):
        value = loads(DOCUMENT[:cut], partial=True)
        assert _is_prefix_value(value), (cut, DOCUMENT[:cut], value)
    assert loads(DOCUMENT) == {"reply": EXPECTED, "n": 1}


@pytest.mark.parametrize("size", range(1, 13))
def test_json_stream_never_yields_a_broken_escape(size: int) -> None:
    parser = RobustJsonOutputParser()
    for as_message in (False, True):
        values = streamed(parser, DOCUMENT, size, as_message)
        assert all(_is_prefix_value(v) for v in values), (size, values)
        assert values[-1] == parser.parse(DOCUMENT) == {"reply": EXPECTED, "n": 1}


def test_every_cut_of_an_escape_streams_to_the_same_value() -> None:
    parser = RobustJsonOutputParser()
    start = DOCUMENT.index("\\")
    for cut in range(start, len(DOCUMENT)):
        values = list(parser.transform(iter([DOCUMENT[:cut], DOCUMENT[cut:]])))
        assert all(_is_prefix_value(v) for v in values), cut
        assert values[-1] == {"reply": EXPECTED, "n": 1}, cut


@pytest.mark.parametrize("size", [1, 2, 5])
def test_react_final_answer_stream_never_holds_half_an_escape(size: int) -> None:
    text = '```json\n{"action": "Final Answer", "action_input": "' + RAW_STRING + '"}\n```'
    parser = ReActOutputParser(stream_text=True)
    final = parser.parse(text)
    shown = ""
    for item in parser.transform(iter(pieces(text, size))):
        if isinstance(item, str):
            shown += item
            assert EXPECTED.startswith(shown), (size, shown)
    assert final.return_values["output"] == EXPECTED


# ----------------------------------------------------------------------------- one home

FENCE_RUN = re.compile(r"```|~~~|`\{3|~\{3")
HEX_ESCAPE = re.compile(r"\[0-9a-fA-F\]\{4\}")
FENCES_HOME = "engine/lexicon/fences.py"
ESCAPES_HOME = "engine/lexicon/escapes.py"
REGEX_FUNCTIONS = frozenset({"compile", "match", "fullmatch", "search", "finditer", "findall"})

FACTS_ALLOWED: dict[tuple[str, str], str] = {
    # (module, pattern or name): why it may stay outside the lexicon
}


def _pattern_literals(node: ast.Call) -> Iterator[str]:
    for arg in node.args[:1]:
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            yield arg.value
        elif isinstance(arg, ast.JoinedStr):
            yield "".join(
                part.value
                for part in arg.values
                if isinstance(part, ast.Constant) and isinstance(part.value, str)
            )


def _facts_outside_home(root: Path = PACKAGE) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for path in sorted(root.rglob("*.py")):
        module = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in REGEX_FUNCTIONS
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "re"
            ):
                for literal in _pattern_literals(node):
                    if FENCE_RUN.search(literal) and module != FENCES_HOME:
                        found.append((module, literal))
                    if HEX_ESCAPE.search(literal) and module != ESCAPES_HOME:
                        found.append((module, literal))
            targets = node.targets if isinstance(node, ast.Assign) else []
            if isinstance(node, ast.AnnAssign):
                targets = [node.target]
            for target in targets:
                names = {"MAX_FENCES", "MAX_FENCE_INFO", "SIMPLE_ESCAPES", "HEX4"}
                if isinstance(target, ast.Name) and target.id in names:
                    home = FENCES_HOME if "FENCE" in target.id else ESCAPES_HOME
                    if module != home:
                        found.append((module, target.id))
    return [fact for fact in found if fact not in FACTS_ALLOWED]


def test_fences_and_escapes_are_declared_only_in_the_lexicon() -> None:
    assert _facts_outside_home() == []


def test_the_one_home_check_finds_a_copy(tmp_path: Path) -> None:
    for name, source in {
        "a.py": 'import re\nX = re.compile(r"(?:```|~~~)json")\n',
        "b.py": "MAX_FENCES = 8\n",
        "c.py": 'import re\nH = re.compile(r"\\\\u[0-9a-fA-F]{4}")\n',
        "d.py": 'import re\nOK = re.compile(r"[a-z]+")\n',
    }.items():
        (tmp_path / name).write_text(source, encoding="utf-8")
    assert {module for module, _ in _facts_outside_home(tmp_path)} == {"a.py", "b.py", "c.py"}
