"""Every figure of every seed page comes out of a real on-disk store exactly.

Expectations are read from the seed text by small independent scans written here, not by
the parsers under test.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pytest
from support import SOTA2_SECTION as SECTION
from support import Index

from benchgraph import vocab as V
from benchgraph.names import normalise
from benchgraph.store import Store
from ingest.loader import ingest_file

METRIC_ITEM = re.compile(
    r"^- \[(?P<name>.+?)\]\(<.+?>\): (?P<dir>Higher|Lower) is better; unit: (?P<unit>\w+)\.$",
    re.MULTILINE,
)
QUDT = {"PERCENT": V.UNIT + "PERCENT", "SCALAR": V.UNIT + "UNITLESS", "percent": V.UNIT + "PERCENT"}
SOTA2_SEEDS = [
    "000_a0804f4946519d1b.txt",
    "001_e5e96d7d59fada78.txt",
    "003_29ccdc89561db5f0.txt",
    "004_6734d08896cb7612.txt",
]
RADAR_SEED = "002_d2512863a95936bb.txt"


def unescape(text: str) -> str:
    return re.sub(r"\\([!-/:-@\[-`{-~])", r"\1", text)


@pytest.fixture
def loaded(seeds: Path, store: Store) -> Index:
    for path in sorted(seeds.iterdir()):
        outcome = ingest_file(store, path)
        assert outcome.status == "loaded", outcome.message
    return Index(store.quads())


def result_iri(source_id: str) -> str:
    return V.ID + "result/" + source_id


@pytest.mark.parametrize("seed", SOTA2_SEEDS)
def test_every_sota2_result_is_in_the_store_exactly(seed: str, seeds: Path, loaded: Index) -> None:
    text = (seeds / seed).read_text(encoding="utf-8")
    sections = list(SECTION.finditer(text))
    declared = int(re.search(r"\| Results loaded \| (\d+) of \d+ \|", text)[1])
    scope_unit = re.search(r"^\| Unit \| (\w+) \|$", text, re.MULTILINE)[1]
    assert len(sections) == declared > 0
    for s in sections:
        iri = result_iri(s["id"])
        assert loaded.value(iri, V.type_) == V.Result
        assert loaded.value(iri, V.publishedValue) == s["value"]
        assert Decimal(loaded.value(iri, V.value)) == Decimal(s["value"])
        assert loaded.one(iri, V.value).datatype.value == V.XSD + "decimal"
        assert loaded.value(iri, V.unit) == QUDT[scope_unit]
        assert loaded.value(iri, V.identifier) == s["id"]
        metric = loaded.value(iri, V.metric)
        assert loaded.value(metric, V.label) == unescape(s["metric"])
        assert loaded.value(metric, V.unit) == QUDT[scope_unit]
        paper = loaded.value(iri, V.reportedIn)
        assert loaded.value(paper, V.identifier) == s["rep"]
        assert loaded.value(paper, V.url).endswith(f"/paper/{s['rep']}.md")
        method = loaded.value(iri, V.method)
        assert loaded.value(method, V.label) == unescape(s["method"])
        origins = {
            loaded.value(p.value, V.identifier) for p in loaded.objects(method, V.introducedIn)
        }
        assert origins == ({s["origin"]} if s["origin"] else set())
        implementations = {t.value for t in loaded.objects(method, V.implementation)}
        assert (s["impl"] in implementations) if s["impl"] else not implementations
        config = loaded.value(iri, V.configuration)
        if s["config"] == "Not recorded":
            assert config is None
        else:
            assert loaded.value(config, V.configurationJSON) == s["config"]
            settings = {
                (loaded.value(item.value, V.settingKey), loaded.value(item.value, V.settingValue))
                for item in loaded.objects(config, V.setting)
            }
            assert settings == set(json.loads(s["config"]).items())
        source = loaded.value(iri, V.wasDerivedFrom)
        assert loaded.value(source, V.declaredResultCount) == str(declared)


@pytest.mark.parametrize("seed", SOTA2_SEEDS)
def test_every_declared_metric_has_unit_and_direction(
    seed: str, seeds: Path, loaded: Index
) -> None:
    text = (seeds / seed).read_text(encoding="utf-8")
    items = list(METRIC_ITEM.finditer(text))
    assert items
    labelled = {loaded.value(m, V.label): m for m in loaded.subjects_of_type(V.Metric)}
    for item in items:
        metric = labelled[unescape(item["name"])]
        assert loaded.value(metric, V.unit) == QUDT[item["unit"]]
        expected = V.HigherIsBetter if item["dir"] == "Higher" else V.LowerIsBetter
        assert loaded.value(metric, V.direction) == expected


def test_benchmark_split_task_and_dataset(loaded: Index) -> None:
    benches = {loaded.value(b, V.label): b for b in loaded.subjects_of_type(V.Benchmark)}
    art = benches["Multimodal Generation on ART500K (test)"]
    assert loaded.value(art, V.split) == "test"
    assert loaded.value(loaded.value(art, V.dataset), V.label) == "ART500K"
    assert loaded.value(loaded.value(art, V.task), V.label) == "Multimodal Generation"
    laion = benches["Prompt Recovery on LAION"]
    coco = benches["Prompt Recovery on MS COCO"]
    assert loaded.value(laion, V.task) == loaded.value(coco, V.task)  # one task, two datasets
    assert loaded.value(laion, V.split) is None


def _tsv_rows(text: str, fields: int) -> list[tuple[list[str], int]]:
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        cells = line.split("\t")
        if len(cells) == fields:
            rows.append((cells, number))
    return rows


def _results(loaded: Index, table: str) -> list[str]:
    return [r for r in loaded.subjects_of_type(V.Result) if loaded.value(r, V.sourceTable) == table]


def _subset(loaded: Index, result: str) -> str | None:
    config = loaded.value(result, V.configuration)
    return None if config is None else loaded.value(config, V.subset)


def test_radar_headline_table(seeds: Path, loaded: Index) -> None:
    text = (seeds / RADAR_SEED).read_text(encoding="utf-8")
    expected = {
        (name, value, *ci[1:-1].split(","))
        for (name, value, ci), _ in _tsv_rows(text, 3)
        if ci.startswith("[")
    }
    assert len(expected) == 22
    found = set()
    for r in loaded.subjects_of_type(V.Result):
        if loaded.value(r, V.headline) == "true" and loaded.value(r, V.sourceTable) == "Table 8":
            method = loaded.value(r, V.method)
            found.add(
                (
                    loaded.value(method, V.label),
                    loaded.value(r, V.publishedValue),
                    *(Decimal(loaded.value(r, p)) for p in (V.ciLower, V.ciUpper)),
                )
            )
            assert loaded.value(r, V.ciLevel) == "0.95"
            assert loaded.value(r, V.unit) == V.UNIT + "PERCENT"
            paper = loaded.value(r, V.reportedIn)
            assert loaded.value(paper, V.label) == "CompoSET paper v1"
            assert loaded.value(paper, V.date) == "2026-10-30"
            protocol = loaded.value(loaded.value(r, V.configuration), V.protocol)
            assert protocol.startswith("Paper v1 Table 8;")
    normalised = {(n, v, Decimal(lo), Decimal(hi)) for n, v, lo, hi in expected}
    assert found == normalised


# The page abbreviates these headline names in its subset table.
ABBREVIATIONS = {
    "SigLIP SO400M": "SigLIP SO400M/14",
    "SigLIP-2 L/16": "SigLIP-2 L/16-384",
    "CLIP B/16 LAION-2B": "CLIP B/16 (LAION-2B)",
    "DreamLIP B/16": "DreamLIP B/16 (30M)",
    "SigLIP-2 SO400M": "SigLIP-2 SO400M/14",
    "CLIP H/14 LAION-2B": "CLIP H/14 (LAION-2B)",
}


def test_radar_subset_table(seeds: Path, loaded: Index) -> None:
    text = (seeds / RADAR_SEED).read_text(encoding="utf-8")
    rows = [
        cells for cells, _ in _tsv_rows(text, 4) if re.fullmatch(r"(modify|swap)_\w+", cells[1])
    ]
    assert len(rows) == 224
    expected = Counter()
    for name, subset, n, cell in rows:
        value, ci = cell.split(" ")
        lo, hi = ci[1:-1].split(",")
        expected[(ABBREVIATIONS.get(name, name), subset, n, value, Decimal(lo), Decimal(hi))] += 1
    found = Counter()
    for r in _results(loaded, "Table 9"):
        found[
            (
                loaded.value(loaded.value(r, V.method), V.label),
                _subset(loaded, r),
                loaded.value(r, V.sampleSize),
                loaded.value(r, V.publishedValue),
                Decimal(loaded.value(r, V.ciLower)),
                Decimal(loaded.value(r, V.ciUpper)),
            )
        ] += 1
        assert loaded.value(r, V.headline) == "false"
    assert found == expected


def test_radar_generative_and_api_tables(seeds: Path, loaded: Index) -> None:
    text = (seeds / RADAR_SEED).read_text(encoding="utf-8")
    generative = [c for c, _ in _tsv_rows(text, 5) if "(" in c[1]]
    assert len(generative) == 6
    by_key = {}
    for r in _results(loaded, "Table 11"):
        label = loaded.value(loaded.value(r, V.method), V.label)
        metric = loaded.value(loaded.value(r, V.metric), V.label)
        config = loaded.value(r, V.configuration)
        by_key[(label, metric)] = (
            loaded.value(r, V.publishedValue),
            loaded.value(config, V.protocol),
            loaded.value(r, V.sampleSize),
        )
    assert len(by_key) == 18
    for name, protocol, i2t, t2i, group in generative:
        assert by_key[(name, "I2T accuracy")] == (i2t, protocol, "200")
        assert by_key[(name, "T2I accuracy")] == (t2i, protocol, "200")
        assert by_key[(name, "Group accuracy")] == (group, protocol, "200")
    api = [c for c, _ in _tsv_rows(text, 4) if c[0] in {g[0] for g in generative}]
    assert len(api) == 3
    found = {
        (loaded.value(loaded.value(r, V.method), V.label), _subset(loaded, r)): loaded.value(
            r, V.publishedValue
        )
        for r in _results(loaded, "Table 12")
    }
    assert len(found) == 9
    for name, short, medium, long in api:
        for length, value in (("short", short), ("medium", medium), ("long", long)):
            [key] = [k for k in found if k[0] == name and k[1].endswith(f"{length} captions")]
            assert found[key] == value


def test_radar_aggregates_are_no_methods_results(seeds: Path, loaded: Index) -> None:
    text = (seeds / RADAR_SEED).read_text(encoding="utf-8")
    rows = [c for c, _ in _tsv_rows(text, 5) if re.fullmatch(r"(modify|swap)_\w+", c[0])]
    assert len(rows) == 16
    expected = Counter((edit, n, value) for edit, n, *values in rows for value in values)
    aggregates = loaded.subjects_of_type(V.Aggregate)
    found = Counter(
        (
            loaded.value(a, V.subset).split(",")[0],
            loaded.value(a, V.sampleSize),
            loaded.value(a, V.publishedValue),
        )
        for a in aggregates
    )
    assert found == expected
    for a in aggregates:
        assert not loaded.objects(a, V.method)
        assert V.Result not in {t.value for t in loaded.objects(a, V.type_)}


def test_radar_counts_methods_and_page_facts(loaded: Index) -> None:
    source = V.ID + "source/radar/composet"
    radar_results = [
        r for r in loaded.subjects_of_type(V.Result) if loaded.value(r, V.wasDerivedFrom) == source
    ]
    assert len(radar_results) == 22 + 224 + 18 + 9
    methods = {loaded.value(r, V.method) for r in radar_results}
    assert len(methods) == 28
    assert loaded.value(source, V.declaredResultCount) == "22"
    assert loaded.value(source, V.dataFreeze) == "662230d"
    assert loaded.value(source, V.checkedOn) == "2026-11-02"
    metric = loaded.value(source, V.primaryMetric)
    assert loaded.value(metric, V.label) == "Overall strict Group accuracy"
    assert loaded.value(metric, V.direction) == V.HigherIsBetter
    assert loaded.value(metric, V.unit) == V.UNIT + "PERCENT"
    assert Decimal(loaded.value(metric, V.chanceLevel)) == Decimal("16.67")


def test_papers_and_methods_merge_across_pages(loaded: Index) -> None:
    # PH2P appears on the LAION and MS COCO pages: one method, one origin paper.
    ph2p = V.ID + "method/" + normalise("PH2P")
    origins = loaded.objects(ph2p, V.introducedIn)
    assert {o.value for o in origins} == {V.ID + "paper/68fa71901e209131cea5201e"}
    results = [r for r in loaded.subjects_of_type(V.Result) if loaded.value(r, V.method) == ph2p]
    assert len(results) == 2
