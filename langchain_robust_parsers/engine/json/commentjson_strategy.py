"""The opt-in commentjson strategy, behind the ``[commentjson]`` extra.

It is never on the default path. commentjson parses with a lark grammar in pure Python (about
35 ms for 9 KB, some 1000x ``json.loads``) and pins ``lark-parser<0.8``, whose ``lark`` module
collides with modern ``lark``; the engine already repairs comments and trailing commas itself.
It is here for pipelines that want commentjson's exact reading of commented JSON.
"""

from __future__ import annotations

import importlib
import json
from typing import Any

from langchain_robust_parsers.engine.json import locate
from langchain_robust_parsers.engine.report import ParseReport, Repair, Source


def commentjson_available() -> bool:
    """True when the ``commentjson`` package can be imported."""
    try:
        importlib.import_module("commentjson")
    except ImportError:
        return False
    return True


def require_commentjson() -> bool:
    """True when the ``commentjson`` package can be imported; raises ``ValueError`` saying how
    to install it otherwise."""
    if not commentjson_available():
        raise ValueError(
            "use_commentjson=True needs the commentjson package: "
            "pip install 'langchain-robust-parsers[commentjson]'"
        )
    return True


def decode_with_commentjson(text: str) -> tuple[Any, ParseReport] | None:
    """commentjson's value of the whole text, else of its first fenced block; ``None`` when the
    text is strict JSON (the engine's fast path gives the same value sooner) or when commentjson
    reads neither. Reports a ``commentjson`` repair."""
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        pass
    else:
        return None
    commentjson: Any = importlib.import_module("commentjson")
    candidates: list[tuple[Source, int, int]] = [("whole", 0, len(text))]
    fence = next(locate.fenced_regions(text, 0, []), None)
    if fence is not None:
        candidates.append(("fenced", fence.start, fence.stop))
    for source, start, stop in candidates:
        try:
            value = commentjson.loads(text[start:stop])
        # The one broad catch the engine keeps: commentjson is third-party code whose lark
        # grammar raises its own unrelated exception classes (and RecursionError, ValueError);
        # any of them means only "commentjson cannot read this", never a bug of the engine.
        except Exception:
            continue
        end = stop - (len(text[start:stop]) - len(text[start:stop].rstrip()))
        return value, ParseReport(
            source=source, start=start, end=end, repairs=(Repair("commentjson", start),)
        )
    return None
