"""The formats the command line knows: a name, the parser class behind it, and its options.

Each `FormatEntry` names its parser by module and class, and the class is imported only
when the format is used. An entry whose module (or class) is not in this installation is simply
absent from `available_formats`, so a format can be registered before its parser lands.
A new format is one more entry in `FORMATS`.

A format is given on the command line as ``NAME`` or ``NAME:ARGUMENT`` (``pydantic:module:Model``).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pydantic
import pydantic.v1

from langchain_robust_parsers.engine.stats import FORMAT_NAMES, FUNCTION_CALLS

__all__ = [
    "FORMATS",
    "FormatEntry",
    "FormatError",
    "available_formats",
    "build_parser",
    "load_model",
    "registry",
    "resolve_format",
]

_PARSERS = "langchain_robust_parsers.parsers"


class FormatError(ValueError):
    """A format given on the command line cannot be used; the message says why."""


def _no_argument(name: str, argument: str | None) -> dict[str, Any]:
    if argument is not None:
        raise FormatError(f"format {name!r} takes no argument (got {name}:{argument})")
    return {}


@dataclass(frozen=True)
class FormatEntry:
    """One format: ``name`` on the command line, parsed by ``module.class_name``.

    ``options`` turns the text after ``name:`` (``None`` when there is none) into keyword
    arguments for the parser class; ``argument`` is how ``--help`` shows that text.
    Statistics rows carry the format names the library counts under (the table
    `FORMAT_NAMES`), so a table printed by the command
    line reads like ``ParseStats.table()`` in a program: ``function_calls`` for ``calls``,
    ``ui_tars``/``json``/... (the detected format) for ``actions``. ``aliases`` are other names
    accepted on the command line (the library's name where it differs).
    """

    name: str
    module: str
    class_name: str
    summary: str
    argument: str | None = None
    options: Callable[[str, str | None], dict[str, Any]] = _no_argument
    aliases: tuple[str, ...] = ()

    @property
    def stats_format(self) -> str:
        """The row of an outcome the parser did not count itself: its first library name."""
        return FORMAT_NAMES.get(self.class_name, (self.name,))[0]

    def stats_row(self, counted_as: str) -> str:
        """The statistics row for an outcome the parser counted under ``counted_as``: the
        library's own name, unchanged."""
        return counted_as

    @property
    def usage(self) -> str:
        """``name`` or ``name:ARGUMENT``, as written on the command line."""
        return self.name if self.argument is None else f"{self.name}:{self.argument}"

    def load_class(self) -> type[Any] | None:
        """The parser class, or ``None`` when its module or class is not in this installation.

        Any other import error (a bug in a module that exists) is raised, not hidden.
        """
        try:
            module = importlib.import_module(self.module)
        except ModuleNotFoundError as exc:
            if exc.name is not None and (
                self.module == exc.name or self.module.startswith(exc.name + ".")
            ):
                return None
            raise
        cls = getattr(module, self.class_name, None)
        return cls if isinstance(cls, type) else None


# --------------------------------------------------------------------------- pydantic:module:Model


def _import_module_from_cwd(module_name: str) -> Any:
    """Import ``module_name``; a module in the current directory is found as ``python -m``
    would find it (the directory is put on ``sys.path``, which worker processes inherit)."""
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        cwd = os.getcwd()
        if exc.name != module_name.split(".")[0] or cwd in sys.path:
            raise
        sys.path.insert(0, cwd)
        return importlib.import_module(module_name)


def _is_model(obj: object) -> bool:
    return isinstance(obj, type) and issubclass(obj, (pydantic.BaseModel, pydantic.v1.BaseModel))


def load_model(reference: str) -> type[Any]:
    """The pydantic model named by ``module:Model`` (``Model`` may be dotted: ``Outer.Inner``)."""
    module_name, sep, qualname = reference.partition(":")
    if not sep or not module_name or not qualname:
        raise FormatError(f"expected pydantic:module:Model, got pydantic:{reference}")
    try:
        obj: Any = _import_module_from_cwd(module_name)
    except ImportError as exc:
        raise FormatError(f"cannot import module {module_name!r}: {exc}") from exc
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise FormatError(f"module {module_name!r} has no attribute {qualname!r}")
    if not _is_model(obj):
        raise FormatError(f"{reference} is not a pydantic model class")
    result: type[Any] = obj
    return result


def _pydantic_options(name: str, argument: str | None) -> dict[str, Any]:
    if argument is None:
        raise FormatError("format 'pydantic' needs a model: pydantic:module:Model")
    return {"pydantic_object": load_model(argument)}


def _yaml_options(name: str, argument: str | None) -> dict[str, Any]:
    if argument is None:
        from langchain_robust_parsers.cli.text_formats import AnyYaml

        return {"pydantic_object": AnyYaml}
    return {"pydantic_object": load_model(argument)}


def _enum_options(name: str, argument: str | None) -> dict[str, Any]:
    choices = [c.strip() for c in (argument or "").split(",") if c.strip()]
    if not choices:
        raise FormatError("format 'enum' needs its values: enum:A,B,C")
    return {"choices": choices}


# --------------------------------------------------------------------------- the registry

FORMATS: tuple[FormatEntry, ...] = (
    FormatEntry(
        "json",
        f"{_PARSERS}.json_parser",
        "RobustJsonOutputParser",
        "any JSON value (fenced, in prose, after <think>, repaired, completed)",
    ),
    FormatEntry(
        "pydantic",
        f"{_PARSERS}.pydantic_parser",
        "RobustPydanticOutputParser",
        "a pydantic model, with schema-aligned coercion",
        argument="module:Model",
        options=_pydantic_options,
    ),
    FormatEntry(
        "calls",
        f"{_PARSERS}.function_calls",
        "FunctionCallOutputParser",
        "function calls: Python call syntax and JSON tool-call dialects, BFCL shape",
        aliases=(FUNCTION_CALLS,),
    ),
    FormatEntry(
        "dialog",
        f"{_PARSERS}.dialog",
        "DialogOutputParser",
        "bracket-tagged dialog turns ([TO: Bob, TONE: angry] ...)",
    ),
    FormatEntry(
        "actions",
        f"{_PARSERS}.actions",
        "ActionOutputParser",
        "web-agent actions from JSON or UI-TARS output (counted per detected format)",
    ),
    FormatEntry(
        "react",
        f"{_PARSERS}.react",
        "ReActOutputParser",
        "ReAct agent steps: an AgentAction or an AgentFinish",
    ),
    FormatEntry(
        "xml",
        f"{_PARSERS}.xml_parser",
        "RobustXMLOutputParser",
        "XML as XMLOutputParser's dict (unescaped & and <, unclosed tags, no root)",
    ),
    FormatEntry(
        "yaml",
        f"{_PARSERS}.yaml_parser",
        "RobustYamlOutputParser",
        "YAML (safe_load; tabs, prose, JSON answers); yaml:module:Model validates it",
        options=_yaml_options,
    ),
    FormatEntry(
        "list",
        f"{_PARSERS}.list_parsers",
        "RobustNumberedListOutputParser",
        "a list: numbered, bulleted, comma-separated or one item a line",
    ),
    FormatEntry(
        "enum",
        "langchain_robust_parsers.cli.text_formats",
        "ChoicesParser",
        "one of the given values (case, emphasis, a sentence around it, typos)",
        argument="A,B,C",
        options=_enum_options,
    ),
    FormatEntry(
        "bool",
        f"{_PARSERS}.choice_parsers",
        "RobustBooleanOutputParser",
        "yes or no (YES/NO, true/false, in a sentence)",
    ),
    FormatEntry(
        "datetime",
        f"{_PARSERS}.datetime_parser",
        "RobustDatetimeOutputParser",
        "a date and time: ISO 8601 and common formats, in a short sentence",
    ),
)
"""Every format the command line may offer, in the order ``--help`` and ``demo`` show them."""


def registry(entries: Iterable[FormatEntry] | None = None) -> tuple[FormatEntry, ...]:
    """``entries``, or `FORMATS` (read when called, so tests can swap it)."""
    return FORMATS if entries is None else tuple(entries)


def available_formats(entries: Iterable[FormatEntry] | None = None) -> dict[str, FormatEntry]:
    """The entries whose parser class is in this installation, by name."""
    return {e.name: e for e in registry(entries) if e.load_class() is not None}


def resolve_format(
    spec: str, entries: Iterable[FormatEntry] | None = None
) -> tuple[FormatEntry, str | None]:
    """The entry and argument of a format given as ``NAME`` or ``NAME:ARGUMENT``."""
    name, sep, argument = spec.partition(":")
    known = {e.name: e for e in registry(entries)}
    entry = known.get(name) or next((e for e in known.values() if name in e.aliases), None)
    if entry is None or entry.load_class() is None:
        names = ", ".join(e.usage for e in available_formats(known.values()).values())
        missing = " (its parser is not in this version)" if entry is not None else ""
        raise FormatError(f"unknown format {name!r}{missing}; available: {names}")
    return entry, (argument if sep else None)


def build_parser(
    spec: str,
    *,
    stats: Any = None,
    entries: Iterable[FormatEntry] | None = None,
    options: Mapping[str, Any] | None = None,
) -> Any:
    """A parser for the format ``spec``, counting into ``stats`` when it has a ``stats`` field;
    ``options`` (from command-line flags such as ``--window``) must be fields of its class."""
    entry, argument = resolve_format(spec, entries)
    cls = entry.load_class()
    assert cls is not None  # resolve_format checked it
    kwargs = entry.options(entry.name, argument)
    fields = getattr(cls, "model_fields", {})
    for key, value in (options or {}).items():
        if key not in fields:
            raise FormatError(f"--{key} does not apply to format {entry.name!r}")
        kwargs[key] = value
    if stats is not None and "stats" in fields:
        kwargs["stats"] = stats
    return cls(**kwargs)
