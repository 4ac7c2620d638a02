"""Schema-aligned coercion: bend a decoded JSON value towards the shape a pydantic model expects.

Applied by the parsers only after a value has failed validation, so a value that already fits is
never touched. Each rule is a small pure function that returns its input unchanged (the very same
object) when it does not apply; `coerce_with_notes` walks the value and the model's
annotations together and records the name of every rule that fired.

Rules (their names are what `coerce_with_notes` reports):

- ``unwrap_wrapper_key``: ``{"result": {...}}`` where ``result`` is not a field becomes ``{...}``.
- ``list_to_object``: ``[{...}]`` where one object is expected becomes ``{...}``.
- ``object_to_list``: a single object (or scalar) where a list is expected becomes ``[value]``.
- ``match_key``: keys matched to field names or aliases ignoring case, ``_``, ``-`` and spaces.
- ``match_enum`` / ``match_literal``: string values matched to enum values or names and to
  ``Literal`` choices the same way.
- ``fuzzy_enum`` / ``fuzzy_literal``: failing that, the one enum value or name (``Literal``
  choice) within a small edit distance of the string (``"redd"`` gives ``RED``); never when two
  candidates are equally close.
- ``number_from_string``: ``"8.5"`` gives ``8.5`` for a number field (``"8"`` or ``"8.0"`` for an
  ``int``).
- ``rating_numerator``: a rating ``"8.5/10"`` or ``"8.5 out of 10"`` gives its numerator, ``8.5``.
- ``number_to_string``: a number where a ``str`` is expected gives the text the model wrote
  (``12345`` gives ``"12345"``; ``1.10`` gives ``"1.10"`` when the value carries its literals,
  see `langchain_robust_parsers.engine.number_literals`).

Pydantic v2 and ``pydantic.v1`` models are both walked through their field annotations. No
LangChain import here.
"""

from __future__ import annotations

import enum
import re
import types
from collections.abc import Callable, Iterable, Mapping, MutableMapping, MutableSequence, Sequence
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import pydantic
import pydantic.v1

from langchain_robust_parsers.engine.number_literals import number_text

__all__ = [
    "MAX_COERCION_DEPTH",
    "RULES",
    "coerce_to_model",
    "coerce_with_notes",
    "edit_distance",
    "field_table",
    "fuzzy_enum",
    "fuzzy_literal",
    "is_list_annotation",
    "list_to_object",
    "match_enum",
    "match_key",
    "match_literal",
    "normalize_name",
    "number_from_string",
    "number_to_string",
    "object_to_list",
    "unwrap_wrapper_key",
]

MAX_COERCION_DEPTH = 100
"""Levels of nesting walked before values are passed through untouched. Schemas written for
models are shallow; the bound exists for self-referencing models fed very deep data. Each level
costs at most four Python frames, so 100 levels stay far below the default recursion limit (1000)
even under LangChain's own call stack."""

MAX_NUMBER_TEXT = 64
"""Longest string tried as a number. Numbers (and ratings) that models write are short; the bound
keeps the work per string constant."""

MAX_FUZZY_CHARS = 64
"""Longest string (and choice) compared by edit distance: enum values are short words, and the
bound keeps each comparison under 64 x 64 steps."""

MAX_FUZZY_CHOICES = 64
"""Most spellings compared by edit distance (an enum's names and string values count
separately): 64 x 64 x 64 steps at worst; a larger set is matched exactly only."""


def fuzzy_limit(length: int) -> int:
    """The largest edit distance accepted for a choice of ``length`` characters: one edit for
    short words, then one more every four characters (``"redd"`` -> ``"red"``, ``"gren"`` ->
    ``"green"``, ``"aproved"`` -> ``"approved"``)."""
    return max(1, length // 4)


_NAME_NOISE = str.maketrans("", "", "_- \t")
_NUMBER_RE = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGRAL_RE = re.compile(r"[+-]?\d+(?:\.0*)?")
_LIST_ORIGINS: tuple[Any, ...] = (list, set, frozenset, Sequence, MutableSequence, Iterable)
_DICT_ORIGINS: tuple[Any, ...] = (dict, Mapping, MutableMapping)
_UNION_ORIGINS: tuple[Any, ...] = (Union, types.UnionType)
_NONE_TYPE = type(None)

# --------------------------------------------------------------------------- names and fields


def normalize_name(name: str) -> str:
    """``name`` folded for matching: case-insensitive, ignoring ``_``, ``-``, spaces and tabs."""
    return name.strip().casefold().translate(_NAME_NOISE)


def _is_class(tp: Any) -> bool:
    """A plain class; ``list[int]`` passes ``isinstance(tp, type)`` on Python 3.10 but is not."""
    return isinstance(tp, type) and get_origin(tp) is None


def _is_model(tp: Any) -> bool:
    return _is_class(tp) and issubclass(tp, (pydantic.BaseModel, pydantic.v1.BaseModel))


def _is_enum(tp: Any) -> bool:
    return _is_class(tp) and issubclass(tp, enum.Enum)


def _field_table(model: Any) -> dict[str, tuple[str, Any]]:
    """``{normalized name: (key to write, annotation)}`` for every field of ``model``.

    The key to write is the one validation accepts: the alias when there is one (for v2, a string
    ``validation_alias`` first), else the field name. Names and every string alias are indexed.
    """
    table: dict[str, tuple[str, Any]] = {}
    if issubclass(model, pydantic.BaseModel):
        by_alias = model.model_config.get("validate_by_alias", True) is not False
        for name, info in model.model_fields.items():
            spellings = [name]
            key = name
            if by_alias:
                aliases: list[str] = []
                va = info.validation_alias
                if isinstance(va, str):
                    aliases.append(va)
                elif isinstance(va, pydantic.AliasChoices):
                    aliases.extend(c for c in va.choices if isinstance(c, str))
                if isinstance(info.alias, str):
                    aliases.append(info.alias)
                if aliases:
                    key = aliases[0]
                    spellings.extend(aliases)
            for spelling in spellings:
                table.setdefault(normalize_name(spelling), (key, info.annotation))
    else:
        for name, v1_field in model.__fields__.items():
            annotation = getattr(v1_field, "annotation", v1_field.outer_type_)
            key = v1_field.alias or name
            for spelling in (name, key):
                table.setdefault(normalize_name(spelling), (key, annotation))
    return table


def field_table(model: Any) -> dict[str, tuple[str, Any]]:
    """``{normalized name: (key to write, annotation)}`` for every field of ``model`` (a
    pydantic v2 or v1 model class)."""
    return _field_table(model)


def is_list_annotation(tp: Any) -> bool:
    """True when ``tp`` (or the one non-``None`` arm of an optional) asks for a list."""
    tp = _strip_annotated(tp)
    if get_origin(tp) in _UNION_ORIGINS:
        arms = [a for a in get_args(tp) if _strip_annotated(a) not in (None, _NONE_TYPE)]
        if len(arms) != 1:
            return False
        tp = _strip_annotated(arms[0])
    origin = get_origin(tp)
    return tp in _LIST_ORIGINS or origin in _LIST_ORIGINS


def _strip_annotated(tp: Any) -> Any:
    while get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    return tp


# --------------------------------------------------------------------------- the rules


def unwrap_wrapper_key(value: Any, field_names: Iterable[str]) -> Any:
    """Rule ``unwrap_wrapper_key``: ``{"result": {...}}`` gives ``{...}`` when the single key
    names no field (``field_names`` are normalized names) and holds an object."""
    if not isinstance(value, dict) or len(value) != 1:
        return value
    ((key, inner),) = value.items()
    if not isinstance(inner, dict) or not isinstance(key, str):
        return value
    if normalize_name(key) in set(field_names):
        return value
    return inner


def list_to_object(value: Any) -> Any:
    """Rule ``list_to_object``: ``[{...}]`` gives ``{...}`` where one object is expected."""
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict):
        return value[0]
    return value


def object_to_list(value: Any) -> Any:
    """Rule ``object_to_list``: a single object, string, number or boolean gives ``[value]``
    where a list is expected (``None`` and lists are left alone)."""
    if value is None or isinstance(value, list):
        return value
    if isinstance(value, (dict, str, int, float)):
        return [value]
    return value


def match_key(key: str, table: Mapping[str, tuple[str, Any]]) -> str:
    """Rule ``match_key``: the field key that ``key`` names ignoring case, ``_``, ``-`` and
    spaces, or ``key`` itself when it names none."""
    hit = table.get(normalize_name(key))
    return key if hit is None else hit[0]


def match_enum(value: Any, enum_type: type[enum.Enum]) -> Any:
    """Rule ``match_enum``: the value of the one member whose string value or name matches the
    string ``value`` ignoring case, ``_``, ``-`` and spaces; ``value`` when none or several do."""
    if not isinstance(value, str):
        return value
    members = list(enum_type)
    if any(m.value == value for m in members):
        return value
    wanted = normalize_name(value)
    hits = {
        id(m): m
        for m in members
        if normalize_name(m.name) == wanted
        or (isinstance(m.value, str) and normalize_name(m.value) == wanted)
    }
    if len(hits) != 1:
        return value
    (member,) = hits.values()
    return member.value


def edit_distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance of ``a`` and ``b``, or ``limit + 1`` as soon as it must exceed
    ``limit`` (rows are cut off early)."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(current) > limit:
            return limit + 1
        previous = current
    return previous[-1]


def _closest(value: str, spellings: Sequence[tuple[str, Any]]) -> Any:
    """The target of the one spelling nearest ``value`` within `fuzzy_limit`, or
    ``None`` when there is none or two different targets are equally near."""
    wanted = normalize_name(value)
    if not wanted or len(wanted) > MAX_FUZZY_CHARS or len(spellings) > MAX_FUZZY_CHOICES:
        return None
    best: dict[int, list[Any]] = {}
    for spelling, target in spellings:
        key = normalize_name(spelling)
        if not key or len(key) > MAX_FUZZY_CHARS:
            continue
        limit = fuzzy_limit(len(key))
        distance = edit_distance(wanted, key, limit)
        if distance <= limit and not any(t is target for t in best.get(distance, [])):
            best.setdefault(distance, []).append(target)
    if not best:
        return None
    nearest = best[min(best)]
    return nearest[0] if len(nearest) == 1 else None


def fuzzy_enum(value: Any, enum_type: type[enum.Enum]) -> Any:
    """Rule ``fuzzy_enum``: the value of the one member whose name or string value is within a
    small edit distance of the string ``value``; ``value`` when none or several are."""
    if not isinstance(value, str) or any(m.value == value for m in enum_type):
        return value
    spellings: list[tuple[str, Any]] = []
    for member in enum_type:
        spellings.append((member.name, member))
        if isinstance(member.value, str):
            spellings.append((member.value, member))
    member = _closest(value, spellings)
    return value if member is None else member.value


def fuzzy_literal(value: Any, choices: Sequence[Any]) -> Any:
    """Rule ``fuzzy_literal``: the one string choice within a small edit distance of the string
    ``value``; ``value`` when it is a choice, or none or several are that close."""
    if not isinstance(value, str) or value in choices:
        return value
    hit = _closest(value, [(c, c) for c in choices if isinstance(c, str)])
    return value if hit is None else hit


def match_literal(value: Any, choices: Sequence[Any]) -> Any:
    """Rule ``match_literal``: the one string choice matching the string ``value`` ignoring case,
    ``_``, ``-`` and spaces; ``value`` when it already is a choice, or none or several match."""
    if not isinstance(value, str) or value in choices:
        return value
    wanted = normalize_name(value)
    hits = [c for c in choices if isinstance(c, str) and normalize_name(c) == wanted]
    return hits[0] if len(hits) == 1 else value


def _split_rating(text: str) -> tuple[str, str] | None:
    """``("8.5", "10")`` for ``"8.5/10"`` or ``"8.5 out of 10"``; ``None`` otherwise."""
    parts = text.split("/") if "/" in text else text.casefold().split("out of")
    if len(parts) != 2:
        return None
    return parts[0].strip(), parts[1].strip()


def number_from_string(value: Any, target: type[int] | type[float]) -> Any:
    """Rules ``number_from_string`` and ``rating_numerator``: the number written in the string
    ``value`` for an ``int`` or ``float`` field; ``value`` when it holds no such number.

    ``"8.5"`` gives ``8.5``; ``"8.5/10"`` and ``"8.5 out of 10"`` give the numerator ``8.5``
    (the denominator must be a positive number). For ``int``, only integral text converts.
    """
    if not isinstance(value, str) or len(value) > MAX_NUMBER_TEXT:
        return value
    text = value.strip()
    if _NUMBER_RE.fullmatch(text) is None:
        rating = _split_rating(text)
        if rating is None:
            return value
        numerator, denominator = rating
        if _NUMBER_RE.fullmatch(numerator) is None or _NUMBER_RE.fullmatch(denominator) is None:
            return value
        if float(denominator) <= 0:
            return value
        text = numerator
    if target is int:
        if _INTEGRAL_RE.fullmatch(text) is None:
            return value
        try:
            return int(text.split(".")[0])
        except ValueError:  # past the interpreter's integer-conversion limit: leave it
            return value
    return float(text)


def number_to_string(value: Any) -> Any:
    """Rule ``number_to_string``: the text of a number (``bool`` excepted) for a ``str`` field;
    ``value`` when it is not a number."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return number_text(value)
    return value


# --------------------------------------------------------------------------- the walk

Notes = list[str]


def _note(notes: Notes, rule: str, before: Any, after: Any) -> Any:
    if after is not before:
        notes.append(rule)
    return after


def _coerce_object(value: dict[Any, Any], model: Any, depth: int, notes: Notes) -> Any:
    """``value`` (an object) bent towards ``model``'s fields."""
    table = _field_table(model)
    inner = _note(notes, "unwrap_wrapper_key", value, unwrap_wrapper_key(value, table))
    if inner is not value:
        return _coerce_value(inner, model, depth + 1, notes)
    annotations = {key: annotation for key, annotation in table.values()}
    out: dict[Any, Any] = {}
    # Keys that already name a field keep their place; near misses are renamed only when the
    # exact key is absent, so a correct key always wins over a miscased duplicate.
    for key, item in value.items():
        if key in annotations:
            out[key] = _coerce_value(item, annotations[key], depth + 1, notes)
    for key, item in value.items():
        if key in annotations:
            continue
        target = match_key(key, table) if isinstance(key, str) else key
        if target in out:
            continue
        if target != key:
            notes.append("match_key")
        annotation = annotations.get(target)
        out[target] = (
            item if annotation is None else _coerce_value(item, annotation, depth + 1, notes)
        )
    return out


def _fits(value: Any, tp: Any) -> bool:
    """A shallow check that ``value`` already has the shape ``tp`` asks for."""
    tp = _strip_annotated(tp)
    origin = get_origin(tp)
    if tp is Any or tp is object:
        return True
    if tp is None or tp is _NONE_TYPE:
        return value is None
    if _is_model(tp):
        return isinstance(value, (dict, tp))
    if origin is Literal:
        return any(value == c and type(value) is type(c) for c in get_args(tp))
    if origin in _UNION_ORIGINS:
        return any(_fits(value, arm) for arm in get_args(tp))
    if tp in _LIST_ORIGINS or origin in _LIST_ORIGINS or tp is tuple or origin is tuple:
        return isinstance(value, list)
    if tp in _DICT_ORIGINS or origin in _DICT_ORIGINS:
        return isinstance(value, dict)
    if _is_enum(tp):
        return isinstance(value, tp) or any(m.value == value for m in tp)
    if tp is bool:
        return isinstance(value, bool)
    if tp is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if tp is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if _is_class(tp):
        return isinstance(value, tp)
    return True


def _key_overlap(value: dict[Any, Any], model: Any) -> int:
    table = _field_table(model)
    return sum(1 for k in value if isinstance(k, str) and normalize_name(k) in table)


def _coerce_union(value: Any, arms: tuple[Any, ...], depth: int, notes: Notes) -> Any:
    """``value`` bent towards the first arm of a union it can be made to fit."""
    if value is None and any(_strip_annotated(a) in (None, _NONE_TYPE) for a in arms):
        return value
    live = [a for a in arms if _strip_annotated(a) not in (None, _NONE_TYPE)]
    if len(live) == 1:
        return _coerce_value(value, live[0], depth, notes)
    if not isinstance(value, (dict, list)) and any(_fits(value, arm) for arm in live):
        return value  # a scalar that already fits one arm is never converted to another
    if isinstance(value, dict):
        # The model sharing most keys with the object goes first (stable for ties).
        live.sort(key=lambda a: -_key_overlap(value, a) if _is_model(_strip_annotated(a)) else 0)
    for arm in live:
        scratch: Notes = []
        result = _coerce_value(value, arm, depth, scratch)
        if _fits(result, arm):
            notes.extend(scratch)
            return result
    return value


def _coerce_sequence(value: Any, tp: Any, depth: int, notes: Notes) -> Any:
    args = get_args(tp)
    value = _note(notes, "object_to_list", value, object_to_list(value))
    if not isinstance(value, list):
        return value
    if get_origin(tp) is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
        if len(args) != len(value):
            return value
        return [_coerce_value(v, a, depth + 1, notes) for v, a in zip(value, args, strict=True)]
    item_tp = args[0] if args else Any
    return [_coerce_value(v, item_tp, depth + 1, notes) for v in value]


def _coerce_value(value: Any, tp: Any, depth: int, notes: Notes) -> Any:
    """``value`` bent towards the annotation ``tp``; unchanged where no rule applies."""
    if depth > MAX_COERCION_DEPTH:
        return value
    tp = _strip_annotated(tp)
    if tp is Any or tp is object:
        return value
    origin = get_origin(tp)
    if origin in _UNION_ORIGINS:
        return _coerce_union(value, get_args(tp), depth, notes)
    if _is_model(tp):
        if isinstance(value, list):
            value = _note(notes, "list_to_object", value, list_to_object(value))
        return _coerce_object(value, tp, depth, notes) if isinstance(value, dict) else value
    if origin is Literal:
        matched = _note(notes, "match_literal", value, match_literal(value, get_args(tp)))
        if matched is not value:
            return matched
        return _note(notes, "fuzzy_literal", value, fuzzy_literal(value, get_args(tp)))
    if tp in _LIST_ORIGINS or origin in _LIST_ORIGINS or tp is tuple or origin is tuple:
        return _coerce_sequence(value, tp, depth, notes)
    if tp in _DICT_ORIGINS or origin in _DICT_ORIGINS:
        if not isinstance(value, dict):
            return value
        args = get_args(tp)
        item_tp = args[1] if len(args) == 2 else Any
        return {k: _coerce_value(v, item_tp, depth + 1, notes) for k, v in value.items()}
    if _is_enum(tp):
        matched = _note(notes, "match_enum", value, match_enum(value, tp))
        if matched is not value:
            return matched
        return _note(notes, "fuzzy_enum", value, fuzzy_enum(value, tp))
    if tp is str:
        return _note(notes, "number_to_string", value, number_to_string(value))
    if tp is int or tp is float:
        converted = number_from_string(value, tp)
        if converted is not value:
            rating = _NUMBER_RE.fullmatch(value.strip()) is None
            notes.append("rating_numerator" if rating else "number_from_string")
        return converted
    return value


def coerce_with_notes(value: Any, model: Any) -> tuple[Any, tuple[str, ...]]:
    """``value`` bent towards ``model`` (a pydantic v2 or v1 model class), with the names of the
    rules that fired, in order. An empty tuple means the value came back unchanged (the same
    object). The input is never mutated; changed containers are new objects."""
    notes: Notes = []
    result = _coerce_value(value, model, 0, notes)
    return (result, tuple(notes)) if notes else (value, ())


def coerce_to_model(value: Any, model: Any) -> Any:
    """``value`` bent towards ``model``: see the module docstring for the rules."""
    return coerce_with_notes(value, model)[0]


RULES: dict[str, Callable[..., Any]] = {
    "unwrap_wrapper_key": unwrap_wrapper_key,
    "list_to_object": list_to_object,
    "object_to_list": object_to_list,
    "match_key": match_key,
    "match_enum": match_enum,
    "match_literal": match_literal,
    "fuzzy_enum": fuzzy_enum,
    "fuzzy_literal": fuzzy_literal,
    "number_from_string": number_from_string,
    "rating_numerator": number_from_string,
    "number_to_string": number_to_string,
}
"""Every rule name reported by `coerce_with_notes`, with the function implementing it."""
