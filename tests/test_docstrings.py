"""Docstrings render in the API reference (mkdocstrings reads them as Markdown) and speak to
users: no Sphinx roles, which Markdown shows as literal text; no bare ``>>>`` examples, which it
shows as nested quotes; no words from the project's internal history. Examples are fenced
``python`` blocks, and they run."""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

import langchain_robust_parsers

PACKAGE = Path(langchain_robust_parsers.__file__).resolve().parent

SPHINX_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj|ref):`")
"""``:class:`X```: Markdown renders the role as text before a code span."""

BARE_PROMPT = re.compile(r"^[ \t]*>>>", re.MULTILINE)
"""A doctest line: a blockquote in Markdown unless it sits in a fenced block."""

FENCED = re.compile(r"^[ \t]*```.*?^[ \t]*```", re.MULTILINE | re.DOTALL)

HISTORY_WORDS = re.compile(r"\bseed[ -]?\d{3}\b|\bthe seed's\b", re.IGNORECASE)
"""Names of the internal design notes a feature came from: they mean nothing to a user."""

PYTHON_BLOCK = re.compile(r"^([ \t]*)```python[ \t]*\n(.*?)^\1```", re.MULTILINE | re.DOTALL)


def _docstrings() -> Iterator[tuple[str, int, str]]:
    """Every docstring of the package (modules, classes, functions and the strings under
    attributes that mkdocstrings shows as their documentation): (file, line, text)."""
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            ):
                yield str(path.relative_to(PACKAGE.parent)), node.lineno, node.value.value


def _offenders(pattern: re.Pattern[str], *, outside_fences: bool = False) -> list[str]:
    found = []
    for name, line, text in _docstrings():
        body = FENCED.sub("", text) if outside_fences else text
        if pattern.search(body):
            found.append(f"{name}:{line}: {pattern.search(body).group()!r}")  # type: ignore[union-attr]
    return found


def test_docstrings_have_no_sphinx_roles() -> None:
    assert _offenders(SPHINX_ROLE) == []


def test_docstring_examples_are_fenced() -> None:
    assert _offenders(BARE_PROMPT, outside_fences=True) == []


def test_docstrings_carry_no_internal_history() -> None:
    assert _offenders(HISTORY_WORDS) == []


def test_tests_carry_no_internal_history() -> None:
    """A maintainer reads a test to learn a rule: it names the format, not the design note
    the rule came from."""
    here = Path(__file__).resolve()
    found = [
        f"{path.name}:{text[: m.start()].count(chr(10)) + 1}"
        for path in sorted(here.parent.glob("*.py"))
        if path != here
        for text in [path.read_text(encoding="utf-8")]
        for m in HISTORY_WORDS.finditer(text)
    ]
    assert not found, found


def test_the_checks_catch_what_they_are_for() -> None:
    assert SPHINX_ROLE.search("See :class:`ParseReport` and :meth:`parse`.")
    assert not SPHINX_ROLE.search("See `ParseReport` and `parse`.")
    example = "Example:\n\n    >>> parse('[]')\n    []\n"
    assert BARE_PROMPT.search(example)
    assert not BARE_PROMPT.search(FENCED.sub("", "    ```pycon\n" + example + "    ```\n"))
    assert HISTORY_WORDS.search("the metrics table of seed 000")


def _public_examples() -> list[tuple[str, str]]:
    """The self-contained examples of the public names' docstrings: the fenced blocks that
    import what they use (others are sketches around a real model, such as ``ChatOllama``)."""
    examples = []
    for name in sorted(langchain_robust_parsers.__all__):
        try:
            value = getattr(langchain_robust_parsers, name)
        except ImportError:  # an extra not installed here (the middleware needs langchain>=1.5)
            continue
        doc = inspect.getdoc(value) or ""
        for i, match in enumerate(PYTHON_BLOCK.finditer(doc)):
            code = inspect.cleandoc(match.group(2))
            if code.startswith("from langchain_robust_parsers import"):
                examples.append((f"{name}[{i}]", code))
    return examples


@pytest.mark.parametrize(("name", "code"), _public_examples(), ids=lambda v: str(v)[:40])
def test_public_docstring_examples_run(name: str, code: str) -> None:
    exec(compile(code, name, "exec"), {"__name__": name})
