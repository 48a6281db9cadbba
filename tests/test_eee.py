"""benchgraph export --format eee: every record valid Every Eval Ever, and true to the store.

The records are written by the command in its own process over real stores on disk (the
examples and the seed pages), validated with jsonschema against the schema kept in
tests/data/eee/, and held to the store's own statements, read independently (support.Index).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import jsonschema
import pyoxigraph as ox
import pytest
from support import EXAMPLES, INGESTED_AT, REPO, SEEDS, Index, build_store, run_cli

from benchgraph import eee
from benchgraph import vocab as V
from benchgraph.cli.export import SHOWN, left_out_lines
from benchgraph.store.embedded import EmbeddedStore

SCHEMA = json.loads((REPO / "tests" / "data" / "eee" / "eval.schema.json").read_text("utf-8"))
DIRECTION = {V.LowerIsBetter: True, V.HigherIsBetter: False}


@dataclass
class Exported:
    store: Path
    records: list[dict[str, Any]]
    index: Index

    def entries(self) -> dict[str, dict[str, Any]]:
        """Each exported result (an ``evaluation_results`` item) by its result's IRI, with its
        record under ``"record"``."""
        found = {}
        for record in self.records:
            for entry in record["evaluation_results"]:
                found[entry["score_details"]["details"]["result"]] = entry | {"record": record}
        return found


def export_eee(store: Path, *args: str) -> tuple[list[dict[str, Any]], str, int]:
    done = run_cli("export", "--format", "eee", *args, store=store)
    records = [json.loads(line, parse_float=Decimal) for line in done.stdout.splitlines()]
    return records, done.stderr, done.returncode


@pytest.fixture(scope="module", params=["examples", "seeds"])
def exported(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Exported:
    pages = EXAMPLES if request.param == "examples" else SEEDS
    if not pages.is_dir():
        pytest.skip("the seed pages (../shared/seeds) are not beside this checkout")
    store = build_store(tmp_path_factory.mktemp(request.param) / "store", pages)
    records, stderr, code = export_eee(store)
    assert code == 0, stderr
    return Exported(store, records, Index(set(ox.Store.read_only(str(store)))))


def test_every_record_validates_against_the_schema(exported: Exported) -> None:
    validator = jsonschema.Draft7Validator(SCHEMA)
    assert exported.records
    for record in exported.records:
        # As a consumer reads the line: plain JSON numbers.
        plain = json.loads(json.dumps(record, default=float))
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(plain)]
        assert not errors, (record["evaluation_id"], errors)
        assert record["schema_version"] == SCHEMA["version"]


def test_every_result_is_exported_once(exported: Exported) -> None:
    counted = Counter(
        entry["score_details"]["details"]["result"]
        for record in exported.records
        for entry in record["evaluation_results"]
    )
    assert set(counted) == exported.index.subjects_of_type(V.Result)
    assert set(counted.values()) == {1}


def test_lower_is_better_is_the_metric_direction(exported: Exported) -> None:
    for entry in exported.entries().values():
        metric = entry["metric_config"]
        direction = exported.index.value(metric["metric_id"], V.direction)
        assert direction is not None
        assert metric["lower_is_better"] is DIRECTION[direction], metric["metric_id"]


def test_the_score_is_the_value_as_published_and_the_unit_is_named(exported: Exported) -> None:
    index = exported.index
    for iri, entry in exported.entries().items():
        score = entry["score_details"]["score"]
        published = index.value(iri, V.publishedValue)
        assert score == Decimal(str(index.value(iri, V.value)))
        assert str(score) == published == entry["score_details"]["details"]["published_value"]
        unit = index.value(iri, V.unit)
        names = {V.UNIT + "PERCENT": "percent", V.UNIT + "UNITLESS": "unitless"}
        assert entry["metric_config"]["metric_unit"] == names[str(unit)]
        assert entry["metric_config"]["additional_details"]["unit"] == unit


def test_a_published_interval_its_level_and_sample_size_survive(exported: Exported) -> None:
    index, entries = exported.index, exported.entries()
    with_interval = [iri for iri in entries if index.value(iri, V.ciLower) is not None]
    if exported.store.parent.name.startswith("examples"):
        assert any("/result/composet/" in iri for iri in with_interval)
    assert with_interval
    for iri in with_interval:
        entry = entries[iri]
        uncertainty = entry["score_details"]["uncertainty"]
        interval = uncertainty["confidence_interval"]
        assert interval["lower"] == Decimal(str(index.value(iri, V.ciLower)))
        assert interval["upper"] == Decimal(str(index.value(iri, V.ciUpper)))
        assert interval["confidence_level"] == Decimal(str(index.value(iri, V.ciLevel)))
        n = index.value(iri, V.sampleSize)
        assert uncertainty.get("num_samples") == (None if n is None else int(n))
        published = index.value(iri, V.publishedInterval)
        assert entry["score_details"]["details"]["published_interval"] == published


def test_a_composet_result_keeps_its_interval(exported: Exported) -> None:
    iri = V.ID + "result/composet/table-9/clip-b-32/group-accuracy/modify-color"
    entry = exported.entries()[iri]
    assert entry["score_details"]["uncertainty"] == {
        "confidence_interval": {
            "lower": Decimal("17.2"),
            "upper": Decimal("23.6"),
            "confidence_level": Decimal("0.95"),
        },
        "num_samples": 618,
    }
    assert entry["score_details"]["details"]["published_interval"] == "[17.2,23.6]"
    assert entry["generation_config"]["additional_details"]["bg:subset"] == "modify_color"


def test_first_party_when_self_reported_third_party_when_another_paper(
    exported: Exported,
) -> None:
    index = exported.index
    seen = Counter()
    for iri, entry in exported.entries().items():
        method = str(index.value(iri, V.method))
        paper = index.value(iri, V.reportedIn)
        origins = {str(o.value) for o in index.objects(method, V.introducedIn)}
        if paper in origins:
            expected = "first_party"
        elif origins:
            expected = "third_party"
        else:
            expected = "other"
        source = entry["record"]["source_metadata"]
        assert source["evaluator_relationship"] == expected, iri
        assert source["additional_details"]["reporting_paper"] == paper
        seen[expected] += 1
    assert seen["first_party"] and seen["third_party"] and seen["other"]


def test_a_configurations_settings_are_there(exported: Exported) -> None:
    index = exported.index
    checked = 0
    for iri, entry in exported.entries().items():
        configuration = index.value(iri, V.configuration)
        if configuration is None:
            assert "generation_config" not in entry
            continue
        details = entry["generation_config"]["additional_details"]
        assert details["bg:configuration"] == configuration
        for setting in index.objects(configuration, V.setting):
            key = index.value(str(setting.value), V.settingKey)
            assert details[str(key)] == index.value(str(setting.value), V.settingValue)
            checked += 1
        for predicate, name in ((V.protocol, "bg:protocol"), (V.subset, "bg:subset")):
            assert details.get(name) == index.value(configuration, predicate)
    assert checked


def test_the_source_page_and_its_times_are_there(exported: Exported) -> None:
    index = exported.index
    epoch = str(int(datetime.fromisoformat(INGESTED_AT).timestamp()))
    for iri, entry in exported.entries().items():
        record = entry["record"]
        document = str(index.value(iri, V.PROV + "wasDerivedFrom"))
        details = record["source_metadata"]["additional_details"]
        assert details["source_document"] == document
        assert details.get("source_url") == index.value(document, V.SCHEMA + "url")
        assert details["data_updated"] == index.value(document, V.modified)
        assert record["retrieved_timestamp"] == epoch
        assert record["model_info"]["id"] == index.value(iri, V.method)


def test_the_model_and_paper_are_named_as_the_rows_wrote_them(exported: Exported) -> None:
    index = exported.index
    for iri, entry in exported.entries().items():
        record = entry["record"]
        details = record["source_metadata"]["additional_details"]
        assert record["model_info"]["name"] == index.value(iri, V.publishedMethodName)
        assert details.get("reporting_paper_title") == index.value(iri, V.publishedPaperTitle)
        assert details.get("reporting_paper_url") == index.value(iri, V.publishedPaperURL)


def test_a_store_without_results_exports_nothing(tmp_path: Path) -> None:
    with EmbeddedStore(tmp_path / "store"):
        pass
    done = run_cli("export", "--format", "eee", store=tmp_path / "store")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_a_metric_without_direction_is_left_out_counted_and_exit_1(tmp_path: Path) -> None:
    store = build_store(tmp_path / "store", EXAMPLES)
    metric = V.ID + "benchmark/composet/composet/metric/group-accuracy"
    raw = ox.Store(str(store))
    undirected = list(raw.quads_for_pattern(ox.NamedNode(metric), ox.NamedNode(V.direction), None))
    assert undirected
    for quad in undirected:
        raw.remove(quad)
    raw.flush()
    del raw
    index = Index(set(ox.Store.read_only(str(store))))
    left = {r for r in index.subjects_of_type(V.Result) if index.value(r, V.metric) == metric}
    assert len(left) > 1

    out = tmp_path / "records.jsonl"
    out.write_text("the previous export\n")
    done = run_cli("export", "--format", "eee", "--out", str(out), store=store)
    assert done.returncode == 1, done.stderr
    # A summary: how many, a line per metric and benchmark with a count and an example.
    lines = done.stderr.splitlines()
    assert lines[0] == (
        f"left out: {len(left)} results whose metric states no direction (an EEE record needs "
        "lower_is_better), of 1 metric on 1 benchmark:"
    )
    (group,) = [line for line in lines if line.startswith("  Group accuracy on CompoSET")]
    assert group.split(" e.g. ")[1] in left
    assert f": {len(left)} results, e.g. " in group
    assert "--verbose" in done.stderr and "refused at ingest" in done.stderr
    assert len(lines) < len(left)  # not a line a result
    records = [json.loads(line) for line in out.read_text().splitlines()]
    exported = {
        e["score_details"]["details"]["result"] for r in records for e in r["evaluation_results"]
    }
    assert exported == index.subjects_of_type(V.Result) - left
    assert not list(tmp_path.glob(".*.part"))

    verbose = run_cli("export", "--format", "eee", "--verbose", store=store)
    assert verbose.returncode == 1, verbose.stderr
    named = {
        line.split()[1].rstrip(":")
        for line in verbose.stderr.splitlines()
        if line.startswith("  result ")
    }
    assert named == left


def test_results_left_out_are_summarised_by_metric_and_benchmark() -> None:
    """Many metrics of a Papers with Code file: the largest groups first, the rest counted, and
    what to do said for that format, never to state the direction on a page."""
    left = [
        eee.LeftOut(f"{V.ID}result/r{n}", f"{V.ID}metric/m{n % 11}", f"Metric {n % 11}",
                    f"Benchmark {n % 3}", "pwc-tables")
        for n in range(311)
    ]  # fmt: skip
    lines = left_out_lines(left, verbose=False)
    assert lines[0].startswith("left out: 311 results whose metric states no direction")
    assert "of 33 metrics on 3 benchmarks" in lines[0]  # a metric is its benchmark's
    shown = [line for line in lines if line.startswith("  Metric ")]
    assert len(shown) == SHOWN
    counts = [int(line.split(": ")[1].split()[0]) for line in shown]
    assert counts == sorted(counts, reverse=True)
    (rest,) = [line for line in lines if line.startswith("  and ")]
    assert rest == f"  and {33 - SHOWN} more metrics, {311 - sum(counts)} results\n"
    (hint,) = [line for line in lines if line.startswith("a Papers with Code tables file")]
    assert "has no field for a direction" in hint and "docs/formats.md" in hint
    assert "on the page" not in "".join(lines)
    assert len(lines) < 15 and all(len(line) < 250 for line in "".join(lines).splitlines())
    verbose = left_out_lines(left, verbose=True)
    assert len([line for line in verbose if line.startswith("  result ")]) == 311
    assert left_out_lines([], verbose=False) == []


@pytest.mark.parametrize(
    ("source_format", "said"),
    [
        ("score-file", "direction: higher_is_better"),
        ("model-index", "a model card's model-index has no field for a direction"),
        ("leaderboard-csv", "a crawled leaderboard (CSV) has no field for a direction"),
        ("sota2", "a sota2 page states each metric's direction"),
    ],
)
def test_what_to_do_fits_the_format(source_format: str, said: str) -> None:
    item = eee.LeftOut(V.ID + "result/r", V.ID + "metric/m", "m", "B", source_format)
    assert said in left_out_lines([item], verbose=False)[-1]


def test_out_holds_what_stdout_does(exported: Exported, tmp_path: Path) -> None:
    out = tmp_path / "records.jsonl"
    done = run_cli("export", "--format", "eee", "--out", str(out), store=exported.store)
    assert done.returncode == 0, done.stderr
    lines = out.read_text("utf-8").splitlines()
    assert [json.loads(line, parse_float=Decimal) for line in lines] == exported.records
    assert not list(tmp_path.glob(".*.part"))
