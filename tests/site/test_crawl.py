"""Every link alive: a crawl of the served site, breadth first from ``/`` and ``/site``, that
fetches every internal link (``href``, ``src``, and the URL a GET form sends with its fields'
defaults) once and fails on any answer that is not 2xx, naming the page that linked it; and
every ``https://w3id.org/benchgraph/id/`` IRI the store holds dereferenced as Turtle and as a
page. The links are crawled over the seeds here, and over 100 generated pages and the pages
where sources disagree by tests/server/test_crawl.py (which follows links only, no forms); the
IRIs are dereferenced over the seeds and a generated corpus of CORPUS_PAGES pages, which holds
every kind of page the generator writes (each IRI is fetched twice, so a smaller corpus)."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urldefrag, urlencode, urljoin, urlsplit

import pyoxigraph as ox
import pytest
from support import build_store, copy_store, generate_corpus
from support.html import Element, parse
from support.live import Live, fetch

from benchgraph.store import open_store

ID = "https://w3id.org/benchgraph/id/"
CORPUS_PAGES = 20
# The forms that send the SPARQL text a person writes are not sent as they stand: an example's
# text there needs its parameters, and without them one may outlive the query time limit (a
# 504 by design, as tests/server covers), which is no broken link.
QUERY_FORMS = {"/query", "/sparql"}


def _form_url(page: str, form: Element) -> str | None:
    """The URL a GET form sends with its fields as they stand; None for a form that cannot be
    sent so (a POST form, or a required field left empty)."""
    if form.attrs.get("method", "get").lower() != "get":
        return None
    fields: list[tuple[str, str]] = []
    for field in form.iter():
        name = field.attrs.get("name")
        if not name or "disabled" in field.attrs:
            continue
        if field.tag == "input":
            kind = field.attrs.get("type", "text").lower()
            if kind in {"checkbox", "radio"} and "checked" not in field.attrs:
                continue
            if kind in {"submit", "button", "reset", "image", "file"}:
                continue
            value = field.attrs.get("value", "")
        elif field.tag == "textarea":
            value = field.text
        elif field.tag == "select":
            options = list(field.iter("option"))
            chosen = next((o for o in options if "selected" in o.attrs), None)
            chosen = chosen or (options[0] if options else None)
            value = "" if chosen is None else chosen.attrs.get("value", chosen.text.strip())
        else:
            continue
        if not value and "required" in field.attrs:
            return None
        fields.append((name, value))
    action = urljoin(page, form.attrs.get("action", "") or page)
    return f"{action.split('?')[0]}?{urlencode(fields)}" if fields else action


def _links(page: str, body: str) -> Iterator[str]:
    """Every URL the HTML page ``page`` links to or loads."""
    root = parse(body)
    for element in root.iter():
        for attribute in ("href", "src"):
            if attribute in element.attrs and element.tag != "form":
                yield urljoin(page, element.attrs[attribute])
    for form in root.iter("form"):
        sent = _form_url(page, form)
        if sent is not None and urlsplit(sent).path not in QUERY_FORMS:
            yield sent


def crawl(live: Live) -> tuple[set[str], list[str]]:
    """Fetch every page reachable from the home pages once; return the URLs fetched and each
    broken link as "URL -> status (linked from PAGE)"."""
    host = urlsplit(live.url).netloc
    start = [live.url, live.url + "site"]
    linked_from = {url: "(start)" for url in start}
    queue = deque(start)
    broken = []
    while queue:
        url = queue.popleft()
        reply = fetch(url, Accept="text/html,*/*;q=0.8")
        if not 200 <= reply.status < 300:
            broken.append(f"{url} -> {reply.status} (linked from {linked_from[url]})")
            continue
        if reply.type != "text/html":
            continue
        for link in _links(url, reply.text):
            link = urldefrag(link).url
            if urlsplit(link).netloc != host or link in linked_from:
                continue
            linked_from[link] = url
            queue.append(link)
    return set(linked_from), broken


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
