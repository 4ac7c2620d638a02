"""DESIGN's layering, checked: every import in the package points down, never up or sideways.

The rule is read from the AST of every module (imports inside functions included), so a lazy
import cannot slip past it. Layers, bottom to top:

- ``engine`` (pure text -> value): the standard library, pydantic and its core, and the engine
  itself; never LangChain. Inside it, the shared modules at its root sit below the format groups,
  and a group reads only groups below it: ``json`` < ``calls`` < ``agents``.
- ``parsers``: the engine and langchain-core.
- ``chains`` and ``chat_models``: peers above the parsers; neither imports the other.
- ``middleware``: agent middleware for LangChain v1's ``create_agent``, above the parsers,
  chains and chat models; no layer imports it (the facade exports it lazily).
- ``cli``: anything below it.
- ``batch`` (data frames for Ray and Spark): a top layer beside ``cli``, over the parsers.
- The facade (the package ``__init__``, ``json_text``) re-exports for users; nothing inside the
  package imports it.

And the package leans on LangChain's public API only, so that a LangChain release cannot break it
by moving what it never promised: no import of a private module or name (a dotted path with a
component that starts with ``_``, or a name LangChain does not document, such as
``var_child_runnable_config``), nor such a path in a string (``importlib.import_module``), and no
frame inspection (``sys._getframe``, ``inspect.currentframe``, ``inspect.stack``) to find out who
called.
"""

from __future__ import annotations

import ast
import re
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

MAX_PARSER_CLASS_LINES = 200
"""A parser class holds fields and the translation of engine results into LangChain's contract;
what is longer is engine work left in the parser layer (reading, stream state, call choice and
model fitting live in the engine)."""

MAX_PARSER_LAYER_LINES = 4_500
"""The whole parser layer (``parsers/``): LangChain classes and their translation of engine
results. Past it, reading, stream state or format pipelines are growing in the wrong layer."""

PARSER_CLASS_LINES_ALLOWED: dict[str, int] = {}
"""Parser classes allowed past ``MAX_PARSER_CLASS_LINES``, each at most its current size."""

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
    "batch": frozenset({"engine", "parsers", "batch", "_version"}),
    "cli": frozenset({"engine", "parsers", "chains", "chat_models", "cli", "_version"}),
    "middleware": frozenset(
        {"engine", "parsers", "chains", "chat_models", "middleware", "_version"}
    ),
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


def _parser_class_sizes() -> Iterator[tuple[str, int]]:
    for path in sorted((ROOT / "parsers").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                yield node.name, node.end_lineno - node.lineno + 1


def test_parser_classes_stay_thin() -> None:
    sizes = dict(_parser_class_sizes())
    too_long = {
        name: size
        for name, size in sizes.items()
        if size > PARSER_CLASS_LINES_ALLOWED.get(name, MAX_PARSER_CLASS_LINES)
    }
    assert too_long == {}
    assert set(PARSER_CLASS_LINES_ALLOWED) <= set(sizes), "an allowed class no longer exists"


def test_parser_layer_stays_thin() -> None:
    paths = sorted((ROOT / "parsers").glob("*.py"))
    lines = sum(len(path.read_text(encoding="utf-8").splitlines()) for path in paths)
    assert lines <= MAX_PARSER_LAYER_LINES


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


PRIVATE_LANGCHAIN_NAMES = frozenset({"var_child_runnable_config"})
"""Names without a leading ``_`` that LangChain's API reference does not document: private all
the same (``var_child_runnable_config`` is not in ``langchain_core.runnables``' public docs)."""

PUBLIC_INSTEAD = {
    "var_child_runnable_config": "langchain_core.runnables.ensure_config() (the current run's "
    "config, public in 0.3 and 1.x) or the config the runnable is given",
    "_refusal": "the message's content blocks of type 'refusal' and "
    "langchain_core.exceptions.ModelRefusalError (both public from 1.7.5)",
}
"""What to use instead of a private part of LangChain, keyed by that part."""

PUBLIC_INSTEAD_DEFAULT = (
    "a name a langchain_core package exports (in its __init__'s __all__), or code of our own"
)
FRAME_INSPECTION = {
    "sys": frozenset({"_getframe", "_getframemodulename", "_current_frames"}),
    "inspect": frozenset({"currentframe", "stack", "getouterframes", "trace"}),
}
"""The calls that read the call stack: the package never asks who called it."""
FRAME_INSTEAD = (
    "what the caller passes (an argument or a contextvars.ContextVar it sets), or a public "
    "LangChain hook"
)
_LANGCHAIN_PATH = re.compile(
    r"(?<![\w.])(?:" + "|".join(sorted(LANGCHAIN_ROOTS, reverse=True)) + r")(?:\.\w+)+"
)


def _private_part(dotted: str) -> str | None:
    """The first private component of a LangChain dotted path (``None`` when the path is public
    or not LangChain's). Dunders (``__version__``) are public."""
    root, *parts = dotted.split(".")
    if root not in LANGCHAIN_ROOTS:
        return None
    for part in parts:
        dunder = part.startswith("__") and part.endswith("__")
        if (part.startswith("_") and not dunder) or part in PRIVATE_LANGCHAIN_NAMES:
            return part
    return None


def _bound_names(tree: ast.AST) -> dict[str, str]:
    """Each name the module's imports bind, with the dotted path it stands for."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    head = alias.name.split(".", 1)[0]
                    bound[head] = head
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for alias in node.names:
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return bound


def _dotted(node: ast.Attribute, bound: dict[str, str]) -> str | None:
    """``a.b.c`` as the dotted path it stands for, when ``a`` is a name an import binds (and is
    not private itself: that is reported at its import)."""
    attrs: list[str] = []
    current: ast.expr = node
    while isinstance(current, ast.Attribute):
        attrs.append(current.attr)
        current = current.value
    if not isinstance(current, ast.Name) or current.id not in bound:
        return None
    if _private_part(bound[current.id]) is not None:
        return None
    return ".".join([bound[current.id], *reversed(attrs)])


def _paths_used(tree: ast.AST) -> Iterator[tuple[str, int, str]]:
    """(dotted path, line, how) for every import, every attribute read through an imported name,
    and every LangChain path written in a string (documentation strings aside)."""
    bound = _bound_names(tree)
    prose = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno, "imports"
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for alias in node.names:
                yield f"{node.module}.{alias.name}", node.lineno, "imports"
        elif isinstance(node, ast.Attribute) and (path := _dotted(node, bound)) is not None:
            yield path, node.lineno, "uses"
        elif (
            isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose
        ):
            for match in _LANGCHAIN_PATH.finditer(node.value):
                yield match.group(), node.lineno, "names in a string"


def _coupling_violations(root: Path = ROOT) -> Iterator[str]:
    """Each use of a private part of LangChain, or of frame inspection, with what to use instead."""
    for _, path in _modules(root):
        seen: set[tuple[int, str]] = set()
        for dotted, line, how in _paths_used(ast.parse(path.read_text(encoding="utf-8"))):
            module, _, name = dotted.rpartition(".")
            private = _private_part(dotted)
            if private is not None:
                parts = dotted.split(".")
                shown = ".".join(parts[: parts.index(private, 1) + 1])
                instead = PUBLIC_INSTEAD.get(private, PUBLIC_INSTEAD_DEFAULT)
                problem = f"private LangChain API {shown}; use {instead}"
            elif name in FRAME_INSPECTION.get(module, ()):
                problem = f"frame inspection {dotted}; use {FRAME_INSTEAD}"
            else:
                continue
            if (line, problem) not in seen:
                seen.add((line, problem))
                yield f"{path.relative_to(root.parent)}:{line} {how} {problem}"


def test_only_public_langchain_api_and_no_frame_inspection() -> None:
    found = list(_coupling_violations())
    assert found == [], "LangChain couplings that a release can break:\n" + "\n".join(found)


def test_coupling_rule_catches_private_api_and_frames(tmp_path: Path) -> None:
    """The checker itself, on a small tree holding one coupling of each kind and public uses."""
    root = tmp_path / PACKAGE
    files = {
        "parsers/module.py": "from langchain_core.output_parsers._refusal import check\n",
        "parsers/name.py": "from langchain_core.runnables.base import _ChunkAccumulator as A\n",
        "parsers/string.py": "import importlib\n"
        "M = importlib.import_module('langchain_core.output_parsers._refusal')\n",
        "parsers/undocumented.py": "from langchain_core.runnables.config import "
        "var_child_runnable_config\n",
        "parsers/attribute.py": "import langchain_core.runnables.config as c\n"
        "V = c.var_child_runnable_config.get()\n",
        "parsers/package.py": "import langchain_core._api.deprecation\n",
        "parsers/frame.py": "import sys\n\ndef f():\n    return sys._getframe(1)\n",
        "parsers/frames.py": "import inspect as i\nX = i.currentframe()\nY = i.stack()\n",
        "parsers/frame_import.py": "from sys import _getframe\n",
        "parsers/public.py": '"""Not langchain_core.output_parsers._refusal: prose."""\n'
        "import inspect\nimport sys\n"
        "from langchain_core import __version__\n"
        "from langchain_core.runnables import ensure_config\n"
        "from langchain_robust_parsers.parsers import _ours\n"
        "X = (sys.version_info, inspect.signature, ensure_config()._private_key_of_a_dict)\n"
        "Y = ('langchain_core.runnables.base', 'my_langchain_core._x')\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    messages = list(_coupling_violations(root))
    found = sorted(line.split(";", 1)[0].rsplit("/", 1)[1] for line in messages)
    assert found == [
        "attribute.py:2 uses private LangChain API "
        "langchain_core.runnables.config.var_child_runnable_config",
        "frame.py:4 uses frame inspection sys._getframe",
        "frame_import.py:1 imports frame inspection sys._getframe",
        "frames.py:2 uses frame inspection inspect.currentframe",
        "frames.py:3 uses frame inspection inspect.stack",
        "module.py:1 imports private LangChain API langchain_core.output_parsers._refusal",
        "name.py:1 imports private LangChain API langchain_core.runnables.base._ChunkAccumulator",
        "package.py:1 imports private LangChain API langchain_core._api",
        "string.py:2 names in a string private LangChain API "
        "langchain_core.output_parsers._refusal",
        "undocumented.py:1 imports private LangChain API "
        "langchain_core.runnables.config.var_child_runnable_config",
    ]
    assert all("; use " in line for line in messages)
    assert any("ModelRefusalError" in line for line in messages)
    assert any("ensure_config()" in line for line in messages)


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


NEEDS_LANGCHAIN = frozenset({"RobustToolCallMiddleware"})
"""Public names that need ``langchain>=1.5`` (agent middleware), absent at the floor."""


def _langchain_agents() -> bool:
    try:
        import langchain_robust_parsers.middleware  # noqa: F401
    except ImportError:  # langchain before 1.5, or none
        return False
    return True


def test_every_public_name_resolves() -> None:
    import langchain_robust_parsers as package

    names = package.__all__ if _langchain_agents() else set(package.__all__) - NEEDS_LANGCHAIN
    missing = [name for name in names if getattr(package, name, None) is None]
    assert missing == []
    with pytest.raises(AttributeError):
        package.NoSuchParser  # noqa: B018


FAKE_MODEL_BASES = frozenset({"BaseChatModel", "SimpleChatModel", "BaseLLM", "LLM"})


def test_fake_chat_models_live_in_one_helper() -> None:
    """Scripted chat models are shared (``tests/fake_chat_models.py``), never copied into a test
    module, so that a fix to how a fake streams reaches every test that uses it."""
    tests = Path(__file__).resolve().parent
    own = [
        f"{path.name}: {node.name}"
        for path in sorted(tests.glob("test_*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef)
        and any(
            (base.id if isinstance(base, ast.Name) else getattr(base, "attr", ""))
            in FAKE_MODEL_BASES
            for base in node.bases
        )
    ]
    assert own == []
