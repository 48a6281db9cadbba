"""lm-evaluation-harness results files (0.3 and 0.4 layouts) loaded by the real command into a
store on disk: every figure of each sample against an independent scan of the file, stated
directions used, unknown ones never ranked, n-shot kept apart, bad input refused or skipped."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from support import REPO, Index, ingested, leaderboard, run_cli

from benchgraph import vocab as V
from benchgraph.names import key_part
from ingest import lm_eval
from ingest.reading import read_pages
from ingest.records import PageError

DATA = REPO / "tests" / "data" / "lm-eval"
V04 = DATA / "results_2026-01-21T03-44-18.458309.json"
V03 = DATA / "results_v03_no_comma_metric_keys.json"
GROUPS = DATA / "results_wikitext_groups.json"
SAMPLES = (V04, V03, GROUPS)


def scan(path: Path) -> list[tuple[str, str, str, Decimal, Decimal | None, bool | None]]:
    """Every metric of a results file, walked by hand: (task, metric, filter, value, stderr,
    higher is better as stated), values that are no number left out."""
    document = json.loads(path.read_text("utf-8"), parse_float=Decimal)
    found = []
    stated = document.get("higher_is_better", {})
    for part in ("results", "groups"):
        for task, metrics in document.get(part, {}).items():
            if part == "groups" and task in document["results"]:
                continue
            for key, value in metrics.items():
                metric, _, filtered = key.partition(",")
                if metric == "alias" or metric.endswith("_stderr") or isinstance(value, str):
                    continue
                stderr = metrics.get(f"{metric}_stderr" + (f",{filtered}" if filtered else ""))
                error = stderr if isinstance(stderr, Decimal | int) else None
                found.append(
                    (
                        task,
                        metric,
                        filtered,
                        Decimal(value),
                        error,
                        stated.get(task, {}).get(metric),
                    )
                )
    return found


def results_of(index: Index) -> dict[tuple[str, str, str], str]:
    """Each result of the store by (task label, metric label, result ID's filter part)."""
    found = {}
    for result in index.subjects_of_type(V.Result):
        metric = index.value(result, V.metric)
        benchmark = index.value(result, V.benchmark)
        assert metric and benchmark
        task = index.value(str(index.value(benchmark, V.task)), V.label)
        filtered = str(index.value(result, V.identifier)).rsplit("/", 1)[1]
        found[(str(task), str(index.value(metric, V.label)), filtered)] = result
    return found


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_every_figure_against_a_scan_of_the_file(tmp_path: Path, path: Path) -> None:
    index = ingested(tmp_path / "store", path)
    stored = results_of(index)
    expected = scan(path)
    assert len(stored) == len(expected) > 0
    for task, metric, filtered, value, stderr, higher in expected:
        result = stored[(task, metric, filtered or "none")]
        assert Decimal(str(index.value(result, V.value))) == value
        plus_minus = index.value(result, V.plusMinus)
        assert (None if plus_minus is None else Decimal(plus_minus)) == stderr
        if stderr is not None:
            assert index.value(result, V.plusMinusMeaning) == "standard error"
        direction = index.value(str(index.value(result, V.metric)), V.direction)
        want = {True: V.HigherIsBetter, False: V.LowerIsBetter, None: None}[higher]
        assert direction == want, (task, metric)


def test_n_shot_and_sample_size_as_the_file_gives_them(tmp_path: Path) -> None:
    document = json.loads(GROUPS.read_text("utf-8"))
    index = ingested(tmp_path / "store", GROUPS)
    for (task, _, _), result in results_of(index).items():
        configuration = str(index.value(result, V.configuration) or "")
        shots = document["n-shot"].get(task)
        protocol = index.value(configuration, V.protocol) if configuration else None
        assert protocol == (None if shots is None else f"{shots}-shot")
        samples = document["n-samples"].get(task, {}).get("effective")
        size = index.value(result, V.sampleSize)
        assert (None if size is None else int(size)) == samples


def test_stated_directions_rank_and_unknown_ones_are_never_ranked(tmp_path: Path) -> None:
    store = tmp_path / "store"
    assert run_cli("ingest", str(V03), store=store).returncode == 0
    board = leaderboard(store, "arc_easy on arc_easy", "acc")
    assert board and all("rank" not in row for row in board)
    assert {row["cohort"]["value"] for row in board} == {
        "not ranked: the metric's direction is not known"
    }
    assert run_cli("ingest", str(V04), store=store).returncode == 0
    stated = leaderboard(store, "math_rephrased_full on math_rephrased_full", "exact_match")
    assert [row["rank"]["value"] for row in stated] == ["1"]


def test_zero_shot_and_five_shot_never_share_a_cohort(tmp_path: Path) -> None:
    store = tmp_path / "store"
    assert run_cli("ingest", str(V03), str(GROUPS), store=store).returncode == 0
    board = leaderboard(store, "sciq on sciq", "acc")
    cohorts = {row["methodLabel"]["value"]: row["cohort"]["value"] for row in board}
    assert cohorts == {"bigscience/bloom-3b": "protocol=0-shot", "tiny-model": "protocol=5-shot"}
    assert all(row["rank"]["value"] == "1" for row in board)


def test_identity_names_the_run_or_its_bytes() -> None:
    dated = lm_eval.parse(V04.read_bytes(), V04.name)
    document = json.loads(V04.read_text("utf-8"))
    when = datetime.fromtimestamp(int(document["date"]), tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert dated.key == f"lm-eval/{key_part(document['model_name'])}/{key_part(when)}"
    assert dated.data_updated == when
    undated = lm_eval.parse(V03.read_bytes(), V03.name)
    assert undated.key.startswith("lm-eval/bigscience-bloom-3b/sha256-")
    assert lm_eval.parse(V03.read_bytes() + b"\n", "elsewhere").key != undated.key
    assert read_pages(V04.read_bytes(), "copy.json")[0].key == dated.key


def test_a_value_that_is_no_number_is_skipped_with_its_path() -> None:
    page = read_pages(GROUPS.read_bytes(), GROUPS.name)[0]
    assert [(w.location, w.problem) for w in page.warnings] == [
        (
            "results.wikitext.word_perplexity_stderr,none",
            "standard error not kept: no value ('N/A')",
        )
    ]
    broken = json.loads(V03.read_text("utf-8"))
    broken["results"]["sciq"]["acc"] = "n/a"
    page = lm_eval.parse(json.dumps(broken).encode(), "bad.json")
    assert ("results.sciq.acc", "metric skipped: no value ('n/a')") in [
        (w.location, w.problem) for w in page.warnings
    ]
    assert len(page.results) == 3


@pytest.mark.parametrize(
    ("change", "location"),
    [
        (lambda d: d.__setitem__("results", []), "results"),
        (lambda d: d["results"].__setitem__("sciq", 0.5), "results.sciq"),
        (lambda d: d.__setitem__("n-shot", [0]), "n-shot"),
    ],
)
def test_a_broken_structure_is_refused_with_its_json_path(change: Any, location: str) -> None:
    broken = json.loads(V03.read_text("utf-8"))
    change(broken)
    with pytest.raises(PageError) as refused:
        read_pages(json.dumps(broken).encode(), "bad.json")
    assert refused.value.location == location


def test_sniffed_by_content_never_by_name() -> None:
    for path in SAMPLES:
        assert lm_eval.sniff(path.read_text("utf-8")), path
    assert not lm_eval.sniff('{"count": 1, "next": null, "previous": null, "results": []}')
    assert not lm_eval.sniff((REPO / "tests" / "data" / "eee" / "eval.schema.json").read_text())
