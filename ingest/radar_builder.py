"""The cells of an AI Benchmark Radar table, read into records for one page.

A ``Builder`` collects the records of a page: it names each value column's metric (the declared
metric for the headline's column and for any column with the headline's label; the glossary's
English name or the published label otherwise), checks that every metric is in one unit and the
declared metric in the page's unit (``原始单位``), reads values and intervals exactly as
published, and keeps source IDs unique. The helpers below read the other cells of a row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal

from benchgraph.names import normalise
from ingest import units
from ingest.names import AmbiguousName, Reconciler
from ingest.radar_columns import Column, condition_name, metric_name, split_conditions
from ingest.radar_tables import Table
from ingest.records import (
    AggregateRecord,
    Configuration,
    Direction,
    Interval,
    PageWarning,
    PaperRef,
    ResultRecord,
)
from ingest.text import PageText

DECIMAL = r"-?[0-9]+(?:\.[0-9]+)?"
_DECIMAL_RE = re.compile(rf"^{DECIMAL}$")
_INTERVAL_RE = re.compile(rf"^\[\s*({DECIMAL})\s*,\s*({DECIMAL})\s*\]$")
_COUNT_RE = re.compile(r"^(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)$")
_SAMPLE_RE = re.compile(r"(?<![0-9])([0-9]+)\s*例")  # starts at a run's first digit: linear


@dataclass(frozen=True)
class Declared:
    """What the page's source record declares: metric, unit (and its line), result count and
    direction."""

    metric: str
    unit: str
    unit_line: int
    count: int
    direction: Direction


@dataclass
class Reading:
    """What the tables hold: records, warnings, and each metric's unit and published labels."""

    results: list[ResultRecord] = field(default_factory=list)
    aggregates: list[AggregateRecord] = field(default_factory=list)
    warnings: list[PageWarning] = field(default_factory=list)
    units: dict[str, str] = field(default_factory=dict)  # metric: unit as published, in order
    labels: dict[str, set[str]] = field(default_factory=dict)  # metric: its column labels
    first_line: dict[str, int] = field(default_factory=dict)  # metric: where it is first used


@dataclass(frozen=True)
class Value:
    column: Column
    metric: str
    condition: str | None


@dataclass(frozen=True)
class Sample:
    """A table scored by another protocol: its models, their protocols, its subset and size."""

    table: Table
    names: Reconciler
    protocols: dict[str, str]
    label: str | None  # "200-example stratified sample"
    size: int | None


@dataclass
class Builder:
    """Collects the records of one page, keeps their source IDs unique, names their metrics."""

    page: PageText
    benchmark: str
    paper: PaperRef
    declared: Declared
    headline_label: str
    read: Reading = field(default_factory=Reading)
    _ids: set[str] = field(default_factory=set)
    _unit_at: dict[str, str] = field(default_factory=dict)
    _levels: set[tuple[int, int]] = field(default_factory=set)

    def __post_init__(self) -> None:
        metric = self.declared.metric
        self.read.units[metric] = self.declared.unit
        self.read.first_line[metric] = 0
        self.read.labels[metric] = set()
        self._unit_at[metric] = f"原始单位 (line {self.declared.unit_line})"

    def key(self, table: str, who: str, metric: str, subset: str | None, line: int) -> str:
        parts = [self.benchmark, table, who, metric, *([subset] if subset else [])]
        key = "/".join(normalise(part) for part in parts)
        if key in self._ids:
            raise self.page.error(
                line,
                f"duplicate row: {key} appears twice",
                "each model, metric and subset may appear once per table",
            )
        self._ids.add(key)
        return key

    def values(self, table: Table, headline: bool = False) -> list[Value]:
        """The value columns of ``table`` with their metric and condition; registers units."""
        columns = table.of_kind("value")
        labels = [c.label for c in columns]
        split = None if headline else split_conditions(labels, self.headline_label, table.title)
        if split is not None:
            name = self._metric(split[0])
            found = [
                Value(c, name, condition_name(k)) for c, k in zip(columns, split[1], strict=True)
            ]
        else:
            found = [Value(c, self._metric(c.label), None) for c in columns]
        if headline:
            found[0] = Value(columns[0], self.declared.metric, None)
        for value in found:
            self._unit(table, value)
            self.read.labels.setdefault(value.metric, set()).add(
                split[0] if split is not None else value.column.label
            )
        return found

    def _metric(self, label: str) -> str:
        return self.declared.metric if label == self.headline_label else metric_name(label)

    def _unit(self, table: Table, value: Value) -> None:
        page, declared, column = self.page, self.declared, value.column
        unit = column.unit or declared.unit
        where = f"the column {column.header!r} of {table.where}"
        if value.metric == declared.metric and not units.same(unit, declared.unit):
            raise page.error(
                table.line,
                f"{where} is in {unit!r}, which contradicts 原始单位 {declared.unit!r} "
                f"(line {declared.unit_line})",
                "the declared metric is published in the page's unit",
            )
        known = self.read.units.get(value.metric)
        if known is None:
            same = units.same(unit, declared.unit)
            self.read.units[value.metric] = declared.unit if same else unit
            self._unit_at[value.metric] = where
            if not same:
                self.read.warnings.append(
                    page.warning(
                        table.line,
                        f"metric {value.metric!r} of {where} is in {unit!r}, not in the page's "
                        f"unit {declared.unit!r}: it takes the page's direction (指标方向), which "
                        f"the page states for {declared.metric!r}",
                        "check which way the metric improves",
                    )
                )
        elif not units.same(known, unit):
            raise page.error(
                table.line,
                f"metric {value.metric!r} is in {unit!r} in {where} "
                f"but in {known!r} in {self._unit_at[value.metric]}",
                "a metric is published in one unit",
            )
        first = self.read.first_line
        first[value.metric] = min(first.get(value.metric, table.line), table.line)

    def cell(
        self, table: Table, cells: tuple[str, ...], column: Column, line: int
    ) -> tuple[str, Interval | None]:
        """The value and interval a row gives in a value column."""
        page, text = self.page, cells[column.index]
        if column.in_cell:
            value, bracket, bounds = text.partition("[")
            if not bracket:
                raise page.error(
                    line,
                    f"no interval in {text!r}",
                    f"the cells of {column.header!r} read '<value> [lower,upper]'",
                )
            text, published = value.strip(), bracket + bounds
        elif column.interval is not None:
            published = cells[column.interval]
        else:
            return read_decimal(page, text, line), None
        interval: Interval | None = read_interval(page, published, line, column.level or "")
        if column.level is None:
            if (table.line, column.index) not in self._levels:
                self._levels.add((table.line, column.index))
                self.read.warnings.append(
                    page.warning(
                        table.line,
                        f"the intervals of {column.header!r} in {table.where} state no "
                        "confidence level: not recorded",
                        "an interval header names its level, such as 95%置信区间",
                    )
                )
            interval = None
        return read_decimal(page, text, line), interval

    def result(
        self,
        table: Table,
        line: int,
        method: str,
        value: Value,
        cells: tuple[str, ...],
        *,
        configuration: Configuration,
        sample_size: int | None = None,
        result_date: str | None = None,
        headline: bool = False,
    ) -> None:
        """Add the result a row gives in one value column."""
        published, interval = self.cell(table, cells, value.column, line)
        self.read.results.append(
            ResultRecord(
                source_id=self.key(table.name, method, value.metric, configuration.subset, line),
                method=method,
                metric=value.metric,
                value=published,
                reported_in=self.paper,
                result_date=result_date,
                configuration=configuration,
                interval=interval,
                sample_size=sample_size,
                table=table.name,
                headline=headline,
                line=line,
            )
        )


# --- cells ---------------------------------------------------------------------------------


def read_decimal(page: PageText, cell: str, line: int) -> str:
    if not _DECIMAL_RE.match(cell):
        raise page.error(
            line,
            f"not a decimal number: {cell!r}",
            "values are published as plain decimals such as 13.5",
        )
    return cell


def read_interval(page: PageText, cell: str, line: int, level: str) -> Interval:
    found = _INTERVAL_RE.match(cell)
    if not found:
        raise page.error(line, f"not an interval '[lower,upper]': {cell!r}")
    if Decimal(found[1]) > Decimal(found[2]):
        raise page.error(line, f"interval {cell} has lower > upper")
    return Interval(lower=found[1], upper=found[2], level=level, text=cell)


def read_count(page: PageText, cell: str, line: int) -> int:
    digits = cell.replace(",", "")
    count = int(digits) if _COUNT_RE.match(cell) and len(digits) <= 9 else 0
    if count <= 0:
        raise page.error(line, f"not a positive sample size: {cell!r}")
    return count


def row_keys(build: Builder, table: Table, cells: tuple[str, ...], line: int) -> list[str]:
    """The row's key cells, as published; a bare number keeps its header (``并发数 16``).

    Raises PageError for an empty key cell."""
    found = []
    for column in table.of_kind("key"):
        cell = cells[column.index]
        if not cell:
            raise build.page.error(line, f"no {column.header} in a row of {table.where}")
        found.append(f"{column.header} {cell}" if _DECIMAL_RE.match(cell) else cell)
    return found


def row_size(build: Builder, table: Table, cells: tuple[str, ...], line: int) -> int | None:
    column = table.first("sample")
    return None if column is None else read_count(build.page, cells[column.index], line)


def resolve(build: Builder, table: Table, name: str, known: Reconciler, line: int) -> str | None:
    """The known model ``name`` stands for, or None if none does.

    Raises PageError when ``name`` is empty or fits several known models.
    """
    if not name:
        raise build.page.error(line, f"no model name in a row of {table.where}")
    try:
        return known.resolve(name)
    except AmbiguousName as err:
        raise build.page.error(
            line,
            f"model {name!r} in {table.where} is "
            f"ambiguous: it could be any of {', '.join(err.candidates)}",
            "the row must name one model of the headline table",
        ) from None


def fits(names: Reconciler, name: str) -> bool:
    try:
        return names.resolve(name) is not None
    except AmbiguousName:
        return True
