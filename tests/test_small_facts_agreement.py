"""Small facts with one home each: what a tool name looks like, when a quote is escaped, the
words for true/false/null, how a cut JSON input is completed, whether a number still being
written shows in a typed partial value. Every entry point gives the same answer, and the last
section fails when a second copy of a fact appears in the package."""

from __future__ import annotations

import ast
import itertools
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.outputs import ChatGeneration
from pydantic import BaseModel
from source_walk import docstring_ids

from langchain_robust_parsers import (
    FunctionCallOutputParser,
    ReActOutputParser,
    RobustJsonOutputParser,
    RobustPydanticOutputParser,
    TextToolCallAdapter,
    loads,
)
from langchain_robust_parsers.engine.lexicon.escapes import backslashes_before, escaped_at
from langchain_robust_parsers.engine.lexicon.names import TOOL_NAME
from langchain_robust_parsers.parsers.tools import (
    RobustJsonOutputToolsParser,
    RobustPydanticToolsParser,
)

PACKAGE = Path(__file__).resolve().parent.parent / "langchain_robust_parsers"

# ----------------------------------------------------------------------------- tool names

WEATHER_CALLS = {
    # One call to a tool named in Chinese, in each form a model writes a name in.
    "json": '<tool_call>{"name": "查询天气", "arguments": {"城市": "北京"}}</tool_call>',
    "qwen3_coder": (
        "<tool_call>\n<function=查询天气>\n<parameter=城市>\n北京\n</parameter>\n"
        "</function>\n</tool_call>"
    ),
    "glm": (
        "<tool_call>查询天气\n<arg_key>城市</arg_key>\n<arg_value>北京</arg_value>\n</tool_call>"
    ),
    "glm_json": '<tool_call>查询天气>{"城市": "北京"}</tool_call>',
    "mistral": '[TOOL_CALLS]查询天气[ARGS]{"城市": "北京"}',
    "name_line": '查询天气\n{"城市": "北京"}',
}


@pytest.mark.parametrize("form", sorted(WEATHER_CALLS))
def test_a_non_latin_tool_name_reads_alike_in_every_form(form: str) -> None:
    # Before one pattern, Mistral's, GLM's JSON form and the name line read only ASCII names
    # while the XML and JSON forms read any script: the same call ran or vanished by dialect.
    text = WEATHER_CALLS[form]
    assert FunctionCallOutputParser().parse(text) == [{"查询天气": {"城市": "北京"}}]
    message = TextToolCallAdapter().invoke(AIMessage(content=text))
    assert [(c["name"], c["args"]) for c in message.tool_calls] == [("查询天气", {"城市": "北京"})]


def test_react_takes_a_call_wrapper_off_an_input_whatever_the_script() -> None:
    text = 'Thought: ask the tool\nAction: weather\nAction Input: 查询({"城市": "北京"})'
    step = ReActOutputParser().parse(text)
    assert json.loads(step.tool_input) == {"城市": "北京"}  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        ("get_weather", True),
        ("functions.get_weather", True),
        ("get-weather", True),
        ("_private", True),
        ("天气", True),
        ("9lives", False),
        ("-flag", False),
    ],
)
def test_what_a_tool_name_looks_like(name: str, ok: bool) -> None:
    assert (TOOL_NAME.fullmatch(name) is not None) is ok


# ----------------------------------------------------------------------------- escapes


@pytest.mark.parametrize(
    ("text", "pos", "escaped"),
    [
        ('"a"', 2, False),
        ('"a\\"', 3, True),
        ('"a\\\\"', 4, False),
        ('"a\\\\\\"', 5, True),
        ("ends in \\", 9, True),
        ("ends in \\\\", 10, False),
    ],
)
def test_an_odd_run_of_backslashes_escapes(text: str, pos: int, escaped: bool) -> None:
    assert escaped_at(text, pos) is escaped
    assert backslashes_before(text, pos) % 2 == int(escaped)


def test_a_run_is_counted_only_from_where_the_string_starts() -> None:
    # The backslashes before a string's opening quote are not part of its content.
    assert backslashes_before('\\\\"\\"', 3, start=3) == 0
    assert escaped_at('\\\\"\\"', 4, start=3)


@pytest.mark.parametrize(
    "text",
    [
        '{"path": "C:\\\\Users\\\\", "n": 1}',
        '{"say": "he said \\"hi\\"", "n": 1}',
        '{"say": "\\\\\\"", "n": 1}',
        '{"a": "x\\\\"}',
    ],
)
@pytest.mark.parametrize("size", [1, 3, 7])
def test_every_reader_ends_a_string_at_the_same_quote(text: str, size: int) -> None:
    expected = json.loads(text)
    assert loads(text) == expected
    assert loads(text.replace("{", "{\n// note\n", 1)) == expected  # the repairing route
    parser = RobustJsonOutputParser()
    chunks = [text[i : i + size] for i in range(0, len(text), size)]
    assert list(parser.transform(iter(chunks)))[-1] == expected


# ----------------------------------------------------------------------------- ReAct input

REACT = "Thought: look it up\nAction: search\nAction Input: "


@pytest.mark.parametrize(
    "written",
    [
        '{"query": "rust", "limit": 5',
        '{"query": "rust", "lim',  # an unfinished key is dropped, as the JSON parsers drop it
        '{"path": "C:\\',  # an escape cut at the end is not a quote
        '{"a": 1, "b": tr',  # a literal whose completion is unique
        '{"note": "line one\nline two',  # a line break typed in a string
        '{"tags": ["a", "b"',
    ],
)
def test_a_cut_action_input_is_completed_as_the_json_parsers_complete_it(written: str) -> None:
    # ReAct completed cut inputs with a closer-counting copy of its own: an unfinished key or
    # literal left the input unreadable, and an escape cut at the end became a quote.
    step = ReActOutputParser().parse(REACT + written)
    assert json.loads(step.tool_input) == loads(written)  # type: ignore[union-attr]
    assert json.loads(step.tool_input) == RobustJsonOutputParser().parse(written)  # type: ignore[union-attr]


def test_an_input_that_needs_other_repairs_is_handed_on_as_written() -> None:
    written = "{'query': 'rust'"
    step = ReActOutputParser().parse(REACT + written)
    assert step.tool_input == written  # type: ignore[union-attr]


# ----------------------------------------------------------------------------- typed partials


class Order(BaseModel):
    item: str
    qty: int
    price: float


ORDERS = [
    '{"item": "green tea", "qty": 125, "price": 2.5}',
    '{"item": "rice", "price": 10.75, "qty": 3}',
    '{"qty": "40", "item": "oolong", "price": "1.25"}',  # numbers written as strings
]


def _tool_chunks(args: str, size: int) -> Iterator[AIMessageChunk]:
    yield AIMessageChunk(
        content="", tool_call_chunks=[{"name": "Order", "args": "", "id": "c1", "index": 0}]
    )
    for i in range(0, len(args), size):
        piece = args[i : i + size]
        yield AIMessageChunk(
            content="", tool_call_chunks=[{"name": None, "args": piece, "id": None, "index": 0}]
        )


def _fields_shown(models: list[Any]) -> list[tuple[str, Any]]:
    return [
        (name, getattr(model, name))
        for model in models
        for name in ("qty", "price")
        if getattr(model, name, None) is not None
    ]


@pytest.mark.parametrize("text", ORDERS)
@pytest.mark.parametrize("size", [1, 2, 5])
def test_a_typed_partial_never_shows_a_number_before_it_is_whole(text: str, size: int) -> None:
    # The Pydantic tools parser validated the arguments as they stood, so ``price`` showed 2.0
    # while "2.5" was arriving; the Pydantic parser left the growing number out. One rule now.
    final = Order.model_validate_json(text)
    chunks = [text[i : i + size] for i in range(0, len(text), size)]
    pydantic_stream = list(
        RobustPydanticOutputParser(pydantic_object=Order, partial=True).transform(iter(chunks))
    )
    tools_stream = [
        calls[0]
        for calls in RobustPydanticToolsParser(tools=[Order]).transform(_tool_chunks(text, size))
        if calls
    ]
    for stream in (pydantic_stream, tools_stream):
        assert stream[-1] == final
        for name, value in _fields_shown(stream):
            assert value == getattr(final, name), (name, value)


def test_untyped_partial_arguments_show_a_number_digit_by_digit() -> None:
    # Dict arguments follow langchain-core's partial JSON (a number appears as it is written);
    # only a typed value waits for the whole number.
    shown = [
        calls[0]["args"].get("qty")
        for calls in RobustJsonOutputToolsParser().transform(_tool_chunks('{"qty": 125}', 1))
        if calls
    ]
    assert [q for q in shown if q is not None] == [1, 12, 125]


def test_a_finished_call_before_the_open_one_shows_its_last_number() -> None:
    first = '{"item": "tea", "qty": 2, "price": 4}'
    chunks = [
        AIMessageChunk(
            content="",
            tool_call_chunks=[{"name": "Order", "args": first, "id": "c1", "index": 0}],
        ),
        AIMessageChunk(
            content="",
            tool_call_chunks=[{"name": "Order", "args": '{"item": "co', "id": "c2", "index": 1}],
        ),
    ]
    message = chunks[0] + chunks[1]
    shown = RobustPydanticToolsParser(tools=[Order]).parse_result(
        [ChatGeneration(message=message)], partial=True
    )
    assert shown == [Order(item="tea", qty=2, price=4)]  # the second lacks required fields


# ----------------------------------------------------------------------------- nesting


def _nested(depth: int) -> str:
    # A payload that needs a repair (a trailing comma), so that no reader takes the C route.
    return '{"a": ' * depth + '{"b": 1,}' + "}" * depth


def test_a_deep_payload_the_json_parser_reads_is_read_as_tool_arguments() -> None:
    # The call decoder refused repaired arguments past 100 levels, while the JSON parsers read
    # them to 256: the same object was a value in one and a failed call in the other.
    args = _nested(150)
    value = RobustJsonOutputParser().parse(args)
    text = '<tool_call>{"name": "store", "arguments": ' + args + "}</tool_call>"
    assert FunctionCallOutputParser().parse(text) == [{"store": value}]
    message = TextToolCallAdapter().invoke(AIMessage(content=text))
    assert [c["args"] for c in message.tool_calls] == [value]


# ----------------------------------------------------------------------------- one home

FACT_HOMES = {
    "tool name": "engine/lexicon/names.py",
    "escaped quote": "engine/lexicon/escapes.py",
    "literal table": "engine/lexicon/literals.py",
    "value depth": "engine/value_depth.py",
    "skip helper": "engine/lexicon/tags.py",
    "cut call": "engine/calls/parsed_call.py",
    "fence run": "engine/lexicon/fences.py",
}
"""Each small fact and the one module that may spell it."""

TOOL_NAME_SPELLINGS = (r"[A-Za-z_][\w.\-]*", r"[^\W\d][\w.\-]*", r"\w*(?:\.[A-Za-z_]\w*)*")
LITERAL_WORDS = (frozenset({"true", "false", "null"}), frozenset({"True", "False", "None"}))
DEPTH_NAME = re.compile(r"DEPTH\b")
SKIP_HELPER = re.compile(r"_?skip(?:_ws|_space|_blank|_chars)?")
"""A module-level function that steps over a set of characters; methods that skip with state
(a scanner's own line tracking) and skips of other things (comments, reasoning) are not it."""

FACTS_ALLOWED: dict[tuple[str, str, str], str] = {
    # (module, fact, what was found): why it may stay outside the fact's home
    ("engine/calls/call_stream.py", "tool name", r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"): (
        "the Python callee the call splitter waits for; its module is being reworked on "
        "another branch, which takes PYTHON_CALLEE from lexicon/names.py"
    ),
    ("engine/json/window_stream.py", "value depth", "WINDOW_MAX_DEPTH"): (
        "a hand-over point between two readers (speed), not a bound on values"
    ),
    ("engine/json/scan_containers.py", "value depth", "C_SUBTREE_MAX_DEPTH"): (
        "how deep a subtree is handed to the C decoder (speed), not a bound on values"
    ),
    ("engine/calls/python_calls.py", "value depth", "MAX_SYNTAX_DEPTH"): (
        "Python syntax nesting before ast.parse (its MemoryError), not a value"
    ),
    ("engine/calls/python_calls.py", "value depth", "MAX_ARGUMENT_DEPTH"): (
        "the AST resolver recurses once a level, and Python calls nest less than JSON"
    ),
    ("engine/calls/python_calls.py", "value depth", "MAX_ARITH_DEPTH"): (
        "arithmetic on literals, evaluated recursively"
    ),
    ("engine/calls/markup_calls.py", "value depth", "MAX_GEMMA_DEPTH"): (
        "FunctionGemma's recursive value reader"
    ),
    ("engine/schema_models.py", "value depth", "MAX_SCHEMA_DEPTH"): (
        "JSON-schema nesting and $ref hops translated into models, not a value"
    ),
    ("engine/coercion.py", "value depth", "MAX_COERCION_DEPTH"): (
        "levels coerced (four frames each) before a value passes through untouched"
    ),
    ("engine/number_literals.py", "value depth", "MAX_LITERAL_DEPTH"): (
        "levels walked for number literals before a value passes through untouched"
    ),
    ("engine/jsonable.py", "value depth", "MAX_OUTPUT_DEPTH"): (
        "what json.dumps can write for a result row, not what a reader builds"
    ),
}
"""``{(module, fact, found): reason}``, in the manner of the reasoning-spelling allow-list."""


def _is_backslash_walk(node: ast.AST) -> bool:
    """``while i > start and text[i - 1] == "\\\\": i -= 1``: counting a backslash run."""
    if not isinstance(node, ast.While):
        return False
    return any(
        isinstance(part, ast.Compare)
        and any(isinstance(c, ast.Constant) and c.value == "\\" for c in part.comparators)
        and isinstance(part.left, ast.Subscript)
        and isinstance(part.left.slice, ast.BinOp)
        and isinstance(part.left.slice.op, ast.Sub)
        for part in ast.walk(node.test)
    )


def _drops_a_cut_call(function: ast.FunctionDef) -> bool:
    """``log.truncated = True`` followed by ``log.add("truncated_call_dropped", pos)``."""
    for node in ast.walk(function):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for first, second in itertools.pairwise(body):
            if (
                isinstance(first, ast.Assign)
                and any(
                    isinstance(t, ast.Attribute) and t.attr == "truncated" for t in first.targets
                )
                and isinstance(second, ast.Expr)
                and isinstance(second.value, ast.Call)
                and any(
                    isinstance(a, ast.Constant) and a.value == "truncated_call_dropped"
                    for a in second.value.args
                )
            ):
                return True
    return False


def _literal_table(node: ast.AST) -> bool:
    if not isinstance(node, ast.Dict):
        return False
    keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
    return any(words <= keys for words in LITERAL_WORDS)


def _facts_in(tree: ast.Module) -> Iterator[tuple[str, str]]:
    docs = docstring_ids(tree)
    for top in tree.body:
        if isinstance(top, ast.FunctionDef) and SKIP_HELPER.fullmatch(top.name):
            yield "skip helper", top.name
        elif isinstance(top, ast.FunctionDef) and _drops_a_cut_call(top):
            yield "cut call", top.name
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            text = node.value
            for spelling in TOOL_NAME_SPELLINGS:
                if spelling in text:
                    yield "tool name", text
            if re.search(r"True\|False\|None|true\|false\|null", text):
                yield "literal table", text
            if len(text) >= 3 and not text.strip("`~"):  # a fence run as a token to look for
                yield "fence run", text
        elif _is_backslash_walk(node):
            yield "escaped quote", f"line {node.lineno}"
        elif _literal_table(node):
            yield "literal table", f"line {node.lineno}"
        elif isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Constant):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and DEPTH_NAME.search(target.id):
                    yield "value depth", target.id


def _second_homes(root: Path = PACKAGE) -> list[tuple[str, str, str]]:
    found = []
    for path in sorted(root.rglob("*.py")):
        module = path.relative_to(root).as_posix()
        for fact, what in _facts_in(ast.parse(path.read_text(encoding="utf-8"))):
            if module != FACT_HOMES[fact] and (module, fact, what) not in FACTS_ALLOWED:
                found.append((module, fact, what[:60]))
    return found


def test_each_small_fact_is_written_once() -> None:
    assert _second_homes() == []


def test_every_allowed_copy_still_exists() -> None:
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        found |= {(module, f, w) for f, w in _facts_in(ast.parse(path.read_text("utf-8")))}
    assert set(FACTS_ALLOWED) <= found


def test_the_check_finds_a_second_copy(tmp_path: Path) -> None:
    copies = {
        "names.py": 'import re\nNAME = re.compile(r"[A-Za-z_][\\w.\\-]*")\n',
        "escapes.py": (
            "def odd(text: str, i: int) -> bool:\n"
            "    k = i\n"
            '    while k > 0 and text[k - 1] == "\\\\":\n'
            "        k -= 1\n"
            "    return (i - k) % 2 == 1\n"
        ),
        "words.py": 'WORDS = {"True": "true", "False": "false", "None": "null"}\n',
        "depth.py": "MAX_DEPTH = 100\n",
        "skip.py": "def _skip_ws(text: str, pos: int) -> int:\n    return pos\n",
        "cut.py": (
            "def dropped(log: Any, pos: int) -> None:\n"
            "    log.truncated = True\n"
            '    log.add("truncated_call_dropped", pos)\n'
        ),
        "fence.py": 'def fenced(line: str) -> bool:\n    return line.startswith("~~~")\n',
        "fine.py": 'import re\nWORD = re.compile(r"[a-z]+")\nN = {"a": 1}\n',
    }
    for name, source in copies.items():
        (tmp_path / name).write_text(source, encoding="utf-8")
    modules = {module for module, _, _ in _second_homes(tmp_path)}
    assert modules == set(copies) - {"fine.py"}
