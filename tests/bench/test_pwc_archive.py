"""The generated Papers-with-Code-archive-like evaluation-tables file, at a small size: the same
seed gives the same bytes, it has the samples' shape, and the parser reads from it exactly the
leaderboards, results and skipped cells its manifest states."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support import REPO

from bench.pwc_archive import ArchiveManifest, write_archive
from ingest import pwc_tables

BOARDS = 120


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ArchiveManifest]:
    out = tmp_path_factory.mktemp("archive") / "evaluation-tables.json"
    return out, write_archive(out, BOARDS, seed=3)


def test_same_seed_same_bytes_other_seed_other_file(
    archive: tuple[Path, ArchiveManifest], tmp_path: Path
) -> None:
    path, manifest = archive
    assert write_archive(tmp_path / "again.json", BOARDS, seed=3) == manifest
    assert (tmp_path / "again.json").read_bytes() == path.read_bytes()
    write_archive(tmp_path / "other.json", BOARDS, seed=4)
    assert (tmp_path / "other.json").read_bytes() != path.read_bytes()


def test_the_parser_reads_what_the_manifest_states(archive: tuple[Path, ArchiveManifest]) -> None:
    path, manifest = archive
    pages = pwc_tables.parse(path.read_bytes(), path.name)
    assert len(pages) == manifest.leaderboards == BOARDS
    assert len({page.key for page in pages}) == BOARDS
    assert sum(len(page.results) for page in pages) == manifest.results
    assert manifest.results >= 15 * BOARDS
    assert sum(len(page.warnings) for page in pages) == manifest.skipped_cells > 0
    assert sum(page.total_count or 0 for page in pages) == manifest.rows
    ids = [r.source_id for page in pages for r in page.results]
    assert len(set(ids)) == len(ids)
    assert manifest.bytes == path.stat().st_size


def test_shaped_like_the_samples(archive: tuple[Path, ArchiveManifest]) -> None:
    path, manifest = archive
    tasks = json.loads(path.read_bytes())
    assert len(tasks) == manifest.tasks and manifest.subtasks > 0
    assert any(task["subtasks"] for task in tasks)
    datasets = [d for task in tasks for d in task["datasets"]]
    assert any(d["subdatasets"] for d in datasets)
    tables = [d["sota"] for d in datasets if d["sota"]["metrics"]]
    assert any(len(table["metrics"]) >= 2 for table in tables)
    rows = [row for table in tables for row in table["rows"]]
    cells = [cell for row in rows for cell in row["metrics"].values()]
    texts = [cell for cell in cells if isinstance(cell, str)]
    assert any(isinstance(cell, float) for cell in cells)
    assert any("±" in cell for cell in texts) and any(cell.endswith("%") for cell in texts)
    assert {"-", ""} <= set(texts)
    urls = [row["paper_url"] for row in rows]
    assert any("arxiv.org/abs/" in url for url in urls)
    assert any(url and "arxiv" not in url for url in urls)
    assert any(row["code_links"] for row in rows)
    assert {row["uses_additional_data"] for row in rows} == {True, False}


def test_command_line_writes_the_file_and_refuses_to_overwrite(tmp_path: Path) -> None:
    out = tmp_path / "tables.json"
    command = [sys.executable, "-m", "bench.generate", "--pwc-archive", "5", "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("5 leaderboards in ")
    assert len(pwc_tables.parse(out.read_bytes(), "tables.json")) == 5
    again = subprocess.run(command, capture_output=True, text=True, cwd=REPO, timeout=60)
    assert again.returncode == 2 and "exists" in again.stderr
