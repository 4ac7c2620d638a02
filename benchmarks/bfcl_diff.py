"""Differential check: BFCL's own AST decoder against ours, on the same call strings.

Runs ``bfcl_eval.model_handler.utils.default_decode_ast_prompting`` (the decoder behind the
Berkeley Function Calling Leaderboard's prompt categories) and our
``FunctionCallOutputParser`` on a corpus of call strings: the test corpus
(``tests/call_corpus.py``, real-model styles, JSON dialects included) plus calls generated from
a seeded grammar (values of every node type, layouts BFCL accepts and layouts it does not). Every
string is put in one class:

- ``agree``: both decode it to the same value;
- ``differ (deliberate: <reason>)``: both decode it, and the values differ only by one of our
  documented choices (tuples are lists, ``true``/``false``/``null`` names are JSON literals,
  ``+5`` is 5, Gemini's ``print(default_api.f(...))`` is ``f``);
- ``recovered``: BFCL fails (fence language tags, prose, ``<think>``, JSON dialects, one call per
  line...) and we decode it;
- ``both fail``;
- ``only we fail`` and ``differ (unexpected)``: should stay empty; printed in full.

bfcl-eval is in no extra (its pins are heavy: vllm, sentence-transformers, vendor SDKs). Install
it by hand in a separate environment (Python <= 3.13: 3.14 removed ``ast.NameConstant``, which
its decoder uses), with only the modules its decoder imports::

    python3 -m venv /tmp/bfcl
    /tmp/bfcl/bin/pip install --no-deps bfcl-eval==2026.3.23
    /tmp/bfcl/bin/pip install tree_sitter==0.21.3 tree-sitter-java==0.21.0 \\
        tree-sitter-javascript==0.21.4 filelock tenacity
    /tmp/bfcl/bin/pip install "langchain-core>=0.3,<2" "pydantic>=2.9"   # for our package
    /tmp/bfcl/bin/python benchmarks/bfcl_diff.py            # run from the repository root

Safety: BFCL's decoder calls ``eval()`` on arithmetic in the text. The corpus here is written by
this script and the test suite, never by a model; do not point it at untrusted text.

    python benchmarks/bfcl_diff.py [--generated N] [--seed S] [--examples K]

Without bfcl-eval importable the script says so and exits 0.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
for extra in (REPO, REPO / "tests"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from call_corpus import CALL_CORPUS  # noqa: E402
from langchain_core.exceptions import OutputParserException  # noqa: E402

from langchain_robust_parsers.parsers.function_calls import (  # noqa: E402
    FunctionCallOutputParser,
)

SEED = 20240501
GENERATED = 2000
"""Generated call strings (plus the test corpus)."""

_FAILED = object()

# ----------------------------------------------------------------------------- generation

NAMES = ["get_weather", "spotify.play", "math.factorial", "calc.area", "db.query", "find"]
KEYS = ["city", "artist", "n", "dims", "query", "unit", "flag", "opts", "limit", "x"]
STRINGS = ["Paris", "O'Hare", 'say "hi"', "a;b", "line\nbreak", "Zürich", "", "[1]", "f(x=1)"]


def _value(rng: random.Random, depth: int = 0) -> str:
    """Python source of one argument value."""
    kinds = [
        "int",
        "neg",
        "float",
        "str",
        "bool",
        "none",
        "list",
        "dict",
        "tuple",
        "name",
        "json_name",
        "pow",
        "plus",
        "call_kw",
        "call_pos",
        "subscript",
        "ellipsis",
    ]
    if depth >= 2:
        kinds = kinds[:6]
    kind = rng.choice(kinds)
    if kind == "int":
        return str(rng.randint(0, 10**6))
    if kind == "neg":
        return f"-{rng.randint(1, 999)}"
    if kind == "float":
        return repr(round(rng.uniform(-1000, 1000), rng.randint(0, 6)))
    if kind == "str":
        return repr(rng.choice(STRINGS))
    if kind == "bool":
        return rng.choice(["True", "False"])
    if kind == "none":
        return "None"
    if kind == "list":
        return "[" + ", ".join(_value(rng, depth + 1) for _ in range(rng.randint(0, 3))) + "]"
    if kind == "dict":
        items = (f"{rng.choice(STRINGS)!r}: {_value(rng, depth + 1)}" for _ in range(2))
        return "{" + ", ".join(items) + "}"
    if kind == "tuple":
        return "(" + ", ".join(_value(rng, depth + 1) for _ in range(2)) + ")"
    if kind == "name":
        return rng.choice(["celsius", "metric", "ASC"])
    if kind == "json_name":
        return rng.choice(["true", "false"])
    if kind == "pow":
        return f"{rng.randint(2, 9)}**{rng.randint(0, 5)}"
    if kind == "plus":
        return f"+{rng.randint(1, 99)}"
    if kind == "call_kw":
        return f"{rng.choice(NAMES)}({rng.choice(KEYS)}={_value(rng, depth + 1)})"
    if kind == "call_pos":
        return f"{rng.choice(NAMES)}({_value(rng, depth + 1)})"
    if kind == "subscript":
        return f"arr[{rng.randint(0, 9)}]"
    return "..."


def _call(rng: random.Random) -> str:
    keys = rng.sample(KEYS, rng.randint(0, 4))
    args = [f"{k}={_value(rng)}" for k in keys]
    if rng.random() < 0.1:
        args.insert(0, _value(rng))  # a positional argument: dropped by both
    return f"{rng.choice(NAMES)}({', '.join(args)})"


LAYOUTS: list[tuple[str, Callable[[list[str]], str]]] = [
    ("list", lambda calls: "[" + ", ".join(calls) + "]"),
    ("list_spaced", lambda calls: "\n\n[" + ", ".join(calls) + "]  \n"),
    ("unbracketed", lambda calls: ", ".join(calls)),
    ("backticks", lambda calls: "```\n[" + ", ".join(calls) + "]\n```"),
    ("fence_python", lambda calls: "```python\n[" + ", ".join(calls) + "]\n```"),
    ("tool_code", lambda calls: "```tool_code\n[" + ", ".join(calls) + "]\n```"),
    ("prose", lambda calls: "Sure! Here you go:\n[" + ", ".join(calls) + "]"),
    ("think", lambda calls: "<think>plan</think>\n[" + ", ".join(calls) + "]"),
    ("lines", lambda calls: "\n".join(calls)),
    ("semicolons", lambda calls: "; ".join(calls) + ";"),
]
LAYOUT_WEIGHTS = [6, 2, 2, 1, 1, 1, 1, 1, 1, 1]


def generated(n: int, seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    out: list[tuple[str, str]] = []
    for i in range(n):
        name, layout = rng.choices(LAYOUTS, weights=LAYOUT_WEIGHTS)[0]
        calls = [_call(rng) for _ in range(rng.randint(1, 3))]
        out.append((f"gen-{i}-{name}", layout(calls)))
    return out


# ----------------------------------------------------------------------------- comparison


def _lists(value: Any) -> Any:
    """BFCL's value with tuples as lists (our choice: JSON has no tuples)."""
    if isinstance(value, (list, tuple)):
        return [_lists(v) for v in value]
    if isinstance(value, dict):
        return {k: _lists(v) for k, v in value.items()}
    return value


_JSON_NAMES = {"true": True, "false": False, "null": None}


def _json_names(value: Any) -> Any:
    """BFCL's value with the strings 'true'/'false'/'null' as JSON literals."""
    if isinstance(value, list):
        return [_json_names(v) for v in value]
    if isinstance(value, dict):
        return {k: _json_names(v) for k, v in value.items()}
    if isinstance(value, str) and value in _JSON_NAMES:
        return _JSON_NAMES[value]
    return value


NORMALISATIONS: list[tuple[str, Callable[[Any], Any]]] = [
    ("tuple as list", _lists),
    ("true/false/null names", _json_names),
]
_UNARY_PLUS = re.compile(r"([(=,\[:{]\s*)\+(?=\s*\d)")
"""A unary plus on a number after an opener, ``=``, ``,`` or ``:``."""


def _map_strings(value: Any, fn: Callable[[str], str]) -> Any:
    """``value`` with ``fn`` applied to every string in it (source-text values included)."""
    if isinstance(value, list):
        return [_map_strings(v, fn) for v in value]
    if isinstance(value, dict):
        return {k: _map_strings(v, fn) for k, v in value.items()}
    return fn(value) if isinstance(value, str) else value


def deliberate_reason(
    text: str, ours: Any, theirs: Any, decode: Callable[[str], Any]
) -> str | None:
    """Which documented differences explain ``ours != theirs``, or ``None``.

    Tuples and JSON names are normalised out of BFCL's value one after the other. A unary plus
    is checked on the text: with every ``+N`` written ``-N`` (what BFCL computes), our decoder
    must give BFCL's normalised value (its source-text values rewritten the same way).
    Gemini's ``print(...)`` wrapper is named when the text has one. Anything else is reported
    as unexpected and printed in full.
    """
    reasons: list[str] = []
    value = theirs
    for reason, normalise in NORMALISATIONS:
        step = normalise(value)
        if step != value:
            reasons.append(reason)
            value = step
        if value == ours:
            return ", ".join(reasons)
    if _UNARY_PLUS.search(text):
        try:
            negated = decode(_UNARY_PLUS.sub(r"\1-", text))
        except OutputParserException:
            negated = None
        if negated == _map_strings(value, lambda t: _UNARY_PLUS.sub(r"\1-", t)):
            return ", ".join([*reasons, "unary plus kept positive"])
    if "print(" in text:
        return ", ".join([*reasons, "print(...) unwrapped"])
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--generated", type=int, default=GENERATED)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--examples", type=int, default=3, help="examples shown per class")
    args = parser.parse_args(argv)

    try:
        from bfcl_eval.model_handler.utils import default_decode_ast_prompting
    except ImportError as err:
        print(f"bfcl-eval is not importable ({err}); see this script's docstring to install it.")
        return 0

    corpus = [(c.id, c.text) for c in CALL_CORPUS] + generated(args.generated, args.seed)
    ours_parser = FunctionCallOutputParser()
    classes: Counter[str] = Counter()
    examples: dict[str, list[str]] = defaultdict(list)

    for case_id, text in corpus:
        try:
            theirs: Any = default_decode_ast_prompting(text)
        except Exception as err:  # BFCL raises anything: SyntaxError, AssertionError, ...
            theirs = _FAILED
            their_error = f"{type(err).__name__}: {err}"
        try:
            ours: Any = ours_parser.parse(text)
        except OutputParserException:
            ours = _FAILED
        if theirs is _FAILED and ours is _FAILED:
            label = "both fail"
        elif theirs is _FAILED:
            label = "recovered"
        elif ours is _FAILED:
            label = "only we fail"
        elif theirs == ours:
            label = "agree"
        else:
            reason = deliberate_reason(text, ours, theirs, ours_parser.parse)
            label = f"differ (deliberate: {reason})" if reason else "differ (unexpected)"
        classes[label] += 1
        unexpected = label in ("only we fail", "differ (unexpected)")
        if unexpected or len(examples[label]) < args.examples:
            shown = text if len(text) < 160 else text[:157] + "..."
            detail = f"  {case_id}: {shown!r}"
            if label == "recovered":
                detail += f"\n      BFCL: {their_error[:120]}"
            elif label != "both fail":
                detail += f"\n      BFCL: {theirs!r}"[:200] + f"\n      ours: {ours!r}"[:200]
            examples[label].append(detail)

    total = sum(classes.values())
    print(
        f"{total} call strings ({len(CALL_CORPUS)} from tests/call_corpus.py, "
        f"{args.generated} generated, seed {args.seed})\n"
    )
    print("| class | count | share |")
    print("|---|---:|---:|")
    for label, count in sorted(classes.items(), key=lambda kv: -kv[1]):
        print(f"| {label} | {count} | {100.0 * count / total:.1f}% |")
    for label in sorted(examples):
        print(f"\n{label}:")
        print("\n".join(examples[label]))
    bad = classes["only we fail"] + classes["differ (unexpected)"]
    print(f"\nunexpected differences: {bad}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
