"""Records to RDF: one page becomes the triples of its named graph.

The mapper never sees page text. Values are typed ``xsd:decimal`` from the published text and
the published text itself is kept (``bg:publishedValue``), because a store may write a decimal
in canonical form (``5.0`` as ``5``) and readers need the published precision.

Where a source states a result's sample size, the mapper derives a 95% Wilson score interval for
a result that is a proportion (``ingest.wilson`` says which results are
proportions and how the bounds are rounded) and states it with terms of its own
(``bg:derivedCiLower``, ``bg:derivedCiUpper``, ``bg:derivedCiLevel``, ``bg:intervalMethod``),
never as the published ``bg:ciLower``/``bg:ciUpper``.

Units are QUDT units (``ingest.units`` folds the ways pages spell them). A unit with no QUDT
unit is kept as published: a ``bg:UnmappedUnit`` named by its normal form and labelled with the
published text, which the shapes report as a warning.
"""

from __future__ import annotations

from pyoxigraph import Literal, NamedNode, Triple

from benchgraph import iris
from benchgraph import vocab as V
from ingest import claims, units, wilson
from ingest.records import (
    AggregateRecord,
    Benchmark,
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
_TRUE = Literal("true", datatype=_XSD_BOOLEAN)
_FALSE = Literal("false", datatype=_XSD_BOOLEAN)
_DIRECTIONS = {"higher": V.HigherIsBetter, "lower": V.LowerIsBetter}
_SOURCE_KINDS = {"paper": V.Paper, "model card": V.ModelCard, "document": V.ReportingDocument}


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
    unit as published (see ``iris.unit``), or ``bg:NoUnitStated`` for a metric of a result file
    that states no unit. Raises PageError for a page's metric with a blank unit."""
    if decl.unit is None:
        return V.NoUnitStated
    if not decl.unit.strip():
        raise PageError(
            page.origin, f"metric {decl.name!r}", "no unit", "every metric states its unit"
        )
    return V.unit_iri(units.canonical(decl.unit) or decl.unit) or iris.unit(decl.unit)


def map_page(page: Page, ingested_at: str) -> list[Triple]:
    """Return the triples that describe ``page``: its source document, benchmarks, metrics,
    papers, methods, configurations, results and aggregates.

    ``ingested_at`` is the ingest time as an ``xsd:dateTime`` lexical form. Raises PageError
    when a record cannot be expressed (unknown unit, a result naming an undeclared metric).
    """
    try:
        return _map(page, ingested_at)
    except ValueError as error:  # pyoxigraph refuses an invalid IRI or literal
        raise PageError(page.origin, "", f"cannot be expressed in RDF: {error}") from None


# A metric is declared for one benchmark: (benchmark, metric name) names it within a page.
_MetricKey = tuple[Benchmark, str]


def _map(page: Page, ingested_at: str) -> list[Triple]:
    g = _Graph()
    source = iris.source(page.key)
    benches = {b: _map_benchmark(g, b) for b in page.benchmarks}
    units: dict[_MetricKey, str] = {}
    decls: dict[_MetricKey, MetricDecl] = {}
    for decl in page.metrics:
        bench = decl.benchmark or page.benchmark
        if bench is None:
            raise PageError(page.origin, f"metric {decl.name!r}", "declared for no benchmark")
        units[bench, decl.name] = _map_metric(g, page, bench, benches[bench], decl)
        decls[bench, decl.name] = decl
    _map_source(g, page, source, benches, ingested_at)
    repeated = claims.repeated_names(page)
    for record in page.results:
        bench = record.benchmark or page.benchmark
        if bench is None or (bench, record.metric) not in units:
            where = record.location or f"line {record.line}"
            raise PageError(page.origin, where, f"metric {record.metric!r} is not declared")
        unit = units[bench, record.metric]
        _map_result(g, record, source, bench, benches[bench], unit)
        _map_derived(g, record, decls[bench, record.metric])
        _map_claim(g, page, record, bench, repeated)
    for agg in page.aggregates:
        own = page.benchmark
        if own is None or (own, agg.metric) not in units:
            raise PageError(
                page.origin, f"line {agg.line}", f"metric {agg.metric!r} is not declared"
            )
        _map_aggregate(g, page, agg, source, own, benches[own], units[own, agg.metric])
    for ref in page.papers:
        _map_paper(g, ref)
    for described in page.methods:
        _map_method(g, described.name, described.origin)
        g.text(iris.method(described.name), V.alternateName, described.full_name)
    for child, parent in page.task_parents:
        g.add(iris.task(child), V.subtaskOf, iris.task(parent))
        g.add(iris.task(parent), V.type_, V.Task)
        g.text(iris.task(parent), V.label, parent)
    return list(g.triples.values())


def _map_claim(
    g: _Graph, page: Page, r: ResultRecord, b: Benchmark, repeated: set[claims.ClaimKey]
) -> None:
    """State the claim a result makes (:func:`ingest.claims.claimed`), who makes it and when."""
    result = iris.result(r.source_id)
    made = claims.claimed(page, r, b, repeated)
    if made.alone:
        g.add(result, V.nameAmbiguous, _TRUE)
    g.add(result, V.claim, made.claim)
    g.add(made.claim, V.type_, V.Claim)
    g.text(result, V.reporterRole, made.role)
    if made.reported_on:
        g.add(result, V.reportedOn, Literal(made.reported_on, datatype=_XSD_DATE))


def _map_benchmark(g: _Graph, b: Benchmark) -> str:
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
    return bench


def _map_metric(g: _Graph, page: Page, b: Benchmark, bench: str, decl: MetricDecl) -> str:
    """Describe one declared metric of benchmark ``b``; return the IRI of its unit."""
    metric = iris.metric(b, decl.name)
    g.add(bench, V.hasMetric, metric)
    g.add(metric, V.type_, V.Metric)
    g.text(metric, V.label, decl.name)
    unit = unit_of(page, decl)
    g.add(metric, V.unit, unit)
    if decl.unit is not None and not unit.startswith(V.UNIT):
        g.add(unit, V.type_, V.UnmappedUnit)
        g.text(unit, V.label, decl.unit.strip())
    if decl.direction is not None:
        g.add(metric, V.direction, _DIRECTIONS[decl.direction])
        if decl.direction_inferred:
            g.add(metric, V.directionInferred, _TRUE)
    if decl.url:
        g.add(metric, V.url, decl.url)
    if decl.chance_level is not None:
        g.add(metric, V.chanceLevel, _decimal(decl.chance_level))
    return unit


def _map_source(
    g: _Graph, page: Page, source: str, benches: dict[Benchmark, str], ingested_at: str
) -> None:
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
    for b, bench in benches.items():
        primary = page.primary_metric if b == page.benchmark else _first_metric(page, b)
        if primary is not None:
            g.add(source, V.primaryMetric, iris.metric(b, primary))
        g.add(source, V.DCTERMS + "subject", bench)
    if page.page_number is not None:
        g.add(source, V.pageNumber, _integer(page.page_number))
    if page.page_count is not None:
        g.add(source, V.pageCount, _integer(page.page_count))
    if page.checked_on:
        g.add(source, V.checkedOn, _when(page.checked_on))
    g.text(source, V.dataFreeze, page.data_freeze)
    g.text(source, V.publisherName, page.publisher)


def _first_metric(page: Page, b: Benchmark) -> str | None:
    """The first metric declared for benchmark ``b`` (a result file's other benchmarks)."""
    return next((d.name for d in page.metrics if d.benchmark == b), None)


def _map_paper(g: _Graph, ref: PaperRef) -> str:
    """Describe a reporting or origin source: a paper, a model card or another document."""
    paper = iris.paper(ref)
    g.add(paper, V.type_, _SOURCE_KINDS[ref.kind])
    g.text(paper, V.identifier, ref.source_id)
    g.text(paper, V.arxivId, ref.arxiv_id)
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


def _map_method(g: _Graph, name: str, origin: PaperRef | None) -> str:
    method = iris.method(name)
    g.add(method, V.type_, V.Method)
    g.text(method, V.label, name)
    if origin is not None:
        g.add(method, V.introducedIn, _map_paper(g, origin))
    return method


def _map_result(
    g: _Graph, r: ResultRecord, source: str, b: Benchmark, bench: str, unit: str
) -> None:
    result = iris.result(r.source_id)
    method = _map_method(g, r.method, r.origin)
    if r.implementation:
        g.add(method, V.implementation, r.implementation)

    g.add(result, V.type_, V.Result)
    g.text(result, V.identifier, r.source_id)
    g.add(result, V.method, method)
    g.add(result, V.benchmark, bench)
    g.add(result, V.metric, iris.metric(b, r.metric))
    g.add(result, V.value, _decimal(r.value))
    g.text(result, V.publishedValue, r.value)
    g.text(result, V.publishedCell, r.cell)
    g.add(result, V.unit, unit)
    g.add(result, V.reportedIn, _map_paper(g, r.reported_in))
    # As this row wrote them: a page may name one method or paper in several ways.
    g.text(result, V.publishedMethodName, r.method)
    g.text(result, V.publishedPaperTitle, r.reported_in.title)
    if r.reported_in.url:
        g.add(result, V.publishedPaperURL, r.reported_in.url)
    g.add(result, V.wasDerivedFrom, source)
    g.text(result, V.sourceTable, r.table)
    g.text(result, V.sourceLocation, r.location)
    g.add(result, V.headline, _TRUE if r.headline else _FALSE)
    if r.result_date:
        g.add(result, V.resultDate, _when(r.result_date))
    if r.configuration.recorded:
        g.add(result, V.configuration, _map_configuration(g, r.configuration))
    if r.interval is not None:
        g.add(result, V.ciLower, _decimal(r.interval.lower))
        g.add(result, V.ciUpper, _decimal(r.interval.upper))
        g.add(result, V.ciLevel, _decimal(r.interval.level))
        g.text(result, V.publishedInterval, r.interval.text)
    if r.spread is not None:
        g.add(result, V.plusMinus, _decimal(r.spread.half_width))
        g.text(result, V.plusMinusMeaning, r.spread.meaning)
    if r.sample_size is not None:
        g.add(result, V.sampleSize, _integer(r.sample_size))
    for link in r.code_links:
        g.add(result, V.codeRepository, link)
    if r.verified is not None:
        g.add(result, V.verified, _TRUE if r.verified else _FALSE)
    if r.self_reported is not None:
        g.add(result, V.developerReported, _TRUE if r.self_reported else _FALSE)


def _map_derived(g: _Graph, r: ResultRecord, decl: MetricDecl) -> None:
    """State the Wilson interval derived for a result that is a proportion of a stated number
    of items (see ``ingest.wilson``); nothing for any other result."""
    derived = wilson.derive(r.value, decl.unit, r.sample_size, r.metric, decl.direction)
    if derived is None:
        return
    result = iris.result(r.source_id)
    g.add(result, V.derivedCiLower, _decimal(derived.lower))
    g.add(result, V.derivedCiUpper, _decimal(derived.upper))
    g.add(result, V.derivedCiLevel, _decimal(derived.level))
    g.add(result, V.intervalMethod, V.WilsonScoreInterval)


def _map_aggregate(
    g: _Graph, page: Page, a: AggregateRecord, source: str, b: Benchmark, bench: str, unit: str
) -> None:
    node = iris.aggregate(a.source_id)
    g.add(node, V.type_, V.Aggregate)
    g.text(node, V.identifier, a.source_id)
    g.add(node, V.benchmark, bench)
    g.add(node, V.metric, iris.metric(b, a.metric))
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
