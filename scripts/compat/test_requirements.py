"""Print the requirements the langchain-core parser tests need, with the sdist's own ranges.

Usage: ``python test_requirements.py <extracted sdist dir>``; one requirement a line on stdout.

What the two test files need (found by reading them and the files they load, for 0.3.x and 1.x):
- ``tests/unit_tests/conftest.py`` imports ``blockbuster`` (an autouse fixture) and
  ``pytest_mock``;
- the sdist's pytest configuration passes ``--snapshot-warn-unused`` (a ``syrupy`` option) under
  ``--strict-config`` and sets ``asyncio_mode = "auto"`` (``pytest-asyncio``; the async streaming
  tests need it too);
- ``test_json.py`` and ``test_pydantic_parser.py`` import only ``pytest``, ``pydantic``,
  ``langchain_core`` and ``tests.unit_tests.pydantic_utils`` (which imports ``pydantic`` and
  ``pytest``).
The rest of the sdist's test group (numpy, grandalf, langchain-tests, xdist, benchmark plugins,
freezegun, responses, pytest-socket) is not used by these files and is not installed. The version
ranges come from the sdist's ``[dependency-groups] test`` (or the older
``[tool.poetry.group.test]`` / ``[project.optional-dependencies] test``), so each langchain-core
version gets the pytest generation it was tested with.
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from typing import Any

NEEDED = ("pytest", "pytest-asyncio", "pytest-mock", "syrupy", "blockbuster")


def _normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _group_specs(pyproject: dict[str, Any]) -> list[str]:
    """The requirement strings of the sdist's test group, wherever this version keeps them."""
    groups = pyproject.get("dependency-groups", {})
    if "test" in groups:
        return [s for s in groups["test"] if isinstance(s, str)]
    optional = pyproject.get("project", {}).get("optional-dependencies", {})
    if "test" in optional:
        return list(optional["test"])
    poetry = pyproject.get("tool", {}).get("poetry", {}).get("group", {}).get("test", {})
    specs = []
    for name, constraint in poetry.get("dependencies", {}).items():
        if isinstance(constraint, str) and constraint not in ("*", ""):
            # Poetry's ^x.y means >=x.y,<next major; keep it simple and use the lower bound.
            specs.append(f"{name}>={constraint.lstrip('^~=>')}")
        else:
            specs.append(name)
    return specs


def requirements(sdist_dir: Path) -> list[str]:
    try:
        tomllib = importlib.import_module("tomllib")
    except ModuleNotFoundError:  # Python 3.10: no ranges, just the names
        return list(NEEDED)
    pyproject = tomllib.loads((sdist_dir / "pyproject.toml").read_text(encoding="utf-8"))
    by_name: dict[str, str] = {}
    for spec in _group_specs(pyproject):
        match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", spec)
        if match:
            by_name[_normalize(match.group(1))] = spec.split(";")[0].strip()
    return [by_name.get(name, name) for name in NEEDED]


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    for line in requirements(Path(argv[1])):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
