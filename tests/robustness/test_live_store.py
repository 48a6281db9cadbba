"""The live store: a real ``benchgraph serve`` holding its store while ``benchgraph ingest
--store DIR`` (its own process) writes pages through it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from linked_support import Live
from robustness.corpus import Row, new_id, render_sota2
from support import PATIENCE

from benchgraph.served import ServedStore
from benchgraph.store import EmbeddedStore, StoreError, open_store
from ingest.loader import ingest_file

PAGES = 200
RESULTS = 3  # in every page: a total that is no multiple of it shows part of a page


def write_pages(folder: Path) -> Path:
    """Write the pages, each a benchmark of its own with RESULTS results; return ``folder``."""
    folder.mkdir()
    for i in range(PAGES):
        rows = [
            Row(
                f"Method {i}-{j}", f"{50 + j}.{i % 10}", new_id("live", i, j), new_id("paper", i, j)
            )
            for j in range(RESULTS)
        ]
        text = render_sota2(f"Task {i:03}", f"Dataset {i:03}", "Accuracy", "PERCENT",
                            "Higher is better", rows, slug=f"live-{i:03}")  # fmt: skip
        (folder / f"page-{i:03}.md").write_text(text, encoding="utf-8")
    return folder


def empty_store(folder: Path) -> Path:
    EmbeddedStore(folder).close()
    return folder


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_pages(tmp_path_factory.mktemp("live") / "pages")


def test_a_served_store_whose_server_was_killed_closes_without_failing_again(
    pages: Path, tmp_path: Path
) -> None:
    """Closing a served store publishes what was written, but not once a request has failed:
    with the server gone, that failed as well, and the ingest reported this second failure
    in place of the first (the file it stopped at, and the summary line, were lost)."""
    location = empty_store(tmp_path / "store")
    first, second = sorted(pages.iterdir())[:2]
    live = Live(location, "--workers", "1")
    try:
        store = open_store(location)
        assert isinstance(store, ServedStore)
        assert ingest_file(store, first).status == "loaded"
        live.process.kill()
        live.process.wait(PATIENCE)
        with pytest.raises(StoreError, match="could not be reached while"):
            ingest_file(store, second)
        store.close()
    finally:
        live.stop()
