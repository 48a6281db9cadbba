"""``benchgraph remove`` as a user runs it: a page named by its file, its source or its graph
goes with its report, the merged view keeps what other pages state, and the exit codes say
whether every name named a page."""

from __future__ import annotations

import csv
import hashlib
import io
from pathlib import Path

import pyoxigraph as ox
import pytest
from support import EXAMPLES, REPO, run_cli

from benchgraph import graphs
from benchgraph import vocab as V
from benchgraph.store.embedded import EmbeddedStore

NOCAPS = REPO / "tests" / "data" / "sota2"
NOCAPS_PAGES = [NOCAPS / name for name in ("nocaps-latency-page-1.md", "nocaps-latency-page-2.md")]
NOCAPS_PAGES.append(NOCAPS / "nocaps-cider.md")
SECOND = NOCAPS_PAGES[1]  # states the benchmark and metric the first page states too
SECOND_KEY = "sota2/image-captioning-on-nocaps-val/latency/page-2"
SECOND_GRAPH = graphs.page(SECOND_KEY)
NOCAPS_URL = "https://www.sota2.com/research/sota/image-captioning-on-nocaps-val"
NOCAPS_BENCHMARK = "Image Captioning on NoCaps (val)"
RESULT = ox.NamedNode(V.Result)
TYPE = ox.NamedNode(V.RDF + "type")


@pytest.fixture
def loaded(store_dir: Path) -> Path:
    """A store of the examples and the three pages of one NoCaps source."""
    done = run_cli("ingest", str(EXAMPLES), *map(str, NOCAPS_PAGES), store=store_dir)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("6 loaded")
    return store_dir


def without_history(found: set[ox.Quad]) -> set[ox.Quad]:
    """``found`` but the quads of history graphs and the versions catalogue."""
    return {q for q in found if not graphs.is_history(getattr(q.graph_name, "value", ""))}


def quads(store_dir: Path) -> set[ox.Quad]:
    with EmbeddedStore(store_dir) as store:
        return set(store.quads())


def in_graph(found: set[ox.Quad], graph: str) -> set[ox.Triple]:
    return {q.triple for q in found if q.graph_name == ox.NamedNode(graph)}


def page_graphs(found: set[ox.Quad]) -> set[str]:
    names = {q.graph_name for q in found if isinstance(q.graph_name, ox.NamedNode)}
    return {g.value for g in names if graphs.is_page(g.value)}


def results_of(triples: set[ox.Triple]) -> set[str]:
    return {t.subject.value for t in triples if t.predicate == TYPE and t.object == RESULT}


def leaderboard(store_dir: Path) -> set[str]:
    """The result IRIs of the NoCaps latency leaderboard, as the named query lists them."""
    done = run_cli(
        "query", "leaderboard", "--param", f"benchmark={NOCAPS_BENCHMARK}",
        "--param", "metric=Latency", "--format", "csv", store=store_dir,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return {row["result"] for row in csv.DictReader(io.StringIO(done.stdout))}


def assert_view_is_the_union_of_the_pages(store_dir: Path) -> None:
    found = quads(store_dir)
    union = {t for g in page_graphs(found) for t in in_graph(found, g)}
    assert {q.triple for q in found if q.graph_name == ox.DefaultGraph()} == union
    with EmbeddedStore(store_dir) as store:
        check = store.check_view()
    assert check.exact, check.text()


def test_a_page_named_by_its_file_goes_with_its_report_and_what_only_it_states(
    loaded: Path,
) -> None:
    before = quads(loaded)
    own = in_graph(before, SECOND_GRAPH)
    others = {t for g in page_graphs(before) - {SECOND_GRAPH} for t in in_graph(before, g)}
    shared, only = own & others, own - others
    assert shared and only
    assert in_graph(before, graphs.report(SECOND_GRAPH))
    board = leaderboard(loaded)
    assert results_of(own) <= board

    done = run_cli("remove", str(SECOND), store=loaded)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"removed: {SECOND}: page sota2/image-captioning-on-nocaps-val/latency/page-2 (3 results)",
        "1 removed, 0 not found",
    ]
    after = quads(loaded)
    assert not in_graph(after, SECOND_GRAPH)
    assert not in_graph(after, graphs.report(SECOND_GRAPH))
    view = {q.triple for q in after if q.graph_name == ox.DefaultGraph()}
    assert shared <= view
    assert not only & view
    # The withdrawn version is kept as history, with its report, statement for statement.
    history = graphs.history(SECOND_KEY, hashlib.sha256(SECOND.read_bytes()).hexdigest())
    assert in_graph(after, history) == own
    report = in_graph(before, graphs.report(SECOND_GRAPH))
    assert in_graph(after, graphs.report(history)) == report
    # Nothing else changed but the versions catalogue: the other graphs, and the view but for
    # what only the page stated.
    withdrawn = {ox.NamedNode(SECOND_GRAPH), ox.NamedNode(graphs.report(SECOND_GRAPH))}
    gone = {q for q in before if q.graph_name in withdrawn}
    gone |= {ox.Quad(*t, ox.DefaultGraph()) for t in only}
    assert without_history(after) == without_history(before - gone)
    assert_view_is_the_union_of_the_pages(loaded)
    assert leaderboard(loaded) == board - results_of(own)


def test_a_source_url_names_every_page_of_that_source(loaded: Path) -> None:
    before = quads(loaded)
    nocaps = {g for g in page_graphs(before) if "nocaps" in g}
    assert len(nocaps) == 3
    done = run_cli("remove", NOCAPS_URL, store=loaded)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 4 and lines[-1] == "3 removed, 0 not found"
    assert all(line.startswith(f"removed: {NOCAPS_URL}: page sota2/") for line in lines[:3])
    assert all(line.endswith("; one of the 3 pages of that source)") for line in lines[:3])
    after = quads(loaded)
    assert page_graphs(after) == page_graphs(before) - nocaps
    assert not any(in_graph(after, graphs.report(g)) for g in nocaps)
    assert_view_is_the_union_of_the_pages(loaded)
    gone = run_cli("query", "leaderboard", "--param", f"benchmark={NOCAPS_BENCHMARK}", store=loaded)
    assert gone.returncode == 2  # the benchmark names nothing any more
    assert f"no benchmark is named '{NOCAPS_BENCHMARK}'" in gone.stderr, gone.stderr


def test_a_page_is_named_by_its_source_document_or_its_page_graph(loaded: Path) -> None:
    radar = graphs.page("radar/composet")
    art = graphs.page("sota2/multimodal-generation-on-art500k-test/clip-i2-score")
    done = run_cli("remove", V.ID + "source/radar/composet", art, store=loaded)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"removed: {V.ID}source/radar/composet: page radar/composet (24 results)",
        f"removed: {art}: page sota2/multimodal-generation-on-art500k-test/clip-i2-score "
        "(6 results)",
        "2 removed, 0 not found",
    ]
    assert not {radar, art} & page_graphs(quads(loaded))
    assert_view_is_the_union_of_the_pages(loaded)


def test_removing_again_is_not_found_and_changes_nothing(loaded: Path) -> None:
    assert run_cli("remove", str(SECOND), store=loaded).returncode == 0
    before = quads(loaded)
    again = run_cli("remove", str(SECOND), NOCAPS_URL + "/elsewhere", store=loaded)
    assert again.returncode == 1
    assert again.stdout == "0 removed, 2 not found\n"
    assert again.stderr.splitlines() == [
        f"not found: {SECOND}: no page of that identity "
        "(sota2/image-captioning-on-nocaps-val/latency/page-2)",
        f"not found: {NOCAPS_URL}/elsewhere: no page has that source",
    ]
    assert quads(loaded) == before


def test_found_and_not_found_together_exit_1_and_the_found_are_removed(loaded: Path) -> None:
    done = run_cli("remove", "https://example.org/no-such-source", str(SECOND), store=loaded)
    assert done.returncode == 1
    assert done.stdout.splitlines()[-1] == "1 removed, 1 not found"
    assert "not found: https://example.org/no-such-source: no page has that source" in done.stderr
    assert SECOND_GRAPH not in page_graphs(quads(loaded))
    assert_view_is_the_union_of_the_pages(loaded)


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("notes.md", "notes.md: not a source page"),
        ("missing.md", "missing.md: no such file, and not an IRI"),
        (
            "truncated.md",
            "truncated.md: '## Recorded results': the results table has 3 rows but there are 2",
        ),
    ],
)
def test_a_file_that_gives_no_identity_is_exit_2_and_nothing_is_removed(
    loaded: Path, tmp_path: Path, name: str, problem: str
) -> None:
    (tmp_path / "notes.md").write_text("# Notes\n\nnot a page\n", encoding="utf-8")
    cut = SECOND.read_text(encoding="utf-8").rsplit("\n### ", 1)[0]  # its last result section
    (tmp_path / "truncated.md").write_text(cut + "\n", encoding="utf-8")
    before = quads(loaded)
    done = run_cli("remove", str(SECOND), name, store=loaded, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith(f"benchgraph: error: {problem}"), done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""
    assert quads(loaded) == before


def test_a_removed_page_ingested_again_loads_again(loaded: Path) -> None:
    before = quads(loaded)
    assert run_cli("remove", str(SECOND), store=loaded).returncode == 0
    again = run_cli("ingest", str(SECOND), store=loaded)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("1 loaded, 0 unchanged")
    assert page_graphs(quads(loaded)) == page_graphs(before)
    assert in_graph(quads(loaded), graphs.report(SECOND_GRAPH))
    assert_view_is_the_union_of_the_pages(loaded)


def test_remove_needs_a_store(tmp_path: Path) -> None:
    done = run_cli("remove", str(SECOND), store=tmp_path / "none")
    assert done.returncode == 2
    assert "there is no store at" in done.stderr
    assert not (tmp_path / "none").exists()


def test_a_page_named_twice_is_removed_once(loaded: Path) -> None:
    done = run_cli("remove", str(SECOND), NOCAPS_URL, store=loaded)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == "3 removed, 0 not found"
    assert (
        f"removed: {NOCAPS_URL}: page sota2/image-captioning-on-nocaps-val/latency/page-2 "
        f"(3 results; one of the 3 pages of that source; named above by {SECOND})"
    ) in lines
    assert not {g for g in page_graphs(quads(loaded)) if "nocaps" in g}
    assert_view_is_the_union_of_the_pages(loaded)
