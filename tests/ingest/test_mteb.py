"""MTEB results files loaded by the real command into a store on disk: every figure of each
sample against an independent scan of the file, the model from model_meta.json or the folders,
main_score as the headline, directions only where they can be stated, one source per (model,
revision, task), sniffing apart from the other JSON formats, bad input refused or skipped."""

from __future__ import annotations

import json
import math
import shutil
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from support import REPO, Index, ingested, leaderboard, run_cli

from benchgraph import vocab as V
from ingest import eee_records, lm_eval, mteb
from ingest.reading import read_pages
from ingest.records import PageError

REVISION = "e272f3049e853b47cb5ca3952268c6662abda68f"
FOLDER = REPO / "tests" / "data" / "mteb" / "results" / "intfloat__e5-small" / REVISION
META = FOLDER / "model_meta.json"
CLASSIFICATION = FOLDER / "AmazonCounterfactualClassification.json"
RETRIEVAL = FOLDER / "AILAStatutes.json"
STS = FOLDER / "FaroeseSTS.json"
SAMPLES = (CLASSIFICATION, RETRIEVAL, STS)
OTHERS = (
    *sorted((REPO / "tests" / "data" / "lm-eval").glob("*.json")),
    REPO / "tests" / "data" / "eee" / "eval.schema.json",
)


def scan(path: Path) -> dict[tuple[str, str, str], Decimal]:
    """Every score of a results file, walked by hand: (split, subset, metric) -> value, the
    figures that are no number (NaN) left out."""
    document = json.loads(path.read_text("utf-8"), parse_float=Decimal, parse_int=Decimal)
    found = {}
    for split, entries in document["scores"].items():
        for entry in entries:
            for metric, value in entry.items():
                if metric in ("hf_subset", "languages", "scores_per_experiment"):
                    continue
                if isinstance(value, float) and math.isnan(value):
                    continue
                found[(split, entry["hf_subset"], metric)] = Decimal(value)
    return found


def results_of(index: Index) -> dict[tuple[str, str, str], str]:
    """Each result of the store by (split, subset, metric label)."""
    found = {}
    for result in index.subjects_of_type(V.Result):
        benchmark = str(index.value(result, V.benchmark))
        configuration = str(index.value(result, V.configuration))
        metric = str(index.value(result, V.metric))
        key = (
            str(index.value(benchmark, V.split)),
            str(index.value(configuration, V.subset)),
            str(index.value(metric, V.label)),
        )
        assert key not in found, key
        found[key] = result
    return found


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_every_figure_against_a_scan_of_the_file(tmp_path: Path, path: Path) -> None:
    model = json.loads(META.read_text("utf-8"))["name"]
    task = json.loads(path.read_text("utf-8"))["task_name"]
    index = ingested(tmp_path / "store", path)
    stored = results_of(index)
    expected = scan(path)
    assert set(stored) == set(expected) and expected
    for (split, _, metric), value in expected.items():
        result = stored[(split, _, metric)]
        assert Decimal(str(index.value(result, V.value))) == value
        assert index.value(str(index.value(result, V.method)), V.label) == model
        assert index.value(result, V.headline) == str(metric == "main_score").lower()
        benchmark = str(index.value(result, V.benchmark))
        assert index.value(str(index.value(benchmark, V.task)), V.label) == task


def test_the_subset_and_its_languages_are_the_configuration(tmp_path: Path) -> None:
    document = json.loads(CLASSIFICATION.read_text("utf-8"))
    index = ingested(tmp_path / "store", CLASSIFICATION)
    stored = results_of(index)
    for split, entries in document["scores"].items():
        for entry in entries:
            result = stored[(split, entry["hf_subset"], "accuracy")]
            configuration = str(index.value(result, V.configuration))
            settings = {
                index.value(str(s.value), V.settingKey): index.value(str(s.value), V.settingValue)
                for s in index.objects(configuration, V.setting)
            }
            assert settings == {
                "languages": ", ".join(entry["languages"]),
                "model_revision": REVISION,
                "mteb_version": document["mteb_version"],
                "dataset_revision": document["dataset_revision"],
            }


def test_main_score_is_the_headline_with_its_metrics_direction() -> None:
    page = read_pages(STS.read_bytes(), str(STS))[0]
    assert page.primary_metric == "main_score"
    assert [r.metric for r in page.results if r.headline] == ["main_score"]
    main = page.metric("main_score")
    assert (main.direction, main.direction_inferred) == ("higher", True)


def test_thresholds_and_nauc_figures_have_no_direction_and_are_never_ranked(
    tmp_path: Path,
) -> None:
    page = read_pages(RETRIEVAL.read_bytes(), str(RETRIEVAL))[0]
    undirected = {d.name for d in page.metrics if d.direction is None}
    expected = {m for (_, _, m) in scan(RETRIEVAL) if m.startswith("nauc_")}
    assert undirected == expected and expected
    assert mteb._direction("cosine_accuracy_threshold") is None
    assert mteb._direction("cosine_accuracy") == "higher"
    store = tmp_path / "store"
    assert run_cli("ingest", str(RETRIEVAL), store=store).returncode == 0
    board = leaderboard(store, "AILAStatutes on AILAStatutes (test)", "nauc_ndcg_at_10_max")
    assert board and all("rank" not in row for row in board)
    ranked = leaderboard(store, "AILAStatutes on AILAStatutes (test)", "main_score")
    assert [row["rank"]["value"] for row in ranked] == ["1"]


def test_identity_one_source_per_model_revision_and_task(tmp_path: Path) -> None:
    by_meta = mteb.parse(STS.read_bytes(), str(STS))
    assert by_meta.key == f"mteb/intfloat-e5-small/{REVISION}/faroesests"
    # The same file in the same layout elsewhere, without model_meta.json: the folders say.
    copy = tmp_path / "results" / "intfloat__e5-small" / REVISION / STS.name
    copy.parent.mkdir(parents=True)
    shutil.copy(STS, copy)
    assert mteb.parse(copy.read_bytes(), str(copy)).key == by_meta.key
    # Another revision of the model is another source.
    other = tmp_path / "results" / "intfloat__e5-small" / "0000aaaa" / STS.name
    other.parent.mkdir(parents=True)
    shutil.copy(STS, other)
    assert (
        mteb.parse(other.read_bytes(), str(other)).key
        == "mteb/intfloat-e5-small/0000aaaa/faroesests"
    )
    # Another task of the same model and revision is another source.
    assert mteb.parse(RETRIEVAL.read_bytes(), str(RETRIEVAL)).key != by_meta.key


def test_an_unknown_model_is_said_and_known_by_content(tmp_path: Path) -> None:
    loose = tmp_path / STS.name
    shutil.copy(STS, loose)
    page = mteb.parse(loose.read_bytes(), str(loose))
    assert page.key.startswith("mteb/sha256-")
    assert page.results[0].method.startswith("unknown model ")
    assert any("the model is not known" in w.problem for w in page.warnings)
    edited = loose.read_bytes().replace(b"0.67212", b"0.67213", 1)
    assert mteb.parse(edited, str(loose)).key != page.key


def test_a_score_that_is_no_number_is_skipped_with_its_path() -> None:
    nans = [
        (split, entry["hf_subset"], metric)
        for split, entries in json.loads(RETRIEVAL.read_text("utf-8"))["scores"].items()
        for index, entry in enumerate(entries)
        for metric, value in entry.items()
        if isinstance(value, float) and math.isnan(value)
    ]
    page = read_pages(RETRIEVAL.read_bytes(), str(RETRIEVAL))[0]
    skipped = [w.location for w in page.warnings if w.problem.startswith("score skipped")]
    assert skipped == [f"scores.{s}[0].{m}" for s, _, m in nans] and nans


@pytest.mark.parametrize(
    ("change", "location"),
    [
        (lambda d: d.__setitem__("scores", []), "scores"),
        (lambda d: d["scores"].__setitem__("train", {"main_score": 0.5}), "scores.train"),
        (lambda d: d["scores"]["train"].__setitem__(0, 0.5), "scores.train[0]"),
        (lambda d: d["scores"]["train"][0].pop("hf_subset"), "scores.train[0].hf_subset"),
        (lambda d: d.pop("task_name"), "task_name"),
    ],
)
def test_a_broken_structure_is_refused_with_its_json_path(change: Any, location: str) -> None:
    broken = json.loads(STS.read_text("utf-8"))
    change(broken)
    with pytest.raises(PageError) as refused:
        read_pages(json.dumps(broken).encode(), str(STS))
    assert refused.value.location == location


def test_a_broken_model_meta_is_refused_naming_it(tmp_path: Path) -> None:
    folder = tmp_path / "org__model" / "rev"
    folder.mkdir(parents=True)
    shutil.copy(STS, folder / STS.name)
    (folder / "model_meta.json").write_text('{"name": null, "revision": "rev"}')
    done = run_cli("ingest", str(folder / STS.name), store=tmp_path / "store")
    assert done.returncode != 0
    assert f"{folder / 'model_meta.json'}: name: is null, not the model's name" in done.stderr


def test_sniffed_by_content_never_by_name() -> None:
    for path in SAMPLES:
        text = path.read_text("utf-8")
        assert mteb.sniff(text), path
        assert not lm_eval.sniff(text) and not eee_records.sniff(text), path
    for path in OTHERS:
        assert not mteb.sniff(path.read_text("utf-8")), path
    assert not mteb.sniff(META.read_text("utf-8"))
