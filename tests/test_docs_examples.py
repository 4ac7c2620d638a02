"""Every Python block in README.md and docs/ runs as written.

Each ```` ```python ```` block runs in a fresh module namespace, in the order of its file, with
no network: the models in the docs are langchain-core's fake chat models. A block that cannot run
here (it needs a Spark cluster, a model server, ...) is preceded by a comment that says why:

    <!-- skip-test: needs a Spark cluster -->

and such blocks stay few (:data:`MAX_SKIPPED`). A block that needs an optional package that is
not installed (``langchain`` for ``create_agent`` at the floor versions) is skipped with that
reason.
"""

from __future__ import annotations

import re
import sys
import types
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

SKIP_MARK = re.compile(r"<!--\s*skip-test:\s*(?P<reason>\S.*?)\s*-->\s*\n\s*$")
"""The comment that skips the block right after it; the reason is required."""

FENCE = re.compile(r"^```python[ \t]*\n(?P<code>.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)

MAX_SKIPPED = 3
"""Blocks skipped by the comment, over all the docs: illustrations must stay the exception."""

OPTIONAL_MODULES = {"langchain", "langchain_classic", "pandas", "pyspark", "ray"}
"""Packages a block may need that the floor test environment does not install."""


@dataclass(frozen=True)
class Block:
    path: Path
    line: int
    code: str
    skip_reason: str | None

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def _blocks(path: Path) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        before = text[: match.start()]
        mark = SKIP_MARK.search(before[-300:])
        line = before.count("\n") + 1
        reason = mark.group("reason") if mark else None
        found.append(Block(path, line, match.group("code"), reason))
    return found


BLOCKS = [block for path in DOC_FILES if path.exists() for block in _blocks(path)]


def test_the_docs_have_python_blocks_and_few_skips() -> None:
    assert len(BLOCKS) >= 20
    assert any(b.path.name == "README.md" for b in BLOCKS)
    skipped = [b.name for b in BLOCKS if b.skip_reason is not None]
    assert len(skipped) <= MAX_SKIPPED, skipped


def test_skip_marks_carry_a_reason() -> None:
    for path in DOC_FILES:
        text = path.read_text(encoding="utf-8")
        for mark in re.finditer(r"<!--\s*skip-test\b(?P<rest>.*?)-->", text):
            assert re.match(r":\s*\S", mark.group("rest")), f"{path}: skip-test without a reason"


@pytest.mark.parametrize("block", BLOCKS, ids=[b.name for b in BLOCKS])
def test_block_runs(block: Block, monkeypatch: pytest.MonkeyPatch) -> None:
    if block.skip_reason is not None:
        pytest.skip(block.skip_reason)
    module = types.ModuleType("docs_example")
    monkeypatch.setitem(sys.modules, "docs_example", module)  # pydantic generics look it up
    monkeypatch.chdir(ROOT)
    code = compile(block.code, block.name, "exec")
    try:
        exec(code, module.__dict__)  # our own documentation, never model text
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] in OPTIONAL_MODULES:
            pytest.skip(f"needs {exc.name}, not installed here")
        raise
    except ImportError as exc:  # a package too old here, as the error says (the middleware's)
        if "langchain_robust_parsers.middleware needs" in str(exc):
            pytest.skip(str(exc))
        raise
