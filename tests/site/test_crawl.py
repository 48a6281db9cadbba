"""Every link alive: a crawl of the served site, breadth first from ``/`` and ``/site``, that
fetches every internal link (``href``, ``src``, and the URL a GET form sends with its fields'
defaults) once and fails on any answer that is not 2xx, naming the page that linked it; and
every ``https://w3id.org/benchgraph/id/`` IRI the store holds dereferenced as Turtle and as a
page. The links are crawled over the seeds here, and over 100 generated pages and the pages
where sources disagree by tests/server/test_crawl.py (which follows links only, no forms); the
IRIs are dereferenced over the seeds and a generated corpus of CORPUS_PAGES pages, which holds
every kind of page the generator writes (each IRI is fetched twice, so a smaller corpus)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pyoxigraph as ox
import pytest
from support import build_store, copy_store, generate_corpus
from support.crawl import crawl
from support.live import Live, fetch

from benchgraph.store import open_store

ID = "https://w3id.org/benchgraph/id/"
CORPUS_PAGES = 20


def _id_iris(store: Path) -> list[str]:
    """Every IRI under ``/id/`` the store holds, as subject or object, in any graph."""
    found: set[str] = set()
    with open_store(store, must_exist=True) as held:
        for quad in held.quads():
            for term in (quad.subject, quad.object, quad.graph_name):
                if isinstance(term, ox.NamedNode) and term.value.startswith(ID):
                    found.add(term.value)
    return sorted(found)


def dereference(live: Live, store: Path) -> tuple[int, list[str]]:
    """Fetch every ``/id/`` IRI of the store as Turtle and as HTML (redirects followed); return
    how many IRIs there were and each failure."""
    iris = _id_iris(store)
    failed = []
    for iri in iris:
        url = live.url + "id/" + iri[len(ID) :]
        for accept in ("text/turtle", "text/html"):
            reply = fetch(url, Accept=accept)
            if not 200 <= reply.status < 300:
                failed.append(f"{iri} as {accept} -> {reply.status}")
    return len(iris), failed


@pytest.fixture(scope="module")
def corpus_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated corpus of CORPUS_PAGES pages, ingested."""
    out = tmp_path_factory.mktemp("crawl-corpus")
    generate_corpus(out / "corpus", 7, CORPUS_PAGES)
    return build_store(out / "store", out / "corpus" / "pages")


@pytest.fixture(scope="module")
def corpus_server(
    corpus_store: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Live, Path]]:
    live = Live(copy_store(corpus_store, tmp_path_factory.mktemp("crawl-served") / "store"))
    yield live, corpus_store
    assert live.stop() == 0


def test_every_link_on_the_seeds_site_answers(seeds_server: Live) -> None:
    fetched, broken = crawl(seeds_server)
    assert len(fetched) > 300, len(fetched)  # the whole site: boards, resources, queries…
    kinds = {urlsplit(u).path.split("/")[1] for u in fetched}
    assert {"page", "id", "queries", "query", "ns", "void", "site"} <= kinds, kinds
    assert not broken, "\n".join(broken)


def test_every_id_iri_of_the_seeds_dereferences(seeds_server: Live, seeds_store: Path) -> None:
    count, failed = dereference(seeds_server, seeds_store)
    assert count > 100
    assert not failed, "\n".join(failed)


def test_every_id_iri_of_a_generated_corpus_dereferences(
    corpus_server: tuple[Live, Path],
) -> None:
    count, failed = dereference(*corpus_server)
    assert count > CORPUS_PAGES
    assert not failed, "\n".join(failed)
