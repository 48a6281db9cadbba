"""The merged view: the default graph holds each distinct triple of the page graphs exactly once,
kept so by every write, on an embedded store, a plain Oxigraph server and one whose default graph
is the union of its graphs. Expected figures are computed from the page graphs themselves (and,
with the seeds beside the checkout, the published counts are pinned as well)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pyoxigraph as ox
import pytest
from support import EXAMPLES, SEEDS, run_cli
from support.oxiserver import FaultProxy, OxigraphServer, update

from benchgraph import answering, graphs, iris, queries
from benchgraph import vocab as V
from benchgraph.store import OutdatedStore, Store, StoreError
from benchgraph.store.embedded import EmbeddedStore
from benchgraph.store.remote import Endpoints, RemoteStore
from benchgraph.store.writes import in_view, statement
from ingest.loader import ingest_file
from ingest.removal import page_name, remove_pages

PAGES = SEEDS if SEEDS.is_dir() else EXAMPLES
EDITOR = ox.NamedNode(V.ID + "method/editor")
LABEL = ox.NamedNode(V.label)
TYPE = ox.NamedNode(V.RDF + "type")
PREFIXES = "PREFIX bg: <https://w3id.org/benchgraph/ns#>\n" + (
    "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n"
)


def load(store: Store, folder: Path = PAGES) -> None:
    for path in sorted(folder.iterdir()):
        outcome = ingest_file(store, path, now="2026-11-29T12:00:00Z")
        assert outcome.status == "loaded", outcome.message


def page_union(store: Store) -> set[ox.Triple]:
    """The set-union of the page graphs, read graph by graph."""
    return {t for g in store.named_graphs() if graphs.is_page(g) for t in store.graph_triples(g)}


def count(store: Store, where: str) -> int:
    answer = store.query(f"{PREFIXES}SELECT (COUNT(*) AS ?n) WHERE {{ {where} }}")
    assert isinstance(answer, ox.QuerySolutions)
    n = next(iter(answer))["n"]
    assert isinstance(n, ox.Literal)
    return int(n.value)


def assert_view_exact(store: Store) -> None:
    view = list(store.graph_triples(None))
    assert len(view) == len(set(view))
    assert set(view) == page_union(store)
    check = store.check_view()
    assert check.exact, check.text()


@pytest.fixture(scope="module")
def union_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OxigraphServer]:
    """An Oxigraph server whose default graph is the union of its graphs, like Virtuoso's."""
    server = OxigraphServer(
        tmp_path_factory.mktemp("union"), options=("--union-default-graph",)
    ).start()
    yield server
    server.kill()


@pytest.fixture(params=["embedded", "remote", "union", "virtuoso"])
def store(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Store]:
    """An empty store: embedded, on a plain Oxigraph server, on a union-default one, or on
    Virtuoso (whose default graph is the union too)."""
    monkeypatch.setenv("BENCHGRAPH_STORE_RETRIES", "1")
    opened: Store
    if request.param == "embedded":
        opened = EmbeddedStore(tmp_path / "store")
    elif request.param == "virtuoso":
        opened = RemoteStore.from_settings(request.getfixturevalue("virtuoso").use(monkeypatch))
    else:
        if request.param == "remote":
            url = request.getfixturevalue("remote").url
        else:
            url = request.getfixturevalue("union_server").url
        update(url.rsplit("/", 1)[0], "DROP ALL")
        opened = RemoteStore.from_settings(url)
    yield opened
    opened.close()


def test_counts_and_joins_are_exact_without_distinct(store: Store) -> None:
    load(store)
    union = page_union(store)
    methods = {t.subject for t in union if t.predicate == TYPE and t.object.value == V.Method}
    results = {t.subject for t in union if t.predicate == TYPE and t.object.value == V.Result}
    assert count(store, "?m a bg:Method") == len(methods)
    assert count(store, "?r a bg:Result") == len(results)
    assert count(store, "?r a bg:Result ; bg:method ?m . ?m rdfs:label ?l") == len(results)
    if PAGES == SEEDS:  # the founding pages' own figures
        assert (len(methods), len(results)) == (44, 321)
        assert count(store, '?m rdfs:label "EDITOR"') == 1


def test_the_view_is_the_set_union_of_the_page_graphs(store: Store) -> None:
    load(store)
    assert_view_exact(store)


def test_graph_reaches_each_pages_own_statements(store: Store) -> None:
    load(store)
    stating = {
        g
        for g in store.named_graphs()
        if graphs.is_page(g)
        and ox.Triple(EDITOR, TYPE, ox.NamedNode(V.Method)) in set(store.graph_triples(g))
    }
    answer = store.query(
        f"{PREFIXES}SELECT ?g WHERE {{ GRAPH ?g {{ <{EDITOR.value}> a bg:Method }} }}"
    )
    assert isinstance(answer, ox.QuerySolutions)
    found = [row["g"].value for row in answer]  # type: ignore[union-attr]
    assert sorted(found) == sorted(stating)
    if PAGES == SEEDS:
        assert len(found) > 1  # EDITOR is named by several founding pages


def test_a_changed_page_leaves_only_what_no_page_states_any_more(
    store: Store, tmp_path: Path
) -> None:
    load(store)
    page = next(p for p in sorted(PAGES.iterdir()) if p.read_text(encoding="utf-8").startswith("#"))
    text = page.read_text(encoding="utf-8")
    title = text.splitlines()[0]
    changed = tmp_path / page.name
    changed.write_text(text.replace(title, title + " (revised)", 1), encoding="utf-8")
    before = set(store.graph_triples(None))
    outcome = ingest_file(store, changed, now="2026-11-30T12:00:00Z")
    assert outcome.status == "loaded", outcome.message
    assert_view_exact(store)
    after = set(store.graph_triples(None))
    assert before - after and after - before  # its ingest time and title changed, at least
    gone = before - after
    assert not gone & page_union(store)


def test_removing_a_page_withdraws_only_its_own_statements(store: Store) -> None:
    load(store)
    pages = [g for g in store.named_graphs() if graphs.is_page(g)]
    removed = pages[0]
    own = set(store.graph_triples(removed))
    others = {t for g in pages[1:] for t in store.graph_triples(g)}
    store.remove_graph(removed)
    view = set(store.graph_triples(None))
    assert view == others
    assert own & others <= view  # what another page states stays
    assert not (own - others) & view
    assert_view_exact(store)


def test_removing_a_page_takes_its_report_and_only_its_own_statements(store: Store) -> None:
    load(store)
    pages = [g for g in store.named_graphs() if graphs.is_page(g)]
    removed = pages[0]
    others = {t for g in pages[1:] for t in store.graph_triples(g)}
    key = unquote(removed[len(graphs.PAGES) :])
    (outcome,) = remove_pages(store, [page_name(iris.source(key))])
    assert (outcome.status, outcome.graph) == ("removed", removed)
    assert removed not in store.named_graphs()
    assert graphs.report(removed) not in store.named_graphs()
    assert set(store.graph_triples(None)) == others
    assert_view_exact(store)


def test_a_damaged_view_is_found_and_repaired(store: Store) -> None:
    load(store)
    view = sorted(store.graph_triples(None), key=str)
    lost, stray = view[0], ox.Triple(EDITOR, LABEL, ox.Literal("stated by no page"))
    store.update("damaging the view", f"DELETE DATA {{ {in_view(statement(lost), store.view)} }}")
    store.update("damaging the view", f"INSERT DATA {{ {in_view(statement(stray), store.view)} }}")
    check = store.check_view()
    assert (check.missing, check.extra) == ((lost,), (stray,))
    store.repair_view()
    assert_view_exact(store)


def test_a_store_of_the_earlier_layout_is_upgraded_once(tmp_path: Path) -> None:
    folder = tmp_path / "old"
    with EmbeddedStore(folder) as store:
        load(store)
        pages = page_union(store)
    earlier = ox.Store(str(folder))  # as the earlier version left it: no view, no layout file
    earlier.clear_graph(ox.DefaultGraph())
    earlier.flush()
    del earlier
    (folder / EmbeddedStore.LAYOUT_FILE).unlink()
    with pytest.raises(OutdatedStore, match="benchgraph repair"):
        EmbeddedStore(folder, read_only=True)
    told: list[str] = []
    with EmbeddedStore(folder, notify=told.append) as store:
        assert set(store.graph_triples(None)) == pages
    assert told and "earlier version" in told[0]
    with EmbeddedStore(folder, notify=told.append) as store:  # once: not again
        assert store.check_view().exact
    assert len(told) == 2


def test_the_cli_upgrades_a_store_of_the_earlier_layout_and_says_so(tmp_path: Path) -> None:
    folder = tmp_path / "old"
    with EmbeddedStore(folder) as store:
        load(store)
    earlier = ox.Store(str(folder))
    earlier.clear_graph(ox.DefaultGraph())
    del earlier
    (folder / EmbeddedStore.LAYOUT_FILE).unlink()
    checked = run_cli("repair", "--check", "--store", str(folder))
    assert "earlier version" in checked.stderr
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "holds each triple of the page graphs once" in checked.stdout


def test_repair_check_exits_1_on_a_damaged_view_and_repair_mends_it(tmp_path: Path) -> None:
    folder = tmp_path / "store"
    with EmbeddedStore(folder) as store:
        load(store, EXAMPLES)
        stray = ox.Triple(EDITOR, LABEL, ox.Literal("stated by no page"))
        store.update("damaging the view", f"INSERT DATA {{ {statement(stray)} }}")
    checked = run_cli("repair", "--check", "--store", str(folder))
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "1 triples in it are stated by no page" in checked.stdout
    validated = run_cli("validate", "--store", str(folder))
    assert validated.returncode == 1
    assert "benchgraph repair" in validated.stdout
    repaired = run_cli("repair", "--store", str(folder))
    assert repaired.returncode == 0, repaired.stderr
    assert "removed 1 stated by none" in repaired.stdout
    assert run_cli("repair", "--check", "--store", str(folder)).returncode == 0


def test_a_remote_store_of_the_earlier_layout_is_upgraded(remote: Any) -> None:
    url = str(remote.url)
    base = url.rsplit("/", 1)[0]
    update(base, "DROP ALL")
    with RemoteStore.from_settings(url) as store:
        load(store)
        pages = page_union(store)
    update(base, "DROP DEFAULT")  # as the earlier version left it: page graphs only
    with pytest.raises(OutdatedStore, match="benchgraph repair"):
        RemoteStore.from_settings(url, read_only=True)
    told: list[str] = []
    with RemoteStore.from_settings(url, notify=told.append) as store:
        assert set(store.graph_triples(None)) == pages
        assert store.check_view().exact
    assert told


def test_on_a_union_default_server_the_view_is_a_named_graph_of_its_own(
    union_server: OxigraphServer,
) -> None:
    union_server.clear()
    with RemoteStore.from_settings(union_server.url) as store:
        load(store)
        assert store.view == graphs.VIEW
        assert graphs.VIEW not in store.named_graphs()
        assert_view_exact(store)
    # Another client opening the same server reads where the view is from the data.
    with RemoteStore.from_settings(union_server.url) as again:
        assert again.view == graphs.VIEW
        assert count(again, "?r a bg:Result") == len(
            {t.subject for t in page_union(again) if t.object.value == V.Result}
        )


def test_named_queries_answer_alike_on_every_kind_of_store(store: Store, tmp_path: Path) -> None:
    """The same rows on each, Virtuoso among them."""
    with EmbeddedStore(tmp_path / "reference") as reference:
        load(reference)
        load(store)
        for named in queries.catalogue().values():
            if any(p.required for p in named.params):
                continue
            expected = answering.answer(reference, named, {})
            got = answering.answer(store, named, {})
            assert isinstance(expected, ox.QuerySolutions)
            assert isinstance(got, ox.QuerySolutions)
            assert sorted(map(str, got)) == sorted(map(str, expected)), named.name


def test_a_union_server_that_ignores_the_dataset_is_refused(
    union_server: OxigraphServer,
) -> None:
    union_server.clear()
    with RemoteStore.from_settings(union_server.url) as store:
        load(store, EXAMPLES)
    proxy = FaultProxy(union_server.base)
    proxy.faults.strip_dataset = True
    try:
        with pytest.raises(StoreError, match="ignores default-graph-uri"):
            RemoteStore(Endpoints.of(proxy.url, f"{union_server.base}/update"))
    finally:
        proxy.close()
