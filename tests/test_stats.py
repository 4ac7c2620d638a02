"""ParseStats on its own, and as the parsers fill it."""

from __future__ import annotations

import copy
import pickle
import threading
from concurrent.futures import ProcessPoolExecutor

import pydantic
import pytest
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import FakeListChatModel
from langchain_core.outputs import Generation
from langchain_core.prompts import ChatPromptTemplate

from langchain_robust_parsers import ParseStats, RobustJsonOutputParser, RobustPydanticOutputParser


class Ticket(pydantic.BaseModel):
    title: str
    severity: int


def _count_in_worker(texts: list[str]) -> ParseStats:
    """Parse in a worker process and send the counts back (they pickle)."""
    stats = ParseStats()
    parser = RobustJsonOutputParser(stats=stats, on_error="fallback")
    for text in texts:
        parser.parse(text)
    return stats


# --------------------------------------------------------------------------- ParseStats itself


def test_record_and_snapshot_list_every_outcome() -> None:
    stats = ParseStats()
    stats.record("json", "success")
    stats.record("json", "success")
    stats.record("json", "failed")
    stats.record("dialog", "fallback")
    assert stats.snapshot() == {
        "dialog": {"success": 0, "recovered": 0, "fallback": 1, "failed": 0},
        "json": {"success": 2, "recovered": 0, "fallback": 0, "failed": 1},
    }
    assert stats.total() == 4


def test_unknown_outcome_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown outcome"):
        ParseStats().record("json", "great")  # type: ignore[arg-type]


def test_snapshot_is_a_copy() -> None:
    stats = ParseStats()
    stats.record("json", "success")
    snap = stats.snapshot()
    snap["json"]["success"] = 99
    assert stats.snapshot()["json"]["success"] == 1


def test_merge_adds_counts_and_refuses_itself() -> None:
    a, b = ParseStats(), ParseStats()
    a.record("json", "success")
    b.record("json", "success")
    b.record("pydantic", "recovered")
    assert a.merge(b) is a
    assert a.snapshot()["json"]["success"] == 2
    assert a.snapshot()["pydantic"]["recovered"] == 1
    with pytest.raises(ValueError):
        a.merge(a)


def test_table_shows_percentages_and_totals() -> None:
    stats = ParseStats()
    for outcome in ("success", "success", "recovered", "failed"):
        stats.record("json", outcome)  # type: ignore[arg-type]
    table = stats.table()
    header, rule, row = table.splitlines()
    assert header.split(" | ")[0].strip() == "Format"
    assert set(rule) <= {"-", "+"}
    cells = [c.strip() for c in row.split(" | ")]
    assert cells == ["json", "50.0%", "25.0%", "0.0%", "25.0%", "4"]


def test_pickle_and_deepcopy_keep_counts_and_a_working_lock() -> None:
    stats = ParseStats()
    stats.record("json", "recovered")
    for clone in (pickle.loads(pickle.dumps(stats)), copy.deepcopy(stats)):
        assert clone == stats
        clone.record("json", "recovered")
        assert clone.snapshot()["json"]["recovered"] == 2
    assert stats.snapshot()["json"]["recovered"] == 1


def test_not_hashable_but_comparable() -> None:
    with pytest.raises(TypeError):
        hash(ParseStats())
    assert ParseStats() == ParseStats()
    assert ParseStats() != object()


def test_thread_safety() -> None:
    stats = ParseStats()
    n_threads, per_thread = 8, 500

    def work() -> None:
        for _ in range(per_thread):
            stats.record("json", "success")

    threads = [threading.Thread(target=work) for _ in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert stats.snapshot()["json"]["success"] == n_threads * per_thread


# --------------------------------------------------------------------------- parsers fill it


def test_json_parser_counts_every_outcome() -> None:
    stats = ParseStats()
    strict = RobustJsonOutputParser(stats=stats)
    lenient = RobustJsonOutputParser(stats=stats, on_error="fallback")
    strict.parse('{"ok": true}')
    strict.parse('```json\n{"ok": true}\n```')
    lenient.parse("no JSON at all")
    with pytest.raises(OutputParserException):
        strict.parse("still no JSON")
    assert stats.snapshot() == {"json": {"success": 1, "recovered": 1, "fallback": 1, "failed": 1}}


def test_partial_parses_are_not_counted() -> None:
    stats = ParseStats()
    parser = RobustJsonOutputParser(stats=stats)
    parser.parse_result([Generation(text='{"ok": tr')], partial=True)
    parser.parse_result([Generation(text="nothing")], partial=True)
    assert stats.total() == 0


def test_a_stream_counts_once_when_it_ends() -> None:
    stats = ParseStats()
    chain = FakeListChatModel(responses=['{"ok": true}']) | RobustJsonOutputParser(stats=stats)
    assert list(chain.stream("hi"))[-1] == {"ok": True}
    assert stats.snapshot() == {"json": {"success": 1, "recovered": 0, "fallback": 0, "failed": 0}}


def test_pydantic_parser_counts_success_recovered_failed() -> None:
    stats = ParseStats()
    parser = RobustPydanticOutputParser[Ticket](pydantic_object=Ticket, stats=stats)
    parser.parse('{"title": "Login broken", "severity": 2}')
    parser.parse('{"Title": "Login broken", "severity": "2"}')  # coerced
    with pytest.raises(OutputParserException):
        parser.parse('{"headline": "Login broken"}')
    assert stats.snapshot() == {
        "pydantic": {"success": 1, "recovered": 1, "fallback": 0, "failed": 1}
    }


def test_one_stats_shared_by_a_chain_and_batch() -> None:
    stats = ParseStats()
    prompt = ChatPromptTemplate.from_template("Summarise {doc}")
    model = FakeListChatModel(responses=['{"summary": "ok"}'])
    chain = prompt | model | RobustJsonOutputParser(stats=stats)
    chain.batch([{"doc": str(i)} for i in range(6)])
    assert stats.snapshot()["json"]["success"] == 6


async def test_async_parses_are_counted() -> None:
    stats = ParseStats()
    parser = RobustJsonOutputParser(stats=stats)
    await parser.ainvoke('{"a": 1}')
    await parser.aparse('{"a": 1}')
    with pytest.raises(OutputParserException):
        await parser.ainvoke("nope")
    assert stats.snapshot()["json"] == {"success": 2, "recovered": 0, "fallback": 0, "failed": 1}


def test_parse_with_report_is_counted() -> None:
    stats = ParseStats()
    RobustJsonOutputParser(stats=stats).parse_with_report('{"a": 1}')
    assert stats.total() == 1


def test_counts_from_worker_processes_merge() -> None:
    batches = [['{"a": 1}', "plain"], ['{"b": 2,}', '{"c": 3}']]
    with ProcessPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(_count_in_worker, batches))
    total = ParseStats()
    for part in results:
        total.merge(part)
    assert total.snapshot()["json"]["fallback"] == 1
    assert total.total() == 4
