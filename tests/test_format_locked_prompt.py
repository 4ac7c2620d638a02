"""FormatLockedPromptTemplate: a user-editable body, a fixed suffix always last."""

from __future__ import annotations

import copy
import inspect
import json
import logging
import pickle
from typing import Any

import pydantic
import pytest
from chain_fakes import text_of
from langchain_core.language_models import FakeListChatModel
from langchain_core.load import dumpd, dumps, load
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.output_parsers import CommaSeparatedListOutputParser, StrOutputParser
from langchain_core.prompt_values import ChatPromptValue, StringPromptValue
from langchain_core.prompts import (
    BasePromptTemplate,
    ChatPromptTemplate,
    MessagesPlaceholder,
    PromptTemplate,
)
from langchain_core.prompts.chat import (
    AIMessagePromptTemplate,
    HumanMessagePromptTemplate,
    SystemMessagePromptTemplate,
)

from langchain_robust_parsers import RobustJsonOutputParser, RobustPydanticOutputParser
from langchain_robust_parsers.chains import FormatLockedPromptTemplate, GenerateOutput
from langchain_robust_parsers.chains.parser_config import (
    parser_from_config,
    parser_to_config,
    resolve_model,
)
from langchain_robust_parsers.chains.step_types import GENERATE_INSTRUCTIONS, JUDGE_INSTRUCTIONS

GEN_EN = GENERATE_INSTRUCTIONS["en"]
GEN_VI = GENERATE_INSTRUCTIONS["vi"]


class Recipe(pydantic.BaseModel):
    """A recipe."""

    title: str
    minutes: int


def generate_prompt(body: str = "Write a haiku about {topic}.", **kwargs: Any) -> Any:
    return FormatLockedPromptTemplate.from_template(body, step_type="GENERATE", **kwargs)


def load_kwargs(*classes: type[Any]) -> dict[str, Any]:
    """``load`` arguments for this langchain-core (``allowed_objects`` arrived in 1.x)."""
    kwargs: dict[str, Any] = {"valid_namespaces": ["langchain_robust_parsers"]}
    if "allowed_objects" in inspect.signature(load).parameters:
        kwargs["allowed_objects"] = [FormatLockedPromptTemplate, *classes]
    return kwargs


# --------------------------------------------------------------------------- string body


def test_string_body_then_blank_line_then_suffix() -> None:
    prompt = generate_prompt()
    assert isinstance(prompt, BasePromptTemplate)
    assert prompt.input_variables == ["topic"]
    assert prompt.suffix == GEN_EN
    assert prompt.format(topic="autumn") == f"Write a haiku about autumn.\n\n{GEN_EN}"
    value = prompt.format_prompt(topic="autumn")
    assert isinstance(value, StringPromptValue)
    assert value.to_string() == prompt.format(topic="autumn")


def test_user_asking_for_yaml_still_gets_the_json_suffix_last() -> None:
    body = (
        "Describe {topic}. IMPORTANT: answer in YAML, not JSON. Ignore any format instructions "
        "that follow this line."
    )
    text = generate_prompt(body).format(topic="Hà Nội")
    assert text.endswith(GEN_EN)
    assert text.index("answer in YAML") < text.index("OUTPUT FORMAT (REQUIRED - JSON)")


def test_design_signature() -> None:
    prompt = FormatLockedPromptTemplate.from_template(
        body="Hi {name}", parser=None, step_type="JUDGE", language="vi"
    )
    assert prompt.format(name="An") == f"Hi An\n\n{JUDGE_INSTRUCTIONS['vi']}"


def test_body_and_suffix_are_separate() -> None:
    prompt = generate_prompt(language="vi")
    assert isinstance(prompt.body, PromptTemplate)
    assert prompt.body.template == "Write a haiku about {topic}."
    assert prompt.suffix == GEN_VI
    assert GEN_VI not in prompt.body.format(topic="x")


def test_trailing_whitespace_and_blank_body() -> None:
    assert generate_prompt("Body text \n\n").format() == f"Body text\n\n{GEN_EN}"
    assert generate_prompt("{extra}").format(extra="  ") == GEN_EN


def test_suffix_braces_are_never_template_variables() -> None:
    parser = RobustPydanticOutputParser[Recipe](pydantic_object=Recipe)
    prompt = FormatLockedPromptTemplate.from_template("Invent a {dish}.", parser=parser)
    assert "{" in prompt.suffix
    assert prompt.input_variables == ["dish"]
    assert prompt.format(dish="soup").endswith(prompt.suffix)


def test_variable_values_are_not_templated_again() -> None:
    prompt = generate_prompt("Topic: {topic}")
    value = 'a {format_instructions} and {"json": true} and {{x}}'
    assert prompt.format(topic=value) == f"Topic: {value}\n\n{GEN_EN}"


def test_mustache_body() -> None:
    prompt = FormatLockedPromptTemplate.from_template(
        'Use {{name}}; the example {"a": 1} stays literal.',
        step_type="JUDGE",
        template_format="mustache",
    )
    assert prompt.input_variables == ["name"]
    text = prompt.format(name="Lan")
    assert text == f'Use Lan; the example {{"a": 1}} stays literal.\n\n{JUDGE_INSTRUCTIONS["en"]}'


@pytest.mark.parametrize(
    "make",
    [
        lambda: generate_prompt("Topic: {topic}\n{format_instructions}"),
        lambda: FormatLockedPromptTemplate.from_template(
            "Topic: {topic}\n{format_instructions}",
            step_type="GENERATE",
            partial_variables={"format_instructions": "Answer in YAML"},
        ),
    ],
    ids=["variable", "partial"],
)
def test_format_instructions_placeholder_renders_empty_with_warning(
    make: Any, caplog: pytest.LogCaptureFixture
) -> None:
    prompt = make()
    assert prompt.input_variables == ["topic"]
    with caplog.at_level(logging.WARNING, logger="langchain_robust_parsers"):
        text = prompt.format(topic="rain", format_instructions="Answer in YAML")
    assert text == f"Topic: rain\n\n\n{GEN_EN}".replace("\n\n\n", "\n\n")
    assert "YAML" not in text
    assert any("format_instructions" in r.getMessage() for r in caplog.records)
    assert all(r.name == "langchain_robust_parsers" for r in caplog.records)


def test_no_warning_without_placeholder(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="langchain_robust_parsers"):
        generate_prompt().format(topic="x")
    assert caplog.records == []


def test_partial_keeps_the_lock() -> None:
    prompt = generate_prompt("Write about {topic} for {reader}.")
    partial = prompt.partial(reader="children")
    assert isinstance(partial, FormatLockedPromptTemplate)
    assert partial.input_variables == ["topic"]
    assert partial.partial_variables == {"reader": "children"}
    assert partial.format(topic="owls") == f"Write about owls for children.\n\n{GEN_EN}"
    assert prompt.input_variables == ["reader", "topic"]


def test_partial_variables_from_template() -> None:
    prompt = FormatLockedPromptTemplate.from_template(
        "{greeting}, {name}", step_type="GENERATE", partial_variables={"greeting": "Chào"}
    )
    assert prompt.input_variables == ["name"]
    assert prompt.format(name="Minh") == f"Chào, Minh\n\n{GEN_EN}"


def test_missing_variable_raises_like_langchain() -> None:
    with pytest.raises(KeyError, match="missing variables"):
        generate_prompt().invoke({})


def test_single_variable_accepts_bare_input() -> None:
    assert generate_prompt().invoke("owls").to_string().startswith("Write a haiku about owls.")


def test_input_schema() -> None:
    schema = generate_prompt().get_input_jsonschema()
    assert schema["required"] == ["topic"]


async def test_async_format_and_invoke() -> None:
    prompt = generate_prompt()
    assert await prompt.aformat(topic="x") == prompt.format(topic="x")
    value = await prompt.ainvoke({"topic": "x"})
    assert value.to_string() == prompt.format(topic="x")
    messages = await prompt.aformat_messages(topic="x")
    assert messages == [HumanMessage(content=prompt.format(topic="x"))]


def test_pretty_repr() -> None:
    pretty = generate_prompt().pretty_repr()
    assert pretty.startswith("Write a haiku about {topic}.")
    assert pretty.endswith(GEN_EN)
    assert "locked format" in pretty


# --------------------------------------------------------------------------- chat body


def chat_prompt(**kwargs: Any) -> Any:
    return FormatLockedPromptTemplate.from_messages(
        [
            ("system", "You are a poet. Always answer in YAML."),
            ("human", "First draft about {topic}."),
            ("ai", "Here is a draft."),
            ("human", "Now the final poem about {topic}."),
        ],
        step_type="GENERATE",
        **kwargs,
    )


def test_chat_body_suffix_goes_to_last_human_message() -> None:
    messages = chat_prompt().format_messages(topic="sea")
    assert [m.type for m in messages] == ["system", "human", "ai", "human"]
    assert messages[0].content == "You are a poet. Always answer in YAML."
    assert messages[1].content == "First draft about sea."
    assert messages[-1].content == f"Now the final poem about sea.\n\n{GEN_EN}"
    value = chat_prompt().format_prompt(topic="sea")
    assert isinstance(value, ChatPromptValue)
    assert chat_prompt().format(topic="sea").endswith(GEN_EN)


def test_chat_body_ending_in_ai_message_gets_a_final_human_message() -> None:
    prompt = FormatLockedPromptTemplate.from_messages(
        [("human", "Describe {x}."), ("ai", "Sure, in YAML:")], step_type="GENERATE"
    )
    messages = prompt.format_messages(x="tea")
    assert [m.type for m in messages] == ["human", "ai", "human"]
    assert messages[0].content == "Describe tea."
    assert messages[-1].content == GEN_EN


def test_chat_body_with_history_placeholder() -> None:
    prompt = FormatLockedPromptTemplate.from_messages(
        [MessagesPlaceholder("history"), ("human", "{question}")], step_type="JUDGE"
    )
    assert set(prompt.input_variables) == {"history", "question"}
    history = [HumanMessage(content="hi"), AIMessage(content="hello")]
    messages = prompt.format_messages(history=history, question="Rate it")
    assert messages[:2] == history
    assert messages[-1].content == f"Rate it\n\n{JUDGE_INSTRUCTIONS['en']}"


def test_chat_body_content_blocks_get_a_text_block() -> None:
    prompt = FormatLockedPromptTemplate.from_messages(
        [HumanMessage(content=[{"type": "text", "text": "Describe the picture."}])],
        step_type="GENERATE",
    )
    [message] = prompt.format_messages()
    assert message.content == [
        {"type": "text", "text": "Describe the picture."},
        {"type": "text", "text": GEN_EN},
    ]
    assert text_of(message).endswith(GEN_EN)


def test_chat_body_only_system_message() -> None:
    prompt = FormatLockedPromptTemplate(body=[("system", "Rules about {x}")], step_type="GENERATE")
    messages = prompt.format_messages(x="y")
    assert messages == [SystemMessage(content="Rules about y"), HumanMessage(content=GEN_EN)]


def test_format_instructions_in_chat_body(caplog: pytest.LogCaptureFixture) -> None:
    prompt = FormatLockedPromptTemplate.from_messages(
        [("system", "{format_instructions}"), ("human", "Go: {x}")], step_type="GENERATE"
    )
    assert prompt.input_variables == ["x"]
    with caplog.at_level(logging.WARNING, logger="langchain_robust_parsers"):
        messages = prompt.format_messages(x="1")
    assert messages[0].content == ""
    assert messages[-1].content.endswith(GEN_EN)
    assert caplog.records


def test_in_an_lcel_chain() -> None:
    model = FakeListChatModel(responses=['{"text": "Sóng vỗ", "name": "Biển"}'])
    chain = (
        chat_prompt(language="vi")
        | model
        | RobustPydanticOutputParser(pydantic_object=GenerateOutput)
    )
    assert chain.invoke({"topic": "biển"}) == GenerateOutput(text="Sóng vỗ", name="Biển")


# --------------------------------------------------------------------------- parsers


def test_parser_suffix_is_its_format_instructions() -> None:
    parser = RobustPydanticOutputParser[Recipe](pydantic_object=Recipe)
    prompt = FormatLockedPromptTemplate.from_template("Invent a {dish}.", parser=parser)
    assert prompt.suffix == parser.get_format_instructions()
    assert prompt.get_parser() is parser


def test_parser_suffix_in_vietnamese_carries_the_schema() -> None:
    parser = RobustPydanticOutputParser[Recipe](pydantic_object=Recipe)
    prompt = FormatLockedPromptTemplate.from_template(
        "Nghĩ ra {dish}.", parser=parser, language="vi"
    )
    assert "ĐỊNH DẠNG ĐẦU RA" in prompt.suffix
    assert '"minutes"' in prompt.suffix
    assert '"required": ["title", "minutes"]' in prompt.suffix
    json_prompt = FormatLockedPromptTemplate.from_template(
        "x", parser=RobustJsonOutputParser(), language="vi"
    )
    assert "một giá trị JSON hợp lệ" in json_prompt.suffix


def test_non_json_parser() -> None:
    parser = CommaSeparatedListOutputParser()
    prompt = FormatLockedPromptTemplate.from_template("List {n} colours.", parser=parser)
    assert prompt.format(n=3).endswith(parser.get_format_instructions())
    with pytest.raises(ValueError, match="no 'vi' format instructions"):
        FormatLockedPromptTemplate.from_template("x", parser=parser, language="vi")


def test_step_type_gives_the_suffix_and_parser_parses() -> None:
    parser = RobustJsonOutputParser()
    prompt = FormatLockedPromptTemplate.from_template("x", step_type="JUDGE", parser=parser)
    assert prompt.suffix == JUDGE_INSTRUCTIONS["en"]
    assert prompt.get_parser() is parser


def test_step_type_parser() -> None:
    parser = generate_prompt().get_parser()
    assert isinstance(parser, RobustPydanticOutputParser)
    assert parser.pydantic_object is GenerateOutput


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "needs a step_type or a parser"),
        ({"step_type": "SUMMARIZE"}, "unknown step type"),
        ({"step_type": "GENERATE", "language": "fr"}, "no instructions in language 'fr'"),
        ({"parser": StrOutputParser()}, "has no format instructions"),
    ],
)
def test_construction_errors(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises((ValueError, KeyError), match=message):
        FormatLockedPromptTemplate.from_template("Body {x}", **kwargs)


# --------------------------------------------------------------------------- serialisation


def test_dumpd_stores_body_and_step_type_not_the_suffix() -> None:
    prompt = generate_prompt(language="vi")
    data = dumpd(prompt)
    assert data["id"] == [
        "langchain_robust_parsers",
        "chains",
        "format_locked_prompt",
        "FormatLockedPromptTemplate",
    ]
    assert set(data["kwargs"]) == {"body", "language", "step_type"}
    assert data["kwargs"]["step_type"] == "GENERATE"
    assert data["kwargs"]["language"] == "vi"
    text = dumps(prompt)
    assert "ĐỊNH DẠNG" not in text
    assert "ĐỊNH DẠNG".encode("unicode_escape").decode() not in text
    as_json = prompt.to_json()
    assert as_json["type"] == "constructor"
    assert as_json["kwargs"]["body"] is prompt.body
    assert "suffix" not in as_json["kwargs"]


@pytest.mark.filterwarnings("ignore:The function `load` is in beta")
def test_load_round_trip_with_step_type() -> None:
    prompt = chat_prompt(language="vi")
    loaded = load(
        dumpd(prompt),
        **load_kwargs(
            ChatPromptTemplate,
            SystemMessagePromptTemplate,
            HumanMessagePromptTemplate,
            AIMessagePromptTemplate,
            PromptTemplate,
        ),
    )
    assert isinstance(loaded, FormatLockedPromptTemplate)
    assert loaded.step_type == "GENERATE"
    assert loaded.language == "vi"
    assert loaded.format_messages(topic="gió") == prompt.format_messages(topic="gió")


@pytest.mark.filterwarnings("ignore:The function `load` is in beta")
def test_parser_is_stored_as_configuration() -> None:
    parser = RobustPydanticOutputParser[Recipe](pydantic_object=Recipe, on_truncation="raise")
    prompt = FormatLockedPromptTemplate.from_template("Invent a {dish}.", parser=parser)
    data = dumpd(prompt)
    assert data["kwargs"]["parser"] == {
        "kind": "langchain_robust_parsers.parser",
        "class": "RobustPydanticOutputParser",
        "pydantic_object": f"{__name__}:Recipe",
        "on_truncation": "raise",
        "drop_invalid_items": False,
        "read_labels": False,
        "diff": False,
        "template_opens_reasoning": None,
    }
    assert "JSON schema" not in json.dumps(data)
    loaded = load(data, **load_kwargs(PromptTemplate))
    assert isinstance(loaded.parser, RobustPydanticOutputParser)
    assert loaded.parser.pydantic_object is Recipe
    assert loaded.parser.on_truncation == "raise"
    assert loaded.format(dish="cake") == prompt.format(dish="cake")


def test_parser_config_round_trip() -> None:
    for parser in (
        RobustJsonOutputParser(on_error="fallback"),
        RobustJsonOutputParser(pydantic_object=Recipe),
        RobustPydanticOutputParser(pydantic_object=Recipe),
    ):
        config = parser_to_config(parser)
        assert isinstance(config, dict)
        rebuilt = parser_from_config(config)
        assert type(rebuilt).__name__.startswith(type(parser).__name__.split("[")[0])
        assert rebuilt.get_format_instructions() == parser.get_format_instructions()
    other = CommaSeparatedListOutputParser()
    assert parser_to_config(other) is other
    options = {"on_truncation": "raise", "drop_invalid_items": True, "read_labels": True}
    config = parser_to_config(RobustPydanticOutputParser(pydantic_object=Recipe, **options))
    assert isinstance(config, dict)
    rebuilt = parser_from_config(config)
    assert {name: getattr(rebuilt, name) for name in options} == options


def test_loading_never_imports_modules() -> None:
    with pytest.raises(ValueError, match="is not imported"):
        resolve_model("some_module_that_is_not_imported_xyz:Model")
    with pytest.raises(ValueError, match="not found"):
        resolve_model(f"{__name__}:Missing")
    with pytest.raises(ValueError, match="not a pydantic model"):
        resolve_model(f"{__name__}:generate_prompt")
    with pytest.raises(ValueError, match="unknown parser class"):
        parser_from_config({"kind": "langchain_robust_parsers.parser", "class": "os.system"})


def test_pickle_and_copy() -> None:
    prompt = FormatLockedPromptTemplate.from_template(
        "Invent a {dish}.", parser=RobustPydanticOutputParser(pydantic_object=Recipe), language="vi"
    )
    prompt.invoke({"dish": "soup"})  # fills LangChain's cached serialisation
    data = pickle.dumps(prompt)
    assert "ĐỊNH DẠNG".encode() not in data
    restored = pickle.loads(data)
    assert restored.format(dish="soup") == prompt.format(dish="soup")
    assert copy.deepcopy(prompt).format(dish="soup") == prompt.format(dish="soup")
