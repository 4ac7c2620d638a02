"""Refusals written as text: an answer that declines the request instead of giving a value.

A provider's refusal content block is read by the parsers (langchain-core's ``ModelRefusalError``);
this is the other kind, a model writing ``I'm sorry, I can't list those.`` as its whole answer.
One rule, asked by every reader that must not turn such an answer into a value (the list
parsers) and by the failure messages that must say why no value was found:

- the answer (reasoning already left out) is short, at most `MAX_REFUSAL_CHARS`;
- it starts with one of `REFUSAL_OPENERS` (``I'm sorry``, ``I can't``, ``Unfortunately``...);
- a declining phrase (`DECLINE_WORDS`: ``can't help``, ``unable to provide``...) comes
  within its first `MAX_DECLINE_OFFSET` characters;
- nothing after that phrase turns the answer into a partial answer: no ``but``/``however`` and
  no ``:`` (``I can't list them all, but here are three: ...`` is a list).
"""

from __future__ import annotations

import re

__all__ = [
    "DECLINE_WORDS",
    "MAX_DECLINE_OFFSET",
    "MAX_REFUSAL_CHARS",
    "REFUSAL_OPENERS",
    "is_refusal",
    "may_become_refusal",
]

MAX_REFUSAL_CHARS = 400
"""Longest answer read as a refusal: a refusal is a sentence or two; a longer answer that opens
with an apology usually goes on to answer."""

MAX_DECLINE_OFFSET = 160
"""The declining phrase must come this early (``I'm sorry, but as a language model I cannot``)."""

REFUSAL_OPENERS = (
    "i'm sorry",
    "i am sorry",
    "sorry",
    "i apologize",
    "i apologise",
    "my apologies",
    "unfortunately",
    "i'm afraid",
    "i am afraid",
    "as an ai",
    "i can't",
    "i cannot",
    "i can not",
    "i won't",
    "i will not",
    "i'm unable",
    "i am unable",
    "i'm not able",
    "i am not able",
    "i must decline",
    "xin lỗi",  # Vietnamese: the package's prompts also speak it
    "tôi không thể",
)
"""How a refusal starts, case folded, with ``'`` for any apostrophe."""

_DECLINED_ACTS = (
    "help|assist|provide|share|list|comply|answer|fulfil|fulfill|give|create|generate|write"
    "|disclose|reveal|support|discuss|engage|do|name|identify|recommend|offer|access|browse"
    "|search|continue|complete|process|produce|make"
)
DECLINE_WORDS = re.compile(
    r"\b(?:(?:can't|cannot|can not|won't|will not|unable to|not able to)"
    r" (?:really |currently |simply |personally |in good conscience )?"
    rf"(?:{_DECLINED_ACTS})\b"
    r"|must decline|decline to|not allowed|not permitted|không thể)",
)
"""The phrase that makes an apology a refusal: not doing what was asked (``Sorry for the
wait`` is not one, nor is ``I can't think of any``, an empty answer)."""

_PARTIAL_ANSWER = re.compile(r"\bbut\b|\bhowever\b|\bnhưng\b|:")
"""After the declining phrase, what announces an answer after all."""

_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "`": "'"})
_QUOTES_AND_SPACE = " \t\r\n\"'“”*_>"


def _folded(text: str) -> str:
    return text.strip(_QUOTES_AND_SPACE).casefold().translate(_APOSTROPHES)


def is_refusal(answer: str) -> bool:
    """True when ``answer`` (the text after any reasoning) declines instead of answering."""
    if len(answer) > MAX_REFUSAL_CHARS:
        return False
    folded = _folded(answer)
    if not folded.startswith(REFUSAL_OPENERS):
        return False
    decline = DECLINE_WORDS.search(folded, 0, MAX_DECLINE_OFFSET)
    if decline is None:
        return False
    return _PARTIAL_ANSWER.search(folded, decline.end()) is None


def may_become_refusal(prefix: str) -> bool:
    """True while a stream prefix could still end as a refusal: short enough, and its start is
    an opener or the beginning of one. A reader holds back what it would hand out meanwhile."""
    if len(prefix) > MAX_REFUSAL_CHARS:
        return False
    folded = _folded(prefix)
    if not folded:
        return True
    return any(o.startswith(folded) or folded.startswith(o) for o in REFUSAL_OPENERS)
