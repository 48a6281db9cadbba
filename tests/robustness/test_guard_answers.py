"""The guard never changes an answer: a query it lets through is answered as the engine alone
answers it on the same store, through ``/sparql``, through ``benchgraph query`` on a folder and
on a folder a server holds; what it refuses is refused on every path. SERVICE reaches nothing:
a loopback listener sees no connection, while the engine alone, asked the same, connects."""

from __future__ import annotations

import json
import socket
import threading
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import await_holding, copy_store, run_cli
from support.live import Live, fetch, query_url

from benchgraph import vocab as V
from benchgraph.store import holder
from benchgraph.store.embedded import EmbeddedStore
from benchgraph.store.served import owner_url
from server.guard import Refused, inspect

# Graphs whose names a wrong reading of FROM mixes up: another case, the '#' lost, the base
# ignored. Each holds one value of its own, so a wrong reading answers other rows.
GRAPHS = {
    "http://example.org/g1": "g1",
    "http://example.org/graphs#g1": "hash-g1",
    "http://example.org/graphs": "graphs",
    "urn:x:graphs/g1": "urn-g1",
}
S, P = "http://example.org/s", "http://example.org/p"
DATA = " ".join(f'GRAPH <{g}> {{ <{S}> <{P}> "{v}" }}' for g, v in GRAPHS.items())
# In the default graph: a subject named by a relative IRI against the CLI's base (the store's
# resources' base), and one a query with a prefix holding "service" reads.
DEFAULT = f'<{V.ID}x> <{P}> "relative" . <{S}> <{P}> "default"'

FROM_QUERIES = [
    "PREFIX gr: <http://example.org/graphs#> SELECT ?o FROM gr:g1 WHERE { ?s ?p ?o }",
    "BASE <urn:x:graphs/> SELECT ?o FROM <g1> WHERE { ?s ?p ?o }",
    "SELECT ?o FROM <http://example.org/g1> WHERE { ?s ?p ?o }",
    "BASE <http://example.org/> SELECT ?o FROM NAMED <graphs#g1> WHERE { GRAPH ?g { ?s ?p ?o } }",
]
WEBSERVICE = "PREFIX webservice: <http://example.org/> SELECT ?o WHERE { ?s webservice:p ?o }"
# SPARQL 1.2 (isTRIPLE), which the guard's parser cannot read: it goes to the engine unchanged.
UNREAD = "SELECT ?o FROM <http://example.org/graphs#g1> WHERE { ?s ?p ?o FILTER(!isTRIPLE(?o)) }"
UNKNOWN_FUNCTION = "SELECT * WHERE { ?s ?p ?o FILTER(<http://example.org/f>(?o)) }"
JSON = "application/sparql-results+json"


@pytest.fixture(scope="module")
def graphs_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("guard") / "store"
    with EmbeddedStore(folder) as store:
        store.update("adding the test graphs", f"INSERT DATA {{ {DATA} {DEFAULT} }}")
    return folder


@pytest.fixture(scope="module")
def served(graphs_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """A copy of the store, served (the original stays free for the engine alone to read)."""
    copy = copy_store(graphs_store, tmp_path_factory.mktemp("served") / "store")
    live = Live(copy)
    await_holding(live.process, copy)
    yield live
    assert live.stop() == 0


class Listener:
    """A loopback port that accepts and closes every connection, counting them."""

    def __init__(self) -> None:
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}/"
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.socket.accept()
            except OSError:
                return  # closed
            self.connections += 1
            conn.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    found = Listener()
    yield found
    found.socket.close()


Rows = list[tuple[str, ...]]


def rows_of(document: bytes) -> Rows:
    """The rows of a SPARQL JSON answer, each term as N-Triples, in a stable order."""
    answer = ox.parse_query_results(document, ox.QueryResultsFormat.JSON)
    assert isinstance(answer, ox.QuerySolutions)
    names = [v.value for v in answer.variables]
    return sorted(tuple(str(row[n]) for n in names) for row in answer)


def engine_rows(folder: Path, query: str, base_iri: str) -> Rows:
    """The engine alone: pyoxigraph on the store folder, no guard."""
    store = ox.Store.read_only(str(folder))
    answer = store.query(query, base_iri=base_iri)
    assert isinstance(answer, ox.QuerySolutions)
    document = answer.serialize(format=ox.QueryResultsFormat.JSON)
    del store
    assert document is not None
    return rows_of(document)


def endpoint(live: Live, query: str) -> Any:
    return fetch(query_url(live.sparql, query=query), Accept=JSON)


def cli_rows(folder: Path, query: str) -> Rows:
    done = run_cli("query", query, "--format", "json", store=folder)
    assert done.returncode == 0, done.stderr
    return rows_of(done.stdout.encode())


@pytest.mark.parametrize("query", FROM_QUERIES)
def test_from_is_answered_as_the_engine_answers(graphs_store: Path, served: Live, query: str):
    expected = engine_rows(graphs_store, query, served.sparql)
    assert len(expected) == 1  # one graph's one value: another reading answers another row
    reply = endpoint(served, query)
    assert reply.status == 200, reply.text
    assert rows_of(reply.body) == expected
    for folder in (graphs_store, Path(served.store)):  # on its own, and held by the server
        assert cli_rows(folder, query) == engine_rows(graphs_store, query, V.ID)


def test_a_graph_the_store_lacks_is_refused_never_swapped(graphs_store: Path, served: Live):
    query = "SELECT ?o FROM <HTTP://example.org/g1> WHERE { ?s ?p ?o }"
    assert engine_rows(graphs_store, query, served.sparql) == []  # no such graph
    reply = endpoint(served, query)
    assert reply.status == 400, reply.text
    assert reply.json()["graph"] == "HTTP://example.org/g1"
    assert "not a graph of this store" in reply.json()["error"]
    assert cli_rows(graphs_store, query) == []  # the CLI answers as the engine does


@pytest.mark.parametrize("query", [WEBSERVICE, UNREAD])
def test_what_only_looks_like_service_or_is_unread_runs(graphs_store: Path, served: Live, query):
    expected = engine_rows(graphs_store, query, served.sparql)
    assert expected
    reply = endpoint(served, query)
    assert reply.status == 200, reply.text
    assert rows_of(reply.body) == expected
    for folder in (graphs_store, Path(served.store)):
        assert cli_rows(folder, query) == expected


def test_relative_iris_in_the_cli_name_the_stores_resources(graphs_store: Path, served: Live):
    query = "SELECT ?o WHERE { <x> ?p ?o }"
    expected = engine_rows(graphs_store, query, V.ID)
    assert expected == [('"relative"',)]
    for folder in (graphs_store, Path(served.store)):
        assert cli_rows(folder, query) == expected


def owner_query(folder: Path, query: str) -> Any:
    """``query`` sent to the owner's path of the server holding ``folder``, with its secret."""
    record = holder.read(folder)
    assert record is not None and record.secret
    url = owner_url(record)
    assert url is not None
    body = urllib.parse.urlencode({"query": query}).encode()
    return fetch(url + "query", body, Authorization=f"Bearer {record.secret}")


def test_service_is_refused_on_every_path(graphs_store: Path, served: Live, listener: Listener):
    query = f"SELECT * WHERE {{ SERVICE <{listener.url}> {{ ?s ?p ?o }} }}"
    reply = endpoint(served, query)
    assert reply.status == 400 and "SERVICE" in reply.json()["error"]
    owner = owner_query(Path(served.store), query)
    assert owner.status == 400, owner.text
    assert owner.json()["ok"] is False and "SERVICE" in owner.json()["error"]
    for folder in (graphs_store, Path(served.store)):
        done = run_cli("query", query, store=folder)
        assert done.returncode == 2
        assert done.stderr == (
            "benchgraph: error: the query text: SERVICE (federated query) is not allowed: "
            "queries are answered from this store alone\n"
        )
    assert listener.connections == 0
    # The engine alone would have called it.
    with pytest.raises(OSError):
        engine_rows(graphs_store, query, V.ID)
    assert listener.connections > 0


def test_an_unknown_function_is_a_one_line_error(graphs_store: Path, served: Live) -> None:
    reply = endpoint(served, UNKNOWN_FUNCTION)
    assert reply.status == 400
    assert "could not be evaluated" in reply.json()["error"]
    owner = owner_query(Path(served.store), UNKNOWN_FUNCTION)
    assert owner.status == 400 and "could not be evaluated" in owner.json()["error"]
    for folder in (graphs_store, Path(served.store)):
        done = run_cli("query", UNKNOWN_FUNCTION, store=folder)
        assert done.returncode == 2
        assert done.stderr.startswith("benchgraph: error: the query text: ")
        assert "could not be evaluated" in done.stderr
        assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert endpoint(served, "ASK {}").status == 200  # the server is still well


# Generated queries: whatever the guard lets through, the engine alone does not call out for.
# Patterns that call a service, written the ways the engine takes (glued, prefixed, in a
# FILTER or an OPTIONAL), beside look-alikes in strings, comments, IRIs and names.
KEYWORDS = ["SERVICE", "service", "SERVICE SILENT", "SERVICESILENT", "Service silent"]
TARGETS = ["<{t}>", ":x", "x:y", "?t"]
NOISE = [
    "?s ?p 'SERVICE <{t}> {{ }}' .",
    '?s ?p """SERVICE\n<{t}> {{}}""" .',
    "# SERVICE <{t}> {{ }}\n",
    "?s <http://e/service#p> ?o .",
    "?s webservice:p ?o .",
    "?s ?p ?service .",
    "FILTER(?o < 3)",
    "?s ?p ?o .",
    "?s ?p true",
    "?s ?p 1",
    "?s ?p ?o",
]


@st.composite
def patterns(draw: st.DrawFn, target: str, depth: int = 0) -> str:
    kind = draw(st.sampled_from(["service", "glued", "noise", "noise", "nested"]))
    if kind == "service":
        keyword = draw(st.sampled_from(KEYWORDS))
        called = draw(st.sampled_from(TARGETS)).format(t=target)
        space = draw(st.sampled_from([" ", "", "\n"]))
        return f"{keyword}{space}{called} {{ ?s ?p ?o }}"
    if kind == "glued":  # an object glued to the keyword, as a prefixed name may be
        word = draw(st.sampled_from(["true", "false", "web", ""]))
        called = draw(st.sampled_from(["service:x", "SERVICE:x", "servicex:y", "service <{t}>"]))
        return f"?s ?p {word}{called.format(t=target)} {{ ?s ?p ?o }}"
    if kind == "nested" and depth < 2:
        inner = " ".join(draw(st.lists(patterns(target, depth + 1), min_size=1, max_size=3)))
        shape = draw(st.sampled_from(["{{ {} }}", "OPTIONAL {{ {} }}", "FILTER EXISTS {{ {} }}"]))
        return shape.format(inner)
    return draw(st.sampled_from(NOISE)).format(t=target)


@st.composite
def queries(draw: st.DrawFn, target: str) -> str:
    body = " ".join(draw(st.lists(patterns(target), min_size=1, max_size=4)))
    declared = draw(st.sampled_from(DECLARED))
    prologue = f"PREFIX : <{target}> PREFIX x: <{target}> {declared}"
    return f"{prologue}SELECT * WHERE {{ ?a ?b ?c {body} }} VALUES ?t {{ <{target}> }}"


DECLARED = [
    "PREFIX webservice: <http://e/> ",
    "PREFIX trueservice: <http://e/> PREFIX webservice: <http://e/> ",
    "PREFIX service: <http://e/> PREFIX webservice: <http://e/> ",
]


def calls_out(query: str, listener: Listener) -> bool:
    """Whether the engine alone, over a store in memory holding one triple, connects."""
    before = listener.connections
    store = ox.Store()
    store.add(ox.Quad(ox.NamedNode(S), ox.NamedNode(P), ox.Literal(True)))
    try:
        answer = store.query(query)
        if isinstance(answer, ox.QuerySolutions):
            list(answer)
    except (OSError, SyntaxError, RuntimeError, ValueError):
        pass
    return listener.connections > before


def test_the_generated_queries_can_call_out(listener: Listener) -> None:
    glued = f"PREFIX : <{listener.url}> SELECT * WHERE {{ ?a ?b trueservice:x {{ ?s ?p ?o }} }}"
    assert calls_out(glued, listener)  # the check below can fail
    with pytest.raises(Refused):
        inspect(glued)


@given(st.data())
def test_what_the_guard_lets_through_never_calls_out(data: st.DataObject) -> None:
    listener = Listener()
    try:
        query = data.draw(queries(listener.url))
        try:
            inspect(query)
        except Refused:
            return
        assert not calls_out(query, listener), query
    finally:
        listener.socket.close()


def test_a_refused_query_leaves_the_owners_path_working(served: Live) -> None:
    reply = owner_query(
        Path(served.store), "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"
    )
    assert reply.status == 200, reply.text
    (row,) = json.loads(reply.body)["results"]["bindings"]
    assert int(row["n"]["value"]) == len(GRAPHS)
