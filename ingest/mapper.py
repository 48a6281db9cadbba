"""Records to RDF: one page becomes the triples of its named graph.

The mapper never sees page text. Values are typed ``xsd:decimal`` from the published text and
the published text itself is kept (``bg:publishedValue``), because a store may write a decimal
in canonical form (``5.0`` as ``5``) and readers need the published precision.

Units are QUDT units (``ingest.units`` folds the ways pages spell them). A unit with no QUDT
unit is kept as published: a ``bg:UnmappedUnit`` named by its normal form and labelled with the
published text, which the shapes report as a warning.
"""

from __future__ import annotations

from pyoxigraph import Literal, NamedNode, Triple

from benchgraph import iris
from benchgraph import vocab as V
from ingest import units
from ingest.records import (
    AggregateRecord,
    Configuration,
    MetricDecl,
    Page,
    PageError,
    PaperRef,
    ResultRecord,
)

_XSD_DECIMAL = NamedNode(V.XSD + "decimal")
_XSD_INTEGER = NamedNode(V.XSD + "integer")
_XSD_DATE = NamedNode(V.XSD + "date")
_XSD_DATETIME = NamedNode(V.XSD + "dateTime")
_XSD_BOOLEAN = NamedNode(V.XSD + "boolean")
_RDF_JSON = NamedNode(V.JSON)
_DIRECTIONS = {"higher": V.HigherIsBetter, "lower": V.LowerIsBetter}


def _iri(value: str) -> NamedNode:
    return NamedNode(value)


def _decimal(text: str) -> Literal:
    return Literal(text, datatype=_XSD_DECIMAL)


def _integer(number: int) -> Literal:
    return Literal(str(number), datatype=_XSD_INTEGER)


def _when(text: str) -> Literal:
    return Literal(text, datatype=_XSD_DATETIME if "T" in text else _XSD_DATE)


class _Graph:
    """Collects the triples of one page, without duplicates, in insertion order. A page names
    its benchmark, methods and papers again and again: each IRI becomes a term once, and a
    triple already added is not built again."""

    def __init__(self) -> None:
        self.triples: dict[tuple[str, str, NamedNode | Literal | str], Triple] = {}
        self._nodes: dict[str, NamedNode] = {}

    def _node(self, value: str) -> NamedNode:
        found = self._nodes.get(value)
        if found is None:
            found = self._nodes[value] = _iri(value)
        return found

    def add(self, s: str, p: str, o: NamedNode | Literal | str) -> None:
        key = (s, p, o)
        if key not in self.triples:
            obj = self._node(o) if isinstance(o, str) else o
            self.triples[key] = Triple(self._node(s), self._node(p), obj)

    def text(self, s: str, p: str, value: str | None) -> None:
        if value is not None and value != "":
            self.add(s, p, Literal(value))


def unit_of(page: Page, decl: MetricDecl) -> str:
    """The QUDT unit IRI of a declared metric, or for a unit QUDT has none for, the IRI of the
    unit as published (see ``iris.unit``). Raises PageError for a metric with no unit."""
    if not decl.unit.strip():
        raise PageError(
            page.origin, f"metric {decl.name!r}", "no unit", "every metric states its unit"
        )
    return V.unit_iri(units.canonical(decl.unit) or decl.unit) or iris.unit(decl.unit)


def map_page(page: Page, ingested_at: str) -> list[Triple]:
    """Return the triples that describe ``page``: its source document, benchmark, metrics,
    papers, methods, configurations, results and aggregates.

    ``ingested_at`` is the ingest time as an ``xsd:dateTime`` lexical form. Raises PageError
    when a record cannot be expressed (unknown unit, a result naming an undeclared metric).
    """
    try:
        return _map(page, ingested_at)
    except ValueError as error:  # pyoxigraph refuses an invalid IRI or literal
        raise PageError(page.origin, "", f"cannot be expressed in RDF: {error}") from None


def _map(page: Page, ingested_at: str) -> list[Triple]:
    g = _Graph()
    source = iris.source(page.key)
    bench = _map_benchmark(g, page)
    units = {decl.name: unit_of(page, decl) for decl in page.metrics}
    _map_source(g, page, source, bench, ingested_at)
    for record in page.results:
        if record.metric not in units:
            raise PageError(
                page.origin, f"line {record.line}", f"metric {record.metric!r} is not declared"
            )
        _map_result(g, page, record, source, bench, units[record.metric])
    for agg in page.aggregates:
        if agg.metric not in units:
            raise PageError(
                page.origin, f"line {agg.line}", f"metric {agg.metric!r} is not declared"
            )
        _map_aggregate(g, page, agg, source, bench, units[agg.metric])
    return list(g.triples.values())


def _map_benchmark(g: _Graph, page: Page) -> str:
    b = page.benchmark
    bench = iris.benchmark(b)
    task, dataset = iris.task(b.task), iris.dataset(b.dataset)
    g.add(bench, V.type_, V.Benchmark)
    label = f"{b.task} on {b.dataset}" + (f" ({b.split})" if b.split else "")
    g.text(bench, V.label, label)
    g.add(bench, V.task, task)
    g.add(bench, V.dataset, dataset)
    g.text(bench, V.split, b.split)
    g.add(task, V.type_, V.Task)
    g.text(task, V.label, b.task)
    g.add(dataset, V.type_, V.Dataset)
    g.text(dataset, V.label, b.dataset)
    for decl in page.metrics:
        metric = iris.metric(b, decl.name)
        g.add(bench, V.hasMetric, metric)
        g.add(metric, V.type_, V.Metric)
        g.text(metric, V.label, decl.name)
        unit = unit_of(page, decl)
        g.add(metric, V.unit, unit)
        if not unit.startswith(V.UNIT):
            g.add(unit, V.type_, V.UnmappedUnit)
            g.text(unit, V.label, decl.unit.strip())
        g.add(metric, V.direction, _DIRECTIONS[decl.direction])
        if decl.url:
            g.add(metric, V.url, decl.url)
        if decl.chance_level is not None:
            g.add(metric, V.chanceLevel, _decimal(decl.chance_level))
    return bench


def _map_source(g: _Graph, page: Page, source: str, bench: str, ingested_at: str) -> None:
    g.add(source, V.type_, V.SourceDocument)
    g.text(source, V.identifier, page.key)
    g.text(source, V.title, page.title)
    g.text(source, V.description, page.description)
    if page.url:
        g.add(source, V.url, page.url)
    if page.data_updated:
        g.add(source, V.modified, _when(page.data_updated))
    g.add(source, V.generatedAtTime, Literal(ingested_at, datatype=_XSD_DATETIME))
    g.text(source, V.sourceFormat, page.format)
    g.text(source, V.sha256, page.sha256)
    g.add(source, V.declaredResultCount, _integer(page.declared_count))
    g.add(source, V.resultCount, _integer(len(page.results)))
    if page.total_count is not None:
        g.add(source, V.totalResultCount, _integer(page.total_count))
    g.text(source, V.coverage, page.coverage)
    g.add(source, V.primaryMetric, iris.metric(page.benchmark, page.primary_metric))
    g.add(source, V.DCTERMS + "subject", bench)
    if page.page_number is not None:
        g.add(source, V.pageNumber, _integer(page.page_number))
    if page.page_count is not None:
        g.add(source, V.pageCount, _integer(page.page_count))
    if page.checked_on:
        g.add(source, V.checkedOn, _when(page.checked_on))
    g.text(source, V.dataFreeze, page.data_freeze)
    g.text(source, V.publisherName, page.publisher)


def _map_paper(g: _Graph, ref: PaperRef) -> str:
    paper = iris.paper(ref)
    g.add(paper, V.type_, V.Paper)
    g.text(paper, V.identifier, ref.source_id)
    g.text(paper, V.label, ref.title)
    if ref.url:
        g.add(paper, V.url, ref.url)
    if ref.date:
        g.add(paper, V.date, _when(ref.date))
    return paper


def _map_configuration(g: _Graph, config: Configuration) -> str:
    node = iris.configuration(config)
    g.add(node, V.type_, V.EvaluationConfiguration)
    for index, setting in enumerate(config.settings, start=1):
        item = f"{node}/setting/{index}"
        g.add(node, V.setting, item)
        g.add(item, V.type_, V.Setting)
        g.text(item, V.settingKey, setting.key)
        g.text(item, V.settingValue, setting.value)
    if config.raw_json is not None:
        g.add(node, V.configurationJSON, Literal(config.raw_json, datatype=_RDF_JSON))
    g.text(node, V.protocol, config.protocol)
    g.text(node, V.subset, config.subset)
    return node


def _map_result(g: _Graph, page: Page, r: ResultRecord, source: str, bench: str, unit: str) -> None:
    result = iris.result(r.source_id)
    method = iris.method(r.method)
    g.add(method, V.type_, V.Method)
    g.text(method, V.label, r.method)
    if r.origin is not None:
        g.add(method, V.introducedIn, _map_paper(g, r.origin))
    if r.implementation:
        g.add(method, V.implementation, r.implementation)

    g.add(result, V.type_, V.Result)
    g.text(result, V.identifier, r.source_id)
    g.add(result, V.method, method)
    g.add(result, V.benchmark, bench)
    g.add(result, V.metric, iris.metric(page.benchmark, r.metric))
    g.add(result, V.value, _decimal(r.value))
    g.text(result, V.publishedValue, r.value)
    g.add(result, V.unit, unit)
    g.add(result, V.reportedIn, _map_paper(g, r.reported_in))
    g.add(result, V.wasDerivedFrom, source)
    g.text(result, V.sourceTable, r.table)
    g.add(result, V.headline, Literal("true" if r.headline else "false", datatype=_XSD_BOOLEAN))
    if r.result_date:
        g.add(result, V.resultDate, _when(r.result_date))
    if r.configuration.recorded:
        g.add(result, V.configuration, _map_configuration(g, r.configuration))
    if r.interval is not None:
        g.add(result, V.ciLower, _decimal(r.interval.lower))
        g.add(result, V.ciUpper, _decimal(r.interval.upper))
        g.add(result, V.ciLevel, _decimal(r.interval.level))
        g.text(result, V.publishedInterval, r.interval.text)
    if r.sample_size is not None:
        g.add(result, V.sampleSize, _integer(r.sample_size))


def _map_aggregate(
    g: _Graph, page: Page, a: AggregateRecord, source: str, bench: str, unit: str
) -> None:
    node = iris.aggregate(a.source_id)
    g.add(node, V.type_, V.Aggregate)
    g.text(node, V.identifier, a.source_id)
    g.add(node, V.benchmark, bench)
    g.add(node, V.metric, iris.metric(page.benchmark, a.metric))
    g.add(node, V.value, _decimal(a.value))
    g.text(node, V.publishedValue, a.value)
    g.add(node, V.unit, unit)
    g.text(node, V.description, a.description)
    g.text(node, V.subset, a.subset)
    g.text(node, V.sourceTable, a.table)
    if a.interval is not None:
        g.add(node, V.ciLower, _decimal(a.interval.lower))
        g.add(node, V.ciUpper, _decimal(a.interval.upper))
        g.add(node, V.ciLevel, _decimal(a.interval.level))
        g.text(node, V.publishedInterval, a.interval.text)
    if a.sample_size is not None:
        g.add(node, V.sampleSize, _integer(a.sample_size))
    g.add(node, V.wasDerivedFrom, source)
    if page.reporting_paper is not None:
        g.add(node, V.reportedIn, _map_paper(g, page.reporting_paper))
