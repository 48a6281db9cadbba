"""sota2 pages of every shape the parser accepts, each checked figure by figure.

``tests/data/sota2/nocaps-*.md`` are one benchmark's pages (the project's own): a lower-is-better
metric in SECONDS shown over two pages (``4 of 7`` on ``Page 1 of 2``, ``3 of 7`` on
``Page 2 of 2``), and a higher-is-better metric on one page; recorded result dates,
implementation links, configurations with numbers, booleans, arrays, nulls and nested objects,
and declared metrics with no values on the page, one of them in a unit QUDT has none for.
``zero-results.md`` is a ``0 of 0`` board. The pages of the benchmark must merge in the store
into one benchmark, with its papers and methods.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path

import pyoxigraph as ox
import pytest
from support import SOTA2_SECTION as SECTION
from support import Index

from benchgraph import validation
from benchgraph import vocab as V
from benchgraph.store import Store
from ingest import sota2
from ingest.loader import ingest_file
from ingest.mapper import map_page
from ingest.records import Page

DATA = Path(__file__).resolve().parents[1] / "data" / "sota2"
PAGES = ("nocaps-latency-page-1.md", "nocaps-latency-page-2.md", "nocaps-cider.md")
NOW = "2026-12-31T00:00:00+00:00"
ROW = re.compile(r"^\| (.+) \| (\S+) \| (Not recorded|[\d-]+) \| ([0-9a-f]{24}) \|$", re.MULTILINE)
UNITS = {"SECONDS": V.UNIT + "SEC", "SCALAR": V.UNIT + "UNITLESS", "PERCENT": V.UNIT + "PERCENT"}


def unescape(text: str) -> str:
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)


def parse(name: str) -> Page:
    return sota2.parse((DATA / name).read_bytes(), name)


@pytest.mark.parametrize("name", PAGES)
def test_every_figure_matches_an_independent_scan(name: str) -> None:
    text = (DATA / name).read_text(encoding="utf-8")
    page = parse(name)
    rows, sections = ROW.findall(text), list(SECTION.finditer(text))
    assert len(rows) == len(sections) == len(page.results) == page.declared_count
    for result, row, section in zip(page.results, rows, sections, strict=True):
        assert result.source_id == section["id"]
        assert result.method == unescape(section["method"]) == unescape(row[0])
        assert result.value == section["value"] == row[1]  # as published: 0.180 stays 0.180
        assert result.result_date == (None if row[2] == "Not recorded" else row[2])
        assert result.reported_in.source_id == section["rep"] == row[3]
        assert (result.origin.source_id if result.origin else None) == section["origin"]
        assert result.implementation == section["impl"]
        config = result.configuration
        if section["config"] == "Not recorded":
            assert not config.recorded and config.raw_json is None
        else:
            assert config.raw_json == section["config"]
            published = {k: v if isinstance(v, str) else json.dumps(v, separators=(",", ":"))
                         for k, v in json.loads(section["config"]).items()}  # fmt: skip
            assert {s.key: s.value for s in config.settings} == published


def test_a_lower_is_better_board_over_two_pages() -> None:
    first, second = parse(PAGES[0]), parse(PAGES[1])
    for page, number, loaded in ((first, 1, 4), (second, 2, 3)):
        assert (page.page_number, page.page_count) == (number, 2)
        assert (page.declared_count, page.total_count) == (loaded, 7)
        assert page.metric("Latency").direction == "lower"
        values = [Decimal(r.value) for r in page.results]
        assert values == sorted(values)  # best (lowest) first
    assert first.key == "sota2/image-captioning-on-nocaps-val/latency"
    assert second.key == "sota2/image-captioning-on-nocaps-val/latency/page-2"
    assert first.coverage and first.coverage.startswith("Partial")
    assert first.benchmark == second.benchmark == parse(PAGES[2]).benchmark
    assert (first.benchmark.dataset, first.benchmark.split) == ("NoCaps", "val")
    ok, report = validation.validate_triples(map_page(first, NOW), PAGES[0])
    assert ok
    assert ("Info", validation.BGSH + "SourceDocument-coverage") in {
        (f.severity, f.shape) for f in report.findings
    }


def test_typed_and_nested_configuration_values_keep_their_json_text() -> None:
    tiny = parse(PAGES[0]).results[0]
    assert [(s.key, s.value) for s in tiny.configuration.settings] == [
        ("batch", "1"),
        ("fp16", "true"),
        ("device", '{"kind":"GPU","count":1}'),
    ]
    blip = parse(PAGES[0]).results[3]
    assert [(s.key, s.value) for s in blip.configuration.settings] == [
        ("batch", "8"),
        ("note", "null"),
    ]
    prefix = parse(PAGES[2]).results[3]
    assert prefix.method == "Prefix *Tuned* GPT"
    assert dict((s.key, s.value) for s in prefix.configuration.settings) == {
        "prefix_length": "10",
        "frozen": '{"encoder":true,"decoder":false}',
    }


def test_metrics_with_no_values_on_the_page_are_declared_with_unit_and_direction() -> None:
    page = parse(PAGES[2])
    assert {r.metric for r in page.results} == {"CIDEr"}
    assert [(m.name, m.direction, m.unit) for m in page.metrics] == [
        ("CIDEr", "higher", "SCALAR"),
        ("Latency", "lower", "SECONDS"),
        ("SPICE", "higher", "SCALAR"),
        ("BLEU-4", "higher", "PERCENT"),
        ("Hallucination rate", "lower", "PERCENT"),
        ("CHAIR-i", "lower", "CHAIR_UNITS"),
    ]
    triples = map_page(page, NOW)
    index = Index({_quad(t) for t in triples})
    by_label = {index.value(m, V.label): m for m in index.subjects_of_type(V.Metric)}
    assert {label: index.value(m, V.unit) for label, m in by_label.items()} == {
        "CIDEr": UNITS["SCALAR"],
        "Latency": UNITS["SECONDS"],
        "SPICE": UNITS["SCALAR"],
        "BLEU-4": UNITS["PERCENT"],
        "Hallucination rate": UNITS["PERCENT"],
        "CHAIR-i": V.ID + "unit/chair-units",  # kept as published
    }
    assert index.value(V.ID + "unit/chair-units", V.label) == "CHAIR_UNITS"
    ok, report = validation.validate_triples(triples, PAGES[2])
    assert ok
    (unmapped,) = [f for f in report.findings if f.shape == validation.BGSH + "UnmappedUnit"]
    assert (unmapped.severity, unmapped.kind, unmapped.name) == ("Warning", "unit", "CHAIR_UNITS")


def test_a_zero_of_zero_board_yields_its_benchmark_and_metrics() -> None:
    page = sota2.parse((DATA / "zero-results.md").read_bytes(), "zero-results.md")
    index = Index({_quad(t) for t in map_page(page, NOW)})
    assert not index.subjects_of_type(V.Result)
    assert len(index.subjects_of_type(V.Benchmark)) == 1
    assert len(index.subjects_of_type(V.Metric)) == 6
    (source,) = index.subjects_of_type(V.SourceDocument)
    assert (index.value(source, V.declaredResultCount), index.value(source, V.resultCount)) == (
        "0",
        "0",
    )


def test_the_benchmark_s_pages_merge_into_one_benchmark_with_its_papers_and_methods(
    store: Store,
) -> None:
    for name in PAGES:
        outcome = ingest_file(store, DATA / name)
        assert outcome.status == "loaded", outcome.message
    quads = set(store.quads())
    index = Index(quads)
    assert len({q.graph_name for q in quads if "/id/graph/" in str(q.graph_name)}) == 3
    (benchmark,) = index.subjects_of_type(V.Benchmark)
    assert index.value(benchmark, V.label) == "Image Captioning on NoCaps (val)"
    results = index.subjects_of_type(V.Result)
    assert len(results) == 4 + 3 + 5
    assert {index.value(r, V.benchmark) for r in results} == {benchmark}
    methods = {index.value(m, V.label): m for m in index.subjects_of_type(V.Method)}
    assert len(methods) == 7  # CapFormer-L and four more are on both metrics' pages
    capformer = methods["CapFormer-L"]
    on = {index.value(r, V.metric) for r in results if index.value(r, V.method) == capformer}
    assert {index.value(m, V.label) for m in on} == {"Latency", "CIDEr"}
    assert {o.value for o in index.objects(capformer, V.introducedIn)} == {
        V.ID + "paper/6b11aa0c0f1e2d3c4b5a6978"
    }
    assert {o.value for o in index.objects(capformer, V.implementation)} == {
        "https://github.com/example-org/capformer"
    }
    papers = index.subjects_of_type(V.Paper)
    assert {index.value(p, V.identifier) for p in papers} == {
        "6b11aa0c0f1e2d3c4b5a6978",
        "6b11aa0c0f1e2d3c4b5a6979",
        "6b22bb1d1e2f3a4b5c6d7e8f",
        "6b33cc2e2f3a4b5c6d7e8f90",
    }
    metrics = index.subjects_of_type(V.Metric)
    assert len(metrics) == 6  # declared on every page, one node each
    assert {index.value(m, V.direction) for m in metrics} == {V.HigherIsBetter, V.LowerIsBetter}


def _quad(triple: ox.Triple) -> ox.Quad:
    return ox.Quad(triple.subject, triple.predicate, triple.object, ox.DefaultGraph())
