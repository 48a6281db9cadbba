"""No false all-clear: a correct file restores its page, remove removes the version it names, a
mistyped store is an error for every command that reads, a store left half-loaded is refused to
readers and never emptied by them, and a figure far outside its unit's range is a warning."""

from __future__ import annotations

import json
from pathlib import Path

import pyoxigraph as ox
import pytest
from support import EXAMPLES, generate_corpus, run_cli

from benchgraph import graphs
from benchgraph.store.embedded import EmbeddedStore

LAION = EXAMPLES / "sota2-prompt-recovery-on-laion.md"
KEY = "sota2/prompt-recovery-on-laion/clip-score"


def typed_without_its_point(folder: Path) -> Path:
    """The LAION page as a user saved it with PRISM's 81.7 typed as 817, a day later."""
    text = LAION.read_text(encoding="utf-8")
    text = text.replace("| PRISM | 81.7 |", "| PRISM | 817 |")
    text = text.replace("CLIP Score: 81.7.", "CLIP Score: 817.")
    text = text.replace(
        "Data updated: 2026-03-06T07:08:17.938Z", "Data updated: 2026-03-07T07:08:17.938Z"
    )
    path = folder / "laion-bad.md"
    path.write_text(text, encoding="utf-8")
    return path


def prism(store: Path) -> list[str]:
    done = run_cli(
        "query", "leaderboard", "--param", "benchmark=Prompt Recovery on LAION",
        "--param", "metric=CLIP Score", "--format", "json", store=store,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["results"]["bindings"]
    return [row["value"]["value"] for row in rows if row["methodLabel"]["value"] == "PRISM"]


def test_the_correct_file_again_restores_its_page(tmp_path: Path) -> None:
    store, bad = tmp_path / "store", typed_without_its_point(tmp_path)
    assert run_cli("ingest", str(LAION), store=store).returncode == 0
    loaded = run_cli("ingest", str(bad), store=store)
    assert loaded.returncode == 0, loaded.stderr
    # 817 percent is loaded as published, with a warning that says why it looks wrong.
    assert "PRISM, CLIP Score: 817 is not a percentage (from 0 to 100)" in loaded.stderr
    assert prism(store) == ["817"]
    again = run_cli("ingest", str(LAION), store=store)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("0 loaded, 0 unchanged, 1 restored (made current again)")
    assert f"restored: {LAION}: page {KEY}: version " in again.stderr
    assert prism(store) == ["81.7"]
    history = run_cli("history", str(LAION), "--format", "csv", store=store)
    assert history.returncode == 0, history.stderr
    statuses = [line.rsplit(",", 1)[-1] for line in history.stdout.splitlines()[1:]]
    assert sorted(statuses) == ["current", "history"], history.stdout
    as_of = run_cli(
        "query", "leaderboard", "--param", "benchmark=Prompt Recovery on LAION",
        "--param", "metric=CLIP Score", "--param", "asOf=2030-01-01T00:00:00Z",
        "--format", "json", store=store,
    )  # fmt: skip
    assert as_of.returncode == 0, as_of.stderr
    rows = json.loads(as_of.stdout)["results"]["bindings"]
    assert [r["value"]["value"] for r in rows if r["methodLabel"]["value"] == "PRISM"] == ["81.7"]


def test_remove_of_a_file_that_is_not_current_removes_nothing_unless_told(
    tmp_path: Path,
) -> None:
    store, bad = tmp_path / "store", typed_without_its_point(tmp_path)
    for page in (LAION, bad, LAION):  # the good one, the bad one, the good one current again
        assert run_cli("ingest", str(page), store=store).returncode == 0
    assert prism(store) == ["81.7"]
    refused = run_cli("remove", str(bad), store=store)
    assert refused.returncode == 1
    assert f"not current: {bad}: holds version " in refused.stderr
    assert refused.stdout.splitlines()[-1] == "0 removed, 0 not found, 1 not current"
    assert prism(store) == ["81.7"]
    forced = run_cli("remove", "--any-version", str(bad), store=store)
    assert forced.returncode == 0, forced.stderr
    assert forced.stdout.splitlines()[-1] == "1 removed, 0 not found"
    history = run_cli("history", str(LAION), "--format", "csv", store=store)
    statuses = [line.rsplit(",", 1)[-1] for line in history.stdout.splitlines()[1:]]
    assert sorted(statuses) == ["history", "withdrawn"], history.stdout


@pytest.mark.parametrize(
    "command",
    [
        ("query", "benchmarks"),
        ("validate",),
        ("audit",),
        ("export", "--format", "nquads"),
        ("history", str(LAION)),
        ("remove", str(LAION)),
        ("repair", "--check"),
    ],
    ids=lambda c: c[0],
)
def test_a_mistyped_store_is_an_error_naming_it_for_every_command_but_ingest(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    mistyped = tmp_path / "stor"
    done = run_cli(*command, "--store", str(mistyped), cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert f"there is no store at {mistyped} (named by --store)" in done.stderr
    assert not mistyped.exists() and not (tmp_path / "var").exists()
    by_variable = run_cli(*command, store=mistyped, cwd=tmp_path)
    assert by_variable.returncode == 2
    assert "(named by $BENCHGRAPH_STORE)" in by_variable.stderr
    assert not mistyped.exists()


def test_a_store_left_half_loaded_is_refused_to_readers_and_not_emptied(tmp_path: Path) -> None:
    store = tmp_path / "store"
    assert run_cli("ingest", str(EXAMPLES), store=store).returncode == 0
    # As a first ingest killed half-way leaves it (tests/robustness/test_first_load.py kills
    # a real one): the loading file says a load into an empty store did not end.
    (store / EmbeddedStore.LOAD_FILE).write_text('{"pid": 1}\n', encoding="utf-8")
    for command in (("query", "benchmarks"), ("audit",), ("validate",), ("export",)):
        done = run_cli(*command, store=store)
        assert done.returncode == 2, (command, done.stdout)
        assert "stopped half-way" in done.stderr and "benchgraph repair --store" in done.stderr
        assert "(0 rows)" not in done.stdout
    assert (store / EmbeddedStore.LOAD_FILE).exists()
    # Read past the loading file, the store's data: every page is still there.
    data = ox.Store.read_only(str(store))
    pages = [g for g in data.named_graphs() if graphs.is_page(g.value)]
    assert len(pages) == 3
    del data


def test_a_batch_of_generated_pages_with_percent_figures_has_no_range_warning(
    tmp_path: Path,
) -> None:
    corpus = tmp_path / "corpus"
    generate_corpus(corpus, seed=5, pages=20)
    done = run_cli("ingest", "--verbose", str(corpus), store=tmp_path / "store")
    assert done.returncode == 0, done.stderr
    assert "is not a percentage" not in done.stderr
