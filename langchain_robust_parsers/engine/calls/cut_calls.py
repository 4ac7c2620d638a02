"""How a tool call cut off at the output token limit is told: one wording for the invalid call
of a message (`TextToolCallAdapter`, the chat model), the error of a tools parser and the
error the call-review middleware sends back to the model, so that a user searching for it finds
every place it comes from."""

from __future__ import annotations

__all__ = ["CUT_CALL_ADVICE", "cut_call_hint", "cut_call_problem"]

CUT_CALL_ADVICE = "Raise the model's max_tokens, or ask for shorter arguments or fewer calls"
"""What to do about it, for the developer reading a parser's error."""


def _cut_call(stop_reason: str | None) -> str:
    said = f" (stop reason {stop_reason!r})" if stop_reason else ""
    return (
        f"This call was cut off at the output token limit{said}, so its arguments may be incomplete"
    )


def cut_call_problem(stop_reason: str | None = None) -> str:
    """Why a cut call was not run (``stop_reason``: the provider's word, when it is known)."""
    return f"{_cut_call(stop_reason)}; it was not run."


def cut_call_hint(stop_reason: str | None = None) -> str:
    """The line a parser's error about a cut call's arguments ends with: what happened and
    what to do."""
    return f"{_cut_call(stop_reason)}. {CUT_CALL_ADVICE}."
