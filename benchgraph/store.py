"""The store: the only state benchgraph has.

An embedded pyoxigraph store on disk. Each source page lives in its own named graph; queries see
the union of all of them. Replacing a page's graph is one transaction, so a reader never sees a
half-written page.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO

import pyoxigraph as ox

from benchgraph import export
from benchgraph import vocab as V


class StoreError(Exception):
    """The store could not be opened or written."""


class Store:
    """An embedded pyoxigraph store at ``location`` (created if missing)."""

    def __init__(self, location: str | Path) -> None:
        self.location = str(location)
        try:
            Path(location).mkdir(parents=True, exist_ok=True)
            self._store = ox.Store(self.location)
        except OSError as error:
            raise StoreError(f"cannot open the store at {self.location}: {error}") from None

    def close(self) -> None:
        """Flush writes and release the store."""
        self._store.flush()
        del self._store

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def replace_graph(self, graph: str, triples: Iterable[ox.Triple]) -> None:
        """Replace the named graph ``graph`` with ``triples`` in one transaction.

        Raises StoreError if the write fails; the graph then keeps its previous content.
        """
        self.replace_graphs({graph: triples})

    def replace_graphs(self, graphs: Mapping[str, Iterable[ox.Triple]]) -> None:
        """Replace each named graph of ``graphs`` with its triples, all in one transaction
        (a page's graph and its validation report, for instance).

        Raises StoreError if the write fails; every graph then keeps its previous content.
        """
        # Terms are printed by pyoxigraph in N-Triples syntax, which SPARQL accepts as is:
        # no page text reaches the update except inside escaped literals and validated IRIs.
        # Blank nodes keep their labels, which are unique per graph written (rdflib mints them).
        drops = [f"DROP SILENT GRAPH <{graph}>" for graph in graphs]
        inserts = []
        for graph, triples in graphs.items():
            body = "\n".join(f"{t.subject} {t.predicate} {t.object} ." for t in triples)
            inserts.append(f"GRAPH <{graph}> {{\n{body}\n}}")
        update = " ;\n".join(drops) + " ;\nINSERT DATA {\n" + "\n".join(inserts) + "\n}"
        try:
            self._store.update(update)
        except (OSError, SyntaxError) as error:
            names = ", ".join(f"<{graph}>" for graph in graphs)
            raise StoreError(f"cannot write graph {names}: {error}") from None

    def graph_triples(self, graph: str | None) -> Iterator[ox.Triple]:
        """Yield the triples of the named graph ``graph`` (None: the default graph)."""
        name = ox.DefaultGraph() if graph is None else ox.NamedNode(graph)
        for quad in self._store.quads_for_pattern(None, None, None, name):
            yield quad.triple

    def remove_graph(self, graph: str) -> None:
        """Remove the named graph ``graph`` (a no-op if it is not there)."""
        self._store.remove_graph(ox.NamedNode(graph))

    def source_hash(self, graph: str, source: str) -> str | None:
        """Return the content hash recorded for ``source`` in ``graph``, or None."""
        for quad in self._store.quads_for_pattern(
            ox.NamedNode(source), ox.NamedNode(V.sha256), None, ox.NamedNode(graph)
        ):
            return str(getattr(quad.object, "value", ""))
        return None

    def query(
        self, sparql: str, bindings: Mapping[str, ox.NamedNode | ox.Literal] | None = None
    ) -> ox.QuerySolutions | ox.QueryBoolean | ox.QueryTriples:
        """Run a read query over the union of all graphs, with ``bindings`` substituted for
        variables as RDF terms. Raises SyntaxError for a malformed query."""
        substitutions: dict[ox.Variable, ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple] = {
            ox.Variable(k): v for k, v in (bindings or {}).items()
        }
        return self._store.query(
            sparql, use_default_graph_as_union=True, substitutions=substitutions or None
        )

    def export(self, key: str, output: IO[bytes]) -> None:
        """Write the whole store to ``output`` in the dump format with media key ``key``
        (see :mod:`benchgraph.export`). Raises OSError when it cannot be read or written."""
        export.write(self._store, key, output)

    def named_graphs(self) -> list[str]:
        return sorted(g.value for g in self._store.named_graphs() if isinstance(g, ox.NamedNode))

    def quads(self) -> set[ox.Quad]:
        """Every quad in the store (for checks and tests; not for large stores)."""
        return set(self._store)

    def __len__(self) -> int:
        return len(self._store)
