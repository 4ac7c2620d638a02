"""Whole-document repair at C speed for text whose defects are all lexical.

A Python ``repr`` (single quotes, ``True``/``None``), a JavaScript object (unquoted keys, ``//``
comments) or a document with a trailing comma every few records has hundreds of defects, too
many for the error-position repairs, and the lenient scanner would walk every character in
Python. Here one compiled pattern consumes whole tokens (strings, literals, keys, commas,
comments) and rewrites only the defective ones; the C decoder then reads the result. Anything
the pattern cannot fix makes the decode fail, and the caller falls back to the scanner: this
route never returns a value the scanner would read differently on clean input.
"""

from __future__ import annotations

import json
import re
import sys
from bisect import bisect_left, bisect_right
from itertools import accumulate, islice, repeat
from operator import add
from typing import Any, Literal

from langchain_robust_parsers.engine.lexicon.escapes import escaped_at
from langchain_robust_parsers.engine.lexicon.literals import (
    JSON_LITERALS,
    PYTHON_LITERALS,
    PYTHON_TO_JSON,
)
from langchain_robust_parsers.engine.repair_log import RepairLog

MAX_BULK_CHARS = 20_000_000
"""Documents longer than this go straight to the scanner: the rewritten copy doubles memory."""
MAX_BULK_RECORDED = 64
"""Rewrites listed in the report with their offsets; the rest are counted. A bulk rewrite is
hundreds of repairs of the same few kinds (every quote of a Python ``repr``), and building each
record costs about as much as the C decoder spends on 100 characters."""


def _token_pattern(quotes: str) -> re.Pattern[str]:
    """A token that is a string or may need a rewrite (a bare word takes the colon after it, so
    a key is told from a value without a second match); strings open with one of ``quotes``.
    ``split`` on this one group gives the text between tokens and the tokens alternately, at C
    speed; only the tokens are looked at in Python. Every alternative starts with the one
    leading class and tells itself apart by a look-behind at that character: a pattern that
    opens with a single class lets the regex engine skip the text between tokens in a tight
    loop, three times faster than trying each alternative at each character. A string without
    escapes is matched by a plain class run; only one with escapes takes the slower
    alternative. A quote no string closes on its line takes the rest of the line (see
    `_split_tokens`). No alternative nests a quantifier."""
    strings = "".join(
        rf"(?<={q})[^{q}\\\n]*{q}|(?<={q})(?:[^{q}\\\n]|\\.)*{q}|(?<={q})[^\n]*|" for q in quotes
    )
    return re.compile(
        f"([{quotes}/#,A-Za-z_](?:{strings}"
        r"(?<=/)/[^\n]*|(?<=\#)[^\n]*|(?<=[A-Za-z_])[A-Za-z0-9_]*(?:[ \t]*:)?"
        r"|(?<=,)(?=[ \t\r\n]*[}\]])))"
    )


_TOKENS = {quotes: _token_pattern(quotes) for quotes in ("\"'", "'", '"', "")}
"""The token pattern for each set of quotes that may still open a string: a line where one
kind of quote has opened no string is read again without it."""
_CLOSER_AHEAD = re.compile(r"[ \t\r\n]*[}\]]?")
"""What the trailing-comma look-ahead may read past the end of a line."""

_WORD = re.compile(r"([A-Za-z_][A-Za-z0-9_]*[ \t]*:?)")
_KEY_COLON = re.compile(
    r"([A-Za-z_][A-Za-z0-9_]*+)([ \t]*+:)"
    if sys.version_info >= (3, 11)
    else r"([A-Za-z_][A-Za-z0-9_]*)([ \t]*:)"
)
"""A key and its colon; between strings a colon follows nothing else."""
_KEY_BEFORE_COLON = re.compile(
    r"([A-Za-z_][A-Za-z0-9_]*+)(?=[ \t]*+:)"
    if sys.version_info >= (3, 11)
    else r"([A-Za-z_][A-Za-z0-9_]*)(?=[ \t]*:)"
)

_SPACE_RUN = "[ \t\r\n]*+" if sys.version_info >= (3, 11) else "[ \t\r\n]*"
"""Whitespace not given back once read (a possessive run where the regex engine has it, 3.11+):
a comma followed by an indented line fails after one pass over the indentation, not one per
character of it, which halves the cost of looking at every comma of a pretty-printed document."""
_TRAILING_COMMA_AT = re.compile(r",(?=" + _SPACE_RUN + r"[}\]])")
"""A comma before a closer, matched alone: each search starts at a literal comma."""
_ESCAPED_QUOTE = re.compile(r'\\"')
_ESCAPED_ANY_QUOTE = re.compile(r"""\\['"]""")
_SINGLE_QUOTE = re.compile("'")
_COLON_AFTER_WORD = re.compile(r":(?<=[A-Za-z0-9_ \t]:)")
"""The colon of a key that may be unquoted; a quoted key's colon follows a quote and is skipped
by the one look-behind."""
_COMMENT_OR_PY_WORD = re.compile("#|//|" + "|".join(PYTHON_LITERALS))
_SINGLE_QUOTED = re.compile(r"'(?:[^'\\\n]|\\.)*'")
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
SPARSE_CHARS_PER_FIX = 200
"""The sparse route (`_rewrite_sparse`) spends about as much Python time on one possible
defect as the string-splitting route spends on 200 characters; denser documents (a JavaScript
object, where every key needs quotes) take the splitting route."""
SPARSE_MIN_FIXES = 16
"""Possible defects the sparse route always accepts, so a short document is not sent away."""
_QUOTE_MASK = "\x02"
"""Stands for a double quote while a ``repr``'s single quotes become double ones."""
_MARK = "\x00"
"""Stands for a double-quoted string in the joined outside text; a document holding it between
strings takes the general route."""
_PY_JSON = PYTHON_TO_JSON
_JSON_WORDS = frozenset(JSON_LITERALS)
_HINTS = re.compile(
    r"""['#]|//|\b(?:"""
    + "|".join(PYTHON_LITERALS)
    + r""")\b|,[ \t\r\n]*[}\]]|[{,][ \t\r\n]*[A-Za-z_]"""
)
"""A defect the rewrite can fix; without one the rewrite is not tried."""


def _double_quoted(token: str) -> str:
    """A single-quoted string token written with double quotes."""
    return '"' + token[1:-1].replace("\\'", "'").replace('"', '\\"') + '"'


def _fix_token(token: str) -> tuple[str, str] | None:
    """``(repair name, replacement)`` for a defective token, ``None`` for one kept as is."""
    first = token[0]
    if first == "'":
        return "single_quotes", _double_quoted(token)
    if first in "/#":
        return "comment", ""
    if first == ",":
        return "trailing_comma", ""
    word = token.rstrip(" \t:")
    if token[-1] == ":":
        if word in _PY_JSON:
            return None  # `{True: 1}`: a Python key the decoder cannot take; the scanner reads it
        return "unquoted_key", '"' + word + '"' + token[len(word) :]
    if word in _PY_JSON:
        return "python_literal", _PY_JSON[word] + token[len(word) :]
    return None


def _unclosed(token: str) -> bool:
    """A token opened by a quote is the rest of a line no string closes: it does not end in
    its quote, or that quote is escaped (an odd run of backslashes before it)."""
    last = len(token) - 1
    if last < 1 or token[last] != token[0]:
        return True
    # Most tokens end in a quote after another character: the run is looked at only after one.
    return token[last - 1] == "\\" and escaped_at(token, last, 1)


def _split_tokens(text: str, quotes: str) -> list[str]:
    """``text`` split on the tokens of `_token_pattern`, as the pattern with every
    quote would split it, in linear time. A quote whose string does not close on its line
    would be read to the line's end again from each later quote of its kind, all of which
    fail alike (each is the escaped second character of a pair read past): so the pattern
    takes the rest of the line as one token, and that rest is split again without that kind
    of quote. Each line is read at most once per kind of quote."""
    parts = _TOKENS[quotes].split(text)
    if not any(q in text for q in quotes):
        return parts
    tokens = range(1, len(parts), 2)
    first = next((i for i in tokens if parts[i][0] in quotes and _unclosed(parts[i])), 0)
    if not first:
        return parts
    out = parts[: first - 1]
    pending = [parts[first - 1]]  # the pieces of the text part being built, joined once
    for i in range(first, len(parts), 2):
        token, after = parts[i], parts[i + 1]
        if token[0] not in quotes or not _unclosed(token):
            out += ("".join(pending), token)
            pending = [after]
            continue
        m = _CLOSER_AHEAD.match(after)
        tail = m.group() if m else ""  # the trailing-comma look-ahead reads past the line
        sub = _split_tokens(token[1:] + tail, quotes.replace(token[0], ""))
        sub[-1] = sub[-1][: len(sub[-1]) - len(tail)] + after
        pending.append(token[0] + sub[0])
        if len(sub) > 1:
            out.append("".join(pending))
            out += sub[1:-1]
            pending = [sub[-1]]
    out.append("".join(pending))
    return out


def _fix_parts(parts: list[str]) -> list[tuple[int, str, int]] | None:
    """Rewrite the defective tokens of ``parts`` (a ``split`` on one token group) in place;
    ``(index, repair name, original length)`` of each, or ``None`` when a token spans a string
    marker (see `_rewrite_outside`)."""
    fixes: list[tuple[int, str, int]] = []
    for i in range(1, len(parts), 2):
        token = parts[i]
        if token[-1] == ":" and token[0] not in "'/#":  # a key, the commonest rewrite
            word = token.rstrip(" \t:")
            if word not in _PY_JSON:
                fixes.append((i, "unquoted_key", len(token)))
                parts[i] = '"' + word + '"' + token[len(word) :]
            continue
        if token[0] == '"' or token in _JSON_WORDS:
            continue
        if _MARK in token:
            return None
        fix = _fix_token(token)
        if fix is not None:
            fixes.append((i, fix[0], len(token)))
            parts[i] = fix[1]
    return fixes


def _offsets(parts: list[str], fixes: list[tuple[int, str, int]], base: int) -> list[int]:
    """Where each listed rewrite starts in the text ``parts`` were split from (plus ``base``):
    the lengths summed are those of the rewritten parts, so each earlier rewrite's change of
    length is taken back."""
    sums = list(accumulate(map(len, parts[: fixes[-1][0]]), initial=base))
    out = []
    shift = 0
    for i, _name, length in fixes:
        out.append(sums[i] + shift)
        shift += length - len(parts[i])
    return out


def _record(log: RepairLog, fixes: list[tuple[int, str, int]], offsets: list[int]) -> None:
    for (_i, name, _length), at in zip(fixes, offsets, strict=False):
        log.add(name, at)
    log.count += len(fixes) - len(offsets)


def _rewrite(chunk: str, start: int, log: RepairLog) -> str | None:
    """``chunk`` (found at ``start`` in the text) with its lexical defects rewritten, each noted
    in ``log`` (``None`` when nothing needed a rewrite)."""
    parts = _split_tokens(chunk, "\"'")
    fixes = _fix_parts(parts)
    if not fixes:
        return None
    kept = fixes[:MAX_BULK_RECORDED]
    _record(log, fixes, _offsets(parts, kept, start))
    return "".join(parts)


def _string_bodies(chunk: str) -> tuple[list[str], list[str]] | None:
    """The text outside double-quoted strings and the strings' bodies, split at C speed
    (``None`` when a string is left open)."""
    parts = chunk.split('"')
    escaped = _escaped_quotes(chunk)
    if escaped:
        parts = _join_escaped(chunk, parts, escaped)
    return (parts[0::2], parts[1::2]) if len(parts) % 2 else None


def _join_escaped(chunk: str, parts: list[str], escaped: list[int]) -> list[str]:
    """``parts`` (``chunk`` split at every double quote) joined again at the ``escaped`` quotes;
    one step per escaped quote, not per part."""
    merged: list[str] = []
    run: list[str] = []  # the parts being joined into one, joined once (not added up)
    done = 0  # parts[:done] are in merged or run
    index = 0  # the number of double quotes before ``seen``
    seen = 0
    for q in escaped:
        index += chunk.count('"', seen, q)
        seen = q + 1
        if index < done:  # `\"\"`: the part being joined takes this quote too
            run.append(parts[index + 1])
        else:
            if run:
                merged.append('"'.join(run))
            merged += parts[done:index]
            run = [parts[index], parts[index + 1]]
        done = index + 2
        index += 1
    if run:
        merged.append('"'.join(run))
    merged += parts[done:]
    return merged


def _quote_keys(joined: str) -> tuple[str, list[int], int]:
    """`_rewrite_outside`'s rewrite when unquoted keys are the only defect: a split on
    the keys (their colons left to the text after them) joined again with a quote, which puts
    one on each side of every key; both at C speed. Returns the text, the offsets in
    ``joined`` of the first keys and the number of keys."""
    parts = _KEY_BEFORE_COLON.split(joined)
    sums = list(accumulate(map(len, parts[: 2 * MAX_BULK_RECORDED]), initial=0))
    return '"'.join(parts), sums[1::2], len(parts) // 2


Rewritten = tuple[str, list[int], list[str], int]
"""A rewritten text, the offsets and names of its first rewrites (at most
`MAX_BULK_RECORDED`) and the number of rewrites."""


def _rewrite_outside(
    chunk: str, start: int, log: RepairLog, *, commas: bool = True
) -> str | Literal[False] | None:
    """`_rewrite` for a pretty-printed JSON-like document, most of it double-quoted
    strings (see `_outside_rewrite`)."""
    got = _outside_rewrite(chunk, start, commas=commas)
    if not got:
        return got
    fixed, at, names, total = got
    log.add_many(names, at)
    log.count += total - len(at)
    return fixed


def _outside_rewrite(
    chunk: str, start: int, *, commas: bool = True, before: int | None = None
) -> Rewritten | Literal[False] | None:
    """``str.split`` puts the strings aside and the token pattern reads only the text between
    them, joined by a marker character. ``False`` when this route cannot tell (a comment or
    single-quoted string holding a double quote spans a marker), ``None`` when nothing needed
    a rewrite. Without ``commas`` trailing commas are not looked for (the caller tries again
    with them when the decode fails); with ``before``, rewrites from that offset on are only
    counted (the caller lists others up to there)."""
    split = _string_bodies(chunk)
    if split is None:
        return False
    outside, bodies = split
    joined = _MARK.join(outside)
    # One alternative keeps the regex engine's first-character skip: words alone when nothing
    # else needs a rewrite (the alternation costs three times as much per character).
    only_words = (
        "'" not in joined
        and "/" not in joined
        and "#" not in joined
        and (not commas or _TRAILING_COMMA_AT.search(joined) is None)
    )
    if only_words and not _has_python_word(joined):
        fixed, at, total = _quote_keys(joined)
        names = ["unquoted_key"] * len(at)
    else:
        parts = _WORD.split(joined) if only_words else _split_tokens(joined, "'")
        fixes = _fix_parts(parts)
        if fixes is None:
            return False
        total = len(fixes)
        names = [name for _i, name, _n in fixes[:MAX_BULK_RECORDED]]
        at = _offsets(parts, fixes[:MAX_BULK_RECORDED], 0) if fixes else []
        fixed = "".join(parts)
    if not total:
        return None
    restored = fixed.split(_MARK)
    if len(restored) != len(outside):
        return False  # the text held the marker character itself
    if before is not None:  # an offset in joined is never past the same place in chunk
        listed = bisect_left(at, before - start)
        at, names = at[:listed], names[:listed]
    if not at:
        return _restore(restored, bodies), [], [], total
    # A marker stands for a whole string: map joined offsets back through the bodies' lengths.
    last = joined.count(_MARK, 0, at[-1]) + 1
    out_sums = accumulate(map(len, outside[:last]), initial=0)
    seg_joined = list(map(add, out_sums, range(last + 1)))  # where segment j starts in joined
    body_sums = list(accumulate(map(len, bodies[: last - 1]), initial=0))
    # Before segment j of joined lie j strings of chunk: their bodies and 2 j quotes, j markers.
    ends = map(bisect_right, repeat(seg_joined), at)  # j + 1 for the segment j holding q
    at = [start + q + body_sums[k - 1] + k - 1 for q, k in zip(at, ends, strict=True)]
    return _restore(restored, bodies), at, names, total


def _restore(outside: list[str], bodies: list[str]) -> str:
    """The text of the strings' ``bodies`` put back between the ``outside`` pieces."""
    pieces = [""] * (2 * len(outside) - 1)
    pieces[0::2] = outside
    pieces[1::2] = bodies
    return '"'.join(pieces)


def _has_python_word(text: str) -> bool:
    """``True``, ``False`` or ``None`` in ``text``; their capitals are looked for first, one
    character at a time being much the fastest search."""
    return any(word[0] in text and word in text for word in PYTHON_LITERALS)


_PY_WORD = {word[0]: word for word in PYTHON_LITERALS}


def _candidates(chunk: str) -> list[tuple[int, str]] | None:
    """Where a lexical defect may start, in order, each with its first character: a colon after
    a word, a comma before a closer, a single quote, a comment, a Python literal. Each kind is
    one pattern opening with a literal, the regex engine's fastest search. ``None`` when there
    are more than the sparse route is worth (`SPARSE_CHARS_PER_FIX`)."""
    budget = len(chunk) // SPARSE_CHARS_PER_FIX + SPARSE_MIN_FIXES
    found: list[tuple[int, str]] = []
    for pattern in (_COLON_AFTER_WORD, _TRAILING_COMMA_AT, _SINGLE_QUOTE, _COMMENT_OR_PY_WORD):
        left = budget - len(found) + 1
        found += [(m.start(), m.group()[0]) for m in islice(pattern.finditer(chunk), left)]
        if len(found) > budget:
            return None
    found.sort()
    return found


def _escaped_quotes(chunk: str) -> list[int]:
    """Positions of the double quotes a backslash escapes (an odd run of backslashes)."""
    out = []
    for m in _ESCAPED_QUOTE.finditer(chunk):
        i = m.start()
        if i and chunk[i - 1] == "\\" and escaped_at(chunk, i):  # `\\\"`: itself escaped
            continue
        out.append(i + 1)
    return out


Fix = tuple[int, int, str, str]
"""``(start, stop, replacement, repair name)`` of one rewrite in the sparse route."""


def _sparse_fix(chunk: str, p: int, kind: str) -> Fix | None:
    """The rewrite of the possible defect ``kind`` at ``p``, which lies outside any string
    (``None``: the text stays as it is, as `_fix_token` would keep it)."""
    if kind == ",":
        return p, p + 1, "", "trailing_comma"
    if kind == "'":
        m = _SINGLE_QUOTED.match(chunk, p)
        if m is None:
            return None
        return p, m.end(), _double_quoted(m.group()), "single_quotes"
    if kind in "#/":
        end = chunk.find("\n", p)
        return p, len(chunk) if end < 0 else end, "", "comment"
    if kind == ":":
        j = p
        while j and chunk[j - 1] in " \t":
            j -= 1
        k = j
        while k and chunk[k - 1] in _WORD_CHARS:
            k -= 1
        word = chunk[k:j]
        if not word or word[0].isdigit() or word in _PY_JSON:
            return None  # no key, a number, or a Python key the decoder cannot take
        return k, j, '"' + word + '"', "unquoted_key"
    word = _PY_WORD[kind]
    end = p + len(word)
    if (p and chunk[p - 1] in _WORD_CHARS) or chunk[end : end + 1] in _WORD_CHARS:
        return None  # part of a longer word
    after = end
    while chunk[after : after + 1] in (" ", "\t"):
        after += 1
    if chunk[after : after + 1] == ":":
        return None  # `{True: 1}`: a key, kept for the scanner
    return p, end, _PY_JSON[word], "python_literal"


def _rewrite_sparse(chunk: str, start: int, log: RepairLog) -> str | Literal[False] | None:
    """`_rewrite` for a document with few defects among many strings (a long export with
    a trailing comma every few records): only the possible defects are looked at, each told
    inside or outside a string by counting the double quotes since the last one, at C speed.
    No list of the strings is built, so the cost is a few passes over the text plus one
    Python step per possible defect. ``False`` when there are too many of those."""
    found = _candidates(chunk)
    if found is None:
        return False
    escaped = _escaped_quotes(chunk)
    pieces: list[str] = []
    fixes: list[tuple[int, str]] = []
    done = 0  # chunk[:done] is in pieces
    counted = 0  # double quotes are counted up to here
    inside = False
    unclosed = -1  # single quotes before here open no string
    for p, kind in found:
        if p < counted:
            continue  # inside a comment or single-quoted string just rewritten
        quotes = chunk.count('"', counted, p)
        if escaped:
            quotes -= bisect_left(escaped, p) - bisect_left(escaped, counted)
        counted = p
        inside ^= quotes % 2 == 1
        if inside or (kind == "'" and p < unclosed):
            continue
        fix = _sparse_fix(chunk, p, kind)
        if fix is None and kind == "'":
            # No closing quote on this line: none of the later quotes on it (each the second
            # character of an escape this one read past) has one either. Not trying them keeps
            # a line of `\'` linear.
            eol = chunk.find("\n", p)
            unclosed = len(chunk) if eol < 0 else eol
        if fix is None or fix[0] < done:
            continue
        a, b, replacement, name = fix
        pieces += (chunk[done:a], replacement)
        fixes.append((start + a, name))
        done = b
        counted = max(counted, b)
    rest = chunk.count('"', counted) - (len(escaped) - bisect_left(escaped, counted))
    if inside ^ (rest % 2 == 1):
        return False  # a string left open: the quotes cannot tell inside from outside
    if not fixes:
        return None
    pieces.append(chunk[done:])
    kept = fixes[:MAX_BULK_RECORDED]
    log.add_many([name for _at, name in kept], [at for at, _name in kept])
    log.count += len(fixes) - len(kept)
    return "".join(pieces)


def _plain_quotes(chunk: str) -> bool:
    """No escaped quote (an escaped backslash is fine: JSON reads it alike) and no mask."""
    if _QUOTE_MASK in chunk:
        return False
    # A backslash before a quote must itself be escaped: then the quote is not.
    return all(escaped_at(chunk, m.start()) for m in _ESCAPED_ANY_QUOTE.finditer(chunk))


def _rewrite_single_quoted(
    chunk: str, start: int, log: RepairLog, quotes: int
) -> str | Literal[False] | None:
    """`_rewrite` for a Python ``repr`` (strings single-quoted, no escapes; ``quotes``
    single quotes): swapping the quotes is one ``str.replace`` (a double quote, which can only
    be text inside a string, is masked meanwhile), and what is left to rewrite (``True``,
    ``None``, keys) lies between the strings. ``False`` when this route cannot tell (an odd
    number of quotes)."""
    if quotes % 2:
        return False
    # Every other quote opens a string; only the first ones are listed.
    first = islice(_SINGLE_QUOTE.finditer(chunk), 0, 2 * MAX_BULK_RECORDED, 2)
    opens = [(start + m.start(), "single_quotes") for m in first]
    before = opens[-1][0] if len(opens) == MAX_BULK_RECORDED else None
    swapped = chunk.replace('"', _QUOTE_MASK).replace("'", '"')
    got = _outside_rewrite(swapped, start, before=before)
    if got is False:
        return False
    fixed, at, names, total = got or (swapped, [], [], 0)
    merged = sorted(opens + list(zip(at, names, strict=True)))[:MAX_BULK_RECORDED]
    log.add_many([name for _pos, name in merged], [pos for pos, _name in merged])
    log.count += quotes // 2 + total - len(merged)
    # A double quote was text inside a single-quoted string; anywhere else the escape makes the
    # decode fail, and the general route reads the document.
    return fixed.replace(_QUOTE_MASK, '\\"')


def bulk_decode(text: str, start: int, stop: int, log: RepairLog) -> tuple[Any, int] | None:
    """The value of ``text[start:stop]`` after rewriting its lexical defects, with one repair
    recorded per rewrite, or ``None`` (nothing recorded) when the result is not exactly one
    JSON value."""
    hint = _HINTS.search(text, start, stop) if stop - start <= MAX_BULK_CHARS else None
    if hint is None:
        return None
    attempt = RepairLog()
    chunk = text if start == 0 and stop == len(text) else text[start:stop]
    fixed: str | Literal[False] | None = False
    singles, doubles = chunk.count("'"), chunk.count('"')
    commas_left = False
    # A first defect that is an unquoted key promises a key on every line (a JavaScript
    # object): the sparse route would only count them and give up.
    keyed = hint.group()[0] in "{," and _KEY_COLON.match(text, hint.end() - 1) is not None
    if doubles > singles and not keyed:
        # Mostly double-quoted strings: a few defects are looked at one by one.
        fixed = _rewrite_sparse(chunk, start, attempt)
    if fixed is False:
        if singles > doubles and _plain_quotes(chunk):
            fixed = _rewrite_single_quoted(chunk, start, attempt, singles)
        elif doubles > singles:
            # Many defects between double-quoted strings (unquoted keys): set them aside first.
            # Looking at every comma costs a tenth of the rewrite, and a JavaScript object
            # seldom has a trailing one: that is left to a second try if the decode fails.
            fixed = _rewrite_outside(chunk, start, attempt, commas=False)
            commas_left = True
    if fixed is False:
        attempt = RepairLog()
        fixed = _rewrite(chunk, start, attempt)
    got = _value_of(fixed)
    if got is None and commas_left and _TRAILING_COMMA_AT.search(chunk) is not None:
        attempt = RepairLog()
        got = _value_of(_rewrite_outside(chunk, start, attempt))
    if got is None:
        return None
    log.extend(attempt)
    end = stop
    while end > start and text[end - 1].isspace():
        end -= 1
    return got[0], end


def _value_of(fixed: str | Literal[False] | None) -> tuple[Any] | None:
    """``(value,)`` of a rewritten text, ``None`` when there is none or it is not JSON."""
    if not isinstance(fixed, str):
        return None
    try:
        return (json.loads(fixed),)
    except (ValueError, RecursionError):
        return None
