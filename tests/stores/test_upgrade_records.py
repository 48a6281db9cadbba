"""A store written before the audit summaries and the changes record (layout 3) is brought to
the present layout the first time a command opens it: its summaries and deltas are built from its
graphs, so the self-reported audit counts its results and ``changes`` reads its deltas; one
written before the report keys (layout 4) gets those alone, so ``audit-findings`` lists its
findings; the user is told once."""

from __future__ import annotations

import json
from pathlib import Path

import pyoxigraph as ox
import pytest
from stores.test_summaries_any_store import A_NEWER, A, B, Pages, _summary_triples
from support import run_cli

from benchgraph import answering, changelog, graphs, kept, queries, report_keys, summaries
from benchgraph import vocab as V
from benchgraph.store import Change, Store
from benchgraph.store.embedded import EmbeddedStore


def self_reported(store: Store) -> list[str]:
    answer = answering.answer(store, queries.find("audit-self-reported"), {})
    assert isinstance(answer, ox.QuerySolutions)
    return sorted(map(str, answer))


def test_a_store_of_layout_3_gets_its_summaries_and_deltas_when_first_opened(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "store"
    with EmbeddedStore(folder) as store:
        pages = Pages(store, tmp_path)
        for page in (A, B, A_NEWER):
            pages.ingest(page)
        right, deltas = self_reported(store), changelog.read_deltas(store)
        assert len(deltas) == 1 and summaries.check(store).exact
        lost = [t for found in deltas.values() for d in found for t in d.triples()]
        store.write(Change({}, deleted={graphs.VERSIONS: _summary_triples(store) + lost}))
        with pytest.raises(
            kept.MissingRecords, match="audit summary"
        ):  # refused on a store of layout 3
            self_reported(store)
    layout = folder / EmbeddedStore.LAYOUT_FILE
    written = json.loads(layout.read_text("utf-8"))
    layout.write_text(json.dumps({**written, "layout": 3}) + "\n", "utf-8")

    said = run_cli("audit", "--store", str(folder))  # a command that only reads
    assert said.returncode == 0, said.stderr
    assert "built the summaries of 2 versions and 1 deltas" in said.stderr
    assert json.loads(layout.read_text("utf-8"))["layout"] == EmbeddedStore.LAYOUT_NUMBER == 5
    with EmbeddedStore(folder) as store:
        assert self_reported(store) == right
        assert changelog.read_deltas(store) == deltas
        assert summaries.check(store).exact and changelog.check(store).exact
    again = run_cli("audit", "--store", str(folder))
    assert again.returncode == 0 and "built the summaries" not in again.stderr


def findings(store: Store) -> list[str]:
    answer = answering.answer(store, queries.find("audit-findings"), {"limit": "10000"})
    assert isinstance(answer, ox.QuerySolutions)
    return [str(row) for row in answer]


def test_a_store_of_layout_4_gets_its_report_keys_alone_when_first_opened(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "store"
    with EmbeddedStore(folder) as store:
        pages = Pages(store, tmp_path)
        for page in (A, B, A_NEWER):
            pages.ingest(page)
        right = findings(store)
        keys = [
            (graph, t)
            for graph in store.named_graphs()
            for t in store.graph_triples(graph)
            if t.predicate.value == V.reportKey
        ]
        assert right and len(keys) == 3  # two current reports, and the one A_NEWER replaced
        lost: dict[str, list[ox.Triple]] = {}
        for graph, t in keys:
            lost.setdefault(graph, []).append(t)
        store.write(Change({}, deleted=lost))
        with pytest.raises(
            kept.MissingRecords, match="validation findings"
        ):  # refused, not answered empty
            findings(store)
    layout = folder / EmbeddedStore.LAYOUT_FILE
    written = json.loads(layout.read_text("utf-8"))
    layout.write_text(json.dumps({**written, "layout": 4}) + "\n", "utf-8")

    said = run_cli("audit", "--store", str(folder))  # a command that only reads
    assert said.returncode == 0, said.stderr
    assert "wrote the keys of 2 reports" in said.stderr
    assert "built the summaries" not in said.stderr  # the steps of layout 4 are not run again
    assert json.loads(layout.read_text("utf-8"))["layout"] == EmbeddedStore.LAYOUT_NUMBER
    with EmbeddedStore(folder) as store:
        assert findings(store) == right and report_keys.check(store).exact
    again = run_cli("audit", "--store", str(folder))
    assert again.returncode == 0 and "wrote the keys" not in again.stderr
