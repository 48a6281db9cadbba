"""The benchmark runner, at a tiny size: it runs as a user runs it, writes every table with
numbers and a JSON document with the expected keys, every peer answers the same rows and every
validator gives the same findings. Correctness only: no timing is asserted."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support import EXAMPLES, REPO, build_store

from bench.launch import Server
from bench.report import size_line, write
from bench.run import merged, same_rows
from bench.servers import wait_warmed

QUERIES = {
    "methods-introduced-by-paper",
    "methods-reported-by-paper",
    "results-reported-by-paper",
    "leaderboard",
    "audit-self-reported",
}


def bench_run(options: list[str], out: Path) -> None:
    """``python -m bench.run`` in its own process, writing to ``out``; it must succeed."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.run", *options, "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr


def test_run_writes_every_table_and_the_json(tmp_path: Path) -> None:
    out = tmp_path / "bench.md"
    options = ["--sizes", "8", "--repeat", "1", "--requests", "3", "--clients", "2"]
    options += ["--each", "2", "--rdflib-requests", "2", "--rdflib-timeout", "10"]
    bench_run(options, out)
    text = out.read_text(encoding="utf-8")
    for heading in ("## Machine", "## Command", "## 1. Ingest", "## 2. Named queries",
                    "### The rdflib in-memory endpoint", "### A leaderboard written by hand",
                    "## 3. Validation", "## Targets"):  # fmt: skip
        assert heading in text
    rows = [line for line in text.splitlines() if re.match(r"\| 8 \|", line)]
    # ingest, per query (oxigraph, rdflib), the hand-written leaderboard, validation (timings,
    # findings)
    assert len(rows) == 1 + 2 * len(QUERIES) + 1 + 2
    *timed, findings = rows
    for row in timed:
        assert re.search(r"\d+\.\d+", row), row
    assert findings.count("| yes |") == 2, findings  # the findings of all three validators
    assert "| NO |" not in text  # both servers give the same rows

    data = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    assert {"command", "machine", "sizes", "validation", "verdicts"} <= data.keys()
    assert {"nproc", "memory_gb", "python", "packages", "date"} <= data["machine"].keys()
    (size,) = data["sizes"]
    ingest = size["ingest"]
    assert ingest["pages"] == 8 and ingest["results"] > 0 and ingest["quads"] > 0
    for key in ("ingest_s", "floor_s", "pages_per_s", "results_per_s", "peak_rss_mb"):
        assert ingest[key]["min"] <= ingest[key]["median"] <= ingest[key]["max"]
    assert ingest["ratio_ingest_over_floor"] > 0 and ingest["store_mb"] > 0
    assert set(size["queries"]) == QUERIES
    user = size["user_query"]  # a leaderboard written by hand, over the merged view
    assert user["one_row_per_result"] and user["results"] > 0
    assert user["user-leaderboard"]["benchgraph"]["row_counts"][0] == user["results"]
    assert user["ratio_over_bare"] > 0
    warm = size["serve_warm"]  # measured once the server has warmed its named queries
    assert warm["warmed"] == warm["of"] > 0 and warm["seconds"] >= 0
    for row in size["queries"].values():
        for server in ("benchgraph", "oxigraph"):
            latency = row[server]["uncached"]
            assert 0 < latency["p50_ms"] <= latency["p95_ms"] <= latency["p99_ms"]
            assert row[server]["throughput_qps"]["median"] > 0
            assert row[server]["throughput_1_qps"]["median"] > 0
        assert row["same_rows"] and row["ratio_p50_uncached"] > 0
        rdflib = row["rdflib"]  # a query rdflib cannot answer in time gives a lower bound
        assert rdflib["timed_out"] or rdflib["same_rows"], rdflib
        assert row["ratio_rdflib_over_benchgraph"] > 0
    (validation,) = data["validations"]
    for key in ("validate_s", "page_pyshacl_s", "pyshacl_s"):  # the three measurements
        assert 0 < validation[key]["min"] <= validation[key]["median"] <= validation[key]["max"]
    assert validation["ratio_pyshacl_over_validate"] > 0
    assert validation["ratio_page_pyshacl_over_validate"] > 0
    assert validation["findings_validate"]
    assert validation["findings_page_pyshacl"] == validation["findings_validate"]
    assert validation["same_findings"] and validation["same_findings_page_pyshacl"]
    assert validation["page_pyshacl_differences"] == 0
    targets = ("ingest within 3×", "within 1.3× of oxigraph",
               "one row per result, within 1.5× of the bare lookup", "30× faster than the rdflib",
               "audit aggregate under 100 ms", "validate ≥ 5×")  # fmt: skip
    assert len(data["verdicts"]) == len(targets)  # one line per target at the one size
    for target, verdict in zip(targets, data["verdicts"], strict=True):
        assert target in verdict and (" met (" in verdict or " missed (" in verdict), verdict


def test_run_leaves_out_whole_graph_pyshacl_above_its_max_pages(tmp_path: Path) -> None:
    out = tmp_path / "bench.md"
    options = ["--sizes", "8", "--repeat", "1", "--query-max-pages", "0"]
    options += ["--pyshacl-max-pages", "4"]
    bench_run(options, out)
    assert "| not run (8 pages > --pyshacl-max-pages) |" in out.read_text(encoding="utf-8")
    data = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    (validation,) = data["validations"]
    assert validation["pyshacl_s"] is None and validation["same_findings"] is None
    assert validation["ratio_pyshacl_over_validate"] is None
    assert validation["validate_s"]["median"] > 0  # validate and pyshacl page by page still run
    assert validation["page_pyshacl_s"]["median"] > 0
    assert validation["same_findings_page_pyshacl"]
    assert not any("validate ≥ 5×" in line for line in data["verdicts"])


def test_report_reads_a_report_written_before_pyshacl_page_by_page(tmp_path: Path) -> None:
    """``--append`` reads the JSON of an earlier run: a validation row without the page-by-page
    fields is rendered with dashes and keeps its verdicts."""
    timing = {"min": 1.0, "median": 2.0, "max": 3.0}
    old = {
        "pages": 100,
        "runs": 1,
        "validate_s": timing,
        "pyshacl_s": {"min": 12.0, "median": 12.0, "max": 12.0},
        "pyshacl_load_s": timing,
        "ratio_pyshacl_over_validate": 6.0,
        "findings_validate": {"Warning": 3},
        "findings_pyshacl": {"Warning": 3},
        "cross_page_findings": 0,
        "common": 3,
        "only_validate": 0,
        "only_pyshacl": 0,
        "same_findings": True,
    }
    new = {**old, "pages": 1000, "validate_s": {"min": 20.0, "median": 20.0, "max": 20.0}}
    for key in ("pyshacl_s", "pyshacl_load_s", "ratio_pyshacl_over_validate", "same_findings"):
        new[key] = None
    new |= {"pyshacl_max_pages": 100, "page_pyshacl_s": timing, "same_findings_page_pyshacl": True}
    data = {
        "command": "python -m bench.run",
        "machine": {"date": "today", "nproc": 2, "cpu": "cpu", "memory_gb": 1.0,
                    "platform": "linux", "python": "3.11", "packages": {}},
        "query_settings": {"requests": 1, "clients": 1, "each": 1},
        "sizes": [],
        "validations": [old, new],
    }  # fmt: skip
    out = tmp_path / "bench.md"
    write(out, data)
    rows = [line for line in out.read_text(encoding="utf-8").splitlines() if "| 100 |" in line]
    assert len(rows) == 2 and all("| — |" in row for row in rows), rows
    assert data["verdicts"] == [
        "- validate ≥ 5× faster than whole-graph pyshacl, same findings, at 100 pages: met "
        "(6.00×, same findings)",
        "- validate linear in pages: met (time per page ×1.00 from 100 to 1000 pages)",
    ]


def test_append_measures_queries_only_and_keeps_the_ingest(tmp_path: Path) -> None:
    """A second run with ``--skip-ingest --append`` fills in the queries of a size the report
    has, keeps its ingest numbers, and stops each latency series on its time budget."""
    out = tmp_path / "bench.md"
    bench_run(["--sizes", "8", "--repeat", "1", "--query-max-pages", "0"], out)
    first = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    (size,) = first["sizes"]
    assert size["queries"] == {} and size["ingest"]["pages"] == 8
    options = ["--sizes", "8", "--repeat", "1", "--skip-ingest", "--append", "--requests", "6"]
    options += ["--clients", "1", "--each", "1", "--queries", "leaderboard,audit-self-reported"]
    options += ["--rdflib-max-pages", "0", "--validation-sizes", "1000", "--latency-budget", "0"]
    bench_run(options, out)
    data = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    (merged,) = data["sizes"]
    assert merged["ingest"] == size["ingest"]
    assert set(merged["queries"]) == {"leaderboard", "audit-self-reported"}
    for row in merged["queries"].values():
        for server in ("benchgraph", "oxigraph"):
            assert row[server]["uncached"]["requests"] == 3  # the least a budget allows
            assert row[server]["cached"]["requests"] == 3
        assert row["same_rows"]
    assert merged["query_settings"]["latency_budget_s"] == 0
    assert len(merged["commands"]) == 2 and len(data["commands"]) == 2
    assert merged["dates"] == {"ingest": size["date"], "queries": merged["date"]}
    text = out.read_text(encoding="utf-8")
    assert "each series stopped after 0 s (at least 3 requests)" in text
    ingest_row = f"| 8 | {size['ingest']['results']} | {size['ingest']['quads']} |"
    assert len([line for line in text.splitlines() if line.startswith(ingest_row)]) == 1


def test_stores_already_built_are_measured_on_copies_and_never_written(tmp_path: Path) -> None:
    """With ``--stores``, a store already built is copied and its queries measured, each value
    asked of both servers; no ingest is measured and the store itself is left as it was."""
    store = build_store(tmp_path / "store-8", EXAMPLES)
    before = {p.relative_to(store): p.read_bytes() for p in store.rglob("*") if p.is_file()}
    out = tmp_path / "bench.md"
    options = ["--sizes", "8", "--stores", str(tmp_path / "store-{pages}"), "--repeat", "1"]
    options += ["--requests", "3", "--clients", "1", "--each", "1", "--rdflib-max-pages", "0"]
    options += ["--queries", "methods-introduced-by-paper", "--validation-sizes", "0"]
    bench_run(options, out)
    (size,) = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))["sizes"]
    assert size["ingest"] is None
    row = size["queries"]["methods-introduced-by-paper"]
    for server in ("benchgraph", "oxigraph"):
        assert row[server]["uncached"]["requests"] == row["distinct_values"] + 1 > 1
    assert row["same_rows"]
    after = {p.relative_to(store): p.read_bytes() for p in store.rglob("*") if p.is_file()}
    assert after == before


def test_same_rows_compares_where_both_servers_answered() -> None:
    def server(uncached: list[int | None], cached: list[int | None]) -> dict[str, Any]:
        return {"uncached": {"row_counts": uncached}, "cached": {"row_counts": cached}}

    assert same_rows(server([3, None, 5], [2]), server([3, 4], [2, 2]))
    assert not same_rows(server([3, 5], []), server([3, 4, 7], []))
    assert not same_rows(server([None], [9]), server([4], [8]))  # the cached series too
    assert same_rows(server([None], []), server([4], [8])) is None  # nothing to compare


def test_waiting_for_the_warmer_stops_when_its_log_says_warming_failed(tmp_path: Path) -> None:
    failing = "import sys, time; sys.stderr.write('named queries cannot be warmed now: x\\n'); "
    server = Server([sys.executable, "-c", failing + "sys.stderr.flush(); time.sleep(60)"],
                    tmp_path / "serve.log")  # fmt: skip
    try:
        with pytest.raises(RuntimeError, match="could not warm"):
            wait_warmed(server, 30)
        assert server.process.poll() is None  # it failed on the log, not on the process ending
    finally:
        server.stop()


def test_each_part_of_a_size_keeps_the_date_of_the_run_that_measured_it() -> None:
    """An appended run that measures only the ingest of a size leaves its queries dated by the
    run that measured them, and the Machine line says both dates."""
    first = {"pages": 8, "date": "2026-12-01 10:45 UTC", "command": "one", "ingest": {"s": 1},
             "queries": {"leaderboard": {}}, "query_settings": {"query_timeout": 120}}  # fmt: skip
    again = {"pages": 8, "date": "2026-12-03 12:47 UTC", "command": "two", "ingest": {"s": 2},
             "queries": {}}  # fmt: skip
    (size,) = merged(merged([], first), again)
    assert size["ingest"] == {"s": 2} and size["queries"] == {"leaderboard": {}}
    assert size["dates"] == {"ingest": "2026-12-03 12:47 UTC", "queries": "2026-12-01 10:45 UTC"}
    line = size_line(size, "")
    assert "measured from 2026-12-03 12:47 UTC (ingest) and 2026-12-01 10:45 UTC (queries)" in line
    assert "query time limit 120 s" in line
    (alone,) = merged([], again)  # a size measured by one run: one date, and no query settings
    assert "measured from 2026-12-03 12:47 UTC, load average" in size_line(alone, "")
    assert "query time limit" not in size_line(alone, "")
