"""Readers never see half a page: threads query the store while another thread re-ingests
pages, each page alternating between two versions (6 results vs 4, other result IDs). Each
write is a version of its own, with a later ``Data updated`` than the one before (the same
bytes again would change nothing, and an older version is kept as history, not made
current). Every answer must show each page wholly old or wholly new, with the validation
report written with it.

All threads share one ``benchgraph.store.Store`` (one pyoxigraph ``Store``): pyoxigraph stores
may be shared between threads, and each query reads one snapshot of the store. (A second
``Store`` on the same folder cannot be opened in the same process: RocksDB locks it.)
"""

from __future__ import annotations

import re
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox
import pytest
from robustness.corpus import SOTA2_EXAMPLES, declared_results, result_ids, sota2_copy
from robustness.fuzz_settings import LONG
from support import REPO

from benchgraph import vocab as V
from benchgraph.queries import load
from benchgraph.store import Store
from benchgraph.store.embedded import EmbeddedStore
from ingest.loader import ingest_file

QUERY = load(REPO / "tests" / "data" / "robustness" / "page-versions.rq").text
PAGES = 4
READERS = 3
WRITES = 400 if LONG else 24
SECONDS = 120.0 if LONG else 8.0  # the writer stops at WRITES or after this long
UPDATED = re.compile(r"(?m)^Data updated: \S+$")


@dataclass
class Version:
    name: str
    path: Path
    declared: int
    ids: frozenset[str]
    updated: str = ""  # as the store gives it back, learnt before the readers start
    # The Data updated times written since (each write a later one), added before the write.
    written: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Snapshot:
    declared: frozenset[str]
    updated: frozenset[str]
    made: frozenset[str]
    reported: frozenset[str]
    results: frozenset[str]


def snapshot(store: Store) -> dict[str, Snapshot]:
    """Run the query once; return what each page graph holds in that one answer."""
    parts: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    answer = store.query(QUERY)
    assert isinstance(answer, ox.QuerySolutions)
    for row in answer:
        page = parts[row["page"].value]
        for name in ("declared", "updated", "made", "reported", "result"):
            if row[name] is not None:
                page[name].add(row[name].value)
    return {
        page: Snapshot(*(frozenset(p[n]) for n in ("declared", "updated", "made", "reported",
                                                     "result")))
        for page, p in parts.items()
    }  # fmt: skip


def which_version(seen: Snapshot, versions: tuple[Version, Version]) -> Version:
    """The version a page graph shows, wholly; fail on any mix."""
    matching = [v for v in versions if seen.results == v.ids]
    assert len(matching) == 1, f"results of neither version alone: {sorted(seen.results)}"
    version = matching[0]
    assert seen.declared == {str(version.declared)}, f"{version.name}: declared {seen.declared}"
    assert len(seen.results) == version.declared
    known = {version.updated, *version.written}
    assert len(seen.updated) == 1 and seen.updated <= known, (
        f"{version.name} with Data updated {seen.updated}"
    )
    assert len(seen.made) == 1, f"several ingest times: {seen.made}"
    assert seen.reported == seen.made, f"report made at {seen.reported}, page at {seen.made}"
    return version


def write_versions(folder: Path) -> list[tuple[Version, Version]]:
    templates = [p.read_text(encoding="utf-8") for p in SOTA2_EXAMPLES]
    pages = []
    for i in range(PAGES):
        versions = []
        for name, updated, keep in (("old", "2026-03-06T07:08:17Z", 6), ("new", "2027-01-02", 4)):
            text = sota2_copy(templates[i % 2], f"live-{i}", updated, keep, version=name)
            path = folder / f"page-{i}-{name}.md"
            path.write_text(text, encoding="utf-8")
            versions.append(
                Version(name, path, declared_results(text), frozenset(result_ids(text)))
            )
        pages.append((versions[0], versions[1]))
    return pages


def test_readers_see_each_page_wholly_old_or_wholly_new(tmp_path: Path) -> None:
    pages = write_versions(tmp_path)
    assert {(old.declared, new.declared) for old, new in pages} == {(6, 4)}
    times = (f"2026-01-01T{n // 3600:02}:{n // 60 % 60:02}:{n % 60:02}+00:00" for n in range(10**5))
    with EmbeddedStore(tmp_path / "store") as store:
        graphs: dict[str, tuple[Version, Version]] = {}
        for old, new in pages:  # learn each version's graph and Data updated as stored
            for version in (old, new):
                outcome = ingest_file(store, version.path, now=next(times))
                assert outcome.status == "loaded" and outcome.graph, outcome.message
                version.updated = next(iter(snapshot(store)[outcome.graph].updated))
            graphs[outcome.graph] = (old, new)

        stop = threading.Event()
        failures: list[str] = []
        checked: Counter[str] = Counter()
        shown: set[tuple[str, str]] = set()
        tally = threading.Lock()

        def read() -> None:
            try:
                while not stop.is_set():
                    seen = snapshot(store)
                    assert set(seen) == set(graphs), f"pages missing: {set(graphs) - set(seen)}"
                    for graph, versions in graphs.items():
                        shown.add((graph, which_version(seen[graph], versions).name))
                    with tally:
                        checked["answers"] += 1
            except Exception as error:
                failures.append(f"reader: {type(error).__name__}: {error}")
                stop.set()

        def write() -> None:
            try:
                started = time.monotonic()
                for n in range(WRITES):
                    if stop.is_set() or time.monotonic() - started > SECONDS:
                        break
                    graph = list(graphs)[n % PAGES]
                    version = graphs[graph][(n // PAGES) % 2 == 0]  # new, old, new, ...
                    stamp = f"2027-02-01T{n // 3600:02}:{n // 60 % 60:02}:{n % 60:02}Z"
                    version.written.add(stamp)  # as the store keeps it (a Z time)
                    text = version.path.read_text(encoding="utf-8")
                    fresh = tmp_path / f"write-{n}.md"
                    fresh.write_text(UPDATED.sub(f"Data updated: {stamp}", text, count=1))
                    outcome = ingest_file(store, fresh, now=next(times))
                    assert outcome.status == "loaded", outcome.message
                    with tally:
                        checked["writes"] += 1
            except Exception as error:
                failures.append(f"writer: {type(error).__name__}: {error}")
            finally:
                stop.set()

        threads = [threading.Thread(target=read) for _ in range(READERS)]
        threads.append(threading.Thread(target=write))
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=SECONDS + 60)
        assert not any(t.is_alive() for t in threads), "a thread did not finish"
        print(f"{checked['writes']} writes, {checked['answers']} answers checked")
        assert not failures, failures
        assert checked["writes"] >= min(WRITES, 8)
        assert checked["answers"] >= 2 * checked["writes"], checked
        assert shown == {(g, v) for g in graphs for v in ("old", "new")}, "a version never seen"


def test_the_check_sees_a_half_written_page(tmp_path: Path) -> None:
    """The check above would notice a page written in two steps: here, the old version with
    one result's triples missing."""
    old, new = write_versions(tmp_path)[0]
    with EmbeddedStore(tmp_path / "store") as store:
        outcome = ingest_file(store, old.path)
        assert outcome.graph is not None
        old.updated = next(iter(snapshot(store)[outcome.graph].updated))
        which_version(snapshot(store)[outcome.graph], (old, new))
        triples = list(store.graph_triples(outcome.graph))
        gone = next(t.subject for t in triples if t.object == ox.NamedNode(V.Result))
        store.replace_graphs({outcome.graph: [t for t in triples if t.subject != gone]})
        with pytest.raises(AssertionError, match="results of neither version"):
            which_version(snapshot(store)[outcome.graph], (old, new))
