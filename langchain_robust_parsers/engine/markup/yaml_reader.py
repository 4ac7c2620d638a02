"""YAML answers, read with ``yaml.safe_load`` only (PyYAML, the ``[yaml]`` extra).

Models put YAML in a fence after some prose, indent with tabs (which YAML forbids), answer in
JSON when YAML was asked for, or start with a sentence. `yaml_candidates` yields the
readings of an answer in order of preference, so that a parser with a schema takes the first
that validates. Aliases are allowed but a value whose expansion would exceed a bound is refused:
``safe_load`` shares aliased nodes, and a schema check or ``json.dumps`` would expand them.
"""

from __future__ import annotations

import functools
import importlib
import json
import re
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pydantic

from langchain_robust_parsers.engine.errors import JsonEngineError, TextEngineError
from langchain_robust_parsers.engine.json import locate
from langchain_robust_parsers.engine.json.decode import decode
from langchain_robust_parsers.engine.repair_log import RepairLog
from langchain_robust_parsers.engine.report import ParseReport, Repair, Source
from langchain_robust_parsers.engine.value_depth import MAX_VALUE_DEPTH

MAX_EXPANDED_NODES = 1_000_000
"""Nodes a value may hold once its aliases are expanded (a "billion laughs" of YAML anchors
stays small as loaded, and explodes when validated or dumped)."""

MAX_DEPTH = MAX_VALUE_DEPTH
"""Containers a value may nest (the readers' one bound, `value_depth`); deeper text is refused."""

_TOO_DEEP = (
    f"the YAML nests more than {MAX_DEPTH} levels, deeper than copy.deepcopy, pickle and"
    " LangChain's tracing can follow; ask the model for a flatter document"
)

MAX_PROSE_LINES = 8
"""Lines of prose before the YAML that are tried as where the YAML starts."""

_KEY_LINE = re.compile(r"(?:[A-Za-z_][\w\-]{0,80}|\"[^\"\n]{1,80}\"):(?:[ \t]|$)|- ")


def _yaml() -> ModuleType:
    try:
        return importlib.import_module("yaml")
    except ImportError as exc:
        raise TextEngineError(
            "reading YAML needs PyYAML: pip install 'langchain-robust-parsers[yaml]'"
        ) from exc


def yaml_available() -> bool:
    """True when PyYAML is installed."""
    try:
        _yaml()
    except TextEngineError:
        return False
    return True


def _expanded_size(value: Any, memo: dict[int, int], depth: int = 1) -> int:
    """Nodes of ``value`` with aliases expanded, ``value`` being a container at level
    ``depth``; raises past the depth and size bounds."""
    if not isinstance(value, dict | list):
        return 1
    if depth > MAX_DEPTH:
        raise TextEngineError(_TOO_DEEP)
    known = memo.get(id(value))
    if known is not None:
        return known
    items = list(value.values()) if isinstance(value, dict) else value
    size = 1
    for item in items:
        size += _expanded_size(item, memo, depth + 1)
        if size > MAX_EXPANDED_NODES:
            raise TextEngineError("the YAML expands past the size bound (aliases)")
    memo[id(value)] = size
    return size


def _untab(text: str, log: RepairLog, pos: int) -> str:
    """Tabs in indentation (which YAML forbids) as two spaces each."""
    if "\t" not in text:
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        stripped = line.lstrip(" \t")
        indent = line[: len(line) - len(stripped)]
        if "\t" in indent:
            lines[i] = indent.replace("\t", "  ") + stripped
            log.add("tab_indent", pos)
    return "\n".join(lines)


_NULL_TAG = "tag:yaml.org,2002:null"


@functools.cache
def _as_written_loader() -> type[Any]:
    """A ``SafeLoader`` that reads every plain scalar but ``null``/``~`` as the text written.

    YAML 1.1 gives ``NO`` as ``False``, ``1.10`` as ``1.1``, ``2024-01-05`` as a date, and an
    impossible date ``2024-13-45`` as an error; read as text, a ``str`` field gets what the model
    wrote, and pydantic still turns ``"5"``, ``"true"`` or ``"2024-01-05"`` into the ``int``,
    ``bool`` or ``date`` a field asks for."""
    safe_loader = _yaml().SafeLoader
    resolvers = {
        first: [(tag, pattern) for tag, pattern in found if tag == _NULL_TAG]
        for first, found in safe_loader.yaml_implicit_resolvers.items()
    }
    return type("AsWrittenLoader", (safe_loader,), {"yaml_implicit_resolvers": resolvers})


def _load(text: str, *, as_written: bool = False) -> Any:
    """The first document of ``text`` that holds a value, read by ``SafeLoader`` (or with plain
    scalars as written); raises `TextEngineError`."""
    yaml = _yaml()
    loader = _as_written_loader() if as_written else yaml.SafeLoader
    try:
        try:
            value = yaml.load(text, Loader=loader)  # a SafeLoader subclass
        except yaml.composer.ComposerError:  # several documents: the first that holds a value
            value = next((d for d in yaml.load_all(text, Loader=loader) if d is not None), None)
        _expanded_size(value, {})
    except yaml.YAMLError as exc:
        raise TextEngineError(f"invalid YAML: {exc}") from exc
    except ValueError as exc:  # `2024-13-45`: a date YAML 1.1 resolves and cannot build
        raise TextEngineError(f"invalid YAML value: {exc}") from exc
    except RecursionError as exc:
        raise TextEngineError(_TOO_DEEP) from exc
    return value


def _region(text: str, log: RepairLog) -> tuple[Source, int, int]:
    """A non-blank fenced block, else the text after the reasoning up to any later reasoning."""
    region, skip = locate.answer_region(text, log)
    if region.source == "fenced":
        return "fenced", region.start, region.stop
    return "whole", region.start, skip[0][0] if skip else region.stop


def _starts(text: str, start: int, stop: int) -> Iterator[int]:
    """Where the YAML may start after prose: the first lines that look like a key or an item."""
    pos = start
    for _ in range(MAX_PROSE_LINES):
        newline = text.find("\n", pos, stop)
        if newline < 0:
            return
        pos = newline + 1
        if _KEY_LINE.match(text, pos):
            yield pos


def yaml_candidates(text: str) -> Iterator[tuple[Any, ParseReport]]:
    """The readings of ``text``, best first: the located YAML (tabs fixed), the same after the
    prose that precedes it, the JSON engine's reading (a JSON answer, even a broken one). Each
    YAML reading comes typed by YAML's rules, then with its plain scalars as written.
    Raises `TextEngineError` when there is none."""
    log = RepairLog()
    source, start, stop = _region(text, log)
    errors: list[str] = []
    found = False
    json_first = text[start:stop].lstrip()[:1] in ("{", "[")
    if json_first:
        # A JSON-looking answer: JSON's reading first, since YAML reads a `/* comment */` or a
        # stray `//` in a flow mapping as part of a key rather than failing.
        json_reading = _json_reading(text, log)
        if json_reading is not None:
            found = True
            yield json_reading
    for begin in (start, *_starts(text, start, stop)):
        attempt = RepairLog()
        attempt.extend(log)
        if begin != start:
            attempt.add("prose_dropped", start)
        body = _untab(text[begin:stop], attempt, begin)
        for as_written in (False, True):
            try:
                value = _load(body, as_written=as_written)
            except TextEngineError as exc:
                errors.append(exc.msg)
                continue
            if value is None or (isinstance(value, str) and begin == start and source == "whole"):
                break  # prose reads as one YAML string: not an answer
            found = True
            repairs = (*attempt.repairs, *_as_written_repair(as_written, begin))
            yield value, ParseReport(source, begin, stop, repairs, False)
    json_reading = None if json_first else _json_reading(text, log)
    if json_reading is not None:
        yield json_reading
    elif not found:
        raise TextEngineError(errors[0] if errors else "no YAML value found")


def _as_written_repair(as_written: bool, pos: int) -> tuple[Repair, ...]:
    """The repair a reading with plain scalars as written reports (none for the typed one)."""
    return (Repair("scalars_as_written", pos),) if as_written else ()


def _json_reading(text: str, log: RepairLog) -> tuple[Any, ParseReport] | None:
    """The JSON engine's reading of ``text`` (a JSON answer where YAML was asked), or None."""
    try:
        value, report = decode(text, allow_truncated=True)
    except JsonEngineError:
        return None
    repairs = (*log.repairs, Repair("json_instead_of_yaml", report.start), *report.repairs)
    return value, ParseReport(report.source, report.start, report.end, repairs, report.truncated)


MAX_CANDIDATES = 12
"""Readings of one answer validated against the model before the first error is reported."""


def first_valid_yaml(text: str, validate: Callable[[Any], Any]) -> tuple[Any, ParseReport]:
    """The first of `yaml_candidates` (at most `MAX_CANDIDATES`) that ``validate`` accepts, as
    ``validate`` returns it; raises `TextEngineError` with the first pydantic
    ``ValidationError`` when none does."""
    first_error: pydantic.ValidationError | None = None
    for count, (value, report) in enumerate(yaml_candidates(text)):
        if count >= MAX_CANDIDATES:
            break
        try:
            return validate(value), report
        except pydantic.ValidationError as exc:
            first_error = first_error or exc
    raise TextEngineError(str(first_error) if first_error else "no YAML value found")


_INSTRUCTIONS = """Answer with a YAML document (two-space indentation, no tabs) whose data \
conforms to this JSON schema:
```
{schema}
```

For example, for the schema {{"properties": {{"city": {{"type": "string"}}, "population": \
{{"type": "integer"}}}}, "required": ["city", "population"]}} a well-formed answer is:
```
city: Lyon
population: 522250
```

Enclose the YAML in triple backticks (```) and write nothing else."""


def yaml_instructions(schema: dict[str, Any]) -> str:
    """Format instructions naming a model's JSON ``schema`` (without its title and type)."""
    shown = {key: value for key, value in schema.items() if key not in ("title", "type")}
    return _INSTRUCTIONS.format(schema=json.dumps(shown))
