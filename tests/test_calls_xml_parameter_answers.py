"""Answers of many XML-parameter calls (Qwen3-Coder, MiniMax, GLM): every call is read, as the
dialect's own reader reads it, and an answer twice as long costs about twice the time."""

from __future__ import annotations

import contextlib

import pytest
from cpu_clock import best_cpu_seconds

from langchain_robust_parsers.engine.calls.dialects import decode_calls
from langchain_robust_parsers.engine.calls.parsed_call import CallDecodeError

CITIES = ["Lyon", "Köln", "São Paulo", "東京", "Reykjavík"]


def _qwen(i: int, note: str = "") -> str:
    city = CITIES[i % len(CITIES)]
    return (
        f"<tool_call>\n<function=get_weather>\n<parameter=city>\n{city}\n</parameter>\n"
        f"<parameter=days>\n{i % 7 + 1}\n</parameter>\n{note}</function>\n</tool_call>"
    )


def _minimax(i: int) -> str:
    city = CITIES[i % len(CITIES)]
    return (
        '<minimax:tool_call>\n<invoke name="get_weather">\n'
        f'<parameter name="city">{city}</parameter>\n<parameter name="days">{i % 7 + 1}'
        "</parameter>\n</invoke>\n</minimax:tool_call>"
    )


def _glm(i: int) -> str:
    city = CITIES[i % len(CITIES)]
    return (
        f"<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>{city}</arg_value>\n"
        f"<arg_key>days</arg_key>\n<arg_value>{i % 7 + 1}</arg_value>\n</tool_call>"
    )


@pytest.mark.parametrize(
    ("write", "dialect"), [(_qwen, "tool_call"), (_minimax, "minimax"), (_glm, "tool_call")]
)
def test_every_call_of_a_long_answer_is_read_as_the_dialect_reader_reads_it(
    write: object, dialect: str
) -> None:
    answer = "\n".join(write(i) for i in range(40))  # type: ignore[operator]
    auto = decode_calls(answer)
    named = decode_calls(answer, dialect=dialect)
    assert len(auto.calls) == 40
    assert [(c.name, c.args) for c in auto.calls] == [(c.name, c.args) for c in named.calls]
    assert auto.calls[3].args["city"] == CITIES[3]
    assert auto.spans == named.spans


def test_text_after_the_last_parameter_is_passed_over() -> None:
    got = decode_calls(_qwen(0, note="(checking the forecast)\n"))
    assert [(c.name, c.args) for c in got.calls] == [("get_weather", {"city": "Lyon", "days": "1"})]


def test_a_closing_tag_written_inside_a_value_stays_in_the_value() -> None:
    answer = (
        "<tool_call>\n<function=write_file>\n<parameter=path>\nnotes.xml\n</parameter>\n"
        "<parameter=content>\n<a>x</parameter> is how a tag closes</a>\n</parameter>\n"
        "</function>\n</tool_call>"
    )
    (call,) = decode_calls(answer).calls
    assert call.args["content"] == "<a>x</parameter> is how a tag closes</a>"
    assert call.args["path"] == "notes.xml"


# ----------------------------------------------------------------------------- growth


def _cpu_per_call(answer: str, calls: int) -> float:
    def decode() -> None:
        with contextlib.suppress(CallDecodeError):
            decode_calls(answer)

    return max(best_cpu_seconds(decode), 1e-6) / calls


def _answers(n: int) -> dict[str, str]:
    prose = "Checking the next city now.\n"
    return {
        "qwen": "\n".join(_qwen(i) for i in range(n)),
        "minimax": "\n".join(_minimax(i) for i in range(n)),
        "glm": "".join(_glm(i) for i in range(n)),
        # prose between the calls and a tag as data in a value: the general reader's path
        "qwen_with_prose": prose.join(
            _qwen(i, note="") if i % 3 else _qwen(i).replace("days>\n", "days>\n</x> ", 1)
            for i in range(n)
        ),
    }


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["qwen", "minimax", "glm", "qwen_with_prose"])
def test_an_answer_of_n_xml_calls_costs_linear_time(kind: str) -> None:
    small, large = 200, 3200
    few = _cpu_per_call(_answers(small)[kind], small)
    many = _cpu_per_call(_answers(large)[kind], large)
    # 16x the calls: quadratic work would cost 16x per call; a generous margin for noise
    assert many < 4 * few, (kind, few, many)
