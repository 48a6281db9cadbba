"""The ``benchgraph`` command as a user runs it: exit codes, messages, and a store that loses
nothing when a page is refused."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pyoxigraph as ox
import pytest
from support import EXAMPLES, REPO, run_cli

from benchgraph import graphs
from benchgraph.store.embedded import EmbeddedStore

LAION = EXAMPLES / "sota2-prompt-recovery-on-laion.md"


def quads(store_dir: Path) -> set:
    with EmbeddedStore(store_dir) as store:
        return set(store.quads())


def test_examples_load_and_exit_zero(store_dir: Path) -> None:
    done = run_cli("ingest", str(EXAMPLES), store=store_dir)
    assert done.returncode == 0, done.stderr
    pages = len([p for p in EXAMPLES.iterdir() if p.is_file()])
    assert done.stdout.startswith(f"{pages} loaded, 0 unchanged, 0 refused, 0 unreadable;")
    assert quads(store_dir)


def test_same_bytes_twice_change_nothing(store_dir: Path) -> None:
    assert run_cli("ingest", str(EXAMPLES), store=store_dir).returncode == 0
    before = quads(store_dir)
    again = run_cli("ingest", str(EXAMPLES), store=store_dir)
    assert again.returncode == 0
    assert " 0 loaded" in " " + again.stdout and "unchanged" in again.stdout
    assert quads(store_dir) == before


def test_a_changed_page_replaces_its_graph_and_keeps_the_old_version(
    store_dir: Path, tmp_path: Path
) -> None:
    assert run_cli("ingest", str(LAION), store=store_dir).returncode == 0
    before = quads(store_dir)
    old = hashlib.sha256(LAION.read_bytes()).hexdigest()
    changed = tmp_path / "renamed-file.txt"  # another file name: identity comes from the page
    changed.write_text(LAION.read_text().replace("Data updated: 2026-", "Data updated: 2027-"))
    assert run_cli("ingest", str(changed), store=store_dir).returncode == 0
    after = quads(store_dir)
    page = graphs.page("sota2/prompt-recovery-on-laion/clip-score")
    history = graphs.history("sota2/prompt-recovery-on-laion/clip-score", old)

    def in_graph(found: set[ox.Quad], graph: str) -> set[ox.Triple]:
        return {q.triple for q in found if q.graph_name == ox.NamedNode(graph)}

    # The page graph is replaced: as many statements, the dates differ ...
    assert len(in_graph(after, page)) == len(in_graph(before, page))
    assert in_graph(after, page) != in_graph(before, page)
    # ... and the version it replaced is kept, statement for statement, with its report.
    assert in_graph(after, history) == in_graph(before, page)
    assert in_graph(after, graphs.report(history)) == in_graph(before, graphs.report(page))


BAD_EDITS = {
    "count-mismatch": ("| Results loaded | 6 of 6 |", "| Results loaded | 7 of 7 |", "7"),
    "table-value-differs": ("| PH2P | 82.6 |", "| PH2P | 82.7 |", "82.7"),
    "non-numeric": ("CLIP Score: 76.9. Result", "CLIP Score: n/a. Result", "n/a"),
    "reporting-paper-differs": (
        "| PRISM | 81.7 | Not recorded | 68fa791f1e209131cea7c381 |",
        "| PRISM | 81.7 | Not recorded | 68fa7aa31e209131cea84463 |",
        "68fa7aa31e209131cea84463",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_EDITS))
def test_a_refused_page_changes_nothing(case: str, store_dir: Path, tmp_path: Path) -> None:
    assert run_cli("ingest", str(EXAMPLES), store=store_dir).returncode == 0
    before = quads(store_dir)
    old, new, mentioned = BAD_EDITS[case]
    text = LAION.read_text()
    assert old in text
    bad = tmp_path / f"{case}.md"
    bad.write_text(text.replace(old, new, 1).replace("Data updated: 2026-", "Data updated: 2027-"))
    done = run_cli("ingest", str(bad), store=store_dir)
    assert done.returncode == 1
    assert str(bad) in done.stderr and mentioned in done.stderr
    assert "Traceback" not in done.stderr
    assert quads(store_dir) == before


def test_truncated_binary_and_foreign_files_are_refused(store_dir: Path, tmp_path: Path) -> None:
    assert run_cli("ingest", str(EXAMPLES), store=store_dir).returncode == 0
    before = quads(store_dir)
    text = LAION.read_text().replace("Data updated: 2026-", "Data updated: 2027-")
    inputs = {
        "cut.md": text[: len(text) // 2],
        "cut-late.md": text[: len(text) - 400],
        "junk.bin": bytes(range(256)) * 4,
        "notes.txt": "Shopping list\n- milk\n- bread\n",
        "empty.md": "",
    }
    for name, content in inputs.items():
        path = tmp_path / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    done = run_cli("ingest", *(str(tmp_path / n) for n in inputs), store=store_dir)
    assert done.returncode == 1, done.stderr
    for name in inputs:
        assert f"refused: {tmp_path / name}" in done.stderr
    assert "Traceback" not in done.stderr
    assert "0 loaded, 0 unchanged, 5 refused" in done.stdout
    assert quads(store_dir) == before


def test_good_pages_load_beside_refused_ones(store_dir: Path, tmp_path: Path) -> None:
    junk = tmp_path / "junk.md"
    junk.write_text("not a page")
    done = run_cli("ingest", str(LAION), str(junk), store=store_dir)
    assert done.returncode == 1
    assert done.stdout.startswith("1 loaded, 0 unchanged, 1 refused")
    assert quads(store_dir)


def test_missing_file_is_exit_two(store_dir: Path) -> None:
    done = run_cli("ingest", "no/such/page.md", store=store_dir)
    assert done.returncode == 2
    assert "no/such/page.md: no such file or folder" in done.stderr


def test_bad_usage_is_exit_two(store_dir: Path) -> None:
    assert run_cli("ingest", store=store_dir).returncode == 2
    assert run_cli("frobnicate", store=store_dir).returncode == 2
    missing = run_cli("query", "methods-introduced-by-paper", store=store_dir)
    assert missing.returncode == 2 and "'paper' is required" in missing.stderr
    unknown = run_cli("query", "no-such-query", store=store_dir)
    assert unknown.returncode == 2 and "methods-introduced-by-paper" in unknown.stderr


def test_a_benchmark_name_that_names_nothing_is_exit_two(store_dir: Path) -> None:
    assert run_cli("ingest", str(EXAMPLES), store=store_dir).returncode == 0
    done = run_cli("query", "leaderboard", "--param", "benchmark=NoSuch", store=store_dir)
    assert done.returncode == 2
    assert "parameter 'benchmark': no benchmark is named 'NoSuch'" in done.stderr


def test_query_json_is_sparql_results_json(store_dir: Path) -> None:
    assert run_cli("ingest", str(EXAMPLES), store=store_dir).returncode == 0
    done = run_cli(
        "query",
        "methods-reported-by-paper",
        "--param",
        "paper=68fa791f1e209131cea7c381",
        "--format",
        "json",
        store=store_dir,
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["head"]["vars"] == ["paper", "method", "label"]
    labels = sorted(b["label"]["value"] for b in document["results"]["bindings"])
    assert labels == sorted(["PH2P", "EDITOR", "PRISM", "VGD", "PEZ", "STEPS"])
    assert all(b["method"]["type"] == "uri" for b in document["results"]["bindings"])


def test_query_from_a_file_and_csv(store_dir: Path, tmp_path: Path) -> None:
    assert run_cli("ingest", str(EXAMPLES), store=store_dir).returncode == 0
    rq = tmp_path / "count.rq"
    rq.write_text(
        "#+ summary: Count results\n"
        "SELECT (COUNT(DISTINCT ?r) AS ?n) WHERE { ?r a <https://w3id.org/benchgraph/ns#Result> }\n"
    )
    done = run_cli("query", str(rq), "--format", "csv", store=store_dir)
    assert done.returncode == 0, done.stderr
    header, value = done.stdout.splitlines()
    assert header == "n" and int(value) > 0


def test_help_names_the_exit_codes() -> None:
    done = run_cli("--help")
    assert done.returncode == 0
    assert "Exit codes: 0" in done.stdout
    assert (REPO / "README.md").read_text().count("benchgraph ingest") >= 1
