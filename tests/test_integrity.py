"""The versions catalogue checked against the page and history graphs (``benchgraph repair
--check``, ``benchgraph validate``) and repaired (``benchgraph repair``), on real stores whose
catalogue is damaged the ways racing writers and crashes damaged it: an entry whose graph holds
another version, a version no graph holds, a page graph or history graph no entry records, a
current version marked withdrawn."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import pyoxigraph as ox
import pytest
from robustness.corpus import Row, new_id, render_sota2
from support import EXAMPLES, run_cli

from benchgraph import graphs, iris
from benchgraph import vocab as V
from benchgraph.store.embedded import EmbeddedStore
from benchgraph.versions import Versions, read, read_all

KEY = "sota2/task-kept-on-dataset-kept/accuracy"


def page(number: int) -> str:
    """Version ``number`` of the page: its own values, its own data-updated time."""
    rows = [
        Row(f"Method {j}", f"{50 + number}.{j}", new_id("kept", j), new_id("p", j))
        for j in range(2 + number)
    ]
    updated = f"2026-0{number + 3}-01T00:00:00.000Z"
    fields = ("Task kept", "Dataset kept", "Accuracy", "PERCENT", "Higher is better")
    return render_sota2(*fields, rows, slug="kept", updated=updated)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    """The examples and three versions of one page (the newest current, two kept as
    history)."""
    location = tmp_path / "store"
    for number in range(3):
        path = tmp_path / f"v{number}.md"
        path.write_text(page(number), encoding="utf-8")
        loaded = run_cli("ingest", "--store", str(location), str(path))
        assert loaded.returncode == 0, loaded.stderr
    assert run_cli("ingest", "--store", str(location), str(EXAMPLES)).returncode == 0
    return location


def versions_of(location: Path) -> Versions:
    with EmbeddedStore(location) as opened:
        return read(opened, KEY)


def sha(number: int) -> str:
    return hashlib.sha256(page(number).encode("utf-8")).hexdigest()


def damage(location: Path, edit: Callable[[ox.Store], None]) -> None:
    raw = ox.Store(str(location))
    edit(raw)
    raw.flush()
    del raw


def entry(number: int) -> ox.NamedNode:
    return ox.NamedNode(iris.version(KEY, sha(number)))


def drop_entry(number: int) -> Callable[[ox.Store], None]:
    def edit(raw: ox.Store) -> None:
        catalogue = ox.NamedNode(graphs.VERSIONS)
        for quad in list(raw.quads_for_pattern(entry(number), None, None, catalogue)):
            raw.remove(quad)

    return edit


def set_graph(number: int, graph: str) -> Callable[[ox.Store], None]:
    def edit(raw: ox.Store) -> None:
        catalogue, p = ox.NamedNode(graphs.VERSIONS), ox.NamedNode(V.versionGraph)
        for quad in list(raw.quads_for_pattern(entry(number), p, None, catalogue)):
            raw.remove(quad)
        raw.add(ox.Quad(entry(number), p, ox.NamedNode(graph), catalogue))

    return edit


def clear_graph(graph: str) -> Callable[[ox.Store], None]:
    def edit(raw: ox.Store) -> None:
        raw.clear_graph(ox.NamedNode(graph))

    return edit


def withdraw_current(raw: ox.Store) -> None:
    raw.add(
        ox.Quad(
            entry(2),
            ox.NamedNode(V.withdrawnAt),
            ox.Literal("2099-01-01T00:00:00+00:00", datatype=ox.NamedNode(V.XSD + "dateTime")),
            ox.NamedNode(graphs.VERSIONS),
        )
    )


HISTORY_0 = graphs.history(KEY, sha(0))
CASES = {
    "an entry whose graph holds another version": (
        set_graph(1, graphs.page(KEY)),
        "is recorded in",
        [(0, "history"), (1, "history"), (2, "current")],
    ),
    "a version no graph holds": (
        clear_graph(HISTORY_0),
        "is held by no graph",
        [(1, "history"), (2, "current")],
    ),
    "a page graph no entry records": (
        drop_entry(2),
        "which the catalogue does not record",
        [(0, "history"), (1, "history"), (2, "current")],
    ),
    "a history graph no entry records": (
        drop_entry(0),
        "the history graph",
        [(0, "history"), (1, "history"), (2, "current")],
    ),
    "a current version marked withdrawn": (
        withdraw_current,
        "yet recorded as withdrawn",
        [(0, "history"), (1, "history"), (2, "current")],
    ),
}


def test_a_store_written_whole_has_a_catalogue_that_agrees(store: Path) -> None:
    checked = run_cli("repair", "--check", "--store", str(store))
    assert checked.returncode == 0, checked.stdout
    assert "records each version the page and history graphs hold" in checked.stdout
    assert [v.status for v in versions_of(store).all] == ["history", "history", "current"]


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_damaged_catalogue_is_found_then_repaired(store: Path, case: str) -> None:
    edit, said, after = CASES[case]
    damage(store, edit)
    checked = run_cli("repair", "--check", "--store", str(store))
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert said in checked.stdout and KEY in checked.stdout, checked.stdout
    validated = run_cli("validate", "--store", str(store))
    assert validated.returncode == 1 and said in validated.stderr, validated.stderr
    repaired = run_cli("repair", "--store", str(store))
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert "repaired the versions catalogue" in repaired.stdout
    assert run_cli("repair", "--check", "--store", str(store)).returncode == 0
    found = versions_of(store)
    assert [(v.sha256, v.status) for v in found.all] == [(sha(n), s) for n, s in after]
    assert all(not v.withdrawn for v in found.all if v.current)
    links = [v.previous for v in found.all]
    assert links == ["", *(v.iri for v in found.all[:-1])]  # relinked in order
    with EmbeddedStore(store) as opened:  # the other pages' catalogue is untouched
        assert all(p.current is not None for p in read_all(opened) if p.key != KEY)
