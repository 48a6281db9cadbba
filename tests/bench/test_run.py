"""The benchmark runner, at a tiny size: it runs as a user runs it, writes every table with
numbers and a JSON document with the expected keys. Correctness only: no timing is asserted."""

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
    done = subprocess.run(
        [sys.executable, "-m", "bench.run", *options, "--each", "2", "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    text = out.read_text(encoding="utf-8")
    for heading in ("## Machine", "## Command", "## 1. Ingest", "## 2. Named queries",
                    "## 3. Validation", "## Targets"):  # fmt: skip
        assert heading in text
    rows = [line for line in text.splitlines() if re.match(r"\| 8 \|", line)]
    assert len(rows) == 1 + len(QUERIES) + 1  # ingest, one per query, validation
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
    validation = data["validation"]
    assert validation["ratio_pyshacl_over_validate"] > 0
    assert validation["findings_validate"]
    assert len(data["verdicts"]) == 4  # one line per target at the one size
