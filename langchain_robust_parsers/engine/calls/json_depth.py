"""How deep a call's JSON (payload or arguments) may nest: the JSON readers' bound, told by
one scan of brackets and strings (`json.nesting_bound`). Text the C decoder reads whole is
checked too, so that no route returns arguments that ``copy.deepcopy`` (LangChain's tracing)
cannot copy; a payload that fails strict decoding and nests deeper is refused before the
engine sees it, as a flood of ``[{`` would cost the engine time for nothing."""

from __future__ import annotations

from langchain_robust_parsers.engine.json.nesting_bound import (
    MAX_JSON_NESTING as MAX_JSON_DEPTH,
    json_too_deep,
    open_at_end,
)

__all__ = ["MAX_JSON_DEPTH", "json_too_deep", "open_at_end"]
