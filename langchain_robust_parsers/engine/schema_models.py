"""Pydantic models standing for the schemas ``with_structured_output`` accepts besides a model
class: a ``TypedDict`` and a JSON-schema dict.

The parsers validate (and coerce) against a pydantic model; these functions build one from the
other two kinds, so all three go through the same path. Values are handed back as plain dicts
(``model_dump(by_alias=True, exclude_unset=True)``): only the keys the model wrote, under their
own names. A JSON schema is translated with the rules pydantic can apply: ``type`` (and type
lists), ``properties``/``required``, ``additionalProperties``, ``items``, ``enum``/``const``,
``anyOf``/``oneOf``, a single ``allOf``, local ``$ref`` (``#/$defs/...``, ``#/definitions/...``),
and the constraints ``minimum``/``maximum`` (and exclusive), ``multipleOf``,
``minLength``/``maxLength``/``pattern``, ``minItems``/``maxItems``. With the ``[jsonschema]``
extra installed the value is also checked against the whole schema as written
(`json_schema_rules`); without it, anything else is accepted as is. No LangChain import
here.
"""

from __future__ import annotations

import keyword
from collections.abc import Mapping
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

import pydantic

from langchain_robust_parsers.engine.json_schema_rules import Checker, violations_checker

__all__ = [
    "MAX_SCHEMA_DEPTH",
    "SCHEMA_INSTRUCTIONS",
    "dict_schema_target",
    "dump_value",
    "is_typed_dict",
    "json_schema_target",
    "model_from_json_schema",
    "model_from_typed_dict",
]

SCHEMA_INSTRUCTIONS = (
    "The output should be formatted as a JSON instance that conforms to the JSON schema below.\n"
    "\nHere is the output schema:\n```\n{schema}\n```"
)
"""Format instructions around a JSON schema kept as written, in langchain-core's words (whose
own wording for a model class deletes the schema's ``type``, for a list ``array``): for a list
target, a ``TypedDict`` or a JSON schema given by the user."""

MAX_SCHEMA_DEPTH = 32
"""Nesting (and ``$ref`` hops) translated before a node becomes ``Any``: it bounds recursive
schemas, which a pydantic model built this way could not express anyway."""

_SCALARS: dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "null": type(None),
}
_CONSTRAINTS: dict[str, str] = {
    "minimum": "ge",
    "maximum": "le",
    "exclusiveMinimum": "gt",
    "exclusiveMaximum": "lt",
    "multipleOf": "multiple_of",
    "minLength": "min_length",
    "maxLength": "max_length",
    "pattern": "pattern",
    "minItems": "min_length",
    "maxItems": "max_length",
}
"""JSON-schema keywords and the ``pydantic.Field`` constraint each becomes."""


def _field_name(i: int, key: str) -> str:
    """A Python name for property ``key`` (the key itself stays the alias)."""
    if key.isidentifier() and not keyword.iskeyword(key) and not key.startswith(("_", "model_")):
        return key
    return f"field_{i}"


def _model(
    name: str,
    fields: list[tuple[str, Any, bool]],
    *,
    extra: Literal["allow", "ignore", "forbid"],
    doc: str | None,
) -> type[pydantic.BaseModel]:
    """A model with one field a ``(key, annotation, required)``, each under its key as alias."""
    definitions: dict[str, Any] = {}
    for i, (key, annotation, required) in enumerate(fields):
        default = ... if required else None
        definitions[_field_name(i, key)] = (
            annotation,
            pydantic.Field(default=default, alias=key),
        )
    config = pydantic.ConfigDict(extra=extra, populate_by_name=True, protected_namespaces=())
    model: type[pydantic.BaseModel] = pydantic.create_model(
        name or "Output", __config__=config, **definitions
    )
    if doc:  # after creation: create_model's own __doc__ argument is newer than pydantic 2.9
        model.__doc__ = doc
    return model


def _constrained(annotation: Any, node: Mapping[str, Any]) -> Any:
    constraints = {
        arg: node[key]
        for key, arg in _CONSTRAINTS.items()
        if key in node and not isinstance(node[key], bool)
    }
    if not constraints:
        return annotation
    return Annotated[annotation, pydantic.Field(**constraints)]


class _Translator:
    """Turns one JSON schema into annotations, resolving local ``$ref``s against its defs."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        defs = root.get("$defs") or root.get("definitions") or {}
        self.defs: Mapping[str, Any] = defs if isinstance(defs, Mapping) else {}

    def _ref(self, ref: str, depth: int) -> Any:
        for prefix in ("#/$defs/", "#/definitions/"):
            if ref.startswith(prefix):
                target = self.defs.get(ref[len(prefix) :])
                if isinstance(target, Mapping):
                    return self.annotation(target, depth + 1, ref[len(prefix) :])
        return Any

    def annotation(self, node: Any, depth: int, name: str = "") -> Any:
        """The annotation of schema ``node``."""
        if depth > MAX_SCHEMA_DEPTH or not isinstance(node, Mapping):
            return Any
        if isinstance(node.get("$ref"), str):
            return self._ref(node["$ref"], depth)
        if isinstance(node.get("enum"), list) and node["enum"]:
            return Literal[tuple(node["enum"])]
        if "const" in node:
            return Literal[node["const"]]
        for key in ("anyOf", "oneOf"):
            arms = node.get(key)
            if isinstance(arms, list) and arms:
                return Union[tuple(self.annotation(a, depth + 1, name) for a in arms)]  # noqa: UP007
        all_of = node.get("allOf")
        if isinstance(all_of, list) and len(all_of) == 1:
            return self.annotation(all_of[0], depth + 1, name)
        kind = node.get("type")
        if isinstance(kind, list):
            arms = tuple(self.annotation({**node, "type": k}, depth + 1, name) for k in kind)
            return Union[arms] if arms else Any  # noqa: UP007
        if kind == "object" or (kind is None and isinstance(node.get("properties"), Mapping)):
            return self._object(node, depth, name)
        if kind == "array":
            item: Any = self.annotation(node.get("items"), depth + 1)
            return _constrained(list[item], node)
        if kind in _SCALARS:
            return _constrained(_SCALARS[kind], node)
        return Any

    def _object(self, node: Mapping[str, Any], depth: int, name: str) -> Any:
        properties = node.get("properties")
        extra_schema = node.get("additionalProperties", True)
        if not isinstance(properties, Mapping) or not properties:
            if isinstance(extra_schema, Mapping):
                value: Any = self.annotation(extra_schema, depth + 1)
                return dict[str, value]
            return dict[str, Any]
        required = node.get("required")
        needed = set(required) if isinstance(required, list) else set()
        fields = [
            (str(key), self.annotation(sub, depth + 1, f"{name}_{key}"), key in needed)
            for key, sub in properties.items()
        ]
        title = node.get("title")
        doc = node.get("description")
        return _model(
            str(title) if isinstance(title, str) else name,
            fields,
            extra="forbid" if extra_schema is False else "allow",
            doc=doc if isinstance(doc, str) else None,
        )


def model_from_json_schema(schema: Mapping[str, Any]) -> type[pydantic.BaseModel]:
    """A pydantic model validating what ``schema`` (a JSON schema of an object) describes.

    Also accepts an OpenAI tool or function dict (``{"type": "function", "function": {...}}``
    or ``{"name", "parameters"}``), as ``with_structured_output`` does. Raises ``ValueError``
    when the schema does not describe an object."""
    node: Any = schema
    if node.get("type") == "function" and isinstance(node.get("function"), Mapping):
        node = node["function"]
    if isinstance(node.get("parameters"), Mapping) and "name" in node:
        node = {"title": node["name"], "description": node.get("description"), **node["parameters"]}
    annotation = _Translator(node).annotation(node, 0, str(node.get("title") or "Output"))
    if not (isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel)):
        raise ValueError("the JSON schema must describe an object with properties")
    checker = violations_checker(node)
    return annotation if checker is None else _checked(annotation, checker)


def _checked(model: type[pydantic.BaseModel], checker: Checker) -> type[pydantic.BaseModel]:
    """``model`` that also checks the value it holds against the whole JSON schema."""

    def whole_schema(self: pydantic.BaseModel) -> pydantic.BaseModel:
        found = checker(self.model_dump(by_alias=True, exclude_unset=True))
        if found:
            raise ValueError("the value breaks the JSON schema: " + "; ".join(found))
        return self

    validators: dict[str, Any] = {
        "whole_schema": pydantic.model_validator(mode="after")(whole_schema)
    }
    checked: type[pydantic.BaseModel] = pydantic.create_model(
        model.__name__, __base__=model, __validators__=validators
    )
    checked.__doc__ = model.__doc__
    return checked


_QUALIFIERS = frozenset({"Required", "NotRequired", "ReadOnly"})
"""TypedDict key qualifiers (``typing`` or ``typing_extensions``): they say whether a key must be
present, which the model's field defaults say instead."""


def _unqualified(annotation: Any, required: bool) -> tuple[Any, bool]:
    """``annotation`` without its qualifiers, and whether the key is required. The qualifier
    decides when there is one: with postponed annotations the class cannot see it."""
    while True:
        name = getattr(get_origin(annotation), "_name", None)
        if name not in _QUALIFIERS:
            return annotation, required
        if name != "ReadOnly":
            required = name == "Required"
        annotation = get_args(annotation)[0]


def model_from_typed_dict(typed_dict: type[Any]) -> type[pydantic.BaseModel]:
    """A pydantic model with the keys of ``typed_dict`` (its required keys required)."""
    hints = get_type_hints(typed_dict, include_extras=True)
    required = getattr(typed_dict, "__required_keys__", frozenset(hints))
    fields = [(key, *_unqualified(ann, key in required)) for key, ann in hints.items()]
    return _model(typed_dict.__name__, fields, extra="ignore", doc=typed_dict.__doc__)


def dump_value(value: Any) -> Any:
    """A validated model as the plain dict the user's schema describes: the keys written, under
    their own names (nested models likewise)."""
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump(by_alias=True, exclude_unset=True)
    if isinstance(value, list):  # a list target's items
        return [dump_value(item) for item in value]
    return value


def is_typed_dict(schema: Any) -> bool:
    """True for a ``TypedDict`` class (``typing`` or ``typing_extensions``)."""
    return (
        isinstance(schema, type)
        and issubclass(schema, dict)
        and hasattr(schema, "__required_keys__")
    )


_SHARED_DEFINITIONS = ("$defs", "definitions")
"""Where a JSON schema keeps the definitions its ``$ref`` point to: an array schema's items
refer to the array's own."""


def json_schema_target(schema: Mapping[str, Any]) -> Any:
    """The validation target of a JSON schema: a model for an object, ``list[Model]`` for an
    array of objects (whose answer may write its items as JSON Lines). Raises ``ValueError``
    for a schema it cannot translate."""
    items = schema.get("items")
    if schema.get("type") == "array" and isinstance(items, Mapping):
        shared = {k: schema[k] for k in _SHARED_DEFINITIONS if k in schema}
        return list[model_from_json_schema({**shared, **items})]  # type: ignore[misc]
    return model_from_json_schema(schema)


def dict_schema_target(schema: Any) -> Any:
    """The validation target of a ``TypedDict`` class or a JSON-schema dict; raises
    ``TypeError`` for anything else, or for a JSON schema it cannot translate."""
    if is_typed_dict(schema):
        return model_from_typed_dict(schema)
    if not isinstance(schema, Mapping):
        raise TypeError(f"expected a TypedDict class or a JSON-schema dict, got {schema!r}")
    try:
        return json_schema_target(schema)
    except ValueError as exc:
        raise TypeError(str(exc)) from exc
