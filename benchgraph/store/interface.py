"""The store's interface, which knows no backend: :class:`Store`, its answers and its errors.

Each source page lives in its own named graph, the provenance of what it states, beside the graph
of its validation report. Queries see the **merged view** as their default graph: each distinct
triple of the page graphs exactly once (see :mod:`benchgraph.graphs`). Writing or removing a page
updates the view in the same transaction (:mod:`benchgraph.store.writes`), and a triple leaves
the view only when no page graph states it any more; so a reader never sees a half-written page,
and the view always equals the set-union of the page graphs.

The backends implement it: :mod:`~benchgraph.store.embedded` (pyoxigraph on disk, whose
default graph is the view), :mod:`~benchgraph.store.remote` (any SPARQL 1.1 server) and
:mod:`~benchgraph.store.served` (a store folder a running ``benchgraph serve`` holds).
:mod:`benchgraph.store.opening` picks one from a location; nothing else knows which.
"""

from __future__ import annotations

import sys
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO

import pyoxigraph as ox

from benchgraph import graphs, queries
from benchgraph import vocab as V
from benchgraph.sparqltext import Term
from benchgraph.store.writes import (
    Change,
    copies,
    data,
    in_view,
    removal,
    replacement,
    statement,
)

Notify = Callable[[str], None]

# Triples a repair sends in one update.
_BATCH = 20_000


class StoreError(Exception):
    """The store could not be opened, read or written; the message names it and what failed."""


class LoadUndone(StoreError):
    """A load of many pages at once into an empty store failed; the store is empty again, as it
    was before the load (see :meth:`Store.begin_load`)."""


class PartlyWritten(StoreError):
    """A write of several changes (:meth:`Store.write_many`) stopped at one that failed, with
    ``cause``: the first ``done`` are written, each whole; the others are not."""

    def __init__(self, cause: StoreError, done: int) -> None:
        super().__init__(str(cause))
        self.cause = cause
        self.done = done


class WriteConflict(StoreError):
    """A write was refused, nothing of it written: another writer changed a source it rewrites
    after it was read (see ``Change.expects``). Reading the source again and redoing the write
    is safe."""


class DamagedStore(StoreError):
    """The store's files are damaged or some are missing: it is refused, never read as an
    empty store nor written over (see :func:`check_folder`)."""


class OutdatedStore(StoreError):
    """The store was written by an earlier benchgraph, whose default graph was the union of the
    page graphs, and it was opened read-only, so it cannot be upgraded here."""


class SentTriples:
    """The triples of a CONSTRUCT or DESCRIBE answer a server sent in ``fmt``, read from the
    body as it came (what :class:`pyoxigraph.QueryTriples` is for the embedded store: iterated,
    or serialized). Read whole when made, so a malformed body fails here, not while read.
    Raises SyntaxError for a body that is not ``fmt``."""

    def __init__(self, body: bytes, fmt: ox.RdfFormat) -> None:
        self._triples = [quad.triple for quad in ox.parse(body, fmt)]

    def __iter__(self) -> Iterator[ox.Triple]:
        return iter(self._triples)

    def serialize(
        self, output: IO[bytes] | None = None, format: ox.RdfFormat = ox.RdfFormat.N_TRIPLES
    ) -> bytes | None:
        """The triples written in ``format``: returned, or written to ``output`` if given."""
        return ox.serialize(self._triples, output, format)


Triples = ox.QueryTriples | SentTriples  # a CONSTRUCT or DESCRIBE answer
Answer = ox.QuerySolutions | ox.QueryBoolean | Triples


@dataclass(frozen=True)
class ViewCheck:
    """How the merged view differs from the set-union of the page graphs: the triples some
    page states that the view lacks, and the triples the view holds that no page states."""

    missing: tuple[ox.Triple, ...]
    extra: tuple[ox.Triple, ...]

    @property
    def exact(self) -> bool:
        return not self.missing and not self.extra

    def text(self) -> str:
        if self.exact:
            return "the merged view holds each triple of the page graphs once, and nothing else"
        return (
            f"the merged view differs from the union of the page graphs: {len(self.missing)} "
            f"triples stated by pages are missing from it, {len(self.extra)} triples in it are "
            "stated by no page; `benchgraph repair` rebuilds it"
        )


class Store(ABC):
    """A store of named graphs, queried over their merged view."""

    location: str
    # Most statements the store takes in one update (0: no bound; a remote store's setting).
    request_statements = 0
    # The triples of a group of pages the loader hands write_many at once (0: one page at a
    # time; a remote store with a bulk path groups them).
    write_group = 0

    @property
    def kind(self) -> str:
        """The kind of server that answers this store's queries, where benchgraph reads some
        queries otherwise (``virtuoso``: :func:`benchgraph.asof.past`); "" for any other, an
        embedded store among them."""
        return ""

    @property
    def view(self) -> str | None:
        """Where the merged view lives: None, the default graph; else the named graph of that
        name (a remote server whose default graph is the union of its graphs)."""
        return None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @abstractmethod
    def close(self) -> None:
        """Flush writes and release the store."""

    def replace_graphs(self, contents: Mapping[str, Iterable[ox.Triple]]) -> None:
        """Replace each named graph of ``contents`` with its triples, all at once (a page's graph
        and its validation report, for instance), and the view with them: a :meth:`write`.

        Raises StoreError if the write fails; every graph then keeps its previous content.
        """
        self.write(Change({graph: list(triples) for graph, triples in contents.items()}))

    def begin_load(self) -> bool:
        """Start loading many pages at once, if this store can: True if it does, and
        :meth:`write_many` then loads each group of writes without a transaction, until
        :meth:`end_load`. A store that cannot (this one; see EmbeddedStore) goes on writing each
        change in its own transaction."""
        return False

    def end_load(self) -> None:
        """End the load that :meth:`begin_load` started (nothing if none was)."""
        return None

    def write_many(self, changes: Sequence[Change]) -> None:
        """Do each of ``changes`` in order, each in its own transaction (see :meth:`write`).
        Raises the StoreError of the first that fails, or PartlyWritten when the ones before
        it are written."""
        for done, change in enumerate(changes):
            try:
                self.write(change)
            except StoreError as error:
                if done:
                    raise PartlyWritten(error, done) from None
                raise

    def holds_nothing(self) -> bool:
        """Whether the store holds no page and no version of one (a batch that begins then
        need not ask it about each page)."""
        return not self.has_pages() and not self.finds(
            "graph-has-triples", {"graph": ox.NamedNode(graphs.VERSIONS)}, default_graph=()
        )

    def write(self, change: Change) -> None:
        """Do ``change`` in one transaction (see Change), the view with it.

        Raises StoreError if the write fails; the store is then as it was."""
        lines = {g: [statement(t) for t in ts] for g, ts in change.replaced.items()}
        update = replacement(lines, self.view, change)
        self.apply(f"writing graph {change.names}", update, change.expects)

    def replace_graph(self, graph: str, triples: Iterable[ox.Triple]) -> None:
        """Replace the named graph ``graph`` with ``triples`` at once (see replace_graphs)."""
        self.replace_graphs({graph: triples})

    def remove_graph(self, graph: str) -> None:
        """Remove the named graph ``graph`` (a no-op if it is not there) and, for a page
        graph, the statements no other page states from the view, at once."""
        self.update(f"removing graph <{graph}>", removal(graph, self.view))

    def remove_page(self, graph: str, change: Change | None = None) -> None:
        """Remove the page graph ``graph`` and its validation report graph in one transaction,
        with the statements no other page states from the view (a no-op for a page that is
        not there), once the graphs ``change`` keeps are copied, and with its catalogue
        statements added and deleted (its ``replaced`` graphs are not written). Raises
        StoreError; the page and its report are then both still there."""
        operations = copies(change.kept) if change else []
        operations += [removal(graph, self.view), f"DROP SILENT GRAPH <{graphs.report(graph)}>"]
        if change is not None:
            for verb, found in (("DELETE", change.deleted), ("INSERT", change.added)):
                operations += data(verb, {g: [statement(t) for t in ts] for g, ts in found.items()})
        self.apply(
            f"removing page <{graph}>", " ;\n".join(operations), change.expects if change else {}
        )

    @abstractmethod
    def update(self, what: str, text: str) -> None:
        """Run the SPARQL update ``text`` (built by this module, never a user's) as one
        transaction. Raises StoreError, saying it failed while ``what``."""

    def apply(self, what: str, text: str, expects: Mapping[str, str]) -> None:
        """Run the update ``text`` of a change made from catalogue entries read as ``expects``
        says (see Change), as :meth:`update` does. A store with one writer has nothing to check;
        a served store has the server check them (raising WriteConflict)."""
        self.update(what, text)

    @abstractmethod
    def graph_triples(self, graph: str | None) -> Iterator[ox.Triple]:
        """Yield the triples of the named graph ``graph`` (None: the merged view)."""

    def graph_ntriples(self, graph: str) -> bytes:
        """The triples of the named graph ``graph`` as N-Triples (what a copy of it reads)."""
        return ox.serialize(self.graph_triples(graph), format=ox.RdfFormat.N_TRIPLES) or b""

    @abstractmethod
    def named_graphs(self) -> list[str]:
        """The names of the page and report graphs (and any other named graph), sorted."""

    @abstractmethod
    def quads(self, history: bool = True) -> Iterator[ox.Quad]:
        """Yield every quad of the named graphs, and the merged view's triples as quads of the
        default graph (streamed). Without ``history``, the quads of the history graphs, their
        reports and the versions catalogue (:func:`benchgraph.graphs.is_history`) are left out:
        the store as it is now."""

    @abstractmethod
    def query(
        self,
        sparql: str,
        bindings: Mapping[str, Term] | None = None,
        *,
        default_graph: Sequence[str] | None = None,
        named_graphs: Sequence[str] | None = None,
        base_iri: str | None = None,
    ) -> Answer:
        """Run a read query, with ``bindings`` substituted for variables as RDF terms.

        The default graph is the merged view and every named graph can be reached with GRAPH,
        unless ``default_graph`` or ``named_graphs`` give the dataset; an empty
        ``default_graph`` says the query reads named graphs only. Raises SyntaxError for a
        malformed query and StoreError when the store cannot answer.
        """

    def source_hash(self, graph: str, source: str) -> str | None:
        """Return the content hash recorded for ``source`` in ``graph``, or None."""
        answer = self.query(
            queries.internal("source-hash"),
            {"graph": ox.NamedNode(graph), "source": ox.NamedNode(source)},
            default_graph=(),
        )
        assert isinstance(answer, ox.QuerySolutions)
        for row in answer:
            return str(getattr(row["hash"], "value", ""))
        return None

    def lists(self, graph: str) -> bool:
        """Whether the named graph ``graph`` is one of the store's (not its machinery: see
        :func:`benchgraph.graphs.is_hidden`)."""
        return not graphs.is_hidden(graph)

    def graph_sizes(self) -> dict[str, int]:
        """How many triples each named graph holds."""
        answer = self.query(queries.internal("graph-sizes"), default_graph=())
        assert isinstance(answer, ox.QuerySolutions)
        sizes = {}
        for row in answer:
            graph, triples = row["graph"], row["triples"]
            named = isinstance(graph, ox.NamedNode) and self.lists(graph.value)
            if named and isinstance(triples, ox.Literal):
                sizes[graph.value] = int(triples.value)
        return sizes

    def finds(
        self,
        name: str,
        bindings: Mapping[str, Term] | None = None,
        default_graph: Sequence[str] | None = None,
    ) -> bool:
        """Whether the internal SELECT query ``name`` has an answer."""
        answer = self.query(queries.internal(name), bindings, default_graph=default_graph)
        assert isinstance(answer, ox.QuerySolutions)
        return next(iter(answer), None) is not None

    def has_pages(self) -> bool:
        """Whether any page graph holds anything."""
        return self.finds("has-pages", {"pages": ox.Literal(graphs.PAGES)}, default_graph=())

    def check_view(self) -> ViewCheck:
        """Compare the merged view with the set-union of the page graphs."""

        def triples(name: str) -> tuple[ox.Triple, ...]:
            answer = self.query(queries.internal(name), {"pages": ox.Literal(graphs.PAGES)})
            assert isinstance(answer, ox.QuerySolutions)
            return tuple(ox.Triple(row["s"], row["p"], row["o"]) for row in answer)

        return ViewCheck(triples("view-missing"), triples("view-extra"))

    def repair_view(self, check: ViewCheck | None = None) -> ViewCheck:
        """Make the merged view equal to the union of the page graphs again: add what is
        missing, remove what no page states, in batches (a repair that stops can be run
        again). Returns what differed."""
        check = check if check is not None else self.check_view()
        for verb, found in (("DELETE", check.extra), ("INSERT", check.missing)):
            batch = self.request_statements or _BATCH
            for start in range(0, len(found), batch):
                body = "\n".join(statement(t) for t in found[start : start + batch])
                self.update(
                    "repairing the merged view", f"{verb} DATA {{\n{in_view(body, self.view)}\n}}"
                )
        return check

    def dump(self, output: IO[bytes], fmt: ox.RdfFormat, history: bool = False) -> None:
        """Write the quads of :meth:`quads` to ``output`` in the quad format ``fmt``, as they
        are read (the view as the default graph; the history only if ``history``)."""
        ox.serialize(self.quads(history), output, fmt, prefixes=V.PREFIXES)

    def view_triples(self) -> Iterator[ox.Triple]:
        """Yield each triple of the merged view (each triple of the page graphs, once)."""
        answer = self.query(queries.internal("view-triples"))
        assert isinstance(answer, ox.QuerySolutions)
        for row in answer:
            yield ox.Triple(row["s"], row["p"], row["o"])


# What opening a store of an earlier layout to write does to it, told ``notify``, given the
# layout number the store was written in (see :func:`benchgraph.store.opening.open_store`): the
# layer above the store gives it, as it knows what the identities of the sources were then and
# are now.
Upgrade = Callable[[Store, Notify | None, int], object]


def present(quads: Iterable[ox.Quad]) -> Iterator[ox.Quad]:
    """The quads of ``quads`` but those in a graph of history (a kept version, its report, the
    versions catalogue: :func:`benchgraph.graphs.is_history`), in their order."""
    for quad in quads:
        graph = quad.graph_name
        if not (isinstance(graph, ox.NamedNode) and graphs.is_history(graph.value)):
            yield quad


def notice(text: str) -> None:
    """Tell the user something that is not a command's output (a store being upgraded): a line
    on stderr. The ``notify`` the commands and the server's store are given."""
    sys.stderr.write(text + "\n")


def upgrade_notice(location: str, pages: int) -> str:
    """What a user is told when a store of the earlier layout is upgraded."""
    return (
        f"benchgraph: the store at {location} was written by an earlier version, whose default "
        "graph was the union of the page graphs (a fact stated by n pages came back n times); "
        f"building its merged view from {pages} page graphs, once"
    )
