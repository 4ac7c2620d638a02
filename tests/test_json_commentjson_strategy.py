"""The opt-in commentjson strategy (a third reading strategy, the ``[commentjson]`` extra)."""

from __future__ import annotations

import importlib
import sys
from typing import Any

import pytest
from pydantic import ValidationError

from langchain_robust_parsers import RobustJsonOutputParser

COMMENTED = """{
  // the user's record
  "name": "Ada",
  "langs": ["en", "fr",],
}"""


def _without_commentjson(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module

    def fake(name: str, package: str | None = None) -> Any:
        if name == "commentjson":
            raise ImportError("No module named 'commentjson'")
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", fake)
    monkeypatch.setitem(sys.modules, "commentjson", None)


def test_turning_it_on_without_the_extra_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _without_commentjson(monkeypatch)
    with pytest.raises(ValidationError, match=r"langchain-robust-parsers\[commentjson\]"):
        RobustJsonOutputParser(use_commentjson=True)


def test_the_default_path_never_uses_commentjson(monkeypatch: pytest.MonkeyPatch) -> None:
    _without_commentjson(monkeypatch)
    value, report = RobustJsonOutputParser().parse_with_report(COMMENTED)
    assert value == {"name": "Ada", "langs": ["en", "fr"]}
    assert "commentjson" not in report.repair_names
    assert "comment" in report.repair_names  # the engine's own rule


def test_commentjson_reads_commented_json_when_asked() -> None:
    pytest.importorskip("commentjson")
    parser = RobustJsonOutputParser(use_commentjson=True)
    value, report = parser.parse_with_report(COMMENTED)
    assert value == {"name": "Ada", "langs": ["en", "fr"]}
    assert report.repair_names == ("commentjson",)
    fenced, report = parser.parse_with_report("Here:\n```json\n" + COMMENTED + "\n```\nDone.")
    assert fenced == value and report.source == "fenced"


def test_commentjson_yields_to_the_engine_where_it_cannot_read() -> None:
    pytest.importorskip("commentjson")
    parser = RobustJsonOutputParser(use_commentjson=True)
    # strict JSON: the engine's fast path, no commentjson repair
    assert parser.parse_with_report('{"a": 1}')[1].repair_names == ()
    # single quotes and a cut-off end: commentjson fails, the engine repairs
    value, report = parser.parse_with_report("{'a': 1, 'b': 'cut of")
    assert value == {"a": 1, "b": "cut of"}
    assert "commentjson" not in report.repair_names and report.truncated
