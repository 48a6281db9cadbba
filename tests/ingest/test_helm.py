"""HELM stats.json files loaded by the real command into a store on disk: every metric of the
sample against an independent scan of the file, the run's bookkeeping kept out with a warning,
perturbed statistics apart from unperturbed ones, num_instances as the sample size, one source
per run, sniffing apart from the other JSON formats, bad input refused or skipped."""

from __future__ import annotations

import json
import shutil
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from support import REPO, Index, leaderboard, run_cli

from benchgraph import vocab as V
from ingest import eee_records, helm, lm_eval, mteb
from ingest.reading import read_pages
from ingest.records import PageError

RUN = "mmlu:subject=philosophy,method=multiple_choice_joint,model=openai_gpt2"
FOLDER = REPO / "tests" / "data" / "helm" / RUN
STATS = FOLDER / "stats.json"
SPEC = FOLDER / "run_spec.json"
KEPT_OUT = ("num_", "finish_reason_")
KEPT_OUT_NAMES = {"inference_runtime", "max_prob", "training_co2_cost"}


def scan(path: Path) -> dict[tuple[str, str | None, str], tuple[Decimal, int]]:
    """The metrics of a stats file, walked by hand: (split, perturbation, metric) -> (mean,
    number of instances of the split), bookkeeping left out."""
    stats = json.loads(path.read_text("utf-8"), parse_float=Decimal, parse_int=Decimal)
    instances = {
        s["name"]["split"]: int(s["mean"])
        for s in stats
        if s["name"]["name"] == "num_instances" and "perturbation" not in s["name"]
    }
    found = {}
    for stat in stats:
        name = stat["name"]
        if name["name"].startswith(KEPT_OUT) or name["name"] in KEPT_OUT_NAMES:
            continue
        perturbation = name.get("perturbation", {}).get("name")
        found[(name["split"], perturbation, name["name"])] = (
            stat["mean"],
            instances[name["split"]],
        )
    return found


def test_every_metric_against_a_scan_of_the_file(tmp_path: Path) -> None:
    model = json.loads(SPEC.read_text("utf-8"))["adapter_spec"]["model"]
    store = tmp_path / "store"
    done = run_cli("ingest", str(STATS), store=store)
    assert done.returncode == 0, done.stderr
    index = Index(set(ox.Store.read_only(str(store))))
    stored = {}
    for result in index.subjects_of_type(V.Result):
        benchmark = str(index.value(result, V.benchmark))
        configuration = str(index.value(result, V.configuration))
        protocol = index.value(configuration, V.protocol)
        perturbation = protocol.split()[1].rstrip(",") if protocol else None
        metric = str(index.value(str(index.value(result, V.metric)), V.label))
        stored[(str(index.value(benchmark, V.split)), perturbation, metric)] = result
    expected = scan(STATS)
    assert set(stored) == set(expected) and expected
    for key, (mean, instances) in expected.items():
        result = stored[key]
        assert Decimal(str(index.value(result, V.value))) == mean
        assert int(str(index.value(result, V.sampleSize))) == instances
        assert index.value(str(index.value(result, V.method)), V.label) == model
        assert index.value(result, V.plusMinus) is None  # one trial: no spread


def test_bookkeeping_is_kept_out_with_one_summary_warning() -> None:
    stats = json.loads(STATS.read_text("utf-8"))
    left = {
        s["name"]["name"]
        for s in stats
        if s["name"]["name"].startswith(KEPT_OUT) or s["name"]["name"] in KEPT_OUT_NAMES
    }
    page = helm.parse(STATS.read_bytes(), str(STATS))
    assert not left & {r.metric for r in page.results}
    [summary] = [w for w in page.warnings if w.problem.startswith("kept out")]
    assert summary.problem.endswith(", ".join(sorted(left)))


def test_perturbed_and_unperturbed_results_never_share_a_cohort(tmp_path: Path) -> None:
    store = tmp_path / "store"
    assert run_cli("ingest", str(STATS), store=store).returncode == 0
    benchmark = "mmlu on mmlu:subject=philosophy,method=multiple_choice_joint (test)"
    rows = leaderboard(store, benchmark, "exact_match")
    cohorts = [row["cohort"]["value"] for row in rows]
    assert len(rows) == 3 and len(set(cohorts)) == 3
    assert all(row["rank"]["value"] == "1" for row in rows)


def test_a_spread_over_several_trials_is_a_standard_deviation() -> None:
    stats = json.loads(STATS.read_text("utf-8"), parse_float=Decimal)
    index = next(i for i, s in enumerate(stats) if s["name"]["name"] == "exact_match")
    stats[index].update(count=3, stddev=Decimal("0.05"))
    page = helm.parse(json.dumps(stats, default=str).encode(), str(STATS))
    spread = next(r.spread for r in page.results if r.location == f"[{index}]")
    assert spread is not None and (spread.half_width, spread.meaning) == (
        "0.05",
        "standard deviation",
    )


def test_identity_one_source_per_run(tmp_path: Path) -> None:
    loose = helm.parse(STATS.read_bytes(), str(STATS))
    assert loose.key.startswith("helm/mmlu-subject-philosophy-method-multiple-choice-joint-")
    assert "/sha256-" in loose.key
    copies = []
    for suite in ("v1.0", "v1.0", "v1.1"):
        folder = tmp_path / suite / "benchmark_output" / "runs" / suite / RUN
        if not folder.exists():
            shutil.copytree(FOLDER, folder)
        copies.append(helm.parse(STATS.read_bytes(), str(folder / "stats.json")).key)
    assert copies[0] == copies[1] == "helm/v1-0/" + loose.key.split("/")[1]
    assert copies[2] != copies[0]


def test_without_run_spec_the_run_name_names_the_model(tmp_path: Path) -> None:
    folder = tmp_path / RUN
    folder.mkdir()
    shutil.copy(STATS, folder / "stats.json")
    page = helm.parse(STATS.read_bytes(), str(folder / "stats.json"))
    assert {r.method for r in page.results} == {"openai_gpt2"}


def test_a_file_outside_a_run_folder_is_refused(tmp_path: Path) -> None:
    shutil.copy(STATS, tmp_path / "stats.json")
    done = run_cli("ingest", str(tmp_path / "stats.json"), store=tmp_path / "store")
    assert done.returncode != 0
    assert "is not a HELM run's" in done.stderr


def test_a_mean_that_is_no_number_is_skipped_with_its_path() -> None:
    stats = json.loads(STATS.read_text("utf-8"))
    index = next(i for i, s in enumerate(stats) if s["name"]["name"] == "perplexity")
    stats[index]["mean"] = "n/a"
    page = helm.parse(json.dumps(stats).encode(), str(STATS))
    assert (f"[{index}].mean", "statistic skipped: no value ('n/a')") in [
        (w.location, w.problem) for w in page.warnings
    ]
    assert "perplexity" not in {r.metric for r in page.results}


@pytest.mark.parametrize(
    ("change", "location"),
    [
        (lambda d: d.__setitem__(3, 5), "[3]"),
        (lambda d: d[1].__setitem__("name", "exact_match"), "[1].name"),
        (lambda d: d[2]["name"].pop("split"), "[2].name.split"),
    ],
)
def test_a_broken_structure_is_refused_with_its_json_path(change: Any, location: str) -> None:
    broken = json.loads(STATS.read_text("utf-8"))
    change(broken)
    with pytest.raises(PageError) as refused:
        read_pages(json.dumps(broken).encode(), str(STATS))
    assert refused.value.location == location


def test_sniffed_by_content_never_by_name() -> None:
    text = STATS.read_text("utf-8")
    assert helm.sniff(text)
    assert not (lm_eval.sniff(text) or eee_records.sniff(text) or mteb.sniff(text))
    assert not helm.sniff(SPEC.read_text("utf-8"))
    for other in (REPO / "tests" / "data").glob("*/**/*.json"):
        if other.parent != FOLDER:
            assert not helm.sniff(other.read_text("utf-8")), other
