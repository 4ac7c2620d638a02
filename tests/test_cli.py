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
    ("", None),  # blank: skipped
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
    for row in ("json ", "pydantic ", "function_calls ", "dialog ", "actions:ui_tars "):
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
    expected = [(n, e) for n, (_, e) in enumerate(MIXED, start=1) if e is not None]
    assert [r["line"] for r in rows] == [n for n, _ in expected]
    for row, (_, want) in zip(rows, expected, strict=True):
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
    assert "4 malformed input line(s), the first at line 4" in err
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
    assert "actions:ui_tars " in err and "actions:text " in err
    assert not any(line.startswith("json ") for line in err.splitlines())


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
    assert json.loads(proc.stdout) == {"a": 1}


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
    assert model_output(b"  \n", InputOptions()) is None
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
