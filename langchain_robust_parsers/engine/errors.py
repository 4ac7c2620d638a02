"""The engine's error types; the parsers' exception boundary turns them into
``OutputParserException``.

Every error the engine raises on purpose is an `EngineError`, so the boundary can tell "this
text holds no value" from a bug: anything else escaping engine code is a bug, logged and converted
(or re-raised in strict mode, which the test suite turns on).
"""

from __future__ import annotations


class EngineError(ValueError):
    """The text could not be read as the format asked for (never a bug)."""


class JsonEngineError(EngineError):
    """No JSON value could be recovered from the text.

    ``pos`` is the offset in the input where the engine gave up (``-1`` when no payload was found).
    """

    def __init__(self, msg: str, pos: int = -1) -> None:
        super().__init__(msg if pos < 0 else f"{msg} (at offset {pos})")
        self.msg = msg
        self.pos = pos

    def __reduce__(self) -> tuple[type[JsonEngineError], tuple[str, int]]:
        return (type(self), (self.msg, self.pos))


class EngineBugError(EngineError):
    """An unexpected exception inside engine code, converted at the parser boundary so that the
    parser's ordinary failure path (an ``OutputParserException`` with the raw text) handles it.
    ``__cause__`` holds the original exception."""


class TextEngineError(EngineError):
    """No value of the requested format (XML, YAML, a list, a choice, a date) could be read.

    The non-JSON readers raise it; parsers turn it into ``OutputParserException``.
    """

    def __init__(self, msg: str) -> None:
        super().__init__(msg)
        self.msg = msg

    def __reduce__(self) -> tuple[type[TextEngineError], tuple[str]]:
        return (type(self), (self.msg,))


class AmbiguousAnswerError(TextEngineError):
    """The answer names more than one of the allowed values and nothing says which it meant.

    ``found`` lists the values named, in the order of the allowed values.
    """

    def __init__(self, msg: str, found: tuple[str, ...] = ()) -> None:
        super().__init__(msg)
        self.found = found

    def __reduce__(self) -> tuple[type[TextEngineError], tuple[str, tuple[str, ...]]]:  # type: ignore[override]
        return (type(self), (self.msg, self.found))
