"""``benchgraph remove`` on both stores, an embedded one on disk and a real Oxigraph server: a
page named by its file and the pages of a source named by its URL go with their reports, and
the merged view stays the union of the pages left."""

from __future__ import annotations

import pyoxigraph as ox
from support import EXAMPLES, REPO, run_cli

from benchgraph import graphs
from benchgraph.store import open_store

NOCAPS_NAMES = ("latency-page-1", "latency-page-2", "cider")

NOCAPS = [REPO / "tests" / "data" / "sota2" / f"nocaps-{name}.md" for name in NOCAPS_NAMES]
LAION = EXAMPLES / "sota2-prompt-recovery-on-laion.md"
LAION_GRAPH = graphs.page("sota2/prompt-recovery-on-laion/clip-score")
NOCAPS_URL = "https://www.sota2.com/research/sota/image-captioning-on-nocaps-val"


def page_graphs(location: str) -> set[str]:
    with open_store(location) as store:
        return {g for g in store.named_graphs() if graphs.is_page(g)}


def test_pages_named_by_file_and_by_source_are_removed_on_either_store(location: str) -> None:
    loaded = run_cli("ingest", str(EXAMPLES), *map(str, NOCAPS), "--store", location)
    assert loaded.returncode == 0, loaded.stderr
    before = page_graphs(location)
    nocaps = {g for g in before if "nocaps" in g}
    assert LAION_GRAPH in before and len(nocaps) == 3

    done = run_cli("remove", str(LAION), NOCAPS_URL, "--store", location)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "4 removed, 0 not found"
    left = before - nocaps - {LAION_GRAPH}
    with open_store(location) as store:
        names = set(store.named_graphs())
        assert {g for g in names if graphs.is_page(g)} == left
        reports = {g for g in names if g.startswith(graphs.REPORTS) and not graphs.is_history(g)}
        assert reports == {graphs.report(g) for g in left}
        union: set[ox.Triple] = {t for g in left for t in store.graph_triples(g)}
        assert set(store.graph_triples(None)) == union
        check = store.check_view()
        assert check.exact, check.text()
        quads = set(store.quads())

    again = run_cli("remove", str(LAION), "--store", location)
    assert again.returncode == 1
    assert "not found: " in again.stderr
    with open_store(location) as store:
        assert set(store.quads()) == quads
