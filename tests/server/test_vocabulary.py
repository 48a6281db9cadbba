"""The vocabulary at its namespace: /ns as a page with an entry per bg: term, and as RDF, the
ontology's triples as its files hold them."""

from __future__ import annotations

import pyoxigraph as ox
import rdflib
from rdflib.compare import isomorphic
from support import REPO
from support.html import parse

from benchgraph import vocab as V


def ontology() -> set[ox.Triple]:
    found: set[ox.Triple] = set()
    for path in sorted((REPO / "ontology").glob("*.ttl")):
        found |= {q.triple for q in ox.parse(path=path, format=ox.RdfFormat.TURTLE)}
    return found


def test_the_namespace_serves_the_ontology_as_rdf(client) -> None:  # type: ignore[no-untyped-def]
    expected = rdflib.Graph()
    for path in sorted((REPO / "ontology").glob("*.ttl")):
        expected.parse(path, format="turtle")
    for path in ("/ns", "/ontology"):
        reply = client.get(path)  # no Accept: Turtle
        assert reply.status_code == 200 and reply.mimetype == "text/turtle", path
        served = rdflib.Graph().parse(data=reply.get_data(as_text=True), format="turtle")
        assert isomorphic(served, expected), path


def test_the_page_has_an_anchored_entry_for_each_class_and_property(client) -> None:  # type: ignore[no-untyped-def]
    reply = client.get("/ns", headers={"Accept": "text/html"})
    assert reply.status_code == 200 and reply.mimetype == "text/html"
    anchors = {e.attrs["id"] for e in parse(reply.get_data(as_text=True)).iter("dt")}
    declared = {
        t.subject.value[len(V.BG) :]
        for t in ontology()
        if isinstance(t.subject, ox.NamedNode)
        and t.subject.value.startswith(V.BG)
        and t.predicate.value == V.type_
        and t.object.value
        in (V.OWL + "Class", V.OWL + "ObjectProperty", V.OWL + "DatatypeProperty")
    }
    assert declared and declared <= anchors
    assert {"Result", "Benchmark", "reportedIn"} <= anchors
