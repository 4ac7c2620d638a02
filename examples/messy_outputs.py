"""Parse a handful of messy model outputs and show what was found and repaired.

Run it with ``python examples/messy_outputs.py`` (no network, no API key). Each case prints the
raw model output, the value that :func:`loads` and the parsers return, and the
:class:`ParseReport`: where the payload was found, the repairs applied (``name@offset``) and
whether the text was cut off. A :class:`ParseStats` table closes the run.

The exit status is 1 if a case that should parse did not, so the script doubles as a smoke test.
"""

from __future__ import annotations

import json
import sys
import textwrap
from dataclasses import dataclass
from typing import Any

from langchain_core.exceptions import OutputParserException
from pydantic import BaseModel, Field

from langchain_robust_parsers import (
    ParseReport,
    ParseStats,
    RobustJsonOutputParser,
    RobustPydanticOutputParser,
    loads,
)


class Review(BaseModel):
    """What the product-review prompt asks for."""

    product: str
    rating: float = Field(description="score out of 10")
    pros: list[str]
    verdict: str


@dataclass(frozen=True)
class Case:
    title: str
    text: str
    model: type[BaseModel] | None = None  # parse with RobustPydanticOutputParser[model]
    expect_json: bool = True  # False: the text holds no JSON value at all


FENCE = "`" * 3  # spelled out so that this file's own fences stay out of the way

CASES = [
    Case(
        "fenced JSON with prose around it",
        "Sure! Here is the product you asked for:\n\n"
        f"{FENCE}json\n"
        '{"name": "Trail Runner 3", "price": 129.99, "tags": ["running", "outdoor"]}\n'
        f"{FENCE}\n\n"
        "Let me know if you need anything else.",
    ),
    Case(
        "a <think> block before the JSON (reasoning models)",
        "<think>\nThe user wants a person record like {name, age}. Ada Lovelace, born 1815,\n"
        'died at 36. Draft: {"name": "Ada"} -- no, include the age.\n</think>\n'
        '{"name": "Ada Lovelace", "age": 36}',
    ),
    Case(
        "trailing commas and comments",
        "{\n"
        "  // trip plan\n"
        '  "city": "Lisbon",\n'
        '  "days": 3, /* inclusive */\n'
        '  "activities": ["tram 28", "pastéis de nata",],\n'
        "}",
    ),
    Case(
        "single quotes and Python literals",
        "{'answer': 'yes', 'confident': True, 'sources': None, 'scores': (0.9, 0.7)}",
    ),
    Case(
        "truncated JSON (the model hit max_tokens)",
        '{"summary": "The meeting covered the Q3 roadmap", "action_items": '
        '["hire two engineers", "ship the billing migration", "review the',
    ),
    Case(
        "an unescaped quote inside a string",
        '{"speaker": "Maria", "quote": "She said "hello" and left", "mood": "calm"}',
    ),
    Case(
        'a Pydantic model: a wrapper key and a "8.5/10" rating',
        "Here's my review:\n"
        f"{FENCE}json\n"
        '{"review": {"Product": "Cast-iron skillet", "rating": "8.5/10",\n'
        '            "pros": ["heats evenly", "lasts forever"], "verdict": "buy it"}}\n'
        f"{FENCE}",
        model=Review,
    ),
    Case(
        "no JSON at all (plain-text fallback)",
        "I'm sorry, I can't share that information.",
        expect_json=False,
    ),
]


def show_text(label: str, text: str) -> None:
    print(f"  {label}:")
    for line in text.splitlines() or [""]:
        print(f"    | {line}")


def show_value(label: str, value: Any) -> None:
    shown = repr(value) if isinstance(value, BaseModel) else json.dumps(value, ensure_ascii=False)
    prefix = f"  {label}: "
    print(textwrap.fill(shown, width=100, initial_indent=prefix, subsequent_indent="    "))


def show_report(report: ParseReport) -> None:
    repairs = ", ".join(str(r) for r in report.repairs) or "none"
    print(
        f"  report: source={report.source} span=[{report.start}:{report.end}] "
        f"truncated={report.truncated} outcome={report.outcome}"
    )
    print(f"  repairs: {repairs}")


def run_case(case: Case, stats: ParseStats) -> bool:
    """Parse one case every way that applies; True when it behaved as expected."""
    show_text("model output", case.text)
    try:
        if case.model is not None:
            parser = RobustPydanticOutputParser[Any](pydantic_object=case.model, stats=stats)
            model, report = parser.parse_with_report(case.text)
            show_value("RobustPydanticOutputParser", model)
            show_report(report)
            return True
        if not case.expect_json:
            try:
                loads(case.text)
            except OutputParserException as exc:
                print(f"  loads: raises OutputParserException ({str(exc).splitlines()[0]})")
            else:
                print("  loads: unexpectedly returned a value")
                return False
            fallback = RobustJsonOutputParser(on_error="fallback", stats=stats)
            show_value('RobustJsonOutputParser(on_error="fallback")', fallback.parse(case.text))
            return True
        show_value("loads", loads(case.text))
        value, report = RobustJsonOutputParser(stats=stats).parse_with_report(case.text)
        show_value("RobustJsonOutputParser", value)
        show_report(report)
        return True
    except OutputParserException as exc:
        print(f"  FAILED: {str(exc).splitlines()[0][:200]}")
        return False


def main() -> int:
    stats = ParseStats()
    failures = []
    for number, case in enumerate(CASES, 1):
        print(f"\n=== {number}. {case.title} ===")
        if not run_case(case, stats):
            failures.append(case.title)
    print("\n=== parse outcomes (ParseStats.table()) ===")
    print(stats.table())
    if failures:
        print(f"\n{len(failures)} case(s) did not parse as expected: {', '.join(failures)}")
        return 1
    print(f"\nall {len(CASES)} cases behaved as expected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
