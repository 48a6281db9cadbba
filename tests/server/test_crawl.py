"""Every link alive: a crawl from ``/`` that follows each internal link of every HTML page a
browser is served (``href`` and ``src``), on a real server, and fails on any answer that is not
2xx (a redirect is followed, as a browser follows it): over 100 generated pages and the pages
where sources disagree. The seeds are crawled, their forms sent too, by tests/site/test_crawl.py."""

from __future__ import annotations

import subprocess
import sys
import urllib.parse
from collections import deque
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import REPO, build_store
from support.html import parse
from support.live import Live, fetch

# Links that are not pages to read: the dumps (whole-store downloads, checked elsewhere); and
# another order of a table already fetched (tests/site/test_indexes.py and test_board_order.py
# check each order; the seeds' crawl, tests/site/test_crawl.py, follows them all).
_NOT_FOLLOWED = ("/dump.", "_sort=", "_sort_desc=")


def crawl(base: str) -> tuple[set[str], dict[str, tuple[int, str]]]:
    """Every internal URL reachable from ``base`` as a browser asks (``Accept: text/html``),
    and the failures: URL -> (status, the page that links to it)."""
    seen, failed = {base}, {}
    todo: deque[tuple[str, str]] = deque([(base, "")])
    while todo:
        url, referrer = todo.popleft()
        reply = fetch(url, timeout=120, Accept="text/html")
        if not 200 <= reply.status < 300:
            failed[url] = (reply.status, referrer)
            continue
        if reply.type != "text/html":
            continue
        for element in parse(reply.text).iter():
            href = element.attrs.get("href") or element.attrs.get("src")
            if not href:
                continue
            target = urllib.parse.urljoin(url, href).split("#")[0]
            internal = target.startswith(base)
            if internal and target not in seen and not any(n in target for n in _NOT_FOLLOWED):
                seen.add(target)
                todo.append((target, url))
    return seen, failed


@pytest.fixture(scope="module")
def generated_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """A store of 100 generated pages (the benchmarks' corpus generator), served."""
    corpus = tmp_path_factory.mktemp("generated") / "pages"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.generate",
            "--pages",
            "100",
            "--seed",
            "7",
            "--out",
            str(corpus),
        ],
        check=True,
        cwd=REPO,
        capture_output=True,
    )
    # The feed of a store loaded at once gathers every page; a time limit of its own, as this
    # test is about links, not speed (bench/ measures that).
    live = Live(build_store(corpus.parent / "store", corpus / "pages"), "--query-timeout", "120")
    yield live
    assert live.stop() == 0


def test_every_link_of_a_hundred_page_site_answers(generated_server: Live) -> None:
    seen, failed = crawl(generated_server.url)
    boards = [u for u in seen if "/page/benchmark/" in u]
    assert boards, sorted(seen)
    assert not failed, dict(list(failed.items())[:20])


def test_every_link_of_a_site_where_sources_disagree_answers(tmp_path: Path) -> None:
    """The pages of tests/data/claims: one result from three sources, its claim's page, the
    query behind it, and the sources' and papers' pages they link."""
    store = build_store(tmp_path / "store", REPO / "tests" / "data" / "claims")
    live = Live(store)
    try:
        seen, failed = crawl(live.url)
    finally:
        assert live.stop() == 0
    paths = {urllib.parse.urlsplit(u).path for u in seen}
    assert any(p.startswith("/page/claim/") for p in paths), sorted(paths)
    assert "/queries/claims" in paths
    assert not failed, failed
