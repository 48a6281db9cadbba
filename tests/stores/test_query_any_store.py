"""``benchgraph query`` given SPARQL of the user's own (the text, stdin) on both stores: an
embedded one on disk and a real Oxigraph server."""

from __future__ import annotations

import json

import pyoxigraph as ox
import rdflib
from rdflib.compare import isomorphic
from support import EXAMPLES, run_cli

from benchgraph import vocab as V
from benchgraph.store import open_store

RDF_TYPE = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")


def test_the_query_text_and_stdin_run_on_either_store(location: str) -> None:
    loaded = run_cli("ingest", str(EXAMPLES), "--store", location)
    assert loaded.returncode == 0, loaded.stderr
    with open_store(location) as store:
        view = set(store.graph_triples(None))
    results = {t.subject for t in view if t.predicate == RDF_TYPE and t.object.value == V.Result}
    assert results

    construct = f"CONSTRUCT {{ ?r a <{V.Result}> }} WHERE {{ ?r a <{V.Result}> }}"
    printed = run_cli("query", construct, "--format", "ntriples", "--store", location)
    assert printed.returncode == 0, printed.stderr
    expected = rdflib.Graph()
    for iri in results:
        expected.add((rdflib.URIRef(iri.value), rdflib.RDF.type, rdflib.URIRef(V.Result)))
    assert isomorphic(rdflib.Graph().parse(data=printed.stdout, format="nt"), expected)

    select = f"SELECT ?r WHERE {{ ?r a <{V.Result}> }}"
    asked = run_cli("query", "-", "--format", "json", "--store", location, stdin=select)
    assert asked.returncode == 0, asked.stderr
    rows = json.loads(asked.stdout)["results"]["bindings"]
    assert {row["r"]["value"] for row in rows} == {iri.value for iri in results}

    refused = run_cli("query", "DROP ALL", "--store", location)
    assert refused.returncode == 2
    assert "SPARQL Update (DROP) is not accepted" in refused.stderr
    with open_store(location) as store:
        assert set(store.graph_triples(None)) == view
