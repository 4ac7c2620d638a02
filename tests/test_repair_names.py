"""Every JSON repair name is in the closed set, and every name's example reports it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from langchain_robust_parsers.engine.json.decode import decode
from langchain_robust_parsers.engine.json.repair_names import REPAIR_EXAMPLES, REPAIR_NAMES

JSON_ENGINE = Path(__file__).resolve().parent.parent / "langchain_robust_parsers/engine/json"


def _names_written() -> set[str]:
    """String literals passed to ``.add(...)`` or returned as a decoder fix's name, and the
    values of the quote-repair table: every repair name the JSON engine can write."""
    names: set[str] = set()
    for path in JSON_ENGINE.glob("*.py"):
        if path.name in ("repair_names.py", "stream_decoder.py"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "add"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                names.add(node.args[0].value)
            if (
                isinstance(node, ast.Return)
                and isinstance(node.value, ast.Tuple)
                and node.value.elts
                and isinstance(node.value.elts[0], ast.Constant)
                and isinstance(node.value.elts[0].value, str)
                and len(node.value.elts) == 4
            ):
                names.add(node.value.elts[0].value)
    from langchain_robust_parsers.engine.json.scan_lexicon import _QUOTE_REPAIR

    names.update(n for n in _QUOTE_REPAIR.values() if n)
    return names


def test_every_name_written_is_in_the_closed_set() -> None:
    assert _names_written() - REPAIR_NAMES == set()


def test_every_name_has_an_example() -> None:
    assert set(REPAIR_EXAMPLES) == REPAIR_NAMES


@pytest.mark.parametrize("name", sorted(REPAIR_EXAMPLES))
def test_example_reports_its_repair(name: str) -> None:
    _value, report = decode(REPAIR_EXAMPLES[name])  # type: ignore[index]
    assert name in report.repair_names


def test_every_scanner_rule_is_documented_and_each_state_ends_with_a_catch_all() -> None:
    from langchain_robust_parsers.engine.json.scan_rules import RULES

    for rules in RULES.values():
        assert rules, "a state without rules"
        for rule in rules:
            assert rule.__doc__, f"{rule.__name__} has no docstring"
    # The driver relies on the last rule of each state always applying.
    assert [rules[-1].__name__ for rules in RULES.values()] == ["missing_comma", "key", "unquoted"]
