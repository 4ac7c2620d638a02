"""One of a closed set of values (an enum, yes/no) read from a short answer.

Models answer ``**Yes**.``, ``The answer is: RED``, ``"blue"`` or misspell a value (``Gren``).
The order of work: the answer exactly; the answer without case, emphasis and punctuation; the
values the answer names as whole words (one, or one singled out by emphasis or by being the
answer's first word); a value within a small edit distance of a short answer, when only one is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from langchain_robust_parsers.engine.errors import AmbiguousAnswerError, TextEngineError
from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.engine.text_values.answer_text import Answer, locate_answer, plain

MAX_FUZZY_WORDS = 4
"""Answers of at most this many words are compared by edit distance; a longer answer is prose
in which a near-miss of a value is more likely a different word."""

MAX_FUZZY_CHARS = 64
"""Words longer than this are not compared by edit distance (it costs length squared)."""

MAX_MENTION_SCAN_CHARS = 20_000
"""Characters of an answer searched for the values it names; a reply longer than this is an
essay, and its choice, if any, is near the start."""

TRUE_WORDS = ("yes", "true", "yep", "yeah")
FALSE_WORDS = ("no", "false", "nope", "nah")
"""Ways of saying yes and no read by the boolean parser when its values are the usual ones."""

_ANSWER_IS = re.compile(r"(?:answer|verdict|result|decision|choice|label)\s*(?:is|:)\s*", re.I)


def edit_distance(a: str, b: str) -> int:
    """Edits between ``a`` and ``b``: insertions, deletions, substitutions and swaps of two
    neighbouring letters (``bleu`` -> ``blue`` is one), three rows at a time."""
    before: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            cost = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cost = min(cost, before[j - 2] + 1)
            current.append(cost)
        before, previous = previous, current
    return previous[-1]


def _fold(text: str) -> str:
    return text.casefold().replace("_", " ").replace("-", " ")


def _mentions(text: str, options: Sequence[Sequence[str]]) -> list[tuple[int, int, int]]:
    """``(option, start, end)`` of each whole-word occurrence of any spelling of any option in
    ``text`` (already folded), a spelling inside a longer matched one not counted."""
    hits: list[tuple[int, int, int]] = []
    for index, spellings in enumerate(options):
        for spelling in spellings:
            if not spelling:
                continue
            pattern = re.compile(r"(?<!\w)" + re.escape(spelling) + r"(?!\w)")
            hits.extend((index, m.start(), m.end()) for m in pattern.finditer(text))
    hits.sort(key=lambda h: (h[1], -h[2]))
    kept: list[tuple[int, int, int]] = []
    widest = (-1, -1)  # the span reaching furthest so far; it starts at or before each hit
    for hit in hits:
        inside = hit[2] <= widest[1] and (hit[1], hit[2]) != widest
        if not inside:
            kept.append(hit)
        if hit[2] > widest[1]:
            widest = (hit[1], hit[2])
    return kept


def _singled_out(answer: Answer, hits: list[tuple[int, int, int]], folded: str) -> int | None:
    """The option the answer marks as its choice among several it names: the only emphasized
    one, the one after "answer is", or the first word followed by punctuation (``No, ...``)."""
    chosen = {h[0] for h in hits}
    emphasized = {h[0] for h in hits if _is_emphasized(folded, h[1], h[2])}
    if len(emphasized) == 1:
        return emphasized.pop()
    m = _ANSWER_IS.search(folded)
    if m is not None:
        gap = " *_\"'"
        after = [h for h in hits if h[1] >= m.end() and not folded[m.end() : h[1]].strip(gap)]
        if len({h[0] for h in after}) == 1:
            return after[0][0]
    first = min(hits, key=lambda h: h[1])
    lead = folded[: first[1]].strip(" \t\r\n*_\"'`")
    follow = folded[first[2] : first[2] + 1]
    if not lead and follow in (",", ".", "!", ";", ":") and len(chosen) > 1:
        return first[0]
    return None


def _is_emphasized(text: str, start: int, end: int) -> bool:
    before = text[max(0, start - 2) : start]
    after = text[end : end + 2]
    return before in ("**", "__") and after == before


def read_choice(text: str, options: Sequence[Sequence[str]]) -> tuple[int, ParseReport]:
    """The index of the option ``text`` answers with; each option is given by its spellings
    (the first is its canonical value). Raises `TextEngineError` when the answer names
    none, `AmbiguousAnswerError` when it names several and singles out none."""
    stripped = text.strip()
    for index, spellings in enumerate(options):
        if stripped == spellings[0]:
            return index, ParseReport("whole", 0, len(text))
    answer = locate_answer(text)
    folded_plain = _fold(answer.plain)
    for index, spellings in enumerate(options):
        if any(folded_plain == _fold(s) for s in spellings):
            answer.log.add("case_or_punctuation", answer.start)
            return index, answer.report()
    folded_options = [[_fold(s) for s in spellings] for spellings in options]
    folded = _fold(answer.text[:MAX_MENTION_SCAN_CHARS])
    hits = _mentions(folded, folded_options)
    named = sorted({h[0] for h in hits})
    if len(named) == 1:
        answer.log.add("value_in_prose", answer.start)
        return named[0], answer.report()
    if len(named) > 1:
        choice = _singled_out(answer, hits, folded)
        if choice is None:
            found = tuple(options[i][0] for i in named)
            raise AmbiguousAnswerError("the answer names several values", found)
        answer.log.add("value_singled_out", answer.start)
        return choice, answer.report()
    fuzzy = _closest(folded_plain, folded_options)
    if fuzzy is None:
        raise TextEngineError("the answer names none of the values")
    answer.log.add("edit_distance", answer.start)
    return fuzzy, answer.report()


def _closest(answer: str, options: Sequence[Sequence[str]]) -> int | None:
    """The only option within ``len // 4`` edits of the answer (or of one of its
    words), or ``None`` when none is or several are equally close."""
    words = answer.split()
    if not words or len(words) > MAX_FUZZY_WORDS:
        return None
    probes = {answer, *words}
    best: dict[int, int] = {}
    for index, spellings in enumerate(options):
        for spelling in spellings:
            if not spelling or len(spelling) > MAX_FUZZY_CHARS:
                continue
            bound = len(spelling) // 4  # words of three letters or fewer: exact only
            if bound == 0:
                continue
            for probe in probes:
                if len(probe) > MAX_FUZZY_CHARS or abs(len(probe) - len(spelling)) > bound:
                    continue
                d = edit_distance(probe, spelling)
                if d <= bound and d < best.get(index, bound + 1):
                    best[index] = d
    if not best:
        return None
    low = min(best.values())
    winners = [i for i, d in best.items() if d == low]
    return winners[0] if len(winners) == 1 else None


def boolean_options(true_val: str, false_val: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The spellings of true and of false: the configured values, plus the usual ways of saying
    yes and no when the configured values are themselves usual ones."""
    t, f = true_val.casefold(), false_val.casefold()
    if t in TRUE_WORDS and f in FALSE_WORDS:
        return (true_val, *(w for w in TRUE_WORDS if w != t)), (
            false_val,
            *(w for w in FALSE_WORDS if w != f),
        )
    return (true_val,), (false_val,)


def read_boolean(text: str, true_val: str, false_val: str) -> tuple[bool, ParseReport]:
    """True or false as ``text`` answers; the errors of `read_choice`."""
    yes, no = boolean_options(true_val, false_val)
    index, report = read_choice(text, [yes, no])
    return index == 0, report


__all__ = [
    "FALSE_WORDS",
    "TRUE_WORDS",
    "boolean_options",
    "edit_distance",
    "plain",
    "read_boolean",
    "read_choice",
]
