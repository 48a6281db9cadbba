"""Parser for "AI Benchmark Radar" pages: plain text, Chinese prose, tab-separated tables.

A page covers one benchmark and one reporting paper. This module reads the page-level facts
(title, publisher and checked date, the declared metric and result count, the cited documents)
and assembles the ``Page``; ``radar_tables`` finds the tables and ``radar_results`` reads them
into records. Anything the parser cannot account for raises ``PageError``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ingest.names import normalise
from ingest.radar_results import DECIMAL, GROUP, I2T, T2I, read_date, read_results
from ingest.radar_tables import find_tables, required
from ingest.records import (
    AggregateRecord,
    Benchmark,
    Direction,
    MetricDecl,
    Page,
    PaperRef,
    ResultRecord,
    SourceFormat,
)
from ingest.text import PageText, split_lines

FORMAT: SourceFormat = "radar"

_SUFFIX = "· AI Benchmark Radar"
_DIRECTIONS: dict[str, Direction] = {"数值越高越好": "higher", "数值越低越好": "lower"}
_PUBLISHER_RE = re.compile(r"^(.+?) · 核对于 ([0-9]{4}-[0-9]{2}-[0-9]{2})$")
_METRIC_RE = re.compile(r"^报告指标[:：]\s*(.*)$")
_UNIT_RE = re.compile(r"^原始单位[:：]\s*(.*)$")
_DIRECTION_RE = re.compile(r"^指标方向[:：]\s*(.*)$")
_CHANCE_RE = re.compile(rf"机会水平是\s*({DECIMAL})\s*%")
_FREEZE_RE = re.compile(r"数据冻结标识\s*([0-9A-Za-z]+)")
_COUNT_LINE_RE = re.compile(r"这条来源记录收录了\s*([0-9]+)\s*条数值成绩")
_REPORTED_RE = re.compile(r"^报告成绩\s*([0-9]+)$")
_PAPERS_RE = re.compile(r"^引用文档及日期（([0-9]+)）$")


def sniff(text: str) -> bool:
    """Return True when ``text`` looks like an AI Benchmark Radar page (by content only)."""
    lines = split_lines(text)
    return lines[0].strip().endswith(_SUFFIX) and any(
        _METRIC_RE.match(line.strip()) for line in lines
    )


def parse(data: bytes, origin: str) -> Page:
    """Parse the bytes of one radar page read from ``origin`` into a ``Page``.

    Raises PageError (naming ``origin``, the line, the problem and a hint) for text that is
    not UTF-8, a page that is not a radar page or is truncated, unknown or malformed tables,
    values that are not decimals, model names that cannot be reconciled, and counts or
    evidence that disagree with the headline table.
    """
    page = PageText.decode(data, origin, "not UTF-8 text", "radar pages are UTF-8 plain text")
    title, name = _title(page)
    publisher, checked = _publisher(page)
    metric, unit, direction = _declared_metric(page)
    declared = _declared_count(page)
    tables = find_tables(page)
    paper = _reporting_paper(page, required(tables, "headline", page).name)
    results, aggregates = read_results(
        page, tables, benchmark=name, paper=paper, metric=metric, unit=unit, declared=declared
    )
    chance = _first(_CHANCE_RE, page.lines)
    freeze = _first(_FREEZE_RE, page.lines)
    return Page(
        format=FORMAT,
        origin=origin,
        key="radar/" + normalise(name),
        title=title,
        url=None,
        data_updated=checked,
        benchmark=Benchmark(task=name, dataset=name, split=None),
        metrics=_metrics(
            results, aggregates, metric, unit, direction, chance[1] if chance else None
        ),
        primary_metric=metric,
        declared_count=declared,
        results=tuple(sorted(results, key=lambda result: result.line)),
        publisher=publisher,
        checked_on=checked,
        data_freeze=freeze[1] if freeze else None,
        reporting_paper=paper,
        aggregates=tuple(aggregates),
        sha256=page.sha256,
    )


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


def _declared_metric(page: PageText) -> tuple[str, str, Direction]:
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
    (_, metric), (_, unit), (line, direction) = values
    if direction.strip() not in _DIRECTIONS:
        raise page.error(
            line,
            f"unknown metric direction {direction!r}",
            f"expected one of {', '.join(_DIRECTIONS)}",
        )
    return metric.strip(), unit.strip(), _DIRECTIONS[direction.strip()]


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


def _reporting_paper(page: PageText, table: str) -> PaperRef:
    """The one cited document that reports the headline ``table`` (the only one, if one)."""
    found = _first(_PAPERS_RE, page.lines)
    if not found or page.number(found[0], found[1], "the number of cited documents") < 1:
        raise page.error(
            None,
            "no '引用文档及日期（N）' list of cited documents",
            "the reporting paper is the document listed after it",
        )
    start, count = found[0], page.number(found[0], found[1], "the number of cited documents")
    entries = list(page.filled(start))[:count]
    chosen = entries if count == 1 else [e for e in entries if f"({table})" in e[1]]
    if len(chosen) != 1:
        raise page.error(
            start,
            f"cannot tell which of {count} cited documents reports the headline table ({table})",
        )
    line, text = chosen[0]
    parts = [part.strip() for part in text.split(" · ")]
    if len(parts) < 2 or not parts[0]:
        raise page.error(line, f"not '<title> · … · <date>': {text!r}")
    return PaperRef(title=parts[0], date=read_date(page, parts[-1], line))


def _metrics(
    results: list[ResultRecord],
    aggregates: list[AggregateRecord],
    primary: str,
    unit: str,
    direction: Direction,
    chance: str | None,
) -> tuple[MetricDecl, ...]:
    """The declared metric, then the table metrics the page's records use."""
    used = {r.metric for r in results} | {a.metric for a in aggregates}
    names = [primary] + [m for m in (GROUP, I2T, T2I) if m in used and m != primary]
    return tuple(
        MetricDecl(
            name=name,
            unit=unit,
            direction=direction,
            chance_level=chance if name in (primary, GROUP) else None,
        )
        for name in names
    )
