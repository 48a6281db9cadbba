"""GET /id/...: every kind of resource dereferences, in every RDF format, by Accept and suffix."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest
import rdflib
from rdflib.compare import isomorphic
from support import copy_store
from support.linked import parse, raw_get
from support.live import Live, fetch

from benchgraph import vocab as V

ID = V.ID
RDF_TYPE = rdflib.RDF.type
REFERENCES = rdflib.URIRef(V.DCTERMS + "references")

# kind -> (path under /id/, the property by which a result points at it, or None)
RESOURCES = {
    "paper": ("paper/68fa791f1e209131cea7c381", V.reportedIn),
    "method": ("method/steps", V.method),
    "benchmark": ("benchmark/prompt-recovery/laion", V.benchmark),
    "metric": ("benchmark/prompt-recovery/laion/metric/clip-score", V.metric),
    "result": ("result/69aa7c5b6dbb7075b953baa0", None),
    "source": ("source/sota2/prompt-recovery-on-laion/clip-score", V.wasDerivedFrom),
}
FORMATS = {  # media key -> (Accept, suffix)
    "turtle": ("text/turtle", "ttl"),
    "jsonld": ("application/ld+json", "jsonld"),
    "ntriples": ("application/n-triples", "nt"),
    "rdfxml": ("application/rdf+xml", "rdf"),
}


def _term(term: ox.NamedNode | ox.Literal) -> rdflib.term.Node:
    if isinstance(term, ox.NamedNode):
        return rdflib.URIRef(term.value)
    if term.language:
        return rdflib.Literal(term.value, lang=term.language)
    if term.datatype.value == V.XSD + "string":  # rdflib reads a plain literal without one
        return rdflib.Literal(term.value)
    return rdflib.Literal(term.value, datatype=rdflib.URIRef(term.datatype.value))


def own_triples(store: Path, iri: str) -> set[tuple[rdflib.term.Node, ...]]:
    """The resource's statements in the store (blank-node objects left out)."""
    found = set()
    for q in ox.Store.read_only(str(store)).quads_for_pattern(ox.NamedNode(iri), None, None):
        if not isinstance(q.object, ox.BlankNode):
            found.add((rdflib.URIRef(iri), rdflib.URIRef(q.predicate.value), _term(q.object)))
    return found


@pytest.mark.parametrize("key", FORMATS)
@pytest.mark.parametrize("kind", RESOURCES)
def test_each_kind_dereferences_in_each_format(ld_server: Live, kind: str, key: str) -> None:
    path, inbound = RESOURCES[kind]
    accept, suffix = FORMATS[key]
    iri = rdflib.URIRef(ID + path)
    reply = fetch(f"{ld_server.url}id/{path}", Accept=accept)
    assert reply.status == 200, reply.text
    assert reply.type == accept
    assert "Accept" in reply.headers["vary"]
    graph = parse(reply.body, key)

    own = own_triples(ld_server.store, str(iri))
    assert own and own <= set(graph)
    if inbound is not None:  # what points at it is there, with its type
        pointing = set(graph.subjects(rdflib.URIRef(inbound), iri))
        assert pointing
        assert all(set(graph.objects(s, RDF_TYPE)) for s in pointing)
    if kind != "source":  # which pages it came from
        sources = set(graph.subjects(REFERENCES, iri))
        assert sources
        assert all((s, RDF_TYPE, rdflib.URIRef(V.SourceDocument)) in graph for s in sources)
    if kind == "result":  # what it links to is labelled
        method = graph.value(iri, rdflib.URIRef(V.method))
        assert graph.value(method, rdflib.RDFS.label) == rdflib.Literal("STEPS")

    by_suffix = fetch(f"{ld_server.url}id/{path}.{suffix}")
    assert by_suffix.status == 200
    assert by_suffix.type == accept
    assert isomorphic(parse(by_suffix.body, key), graph)


def test_a_description_states_each_triple_once(ld_server: Live) -> None:
    reply = fetch(f"{ld_server.url}id/{RESOURCES['paper'][0]}.nt")
    lines = [line for line in reply.text.splitlines() if line.strip()]
    assert len(lines) == len(set(lines))


def test_a_browser_is_sent_to_the_page(ld_server: Live) -> None:
    accept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    response = raw_get(f"{ld_server.url}id/method/steps", Accept=accept)
    assert response.status == 303
    assert response.headers["Location"] == f"{ld_server.url}page/method/steps"


def test_no_accept_header_gets_turtle(ld_server: Live) -> None:
    reply = fetch(f"{ld_server.url}id/method/steps")
    assert reply.status == 200 and reply.type == "text/turtle"


@pytest.mark.parametrize("accept", ["text/turtle", "application/json", ""])
def test_an_unknown_iri_is_404_in_the_error_shape(ld_server: Live, accept: str) -> None:
    headers = {"Accept": accept} if accept else {}
    reply = fetch(f"{ld_server.url}id/method/no-such-method", **headers)
    assert reply.status == 404
    body = reply.json()
    assert body["ok"] is False and body["status"] == 404
    assert f"{ID}method/no-such-method" in body["error"]


def test_no_acceptable_format_is_406(ld_server: Live) -> None:
    reply = fetch(f"{ld_server.url}id/method/steps", Accept="text/csv")
    assert reply.status == 406
    assert reply.json()["status"] == 406


def test_the_id_base_setting_chooses_the_iris_answered(ld_store: Path, tmp_path: Path) -> None:
    store = copy_store(ld_store, tmp_path / "store")
    live = Live(store, "--id-base", "https://w3id.org/benchgraph/")
    try:
        # /id/PATH now means https://w3id.org/benchgraph/PATH
        moved = fetch(f"{live.url}id/id/method/steps.nt")
        assert moved.status == 200, moved.text
        graph = parse(moved.body, "ntriples")
        assert (rdflib.URIRef(ID + "method/steps"), RDF_TYPE, rdflib.URIRef(V.Method)) in graph
        assert fetch(f"{live.url}id/method/steps.nt").status == 404
    finally:
        assert live.stop() == 0


def test_a_description_is_revalidated_by_its_etag(ld_server: Live) -> None:
    url = f"{ld_server.url}id/method/steps"
    first = raw_get(url, Accept="text/turtle")
    etag = first.headers["ETag"]
    assert first.status == 200 and etag
    again = raw_get(url, Accept="text/turtle", If_None_Match=etag)
    assert again.status == 304 and again.body == b""
    other = raw_get(url, Accept="application/n-triples", If_None_Match=etag)
    assert other.status == 200  # another format is another representation
    assert other.headers["ETag"] != etag
