"""The outside-style corpus (``tests/json_outside_corpus.py``) through ``loads``."""

from __future__ import annotations

import math
from typing import Any

import pytest
from json_outside_corpus import CASES

from langchain_robust_parsers import loads
from langchain_robust_parsers.engine.json.decode import decode


def test_the_corpus_is_large_and_ids_are_unique() -> None:
    ids = [case[0] for case in CASES]
    assert len(ids) >= 150
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize(("text", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_outside_case(text: str, expected: Any) -> None:
    value = loads(text)
    if expected is None and isinstance(value, dict) and "a" in value:
        assert math.isnan(value["a"]) and value["b"] == math.inf  # NaN/Infinity case
        return
    assert value == expected


SEVERAL_IDS = ("ndjson", "two-objects-comma", "two-lists", "several-top-level-lists")


@pytest.mark.parametrize("case_id", SEVERAL_IDS)
def test_further_top_level_values_are_reported_not_silently_dropped(case_id: str) -> None:
    text = next(c[1] for c in CASES if c[0] == case_id)
    _value, report = decode(text)
    assert report.dropped_values
    assert report.outcome == "recovered"


@pytest.mark.parametrize(
    "case_id",
    ["cut-in-second-object", "cut-deep", "cut-in-surrogate-pair", "list-trailing-comma-cut"],
)
def test_cut_off_cases_say_they_were_cut(case_id: str) -> None:
    text = next(c[1] for c in CASES if c[0] == case_id)
    _value, report = decode(text)
    assert report.truncated


@pytest.mark.parametrize("case_id", ["object-after-list-of-objects", "colon-without-key"])
def test_a_broken_payload_is_read_whole_not_as_a_span_inside_it(case_id: str) -> None:
    text = next(c[1] for c in CASES if c[0] == case_id)
    _value, report = decode(text)
    assert report.source == "whole"
    assert report.repairs
