"""Python call syntax (``[get_weather(city="Paris"), calc.area(dims=[2, 3])]``), decoded safely.

The Berkeley Function Calling Leaderboard's prompt format. The text is read by ``ast.parse``
only: nothing is compiled to bytecode, evaluated or executed. Values are resolved from the tree:

============================  =====================================================================
node                          value
============================  =====================================================================
constant                      its value; ``...`` -> ``"..."``; an int beyond
                              `MAX_LITERAL_INT_BITS` -> its source text
``-x`` / ``+x`` / ``~x``      on numbers only, by `evaluate_arithmetic`; else source text
arithmetic (``2**3``)         numbers only, bounded (`MAX_INT_BITS`); ``str + str`` and a
                              bounded ``str * int`` too; anything else -> source text
list, tuple, set              a list
dict                          a dict (keys resolved; an unhashable key -> its source text)
``true`` ``false`` ``null``   ``True`` ``False`` ``None``; any other bare name -> the name
dotted name ``a.b.c``         the text ``"a.b.c"``
call with keywords            ``{"name": {args}}``; without keywords -> its source text
subscript, lambda, f-string,  the source text, never evaluated
comparison, anything else
============================  =====================================================================

Hostile text stays cheap: `scan_shape` bounds the nesting a tree can have before
``ast.parse`` sees the text (``ast.parse`` itself raises ``MemoryError`` on 100 000 unary minus
signs and ``RecursionError`` on a chain of 100 000 ``+1``), everything ``ast.parse`` can raise is
caught, and resolution is bounded by `MAX_ARGUMENT_DEPTH`.
"""

from __future__ import annotations

import ast
import math
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from langchain_robust_parsers.engine.calls.parsed_call import CallDecodeError, ParsedCall
from langchain_robust_parsers.engine.calls.python_repair import restored_keyword, tolerant_source
from langchain_robust_parsers.engine.lexicon.literals import JSON_LITERALS
from langchain_robust_parsers.engine.lexicon.names import PYTHON_CALLEE_PATTERN
from langchain_robust_parsers.engine.repair_log import RepairLog

__all__ = [
    "MAX_ARGUMENT_DEPTH",
    "MAX_ARITH_DEPTH",
    "MAX_INT_BITS",
    "MAX_LITERAL_INT_BITS",
    "MAX_REPEAT_CHARS",
    "MAX_SYNTAX_DEPTH",
    "PROSE_SCAN_BUDGET",
    "CallSyntaxError",
    "CodeNotCallsError",
    "Positional",
    "Shape",
    "decode_python_calls",
    "evaluate_arithmetic",
    "iter_prose_calls",
    "matching_close",
    "scan_shape",
]

Positional = Literal["drop", "keep", "map"]
"""Positional arguments: dropped, as BFCL does; kept as ``arg0``, ``arg1``, ...; or kept aside
(``ParsedCall.positional``) to be placed on a bound tool's parameters in order."""

MAX_SYNTAX_DEPTH = 100
"""How deep a text may nest before ``ast.parse`` sees it: brackets plus runs of operators, dots
and chained calls, summed along the deepest path (`scan_shape`). A call list from a model
nests a few levels; ``ast.parse`` fails with ``MemoryError`` or ``RecursionError`` somewhere past
a few thousand, after spending time and memory on it."""

MAX_ARGUMENT_DEPTH = 64
"""Containers and nested calls resolved inside one argument; deeper is an error. Resolution
recurses once per level, so this keeps it far from Python's recursion limit."""

MAX_ARITH_DEPTH = 32
"""Operators in one arithmetic expression evaluated; a longer expression stays source text."""

MAX_INT_BITS = 1024
"""Integer operands and results of arithmetic, in bits (about 308 digits, the float range):
``10**10**10`` is refused before any work instead of computing a number of 10 billion digits."""

MAX_LITERAL_INT_BITS = 4096
"""An integer literal wider than this (about 1233 digits) is returned as its source text:
Python refuses to turn integers of more than 4300 digits into text, so such a value could not be
printed, logged or serialised downstream."""

MAX_REPEAT_CHARS = 4096
"""``"ab" * 3`` is evaluated while the result stays this short; ``"x" * 10**9`` stays text."""

WINDOW_PARSE_SIZE = 64 * 1024
"""A call list longer than this is parsed in windows of about this size, cut at its top-level
separators, instead of whole: ``ast.parse`` grows faster than the text (a 5 MB list of calls
took 15 s whole, about 3 s in windows), and the calls it gives are the same."""

MAX_CALL_TEXT = 1 << 20
"""Longest Python call text read (1 MiB). A model's calls take kilobytes; past a megabyte the text
is not a call list anyone meant, and reading it costs about 3 s of CPU a megabyte (``ast.parse``
and the collector walking the objects it builds), so it is refused at once rather than read for
tens of seconds."""

PROSE_SCAN_BUDGET = 4
"""Call candidates in prose may together re-read at most this many times the text: most fail
within a few characters, and text made of unclosed ``f(`` stops being tried before the work
turns quadratic."""

# ----------------------------------------------------------------------------- shape scan

_STRINGS = (
    r"'''(?:[^'\\]|\\[\s\S]|'(?!''))*'''"
    r'|"""(?:[^"\\]|\\[\s\S]|"(?!""))*"""'
    r"|'(?:[^'\\\n]|\\[\s\S])*'"
    r'|"(?:[^"\\\n]|\\[\s\S])*"'
)
# One token per match: complete strings and comments (unnamed, skipped), a quote that opens no
# complete string (the text is cut off inside it), brackets, separators, and operators that
# deepen the tree: arithmetic and comparison signs, attribute dots, keyword operators.
_SHAPE_TOKEN = re.compile(
    _STRINGS
    + r"|#[^\n]*"
    + r"|(?P<quote>['\"])"
    + r"|(?P<open>[(\[{])|(?P<close>[)\]}])|(?P<sep>[,;\n])"
    + r"|(?P<op>[-+*/%@&|^~<>]|\.(?=[ \t]*[A-Za-z_])|\b(?:not|and|or|if|else|lambda|await)\b)"
)
_BRACKET_TOKEN = re.compile(
    _STRINGS + r"|#[^\n]*|(?P<quote>['\"])|(?P<open>[(\[{])|(?P<close>[)\]}])"
)
_CLOSER = {"(": ")", "[": "]", "{": "}"}
_WINDOW_TOKEN = re.compile(
    _STRINGS
    + r"|#[^\n]*|(?P<quote>['\"])|(?P<open>[(\[{])|(?P<close>[)\]}])|(?P<sep>[,;\n])|(?P<dot>\.)"
)


@dataclass(frozen=True)
class Shape:
    """What one linear scan learned about a text before parsing it.

    ``too_deep_at`` is the offset where the nesting passed the bound (``-1`` if it did not);
    ``end_depth`` the brackets still open at the end and ``end_in_string`` whether the text ends
    inside a string (both mean it was cut off); ``last_item_comma`` the last comma directly
    inside an outer bracket and ``last_top_separator`` the last ``;`` or line break outside any
    bracket: where a cut-off call list can be shortened to its complete calls.
    """

    too_deep_at: int = -1
    end_depth: int = 0
    end_in_string: bool = False
    last_item_comma: int = -1
    last_top_separator: int = -1

    @property
    def cut_off(self) -> bool:
        return self.end_depth > 0 or self.end_in_string


def scan_shape(
    src: str, start: int = 0, stop: int | None = None, *, bound: int = MAX_SYNTAX_DEPTH
) -> Shape:
    """Scan ``src[start:stop]`` once, string-aware, bounding how deep its tree can be.

    The depth counted is the number of open brackets plus, at every level on the path, the
    operators chained there (``-``, ``+1``, ``.attr``, ``not``, ``f()()``); a separator (``,``,
    ``;``, a line break outside brackets) ends a chain. The scan stops at the first place where
    the total passes ``bound``.
    """
    end = len(src) if stop is None else stop
    stack: list[int] = []  # the chain count of each enclosing level
    base = 0  # len(stack) + sum(stack)
    chain = 0
    last_close = -1
    last_item_comma = -1
    last_top_separator = -1
    for m in _SHAPE_TOKEN.finditer(src, start, end):
        kind = m.lastgroup
        if kind is None:  # a complete string or a comment
            continue
        if kind == "open":
            if m.start() == last_close:
                chain += 1  # `f()(...)`, `a[0][1]`: each postfix adds a level
            stack.append(chain)
            base += 1 + chain
            chain = 0
            if base > bound:
                return Shape(too_deep_at=m.start())
        elif kind == "close":
            if stack:
                chain = stack.pop()
                base -= 1 + chain
            else:
                chain = 0
            last_close = m.end()
        elif kind == "op":
            chain += 1
            if base + chain > bound:
                return Shape(too_deep_at=m.start())
        elif kind == "sep":
            if stack and m.group() == "\n":
                continue  # a line break inside brackets is only layout
            chain = 0
            if not stack:
                last_top_separator = m.start()
            elif len(stack) == 1 and m.group() == ",":
                last_item_comma = m.start()
        else:  # a quote that opens no complete string: cut off inside it
            return Shape(-1, len(stack), True, last_item_comma, last_top_separator)
    return Shape(-1, len(stack), False, last_item_comma, last_top_separator)


def matching_close(src: str, open_pos: int, stop: int) -> int:
    """The offset of the bracket closing the one at ``open_pos`` (strings and comments
    skipped), or ``-1`` when it is not closed before ``stop``, a closer does not match, or the
    brackets nest deeper than `MAX_SYNTAX_DEPTH` (no call list could be read there)."""
    stack: list[str] = []
    for m in _BRACKET_TOKEN.finditer(src, open_pos, stop):
        kind = m.lastgroup
        if kind == "open":
            stack.append(_CLOSER[m.group()])
            if len(stack) > MAX_SYNTAX_DEPTH:
                return -1
        elif kind == "close":
            if not stack or stack.pop() != m.group():
                return -1
            if not stack:
                return m.start()
        elif kind == "quote":
            return -1
    return -1


# ----------------------------------------------------------------------------- arithmetic


class _NotEvaluable:
    """The marker for arithmetic that is not evaluated (the caller keeps its source text)."""

    __slots__ = ()


NOT_EVALUABLE = _NotEvaluable()

_Number = (int, float, complex)


def _is_number(value: object) -> bool:
    return type(value) in _Number  # bool is not a number here: `True + 1` stays text


def _bounded(value: object) -> bool:
    """True when ``value`` is a result arithmetic may hand back."""
    if type(value) is int:
        return value.bit_length() <= MAX_INT_BITS
    if type(value) is float:
        return math.isfinite(value)
    if type(value) is complex:
        return math.isfinite(value.real) and math.isfinite(value.imag)
    return isinstance(value, str)


def _power_too_large(base: object, exp: object) -> bool:
    """``int ** int`` whose result would pass `MAX_INT_BITS`, decided before computing."""
    if type(base) is not int or type(exp) is not int or exp < 0:
        return False
    if base in (-1, 0, 1):
        return False
    return exp * (base.bit_length() - 1) > MAX_INT_BITS


def _apply(op: ast.operator, left: Any, right: Any) -> Any:
    """One bounded binary operation on evaluated operands, or `NOT_EVALUABLE`."""
    if _is_number(left) and _is_number(right):
        if isinstance(op, ast.Pow) and _power_too_large(left, right):
            return NOT_EVALUABLE
        try:
            if isinstance(op, ast.Add):
                result = left + right
            elif isinstance(op, ast.Sub):
                result = left - right
            elif isinstance(op, ast.Mult):
                result = left * right
            elif isinstance(op, ast.Div):
                result = left / right
            elif isinstance(op, ast.FloorDiv):
                result = left // right
            elif isinstance(op, ast.Mod):
                result = left % right
            elif isinstance(op, ast.Pow):
                result = left**right
            else:  # shifts and bit operations: `1 << 10**9` is not worth a guard
                return NOT_EVALUABLE
        except (ArithmeticError, ValueError, TypeError):
            return NOT_EVALUABLE
        return result if _bounded(result) else NOT_EVALUABLE
    if isinstance(op, ast.Add) and isinstance(left, str) and isinstance(right, str):
        return left + right
    if isinstance(op, ast.Mult):
        text, times = (left, right) if isinstance(left, str) else (right, left)
        if (
            isinstance(text, str)
            and type(times) is int
            and len(text) * max(times, 0) <= (MAX_REPEAT_CHARS)
        ):
            return text * times
    return NOT_EVALUABLE


def evaluate_arithmetic(node: ast.AST, depth: int = 0) -> Any:
    """The value of arithmetic over literals, or `NOT_EVALUABLE`.

    Only number and string constants, unary ``-``/``+``/``~`` and the binary operators
    ``+ - * / // % **`` are evaluated, on bounded operands with bounded results: ``2**3`` is 8,
    ``10**10**10`` and ``1/0`` are not evaluable and answer at once. Names, calls and anything
    else are never looked at.
    """
    if depth > MAX_ARITH_DEPTH:
        return NOT_EVALUABLE
    if isinstance(node, ast.Constant):
        value = node.value
        if (_is_number(value) and _bounded(value)) or isinstance(value, str):
            return value
        return NOT_EVALUABLE
    if isinstance(node, ast.UnaryOp):
        operand = evaluate_arithmetic(node.operand, depth + 1)
        if not _is_number(operand):
            return NOT_EVALUABLE
        if isinstance(node.op, ast.USub):
            return -operand
        if isinstance(node.op, ast.UAdd):
            return +operand
        if isinstance(node.op, ast.Invert) and type(operand) is int:
            return ~operand
        return NOT_EVALUABLE
    if isinstance(node, ast.BinOp):
        left = evaluate_arithmetic(node.left, depth + 1)
        if left is NOT_EVALUABLE:
            return NOT_EVALUABLE
        right = evaluate_arithmetic(node.right, depth + 1)
        if right is NOT_EVALUABLE:
            return NOT_EVALUABLE
        return _apply(node.op, left, right)
    return NOT_EVALUABLE


# ----------------------------------------------------------------------------- resolution


GEMINI_PREFIX = "default_api."
"""Gemini writes ``default_api.get_weather(...)`` (often inside ``print(...)``) in its
``tool_code`` blocks; the prefix is not part of the tool's name."""

_NEWLINE = re.compile(r"\r\n|\r|\n")


class _TooDeep(Exception):
    """A value nested past `MAX_ARGUMENT_DEPTH`."""


class _Source:
    """The parsed text, for source-text fallbacks: node positions to text."""

    def __init__(self, src: str) -> None:
        self.src = src
        self._line_starts: list[int] | None = None

    def _offset(self, lineno: int, col: int) -> int:
        """A character offset from ast's (1-based line, UTF-8 byte column)."""
        if self._line_starts is None:
            self._line_starts = [0] + [m.end() for m in _NEWLINE.finditer(self.src)]
        start = self._line_starts[min(lineno, len(self._line_starts)) - 1]
        line = self.src[start : start + col * 4 + 4]
        if line.isascii():
            return start + col
        return start + len(line.encode("utf-8")[:col].decode("utf-8", errors="ignore"))

    def segment(self, node: ast.AST) -> str:
        """The text of ``node``: ``ast.unparse`` (BFCL's normal form), else the raw slice."""
        try:
            return ast.unparse(node)
        except (RecursionError, ValueError):  # deep trees; ints past the digit limit
            return self.raw(node)

    def raw(self, node: ast.AST) -> str:
        """The text of ``node`` exactly as written."""
        end_lineno = getattr(node, "end_lineno", None)
        end_col = getattr(node, "end_col_offset", None)
        if end_lineno is None or end_col is None:
            return ""
        a = self._offset(getattr(node, "lineno", 1), getattr(node, "col_offset", 0))
        return self.src[a : self._offset(end_lineno, end_col)]


def _dotted_name(node: ast.expr) -> str | None:
    """``a.b.c`` for a chain of attributes on a name, else ``None``."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


@dataclass
class _Resolver:
    source: _Source
    positional: Positional
    log: RepairLog
    pos: int  # where the parsed text starts in the input, for repair positions

    def call(self, node: ast.Call, depth: int) -> tuple[str, dict[str, Any]]:
        """The name and arguments of a call node; raises ``_TooDeep``."""
        name = _dotted_name(node.func)
        if name is None:
            name = self.source.segment(node.func)
        args: dict[str, Any] = {}
        if node.args:
            if self.positional == "keep":
                for i, arg in enumerate(node.args):
                    args[f"arg{i}"] = self.value(arg, depth + 1)
            elif self.positional == "drop":
                self.log.add("positional_args_dropped", self.pos)
        for kw in node.keywords:
            value = self.value(kw.value, depth + 1)
            if kw.arg is not None:
                args[restored_keyword(kw.arg)] = value
            elif isinstance(value, dict):
                args.update((str(k), v) for k, v in value.items())  # f(**{"a": 1})
            else:
                args["**"] = self.source.segment(kw.value)
        return name, args

    def value(self, node: ast.AST, depth: int) -> Any:
        """The value of an argument node (see the module's table); raises ``_TooDeep``."""
        if depth > MAX_ARGUMENT_DEPTH:
            raise _TooDeep
        if isinstance(node, ast.Constant):
            value = node.value
            if value is Ellipsis:
                return "..."
            if type(value) is int and value.bit_length() > MAX_LITERAL_INT_BITS:
                return self.source.raw(node)
            return value
        if isinstance(node, ast.Name):
            return JSON_LITERALS.get(node.id, node.id)  # models mix the two syntaxes
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return [self.value(e, depth + 1) for e in node.elts]
        if isinstance(node, ast.Dict):
            return self._dict(node, depth)
        if isinstance(node, (ast.UnaryOp, ast.BinOp)):
            value = evaluate_arithmetic(node)
            return self.source.segment(node) if value is NOT_EVALUABLE else value
        if isinstance(node, ast.Call):
            if not node.keywords:
                return self.source.segment(node)
            name, args = self.call(node, depth)
            return {name: args}
        if isinstance(node, ast.Attribute):
            dotted = _dotted_name(node)
            return dotted if dotted is not None else self.source.segment(node)
        return self.source.segment(node)

    def _dict(self, node: ast.Dict, depth: int) -> Any:
        if any(k is None for k in node.keys):  # {**other}: nothing to resolve it against
            return self.source.segment(node)
        out: dict[Any, Any] = {}
        for k, v in zip(node.keys, node.values, strict=True):
            assert k is not None
            key = self.value(k, depth + 1)
            try:
                hash(key)
            except TypeError:
                key = self.source.segment(k)
            out[key] = self.value(v, depth + 1)
        return out


# ----------------------------------------------------------------------------- parsing


def _parse(src: str, mode: Literal["eval", "exec"]) -> ast.AST | str:
    """``ast.parse`` (syntax tree only), or the reason it failed. Never raises."""
    try:
        if "\\" in src:  # invalid escapes such as "\d" warn; only backslashes can cause that
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return ast.parse(src, mode=mode)
        return ast.parse(src, mode=mode)
    except SyntaxError as err:
        where = f" (line {err.lineno}, column {err.offset})" if err.lineno else ""
        return f"Invalid syntax: {err.msg}{where}"
    except (MemoryError, RecursionError):
        return "Invalid syntax: the text nests too deeply"
    except ValueError as err:  # null bytes before Python 3.12
        return f"Invalid syntax: {err}"


_STRIP = " \t\r\n`"
"""Stripped from both ends of a call text, as BFCL strips backticks, newlines and spaces."""


def _strip(text: str, a: int, b: int) -> tuple[int, int]:
    while a < b and text[a] in _STRIP:
        a += 1
    while b > a and text[b - 1] in _STRIP:
        b -= 1
    while b > a and text[b - 1] == ";":  # `f(a=1);` (Raven, Llama): a statement terminator
        b -= 1
        while b > a and text[b - 1] in _STRIP:
            b -= 1
    return a, b


@dataclass
class _Parsed:
    """The call nodes found, each group with the text its positions refer to."""

    pieces: list[tuple[str, list[ast.Call]]]


class CallSyntaxError(CallDecodeError):
    """The text is not valid Python (a call list with a typo, or prose)."""


class CodeNotCallsError(CallDecodeError):
    """The text is Python statements (``import``, ``def``, assignments): code, not calls."""


@dataclass(frozen=True)
class _NotCalls:
    reason: str
    code: bool  # statements rather than expressions


def _top_calls(tree: ast.AST) -> list[ast.Call] | _NotCalls:
    """The call nodes at the top of a tree, or why there are none."""
    if isinstance(tree, ast.Expression):
        nodes: list[ast.expr] = [tree.body]
    elif isinstance(tree, ast.Module):
        nodes = []
        for stmt in tree.body:
            if not isinstance(stmt, ast.Expr):
                return _NotCalls(f"Expected AST Call node, but got {type(stmt).__name__}", True)
            nodes.append(stmt.value)
    else:
        return _NotCalls(f"Expected AST Call node, but got {type(tree).__name__}", False)
    calls: list[ast.Call] = []
    for node in nodes:
        items = node.elts if isinstance(node, (ast.List, ast.Tuple, ast.Set)) else [node]
        for item in items:
            if not isinstance(item, ast.Call):
                return _NotCalls(f"Expected AST Call node, but got {type(item).__name__}", False)
            calls.append(item)
    return calls


def _quoted(tree: ast.AST) -> str | None:
    """The string of a tree that is one string literal: ``'[f(a=1)]'``."""
    if isinstance(tree, ast.Expression):
        body = tree.body
        if isinstance(body, ast.Constant) and isinstance(body.value, str):
            return body.value
    return None


def _attempts(src: str, shape: Shape) -> Iterator[tuple[str, Literal["eval", "exec"], str | None]]:
    """The texts to try, in order: (text, mode, the repair it takes or ``None``)."""
    yield src, "eval", None
    opened, closed = src.startswith("["), src.endswith("]")
    if not (opened and closed):
        yield ("" if opened else "[") + src + ("" if closed else "]"), "eval", "added_brackets"
    yield src, "exec", "one_call_per_line"
    if shape.cut_off:
        if opened and shape.last_item_comma > 0:
            yield src[: shape.last_item_comma] + "]", "eval", "truncated_call_dropped"
        elif shape.last_top_separator > 0:
            yield src[: shape.last_top_separator], "exec", "truncated_call_dropped"


def _parse_calls(src: str, pos: int, log: RepairLog, *, tolerant: bool = True) -> _Parsed:
    """Parse ``src`` as a call list: as one expression, with missing brackets added, one call
    per line or ``;``, then cut back to its complete calls when it was cut off; then, once, the
    same after the tolerant repairs (`python_repair`)."""
    shape = scan_shape(src, bound=MAX_SYNTAX_DEPTH - 1)  # one level kept for added brackets
    if shape.too_deep_at >= 0:
        raise CallDecodeError(
            "ast",
            f"Invalid syntax: nested deeper than {MAX_SYNTAX_DEPTH} levels",
            pos + shape.too_deep_at,
        )
    first_error: str | None = None  # the first syntax error
    not_calls: _NotCalls | None = None  # what a text that did parse held instead of calls
    for attempt, mode, repair in _attempts(src, shape):
        tree = _parse(attempt, mode)
        if isinstance(tree, str):
            first_error = first_error or tree
            continue
        calls = _top_calls(tree)
        if isinstance(calls, _NotCalls):
            if mode == "eval" and repair is None:
                quoted = _quoted(tree)
                if quoted is not None and quoted.strip():
                    log.add("quoted_calls", pos)
                    return _parse_calls(_strip_text(quoted), pos, log)
                raise CallDecodeError("ast", calls.reason, pos)
            not_calls = not_calls or calls
            continue
        if repair is not None:
            log.add(repair, pos)
            if repair == "truncated_call_dropped":
                log.truncated = True
        return _Parsed([(attempt, calls)])
    if not_calls is not None:
        error = CodeNotCallsError if not_calls.code else CallDecodeError
        raise error("ast", not_calls.reason, pos)
    repaired, repairs = tolerant_source(src) if tolerant else (src, [])
    if repairs:
        sub = RepairLog()
        try:
            parsed = _parse_calls(repaired, pos, sub, tolerant=False)
        except CallDecodeError:
            pass
        else:
            for name in repairs:
                log.add(name, pos)
            log.extend(sub)
            return parsed
    raise CallSyntaxError("ast", first_error or "Invalid syntax.", pos)


def _window_cuts(src: str) -> tuple[list[tuple[int, int]], bool] | None:
    """Where to cut a long call list into windows: the spans (each ending just after a
    top-level separator, so a window is never read as a shorter list than it is) and whether
    the separators are line breaks or ``;`` (one call per line) rather than commas. ``None``
    when the text is not one plain list: cut off, mixed separators, a bracket closing the outer
    one early, or a line that continues the one before (``(``, ``[`` or ``.`` after a break)."""
    bracketed = src.startswith("[") and src.endswith("]")
    start, end = (1, len(src) - 1) if bracketed else (0, len(src))
    spans: list[tuple[int, int]] = []
    win, depth, last_sep = start, 0, -1
    commas = lines = False
    for m in _WINDOW_TOKEN.finditer(src, start, end):
        kind = m.lastgroup
        if kind is None or (depth and kind == "sep"):
            continue
        if kind in ("open", "dot") and last_sep >= 0 and not src[last_sep : m.start()].strip():
            return None  # `f()\n(g())` is one expression inside added brackets
        last_sep = -1
        if kind == "open":
            depth += 1
        elif kind == "close":
            if depth == 0:
                return None
            depth -= 1
        elif kind == "sep":
            if m.group() == ",":
                commas = True
            elif bracketed:
                if m.group() == ";":
                    return None
                continue  # a line break inside the brackets is only layout
            else:
                lines = True
                last_sep = m.end()
            if m.end() - win >= WINDOW_PARSE_SIZE:
                spans.append((win, m.end()))
                win = m.end()
        elif kind == "quote":
            return None
    if depth or (commas and lines) or not spans:
        return None
    spans.append((win, end))
    return spans, lines


def _windows(src: str, pos: int, positional: Positional, log: RepairLog) -> list[ParsedCall] | None:
    """The calls of a long call list, parsed and resolved window by window (each tree dropped
    once read: kept, they slow every later allocation). ``None`` when a window is not a plain
    list of calls; the caller then reads the whole text, with its repairs and messages. An
    error in a call's arguments is raised once every window has parsed, as a whole parse
    would."""
    cuts = _window_cuts(src)
    if cuts is None:
        return None
    spans, lines = cuts
    sub = RepairLog()
    calls: list[ParsedCall] = []
    failure: CallDecodeError | None = None
    statements = 0
    for a, b in spans:
        window = src[a:b] if lines else "[" + src[a:b] + "]"
        tree = _parse(window, "exec" if lines else "eval")
        nodes = _top_calls(tree) if not isinstance(tree, str) else None
        if not isinstance(nodes, list):
            return None
        statements += len(tree.body) if isinstance(tree, ast.Module) else 1
        if failure is None:
            try:
                _resolve_all(nodes, _Resolver(_Source(window), positional, sub, pos), calls)
            except CallDecodeError as err:
                failure = err
    if lines and statements < 2:  # one expression and comments: the whole reads unrepaired
        return None
    if lines:
        log.add("one_call_per_line", pos)
    log.extend(sub)
    if failure is not None:
        raise failure
    return calls


def _strip_text(text: str) -> str:
    a, b = _strip(text, 0, len(text))
    return text[a:b]


def _unwrap(node: ast.Call, log: RepairLog, pos: int) -> ast.Call:
    """``print(f(a=1))`` -> ``f(a=1)``: Gemini prints its tool calls in ``tool_code`` blocks."""
    while (
        isinstance(node.func, ast.Name)
        and node.func.id == "print"
        and len(node.args) == 1
        and not node.keywords
        and isinstance(node.args[0], ast.Call)
    ):
        log.add("print_wrapper", pos)
        node = node.args[0]
    return node


def decode_python_calls(
    text: str,
    start: int = 0,
    stop: int | None = None,
    *,
    positional: Positional = "drop",
    log: RepairLog | None = None,
    tolerant: bool = True,
) -> list[ParsedCall]:
    """The calls written in Python syntax in ``text[start:stop]``, in order.

    Accepts a list ``[f(a=1), g(b=2)]``, one call, calls separated by commas, line breaks or
    ``;``, a call list cut off after its complete calls, and the whole thing quoted as one
    string. Backticks and whitespace around it are ignored. Repairs are recorded in ``log``.
    Returns ``[]`` for an empty text or ``[]``; raises `CallDecodeError` (kind ``ast``)
    when the text is not a call list. ``tolerant=False`` skips the tolerant pass
    (`python_repair`) for callers that repair in their own way.
    """
    log = RepairLog() if log is None else log
    a, b = _strip(text, start, len(text) if stop is None else stop)
    if a >= b:
        return []
    if b - a > MAX_CALL_TEXT:
        raise CallDecodeError(
            "ast", f"The call text is longer than {MAX_CALL_TEXT:,} characters; not read", a
        )
    src = text[a:b]
    if len(src) > WINDOW_PARSE_SIZE and scan_shape(src, bound=MAX_SYNTAX_DEPTH - 1).too_deep_at < 0:
        windowed = _windows(src, a, positional, log)
        if windowed is not None:
            return windowed
    parsed = _parse_calls(src, a, log, tolerant=tolerant)
    calls: list[ParsedCall] = []
    for window, nodes in parsed.pieces:
        _resolve_all(nodes, _Resolver(_Source(window), positional, log, a), calls)
    return calls


def _resolve_all(nodes: list[ast.Call], resolver: _Resolver, calls: list[ParsedCall]) -> None:
    """`_resolve`, its depth errors turned into `CallDecodeError`."""
    try:
        _resolve(nodes, resolver, calls)
    except _TooDeep:
        raise CallDecodeError(
            "ast", f"Arguments nested deeper than {MAX_ARGUMENT_DEPTH} levels", resolver.pos
        ) from None
    except RecursionError:  # a guard: the bounds above should make this unreachable
        raise CallDecodeError("ast", "Arguments nested too deeply", resolver.pos) from None


def _resolve(nodes: list[ast.Call], resolver: _Resolver, calls: list[ParsedCall]) -> None:
    """Append the calls of ``nodes``; raises ``_TooDeep`` and `CallDecodeError`."""
    log, a = resolver.log, resolver.pos
    for node in nodes:
        node = _unwrap(node, log, a)
        name, args = resolver.call(node, 0)
        if name.startswith(GEMINI_PREFIX) and len(name) > len(GEMINI_PREFIX):
            log.add("gemini_default_api", a)
            name = name[len(GEMINI_PREFIX) :]
        if _dotted_name(node.func) is None:
            raise CallDecodeError("ast", f"Expected a function name, but got {name!r}", a)
        positional: tuple[Any, ...] = ()
        if resolver.positional == "map":
            positional = tuple(resolver.value(arg, 1) for arg in node.args)
        calls.append(ParsedCall(name, args, positional=positional))


def has_keywords(text: str, start: int, stop: int) -> bool:
    """Cheap check used for calls found in prose: does the span pass a keyword argument?"""
    return re.search(r"[(,]\s*[A-Za-z_]\w*\s*=(?!=)", text[start:stop]) is not None


# ----------------------------------------------------------------------------- prose

_CALL_START = re.compile(r"(?<![\w.])(?:\[[ \t\r\n]*)?" + PYTHON_CALLEE_PATTERN + r"\(")
_LINE_LABEL = re.compile(r"[ \t]*(?:[-*>+][ \t]*|\d{1,3}[.)][ \t]*|[A-Za-z][\w ]{0,30}:[ \t]*)?")


def _stands_alone(text: str, a: int, b: int) -> bool:
    """True when the span fills its line(s), after an optional bullet or label such as
    ``Call:``, before optional ``;`` or ``.``, or sits between inline-code backticks."""
    if a > 0 and text[a - 1] == "`" and b < len(text) and text[b] == "`":
        return True
    line_start = text.rfind("\n", 0, a) + 1
    m = _LINE_LABEL.match(text, line_start, a)
    if m is None or m.end() != a:
        return False
    line_end = text.find("\n", b)
    tail = text[b : len(text) if line_end < 0 else line_end]
    return tail.strip(" \t\r;.") == ""


def iter_prose_calls(
    text: str, start: int, stop: int, skip: list[tuple[int, int]]
) -> Iterator[tuple[int, int]]:
    """Spans ``[a, b)`` of call lists or calls written inside prose, in order.

    A candidate is a name (dotted or not) directly followed by ``(``, or ``[`` and such a name,
    up to its matching closer. It counts when it passes a keyword argument, is a bracketed
    list, or stands alone on its line (or in inline code): ``f(x)`` in a sentence is math, not
    a call. Regions in ``skip`` (reasoning) are passed over.
    """
    budget = PROSE_SCAN_BUDGET * (stop - start + 1)
    pos = start
    while budget > 0:
        m = _CALL_START.search(text, pos, stop)
        if m is None:
            return
        a = m.start()
        inside = next((b for s, b in skip if s <= a < b), None)
        if inside is not None:
            pos = inside
            continue
        opener = a if text[a] == "[" else m.end() - 1
        close = matching_close(text, opener, stop)
        if close < 0:
            budget -= stop - a
            pos = m.end()
            continue
        b = close + 1
        budget -= b - a
        if text[a] == "[" or has_keywords(text, a, b) or _stands_alone(text, a, b):
            yield a, b
            pos = b
        else:
            pos = m.end()
