"""Helpers for the linked-data tests: raw HTTP (no redirect followed), RDF parsing with rdflib,
the union of a store's page graphs."""

from __future__ import annotations

import http.client
import urllib.parse
import warnings
from pathlib import Path
from typing import NamedTuple

import pyoxigraph as ox
import rdflib

from benchgraph import graphs

# Media-table keys -> rdflib parser names.
RDFLIB_FORMATS = {
    "turtle": "turtle",
    "ntriples": "nt",
    "jsonld": "json-ld",
    "rdfxml": "xml",
    "trig": "trig",
    "nquads": "nquads",
}


def parse(body: bytes, key: str) -> rdflib.Graph:
    """The triples of ``body`` (format ``key``), parsed by rdflib, as one graph."""
    if key in ("trig", "nquads"):
        dataset = rdflib.Dataset()
        dataset.parse(data=body, format=RDFLIB_FORMATS[key])
        graph = rdflib.Graph()
        for s, p, o, _ in dataset.quads((None, None, None, None)):
            graph.add((s, p, o))
        return graph
    with warnings.catch_warnings():
        # rdflib's JSON-LD parser builds a ConjunctiveGraph, which rdflib itself deprecates.
        warnings.filterwarnings(
            "ignore", "ConjunctiveGraph is deprecated", DeprecationWarning, "rdflib"
        )
        return rdflib.Graph().parse(data=body, format=RDFLIB_FORMATS[key])


class RawReply(NamedTuple):
    status: int
    headers: http.client.HTTPMessage
    body: bytes


def raw_get(url: str, **headers: str) -> RawReply:
    """A GET that follows no redirect and keeps the transfer headers as sent."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        names = {k.replace("_", "-"): v for k, v in headers.items()}
        connection.request("GET", target, headers=names)
        response = connection.getresponse()
        return RawReply(response.status, response.headers, response.read())
    finally:
        connection.close()


def page_union_graph(location: Path) -> rdflib.Graph:
    """The union of a store's page graphs (not its reports) as an rdflib graph, each triple
    once: what the merged view must hold, read from the page graphs themselves."""
    store = ox.Store.read_only(str(location))
    triples = {
        q.triple
        for q in store
        if isinstance(q.graph_name, ox.NamedNode) and graphs.is_page(q.graph_name.value)
    }
    body = ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES) or b""
    return rdflib.Graph().parse(data=body, format="nt")
