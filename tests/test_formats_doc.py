"""The examples of docs/formats.md and the README's list of formats say what benchgraph makes of
the real sample files: each is ingested, and the leaderboard (and the graph) checked for what the
manual says of it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support import REPO, doc, run_cli

from benchgraph import vocab as V
from ingest.reading import read_pages

DATA = REPO.parent / "shared" / "data"
FILES = (
    DATA / "pwc" / "sota-extractor" / "ogb.json",
    DATA / "hf_model_index" / "idx19518692254__Weyaxi__Seraph-7B.yaml",
    DATA / "benchmark_radar_ktwu01" / "benchmark_scores.yml",
    DATA / "benchmark_radar_ktwu01" / "llm_stats_benchmark_scores_2026-08-17.head300.csv",
)
# What the manual says of one row of each file: the benchmark, the metric, the method, the value
# as published, its unit and direction, the reporting source's IRI and the cohort.
CLAIMS = {
    "pwc-tables": (
        "Node Property Prediction on ogbn-products (test)", "Test Accuracy", "SAGN+SLE", "0.8428",
        V.NoUnitStated, V.HigherIsBetter, V.ID + "paper/arxiv-2104.09376",
        "uses additional data=false",
    ),
    "model-index": (
        "Text Generation on AI2 Reasoning Challenge (25-Shot) (test)", "normalized accuracy",
        "Seraph-7B", "67.83", V.NoUnitStated, V.HigherIsBetter,
        V.ID + "document/open-llm-leaderboard", None,
    ),
    "score-file": (
        "mmlu on mmlu", "accuracy", "Gemini 1.5 Pro", "85.9", V.UNIT + "PERCENT",
        V.HigherIsBetter, V.ID + "document/google-gemini-1-5-report", "protocol=5-shot",
    ),
    "leaderboard-csv": (
        "AA-Briefcase on AA-Briefcase", "score", "Grok 4.6", "1577.0", V.NoUnitStated,
        V.HigherIsBetter, None, "configuration not recorded",
    ),
}  # fmt: skip


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not DATA.is_dir():
        pytest.skip("the third-party samples (../shared/data) are not beside this checkout")
    folder = tmp_path_factory.mktemp("formats") / "store"
    done = run_cli("ingest", "--store", str(folder), *map(str, FILES))
    assert done.returncode == 0, done.stderr
    # Each leaderboard of a tables file, each benchmark of a score file or crawl, is a source.
    sources = sum(len(read_pages(path.read_bytes(), str(path))) for path in FILES)
    assert sources > len(FILES)
    assert f"{sources} loaded, 0 unchanged, 0 refused" in done.stdout + done.stderr
    return folder


def leaderboard(store: Path, benchmark: str, metric: str) -> list[dict[str, str]]:
    done = run_cli(
        "query", "leaderboard", "--store", str(store), "--format", "json",
        "--param", f"benchmark={benchmark}", "--param", f"metric={metric}",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["results"]["bindings"]
    return [{k: v["value"] for k, v in row.items()} for row in rows]


@pytest.mark.parametrize("format_", sorted(CLAIMS))
def test_the_manuals_example_is_what_the_store_holds(format_: str, store: Path) -> None:
    benchmark, metric, method, value, unit, direction, source, cohort = CLAIMS[format_]
    rows = [r for r in leaderboard(store, benchmark, metric) if r["methodLabel"] == method]
    assert rows, f"{method} is not on the leaderboard of {benchmark}, {metric}"
    row = next(r for r in rows if r["value"] == value)
    assert (row["unit"], row["direction"]) == (unit, direction)
    if source is not None:
        assert row["paper"] == source
    if cohort is not None:
        assert row["cohort"] == cohort
    manual = doc("formats.md")
    assert f"`{format_}`" in manual and value in manual and method in manual


def test_a_plus_minus_of_no_stated_meaning_is_kept_beside_the_value(store: Path) -> None:
    query = (
        "PREFIX bg: <https://w3id.org/benchgraph/ns#> "
        'SELECT ?half ?meaning ?cell WHERE { ?r bg:publishedValue "0.8428" ; '
        "bg:plusMinus ?half ; bg:plusMinusMeaning ?meaning ; bg:publishedCell ?cell }"
    )
    done = run_cli("query", "--store", str(store), "--format", "csv", query)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1:] == ["0.0014,not stated,0.8428 ± 0.0014"]


def test_a_direction_from_the_table_of_names_is_marked_inferred(store: Path) -> None:
    query = (
        "PREFIX bg: <https://w3id.org/benchgraph/ns#> "
        "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> "
        "SELECT ?label ?inferred WHERE { ?b bg:hasMetric ?m ; rdfs:label ?benchmark . "
        "?m rdfs:label ?label . OPTIONAL { ?m bg:directionInferred ?inferred } "
        'FILTER (?benchmark IN ("mmlu on mmlu", '
        '"Node Property Prediction on ogbn-products (test)")) } ORDER BY ?label ?inferred'
    )
    done = run_cli("query", "--store", str(store), "--format", "csv", query)
    assert done.returncode == 0, done.stderr
    found = set(done.stdout.splitlines()[1:])
    assert "Test Accuracy,true" in found  # PWC states no direction: the table gives it
    assert "accuracy," in found and "accuracy,true" not in found  # the score file states it


def test_the_readme_lists_every_format_with_an_example() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for example in ("0.8428 ± 0.0014", '"name": "GAN"', "67.83", "85.9", "1577.0"):
        assert example in readme
    assert "docs/formats.md" in readme


def test_a_metric_of_unknown_direction_is_listed_unranked_and_compared_with_the_reason(
    store: Path,
) -> None:
    """ogb.json's "Number of params" is in no table of metric names and states no direction."""
    benchmark = "Node Property Prediction on ogbn-products"
    rows = leaderboard(store, benchmark, "Number of params")
    assert rows and all("rank" not in r and "direction" not in r for r in rows)
    assert {r["cohort"] for r in rows} == {"not ranked: the metric's direction is not known"}
    assert {r["methodLabel"]: r["value"] for r in rows}["SAGN+SLE"] == "2179678"
    done = run_cli(
        "query", "compare", "--store", str(store), "--format", "json",
        "--param", f"benchmark={benchmark}", "--param", "metric=Number of params",
        "--param", "a=SAGN+SLE", "--param", "b=Cluster-GAT",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (pair,) = json.loads(done.stdout)["results"]["bindings"]
    assert pair["comparable"]["value"] == "the metric's direction is not known"
    assert "difference" not in pair and "verdict" not in pair
