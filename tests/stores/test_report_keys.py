"""The report keys (benchgraph.report_keys), on every store (embedded, a real Oxigraph server,
Virtuoso): each page's current validation report holds its key from the write that stores it,
as `benchgraph repair` builds it, through a new version, a version arriving late, a withdrawal
and a restore; `audit-findings` then lists every finding of the current reports, read from the
report graphs here, each at the position the graph's name hashes to; `repair --check` and
`validate` notice a key missing or wrong, and `repair` writes it back."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import pyoxigraph as ox
from quality.test_audit_findings import as_finding, every_page, stored
from stores import test_changes_record as record
from stores.test_changes_record import cli, opened

from benchgraph import graphs, report_keys
from benchgraph import vocab as V
from benchgraph.store import Change, Store

KEY = ox.NamedNode(V.reportKey)
five = record.five  # the fixture: the example page and four later versions, a month apart


def held_keys(store: Store) -> set[tuple[str, ox.Triple]]:
    """Every report key the store holds, with its graph."""
    return {
        (graph, t)
        for graph in store.named_graphs()
        if graph.startswith(graphs.REPORTS)
        for t in store.graph_triples(graph)
        if t.predicate == KEY
    }


def assert_findings_listed(store: Store) -> int:
    """Every finding of the current reports, read from their graphs, comes once, in pages of 3,
    at a position whose first part is the MD5 of its report graph's name; returns how many."""
    rows = [row for page in every_page(store, 3) for row in page]
    assert Counter(as_finding(row) for row in rows) == stored(store)
    graph_of = {
        str(getattr(t.object, "value", "")): graph
        for graph in store.named_graphs()
        if graph.startswith(graphs.REPORTS) and not graphs.is_history(graph)
        for t in store.graph_triples(graph)
        if t.predicate.value == V.DCTERMS + "subject"
    }
    for row in rows:
        name = graph_of[row["source"] or ""]
        assert (row["position"] or "").split("-")[0] == hashlib.md5(name.encode()).hexdigest()[:15]
    return len(rows)


def assert_keys_as_repair_builds_them(store: Store) -> None:
    """The keys held are those a repair writes into a store that has none."""
    found = report_keys.check(store)
    assert found.exact, found.text()
    held = held_keys(store)
    current = {(g, t) for g, t in held if not graphs.is_history(g)}
    assert current and all(t.subject.value == g for g, t in current)
    store.write(Change({}, deleted=_by_graph(current)))
    lacking = report_keys.check(store)
    assert {g for g, _ in lacking.added} == {g for g, _ in current} and not lacking.deleted
    report_keys.repair(store, lacking)
    assert held_keys(store) == held


def _by_graph(pairs: set[tuple[str, ox.Triple]]) -> dict[str, list[ox.Triple]]:
    found: dict[str, list[ox.Triple]] = {}
    for graph, triple in pairs:
        found.setdefault(graph, []).append(triple)
    return found


def test_each_current_report_holds_its_key_through_every_kind_of_write(
    kind: str, location: str, five: list[Path]
) -> None:
    v1, v2, v3, v4, _ = five
    cli("ingest", str(v1), location=location)
    cli("ingest", str(v2), location=location)
    cli("ingest", str(v4), location=location)
    assert "kept as history" in cli("ingest", str(v3), location=location)  # late: v2 < v3 < v4
    with opened(kind, location) as store:
        assert_keys_as_repair_builds_them(store)
        assert assert_findings_listed(store) > 0
        # The late version's report, written as history, holds no key; a replaced version's
        # keeps its key on the name of the page's report, not on its own graph's.
        history = {g for g, _ in held_keys(store) if graphs.is_history(g)}
        kept = [g for g in store.named_graphs() if g.startswith(graphs.REPORTS + "history/")]
        assert len(kept) == 3 and len(history) == 2
    cli("remove", str(v4), location=location)  # withdrawn: no current report
    with opened(kind, location) as store:
        assert report_keys.check(store).exact
        assert assert_findings_listed(store) == 0
    cli("ingest", str(v4), location=location)  # loaded again
    assert "current again" in cli("ingest", str(v2), location=location)  # restored
    with opened(kind, location) as store:
        assert_keys_as_repair_builds_them(store)
        assert assert_findings_listed(store) > 0


def test_repair_writes_a_missing_or_wrong_key_and_check_notices_it(
    kind: str, location: str, five: list[Path]
) -> None:
    for path in five[:2]:
        cli("ingest", str(path), location=location)
    with opened(kind, location) as store:
        right = held_keys(store)
        listed = assert_findings_listed(store)
        ((graph, key),) = [(g, t) for g, t in right if not graphs.is_history(g)]
        wrong = ox.Triple(key.subject, KEY, ox.Literal("000000000000000"))
        store.write(Change({}, added={graph: [wrong]}, deleted={graph: [key]}))
        found = report_keys.check(store)
        assert (found.added, found.deleted) == (((graph, key),), ((graph, wrong),))
        # A key on a kept version's report named as its own graph would list it: wrong too.
        (old,) = [g for g, _ in right if graphs.is_history(g)]
        stray = ox.Triple(ox.NamedNode(old), KEY, ox.Literal(report_keys.key(old)))
        store.write(Change({}, added={old: [stray]}))
        assert (old, stray) in report_keys.check(store).deleted
    said = cli("repair", "--check", location=location, code=1)
    assert "report keys differ" in said
    if kind == "embedded":  # validate re-checks every page: once is enough
        assert "report keys differ" in cli("validate", "--no-save", location=location, code=1)
    assert "rebuilt the keys of 1 validation reports" in cli("repair", location=location)
    with opened(kind, location) as store:
        assert report_keys.check(store).exact and held_keys(store) == right
        assert assert_findings_listed(store) == listed
    cli("repair", "--check", location=location)
