"""The words models write for ``true``, ``false`` and ``null``: JSON's own, Python's, and the
other spellings the lenient readers accept. The one table every reader builds from (the lenient
scanner, the stream decoder, the C-decoder repairs, the bulk repair route, the cut-literal
completion and the Python call reader), so that a word one of them reads is read by all."""

from __future__ import annotations

from typing import Any

__all__ = [
    "JSON_LITERALS",
    "MODEL_LITERALS",
    "NONFINITE_LITERALS",
    "PYTHON_LITERALS",
    "PYTHON_TO_JSON",
]

JSON_LITERALS: dict[str, Any] = {"true": True, "false": False, "null": None}
"""JSON's literals and their values."""

PYTHON_LITERALS: dict[str, Any] = {"True": True, "False": False, "None": None}
"""Python's spellings of the same values: models trained on code write them in JSON (repaired as
``python_literal``), and JSON's in Python calls."""

PYTHON_TO_JSON: dict[str, str] = {
    word: next(json for json, same in JSON_LITERALS.items() if same is value)
    for word, value in PYTHON_LITERALS.items()
}
"""Python's spelling -> JSON's (``True`` -> ``true``), for the repairs that rewrite text."""

NONFINITE_LITERALS: dict[str, float] = {
    "NaN": float("nan"),
    "Infinity": float("inf"),
    "-Infinity": float("-inf"),
}
"""JavaScript's words for the floats JSON cannot write; Python's ``json`` reads them too."""

MODEL_LITERALS: dict[str, Any] = {
    "TRUE": True,
    "FALSE": False,
    "NULL": None,
    "Null": None,
    "undefined": None,
}
"""Other spellings models write (SQL's capitals, JavaScript's ``undefined``), read by the lenient
scanner as a repair."""
