"""The query guard's lexer: what it refuses, what it lets through, what dataset it reads."""

from __future__ import annotations

import pytest

from server.guard import MAX_DEPTH, Refused, inspect

ALLOWED = [
    # the word in strings, IRIs, comments, variables and local names is harmless
    ("SELECT ?service WHERE { ?service ?p 'web service' }", "SELECT"),
    ('SELECT * WHERE { ?s ?p """SERVICE <http://x/> {}""" }', "SELECT"),
    ("SELECT * WHERE { ?s <http://example.org/service#name> ?o }", "SELECT"),
    ("# SERVICE <http://x/> {}\nASK { ?s ?p ?o }", "ASK"),
    ("PREFIX ex: <http://e/> SELECT * WHERE { ?s ex:service ?o }", "SELECT"),
    ("SELECT * WHERE { ?s ?p ?o FILTER(?o < 3) }", "SELECT"),
    ("CONSTRUCT WHERE { ?s ?p ?o }", "CONSTRUCT"),
    ("describe <http://e/x>", "DESCRIBE"),
    ("SELEC * WHERE {}", None),  # left to the engine, which says where
]

REFUSED = [
    ("SELECT * WHERE { SERVICE <http://x/> { ?s ?p ?o } }", "SERVICE"),
    ("select * where { service silent <http://x/> {} }", "SERVICE"),
    ("SELECT * WHERE { SERVICESILENT<http://x/>{} }", "SERVICE"),
    ("SELECT * WHERE { ?s ?p trueSERVICE <http://x/> {} }", "SERVICE"),
    ("PREFIX service: <http://x/> SELECT * WHERE { ?s service:p ?o }", "SERVICE"),
    ("SELECT * WHERE { FILTER(1<'x>') SERVICE <http://x/> {} } #'", "ambiguous"),
    ("SELECT * WHERE { ?s ?p ?o FILTER(?o <?s#> '''\n) SERVICE <http://x/> {} #'''\n}", "ambig"),
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


def test_dataset_clauses_are_read_with_prefixes_and_base() -> None:
    query = """BASE <http://base.example/>
    PREFIX g: <https://w3id.org/benchgraph/id/graph/>
    SELECT * FROM g:sota2\\/laion FROM <relative> FROM NAMED <http://n/\\u0041>
    # FROM <http://in-a-comment/>
    WHERE { ?s ?p "FROM <http://in-a-string/>" }"""
    found = inspect(query)
    assert found.from_graphs == (
        "https://w3id.org/benchgraph/id/graph/sota2/laion",
        "http://base.example/relative",
    )
    assert found.from_named_graphs == ("http://n/A",)
    assert found.has_dataset


def test_relative_from_uses_the_endpoint_as_base() -> None:
    found = inspect("SELECT * FROM <g> WHERE {}", base_iri="http://host/sparql")
    assert found.from_graphs == ("http://host/g",)
