"""The ``robust-parsers`` command line: demo, parse (serial and pooled), repair, interruption,
exit statuses, the format registry, and parsers scaling out over worker processes."""

from __future__ import annotations

import dataclasses
import io
import json
import math
import multiprocessing
import os
import pickle
import signal
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pydantic
import pytest
from cli_models import Ticket
from hypothesis import HealthCheck, given, settings, strategies as st
from langchain_core.exceptions import OutputParserException

from langchain_robust_parsers import (
    DialogOutputParser,
    FunctionCallOutputParser,
    ParseStats,
    RobustJsonOutputParser,
    RobustPydanticOutputParser,
)
from langchain_robust_parsers.cli import formats, main
from langchain_robust_parsers.cli.batch import InputOptions, model_output
from langchain_robust_parsers.cli.demo import load_samples
from langchain_robust_parsers.cli.formats import (
    FormatEntry,
    FormatError,
    available_formats,
    resolve_format,
)
from langchain_robust_parsers.cli.progress import CounterProgress, make_progress
from langchain_robust_parsers.cli.runner import (
    MAX_OUTPUT_DEPTH,
    FormatRunner,
    encode_result,
    to_jsonable,
)

TESTS = Path(__file__).resolve().parent
TABLE_HEADER = "| Success | Recovered | Fallback | Failed | Total"

# One model output a line, as a log would hold them: (input line, expected result fields).
MIXED: list[tuple[str, dict[str, Any]]] = [
    (
        json.dumps({"text": '{"a": 1}'}),
        {"ok": True, "outcome": "success", "value": {"a": 1}, "repairs": []},
    ),
    (
        json.dumps({"text": 'Here you go:\n```json\n{"a": 2,}\n```'}),
        {"ok": True, "outcome": "recovered", "value": {"a": 2}},
    ),
    (
        json.dumps({"text": '{"a": [1, 2'}),
        {"ok": True, "outcome": "recovered", "value": {"a": [1, 2]}, "repairs": ["truncated"]},
    ),
    ('{"text": "cut off in the lo', {"ok": False, "outcome": "bad_input", "value": None}),
    (
        json.dumps({"text": "I cannot help with that."}),
        {"ok": False, "outcome": "failed", "value": None},
    ),
    ("", {"ok": False, "outcome": "bad_input", "error": "malformed input line 6: blank line"}),
    (
        json.dumps({"text": '{"a": NaN, "b": Infinity}'}),
        {"ok": True, "value": {"a": None, "b": None}},
    ),
    (
        json.dumps({"text": "<think>ok</think>{'a': True, 'b': None}"}),
        {"ok": True, "outcome": "recovered", "value": {"a": True, "b": None}},
    ),
    (json.dumps({"prompt": "no text field"}), {"ok": False, "outcome": "bad_input"}),
    (json.dumps({"text": ["not", "a", "string"]}), {"ok": False, "outcome": "bad_input"}),
    (json.dumps(["a", "list"]), {"ok": False, "outcome": "bad_input"}),
]


def _write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture
def mixed_file(tmp_path: Path) -> Path:
    return _write_lines(tmp_path / "mixed.jsonl", [line for line, _ in MIXED])


def _run(
    argv: list[str], capsys: pytest.CaptureFixture[str], stdin: bytes | None = None
) -> tuple[int, str, str]:
    if stdin is not None:
        old = sys.stdin
        sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
        try:
            code = main(argv)
        finally:
            sys.stdin = old
    else:
        code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _rows(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


# --------------------------------------------------------------------------- demo


def test_demo_prints_every_format_and_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["demo"], capsys)
    assert code == 0
    for name in ("json", "pydantic", "calls", "dialog", "actions"):
        assert f"== {name}: " in out
    assert TABLE_HEADER in out
    for row in ("json ", "pydantic ", "function_calls ", "dialog ", "ui_tars "):
        assert any(line.startswith(row) for line in out.splitlines()), row
    assert '"priority": "medium"' in out  # coercion shown
    assert "recovered: truncated" in out
    assert "failed: Invalid json output" in out


def test_demo_samples_cover_every_format_and_are_package_data() -> None:
    samples = load_samples()
    names = {s.format.partition(":")[0] for s in samples}
    assert {"json", "pydantic", "calls", "dialog", "react", "actions"} <= names
    assert all(s.label and s.text for s in samples)


def test_demo_names_formats_whose_parser_is_missing(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    gone = dataclasses.replace(
        next(e for e in formats.FORMATS if e.name == "dialog"),
        module="langchain_robust_parsers.parsers.no_such_module",
    )
    swapped = tuple(gone if e.name == "dialog" else e for e in formats.FORMATS)
    monkeypatch.setattr(formats, "FORMATS", swapped)
    code, out, _ = _run(["demo"], capsys)
    assert code == 0
    assert "== dialog" not in out
    assert "Not in this version, so not shown:" in out
    assert "dialog" in out.split("Not in this version, so not shown:")[1]


@pytest.mark.slow
def test_module_entry_point_runs_the_demo() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "langchain_robust_parsers.cli", "demo"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert TABLE_HEADER in proc.stdout
    assert proc.stderr == ""


@pytest.mark.slow
def test_console_script_is_installed() -> None:
    script = Path(sys.executable).parent / "robust-parsers"
    if not script.exists():
        pytest.skip("console script not installed (package not installed with pip)")
    proc = subprocess.run(
        [str(script), "--version"], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0
    assert proc.stdout.startswith("robust-parsers ")


# --------------------------------------------------------------------------- parse


def test_parse_mixed_file(mixed_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["parse", str(mixed_file), "--format", "json"], capsys)
    assert code == 0
    rows = _rows(out)
    assert [r["line"] for r in rows] == list(range(1, len(MIXED) + 1))  # row N is line N
    for row, (_, want) in zip(rows, MIXED, strict=True):
        assert set(row) == {"line", "ok", "outcome", "value", "repairs", "error"}
        for key, value in want.items():
            assert row[key] == value, (row, key)
        assert (row["error"] is None) == row["ok"]
    assert any(r.startswith("trailing_comma@") for r in rows[1]["repairs"])
    assert rows[3]["error"].startswith("malformed input line 4: not a JSON object")
    assert "line 4: malformed input" in err
    assert "line 9: malformed input: no field 'text'" in err
    assert TABLE_HEADER in err
    assert "json   |   33.3% |     50.0% |     0.0% |  16.7% |     6" in err
    assert "5 malformed input line(s), the first at line 4" in err
    assert "lines/s (1 worker)" in err


def test_parse_output_file_matches_stdout(
    mixed_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, stdout, _ = _run(["parse", str(mixed_file), "-f", "json", "-q"], capsys)
    out = tmp_path / "out.jsonl"
    code, printed, _ = _run(["parse", str(mixed_file), "-f", "json", "-o", str(out)], capsys)
    assert code == 0
    assert printed == ""
    assert out.read_text(encoding="utf-8") == stdout


def test_parse_raw_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    raw = _write_lines(
        tmp_path / "raw.txt",
        ['{"a": 1}', "{'a': True}", "no json here", "", "```json\r", '{"b": [1,'],
    )
    code, out, _ = _run(["parse", str(raw), "--format", "json", "--raw"], capsys)
    assert code == 0
    rows = _rows(out)
    assert [r["line"] for r in rows] == [1, 2, 3, 4, 5, 6]  # raw: blank lines are outputs too
    assert [r["ok"] for r in rows] == [True, True, False, False, False, True]
    assert rows[1]["value"] == {"a": True}
    assert rows[5]["value"] == {"b": [1]}


def test_parse_field_path_and_stdin(capsys: pytest.CaptureFixture[str]) -> None:
    data = json.dumps({"response": {"text": '{"x": 1}'}}) + "\n"
    code, out, _ = _run(
        ["parse", "-", "-f", "json", "--field", "response.text", "-q"], capsys, data.encode()
    )
    assert code == 0
    assert _rows(out)[0]["value"] == {"x": 1}


def test_parse_input_that_is_not_utf8(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b'{"text": "caf\xe9"}\n{"text": "{}"}\n')
    code, out, err = _run(["parse", str(path), "-f", "json"], capsys)
    assert code == 0
    rows = _rows(out)
    assert rows[0]["outcome"] == "bad_input" and "not valid UTF-8" in rows[0]["error"]
    assert rows[1]["value"] == {}
    assert "line 1: malformed input: not valid UTF-8" in err


@pytest.mark.slow
def test_parse_with_two_workers_matches_one_worker(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [line for line, _ in MIXED] * 120  # 1320 lines: several batches per worker
    path = _write_lines(tmp_path / "many.jsonl", lines)
    _, one, err_one = _run(["parse", str(path), "-f", "json", "-q"], capsys)
    code, two, err_two = _run(["parse", str(path), "-f", "json", "-q", "--workers", "2"], capsys)
    assert code == 0
    assert two == one
    assert [r["line"] for r in _rows(two)] == sorted(r["line"] for r in _rows(two))
    table = [line for line in err_one.splitlines() if line.startswith("json ")]
    assert table and table == [line for line in err_two.splitlines() if line.startswith("json ")]
    assert "(2 workers)" in err_two


def test_parse_pydantic_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write_lines(
        tmp_path / "tickets.jsonl",
        [
            json.dumps({"text": '{"title": "Crash", "severity": 3, "opened": "2024-05-01"}'}),
            json.dumps({"text": '```json\n{"ticket": {"Title": "Slow", "Severity": "2"}}\n```'}),
            json.dumps({"text": '{"title": "No severity"}'}),
        ],
    )
    fmt = "pydantic:cli_models:Ticket"
    code, out, err = _run(["parse", str(path), "-f", fmt, "-q"], capsys)
    assert code == 0
    rows = _rows(out)
    assert rows[0]["value"] == {
        "title": "Crash",
        "severity": 3,
        "opened": "2024-05-01",  # model_dump(mode="json"): dates and enums as JSON
        "kind": "bug",
    }
    assert rows[1]["outcome"] == "recovered"
    assert rows[1]["value"]["severity"] == 2
    assert any(r.startswith("coerce:") for r in rows[1]["repairs"])
    assert rows[2]["outcome"] == "failed"
    assert rows[2]["error"].startswith("Failed to parse Ticket from completion")
    assert "pydantic |   33.3% |     33.3% |     0.0% |  33.3% |     3" in err
    _, pooled, _ = _run(["parse", str(path), "-f", fmt, "-q", "-w", "2"], capsys)
    assert pooled == out


def test_parse_calls_and_dialog(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    calls = _write_lines(
        tmp_path / "calls.jsonl",
        [json.dumps({"text": '[get_weather(city="Paris")]'}), json.dumps({"text": "sunny"})],
    )
    code, out, _ = _run(["parse", str(calls), "-f", "calls", "-q"], capsys)
    assert code == 0
    rows = _rows(out)
    assert rows[0]["value"] == [{"get_weather": {"city": "Paris"}}]
    assert rows[1]["error"].startswith("Failed to decode AST:")
    dialog = _write_lines(
        tmp_path / "dialog.jsonl",
        [json.dumps({"text": '[TO: Bob, TONE: angry] "Why?"'}), json.dumps({"text": "hm"})],
    )
    code, out, _ = _run(["parse", str(dialog), "-f", "dialog", "-q"], capsys)
    rows = _rows(out)
    assert rows[0]["value"]["tone"] == "angry" and rows[0]["outcome"] == "success"
    assert rows[1]["outcome"] == "fallback" and rows[1]["ok"] is True


def test_parse_actions_counts_each_detected_format_in_its_own_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if "actions" not in available_formats():
        pytest.skip("ActionOutputParser is not in this version")
    texts = [
        "Thought: Log in.\nAction: click(start_box='<|box_start|>(603,44)<|box_end|>')",
        '{"actions": [{"action_type": "CLICK", "id": "login", "reasoning": "log in"}]}',
        "The page is still loading.",
    ]
    path = _write_lines(tmp_path / "actions.jsonl", [json.dumps({"text": t}) for t in texts])
    code, out, err = _run(["parse", str(path), "-f", "actions", "-q"], capsys)
    assert code == 0
    rows = _rows(out)
    assert [r["value"][0]["action_type"] for r in rows] == ["CLICK", "CLICK", "NULL_ACTION"]
    assert rows[2]["outcome"] == "fallback"
    # The rows carry the library's names (ParseStats.table() in a program prints the same).
    rows_printed = [line.split(" ", 1)[0] for line in err.splitlines()]
    assert {"ui_tars", "json", "text"} <= set(rows_printed)
    assert not any(name.startswith("actions:") for name in rows_printed)


# --------------------------------------------------------------------------- interruption


def _assert_valid_prefix(path: Path) -> list[dict[str, Any]]:
    """Every line of ``path`` is a whole JSON result, numbered 1, 2, 3... without a gap."""
    text = path.read_text(encoding="utf-8")
    assert text == "" or text.endswith("\n")
    rows = _rows(text)
    assert [r["line"] for r in rows] == list(range(1, len(rows) + 1))
    return rows


def test_interrupted_run_keeps_the_lines_done(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    titles = [f"t{i}" for i in range(700)] + ["STOP"] + ["after"] * 50
    path = _write_lines(
        tmp_path / "trip.jsonl", [json.dumps({"text": json.dumps({"title": t})}) for t in titles]
    )
    out = tmp_path / "out.jsonl"
    code, _, err = _run(
        ["parse", str(path), "-f", "pydantic:cli_models:Tripwire", "-o", str(out)], capsys
    )
    assert code == 128 + signal.SIGINT
    rows = _assert_valid_prefix(out)
    assert len(rows) == 700  # the lines before the one interrupted, across two batches
    assert "interrupted (KeyboardInterrupt)" in err
    assert TABLE_HEADER in err


@pytest.mark.parametrize(
    ("workers", "signum"),
    [(1, signal.SIGINT), (2, signal.SIGINT), (2, signal.SIGTERM)],
)
@pytest.mark.slow
def test_signalled_run_leaves_valid_output(tmp_path: Path, workers: int, signum: int) -> None:
    titles = ["fast"] * 2000 + ["slow"] * 20_000  # output appears fast; the rest takes long
    lines = [json.dumps({"text": json.dumps({"title": t})}) for t in titles]
    path = _write_lines(tmp_path / "slow.jsonl", lines)
    out = tmp_path / "out.jsonl"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), *sys.path])}
    argv = ["parse", str(path), "-f", "pydantic:cli_models:Slow", "-o", str(out), "-q"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "langchain_robust_parsers.cli", *argv, "-w", str(workers)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while (not out.exists() or out.stat().st_size == 0) and time.monotonic() < deadline:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.05)
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + signum, err
    rows = _assert_valid_prefix(out)
    assert 0 < len(rows) < len(lines)
    assert f"interrupted ({signal.Signals(signum).name})" in err
    assert TABLE_HEADER in err


@pytest.mark.slow
def test_output_closed_early_stops_quietly(tmp_path: Path) -> None:
    path = _write_lines(tmp_path / "many.jsonl", [line for line, _ in MIXED] * 300)
    proc = subprocess.Popen(
        [sys.executable, "-m", "langchain_robust_parsers.cli", "parse", str(path), "-f", "json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert json.loads(proc.stdout.readline())["line"] == 1
    proc.stdout.close()  # as `| head -1` does
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 1
    assert "the output was closed early" in err
    assert "Traceback" not in err and "Exception ignored" not in err


# --------------------------------------------------------------------------- repair


def test_repair_reads_stdin(capsys: pytest.CaptureFixture[str]) -> None:
    text = "Sure:\n```json\n{'a': 1, 'b': [1, 2,], 'c': NaN, 'd': 'café'\n```"
    code, out, _ = _run(["repair"], capsys, text.encode())
    assert code == 0
    assert out == '{"a": 1, "b": [1, 2], "c": null, "d": "café"}\n'
    code, out, err = _run(["repair", "--ascii", "--indent", "2", "--report"], capsys, text.encode())
    assert code == 0
    assert json.loads(out) == {"a": 1, "b": [1, 2], "c": None, "d": "café"}
    assert "\\u00e9" in out and out.startswith("{\n  ")
    assert json.loads(err)["source"] == "fenced"


def test_repair_without_json_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["repair"], capsys, b"no json here")
    assert code == 1
    assert out == ""
    assert "no JSON value in the input" in err


@pytest.mark.slow
def test_repair_subprocess() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "langchain_robust_parsers.cli", "repair"],
        input='{"a": 1, // note\n "b": tru',
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"a": 1, "b": True}  # a cut literal with one completion


# --------------------------------------------------------------------------- exit statuses


@pytest.mark.parametrize(
    ("fmt", "message"),
    [
        ("nope", "unknown format 'nope'"),
        ("pydantic", "needs a model"),
        ("pydantic:no_such_module_xyz:Model", "cannot import module 'no_such_module_xyz'"),
        ("pydantic:cli_models:Missing", "has no attribute 'Missing'"),
        ("pydantic:cli_models:NotAModel", "is not a pydantic model class"),
        ("pydantic:cli_models", "expected pydantic:module:Model"),
        ("json:extra", "takes no argument"),
    ],
)
def test_bad_format_exits_2(
    mixed_file: Path, capsys: pytest.CaptureFixture[str], fmt: str, message: str
) -> None:
    code, out, err = _run(["parse", str(mixed_file), "-f", fmt], capsys)
    assert code == 2
    assert out == ""
    assert message in err


def test_missing_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["parse", str(tmp_path / "nope.jsonl"), "-f", "json"], capsys)
    assert code == 2
    assert "No such file" in err


def test_output_over_input_is_refused(mixed_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = mixed_file.read_bytes()
    code, _, err = _run(["parse", str(mixed_file), "-f", "json", "-o", str(mixed_file)], capsys)
    assert code == 2
    assert "is the input file" in err
    assert mixed_file.read_bytes() == before


@pytest.mark.parametrize(
    "argv",
    [[], ["parse"], ["parse", "x.jsonl"], ["parse", "x.jsonl", "-f", "json", "-w", "-1"], ["nah"]],
)
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    capsys.readouterr()


def test_help_lists_available_formats(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["parse", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for usage in ("json", "pydantic:module:Model", "calls", "dialog", "actions"):
        assert usage in out
    assert "exit status:" in out


# --------------------------------------------------------------------------- registry


def test_entry_whose_module_does_not_exist_is_absent(
    mixed_file: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    future = FormatEntry(
        "future", "langchain_robust_parsers.parsers.not_written_yet", "FutureParser", "later"
    )
    no_class = FormatEntry(
        "noclass", "langchain_robust_parsers.engine.stats", "NoSuchParser", "none"
    )
    entries = (*formats.FORMATS, future, no_class)
    assert future.load_class() is None
    assert no_class.load_class() is None
    assert set(available_formats(entries)) == set(available_formats())
    with pytest.raises(FormatError, match="not in this version"):
        resolve_format("future", entries)
    monkeypatch.setattr(formats, "FORMATS", entries)
    code, _, err = _run(["parse", str(mixed_file), "-f", "future"], capsys)
    assert code == 2
    assert "unknown format 'future' (its parser is not in this version)" in err


def test_entry_whose_module_is_broken_raises(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "half_written_parser.py").write_text("import no_such_dependency_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    entry = FormatEntry("half", "half_written_parser", "Parser", "a bug, not an absence")
    with pytest.raises(ModuleNotFoundError, match="no_such_dependency_xyz"):
        entry.load_class()


def test_new_entry_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = FormatEntry(
        "json_plain", "langchain_robust_parsers.parsers.json_parser", "RobustJsonOutputParser", "x"
    )
    monkeypatch.setattr(formats, "FORMATS", (*formats.FORMATS, entry))
    path = _write_lines(tmp_path / "in.jsonl", [json.dumps({"text": "[1, 2,]"})])
    code, out, _ = _run(["parse", str(path), "-f", "json_plain", "-q"], capsys)
    assert code == 0
    assert _rows(out)[0]["value"] == [1, 2]


# --------------------------------------------------------------------------- building blocks


def test_model_output_reads_fields_and_raw_lines() -> None:
    assert model_output(b'{"text": "x"}\r\n', InputOptions()) == "x"
    assert model_output(b'{"a.b": "exact", "a": {"b": "path"}}\n', InputOptions("a.b")) == "exact"
    assert model_output(b'{"a": {"b": "path"}}\n', InputOptions("a.b")) == "path"
    with pytest.raises(ValueError, match="blank line"):
        model_output(b"  \n", InputOptions())
    assert model_output(b'\xef\xbb\xbf{"text": "bom"}\n', InputOptions()) == "bom"
    assert model_output(b"any text\r\n", InputOptions(raw=True)) == "any text"


def test_to_jsonable() -> None:
    @dataclasses.dataclass
    class Point:
        x: float

    value = {"n": math.nan, "t": (1, math.inf), 3: Ticket(title="a", severity=1), "p": Point(2.0)}
    assert to_jsonable(value) == {
        "n": None,
        "t": [1, None],
        "3": {"title": "a", "severity": 1, "opened": None, "kind": "bug"},
        "p": {"x": 2.0},
    }
    assert to_jsonable({"path": Path("a/b")}) == {"path": str(Path("a/b"))}
    deep: list[Any] = []
    node = deep
    for _ in range(MAX_OUTPUT_DEPTH + 5):
        node.append([])
        node = node[0]
    with pytest.raises(ValueError, match="nested deeper"):
        to_jsonable(deep)


def test_value_too_deep_to_write_is_a_failed_line() -> None:
    runner = FormatRunner("json")
    result = runner.parse("[" * 900 + "]" * 900)
    line, outcome = encode_result(1, result)
    row = json.loads(line)
    assert outcome in ("success", "recovered", "failed")
    assert row["ok"] is (outcome != "failed")


def test_counter_progress_without_tqdm(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = io.StringIO()
    monkeypatch.setattr("langchain_robust_parsers.cli.progress._tqdm_class", lambda: None)
    progress = make_progress(1000, stream=stream)
    assert isinstance(progress, CounterProgress)
    progress.update(600)
    progress.write("line 3: malformed input")
    progress.update(400)
    progress.close()
    text = stream.getvalue()
    assert "line 3: malformed input\n" in text
    assert text.splitlines()[-1].startswith("1,000/1,000 lines (")


def test_tqdm_progress_when_installed() -> None:
    pytest.importorskip("tqdm")
    stream = io.StringIO()
    progress = make_progress(10, stream=stream)
    progress.update(10)
    progress.write("note")
    progress.close()
    assert "note" in stream.getvalue()
    assert "10/10" in stream.getvalue()


# --------------------------------------------------------------------------- scale-out

SCALE_TEXTS: dict[str, list[str]] = {
    "json": ['{"a": 1}', "```json\n{'a': 2,}\n```", '{"a": [1', "no json"],
    "pydantic": [
        '{"title": "x", "severity": 1}',
        '{"Title": "y", "Severity": "2"}',
        '{"title": "z"}',
    ],
    "calls": ["[f(a=1)]", '<tool_call>{"name": "g", "arguments": {}}</tool_call>', "nothing"],
    "dialog": ['[TO: Bob, TONE: calm] "Hi."', '[TO: Bob] "Hi."', "plain words"],
}


def _scale_parsers() -> dict[str, Any]:
    return {
        "json": RobustJsonOutputParser(stats=ParseStats()),
        "pydantic": RobustPydanticOutputParser[Ticket](pydantic_object=Ticket, stats=ParseStats()),
        "calls": FunctionCallOutputParser(stats=ParseStats()),
        "dialog": DialogOutputParser(stats=ParseStats()),
    }


def _parse_all(parser: Any, texts: list[str]) -> tuple[list[Any], ParseStats]:
    """Parse in whichever process this runs; the parser arrived pickled, its stats go back."""
    values: list[Any] = []
    for text in texts:
        try:
            values.append(to_jsonable(parser.parse(text)))
        except OutputParserException as exc:
            values.append(str(exc).splitlines()[0])
    return values, parser.stats


@pytest.mark.slow
def test_parsers_scale_out_over_a_process_pool() -> None:
    """Parsers pickle into worker processes, keep no state between calls, and the ParseStats
    they fill there merge into the counts a single process gets."""
    parsers = _scale_parsers()
    chunks = {name: [texts, texts[::-1], texts] for name, texts in SCALE_TEXTS.items()}
    serial = ParseStats()
    expected: dict[str, list[Any]] = {}
    for name, parser in _scale_parsers().items():
        for chunk in chunks[name]:
            values, stats = _parse_all(parser, chunk)
            expected.setdefault(name, []).extend(values)
        serial.merge(parser.stats)
    merged = ParseStats()
    got: dict[str, list[Any]] = {}
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=2, mp_context=context) as pool:
        jobs = [
            (name, pool.submit(_parse_all, pickle.loads(pickle.dumps(parsers[name])), chunk))
            for name in parsers
            for chunk in chunks[name]
        ]
        for name, job in jobs:
            values, stats = job.result()
            got.setdefault(name, []).extend(values)
            merged.merge(stats)
    assert got == expected
    assert merged == serial
    assert merged.total() == sum(len(t) for t in SCALE_TEXTS.values()) * 3
    assert set(merged.snapshot()) == {"json", "pydantic", "function_calls", "dialog"}
    assert all(p.stats.total() == 0 for p in parsers.values())  # the originals never ran


def test_format_runner_pickles_with_its_probe() -> None:
    runner = FormatRunner("pydantic:cli_models:Ticket")
    clone: FormatRunner = pickle.loads(pickle.dumps(runner))
    assert clone.parser.stats is clone.probe
    result = clone.parse('{"title": "x", "Severity": "3"}')
    assert result.ok and result.outcome == "recovered" and result.format == "pydantic"
    assert isinstance(result.value, pydantic.BaseModel)


# --------------------------------------------------------------------------- hostile input

# Input lines that once stopped a run or lost their row: (line bytes, outcome of its row).
HOSTILE: list[tuple[bytes, str]] = [
    (b'\xef\xbb\xbf{"text": "{\\"bom\\": 1}"}', "success"),  # a BOM before the first line
    (b'{"text": "{\\"e\\": \\"\\\\ud83d\\\\ude"}', "recovered"),  # emoji escape cut by max_tokens
    (b'{"text": "{\\"s\\": \\"\\ud83d\\"}"}', "success"),  # the JSON line itself holds a surrogate
    (b"", "bad_input"),  # blank
    (b'{"text": "{\\"nul\\": \\"a\\u0000b\\"}"}', "recovered"),  # a literal NUL in a string
    (b'{"text": "a\x00b"}', "bad_input"),  # a raw NUL: not JSON
    (b'{"text": "caf\xe9"}', "bad_input"),  # Latin-1, not UTF-8
    (b"\xff\xfe\x00{", "bad_input"),
    (b'{"text": "{\\"crlf\\": true}"}\r', "success"),
    (b"   \t", "bad_input"),
    (b'{"text": "{\\"s\\": \\"a\\u2028b\\u0085c\\u2029\\"}"}', "success"),  # splitlines ends
    (b'{"x": ' + b"[" * 100_000 + b"]" * 100_000 + b', "text": "{}"}', "bad_input"),  # too deep
    (b"[" * 100_000, "bad_input"),
]


def _line_count(data: bytes) -> int:
    """Lines as a binary file iterates them: split at b"\\n", a last line without one counts."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _parse_file(path: Path, out: Path, args: list[str]) -> tuple[int, list[dict[str, Any]]]:
    """``robust-parsers parse`` in this process; its exit status and rows (read as strict
    UTF-8, so an undecodable output fails here)."""
    code = main(["parse", str(path), "-o", str(out), "-q", *args])
    return code, _rows(out.read_bytes().decode("utf-8"))


@pytest.mark.parametrize("workers", [1, 2])
def test_every_hostile_line_gets_its_row(tmp_path: Path, workers: int) -> None:
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(b"\n".join(line for line, _ in HOSTILE) + b"\n")
    code, rows = _parse_file(path, tmp_path / "out.jsonl", ["-f", "json", "-w", str(workers)])
    assert code == 0
    assert [r["line"] for r in rows] == list(range(1, len(HOSTILE) + 1))
    assert [r["outcome"] for r in rows] == [outcome for _, outcome in HOSTILE]
    assert rows[0]["value"] == {"bom": 1}
    assert rows[1]["value"] == {"e": ""}  # cut inside a surrogate pair: the half is dropped
    assert rows[2]["value"] == {"s": "\ud83d"}  # a lone surrogate survives the round trip
    assert rows[4]["value"] == {"nul": "a\x00b"}
    assert rows[10]["value"] == {"s": "a\u2028b\x85c\u2029"}  # a row is one line for splitlines
    assert "blank line" in rows[3]["error"] and "not valid UTF-8" in rows[6]["error"]
    assert "nested too deeply" in rows[11]["error"]


def test_surrogates_are_escaped_and_other_text_stays_utf8(tmp_path: Path) -> None:
    path = _write_lines(tmp_path / "s.jsonl", [json.dumps({"text": '{"a": "café \ud83d"}'})])
    out = tmp_path / "out.jsonl"
    assert main(["parse", str(path), "-f", "json", "-o", str(out), "-q"]) == 0
    assert '"café \\ud83d"' in out.read_bytes().decode("utf-8")


@pytest.mark.slow  # 25 MB of input: a few seconds
def test_ten_megabyte_lines(tmp_path: Path) -> None:
    lines = [
        json.dumps({"text": '{"a": "' + "x" * 10_000_000 + '"}'}),
        json.dumps({"text": "word " * 2_000_000}),
        json.dumps({"text": "[" * 100_000 + "\ud83d" * 1_000_000}),
        json.dumps({"text": "{}"}),
    ]
    path = _write_lines(tmp_path / "big.jsonl", lines)
    code, rows = _parse_file(path, tmp_path / "out.jsonl", ["-f", "json"])
    assert code == 0
    assert [(r["line"], r["outcome"]) for r in rows][::3] == [(1, "success"), (4, "success")]
    assert len(rows[0]["value"]["a"]) == 10_000_000 and rows[1]["outcome"] == "failed"


def test_repair_lone_surrogate(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["repair"], capsys, b'Here: {"e": "\\ud83d", "f": 1')
    assert code == 0
    assert out == '{"e": "\\ud83d", "f": 1}\n' and json.loads(out) == {"e": "\ud83d", "f": 1}
    # Cut between the halves of a pair, the half character is dropped, as any half escape.
    code, out, _ = _run(["repair"], capsys, b'Here: {"e": "ok \\ud83d\\ude')
    assert code == 0 and json.loads(out) == {"e": "ok "}


def test_actions_window_maps_coordinates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if "actions" not in available_formats():
        pytest.skip("ActionOutputParser is not in this version")
    text = "Thought: Log in.\nAction: click(start_box='(500,250)')"
    path = _write_lines(tmp_path / "a.jsonl", [json.dumps({"text": text})])
    _, out, _ = _run(["parse", str(path), "-f", "actions", "-q", "--window", "1280x800"], capsys)
    (click,) = _rows(out)[0]["value"]
    assert (click["x"], click["y"], click["warnings"]) == (640, 200, [])
    _, out, _ = _run(["parse", str(path), "-f", "actions", "-q"], capsys)
    (click,) = _rows(out)[0]["value"]
    assert (click["x"], click["y"]) == (500, 250) and click["warnings"]


def test_window_usage_errors(mixed_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["parse", str(mixed_file), "-q", "-f", "json", "--window", "1280x800"])
    assert code == 2
    assert "--window does not apply to format 'json'" in capsys.readouterr().err
    for bad in ("1280", "0x800", "wide"):
        with pytest.raises(SystemExit) as caught:
            main(["parse", str(mixed_file), "-q", "-f", "actions", "--window", bad])
        assert caught.value.code == 2
        assert "expected WIDTHxHEIGHT" in capsys.readouterr().err


# --------------------------------------------------------------------------- fuzzing the CLI

_SEEDS = [line for line, _ in HOSTILE] + [
    b"Thought: look\nAction: search\nAction Input: weather ",
    b"[get_weather(city='Paris')]",
    b'<tool_call>{"name": "f", "arguments": {"x": -' + b"5" * 5000 + b"}}",
    b"\xef\xbb\xbf",
    b"\x00",
    b"\\udc00{",
]
_TEXT = st.text(st.characters(codec=None), max_size=40)  # lone surrogates included


def _as_line(text: str, raw: bool) -> bytes:
    """Model text as one input line: a JSON record (``\\uXXXX`` escapes for surrogates), or
    the text itself, where a surrogate makes bytes that are not UTF-8."""
    if not raw:
        return json.dumps({"text": text}).encode()
    return text.encode("utf-8", "surrogatepass").replace(b"\n", b" ")


_LINE = st.one_of(
    st.sampled_from(_SEEDS),
    st.builds(_as_line, _TEXT, st.booleans()),
    st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")),
)
_FILE = st.tuples(
    st.lists(_LINE, max_size=12), st.sampled_from([b"\n", b"\r\n"]), st.booleans()
).map(lambda t: t[1].join(t[0]) + (t[1] if t[2] and t[0] else b""))
_FORMATS = ["json", "calls", "dialog", "actions", "react", "pydantic:cli_models:Ticket"]


def _fuzz_one(directory: Path, data: bytes, fmt: str, raw: bool, workers: int) -> None:
    path, out = directory / "in.jsonl", directory / "out.jsonl"
    path.write_bytes(data)
    args = ["-f", fmt, "-w", str(workers)] + (["--raw"] if raw else [])
    code, rows = _parse_file(path, out, args)
    assert code == 0
    assert [r["line"] for r in rows] == list(range(1, _line_count(data) + 1))
    for row in rows:
        assert row["outcome"] in {"success", "recovered", "fallback", "failed", "bad_input"}
        assert (row["error"] is None) == row["ok"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=_FILE, fmt=st.sampled_from(_FORMATS), raw=st.booleans())
def test_fuzz_one_row_per_line_one_worker(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, fmt: str, raw: bool
) -> None:
    _fuzz_one(tmp_path_factory.mktemp("fuzz"), data, fmt, raw, workers=1)


@pytest.mark.slow  # a process pool
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=_FILE, fmt=st.sampled_from(_FORMATS), raw=st.booleans())
def test_fuzz_one_row_per_line_two_workers(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, fmt: str, raw: bool
) -> None:
    _fuzz_one(tmp_path_factory.mktemp("fuzz"), data, fmt, raw, workers=2)


@pytest.mark.slow
def test_hostile_file_through_the_console_script(tmp_path: Path) -> None:
    """The installed command, two workers, an ASCII-only locale: every line has its row and
    the output is UTF-8 whatever the locale says."""
    lines = [line for line, _ in HOSTILE] + [json.dumps({"text": "日本語 {'a': 1}"}).encode()]
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(b"\n".join(lines))
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    command = [sys.executable, "-m", "langchain_robust_parsers.cli", "parse", str(path)]
    proc = subprocess.run(
        [*command, "-f", "json", "-w", "2", "-q"],
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    rows = _rows(proc.stdout.decode("utf-8"))
    assert [r["line"] for r in rows] == list(range(1, len(lines) + 1))
    assert rows[-1]["value"] == {"a": 1} and rows[2]["value"] == {"s": "\ud83d"}
