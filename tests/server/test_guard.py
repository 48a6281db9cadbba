"""The query guard: what it refuses, what it lets through, and the dataset it reads, held to
what the engine itself reads of the same query."""

from __future__ import annotations

import pyoxigraph as ox
import pytest

from server.guard import MAX_DEPTH, Inspection, Refused, inspect, outside

ALLOWED = [
    # the word in strings, IRIs, comments, variables and names is harmless
    ("SELECT ?service WHERE { ?service ?p 'web service' }", "SELECT"),
    ('SELECT * WHERE { ?s ?p """SERVICE <http://x/> {}""" }', "SELECT"),
    ("SELECT * WHERE { ?s <http://example.org/service#name> ?o }", "SELECT"),
    ("# SERVICE <http://x/> {}\nASK { ?s ?p ?o }", "ASK"),
    ("PREFIX ex: <http://e/> SELECT * WHERE { ?s ex:service ?o }", "SELECT"),
    ("PREFIX webservice: <http://e/> SELECT * WHERE { ?s webservice:p ?o }", "SELECT"),
    ("PREFIX service: <http://x/> SELECT * WHERE { ?s service:p ?o }", "SELECT"),
    # declared, a prefix holding the word is read as a prefix by the engine too
    ("PREFIX trueservice: <http://e/> SELECT * WHERE { ?s ?p trueservice:x { } }", "SELECT"),
    ("SELECT * WHERE { ?s ?p ?o FILTER(?o < 3) }", "SELECT"),
    ("CONSTRUCT WHERE { ?s ?p ?o }", "CONSTRUCT"),
    ("describe <http://e/x>", "DESCRIBE"),
    ("SELEC * WHERE {}", None),  # left to the engine, which says where
]

REFUSED = [
    ("SELECT * WHERE { SERVICE <http://x/> { ?s ?p ?o } }", "SERVICE"),
    ("select * where { service silent <http://x/> {} }", "SERVICE"),
    ("SELECT * WHERE { SERVICE ?where { ?s ?p ?o } }", "SERVICE"),
    ("SELECT * WHERE { ?s ?p ?o FILTER EXISTS { SERVICE <http://x/> {} } }", "SERVICE"),
    ("SELECT * WHERE { { SELECT * WHERE { SERVICE <http://x/> {} } } }", "SERVICE"),
    ("PREFIX : <http://x/> SELECT * WHERE { service:g { ?s ?p ?o } }", "SERVICE"),
    ("SELECT * WHERE { SERVICESILENT<http://x/>{} }", "SERVICE"),
    ("SELECT * WHERE { ?s ?p trueSERVICE <http://x/> {} }", "SERVICE"),
    # undeclared, the engine reads `true` then `SERVICE :x`
    ("PREFIX : <http://x/> SELECT * WHERE { ?s ?p trueservice:x { } }", "trueservice:x"),
    # SPARQL 1.2 (LATERAL), which the parser cannot read: the lexer refuses any such word
    ("SELECT * WHERE { LATERAL { SERVICE <http://x/> {} } }", "SERVICE"),
    ("PREFIX webservice: <http://e/> SELECT * { LATERAL { ?s webservice:p ?o } }", "SERVICE"),
    ("SELECT * WHERE { FILTER(1<'x>') SERVICE <http://x/> {} } #'", "SERVICE|ambiguous"),
    ("SELECT * WHERE { ?s ?p ?o FILTER(?o <?s#> '''\n) SERVICE <http://x/> {} #'''\n}", "SERV"),
    ("INSERT DATA { <http://a> <http://b> <http://c> }", "read-only"),
    ("PREFIX e: <http://e/> BASE <http://b/> delete where { ?s ?p ?o }", "read-only"),
    ("LOAD <http://x/data.ttl>", "read-only"),
    ("WITH <http://g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }", "read-only"),
    ("SELECT * WHERE " + "{" * (MAX_DEPTH + 1) + "}" * (MAX_DEPTH + 1), "levels deep"),
]


@pytest.mark.parametrize(("query", "form"), ALLOWED)
def test_allowed(query: str, form: str | None) -> None:
    assert inspect(query).form == form


@pytest.mark.parametrize(("query", "message"), REFUSED)
def test_refused(query: str, message: str) -> None:
    with pytest.raises(Refused, match=message):
        inspect(query)


# Each FROM the guard reads is held to the engine's own reading: a store holding one graph per
# IRI read, and look-alikes (another case, the '#' lost, the base ignored), answers the rows of
# exactly the graphs read.
LOOKALIKES = [
    "http://example.org/g1",
    "HTTP://example.org/g1",
    "http://example.org/graphs",
    "http://example.org/graphs#g1",
    "http://example.org/g1#",
    "urn:x:graphs/g1",
    "http://host/g1",
]
DATASETS = [
    "SELECT ?o FROM <HTTP://example.org/g1> WHERE { ?s ?p ?o }",
    "PREFIX gr: <http://example.org/graphs#> SELECT ?o FROM gr:g1 WHERE { ?s ?p ?o }",
    "BASE <urn:x:graphs/> SELECT ?o FROM <g1> WHERE { ?s ?p ?o }",
    "SELECT ?o FROM <g1> WHERE { ?s ?p ?o }",  # the endpoint's base
    "PREFIX : <rel#> BASE <urn:b:/a/> PREFIX q: <q/> SELECT ?o FROM :x FROM q:y\\/z "
    "FROM <../up> FROM <http://n/\\u0041> WHERE { ?s ?p ?o }",
    "BASE <http://example.org/a/b/> SELECT ?o FROM <../g1> FROM NAMED <./c?d> "
    "WHERE { { ?s ?p ?o } UNION { GRAPH ?g { ?s ?p ?o } } }",
]
BASE = "http://host/sparql"


@pytest.mark.parametrize("query", DATASETS)
def test_the_dataset_read_is_the_engines(query: str) -> None:
    found = inspect(query, BASE)
    read = found.from_graphs + found.from_named_graphs
    assert read, "the guard read the dataset"
    store = ox.Store()
    graphs = list(dict.fromkeys([*read, *LOOKALIKES]))
    s, p = ox.NamedNode("http://e/s"), ox.NamedNode("http://e/p")
    for number, graph in enumerate(graphs):
        store.add(ox.Quad(s, p, ox.Literal(str(number)), ox.NamedNode(graph)))
    answer = store.query(query, base_iri=BASE)
    assert isinstance(answer, ox.QuerySolutions)
    rows = {row["o"].value for row in answer}  # type: ignore[union-attr]
    assert rows == {str(graphs.index(graph)) for graph in read}


def test_case_and_fragment_are_kept_as_written() -> None:
    assert inspect("SELECT * FROM <HTTP://example.org/g1> {}").from_graphs == (
        "HTTP://example.org/g1",
    )
    query = "PREFIX gr: <http://example.org/graphs#> SELECT * FROM NAMED gr:g1 {}"
    assert inspect(query).from_named_graphs == ("http://example.org/graphs#g1",)
    assert inspect("BASE <urn:x:graphs/> ASK FROM <g1> {}").from_graphs == ("urn:x:graphs/g1",)


def test_a_query_the_parser_cannot_read_is_left_to_the_engine() -> None:
    # SPARQL 1.2: rdflib's parser does not know LATERAL, the engine does.
    query = "SELECT ?o FROM <urn:not-here> WHERE { LATERAL { ?s ?p ?o } }"
    assert inspect(query) == Inspection("SELECT")
    ox.Store().query(query)  # which the engine reads


def test_outside_names_the_first_graph_the_store_lacks() -> None:
    found = inspect("SELECT * FROM <urn:a> FROM NAMED <urn:b> {}")
    outside(found, {"urn:a", "urn:b"})
    with pytest.raises(Refused, match="FROM NAMED <urn:b> is not a graph of this store") as e:
        outside(found, {"urn:a"})
    assert e.value.graph == "urn:b"
