"""Function calls as real models write them, and the calls a user expects from each.

Each case is written in the style of one model family's answer when it is asked to call
functions in text: GPT and Claude in BFCL's Python format (often fenced, sometimes with prose),
Llama, Qwen and DeepSeek-R1 after a reasoning block, Gemini's ``tool_code`` blocks, Hermes /
Qwen ``<tool_call>`` blocks, Granite, Phi, Mistral, Nemotron, xLAM, GLM and DeepSeek tool tokens.
``expected`` is BFCL's shape (``[{"name": {args}}]``, positional arguments dropped). The tests
and ``benchmarks/bfcl_diff.py`` import :data:`CALL_CORPUS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class CallCase:
    """One model answer: ``text`` as written, ``expected`` the calls, ``dialect`` the format."""

    id: str
    text: str
    expected: list[dict[str, dict[str, Any]]]
    dialect: str
    ids: tuple[str | None, ...] = ()
    """Call ids the model gave, when the expectation includes them."""


CALL_CORPUS: tuple[CallCase, ...] = (
    # ------------------------------------------------------------------ Python syntax (BFCL)
    CallCase(
        "llama3-bfcl-list",
        "\n\n[spotify.play(artist='Taylor Swift', duration=20), "
        "spotify.play(artist='Maroon 5', duration=15)]",
        [
            {"spotify.play": {"artist": "Taylor Swift", "duration": 20}},
            {"spotify.play": {"artist": "Maroon 5", "duration": 15}},
        ],
        "python",
    ),
    CallCase(
        "gpt4o-fenced-python-tag",
        "```json\n[calculate_triangle_area(base=10, height=5)]\n```",
        [{"calculate_triangle_area": {"base": 10, "height": 5}}],
        "python",
    ),
    CallCase(
        "claude-prose-then-fence",
        "I'll look up the weather in both cities for you.\n\n```python\n"
        '[get_current_weather(location="Boston, MA", unit="fahrenheit"), '
        'get_current_weather(location="San Francisco, CA", unit="fahrenheit")]\n```\n\n'
        "These calls will return the current conditions.",
        [
            {"get_current_weather": {"location": "Boston, MA", "unit": "fahrenheit"}},
            {"get_current_weather": {"location": "San Francisco, CA", "unit": "fahrenheit"}},
        ],
        "python",
    ),
    CallCase(
        "gorilla-unbracketed",
        "spotify.play(artist='Taylor Swift', duration=20), "
        "spotify.play(artist='Maroon 5', duration=15)",
        [
            {"spotify.play": {"artist": "Taylor Swift", "duration": 20}},
            {"spotify.play": {"artist": "Maroon 5", "duration": 15}},
        ],
        "python",
    ),
    CallCase(
        "qwen3-think-then-calls",
        "<think>\nThe user wants the area of a circle with radius 5 in square meters. "
        "I have calculate_area(shape=..., dimensions=...).\n</think>\n\n"
        '[calculate_area(shape="circle", dimensions={"radius": 5}, unit="m2")]',
        [{"calculate_area": {"shape": "circle", "dimensions": {"radius": 5}, "unit": "m2"}}],
        "python",
    ),
    CallCase(
        "deepseek-r1-lone-think-close",
        "Okay, the user needs two conversions, so two calls.\n</think>\n\n"
        "[convert_currency(amount=100, from_currency='USD', to_currency='EUR'), "
        "convert_currency(amount=100, from_currency='USD', to_currency='JPY')]",
        [
            {"convert_currency": {"amount": 100, "from_currency": "USD", "to_currency": "EUR"}},
            {"convert_currency": {"amount": 100, "from_currency": "USD", "to_currency": "JPY"}},
        ],
        "python",
    ),
    CallCase(
        "gemini-tool-code",
        "```tool_code\nprint(default_api.find_restaurants(location='Berlin', cuisine='Thai', "
        "max_price=2))\n```",
        [{"find_restaurants": {"location": "Berlin", "cuisine": "Thai", "max_price": 2}}],
        "python",
    ),
    CallCase(
        "gemini-tool-code-list",
        "```tool_code\n[get_stock_price(ticker='GOOG'), get_stock_price(ticker='MSFT')]\n```",
        [{"get_stock_price": {"ticker": "GOOG"}}, {"get_stock_price": {"ticker": "MSFT"}}],
        "python",
    ),
    CallCase(
        "phi4-python-fence-unclosed",
        "```python\n[math.hypot(x=3, y=4)]",
        [{"math.hypot": {"x": 3, "y": 4}}],
        "python",
    ),
    CallCase(
        "mistral-large-one-per-line",
        "get_weather(city='Paris', unit='celsius')\nget_weather(city='Rome', unit='celsius')",
        [
            {"get_weather": {"city": "Paris", "unit": "celsius"}},
            {"get_weather": {"city": "Rome", "unit": "celsius"}},
        ],
        "python",
    ),
    CallCase(
        "raven-call-semicolon",
        "Call: sql.execute(query=\"SELECT name FROM users WHERE city = 'Lyon'\");",
        [{"sql.execute": {"query": "SELECT name FROM users WHERE city = 'Lyon'"}}],
        "python",
    ),
    CallCase(
        "nested-values",
        "[create_event(title='Team sync', attendees=['ana@x.io', 'bo@x.io'], "
        "when={'start': '2024-05-01T10:00', 'minutes': 30}, remind=True, notes=None, "
        "offset=-2.5, coords=(48.85, 2.35))]",
        [
            {
                "create_event": {
                    "title": "Team sync",
                    "attendees": ["ana@x.io", "bo@x.io"],
                    "when": {"start": "2024-05-01T10:00", "minutes": 30},
                    "remind": True,
                    "notes": None,
                    "offset": -2.5,
                    "coords": [48.85, 2.35],
                }
            }
        ],
        "python",
    ),
    CallCase(
        "json-literals-in-python",
        "[set_flags(verbose=true, dry_run=false, limit=null)]",
        [{"set_flags": {"verbose": True, "dry_run": False, "limit": None}}],
        "python",
    ),
    CallCase(
        "nemotron-toolcall-python",
        "<TOOLCALL>[get_time(timezone='Asia/Tokyo')]</TOOLCALL>",
        [{"get_time": {"timezone": "Asia/Tokyo"}}],
        "toolcall",
    ),
    CallCase(
        "lfm2-tool-call-start",
        '<|tool_call_start|>[get_candidate_status(candidate_id="12345")]<|tool_call_end|>'
        "Checking the current status of candidate ID 12345.",
        [{"get_candidate_status": {"candidate_id": "12345"}}],
        "tool_call_start",
    ),
    # ------------------------------------------------------------------ JSON dialects
    CallCase(
        "hermes2pro-two-blocks",
        '<tool_call>\n{"arguments": {"artist": "Taylor Swift", "duration": 20}, '
        '"name": "spotify_play"}\n</tool_call>\n<tool_call>\n{"arguments": {"artist": '
        '"Maroon 5", "duration": 15}, "name": "spotify_play"}\n</tool_call>\n',
        [
            {"spotify_play": {"artist": "Taylor Swift", "duration": 20}},
            {"spotify_play": {"artist": "Maroon 5", "duration": 15}},
        ],
        "tool_call",
    ),
    CallCase(
        "qwen25-tool-call-after-prose",
        "I'll check the forecast for you.\n<tool_call>\n"
        '{"name": "get_forecast", "arguments": {"city": "Osaka", "days": 3}}\n</tool_call>',
        [{"get_forecast": {"city": "Osaka", "days": 3}}],
        "tool_call",
    ),
    CallCase(
        "granite3-tool-call-list-unclosed",
        '<tool_call>[{"name": "get_stock_price", "arguments": {"ticker": "IBM"}}, '
        '{"name": "get_stock_price", "arguments": {"ticker": "AAPL"}}]',
        [{"get_stock_price": {"ticker": "IBM"}}, {"get_stock_price": {"ticker": "AAPL"}}],
        "tool_call",
    ),
    CallCase(
        "phi4mini-pipe-tool-call",
        '<|tool_call|>[{"name": "calculate_final_velocity", "arguments": {"height": 150, '
        '"initial_velocity": 0}}]<|/tool_call|>',
        [{"calculate_final_velocity": {"height": 150, "initial_velocity": 0}}],
        "pipe_tool_call",
    ),
    CallCase(
        "llama31-python-tag",
        '<|python_tag|>{"name": "calc_binomial_probability", "parameters": {"n": 10, "k": 3, '
        '"p": 0.5}}; {"name": "get_note", "parameters": {"text": "a;b", "pinned": true}}',
        [
            {"calc_binomial_probability": {"n": 10, "k": 3, "p": 0.5}},
            {"get_note": {"text": "a;b", "pinned": True}},
        ],
        "python_tag",
    ),
    CallCase(
        "ministral-tool-calls-token",
        '[TOOL_CALLS][{"name": "math.factorial", "arguments": {"number": 5}, "id": "a1B2c3D4e"}]',
        [{"math.factorial": {"number": 5}}],
        "mistral",
        ids=("a1B2c3D4e",),
    ),
    CallCase(
        "mistral-small-named-args",
        '[TOOL_CALLS]get_weather[ARGS]{"city": "Lisbon"}',
        [{"get_weather": {"city": "Lisbon"}}],
        "mistral",
    ),
    CallCase(
        "xiaoming-tool-calls-tag",
        '<tool_calls>\n[{"name": "translate", "arguments": {"text": "hello", "to": "fr"}}]\n'
        "</tool_calls>",
        [{"translate": {"text": "hello", "to": "fr"}}],
        "tool_calls",
    ),
    CallCase(
        "granite20b-function-call",
        '<function_call> {"name": "spotify_play", "arguments": {"artist": "Taylor Swift", '
        '"duration": 20}} <function_call> {"name": "spotify_play", "arguments": '
        '{"artist": "Maroon 5", "duration": 15}}',
        [
            {"spotify_play": {"artist": "Taylor Swift", "duration": 20}},
            {"spotify_play": {"artist": "Maroon 5", "duration": 15}},
        ],
        "function_call",
    ),
    CallCase(
        "falcon3-fence-in-tag",
        '<tool_call>```json\n[{"name": "lookup", "arguments": {"isbn": "978-0262033848"}}]\n'
        "```</tool_call>",
        [{"lookup": {"isbn": "978-0262033848"}}],
        "tool_call",
    ),
    CallCase(
        "xlam2-bare-list",
        '[{"name": "spotify.play", "arguments": {"artist": "Taylor Swift", "duration": 20}}, '
        '{"name": "spotify.play", "arguments": {"artist": "Maroon 5", "duration": 15}}]',
        [
            {"spotify.play": {"artist": "Taylor Swift", "duration": 20}},
            {"spotify.play": {"artist": "Maroon 5", "duration": 15}},
        ],
        "json",
    ),
    CallCase(
        "xlam1-tool-calls-object",
        '\n{"tool_calls": [{"name": "get_time", "arguments": {"city": "Paris"}}]}',
        [{"get_time": {"city": "Paris"}}],
        "json",
    ),
    CallCase(
        "bfcl-json-format-fenced",
        '```json\n[{"function": "find_hotel", "parameters": {"city": "Oslo", "stars": 4}}]\n```',
        [{"find_hotel": {"city": "Oslo", "stars": 4}}],
        "json",
    ),
    CallCase(
        "openai-shape-string-arguments",
        '{"tool_calls": [{"id": "call_Xy12", "type": "function", "function": {"name": '
        '"get_weather", "arguments": "{\\"city\\": \\"Paris\\", \\"unit\\": \\"C\\"}"}}]}',
        [{"get_weather": {"city": "Paris", "unit": "C"}}],
        "json",
        ids=("call_Xy12",),
    ),
    CallCase(
        "claude-tool-use-block-in-text",
        'Let me search.\n{"type": "tool_use", "id": "toolu_01A", "name": "web_search", '
        '"input": {"query": "BFCL leaderboard"}}',
        [{"web_search": {"query": "BFCL leaderboard"}}],
        "json",
        ids=("toolu_01A",),
    ),
    CallCase(
        "glm4-name-line-args",
        'spotify_play\n{"artist": "Taylor Swift", "duration": 20}',
        [{"spotify_play": {"artist": "Taylor Swift", "duration": 20}}],
        "json",
    ),
    CallCase(
        "deepseek-v3-tool-tokens",
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n"
        '```json\n{"location": "Tokyo"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
        [{"get_weather": {"location": "Tokyo"}}],
        "deepseek",
    ),
    CallCase(
        "hermes-trailing-comma-single-quotes",
        "<tool_call>\n{'name': 'book_table', 'arguments': {'people': 4, 'time': '19:30',},}\n"
        "</tool_call>",
        [{"book_table": {"people": 4, "time": "19:30"}}],
        "tool_call",
    ),
)
