"""Pure text -> value functions: locate a payload, decode it leniently, report what was repaired.

Nothing here imports LangChain; parsers wrap these functions and translate
`JsonEngineError` into ``OutputParserException``.
"""

from __future__ import annotations

from langchain_robust_parsers.engine.errors import JsonEngineError
from langchain_robust_parsers.engine.json.decode import decode, iter_candidates
from langchain_robust_parsers.engine.report import ParseReport, Repair

__all__ = ["JsonEngineError", "ParseReport", "Repair", "decode", "iter_candidates"]
