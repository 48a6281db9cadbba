"""Ingesting many files: pages are written on a thread of their own while the next ones are
prepared. The store ends as it would page by page, outcomes come in file order and only once
their page is written, a page met again is refused before anything is written, and the first
failed write stops everything after it."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
import rdflib
from rdflib.compare import isomorphic
from support import EXAMPLES, PATIENCE

from benchgraph import graphs, queries, terms
from benchgraph.store import Answer, Change, StoreError
from benchgraph.store.embedded import EmbeddedStore
from ingest import loader, reading

NOW = "2026-01-01T00:00:00+00:00"


def pages(seeds: Path) -> list[Path]:
    """The seed pages: each page once (examples/ holds copies of three of them)."""
    return sorted(seeds.iterdir())


def graphs_of(store: EmbeddedStore) -> dict[str, rdflib.Graph]:
    """The store's graphs but the versions catalogue, whose ingest activities differ from one
    run to another (one per page written alone, one per batch)."""
    names = [g for g in store.named_graphs() if g != graphs.VERSIONS]
    return {g: terms.to_graph(store.graph_triples(g)) for g in names}


def test_the_store_ends_as_with_one_page_after_the_other(seeds: Path, tmp_path: Path) -> None:
    with EmbeddedStore(tmp_path / "one") as one:
        serial = [loader.ingest_file(one, p, NOW) for p in pages(seeds)]
        expected = graphs_of(one)
    with EmbeddedStore(tmp_path / "many") as many:
        outcomes = list(loader.ingest_files(many, pages(seeds), NOW, depth=2))
        got = graphs_of(many)
    assert [(o.origin, o.status, o.graph) for o in outcomes] == [
        (o.origin, o.status, o.graph) for o in serial
    ]
    assert [o.findings for o in outcomes] == [o.findings for o in serial]
    assert got.keys() == expected.keys()
    for name, graph in expected.items():
        assert isomorphic(got[name], graph), name  # reports hold blank nodes


def test_each_outcome_comes_once_its_page_is_in_the_store(seeds: Path, store_dir: Path) -> None:
    with EmbeddedStore(store_dir) as store:
        for outcome in loader.ingest_files(store, pages(seeds), NOW, depth=3):
            assert outcome.status == "loaded"
            assert outcome.graph in store.named_graphs()
            assert next(store.graph_triples(outcome.graph), None) is not None


class CountingStore(EmbeddedStore):
    """A real store that counts its writes."""

    def write(self, change: Change) -> None:
        if change.replaced:  # a page (not the end of the ingest)
            self.writes = getattr(self, "writes", 0) + 1
        super().write(change)


def test_a_page_met_again_in_one_batch_is_refused_before_any_write(
    seeds: Path, tmp_path: Path, store_dir: Path
) -> None:
    first = seeds / "001_e5e96d7d59fada78.txt"
    later = tmp_path / "later.txt"  # the same page, another snapshot
    later.write_text(first.read_text(encoding="utf-8").replace("2026-", "2027-", 1), "utf-8")
    again = tmp_path / "again.txt"
    shutil.copy(later, again)
    examples = sorted(EXAMPLES.iterdir())  # one of them is a copy of ``first``
    batch = [first, *examples, later, again]
    with CountingStore(store_dir) as store:
        outcomes = list(loader.ingest_files(store, batch, NOW, depth=4))
        refused = [o.origin for o in outcomes if o.status == "refused"]
        assert refused == [
            str(EXAMPLES / "sota2-prompt-recovery-on-laion.md"),
            str(later),
            str(again),
        ]
        assert all(
            f"the same page as {first}" in o.message for o in outcomes if o.status == "refused"
        )
        assert store.writes == len(batch) - 3
        graph = outcomes[0].graph
        assert graph is not None
        source = next(t.subject for t in store.graph_triples(graph) if "source" in str(t.subject))
        kept = reading.read_page(first.read_bytes(), str(first)).sha256
        assert store.source_hash(graph, source.value) == kept
        before = set(store.quads())
        rerun = [o.status for o in loader.ingest_files(store, batch, NOW, depth=4)]
        assert rerun.count("unchanged") == len(batch) - 3 and rerun.count("refused") == 3
        assert store.writes == len(batch) - 3  # nothing written the second time
        assert set(store.quads()) == before


class FailingStore(EmbeddedStore):
    """A real store whose ``fail_at``-th write fails, as a full disk would."""

    fail_at = 3

    def write(self, change: Change) -> None:
        self.writes = getattr(self, "writes", 0) + 1
        if self.writes == self.fail_at:
            raise StoreError("cannot write: no space left on device")
        super().write(change)


def test_the_first_failed_write_stops_the_batch(seeds: Path, store_dir: Path) -> None:
    files = pages(seeds)
    before = threading.active_count()
    with FailingStore(store_dir) as store:
        seen = []
        with pytest.raises(loader.IngestStopped) as stopped:
            for outcome in loader.ingest_files(store, files, NOW, depth=4):
                seen.append(outcome.origin)
        assert stopped.value.path == str(files[2])
        assert "no space left" in str(stopped.value)
        assert seen == [str(f) for f in files[:2]]
        written = {g for g in store.named_graphs() if "/graph/" in g}
        assert len(written) == 2  # nothing after the failed page
    assert threading.active_count() == before  # the writer has ended


class LateFailingStore(EmbeddedStore):
    """A real store whose writes wait until the batch has read its last page (as a slow disk
    leaves them behind), and whose third write fails; reading the last page waits until the
    writer has stopped on that failure, so it is known before any outcome is reported."""

    def __init__(self, location: Path, pages: int) -> None:
        super().__init__(location)
        self.pages = pages
        self.reads = self.writes = 0
        self.ahead = threading.Event()

    def query(self, sparql: str, *args: Any, **options: Any) -> Answer:
        if sparql == queries.internal("versions"):  # what a page's ingest reads first
            self.reads += 1
            if self.reads == self.pages:
                self.ahead.set()
                for thread in threading.enumerate():
                    if thread.name == "benchgraph-writer":
                        thread.join(PATIENCE)  # it ends on the failed write
        return super().query(sparql, *args, **options)

    def write(self, change: Change) -> None:
        assert self.ahead.wait(PATIENCE)
        self.writes += 1
        if self.writes == 3:
            raise StoreError("cannot write: no space left on device")
        super().write(change)


def test_pages_written_before_a_failed_write_are_reported_when_it_fails_first(
    seeds: Path, store_dir: Path
) -> None:
    """The outcomes of pages written but not yet reported when a later write failed were
    dropped: the summary counted fewer pages loaded than the store held."""
    files = pages(seeds)
    with LateFailingStore(store_dir, len(files)) as store:
        seen = []
        with pytest.raises(loader.IngestStopped) as stopped:
            for outcome in loader.ingest_files(store, files, NOW, depth=4):
                seen.append((outcome.origin, outcome.status))
        assert stopped.value.path == str(files[2])
        assert seen == [(str(f), "loaded") for f in files[:2]]
        assert len({g for g in store.named_graphs() if "/graph/" in g}) == 2


def test_blank_nodes_written_apart_are_different_nodes(store_dir: Path) -> None:
    """As SPARQL ``INSERT DATA`` has it, both for new graphs and for graphs replaced."""
    b = ox.BlankNode("same")
    p = ox.NamedNode("https://example.org/p")
    with EmbeddedStore(store_dir) as store:
        store.replace_graphs({"urn:g:1": [ox.Triple(b, p, ox.Literal("1"))]})
        store.replace_graphs({"urn:g:2": [ox.Triple(b, p, ox.Literal("2"))]})
        store.replace_graphs({"urn:g:2": [ox.Triple(b, p, ox.Literal("3"))]})
        subjects = {q.subject for q in store.quads()}
        assert len(subjects) == 2
        # one write, two graphs: one node
        store.replace_graphs(
            {"urn:g:3": [ox.Triple(b, p, ox.Literal("4"))], "urn:g:4": [ox.Triple(b, p, p)]}
        )
        new = {q.subject for q in store.quads() if q.graph_name.value in ("urn:g:3", "urn:g:4")}
        assert len(new) == 1


class UnreadableStore(EmbeddedStore):
    """A real store that cannot be read from its ``fail_at``-th page on, as a remote store gone
    away would."""

    fail_at = 4

    def query(self, sparql: str, *args: Any, **options: Any) -> Answer:
        if sparql == queries.internal("versions"):  # what a page's ingest reads first
            self.reads = getattr(self, "reads", 0) + 1
            if self.reads >= self.fail_at:
                raise StoreError("cannot read: connection refused")
        return super().query(sparql, *args, **options)


def test_a_failed_read_stops_the_batch_after_the_pages_before_it_are_written(
    seeds: Path, store_dir: Path
) -> None:
    files = pages(seeds)
    with UnreadableStore(store_dir) as store:
        seen = []
        with pytest.raises(loader.IngestStopped) as stopped:
            for outcome in loader.ingest_files(store, files, NOW, depth=4):
                seen.append(outcome.origin)
        assert stopped.value.path == str(files[3])
        assert seen == [str(f) for f in files[:3]]
        assert len({g for g in store.named_graphs() if "/graph/" in g}) == 3
