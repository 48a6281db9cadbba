"""The SPARQL 1.1 Service Description of the endpoint: one :class:`Service`, which both the RDF
(:func:`triples`) and the HTML page for browsers (``sparql.html``) are written from.

It names the endpoint, the query language, every format of the media table an answer can come
in, the limits a query runs within, what is refused, and the default dataset: the merged view as
default graph, and one named graph per store graph.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyoxigraph as ox

from benchgraph import __version__, media
from benchgraph import vocab as V

SD = "http://www.w3.org/ns/sparql-service-description#"
LANGUAGES = {SD + "SPARQL11Query": "SPARQL 1.1 Query"}
DEFAULT_GRAPH = (
    "The merged view: each distinct triple of the page graphs once (validation reports are not "
    "in it). GRAPH reaches each page's own statements, and its report."
)
REFUSED = (
    "SPARQL Update (data changes only through benchgraph ingest)",
    "SERVICE (federated query) and LOAD",
    "FROM, FROM NAMED, default-graph-uri and named-graph-uri naming a graph outside the store",
)


@dataclass(frozen=True)
class Limits:
    seconds: float  # a query's time limit
    rows: int  # the most rows (or triples) an answer holds; more are cut
    request_bytes: int  # the largest request (and query text) taken


@dataclass(frozen=True)
class Service:
    endpoint: str
    title: str
    languages: tuple[str, ...]  # sd:supportedLanguage IRIs
    formats: tuple[media.MediaType, ...]  # the formats an answer comes in (sd:resultFormat)
    features: tuple[str, ...]  # sd:feature IRIs
    limits: Limits
    refused: tuple[str, ...]
    default_graph: str  # what the default graph is
    named_graphs: tuple[str, ...]

    @property
    def terms(self) -> str:
        """The limits and refusals as one sentence (the service's dcterms:description)."""
        return (
            f"Read-only. A query runs at most {self.limits.seconds:g} s and an answer holds at "
            f"most {self.limits.rows} rows (more are cut, and the answer says so); a request "
            f"is at most {self.limits.request_bytes} bytes. Refused: "
            + "; ".join(self.refused)
            + "."
        )


def service(endpoint: str, names: list[str], limits: Limits) -> Service:
    """The description of the endpoint at ``endpoint`` serving the named graphs ``names``."""
    return Service(
        endpoint=endpoint,
        title=f"benchgraph {__version__} SPARQL endpoint (read-only)",
        languages=tuple(LANGUAGES),
        formats=tuple(m for m in media.TABLE if m.w3c),
        features=(),  # none of SD's: no SERVICE, a default graph that is not every graph's union
        limits=limits,
        refused=REFUSED,
        default_graph=DEFAULT_GRAPH,
        named_graphs=tuple(names),
    )


def triples(described: Service) -> list[ox.Triple]:
    """``described`` as RDF triples (SD vocabulary; blank nodes for its dataset and graphs)."""
    node = ox.NamedNode(described.endpoint)
    dataset, default = ox.BlankNode(), ox.BlankNode()
    out: list[ox.Triple] = []

    def add(s: ox.NamedNode | ox.BlankNode, p: str, o: ox.NamedNode | ox.BlankNode | ox.Literal):
        out.append(ox.Triple(s, ox.NamedNode(p), o))

    add(node, V.type_, ox.NamedNode(SD + "Service"))
    add(node, SD + "endpoint", node)
    for language in described.languages:
        add(node, SD + "supportedLanguage", ox.NamedNode(language))
    for feature in described.features:
        add(node, SD + "feature", ox.NamedNode(feature))
    add(node, V.title, ox.Literal(described.title))
    add(node, V.description, ox.Literal(described.terms))
    for m in described.formats:
        assert m.w3c is not None
        add(node, SD + "resultFormat", ox.NamedNode(m.w3c))
    add(node, SD + "defaultDataset", dataset)
    add(dataset, V.type_, ox.NamedNode(SD + "Dataset"))
    add(dataset, SD + "defaultGraph", default)
    add(default, V.type_, ox.NamedNode(SD + "Graph"))
    add(default, V.comment, ox.Literal(described.default_graph))
    for graph in described.named_graphs:
        named = ox.BlankNode()
        add(dataset, SD + "namedGraph", named)
        add(named, V.type_, ox.NamedNode(SD + "NamedGraph"))
        add(named, SD + "name", ox.NamedNode(graph))
    return out
