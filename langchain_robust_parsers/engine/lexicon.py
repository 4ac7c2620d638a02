"""The shared lexicon of model answers: reasoning tags, code fences, and the special tokens of
tool-call dialects that belong to the call text.

The JSON locator, the function-call decoder and the call stream splitter all read reasoning
blocks and fences with these patterns, so they agree on where a payload starts and what call
text is removed. The markers of each tool-call dialect live with its record in
:mod:`langchain_robust_parsers.engine.calls.dialect_registry`.
"""

from __future__ import annotations

import functools
import re

__all__ = [
    "ANSWER_CALL_OPENERS",
    "ANSWER_OPEN",
    "END_TOKENS",
    "FENCE_OPEN",
    "HARMONY_CHANNEL",
    "HARMONY_MESSAGE",
    "HARMONY_START",
    "HARMONY_TOKENS",
    "THINK_CLOSE",
    "THINK_NAMES",
    "THINK_OPEN",
    "THINK_OPEN_UNFINISHED",
    "THINK_TAG",
    "WRAPPER_TOKENS",
    "skip_space",
]

THINK_NAMES = ("think", "thinking", "reasoning", "seed:think")
"""Tag names of reasoning blocks (``<seed:think>``: Seed-OSS)."""

# Case-insensitive by character classes rather than re.I: a pattern that starts with a literal
# `<` lets the regex engine skip ahead with a fast search, which re.I would turn off.
_THINK_NAME = (
    r"(?:(?:[Ss][Ee][Ee][Dd]:)?[Tt][Hh][Ii][Nn][Kk](?:[Ii][Nn][Gg])?"
    r"|[Rr][Ee][Aa][Ss][Oo][Nn][Ii][Nn][Gg])"
)
THINK_OPEN = re.compile(r"<" + _THINK_NAME + r"\b[^>]*>")
"""The opening tag of a reasoning block, any case."""
THINK_CLOSE = re.compile(r"</" + _THINK_NAME + r"\s*>")
"""The closing tag of a reasoning block, any case."""
THINK_TAG = re.compile(r"</?" + _THINK_NAME)
"""The start of any reasoning tag, opening or closing: one scan tells that an answer holds none
(it matches wherever :data:`THINK_OPEN` or :data:`THINK_CLOSE` does)."""
THINK_OPEN_UNFINISHED = re.compile(r"<" + _THINK_NAME + r"\b[^>]*\Z")
"""An opening reasoning tag cut off at the end of the text so far (streaming)."""

FENCE_OPEN = re.compile(r"(`{3,}|~{3,})[ \t]*([A-Za-z][\w+.\-]*)?[^\S\n]*\n?")
"""A code fence opening: the fence run (group 1) and its language tag (group 2)."""

WRAPPER_TOKENS = (
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁calls▁end｜>",
    "<|tool▁calls▁begin|>",
    "<|tool▁calls▁end|>",
    "<|tool_calls_section_begin|>",
    "<|tool_calls_section_end|>",
    "<|tool_call_section_begin|>",
    "<|tool_call_section_end|>",
    "<｜tool_calls_begin｜>",
    "<｜tool_calls_end｜>",
    "<|tool_calls_begin|>",
    "<|tool_calls_end|>",
    "<|eom_id|>",
    "<|eot_id|>",
    "<answer>",
    "</answer>",
)
"""Tokens around marker blocks that belong to the call text (removed with it): DeepSeek's,
Kimi K2's and Step-3's outer markers, Llama's end-of-message tokens, and the answer section
Hunyuan A13B writes its calls in (``<think>..</think>\n<answer>\n<tool_calls>..``)."""

ANSWER_OPEN = "<answer>"
"""Hunyuan A13B's answer section: before a call block it goes with the call text, and so
does the line break before it (the server leaves the content ending at ``</think>``)."""

ANSWER_CALL_OPENERS = ("<answer>\n<tool_calls>", "<answer><tool_calls>")
"""An answer section that opens with calls, as the stream splitter holds it: a section of
plain text is shown as it streams."""

END_TOKENS = (
    "<｜end▁of▁sentence｜>",
    "<|end▁of▁sentence|>",
    "<|im_end|>",
    "<|endoftext|>",
    "<|end_of_text|>",
    "</s>",
)
"""End-of-turn tokens of the families that write call blocks (DeepSeek; Qwen, Kimi K2,
Hermes; GLM and Granite; Llama 3 base; Mistral): when a raw answer keeps one right after its
last call block, it goes with the call text (servers drop it as a special token)."""

HARMONY_CHANNEL = "<|channel|>"
HARMONY_START = "<|start|>"
HARMONY_MESSAGE = "<|message|>"
"""The header tokens of gpt-oss's harmony messages (the message body follows ``<|message|>``)."""
HARMONY_TOKENS = (HARMONY_CHANNEL, HARMONY_START, HARMONY_MESSAGE)
"""Tokens of gpt-oss's harmony format: an answer holding them is read as harmony messages."""


def skip_space(text: str, pos: int, stop: int = -1) -> int:
    """The first position at or after ``pos`` (before ``stop``, the end of the text when
    negative) that is not whitespace: where every reader looks for what an answer opens with."""
    end = len(text) if stop < 0 else stop
    while pos < end and text[pos].isspace():
        pos += 1
    return pos


@functools.lru_cache(maxsize=64)
def closing_tag(name: str) -> re.Pattern[str]:
    """The closing tag of ``<name>`` in any case, spaces allowed before its ``>``."""
    return re.compile(r"</" + re.escape(name) + r"\s*>", re.I)
