"""The weight of a board: a benchmark of 300 results, and the seeds' largest (CompoSET, 26
cohorts), are each drawn in a page under 100 KB once gzipped, as it is sent to a browser that
accepts gzip. The sizes are printed (``pytest -s``)."""

from __future__ import annotations

import gzip
from collections.abc import Iterator

import pytest
from flask.testing import FlaskClient
from support import build_store

from bench.catalogue import Metric
from bench.templates import Sota2Page, Sota2Row, render_sota2
from server.app import create_app

ROWS = 300
LIMIT = 100_000
BOARD = "/page/benchmark/image-classification/weighed"


def hexid(kind: int, n: int) -> str:
    """A 24-hex ID, distinct per kind and number."""
    return f"{kind:02x}{n:022x}"


def board() -> str:
    """A sota2 page of :data:`ROWS` results, each by its own method, reported by one of 60
    papers, dated, with a configuration on every third."""
    metric = Metric("Top-1 Accuracy", "PERCENT", True, 50.0, 95.0, 1)
    rows = tuple(
        Sota2Row(
            result_id=hexid(1, n),
            method=f"Method {n:03d} with a longer name (ViT-L/16)",
            value=f"{95 - n * 0.1:.1f}",
            date=f"2025-{n % 12 + 1:02d}-{n % 27 + 1:02d}",
            reporter=hexid(2, n % 60),
            origin=hexid(2, n % 60),
            implementation=None,
            configuration='{"Pretraining": "ImageNet-21k"}' if n % 3 == 0 else None,
        )
        for n in range(ROWS)
    )
    page = Sota2Page(
        task="Image Classification",
        dataset="Weighed",
        slug="weighed",
        page_slug="image-classification-on-weighed",
        updated="2026-03-01",
        description="A benchmark of many results.",
        metrics=(metric,),
        primary=metric,
        rows=rows,
        total=ROWS,
        page_count=1,
    )
    return render_sota2(page)


@pytest.fixture(scope="module")
def weighed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FlaskClient]:
    pages = tmp_path_factory.mktemp("weighed-pages")
    (pages / "weighed.md").write_text(board(), encoding="utf-8")
    store = build_store(tmp_path_factory.mktemp("weighed") / "store", pages)
    app = create_app({"store": str(store), "workers": 1})
    yield app.test_client()
    app.extensions["benchgraph"].pool.close()


def sizes(client: FlaskClient, page: str) -> tuple[int, int]:
    """The page's size as drawn and as sent gzipped."""
    plain = client.get(page)
    assert plain.status_code == 200, plain.data[:300]
    sent = client.get(page, headers={"Accept-Encoding": "gzip"})
    assert sent.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(sent.data) == plain.data
    return len(plain.data), len(sent.data)


def test_a_board_of_300_results_weighs_under_100_kb_gzipped(weighed: FlaskClient) -> None:
    raw, sent = sizes(weighed, BOARD)
    body = weighed.get(BOARD).get_data(as_text=True)
    assert body.count('<td class="num">') >= ROWS  # every result is on the board
    print(f"\n{ROWS}-result board: {raw} bytes, {sent} gzipped")
    assert sent < LIMIT, (raw, sent)


def test_the_composet_board_weighs_under_100_kb_gzipped(seeds_site: FlaskClient) -> None:
    raw, sent = sizes(seeds_site, "/page/benchmark/composet/composet")
    print(f"\nCompoSET page: {raw} bytes, {sent} gzipped")
    assert sent < LIMIT, (raw, sent)
