"""Deliberate differences between ``loads`` and json_repair's conventions on the conformance cases.

``benchmarks/conformance.py`` scores ``loads`` on 250 cases extracted from json_repair's test
suite. Where DESIGN.md ("JSON conventions") chooses differently from json_repair, the case is
listed here, keyed by its exact input, with a one-line reason and the value we return instead
(``RAISES`` for an ``OutputParserException``, ``UNPINNED`` when only "not json_repair's value" is
claimed). The scorer checks that each listed case really behaves as documented.

Not listed, because a rule in the scorer covers them: the 11 cases where json_repair returns
``""`` for text with no JSON in it; raising ``OutputParserException`` there is scored as a pass
(DESIGN: "No JSON value in the text: raise").

Entries marked ``judgement=True`` are choices DESIGN.md does not spell out, derived from a rule it
does state; drop one if the engine ends up matching json_repair there. At most 30 entries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


RAISES: Final = _Marker("RAISES")
"""We raise ``OutputParserException`` on this input."""
UNPINNED: Final = _Marker("UNPINNED")
"""We claim only that we differ from json_repair here, not which value we return."""


@dataclass(frozen=True)
class Difference:
    reason: str
    ours: Any = UNPINNED
    judgement: bool = False


DELIBERATE: dict[str, Difference] = {
    # --- Several top-level values: "the first complete one" (DESIGN: Several top-level values).
    '[]{"key":"value"}': Difference(
        "several top-level values: we return the first ([]); json_repair skips empty containers",
        [],
    ),
    '{"key":"value"}[1,2,3,True]': Difference(
        "several top-level values: we return the first; json_repair returns a list of all",
        {"key": "value"},
    ),
    '{"key":"value"}, {"key":"value_after"}': Difference(
        "several top-level values: we return the first; json_repair returns a list of all",
        {"key": "value"},
    ),
    'lorem ```json {"key":"value"} ``` ipsum ```json [1,2,3,True] ``` 42': Difference(
        "several fenced blocks: we return the first; json_repair returns a list of all",
        {"key": "value"},
    ),
    '[{"key":"value"}][{"key":"value_after"}]': Difference(
        "several top-level values: we return the first; json_repair keeps the last of one shape",
        [{"key": "value"}],
    ),
    '{"key": "value"}, ["abc"]': Difference(
        "several top-level values: we return the first; json_repair returns a list of all",
        {"key": "value"},
    ),
    # --- Truncation: "completed, as LangChain does" (DESIGN: Truncated input).
    '{"key": "val\\': Difference(
        "cut after a backslash: the unfinished escape is dropped, as LangChain does; "
        "json_repair keeps a literal backslash",
        {"key": "val"},
    ),
    '{"key": "val\\n': Difference(
        "an open string is closed as it stands (LangChain keeps the escaped newline); "
        "json_repair strips it",
        {"key": "val\n"},
    ),
    '{"key": "val\\n123,`key2:value2': Difference(
        "an open string runs to the end of the cut-off text (LangChain); json_repair invents "
        "a member from its contents",
        {"key": "val\n123,`key2:value2"},
    ),
    '["': Difference(
        'an open string is closed, so `["` holds an empty string (LangChain: [""]); '
        "json_repair drops it",
        [""],
    ),
    '[{"key": "value", "key': Difference(
        "an unfinished key is dropped (DESIGN); json_repair turns it into a new array element",
        [{"key": "value"}],
    ),
    # --- Judgement calls: DESIGN.md is silent; derived from the rules it does state.
    '["value1" value2", "value3"]': Difference(
        "in a list, a quote followed by a word that a later quote closes is part of the string "
        '(inch marks: `["27" display"]`, json_repair#152, which json_repair still splits)',
        ['value1" value2', "value3"],
        judgement=True,
    ),
    '{"bad_one":["Lorem Ipsum", "consectetur" comment" ], "good_one":[ "elit", "sed", '
    '"tempor"]}': Difference(
        'the same rule as json_repair#152: `"consectetur" comment"` is one string',
        {"bad_one": ["Lorem Ipsum", 'consectetur" comment'], "good_one": ["elit", "sed", "tempor"]},
        judgement=True,
    ),
    '{"key": "```json {"key": [{"key1": 1},{"key2": 2}]}```"}': Difference(
        "JSON inside a member string is not decoded (DESIGN decodes double-encoded JSON only as "
        "the payload); json_repair parses the fenced block in the string",
        judgement=True,
    ),
    '{ "key": { "key2": "value2" # comment }, "key3": "value3" }': Difference(
        "a `#` comment runs to the end of the line, like `//` (json_repair itself does so for "
        "`//`); json_repair ends a `#` comment at the next brace",
        {"key": {"key2": "value2"}},
        judgement=True,
    ),
    "[{]": Difference(
        "a mismatched closer closes the open containers and keeps what they hold "
        "(DESIGN: missing or extra closers); json_repair drops the empty object",
        [{}],
        judgement=True,
    ),
    '{"key": "v"alue"}': Difference(
        "the quote before the closing brace ends the string (json_repair does so itself for "
        '`"v"alue", ...`); json_repair keeps it as content here',
        {"key": 'v"alue'},
        judgement=True,
    ),
    # --- A missing value is null (DESIGN: "A missing value (`{"a": }`) is `null`").
    '{"key": true, "key2": false, "key3": }': Difference(
        "a missing value is null (DESIGN), so a schema sees no value rather than an empty "
        'answer; json_repair gives ""',
        {"key": True, "key2": False, "key3": None},
    ),
    '{"key": , "key2": "value2"}': Difference(
        'a missing value is null (DESIGN); json_repair gives ""',
        {"key": None, "key2": "value2"},
    ),
    '{"key": "value"}, "key2": }': Difference(
        'a missing value is null (DESIGN); json_repair gives ""',
        {"key": "value", "key2": None},
    ),
}

MAX_ENTRIES: Final = 20
"""Issue 14: the deliberate-difference list has at most 20 entries."""
