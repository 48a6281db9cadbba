"""A batch ingested into a server goes through its bulk path (benchgraph/store/bulk.py) and
leaves exactly what the same batch leaves in an embedded store: the same graphs holding the
same triples, the merged view the union of the page graphs, the same versions catalogue. A
refused page writes nothing, a second version is kept as before, and a write that fails
half-way leaves every page either whole or absent."""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest
from stores.conftest import Remote
from support.oxiserver import FaultProxy

from bench.generate import generate
from bench.history import revise
from benchgraph import answering, graphs, queries, versions
from benchgraph import vocab as V
from benchgraph.outcomes import Outcome
from benchgraph.store import Store
from benchgraph.store.bulk import LEAST_PAGES
from benchgraph.store.embedded import EmbeddedStore
from benchgraph.store.remote import Endpoints, RemoteStore
from ingest.loader import IngestStopped, ingest_files

NOW = "2026-11-29T12:00:00Z"
LATER = "2026-12-01T12:00:00Z"
PAGES = 12  # a batch of several groups' pages, several moves' on Virtuoso
ACTIVITY = V.ID + "ingest/"
ENDED = ox.NamedNode(V.endedAtTime)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Generated pages, enough for one group through the bulk path."""
    folder = tmp_path_factory.mktemp("corpus")
    generate(folder, PAGES, seed=3)
    return folder / "pages"


@pytest.fixture
def remote_store(server: Remote, monkeypatch: pytest.MonkeyPatch) -> Iterator[RemoteStore]:
    """An emptied store on each server."""
    monkeypatch.setenv("BENCHGRAPH_STORE_RETRIES", "1")
    store = RemoteStore.from_settings(server.use(monkeypatch))
    store.client.backoff = 0.05
    yield store
    store.close()


def ingest(store: Store, pages: list[Path], now: str = NOW) -> list[Outcome]:
    return list(ingest_files(store, pages, now=now))


def holdings(store: Store) -> dict[str, frozenset[ox.Triple]]:
    """Every graph of the store with its triples (the view under "view"), blank nodes left out
    (their labels are the store's own), and each ingest activity named by its start alone
    (its IRI ends in a random token) with its end time left out (the clock's)."""
    named = {g: store.graph_triples(g) for g in store.named_graphs()}
    found = {**named, "view": store.graph_triples(None)}
    return {
        name: frozenset(_normal(t) for t in triples if not _blank(t) and t.predicate != ENDED)
        for name, triples in found.items()
    }


def _normal(triple: ox.Triple) -> ox.Triple:
    def term(node: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple) -> object:
        if isinstance(node, ox.NamedNode) and node.value.startswith(ACTIVITY):
            return ox.NamedNode(node.value.rpartition("-")[0])
        return node

    return ox.Triple(term(triple.subject), triple.predicate, term(triple.object))  # type: ignore[arg-type]


def sizes(store: Store) -> dict[str, int]:
    """How many triples each graph holds, the view's too (blank nodes included)."""
    return {**store.graph_sizes(), "view": sum(1 for _ in store.graph_triples(None))}


def _blank(triple: ox.Triple) -> bool:
    return isinstance(triple.subject, ox.BlankNode) or isinstance(triple.object, ox.BlankNode)


def test_a_batch_goes_through_the_bulk_path_and_holds_what_the_embedded_store_holds(
    corpus: Path, remote_store: RemoteStore, tmp_path: Path
) -> None:
    pages = sorted(corpus.iterdir())
    with EmbeddedStore(str(tmp_path / "store")) as embedded:
        expected = ingest(embedded, pages)
        wanted, counted = holdings(embedded), sizes(embedded)
    outcomes = ingest(remote_store, pages)
    assert [(o.origin, o.status, o.message) for o in outcomes] == [
        (o.origin, o.status, o.message) for o in expected
    ]
    assert remote_store._bulk is not None and remote_store._bulk.mode in ("dataset", "graphs")
    assert holdings(remote_store) == wanted
    assert sizes(remote_store) == counted
    assert remote_store.check_view().exact


def test_a_refused_page_writes_nothing(
    corpus: Path, remote_store: RemoteStore, tmp_path: Path
) -> None:
    folder = tmp_path / "pages"
    shutil.copytree(corpus, folder)
    broken = sorted(folder.iterdir())[2]
    broken.write_text(broken.read_text(encoding="utf-8").replace("Model", "", 40)[:400])
    outcomes = ingest(remote_store, sorted(folder.iterdir()))
    refused = [o for o in outcomes if o.status != "loaded"]
    assert [o.origin for o in refused] == [str(broken)]
    stored = {g for g in remote_store.named_graphs() if graphs.is_page(g)}
    assert stored == {o.graph for o in outcomes if o.status == "loaded"}
    assert len(stored) == PAGES - 1
    assert remote_store.check_view().exact


def test_a_second_ingest_of_changed_pages_versions_them_as_the_embedded_store_does(
    corpus: Path, remote_store: RemoteStore, tmp_path: Path
) -> None:
    first = sorted(corpus.iterdir())
    second = tmp_path / "second"
    second.mkdir()
    rng = random.Random(5)
    for path in first:
        revised = revise(path.read_text(encoding="utf-8"), rng, LATER[:10])
        if revised is not None:  # a sota2 page
            (second / path.name).write_text(revised[0], encoding="utf-8")
    changed = len(list(second.iterdir()))
    assert changed >= max(LEAST_PAGES, 2)  # a group of changes through the bulk path
    with EmbeddedStore(str(tmp_path / "store")) as embedded:
        ingest(embedded, first)
        expected = ingest(embedded, sorted(second.iterdir()), LATER)
        wanted, counted = holdings(embedded), sizes(embedded)
    ingest(remote_store, first)
    outcomes = ingest(remote_store, sorted(second.iterdir()), LATER)
    assert [o.status for o in outcomes] == [o.status for o in expected] == ["loaded"] * changed
    assert any(graphs.is_history(g) for g in remote_store.named_graphs())
    assert holdings(remote_store) == wanted
    assert sizes(remote_store) == counted
    assert remote_store.check_view().exact


class RefusingProxy(FaultProxy):
    """A proxy that refuses POSTs to the Graph Store endpoint: N-Quads with 415 (a server
    that takes one graph per request), and, from the ``fail_from``-th graph POST on, every
    one with 503 (a server that went away half-way)."""

    def __init__(self, target: str, fail_from: int = 0, fail_moves_from: int = 0) -> None:
        super().__init__(target)
        self.fail_from = fail_from
        self.fail_moves_from = fail_moves_from  # from the Nth move request on, 400
        self.graph_posts = 0
        self.moves = 0

    def handle(self, handler, body):  # type: ignore[no-untyped-def]
        if body is not None and b"MOVE SILENT GRAPH" in body:
            self.moves += 1
            if self.fail_moves_from and self.moves >= self.fail_moves_from:
                handler.send_response(400)
                handler.send_header("Content-Length", "0")
                handler.end_headers()
                return
        super().handle(handler, body)

    def _refusal(self, handler):  # type: ignore[no-untyped-def]
        if handler.command == "POST" and handler.path.startswith("/store"):
            if "graph=" not in handler.path:
                return 415
            self.graph_posts += 1
            if self.fail_from and self.graph_posts >= self.fail_from:
                return 503
        return super()._refusal(handler)


def proxied(server: Remote, proxy: FaultProxy, statements: int = 0) -> RemoteStore:
    """A store on ``server`` whose queries, updates and bulk POSTs go through ``proxy``."""
    base, bulk = proxy.url.rsplit("/", 1)[0], proxy.url.replace("/query", "/store")
    store = RemoteStore(
        Endpoints(proxy.url, f"{base}/update", f"{server.base}/store", bulk),
        retries=1,
        request_statements=statements,
    )
    store.client.backoff = 0.05
    return store


def test_a_server_taking_one_graph_per_request_is_staged_graph_by_graph(
    corpus: Path, remote: Remote, tmp_path: Path
) -> None:
    remote.clear()
    proxy = RefusingProxy(remote.base)
    try:
        store = proxied(remote, proxy)
        with EmbeddedStore(str(tmp_path / "store")) as embedded:
            ingest(embedded, sorted(corpus.iterdir()))
            wanted = holdings(embedded)
        ingest(store, sorted(corpus.iterdir()))
        assert store._bulk is not None and store._bulk.mode == "graphs"
        assert proxy.graph_posts >= 2 * PAGES  # each page's graph and report, staged
        assert holdings(store) == wanted
        assert not [g for g in _all_graphs(store) if g.startswith(graphs.STAGING)]
    finally:
        proxy.close()


def test_a_write_that_fails_half_way_leaves_no_half_page(
    corpus: Path, remote: Remote, tmp_path: Path
) -> None:
    remote.clear()
    proxy = RefusingProxy(remote.base, fail_from=PAGES)  # the probe, then half the staging
    try:
        store = proxied(remote, proxy)
        with pytest.raises(IngestStopped) as stopped:
            ingest(store, sorted(corpus.iterdir()))
        assert "503" in str(stopped.value)
        pages = [g for g in store.named_graphs() if graphs.is_page(g)]
        assert pages == []  # the group was still being staged: none of it is in place
        assert store.check_view().exact
        assert not [g for g in _all_graphs(store) if g.startswith(graphs.STAGING)]
        proxy.fail_from = 0
        outcomes = ingest(store, sorted(corpus.iterdir()))  # run again: all of it goes in
        assert [o.status for o in outcomes] == ["loaded"] * PAGES
        assert store.check_view().exact
    finally:
        proxy.close()


def _all_graphs(store: RemoteStore) -> list[str]:
    answer = store.query("SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }", default_graph=())
    assert isinstance(answer, ox.QuerySolutions)
    return [row["g"].value for row in answer]


def test_staged_blank_nodes_are_relabelled_and_literals_are_not() -> None:
    from benchgraph.store.bulk import _labelled

    lines = [
        '_:a <http://ex/p> "a _:b text ." .',
        "<http://ex/s> <http://ex/q> _:a .",
        '<http://ex/s> <http://ex/r> "_:c" .',
    ]
    assert _labelled(lines, "g1x") == [
        '_:g1xa <http://ex/p> "a _:b text ." .',
        "<http://ex/s> <http://ex/q> _:g1xa .",
        '<http://ex/s> <http://ex/r> "_:c" .',
    ]


def test_a_move_refused_after_others_leaves_each_page_whole_or_absent(
    corpus: Path, remote: Remote
) -> None:
    remote.clear()
    proxy = RefusingProxy(remote.base, fail_moves_from=2)
    try:
        store = proxied(remote, proxy, statements=300)  # a few pages per move request
        seen: list[Outcome] = []
        with pytest.raises(IngestStopped):
            for outcome in ingest_files(store, sorted(corpus.iterdir()), now=NOW):
                seen.append(outcome)
        stored = {g for g in store.named_graphs() if graphs.is_page(g)}
        assert 0 < len(stored) < PAGES
        assert stored == {o.graph for o in seen if o.status == "loaded"}
        held = store.graph_sizes()
        for graph in stored:  # each page there is whole: its report and catalogue entry too
            assert held[graphs.report(graph)] > 0
            assert versions.read(store, graphs.key_of(graph)).current is not None
        assert store.check_view().exact
    finally:
        proxy.close()


# More graphs than an answer may carry headers by http.client's default (100): Virtuoso echoes
# each graph a query names as a header of its answer.
MANY = 60


def test_a_query_naming_every_graph_of_a_store_of_many_pages_answers_as_embedded(
    remote_store: RemoteStore, tmp_path: Path
) -> None:
    """A query saying GRAPH is sent with every graph of the store named (page and report graphs:
    121 here); Virtuoso's answer then carries a header per graph. It answers with the embedded
    store's rows, as does Oxigraph's server."""
    generate(tmp_path / "many", MANY, seed=5)
    pages = sorted((tmp_path / "many" / "pages").iterdir())
    with EmbeddedStore(str(tmp_path / "store")) as embedded:
        ingest(embedded, pages)
        expected = _rows(embedded)
    ingest(remote_store, pages)
    assert len(remote_store.named_graphs()) > 2 * MANY
    assert _rows(remote_store) == expected and expected


def _rows(store: Store) -> list[tuple[str, ...]]:
    """The rows of the named query audit-findings (it says GRAPH), as text."""
    answer = answering.answer(store, queries.find("audit-findings"), {})
    assert isinstance(answer, ox.QuerySolutions)
    names = [v.value for v in answer.variables]
    return sorted(tuple(str(row[n]) if row[n] is not None else "" for n in names) for row in answer)
