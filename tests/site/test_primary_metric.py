"""A benchmark over source pages that disagree: one primary metric (when the pages name different
ones, the one the latest-updated page names; ties: the page IRI first), and a caveat naming
each page that says it holds only part of the results."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest
from flask.testing import FlaskClient
from support import Index, build_store, copy_store
from support.html import parse, table_rows, table_with

from benchgraph import vocab as V
from server.app import create_app

NOCAPS = sorted((Path(__file__).parents[1] / "data" / "sota2").glob("nocaps-*.md"))
MODIFIED = "http://purl.org/dc/terms/modified"


@pytest.fixture(scope="module")
def nocaps_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The NoCaps pages: one names CIDEr primary, two later ones Latency."""
    pages = tmp_path_factory.mktemp("nocaps-pages")
    for path in NOCAPS:
        shutil.copy(path, pages / path.name)
    return build_store(tmp_path_factory.mktemp("nocaps") / "store", pages)


@pytest.fixture(scope="module")
def nocaps_site(
    nocaps_store: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FlaskClient]:
    app = create_app(
        {
            "store": str(copy_store(nocaps_store, tmp_path_factory.mktemp("c") / "store")),
            "workers": 1,
        }
    )
    app.config["TESTING"] = True
    yield app.test_client()
    app.extensions["benchgraph"].pool.close()


def test_the_benchmark_page_marks_the_latest_pages_primary_metric_only(
    nocaps_store: Path, nocaps_site: FlaskClient
) -> None:
    held = Index(set(ox.Store.read_only(str(nocaps_store))))
    named = {
        page: (str(held.value(page, MODIFIED)), page, held.value(page, V.primaryMetric))
        for page in held.subjects_of_type(V.SourceDocument)
        if held.value(page, V.primaryMetric)
    }
    assert len({m for _, _, m in named.values()}) > 1  # the pages disagree
    latest = max(when for when, _, _ in named.values())
    _, _, chosen = min(n for n in named.values() if n[0] == latest)  # ties: the first page IRI
    (benchmark,) = held.subjects_of_type(V.Benchmark)
    reply = nocaps_site.get("/page/" + benchmark.removeprefix("https://w3id.org/benchgraph/id/"))
    assert reply.status_code == 200
    table = table_with(parse(reply.get_data(as_text=True)), "Direction")
    assert table is not None
    marked = [r for r in table_rows(table) if "(primary)" in r["Metric"].text]
    assert len(marked) == 1
    link = marked[0]["Metric"].find("a")
    assert link is not None and link.text == held.value(str(chosen), V.label)


def test_the_benchmark_page_says_which_source_pages_hold_only_part(
    nocaps_store: Path, nocaps_site: FlaskClient
) -> None:
    held = Index(set(ox.Store.read_only(str(nocaps_store))))
    stated = {p: str(held.value(p, V.coverage)) for p in held.subjects_of_type(V.SourceDocument)}
    partial = {p: c for p, c in stated.items() if not c.lower().startswith("all results")}
    assert partial and len(partial) < len(stated)  # some pages say all, some not
    (benchmark,) = held.subjects_of_type(V.Benchmark)
    reply = nocaps_site.get("/page/" + benchmark.removeprefix("https://w3id.org/benchgraph/id/"))
    notes = list(parse(reply.get_data(as_text=True)).iter("p", "coverage"))
    shown = {n.find("a").attrs["href"]: n.text for n in notes if n.find("a") is not None}
    assert sorted(shown) == sorted(
        "/page/" + p.removeprefix("https://w3id.org/benchgraph/id/") for p in partial
    )
    for page, coverage in partial.items():
        assert coverage in shown["/page/" + page.removeprefix("https://w3id.org/benchgraph/id/")]
