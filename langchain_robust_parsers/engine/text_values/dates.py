"""A date and time read from a model's answer: the configured format first, then ISO 8601 and
the common ways of writing a date (``July 4, 2023``, ``04/07/2023 14:30``, ``4th of July
2023``), in the answer itself or in a short sentence around it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

from langchain_robust_parsers.engine.errors import TextEngineError
from langchain_robust_parsers.engine.report import ParseReport
from langchain_robust_parsers.engine.text_values.answer_text import locate_answer

MAX_DATE_SCAN_CHARS = 4_000
"""Characters of an answer searched for a date written inside a sentence; a reply longer than
this is not a date answer."""

COMMON_FORMATS: tuple[str, ...] = (
    "%Y-%m-%d %H:%M:%S.%f",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M",
    "%Y-%m-%d",
    "%Y/%m/%d %H:%M:%S",
    "%Y/%m/%d %H:%M",
    "%Y/%m/%d",
    "%m/%d/%Y %H:%M:%S",
    "%m/%d/%Y %H:%M",
    "%m/%d/%Y %I:%M %p",
    "%m/%d/%Y",
    "%d/%m/%Y %H:%M:%S",
    "%d/%m/%Y %H:%M",
    "%d/%m/%Y",
    "%d.%m.%Y %H:%M:%S",
    "%d.%m.%Y %H:%M",
    "%d.%m.%Y",
    "%B %d %Y %H:%M:%S",
    "%B %d %Y %H:%M",
    "%B %d %Y %I:%M %p",
    "%B %d %Y",
    "%b %d %Y %H:%M",
    "%b %d %Y %I:%M %p",
    "%b %d %Y",
    "%d %B %Y %H:%M",
    "%d %B %Y",
    "%d %b %Y",
    "%A %B %d %Y",
    "%a %b %d %Y",
    "%a %b %d %H:%M:%S %Y",
    "%H:%M:%S.%f",
    "%H:%M:%S",
    "%H:%M",
    "%I:%M %p",
    "%I:%M:%S %p",
)
"""Formats tried after the configured one and ISO 8601, month-first before day-first: where a
date such as ``04/07/2023`` reads both ways the US reading wins (day-first applies when the
first number cannot be a month). Commas, ordinals (``4th``), ``of`` and ``at`` are removed
before these are tried."""

_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]{0,6}\.?"
_TIME = (
    r"(?:,?\s{1,3}(?:at\s{1,3})?\d{1,2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?"
    r"(?:\s?[AaPp]\.?[Mm]\.?)?)?"
)
_DAY = r"(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]{0,6},?\s{1,3})?"
_CANDIDATES = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?)?(?:Z|[+-]\d{2}:?\d{2})?"
    r"|\d{4}/\d{1,2}/\d{1,2}"
    + _TIME
    + r"|\d{1,2}[/.]\d{1,2}[/.]\d{4}"
    + _TIME
    + r"|"
    + _DAY
    + _MONTH
    + r"\s{1,3}\d{1,2}(?:st|nd|rd|th)?,?\s{1,3}\d{4}"
    + _TIME
    + r"|"
    + _DAY
    + r"\d{1,2}(?:st|nd|rd|th)?\s{1,3}(?:of\s{1,3})?"
    + _MONTH
    + r",?\s{1,3}\d{4}"
    + _TIME
    + r"|\d{1,2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:\s?[AaPp]\.?[Mm]\.?)?",
    re.I,
)
_ORDINAL = re.compile(r"(?<=\d)(?:st|nd|rd|th)\b", re.I)
_FILLER = re.compile(r"\b(?:of|at)\b|,", re.I)
_MERIDIEM = re.compile(r"\b([AaPp])\.?[Mm]\.?")


def _normalised(candidate: str) -> str:
    text = _ORDINAL.sub("", candidate)
    text = _FILLER.sub(" ", text)
    text = _MERIDIEM.sub(lambda m: m.group(1).upper() + "M", text)
    return " ".join(text.replace(". ", " ").split())


def _iso(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00").replace(",", "."))
    except ValueError:
        return None


def _strptime(text: str, fmt: str) -> datetime | None:
    try:
        return datetime.strptime(text, fmt)  # naive, as the format says
    except ValueError:
        return None


def _readings(text: str, fmt: str) -> Iterator[tuple[datetime, str]]:
    """Every way ``text`` (one candidate) reads, with the rule that read it, best first."""
    value = _strptime(text, fmt)
    if value is not None:
        yield value, "configured_format"
    value = _iso(text)
    if value is not None:
        yield value, "iso_8601"
    normal = _normalised(text)
    for other in (fmt, *COMMON_FORMATS):
        value = _strptime(normal, other)
        if value is not None:
            yield value, "common_format"


def _as_format_expects(value: datetime, fmt: str) -> datetime:
    """An aware value as naive UTC when the configured format carries no offset (the default
    format ends in a literal ``Z``), so every value of one parser compares with the others."""
    if value.tzinfo is None or "%z" in fmt or "%Z" in fmt:
        return value
    return value.astimezone(timezone.utc).replace(tzinfo=None)


def read_datetime(text: str, fmt: str) -> tuple[datetime, ParseReport]:
    """The date and time ``text`` answers with; raises `TextEngineError` when none."""
    stripped = text.strip()
    value = _strptime(stripped, fmt)
    if value is not None:
        return value, ParseReport("whole", 0, len(text))
    answer = locate_answer(text)
    for candidate in (answer.text.strip(), answer.plain):
        for value, rule in _readings(candidate, fmt):
            answer.log.add(rule, answer.start)
            return _as_format_expects(value, fmt), answer.report()
    for m in _CANDIDATES.finditer(answer.text, 0, MAX_DATE_SCAN_CHARS):
        for value, rule in _readings(m.group(), fmt):
            answer.log.add("date_in_prose", answer.start + m.start())
            answer.log.add(rule, answer.start + m.start())
            return _as_format_expects(value, fmt), answer.report()
    raise TextEngineError("no date or time found in the answer")


DEFAULT_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"
"""The format langchain-classic's ``DatetimeOutputParser`` asks for by default."""

_DEFAULT_EXAMPLES = (
    "2023-07-04T14:30:00.000000Z",
    "1999-12-31T23:59:59.999999Z",
    "2025-01-01T00:00:00.000000Z",
)


def _examples(fmt: str) -> str:
    """Three dates written in ``fmt``, comma-separated (fixed ones for the default format)."""
    if fmt == DEFAULT_FORMAT:
        return ", ".join(_DEFAULT_EXAMPLES)
    now = datetime.now(tz=timezone.utc)
    try:
        dates = (now, now.replace(year=now.year - 1), now - timedelta(days=1))
        return ", ".join(date.strftime(fmt) for date in dates)
    except ValueError:
        return f"e.g., a valid string in the format {fmt}"


def datetime_instructions(fmt: str) -> str:
    """The classic ``DatetimeOutputParser``'s format instructions for ``fmt``."""
    return (
        f"Write a datetime string that matches the following pattern: '{fmt}'.\n\n"
        f"Examples: {_examples(fmt)}\n\n"
        "Return ONLY this string, no other words!"
    )
