"""The benchmark runner, at a tiny size: it runs as a user runs it, writes every table with
numbers and a JSON document with the expected keys, and every peer answers the same rows.
Correctness only: no timing is asserted."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from support import REPO

QUERIES = {
    "methods-introduced-by-paper",
    "methods-reported-by-paper",
    "results-reported-by-paper",
    "leaderboard",
    "audit-self-reported",
}


def test_run_writes_every_table_and_the_json(tmp_path: Path) -> None:
    out = tmp_path / "bench.md"
    options = ["--sizes", "8", "--repeat", "1", "--requests", "3", "--clients", "2"]
    options += ["--each", "2", "--rdflib-requests", "2", "--rdflib-timeout", "10"]
    done = subprocess.run(
        [sys.executable, "-m", "bench.run", *options, "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    text = out.read_text(encoding="utf-8")
    for heading in ("## Machine", "## Command", "## 1. Ingest", "## 2. Named queries",
                    "### The rdflib in-memory endpoint", "## 3. Validation",
                    "## Targets"):  # fmt: skip
        assert heading in text
    rows = [line for line in text.splitlines() if re.match(r"\| 8 \|", line)]
    assert len(rows) == 1 + 2 * len(QUERIES) + 1  # ingest, per query (oxigraph, rdflib), validation
    for row in rows:
        assert re.search(r"\d+\.\d+", row), row
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
    for row in size["queries"].values():
        for server in ("benchgraph", "oxigraph"):
            latency = row[server]["uncached"]
            assert 0 < latency["p50_ms"] <= latency["p95_ms"] <= latency["p99_ms"]
            assert row[server]["throughput_qps"]["median"] > 0
        assert row["same_rows"] and row["ratio_p50_uncached"] > 0
        rdflib = row["rdflib"]  # a query rdflib cannot answer in time gives a lower bound
        assert rdflib["timed_out"] or rdflib["same_rows"], rdflib
        assert row["ratio_rdflib_over_benchgraph"] > 0
    (validation,) = data["validations"]
    assert validation["ratio_pyshacl_over_validate"] > 0
    assert validation["findings_validate"] and validation["same_findings"]
    targets = ("ingest within 3×", "within 1.2× of oxigraph", "30× faster than the rdflib",
               "audit aggregate under 100 ms", "validate ≥ 5×")  # fmt: skip
    assert len(data["verdicts"]) == len(targets)  # one line per target at the one size
    for target, verdict in zip(targets, data["verdicts"], strict=True):
        assert target in verdict and (" met (" in verdict or " missed (" in verdict), verdict
