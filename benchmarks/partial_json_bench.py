"""Score partial-JSON readers on cut literals, string swallowing and over-escaped JSON.

A corpus written for this project from the JSON grammar (RFC 8259: a value is a string, number,
object, array or one of the three literals; a string is delimited by unescaped quotes), each
case a text and the values a user may accept for it. Four classes:

- ``cut-literal``: a stream prefix ending inside ``true``/``false``/``null``. Where the prefix
  completes uniquely (``t``, ``fa``, ``nu``) the literal is expected; where it does not in our
  reading (``f``, ``n``: see ``engine/json/cut_literals.py``) both the completed and the
  dropped value are accepted, since peers reasonably complete them;
- ``no-swallow``: a prefix whose last item follows a closed string: the string must not grow
  into the next item (``["a", t`` is never ``['a", t']``);
- ``over-escaped``: complete answers whose strings carry one layer of escaping too many
  (``{"query": \\"foo\\"}``), and prefixes of them;
- ``escaped-quotes``: strings holding escaped quotes or JSON, cut or whole, which must stay
  data.

Readers: ours (``loads(text, partial=True)``), langchain-core's ``parse_partial_json``, and
``partial_json_parser``/``json_repair`` when installed. Prints a markdown table of cases
passed per class and the CPU time per call, averaged over the corpus.

    python benchmarks/partial_json_bench.py
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # measure the working tree, installed or not
    sys.path.insert(0, str(REPO))

from langchain_core.utils.json import parse_partial_json  # noqa: E402

from langchain_robust_parsers import loads  # noqa: E402

Case = tuple[str, str, list[Any]]  # class, text, accepted values

CASES: list[Case] = [
    # --- a literal cut by the end of the text
    ("cut-literal", '["a", t', [["a", True]]),
    ("cut-literal", '["a", tr', [["a", True]]),
    ("cut-literal", '["a", tru', [["a", True]]),
    ("cut-literal", '{"ok": fa', [{"ok": False}]),
    ("cut-literal", '{"ok": fals', [{"ok": False}]),
    ("cut-literal", '{"x": 1, "y": nu', [{"x": 1, "y": None}]),
    ("cut-literal", '{"x": [true, nul', [{"x": [True, None]}]),
    ("cut-literal", "[1,\n  t", [[1, True]]),
    ("cut-literal", '{"a": {"b": tr', [{"a": {"b": True}}]),
    ("cut-literal", '{"ok": f', [{"ok": False}, {}]),
    ("cut-literal", '{"x": [1, n', [[1, None], {"x": [1, None]}, {"x": [1]}]),
    # --- the next item after a closed string is not read into it
    ("no-swallow", '["a", t', [["a", True], ["a"]]),
    ("no-swallow", '{"array": ["hello", n', [{"array": ["hello", None]}, {"array": ["hello"]}]),
    ("no-swallow", '{"a": "x", "b": fa', [{"a": "x", "b": False}, {"a": "x"}]),
    ("no-swallow", '["a", 12', [["a", 12]]),
    ("no-swallow", '["a", -', [["a"]]),
    ("no-swallow", '["a", {"b', [["a", {}]]),
    ("no-swallow", '["a", ["b', [["a", ["b"]]]),
    ("no-swallow", '{"k": "v", "n": 4', [{"k": "v", "n": 4}]),
    ("no-swallow", '["x",t', [["x", True], ["x"]]),
    # --- over-escaped answers (complete, then cut)
    ("over-escaped", '{"query": \\"foo\\"}', [{"query": "foo"}]),
    ("over-escaped", '{"a": {\\"b\\": \\"c\\"}}', [{"a": {"b": "c"}}]),
    ("over-escaped", '{"q": \\"Paris\\", "n": 3}', [{"q": "Paris", "n": 3}]),
    ("over-escaped", '{"tags": [\\"x\\", \\"y\\"]}', [{"tags": ["x", "y"]}]),
    ("over-escaped", '{"say": \\"a \\\\\\"b\\\\\\" c\\"}', [{"say": 'a "b" c'}]),
    ("over-escaped", '{"query": \\"weath', [{"query": "weath"}]),
    ("over-escaped", '{"query": \\"', [{"query": ""}, {}]),
    ("over-escaped", '{"a": {\\"b\\": \\"c', [{"a": {"b": "c"}}]),
    # --- escaped quotes and JSON inside strings stay data
    (
        "escaped-quotes",
        '"value with \\"quoted\\" text and \\\\ escape',
        ['value with "quoted" text and \\ escape'],
    ),
    ("escaped-quotes", '{"a": "say \\"hi\\""}', [{"a": 'say "hi"'}]),
    ("escaped-quotes", '{"p": "{\\"id\\": 1}"}', [{"p": '{"id": 1}'}]),
    ("escaped-quotes", '{"a": "\\"x\\", t', [{"a": '"x", t'}]),
    ("escaped-quotes", '["\\"q\\"", "r', [['"q"', "r"]]),
    ("escaped-quotes", '{"code": "print(\\"x\\")", "ok": tr', [{"code": 'print("x")', "ok": True}]),
]


def _ours(text: str) -> Any:
    return loads(text, partial=True)


def _readers() -> dict[str, Callable[[str], Any]]:
    readers: dict[str, Callable[[str], Any]] = {
        "ours: loads(partial=True)": _ours,
        "langchain-core parse_partial_json": parse_partial_json,
    }
    for module, name, call in (
        ("partial_json_parser", "partial_json_parser.loads", "loads"),
        ("json_repair", "json_repair.loads", "loads"),
    ):
        with contextlib.suppress(ImportError):
            readers[name] = getattr(importlib.import_module(module), call)
    return readers


def _passes(read: Callable[[str], Any], text: str, accepted: list[Any]) -> bool:
    try:
        value = read(text)
    except Exception:  # a peer raising is a miss, not a crash of the benchmark
        return False
    return any(value == ok and type(value) is type(ok) for ok in accepted)


def _mean_time(read: Callable[[str], Any], rounds: int = 50, repeat: int = 5) -> float:
    """CPU time per call (``process_time``: on a shared machine, wall time counts the other
    processes too), the best of ``repeat`` loops over the corpus."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for _ in range(rounds):
            for _, text, _ in CASES:
                with contextlib.suppress(Exception):
                    read(text)
        best = min(best, time.process_time() - start)
    return best / (rounds * len(CASES))


def main() -> int:
    classes = list(dict.fromkeys(c for c, _, _ in CASES))
    counts = {c: sum(1 for k, _, _ in CASES if k == c) for c in classes}
    header = " | ".join(f"{c} ({counts[c]})" for c in classes)
    print("Command: `python benchmarks/partial_json_bench.py`\n")
    print(f"| reader | {header} | all ({len(CASES)}) | mean per call |")
    print("|---|" + "---:|" * (len(classes) + 2))
    misses: dict[str, list[str]] = {}
    for name, read in _readers().items():
        passed = {c: 0 for c in classes}
        for cls, text, accepted in CASES:
            if _passes(read, text, accepted):
                passed[cls] += 1
            else:
                misses.setdefault(name, []).append(text)
        cells = " | ".join(str(passed[c]) for c in classes)
        total = sum(passed.values())
        print(f"| {name} | {cells} | {total} | {_mean_time(read) * 1e6:.1f} µs |")
    ours = next(iter(_readers()))
    for text in misses.get(ours, []):
        print(f"\nours misses: {text!r} -> {_ours(text)!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
