"""The remote-store benchmark at a tiny size, against real servers (an Oxigraph server, and a
private Virtuoso where it is installed): every loader leaves the quads benchgraph's ingest
wrote, every ratio is a positive number, and the report keeps its section when ``bench.run``
writes the report again. Correctness only: no timing is asserted."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support import REPO

from bench import virtuoso
from bench.report import remote_path, write

HEADING = "## Remote stores"


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """``python -m bench.remote`` at 3 pages, in its own process, writing beside a copy of
    the checkout's report; the report and the size it measured."""
    folder = tmp_path_factory.mktemp("remote")
    out = folder / "BENCHMARKS.md"
    shutil.copy(REPO / "BENCHMARKS.json", out.with_suffix(".json"))
    options = ["--sizes", "3", "--requests", "2", "--queries", "methods-reported-by-paper,"
               "audit-self-reported,compare", "--out", str(out)]  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "bench.remote", *options],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    (size,) = json.loads(remote_path(out).read_text(encoding="utf-8"))["sizes"]
    return out, size


def positive(value: float) -> bool:
    return math.isfinite(value) and value > 0


def test_oxigraph_loaders_hold_what_the_ingest_wrote(measured: tuple[Path, dict[str, Any]]) -> None:
    _, size = measured
    part = size["oxigraph"]
    assert set(part["loaders"]) == {"oxigraph load", "POST /store?no_transaction"}
    quads = part["quads"]
    assert quads["benchgraph ingest"] == part["nquads_lines"] > 0
    assert part["same_quads"] and len(set(quads.values())) == 1, quads
    assert all(positive(loader["ratio"]) for loader in part["loaders"].values())


def test_the_section_is_kept_when_the_report_is_written_again(
    measured: tuple[Path, dict[str, Any]],
) -> None:
    out, size = measured
    text = out.read_text(encoding="utf-8")
    assert HEADING in text
    assert f"| 3 | {size['results']} | Oxigraph server |" in text
    write(out, json.loads(out.with_suffix(".json").read_text(encoding="utf-8")))  # as bench.run
    assert HEADING in out.read_text(encoding="utf-8")


@pytest.mark.skipif(not virtuoso.installed(), reason=virtuoso.INSTALL_HINT)
def test_virtuoso_loader_and_queries(measured: tuple[Path, dict[str, Any]]) -> None:
    _, size = measured
    part = size["virtuoso"]
    quads = part["quads"]
    assert quads["benchgraph ingest"] == quads["ld_dir + rdf_loader_run"] == part["nquads_lines"]
    assert positive(part["loaders"]["ld_dir + rdf_loader_run"]["ratio"])
    rows = size["queries"]["queries"]
    assert rows["compare"]["verdict"].startswith("not measured: needs benchmark, a, b")
    for name in ("methods-reported-by-paper", "audit-self-reported"):
        row = rows[name]
        assert row["same_rows"], row
        assert positive(row["ratio_p50"]), row
        assert row["virtuoso"]["requests"] == 2 and row["benchgraph"]["requests"] == 2
