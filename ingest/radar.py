"""Parser for "AI Benchmark Radar" pages: plain text, Chinese prose, tab-separated tables.

A page covers one benchmark and one reporting paper, and every page follows one template: a
title ``<benchmark> — <source kind> · AI Benchmark Radar``, a
``<publisher> · 核对于 <date>`` line, prose sections, tables (each under its title line), the
source record (``这条来源记录收录了 N 条数值成绩``, ``报告指标``, ``原始单位``, ``指标方向``),
the cited documents, the evidence block and an optional English evidence table. This module
reads the page-level facts and assembles the ``Page``; ``radar_tables`` finds the tables,
``radar_layout`` places them, ``radar_results`` reads them into records and ``radar_evidence``
reads and checks the evidence.

What is inconsistent raises ``PageError``; a table the parser cannot place is skipped and
reported in ``Page.warnings``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from benchgraph.names import normalise
from ingest import radar_evidence
from ingest.radar_builder import DECIMAL, Declared, Reading
from ingest.radar_evidence import read_date
from ingest.radar_layout import place
from ingest.radar_results import read_results
from ingest.radar_tables import find_tables
from ingest.records import Benchmark, Direction, MetricDecl, Page, PageWarning, SourceFormat
from ingest.text import PageText, split_lines

FORMAT: SourceFormat = "radar"

_SUFFIX = "· AI Benchmark Radar"
_DIRECTIONS: dict[str, Direction] = {"数值越高越好": "higher", "数值越低越好": "lower"}
_PUBLISHER_RE = re.compile(r"^(.+?) · 核对于 ([0-9]{4}-[0-9]{2}-[0-9]{2})$")
_METRIC_RE = re.compile(r"^报告指标[:：]\s*(.*)$")
_UNIT_RE = re.compile(r"^原始单位[:：]\s*(.*)$")
_DIRECTION_RE = re.compile(r"^指标方向[:：]\s*(.*)$")
_CHANCE_RE = re.compile(rf"机会水平(?:是|为)?\s*({DECIMAL})\s*[%％]?")
_FREEZE_RE = re.compile(r"数据冻结标识\s*([0-9A-Za-z]+)")
_COUNT_LINE_RE = re.compile(r"这条来源记录收录了\s*([0-9]+)\s*条数值成绩")
_REPORTED_RE = re.compile(r"^报告成绩\s*([0-9]+)$")
_SENTENCE_RE = re.compile(r"[^。！？!?]+")


def sniff(text: str) -> bool:
    """Return True when ``text`` looks like an AI Benchmark Radar page (by content only)."""
    lines = split_lines(text)
    return lines[0].strip().endswith(_SUFFIX) and any(
        _METRIC_RE.match(line.strip()) for line in lines
    )


def parse(data: bytes, origin: str) -> Page:
    """Parse the bytes of one radar page read from ``origin`` into a ``Page``.

    Raises PageError (naming ``origin``, the line, the problem and a hint) for text that is
    not UTF-8, a page that is not a radar page or is truncated, a page whose headline table
    cannot be found, malformed values or intervals, units that contradict the page's, model
    names that cannot be reconciled, and counts or evidence that disagree with the headline
    table. Tables it cannot place are skipped and listed in the Page's ``warnings``.
    """
    page = PageText.decode(data, origin, "not UTF-8 text", "radar pages are UTF-8 plain text")
    title, name = _title(page)
    publisher, checked = _publisher(page)
    declared = _declared(page)
    released = radar_evidence.evidence_block(page).get("评测发布日期")
    layout = place(page, find_tables(page))
    paper = radar_evidence.reporting_paper(page, layout.headline.name, layout.evidence, released)
    read = read_results(
        page, layout, benchmark=name, paper=paper, declared=declared, released=released
    )
    freeze = _first(_FREEZE_RE, page.lines)
    return Page(
        format=FORMAT,
        origin=origin,
        key="radar/" + normalise(name),
        title=title,
        url=None,
        data_updated=checked,
        benchmark=Benchmark(task=name, dataset=name, split=None),
        metrics=_metrics(page, read, declared.direction),
        primary_metric=declared.metric,
        declared_count=declared.count,
        results=tuple(sorted(read.results, key=lambda result: result.line)),
        publisher=publisher,
        checked_on=checked,
        data_freeze=freeze[1] if freeze else None,
        reporting_paper=paper,
        aggregates=tuple(read.aggregates),
        sha256=page.sha256,
        warnings=tuple(sorted((*layout.warnings, *read.warnings), key=_line_of)),
    )


def _line_of(warning: PageWarning) -> int:
    """The line a warning names (``line 42``), for putting warnings in page order."""
    return int(warning.location.removeprefix("line ")) if warning.location[5:].isdigit() else 0


def _first(pattern: re.Pattern[str], lines: Iterable[str]) -> tuple[int, str] | None:
    """The 1-based line number and first group of the first line ``pattern`` finds."""
    for number, line in enumerate(lines, 1):
        found = pattern.search(line.strip())
        if found:
            return number, found[1]
    return None


def _title(page: PageText) -> tuple[str, str]:
    """The page title and the benchmark name before its ' — '."""
    title = page.lines[0].strip()
    name = title.split(" — ", 1)[0].strip()
    if not title.endswith(_SUFFIX) or " — " not in title or not name:
        raise page.error(
            1,
            f"not an AI Benchmark Radar title: {title[:80]!r}",
            f"the first line reads '<benchmark> — <source> {_SUFFIX}'",
        )
    return title, name


def _publisher(page: PageText) -> tuple[str, str]:
    """The publisher and the checked date from the second non-blank line."""
    numbered = list(page.filled())
    line, text = numbered[1] if len(numbered) > 1 else (2, "")
    found = _PUBLISHER_RE.match(text)
    if not found:
        raise page.error(
            line,
            "no '<publisher> · 核对于 YYYY-MM-DD' line",
            "the second line names the publisher and the date the page was checked",
        )
    return found[1], read_date(page, found[2], line)


def _declared(page: PageText) -> Declared:
    """The source record: the declared metric, its unit and direction, the result count."""
    values = []
    for pattern, label in (
        (_METRIC_RE, "报告指标"),
        (_UNIT_RE, "原始单位"),
        (_DIRECTION_RE, "指标方向"),
    ):
        found = _first(pattern, page.lines)
        if not found or not found[1].strip():
            raise page.error(
                None,
                f"no '{label}:' line",
                "the page may be truncated: it ends before the metric declaration",
            )
        values.append(found)
    (_, metric), (unit_line, unit), (line, direction) = values
    if direction.strip() not in _DIRECTIONS:
        raise page.error(
            line,
            f"unknown metric direction {direction!r}",
            f"expected one of {', '.join(_DIRECTIONS)}",
        )
    return Declared(
        metric=metric.strip(),
        unit=unit.strip(),
        unit_line=unit_line,
        count=_declared_count(page),
        direction=_DIRECTIONS[direction.strip()],
    )


def _declared_count(page: PageText) -> int:
    found = _first(_COUNT_LINE_RE, page.lines)
    if not found:
        raise page.error(
            None,
            "no '这条来源记录收录了 N 条数值成绩' line",
            "the page may be truncated: it ends before its result count",
        )
    declared = page.number(found[0], found[1], "the declared result count")
    reported = _first(_REPORTED_RE, page.lines)
    if reported and page.number(reported[0], reported[1], "the reported count") != declared:
        raise page.error(
            reported[0], f"'报告成绩 {reported[1]}' disagrees with the declared count {declared}"
        )
    return declared


def _metrics(page: PageText, read: Reading, direction: Direction) -> tuple[MetricDecl, ...]:
    """The declared metric, then the metrics the page's tables use, in the order they are read.

    A chance level the page states (``机会水平是16.67%``) belongs to the declared metric and to
    the metrics whose labels the sentence or its section heading names.
    """
    chance, about = _chance(page)
    names = sorted(read.units, key=lambda name: read.first_line[name])
    return tuple(
        MetricDecl(
            name=name,
            unit=read.units[name],
            direction=direction,
            chance_level=chance
            if name == names[0] or any(label and label in about for label in read.labels[name])
            else None,
        )
        for name in names
    )


def _chance(page: PageText) -> tuple[str | None, str]:
    """The chance level the page states, and the sentence and heading that state it."""
    for index, line in enumerate(page.lines):
        found = _CHANCE_RE.search(line)
        if not found:
            continue
        sentence = next((s for s in _SENTENCE_RE.findall(line) if found[0] in s), line)
        heading = next(
            (page.lines[i].strip() for i in range(index - 1, -1, -1) if page.lines[i].strip()),
            "",
        )
        return found[1], f"{heading}\n{sentence}"
    return None, ""
