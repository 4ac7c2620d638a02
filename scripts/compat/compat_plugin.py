"""pytest plugin: run langchain-core's own parser tests against our classes and classify them.

Loaded by ``scripts/langchain_compat.sh`` with ``-p compat_plugin`` while pytest runs inside a
copy of the ``tests/`` folder of the langchain-core sdist (downloaded at run time, never
committed). ``--compat-suite`` picks the classes under test (see ``SUITES``):

- ``json`` (the default): ``JsonOutputParser``, ``SimpleJsonOutputParser`` and
  ``PydanticOutputParser`` become ``RobustJsonOutputParser`` / ``RobustPydanticOutputParser``
  (``test_json.py``, ``test_pydantic_parser.py``);
- ``tools``: ``JsonOutputToolsParser``, ``JsonOutputKeyToolsParser`` and ``PydanticToolsParser``
  become ``RobustJsonOutputToolsParser`` / ``RobustJsonOutputKeyToolsParser`` /
  ``RobustPydanticToolsParser`` (``test_openai_tools.py``);
- ``xml``, ``lists``, ``functions``: the XML, list and OpenAI-functions parsers
  (``test_xml_parser.py``, ``test_list_parser.py``, ``test_openai_functions.py``);
- ``classic``: langchain-classic's enum, boolean, datetime, structured and YAML parsers, run
  from a copy of the langchain-classic sdist's tests (our twins of these derive from
  langchain-core's base class, not from the classic classes).

It does three things.

1. **Substitution.** Before any test module is imported, the names the tests import (the
   suite's class names) are rebound to our classes in the langchain-core modules they are
   imported from (``langchain_core.output_parsers`` and the suite's submodules). Every
   ``from langchain_core.output_parsers... import X`` in a test file, in whatever form and at
   whatever point (a module-level parser instance included), therefore gets our class. Our
   classes were imported first, so they still subclass the real LangChain classes. After
   collection each test module's namespace is checked: a substituted name bound to anything but
   our class stops the run (a usage error), so a new import path cannot silently test LangChain
   against itself.

2. **Classification.** A test is a *class test* when either
   - statically, its function body (or a helper function or fixture defined in the same module,
     followed transitively) names one of the substituted classes, or a parametrized argument is
     one of our classes or an instance of one; or
   - dynamically, a function of ``langchain_robust_parsers`` ran while the test ran (a
     ``sys.setprofile``/``threading.setprofile`` hook that only looks at code file names).
   Everything else only calls LangChain's free functions (``parse_json_markdown``,
   ``parse_partial_json``, ...) and is reported as informational: those results say nothing
   about our classes. The static rule catches tests that use a class without running any of our
   own code (an inherited method); the dynamic rule catches tests that reach our classes
   indirectly. The report shows which rule fired.

3. **Expected failures.** ``deliberate_differences.txt`` lists class tests that may fail:
   ``deliberate`` entries (we behave differently on purpose) and ``pending`` entries (work owned
   by a later issue, such as streaming). Both become non-strict ``xfail`` marks with their reason:
   a passing one is reported as ``xpassed`` (a deliberate entry that passes is flagged as stale).

The exit status is 0 only when every class test passed, was skipped, or failed as a declared
xfail; free-function failures never change it. A collection error, a failed substitution, no
class test at all, or no class test reaching our code gives a non-zero status.
"""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import inspect
import json
import os
import re
import sys
import textwrap
import threading
import types
from collections.abc import Generator, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest


@dataclass(frozen=True)
class Suite:
    """The classes one compat run puts under test.

    ``substitutes`` maps each name the langchain-core tests import to ``module:attribute`` of
    our class; ``source_modules`` are the langchain-core modules the tests import them from.
    """

    title: str
    source_modules: tuple[str, ...]
    substitutes: dict[str, str]


SUITES = {
    "json": Suite(
        "JSON and Pydantic parsers",
        (
            "langchain_core.output_parsers",
            "langchain_core.output_parsers.json",
            "langchain_core.output_parsers.pydantic",
        ),
        {
            "JsonOutputParser": "langchain_robust_parsers:RobustJsonOutputParser",
            "SimpleJsonOutputParser": "langchain_robust_parsers:RobustJsonOutputParser",
            "PydanticOutputParser": "langchain_robust_parsers:RobustPydanticOutputParser",
        },
    ),
    "tools": Suite(
        "tool-call parsers",
        ("langchain_core.output_parsers", "langchain_core.output_parsers.openai_tools"),
        {
            "JsonOutputToolsParser": (
                "langchain_robust_parsers.parsers.tools:RobustJsonOutputToolsParser"
            ),
            "JsonOutputKeyToolsParser": (
                "langchain_robust_parsers.parsers.tools:RobustJsonOutputKeyToolsParser"
            ),
            "PydanticToolsParser": (
                "langchain_robust_parsers.parsers.tools:RobustPydanticToolsParser"
            ),
        },
    ),
    "xml": Suite(
        "XML parser",
        ("langchain_core.output_parsers", "langchain_core.output_parsers.xml"),
        {"XMLOutputParser": "langchain_robust_parsers:RobustXMLOutputParser"},
    ),
    "lists": Suite(
        "list parsers",
        ("langchain_core.output_parsers", "langchain_core.output_parsers.list"),
        {
            "CommaSeparatedListOutputParser": (
                "langchain_robust_parsers:RobustCommaSeparatedListOutputParser"
            ),
            "NumberedListOutputParser": "langchain_robust_parsers:RobustNumberedListOutputParser",
            "MarkdownListOutputParser": "langchain_robust_parsers:RobustMarkdownListOutputParser",
        },
    ),
    "functions": Suite(
        "OpenAI-functions parsers",
        ("langchain_core.output_parsers.openai_functions",),
        {
            "JsonOutputFunctionsParser": (
                "langchain_robust_parsers:RobustJsonOutputFunctionsParser"
            ),
            "JsonKeyOutputFunctionsParser": (
                "langchain_robust_parsers:RobustJsonKeyOutputFunctionsParser"
            ),
            "PydanticOutputFunctionsParser": (
                "langchain_robust_parsers:RobustPydanticOutputFunctionsParser"
            ),
        },
    ),
    # langchain-classic's own parsers (its tests come from the langchain-classic sdist).
    "classic": Suite(
        "langchain-classic enum, boolean, datetime, structured and YAML parsers",
        (
            "langchain_classic.output_parsers",
            "langchain_classic.output_parsers.boolean",
            "langchain_classic.output_parsers.enum",
            "langchain_classic.output_parsers.datetime",
            "langchain_classic.output_parsers.structured",
            "langchain_classic.output_parsers.yaml",
        ),
        {
            "BooleanOutputParser": "langchain_robust_parsers:RobustBooleanOutputParser",
            "EnumOutputParser": "langchain_robust_parsers:RobustEnumOutputParser",
            "DatetimeOutputParser": "langchain_robust_parsers:RobustDatetimeOutputParser",
            "StructuredOutputParser": "langchain_robust_parsers:RobustStructuredOutputParser",
            "YamlOutputParser": "langchain_robust_parsers:RobustYamlOutputParser",
        },
    ),
}

ID_WIDTH = 72  # long parametrized ids are cut in the per-test listing (the JSON has them whole)
OUTCOMES = ("passed", "failed", "xfailed", "xpassed", "skipped", "error")


@dataclass
class Expectation:
    """One line of the deliberate-differences file."""

    kind: str  # "deliberate" or "pending"
    pattern: str
    reason: str
    regex: re.Pattern[str]
    matched: int = 0


@dataclass
class TestRecord:
    nodeid: str
    short_id: str
    static_hit: list[str] = field(default_factory=list)
    dynamic_hit: str = ""  # qualified name of the first function of ours that ran
    expectation: Expectation | None = None
    outcome: str = "not run"
    message: str = ""

    @property
    def is_class_test(self) -> bool:
        return bool(self.static_hit) or bool(self.dynamic_hit)

    @property
    def rule(self) -> str:
        rules = []
        if self.static_hit:
            rules.append("static(" + ",".join(sorted(set(self.static_hit))) + ")")
        if self.dynamic_hit:
            rules.append(f"dynamic({self.dynamic_hit})")
        return "+".join(rules) or "-"


class _State:
    def __init__(self) -> None:
        self.suite = SUITES["json"]
        self.substitutes: dict[str, type] = {}
        self.our_classes: tuple[type, ...] = ()
        self.package_dir = ""
        self.expectations: list[Expectation] = []
        self.records: dict[str, TestRecord] = {}
        self.active: TestRecord | None = None
        self.lock = threading.Lock()
        self.collection_errors: list[str] = []
        self.verdict_failures: list[str] = []
        self.report_path: Path | None = None


STATE = _State()


# --------------------------------------------------------------------------- options, setup


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("langchain-compat")
    group.addoption(
        "--compat-differences",
        default=str(Path(__file__).with_name("deliberate_differences.txt")),
        help="file of deliberate/pending expected failures",
    )
    group.addoption("--compat-report", default="", help="write the classification as JSON here")
    group.addoption(
        "--compat-suite",
        default="json",
        choices=sorted(SUITES),
        help="which of our classes to substitute (see SUITES)",
    )


def _load_expectations(path: Path) -> list[Expectation]:
    """Parse ``kind | pattern | reason`` lines; ``*`` is the only wildcard in a pattern."""
    out: list[Expectation] = []
    for lineno, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|", 2)]
        if len(parts) != 3 or parts[0] not in ("deliberate", "pending") or not parts[2]:
            raise pytest.UsageError(
                f"{path}:{lineno}: expected 'deliberate|pending | pattern | reason', got {raw!r}"
            )
        kind, pattern, reason = parts
        regex = re.compile(".*".join(re.escape(chunk) for chunk in pattern.split("*")) + r"\Z")
        out.append(Expectation(kind, pattern, reason, regex))
    return out


def _load(target: str) -> type:
    modname, _, attr = target.partition(":")
    cls = getattr(importlib.import_module(modname), attr)
    if not isinstance(cls, type):
        raise pytest.UsageError(f"{target} is not a class")
    return cls


def pytest_configure(config: pytest.Config) -> None:
    import langchain_robust_parsers

    STATE.suite = SUITES[config.getoption("--compat-suite")]
    # Our classes are imported first, so they subclass the real langchain-core classes.
    STATE.substitutes = {name: _load(t) for name, t in STATE.suite.substitutes.items()}
    STATE.our_classes = tuple(dict.fromkeys(STATE.substitutes.values()))
    STATE.package_dir = os.path.dirname(os.path.abspath(langchain_robust_parsers.__file__))
    for modname in STATE.suite.source_modules:
        module = importlib.import_module(modname)
        exported = set(getattr(module, "__all__", ())) | set(vars(module))
        for name in STATE.substitutes:
            if name in exported:
                setattr(module, name, STATE.substitutes[name])
    STATE.expectations = _load_expectations(Path(config.getoption("--compat-differences")))
    report = config.getoption("--compat-report")
    STATE.report_path = Path(report) if report else None


def pytest_report_header(config: pytest.Config) -> list[str]:
    lines = [
        f"langchain-compat: suite {config.getoption('--compat-suite')} ({STATE.suite.title})",
        "langchain-compat: langchain-core "
        + importlib.metadata.version("langchain-core")
        + ", pydantic "
        + importlib.metadata.version("pydantic"),
    ]
    for name, cls in STATE.substitutes.items():
        lines.append(f"langchain-compat: {name} -> {cls.__module__}.{cls.__qualname__}")
    return lines


# --------------------------------------------------------------------------- classification


def _short_id(nodeid: str) -> str:
    path, _, rest = nodeid.partition("::")
    return f"{path.rsplit('/', 1)[-1]}::{rest}"


def _names_in(obj: Any) -> set[str]:
    """Identifiers and attribute names used in the source of a function, or nothing."""
    try:
        source = textwrap.dedent(inspect.getsource(obj))
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
    return names


def _static_hits(func: Any, module: types.ModuleType, extra: Iterable[Any]) -> list[str]:
    """Substituted names reached from ``func`` through functions defined in ``module``."""
    hits: list[str] = []
    seen: set[int] = set()
    todo = [func, *extra]
    while todo:
        current = inspect.unwrap(todo.pop())
        if id(current) in seen:
            continue
        seen.add(id(current))
        for name in _names_in(current):
            if name in STATE.substitutes:
                hits.append(name)
                continue
            target = vars(module).get(name)
            if inspect.isfunction(target) and target.__module__ == module.__name__:
                todo.append(target)
    return hits


def _is_ours(value: Any) -> bool:
    if isinstance(value, STATE.our_classes):
        return True
    return isinstance(value, type) and issubclass(value, STATE.our_classes)


def _module_fixture_funcs(item: pytest.Function) -> list[Any]:
    funcs: list[Any] = []
    info = getattr(item, "_fixtureinfo", None)
    for name in getattr(item, "fixturenames", ()):
        defs = getattr(info, "name2fixturedefs", {}).get(name) if info else None
        if not defs:
            continue
        func = getattr(defs[-1], "func", None)
        if func is not None and getattr(func, "__module__", None) == item.module.__name__:
            funcs.append(func)
    return funcs


def _check_module(module: types.ModuleType, checked: set[str]) -> None:
    if module.__name__ in checked:
        return
    checked.add(module.__name__)
    for name in STATE.substitutes:
        bound = vars(module).get(name)
        if bound is not None and bound is not STATE.substitutes[name]:
            raise pytest.UsageError(
                f"substitution failed: {module.__name__}.{name} is "
                f"{getattr(bound, '__module__', '?')}.{getattr(bound, '__qualname__', bound)}, "
                "not our class; add its source module to the suite's source_modules"
            )


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    checked: set[str] = set()
    for item in items:
        record = TestRecord(item.nodeid, _short_id(item.nodeid))
        if isinstance(item, pytest.Function):
            _check_module(item.module, checked)
            params = getattr(getattr(item, "callspec", None), "params", {})
            record.static_hit = _static_hits(
                item.function, item.module, _module_fixture_funcs(item)
            )
            if any(_is_ours(v) for v in params.values()):
                record.static_hit.append("param")
        for exp in STATE.expectations:
            if exp.regex.match(record.short_id):
                exp.matched += 1
                record.expectation = exp
                item.add_marker(pytest.mark.xfail(reason=f"{exp.kind}: {exp.reason}", strict=False))
                break
        STATE.records[item.nodeid] = record


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.failed:
        STATE.collection_errors.append(f"{report.nodeid}: {report.longreprtext.strip()[-400:]}")


# --------------------------------------------------------------------------- dynamic detection


def _profile(frame: types.FrameType, event: str, arg: Any) -> None:
    record = STATE.active
    if record is None or record.dynamic_hit or event != "call":
        return
    code = frame.f_code
    if code.co_filename.startswith(STATE.package_dir):
        record.dynamic_hit = getattr(code, "co_qualname", code.co_name)


def _watch(record: TestRecord | None) -> None:
    STATE.active = record
    hook = _profile if record is not None else None
    threading.setprofile(hook)
    sys.setprofile(hook)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    _watch(STATE.records.get(item.nodeid))
    try:
        yield
    finally:
        _watch(None)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    _watch(STATE.records.get(item.nodeid))
    try:
        yield
    finally:
        _watch(None)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    record = STATE.records.get(report.nodeid)
    if record is None:
        return
    wasxfail = hasattr(report, "wasxfail")
    if report.when == "call" or (report.when == "setup" and not report.passed):
        if report.passed:
            record.outcome = "xpassed" if wasxfail else "passed"
        elif report.skipped:
            record.outcome = "xfailed" if wasxfail else "skipped"
        else:
            record.outcome = "failed" if report.when == "call" else "error"
        if report.failed or wasxfail:
            text = report.longreprtext.strip().splitlines()
            record.message = (text[-1] if text else "")[:200]
    elif report.when == "teardown" and report.failed:
        record.outcome = "error"
        record.message = report.longreprtext.strip().splitlines()[-1][:200]


# --------------------------------------------------------------------------- verdict, report


def _category(record: TestRecord) -> str:
    if not record.is_class_test:
        return "free-function tests (informational)"
    if record.expectation is None:
        return "class tests: required"
    if record.expectation.kind == "pending":
        return f"class tests: pending ({record.expectation.reason})"
    return "class tests: deliberate differences"


def _verdict(session: pytest.Session) -> list[str]:
    problems = [f"collection error: {e}" for e in STATE.collection_errors]
    records = list(STATE.records.values())
    class_tests = [r for r in records if r.is_class_test]
    if not class_tests:
        problems.append("no class test was collected: the substitution reached nothing")
    elif not any(r.dynamic_hit for r in class_tests):
        problems.append("no test ran any code of langchain_robust_parsers")
    for r in class_tests:
        allowed = {"passed", "skipped", "xpassed"}
        if r.expectation is not None:
            allowed.add("xfailed")
        if r.outcome not in allowed:
            problems.append(f"class test {r.short_id}: {r.outcome} {r.message}".rstrip())
    for r in records:
        if r.expectation is not None and not r.is_class_test:
            problems.append(
                f"{r.short_id} is listed in the differences file but is not a class test"
            )
    return problems


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    STATE.verdict_failures = _verdict(session)
    if int(exitstatus) in (0, 1):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED if STATE.verdict_failures else 0
    if STATE.report_path is not None:
        payload = {
            "suite": session.config.getoption("--compat-suite"),
            "langchain_core": importlib.metadata.version("langchain-core"),
            "pydantic": importlib.metadata.version("pydantic"),
            "ok": not STATE.verdict_failures and int(session.exitstatus) == 0,
            "problems": STATE.verdict_failures,
            "summary": _summary_counts(),
            "tests": [
                {
                    "id": r.short_id,
                    "category": _category(r),
                    "rule": r.rule,
                    "outcome": r.outcome,
                    "expected_failure": (
                        None
                        if r.expectation is None
                        else {"kind": r.expectation.kind, "reason": r.expectation.reason}
                    ),
                    "message": r.message,
                }
                for r in STATE.records.values()
            ],
        }
        STATE.report_path.parent.mkdir(parents=True, exist_ok=True)
        STATE.report_path.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")


def _summary_counts() -> dict[str, dict[str, int]]:
    order = [
        "class tests: required",
        "class tests: deliberate differences",
    ]
    counts: dict[str, dict[str, int]] = {k: dict.fromkeys(OUTCOMES, 0) for k in order}
    for r in STATE.records.values():
        row = counts.setdefault(_category(r), dict.fromkeys(OUTCOMES, 0))
        if r.outcome in row:
            row[r.outcome] += 1
    # free-function row last
    free = "free-function tests (informational)"
    if free in counts:
        counts[free] = counts.pop(free)
    return counts


def _table(counts: dict[str, dict[str, int]]) -> list[str]:
    header = ["category", "tests", *OUTCOMES]
    rows = [header]
    for cat, row_counts in counts.items():
        rows.append([cat, str(sum(row_counts.values())), *(str(row_counts[o]) for o in OUTCOMES)])
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = []
    for idx, row in enumerate(rows):
        cells = zip(row[1:], widths[1:], strict=True)
        lines.append("  ".join([row[0].ljust(widths[0])] + [c.rjust(w) for c, w in cells]))
        if idx == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines


def pytest_unconfigure(config: pytest.Config) -> None:
    """Print the classification and the table last, after pytest's own summary lines."""
    tr = config.pluginmanager.get_plugin("terminalreporter")
    if tr is None or (not STATE.records and not STATE.collection_errors):
        return
    lc = importlib.metadata.version("langchain-core")
    tr.section(f"LangChain compatibility: {STATE.suite.title} (langchain-core {lc})", sep="=")
    records = sorted(STATE.records.values(), key=lambda r: (not r.is_class_test, r.short_id))
    width = min(max((len(r.short_id) for r in records), default=10), ID_WIDTH)
    tr.write_line(
        "class tests, and free-function tests that did not pass "
        "(rule: why a test counts as a class test):"
    )
    for r in records:
        if not r.is_class_test and r.outcome == "passed":
            continue  # passing free-function tests are only counted in the table
        note = ""
        if r.expectation is not None:
            note = f"  [{r.expectation.kind}: {r.expectation.reason}]"
            if r.expectation.kind == "deliberate" and r.outcome == "xpassed":
                note += "  <- passes now: the entry may be stale"
        kind = "class" if r.is_class_test else "free "
        shown = r.short_id if len(r.short_id) <= width else r.short_id[: width - 3] + "..."
        tr.write_line(f"  {kind}  {r.outcome:8}  {shown.ljust(width)}  {r.rule}{note}")
        if r.message and r.outcome in ("failed", "error", "xfailed"):
            tr.write_line(f"           {r.message}")
    for exp in STATE.expectations:
        if exp.matched == 0:
            tr.write_line(f"note: differences entry matched no test: {exp.pattern}")
    tr.write_line("")
    for line in _table(_summary_counts()):
        tr.write_line(line)
    tr.write_line("")
    if STATE.verdict_failures:
        tr.write_line("COMPAT FAILED:", red=True, bold=True)
        for problem in STATE.verdict_failures:
            tr.write_line(f"  - {problem}", red=True)
    else:
        tr.write_line(
            "COMPAT OK: every class test passed or failed as a declared xfail "
            "(free-function results are informational).",
            green=True,
            bold=True,
        )
