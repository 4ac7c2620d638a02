"""Special tokens around tool-call blocks and answers that belong to the call text, and the
header tokens of gpt-oss's harmony messages."""

from __future__ import annotations

__all__ = [
    "ANSWER_CALL_OPENERS",
    "ANSWER_OPEN",
    "END_TOKENS",
    "HARMONY_CHANNEL",
    "HARMONY_MESSAGE",
    "HARMONY_START",
    "HARMONY_TOKENS",
    "SECTION_TOKENS",
    "WRAPPER_TOKENS",
]

SECTION_TOKENS = (
    ("<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"),
    ("<|tool▁calls▁begin|>", "<|tool▁calls▁end|>"),
    ("<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"),
    ("<|tool_call_section_begin|>", "<|tool_call_section_end|>"),
    ("<｜tool_calls_begin｜>", "<｜tool_calls_end｜>"),
    ("<|tool_calls_begin|>", "<|tool_calls_end|>"),
)
"""The opening and closing tokens of DeepSeek's, Kimi K2's and Step-3's call sections: the
templates write only calls between them, so any text there is call text, not content."""

WRAPPER_TOKENS = (
    *(token for pair in SECTION_TOKENS for token in pair),
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
