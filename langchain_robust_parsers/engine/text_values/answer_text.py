"""The short answer inside a model's reply: past reasoning blocks, inside a fence, without the
emphasis, quotes and punctuation models wrap a one-word answer in."""

from __future__ import annotations

from dataclasses import dataclass

from langchain_robust_parsers.engine.json import locate
from langchain_robust_parsers.engine.repair_log import RepairLog
from langchain_robust_parsers.engine.report import ParseReport, Source

EMPHASIS_CHARS = "*_`~"
"""Markdown emphasis and code marks, dropped around and inside a short answer."""

EDGE_PUNCTUATION = " \t\r\n\"'“”‘’.,;:!?()[]{}<>«»"
"""Characters stripped from both ends of an answer (``"Yes."``, ``(NO)``, ``'red'``)."""


@dataclass(frozen=True)
class Answer:
    """The located answer: ``text`` is ``src[start:stop]`` as written, ``plain`` the same
    without emphasis marks and edge punctuation."""

    text: str
    plain: str
    source: Source
    start: int
    stop: int
    log: RepairLog

    def report(self) -> ParseReport:
        """The report of a value read from this answer."""
        return ParseReport(
            self.source, self.start, self.stop, tuple(self.log.repairs), self.log.truncated
        )


def plain(text: str) -> str:
    """``text`` without emphasis marks, its edge punctuation, and with single spaces."""
    for mark in EMPHASIS_CHARS:
        if mark in text:
            text = text.replace(mark, "")
    return " ".join(text.strip(EDGE_PUNCTUATION).split())


def locate_answer(src: str) -> Answer:
    """The answer in ``src``: after ``<think>`` blocks, the body of the first non-empty fence
    when there is one, else the rest of the text."""
    log = RepairLog()
    region, skip = locate.answer_region(src, log)
    source: Source = "fenced" if region.source == "fenced" else "whole"
    start, stop = region.start, region.stop
    pieces: list[str] = []
    pos = start
    for a, b in skip:  # reasoning later in the reply, blanked: offsets stay those of `src`
        if start <= a < stop:
            log.add("think_block", a)
            pieces += [src[pos:a], " " * (min(b, stop) - a)]
            pos = min(b, stop)
    text = "".join([*pieces, src[pos:stop]])
    return Answer(text, plain(text), source, start, stop, log)
