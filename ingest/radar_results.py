"""The tables of an AI Benchmark Radar page, read into results and aggregates.

Each kind of table (see ``radar_tables``) has its own reader:

- headline: one overall score per model with a 95% interval (the page's declared series);
- subset: per model and edit type, with the pooled sample size;
- aggregate: means over models per edit type and caption length (not any model's score);
- generative: a small sample scored by a different protocol (I2T, T2I and Group);
- by caption length: the generative sample split by caption length;
- evidence: model, value, unit, protocol, date and source, which must agree with the headline.

Short model names in the secondary tables are mapped to the headline (or generative) names with
``names.Reconciler``. Anything that cannot be accounted for raises ``PageError``.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field
from decimal import Decimal

from ingest.names import AmbiguousName, Reconciler, normalise
from ingest.radar_tables import Table, required
from ingest.records import AggregateRecord, Configuration, Interval, PaperRef, ResultRecord
from ingest.text import TRUNCATED, TRUNCATED_OR_EDITED, PageText

GROUP = "Group accuracy"
I2T = "I2T accuracy"
T2I = "T2I accuracy"
LENGTHS = ("short", "medium", "long")

DECIMAL = r"-?[0-9]+(?:\.[0-9]+)?"
_DECIMAL_RE = re.compile(rf"^{DECIMAL}$")
_INTERVAL_RE = re.compile(rf"^\[\s*({DECIMAL})\s*,\s*({DECIMAL})\s*\]$")
_COUNT_RE = re.compile(r"^(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)$")
_SAMPLE_RE = re.compile(r"(?<![0-9])([0-9]+)\s*例")  # starts at a run's first digit: linear


@dataclass
class _Builder:
    """Collects records for one page and keeps their source IDs unique."""

    page: PageText
    benchmark: str
    paper: PaperRef
    results: list[ResultRecord] = field(default_factory=list)
    aggregates: list[AggregateRecord] = field(default_factory=list)
    _ids: set[str] = field(default_factory=set)

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

    def result(
        self,
        table: Table,
        line: int,
        method: str,
        metric: str,
        value: str,
        *,
        configuration: Configuration | None = None,
        interval: Interval | None = None,
        sample_size: int | None = None,
        result_date: str | None = None,
        headline: bool = False,
    ) -> None:
        config = configuration or Configuration()
        self.results.append(
            ResultRecord(
                source_id=self.key(table.name, method, metric, config.subset, line),
                method=method,
                metric=metric,
                value=value,
                reported_in=self.paper,
                result_date=result_date,
                configuration=config,
                interval=interval,
                sample_size=sample_size,
                table=table.name,
                headline=headline,
                line=line,
            )
        )


# --- all tables ----------------------------------------------------------------------------


def read_results(
    page: PageText,
    tables: dict[str, Table],
    *,
    benchmark: str,
    paper: PaperRef,
    metric: str,
    unit: str,
    declared: int,
) -> tuple[list[ResultRecord], list[AggregateRecord]]:
    """Return the results and the aggregates that ``tables`` hold, in the order they are read.

    ``tables`` must hold a headline table; it must have ``declared`` rows in ``metric``, and
    the evidence table must agree with it (values, ``unit`` and the reporting ``paper``).
    Raises PageError for any disagreement, malformed cell, duplicate row or model name that
    cannot be reconciled.
    """
    build = _Builder(page, benchmark, paper)
    headline = tables["headline"]
    if len(headline.rows) != declared:
        raise page.error(
            headline.line,
            f"the page declares {declared} results but its headline table has "
            f"{len(headline.rows)} rows",
            TRUNCATED_OR_EDITED,
        )
    values = _headline_values(page, headline)
    evidence = required(tables, "evidence", page)
    agreed = _check_evidence(page, evidence, values, unit, paper)
    _headline(build, headline, metric, agreed)
    known = list(values)
    generative = tables.get("generative")
    protocols = _generative(build, generative, Reconciler(known)) if generative else {}
    names = Reconciler(known + [model for model in protocols if model not in known])
    if "subset" in tables:
        _subset(build, tables["subset"], names)
    if "aggregate" in tables:
        _aggregate(build, tables["aggregate"])
    if "by-length" in tables:
        if not generative:
            raise page.error(
                tables["by-length"].line,
                "a caption-length table without the generative sample table",
                "its rows break down the generative sample",
            )
        _by_length(build, tables["by-length"], generative, names, protocols)
    return build.results, build.aggregates


# --- cells ---------------------------------------------------------------------------------


def read_date(page: PageText, text: str, line: int) -> str:
    """Return ``text`` when it is an ISO calendar date; raise PageError at ``line`` if not."""
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        raise page.error(line, f"not a date: {text!r}", "dates are written YYYY-MM-DD") from None
    return text


def _decimal(page: PageText, cell: str, line: int) -> str:
    if not _DECIMAL_RE.match(cell):
        raise page.error(
            line,
            f"not a decimal number: {cell!r}",
            "values are published as plain decimals such as 13.5",
        )
    return cell


def _interval(page: PageText, cell: str, line: int) -> Interval:
    found = _INTERVAL_RE.match(cell)
    if not found:
        raise page.error(line, f"not an interval '[lower,upper]': {cell!r}")
    if Decimal(found[1]) > Decimal(found[2]):
        raise page.error(line, f"interval {cell} has lower > upper")
    return Interval(lower=found[1], upper=found[2], level="0.95", text=cell)


def _count(page: PageText, cell: str, line: int) -> int:
    digits = cell.replace(",", "")
    count = int(digits) if _COUNT_RE.match(cell) and len(digits) <= 9 else 0
    if count <= 0:
        raise page.error(line, f"not a positive sample size: {cell!r}")
    return count


def _canonical(
    page: PageText, name: str, known: Reconciler, line: int, kind: str, new: bool = False
) -> str:
    """The known model that ``name`` stands for; ``name`` itself if none and ``new``.

    Raises PageError when ``name`` fits several known models, or none and not ``new``.
    """
    try:
        found = known.resolve(name)
    except AmbiguousName as err:
        raise page.error(
            line,
            f"model {name!r} in the {kind} table is "
            f"ambiguous: it could be any of {', '.join(err.candidates)}",
            "the row must name one model of the full evaluation",
        ) from None
    if found is None and new and name:
        return name
    if found is None:
        raise page.error(
            line,
            f"model {name!r} in the {kind} table matches no "
            "model of the full evaluation or the generative sample",
            "a model outside the full evaluation is suspicious here",
        )
    return found


# --- one function per table kind -----------------------------------------------------------


def _headline_values(page: PageText, table: Table) -> dict[str, tuple[int, str]]:
    """Line and value text per headline model, checking names are present and distinct."""
    values: dict[str, tuple[int, str]] = {}
    for line, (model, value, _) in table.rows:
        if not model or model in values:
            raise page.error(line, f"empty or repeated model name {model!r} in the headline table")
        values[model] = (line, _decimal(page, value, line))
    return values


def _check_evidence(
    page: PageText,
    evidence: Table,
    values: dict[str, tuple[int, str]],
    unit: str,
    paper: PaperRef,
) -> dict[str, tuple[str, str]]:
    """Protocol and date per headline model, after checking the evidence table agrees."""
    found: dict[str, tuple[str, str]] = {}
    for line, (model, value, row_unit, protocol, dated, source) in evidence.rows:
        if model in found:
            raise page.error(line, f"model {model!r} appears twice in the evidence table")
        if model not in values:
            raise page.error(
                line, f"evidence row for {model!r}, which is not in the headline table"
            )
        if value != values[model][1]:
            raise page.error(
                line,
                f"evidence value {value} for {model!r} "
                f"differs from the headline value {values[model][1]} "
                f"(line {values[model][0]})",
            )
        if row_unit != unit:
            raise page.error(
                line,
                f"evidence unit {row_unit!r} for {model!r} differs from the page's unit {unit!r}",
            )
        if source.split(" · ")[0].strip() != paper.title:
            raise page.error(
                line, f"evidence source {source!r} is not the reporting paper {paper.title!r}"
            )
        found[model] = (protocol, read_date(page, dated.split(" · ")[0].strip(), line))
    missing = [model for model in values if model not in found]
    if missing:
        raise page.error(
            evidence.line,
            f"headline model {missing[0]!r} has no "
            f"row in the evidence table ({len(found)} of {len(values)} rows)",
            TRUNCATED,
        )
    return found


def _headline(
    build: _Builder, table: Table, metric: str, evidence: dict[str, tuple[str, str]]
) -> None:
    for line, (model, value, interval) in table.rows:
        protocol, date = evidence[model]
        build.result(
            table,
            line,
            model,
            metric,
            value,
            interval=_interval(build.page, interval, line),
            result_date=date,
            configuration=Configuration(protocol=protocol),
            headline=True,
        )


def _subset(build: _Builder, table: Table, known: Reconciler) -> None:
    page = build.page
    for line, (model, edit, n, cell) in table.rows:
        if not edit:
            raise page.error(line, "no edit type in a subset row")
        value, bracket, bounds = cell.partition("[")
        if not bracket:
            raise page.error(
                line, f"no interval in {cell!r}", "subset cells read '<value> [lower,upper]'"
            )
        build.result(
            table,
            line,
            _canonical(page, model, known, line, "subset"),
            GROUP,
            _decimal(page, value.strip(), line),
            interval=_interval(page, bracket + bounds, line),
            sample_size=_count(page, n, line),
            configuration=Configuration(subset=edit),
            headline=False,
        )


def _aggregate(build: _Builder, table: Table) -> None:
    page = build.page
    for line, (edit, n, *values) in table.rows:
        size = _count(page, n, line)
        for length, value in zip(LENGTHS, values, strict=True):
            subset = f"{edit}, {length} captions"
            build.aggregates.append(
                AggregateRecord(
                    source_id=build.key(table.name, "aggregate", GROUP, subset, line),
                    metric=GROUP,
                    value=_decimal(page, value, line),
                    subset=subset,
                    sample_size=size,
                    table=table.name,
                    line=line,
                    description=f"Mean {GROUP} over the models of {table.name} for {edit} edits "
                    f"with {length} captions; not any single model's score.",
                )
            )


def _sample(page: PageText, table: Table) -> tuple[str, int]:
    found = _SAMPLE_RE.search(table.title)
    if not found:
        raise page.error(
            table.line - 1,
            f"the generative table's title gives no sample size ('N例'): {table.title!r}",
        )
    size = page.number(table.line - 1, found[1], "the generative sample size")
    return f"{found[1]}-example stratified sample", size


def _generative(build: _Builder, table: Table, headline: Reconciler) -> dict[str, str]:
    """Add the generative sample's results; return each canonical model's scoring protocol."""
    page = build.page
    subset, size = _sample(page, table)
    protocols: dict[str, str] = {}
    for line, (model, protocol, i2t, t2i, group) in table.rows:
        method = _canonical(page, model, headline, line, "generative", new=True)
        if not protocol:
            raise page.error(line, f"no scoring protocol for {model!r}")
        protocols[method] = protocol
        config = Configuration(protocol=protocol, subset=subset)
        for metric, value in ((I2T, i2t), (T2I, t2i), (GROUP, group)):
            build.result(
                table,
                line,
                method,
                metric,
                _decimal(page, value, line),
                configuration=config,
                sample_size=size,
                headline=False,
            )
    return protocols


def _by_length(
    build: _Builder, table: Table, generative: Table, known: Reconciler, protocols: dict[str, str]
) -> None:
    page = build.page
    sample, _ = _sample(page, generative)
    for line, (model, *values) in table.rows:
        method = _canonical(page, model, known, line, "caption-length")
        if method not in protocols:
            raise page.error(
                line,
                f"{method!r} has no row in the generative sample table",
                "this table breaks down that sample",
            )
        for length, value in zip(LENGTHS, values, strict=True):
            config = Configuration(
                protocol=protocols[method], subset=f"{sample}, {length} captions"
            )
            build.result(
                table,
                line,
                method,
                GROUP,
                _decimal(page, value, line),
                configuration=config,
                headline=False,
            )
