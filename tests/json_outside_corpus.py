# ruff: noqa: E501  (a data file: one case a line reads best)
"""An outside-style corpus: what models write when asked for JSON, and the value a user wants.

Written for this project from reading what chat models emit (fenced answers, Python reprs,
JavaScript objects, Mongo shell output, answers cut off by ``max_tokens``) and from the
behaviours other JSON-repair and partial-JSON libraries document; no case is copied from another
project's test suite. Each case is ``(id, text, expected)``; ``tests/test_json_outside_corpus.py``
runs them all through :func:`langchain_robust_parsers.loads`.
"""

from __future__ import annotations

from typing import Any

Case = tuple[str, str, Any]

VALID: list[Case] = [
    ("valid-object", '{"name": "Ada", "age": 36}', {"name": "Ada", "age": 36}),
    ("valid-list", "[1, 2, 3]", [1, 2, 3]),
    ("valid-nested", '{"a": {"b": [true, false, null]}}', {"a": {"b": [True, False, None]}}),
    (
        "valid-unicode",
        '{"city": "Zürich", "emoji": "\\ud83d\\ude00"}',
        {"city": "Zürich", "emoji": "😀"},
    ),
    ("valid-empty-object", "{}", {}),
    ("valid-empty-list", "[]", []),
    ("valid-number", "42", 42),
    ("valid-string", '"hello"', "hello"),
    ("valid-float-exp", '{"x": 1.5e-3}', {"x": 0.0015}),
    ("valid-whitespace", '\n\n  {"a": 1}  \n', {"a": 1}),
]

LOCATE: list[Case] = [
    ("fence-json", 'Here you go:\n```json\n{"ok": true}\n```', {"ok": True}),
    ("fence-no-tag", '```\n{"ok": true}\n```\nLet me know!', {"ok": True}),
    ("fence-upper-tag", '```JSON\n{"ok": 1}\n```', {"ok": 1}),
    ("fence-tilde", "~~~json\n[1, 2]\n~~~", [1, 2]),
    ("fence-unclosed", '```json\n{"ok": true}\n', {"ok": True}),
    ("prose-before", 'Sure! The result is {"score": 0.9}', {"score": 0.9}),
    ("prose-after", '{"score": 0.9}\nI hope this helps.', {"score": 0.9}),
    ("prose-braces-first", 'Fill {name} in: {"name": "Bob"}', {"name": "Bob"}),
    ("think-block", '<think>The user wants JSON.</think>\n{"a": 1}', {"a": 1}),
    ("thinking-block", '<thinking>hmm {"x": 0}</thinking>{"a": 2}', {"a": 2}),
    ("lone-think-close", 'reasoning here</think>\n{"a": 3}', {"a": 3}),
    ("json-tag", '<json>{"a": 4}</json>', {"a": 4}),
    ("output-tag", "Answer: <output>[5]</output>", [5]),
    ("fence-after-think", '<think>x</think>\n```json\n{"a": 6}\n```', {"a": 6}),
    ("prose-list", "The ids are [3, 4, 5].", [3, 4, 5]),
    (
        "fence-with-prose-inside-string",
        '```json\n{"note": "use ``` for code"}\n```',
        {"note": "use ``` for code"},
    ),
]

SYNTAX: list[Case] = [
    ("trailing-comma-object", '{"a": 1, "b": 2,}', {"a": 1, "b": 2}),
    ("trailing-comma-list", "[1, 2, 3,]", [1, 2, 3]),
    ("trailing-comma-nested", '{"a": [1, 2,], "b": {"c": 3,},}', {"a": [1, 2], "b": {"c": 3}}),
    ("line-comment", '{\n  "a": 1, // first\n  "b": 2\n}', {"a": 1, "b": 2}),
    ("block-comment", '{"a": /* the answer */ 42}', {"a": 42}),
    ("hash-comment", '{\n  "a": 1  # python style\n}', {"a": 1}),
    ("comment-with-quotes", '{\n  // the "main" value\n  "a": 1\n}', {"a": 1}),
    (
        "comment-quotes-then-spaced-key",
        '{\n// set the "x" field\nfull name: "Ada"\n}',
        {"full name": "Ada"},
    ),
    ("single-quotes", "{'a': 'b'}", {"a": "b"}),
    ("single-quotes-apostrophe", "{'text': \"it's fine\"}", {"text": "it's fine"}),
    ("smart-quotes", "{“name”: “Ada”}", {"name": "Ada"}),
    ("smart-single-quotes", "{‘name’: ‘Ada’}", {"name": "Ada"}),
    ("fullwidth-quotes", "{＂name＂: ＂Ada＂}", {"name": "Ada"}),
    ("unquoted-keys", "{name: 'Ada', age: 36}", {"name": "Ada", "age": 36}),
    ("unquoted-keys-js", "{id: 1, tags: ['a', 'b']}", {"id": 1, "tags": ["a", "b"]}),
    ("missing-comma-members", '{"a": 1\n"b": 2}', {"a": 1, "b": 2}),
    ("missing-comma-items", '["a" "b" "c"]', ["a", "b", "c"]),
    ("missing-colon", '{"a" 1}', {"a": 1}),
    ("extra-comma", "[1,, 2]", [1, 2]),
    ("leading-comma-object", '{, "a": 1}', {"a": 1}),
    ("bom-start", '\ufeff{"a": 1}', {"a": 1}),
    ("bom-inside", '{"a":\ufeff 1}', {"a": 1}),
    ("nbsp-between", '{"a":\u00a01}', {"a": 1}),
    ("ideographic-space", '{"a":\u30001,\u3000"b": 2}', {"a": 1, "b": 2}),
    ("em-space", '{\u2003"a": "x"\u2003}', {"a": "x"}),
    ("zero-width-space", '{"a":\u200b"x"}', {"a": "x"}),
    ("narrow-nbsp", "[1,\u202f2]", [1, 2]),
    ("mongolian-vowel-separator", "[1,\u180e2]", [1, 2]),
    ("medium-math-space", '{"k"\u205f: 3}', {"k": 3}),
    ("ellipsis-list", "[1, 2, ...]", [1, 2]),
    ("ellipsis-object", '{"a": 1, ...}', {"a": 1}),
    ("escaped-document", '{\\"a\\": \\"b\\"}', {"a": "b"}),
    ("double-encoded", '"{\\"a\\": 1}"', {"a": 1}),
    ("tuple", "{'point': (1, 2)}", {"point": [1, 2]}),
    ("python-set-of-strings", "{'red', 'green'}", ["red", "green"]),
    ("python-set-of-ints", "{'ids': {3, 5, 8}}", {"ids": [3, 5, 8]}),
    ("python-set-one-number", "{'best': {42}, 'n': 1}", {"best": [42], "n": 1}),
    ("python-set-in-list", "[{1.5, -2}, {0}]", [[1.5, -2], [0]]),
    ("python-set-literals", "{'flags': {True, None}}", {"flags": [True, None]}),
    ("python-set-one-string", "{'tags': {'solo'}}", {"tags": ["solo"]}),
    ("python-set-cut-off", "{'ids': {1, 2", {"ids": [1, 2]}),
    ("python-set-root", "{7, 11, 13}", [7, 11, 13]),
]

LITERALS: list[Case] = [
    (
        "python-true-false-none",
        "{'a': True, 'b': False, 'c': None}",
        {"a": True, "b": False, "c": None},
    ),
    ("upper-literals", '{"a": TRUE, "b": NULL}', {"a": True, "b": None}),
    ("undefined", '{"a": undefined}', {"a": None}),
    (
        "python-repr-nested",
        "{'user': {'name': 'Ada', 'tags': ['x', 'y'], 'admin': False}}",
        {"user": {"name": "Ada", "tags": ["x", "y"], "admin": False}},
    ),
    (
        "python-repr-list-of-dicts",
        "[{'id': 1, 'ok': True}, {'id': 2, 'ok': None}]",
        [{"id": 1, "ok": True}, {"id": 2, "ok": None}],
    ),
    (
        "python-triple-double",
        '{"doc": """first line\nsecond line"""}',
        {"doc": "first line\nsecond line"},
    ),
    ("python-triple-single", "{'doc': '''a 'quoted' word'''}", {"doc": "a 'quoted' word"}),
    ("python-concat", "{'a': 'hello ' + 'world'}", {"a": "hello world"}),
    ("python-implicit-concat", "{'a': 'hello ' 'world'}", {"a": "hello world"}),
    (
        "mongo-objectid",
        '{"_id": ObjectId("507f1f77bcf86cd799439011")}',
        {"_id": "507f1f77bcf86cd799439011"},
    ),
    (
        "mongo-isodate",
        '{"created": ISODate("2024-01-02T03:04:05Z")}',
        {"created": "2024-01-02T03:04:05Z"},
    ),
    ("mongo-numberlong", '{"n": NumberLong(42)}', {"n": 42}),
    ("mongo-numberlong-string", '{"n": NumberLong("42")}', {"n": "42"}),
    ("mongo-numberint", '{"n": NumberInt(7)}', {"n": 7}),
    ("mongo-numberdecimal", '{"price": NumberDecimal("9.99")}', {"price": "9.99"}),
    ("js-new-date", '{"at": new Date(1700000000000)}', {"at": 1700000000000}),
    ("js-new-date-string", "{at: new Date('2024-05-01')}", {"at": "2024-05-01"}),
    (
        "mongo-document",
        '{\n  "_id": ObjectId("65a1"),\n  "qty": NumberInt(3),\n  "when": ISODate("2024-01-01")\n}',
        {"_id": "65a1", "qty": 3, "when": "2024-01-01"},
    ),
    ("nan-infinity", '{"a": NaN, "b": Infinity}', None),
]

NUMBERS: list[Case] = [
    ("leading-dot", '{"p": .5}', {"p": 0.5}),
    ("trailing-dot", '{"p": 2.}', {"p": 2.0}),
    ("plus-sign", '{"delta": +3}', {"delta": 3}),
    ("hex", '{"mask": 0xFF}', {"mask": 255}),
    ("hex-lower", '{"mask": 0x1f}', {"mask": 31}),
    ("leading-zero-zip", '{"zip": 02134}', {"zip": "02134"}),
    ("leading-zero-id", '{"id": 007}', {"id": "007"}),
    ("thousands", '{"population": 1,234,567}', {"population": 1234567}),
    ("thousands-fraction", '{"price": 1,299.99, "qty": 2}', {"price": 1299.99, "qty": 2}),
    (
        "thousands-negative-in-list",
        '[{"a": -100.00}, {"a": -2,000.00}]',
        [{"a": -100.0}, {"a": -2000.0}],
    ),
    ("thousands-list-zero-group", "[1,000, 2,000]", [1000, 2000]),
    ("lone-minus", '{"delta": -, "n": 1}', {"delta": None, "n": 1}),
    ("underscore-digits", '{"n": 1_000_000}', {"n": 1000000}),
    ("negative-exp", '{"eps": 1e-9}', {"eps": 1e-9}),
    ("number-then-quote", '{"a": 12345", "b": 1}', {"a": 12345, "b": 1}),
    ("dangling-exponent", '{"a": 1e, "b": 2}', {"a": 1, "b": 2}),
]

STRINGS: list[Case] = [
    # A quote followed by words that run to the end of a cut-off answer, with no quote after them:
    # the quote closed the value (the words are a key the cut-off left unfinished).
    ("closed-then-cut-words", '{"city": "Paris, France" and', {"city": "Paris, France"}),
    ("closed-then-cut-nested", '{"a": {"b": "x, y" note', {"a": {"b": "x, y"}}),
    (
        "closed-then-cut-after-members",
        '{"n": 1, "list": "a}b}c" extra words',
        {"n": 1, "list": "a}b}c"},
    ),
    (
        "doubled-open-quote-key",
        '{"" note": "check sizes", "n": 2}',
        {" note": "check sizes", "n": 2},
    ),
    ("doubled-open-quote-key-cut", '{"id": 7, "" label":"x', {"id": 7, " label": "x"}),
    ("empty-key-kept", '{"": "blank", "" : 0}', {"": 0}),
    ("inner-quote-then-quote-later", '{"q": "a "b c" d", "n": 2}', {"q": 'a "b c" d', "n": 2}),
    ("inner-quotes", '{"say": "he said "hi" to me"}', {"say": 'he said "hi" to me'}),
    (
        "inner-quotes-end",
        '{"title": "The "Best" Movie", "year": 2001}',
        {"title": 'The "Best" Movie', "year": 2001},
    ),
    ("literal-newline", '{"poem": "roses\nare red"}', {"poem": "roses\nare red"}),
    ("literal-tab", '{"a": "x\ty"}', {"a": "x\ty"}),
    ("invalid-escape", '{"path": "C:\\Windows\\system"}', {"path": "C:\\Windows\\system"}),
    ("escaped-apostrophe", "{'a': 'it\\'s'}", {"a": "it's"}),
    ("spaced-apostrophe", "{'a': 'it'   s'}", {"a": "it'   s"}),
    ("single-quote-inner-apostrophe", "{'a': 'don't stop'}", {"a": "don't stop"}),
    (
        "missing-close-before-key",
        '{"city": "New York, "zip": "10001"}',
        {"city": "New York", "zip": "10001"},
    ),
    ("missing-quote-list", '[\n"abc,\n"def"\n]', ["abc", "def"]),
    ("missing-quote-list-three", '[\n  "one,\n  "two",\n  "three"\n]', ["one", "two", "three"]),
    ("bare-word-after-item", '["this", that]', ["this", "that"]),
    ("bare-words-list", '["red", green, "blue"]', ["red", "green", "blue"]),
    ("unquoted-value", '{"status": ok}', {"status": "ok"}),
    ("unquoted-value-phrase", '{"status": all good, "n": 1}', {"status": "all good", "n": 1}),
    ("newline-in-key", '{"first\nname": "Ada"}', {"first\nname": "Ada"}),
    ("space-in-key", '{"first name": "Ada"}', {"first name": "Ada"}),
    (
        "spaced-unquoted-key",
        "{first name: 'Ada', last name: 'Lovelace'}",
        {"first name": "Ada", "last name": "Lovelace"},
    ),
    ("doubled-quotes-key", '{""key"": "v"}', {"key": "v"}),
    ("smart-quote-inside", '{"a": "the “best” one"}', {"a": "the “best” one"}),
    ("url-with-slashes", '{"url": "http://x.org/a//b"}', {"url": "http://x.org/a//b"}),
    ("hash-in-string", '{"tag": "#1 pick"}', {"tag": "#1 pick"}),
    ("braces-in-string", '{"tpl": "Hello {name}!"}', {"tpl": "Hello {name}!"}),
    ("markdown-in-string", '{"md": "**bold** and `code`"}', {"md": "**bold** and `code`"}),
]

STRUCTURE: list[Case] = [
    ("missing-closer-object", '{"a": {"b": 1}', {"a": {"b": 1}}),
    ("missing-closer-list", '{"a": [1, 2}', {"a": [1, 2]}),
    ("mismatched-closer", '{"a": ["x", "y"}, "b": 1}', {"a": ["x", "y"], "b": 1}),
    ("extra-closer-end", '{"a": 1}}', {"a": 1}),
    (
        "extra-closer-inside",
        '{"items":[{"a":{"b":1}}}],"size":50}',
        {"items": [{"a": {"b": 1}}], "size": 50},
    ),
    ("extra-closer-before-member", '{"a": {"b": 1}}}, "c": 2}', {"a": {"b": 1}, "c": 2}),
    ("early-root-close", '{"a": 1}, "b": 2}', {"a": 1, "b": 2}),
    ("object-in-list-brackets", '["key": "value"]', [{"key": "value"}]),
    ("list-not-closed-before-key", '{"a": [1, 2, "b": 3}', {"a": [1, 2], "b": 3}),
    ("unclosed-object-in-list", '[{"id": 1, {"id": 2}]', [{"id": 1}, {"id": 2}]),
    (
        "deep-ok",
        '{"a": {"b": {"c": {"d": [1, {"e": null}]}}}}',
        {"a": {"b": {"c": {"d": [1, {"e": None}]}}}},
    ),
    ("misplaced-colon-quote", '{"key:"value"}', {"key": "value"}),
    ("missing-value-null", '{"a": , "b": 2}', {"a": None, "b": 2}),
    ("missing-value-end", '{"a": 1, "b": }', {"a": 1, "b": None}),
    ("missing-value-newline", '{\n  "a":\n}', {"a": None}),
]

TRUNCATED: list[Case] = [
    ("cut-in-string", '{"answer": "The capital is Par', {"answer": "The capital is Par"}),
    ("cut-after-colon", '{"a": 1, "b":', {"a": 1}),
    ("cut-in-key", '{"a": 1, "bb', {"a": 1}),
    ("cut-in-literal", '{"a": tr', {"a": True}),
    ("cut-in-list", '{"items": [1, 2, 3', {"items": [1, 2, 3]}),
    ("cut-after-comma", '[{"id": 1}, {"id": 2},', [{"id": 1}, {"id": 2}]),
    ("cut-number-dot", '{"a": 2.', {"a": 2}),
    ("cut-number-exp", '{"a": 1e', {"a": 1}),
    ("cut-minus", '{"a": -', {}),
    ("cut-escape", '{"a": "x\\', {"a": "x"}),
    ("cut-unicode-escape", '{"a": "x\\u00', {"a": "x"}),
    ("cut-fenced", '```json\n{"a": [1, 2', {"a": [1, 2]}),
    ("cut-nested", '{"a": {"b": {"c": "d', {"a": {"b": {"c": "d"}}}),
    ("top-string-cut", '"abc', "abc"),
    ("top-number-cut", "2.", 2),
    ("top-string-newline", '"hello\nworld"', "hello\nworld"),
    ("top-negative-cut", "-12.", -12),
    ("cut-after-key-colon-space", '{"name": "Ada", "age": ', {"name": "Ada"}),
]

SEVERAL: list[Case] = [
    ("ndjson", '{"a": 1}\n{"a": 2}\n{"a": 3}', {"a": 1}),
    ("two-objects-comma", '{"a": 1}, {"a": 2}', {"a": 1}),
    ("two-lists", "[1][2]", [1]),
    ("two-fences", '```json\n{"a": 1}\n```\nand\n```json\n{"b": 2}\n```', {"a": 1}),
]

MULTILINE: list[Case] = [
    (
        "unquoted-multiline-value",
        '{"text": first paragraph\n\nsecond paragraph\n}',
        {"text": "first paragraph\n\nsecond paragraph"},
    ),
    (
        "unquoted-multiline-then-key",
        '{"body": line one\nline two,\n"n": 1}',
        {"body": "line one\nline two", "n": 1},
    ),
]

REALISTIC: list[Case] = [
    (
        "gpt-style-answer",
        'Certainly! Here is the JSON you asked for:\n\n```json\n{\n  "title": "Dune",\n  "year": 1965,\n  "genres": ["sci-fi", "adventure"],\n}\n```\n\nLet me know if you need anything else.',
        {"title": "Dune", "year": 1965, "genres": ["sci-fi", "adventure"]},
    ),
    (
        "llama-python-dict",
        "Here's the data: {'name': 'Widget', 'price': 9.99, 'in_stock': True, 'tags': ('a', 'b')}",
        {"name": "Widget", "price": 9.99, "in_stock": True, "tags": ["a", "b"]},
    ),
    (
        "qwen-think-then-json",
        '<think>\nThe user wants a rating.\n</think>\n\n{"rating": 4, "reason": "good"}',
        {"rating": 4, "reason": "good"},
    ),
    (
        "js-config",
        "{\n  // server\n  host: 'localhost',\n  port: 8080,\n  debug: true,\n}",
        {"host": "localhost", "port": 8080, "debug": True},
    ),
    (
        "invoice",
        '{"invoice": "INV-001", "total": 12,450.50, "currency": "USD"}',
        {"invoice": "INV-001", "total": 12450.5, "currency": "USD"},
    ),
    (
        "extraction-with-quotes",
        '{"quote": "She said "no" twice", "speaker": "Ann"}',
        {"quote": 'She said "no" twice', "speaker": "Ann"},
    ),
    (
        "classification",
        '```json\n{"label": "spam", "confidence": .92}\n```',
        {"label": "spam", "confidence": 0.92},
    ),
    (
        "tool-args",
        '{"location": "Paris", "unit": celsius}',
        {"location": "Paris", "unit": "celsius"},
    ),
    (
        "list-of-records",
        '[\n  {"id": 1, "name": "a"},\n  {"id": 2, "name": "b"},\n]',
        [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}],
    ),
    (
        "mongo-find-output",
        '[{ "_id" : ObjectId("a1"), "n" : NumberLong(5) }, { "_id" : ObjectId("a2"), "n" : NumberLong(6) }]',
        [{"_id": "a1", "n": 5}, {"_id": "a2", "n": 6}],
    ),
    (
        "unicode-spaces-doc",
        '{\u3000"name":\u3000"田中",\u3000"age":\u300030\u3000}',
        {"name": "田中", "age": 30},
    ),
    (
        "gemma-fenced-python",
        "```python\n{'ok': True, 'items': [1, 2]}\n```",
        {"ok": True, "items": [1, 2]},
    ),
    (
        "cut-off-answer",
        'Sure:\n```json\n{"summary": "The report covers Q1 and Q2 resul',
        {"summary": "The report covers Q1 and Q2 resul"},
    ),
    ("deepseek-reasoning-tag", '<reasoning>count the items</reasoning>{"count": 3}', {"count": 3}),
    ("key-with-dash", '{"content-type": "text/plain"}', {"content-type": "text/plain"}),
    ("nested-arrays", '{"rows": [[1, 2], [3, 4],]}', {"rows": [[1, 2], [3, 4]]}),
    ("bool-strings-kept", '{"a": "true", "b": "null"}', {"a": "true", "b": "null"}),
    ("empty-string-values", '{"a": "", "b": ""}', {"a": "", "b": ""}),
    ("numbers-as-keys", '{1: "one", 2: "two"}', {"1": "one", "2": "two"}),
    ("csv-doubled-quotes", '{"a": ""quoted""}', {"a": "quoted"}),
]

# Round two: from the documented behaviour of json_repair, jsonrepair (JS), dirty-json,
# partial-json-parser, JSON5, LangChain's parse_partial_json/parse_json_markdown and pydantic_core's
# allow_partial (read in their docs, written here as new cases): cut-offs at every kind of
# position, answers wrapped in prose, tags and fences, comments, Python/JS/Mongo literals, quotes
# and escapes, Unicode, number spellings, nested missing closers, markdown inside strings.
DOCUMENTED: list[Case] = [
    # --- cut off by max_tokens at every kind of position
    ("cut-after-open-brace", "{", {}),
    ("cut-after-open-list-in-object", '{"tags": [', {"tags": []}),
    ("cut-inside-nested-list", '{"m": [[1, 2], [3', {"m": [[1, 2], [3]]}),
    ("cut-after-key-quote", '{"name": "Ada", "', {"name": "Ada"}),
    ("cut-in-false", "[true, fal", [True, False]),
    ("cut-in-null-member", '{"a": 1, "b": nu', {"a": 1, "b": None}),
    (
        "cut-in-second-object",
        '[{"id": 1, "ok": true}, {"id": 2, "ok"',
        [{"id": 1, "ok": True}, {"id": 2}],
    ),
    ("cut-after-string-item", '["alpha", "beta"', ["alpha", "beta"]),
    ("cut-in-negative-exponent", '{"eps": 1e-', {"eps": 1}),
    ("cut-in-surrogate-pair", '{"e": "ok \\ud83d', {"e": "ok "}),
    ("cut-string-with-brace", '{"code": "if (x) {', {"code": "if (x) {"}),
    (
        "cut-in-fenced-prose-before",
        'Here is the data:\n```json\n{"rows": [{"a": 1}, {"a"',
        {"rows": [{"a": 1}, {}]},
    ),
    (
        "cut-deep",
        '{"a": {"b": {"c": {"d": [1, {"e": "f',
        {"a": {"b": {"c": {"d": [1, {"e": "f"}]}}}},
    ),
    # --- LLM answers around the payload
    (
        "think-with-braces-then-fence",
        '<think>maybe {"a": 0}? no, use [1]</think>\nFinal:\n```json\n{"a": 1}\n```',
        {"a": 1},
    ),
    ("reasoning-tag", '<reasoning>compute</reasoning>{"total": 12}', {"total": 12}),
    ("fence-json5-tag", "```json5\n{a: 1, // one\n b: 'two',}\n```", {"a": 1, "b": "two"}),
    ("fence-javascript-tag", '```javascript\nconst x = {"a": 1};\n```', {"a": 1}),
    ("fence-indented-in-list", 'Result:\n\n    ```json\n    {"ok": true}\n    ```', {"ok": True}),
    ("jsonp-callback", 'callback({"id": 7, "name": "x"});', {"id": 7, "name": "x"}),
    (
        "prose-colon-then-object",
        "The answer is as follows: {'verdict': 'yes', 'score': 4}.",
        {"verdict": "yes", "score": 4},
    ),
    (
        "apology-then-list",
        'I\'m sorry for the confusion earlier. Here\'s the corrected list:\n["a", "b"]\nLet me know!',
        ["a", "b"],
    ),
    (
        "fence-then-fixed-fence",
        'First try:\n```json\n{"a": 1\n```\nCorrected:\n```json\n{"a": 2}\n```',
        {"a": 2},
    ),
    ("markdown-bold-around", '**Output:** `{"status": "done"}`', {"status": "done"}),
    # --- comments
    (
        "comment-with-braces",
        '{\n  "a": 1, // uses {braces} and [brackets]\n  "b": 2\n}',
        {"a": 1, "b": 2},
    ),
    (
        "comment-block-multiline",
        '{"a": 1, /* first line\n  "b": 99,\n */ "c": 3}',
        {"a": 1, "c": 3},
    ),
    ("comment-hash-in-list", "[\n  1, # one\n  2  # two\n]", [1, 2]),
    ("comment-after-root", '{"a": 1} // done', {"a": 1}),
    (
        "comment-quote-then-spaced-key",
        "{\n  // the user's \"name\"\n  first name: 'Ada'\n}",
        {"first name": "Ada"},
    ),
    # --- Python and JavaScript literals
    (
        "python-dict-repr",
        "{'id': 3, 'ok': True, 'tags': ('a', 'b'), 'none': None}",
        {"id": 3, "ok": True, "tags": ["a", "b"], "none": None},
    ),
    (
        "python-nested-repr-quotes",
        "{'msg': \"it's fine\", 'n': -1.5}",
        {"msg": "it's fine", "n": -1.5},
    ),
    ("python-empty-tuple", "{'a': ()}", {"a": []}),
    (
        "python-triple-both-in-list",
        "['''one''', \"\"\"SELECT *\nFROM t\"\"\"]",
        ["one", "SELECT *\nFROM t"],
    ),
    ("js-undefined-in-list", "[1, undefined, 3]", [1, None, 3]),
    (
        "js-object-literal",
        "{name: 'Ada', langs: ['en', 'fr'], active: true,}",
        {"name": "Ada", "langs": ["en", "fr"], "active": True},
    ),
    (
        "mongo-uuid",
        '{"u": UUID("1b4e28ba-2fa1-11d2-883f-0016d3cca427")}',
        {"u": "1b4e28ba-2fa1-11d2-883f-0016d3cca427"},
    ),
    ("mongo-objectid-list", '[ObjectId("aa"), ObjectId("bb")]', ["aa", "bb"]),
    ("json5-hex-and-plus", "{a: 0x1F, b: +3, c: .5, d: 5.}", {"a": 31, "b": 3, "c": 0.5, "d": 5.0}),
    ("json5-infinity", "{a: Infinity, b: -Infinity}", {"a": float("inf"), "b": float("-inf")}),
    # --- quotes and escapes
    (
        "single-quoted-with-double-inside",
        "{'quote': 'she said \"hi\"'}",
        {"quote": 'she said "hi"'},
    ),
    ("smart-quotes-mixed-keys", "{“title”: “Dune”, “year”: 1965}", {"title": "Dune", "year": 1965}),
    (
        "unescaped-quote-in-title",
        '{"title": "The "Best" Movie", "year": 2001}',
        {"title": 'The "Best" Movie', "year": 2001},
    ),
    (
        "unescaped-quotes-end-of-value",
        '{"q": "He said "no"", "n": 1}',
        {"q": 'He said "no"', "n": 1},
    ),
    ("escaped-slash", '{"path": "a\\/b"}', {"path": "a/b"}),
    ("windows-path-invalid-escapes", '{"file": "D:\\data\\q1.csv"}', {"file": "D:\\data\\q1.csv"}),
    ("escaped-unicode-accent", '{"name": "Jos\\u00e9"}', {"name": "José"}),
    ("raw-newline-in-list-item", '["line one\nline two", "x"]', ["line one\nline two", "x"]),
    (
        "missing-opening-quote-value",
        '{"city": Paris", "zip": "75001"}',
        {"city": "Paris", "zip": "75001"},
    ),
    (
        "missing-closing-quote-before-newline",
        '{\n  "a": "first,\n  "b": "second"\n}',
        {"a": "first", "b": "second"},
    ),
    ("key-single-value-double", "{'name': \"Ada\"}", {"name": "Ada"}),
    # --- Unicode
    ("unicode-cjk-values", '{"城市": "東京", "人口": 1400}', {"城市": "東京", "人口": 1400}),
    ("unicode-emoji-unquoted-key-value", "{mood: '😀 great'}", {"mood": "😀 great"}),
    ("unicode-nbsp-after-colon", '{"a":\u00a01,\u00a0"b":\u00a02}', {"a": 1, "b": 2}),
    ("fullwidth-colon-like-spaces", '{\u3000"a"\u3000:\u30001\u3000}', {"a": 1}),
    # --- numbers
    ("number-thousands-in-list-item", '[{"pop": 1,234,567}]', [{"pop": 1234567}]),
    ("number-decimal-comma", '{"price": 12,50}', {"price": "12,50"}),
    ("number-percent-unquoted", '{"rate": 5%}', {"rate": "5%"}),
    ("number-currency-unquoted", '{"cost": $12.50}', {"cost": "$12.50"}),
    ("number-big-int", '{"id": 12345678901234567890}', {"id": 12345678901234567890}),
    ("number-negative-leading-dot", "[-.5, +.25]", [-0.5, 0.25]),
    ("number-leading-zero-float", '{"x": 00.5}', {"x": 0.5}),
    # --- structure
    ("nested-missing-closers", '{"a": {"b": [1, 2, {"c": 3', {"a": {"b": [1, 2, {"c": 3}]}}),
    (
        "missing-comma-between-objects",
        '[{"a": 1} {"a": 2} {"a": 3}]',
        [{"a": 1}, {"a": 2}, {"a": 3}],
    ),
    (
        "missing-comma-newline-members",
        '{\n"a": 1\n"b": [1 2 3]\n"c": "x"\n}',
        {"a": 1, "b": [1, 2, 3], "c": "x"},
    ),
    ("extra-closer-mid-list", '{"items": [1, 2]], "count": 2}', {"items": [1, 2], "count": 2}),
    ("mismatched-paren-closer", '{"a": [1, 2)}', {"a": [1, 2]}),
    (
        "row-missing-opener",
        '{"grid": [[1, 2], [3, 4], 5, 6], [7, 8]]}',
        {"grid": [[1, 2], [3, 4], [5, 6], [7, 8]]},
    ),
    (
        "records-missing-braces-between",
        '[{"n": "a", "v": 1 "n": "b", "v": 2}]',
        [{"n": "a", "v": 1}, {"n": "b", "v": 2}],
    ),
    ("key-comma-for-colon", '{"count", 3, "items", [1, 2, 3]}', {"count": 3, "items": [1, 2, 3]}),
    ("empty-value-before-closer", '{"a": 1, "b": }', {"a": 1, "b": None}),
    ("empty-item-list", "[1, , 3]", [1, 3]),
    # --- markdown and code inside strings
    (
        "markdown-table-in-string",
        '{"md": "| a | b |\\n|---|---|\\n| 1 | 2 |"}',
        {"md": "| a | b |\n|---|---|\n| 1 | 2 |"},
    ),
    (
        "code-fence-in-string-in-fence",
        '```json\n{"snippet": "```py\\nprint(1)\\n```"}\n```',
        {"snippet": "```py\nprint(1)\n```"},
    ),
    ("html-in-string", '{"html": "<a href=\\"/x\\">link</a>"}', {"html": '<a href="/x">link</a>'}),
    (
        "markdown-heading-raw-newlines",
        '{"doc": "# Title\n\n- item one\n- item two"}',
        {"doc": "# Title\n\n- item one\n- item two"},
    ),
]

# Shapes where a naive reading drops or regroups data.
HARDER: list[Case] = [
    (
        "stray-quote-swallow-next-items",
        '{"tags": ["red, "green", "blue"]}',
        {"tags": ["red", "green", "blue"]},
    ),
    ("bare-word-between-quoted", '["alpha", beta, "gamma"]', ["alpha", "beta", "gamma"]),
    (
        "bare-words-with-spaces-list",
        "[New York, Los Angeles, 'Chicago']",
        ["New York", "Los Angeles", "Chicago"],
    ),
    (
        "apostrophe-single-quoted-spaces",
        "{'note': 'don'   t worry', 'n': 1}",
        {"note": "don'   t worry", "n": 1},
    ),
    ("apostrophe-in-single-quoted-list", "['it's', 'ok']", ["it's", "ok"]),
    (
        "unquoted-paragraphs-then-key",
        '{"summary": The plan has two parts.\n\nFirst, we wait.\nThen we act.,\n"done": false}',
        {"summary": "The plan has two parts.\n\nFirst, we wait.\nThen we act.", "done": False},
    ),
    ("key-with-newline-inside", '{"first\nname": "Ada"}', {"first\nname": "Ada"}),
    ("several-top-level-lists", "[1, 2]\n[3, 4]", [1, 2]),
    ("object-then-prose-with-braces", '{"a": 1}\n\nNote: {b} is a placeholder.', {"a": 1}),
    ("fenced-then-object-outside", '```json\n{"a": 1}\n```\n{"a": 2}', {"a": 1}),
    ("value-with-closing-brace-quote-missing", '{"text": "end}', {"text": "end"}),
    (
        "nested-quotes-key-value-colon",
        '{"desc": "ratio is 3:1", "ok": true}',
        {"desc": "ratio is 3:1", "ok": True},
    ),
    ("unicode-escape-invalid", '{"s": "bad \\uZZZZ here"}', {"s": "bad \\uZZZZ here"}),
    ("cut-after-backslash-quote", '{"q": "say \\"hi\\', {"q": 'say "hi'}),
    ("trailing-text-inside-fence", '```json\n{"a": 1}\nThat is all.\n```', {"a": 1}),
    (
        "list-of-objects-missing-commas-newlines",
        '[\n  {"id": 1}\n  {"id": 2}\n]',
        [{"id": 1}, {"id": 2}],
    ),
    (
        "object-missing-closer-before-next-in-list",
        '[{"id": 1, "tags": ["a"], {"id": 2}]',
        [{"id": 1, "tags": ["a"]}, {"id": 2}],
    ),
    ("python-bytes-like-string", "{'b': 'abc', 'n': 0}", {"b": "abc", "n": 0}),
    ("null-variants", '{"a": NULL, "b": Null, "c": none}', {"a": None, "b": None, "c": "none"}),
    ("bool-variants", '{"a": TRUE, "b": False, "c": yes}', {"a": True, "b": False, "c": "yes"}),
    ("double-encoded-with-fence", '"```json\\n{\\"a\\": 1}\\n```"', {"a": 1}),
    (
        "escaped-json-no-outer-quotes",
        '{\\"name\\": \\"Ada\\", \\"n\\": 2}',
        {"name": "Ada", "n": 2},
    ),
    ("comment-slash-star-unclosed", '{"a": 1 /* note', {"a": 1}),
    ("ellipsis-in-middle", "[1, 2, ..., 9]", [1, 2, 9]),
    ("ellipsis-member", '{"a": 1, ..., "z": 26}', {"a": 1, "z": 26}),
    ("list-trailing-comma-cut", '{"xs": [1, 2,', {"xs": [1, 2]}),
    ("string-with-escaped-newline-cut", '{"poem": "roses\\nviolets', {"poem": "roses\nviolets"}),
    ("tab-indented-python", "{\n\t'a':\t1,\n\t'b':\t[None,\tTrue]\n}", {"a": 1, "b": [None, True]}),
]

# JavaScript and other-language habits that once emptied or scrambled the object.
HABITS: list[Case] = [
    ("js-template-literal-quotes", "{`name`: `Ada`, `n`: 2}", {"name": "Ada", "n": 2}),
    (
        "js-template-literal-multiline",
        '{"sql": `SELECT 1\nFROM t`, "ok": true}',
        {"sql": "SELECT 1\nFROM t", "ok": True},
    ),
    ("inline-code-closer-after-value", 'Use `{"a": 1`', {"a": 1}),
    ("assignment-equals-for-colon", '{"host" = "db", "port" = 5432}', {"host": "db", "port": 5432}),
    ("assignment-equals-unquoted", "{retries = 3, mode = 'fast'}", {"retries": 3, "mode": "fast"}),
    ("double-comma-after-string", '{"a": "b",,"c": "d"}', {"a": "b", "c": "d"}),
    ("double-comma-in-list", '["x",, "y"]', ["x", "y"]),
    ("equals-inside-string-kept", '{"expr": "x = y + 1"}', {"expr": "x = y + 1"}),
    (
        "python2-unicode-repr",
        "{u'name': u'Ada', u'tags': [u'x', u'y']}",
        {"name": "Ada", "tags": ["x", "y"]},
    ),
    ("python-bytes-repr", "{'raw': b'\\x00ab', 'n': 1}", {"raw": "\\x00ab", "n": 1}),
    ("python-words-u-and-b-stay-words", "{'grade': u, 'size': b}", {"grade": "u", "size": "b"}),
]

# The whole payload fails in a way that once returned a list or object from inside it.
NO_FRAGMENT: list[Case] = [
    ("object-after-list-of-objects", '{"a": [{"b": 1}], {"c": 2}}', {"a": [{"b": 1}, {"c": 2}]}),
    ("colon-without-key", '{"a": {"b": 1}, : "x"}', {"a": {"b": 1}, "": "x"}),
    ("prompt-escaped-braces", '{{"name": "Ada", "age": 36}}', {"name": "Ada", "age": 36}),
    ("prompt-escaped-braces-in-list", '[{{"a": 1}}, {{"a": 2}}]', [{"a": 1}, {"a": 2}]),
    ("braces-where-key-belongs", '{"a": 1, {"b": 2}, "c": 3}', {"a": 1, "b": 2, "c": 3}),
]

CASES: list[Case] = [
    *VALID,
    *LOCATE,
    *SYNTAX,
    *LITERALS,
    *NUMBERS,
    *STRINGS,
    *STRUCTURE,
    *TRUNCATED,
    *SEVERAL,
    *MULTILINE,
    *REALISTIC,
    *DOCUMENTED,
    *HARDER,
    *HABITS,
    *NO_FRAGMENT,
]
