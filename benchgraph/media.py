"""Media types: the one table that content negotiation, the Service Description, the OpenAPI
document and the docs read.

Each entry serves one kind of answer: ``results`` (SELECT and ASK), ``graph`` (CONSTRUCT,
DESCRIBE and the Service Description), ``page`` (HTML for browsers), ``api`` (JSON documents
of the API itself) or ``feed`` (the changes feed). ``names`` are what the ``format`` parameter
accepts besides the media type itself; SPARQLWrapper sends ``format=json``, ``xml``, ``csv``,
``tsv``, ``turtle``, ``n3``, ``rdf+xml`` or ``json-ld``, and ``json``/``xml`` mean JSON-LD and
RDF/XML for a graph.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import pyoxigraph as ox

if TYPE_CHECKING:  # query workers import this table without the web stack
    from werkzeug.datastructures import MIMEAccept

Kind = Literal["results", "graph", "page", "api", "feed"]
FORMATS = "http://www.w3.org/ns/formats/"


@dataclass(frozen=True)
class MediaType:
    key: str
    kind: Kind
    mime: str
    names: tuple[str, ...]
    label: str
    aliases: tuple[str, ...] = ()  # other media types clients ask for meaning the same thing
    w3c: str | None = None  # its IRI in http://www.w3.org/ns/formats/
    suffix: str | None = None  # the file suffix of a document in this format (/id/..., dumps)

    @property
    def content_type(self) -> str:
        text = self.mime.startswith("text/") or self.mime.endswith(("+xml", "+json", "/json"))
        return f"{self.mime}; charset=utf-8" if text else self.mime


TABLE = (
    MediaType(
        "json",
        "results",
        "application/sparql-results+json",
        ("json",),
        "SPARQL 1.1 Query Results JSON",
        ("application/json",),
        FORMATS + "SPARQL_Results_JSON",
    ),
    MediaType(
        "xml",
        "results",
        "application/sparql-results+xml",
        ("xml",),
        "SPARQL Query Results XML",
        ("application/xml", "text/xml"),
        FORMATS + "SPARQL_Results_XML",
    ),
    MediaType(
        "csv",
        "results",
        "text/csv",
        ("csv",),
        "SPARQL 1.1 Query Results CSV",
        (),
        FORMATS + "SPARQL_Results_CSV",
    ),
    MediaType(
        "tsv",
        "results",
        "text/tab-separated-values",
        ("tsv",),
        "SPARQL 1.1 Query Results TSV",
        (),
        FORMATS + "SPARQL_Results_TSV",
    ),
    MediaType(
        "turtle",
        "graph",
        "text/turtle",
        ("turtle", "ttl", "n3"),
        "Turtle",
        ("application/turtle", "application/x-turtle", "text/n3", "text/rdf+n3"),
        FORMATS + "Turtle",
        suffix="ttl",
    ),
    MediaType(
        "ntriples",
        "graph",
        "application/n-triples",
        ("ntriples", "nt", "n-triples"),
        "N-Triples",
        (),
        FORMATS + "N-Triples",
        suffix="nt",
    ),
    MediaType(
        "jsonld",
        "graph",
        "application/ld+json",
        ("json-ld", "jsonld", "json"),
        "JSON-LD",
        ("application/x-json+ld", "application/json"),
        FORMATS + "JSON-LD",
        suffix="jsonld",
    ),
    MediaType(
        "rdfxml",
        "graph",
        "application/rdf+xml",
        ("rdf+xml", "rdfxml", "rdf", "xml"),
        "RDF/XML",
        ("application/xml", "text/xml"),
        FORMATS + "RDF_XML",
        suffix="rdf",
    ),
    MediaType(
        "trig",
        "graph",
        "application/trig",
        ("trig",),
        "TriG (every triple in the default graph)",
        (),
        FORMATS + "TriG",
        suffix="trig",
    ),
    MediaType(
        "nquads",
        "graph",
        "application/n-quads",
        ("nquads", "nq", "n-quads"),
        "N-Quads (every triple in the default graph)",
        (),
        FORMATS + "N-Quads",
        suffix="nq",
    ),
    MediaType("html", "page", "text/html", ("html",), "HTML page for browsers"),
    MediaType("apijson", "api", "application/json", (), "JSON"),
    MediaType("atom", "feed", "application/atom+xml", ("atom",), "Atom 1.0 feed (RFC 4287)"),
)

BY_KEY = {m.key: m for m in TABLE}
BY_SUFFIX = {m.suffix: m for m in TABLE if m.suffix}

RESULTS_FORMATS = {
    "json": ox.QueryResultsFormat.JSON,
    "xml": ox.QueryResultsFormat.XML,
    "csv": ox.QueryResultsFormat.CSV,
    "tsv": ox.QueryResultsFormat.TSV,
}
GRAPH_FORMATS = {
    "turtle": ox.RdfFormat.TURTLE,
    "ntriples": ox.RdfFormat.N_TRIPLES,
    "jsonld": ox.RdfFormat.JSON_LD,
    "rdfxml": ox.RdfFormat.RDF_XML,
    "trig": ox.RdfFormat.TRIG,
    "nquads": ox.RdfFormat.N_QUADS,
}
QUAD_FORMATS = frozenset({"trig", "nquads"})


def csv_cell(text: str) -> str:
    """``text`` as a CSV cell (RFC 4180): in double quotes, each doubled, when it holds a comma,
    a double quote, a carriage return or a line feed; else as it is. (Python's csv module
    leaves a lone carriage return bare when lines end in a line feed.)"""
    if any(c in text for c in '",\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def of_kind(*kinds: Kind) -> list[MediaType]:
    """The table's entries of the given kinds, in table order (the first is the default)."""
    return [m for m in TABLE if m.kind in kinds]


def choose(
    candidates: Iterable[MediaType], accept: MIMEAccept, formats: Iterable[str] = ()
) -> MediaType | None:
    """The entry to answer with, or None when nothing acceptable is among ``candidates``.

    ``format`` values, when there are any, decide: the first that names a candidate (its key,
    one of its names or a media type) wins. Otherwise the ``Accept`` header does; with none
    (or ``*/*``) the first candidate is the answer.
    """
    candidates = list(candidates)
    formats = [f.strip().lower().split(";")[0].strip() for f in formats if f.strip()]
    if formats:
        for wanted in formats:
            for m in candidates:
                if wanted == m.key or wanted in m.names or wanted == m.mime or wanted in m.aliases:
                    return m
        return None
    if not accept:
        return candidates[0] if candidates else None
    offered: list[str] = []
    owner: dict[str, MediaType] = {}
    for m in candidates:
        for mime in (m.mime, *m.aliases):
            if mime not in owner:
                owner[mime] = m
                offered.append(mime)
    best = accept.best_match(offered) if offered else None
    return owner[best] if best else None


def prefers_html(accept: MIMEAccept) -> bool:
    """Whether the client (a browser) ranks HTML above JSON."""
    return accept.quality("text/html") > accept.quality("application/json")
