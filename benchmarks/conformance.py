"""Score ``loads`` on the json_repair conformance cases (value equality, per-case time limit).

    python benchmarks/conformance.py                 # print the score, differences and misses
    python benchmarks/conformance.py --write-readme  # also fill docs/conformance.md
    python benchmarks/conformance.py --cases other.jsonl --timeout 5

Equality: dict order ignored, bool != int, 1 == 1.0, NaN == NaN. A case whose expected value is
``""`` (json_repair's "no JSON here") passes when ``loads`` raises ``OutputParserException``
(DESIGN.md: no JSON value -> raise). Each case runs in a worker process with a time limit; a
timeout or a crash (which shows as a timeout) is a miss. Deliberate differences live in
``conformance_differences.py``; the script reports the strict pass rate (every case counts) and
the rate over the cases that are not deliberate differences, and checks that each deliberate
difference behaves as documented. The target (issue 2) is at least 85% strict passes.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conformance_differences import DELIBERATE, MAX_ENTRIES, RAISES, UNPINNED
from json_bench import REPO, replace_readme_block, same_value
from langchain_core.exceptions import OutputParserException

from langchain_robust_parsers import loads

_CASES_FILE = "shared/conformance/json_repair_cases.jsonl"
CASES = next(
    (d / _CASES_FILE for d in Path(__file__).resolve().parents if (d / _CASES_FILE).is_file()),
    Path(__file__).resolve().parents[2] / _CASES_FILE,
)
"""The cases file in the nearest folder above this one that holds it (a checkout or a worktree)."""
OPEN, CLOSE = "<!-- CONFORMANCE -->", "<!-- /CONFORMANCE -->"
TIMEOUT = 2.0
"""Seconds per case before the worker is killed (the research harness used 2 s)."""
TARGET = 0.85
"""Issue 2: at least 85% of the cases pass."""
CELL = 60
"""Characters of an input or value shown in a table cell."""

CATEGORIES: dict[str, tuple[str, str]] = {
    # name: (what the cases exercise, case ids = 0-based line numbers of the .jsonl)
    "valid": (
        "already valid JSON (fast path)",
        "0 1 2 3 4 6 7 8 9 10 23 24 25 26 80 81 96 104 112 178 179 194 195 228 229 234",
    ),
    "no-json": (
        'no JSON value: json_repair gives "", we raise',
        "39 72 105 152 153 154 155 185 231 232 233",
    ),
    "locate": (
        "payload in prose or fences (incl. inline and unclosed fences)",
        "11 12 13 20 21 84 127 156 177 197 198 199 200",
    ),
    "several": ("several top-level values", "14 15 16 17 18 19 146 147 148"),
    "early-closer": (
        'object closed early, members follow: `{...}, "k": v}`',
        "144 145 149 150 151",
    ),
    "truncated": (
        "cut off: open strings/containers closed, unfinished key dropped, unique literal completed",
        "5 32 33 34 35 38 40 46 47 48 59 89 94 102 106 108 158 163 168 187",
    ),
    "ellipsis": ("`...` placeholders", "41 42 43 44"),
    "comments": ("`//`, `#`, `/* */` comments (incl. unterminated)", "73 74 75 76 77 78 79"),
    "quotes": ("single, smart and mixed quote delimiters", "31 124 157 162 190 192 226 248"),
    "unquoted": (
        "unquoted keys and bare-word values",
        "103 107 122 123 125 126 129 159 160 161 167 170 172 249",
    ),
    "missing-quote": (
        "a string missing its closing (or opening) quote before a delimiter",
        "49 114 119 120 121 128 130 131 164 180 181 182 183 184 241 247",
    ),
    "inner-quotes": (
        "unescaped quotes inside strings",
        "28 29 50 54 55 69 70 71 109 118 165 171 173 174 175 176 193 196 227 236 "
        "237 238 239 240 246",
    ),
    "doubled-quotes": ('CSV-style doubled quotes `""key""`', "113 132 166 169"),
    "stray-tokens": (
        "missing commas, stray words, values or text after a member",
        "45 53 110 111 115 116 117 242 243",
    ),
    "closers": ("missing, extra and mismatched brackets", "27 36 37 51 52 133 134 135 138 139 143"),
    "python": (
        "Python literals: tuples, sets, True/None, TRUE/Null",
        "22 60 61 62 63 64 65 66 67 68 101 141 235",
    ),
    "array-pairs": ('`"k": v` inside an array becomes an object', "56 57 58 140"),
    "numbers": (
        "number forms: 1_000, .25, 1., 1e, 1/3, 1.1.1, 57eee-... as strings",
        "82 83 85 86 87 88 90 91 92 93 95 97 98 99 100",
    ),
    "missing-value": ('`"k": }`: json_repair gives ""', "30 137"),
    "string-content": (
        "control characters, odd escapes, trailing line break in strings",
        "186 188 189 191 224 225 230 244 245",
    ),
    "fence-in-string": (
        "``` fences inside string values must not be taken as fences",
        "201 202 203 204 205 206 207 208 209 210 211 212 213 214 215 216 217 218 "
        "219 220 221 222 223",
    ),
    "escaped-json": ("backslash-escaped JSON (a JSON string's contents)", "136 142"),
}


def category_of() -> dict[int, str]:
    table: dict[int, str] = {}
    for name, (_, ids) in CATEGORIES.items():
        for token in ids.split():
            table[int(token)] = name
    return table


@dataclass
class Outcome:
    case_id: int
    text: str
    expected: Any
    kind: str  # "value", "OutputParserException", "timeout", or "error: <type>"
    got: Any
    seconds: float

    @property
    def passed(self) -> bool:
        if self.kind == "value":
            return same_value(self.got, self.expected)
        return self.kind == "OutputParserException" and self.expected == ""

    def shown(self, width: int = CELL) -> str:
        """What ``loads`` did, for a table cell."""
        if self.kind == "value":
            return code(json.dumps(self.got, ensure_ascii=False), width)
        if self.kind == "timeout":
            return f"timeout (> {self.seconds:.1f} s)"
        return f"raises {self.kind}"


def _run_one(text: str) -> tuple[str, Any, float]:
    """In the worker: ``loads(text)`` as (kind, value or message, seconds)."""
    start = time.perf_counter()
    try:
        value = loads(text)
    except OutputParserException as exc:
        return "OutputParserException", str(exc)[:200], time.perf_counter() - start
    except BaseException as exc:
        return f"error: {type(exc).__name__}", str(exc)[:200], time.perf_counter() - start
    elapsed = time.perf_counter() - start
    try:
        json.dumps(value)  # the value must travel back to the parent
    except (TypeError, ValueError, RecursionError) as exc:
        return f"error: unserialisable value ({type(exc).__name__})", repr(value)[:200], elapsed
    return "value", value, elapsed


def score(cases: list[dict[str, Any]], timeout: float) -> list[Outcome]:
    ctx = multiprocessing.get_context()
    pool = ctx.Pool(1)
    outcomes: list[Outcome] = []
    try:
        for i, case in enumerate(cases):
            pending = pool.apply_async(_run_one, (case["input"],))
            try:
                kind, got, seconds = pending.get(timeout=timeout)
            except multiprocessing.TimeoutError:
                kind, got, seconds = "timeout", None, timeout
                pool.terminate()
                pool = ctx.Pool(1)
            except Exception as exc:  # the worker died
                kind, got, seconds = f"error: worker {type(exc).__name__}", str(exc), 0.0
                pool.terminate()
                pool = ctx.Pool(1)
            outcomes.append(Outcome(i, case["input"], case["expected"], kind, got, seconds))
    finally:
        pool.terminate()
    return outcomes


def short(text: str, width: int = CELL) -> str:
    """``text`` cut to ``width`` characters, on one line, safe in a markdown table cell."""
    text = text if len(text) <= width else text[: width - 1] + "…"
    return text.replace("|", "\\|").replace("\n", "⏎")


def code(text: str, width: int = CELL) -> str:
    """``short(text)`` as a code span whose delimiter outnumbers the backticks inside."""
    body = short(text, width)
    run = longest = 0
    for ch in body:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def around_difference(a: str, b: str, lead: int = 20) -> tuple[str, str]:
    """``a`` and ``b`` from ``lead`` characters before their first difference, when that lies
    beyond a table cell."""
    pairs = enumerate(zip(a, b, strict=False))
    first = next((i for i, (x, y) in pairs if x != y), min(len(a), len(b)))
    if first < CELL - lead:
        return a, b
    return "…" + a[first - lead :], "…" + b[first - lead :]


def documented(outcome: Outcome, ours: Any) -> bool:
    """Whether a deliberate difference behaves as its entry says."""
    if ours is UNPINNED:
        return outcome.kind in ("value", "OutputParserException")
    if ours is RAISES:
        return outcome.kind == "OutputParserException"
    return outcome.kind == "value" and same_value(outcome.got, ours)


def report(outcomes: list[Outcome], cases_path: Path, command: str, timeout: float) -> str:
    total = len(outcomes)
    cat = category_of()
    passes = [o for o in outcomes if o.passed]
    no_json = [o for o in passes if o.expected == "" and o.kind == "OutputParserException"]
    listed = {o.case_id: o for o in outcomes if o.text in DELIBERATE}
    unknown = sorted(set(DELIBERATE) - {o.text for o in outcomes})
    rest = [o for o in outcomes if o.case_id not in listed]
    rest_passes = sum(o.passed for o in rest)
    misses = [o for o in rest if not o.passed]
    needed = -(-int(TARGET * 1000) * total // 1000)  # ceil(TARGET * total) without float error
    strict_ok = len(passes) >= needed

    lines = [
        f"Command: `{command}` on `{cases_path.name}` ({total} cases, "
        f"{timeout:g} s limit per case).",
        "",
        f"- **Strict pass rate: {len(passes)}/{total} ({100 * len(passes) / total:.1f}%)**, "
        f"target >= {TARGET:.0%} ({needed}/{total}): {'PASS' if strict_ok else 'MISS'}. "
        f'It counts {len(no_json)} no-JSON cases where json_repair returns "" and we raise '
        "`OutputParserException`.",
        f"- Pass rate excluding the {len(listed)} deliberate differences: "
        f"{rest_passes}/{len(rest)} ({100 * rest_passes / max(len(rest), 1):.1f}%).",
        f"- Deliberate differences: {len(DELIBERATE)} listed (at most {MAX_ENTRIES}: "
        f"{'OK' if len(DELIBERATE) <= MAX_ENTRIES else 'TOO MANY'}); "
        f"{sum(documented(o, DELIBERATE[o.text].ours) for o in listed.values())} behave as "
        f"documented, {sum(o.passed for o in listed.values())} now match json_repair.",
        f"- Real misses: {len(misses)}.",
    ]
    if unknown:
        lines.append(f"- Listed differences that match no case: {', '.join(map(repr, unknown))}.")
    slow = sorted(outcomes, key=lambda o: o.seconds, reverse=True)[:3]
    lines.append(
        "- Slowest cases: "
        + ", ".join(f"#{o.case_id} {o.seconds * 1e3:.1f} ms" for o in slow)
        + "."
    )

    per_cat: Counter[str] = Counter()
    per_cat_pass: Counter[str] = Counter()
    for o in outcomes:
        per_cat[cat.get(o.case_id, "?")] += 1
        per_cat_pass[cat.get(o.case_id, "?")] += o.passed
    lines += ["", "| category | cases | pass | what the cases exercise |", "|---|---:|---:|---|"]
    for name, (what, _) in CATEGORIES.items():
        lines.append(f"| {name} | {per_cat[name]} | {per_cat_pass[name]} | {short(what, 80)} |")

    lines += [
        "",
        "Deliberate differences (`conformance_differences.py`; J = judgement call):",
        "",
        "| # | input | json_repair | ours | as documented | reason |",
        "|---:|---|---|---|---|---|",
    ]
    for o in sorted(listed.values(), key=lambda o: o.case_id):
        diff = DELIBERATE[o.text]
        status = "yes" if documented(o, diff.ours) else "NO"
        if o.passed:
            status = "now matches json_repair"
        tag = " (J)" if diff.judgement else ""
        lines.append(
            f"| {o.case_id} | {code(repr(o.text), 40)} | "
            f"{code(json.dumps(o.expected, ensure_ascii=False), 45)} | {o.shown(45)} | "
            f"{status} | {short(diff.reason, 400)}{tag} |"
        )

    lines += [
        "",
        "Real misses (long values are shown from just before their first difference):",
        "",
        "| # | category | input | expected | got |",
        "|---:|---|---|---|---|",
    ]
    for o in misses:
        want = json.dumps(o.expected, ensure_ascii=False)
        got = o.shown()
        if o.kind == "value":
            want, got = around_difference(want, json.dumps(o.got, ensure_ascii=False))
            got = code(got)
        lines.append(
            f"| {o.case_id} | {cat.get(o.case_id, '?')} | {code(repr(o.text))} | {code(want)} "
            f"| {got} |"
        )
    if not misses:
        lines.append("| - | - | none | - | - |")
    return "\n".join(lines)


def check_categories(total: int) -> None:
    seen: Counter[int] = Counter()
    for _, ids in CATEGORIES.values():
        seen.update(int(t) for t in ids.split())
    twice = sorted(i for i, n in seen.items() if n > 1)
    missing = sorted(set(range(total)) - set(seen))
    if twice or missing:
        print(
            f"warning: categories list cases twice {twice} / miss {missing[:20]}", file=sys.stderr
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, default=CASES, help=f"default: {CASES}")
    parser.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds per case")
    parser.add_argument(
        "--write-readme", action="store_true", help=f"fill the {OPEN} block of docs/conformance.md"
    )
    args = parser.parse_args(argv)
    with args.cases.open(encoding="utf-8") as fh:
        cases = [json.loads(line) for line in fh if line.strip()]
    if args.cases.resolve() == CASES.resolve():
        check_categories(len(cases))
    start = time.perf_counter()
    outcomes = score(cases, args.timeout)
    print(f"scored {len(cases)} cases in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    shown = sys.argv[1:] if argv is None else argv
    command = " ".join(["python benchmarks/conformance.py", *shown])
    text = report(outcomes, args.cases, command, args.timeout)
    print(text)
    if args.write_readme:
        replace_readme_block(REPO / "docs" / "conformance.md", OPEN, CLOSE, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
