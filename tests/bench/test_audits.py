"""``bench.audits`` on the seeds: each audit timed with both texts, their rows compared."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from support import REPO, SEEDS

from bench import audits


def test_audits_times_both_texts_and_compares_their_rows(seeds_store: Path, tmp_path: Path) -> None:
    before = tmp_path / "queries"
    shutil.copytree(REPO / "queries", before)
    text = (before / "papers.rq").read_text(encoding="utf-8")
    (before / "papers.rq").write_text(
        text.replace("ORDER BY ?identifier", "ORDER BY DESC(?identifier)")
    )
    found = audits.measure(str(seeds_store), before, ["audit-self-reported", "papers"], 2)
    assert [row["query"] for row in found] == ["audit-self-reported", "papers"]
    assert [row["same rows"] for row in found] == [True, False]  # papers in another order
    assert found[0]["rows"] == len([p for p in SEEDS.iterdir() if p.is_file()])  # one a page
    assert all(row["before cpu p50 s"] > 0 and row["after cpu p50 s"] > 0 for row in found)
    json.dumps(found)
