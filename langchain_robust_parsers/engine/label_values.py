"""Reading an answer written as labelled lines against a schema, when it holds no JSON.

Models asked for JSON sometimes answer in the layout of a form::

    Score: 8/10
    Label: ok
    Reasons: clear, concise

`read_labels` reads each ``label: value`` line (also ``label = value``, with list bullets,
``**bold**`` labels or heading marks around it) whose label names a top-level field of the model,
ignoring case, ``_``, ``-`` and spaces; lines that follow a label without one of their own
continue its value. Values stay text: the schema coercion and validation that follow turn
``"8/10"`` into ``8`` and ``"clear, concise"`` into a list. No LangChain import here.
"""

from __future__ import annotations

from typing import Any

from langchain_robust_parsers.engine.coercion import field_table, is_list_annotation, normalize_name

__all__ = ["MAX_LABEL_CHARS", "MAX_LABEL_LINES", "read_labels"]

MAX_LABEL_CHARS = 64
"""Longest label read: field names are short; a longer text before a colon is a sentence."""

MAX_LABEL_LINES = 2000
"""Lines read: a form-like answer is short; the bound keeps pathological input linear."""

_LEADING_MARKS = " \t>*-#+•"
"""Bullets, quote and heading marks before a label."""

_LABEL_MARKS = " \t*_`"
"""Emphasis around a label (``**Score**:``, ``_Label_:``)."""

_LIST_SEPARATORS = (";", ",")
"""How a list is written on one line, in the order tried."""


def _split(line: str) -> tuple[str, str] | None:
    """``(label, value)`` of a ``label: value`` line, or ``None``."""
    body = line.lstrip(_LEADING_MARKS)
    cut = -1
    for i, ch in enumerate(body[: MAX_LABEL_CHARS + 8]):
        if ch in ":=":
            cut = i
            break
    if cut <= 0:
        return None
    label = body[:cut].strip(_LABEL_MARKS)
    if not label or len(label) > MAX_LABEL_CHARS or not label[0].isalpha():
        return None
    if not all(ch.isalnum() or ch in " _-" for ch in label):
        return None
    return label, body[cut + 1 :].strip().strip("*_`").strip()


def _as_list(text: str) -> list[str]:
    lines = [ln.strip().lstrip(_LEADING_MARKS).strip() for ln in text.splitlines()]
    items = [ln for ln in lines if ln]
    if len(items) == 1:
        for sep in _LIST_SEPARATORS:
            if sep in items[0]:
                return [part.strip() for part in items[0].split(sep) if part.strip()]
    return items


def read_labels(text: str, model: type[Any]) -> dict[str, Any] | None:
    """The fields of ``model`` (a pydantic model class) written as labelled lines in ``text``,
    under the keys validation accepts, or ``None`` when no line names a field."""
    table = field_table(model)
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for n, line in enumerate(text.splitlines()):
        if n >= MAX_LABEL_LINES:
            break
        pair = _split(line)
        hit = table.get(normalize_name(pair[0])) if pair is not None else None
        if pair is not None and hit is not None and hit[0] not in found:
            current = found[hit[0]] = [pair[1]] if pair[1] else []
        elif pair is not None and hit is None and current is not None and ":" in line:
            current = None  # another label, not a field: its lines are not ours
        elif current is not None and line.strip():
            current.append(line.strip())
    if not found:
        return None
    out: dict[str, Any] = {}
    annotations = dict(table.values())
    for key, lines in found.items():
        joined = "\n".join(lines).strip()
        out[key] = _as_list(joined) if is_list_annotation(annotations.get(key)) else joined
    return out
