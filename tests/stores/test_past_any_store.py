"""The store as it was, on every store (an embedded one on disk, a real Oxigraph server, Virtuoso):
a leaderboard as of a date and what changed since give the same answers on either, through
``benchgraph query`` as a user runs it."""

from __future__ import annotations

import csv
import io

from support import EXAMPLES, REPO, run_cli

NEWER = REPO / "tests" / "data" / "sota2" / "prompt-recovery-on-laion-2026-04.md"
LAION = EXAMPLES / "sota2-prompt-recovery-on-laion.md"
BENCHMARK = "benchmark=Prompt Recovery on LAION"


def rows(location: str, *args: str) -> list[dict[str, str]]:
    done = run_cli("query", *args, "--format", "csv", "--store", location)
    assert done.returncode == 0, done.stderr
    return list(csv.DictReader(io.StringIO(done.stdout)))


def test_as_of_and_changes_answer_alike_on_either_store(kind: str, location: str) -> None:
    for page in (LAION, NEWER):
        done = run_cli("ingest", str(page), "--store", location)
        assert done.returncode == 0, done.stderr
    then = rows(location, "leaderboard", "--param", BENCHMARK, "--param", "asOf=2026-03-31")
    values = {r["methodLabel"]: (r["value"], r["rank"]) for r in then}
    assert values["PRISM"] == ("81.7", "3") and len(then) == 6
    now = rows(location, "leaderboard", "--param", BENCHMARK)
    assert len(now) == 6
    assert {r["methodLabel"]: r["value"] for r in now}["PRISM"] == "81.9"
    changed = rows(location, "changes", "--param", "since=2026-03-31")
    assert [(r["change"], r["methodLabel"], r["oldValue"], r["newValue"]) for r in changed] == [
        ("changed", "PRISM", "81.7", "81.9")
    ]
    before = rows(location, "leaderboard", "--param", BENCHMARK, "--param", "asOf=2026-03-01")
    assert before == []
