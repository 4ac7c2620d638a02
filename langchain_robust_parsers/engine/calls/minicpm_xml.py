"""MiniCPM 5's XML calls as its tokenizer may hand them over.

MiniCPM 5 writes ``<function name="NAME"><param name="KEY">VALUE</param></function>`` (read by
the ``function_xml`` dialect). Served without the tokenizer's clean-up, the same calls come in
two other spellings, which this dialect reads:

- tags collapsed by the tokenizer: ``<functionname="NAME">``, ``<paramname="KEY">``;
- byte-level markers left in the text: ``Ġ`` (U+0120) for a space and ``Ċ`` (U+010A) for a
  line break, in the tags and the values alike (``<functionĠname="f">``, ``NewĠYork``).

Such a block is read with the markers turned back into the characters they stand for; text
outside the blocks is left as written. A value wrapped in ``<![CDATA[...]]>`` is the text
inside (every XML parameter dialect reads it so).
"""

from __future__ import annotations

from langchain_robust_parsers.engine.calls.markup_calls import FUNCTION, read_elements
from langchain_robust_parsers.engine.calls.parsed_call import ParsedCall
from langchain_robust_parsers.engine.repair_log import RepairLog

__all__ = [
    "BYTE_NEWLINE",
    "BYTE_SPACE",
    "MINICPM_OPENERS",
    "read_minicpm",
]

BYTE_SPACE = "\u0120"
"""``Ġ``: a byte-level BPE tokenizer's spelling of a space."""
BYTE_NEWLINE = "\u010a"
"""``Ċ``: a byte-level BPE tokenizer's spelling of a line break."""
_COLLAPSED = (
    ("<" + FUNCTION + "name=", "<" + FUNCTION + " name="),
    ("<paramname=", "<param name="),
    ("<parametername=", "<parameter name="),
)
"""Tag heads whose space the tokenizer dropped, and how they are written."""
MINICPM_OPENERS = ("<" + FUNCTION + "name=", "<" + FUNCTION + BYTE_SPACE + "name=")
"""How a call opens in the two spellings (the markers of the ``minicpm`` dialect)."""


def restored(body: str) -> str:
    """``body`` with the byte-level markers and collapsed tag heads written plainly."""
    body = body.replace(BYTE_SPACE, " ").replace(BYTE_NEWLINE, "\n")
    for collapsed, plain in _COLLAPSED:
        body = body.replace(collapsed, plain)
    return body


def read_minicpm(text: str, a: int, b: int, log: RepairLog, closed: bool) -> list[ParsedCall]:
    """The calls of a block ``text[a:b]`` in one of the spellings above."""
    body = restored(text[a:b])
    log.add("tokenizer_spelling", a)
    sub = RepairLog()
    calls = read_elements(body, 0, len(body), sub, closed=closed, element=FUNCTION)
    for repair in sub.repairs:
        log.add(repair.name, a + repair.pos)  # a position in the block, near enough to report
    log.truncated = log.truncated or sub.truncated
    return calls
