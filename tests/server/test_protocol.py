"""The SPARQL 1.1 Protocol against a real server process, with the clients users bring:
SPARQLWrapper (GET, POST form, POST body), rdflib for graphs, plain HTTP for the rest."""

from __future__ import annotations

import csv
import io
import json
import warnings
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
import rdflib
from rdflib.compare import isomorphic
from SPARQLWrapper import (
    CSV,
    JSON,
    POST,
    POSTDIRECTLY,
    RDFXML,
    TSV,
    TURTLE,
    URLENCODED,
    XML,
    SPARQLWrapper,
)
from support.html import parse

SD = rdflib.Namespace("http://www.w3.org/ns/sparql-service-description#")
LAION = "https://w3id.org/benchgraph/id/graph/sota2/prompt-recovery-on-laion/clip-score"
METHODS = """PREFIX bg: <https://w3id.org/benchgraph/ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT DISTINCT ?method ?label WHERE { ?r bg:reportedIn ?paper ; bg:method ?method .
  ?method rdfs:label ?label .
  FILTER (?paper = <https://w3id.org/benchgraph/id/paper/68fa791f1e209131cea7c381>) }
ORDER BY ?label"""
SIX = ["EDITOR", "PEZ", "PH2P", "PRISM", "STEPS", "VGD"]
CONSTRUCT = """PREFIX bg: <https://w3id.org/benchgraph/ns#>
CONSTRUCT { ?r bg:method ?m ; bg:publishedValue ?v } WHERE {
  ?r bg:method ?m ; bg:publishedValue ?v ; bg:reportedIn
     <https://w3id.org/benchgraph/id/paper/68fa791f1e209131cea7c381> }"""


def wrapper(endpoint: str, query: str, fmt: str, post: str | None = None) -> SPARQLWrapper:
    client = SPARQLWrapper(endpoint)
    client.setQuery(query)
    client.setReturnFormat(fmt)
    if post:
        client.setMethod(POST)
        client.setRequestMethod(post)
    return client


def labels_json(document: dict[str, Any]) -> list[str]:
    return [b["label"]["value"] for b in document["results"]["bindings"]]


def test_select_as_json(server: Any) -> None:
    assert labels_json(wrapper(server.sparql, METHODS, JSON).query().convert()) == SIX


def test_select_as_xml(server: Any) -> None:
    document = wrapper(server.sparql, METHODS, XML).query().convert()
    found = [
        b.getElementsByTagName("literal")[0].firstChild.data
        for b in document.getElementsByTagName("binding")
        if b.getAttribute("name") == "label"
    ]
    assert found == SIX


@pytest.mark.parametrize(("fmt", "delimiter"), [(CSV, ","), (TSV, "\t")])
def test_select_as_csv_and_tsv(server: Any, fmt: str, delimiter: str) -> None:
    text = wrapper(server.sparql, METHODS, fmt).query().convert().decode("utf-8")
    rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    assert rows[0] == (["method", "label"] if fmt == CSV else ["?method", "?label"])
    assert [r[1].strip('"') for r in rows[1:]] == SIX


@pytest.mark.parametrize("post", [URLENCODED, POSTDIRECTLY])
def test_post_both_ways(server: Any, post: str) -> None:
    assert labels_json(wrapper(server.sparql, METHODS, JSON, post).query().convert()) == SIX


@pytest.mark.parametrize("fmt", [JSON, XML])
def test_ask(server: Any, fmt: str) -> None:
    yes = "ASK { ?m <http://www.w3.org/2000/01/rdf-schema#label> 'EDITOR' }"
    no = "ASK { ?m <http://www.w3.org/2000/01/rdf-schema#label> 'no such method' }"
    answers = []
    for query in (yes, no):
        result = wrapper(server.sparql, query, fmt).query().convert()
        if fmt == JSON:
            answers.append(result["boolean"])
        else:
            answers.append(result.getElementsByTagName("boolean")[0].firstChild.data == "true")
    assert answers == [True, False]


def expected_graph(store: Path) -> rdflib.Graph:
    answer = ox.Store.read_only(str(store)).query(CONSTRUCT)  # over the merged view
    data = ox.serialize(answer, format=ox.RdfFormat.N_TRIPLES)
    return rdflib.Graph().parse(data=data, format="nt")


@pytest.mark.parametrize(("fmt", "rdflib_format"), [(TURTLE, "turtle"), (RDFXML, "xml")])
def test_construct_parsed_by_rdflib(server: Any, fmt: str, rdflib_format: str) -> None:
    response = wrapper(server.sparql, CONSTRUCT, fmt).query().response
    graph = rdflib.Graph().parse(data=response.read(), format=rdflib_format)
    assert len(graph) == 12
    assert isomorphic(graph, expected_graph(server.store))


def test_construct_through_sparqlwrapper_convert(server: Any) -> None:
    with warnings.catch_warnings():
        # SPARQLWrapper 2.0 builds an rdflib ConjunctiveGraph, which rdflib 7 deprecates.
        warnings.filterwarnings("ignore", "ConjunctiveGraph is deprecated", DeprecationWarning)
        graph = wrapper(server.sparql, CONSTRUCT, RDFXML).query().convert()
    assert isomorphic(rdflib.Graph() + graph, expected_graph(server.store))


@pytest.mark.parametrize(
    ("accept", "fmt"),
    [
        ("application/n-triples", ox.RdfFormat.N_TRIPLES),
        ("application/ld+json", ox.RdfFormat.JSON_LD),
        ("application/trig", ox.RdfFormat.TRIG),
        ("application/n-quads", ox.RdfFormat.N_QUADS),
    ],
)
def test_construct_in_the_other_rdf_formats(server: Any, http: Any, accept: str, fmt) -> None:
    # Parsed with pyoxigraph: rdflib 7's own JSON-LD, TriG and N-Quads parsers warn about
    # its deprecated ConjunctiveGraph.
    reply = http.fetch(http.url(server.sparql, query=CONSTRUCT), Accept=accept)
    assert reply.status == 200 and reply.type == accept
    triples = [q.triple if isinstance(q, ox.Quad) else q for q in ox.parse(reply.body, fmt)]
    data = ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES)
    assert isomorphic(rdflib.Graph().parse(data=data, format="nt"), expected_graph(server.store))


def test_service_description_names_the_endpoint(server: Any, http: Any) -> None:
    reply = http.fetch(server.sparql, Accept="text/turtle")
    assert reply.status == 200 and reply.type == "text/turtle"
    graph = rdflib.Graph().parse(data=reply.body, format="turtle")
    endpoint = rdflib.URIRef(server.sparql)
    assert (endpoint, rdflib.RDF.type, SD.Service) in graph
    assert (endpoint, SD.endpoint, endpoint) in graph
    assert (endpoint, SD.feature, SD.UnionDefaultGraph) not in graph  # the view is a set
    (default,) = graph.objects(None, SD.defaultGraph)
    assert "merged view" in str(graph.value(default, rdflib.RDFS.comment))
    formats = {str(f) for f in graph.objects(endpoint, SD.resultFormat)}
    assert "http://www.w3.org/ns/formats/SPARQL_Results_JSON" in formats
    dataset = graph.value(endpoint, SD.defaultDataset)
    names = {str(graph.value(g, SD.name)) for g in graph.objects(dataset, SD.namedGraph)}
    stored = ox.Store.read_only(str(server.store)).named_graphs()
    assert names == {g.value for g in stored} and LAION in names


def test_service_description_by_sparqlwrapper_style_format(server: Any, http: Any) -> None:
    reply = http.fetch(http.url(server.sparql, format="rdf+xml"))
    graph = rdflib.Graph().parse(data=reply.body, format="xml")
    assert (rdflib.URIRef(server.sparql), SD.endpoint, rdflib.URIRef(server.sparql)) in graph


COUNT = "SELECT (COUNT(*) AS ?n) {0} WHERE {{ {1} }}"


def count(http: Any, endpoint: str, query: str, **params: Any) -> int:
    reply = http.fetch(f"{http.url(endpoint, query=query)}&{params_text(params)}")
    assert reply.status == 200, reply.text
    return int(reply.json()["results"]["bindings"][0]["n"]["value"])


def params_text(params: dict[str, Any]) -> str:
    from urllib.parse import urlencode

    return urlencode(params, doseq=True)


def test_the_dataset_can_be_chosen_three_ways(server: Any, http: Any) -> None:
    in_graph = count(http, server.sparql, COUNT.format("", f"GRAPH <{LAION}> {{ ?s ?p ?o }}"))
    by_from = count(http, server.sparql, COUNT.format(f"FROM <{LAION}>", "?s ?p ?o"))
    by_protocol = count(
        http, server.sparql, COUNT.format("", "?s ?p ?o"), **{"default-graph-uri": LAION}
    )
    everything = count(http, server.sparql, COUNT.format("", "?s ?p ?o"))
    assert 0 < in_graph == by_from == by_protocol < everything


def test_named_graphs_can_be_chosen(server: Any, http: Any) -> None:
    query = "SELECT (COUNT(DISTINCT ?g) AS ?n) {0} WHERE {{ GRAPH ?g {{ ?s ?p ?o }} }}"
    assert count(http, server.sparql, query.format(f"FROM NAMED <{LAION}>")) == 1
    assert count(http, server.sparql, query.format(""), **{"named-graph-uri": LAION}) == 1
    assert count(http, server.sparql, query.format("")) > 1


def test_format_parameter_overrides_accept(server: Any, http: Any) -> None:
    reply = http.fetch(http.url(server.sparql, query=METHODS, format="csv"), Accept="text/html")
    assert reply.status == 200 and reply.type == "text/csv"
    assert reply.text.splitlines()[0] == "method,label"


def test_a_browser_gets_a_query_form_and_an_html_table(server: Any, http: Any) -> None:
    browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    form = http.fetch(server.sparql, Accept=browser)
    assert form.status == 200 and form.type == "text/html"
    assert "<form" in form.text and server.sparql in form.text
    table = http.fetch(http.url(server.sparql, query=METHODS), Accept=browser)
    assert table.type == "text/html" and "<td>EDITOR</td>" in table.text


def test_a_browser_gets_the_service_description_as_a_page_not_turtle(
    server: Any, http: Any
) -> None:
    """A browser was shown the Service Description as raw Turtle, blank-node IDs and all."""
    browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    page = http.fetch(server.sparql, Accept=browser)
    assert page.status == 200 and page.type == "text/html"
    assert "@prefix" not in page.text and "sd:Service" not in page.text
    rdf = http.fetch(server.sparql, Accept="text/turtle")  # machine clients keep the RDF
    assert rdf.type == "text/turtle"
    graph = rdflib.Graph().parse(data=rdf.body, format="turtle")
    endpoint = rdflib.URIRef(server.sparql)
    root = parse(page.text)

    def shown(cls: str) -> set[str]:
        found = root.find(cls=cls)
        assert found is not None, cls
        return {href for href, _ in found.links()}

    endpoint_shown = root.find("dd", "endpoint")
    assert endpoint_shown is not None and endpoint_shown.find("code").text == server.sparql
    assert shown("languages") == {str(o) for o in graph.objects(endpoint, SD.supportedLanguage)}
    assert shown("formats") == {str(o) for o in graph.objects(endpoint, SD.resultFormat)}
    assert shown("features") == {str(o) for o in graph.objects(endpoint, SD.feature)}
    dataset = graph.value(endpoint, SD.defaultDataset)
    default = graph.value(dataset, SD.defaultGraph)
    assert root.find("dd", "default-graph").text == str(graph.value(default, rdflib.RDFS.comment))
    listed = root.find("ul", "named-graphs")
    assert listed is not None
    names = {str(graph.value(g, SD.name)) for g in graph.objects(dataset, SD.namedGraph)}
    assert {li.text for li in listed.iter("li")} == names and LAION in names
    terms = str(graph.value(endpoint, rdflib.DCTERMS.description))
    limits = root.find("ul", "limits")
    assert limits is not None
    for cls, words in (
        ("seconds", "at most {} s"),
        ("rows", "at most {} rows"),
        ("bytes", "{} bytes"),
    ):
        value = limits.find("span", cls)
        assert value is not None and words.format(value.text) in terms, cls
    for refused in root.find("ul", "refused").iter("li"):
        assert refused.text in terms
    form = root.find("form")
    assert form is not None and form.attrs["action"] == server.sparql
    assert ("/query", "query page") in root.links()


def test_nothing_acceptable_is_406(server: Any, http: Any) -> None:
    image = http.fetch(http.url(server.sparql, query=METHODS), Accept="image/png")
    assert image.status == 406 and image.json()["status"] == 406
    graph_as_results = http.fetch(
        http.url(server.sparql, query=CONSTRUCT), Accept="application/sparql-results+json"
    )
    assert graph_as_results.status == 406
    assert "text/turtle" in graph_as_results.json()["error"]


def test_malformed_query_is_400_with_the_parsers_position(server: Any, http: Any) -> None:
    reply = http.fetch(http.url(server.sparql, query="SELECT * WHERE {\n  ?s ?p }"))
    body = reply.json()
    assert reply.status == 400 and body["ok"] is False
    assert body["error"].startswith("malformed query at line 2, column ")
    assert body["line"] == 2 and body["column"] > 0
    assert body["excerpt"].startswith("2 |   ?s ?p }\n")


def test_decimals_keep_their_published_text(server: Any, http: Any) -> None:
    query = """PREFIX bg: <https://w3id.org/benchgraph/ns#>
    SELECT ?v ?text WHERE { ?r bg:value ?v ; bg:publishedValue ?text } """
    rows = http.fetch(http.url(server.sparql, query=query)).json()["results"]["bindings"]
    assert rows and all(r["v"]["datatype"].endswith("#decimal") for r in rows)
    assert {r["text"]["value"] for r in rows} >= {"82.6", "12.0"}


def test_json_answers_are_the_w3c_document(server: Any, http: Any) -> None:
    reply = http.fetch(http.url(server.sparql, query=METHODS))
    assert reply.type == "application/sparql-results+json"
    document = json.loads(reply.body)
    assert document["head"]["vars"] == ["method", "label"]
    parsed = ox.parse_query_results(reply.body, ox.QueryResultsFormat.JSON)
    assert [s["label"].value for s in parsed] == SIX


def test_rdflib_sparqlstore_reads_through_the_endpoint(server: Any) -> None:
    from rdflib.plugins.stores.sparqlstore import SPARQLStore

    graph = rdflib.Graph(store=SPARQLStore(server.sparql))
    labels = {str(row[1]) for row in graph.query(METHODS)}
    assert labels == set(SIX)
    assert graph.query("ASK { ?s ?p ?o }").askAnswer is True
    assert len(graph.query(CONSTRUCT).graph) == 12
