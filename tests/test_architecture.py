"""DESIGN's layering, checked: every import in the package points down, never up or sideways.

The rule is read from the AST of every module (imports inside functions included), so a lazy
import cannot slip past it. Layers, bottom to top:

- ``engine`` (pure text -> value): the standard library, pydantic and its core, and the engine
  itself; never LangChain. Inside it, the shared modules at its root sit below the format groups,
  and a group reads only groups below it: ``json`` < ``calls`` < ``agents``.
- ``parsers``: the engine and langchain-core.
- ``chains`` and ``chat_models``: peers above the parsers; neither imports the other.
- ``cli``: anything below it.
- The facade (the package ``__init__``, ``json_text``) re-exports for users; nothing inside the
  package imports it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = "langchain_robust_parsers"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE

MAX_MODULE_LINES = 900
MAX_FUNCTION_LINES = 80
FUNCTION_LENGTH_ALLOWED: frozenset[tuple[str, str]] = frozenset()
"""(module, function) pairs allowed past ``MAX_FUNCTION_LINES``, each with its reason in a
comment beside it. Empty: every function fits."""

LANGCHAIN_ROOTS = frozenset({"langchain_core", "langchain", "langchain_classic", "langgraph"})
ENGINE_ALLOWED_THIRD_PARTY = frozenset(
    {"pydantic", "pydantic_core", "commentjson", "typing_extensions", "yaml"}
)
ENGINE_GROUP_RANK = {"json": 1, "markup": 2, "text_values": 2, "calls": 3, "agents": 4}
"""Rank of each format group inside the engine; modules at the engine's root rank 0."""

LAYER_ALLOWED: dict[str, frozenset[str]] = {
    "engine": frozenset({"engine", "_version"}),
    "parsers": frozenset({"engine", "parsers", "_version"}),
    "chains": frozenset({"engine", "parsers", "chains", "_version"}),
    "chat_models": frozenset({"engine", "parsers", "chat_models", "_version"}),
    "cli": frozenset({"engine", "parsers", "chains", "chat_models", "cli", "_version"}),
}
FACADE = frozenset({"__init__", "json_text", "_version"})
_SUBPACKAGES = frozenset(LAYER_ALLOWED)


def _modules(root: Path = ROOT) -> Iterator[tuple[str, Path]]:
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        yield ".".join(parts), path


def _imports(path: Path, module: str) -> Iterator[tuple[str, int]]:
    """Every absolute module name ``path`` imports, with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package_parts = [PACKAGE, *module.split(".")]
    if path.name != "__init__.py":
        package_parts = package_parts[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package_parts[: len(package_parts) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            if base != PACKAGE:
                yield base, node.lineno
                continue
            for alias in node.names:  # `from pkg import engine` names a subpackage, not the facade
                named = f"{base}.{alias.name}"
                yield (named if alias.name in _SUBPACKAGES else base), node.lineno


def _layer(module: str) -> str:
    head = module.split(".", 1)[0]
    return "facade" if head in FACADE - {"_version"} else head


def _engine_rank(module: str) -> int:
    """The rank of an engine module; the engine's ``__init__`` re-exports for the layers above,
    so it ranks above every group."""
    if module == "engine.__init__":
        return max(ENGINE_GROUP_RANK.values()) + 1
    parts = module.split(".")
    return ENGINE_GROUP_RANK.get(parts[1], 0) if len(parts) > 1 else 0


def _violations(root: Path = ROOT) -> Iterator[str]:
    for module, path in _modules(root):
        layer = _layer(module)
        for target, line in _imports(path, module):
            where = f"{path.relative_to(root.parent)}:{line} imports {target}"
            top = target.split(".", 1)[0]
            if layer == "engine" and top in LANGCHAIN_ROOTS:
                yield f"{where}: the engine never imports LangChain"
            if top != PACKAGE or layer == "facade":
                continue
            inner = target[len(PACKAGE) + 1 :]
            if not inner or inner.split(".", 1)[0] in FACADE - {"_version"}:
                yield f"{where}: nothing inside the package imports the facade"
                continue
            target_layer = _layer(inner)
            if target_layer not in LAYER_ALLOWED.get(layer, frozenset()):
                yield f"{where}: {layer} may not import {target_layer}"
            elif layer == target_layer == "engine" and _engine_rank(inner) > _engine_rank(module):
                yield f"{where}: engine groups import only groups below them"


def test_imports_point_down() -> None:
    assert list(_violations()) == []


def test_engine_third_party_imports_are_only_pydantic() -> None:
    stdlib = frozenset(__import__("sys").stdlib_module_names)
    found = []
    for module, path in _modules():
        if _layer(module) != "engine":
            continue
        for target, line in _imports(path, module):
            root = target.split(".", 1)[0]
            if root not in stdlib and root != PACKAGE and root not in ENGINE_ALLOWED_THIRD_PARTY:
                found.append(f"{path.name}:{line} {target}")
    assert found == []


def test_no_engine_level_module_outside_engine() -> None:
    """A module that needs neither LangChain nor a layer above the engine is engine code and
    belongs in ``engine/`` (the CLI aside: argparse and terminal code are its own)."""
    misplaced = []
    for module, path in _modules():
        if _layer(module) in ("engine", "facade", "cli", "_version") or path.name == "__init__.py":
            continue
        needs = {
            _layer(target[len(PACKAGE) + 1 :]) if target.startswith(PACKAGE + ".") else top
            for target, _ in _imports(path, module)
            for top in [target.split(".", 1)[0]]
        }
        if not needs & (LANGCHAIN_ROOTS | set(LAYER_ALLOWED) - {"engine"}):
            misplaced.append(module)
    assert misplaced == []


@pytest.mark.parametrize(("module", "path"), list(_modules()), ids=lambda value: str(value))
def test_module_and_function_sizes(module: str, path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    assert source.count("\n") <= MAX_MODULE_LINES, f"{module} is over {MAX_MODULE_LINES} lines"
    long = [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
        and (module, node.name) not in FUNCTION_LENGTH_ALLOWED
    ]
    assert long == []


def test_rule_catches_wrong_way_imports(tmp_path: Path) -> None:
    """The checker itself, on a small tree holding one import of each forbidden kind."""
    root = tmp_path / PACKAGE
    files = {
        "engine/json/bad.py": f"from {PACKAGE}.parsers.p import X\nimport langchain_core\n",
        "engine/json/up.py": f"from {PACKAGE}.engine.agents import react\n",
        "engine/agents/down.py": f"from {PACKAGE}.engine.json import decode\n",
        "parsers/p.py": f"from {PACKAGE}.chains import y\nfrom {PACKAGE} import loads\n",
        "parsers/q.py": f"from {PACKAGE} import engine\nfrom . import p\n",
        "chat_models/c.py": f"from {PACKAGE}.chains.clarification import z\n",
        "chains/ok.py": f"from {PACKAGE}.parsers import p\nfrom .. import engine\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    found = sorted(line.split(": ", 1)[1] for line in _violations(root))
    assert found == [
        "chat_models may not import chains",
        "engine groups import only groups below them",
        "engine may not import parsers",
        "nothing inside the package imports the facade",
        "parsers may not import chains",
        "the engine never imports LangChain",
    ]


@pytest.mark.slow  # a subprocess
def test_one_parser_imports_only_what_it_needs() -> None:
    """Public names are imported lazily: the JSON parser does not pull in the chains, the chat
    model, or the agent formats' dozens of pydantic classes."""
    code = (
        "import sys\n"
        "from langchain_robust_parsers import RobustJsonOutputParser\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('langchain_robust'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT.parent
    ).stdout.split()
    assert f"{PACKAGE}.parsers.json_parser" in out
    heavy = [m for m in out if m.split(".")[1:2] in (["chains"], ["chat_models"], ["cli"])]
    assert heavy == [] and f"{PACKAGE}.engine.agents" not in out


def test_every_public_name_resolves() -> None:
    import langchain_robust_parsers as package

    missing = [name for name in package.__all__ if getattr(package, name, None) is None]
    assert missing == []
    with pytest.raises(AttributeError):
        package.NoSuchParser  # noqa: B018
