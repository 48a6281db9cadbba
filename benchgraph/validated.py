"""What the last saved re-validation of a store checked, and what changed since: so that
``benchgraph validate`` re-checks only the pages whose version changed.

A re-validation that saves its reports also saves, in a graph of its own (:data:`GRAPH`, beside
the reports, never in the merged view), the state it checked: the digest of the shapes, the
version (SHA-256) each page graph and each history graph held, whether the merged view and the
versions catalogue were right, and the cross-page findings. The next re-validation compares the
store with it (:func:`changes`): a page graph whose version differs, or that is new, is checked
again; a page graph gone since has its report removed. Every write of a page is one transaction
that writes its graph, its report, the view and the catalogue together, so only what a changed
page touches can have changed: the view is checked over the triples of the changed pages'
versions, old and new (:func:`view_check`); the cross-page queries are run again only for the
nodes those versions state (:func:`stated`), and the nodes that share a key with them, the other
nodes keeping the findings the state saved; the catalogue is taken from the state when nothing
changed and checked whole otherwise.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox

from benchgraph import graphs, queries, resources
from benchgraph.store import Store, ViewCheck

# The graph that holds the state (a name no page key can give: see graphs.report).
GRAPH = graphs.report("urn:benchgraph:validation")
_VALUE = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#value")
_JSON = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON")
_MADE = ox.NamedNode("http://www.w3.org/ns/prov#generatedAtTime")
_DT = ox.NamedNode("http://www.w3.org/2001/XMLSchema#dateTime")


def shapes_digest() -> str:
    """The SHA-256 of the shapes files (their names and bytes, in name order)."""
    return _digest(sorted(resources.shapes_dir().glob("*.ttl")))


def checks_digest() -> str:
    """The SHA-256 of the cross-page checks' queries (``queries/check-*.rq`` and their
    variants in ``queries/internal/``): saved findings of other queries are not kept."""
    folder = resources.queries_dir()
    return _digest(sorted([*folder.glob("check-*.rq"), *folder.glob("internal/check-*.rq")]))


def _digest(paths: Iterable[Path]) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.name.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@dataclass(frozen=True)
class State:
    """What a saved re-validation checked (see the module's docstring)."""

    shapes: str
    versions: Mapping[str, str]  # graph -> SHA-256 ("" for a graph that states none)
    view: bool
    catalogue: bool  # the catalogue, the audit summaries and the deltas were right
    cross_page: tuple[Mapping[str, str | None], ...] = ()
    made: str = ""
    # The findings of each page graph's report, by severity and shape.
    counts: Mapping[str, Sequence[tuple[str, str, int]]] = field(default_factory=dict)
    checks: str = ""  # the digest of the cross-page checks' queries that found cross_page

    def triples(self) -> list[ox.Triple]:
        """The state as the triples of :data:`GRAPH`: one JSON value, and when it was made."""
        node = ox.NamedNode(GRAPH)
        document = {
            "shapes": self.shapes,
            "versions": dict(sorted(self.versions.items())),
            "view": self.view,
            "catalogue": self.catalogue,
            "crossPage": list(self.cross_page),
            "checks": self.checks,
            "counts": {g: [list(c) for c in found] for g, found in sorted(self.counts.items())},
        }
        text = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
        return [
            ox.Triple(node, _VALUE, ox.Literal(text, datatype=_JSON)),
            ox.Triple(node, _MADE, ox.Literal(self.made, datatype=_DT)),
        ]


def saved(store: Store) -> State | None:
    """The state the last saved re-validation of ``store`` checked; None when there is none
    or it cannot be read (a re-validation then checks everything). Raises StoreError."""
    value = made = None
    for t in store.graph_triples(GRAPH):
        if t.predicate == _VALUE and isinstance(t.object, ox.Literal):
            value = t.object.value
        elif t.predicate == _MADE and isinstance(t.object, ox.Literal):
            made = t.object.value
    try:
        document = json.loads(value) if value is not None else None
        if not isinstance(document, dict):
            return None
        return State(
            str(document["shapes"]),
            {str(k): str(v) for k, v in dict(document["versions"]).items()},
            bool(document["view"]),
            bool(document["catalogue"]),
            tuple(dict(f) for f in document["crossPage"]),
            made or "",
            {
                str(g): [(str(s), str(shape), int(n)) for s, shape, n in found]
                for g, found in dict(document["counts"]).items()
            },
            str(document.get("checks", "")),
        )
    except (KeyError, TypeError, ValueError):
        return None


def versions(store: Store) -> dict[str, str]:
    """The SHA-256 each page graph and each history graph of ``store`` holds, by graph.
    Raises StoreError."""
    answer = store.query(
        queries.internal("graph-versions"),
        {"catalogue": ox.NamedNode(graphs.VERSIONS)},
        default_graph=(),
    )
    assert isinstance(answer, ox.QuerySolutions)
    found = {}
    for row in answer:
        graph, sha = row["graph"], row["sha"]
        if not isinstance(graph, ox.NamedNode) or not isinstance(sha, ox.Literal):
            continue
        if graphs.is_page(graph.value) or graph.value.startswith(graphs.HISTORY):
            found[graph.value] = sha.value
    return found


@dataclass(frozen=True)
class Changes:
    """How a store differs from a saved state: the page graphs to check again (new, or holding
    another version), the page graphs gone, and the graphs whose triples a view check reads
    (the changed pages' graphs now, and their earlier versions' history graphs); ``whole``
    when the view must be checked whole (an earlier version is not kept where it is looked
    for)."""

    pages: tuple[str, ...]
    gone: tuple[str, ...]
    touched: tuple[str, ...] = ()
    whole: bool = False
    other: bool = False  # a history graph came or went: the catalogue is checked again

    @property
    def none(self) -> bool:
        return not self.pages and not self.gone and not self.other


def changes(state: State, now: Mapping[str, str], pages: Iterable[str]) -> Changes:
    """What differs between ``state`` and the store whose graphs hold the versions ``now``
    (see :func:`versions`) and whose graphs to validate are ``pages``."""
    pages = list(pages)
    checked = [g for g in pages if g not in state.versions or state.versions[g] != now.get(g, "")]
    listed = set(pages)
    gone = [g for g in state.versions if not graphs.is_history(g) and g not in listed]
    history = {g for g in now if graphs.is_history(g)}
    other = history != {g for g in state.versions if graphs.is_history(g)}
    touched, whole = [], False
    for graph in [*checked, *gone]:
        if graph in listed:
            touched.append(graph)
        before = state.versions.get(graph)
        if before is None:
            continue
        kept = graphs.history(graphs.key_of(graph), before) if before else ""
        if kept and kept in now:
            touched.append(kept)
        elif before and graph in now and now[graph] == before:
            continue
        else:
            whole = True
    return Changes(tuple(checked), tuple(gone), tuple(touched), whole, other)


def stated(store: Store, touched: Iterable[str]) -> list[ox.NamedNode]:
    """The nodes (IRIs) the graphs ``touched`` state something about, in order: the changed
    pages' versions, old and new, say what can change of these nodes' cross-page findings (and
    of those of the nodes sharing a key with them). Raises StoreError."""
    found: dict[ox.NamedNode, None] = {}
    for graph in touched:
        for triple in store.graph_triples(graph):
            if isinstance(triple.subject, ox.NamedNode):
                found[triple.subject] = None
    return sorted(found, key=lambda node: node.value)


def view_check(store: Store, touched: Iterable[str]) -> ViewCheck:
    """Whether the merged view is right about each triple of the graphs ``touched``: the
    triples a page states that it lacks, and those it holds that no page states. Raises
    StoreError."""
    missing: dict[ox.Triple, None] = {}
    extra: dict[ox.Triple, None] = {}
    for graph in touched:
        answer = store.query(
            queries.internal("view-check-of"),
            {"of": ox.NamedNode(graph), "pages": ox.Literal(graphs.PAGES)},
        )
        assert isinstance(answer, ox.QuerySolutions)
        for row in answer:
            triple = ox.Triple(row["s"], row["p"], row["o"])
            stated = row["stated"]
            (missing if isinstance(stated, ox.Literal) and stated.value == "true" else extra)[
                triple
            ] = None
    return ViewCheck(tuple(missing), tuple(extra))


@dataclass
class Rechecked:
    """What a re-validation left unchecked because it had not changed since ``state``: the
    pages whose reports it kept (``kept``), and whether it took the store-wide checks from
    the state (``reused``)."""

    state: State | None = None
    kept: int = 0
    reused: bool = False
    changes: Changes | None = field(default=None)
    # ``(severity, shape, findings, graph)`` of the kept reports, as the state counted them.
    stored: list[tuple[str, str, int, str]] = field(default_factory=list)
    # How many nodes the cross-page checks were run for, the other nodes keeping the findings
    # the state saved; None when they ran over everything (or were taken whole from the state).
    nodes: int | None = None
