"""Copying every named graph from one store to another (embedded or remote, either way).

Graph by graph, streamed: one graph is held at a time, and each replaces the graph of the same
name in the target at once, so a copy that stops leaves the target with whole graphs only. At
the end the triples of every copied graph are counted on both sides.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from benchgraph.store import Store, StoreError


@dataclass(frozen=True)
class Copied:
    graphs: int
    triples: int
    mismatches: tuple[str, ...]  # "graph: N triples in the source, M in the target"


def copy_graphs(
    source: Store, target: Store, progress: Callable[[int, int, str], None] | None = None
) -> Copied:
    """Copy every named graph of ``source`` into ``target``, replacing graphs of the same
    name there (others are left alone); then compare the sizes. Raises StoreError."""
    graphs = source.named_graphs()
    for done, graph in enumerate(graphs, start=1):
        target.replace_graph(graph, list(source.graph_triples(graph)))
        if progress is not None:
            progress(done, len(graphs), graph)
    before, after = source.graph_sizes(), target.graph_sizes()
    mismatches = tuple(
        f"<{graph}>: {before.get(graph, 0)} triples in the source, "
        f"{after.get(graph, 0)} in the target"
        for graph in graphs
        if before.get(graph, 0) != after.get(graph, 0)
    )
    return Copied(len(graphs), sum(before.get(g, 0) for g in graphs), mismatches)


def check_distinct(source: str, target: str) -> None:
    """Raise StoreError when ``source`` and ``target`` name the same store."""
    if source.rstrip("/") == target.rstrip("/"):
        raise StoreError(f"--from and --to name the same store ({source})")
