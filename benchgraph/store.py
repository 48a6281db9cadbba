"""The store: the only state benchgraph has.

Each source page lives in its own named graph; queries see the union of all of them. Replacing a
page's graph is one transaction, so a reader never sees a half-written page.

Two implementations share one interface, :class:`Store`, and :func:`open_store` picks one from
the location: a folder is an :class:`EmbeddedStore` (pyoxigraph, on disk); an ``http(s)://`` URL
is a :class:`benchgraph.remote.RemoteStore`, any SPARQL 1.1 server. Nothing else knows which.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO

import pyoxigraph as ox

from benchgraph import export, queries
from benchgraph import vocab as V

Term = ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple
Answer = ox.QuerySolutions | ox.QueryBoolean | ox.QueryTriples

# Graphs a remote write stages a large page in before moving it into place (see remote.py).
STAGING_PREFIX = "urn:benchgraph:staging:"


class StoreError(Exception):
    """The store could not be opened, read or written; the message names it and what failed."""


def is_remote(location: str | Path) -> bool:
    """Whether ``location`` names a SPARQL server (an http(s) URL) rather than a folder."""
    return str(location).lower().startswith(("http://", "https://"))


def open_store(location: str | Path, *, must_exist: bool = False) -> Store:
    """The store at ``location``: a SPARQL server's query endpoint URL, or a folder (created if
    missing, unless ``must_exist``). Raises StoreError if it cannot be opened."""
    if is_remote(location):
        from benchgraph.remote import RemoteStore  # only loaded (and SPARQLWrapper) when used

        return RemoteStore.from_settings(str(location))
    if must_exist and not (Path(location) / "CURRENT").is_file():
        raise StoreError(
            f"there is no store at {location}: load pages first with "
            f"`benchgraph ingest --store {location} PAGES...`"
        )
    return EmbeddedStore(location)


def statement(triple: ox.Triple) -> str:
    """A triple as a line of SPARQL's data syntax. pyoxigraph prints terms in N-Triples syntax,
    which SPARQL accepts as is: page text reaches an update only inside escaped literals and
    validated IRIs."""
    return f"{triple.subject} {triple.predicate} {triple.object} ."


def replacement(graphs: Mapping[str, Sequence[str]]) -> str:
    """The update that replaces each named graph of ``graphs`` with its statements, in one
    request. Blank node labels are scoped to the request, so each must be unique per graph."""
    drops = [f"DROP SILENT GRAPH <{graph}>" for graph in graphs]
    inserts = [
        f"GRAPH <{graph}> {{\n" + "\n".join(lines) + "\n}" for graph, lines in graphs.items()
    ]
    return " ;\n".join(drops) + " ;\nINSERT DATA {\n" + "\n".join(inserts) + "\n}"


class Store(ABC):
    """A store of named graphs, queried over their union."""

    location: str

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @abstractmethod
    def close(self) -> None:
        """Flush writes and release the store."""

    @abstractmethod
    def replace_graphs(self, graphs: Mapping[str, Iterable[ox.Triple]]) -> None:
        """Replace each named graph of ``graphs`` with its triples, all at once (a page's graph
        and its validation report, for instance).

        Raises StoreError if the write fails; every graph then keeps its previous content.
        """

    def replace_graph(self, graph: str, triples: Iterable[ox.Triple]) -> None:
        """Replace the named graph ``graph`` with ``triples`` at once (see replace_graphs)."""
        self.replace_graphs({graph: triples})

    @abstractmethod
    def remove_graph(self, graph: str) -> None:
        """Remove the named graph ``graph`` (a no-op if it is not there)."""

    @abstractmethod
    def graph_triples(self, graph: str | None) -> Iterator[ox.Triple]:
        """Yield the triples of the named graph ``graph`` (None: the default graph)."""

    @abstractmethod
    def named_graphs(self) -> list[str]:
        """The names of the named graphs, sorted."""

    @abstractmethod
    def quads(self) -> Iterator[ox.Quad]:
        """Yield every quad of the named graphs (streamed)."""

    @abstractmethod
    def query(
        self,
        sparql: str,
        bindings: Mapping[str, Term] | None = None,
        *,
        default_graph: Sequence[str] | None = None,
        named_graphs: Sequence[str] | None = None,
        union: bool = True,
        base_iri: str | None = None,
    ) -> Answer:
        """Run a read query, with ``bindings`` substituted for variables as RDF terms.

        The default graph is the union of all graphs (with ``union``), unless ``default_graph``
        or ``named_graphs`` give the dataset. Raises SyntaxError for a malformed query and
        StoreError when the store cannot answer.
        """

    def source_hash(self, graph: str, source: str) -> str | None:
        """Return the content hash recorded for ``source`` in ``graph``, or None."""
        answer = self.query(
            queries.internal("source-hash"),
            {"graph": ox.NamedNode(graph), "source": ox.NamedNode(source)},
        )
        assert isinstance(answer, ox.QuerySolutions)
        for row in answer:
            return str(getattr(row["hash"], "value", ""))
        return None

    def graph_sizes(self) -> dict[str, int]:
        """How many triples each named graph holds."""
        answer = self.query(queries.internal("graph-sizes"))
        assert isinstance(answer, ox.QuerySolutions)
        sizes = {}
        for row in answer:
            graph, triples = row["graph"], row["triples"]
            if isinstance(graph, ox.NamedNode) and isinstance(triples, ox.Literal):
                sizes[graph.value] = int(triples.value)
        return sizes

    def dump(self, output: IO[bytes], fmt: ox.RdfFormat) -> None:
        """Write every quad to ``output`` in the quad format ``fmt``."""
        ox.serialize(self.quads(), output, fmt, prefixes=V.PREFIXES)

    def export(self, key: str, output: IO[bytes]) -> None:
        """Write the whole store to ``output`` in the dump format with media key ``key``
        (see :mod:`benchgraph.export`). Raises OSError or StoreError when it cannot be read or
        written."""
        export.write(self, key, output)

    def __len__(self) -> int:
        return sum(self.graph_sizes().values())


def _nquads(graph: str, triples: Iterable[ox.Triple]) -> bytes:
    """``triples`` as N-Quads in ``graph``. N-Triples escapes line breaks inside literals, so
    every ``" .\\n"`` of its output ends a statement."""
    text = ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES) or b""
    return text.replace(b" .\n", f" <{graph}> .\n".encode())


class EmbeddedStore(Store):
    """An embedded pyoxigraph store in the folder ``location`` (created if missing)."""

    # The store keeps what it was given in memory until it is flushed to its files: without a
    # flush now and then, a long ingest grows by about what it writes (measured: 0.6 MB a page).
    FLUSH_BYTES = 16 * 1024 * 1024

    def __init__(self, location: str | Path, *, read_only: bool = False) -> None:
        self.location = str(location)
        try:
            if read_only:
                self._store = ox.Store.read_only(self.location)
            else:
                Path(location).mkdir(parents=True, exist_ok=True)
                self._store = ox.Store(self.location)
        except OSError as error:
            raise StoreError(f"cannot open the store at {self.location}: {error}") from None
        self._read_only = read_only
        self._unflushed = 0

    def close(self) -> None:
        if not self._read_only:
            self._store.flush()
        del self._store

    def replace_graphs(self, graphs: Mapping[str, Iterable[ox.Triple]]) -> None:
        """One transaction either way. Graphs that do not exist yet (a first ingest) are loaded
        as N-Quads: about a third faster than the SPARQL update that replaces existing ones,
        and without holding Python's lock (an ingest prepares the next pages meanwhile). The
        load gives blank nodes new identities, as ``INSERT DATA`` does."""
        try:
            nodes = {g: ox.NamedNode(g) for g in graphs}
            if any(self._store.contains_named_graph(n) for n in nodes.values()):
                update = replacement({g: [statement(t) for t in ts] for g, ts in graphs.items()})
                self._store.update(update)
                self._unflushed += len(update)
            else:
                data = b"".join(_nquads(g, ts) for g, ts in graphs.items())
                self._store.load(data, format=ox.RdfFormat.N_QUADS)
                self._unflushed += len(data)
            if self._unflushed > self.FLUSH_BYTES:
                self._store.flush()
                self._unflushed = 0
        except (OSError, SyntaxError) as error:
            names = ", ".join(f"<{graph}>" for graph in graphs)
            raise StoreError(f"cannot write graph {names}: {error}") from None

    def remove_graph(self, graph: str) -> None:
        self._store.remove_graph(ox.NamedNode(graph))

    def graph_triples(self, graph: str | None) -> Iterator[ox.Triple]:
        name = ox.DefaultGraph() if graph is None else ox.NamedNode(graph)
        for quad in self._store.quads_for_pattern(None, None, None, name):
            yield quad.triple

    def named_graphs(self) -> list[str]:
        return sorted(g.value for g in self._store.named_graphs() if isinstance(g, ox.NamedNode))

    def quads(self) -> Iterator[ox.Quad]:
        return iter(self._store)

    def query(
        self,
        sparql: str,
        bindings: Mapping[str, Term] | None = None,
        *,
        default_graph: Sequence[str] | None = None,
        named_graphs: Sequence[str] | None = None,
        union: bool = True,
        base_iri: str | None = None,
    ) -> Answer:
        options: dict[str, object] = {}
        if default_graph is not None:
            options["default_graph"] = [ox.NamedNode(g) for g in default_graph]
        if named_graphs is not None:
            options["named_graphs"] = [ox.NamedNode(g) for g in named_graphs]
        substitutions = {ox.Variable(k): v for k, v in (bindings or {}).items()}
        return self._store.query(
            sparql,
            base_iri=base_iri,
            use_default_graph_as_union=union and default_graph is None,
            substitutions=substitutions or None,
            **options,  # type: ignore[arg-type]
        )

    def dump(self, output: IO[bytes], fmt: ox.RdfFormat) -> None:
        self._store.dump(output, fmt, prefixes=V.PREFIXES)

    def __len__(self) -> int:
        return len(self._store)
