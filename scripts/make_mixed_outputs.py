"""Write a JSONL file of mixed, messy model outputs for ``robust-parsers parse`` at scale.

Each line is ``{"id": n, "kind": "...", "text": "<model output>"}``; the kinds mimic what JSON
mode models write in a real log: clean JSON, fenced JSON after prose, ``<think>`` blocks, Python
literals and single quotes, comments and trailing commas, answers cut off by ``max_tokens``,
refusals with no JSON, and now and then a log line that is itself broken (not JSON), which
``parse`` must report by line number and go past. The output is deterministic for a given
``--seed`` and ``--lines``, so runs can be compared.

    python scripts/make_mixed_outputs.py /tmp/mixed_100k.jsonl --lines 100000
    robust-parsers parse /tmp/mixed_100k.jsonl --format json -o /tmp/out.jsonl --workers 2

Do not commit the generated file: write it under /tmp or another ignored path.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

DEFAULT_LINES = 100_000
DEFAULT_SEED = 20240917

BROKEN_LOG_LINE_EVERY = 997
"""One line in about a thousand is a broken log record (a prime, so it does not line up with
the kinds' cycle): logs written by crashing processes have a few such lines."""

_CITIES = ["Lisbon", "Oslo", "Nairobi", "Lima", "Hanoi", "Perth", "Quito", "Tunis", "Riga"]
_WORDS = ["alpha", "beta", "gamma", "delta", "kappa", "sigma", "omega", "lambda", "zeta", "theta"]
_FENCE = "```"


def _record(rng: random.Random, i: int) -> dict[str, Any]:
    """A plausible structured answer: a few scalars, a list and a nested object."""
    items = [
        {"id": i * 10 + k, "name": rng.choice(_WORDS).title(), "score": round(rng.random(), 3)}
        for k in range(rng.randint(1, 6))
    ]
    return {
        "city": rng.choice(_CITIES),
        "temperature_c": rng.randint(-10, 40),
        "sunny": rng.random() < 0.5,
        "summary": " ".join(rng.choice(_WORDS) for _ in range(rng.randint(3, 25))),
        "items": items,
        "meta": {"request": i, "model": "demo-7b", "note": None},
    }


def _clean(rng: random.Random, i: int) -> str:
    return json.dumps(_record(rng, i))


def _fenced(rng: random.Random, i: int) -> str:
    body = json.dumps(_record(rng, i), indent=2)
    tag = rng.choice(["json", "JSON", ""])
    return f"Sure! Here is the result:\n{_FENCE}{tag}\n{body}\n{_FENCE}\nAnything else?"


def _think(rng: random.Random, i: int) -> str:
    thought = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(10, 60)))
    return f"<think>{thought}</think>\n{json.dumps(_record(rng, i))}"


def _python_literals(rng: random.Random, i: int) -> str:
    text = repr(_record(rng, i))  # single quotes, True/False/None
    return text


def _comments_and_commas(rng: random.Random, i: int) -> str:
    rec = _record(rng, i)
    return (
        "{\n"
        f'  "city": "{rec["city"]}", // where\n'
        f'  "temperature_c": {rec["temperature_c"]},\n'
        f'  "items": {json.dumps(rec["items"])},  /* list */\n'
        f'  "summary": "{rec["summary"]}",\n'
        "}"
    )


def _truncated(rng: random.Random, i: int) -> str:
    text = json.dumps(_record(rng, i))
    return text[: rng.randint(len(text) // 3, len(text) - 2)]


def _refusal(rng: random.Random, i: int) -> str:
    return rng.choice(
        [
            "I'm sorry, but I can't help with that request.",
            "The weather data is not available right now; please try again later.",
            "As an AI model, I do not have access to real-time information.",
        ]
    )


KINDS: list[tuple[str, int, Callable[[random.Random, int], str]]] = [
    ("clean", 40, _clean),
    ("fenced", 20, _fenced),
    ("think", 10, _think),
    ("python_literals", 8, _python_literals),
    ("comments_and_commas", 7, _comments_and_commas),
    ("truncated", 10, _truncated),
    ("refusal", 5, _refusal),
]
"""Each kind with its weight (percent): mostly clean, as logs from models in JSON mode are."""


def lines(count: int, seed: int) -> list[str]:
    """``count`` JSONL lines, the same for the same ``seed``."""
    rng = random.Random(seed)
    names = [k[0] for k in KINDS]
    weights = [k[1] for k in KINDS]
    makers = {k[0]: k[2] for k in KINDS}
    out: list[str] = []
    for i in range(count):
        if i % BROKEN_LOG_LINE_EVERY == BROKEN_LOG_LINE_EVERY - 1:
            out.append('{"id": ' + str(i) + ', "text": "cut off in the log')  # not JSON
            continue
        kind = rng.choices(names, weights)[0]
        text = makers[kind](rng, i)
        out.append(json.dumps({"id": i, "kind": kind, "text": text}, ensure_ascii=False))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", type=Path, help="the JSONL file to write")
    parser.add_argument("--lines", type=int, default=DEFAULT_LINES, help="number of lines")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="random seed")
    args = parser.parse_args()
    text = "\n".join(lines(args.lines, args.seed)) + "\n"
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.lines:,} lines ({len(text.encode()):,} bytes) to {args.output}")


if __name__ == "__main__":
    main()
