"""What the parsers ask of a user's Pydantic model, for pydantic v2 models and the ``pydantic.v1``
models LangChain still accepts: validate a value into it, and tell whether a value carries every
required field (which parsers use to pick the candidate meant as the answer).
"""

from __future__ import annotations

import weakref
from typing import Any

import pydantic

__all__ = ["has_required_fields", "validate_model"]


def validate_model(model: type[Any], value: Any) -> Any:
    """``value`` validated into ``model`` (pydantic v2 or v1); raises its validation error."""
    if issubclass(model, pydantic.BaseModel):
        return model.model_validate(value)
    return model.parse_obj(value)


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


def has_required_fields(model: type[Any], value: dict[str, Any]) -> bool:
    """True when ``value`` has a key for every required top-level field of ``model``."""
    return all(any(k in value for k in keys) for keys in _required_keys(model))
