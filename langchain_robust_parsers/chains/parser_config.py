"""Output parsers as plain configuration, for serialised prompts.

A serialised `FormatLockedPromptTemplate` stores its parser as a small dict (the parser's
class, the import path of its pydantic model, its options) rather than the parser object, and
never the format instructions rendered from it. Loading turns the dict back into a parser.

Loading never imports a module named in the data: the model's module must already be imported
(the usual case: it defines the schema the application uses). Serialised data is configuration
that builds objects, so this keeps a crafted payload from importing arbitrary modules.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any, TypeGuard

import pydantic
from langchain_core.output_parsers import (
    BaseOutputParser,
    JsonOutputParser,
    PydanticOutputParser,
)

from langchain_robust_parsers.parsers.json_parser import RobustJsonOutputParser
from langchain_robust_parsers.parsers.pydantic_parser import RobustPydanticOutputParser

__all__ = [
    "CONFIG_MARKER",
    "is_parser_config",
    "model_path",
    "parser_from_config",
    "parser_to_config",
    "resolve_model",
]

CONFIG_MARKER = "langchain_robust_parsers.parser"
"""The ``"kind"`` of a parser configuration dict, so it cannot be mistaken for other data."""

_PARSERS: dict[str, type[JsonOutputParser]] = {
    "RobustJsonOutputParser": RobustJsonOutputParser,
    "RobustPydanticOutputParser": RobustPydanticOutputParser,
    "JsonOutputParser": JsonOutputParser,
    "PydanticOutputParser": PydanticOutputParser,
}
"""The parser classes stored as configuration, by the name stored. Others are left to
LangChain's own serialisation."""

_OPTIONS: dict[str, tuple[str, ...]] = {
    "RobustJsonOutputParser": ("on_truncation", "on_error", "diff", "template_opens_reasoning"),
    "RobustPydanticOutputParser": (
        "on_truncation",
        "drop_invalid_items",
        "read_labels",
        "diff",
        "template_opens_reasoning",
    ),
    "JsonOutputParser": ("diff",),
    "PydanticOutputParser": ("diff",),
}

_STORED_BEFORE_0_3: dict[str, tuple[Any, str, str]] = {
    "allow_truncated": (False, "on_truncation", "raise"),
    "fallback": ("plain_text", "on_error", "fallback"),
}
"""Options a configuration stored before 0.3.0 may hold, as ``{old: (old value, option, its
value)}``: a stored prompt still loads with the behaviour it was saved with (the constructors
refuse the old names)."""
"""The scalar options stored for each class (runtime objects such as ``stats`` are not)."""


def model_path(model: type[Any]) -> str:
    """``"module:QualName"`` of a class."""
    return f"{model.__module__}:{model.__qualname__}"


def resolve_model(path: str) -> type[Any]:
    """The pydantic model at ``"module:QualName"``, from an already imported module."""
    module_name, _, qualname = path.partition(":")
    if not module_name or not qualname:
        raise ValueError(f"a model path looks like 'module:QualName', got {path!r}")
    module = sys.modules.get(module_name)
    if module is None:
        msg = (
            f"cannot load parser model {path!r}: module {module_name!r} is not imported; "
            "import it before loading (loading never imports modules named in the data)"
        )
        raise ValueError(msg)
    obj: Any = module
    for part in qualname.split("."):
        if part == "<locals>" or not hasattr(obj, part):
            raise ValueError(f"cannot load parser model {path!r}: {qualname!r} not found")
        obj = getattr(obj, part)
    if not (isinstance(obj, type) and issubclass(obj, (pydantic.BaseModel, pydantic.v1.BaseModel))):
        raise ValueError(f"cannot load parser model {path!r}: not a pydantic model")
    return obj


def _class_name(parser: Any) -> str | None:
    """The stored name of ``parser``'s class, or ``None`` when it is not stored as config.

    A parametrised ``RobustPydanticOutputParser[M]`` is stored as its origin class."""
    cls = type(parser)
    meta = getattr(cls, "__pydantic_generic_metadata__", None)
    if meta and meta.get("origin") is not None:
        cls = meta["origin"]
    for name, known in _PARSERS.items():
        if cls is known:
            return name
    return None


def parser_to_config(parser: BaseOutputParser[Any]) -> dict[str, Any] | BaseOutputParser[Any]:
    """A plain dict describing ``parser`` when its class is one of the JSON or Pydantic
    parsers (ours or LangChain's); any other parser is returned as is, for LangChain's own
    serialisation. Never raises."""
    name = _class_name(parser)
    if name is None:
        return parser
    config: dict[str, Any] = {"kind": CONFIG_MARKER, "class": name}
    model = getattr(parser, "pydantic_object", None)
    config["pydantic_object"] = model_path(model) if isinstance(model, type) else None
    for option in _OPTIONS[name]:
        config[option] = getattr(parser, option, None)
    return config


def is_parser_config(value: Any) -> TypeGuard[Mapping[str, Any]]:
    """True for a dict made by `parser_to_config`."""
    return isinstance(value, Mapping) and value.get("kind") == CONFIG_MARKER


def parser_from_config(config: Mapping[str, Any]) -> BaseOutputParser[Any]:
    """The parser a `parser_to_config` dict describes."""
    name = config.get("class")
    cls = _PARSERS.get(name) if isinstance(name, str) else None
    if cls is None:
        raise ValueError(f"unknown parser class in configuration: {name!r}")
    kwargs: dict[str, Any] = {
        option: config[option]
        for option in _OPTIONS[str(name)]
        if option in config and config[option] is not None
    }
    for old, (value, option, new) in _STORED_BEFORE_0_3.items():
        if config.get(old) == value and option not in kwargs and option in _OPTIONS[str(name)]:
            kwargs[option] = new
    path = config.get("pydantic_object")
    if path is not None:
        kwargs["pydantic_object"] = resolve_model(str(path))
    factory: Callable[..., BaseOutputParser[Any]] = cls
    return factory(**kwargs)
