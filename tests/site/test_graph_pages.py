"""The pages of named graphs: a page's graph, a kept version, the versions catalogue."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pyoxigraph as ox
import pytest
from flask.testing import FlaskClient
from support.html import parse

from benchgraph import graphs, iris
from benchgraph.store import open_store
from benchgraph.vocab import ID

HTML = {"Accept": "text/html"}


@pytest.fixture(scope="module")
def sizes(seeds_store: Path) -> Counter[str]:
    """The triples of each named graph of the seeds store."""
    with open_store(seeds_store, must_exist=True) as store:
        named = (q.graph_name for q in store.quads() if isinstance(q.graph_name, ox.NamedNode))
        return Counter(g.value for g in named)


def test_a_page_graph_s_page_says_its_size_and_source(
    seeds_site: FlaskClient, sizes: Counter[str]
) -> None:
    graph = sorted(g for g in sizes if graphs.is_page(g))[0]
    reply = seeds_site.get("/id/" + graph[len(ID) :], headers=HTML, follow_redirects=True)
    assert reply.status_code == 200
    page = parse(reply.get_data(as_text=True))
    source = iris.source(str(graphs.source_key(graph)))
    links = [href for href, _ in page.links()]
    assert any(href.endswith("/page/" + source[len(ID) :]) for href in links)
    assert any(href.endswith("/id/" + graph[len(ID) :] + ".ttl") for href in links)
    assert f"holds {sizes[graph]} triples" in page.text


def test_the_versions_catalogue_has_a_page(seeds_site: FlaskClient, sizes: Counter[str]) -> None:
    reply = seeds_site.get("/id/versions", headers=HTML, follow_redirects=True)
    assert reply.status_code == 200
    assert f"holds {sizes[graphs.VERSIONS]} triples" in reply.get_data(as_text=True)


def test_a_graph_the_store_lacks_is_404(seeds_site: FlaskClient) -> None:
    assert seeds_site.get("/page/graph/no/such/page", headers=HTML).status_code == 404
