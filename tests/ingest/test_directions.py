"""The table of metric names (ingest/directions.py): a metric at a cut-off (Hits@100, R@1,
mAP@0.5) is read as its metric, the lower-is-better words still come first, and the real OGB
tables file gets a direction for every Hits@ metric."""

from __future__ import annotations

import pytest
from support import REPO

from ingest import directions, pwc_tables

OGB = REPO.parent / "shared" / "data" / "pwc" / "sota-extractor" / "ogb.json"


@pytest.mark.parametrize(
    "name",
    [
        "Hits@100", "Hits@K", "Test Hits@20", "R@1", "Recall@10", "mAP@0.5", "mAP@0.5:0.95",
        "P@5", "nDCG@10", "MRR@10", "Acc@1", "Top-1", "pass@1", "pass@10", "ERR@20",
    ],
)  # fmt: skip
def test_a_metric_at_a_cut_off_is_read_as_its_metric(name: str) -> None:
    assert directions.infer(name) == "higher", name


@pytest.mark.parametrize(
    "name",
    ["Top-1 Error", "Top-5 error rate", "Recall@10 error", "Hits@10 loss", "FID@10k", "Error@5"],
)
def test_the_lower_is_better_words_still_come_first(name: str) -> None:
    assert directions.infer(name) == "lower", name


@pytest.mark.parametrize("name", ["Number of params", "BLEU@4", "@10", "Params@1"])
def test_a_name_in_neither_table_gets_no_direction(name: str) -> None:
    assert directions.infer(name) is None, name


def test_a_cut_off_names_no_split() -> None:
    assert directions.split_in("Validation Hits@100") == "validation"
    assert directions.split_in("Hits@100") is None


def test_every_hits_metric_of_the_ogb_file_has_a_direction() -> None:
    if not OGB.is_file():
        pytest.skip(f"the sample {OGB.name} (../shared/data/pwc) is not beside this checkout")
    pages = pwc_tables.parse(OGB.read_bytes(), OGB.name)
    metrics = [m for page in pages for m in page.metrics]
    found = {(m.name, m.direction, m.direction_inferred) for m in metrics if "Hits@" in m.name}
    assert {f[0] for f in found} == {
        f"{split} Hits@{k}" for split in ("Test", "Validation") for k in (20, 50, 100)
    }
    assert {f[1:] for f in found} == {("higher", True)}, found
    undirected = {m.name for m in metrics if m.direction is None}
    assert undirected == {"Number of params"}
