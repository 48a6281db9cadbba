"""Every figure of a generated Radar page comes out of its graph exactly.

``bench.radar_pages`` draws a page's table layout at random (units, header words, interval
styles, subsets, conditions, aggregates, a sample under another protocol, which evidence is
printed, where the headline stands) and records each number it prints as the figure a reader
must find. Here hypothesis draws a few hundred such pages; each is rendered, read as any file is
(format sniffed), mapped to triples in memory and gated by the shapes, and every figure is looked
up in the triples: value as published and as a decimal, unit, interval, sample size, subset,
protocol, role, date, and the metric's unit and direction. Nothing else may be there.
"""

from __future__ import annotations

import random
import time
from collections import defaultdict
from decimal import Decimal

import pyoxigraph as ox
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench import radar_pages
from bench.templates import RadarFigure, RadarPage, render_radar
from benchgraph import validation
from benchgraph import vocab as V
from ingest.mapper import map_page
from ingest.reading import read_page

PAGES = 300
NOW = "2026-12-31T00:00:00+00:00"
MODELS = radar_pages.RadarModels(17)
TIMES: list[float] = []


class Graph:
    """The triples of one page as subject -> predicate -> objects."""

    def __init__(self, triples: list[ox.Triple]) -> None:
        self.out: dict[str, dict[str, list[ox.NamedNode | ox.Literal]]] = defaultdict(
            lambda: defaultdict(list)
        )
        for t in triples:
            self.out[t.subject.value][t.predicate.value].append(t.object)  # type: ignore[arg-type]

    def one(self, subject: str, predicate: str) -> str | None:
        found = self.out.get(subject, {}).get(predicate, [])
        assert len(found) <= 1, (subject, predicate, found)
        return found[0].value if found else None

    def typed(self, cls: str) -> list[str]:
        return [s for s, p in self.out.items() if ox.NamedNode(cls) in p.get(V.type_, [])]


def key(graph: Graph, node: str) -> tuple[str, str | None, str, str | None]:
    """What tells a number apart on a page: table, method, metric and subset."""
    method = graph.one(node, V.method)
    config = graph.one(node, V.configuration)
    subset = graph.one(config, V.subset) if config else graph.one(node, V.subset)
    return (
        graph.one(node, V.sourceTable) or "",
        graph.one(method, V.label) if method else None,
        graph.one(graph.one(node, V.metric) or "", V.label) or "",
        subset,
    )


def check(graph: Graph, node: str, figure: RadarFigure) -> None:
    assert graph.one(node, V.publishedValue) == figure.value
    assert Decimal(graph.one(node, V.value) or "") == Decimal(figure.value)
    assert graph.one(node, V.unit) == figure.unit
    assert graph.one(graph.one(node, V.metric) or "", V.unit) == figure.unit
    if figure.interval is None:
        assert graph.one(node, V.ciLower) is None and graph.one(node, V.ciLevel) is None
    else:
        lower, upper, level = figure.interval
        assert graph.one(node, V.publishedInterval) == f"[{lower},{upper}]"
        assert Decimal(graph.one(node, V.ciLower) or "") == Decimal(lower)
        assert Decimal(graph.one(node, V.ciUpper) or "") == Decimal(upper)
        assert Decimal(graph.one(node, V.ciLevel) or "") == Decimal(level)
    size = graph.one(node, V.sampleSize)
    assert (int(size) if size else None) == figure.sample_size


def check_result(graph: Graph, node: str, figure: RadarFigure) -> None:
    check(graph, node, figure)
    config = graph.one(node, V.configuration)
    assert (graph.one(config, V.protocol) if config else None) == figure.protocol
    assert graph.one(node, V.headline) == ("true" if figure.headline else "false")
    assert graph.one(node, V.resultDate) == figure.date


def chance_of(page: RadarPage, metric: str) -> str | None:
    if page.chance is None:
        return None
    words = "\n".join(page.chance)
    named = any(label in words for m, label in page.labels if m == metric)
    return page.chance[1].split("是")[1].rstrip("%。") if metric == page.metric or named else None


def check_page(page: RadarPage, text: str) -> None:
    origin = f"generated/{page.name}.txt"
    parsed = read_page(text.encode("utf-8"), origin)
    assert parsed.format == "radar"
    triples = map_page(parsed, NOW)
    graph = Graph(triples)
    results = {key(graph, node): node for node in graph.typed(V.Result)}
    assert len(results) == len(graph.typed(V.Result)) == len(page.figures)
    for figure in page.figures:
        node = results[(figure.table, figure.method, figure.metric, figure.subset)]
        check_result(graph, node, figure)
    aggregates = {key(graph, node): node for node in graph.typed(V.Aggregate)}
    assert len(aggregates) == len(graph.typed(V.Aggregate)) == len(page.aggregates)
    for figure in page.aggregates:
        check(graph, aggregates[(figure.table, None, figure.metric, figure.subset)], figure)
    direction = V.HigherIsBetter if page.higher else V.LowerIsBetter
    for metric in graph.typed(V.Metric):
        label = graph.one(metric, V.label) or ""
        assert graph.one(metric, V.direction) == direction
        assert graph.one(metric, V.chanceLevel) == chance_of(page, label), label
    (source,) = graph.typed(V.SourceDocument)
    assert graph.one(source, V.declaredResultCount) == str(page.headline_count)
    assert graph.one(graph.one(source, V.primaryMetric) or "", V.label) == page.metric
    assert {graph.one(p, V.label) for p in graph.typed(V.Paper)} == {page.paper}
    methods = {graph.one(m, V.label) for m in graph.typed(V.Method)}
    assert methods == set(page.models)
    conforms, report = validation.validate_triples(triples, origin)
    assert conforms, report.refusal()


@settings(
    max_examples=PAGES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.integers(min_value=0, max_value=2**32))
def test_every_figure_of_a_generated_page_is_in_its_graph(seed: int) -> None:
    started = time.perf_counter()
    page = radar_pages.radar_page(random.Random(seed), f"Gen{seed}", MODELS)
    check_page(page, render_radar(page))
    TIMES.append(time.perf_counter() - started)


def test_the_generated_pages_vary_as_the_issue_asks() -> None:
    """The layouts drawn cover every variation: units, directions, interval styles, subsets,
    conditions, aggregates, samples, optional evidence and cited documents."""
    pages = [radar_pages.radar_page(random.Random(seed), f"V{seed}", MODELS) for seed in range(200)]
    units = {f.unit.rsplit("/", 1)[1] for p in pages for f in p.figures}
    assert units >= {"PERCENT", "MilliSEC", "SEC", "NUM-PER-SEC", "UNITLESS", "NUM", "%E5%B8%A7"}
    assert {p.higher for p in pages} == {True, False}
    levels = {f.interval[2] if f.interval else None for p in pages for f in p.figures}
    assert levels == {"0.95", "0.9", None}
    headers = {h for p in pages for t in p.tables for h in t.header}
    assert any(h.endswith("［95%区间］") for h in headers) and "官方95%置信区间" in headers
    assert {"编辑类型", "输入长度", "语言", "难度", "划分"} <= headers
    assert any(p.aggregates for p in pages) and any(not p.aggregates for p in pages)
    assert any(f.protocol and not f.headline for p in pages for f in p.figures)
    assert any(f.subset and ", " in f.subset and f.protocol for p in pages for f in p.figures)
    assert {p.evidence is None for p in pages} == {True, False}
    assert {p.cited for p in pages} == {True, False} and {p.block for p in pages} == {True, False}
    assert any(not p.tables[0].title.startswith("完整评测") for p in pages)  # headline not first
    assert any("标准化主成绩序列" not in render_radar(p) for p in pages)  # found by 主成绩
