"""Report keys: the key ``audit-findings`` pages each page's findings by, kept in its report.

A page of ``audit-findings`` is ordered by a position whose first part is a key of the report
graph of the finding: the first 15 hex digits of the MD5 of the graph's name. Computing it means
reading the name of every report graph of the store (the page must know which graphs come
first), so each page's current report holds its key, written with it (``R bg:reportKey k``, on
the report node ``R``, named as its graph), and the query reads the keys alone. A report kept
with an earlier version of its page (a history graph) is never listed: one moved there keeps
its key on a node that no longer names its graph, and one written there (a version older than
the current one) gets none.

:func:`check` compares the keys with the report graphs and :func:`repair` writes what differs:
``benchgraph validate`` and ``benchgraph repair`` run them, and an embedded store of an earlier
layout gets its keys when first opened (:mod:`benchgraph.upgrades`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import pyoxigraph as ox

from benchgraph import graphs, queries
from benchgraph import vocab as V
from benchgraph.kept import Kept
from benchgraph.sparqltext import Term
from benchgraph.store import Change, Store

_KEY = ox.NamedNode(V.reportKey)
# The named queries that read the keys: refused where a current report has none.
READERS = ("audit-findings",)
# What counts the current reports without a key (one row: ``missing``).
MISSING = "reports-without-key"


def refusal(store: str, missing: int, repair: str = "`benchgraph repair`") -> str:
    """What a reader of the keys is told when ``missing`` current reports of ``store`` (named
    as the reader may see it) have none, ``repair`` the command that writes them."""
    lack = "report lacks its" if missing == 1 else "reports lack their"
    return (
        f"{store} cannot list the validation findings: {missing} current validation {lack} "
        "key (the store was written before benchgraph kept them, or they were removed), so "
        f"none of their findings would be listed; {repair} writes them"
    )


def bindings() -> dict[str, Term]:
    """The bindings of :data:`MISSING`."""
    return {"history": ox.Literal(graphs.REPORTS + "history/")}


# The keys as a record the queries of READERS need (benchgraph.kept): a current report without
# one is counted by MISSING.
KEPT = Kept(READERS, MISSING, bindings, refusal)


def key(report: str) -> str:
    """The key of the report graph named ``report``: the first 15 hex digits of the MD5 of its
    name (as ``queries/audit-findings.rq`` computed it before the keys were kept)."""
    return hashlib.md5(report.encode("utf-8"), usedforsecurity=False).hexdigest()[:15]


def triples(report: str) -> list[ox.Triple]:
    """The key statement of the report node ``report`` (named as its graph), or none for the
    report of a version kept as history."""
    if graphs.is_history(report):
        return []
    return [ox.Triple(ox.NamedNode(report), _KEY, ox.Literal(key(report)))]


@dataclass(frozen=True)
class KeyCheck:
    """How the keys differ from the report graphs: the statements a repair adds (a current
    report's key missing or wrong) and removes (a wrong key, or a key where none belongs), by
    report graph."""

    added: tuple[tuple[str, ox.Triple], ...] = ()
    deleted: tuple[tuple[str, ox.Triple], ...] = ()

    @property
    def exact(self) -> bool:
        return not self.added and not self.deleted

    def text(self) -> str:
        if self.exact:
            return "each page's current validation report holds its key"
        lacking = len({graph for graph, _ in self.added})
        wrong = len({graph for graph, _ in self.deleted})
        return (
            f"the report keys differ from the report graphs: {lacking} reports lack their key "
            f"or hold a wrong one, {wrong} graphs hold a key that does not belong; "
            "`benchgraph repair` rebuilds them"
        )


def check(store: Store) -> KeyCheck:
    """Compare the keys ``store`` holds with its report graphs. Raises StoreError."""
    answer = store.query(
        queries.internal("report-keys"),
        {"history": ox.Literal(graphs.REPORTS + "history/")},
        default_graph=(),
    )
    assert isinstance(answer, ox.QuerySolutions)
    right: set[tuple[str, ox.Triple]] = set()
    held: set[tuple[str, ox.Triple]] = set()
    for row in answer:
        graph, node, value = row["graph"], row["node"], row["key"]
        assert isinstance(graph, ox.NamedNode) and isinstance(node, ox.NamedNode | ox.BlankNode)
        if value is None:  # a current report: keyed when named as its graph
            if node == graph:
                right |= {(graph.value, t) for t in triples(graph.value)}
        elif node == graph or not graphs.is_history(graph.value):
            held.add((graph.value, ox.Triple(node, _KEY, value)))
    return KeyCheck(tuple(sorted(right - held, key=str)), tuple(sorted(held - right, key=str)))


def repair(store: Store, found: KeyCheck) -> None:
    """Write what ``found`` says the reports lack, and remove what it says they hold wrongly,
    in one write. Raises StoreError."""
    if found.exact:
        return
    added: dict[str, list[ox.Triple]] = {}
    deleted: dict[str, list[ox.Triple]] = {}
    for into, pairs in ((added, found.added), (deleted, found.deleted)):
        for graph, triple in pairs:
            into.setdefault(graph, []).append(triple)
    store.write(Change({}, added=added, deleted=deleted))
