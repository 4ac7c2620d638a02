"""A shared corpus of realistic messy model outputs and the value a user expects from each.

Every case is written in the style of a real chat model's answer (GPT, Claude, Llama, Qwen,
DeepSeek, Gemma): prose around the payload, markdown fences with and without a language tag,
reasoning blocks first, JavaScript- or Python-flavoured objects, answers cut off by
``max_tokens``. Tests import :data:`CORPUS` (and :data:`CORPUS_IDS` for ``pytest.mark.parametrize``
ids); the streaming tests check that feeding a case chunk by chunk ends at the same value as a
one-shot parse.

``truncated`` is ``True``/``False`` when the report's ``truncated`` flag is part of the
expectation, ``None`` when either reading is acceptable (text that ends right after a complete
value with only closers missing).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Case:
    """One model output: ``text`` as the model wrote it, ``expected`` the value a user wants."""

    id: str
    text: str
    expected: Any
    truncated: bool | None = False
    repairs: tuple[str, ...] = ()
    """Repair names that must appear in the report (a subset; others may fire too)."""


SEED_000_TEXT = """
    {
        "actions": [
            {
                "action_type": "INPUT_TEXT",
                "text": "Hello "world"",  // Unescaped quotes
                "element_id": "input-field"
            }
        ]
    """

CORPUS: list[Case] = [
    Case(
        "gpt_fenced_with_prose",
        "Sure! Here's the JSON you asked for:\n\n```json\n{\n"
        '  "name": "Ada Lovelace",\n  "born": 1815,\n'
        '  "fields": ["mathematics", "computing"]\n}\n```\n\n'
        "Let me know if you'd like any changes!",
        {"name": "Ada Lovelace", "born": 1815, "fields": ["mathematics", "computing"]},
    ),
    Case(
        "claude_bare_object_in_prose",
        "Here is the extracted information:\n\n"
        '{"company": "Acme Corp", "employees": 250, "public": false}\n\n'
        "I inferred the employee count from the second paragraph.",
        {"company": "Acme Corp", "employees": 250, "public": False},
    ),
    Case(
        "fence_without_language_tag",
        '```\n[{"id": 1, "label": "cat"}, {"id": 2, "label": "dog"}]\n```',
        [{"id": 1, "label": "cat"}, {"id": 2, "label": "dog"}],
    ),
    Case(
        "fence_uppercase_tag",
        'Output:\n```JSON\n{"ok": true, "errors": []}\n```',
        {"ok": True, "errors": []},
    ),
    Case(
        "fence_space_before_tag",
        '``` json\n{"category": "sports", "score": 0.87}\n```',
        {"category": "sports", "score": 0.87},
    ),
    Case(
        "tilde_fence",
        '~~~json\n{"lang": "fr", "text": "Bonjour tout le monde"}\n~~~',
        {"lang": "fr", "text": "Bonjour tout le monde"},
    ),
    Case(
        "qwen_think_then_bare_json",
        '<think>\nThe user wants a sentiment label. The review says "great value", so it\'s '
        'positive. I will output {"sentiment": ...} with a confidence.\n</think>\n\n'
        '{"sentiment": "positive", "confidence": 0.92}',
        {"sentiment": "positive", "confidence": 0.92},
        repairs=("think_block",),
    ),
    Case(
        "qwen_no_think_empty_block",
        "<think>\n\n</think>\n\n```json\n"
        '{"intent": "book_flight", "slots": {"from": "SFO", "to": "JFK"}}\n```',
        {"intent": "book_flight", "slots": {"from": "SFO", "to": "JFK"}},
        repairs=("think_block",),
    ),
    Case(
        "deepseek_lone_closing_think",
        "Okay, let me figure out the fields. The schema wants {title, year}. The book is Dune, "
        "published in 1965.\n</think>\n\n```json\n"
        '{"title": "Dune", "year": 1965}\n```',
        {"title": "Dune", "year": 1965},
        repairs=("think_block",),
    ),
    Case(
        "thinking_tag_then_array",
        '<thinking>I should list three colours as an array like ["x", "y"].</thinking>\n'
        '["red", "green", "blue"]',
        ["red", "green", "blue"],
        repairs=("think_block",),
    ),
    Case(
        "gemma_reasoning_then_output_tag",
        "<reasoning>3 items at $4 each is $12.</reasoning>\n"
        '<output>{"total": 12, "currency": "USD"}</output>',
        {"total": 12, "currency": "USD"},
        repairs=("think_block",),
    ),
    Case(
        "json_tag",
        '<json>\n{"answer": "42", "explanation": "It is the answer."}\n</json>',
        {"answer": "42", "explanation": "It is the answer."},
    ),
    Case(
        "output_tag_with_prose",
        "I've analysed the ticket.\n"
        '<output>{"priority": "high", "team": "billing"}</output>\n'
        "Anything else?",
        {"priority": "high", "team": "billing"},
    ),
    Case(
        "trailing_commas_pretty_printed",
        '{\n  "model": "llama-3-8b",\n  "params": {\n    "temperature": 0.7,\n'
        '    "top_p": 0.9,\n  },\n  "stop": ["</s>", "<|eot_id|>",],\n}',
        {
            "model": "llama-3-8b",
            "params": {"temperature": 0.7, "top_p": 0.9},
            "stop": ["</s>", "<|eot_id|>"],
        },
        repairs=("trailing_comma",),
    ),
    Case(
        "llama_javascript_object_literal",
        "```javascript\n{\n  // search query for the tool\n  query: 'best pizza in Naples',\n"
        "  limit: 5,\n  safe: true,\n}\n```",
        {"query": "best pizza in Naples", "limit": 5, "safe": True},
        repairs=("comment", "unquoted_key", "single_quotes", "trailing_comma"),
    ),
    Case(
        "python_dict_repr",
        "{'name': 'Bob', 'admin': False, 'manager': None, 'scores': (9, 7), 'active': True}",
        {"name": "Bob", "admin": False, "manager": None, "scores": [9, 7], "active": True},
        repairs=("single_quotes", "python_literal", "tuple"),
    ),
    Case(
        "python_list_of_tuples",
        "Here are the cities with populations:\n[('Paris', 2148000), ('Lyon', 516000)]",
        [["Paris", 2148000], ["Lyon", 516000]],
        repairs=("tuple",),
    ),
    Case(
        "smart_quotes",
        "{“city”: “Lisbon”, “country”: “Portugal”}",
        {"city": "Lisbon", "country": "Portugal"},
        repairs=("smart_quotes",),
    ),
    Case(
        "unescaped_inner_quotes",
        '{"title": "The "Best" Pizza in Town", "rating": 4.5}',
        {"title": 'The "Best" Pizza in Town', "rating": 4.5},
        repairs=("inner_quote",),
    ),
    Case(
        "seed_000_inner_quotes_comment_missing_brace",
        SEED_000_TEXT,
        {
            "actions": [
                {
                    "action_type": "INPUT_TEXT",
                    "text": 'Hello "world"',
                    "element_id": "input-field",
                }
            ]
        },
        truncated=None,
        repairs=("inner_quote", "comment"),
    ),
    Case(
        "hash_comments",
        '{\n  "retries": 3,  # how many times to retry\n  "backoff": 1.5  # seconds\n}',
        {"retries": 3, "backoff": 1.5},
        repairs=("comment",),
    ),
    Case(
        "block_comments",
        '{"width": 1024 /* px */, "height": 768 /* px */}',
        {"width": 1024, "height": 768},
        repairs=("comment",),
    ),
    Case(
        "literal_newlines_in_string",
        '{"haiku": "An old silent pond\nA frog jumps into the pond\nSplash! Silence again"}',
        {"haiku": "An old silent pond\nA frog jumps into the pond\nSplash! Silence again"},
        repairs=("control_character",),
    ),
    Case(
        "react_action_input_multiline",
        '```json\n{\n    "action": "Final Answer",\n'
        '    "action_input": "Step 1: preheat.\nStep 2:\tbake for 20 minutes."\n}\n```',
        {
            "action": "Final Answer",
            "action_input": "Step 1: preheat.\nStep 2:\tbake for 20 minutes.",
        },
        repairs=("control_character",),
    ),
    Case(
        "missing_commas_between_objects",
        '[\n  {"step": 1, "action": "open"}\n  {"step": 2, "action": "click"}\n]',
        [{"step": 1, "action": "open"}, {"step": 2, "action": "click"}],
        repairs=("missing_comma",),
    ),
    Case(
        "missing_commas_between_members",
        '{\n  "first": "Grace"\n  "last": "Hopper"\n  "born": 1906\n}',
        {"first": "Grace", "last": "Hopper", "born": 1906},
        repairs=("missing_comma",),
    ),
    Case(
        "ellipsis_placeholder",
        '{"top_products": ["laptop", "phone", "tablet", ...], "count": 3}',
        {"top_products": ["laptop", "phone", "tablet"], "count": 3},
        repairs=("ellipsis",),
    ),
    Case(
        "double_encoded_object",
        r'"{\"tool\": \"search\", \"query\": \"weather in Paris\"}"',
        {"tool": "search", "query": "weather in Paris"},
        repairs=("double_encoded",),
    ),
    Case(
        "braces_placeholder_in_prose",
        "I used {customer_name} as a template variable. Final JSON: "
        '{"greeting": "Hello {customer_name}!", "lang": "en"}',
        {"greeting": "Hello {customer_name}!", "lang": "en"},
    ),
    Case(
        "code_fence_inside_json_string",
        '```json\n{"snippet": "```python\\nprint(\'hi\')\\n```", "language": "python"}\n```',
        {"snippet": "```python\nprint('hi')\n```", "language": "python"},
    ),
    Case(
        "utf8_bom",
        '\ufeff{"status": "ok"}',
        {"status": "ok"},
        repairs=("bom",),
    ),
    Case(
        "infinity_literals",
        '{"upper": Infinity, "lower": -Infinity}',
        {"upper": math.inf, "lower": -math.inf},
    ),
    Case(
        "unquoted_string_values",
        '{"action": click, "element": submit_button}',
        {"action": "click", "element": "submit_button"},
        repairs=("unquoted_string",),
    ),
    Case(
        "unquoted_keys",
        '{name: "Widget", price: 9.99, tags: ["tools", "home"]}',
        {"name": "Widget", "price": 9.99, "tags": ["tools", "home"]},
        repairs=("unquoted_key",),
    ),
    Case(
        "string_concatenation",
        '{"prompt": "You are a helpful " + "assistant."}',
        {"prompt": "You are a helpful assistant."},
        repairs=("string_concat",),
    ),
    Case(
        "invalid_escape_regex",
        '{"regex": "^\\d{3}-\\d{4}$"}',
        {"regex": "^\\d{3}-\\d{4}$"},
        repairs=("invalid_escape",),
    ),
    Case(
        "extra_closing_bracket",
        '{"status": "done", "results": [1, 2, 3]]}',
        {"status": "done", "results": [1, 2, 3]},
        repairs=("extra_closer",),
    ),
    Case(
        "mismatched_closer",
        '{"coords": [48.85, 2.35}',
        {"coords": [48.85, 2.35]},
    ),
    Case(
        "json_then_note",
        '{"verdict": "approve", "reasons": ["complete", "accurate"]}\n\n'
        "Note: I approved it because all required fields were present.",
        {"verdict": "approve", "reasons": ["complete", "accurate"]},
    ),
    Case(
        "self_corrected_fence",
        "```json\n{'score': 8,}\n```\nOops, that isn't valid JSON. Here is the corrected version:\n"
        '```json\n{"score": 8}\n```',
        {"score": 8},
    ),
    Case(
        "truncated_inside_string",
        '```json\n{\n  "summary": "The meeting covered Q3 revenue, hiring plans, and the new '
        "office in Berl",
        {"summary": "The meeting covered Q3 revenue, hiring plans, and the new office in Berl"},
        truncated=True,
    ),
    Case(
        "truncated_inside_literal",
        '{"items": [{"sku": "A1", "in_stock": true}, {"sku": "B2", "in_stock": fa',
        # `fa` can only be `false` (engine/json/cut_literals): completed, and reported truncated
        {"items": [{"sku": "A1", "in_stock": True}, {"sku": "B2", "in_stock": False}]},
        truncated=True,
    ),
    Case(
        "truncated_inside_key",
        '{"name": "Ada", "email": "ada@example.com", "pho',
        {"name": "Ada", "email": "ada@example.com"},
        truncated=True,
    ),
    Case(
        "truncated_after_colon",
        '[{"q": "2+2", "a": 4}, {"q": "3*3", "a":',
        [{"q": "2+2", "a": 4}, {"q": "3*3"}],
        truncated=True,
    ),
    Case(
        "truncated_array_in_fence_after_prose",
        'Here are the keywords:\n```json\n["solar", "wind", "hydro", "geoth',
        ["solar", "wind", "hydro", "geoth"],
        truncated=True,
    ),
    Case(
        "truncated_number",
        '{"id": 42, "price": 19.9',
        {"id": 42, "price": 19.9},
        truncated=True,
    ),
]

CORPUS_IDS: list[str] = [case.id for case in CORPUS]

assert len(set(CORPUS_IDS)) == len(CORPUS_IDS), "corpus ids must be unique"
