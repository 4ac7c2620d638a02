"""``FormatLockedPromptTemplate``: a user-editable prompt body with a fixed format requirement
that nothing in the body can remove, reorder or override."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

from langchain_core.load.serializable import SerializedConstructor, SerializedNotImplemented
from langchain_core.messages import BaseMessage
from langchain_core.output_parsers import BaseOutputParser
from langchain_core.prompt_values import PromptValue
from langchain_core.prompts import BasePromptTemplate, ChatPromptTemplate, PromptTemplate
from langchain_core.prompts.string import PromptTemplateFormat
from pydantic import ConfigDict, model_validator
from typing_extensions import Self

from langchain_robust_parsers.chains.locked_format import lock_prompt_value, parser_requirement
from langchain_robust_parsers.chains.parser_config import (
    is_parser_config,
    parser_from_config,
    parser_to_config,
)
from langchain_robust_parsers.chains.step_types import get_step_type
from langchain_robust_parsers.parsers.vocabulary import StrictOptions

__all__ = ["FORMAT_INSTRUCTIONS_VARIABLE", "FormatLockedPromptTemplate"]

logger = logging.getLogger("langchain_robust_parsers")

FORMAT_INSTRUCTIONS_VARIABLE = "format_instructions"
"""The usual LangChain placeholder for format instructions. In a locked body it renders empty
(with a logged warning): the instructions are the locked suffix, always last."""


class FormatLockedPromptTemplate(StrictOptions, BasePromptTemplate[str]):
    """A prompt whose body users may edit and whose format requirement they cannot.

    The body is an ordinary LangChain template (string or chat) whose variables are filled as
    usual. The rendered prompt is the body, a blank line, and the fixed format requirement (the
    `suffix`) of a step type (``GENERATE``, ``JUDGE`` or one registered with
    ``register_step_type``) or of an output parser, in ``language``. For a chat body the suffix is
    appended to the last message when it is a human message, else added as a final human
    message, so it is always the last thing the model reads. The suffix is literal text, never a
    template: its JSON braces are safe with f-string, mustache and jinja2 bodies alike. A
    ``{format_instructions}`` placeholder in the body renders empty and logs a warning.

    With both ``step_type`` and ``parser``, the step type gives the suffix and the parser parses.
    Serialising (``dumpd``, ``to_json``, pickle) stores the body, the step type or the parser's
    configuration and the language, never the rendered suffix.

    Example:
        ```python
        prompt = FormatLockedPromptTemplate.from_template(
            "Write a short poem about {topic}.", step_type="GENERATE", language="vi"
        )
        chain = RetryWithClarification(prompt=prompt, llm=model)
        chain.invoke({"topic": "Hà Nội"})  # GenerateOutput(text=..., name=..., summary=...)
        ```
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    # Unparametrised on purpose (as langchain-core does for ``output_parser``): a parametrised
    # generic field makes pydantic re-instantiate the abstract base instead of keeping the value.
    body: BasePromptTemplate  # type: ignore[type-arg]
    """The user-editable part: any LangChain prompt template (a string is a f-string template,
    a list of messages a chat template)."""

    step_type: str | None = None
    """The registered step type whose instructions form the suffix (stored upper-case)."""

    parser: BaseOutputParser | None = None  # type: ignore[type-arg]
    """The parser whose format instructions form the suffix when there is no step type, and
    which parses the model's answer (see `get_parser`)."""

    language: str = "en"
    """The language of the suffix: ``"en"`` or ``"vi"`` (or any language of a registered step
    type)."""

    # ------------------------------------------------------------------ construction

    @model_validator(mode="before")
    @classmethod
    def _derive_from_body(cls, data: Any) -> Any:
        """Build the body from a string or messages, the parser from its configuration, and
        the template's variables from the body's."""
        if not isinstance(data, Mapping):
            return data
        values = dict(data)
        body = values.get("body")
        if isinstance(body, str):
            body = PromptTemplate.from_template(body)
        elif isinstance(body, (list, tuple)):
            body = ChatPromptTemplate.from_messages(list(body))
        if isinstance(body, BasePromptTemplate):
            extra_partials = values.get("partial_variables")
            if extra_partials:
                body = body.partial(**dict(extra_partials))
            values["body"] = body
            values["input_variables"] = _without_placeholder(body.input_variables)
            values["optional_variables"] = _without_placeholder(body.optional_variables)
            values["input_types"] = {
                k: v for k, v in body.input_types.items() if k != FORMAT_INSTRUCTIONS_VARIABLE
            }
            values["partial_variables"] = {
                k: v for k, v in body.partial_variables.items() if k != FORMAT_INSTRUCTIONS_VARIABLE
            }
        parser = values.get("parser")
        if is_parser_config(parser):
            values["parser"] = parser_from_config(parser)
        step_type = values.get("step_type")
        if isinstance(step_type, str):
            values["step_type"] = get_step_type(step_type).name
        return values

    @model_validator(mode="after")
    def _check_suffix(self) -> Self:
        if self.step_type is None and self.parser is None:
            raise ValueError("FormatLockedPromptTemplate needs a step_type or a parser")
        _ = self.suffix  # an unknown language or a parser without instructions fails here
        return self

    @classmethod
    def from_template(
        cls,
        body: str,
        *,
        parser: BaseOutputParser[Any] | None = None,
        step_type: str | None = None,
        language: str = "en",
        template_format: PromptTemplateFormat = "f-string",
        partial_variables: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> FormatLockedPromptTemplate:
        """A locked prompt over a string body (``PromptTemplate.from_template``)."""
        template = PromptTemplate.from_template(
            body,
            template_format=template_format,
            partial_variables=partial_variables,
        )
        return cls(body=template, parser=parser, step_type=step_type, language=language, **kwargs)

    @classmethod
    def from_messages(
        cls,
        messages: Sequence[Any],
        *,
        parser: BaseOutputParser[Any] | None = None,
        step_type: str | None = None,
        language: str = "en",
        template_format: PromptTemplateFormat = "f-string",
        **kwargs: Any,
    ) -> FormatLockedPromptTemplate:
        """A locked prompt over a chat body (``ChatPromptTemplate.from_messages``)."""
        body = ChatPromptTemplate.from_messages(
            list(messages),
            template_format=template_format,
        )
        return cls(body=body, parser=parser, step_type=step_type, language=language, **kwargs)

    # ------------------------------------------------------------------ the two parts

    @property
    def suffix(self) -> str:
        """The fixed format requirement appended to every rendering (computed, never stored)."""
        if self.step_type is not None:
            return get_step_type(self.step_type).instructions_for(self.language)
        assert self.parser is not None  # checked at construction
        return parser_requirement(self.parser, self.language)

    def get_parser(self) -> BaseOutputParser[Any]:
        """The parser for the model's answer: `parser`, else a
        ``RobustPydanticOutputParser`` for the step type's model."""
        if self.parser is not None:
            return self.parser
        assert self.step_type is not None  # checked at construction
        return get_step_type(self.step_type).parser()

    # ------------------------------------------------------------------ rendering

    def _body_values(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """``kwargs`` with the format-instructions placeholder (if the body has one) emptied."""
        body = self.body
        if (
            FORMAT_INSTRUCTIONS_VARIABLE in body.input_variables
            or FORMAT_INSTRUCTIONS_VARIABLE in body.optional_variables
            or FORMAT_INSTRUCTIONS_VARIABLE in body.partial_variables
        ):
            logger.warning(
                "FormatLockedPromptTemplate: the body's {%s} placeholder renders empty; the "
                "format instructions are appended after the body",
                FORMAT_INSTRUCTIONS_VARIABLE,
            )
            return {**kwargs, FORMAT_INSTRUCTIONS_VARIABLE: ""}
        return kwargs

    def format_prompt(self, **kwargs: Any) -> PromptValue:
        """The rendered body with the suffix attached: a ``StringPromptValue`` for a string
        body, a ``ChatPromptValue`` for a chat body."""
        value = self.body.format_prompt(**self._body_values(kwargs))
        return lock_prompt_value(value, self.suffix)

    async def aformat_prompt(self, **kwargs: Any) -> PromptValue:
        """Async `format_prompt`."""
        value = await self.body.aformat_prompt(**self._body_values(kwargs))
        return lock_prompt_value(value, self.suffix)

    def format(self, **kwargs: Any) -> str:
        """The rendered prompt as a string (for a chat body, LangChain's buffer string)."""
        return self.format_prompt(**kwargs).to_string()

    async def aformat(self, **kwargs: Any) -> str:
        """Async `format`."""
        return (await self.aformat_prompt(**kwargs)).to_string()

    def format_messages(self, **kwargs: Any) -> list[BaseMessage]:
        """The rendered prompt as chat messages (a string body gives one human message)."""
        return self.format_prompt(**kwargs).to_messages()

    async def aformat_messages(self, **kwargs: Any) -> list[BaseMessage]:
        """Async `format_messages`."""
        return (await self.aformat_prompt(**kwargs)).to_messages()

    def partial(self, **kwargs: str | Callable[[], str]) -> FormatLockedPromptTemplate:
        """A copy with some body variables filled in; the suffix stays locked."""
        fields: dict[str, Any] = {
            "body": self.body.partial(**kwargs),
            "step_type": self.step_type,
            "parser": self.parser,
            "language": self.language,
            "metadata": self.metadata,
            "tags": self.tags,
        }
        return type(self)(**fields)

    def pretty_repr(self, html: bool = False) -> str:
        """The body's pretty form, then the locked suffix under a marker line."""
        pretty = getattr(self.body, "pretty_repr", None)
        body = pretty(html=html) if callable(pretty) else repr(self.body)
        marker = "=== locked format (appended after the body) ==="
        return f"{body}\n\n{marker}\n\n{self.suffix}"

    def pretty_print(self) -> None:
        """Print `pretty_repr`."""
        print(self.pretty_repr())

    @property
    def _prompt_type(self) -> str:
        return "format-locked"

    # ------------------------------------------------------------------ serialisation

    @classmethod
    def get_lc_namespace(cls) -> list[str]:
        """``["langchain_robust_parsers", "chains", "format_locked_prompt"]``: the module, so
        ``langchain_core.load`` finds the class (with ``valid_namespaces`` including
        ``"langchain_robust_parsers"``)."""
        return ["langchain_robust_parsers", "chains", "format_locked_prompt"]

    def to_json(self) -> SerializedConstructor | SerializedNotImplemented:
        """The constructor arguments: the body, the step type or the parser's configuration,
        the language (and metadata and tags when set); never the rendered suffix."""
        kwargs: dict[str, Any] = {"body": self.body, "language": self.language}
        if self.step_type is not None:
            kwargs["step_type"] = self.step_type
        if self.parser is not None:
            kwargs["parser"] = parser_to_config(self.parser)
        if self.metadata:
            kwargs["metadata"] = self.metadata
        if self.tags:
            kwargs["tags"] = self.tags
        serialized = {
            "lc": 1,
            "type": "constructor",
            "id": self.lc_id(),
            "kwargs": kwargs,
            "name": self.get_name(),
        }
        # A cast, not the TypedDict's constructor: langchain-core 1.8 declares its optional keys
        # with ``typing.NotRequired``, which a type checker set to Python 3.10 reads as required.
        return cast("SerializedConstructor", serialized)


def _without_placeholder(names: Sequence[str]) -> list[str]:
    return [name for name in names if name != FORMAT_INSTRUCTIONS_VARIABLE]
