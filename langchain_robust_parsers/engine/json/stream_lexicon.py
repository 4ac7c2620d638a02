"""Token patterns of the incremental JSON decoder (``stream_decoder.py``).

Each pattern reads a whole token, or a run of them, that lies entirely inside the text given: a
scalar counts only when what ends it is there too, so a match is never a prefix of something
longer. None has nested quantifiers.
"""

from __future__ import annotations

import json.decoder
import re
from collections.abc import Callable
from typing import Any

from langchain_robust_parsers.engine.json.cut_literals import LITERAL_COMPLETIONS
from langchain_robust_parsers.engine.lexicon.literals import (
    JSON_LITERALS as _JSON_WORDS,
    NONFINITE_LITERALS,
    PYTHON_LITERALS,
)

# Whole tokens inside one chunk, read by one match instead of a call per piece: a key with its
# colon, and a string with no escape or control character.
SIMPLE_KEY = re.compile(r'"([^"\\\x00-\x1f]*)"([ \t\r\n]*:)?')
SIMPLE_STRING = re.compile(r'"([^"\\\x00-\x1f]*)"')
# A number or JSON literal followed, within the chunk, by what ends it.
WHOLE_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?(?=[ \t\r\n,\]}])")
_JSON_WORD = "|".join(_JSON_WORDS)  # true|false|null
WHOLE_LITERAL = re.compile("(?:" + _JSON_WORD + r")(?=[ \t\r\n,\]}])")

# What `JsonStreamDecoder._runs` reads with one match: a member (groups: key, string, number,
# literal, comma, opener) and an item (string, number, literal, comma); a scalar takes the
# comma after it, and the whitespace after that, along.
_WSP = r"[ \t\r\n]*"
_RUN_END = r"(?=[ \t\r\n,\]}])"  # a scalar counts only when what ends it is in the text
_RUN_SCALAR = (
    r'"([^"\\\x00-\x1f]*)"'
    rf"|(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?){_RUN_END}"
    rf"|({_JSON_WORD}){_RUN_END}"
)
_RUN_COMMA = rf"(?:{_WSP}(,){_WSP})?"
RUN_MEMBER = re.compile(
    rf'"([^"\\\x00-\x1f]*)"{_WSP}:{_WSP}(?:(?:{_RUN_SCALAR}){_RUN_COMMA}|([{{\[]))'
)
RUN_ITEM = re.compile(rf"(?:{_RUN_SCALAR}){_RUN_COMMA}")
STRING_END = re.compile(r'(?:[^"\\]|\\.)*"', re.S)  # a string's body and closing quote
# The C decoder's string reader (strict: JSON's escapes only, no control character).
scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]

# The words the decoder reads as values, and those shown while still being read.
LITERALS: dict[str, Any] = {**_JSON_WORDS, **PYTHON_LITERALS, **NONFINITE_LITERALS}
JSON_LITERALS = frozenset((*_JSON_WORDS, *NONFINITE_LITERALS))
SHOWN_WORDS: dict[str, Any] = {**LITERALS, **LITERAL_COMPLETIONS}
"""A word shows its value as soon as it is spelled out (LangChain's partial semantics), or as
soon as its completion is unique (``tr``: ``true``; see ``cut_literals``)."""
