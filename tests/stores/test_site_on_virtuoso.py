"""The served site in front of Virtuoso: the home pages and the seeds' benchmark pages, which the
crawl of the seeds' site reaches over the embedded store (tests/site/test_crawl.py), answer over
Virtuoso too, with the same figures.

The same seed pages are ingested into both at the same time. The proxy gets time enough for a
loaded machine: how fast it answers is measured by ``python -m bench.boards``, not here. The
CompoSET page is among them: its board of "Group accuracy" (239 rows), whose text runs past
Virtuoso's own 60 s there, is gathered (benchgraph/asof.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from support import INGESTED_AT, SEEDS, copy_store
from support.crawl import crawl
from support.html import parse
from support.live import Live, fetch

from benchgraph.store.remote import RemoteStore
from ingest.loader import ingest_file

# Per query, and per page, on a machine other tests share (the GenAI-Bench page asks for nine
# leaderboards, one after the other).
QUERY_SECONDS = "120"
PAGE_SECONDS = 1200.0
# What a page shows that is not a figure of the store: its address and the store's location.
_NOT_FIGURES = re.compile(r"https?://127\.0\.0\.1:\d+/?\S*|/tmp/\S+")


@pytest.fixture(scope="module")
def crawled_embedded(
    seeds_store: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, str]]:
    """Each HTML page of the seeds' site over the embedded store, by path."""
    folder = copy_store(seeds_store, tmp_path_factory.mktemp("site-embedded") / "store")
    live = Live(folder, "--query-timeout", QUERY_SECONDS)
    try:
        seen: dict[str, str] = {}
        _, broken = crawl(live, seen, PAGE_SECONDS)
        assert not broken, "\n".join(broken)
        yield _by_path(seen)
    finally:
        assert live.stop(PAGE_SECONDS) == 0


@pytest.fixture
def virtuoso_site(virtuoso: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Live]:
    """``benchgraph serve`` in front of Virtuoso holding the seed pages."""
    if not SEEDS.is_dir():
        pytest.skip("the seed pages (../shared/seeds) are not beside this checkout")
    store = RemoteStore.from_settings(virtuoso.use(monkeypatch))
    for path in sorted(SEEDS.iterdir()):
        assert ingest_file(store, path, now=INGESTED_AT).status == "loaded", path
    live = Live(virtuoso.url, "--query-timeout", QUERY_SECONDS)
    yield live
    assert live.stop(PAGE_SECONDS) == 0  # once the page it may still be answering is done


def _by_path(seen: dict[str, str]) -> dict[str, str]:
    """The pages by path and query (the host differs between the two servers)."""
    found = {}
    for url, text in seen.items():
        parts = urlsplit(url)
        found[parts.path + ("?" + parts.query if parts.query else "")] = text
    return found


def _figures(html: str) -> list[str]:
    """What a page shows in its tables and lists, in order, less the server's own address."""
    root = parse(html)
    cells = []
    for element in root.iter():
        if element.tag in ("td", "th", "li", "dd", "h1", "h2"):
            text = " ".join(element.text.split())
            cells.append(_NOT_FIGURES.sub("", text))
    return cells


# A benchmark's page: /page/benchmark/TASK/DATASET[/SPLIT].
_BENCHMARK_PAGE = re.compile(r"/page/benchmark/[^/?]+/[^/?]+(/[^/?]+)?")


def test_the_home_and_benchmark_pages_answer_on_virtuoso_with_the_same_figures(
    virtuoso_site: Live, crawled_embedded: dict[str, str]
) -> None:
    boards = sorted(path for path in crawled_embedded if _BENCHMARK_PAGE.fullmatch(path))
    assert len(boards) == 5, boards  # the seeds' benchmarks
    differing = []
    for path in ["/", "/site", *boards]:
        reply = fetch(
            virtuoso_site.url + path.lstrip("/"), timeout=PAGE_SECONDS, Accept="text/html"
        )
        assert reply.status == 200, (path, reply.status, reply.text[:300])
        assert "board-late" not in reply.text, path
        if _figures(reply.text) != _figures(crawled_embedded[path]):
            differing.append(path)
    assert not differing, differing
