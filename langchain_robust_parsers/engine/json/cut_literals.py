"""A literal cut off by the end of a stream prefix: which ones complete, and to what.

``["a", t`` is ``["a", true`` in the making: no other word the JSON readers accept starts with
``t``, so every reader shows ``true`` there at once, as the Vercel AI SDK, LangChain.js and
partial-json-parser do. A prefix completes only when its completion is unique among the words
that mean something other than an unquoted string where a value starts:

- ``f`` alone stays unshown: it also opens a Python f-string (``f"x"``, read as ``"x"``);
  ``fa`` completes to ``false``.
- ``n`` alone stays unshown: it also opens a JavaScript constructor (``new Date(0)``, read as
  ``0``); ``nu`` completes to ``null``. (NaN is accepted only as ``NaN``: a lowercase ``nan``
  reads as the string ``"nan"``, so NaN is not what makes ``n`` ambiguous.)
- Capitalized words (Python's ``True``, ``None``; ``NaN``, ``Infinity``) are never completed:
  any capitalized word followed by ``(`` is a constructor (``Timestamp(...)``, ``NumberLong(1)``),
  so no capitalized prefix has a unique completion.

A completed literal is final: the text can only go on spelling it (``t``, ``tr``, ``tru``,
``true`` all show ``True``), so a value once shown never changes. A word that then turns out
to be an unquoted string (``{"a": turquoise}``, lenient syntax, not JSON) is the one exception.
"""

from __future__ import annotations

from typing import Any

from langchain_robust_parsers.engine.lexicon.literals import JSON_LITERALS, NONFINITE_LITERALS

_COMPLETABLE: dict[str, Any] = JSON_LITERALS
"""JSON's literals: the words a cut prefix may complete to."""

_OTHER_WORD_STARTS = ("f", "fr", "rf", "b", "br", "rb", "r", "u", "new")
"""Lowercase words a value may start with that are not literals: Python string prefixes glued
to a quote (``f"x"``, ``rb'x'``) and JavaScript's ``new`` before a constructor."""

LITERAL_COMPLETIONS: dict[str, Any] = {
    word[:i]: value
    for word, value in _COMPLETABLE.items()
    for i in range(1, len(word))
    if not any(other.startswith(word[:i]) for other in _OTHER_WORD_STARTS)
}
"""Cut prefix -> the value it completes to: ``t``, ``tr``, ``tru``; ``fa``, ``fal``, ``fals``;
``nu``, ``nul``."""

LITERAL_TAILS: dict[str, str] = {
    prefix: word[len(prefix) :]
    for word in _COMPLETABLE
    for prefix in LITERAL_COMPLETIONS
    if word.startswith(prefix)
}
"""Cut prefix -> the letters that complete it (for readers that complete the text itself)."""


CUT_NONFINITE: frozenset[str] = frozenset(
    word[:i] for word in NONFINITE_LITERALS for i in range(1, len(word))
)
"""Cut prefixes of ``NaN``, ``Infinity`` and ``-Infinity`` (``-In``, ``Na``): never completed
(capitalized, above) and never shown as an unquoted string either, which the whole word would
turn into a float; a stream shows nothing there until the word is whole."""


def completed_literal(word: str) -> tuple[bool, Any]:
    """``(True, value)`` when ``word``, cut by the end of the text, completes uniquely to a
    literal's value, else ``(False, None)``."""
    if word in LITERAL_COMPLETIONS:
        return True, LITERAL_COMPLETIONS[word]
    return False, None
