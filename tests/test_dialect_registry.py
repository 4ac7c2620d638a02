"""The dialect registry drives behaviour: what a record says is what the readers, the content
rule and the prompt writers do, and a new dialect needs no change outside its record (and its
reader)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from toy_dialect import TOY, toy_reader

from langchain_robust_parsers import FunctionCallOutputParser
from langchain_robust_parsers.engine.calls import dialect_registry as registry
from langchain_robust_parsers.engine.calls.call_stream import answer_content, parse_answer
from langchain_robust_parsers.engine.calls.call_writers import TOOLS_PLACEHOLDER, CallWriter
from langchain_robust_parsers.engine.calls.dialect_registry import (
    DIALECT_RECORDS,
    DialectRecord,
    call_writer,
    dialect_record,
    register_dialect,
)
from langchain_robust_parsers.engine.calls.dialects import decode_calls
from langchain_robust_parsers.engine.calls.tool_prompts import (
    TOOL_DIALECTS,
    render_calls,
    render_tool_prompt,
    render_tool_results,
)

PACKAGE = Path(registry.__file__).resolve().parents[2]
RECORD_IDS = [r.name for r in DIALECT_RECORDS]

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather in a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
        },
    },
}
CALLS = [
    ("get_weather", {"city": "São Paulo", "days": 3}),
    ("search_flights", {"origin": "GRU", "destination": "LIS", "nonstop": True}),
]


# ----------------------------------------------------------------------------- remaining


@pytest.mark.parametrize("record", DIALECT_RECORDS, ids=RECORD_IDS)
def test_every_remaining_rule_drops_the_call_and_keeps_the_text_before_it(
    record: DialectRecord,
) -> None:
    call = record.example.split("; ")[0]
    text = "Let me check that for you.\n" + call + "\n"
    start = text.index(call)
    content = record.remaining(text, [(start, start + len(call))])
    assert content.startswith("Let me check that for you.")
    assert call not in content


def test_block_dialects_keep_the_text_around_their_calls() -> None:
    text = (
        "Checking both cities.\n"
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>\n'
        "and then\n"
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Bergen"}}</tool_call>'
    )
    answer = parse_answer(text, {"get_weather"})
    assert [c.args for c in answer.calls] == [{"city": "Oslo"}, {"city": "Bergen"}]
    assert answer.content == "Checking both cities.\n\nand then\n"


def test_functionary_drops_its_text_recipient_line() -> None:
    text = 'all\nChecking the weather now.\n>>>get_weather\n{"city": "Paris"}'
    answer = parse_answer(text, {"get_weather"})
    assert [(c.name, c.args) for c in answer.calls] == [("get_weather", {"city": "Paris"})]
    assert answer.content == "Checking the weather now.\n"


def test_harmony_without_calls_is_its_final_message_only() -> None:
    text = (
        "<|channel|>analysis<|message|>The user wants a greeting.<|end|>"
        "<|start|>assistant<|channel|>final<|message|>Hello! How can I help?<|return|>"
    )
    decoded = decode_calls(text)
    assert decoded.dialect == "harmony" and not decoded.calls
    record = dialect_record("harmony")
    assert record is not None and record.content_without_calls
    assert parse_answer(text, {"get_weather"}).content == "Hello! How can I help?"
    assert answer_content(text, decoded) == "Hello! How can I help?"


def test_calls_inside_prose_leave_the_prose_around_them() -> None:
    text = "Sure, I will run get_weather(city='Rome') and report back."
    answer = parse_answer(text, {"get_weather"})
    assert [(c.name, c.args) for c in answer.calls] == [("get_weather", {"city": "Rome"})]
    assert answer.content == "Sure, I will run and report back."


# ----------------------------------------------------------------------------- writers


def test_the_chat_model_dialects_are_the_records_writers() -> None:
    names = [w.name for r in DIALECT_RECORDS for w in r.writers]
    assert sorted(names) == sorted(TOOL_DIALECTS)
    assert all(isinstance(w, CallWriter) for r in DIALECT_RECORDS for w in r.writers)


WRITERS = [(r, w) for r in DIALECT_RECORDS for w in r.writers]


def _as_text(args: dict[str, Any]) -> dict[str, str]:
    return {k: v if isinstance(v, str) else json.dumps(v) for k, v in args.items()}


@pytest.mark.parametrize("record,writer", WRITERS, ids=[w.name for _r, w in WRITERS])
def test_what_a_writer_writes_its_records_reader_reads_back(
    record: DialectRecord, writer: CallWriter
) -> None:
    assert call_writer(writer.name) is writer
    written = writer.write_calls(CALLS)
    assert render_calls(CALLS, writer.name) == written  # type: ignore[arg-type]
    decoded = decode_calls(written, dialect=record.name)
    got = [(c.name, c.args) for c in decoded.calls]
    # Parameter elements hold text: without the tools' schemas, values come back as written.
    assert got == CALLS or got == [(n, _as_text(a)) for n, a in CALLS]
    assert decode_calls(written).dialect == record.name


@pytest.mark.parametrize("record,writer", WRITERS, ids=[w.name for _r, w in WRITERS])
def test_every_writer_prompts_with_the_tools_and_returns_results(
    record: DialectRecord, writer: CallWriter
) -> None:
    assert TOOLS_PLACEHOLDER in writer.tool_prompt
    assert writer.call_format in writer.tool_prompt
    prompt = render_tool_prompt([WEATHER_TOOL], writer.name)  # type: ignore[arg-type]
    assert '"name": "get_weather"' in prompt and TOOLS_PLACEHOLDER not in prompt
    assert ('"type": "function"' in prompt) == writer.whole_schemas
    results = [("get_weather", '{"temp_c": 21}'), (None, "no flights found")]
    turn = render_tool_results(results, writer.name)  # type: ignore[arg-type]
    assert '{"temp_c": 21}' in turn and "no flights found" in turn


@pytest.mark.parametrize("record", DIALECT_RECORDS, ids=RECORD_IDS)
def test_the_call_parsers_instructions_follow_the_record(record: DialectRecord) -> None:
    text = FunctionCallOutputParser(dialect=record.name).get_format_instructions()
    if record.instructions == "json_in_tags":
        assert text.count(record.markers[0].open) == 2 and record.markers[0].close[0] in text
    elif record.instructions == "python_list":
        assert "as a Python list" in text
    else:
        assert "as a JSON list" in text


def test_an_unknown_writer_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        call_writer("klingon")


# ----------------------------------------------------------------------------- no switches

ALLOWED_SWITCHES = {
    # The JSON/Python reader ("calls") lives in dialects.py: python and json are its syntaxes
    # (dialect="python" decodes Python only), and Mistral's name[ARGS] bodies are its to read.
    ("engine/calls/dialects.py", "python"): "the calls reader's Python-only mode",
    ("engine/calls/dialects.py", "json"): "the calls reader's JSON-only mode",
    ("engine/calls/dialects.py", "mistral"): "the calls reader's Mistral bodies (no tag)",
    ("engine/calls/dialects.py", "harmony"): "harmony has no markers: decode_calls tries its "
    "reader by the answer's structure, before the marker blocks",
}


def _strings(node: ast.AST) -> Iterator[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        for element in node.elts:
            yield from _strings(element)


def _dialect_switches(tree: ast.AST, names: set[str]) -> Iterator[tuple[int, str]]:
    """``dialect == "name"`` / ``x.dialect in ("a", "b")``: a comparison of something called
    ``dialect`` with a record's name written as a string."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        if not any("dialect" in ast.unparse(s) for s in sides):
            continue
        for side in sides:
            for value in _strings(side):
                if value in names:
                    yield node.lineno, value


def test_no_module_switches_on_a_dialect_name() -> None:
    names = {r.name for r in DIALECT_RECORDS}
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        if module == "engine/calls/dialect_registry.py":
            continue
        for line, name in _dialect_switches(ast.parse(path.read_text("utf-8")), names):
            if (module, name) not in ALLOWED_SWITCHES:
                found.append(f"{module}:{line} compares a dialect to {name!r}")
    assert found == []


def test_the_switch_finder_sees_a_switch() -> None:
    tree = ast.parse('if block.dialect in ("gemma", "prose"):\n    pass\nx = kind == "gemma"')
    assert list(_dialect_switches(tree, {"gemma"})) == [(1, "gemma")]


# ----------------------------------------------------------------------------- a new dialect


@pytest.fixture
def toy_registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """The registry with the toy dialect; restored afterwards."""
    for name in ("DIALECT_RECORDS", "MARKERS"):
        monkeypatch.setattr(registry, name, getattr(registry, name))
    for name in ("READERS", "_BY_NAME", "_WRITERS"):
        monkeypatch.setattr(registry, name, dict(getattr(registry, name)))
    register_dialect(TOY)
    yield registry


def test_a_registered_record_is_found_and_restored(toy_registered: ModuleType) -> None:
    assert dialect_record("toy") is TOY and TOY in toy_registered.DIALECT_RECORDS
    assert toy_registered.markup_reader("toy", "<<call f>>", 7, 8) is toy_reader
    with pytest.raises(ValueError, match="registered already"):
        register_dialect(TOY)


def test_after_the_fixture_the_registry_is_as_shipped() -> None:
    assert dialect_record("toy") is None
    assert "toy" not in {m.dialect for m in registry.MARKERS}


def test_the_prompt_writer_writes_a_registered_dialect(toy_registered: ModuleType) -> None:
    prompt = render_tool_prompt([WEATHER_TOOL], "toy")  # type: ignore[arg-type]
    assert prompt.startswith("Tools:\n{") and '"name": "get_weather"' in prompt
    assert render_calls(CALLS[:1], "toy") == '<<call get_weather city="São Paulo" days=3>>'  # type: ignore[arg-type]
    assert render_tool_results([("f", "ok")], "toy") == "<<result ok>>"  # type: ignore[arg-type]


TOY_SCRIPT = """
import json, sys
sys.path.insert(0, {tests!r})
from langchain_robust_parsers.engine.calls.dialect_registry import register_dialect
from toy_dialect import TOY
register_dialect(TOY)  # before the decoders build their marker tables

from langchain_robust_parsers.engine.calls.call_stream import CallStreamSplitter, parse_answer
from langchain_robust_parsers.engine.calls.dialects import decode_calls
from langchain_robust_parsers.engine.calls.tool_prompts import render_calls

answer_text = "Let me check both.\\n" + render_calls(
    [("get_weather", {{"city": "Oslo"}}), ("get_weather", {{"city": "Rome", "days": 2}})], "toy"
)
decoded = decode_calls(answer_text)
answer = parse_answer(answer_text, {{"get_weather"}})
splitter = CallStreamSplitter({{"get_weather"}}, template_opens_reasoning=False)
content, calls = "", []
for i in range(0, len(answer_text), 3):
    step = splitter.feed(answer_text[i : i + 3])
    content += step.content
    calls += [(c.name, c.args) for c in step.calls]
rest = splitter.finish(answer)
print(json.dumps({{
    "dialect": decoded.dialect,
    "calls": [(c.name, c.args) for c in decoded.calls],
    "content": answer.content,
    "streamed": content + rest.content,
    "streamed_calls": calls + [(c.name, c.args) for c in rest.calls],
    "early": len(calls),
}}))
"""


def test_a_new_record_is_read_whole_and_streamed_without_other_code() -> None:
    script = TOY_SCRIPT.format(tests=str(Path(__file__).parent))
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(PACKAGE.parent), *sys.path])},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    got = json.loads(done.stdout)
    expected_calls = [
        ["get_weather", {"city": "Oslo"}],
        ["get_weather", {"city": "Rome", "days": 2}],
    ]
    assert got["dialect"] == "toy"
    assert got["calls"] == expected_calls
    assert got["content"] == "Let me check both.\n"
    assert got["streamed"] == got["content"]
    assert got["streamed_calls"] == expected_calls
    assert got["early"] >= 1  # a closed block's call goes out before the answer ends
