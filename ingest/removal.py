"""Withdrawing pages from the store: the reverse of an ingest.

A page is named as at ingest, by its content (a file: its identity names its graph), or by an
IRI: its source document's, the URL its source was published at, or its page graph's own. The
pages of one source URL are all its pages (its other metrics, its other page numbers), so such a
name removes every one of them. Each page goes with its validation report, in one transaction,
page by page; the merged view loses what the page stated, but what other pages state stays.
A withdrawal is recorded, not erased: in the same transaction the page's version is kept in its
history graph, with its report, and marked withdrawn in the versions catalogue.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import unquote

import pyoxigraph as ox

from benchgraph import graphs, iris, queries, versions
from benchgraph.outcomes import Removal
from benchgraph.store import Store
from benchgraph.validation import now
from ingest.locating import LocatingError, Locator, Repository
from ingest.reading import read_pages
from ingest.records import PageError

NameKind = Literal["file", "source", "graph", "page"]

_IRI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$")
_HOW = "a page is named by its file, its source's IRI or URL, or its page graph's IRI"


class UnnamedPage(Exception):
    """A name that gives no page: a file that cannot be read or parsed, or text that is
    neither a file nor an IRI. The message names it and what is wrong."""


@dataclass(frozen=True)
class PageName:
    """A page (or a source's pages) to remove: ``given`` as the user gave it, and the IRI whose
    pages it names, ``source`` (a source document's IRI, or the URL a source was published
    at). A file or a page graph's IRI also gives the page's identity, ``key``."""

    given: str
    kind: NameKind
    source: str
    key: str = ""
    sha256: str = ""  # a file's: the version it holds


def page_names(given: str) -> list[PageName]:
    """What ``given`` names: a file (read and parsed, as ingest reads it, for the identity of
    each of its sources, a card with the repository ingest finds for it), else an IRI (a page
    graph's, or a source's). Raises UnnamedPage."""
    path = Path(given)
    if path.is_file():
        try:
            data = path.read_bytes()
            repository = Locator().locate(path)
        except OSError as error:
            raise UnnamedPage(f"{given}: cannot read: {error.strerror}") from None
        except LocatingError as error:
            raise UnnamedPage(f"{given}: {error}") from None
        return page_names_of(data, given, repository)
    return [page_name(given)]


def page_name(given: str) -> PageName:
    """What the IRI ``given`` names (a page graph's, or a source's). Raises UnnamedPage."""
    path = Path(given)
    if path.exists():
        raise UnnamedPage(f"{given}: a folder, not a page ({_HOW})")
    if not _IRI.match(given):
        raise UnnamedPage(f"{given}: no such file, and not an IRI ({_HOW})")
    try:
        ox.NamedNode(given)
    except ValueError as error:
        raise UnnamedPage(f"{given}: not a valid IRI: {error} ({_HOW})") from None
    if graphs.is_page(given):
        key = unquote(given[len(graphs.PAGES) :])
        return PageName(given, "graph", iris.source(key), key)
    return PageName(given, "source", given)


def page_named(key: str) -> PageName:
    """The page whose identity is ``key`` (``radar/composet``, as a removal names it)."""
    return PageName(key, "page", iris.source(key), key)


def page_names_of(data: bytes, origin: str, repository: Repository | None = None) -> list[PageName]:
    """The sources whose content is ``data`` (read from ``origin``; a card of the Hugging
    Face ``repository``, when known), by the identities ingest gives them. Raises UnnamedPage
    when it does not parse, which leaves its identities unknown."""
    try:
        pages = read_pages(data, origin, repository)
    except PageError as error:
        raise UnnamedPage(f"{error}; it gives no page identity, so nothing is removed") from None
    return [
        PageName(origin, "file", iris.source(page.key), page.key, page.sha256) for page in pages
    ]


def remove_pages(
    store: Store, names: Iterable[PageName], any_version: bool = False
) -> Iterator[Removal]:
    """Remove the pages ``names`` name from ``store``, each page with its validation report in
    one transaction, and yield a Removal for each page once it is gone (or for each name that
    names none). A file names the version it holds: when that is not the page's current
    version, nothing is removed (a Removal ``not current`` says which is), unless
    ``any_version``. Every name is looked up before anything is removed. Raises StoreError:
    the pages yielded before it are removed, the others are not."""
    found = [(name, pages_of(store, name)) for name in names]
    removed: dict[str, str] = {}  # page graph: the name that removed it
    for name, pages in found:
        if not pages:
            yield Removal(name.given, "not found", _not_found(name))
        for graph, key, results in pages:
            other = "" if any_version else _other_version(store, name)
            if other:
                yield Removal(name.given, "not current", other, key, graph, results)
                continue
            text = f"{name.given}: page {key} ({results} results"
            if len(pages) > 1:
                text += f"; one of the {len(pages)} pages of that source"
            if graph in removed:
                text += f"; named above by {removed[graph]}"
                yield Removal(name.given, "removed", text + ")", key, graph, results, True)
                continue
            store.remove_page(graph, versions.withdrawal(versions.read(store, key), now()))
            removed[graph] = name.given
            yield Removal(name.given, "removed", text + ")", key, graph, results)


def _other_version(store: Store, name: PageName) -> str:
    """Why the file ``name`` does not name its page's current version ("" when it does, or
    when ``name`` is no file)."""
    if not name.sha256:
        return ""
    known = versions.read(store, name.key)
    current = known.current
    if current is None or current.sha256 == name.sha256:
        return ""
    held = known.find(name.sha256)
    what = f"version {name.sha256[:16]}, {held.status}" if held else "bytes the store never held"
    return (
        f"{name.given}: holds {what}, not the current version {current.sha256[:16]} of page "
        f"{name.key}: nothing removed (`benchgraph remove --any-version {name.given}` withdraws "
        f"the current one; `benchgraph ingest` of the file makes its version current again)"
    )


def pages_of(store: Store, name: PageName) -> list[tuple[str, str, int]]:
    """The page graphs ``name`` names, each with its identity and number of results."""
    answer = store.query(
        queries.internal("pages-of-source"),
        {"source": ox.NamedNode(name.source), "pages": ox.Literal(graphs.PAGES)},
        default_graph=(),
    )
    assert isinstance(answer, ox.QuerySolutions)
    pages = []
    for row in answer:
        graph, key, results = row["graph"], row["page"], row["results"]
        if isinstance(graph, ox.NamedNode) and isinstance(key, ox.Literal):
            count = int(results.value) if isinstance(results, ox.Literal) else 0
            pages.append((graph.value, key.value, count))
    if name.key:  # a file or a page graph names that one page, whatever else shares its source
        pages = [page for page in pages if page[0] == graphs.page(name.key)]
    return pages


def _not_found(name: PageName) -> str:
    if name.kind == "source":
        return f"{name.given}: no page has that source"
    if name.kind == "page":
        return f"{name.given}: no page of that identity in the store"
    return f"{name.given}: no page of that identity ({name.key})"
