"""GET /void: the dataset's VoID/DCAT description agrees with the store."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pyoxigraph as ox
import pytest
import rdflib
from rdflib.compare import isomorphic
from support import copy_store
from support.linked import parse
from support.live import Live, fetch

from benchgraph import graphs, settings
from benchgraph import vocab as V
from benchgraph.settings import SettingError
from server.app import create_app

VOID = rdflib.Namespace("http://rdfs.org/ns/void#")
DCAT = rdflib.Namespace("http://www.w3.org/ns/dcat#")
RDF_TYPE = V.type_


@pytest.fixture(scope="module")
def described(ld_server: Live) -> tuple[rdflib.Graph, rdflib.URIRef]:
    reply = fetch(f"{ld_server.url}void", Accept="text/turtle")
    assert reply.status == 200 and reply.type == "text/turtle"
    graph = parse(reply.body, "turtle")
    (dataset,) = set(graph.subjects(VOID.sparqlEndpoint, None))
    assert isinstance(dataset, rdflib.URIRef)
    assert (dataset, rdflib.RDF.type, VOID.Dataset) in graph
    assert (dataset, rdflib.RDF.type, DCAT.Dataset) in graph
    return graph, dataset


def test_counts_match_the_store(ld_server: Live, described: tuple) -> None:
    graph, dataset = described
    store = ox.Store.read_only(str(ld_server.store))
    # The dataset is the merged view: each triple of the page graphs once (reports aside).
    triples = {
        q.triple
        for q in store
        if isinstance(q.graph_name, ox.NamedNode) and graphs.is_page(q.graph_name.value)
    }
    assert graph.value(dataset, VOID.triples).toPython() == len(triples)
    per_class = Counter(
        t.object.value
        for t in triples
        if t.predicate.value == RDF_TYPE and isinstance(t.subject, ox.NamedNode)
    )
    partitions = {
        str(graph.value(p, VOID["class"])): graph.value(p, VOID.entities).toPython()
        for p in graph.objects(dataset, VOID.classPartition)
    }
    assert partitions == dict(per_class)
    typed = {t.subject for t in triples if t.predicate.value == RDF_TYPE}
    entities = {s for s in typed if isinstance(s, ox.NamedNode)}
    assert graph.value(dataset, VOID.entities).toPython() == len(entities)
    subsets = {str(s) for s in graph.objects(dataset, VOID.subset)}
    assert subsets == {g.value for g in store.named_graphs()}


def test_it_names_the_endpoint_the_dumps_and_the_uri_space(
    ld_server: Live, described: tuple
) -> None:
    graph, dataset = described
    assert str(graph.value(dataset, VOID.sparqlEndpoint)) == ld_server.url + "sparql"
    dumps = {str(d) for d in graph.objects(dataset, VOID.dataDump)}
    assert dumps == {ld_server.url + f"dump.{s}" for s in ("trig", "nq", "ttl", "nt", "jsonld")} | {
        ld_server.url + f"dump.{s}?history=true" for s in ("trig", "nq")
    }
    downloads = {
        str(graph.value(d, DCAT.downloadURL)): str(graph.value(d, DCAT.mediaType))
        for d in graph.objects(dataset, DCAT.distribution)
    }
    assert set(downloads) == dumps
    assert downloads[ld_server.url + "dump.ttl"].endswith("/text/turtle")
    titles = {
        str(graph.value(d, DCAT.downloadURL)): str(graph.value(d, rdflib.URIRef(V.title)))
        for d in graph.objects(dataset, DCAT.distribution)
    }
    assert titles[ld_server.url + "dump.trig"] == "the whole dataset as it is now, as TriG"
    assert titles[ld_server.url + "dump.nq?history=true"] == (
        "the whole dataset with every earlier version of every page, as N-Quads"
    )
    assert str(graph.value(dataset, VOID.uriSpace)) == V.ID
    vocabularies = {str(v) for v in graph.objects(dataset, VOID.vocabulary)}
    assert {V.BG, V.PROV, V.DCTERMS, V.UNIT, V.SCHEMA} <= vocabularies
    modified = graph.value(dataset, rdflib.URIRef(V.modified))
    assert modified is not None and str(modified).startswith("2026-11-29T12:00:00")
    for url in dumps:
        assert fetch(url).status == 200


@pytest.mark.parametrize(
    ("path", "accept", "key"),
    [
        ("void", "application/ld+json", "jsonld"),
        ("void", "application/rdf+xml", "rdfxml"),
        (".well-known/void", "text/turtle", "turtle"),
    ],
)
def test_other_formats_and_the_well_known_path_say_the_same(
    ld_server: Live, described: tuple, path: str, accept: str, key: str
) -> None:
    reply = fetch(f"{ld_server.url}{path}", Accept=accept)
    assert reply.status == 200 and reply.type == accept
    assert isomorphic(parse(reply.body, key), described[0])


def test_example_resources_are_named_and_dereference(ld_server: Live, described: tuple) -> None:
    graph, dataset = described
    examples = sorted(str(e) for e in graph.objects(dataset, VOID.exampleResource))
    assert examples, "no void:exampleResource"
    kinds = {str(graph_type) for e in examples for graph_type in _types(ld_server, e)}
    assert {V.BG + k for k in ("Paper", "Method", "Benchmark", "Result")} <= kinds
    assert all(e.startswith(V.ID) for e in examples)


def _types(ld_server: Live, iri: str) -> set[str]:
    """GET /id/... for ``iri`` (it must answer 200) and return the resource's types."""
    reply = fetch(f"{ld_server.url}id/{iri.removeprefix(V.ID)}", Accept="text/turtle")
    assert reply.status == 200, iri
    found = parse(reply.body, "turtle")
    return {str(t) for t in found.objects(rdflib.URIRef(iri), rdflib.RDF.type)}


def test_no_licence_is_stated_by_default(described: tuple) -> None:
    graph, dataset = described
    assert graph.value(dataset, rdflib.DCTERMS.license) is None


@pytest.fixture(scope="module")
def licence_store(ld_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_store(ld_store, tmp_path_factory.mktemp("licence") / "store")


def test_the_licence_setting_is_stated(licence_store: Path) -> None:
    licence = "https://creativecommons.org/licenses/by/4.0/"
    app = create_app({"store": str(licence_store), "workers": 1, "license": licence})
    try:
        reply = app.test_client().get("/void", headers={"Accept": "text/turtle"})
        assert reply.status_code == 200
        graph = parse(reply.data, "turtle")
        (dataset,) = set(graph.subjects(VOID.sparqlEndpoint, None))
        assert str(graph.value(dataset, rdflib.DCTERMS.license)) == licence
    finally:
        app.extensions["benchgraph"].pool.close()


@pytest.mark.parametrize("bad", ["creativecommons.org/licenses/by/4.0/", "ftp://x/", "http://a b"])
def test_a_licence_that_is_not_an_http_iri_is_refused(bad: str) -> None:
    with pytest.raises(SettingError, match=r"license.*absolute http"):
        settings.resolve(("license",), {"license": bad})
