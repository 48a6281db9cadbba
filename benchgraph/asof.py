"""The store as it was: named queries read as of a moment, or compared between two.

A named query's header says how it reads the store's past, in a ``#+ versions:`` line:

- ``as-of [SCOPE]``: given ``asOf`` (a date or a date-time), it runs on the merged view of the
  versions current then. For each page that is the version whose data-updated time is the
  latest at or before ``asOf`` (a version without one counts at its ingest time; a date means
  through its end, UTC). A page with no version by then is absent, and so is one whose version
  then had been withdrawn by then. Without ``asOf`` the query runs on the store as it is.
- ``between [SCOPE]``: it runs on two named graphs, :data:`SINCE` and :data:`UNTIL`, holding the
  versions current at ``since`` and at ``until`` (default: the current versions) of each page
  whose version differs between the two, each with its catalogue entry (its
  ``bg:SourceVersion``). A page absent at one of the moments is absent from that graph. Given
  ``clock`` ``store`` (a parameter of type clock), the moments are the store's own time: the
  versions current at each are those the store held current then, by when it ingested,
  withdrew or restored each (what the changes feed reads: what the store learned when).

SCOPE, the name of a benchmark, paper or method parameter, narrows the pages read, when the
parameter is given, to those one of whose versions mentions its value (as subject or object):
a query with a scope must need no fact about its results that only other pages state.

A query with a scope may also say, in a ``#+ gathered:`` line, the kinds of server on which it
is read this way when it asks for the store as it is: on such a server (``gathered: virtuoso``:
:func:`benchgraph.store.pragmas.server_kind`), the current page graphs that mention the scope's
value and the alias records (:data:`benchgraph.graphs.ALIASES`, as a named graph) are gathered
into memory and the query runs there, not on the server. The rows are the server's rows, as the
contract tests hold them: the merged view is the union of the current page graphs, and the
query reads nothing else. ``leaderboard`` is gathered on Virtuoso, which evaluates each of its
subqueries after the first once per row before it, and ran one CompoSET board past a minute
(BENCHMARKS.md); every other store answers it itself.

The dataset is built in memory from the graphs of the versions chosen, each read from the store
(any store: embedded, remote or served), and the query runs on it with the store's engine.
Read between two moments, it holds only the pages whose version may differ between them, found
from the times the versions catalogue records, and a page whose two versions have a delta
recorded at ingest is read from it rather than from both graphs (:mod:`benchgraph.changelog`):
the statements about the results that differ, which give the rows both graphs give.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

import pyoxigraph as ox

from benchgraph import changelog, graphs, queries, versions
from benchgraph import vocab as V
from benchgraph.queries import VERSION_MOMENTS, NamedQuery, reads_past
from benchgraph.sparqltext import Term, substitute
from benchgraph.store import Answer, Store, StoreError

# The parameter of a query read between that says by which clock its moments are (a clock
# parameter: data, the default, or store).
CLOCK = "clock"
SINCE = V.ID + "past/since"
UNTIL = V.ID + "past/until"


@dataclass(frozen=True)
class Past:
    """What a named query reads of the store's past: ``reading`` ``as-of`` or ``between``,
    its ``moments`` as given (``as-of``: asOf; ``between``: since, and until or ""), and the
    IRI its pages are narrowed to ("" for every page)."""

    reading: str
    moments: tuple[str, ...]
    scope: str = ""
    clock: str = "data"  # between: the moments by each page's data-updated time, or the store's
    # current (the reading of a gathered query, ``moments`` empty): the kinds of server it is
    # read so on; a store of any other kind answers the query itself.
    on: frozenset[str] = frozenset()

    def read_on(self, kind: str) -> bool:
        """Whether a store of ``kind`` (:attr:`benchgraph.store.Store.kind`) is read this way
        (every store, but for the current pages of a gathered query)."""
        return self.reading != "current" or kind in self.on


def past(named: NamedQuery, bindings: Mapping[str, Term]) -> Past | None:
    """What ``named``, run with ``bindings``, reads of the store's past, or (a gathered query,
    its scope given) the ``current`` pages of its scope on the servers its ``gathered`` line
    names; None when it reads the store as it is (no ``versions`` line, or as-of with no
    ``asOf`` given)."""
    reading, *scope = named.versions.split() or [""]
    within = bindings.get(scope[0]) if scope else None
    if not reads_past(named, bindings):
        if named.gathered and isinstance(within, ox.NamedNode):
            return Past("current", (), within.value, on=named.gathered)
        return None
    given = [bindings.get(name) for name in VERSION_MOMENTS[reading]]
    clock = bindings.get(CLOCK)
    return Past(
        reading,
        tuple(term.value if isinstance(term, ox.Literal) else "" for term in given),
        within.value if isinstance(within, ox.NamedNode) else "",
        clock.value if isinstance(clock, ox.Literal) else "data",
    )


def moment(text: str) -> datetime:
    """The instant a moment given as ``text`` (an xsd:date or xsd:dateTime, as the ``moment``
    parameter type writes it) stands for: a date's last instant, UTC; a date-time as such."""
    found = versions.instant(text)
    if found is None:
        raise ValueError(f"not a date or a date-time: {text!r}")
    return found if "T" in text else found + timedelta(days=1, microseconds=-1)


def prepare(store: Store, asked: Past, recorded: bool = True) -> ox.Store:
    """The dataset ``asked`` reads, in memory (see the module's docstring). Read between two
    moments, only the pages whose version may differ between them are read, each pair of
    versions from its delta where one is recorded (:mod:`benchgraph.changelog`), unless not
    ``recorded``: then every version in the catalogue, and the graphs of each pair. Raises
    StoreError."""
    scope = ox.NamedNode(asked.scope) if asked.scope else None
    dataset = ox.Store()
    if asked.reading == "current":
        assert scope is not None
        _gather(store, dataset, scope)
        return dataset
    if asked.reading == "as-of":
        pages = versions.read_all(store, scope)
        when = moment(asked.moments[0])
        chosen = [v for v in (page.at(when) for page in pages) if v is not None]
        _copy(store, dataset, ((v.graph, ()) for v in chosen), ox.DefaultGraph())
        return dataset
    since = moment(asked.moments[0])
    until = moment(asked.moments[1]) if asked.moments[1] else None
    found = changelog.moved(store, since, until, asked.clock, scope) if recorded else None
    pages = found if found is not None else versions.read_all(store, scope)
    pairs: list[tuple[versions.Version | None, versions.Version | None]] = []
    for page in pages:
        old = page.at(since, asked.clock)
        new = page.at(until, asked.clock) if until else page.current
        if (old and old.sha256) != (new and new.sha256):
            pairs.append((old, new))
    both = [(old, new) for old, new in pairs if old is not None and new is not None]
    deltas = changelog.pairs_read(store, both) if recorded else {}
    whole: list[tuple[str, versions.Version]] = []
    for old, new in pairs:
        delta = deltas.get((old.key, old.sha256, new.sha256)) if old and new else None
        if delta is None:
            whole += [(SINCE, old)] if old else []
            whole += [(UNTIL, new)] if new else []
            continue
        assert old is not None and new is not None
        for graph, version in ((SINCE, old), (UNTIL, new)):
            data = delta.side(version.iri).encode("utf-8") + _entry(version)
            _load(dataset, data, ox.NamedNode(graph))
    for graph in (SINCE, UNTIL):
        chosen = [v for into, v in whole if into == graph]
        _copy(store, dataset, ((v.graph, v.triples()) for v in chosen), ox.NamedNode(graph))
    return dataset


def _gather(store: Store, dataset: ox.Store, scope: ox.NamedNode) -> None:
    """Add to ``dataset`` what a gathered query reads of ``store`` as it is: the current page
    graphs that mention ``scope``, their union as the default graph, and the alias records as
    their named graph."""
    found = store.query(
        queries.internal("page-graphs-mentioning"),
        {"scope": scope, "pages": ox.Literal(graphs.PAGES)},
        default_graph=(),
    )
    assert isinstance(found, ox.QuerySolutions)
    pages = sorted(g.value for row in found if isinstance(g := row["graph"], ox.NamedNode))
    _copy(store, dataset, ((graph, ()) for graph in pages), ox.DefaultGraph())
    _copy(store, dataset, [(graphs.ALIASES, ())], ox.NamedNode(graphs.ALIASES))


def _entry(version: versions.Version) -> bytes:
    """The catalogue entry of ``version`` as N-Triples."""
    return ox.serialize(version.triples(), format=ox.RdfFormat.N_TRIPLES) or b""


def _copy(
    store: Store,
    dataset: ox.Store,
    graphs: Iterable[tuple[str, Iterable[ox.Triple]]],
    into: ox.NamedNode | ox.DefaultGraph,
) -> None:
    """Add to the graph ``into`` of ``dataset`` the triples of each graph of ``store`` named
    in ``graphs``, with the triples given beside it (one page at a time: the engine reads its
    N-Triples, giving its blank nodes identities of their own)."""
    for graph, extra in graphs:
        data = store.graph_ntriples(graph) + (
            ox.serialize(extra, format=ox.RdfFormat.N_TRIPLES) or b""
        )
        _load(dataset, data, into)


def _load(dataset: ox.Store, data: bytes, into: ox.NamedNode | ox.DefaultGraph) -> None:
    """Load the N-Triples ``data`` into the graph ``into`` of ``dataset`` (its blank nodes
    given identities of their own). Raises StoreError."""
    try:
        dataset.load(data, format=ox.RdfFormat.N_TRIPLES, to_graph=into)
    except (OSError, SyntaxError) as error:
        raise StoreError(f"cannot gather the versions asked for: {error}") from None


def run(
    store: Store,
    asked: Past,
    text: str,
    bindings: Mapping[str, Term],
    base_iri: str | None = None,
    recorded: bool = True,
) -> Answer:
    """Run the query ``text`` with ``bindings`` on the dataset ``asked`` reads of ``store``
    (``recorded``: see :func:`prepare`), its relative IRIs resolved against ``base_iri``.
    Raises SyntaxError for a malformed query and StoreError when the store cannot answer."""
    return prepare(store, asked, recorded).query(substitute(text, bindings), base_iri=base_iri)
