"""The options a class refuses, and the error that names the one meant.

Every public class of the package with options refuses an option it does not have instead of
ignoring it: ``on_truncaton="raise"`` raises `UnknownOptionError` saying ``did you mean
'on_truncation'?``; an option removed in 0.3.0 names the option that replaced it, and
``on_truncation`` given to a class that cannot see a cut-off answer says so.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "NO_CUT_OPTION",
    "REMOVED_OPTIONS",
    "SUGGESTION_CUTOFF",
    "UnknownOptionError",
    "unknown_option_error",
]

REMOVED_OPTIONS: Mapping[str, str] = {
    "fallback": (
        "on_error='fallback' (was fallback='plain_text'; fallback='raise' is on_error='raise')"
    ),
    "errors": "on_error='fallback' (was errors='return'; errors='raise' is on_error='raise')",
    "fallback_to_null_action": (
        "on_error='fallback' (was fallback_to_null_action=True; False is on_error='raise')"
    ),
    "lenient_finish": "on_error='fallback' (was lenient_finish=True; False is on_error='raise')",
    "allow_truncated": "on_truncation='raise' (was allow_truncated=False; True is the default)",
    "allow_truncated_calls": (
        "on_truncation='complete' (was allow_truncated_calls=True; False is on_truncation='raise', "
        "the default)"
    ),
}
"""Options removed in 0.3.0 (deprecated in 0.2), with what to write instead."""

NO_CUT_OPTION = "on_truncation"
"""The option only the parsers that can see a cut-off answer have."""

SUGGESTION_CUTOFF = 0.6
"""``difflib`` similarity above which a known option is offered as the meant one: catches one
or two wrong, missing or swapped letters in names of 6 to 20 characters, not unrelated names."""


class UnknownOptionError(TypeError):
    """An option the class does not have (misspelt, removed, or not supported by it).

    A ``TypeError``, as Python raises for an unexpected keyword argument; ``option`` is the
    name given and ``suggestion`` the option meant, when one is close (else ``None``).
    """

    def __init__(self, message: str, *, option: str, suggestion: str | None) -> None:
        super().__init__(message)
        self.option = option
        self.suggestion = suggestion

    def __reduce__(self) -> Any:
        return (_rebuild, (str(self.args[0]), self.option, self.suggestion))


def _rebuild(message: str, option: str, suggestion: str | None) -> UnknownOptionError:
    return UnknownOptionError(message, option=option, suggestion=suggestion)


def unknown_option_error(owner: str, option: str, known: Iterable[str]) -> UnknownOptionError:
    """The error for ``option`` given to ``owner`` (a class name) whose options are ``known``."""
    names = sorted(known)
    if option in REMOVED_OPTIONS:
        new = REMOVED_OPTIONS[option]
        return UnknownOptionError(
            f"{owner}: the option {option!r} was removed in 0.3.0; use {new}",
            option=option,
            suggestion=new.split("=", 1)[0],
        )
    if option == NO_CUT_OPTION:
        return UnknownOptionError(
            f"{owner} has no option {option!r}: it cannot see a cut-off answer (it has no "
            "unfinished value to complete or refuse). on_truncation is an option of the "
            "parsers that read JSON, XML, structured objects, function or tool calls, browser "
            "actions and ReAct steps",
            option=option,
            suggestion=None,
        )
    close = difflib.get_close_matches(option, names, n=1, cutoff=SUGGESTION_CUTOFF)
    hint = f"did you mean {close[0]!r}?" if close else f"its options are: {', '.join(names)}"
    return UnknownOptionError(
        f"{owner} has no option {option!r}; {hint}",
        option=option,
        suggestion=close[0] if close else None,
    )
