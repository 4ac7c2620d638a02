"""The outside-style corpus (``tests/json_outside_corpus.py``) through ``loads``."""

from __future__ import annotations

import math
from typing import Any

import pytest
from json_outside_corpus import CASES

from langchain_robust_parsers import loads


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
