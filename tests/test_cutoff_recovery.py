"""Recovering from answers cut off at the token limit: RetryWithClarification and
robust_structured_output re-ask, continue or raise, and never explain a cut as a missing field."""

from __future__ import annotations

import asyncio
import json
import math
from typing import Any

import pydantic
import pytest
from chain_fakes import RecordingHandler, text_of
from fake_chat_models import CuttingChatModel
from langchain_core.messages import AIMessage, HumanMessage

from langchain_robust_parsers import (
    RetryExhaustedError,
    RetryWithClarification,
    RobustJsonOutputParser,
    RobustPydanticOutputParser,
    TruncatedOutputError,
    robust_structured_output,
)
from langchain_robust_parsers.engine.stitching import stitch


class Item(pydantic.BaseModel):
    id: int
    name: str
    tags: list[str]


class Catalog(pydantic.BaseModel):
    title: str
    items: list[Item]
    note: str | None = None


def _catalog(size: int = 2048) -> tuple[str, Catalog]:
    """A JSON answer of about ``size`` characters and its value."""
    items: list[dict[str, Any]] = []
    while True:
        i = len(items)
        items.append({"id": i, "name": f"item number {i}", "tags": ["red", f"size-{i % 5}"]})
        text = json.dumps({"title": "Spring catalog", "items": items})
        if len(text) >= size:
            return text, Catalog.model_validate_json(text)


BIG, BIG_VALUE = _catalog()
MIN_CALLS = math.ceil(len(BIG) / 200)


def _run(chain: Any, value: Any = "List the catalog.") -> tuple[Any, RecordingHandler]:
    handler = RecordingHandler()
    return chain.invoke(value, {"callbacks": [handler]}), handler


def _problem(clarification: str) -> str:
    """The line of a clarification that says what was wrong."""
    return next(line for line in clarification.splitlines() if line.startswith("Problem"))


def test_the_fixture_is_a_2kb_object_cut_every_200_characters() -> None:
    assert 2048 <= len(BIG) < 2300
    assert MIN_CALLS == 11


def test_continue_yields_the_full_object_in_the_minimum_number_of_calls() -> None:
    model = CuttingChatModel(answers=[BIG])
    chain = robust_structured_output(
        model, Catalog, on_truncation="continue", max_continuations=MIN_CALLS
    )
    result, handler = _run(chain)
    assert result == BIG_VALUE
    assert len(handler.seen.model_calls) == MIN_CALLS
    # Each continuation shows the model its partial answer as its own turn, then asks it to go on.
    last = handler.seen.model_calls[-1]
    assert isinstance(last.messages[-2], AIMessage)
    assert len(text_of(last.messages[-2])) == 200 * (MIN_CALLS - 1)
    assert "exact character where it stopped" in text_of(last.messages[-1])
    assert last.metadata["continuation"] == MIN_CALLS - 1
    assert last.metadata["attempt"] == 1


@pytest.mark.parametrize(
    "quirk",
    [{"overlap": 30}, {"fence_restart": True}, {"overlap": 12, "fence_restart": True}],
    ids=["overlap", "restarted-fence", "both"],
)
def test_continuations_that_repeat_or_reopen_a_fence_are_stitched(quirk: dict[str, Any]) -> None:
    model = CuttingChatModel(answers=[BIG], **quirk)
    chain = robust_structured_output(model, Catalog, on_truncation="continue", max_continuations=20)
    result, handler = _run(chain)
    assert result == BIG_VALUE
    assert len(handler.seen.model_calls) == MIN_CALLS


def test_continue_with_a_json_parser_and_a_prompt_free_chain() -> None:
    model = CuttingChatModel(answers=[BIG])
    chain = RetryWithClarification(
        llm=model, parser=RobustJsonOutputParser(), on_truncation="continue", max_continuations=11
    )
    result, handler = _run(chain)
    assert result == json.loads(BIG)
    assert len(handler.seen.model_calls) == MIN_CALLS


def test_continue_streams_and_runs_async() -> None:
    chain = robust_structured_output(
        CuttingChatModel(answers=[BIG]), Catalog, on_truncation="continue", max_continuations=11
    )
    streamed = [v for v in chain.stream("List the catalog.") if isinstance(v, Catalog)]
    assert streamed[-1] == BIG_VALUE
    model = CuttingChatModel(answers=[BIG])
    chain = robust_structured_output(model, Catalog, on_truncation="continue", max_continuations=11)
    assert asyncio.run(chain.ainvoke("List the catalog.")) == BIG_VALUE
    assert len(model.received) == MIN_CALLS


def test_continuations_are_bounded_then_the_answer_is_reasked() -> None:
    short = '{"title": "Spring catalog", "items": []}'
    model = CuttingChatModel(answers=[BIG, short])
    chain = robust_structured_output(model, Catalog, on_truncation="continue", max_continuations=2)
    result, handler = _run(chain)
    assert result == Catalog(title="Spring catalog", items=[])
    assert len(handler.seen.model_calls) == 3 + 1  # one attempt of 1 + 2 calls, then a re-ask
    reask = text_of(handler.seen.model_calls[-1].messages[-1])
    assert "cut off" in reask and "shorter" in reask


def test_reask_says_cut_off_never_a_missing_field() -> None:
    short = '{"title": "Spring catalog", "items": []}'
    model = CuttingChatModel(answers=[BIG, short])
    result, handler = _run(robust_structured_output(model, Catalog))
    assert result == Catalog(title="Spring catalog", items=[])
    assert len(handler.seen.model_calls) == 2
    clarification = text_of(handler.seen.model_calls[1].messages[-1])
    assert "cut off" in clarification and "output length limit" in clarification
    assert "Field required" not in clarification and "items" not in _problem(clarification)


def test_a_cut_answer_whose_missing_field_is_optional_is_not_accepted() -> None:
    # The cut falls after "items": the completed value validates ("note" is optional), but the
    # provider said it was cut: it is re-asked, not returned after one call.
    cut = '{"title": "Spring catalog", "items": [], "note": "Prices incl'
    done = '{"title": "Spring catalog", "items": [], "note": "Tax incl."}'
    model = CuttingChatModel(answers=[cut, done], max_chars=len(cut))
    model.answers[0] = cut + ' tax."}'  # the full answer the model meant, cut at len(cut)
    result, handler = _run(robust_structured_output(model, Catalog))
    assert result.note == "Tax incl."
    assert len(handler.seen.model_calls) == 2


def test_raise_stops_at_the_first_cut_answer() -> None:
    model = CuttingChatModel(answers=[BIG])
    handler = RecordingHandler()
    with pytest.raises(TruncatedOutputError) as info:
        robust_structured_output(model, Catalog, on_truncation="raise").invoke(
            "List the catalog.", {"callbacks": [handler]}
        )
    assert info.value.stop_reason == "length"
    assert len(handler.seen.model_calls) == 1


def test_every_attempt_cut_lists_the_cuts() -> None:
    model = CuttingChatModel(answers=[BIG])
    with pytest.raises(RetryExhaustedError) as info:
        robust_structured_output(model, Catalog, max_retries=1).invoke("List the catalog.")
    assert all("cut off" in a.error for a in info.value.attempts)
    assert all(isinstance(a.exception, TruncatedOutputError) for a in info.value.attempts)


def test_text_only_cut_that_fails_validation_is_explained_as_cut() -> None:
    # No stop reason (a model that does not report one): the JSON is unclosed and the completed
    # value lacks "items"; the model is told it was cut off, not that "items" is missing.
    from langchain_core.language_models import FakeListChatModel

    ok = '{"title": "Spring catalog", "items": []}'
    model = FakeListChatModel(responses=['{"title": "Spring cat', ok])
    result, handler = _run(robust_structured_output(model, Catalog))
    assert result == Catalog(title="Spring catalog", items=[])
    clarification = text_of(handler.seen.model_calls[1].messages[-1])
    assert "cut off" in _problem(clarification)
    assert "Field required" not in clarification and "items" not in _problem(clarification)


def test_parser_in_raise_mode_makes_text_cuts_recoverable_too() -> None:
    from langchain_core.language_models import FakeListChatModel

    ok = '{"title": "Spring catalog", "items": []}'
    parser = RobustPydanticOutputParser(pydantic_object=Catalog, on_truncation="raise")
    model = FakeListChatModel(responses=['{"title": "Spring catalog", "items": [', ok])
    chain = RetryWithClarification(llm=model, parser=parser)
    result, handler = _run(chain)
    assert result == Catalog(title="Spring catalog", items=[])
    assert "cut off" in text_of(handler.seen.model_calls[1].messages[-1])


def test_vietnamese_continuation_request() -> None:
    model = CuttingChatModel(answers=[BIG])
    chain = robust_structured_output(
        model, Catalog, language="vi", on_truncation="continue", max_continuations=11
    )
    # The Vietnamese request is not recognised by the fake (it looks for the English words),
    # so the fake starts over: the continuation is stitched as a restart and no progress made.
    with pytest.raises(RetryExhaustedError):
        chain.invoke("Liệt kê danh mục.")
    request = text_of(model.received[1][-1])
    assert "bị cắt ngang" in request
    assert isinstance(model.received[1][-1], HumanMessage)


# ------------------------------------------------------------------ stitching


@pytest.mark.parametrize(
    ("head", "piece", "expected"),
    [
        ('{"a": "hello wor', 'ld"}', '{"a": "hello world"}'),
        ('{"name": "Ada", "items": [{"id": 7, "na', '{"id": 7, "name": "x"}]}', None),
        ('```json\n{"a": [1, 2, ', "```json\n3, 4]}\n```", '```json\n{"a": [1, 2, 3, 4]}\n```'),
        ('{"a": [1, ', "```\n2]}\n```", '{"a": [1, 2]}'),
        ('{"name": "Ada", "items": [', '{"name": "Ada", "items": [1, 2]}', None),
        ('{"a": "x", "b": ', "", '{"a": "x", "b": '),
        ('{"a": ", "', '", "b": 1}', '{"a": ", "", "b": 1}'),
    ],
    ids=["plain", "overlap", "fence-reopened", "fence-added", "restart", "empty", "short-repeat"],
)
def test_stitch(head: str, piece: str, expected: str | None) -> None:
    joined = stitch(head, piece)
    if expected is None:
        json.loads(joined)
    else:
        assert joined == expected


def test_text_only_cut_with_another_error_is_described_by_that_error() -> None:
    # Unclosed, but the problem is the value: it is explained, not called a cut.
    from langchain_core.language_models import FakeListChatModel

    class Rated(pydantic.BaseModel):
        score: int = pydantic.Field(le=10)

    model = FakeListChatModel(responses=['{"score": 42', '{"score": 7}'])
    result, handler = _run(robust_structured_output(model, Rated))
    assert result == Rated(score=7)
    problem = _problem(text_of(handler.seen.model_calls[1].messages[-1]))
    assert "cut off" not in problem and "score" in problem
