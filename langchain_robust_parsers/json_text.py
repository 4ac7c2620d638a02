"""Stable import path for `loads` and `repair_json` (they live in
`langchain_robust_parsers.parsers.json_text`); prefer ``from langchain_robust_parsers import
loads``."""

from __future__ import annotations

from langchain_robust_parsers.parsers.json_text import loads, loads_with_report, repair_json

__all__ = ["loads", "loads_with_report", "repair_json"]
