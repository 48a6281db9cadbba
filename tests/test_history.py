"""Versions kept: a newer version of a page becomes current and the one before stays in the
store, queryable; a version older than the current one is kept as history only; a withdrawal
is recorded, not erased; and ``benchgraph history`` lists the versions and what changed."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
import urllib.error
import urllib.request
from email.message import Message
from pathlib import Path

import pyoxigraph as ox
import pytest
from support import EXAMPLES, PATIENCE, run_cli
from support.live import Live

from benchgraph import graphs, iris
from benchgraph import vocab as V
from benchgraph.store.embedded import EmbeddedStore

LAION = EXAMPLES / "sota2-prompt-recovery-on-laion.md"
KEY = "sota2/prompt-recovery-on-laion/clip-score"
PAGE = graphs.page(KEY)
PRISM, STEPS, PEZ = (
    "69aa7c5b6dbb7075b953baa1",
    "69aa7c5b6dbb7075b953baa0",
    "69aa7c5b6dbb7075b953ba9d",
)
ADDED = "69aa7c5b6dbb7075b953bbff"
PAPER = "68fa791f1e209131cea7c381"
KEPT = "kept as history (older than the current version)"


def dated(text: str, month: int) -> str:
    return text.replace("Data updated: 2026-03-", f"Data updated: 2026-{month:02d}-")


def value_changed(text: str) -> str:
    text = text.replace("| PRISM | 81.7 |", "| PRISM | 81.9 |")
    return text.replace(
        f"CLIP Score: 81.7. Result ID: {PRISM}", f"CLIP Score: 81.9. Result ID: {PRISM}"
    )


def counted(text: str, more: int) -> str:
    """``text`` with ``more`` results more in its scope table."""
    n = int(re.search(r"\| Results loaded \| (\d+) of", text).group(1))  # type: ignore[union-attr]
    old, new = f"| Results loaded | {n} of {n} |", f"| Results loaded | {n + more} of {n + more} |"
    return text.replace(old, new)


def result_added(text: str) -> str:
    row = f"| STEPS | 72.2 | Not recorded | {PAPER} |\n"
    text = counted(text.replace(row, row + f"| NEWM | 70.1 | Not recorded | {PAPER} |\n"), 1)
    section = (
        f"### NEWM\n\nCLIP Score: 70.1. Result ID: {ADDED}.\n\n"
        f"[Reporting paper](<https://www.sota2.com/research/paper/{PAPER}.md>)\n\n"
        "Recorded evaluation configuration: Not recorded. This record does not assert "
        "independent reproduction.\n\n"
    )
    return text.replace("Page 1 of 1.", section + "Page 1 of 1.")


def result_removed(text: str) -> str:
    text = counted(text.replace(f"| STEPS | 72.2 | Not recorded | {PAPER} |\n", ""), -1)
    return re.sub(r"### STEPS\n.*?reproduction\.\n\n", "", text, flags=re.DOTALL)


def configuration_changed(text: str) -> str:
    head, pez, tail = text.partition("### PEZ\n")
    recorded = 'Recorded evaluation configuration: {"beams":3}.'
    return (
        head + pez + tail.replace("Recorded evaluation configuration: Not recorded.", recorded, 1)
    )


def sha16(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def history(store_dir: Path, *args: str) -> list[dict[str, str]]:
    done = run_cli("history", *args, "--format", "csv", store=store_dir)
    assert done.returncode == 0, done.stderr
    return list(csv.DictReader(io.StringIO(done.stdout)))


def ingest(store_dir: Path, *paths: Path) -> str:
    done = run_cli("ingest", *map(str, paths), store=store_dir)
    assert done.returncode == 0, done.stderr
    return done.stdout


def assert_view_is_the_union_of_the_page_graphs(store_dir: Path) -> None:
    with EmbeddedStore(store_dir) as store:
        check = store.check_view()
        pages = [g for g in store.named_graphs() if graphs.is_page(g)]
        union = {t for g in pages for t in store.graph_triples(g)}
        assert set(store.graph_triples(None)) == union
    assert check.exact, check.text()


def values_in(store_dir: Path, graph: str) -> dict[str, str]:
    """The published values of the results ``graph`` states, by result IRI."""
    with EmbeddedStore(store_dir) as store:
        return {
            t.subject.value: t.object.value
            for t in store.graph_triples(graph)
            if t.predicate == ox.NamedNode(V.publishedValue)
        }


@pytest.fixture
def five(tmp_path: Path) -> list[Path]:
    """The example page and four later versions: a value changed, a result added, a result
    removed, a configuration changed, each against the version before."""
    text = LAION.read_text(encoding="utf-8")
    second = value_changed(text)
    third = result_added(second)
    fourth = result_removed(third)
    fifth = configuration_changed(fourth)
    second, third, fourth, fifth = (
        dated(t, m) for t, m in ((second, 4), (third, 5), (fourth, 6), (fifth, 7))
    )
    return [
        LAION,
        write(tmp_path, "v2.md", second),
        write(tmp_path, "v3.md", third),
        write(tmp_path, "v4.md", fourth),
        write(tmp_path, "v5.md", fifth),
    ]


def test_each_version_is_kept_and_history_counts_what_changed(
    store_dir: Path, five: list[Path]
) -> None:
    for page in five:
        assert ingest(store_dir, page).startswith("1 loaded, 0 unchanged, 0 refused")
    rows = history(store_dir, str(LAION))
    assert [r["version"] for r in rows] == [sha16(p) for p in five]
    assert [(r["added"], r["removed"], r["changed"]) for r in rows] == [
        ("", "", ""),
        ("0", "0", "1"),  # PRISM's value
        ("1", "0", "0"),  # NEWM
        ("0", "1", "0"),  # STEPS
        ("0", "0", "1"),  # PEZ's configuration
    ]
    assert [r["status"] for r in rows] == ["history"] * 4 + ["current"]
    assert [r["results"] for r in rows] == ["6", "6", "7", "6", "6"]
    assert rows[0]["dataUpdated"] == "2026-03-06T07:08:17.938Z"
    # The old figures are still there, in their history graphs; the current ones in the page.
    first = graphs.history(KEY, sha16(LAION))
    assert values_in(store_dir, first)[iris.result(PRISM)] == "81.7"
    assert values_in(store_dir, PAGE)[iris.result(PRISM)] == "81.9"
    assert iris.result(STEPS) not in values_in(store_dir, PAGE)
    assert_view_is_the_union_of_the_page_graphs(store_dir)


def test_diff_lists_the_results_that_differ(store_dir: Path, five: list[Path]) -> None:
    ingest(store_dir, five[0])
    ingest(store_dir, five[3])
    rows = history(store_dir, str(LAION), "--diff", sha16(five[0])[:6], sha16(five[3]))
    assert rows == [
        {
            "change": "removed",
            "result": STEPS,
            "methodLabel": "STEPS",
            "metric": "CLIP Score",
            "oldValue": "72.2",
            "newValue": "",
        },
        {
            "change": "changed",
            "result": PRISM,
            "methodLabel": "PRISM",
            "metric": "CLIP Score",
            "oldValue": "81.7",
            "newValue": "81.9",
        },
        {
            "change": "added",
            "result": ADDED,
            "methodLabel": "NEWM",
            "metric": "CLIP Score",
            "oldValue": "",
            "newValue": "70.1",
        },
    ]  # fmt: skip (by result ID)
    missing = run_cli("history", str(LAION), "--diff", "ffff", sha16(LAION), store=store_dir)
    assert missing.returncode == 2
    assert "--diff: no version's SHA-256 starts with 'ffff'" in missing.stderr


def test_history_prints_a_table_and_sparql_json(store_dir: Path, five: list[Path]) -> None:
    ingest(store_dir, five[0])
    ingest(store_dir, five[1])
    table = run_cli("history", iris.source(KEY), store=store_dir)
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0].split() == [
        "version", "dataUpdated", "ingested", "results", "added", "removed", "changed", "status"
    ]  # fmt: skip
    assert lines[2].split()[0] == sha16(five[0]) and lines[2].split()[-1] == "history"
    assert lines[3].split()[-4:] == ["0", "0", "1", "current"]
    assert lines[-1] == "(2 rows)"
    answer = run_cli("history", str(LAION), "--format", "json", store=store_dir)
    document = json.loads(answer.stdout)
    assert document["head"]["vars"][0] == "version"
    newest = document["results"]["bindings"][1]
    assert newest["changed"] == {"type": "literal", "value": "1", "datatype": V.XSD + "integer"}
    assert newest["status"]["value"] == "current"


def test_an_older_version_arriving_late_is_kept_as_history_not_current(
    store_dir: Path, tmp_path: Path
) -> None:
    text = LAION.read_text(encoding="utf-8")
    newer = write(tmp_path, "newer.md", value_changed(dated(text, 5)))
    ingest(store_dir, LAION)
    ingest(store_dir, newer)
    with EmbeddedStore(store_dir) as store:
        view, page = set(store.graph_triples(None)), set(store.graph_triples(PAGE))
    late = write(tmp_path, "late.md", value_changed(dated(text, 4)).replace("81.9", "80.0"))
    done = run_cli("ingest", str(late), store=store_dir)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"0 loaded, 0 unchanged, 1 {KEPT}, 0 refused, 0 unreadable;")
    assert f"kept: {late}: page {KEY}: {KEPT}" in done.stderr
    with EmbeddedStore(store_dir) as store:  # the page and the view are as they were
        assert set(store.graph_triples(None)) == view
        assert set(store.graph_triples(PAGE)) == page
        catalogue = set(store.graph_triples(graphs.VERSIONS))
    assert values_in(store_dir, graphs.history(KEY, sha16(late)))[iris.result(PRISM)] == "80.0"
    with EmbeddedStore(store_dir) as store:  # its report is kept beside it
        assert list(store.graph_triples(graphs.report(graphs.history(KEY, sha16(late)))))
    rows = history(store_dir, str(LAION))
    assert [r["version"] for r in rows] == [sha16(LAION), sha16(late), sha16(newer)]
    assert [r["status"] for r in rows] == ["history", "history", "current"]

    # Each version revises the one before it in data-updated order: the late one is linked in.
    def version(path: Path) -> ox.NamedNode:
        return ox.NamedNode(iris.version(KEY, sha16(path)))

    revision = ox.NamedNode(V.wasRevisionOf)
    links = {(t.subject, t.object) for t in catalogue if t.predicate == revision}
    assert links == {(version(late), version(LAION)), (version(newer), version(late))}
    assert_view_is_the_union_of_the_page_graphs(store_dir)


def test_the_current_bytes_again_change_nothing_and_an_older_version_is_restored(
    store_dir: Path, tmp_path: Path
) -> None:
    newer = write(tmp_path, "newer.md", dated(LAION.read_text(encoding="utf-8"), 5))
    ingest(store_dir, LAION)
    ingest(store_dir, newer)
    with EmbeddedStore(store_dir) as store:
        before = set(store.quads())
    assert ingest(store_dir, newer).startswith("0 loaded, 1 unchanged, 0 refused")
    with EmbeddedStore(store_dir) as store:
        assert set(store.quads()) == before
    # The bytes of the version kept as history: it is current again, the newer one kept.
    assert ingest(store_dir, LAION).startswith("0 loaded, 0 unchanged, 1 restored (made current")
    rows = {row["version"]: row["status"] for row in history(store_dir, str(LAION))}
    assert rows == {sha16(LAION): "current", sha16(newer): "history"}
    assert ingest(store_dir, LAION).startswith("0 loaded, 1 unchanged, 0 refused")
    assert_view_is_the_union_of_the_page_graphs(store_dir)


def test_a_removal_is_recorded_as_history_and_its_statements_stay_queryable(
    store_dir: Path,
) -> None:
    ingest(store_dir, LAION)
    assert run_cli("remove", str(LAION), store=store_dir).returncode == 0
    rows = history(store_dir, str(LAION))
    assert [(r["version"], r["status"]) for r in rows] == [(sha16(LAION), "withdrawn")]
    kept = graphs.history(KEY, sha16(LAION))
    query = (
        "PREFIX bg: <https://w3id.org/benchgraph/ns#> SELECT ?value WHERE { GRAPH "
        f"<{kept}> {{ <{iris.result(PRISM)}> bg:publishedValue ?value }} }}"
    )
    done = run_cli("query", query, "--format", "csv", store=store_dir)
    assert done.stdout.splitlines() == ["value", "81.7"]
    with EmbeddedStore(store_dir) as store:
        withdrawn = list(store.graph_triples(graphs.VERSIONS))
        assert not list(store.graph_triples(PAGE))
    at = ox.NamedNode(V.withdrawnAt)
    assert [t.subject.value for t in withdrawn if t.predicate == at] == [
        iris.version(KEY, sha16(LAION))
    ]
    assert_view_is_the_union_of_the_page_graphs(store_dir)


def test_history_of_a_page_the_store_lacks_is_exit_1(store_dir: Path) -> None:
    ingest(store_dir, EXAMPLES / "sota2-multimodal-generation-on-art500k-test.md")
    done = run_cli("history", str(LAION), store=store_dir)
    assert done.returncode == 1
    assert done.stderr == f"not found: {LAION}: no version of page {KEY} in the store\n"


def test_versions_kept_and_listed_through_a_running_server(store_dir: Path, tmp_path: Path) -> None:
    ingest(store_dir, LAION)
    newer = write(tmp_path, "newer.md", value_changed(dated(LAION.read_text("utf-8"), 5)))
    live = Live(store_dir)
    try:
        assert ingest(store_dir, newer).startswith("1 loaded")  # through the server
        rows = history(store_dir, str(newer))
        assert [(r["status"], r["changed"]) for r in rows] == [("history", ""), ("current", "1")]
    finally:
        assert live.stop() == 0
    assert values_in(store_dir, graphs.history(KEY, sha16(LAION)))[iris.result(PRISM)] == "81.7"
    assert_view_is_the_union_of_the_page_graphs(store_dir)


def two_versions(store_dir: Path, tmp_path: Path) -> None:
    """A store holding the example page and a newer version of it (the first kept as history)."""
    newer = write(tmp_path, "newer.md", value_changed(dated(LAION.read_text("utf-8"), 5)))
    ingest(store_dir, LAION)
    ingest(store_dir, newer)


def of_history(quad: ox.Quad) -> bool:
    graph = quad.graph_name
    return isinstance(graph, ox.NamedNode) and graphs.is_history(graph.value)


def every_quad(store_dir: Path) -> set[ox.Quad]:
    """The store's quads, read straight from its files; it holds some of history."""
    quads = set(ox.Store.read_only(str(store_dir)))
    names = {q.graph_name for q in quads}
    kept = ox.NamedNode(graphs.history(KEY, sha16(LAION)))
    assert {kept, ox.NamedNode(graphs.report(kept.value)), ox.NamedNode(graphs.VERSIONS)} <= names
    return quads


def dumped(body: bytes, fmt: ox.RdfFormat = ox.RdfFormat.TRIG) -> set[ox.Quad]:
    return set(ox.parse(body, fmt, rename_blank_nodes=False))


def test_an_export_holds_the_store_as_it_is_now_without_its_history(
    store_dir: Path, tmp_path: Path
) -> None:
    two_versions(store_dir, tmp_path)
    every = every_quad(store_dir)
    done = run_cli("export", store=store_dir)  # TriG, the default
    assert done.returncode == 0, done.stderr
    quads = dumped(done.stdout.encode("utf-8"))
    names = {q.graph_name.value for q in quads if isinstance(q.graph_name, ox.NamedNode)}
    assert {PAGE, graphs.report(PAGE)} <= names
    assert graphs.VERSIONS not in names
    assert not [name for name in names if graphs.is_history(name)]
    assert quads == {q for q in every if not of_history(q)}


def load_dump(dump: Path, folder: Path) -> None:
    """Load the TriG file ``dump`` into a new, empty embedded store at ``folder``."""
    with EmbeddedStore(folder) as store:
        assert not list(store.quads())
    disk = ox.Store(str(folder))
    disk.extend(ox.parse(path=str(dump), format=ox.RdfFormat.TRIG, rename_blank_nodes=False))
    disk.flush()


def test_an_export_with_its_history_loads_back_every_version(
    store_dir: Path, five: list[Path], tmp_path: Path
) -> None:
    for page in five:
        ingest(store_dir, page)
    out, loaded = tmp_path / "dump.trig", tmp_path / "loaded"
    done = run_cli("export", "--history", "--out", str(out), store=store_dir)
    assert done.returncode == 0, done.stderr
    load_dump(out, loaded)
    assert set(ox.Store.read_only(str(loaded))) == set(ox.Store.read_only(str(store_dir)))
    listed = run_cli("history", str(LAION), "--format", "csv", "--store", str(loaded))
    assert listed.returncode == 0, listed.stderr
    versions = list(csv.DictReader(io.StringIO(listed.stdout)))
    assert [r["version"] for r in versions] == [sha16(p) for p in five]
    assert versions == history(store_dir, str(LAION))


def test_history_with_a_format_of_one_graph_is_bad_usage(store_dir: Path) -> None:
    ingest(store_dir, LAION)
    done = run_cli("export", "--format", "turtle", "--history", store=store_dir)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        "benchgraph: error: --history needs --format trig or nquads: a turtle dump holds one "
        "graph, the merged view, which no earlier version of a page enters\n"
    )


def get(url: str, **headers: str) -> tuple[int, Message, bytes]:
    """GET ``url``: status, headers, body (an error status is returned, not raised)."""
    request = urllib.request.Request(
        url, headers={k.replace("_", "-"): v for k, v in headers.items()}
    )
    try:
        with urllib.request.urlopen(request, timeout=PATIENCE) as reply:
            return reply.status, reply.headers, reply.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.headers, error.read()


def test_the_quad_dumps_served_hold_the_history_only_when_asked(
    store_dir: Path, tmp_path: Path
) -> None:
    two_versions(store_dir, tmp_path)
    every = every_quad(store_dir)
    now = {q for q in every if not of_history(q)}
    live = Live(store_dir)
    try:
        for suffix, fmt in (("trig", ox.RdfFormat.TRIG), ("nq", ox.RdfFormat.N_QUADS)):
            status, plain, body = get(f"{live.url}dump.{suffix}")
            assert status == 200 and dumped(body, fmt) == now
            status, _, body = get(f"{live.url}dump.{suffix}?history=false")
            assert status == 200 and dumped(body, fmt) == now
            status, full, body = get(f"{live.url}dump.{suffix}?history=true")
            assert status == 200 and dumped(body, fmt) == every
            assert full["ETag"] != plain["ETag"]
            again = get(f"{live.url}dump.{suffix}?history=true", If_None_Match=plain["ETag"])
            assert again[0] == 200 and dumped(again[2], fmt) == every
        # benchgraph export reads the held store through the server, and says the same.
        for args, quads in (((), now), (("--history",), every)):
            done = run_cli("export", *args, store=store_dir)
            assert done.returncode == 0, done.stderr
            assert dumped(done.stdout.encode("utf-8")) == quads
        for query, wrong in (
            ("dump.trig?history=yes", "'yes' is neither true nor false"),
            ("dump.nq?history=true&history=true", "given 2 times"),
            ("dump.ttl?history=false", "/dump.ttl holds one graph, the merged view"),
            ("dump.jsonld?history=true", "/dump.jsonld holds one graph, the merged view"),
        ):
            status, _, body = get(live.url + query, Accept="application/json")
            assert status == 400, query
            document = json.loads(body)
            assert document["ok"] is False and document["status"] == 400
            assert document["parameter"] == "history"
            assert document["error"].startswith(f"history: {wrong}")
            assert "/dump.trig?history=true and /dump.nq?history=true" in document["error"]
        _, _, body = get(f"{live.url}openapi.json")
        paths = json.loads(body)["paths"]
        assert [p["name"] for p in paths["/dump.trig"]["get"]["parameters"]] == ["history"]
        assert paths["/dump.nq"]["get"]["parameters"][0]["schema"]["type"] == "boolean"
        assert paths["/dump.ttl"]["get"]["parameters"] == []
    finally:
        assert live.stop() == 0
