"""The tables of an AI Benchmark Radar page, read into results and aggregates.

Every table is read the same way, from its columns (``radar_columns``) and its place
(``radar_layout``): each row and value column gives one number, for the row's model (none in an
aggregate table), the column's metric, and a subset made of the row's key cells and the column's
condition; a sample-size column gives its sample size, an interval column or an interval in the
cell its confidence interval. What differs by place:

- headline: its first value column is the page's declared metric (``报告指标``) and its rows are
  the page's headline series; the evidence table gives their protocol and date;
- sample under another protocol: each row's protocol is its own; its subset is the sample
  (``200-example stratified sample``) and its sample size the title's ``N例``;
- breakdown of a sample: its models are the sample's, with their protocols;
- other tables of models: subsets and conditions of the full evaluation;
- aggregates: numbers that are no model's, recorded as such.

Short model names are mapped to the headline (or sample) names with ``names.Reconciler``.
A value column's unit is its header's (``（%）``) or else the page's; the declared metric must be
in the page's unit (``原始单位``) and a metric in one unit throughout.
"""

from __future__ import annotations

import re

from ingest.names import Reconciler
from ingest.radar_builder import (
    Builder,
    Declared,
    Reading,
    Sample,
    fits,
    resolve,
    row_keys,
    row_size,
)
from ingest.radar_columns import Column, key_phrase
from ingest.radar_evidence import Evidence, check_evidence
from ingest.radar_layout import Layout, says_sample
from ingest.radar_tables import Table
from ingest.records import (
    AggregateRecord,
    Configuration,
    PaperRef,
    Setting,
)
from ingest.text import TRUNCATED_OR_EDITED, PageText

_SAMPLE_RE = re.compile(r"(?<![0-9])([0-9]+)\s*例")  # starts at a run's first digit: linear


def read_results(
    page: PageText,
    layout: Layout,
    *,
    benchmark: str,
    paper: PaperRef,
    declared: Declared,
    released: str | None,
) -> Reading:
    """Return the records the tables of ``layout`` hold, and what was read past.

    The headline table must have ``declared.count`` rows; the evidence table, when there is one,
    must agree with it. ``released`` (the evidence block's release date) dates the headline
    results when no evidence table does. Raises PageError for any disagreement, malformed cell,
    duplicate row, unit that contradicts the page's, or model name that cannot be reconciled.
    """
    headline = layout.headline
    if len(headline.rows) != declared.count:
        raise page.error(
            headline.line,
            f"the page declares {declared.count} results but its headline table has "
            f"{len(headline.rows)} rows",
            TRUNCATED_OR_EDITED,
        )
    first = headline.of_kind("value")[0]
    build = Builder(page, benchmark, paper, declared, first.label)
    values = _headline_values(build, headline, first)
    evidence = (
        check_evidence(page, layout.evidence, values, declared.unit, paper)
        if layout.evidence
        else {}
    )
    _headline(build, headline, evidence, released)
    known = list(values)
    headline_names = Reconciler(known)
    samples = [_sample(build, table, headline_names) for table in layout.samples]
    extra = [m for s in samples for m in s.protocols if m not in values]
    names = Reconciler(known + list(dict.fromkeys(extra)))
    for table in layout.tables:
        _of_models(build, table, names, headline_names, samples)
    for table in layout.aggregates:
        _aggregate(build, table)
    return build.read


# --- one function per place ----------------------------------------------------------------


def _headline_values(build: Builder, table: Table, first: Column) -> dict[str, tuple[int, str]]:
    """Line and value text per headline model, checking names are present and distinct."""
    model = table.first("model")
    assert model is not None
    values: dict[str, tuple[int, str]] = {}
    for line, cells in table.rows:
        name = cells[model.index]
        if not name or name in values:
            raise build.page.error(
                line, f"empty or repeated model name {name!r} in the headline table"
            )
        values[name] = (line, build.cell(table, cells, first, line)[0])
    return values


def _headline(build: Builder, table: Table, evidence: Evidence, released: str | None) -> None:
    model, protocol_column = table.first("model"), table.first("protocol")
    assert model is not None
    values = build.values(table, headline=True)
    keys = table.of_kind("key")
    for line, cells in table.rows:
        name = cells[model.index]
        protocol, date = evidence.get(name, (None, released))
        if protocol_column is not None:
            protocol = cells[protocol_column.index] or protocol
        settings = tuple(Setting(c.header, cells[c.index]) for c in keys if cells[c.index])
        for position, value in enumerate(values):
            build.result(
                table,
                line,
                name,
                value,
                cells,
                sample_size=row_size(build, table, cells, line),
                result_date=date,
                configuration=Configuration(settings=settings, protocol=protocol),
                headline=position == 0,
            )


def _sample_of(build: Builder, table: Table) -> tuple[str | None, int | None]:
    """The sample a table is about (``200-example stratified sample``) and its size, from the
    ``N例`` of its title or introduction; (None, None) when the page gives no size."""
    found = _SAMPLE_RE.search(table.title) or _SAMPLE_RE.search(table.context)
    if not found:
        return None, None
    size = build.page.number(table.line - 1, found[1], "the sample size")
    kind = "stratified sample" if "分层" in table.title + table.context else "sample"
    return f"{found[1]}-example {kind}", size


def _sample(build: Builder, table: Table, headline: Reconciler) -> Sample:
    """Add the results of a table scored by another protocol; return its sample."""
    model, protocol_column = table.first("model"), table.first("protocol")
    assert model is not None and protocol_column is not None
    label, size = _sample_of(build, table)
    values = build.values(table)
    protocols: dict[str, str] = {}
    for line, cells in table.rows:
        name = cells[model.index]
        method = resolve(build, table, name, headline, line) or name
        protocol = cells[protocol_column.index]
        if not protocol:
            raise build.page.error(line, f"no scoring protocol for {name!r} in {table.where}")
        protocols[method] = protocol
        keys = row_keys(build, table, cells, line)
        own = row_size(build, table, cells, line)
        for value in values:
            subset = _subset([label, *keys, value.condition])
            build.result(
                table,
                line,
                method,
                value,
                cells,
                sample_size=own if own is not None else size,
                configuration=Configuration(protocol=protocol, subset=subset),
                headline=False,
            )
    return Sample(table, Reconciler(list(protocols)), protocols, label, size)


def _bound(
    build: Builder, table: Table, headline: Reconciler, samples: list[Sample]
) -> Sample | None:
    """The sample ``table`` breaks down, if any: the page says so (``小样本``) or its models are
    a sample's and none is a headline model. Raises PageError when the page says so but a
    model is not in the sample."""
    model = table.first("model")
    assert model is not None
    if not samples:
        return None
    names = [(line, cells[model.index]) for line, cells in table.rows]
    whole = [s for s in samples if all(fits(s.names, name) for _, name in names)]
    if says_sample(table.context):
        if whole:
            return whole[0]
        best = max(samples, key=lambda s: sum(fits(s.names, name) for _, name in names))
        line, name = next((line, name) for line, name in names if not fits(best.names, name))
        raise build.page.error(
            line,
            f"model {name!r} in {table.where} is not a model of {best.table.where}, "
            "the sample this table breaks down",
            "the page says the table breaks down a sample (小样本): it lists the sample's models",
        )
    if whole and not any(fits(headline, name) for _, name in names):
        return whole[0]
    return None


def _of_models(
    build: Builder, table: Table, names: Reconciler, headline: Reconciler, samples: list[Sample]
) -> None:
    """Add the results of a table of models: subsets, conditions, or a sample's breakdown."""
    model = table.first("model")
    assert model is not None
    sample = _bound(build, table, headline, samples)
    values = build.values(table)
    for line, cells in table.rows:
        name = cells[model.index]
        if sample is not None:
            method = resolve(build, table, name, sample.names, line) or ""  # fits: see _bound
            protocol, prefix = sample.protocols[method], sample.label
        else:
            method = resolve(build, table, name, names, line) or _new(build, table, name, line)
            protocol, prefix = None, None
        keys = row_keys(build, table, cells, line)
        size = row_size(build, table, cells, line)
        for value in values:
            build.result(
                table,
                line,
                method,
                value,
                cells,
                sample_size=size,
                configuration=Configuration(
                    protocol=protocol, subset=_subset([prefix, *keys, value.condition])
                ),
                headline=False,
            )


def _new(build: Builder, table: Table, name: str, line: int) -> str:
    """A model no headline or sample row names: read as a model of its own, with a warning."""
    build.read.warnings.append(
        build.page.warning(
            line,
            f"model {name!r} in {table.where} matches no model of the headline table "
            "or of a sample: read as a model of its own",
            "a short name stands for the one headline name it begins",
        )
    )
    return name


def _aggregate(build: Builder, table: Table) -> None:
    """Add the aggregates of a table with no model column: numbers that are no model's."""
    values = build.values(table)
    kind = "Median" if "中位数" in table.context else "Mean"
    if not any(word in table.context for word in ("平均", "均值", "中位数")):
        kind = "Aggregate"
    key_columns = table.of_kind("key")
    for line, cells in table.rows:
        keys = row_keys(build, table, cells, line)
        size = row_size(build, table, cells, line)
        phrase = " and ".join(key_phrase(c.header, cells[c.index]) for c in key_columns)
        for value in values:
            published, interval = build.cell(table, cells, value.column, line)
            subset = _subset([*keys, value.condition])
            about = f"{phrase} with {value.condition}" if value.condition else phrase
            build.read.aggregates.append(
                AggregateRecord(
                    source_id=build.key(table.name, "aggregate", value.metric, subset, line),
                    metric=value.metric,
                    value=published,
                    subset=subset,
                    sample_size=size,
                    interval=interval,
                    table=table.name,
                    line=line,
                    description=f"{kind} {value.metric} over the models of {table.name} for "
                    f"{about}; not any single model's score.",
                )
            )


def _subset(parts: list[str | None]) -> str | None:
    """The subset a number is about: its sample, key cells and condition, joined by ', '."""
    found = [part for part in parts if part]
    return ", ".join(found) if found else None
