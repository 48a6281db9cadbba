"""Terms between pyoxigraph (the store) and rdflib (parsing, serialising, pySHACL).

pySHACL runs on small in-memory rdflib graphs, never on the store: a page's triples are copied
into an rdflib graph with :func:`to_graph`, and report graphs come back with
:func:`to_oxigraph_triples`.
"""

from __future__ import annotations

from collections.abc import Iterable

import pyoxigraph as ox
import rdflib
from rdflib import BNode, URIRef
from rdflib.term import Node

_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


def to_rdflib(term: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple) -> Node:
    """The rdflib term for a pyoxigraph term. Raises TypeError for an RDF-star triple term."""
    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    if isinstance(term, ox.BlankNode):
        return BNode(term.value)
    if isinstance(term, ox.Literal):
        if term.language:
            return rdflib.Literal(term.value, lang=term.language)
        if term.datatype.value == _XSD_STRING:
            return rdflib.Literal(term.value)
        return rdflib.Literal(term.value, datatype=URIRef(term.datatype.value))
    raise TypeError(f"no rdflib term for {term!r}")


def to_oxigraph(term: Node) -> ox.NamedNode | ox.BlankNode | ox.Literal:
    """The pyoxigraph term for an rdflib term. Raises TypeError for anything else."""
    if isinstance(term, URIRef):
        return ox.NamedNode(str(term))
    if isinstance(term, BNode):
        return ox.BlankNode(str(term))
    if isinstance(term, rdflib.Literal):
        if term.language:
            return ox.Literal(str(term), language=term.language)
        if term.datatype is not None:
            return ox.Literal(str(term), datatype=ox.NamedNode(str(term.datatype)))
        return ox.Literal(str(term))
    raise TypeError(f"no pyoxigraph term for {term!r}")


def to_oxigraph_triple(s: Node, p: Node, o: Node) -> ox.Triple:
    """The pyoxigraph triple for an rdflib one. Raises TypeError for a literal subject."""
    subject, predicate = to_oxigraph(s), to_oxigraph(p)
    if isinstance(subject, ox.Literal) or not isinstance(predicate, ox.NamedNode):
        raise TypeError(f"not a triple: {s!r} {p!r} {o!r}")
    return ox.Triple(subject, predicate, to_oxigraph(o))


def to_graph(triples: Iterable[ox.Triple], graph: rdflib.Graph | None = None) -> rdflib.Graph:
    """``graph`` (default: a new in-memory rdflib graph) with ``triples`` added; returns it.

    A page repeats its terms (predicates, classes, its benchmark and source) many times, so each
    distinct term is converted once; the triples go to the graph's store directly (what
    ``Graph.add`` does after checking the term types, which are rdflib's by construction)."""
    graph = rdflib.Graph() if graph is None else graph
    converted: dict[ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple, Node] = {}

    def term(t: ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple) -> Node:
        found = converted.get(t)
        if found is None:
            found = converted[t] = to_rdflib(t)
        return found

    add = graph.store.add
    for t in triples:
        add((term(t.subject), term(t.predicate), term(t.object)), graph, quoted=False)
    return graph


def to_oxigraph_triples(triples: Iterable[tuple[Node, Node, Node]]) -> list[ox.Triple]:
    """The pyoxigraph triples for rdflib ones, each distinct term converted once. Raises
    TypeError for a literal subject or anything that is no RDF term."""
    converted: dict[Node, ox.NamedNode | ox.BlankNode | ox.Literal] = {}

    def term(t: Node) -> ox.NamedNode | ox.BlankNode | ox.Literal:
        found = converted.get(t)
        if found is None:
            found = converted[t] = to_oxigraph(t)
        return found

    out = []
    for s, p, o in triples:
        subject, predicate = term(s), term(p)
        if isinstance(subject, ox.Literal) or not isinstance(predicate, ox.NamedNode):
            raise TypeError(f"not a triple: {s!r} {p!r} {o!r}")
        out.append(ox.Triple(subject, predicate, term(o)))
    return out
