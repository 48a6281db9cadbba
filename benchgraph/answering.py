"""Answering a named query: the one path the command line and the server both take.

A named query is asked with its parameters as text (:func:`ask`): each value is bound as an
RDF term, a name looked up in the store (:func:`benchgraph.queries.resolve`), and the query's
header says what it reads of the store's past (:mod:`benchgraph.asof`). The question is then
run on a store (:func:`run`), as it is or as it was. The command line does both on the store
it opened (:func:`answer`); the server asks in its request thread, looking names up through
its query workers, and a worker runs the question on its snapshot of the store.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import pyoxigraph as ox

from benchgraph import asof, graphs, queries, report_keys, summaries
from benchgraph.queries import NamedQuery
from benchgraph.sparqltext import Term
from benchgraph.store import Answer, Store
from benchgraph.suggest import Names


class Finder(Protocol):
    """What looks a parameter's value up in a store (see :func:`benchgraph.queries.resolve`):
    the first column of an internal query, on the merged view or on the union of the graphs
    ``within``; the same in the versions kept as history (``earlier``); and every name things
    of a kind go by, to suggest from."""

    def lookup(
        self, text: str, bindings: Mapping[str, Term], within: Sequence[str] | None = None
    ) -> list[str]: ...

    def earlier(self, text: str, bindings: Mapping[str, Term]) -> list[str]: ...

    def names(self, text: str, bindings: Mapping[str, Term]) -> Names: ...


@dataclass(frozen=True)
class Question:
    """A named query ready to run: its ``text``, its parameters bound as terms (``bindings``),
    and what it reads of the store's past (``past``; None: the store as it is)."""

    text: str
    bindings: Mapping[str, Term]
    past: asof.Past | None = None


def ask(named: NamedQuery, values: Mapping[str, str], finder: Finder) -> Question:
    """The question ``named`` asks with the parameter ``values`` (text by name), names looked
    up with ``finder``. Raises QueryError (UnknownName for a name that names nothing)."""
    bindings = queries.resolve(named, values, finder.lookup, finder.names, finder.earlier)
    return bound(named, bindings)


def bound(named: NamedQuery, bindings: Mapping[str, Term]) -> Question:
    """The question ``named`` asks with parameters already bound as terms (``bindings``)."""
    return Question(named.text_for(bindings), bindings, asof.past(named, bindings))


def run(
    store: Store,
    question: Question,
    base_iri: str | None = None,
    *,
    default_graph: Sequence[str] | None = None,
    named_graphs: Sequence[str] | None = None,
) -> Answer:
    """Run ``question`` on ``store``: on the store as it was when the question reads its past,
    on its scope's pages gathered when it is a gathered query and ``store``'s server is of a
    kind it names (:mod:`benchgraph.asof`), else on the dataset ``default_graph`` and
    ``named_graphs`` give (see :meth:`Store.query`), its relative IRIs resolved against
    ``base_iri``. Raises SyntaxError and StoreError."""
    if question.past is not None and question.past.read_on(store.kind):
        return asof.run(store, question.past, question.text, question.bindings, base_iri)
    return store.query(
        question.text,
        question.bindings,
        default_graph=default_graph,
        named_graphs=named_graphs,
        base_iri=base_iri,
    )


class StoreFinder:
    """A :class:`Finder` that reads the store it is given directly."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def lookup(
        self, text: str, bindings: Mapping[str, Term], within: Sequence[str] | None = None
    ) -> list[str]:
        found = self.store.query(text, bindings, default_graph=within)
        assert isinstance(found, ox.QuerySolutions)
        return [str(getattr(row[0], "value", "")) for row in found if row[0] is not None]

    def earlier(self, text: str, bindings: Mapping[str, Term]) -> list[str]:
        kept = [g for g in self.store.named_graphs() if g.startswith(graphs.HISTORY)]
        return self.lookup(text, bindings, kept) if kept else []

    def names(self, text: str, bindings: Mapping[str, Term]) -> Names:
        return Names(self.lookup(text, bindings))


# The records some named queries read instead of the pages (benchgraph.kept): each refused on a
# store where some are missing.
RECORDS = (summaries.KEPT, report_keys.KEPT)


def answer(
    store: Store, named: NamedQuery, values: Mapping[str, str], base_iri: str | None = None
) -> Answer:
    """Answer the named query ``named`` with the parameter ``values`` (text by name) on
    ``store``, its relative IRIs resolved against ``base_iri``. Raises QueryError
    (UnknownName for a name that names nothing), SyntaxError or StoreError (MissingRecords for
    a query that reads a record of :data:`RECORDS` on a store where some are missing: see
    :mod:`benchgraph.kept`)."""
    for kept in RECORDS:
        if named.name in kept.readers:
            kept.require(store)
    return run(store, ask(named, values, StoreFinder(store)), base_iri)
