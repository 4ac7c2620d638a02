"""The closed set of repair names the JSON engine reports, each with a one-line example.

Every name a JSON rule writes into a :class:`~langchain_robust_parsers.engine.report.ParseReport`
is listed here; ``tests/test_repair_names.py`` decodes every example, checks that it reports its
name, and fails on a name written anywhere in ``engine/json`` that this table lacks.
"""

from __future__ import annotations

from typing import Literal, get_args

JsonRepairName = Literal[
    "bom",
    "comment",
    "control_character",
    "double_encoded",
    "doubled_quote",
    "ellipsis",
    "escaped_quotes",
    "extra_closer",
    "extra_comma",
    "fullwidth_quote",
    "hex_number",
    "inner_quote",
    "invalid_escape",
    "js_constructor",
    "leading_zero",
    "mismatched_closer",
    "misplaced_quote",
    "missing_closer",
    "missing_colon",
    "missing_comma",
    "missing_opener",
    "missing_quote",
    "missing_value",
    "number_format",
    "python_literal",
    "python_set",
    "single_quotes",
    "smart_quotes",
    "spaced_key",
    "stray_quote",
    "stray_text",
    "string_concat",
    "think_block",
    "thousands_separator",
    "trailing_comma",
    "triple_quotes",
    "tuple",
    "unicode_space",
    "unquoted_key",
    "unquoted_string",
]

REPAIR_EXAMPLES: dict[JsonRepairName, str] = {
    # name: an input on which the rule fires (the one-line example of what it repairs)
    "bom": '\ufeff{"a": 1}',
    "comment": '{"a": 1 // the answer\n}',
    "control_character": '{"a": "line one\nline two"}',
    "double_encoded": '"{\\"a\\": 1}"',
    "doubled_quote": '{""key"": 1}',
    "ellipsis": "[1, 2, ...]",
    "escaped_quotes": '{\\"a\\": 1}',
    "extra_closer": '{"a": {"b": 1}}}, "c": 2}',
    "extra_comma": "[1,, 2]",
    "fullwidth_quote": "{＂a＂: 1}",
    "hex_number": '{"color": 0xFF}',
    "inner_quote": '{"say": "he said "hi" to me"}',
    "invalid_escape": '{"path": "C:\\Users\\x"}',
    "js_constructor": '{"_id": ObjectId("5f1d"), "at": new Date(0)}',
    "leading_zero": '{"zip": 02134}',
    "mismatched_closer": '{"a": ["x", "y"}, "b": 1}',
    "misplaced_quote": '{"key:"value"}',
    "missing_closer": '```json\n{"a": [1, 2\n```',
    "missing_colon": '{"a" 1}',
    "missing_comma": '{"a": 1 "b": 2}',
    "missing_opener": '["key": "value"]',
    "missing_quote": '{"a": "New York, "b": 2}',
    "missing_value": '{"a": , "b": 2}',
    "number_format": '{"a": .5}',
    "python_literal": "{'a': True, 'b': None}",
    "python_set": "{'tags': {1, 2}}",
    "single_quotes": "{'a': 'b'}",
    "smart_quotes": "{“a”: “b”}",
    "spaced_key": "{first name: 'Ada'}",
    "stray_quote": '{"a": 12345", "b": 1}',
    "stray_text": '{COMMENT "a": 1}',
    "string_concat": "{'a': 'x' + 'y'}",
    "think_block": '<think>let me see</think>{"a": 1}',
    "thousands_separator": '{"price": 1,299.99}',
    "trailing_comma": '{"a": 1,}',
    "triple_quotes": '{"a": """two\nlines"""}',
    "tuple": "{'a': (1, 2)}",
    "unicode_space": '{"a":\u3000"b"}',
    "unquoted_key": "{a: 1}",
    "unquoted_string": '{"a": hello}',
}

REPAIR_NAMES: frozenset[str] = frozenset(get_args(JsonRepairName))
