"""Search: a paper by its ID, its arXiv ID or its title, and each resource listed once with
what it belongs to, against what the store holds."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pyoxigraph as ox
import pytest
from flask.testing import FlaskClient
from support import Index, copy_store
from support.html import Element, parse, table_rows

from benchgraph import vocab as V
from benchgraph.store.embedded import EmbeddedStore
from ingest.loader import ingest_file
from server.app import create_app

CARD = Path(__file__).parents[1] / "data" / "model-index" / "README.md"


def found(client: FlaskClient, text: str) -> list[dict[str, Element]]:
    """The rows of the search page for ``text``."""
    reply = client.get(f"/search?q={quote(text)}")
    assert reply.status_code == 200
    table = parse(reply.get_data(as_text=True)).find("table")
    return [] if table is None else table_rows(table)


def target(row: dict[str, Element], column: str = "Label") -> str:
    """The address the ``column`` cell of ``row`` links to."""
    link = row[column].find("a")
    assert link is not None
    return link.attrs["href"]


def page_of(iri: str) -> str:
    return "/page/" + iri.removeprefix("https://w3id.org/benchgraph/id/")


def test_a_paper_is_found_by_its_id_in_any_case(
    seeds_site: FlaskClient, seeds_index: Index
) -> None:
    papers = sorted(seeds_index.subjects_of_type(V.Paper))
    assert papers
    for paper in papers[:5]:
        ident = paper.rsplit("/", 1)[1]
        rows = found(seeds_site, ident.upper())
        assert [target(r) for r in rows if target(r) == page_of(paper)] == [page_of(paper)]


def test_a_paper_is_found_by_its_title(seeds_site: FlaskClient, seeds_index: Index) -> None:
    titled = [
        p for p in sorted(seeds_index.subjects_of_type(V.Paper)) if seeds_index.objects(p, V.label)
    ]
    assert titled
    paper = titled[0]
    title = str(seeds_index.value(paper, V.label))
    rows = found(seeds_site, title[: max(8, len(title) // 2)].lower())
    assert page_of(paper) in [target(r) for r in rows]


@pytest.fixture(scope="module")
def card_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of one model card, whose source paper is known by its arXiv ID."""
    folder = tmp_path_factory.mktemp("search-card") / "store"
    with EmbeddedStore(folder) as store:
        assert ingest_file(store, CARD).status == "loaded"
    return folder


@pytest.fixture(scope="module")
def card_site(card_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FlaskClient]:
    copy = copy_store(card_store, tmp_path_factory.mktemp("search-card-copy") / "store")
    app = create_app({"store": str(copy), "workers": 1})
    app.config["TESTING"] = True
    yield app.test_client()
    app.extensions["benchgraph"].pool.close()


def test_a_paper_is_found_by_its_arxiv_id_with_or_without_prefix(
    card_store: Path, card_site: FlaskClient
) -> None:
    held = Index(set(ox.Store.read_only(str(card_store))))
    papers = [(p, held.value(p, V.arxivId)) for p in sorted(held.subjects_of_type(V.Paper))]
    known = [(p, a) for p, a in papers if a]
    assert known
    for paper, arxiv in known:
        for text in (str(arxiv), f"arXiv:{arxiv}", f"ARXIV: {arxiv}"):
            assert [target(r) for r in found(card_site, text)] == [page_of(paper)], text


def test_each_resource_is_listed_once_with_the_benchmark_of_a_metric(
    seeds_site: FlaskClient, seeds_index: Index
) -> None:
    # Metrics are declared per benchmark, so one name labels several: each is listed once,
    # beside the benchmark it belongs to, so that two rows never read the same.
    by_name: dict[str, set[str]] = {}
    for metric in seeds_index.subjects_of_type(V.Metric):
        by_name.setdefault(str(seeds_index.value(metric, V.label)), set()).add(metric)
    name, metrics = max(sorted(by_name.items()), key=lambda item: len(item[1]))
    assert len(metrics) > 1  # the case that read as one metric listed twice
    rows = [r for r in found(seeds_site, name) if r["Label"].text.strip() == name]
    listed = [target(r) for r in rows]
    assert sorted(listed) == sorted(page_of(m) for m in metrics)
    owners: dict[str, set[str]] = {}
    for benchmark in seeds_index.subjects_of_type(V.Benchmark):
        for metric in seeds_index.objects(benchmark, V.hasMetric):
            owners.setdefault(page_of(metric.value), set()).add(page_of(benchmark))
    for row in rows:
        assert target(row, "Of") in owners[target(row)]
