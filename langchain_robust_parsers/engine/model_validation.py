"""What the parsers ask of a user's Pydantic model, for pydantic v2 models and the ``pydantic.v1``
models LangChain still accepts: validate a value into it, and tell whether a value carries every
required field (which parsers use to pick the candidate meant as the answer), and turn a
validated value back into JSON data (what ``diff=True`` streams patches of).
"""

from __future__ import annotations

import collections.abc
import functools
import typing
import weakref
from typing import Any

import pydantic
import pydantic.v1
import pydantic_core

__all__ = [
    "has_required_fields",
    "is_list_target",
    "is_model_class",
    "model_data",
    "validate_model",
]

ADAPTER_CACHE_SIZE = 64
"""Type adapters kept for targets that are not model classes (``list[Model]``): building one
compiles a validator, and a parser validates into the same target on every parse."""


def is_model_class(model: Any) -> bool:
    """True for a model class (pydantic v2 or v1); False for a type expression such as
    ``list[Model]``, which is validated through a ``TypeAdapter``."""
    return (
        isinstance(model, type)
        and typing.get_origin(model) is None
        and issubclass(model, (pydantic.BaseModel, pydantic.v1.BaseModel))
    )


def is_list_target(target: Any) -> bool:
    """True when ``target`` is a list type (``list[Model]``): every value of an answer that
    holds several (JSON Lines, several fenced blocks) is an item of it."""
    return typing.get_origin(target) in (list, collections.abc.Sequence)


@functools.lru_cache(maxsize=ADAPTER_CACHE_SIZE)
def _adapter(target: Any) -> pydantic.TypeAdapter[Any]:
    return pydantic.TypeAdapter(target)


def validate_model(model: Any, value: Any) -> Any:
    """``value`` validated into ``model`` (a pydantic v2 or v1 model class, or a type such as
    ``list[Model]``); raises its validation error."""
    if not is_model_class(model):
        try:
            adapter = _adapter(model)
        except TypeError:  # a type expression that cannot be hashed (unhashable metadata)
            adapter = pydantic.TypeAdapter(model)
        return adapter.validate_python(value)
    if issubclass(model, pydantic.BaseModel):
        return model.model_validate(value)
    return model.parse_obj(value)


def _v1_data(value: Any) -> Any:
    """A ``pydantic.v1`` model as a dict (pydantic-core serializes v2 models only)."""
    if isinstance(value, pydantic.v1.BaseModel):
        return value.dict()
    raise TypeError(f"{type(value).__name__} is not JSON data")


def model_data(value: Any) -> Any:
    """``value`` (a model, a list of models, or plain data) as JSON data, as
    ``model_dump(mode="json")`` gives it; ``None`` stays ``None``."""
    return pydantic_core.to_jsonable_python(value, fallback=_v1_data)


_REQUIRED_KEYS: weakref.WeakKeyDictionary[type[Any], tuple[tuple[str, ...], ...]] = (
    weakref.WeakKeyDictionary()
)
"""Per model, the keys that can carry each required field; weak, so models made on the fly go."""


def _required_keys(model: type[Any]) -> tuple[tuple[str, ...], ...]:
    """For each required field of ``model``, the keys that can carry it (name and aliases)."""
    cached = _REQUIRED_KEYS.get(model)
    if cached is not None:
        return cached
    out: list[tuple[str, ...]] = []
    if issubclass(model, pydantic.BaseModel):
        for name, info in model.model_fields.items():
            if info.is_required():
                keys = (name, info.alias, info.validation_alias)
                out.append(tuple(k for k in keys if isinstance(k, str)))
    else:
        for name, field in getattr(model, "__fields__", {}).items():
            if getattr(field, "required", False):
                out.append((name, field.alias))
    _REQUIRED_KEYS[model] = tuple(out)
    return _REQUIRED_KEYS[model]


def has_required_fields(model: Any, value: dict[str, Any]) -> bool:
    """True when ``value`` has a key for every required top-level field of ``model`` (always
    for a target that is not a model class: it has no top-level fields)."""
    if not is_model_class(model):
        return True
    return all(any(k in value for k in keys) for keys in _required_keys(model))
