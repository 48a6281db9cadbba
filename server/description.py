"""The SPARQL 1.1 Service Description of the endpoint, as RDF triples.

It names the endpoint, the query language, every result format of the media table, and the
default dataset: the merged view as default graph, and one named graph per store graph.
"""

from __future__ import annotations

import pyoxigraph as ox

from benchgraph import __version__
from benchgraph import vocab as V
from server import media

SD = "http://www.w3.org/ns/sparql-service-description#"


def triples(endpoint: str, names: list[str]) -> list[ox.Triple]:
    """The description of the endpoint at ``endpoint`` serving the named graphs ``names``."""
    service = ox.NamedNode(endpoint)
    dataset, default = ox.BlankNode(), ox.BlankNode()
    out: list[ox.Triple] = []

    def add(s: ox.NamedNode | ox.BlankNode, p: str, o: ox.NamedNode | ox.BlankNode | ox.Literal):
        out.append(ox.Triple(s, ox.NamedNode(p), o))

    add(service, V.type_, ox.NamedNode(SD + "Service"))
    add(service, SD + "endpoint", service)
    add(service, SD + "supportedLanguage", ox.NamedNode(SD + "SPARQL11Query"))
    add(service, V.title, ox.Literal(f"benchgraph {__version__} SPARQL endpoint (read-only)"))
    for m in media.TABLE:
        if m.w3c:
            add(service, SD + "resultFormat", ox.NamedNode(m.w3c))
    add(service, SD + "defaultDataset", dataset)
    add(dataset, V.type_, ox.NamedNode(SD + "Dataset"))
    add(dataset, SD + "defaultGraph", default)
    add(default, V.type_, ox.NamedNode(SD + "Graph"))
    add(
        default,
        V.comment,
        ox.Literal(
            "The merged view: each distinct triple of the page graphs once (validation reports "
            "are not in it). GRAPH reaches each page's own statements, and its report."
        ),
    )
    for graph in names:
        named = ox.BlankNode()
        add(dataset, SD + "namedGraph", named)
        add(named, V.type_, ox.NamedNode(SD + "NamedGraph"))
        add(named, SD + "name", ox.NamedNode(graph))
    return out
