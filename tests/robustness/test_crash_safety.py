"""``kill -9`` of a real ``benchgraph ingest`` into a store that holds pages, at random moments,
loses nothing and half-writes nothing: after each kill the store opens, every page graph in it
is complete (and its validation report graph is the one written with it), and running the
ingest again finishes the job with exit code 0. (Into an empty store, a batch is loaded at once:
test_first_load.py.)

The pages are copies of the sota2 examples, each with its own Source URL (so its own key and
graph), its own result IDs and 1 to 6 of the results. The command runs with its standard error
on a pseudo-terminal so that it draws its progress bar: a kill is aimed at a random page of the
batch, and at a random moment within that page (parse, map, validate or write).
"""

from __future__ import annotations

import os
import pty
import random
import re
import select
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import pyoxigraph as ox
import pytest
from robustness.corpus import SOTA2_EXAMPLES, declared_results, sota2_copy
from robustness.fuzz_settings import LONG
from support import REPO, run_cli

from benchgraph import graphs
from benchgraph import vocab as V
from benchgraph.store import Store
from benchgraph.store.embedded import EmbeddedStore
from ingest.loader import ingest_file
from ingest.mapper import map_page
from ingest.reading import read_page

PAGES = 600 if LONG else 200
KILLS = 20 if LONG else 5
NOW = "2026-01-01T00:00:00+00:00"
# The progress bar: how much of the files is read, and how many sources are done.
PROGRESS = re.compile(r"\] +\d+% read, (\d+) sources ")
SH = "http://www.w3.org/ns/shacl#"
RDF_TYPE = V.type_
Triples = frozenset[tuple[object, object, object]]
Graphs = dict[str, Triples]


def write_pages(folder: Path) -> dict[str, int]:
    """Write the pages; return each page's graph name and its declared result count."""
    folder.mkdir()
    templates = [p.read_text(encoding="utf-8") for p in SOTA2_EXAMPLES]
    declared = {}
    for i in range(PAGES):
        text = sota2_copy(templates[i % len(templates)], f"copy-{i:04}", keep=1 + i % 6)
        path = folder / f"page-{i:04}.md"
        path.write_text(text, encoding="utf-8")
        page = read_page(text.encode(), str(path))
        declared[f"{V.ID}graph/{page.key}"] = declared_results(text)
    return declared


def by_graph(store: Store) -> dict[str, list[ox.Quad]]:
    """The quads of each named graph (the merged view, in the default graph, aside)."""
    found: dict[str, list[ox.Quad]] = defaultdict(list)
    for quad in store.quads():
        if isinstance(quad.graph_name, ox.NamedNode):
            found[quad.graph_name.value].append(quad)
    return found


def without_ingest_time(quads: list[ox.Quad]) -> Triples:
    return frozenset(
        (q.subject, q.predicate, q.object) for q in quads if q.predicate.value != V.generatedAtTime
    )


def reference(folder: Path, store_dir: Path) -> Graphs:
    """What a clean ingest writes into each page graph (ingest time aside): the mapped triples
    of each page, written through the store into a fresh store. The validation gate only
    accepts or refuses a page, so it is left out here; ``test_reference_is_a_clean_ingest``
    checks that this shortcut equals ``ingest_file`` on a sample of the pages."""
    with EmbeddedStore(store_dir) as store:
        for path in sorted(folder.iterdir()):
            page = read_page(path.read_bytes(), str(path))
            store.replace_graphs({f"{V.ID}graph/{page.key}": map_page(page, NOW)})
        return {g: without_ingest_time(q) for g, q in by_graph(store).items()}


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int], Graphs]:
    root = tmp_path_factory.mktemp("crash")
    declared = write_pages(root / "pages")
    return root / "pages", declared, reference(root / "pages", root / "reference")


def test_reference_is_a_clean_ingest(
    batch: tuple[Path, dict[str, int], Graphs], tmp_path: Path
) -> None:
    folder, _, expected = batch
    with EmbeddedStore(tmp_path / "clean") as store:
        for path in sorted(folder.iterdir())[:: PAGES // 6]:
            outcome = ingest_file(store, path)
            assert outcome.status == "loaded", outcome.message
            graph = outcome.graph
            assert graph is not None
            assert without_ingest_time(by_graph(store)[graph]) == expected[graph]


def check_store(store_dir: Path, declared: dict[str, int], expected: Graphs) -> int:
    """Every page graph in the store is complete and has the report written with it, and the
    merged view is the set-union of the page graphs; return how many pages the store holds."""
    with EmbeddedStore(store_dir) as store:
        found = by_graph(store)
        view = list(store.graph_triples(None))
    union = {q.triple for g, quads in found.items() if graphs.is_page(g) for q in quads}
    assert len(view) == len(set(view)) and set(view) == union, "the view is not the pages' union"
    pages = {g for g in found if g.startswith(graphs.PAGES)}
    reports = {g for g in found if g.startswith(graphs.REPORTS)}
    catalogue = {graphs.VERSIONS} & set(found)  # the versions catalogue, once a page is in
    unexpected = set(found) - pages - reports - catalogue
    assert not unexpected, f"unexpected graphs: {unexpected}"
    assert reports == {graphs.report(g) for g in pages}, "a page without its report"
    for graph in pages:
        quads = found[graph]
        results = {q.subject for q in quads if q.predicate.value == RDF_TYPE
                   and q.object == ox.NamedNode(V.Result)}  # fmt: skip
        counts = [q.object for q in quads if q.predicate.value == V.declaredResultCount]
        assert counts == [
            ox.Literal(str(declared[graph]), datatype=ox.NamedNode(V.XSD + "integer"))
        ]
        assert len(results) == declared[graph], f"{graph}: {len(results)} results"
        assert without_ingest_time(quads) == expected[graph], f"{graph} differs from a clean ingest"
        made = {q.object for q in quads if q.predicate.value == V.generatedAtTime}
        report = found[graphs.report(graph)]
        reported = {q.object for q in report if q.predicate.value == V.generatedAtTime}
        assert len(made) == 1 and reported == made, f"{graph}: its report is from another write"
        assert any(q.predicate.value == SH + "conforms" for q in report)
    return len(pages)


def ingest_on_terminal(folder: Path, store_dir: Path) -> tuple[subprocess.Popen[bytes], int]:
    """Start ``benchgraph ingest`` of ``folder`` into ``store_dir``, its standard error on a
    pseudo-terminal (so that it draws its progress bar); return it and the terminal's end to
    read."""
    master, slave = pty.openpty()
    env = {**os.environ, "BENCHGRAPH_STORE": str(store_dir)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "benchgraph.cli", "ingest", str(folder)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=slave,
        env=env,
        cwd=REPO,
    )
    os.close(slave)
    return proc, master


def ingest_and_kill(folder: Path, store_dir: Path, rng: random.Random, present: int) -> str:
    """Start ``benchgraph ingest`` and kill -9 it: either at a random moment in its first
    second (start-up, opening the store, the first pages), or once it is a random number of
    pages past those already loaded, at a random moment within the next page."""
    started = time.monotonic()
    proc, master = ingest_on_terminal(folder, store_dir)
    early = rng.random() < 0.2
    target = present + rng.randint(2, 30)
    at = started + rng.uniform(0.05, 1.0) if early else started + 60.0
    seen, per_page, last = "", 0.1, (0, started)
    try:
        while proc.poll() is None and time.monotonic() < at:
            ready, _, _ = select.select([master], [], [], max(0.0, at - time.monotonic()))
            if not ready:
                continue
            try:
                seen = (seen + os.read(master, 65536).decode(errors="replace"))[-4096:]
            except OSError:  # the terminal closed: the command ended
                break
            done = [int(m[1]) for m in PROGRESS.finditer(seen)]
            if done and done[-1] > last[0]:
                now = time.monotonic()
                if done[-1] > present + 1:  # pages loaded now, not skipped as unchanged
                    per_page = (now - last[1]) / (done[-1] - last[0])
                last = (done[-1], now)
                if done[-1] >= target:
                    at = now + rng.uniform(0.0, 1.2) * per_page
        proc.kill()
        proc.wait(timeout=30)
    finally:
        os.close(master)
    if proc.returncode != -9:
        return f"finished before the kill (exit {proc.returncode})"
    when = "at a random moment" if early else f"in page {last[0] + 1}"
    return f"killed {when}, {time.monotonic() - started:.2f} s after the start"


def test_kill_9_during_ingest_loses_and_half_writes_nothing(
    batch: tuple[Path, dict[str, int], Graphs], tmp_path: Path
) -> None:
    folder, declared, expected = batch
    store_dir = tmp_path / "store"
    # One page in first: a batch into an empty store loads at once, all or nothing
    # (test_first_load.py); into a store that holds pages, each page is written on its own.
    with EmbeddedStore(store_dir) as store:
        assert ingest_file(store, sorted(folder.iterdir())[0], NOW).status == "loaded"
    rng = random.Random(f"kills/{PAGES}/{KILLS}")
    present, interrupted, log = 1, 0, []
    for kill in range(KILLS):
        what = ingest_and_kill(folder, store_dir, rng, present)
        before, present = present, check_store(store_dir, declared, expected)
        interrupted += what.startswith("killed") and 0 < present < PAGES
        log.append(f"kill {kill + 1}: {what}; pages in the store {before} -> {present}")
    print("\n".join(log))
    assert interrupted >= KILLS // 2, (
        "too few kills landed while pages were loading:\n" + "\n".join(log)
    )
    done = run_cli("ingest", "--quiet", str(folder), store=store_dir)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{PAGES - present} loaded, {present} unchanged, 0 refused")
    assert check_store(store_dir, declared, expected) == PAGES
