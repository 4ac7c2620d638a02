"""Progressive models: pydantic models that stream while their fields are still arriving.

`partial_model` makes, once per model class, a subclass whose every field is optional
with ``None`` as its default, recursively: a nested model, and the models inside ``list``,
``dict``, ``tuple``, ``Optional`` and other unions, become their own partial classes (a model
that contains itself keeps its complete class at the inner level). A field's constraints still
apply to a value that is there. This is what instructor's ``Partial`` and BAML's stream types
do; pydantic's ``experimental_allow_partial`` does not cover model fields that are missing.

`read_partial` validates a partial JSON value (a stream prefix's) into that class, so that
a model shows as soon as any field is there, and a field once shown keeps its value or grows:

- the scalar at the end of the value's open path (the last member of the last member...) is
  the one still being written. A number there is left out (``12`` may become ``125``); a string
  is kept only when the model holds it as that same text (a ``str`` field grows with it, but
  ``"ac"`` for an enum or ``"2024-0"`` for a date would read differently once whole);
- `only_grew` says whether a model is a growth of the one shown before it, which the
  parser checks before it yields: only then, and only when something was added.

Fields are unset, not ``None``, until they arrive: ``model_fields_set`` (and
``model_dump(exclude_unset=True)``) tell a missing field from a ``null`` one.
"""

from __future__ import annotations

import functools
import operator
import threading
import types
import typing
import weakref
from collections.abc import Callable
from typing import Any, Literal, Optional, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, Field, RootModel, create_model

__all__ = ["only_grew", "partial_model", "read_partial", "validated_prefix"]

M = TypeVar("M")

_PARTIAL: weakref.WeakKeyDictionary[type[Any], type[BaseModel]] = weakref.WeakKeyDictionary()
"""Model class -> its partial class; weak, so models made on the fly go."""
_LOCK = threading.RLock()  # one partial class per model, even when threads stream at once
_BUILDING: set[type[Any]] = set()  # models being made partial: a model inside itself stays whole

_NO_PATH: tuple[Any, ...] = ()


def partial_model(model: type[Any]) -> type[BaseModel] | None:
    """The partial class of a pydantic v2 ``model`` (see the module's docstring), or ``None``
    for a ``pydantic.v1`` model or a ``RootModel``, which stream only once they validate."""
    if not isinstance(model, type) or not issubclass(model, BaseModel):
        return None
    if issubclass(model, RootModel):
        return None
    with _LOCK:
        cached = _PARTIAL.get(model)
        if cached is not None:
            return cached
        _BUILDING.add(model)
        try:
            fields: dict[str, Any] = {}
            for name, info in model.model_fields.items():
                inner = _partial_annotation(info.annotation)
                if info.metadata:
                    annotated = (inner, *info.metadata)  # the field's constraints stay
                    inner = typing.Annotated[annotated]
                field = Field(
                    default=None,
                    alias=info.alias,
                    validation_alias=info.validation_alias,
                    description=info.description,
                )
                fields[name] = (Optional[inner], field)  # noqa: UP045 (a runtime type)
            made = create_model(
                f"Partial{model.__name__}", __base__=model, __module__=model.__module__, **fields
            )
        finally:
            _BUILDING.discard(model)
        made.__reduce__ = functools.partialmethod(_reduce_partial, model)  # type: ignore[method-assign,assignment]
        _PARTIAL[model] = made
        return made


def _reduce_partial(self: BaseModel, model: type[BaseModel]) -> tuple[Any, ...]:
    """Pickle a partial model through the model it is made from: its class is made on the fly,
    so pickle could not find it by name."""
    return (_restore_partial, (model, self.__getstate__()))


def _restore_partial(model: type[BaseModel], state: Any) -> BaseModel:
    cls = partial_model(model)
    assert cls is not None  # it was made once, so it can be made again
    obj = cls.__new__(cls)
    obj.__setstate__(state)
    return obj


def _partial_annotation(tp: Any) -> Any:
    """``tp`` with every model inside it replaced by its partial class."""
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        if tp in _BUILDING:
            return tp
        return partial_model(tp) or tp
    origin = get_origin(tp)
    if origin is None or origin is Literal:
        return tp
    args = get_args(tp)
    new = tuple(a if a is Ellipsis else _partial_annotation(a) for a in args)
    if new == args:
        return tp
    if origin is Union or origin is types.UnionType:
        return functools.reduce(operator.or_, new)
    if origin is typing.Annotated:
        return typing.Annotated[new]
    if isinstance(tp, types.GenericAlias):
        return types.GenericAlias(origin, new)
    copy_with = getattr(tp, "copy_with", None)
    return copy_with(new) if copy_with is not None else tp


def _open_path(value: Any) -> tuple[tuple[Any, ...], Any]:
    """The path to the scalar still being written at the end of a partial JSON value (the last
    member or item at each level), and that scalar; an empty path when the value ends in a
    container."""
    path: list[Any] = []
    while True:
        if isinstance(value, dict) and value:
            key = next(reversed(value))
            path.append(key)
            value = value[key]
        elif isinstance(value, list) and value:
            path.append(len(value) - 1)
            value = value[-1]
        else:
            return (tuple(path), value) if path else (_NO_PATH, None)


def _without(value: Any, path: tuple[Any, ...]) -> Any:
    """A copy of ``value`` along ``path`` with the last step of ``path`` left out (the
    snapshots a stream hands out are shared, never changed)."""
    if len(path) == 1:
        if isinstance(value, dict):
            return {k: v for k, v in value.items() if k != path[0]}
        return value[:-1]
    copy = value.copy()
    copy[path[0]] = _without(value[path[0]], path[1:])
    return copy


def _validated(cls: type[BaseModel], value: Any) -> BaseModel | None:
    try:
        return cls.model_validate(value)
    except Exception:  # not valid yet, or a user validator that does not expect a gap
        return None


def _holds_text(model: Any, path: tuple[Any, ...], text: str) -> bool:
    """True when ``model`` (pydantic v2 or ``pydantic.v1``) holds ``text`` at ``path`` as that
    same string."""
    dump = getattr(model, "model_dump", None)
    node: Any = (
        dump(by_alias=True, exclude_unset=True)
        if dump is not None
        else model.dict(by_alias=True, exclude_unset=True)
    )
    for step in path:
        try:
            node = node[step]
        except (KeyError, IndexError, TypeError):
            return False
    return isinstance(node, str) and node == text


def read_partial(model: type[Any], value: Any) -> BaseModel | None:
    """The partial model of a stream prefix's JSON ``value`` (see the module's docstring), or
    ``None`` when ``model`` has no partial class or nothing of the value validates."""
    cls = partial_model(model)
    if cls is None or not isinstance(value, dict):
        return None
    return validated_prefix(functools.partial(_validated, cls), value)


def validated_prefix(validate: Callable[[Any], M | None], value: Any) -> M | None:
    """``validate`` (value -> model, or ``None`` when it does not validate) applied to a stream
    prefix's JSON ``value`` under the one rule for typed partial values, which every parser
    that streams models follows (the Pydantic parser, the Pydantic tools parser): the scalar
    at the end of the value's open path is still being written, so a number there is left out
    (``12`` may become ``125``, ``2`` may become ``2.5``) and a string is kept only when the
    model holds it as that same text (``"12"`` for an ``int`` field, ``"ac"`` for an enum would
    read differently once whole)."""
    path, leaf = _open_path(value)
    if path and isinstance(leaf, str):
        shown = validate(value)
        if shown is not None and _holds_text(shown, path, leaf):
            return shown
        value = _without(value, path)
    elif path and isinstance(leaf, (int, float)) and not isinstance(leaf, bool):
        value = _without(value, path)
    return validate(value)


def _grew(before: Any, after: Any) -> bool:
    """True when ``after`` is ``before`` or grew from it: a string at its end, a list by items
    at its end (its last item growing too), a mapping by members (each one growing)."""
    if isinstance(before, str):
        return isinstance(after, str) and after.startswith(before)
    if isinstance(before, list):
        if not isinstance(after, list) or len(after) < len(before):
            return False
        if not before:
            return True
        return before[:-1] == after[: len(before) - 1] and _grew(before[-1], after[len(before) - 1])
    if isinstance(before, dict):
        return isinstance(after, dict) and all(
            k in after and _grew(v, after[k]) for k, v in before.items()
        )
    return type(before) is type(after) and bool(before == after)


def only_grew(before: BaseModel | None, after: BaseModel) -> bool:
    """True when ``after`` should be shown after ``before``: it differs, and every field set in
    ``before`` is set in ``after`` with the same value or one grown from it."""
    if before is None:
        return True
    old = before.model_dump(exclude_unset=True)
    new = after.model_dump(exclude_unset=True)
    return old != new and _grew(old, new)
