"""A batch ingested into an empty store is loaded at once (``Store.begin_load``): in groups, each
a bulk load, in no transaction. It ends as a page-by-page ingest would, and it is all or nothing:
a failed write, or ``kill -9`` of the command at any moment, leaves an empty store (once it is
opened for writing), never a part of the batch; while the load runs, or once it was killed,
nothing can open the store to read it.
"""

from __future__ import annotations

import os
import random
import select
import time
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from rdflib.compare import isomorphic
from robustness.test_crash_safety import PROGRESS, ingest_on_terminal
from support import PATIENCE, generate_corpus, run_cli

from benchgraph import cli, graphs, terms
from benchgraph import vocab as V
from benchgraph.cli import ingest as cli_ingest
from benchgraph.cli.console import EXIT_ERROR
from benchgraph.store import Store, StoreError
from benchgraph.store.embedded import EmbeddedStore
from ingest import loader

NOW = "2026-01-01T00:00:00+00:00"
PAGES = 150  # several groups (LOAD_TRIPLES)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("first-load")
    generate_corpus(root / "corpus", seed=7, pages=PAGES)
    return sorted((root / "corpus" / "pages").iterdir())


def store_graphs(store: Store) -> dict[str, Any]:
    """Every graph but the versions catalogue (its ingest activities are one per batch), and
    the merged view, as rdflib graphs (reports hold blank nodes)."""
    names = [g for g in store.named_graphs() if g != graphs.VERSIONS]
    found: dict[str, Any] = {g: terms.to_graph(store.graph_triples(g)) for g in names}
    found["view"] = terms.to_graph(store.graph_triples(None))
    return found


def versions_catalogue(store: Store) -> set[tuple[str, str, str]]:
    """The versions catalogue, each ingest activity called the same and its end left out (one
    activity a page written alone, one for the batch)."""

    def named(term: Any) -> str:
        return "activity" if term.value.startswith(V.ID + "ingest/") else str(term)

    return {
        (named(t.subject), str(t.predicate), named(t.object))
        for t in store.graph_triples(graphs.VERSIONS)
        if t.predicate.value != V.endedAtTime
    }


def test_a_first_load_ends_as_page_by_page(corpus: list[Path], tmp_path: Path) -> None:
    with EmbeddedStore(tmp_path / "page-by-page") as one:
        serial = [loader.ingest_file(one, path, NOW) for path in corpus]
        expected = store_graphs(one)
        catalogue = versions_catalogue(one)
    loading = tmp_path / "at-once" / EmbeddedStore.LOAD_FILE
    with EmbeddedStore(tmp_path / "at-once") as many:
        outcomes = []
        for outcome in loader.ingest_files(many, corpus, NOW):
            assert loading.exists()  # loaded at once, not page by page
            outcomes.append(outcome)
        assert not loading.exists()
        got = store_graphs(many)
        assert versions_catalogue(many) == catalogue
        assert many.check_view().exact
    assert [(o.origin, o.status, o.graph) for o in outcomes] == [
        (o.origin, o.status, o.graph) for o in serial
    ]
    assert got.keys() == expected.keys()
    for name, graph in expected.items():
        assert isomorphic(got[name], graph), name


class _FailingBulk:
    """pyoxigraph's store, its ``fail_at``-th bulk load failing as a full disk would."""

    def __init__(self, store: ox.Store, fail_at: int) -> None:
        self._store, self.fail_at, self.loads = store, fail_at, 0

    def bulk_load(self, *args: Any, **kwargs: Any) -> None:
        self.loads += 1
        if self.loads == self.fail_at:
            self._store.bulk_load(*args, **kwargs)  # in the store, then the failure: a part
            raise OSError("No space left on device")
        self._store.bulk_load(*args, **kwargs)

    def __iter__(self) -> Any:
        return iter(self._store)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def test_a_failed_write_empties_the_store(corpus: list[Path], tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    store = EmbeddedStore(store_dir)
    with store:
        failing = _FailingBulk(store._store, fail_at=2)
        store._store = failing  # type: ignore[assignment]
        seen = []
        with pytest.raises(loader.IngestStopped) as stopped:
            for outcome in loader.ingest_files(store, corpus, NOW):
                seen.append(outcome.status)
        assert failing.loads == 2 and seen and set(seen) == {"loaded"}  # a group was in
        assert stopped.value.emptied and stopped.value.path == str(corpus[0])
        assert "No space left on device" in str(stopped.value)
        assert "the store is empty again" in str(stopped.value)
        assert next(store.quads(), None) is None
    failing._store = None  # type: ignore[assignment]  # let go of pyoxigraph's store, and its lock
    assert not (store_dir / EmbeddedStore.LOAD_FILE).exists()
    with EmbeddedStore(store_dir) as again:  # and the batch loads the next time
        statuses = {o.status for o in loader.ingest_files(again, corpus, NOW)}
        assert statuses == {"loaded"}
        assert again.check_view().exact


def test_the_command_says_nothing_was_kept(
    corpus: list[Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    made: list[_FailingBulk] = []

    def failing_store(location: str, **options: Any) -> EmbeddedStore:
        store = EmbeddedStore(location)
        made.append(_FailingBulk(store._store, fail_at=2))
        store._store = made[-1]  # type: ignore[assignment]
        return store

    monkeypatch.setattr(cli_ingest, "opened", failing_store)
    store_dir = tmp_path / "store"
    code = cli.main(["ingest", "--quiet", "--store", str(store_dir), str(corpus[0].parent)])
    err = capsys.readouterr()
    made[0]._store = None  # type: ignore[assignment]  # let go of pyoxigraph's store, and its lock
    assert code == EXIT_ERROR
    said = f"the {PAGES} files were loaded at once into an empty store, so none of them is kept"
    assert said in err.err
    assert "loaded, 0 unchanged" not in err.out  # no summary that counts pages as loaded
    with EmbeddedStore(store_dir, read_only=True) as store:
        assert next(store.quads(), None) is None


def kill_during_load(folder: Path, store_dir: Path, rng: random.Random) -> int:
    """Start ``benchgraph ingest`` of ``folder`` into the empty ``store_dir`` and kill -9 it a
    random moment after the first group is reported loaded; return how many pages were
    reported (the store then holds a part of the batch)."""
    proc, master = ingest_on_terminal(folder, store_dir)
    seen, done, deadline = "", 0, time.monotonic() + PATIENCE
    try:
        while proc.poll() is None and not done and time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if ready:
                try:
                    seen = (seen + os.read(master, 65536).decode(errors="replace"))[-4096:]
                except OSError:  # the terminal closed: the command ended
                    break
                done = max((int(m[1]) for m in PROGRESS.finditer(seen)), default=0)
        time.sleep(rng.uniform(0.0, 0.5))
        proc.kill()
        proc.wait(timeout=30)
    finally:
        os.close(master)
    assert proc.returncode == -9, f"the ingest ended before the kill (exit {proc.returncode})"
    return done


def test_kill_9_during_a_first_load_leaves_an_empty_store(
    corpus: list[Path], tmp_path: Path
) -> None:
    folder = corpus[0].parent
    store_dir = tmp_path / "store"
    reported = kill_during_load(folder, store_dir, random.Random("first-load"))
    assert 0 < reported < PAGES
    assert (store_dir / EmbeddedStore.LOAD_FILE).exists()
    held = ox.Store.read_only(str(store_dir))  # what is on disk: a part of the batch
    assert next(iter(held.quads_for_pattern(None, None, None, ox.NamedNode(graphs.VERSIONS))), None)
    del held
    with pytest.raises(StoreError, match="stopped half-way"):
        EmbeddedStore(store_dir, read_only=True)
    # A command that only reads is refused, and empties nothing: the part is still there.
    for command in (("query", "benchmarks"), ("audit",), ("export",)):
        refused = run_cli(*command, store=store_dir)
        assert refused.returncode == 2 and "stopped half-way" in refused.stderr, refused
        assert "(0 rows)" not in refused.stdout
    held = ox.Store.read_only(str(store_dir))
    assert next(iter(held.quads_for_pattern(None, None, None, ox.NamedNode(graphs.VERSIONS))), None)
    del held
    done = run_cli("ingest", "--quiet", str(folder), store=store_dir)
    assert done.returncode == 0, done.stderr
    assert "holds part of a first ingest that stopped half-way; emptying it" in done.stderr
    assert done.stdout.startswith(f"{PAGES} loaded, 0 unchanged, 0 refused")
    with EmbeddedStore(store_dir, read_only=True) as store:
        assert store.check_view().exact
        assert len([g for g in store.named_graphs() if graphs.is_page(g)]) == PAGES
