"""Benchmark ``loads`` against json.loads, langchain-core, json_repair and partial-json-parser.

One run, same inputs for every implementation, timeit-style timing (a warm-up call, a calibrated
loop of at least ``min_time`` seconds, ``repeat`` such loops, min and median per call). Each of
our results is checked against ``json.loads`` of the clean payload. Prints a markdown table, the
ratios and the targets of issue 2 with PASS/MISS; the exit code is 0 either way (it is a report).

    python benchmarks/json_bench.py                  # full run
    python benchmarks/json_bench.py --quick          # smoke test: fewer, shorter repeats
    python benchmarks/json_bench.py --write-readme   # also fill docs/benchmarks.md

Cases (documents are built deterministically: products and users with escaped quotes, unicode
and nested lists, pretty-printed):

(a) a ~10 KB object, valid / fenced / fenced with prose around it;
(b) the same object with one trailing comma and the final closing brace missing;
(c) a ~100 KB object cut off 40 characters into a string;
(d) ~100 KB and ~1 MB documents with one error every ~2 KB (trailing commas alternating with
    single-quoted strings);
(e) 100 000 nested ``[``: a value or ``OutputParserException``, run in a child process;
(f) the (a) object as a Python ``repr`` and with unquoted keys, against ``json.loads`` of the
    clean text, json_repair, and ``repairjson``/``fast-json-repair`` when installed;
(g) a small object followed by ~100 KB of explanation full of brackets (citations ``[3]``,
    placeholders ``{name}``, markdown links, set notation): the parser looks for further values
    in the prose to name them in its report, against ``loads``, which does not.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import platform
import random
import re
import statistics
import sys
import time
import timeit
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # measure the working tree, installed or not
    sys.path.insert(0, str(REPO))

from langchain_core.exceptions import OutputParserException  # noqa: E402
from langchain_core.output_parsers import JsonOutputParser  # noqa: E402

from langchain_robust_parsers import RobustJsonOutputParser, loads  # noqa: E402
from langchain_robust_parsers.parsers.json_text import loads_with_report  # noqa: E402

README = REPO / "docs" / "benchmarks.md"
"""Where ``--write-readme`` puts the table (the name is kept from when it was the README)."""
BENCH_OPEN, BENCH_CLOSE = "<!-- BENCH-TABLE -->", "<!-- /BENCH-TABLE -->"

SEED = 20240501
"""Seed of the document generator: every run builds byte-identical inputs."""
SMALL_BYTES = 10_000
"""Case (a)/(b) document size (issue 2: a 10 KB object)."""
LARGE_BYTES = 100_000
"""Case (c) and the small case (d) document size."""
HUGE_BYTES = 1_000_000
"""The large case (d) document size."""
ERROR_EVERY = 2_048
"""Case (d): one injected error every this many characters."""
CUT_INTO_STRING = 40
"""Case (c): how many characters of the last long string survive the cut."""
PROSE_BYTES = 100_000
"""Case (g): size of the explanation after the object."""
NESTING = 100_000
"""Case (e): the number of ``[``."""
NESTING_TIMEOUT = 120.0
"""Case (e): seconds before the child process is killed and the case reported as a hang."""
ROW_BUDGET = 6.0
"""Seconds of measurement per row beyond which the number of repeats is reduced (min 3)."""


# --------------------------------------------------------------------------- documents

# fmt: off
_WORDS = (
    "alpha", "bravo", "sturdy", "compact", "wireless", "ergonomic", "recycled", "premium",
    "travel", "outdoor", "waterproof", "lightweight", "modular", "classic", "vintage", "silent",
    "rapid", "solar", "smart", "foldable", "durable", "eco", "quiet", "portable", "ceramic",
    "bamboo", "merino", "carbon", "titanium", "linen", "studio",
)
_NAMES = (
    "Zoë Alvarez", "José Núñez", "Åsa Lindqvist", "李雷", "Mika Häkkinen", "Seán O'Brien",
    "Chloé Dubois", "Nguyễn Thị Lan", "Øystein Berg", "Ayşe Yılmaz", "Dmitri Volkov", "Priya Nair",
)
_COLORS = ("black", "white", "forest green", "slate", "crimson", "sand", "midnight blue")
_CITIES = ("São Paulo", "Köln", "Zürich", "Kraków", "Montréal", "Reykjavík", "Hà Nội", "Paris")
_QUOTES = (
    'Customers call it the "quiet one".',
    'Rated "best in class" by Gear Weekly; see the \\ note on sizing.',
    "Ships in 2–3 days — free returns.",
    'Use code "SPRING24" at checkout 🎉',
    "Tab-separated specs:\tweight\theight",
)
# fmt: on


def _sentence(rng: random.Random, lo: int, hi: int) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(lo, hi))]
    return " ".join(words).capitalize() + "."


def _product(rng: random.Random, i: int) -> dict[str, Any]:
    return {
        "id": f"P-{i:05d}",
        "sku": f"SKU{rng.randrange(10**6):06d}",
        "name": f"{rng.choice(_WORDS).title()} {rng.choice(_WORDS).title()} {i}",
        "price": round(rng.uniform(2, 900), 2),
        "currency": "EUR",
        "in_stock": rng.random() < 0.8,
        "discount": None if rng.random() < 0.6 else round(rng.uniform(0.05, 0.4), 2),
        "tags": [rng.choice(_WORDS) for _ in range(rng.randint(2, 5))],
        "description": f"{_sentence(rng, 8, 18)} {rng.choice(_QUOTES)}",
        "variants": [
            {
                "sku": f"V{rng.randrange(10**6):06d}",
                "color": rng.choice(_COLORS),
                "dims_cm": [rng.randint(5, 120) for _ in range(3)],
            }
            for _ in range(rng.randint(1, 3))
        ],
        "ratings": {
            "average": round(rng.uniform(2.5, 5), 1),
            "histogram": [rng.randint(0, 400) for _ in range(5)],
        },
    }


def _user(rng: random.Random, i: int) -> dict[str, Any]:
    name = rng.choice(_NAMES)
    return {
        "id": i,
        "username": f"user_{i:05d}",
        "name": name,
        "email": f"user{i}@example.com",
        "active": rng.random() < 0.9,
        "roles": rng.sample(["admin", "editor", "viewer", "billing", "support"], rng.randint(1, 3)),
        "address": {"city": rng.choice(_CITIES), "zip": f"{rng.randrange(10**5):05d}"},
        "orders": [
            {
                "order_id": f"O-{rng.randrange(10**8):08d}",
                "items": [f"P-{rng.randrange(10**4):05d}" for _ in range(rng.randint(1, 4))],
                "total": round(rng.uniform(5, 2000), 2),
            }
            for _ in range(rng.randint(0, 3))
        ],
        # Last key of every user, so case (c) can cut into it; plain words lead the string.
        "bio": f"{_sentence(rng, 12, 24)} {rng.choice(_QUOTES)} {_sentence(rng, 4, 10)}",
    }


def make_document(target_bytes: int, seed: int = SEED) -> dict[str, Any]:
    """A deterministic store export of about ``target_bytes`` when pretty-printed (indent=2)."""
    rng = random.Random(seed)
    doc: dict[str, Any] = {
        "store": {"name": "Ångström Outfitters", "currency": "EUR", "schema_version": 3},
        "products": [],
        "users": [],
    }
    size = 200
    i = 0
    while size < target_bytes:
        kind, make = ("products", _product) if i % 2 == 0 else ("users", _user)
        record = make(rng, i // 2)
        doc[kind].append(record)
        text = json.dumps(record, indent=2, ensure_ascii=False)
        # Nested two levels deeper in the document: 4 more spaces on every line.
        size += len(text.encode()) + 4 * text.count("\n") + 8
        i += 1
    return doc


def dump(doc: Any) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False)


_CLOSE_SITE = re.compile(r'(?<=[\]}"\w])(?=\n *[\]}])')
"""Just after the last value of a non-empty container in pretty-printed JSON."""
_SIMPLE_STRING = re.compile(r'": "([A-Za-z0-9 ._@-]*)"')
"""A member whose string value has no quote, backslash or non-ASCII character."""


def add_trailing_comma(text: str, at: int) -> str:
    """``text`` with a trailing comma after the first container's last value at or after ``at``."""
    m = _CLOSE_SITE.search(text, at)
    if m is None:
        raise ValueError("no container end after the requested position")
    return text[: m.start()] + "," + text[m.start() :]


def inject_errors(text: str, every: int) -> tuple[str, int]:
    """``text`` with an error every ``every`` characters, alternating a trailing comma and a
    single-quoted string; returns the broken text and the number of errors."""
    parts: list[str] = []
    pos = 0
    target = every
    errors = 0
    while target < len(text):
        if errors % 2 == 0:
            m = _CLOSE_SITE.search(text, target)
            if m is None:
                break
            parts += [text[pos : m.start()], ","]
            pos = m.start()
        else:
            m = _SIMPLE_STRING.search(text, target)
            if m is None:
                break
            parts += [text[pos : m.start()], f"\": '{m.group(1)}'"]
            pos = m.end()
        errors += 1
        target = max(target + every, pos + 1)
    parts.append(text[pos:])
    return "".join(parts), errors


def cut_into_last_string(text: str, key: str, keep: int) -> str:
    """``text`` cut ``keep`` characters into the value of the last ``key`` member, never inside
    an escape sequence."""
    start = text.rindex(f'"{key}": "') + len(key) + 5
    cut = start + keep
    while True:
        backslashes = len(text[:cut]) - len(text[:cut].rstrip("\\"))
        if backslashes % 2 == 0:
            return text[:cut]
        cut += 1


def complete_truncated(text: str) -> str:
    """The reference completion of JSON cut off inside a string: close the string and every open
    container (a string-aware scan; the benchmark's own oracle, independent of the engine)."""
    stack: list[str] = []
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            stack.append("]" if ch == "[" else "}")
        elif ch in "]}":
            stack.pop()
    return text + ('"' if in_string else "") + "".join(reversed(stack))


# --------------------------------------------------------------------------- comparison


def same_value(a: Any, b: Any) -> bool:
    """JSON value equality: dict order ignored, bool != int, 1 == 1.0, NaN == NaN; iterative."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, bool) or isinstance(y, bool):
            if type(x) is not type(y) or x != y:
                return False
        elif isinstance(x, (int, float)) and isinstance(y, (int, float)):
            if x != y and not (x != x and y != y):  # NaN == NaN
                return False
        elif isinstance(x, dict) and isinstance(y, dict):
            if x.keys() != y.keys():
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
        elif type(x) is not type(y) or x != y:
            return False
    return True


# --------------------------------------------------------------------------- timing


@dataclass
class Timing:
    best: float
    median: float
    repeat: int
    number: int


def measure(fn: Callable[[], object], *, repeat: int, min_time: float) -> Timing:
    """timeit-style: warm up, calibrate a loop of at least ``min_time`` s, take ``repeat`` loops."""

    def call() -> None:
        # try/except rather than contextlib.suppress: no context-manager cost inside the loop.
        try:  # noqa: SIM105
            fn()
        except Exception:  # a failing implementation is timed to its failure
            pass

    call()  # warm-up
    timer = timeit.Timer(call)
    number = 1
    elapsed = timer.timeit(number)
    while elapsed < min_time:
        number = max(number * 2, int(number * min_time / max(elapsed, 1e-7) * 1.2))
        elapsed = timer.timeit(number)
    per_call = elapsed / number
    repeat = max(3, min(repeat, int(ROW_BUDGET / max(per_call * number, 1e-9))))
    samples = [timer.timeit(number) / number for _ in range(repeat)]
    return Timing(min(samples), statistics.median(samples), repeat, number)


def fmt_time(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


# --------------------------------------------------------------------------- rows and targets


@dataclass
class Row:
    case: str
    impl: str
    timing: Timing | None
    correct: str
    ours: bool = False
    report: str = ""
    ref: Row | None = None

    @property
    def ok(self) -> bool:
        return self.correct == "yes"


@dataclass
class Target:
    name: str
    measured: str
    passed: bool


@dataclass
class Bench:
    repeat: int
    min_time: float
    stat: str = "median"
    rows: list[Row] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)

    def run(
        self,
        case: str,
        impl: str,
        fn: Callable[[str], Any],
        text: str,
        expected: Any,
        *,
        ours: bool = False,
        ref: Row | None = None,
        is_ref: bool = False,
    ) -> Row:
        """Check and time ``fn(text)``; ``ref`` is the row the ratio column divides by."""
        correct = check(fn, text, expected)
        timing = measure(lambda: fn(text), repeat=self.repeat, min_time=self.min_time)
        row = Row(case, impl, timing, correct, ours, describe_report(text) if ours else "", ref)
        if is_ref:
            row.ref = row
        self.rows.append(row)
        print(f"  {case:<28} {impl:<44} {fmt_time(timing.median):>10}  {correct}", file=sys.stderr)
        return row

    def ratio(self, slow: Row, fast: Row) -> float:
        """``slow``'s time over ``fast``'s, by the statistic chosen with ``--stat``."""
        assert slow.timing is not None and fast.timing is not None
        return self.pick(slow.timing) / self.pick(fast.timing)

    def pick(self, timing: Timing) -> float:
        return timing.best if self.stat == "min" else timing.median

    def target(self, name: str, measured: str, passed: bool) -> None:
        self.targets.append(Target(name, measured, passed))


def check(fn: Callable[[str], Any], text: str, expected: Any) -> str:
    try:
        got = fn(text)
    except Exception as exc:
        return f"raises {type(exc).__name__}"
    return "yes" if same_value(got, expected) else "no (wrong value)"


def describe_report(text: str) -> str:
    try:
        _, report = loads_with_report(text)
    except Exception:
        return "-"
    if report is None:
        return "-"
    parts = [report.source, f"{len(report.repairs)} repairs"]
    if report.truncated:
        parts.append("truncated")
    return ", ".join(parts)


# --------------------------------------------------------------------------- the cases


def case_a_b(bench: Bench) -> None:
    lc_parser = JsonOutputParser()
    robust = RobustJsonOutputParser()
    doc = make_document(SMALL_BYTES)
    bare = dump(doc)
    kb = len(bare.encode()) / 1000
    variants = {
        "valid": bare,
        "fenced": f"```json\n{bare}\n```",
        "fenced+prose": (
            "Sure! Here is the catalogue export you asked for, as JSON:\n\n"
            f"```json\n{bare}\n```\n\n"
            "Let me know if you need it as CSV instead, or filtered by city."
        ),
    }
    case = f"(a) {kb:.1f} KB object"
    ref = bench.run(case, "json.loads (bare payload)", json.loads, bare, doc, is_ref=True)
    for variant, text in variants.items():
        name = f"(a) {variant}"
        ours_loads = bench.run(name, "ours: loads", loads, text, doc, ours=True, ref=ref)
        ours_parser = bench.run(
            name,
            "ours: RobustJsonOutputParser().parse",
            robust.parse,
            text,
            doc,
            ours=True,
            ref=ref,
        )
        lc = bench.run(
            name, "langchain-core JsonOutputParser().parse", lc_parser.parse, text, doc, ref=ref
        )
        speedup = bench.ratio(lc, ours_parser)
        bench.target(
            f"(a) {variant}: ours faster than langchain-core",
            f"langchain-core / ours (parser) = {speedup:.2f}x; "
            f"/ ours (loads) = {bench.ratio(lc, ours_loads):.2f}x",
            speedup > 1 and ours_parser.ok,
        )
        if variant == "fenced+prose":
            for row in (ours_loads, ours_parser):
                r = bench.ratio(row, ref)
                bench.target(
                    f"(a) fenced+prose: {row.impl.removeprefix('ours: ')} <= 2x json.loads(bare)",
                    f"{r:.2f}x",
                    r <= 2 and row.ok,
                )

    broken = add_trailing_comma(bare, len(bare) // 2).rstrip()
    assert broken.endswith("}")
    broken = broken[:-1]
    import json_repair

    name = "(b) trailing comma + no `}`"
    ours = bench.run(name, "ours: loads", loads, broken, doc, ours=True, ref=ref)
    jr = bench.run(name, "json_repair.loads", json_repair.loads, broken, doc, ref=ref)
    r = bench.ratio(jr, ours)
    bench.target("(b) ours >= 10x faster than json_repair", f"{r:.1f}x", r >= 10 and ours.ok)


def _peers() -> dict[str, Callable[[str], Any]]:
    """The repair libraries installed here, by name; a peer that is not installed is skipped."""
    peers: dict[str, Callable[[str], Any]] = {}
    import json_repair

    peers["json_repair.loads"] = json_repair.loads
    for module, label in (
        ("repairjson", "repairjson.loads"),
        ("fast_json_repair", "fast_json_repair.loads"),
    ):
        try:
            peers[label] = __import__(module).loads
        except ImportError:
            print(f"peer {module} not installed: skipped", file=sys.stderr)
    return peers


def case_f(bench: Bench) -> None:
    """(f) a 10 KB Python ``repr`` and the same document with unquoted keys (a JavaScript
    object), against ``json.loads`` of the clean text and the repair libraries installed."""
    doc = make_document(SMALL_BYTES)
    clean = dump(doc)
    variants = {
        "Python repr": repr(doc),
        "unquoted keys": re.sub(r'"([A-Za-z_][A-Za-z0-9_]*)":', r"\1:", clean),
    }
    ref = bench.run(
        "(f) clean text", "json.loads (clean text)", json.loads, clean, doc, is_ref=True
    )
    peers = _peers()
    for variant, text in variants.items():
        name = f"(f) {variant}"
        ours = bench.run(name, "ours: loads", loads, text, doc, ours=True, ref=ref)
        rows = [bench.run(name, label, fn, text, doc, ref=ref) for label, fn in peers.items()]
        r = bench.ratio(ours, ref)
        bench.target(
            f"(f) {variant}: ours <= 10x json.loads(clean)", f"{r:.1f}x", r <= 10 and ours.ok
        )
        timed = [row for row in rows if row.timing is not None and row.ok]
        if timed:
            fastest = min(timed, key=lambda row: bench.ratio(row, ref))
            bench.target(
                f"(f) {variant}: ours / fastest peer ({fastest.impl})",
                f"{bench.ratio(ours, fastest):.1f}x",
                True,
            )


def bracket_prose(rng: random.Random, size: int) -> str:
    """An explanation as a model writes one after its answer, with a bracket every few words:
    citations, template placeholders, markdown links, set and interval notation."""
    asides = (
        "[{n}]",
        "[{n}, {m}]",
        "{{name}}",
        "{{order_id}}",
        "[the docs](https://example.com/{n})",
        "{{x | x > {n}}}",
        "[{n}, {m})",
        "[see below]",
    )
    parts: list[str] = []
    length = 0
    while length < size:
        aside = rng.choice(asides).format(n=rng.randint(1, 40), m=rng.randint(41, 99))
        part = f"{_sentence(rng, 2, 6)[:-1]} {aside}."
        parts.append(part)
        length += len(part) + 1
    return " ".join(parts)[:size]


def case_g(bench: Bench) -> None:
    robust = RobustJsonOutputParser()
    rng = random.Random(SEED)
    doc = {"order_id": "A-1042", "status": "shipped", "items": [{"sku": "P-7", "qty": 2}]}
    text = json.dumps(doc) + "\n\n" + bracket_prose(rng, PROSE_BYTES)
    name = f"(g) object + {PROSE_BYTES // 1000} KB bracket-heavy prose"
    ref = bench.run(name, "ours: loads", loads, text, doc, ours=True, is_ref=True)
    ours = bench.run(
        name, "ours: RobustJsonOutputParser().parse", robust.parse, text, doc, ours=True, ref=ref
    )
    r = bench.ratio(ours, ref)
    bench.target(
        "(g) parse, which names further values, <= 1.2x loads, which does not look for them",
        f"{r:.2f}x",
        r <= 1.2 and ours.ok,
    )


def case_c(bench: Bench) -> None:
    import json_repair
    import partial_json_parser

    bare = dump(make_document(LARGE_BYTES))
    cut = cut_into_last_string(bare, "bio", CUT_INTO_STRING)
    expected = json.loads(complete_truncated(cut))
    name = f"(c) {len(cut.encode()) / 1000:.0f} KB cut in a string"
    ours = bench.run(name, "ours: loads", loads, cut, expected, ours=True, is_ref=True)
    jr = bench.run(name, "json_repair.loads", json_repair.loads, cut, expected, ref=ours)
    pj = bench.run(
        name, "partial_json_parser.loads", partial_json_parser.loads, cut, expected, ref=ours
    )
    r = bench.ratio(jr, ours)
    bench.target(
        "(c) ours >= 20x faster than json_repair",
        f"{r:.1f}x (partial_json_parser / ours = {bench.ratio(pj, ours):.1f}x)",
        r >= 20 and ours.ok,
    )


def case_d(bench: Bench, *, with_json_repair: bool) -> None:
    import json_repair

    results: dict[int, Row] = {}
    clean_ref: Row | None = None
    for size in (LARGE_BYTES, HUGE_BYTES):
        clean = dump(make_document(size))
        broken, errors = inject_errors(clean, ERROR_EVERY)
        expected = json.loads(clean)
        name = f"(d) {len(broken.encode()) / 1e6:.2f} MB, {errors} errors"
        if size == HUGE_BYTES:
            clean_ref = bench.run(
                "(d) 1 MB clean text",
                "json.loads (clean text)",
                json.loads,
                clean,
                expected,
                is_ref=True,
            )
        results[size] = bench.run(
            name,
            "ours: loads",
            loads,
            broken,
            expected,
            ours=True,
            ref=results.get(LARGE_BYTES),
            is_ref=size == LARGE_BYTES,
        )
        if with_json_repair:
            bench.run(
                name,
                "json_repair.loads",
                json_repair.loads,
                broken,
                expected,
                ref=results[LARGE_BYTES],
            )
    r = bench.ratio(results[HUGE_BYTES], results[LARGE_BYTES])
    bench.target(
        "(d) 1 MB <= 12x the 100 KB time",
        f"{r:.1f}x",
        r <= 12 and results[HUGE_BYTES].ok and results[LARGE_BYTES].ok,
    )
    assert clean_ref is not None
    r = bench.ratio(results[HUGE_BYTES], clean_ref)
    bench.target(
        "(d) 1 MB: ours <= 5x json.loads(clean)",
        f"{r:.1f}x",
        r <= 5 and results[HUGE_BYTES].ok,
    )


def _nested_worker(n: int) -> tuple[str, str, float]:
    """Runs in a child process: loads of ``n`` nested ``[``; returns (outcome, detail, seconds)."""
    text = "[" * n
    start = time.perf_counter()
    try:
        value = loads(text)
    except OutputParserException as exc:
        return "OutputParserException", str(exc).splitlines()[0][:80], time.perf_counter() - start
    except BaseException as exc:
        return f"other exception: {type(exc).__name__}", str(exc)[:80], time.perf_counter() - start
    elapsed = time.perf_counter() - start
    depth = 0
    while isinstance(value, list) and depth <= n:  # iterative: the value may be very deep
        depth += 1
        value = value[0] if value else None
    return "value", f"nested lists, depth {depth}", elapsed


def case_e(bench: Bench) -> None:
    name = f"(e) {NESTING:,} nested `[`"
    ctx = multiprocessing.get_context()
    with ctx.Pool(1) as pool:
        pending = pool.apply_async(_nested_worker, (NESTING,))
        try:
            outcome, detail, elapsed = pending.get(timeout=NESTING_TIMEOUT)
        except multiprocessing.TimeoutError:
            outcome, detail, elapsed = "hang", f"killed after {NESTING_TIMEOUT:.0f} s", float("nan")
            pool.terminate()
        except Exception as exc:  # the child died (e.g. a C stack overflow)
            outcome, detail, elapsed = "crash", f"{type(exc).__name__}: {exc}", float("nan")
    timing = Timing(elapsed, elapsed, 1, 1)
    ok = outcome in ("value", "OutputParserException")
    bench.rows.append(
        Row(name, "ours: loads", timing, "yes" if ok else "no", True, f"{outcome}: {detail}")
    )
    print(f"  {name:<28} ours: loads {fmt_time(elapsed):>10}  {outcome}", file=sys.stderr)
    bench.target(
        "(e) 100 000 nested `[`: a value or OutputParserException",
        f"{outcome} in {fmt_time(elapsed)}",
        ok,
    )


# --------------------------------------------------------------------------- output


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render(bench: Bench, command: str) -> str:
    versions = ", ".join(
        f"{dist} {_version(dist)}"
        for dist in ("langchain-core", "json_repair", "partial-json-parser", "pydantic-core")
    )
    lines = [
        f"Command: `{command}`  ",
        f"Python {platform.python_version()} on {platform.system()} {platform.machine()}; "
        f"{versions}. Per-call times: min and median of {bench.repeat} timed loops "
        '(fewer for very slow rows) after a warm-up. "x ref" divides by the case\'s reference '
        f"row; it and the targets use the {bench.stat}.",
        "",
        "| case | implementation | min | median | x ref | correct | our report |",
        "|---|---|---:|---:|---:|---|---|",
    ]
    for row in bench.rows:
        t = row.timing
        if t is None:
            best = median = "-"
        else:
            best, median = fmt_time(t.best), fmt_time(t.median)
        rel = "-"
        if row.ref is row:
            rel = "ref"
        elif row.ref is not None and t is not None and row.ref.timing is not None:
            rel = f"{bench.ratio(row, row.ref):.2f}x"
        impl = f"**{row.impl}**" if row.ours else row.impl
        lines.append(
            f"| {_cell(row.case)} | {impl} | {best} | {median} | {rel} | {_cell(row.correct)} "
            f"| {_cell(row.report)} |"
        )
    lines += ["", "| target | measured | result |", "|---|---|---|"]
    for tg in bench.targets:
        lines.append(
            f"| {_cell(tg.name)} | {_cell(tg.measured)} | {'PASS' if tg.passed else 'MISS'} |"
        )
    passed = sum(tg.passed for tg in bench.targets)
    lines += ["", f"{passed}/{len(bench.targets)} targets met."]
    return "\n".join(lines)


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "(not installed)"


def replace_readme_block(readme: Path, opening: str, closing: str, body: str) -> bool:
    """Put ``body`` between ``opening`` and ``closing`` in ``readme``; the closing marker is added
    right after the body when missing. Returns False (and changes nothing) without the opening
    marker or the file."""
    if not readme.exists():
        print(f"{readme} does not exist; nothing written", file=sys.stderr)
        return False
    text = readme.read_text(encoding="utf-8")
    start = text.find(opening)
    if start < 0:
        print(f"no {opening} marker in {readme}; nothing written", file=sys.stderr)
        return False
    head = text[: start + len(opening)]
    end = text.find(closing, len(head))
    if end >= 0:
        tail = text[end:]
    else:  # no closing marker yet: add it and keep whatever followed the opening marker
        rest = text[len(head) :].lstrip("\n")
        tail = f"{closing}\n\n{rest}" if rest else f"{closing}\n"
    # Blank lines around the body, so a table is never glued to an HTML comment block.
    readme.write_text(f"{head}\n\n{body.strip()}\n\n{tail}", encoding="utf-8")
    print(f"wrote the {opening} block of {readme}", file=sys.stderr)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer, shorter repeats (smoke test)")
    parser.add_argument(
        "--write-readme", action="store_true", help=f"fill {BENCH_OPEN} in docs/benchmarks.md"
    )
    parser.add_argument(
        "--no-json-repair-d",
        action="store_true",
        help="skip the json_repair reference rows of case (d)",
    )
    parser.add_argument(
        "--stat",
        choices=("median", "min"),
        default="median",
        help="statistic behind the ratios and targets (min is steadier on a busy machine)",
    )
    args = parser.parse_args(argv)
    if args.quick:
        bench = Bench(repeat=3, min_time=0.005, stat=args.stat)
    else:
        bench = Bench(repeat=11, min_time=0.05, stat=args.stat)
    print("running (progress on stderr, table on stdout) ...", file=sys.stderr)
    case_a_b(bench)
    case_c(bench)
    case_d(bench, with_json_repair=not args.no_json_repair_d)
    case_f(bench)
    case_g(bench)
    case_e(bench)
    shown = sys.argv[1:] if argv is None else argv
    command = " ".join(["python benchmarks/json_bench.py", *shown])
    table = render(bench, command)
    print(table)
    if args.write_readme:
        replace_readme_block(README, BENCH_OPEN, BENCH_CLOSE, table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
