"""OpenMMLab metafiles loaded by the real command into a store on disk: every figure of each
sample against an independent scan of the file, the collection's paper as the methods' origin
and the metafile as the reporting source, schedules kept apart by the configuration, one source
per metafile, sniffing apart from model cards and score files, bad input refused or skipped."""

from __future__ import annotations

import hashlib
import shutil
from collections import Counter
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
import yaml
from support import REPO, Index, ingested, leaderboard, run_cli

from benchgraph import vocab as V
from ingest import model_index, openmmlab, score_file
from ingest.reading import read_pages
from ingest.records import PageError

DATA = REPO / "tests" / "data" / "openmmlab"
SAMPLES = sorted(DATA.glob("*/configs/*/metafile.yml"))
RETINANET = DATA / "mmdetection" / "configs" / "retinanet" / "metafile.yml"
TRAINING = ("Epochs", "Training Data", "Batch Size")


def scan(path: Path) -> Counter[tuple[str, str, str, str, Decimal]]:
    """The figures of a metafile, walked by hand: (model, task, dataset, metric, value)."""
    document = yaml.safe_load(path.read_text("utf-8"))
    found: Counter[tuple[str, str, str, str, Decimal]] = Counter()
    for model in document["Models"]:
        for result in model.get("Results") or []:
            for metric, value in result["Metrics"].items():
                key = (model["Name"], result["Task"], result["Dataset"], metric)
                found[(*key, Decimal(str(value)))] += 1
    return found


def papers(path: Path) -> dict[str, str | None]:
    """Each model's origin paper's URL, by hand: its collection's ``Paper``."""
    document = yaml.safe_load(path.read_text("utf-8"))
    urls = {}
    for collection in document.get("Collections") or []:
        paper = collection.get("Paper")
        urls[collection["Name"]] = paper.get("URL") if isinstance(paper, dict) else paper
    return {m["Name"]: urls.get(m.get("In Collection")) for m in document["Models"]}


def label(index: Index, subject: str | None, predicate: str) -> str:
    return str(index.value(str(index.value(str(subject), predicate)), V.label))


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.parent.name)
def test_every_figure_against_a_scan_of_the_file(sample: Path, tmp_path: Path) -> None:
    index = ingested(tmp_path / "store", sample)
    stored: Counter[tuple[str, str, str, str, Decimal]] = Counter()
    origins = {}
    for result in index.subjects_of_type(V.Result):
        benchmark = index.value(result, V.benchmark)
        method = str(index.value(result, V.method))
        name = str(index.value(method, V.label))
        key = (name, label(index, benchmark, V.task), label(index, benchmark, V.dataset))
        metric = label(index, result, V.metric)
        stored[(*key, metric, Decimal(str(index.value(result, V.value))))] += 1
        paper = index.value(method, V.introducedIn)
        origins[name] = index.value(paper, V.url) if paper else None
        reporter = str(index.value(result, V.reportedIn))
        assert (ox.NamedNode(V.ReportingDocument)) in index.objects(reporter, V.type_)
    expected = scan(sample)
    assert stored == expected and expected
    assert origins == papers(sample)


def test_directions_are_inferred_from_the_names_and_unknown_is_never_ranked(
    tmp_path: Path,
) -> None:
    for sample in SAMPLES:
        page = openmmlab.parse(sample.read_bytes(), str(sample))
        assert {(d.direction, d.direction_inferred) for d in page.metrics} == {("higher", True)}
    document = yaml.safe_load(RETINANET.read_text("utf-8"))
    document["Models"][0]["Results"][0]["Metrics"]["PQ"] = 40.1
    folder = tmp_path / "mmdetection" / "configs" / "retinanet"
    folder.mkdir(parents=True)
    (folder / "metafile.yml").write_text(yaml.safe_dump(document, sort_keys=False), "utf-8")
    store = tmp_path / "store"
    assert run_cli("ingest", str(folder / "metafile.yml"), store=store).returncode == 0
    rows = leaderboard(store, "Object Detection on COCO", "PQ")
    assert [row["cohort"]["value"] for row in rows] == [
        "not ranked: the metric's direction is not known"
    ]
    assert "rank" not in rows[0]


def settings(index: Index, result: str) -> dict[str, str]:
    configuration = str(index.value(result, V.configuration))
    items = [str(term.value) for term in index.objects(configuration, V.setting)]
    return {
        str(index.value(item, V.settingKey)): str(index.value(item, V.settingValue))
        for item in items
    }


def test_the_configuration_keeps_schedules_apart(tmp_path: Path) -> None:
    index = ingested(tmp_path / "store", RETINANET)
    by_model = {
        str(index.value(str(index.value(r, V.method)), V.label)): r
        for r in index.subjects_of_type(V.Result)
    }
    document = yaml.safe_load(RETINANET.read_text("utf-8"))
    shared = document["Collections"][0]["Metadata"]
    for model in document["Models"]:
        given = settings(index, by_model[model["Name"]])
        assert given["config"] == model["Config"]
        assert given["Epochs"] == str(model["Metadata"]["Epochs"])
        assert given["Training Data"] == shared["Training Data"]
    # The file gives the 1x and 3x models of one backbone one Config; the epochs tell them apart.
    twins = [m for m in document["Models"] if m["Config"].endswith("r101_caffe_fpn_1x_coco.py")]
    assert len(twins) == 2
    configurations = {index.value(by_model[m["Name"]], V.configuration) for m in twins}
    assert len(configurations) == 2


def test_a_model_s_own_metadata_wins_over_its_collection_s() -> None:
    sample = DATA / "mmpretrain" / "configs" / "resnet" / "metafile.yml"
    document = yaml.safe_load(sample.read_text("utf-8"))
    shared = document["Collections"][0]["Metadata"]
    page = openmmlab.parse(sample.read_bytes(), str(sample))
    for model in document["Models"]:
        own = {**shared, **model["Metadata"]}
        result = next(r for r in page.results if r.method == model["Name"])
        given = {s.key: s.value for s in result.configuration.settings}
        assert {key: given[key] for key in TRAINING} == {key: str(own[key]) for key in TRAINING}
        assert "FLOPs" not in given and "Parameters" not in given


def test_identity_one_source_per_metafile(tmp_path: Path) -> None:
    data = RETINANET.read_bytes()
    assert openmmlab.parse(data, str(RETINANET)).key == "openmmlab/mmdetection/configs/retinanet"
    keys = {}
    for place in (
        "a/mmdetection/configs/retinanet/metafile.yml",
        "b/mmdetection/configs/retinanet/metafile.yaml",  # the same file, renamed by a release
        "mmpretrain/configs/retinanet/metafile.yml",  # another repository's folder of that name
        "mmdetection/configs/retinanet/metafile_fps.yml",  # a second metafile of the folder
        "loose/metafile.yml",
    ):
        file = tmp_path / place
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(data)
        keys[place] = openmmlab.parse(data, str(file)).key
    yml, yaml_, other, fps, loose = keys.values()
    assert yml == yaml_ == "openmmlab/mmdetection/configs/retinanet"
    assert other == "openmmlab/mmpretrain/configs/retinanet"
    assert fps == "openmmlab/mmdetection/configs/retinanet/metafile-fps"
    assert loose == f"openmmlab/sha256-{hashlib.sha256(data).hexdigest()[:16]}"


def test_a_repeated_model_name_gives_two_results_not_one() -> None:
    sample = DATA / "mmsegmentation" / "configs" / "pspnet" / "metafile.yml"
    names = Counter(m["Name"] for m in yaml.safe_load(sample.read_text("utf-8"))["Models"])
    [twice] = [name for name, n in names.items() if n > 1]
    assert names[twice] == 2
    page = openmmlab.parse(sample.read_bytes(), str(sample))
    ids = [r.source_id for r in page.results if r.method == twice]
    assert len(ids) == 2 and ids[1] == ids[0] + "/2"


def other_samples() -> list[Path]:
    """Every file of the other formats' samples a sniffer could be handed."""
    found = (REPO / "tests" / "data").rglob("*")
    return [p for p in found if p.is_file() and not p.is_relative_to(DATA)]


def test_sniffed_by_content_never_by_name(tmp_path: Path) -> None:
    for sample in SAMPLES:
        text = sample.read_text("utf-8")
        assert openmmlab.sniff(text) and openmmlab.sniff(text.replace("\n", "\r\n"))
        assert not (model_index.sniff(text) or score_file.sniff(text)), sample
    renamed = tmp_path / "README.md"
    shutil.copy(RETINANET, renamed)
    assert read_pages(renamed.read_bytes(), str(renamed))[0].format == "openmmlab"
    for other in other_samples():
        try:
            text = other.read_text("utf-8")
        except UnicodeDecodeError:
            continue
        assert not openmmlab.sniff(text), other
    assert not openmmlab.sniff((DATA / "README.md").read_text("utf-8"))


def broken(change: Any) -> bytes:
    document = yaml.safe_load(RETINANET.read_text("utf-8"))
    change(document)
    return yaml.safe_dump(document, sort_keys=False).encode()


@pytest.mark.parametrize(
    ("change", "location"),
    [
        (lambda d: d.__setitem__("Models", d["Models"][0]), "Models"),
        (lambda d: d["Models"][1].pop("Name"), "Models[1].Name"),
        (lambda d: d["Models"][2].__setitem__("Results", "box AP 38.5"), "Models[2].Results"),
        (lambda d: d["Models"][0]["Results"][0].pop("Task"), "Models[0].Results[0].Task"),
        (
            lambda d: d["Models"][0]["Results"][0].__setitem__("Metrics", [36.5]),
            "Models[0].Results[0].Metrics",
        ),
        (lambda d: d["Collections"].__setitem__(0, "RetinaNet"), "Collections[0]"),
        (lambda d: d["Models"][3].__setitem__("Config", ["a.py"]), "Models[3].Config"),
    ],
)
def test_a_broken_structure_is_refused_with_its_yaml_path(change: Any, location: str) -> None:
    with pytest.raises(PageError) as refused:
        read_pages(broken(change), str(RETINANET))
    assert refused.value.location == location


def test_a_malformed_file_is_refused_by_the_command_and_changes_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "mmdetection" / "configs" / "retinanet"
    folder.mkdir(parents=True)
    bad = folder / "metafile.yml"
    bad.write_bytes(broken(lambda d: d["Models"][0]["Results"][0].pop("Dataset")))
    store = tmp_path / "store"
    done = run_cli("ingest", str(bad), store=store)
    assert done.returncode == 1, done.stderr
    assert "Models[0].Results[0].Dataset" in done.stderr
    assert not [q for q in ox.Store.read_only(str(store)) if q.predicate.value == V.value]


def test_a_metric_that_is_no_number_is_skipped_with_its_yaml_path() -> None:
    metrics = {"box AP": "-", "mask AP": 34.1}
    data = broken(lambda d: d["Models"][0]["Results"][0].__setitem__("Metrics", metrics))
    page = openmmlab.parse(data, str(RETINANET))
    assert ("Models[0].Results[0].Metrics.box AP", "metric skipped: no value ('-')") in [
        (w.location, w.problem) for w in page.warnings
    ]
    first = [r for r in page.results if r.method == "retinanet_r50_fpn_1x_coco"]
    assert [(r.metric, r.value) for r in first] == [("mask AP", "34.1")]


def test_a_model_with_no_results_is_skipped_and_a_file_of_none_refused() -> None:
    page = openmmlab.parse(broken(lambda d: d["Models"][0].__setitem__("Results", None)), "x")
    assert "Models[0].Results" in [w.location for w in page.warnings]
    assert "retinanet_r50_fpn_1x_coco" not in {r.method for r in page.results}

    def none_readable(document: dict[str, Any]) -> None:
        for model in document["Models"]:
            model["Results"][0]["Metrics"] = {"box AP": "n/a"}

    with pytest.raises(PageError, match="none of its metrics can be read"):
        openmmlab.parse(broken(none_readable), "x")


def test_a_syntax_error_is_refused_with_its_line() -> None:
    with pytest.raises(PageError) as refused:
        openmmlab.parse(b"Models:\n  - Name: a\n    Results: [\n", "x")
    assert refused.value.location.startswith("line ")
