"""The store's graphs: which graph holds what. The one place that knows their names.

- A **page graph** per source page, ``{ID}graph/<page key>``: what the page states. It is the
  provenance of every statement: ``GRAPH ?g`` finds each page that states a fact.
- A **report graph** per page, ``{ID}report/<page key>``: the page's stored validation report,
  statements *about* the page rather than by it.
- The **merged view**: each distinct triple of the page graphs exactly once. It is what queries
  see as their default graph. In an embedded store it *is* the default graph; on a remote store
  it is the named graph :data:`VIEW`, which benchgraph names as the dataset of its queries.
  Reports do not enter it: they are not facts any page states, and a query over the facts
  should not meet them.
- A **history graph** per earlier version of a page, ``{ID}history/<page key>/<sha16>`` (the
  first 16 hex digits of its bytes' SHA-256): exactly what its page graph held while it was
  current, kept when a newer version replaced it or the page was withdrawn (or a version older
  than the current one arrived late). Its report is kept beside it, under ``{ID}report/history/``.
  History graphs are not page graphs: they never enter the merged view.
- The **versions catalogue**, :data:`VERSIONS`: one ``bg:SourceVersion`` per version of every
  page, current or not, with the ingest activity that generated it.
- The **alias graph**, :data:`ALIASES`: the alias records curators review (``bg:Alias``: this
  IRI names the same thing as that one, said by whom, when, on what evidence; proposed, accepted
  or rejected; see :mod:`benchgraph.aliases`). It is data of its own, not a page: it never
  enters the merged view, a re-ingest never touches it, and it is listed, dumped, exported and
  copied with the page graphs. Queries read it with ``GRAPH`` and use accepted records only.
- **Staging graphs**, ``urn:benchgraph:staging:…``: a large page on its way to a remote store.
"""

from __future__ import annotations

from urllib.parse import quote, unquote

from benchgraph.vocab import ID

PAGES = ID + "graph/"
REPORTS = ID + "report/"
HISTORY = ID + "history/"
VERSIONS = ID + "versions"
VIEW = ID + "merged"
ALIASES = ID + "aliases"
STAGING = "urn:benchgraph:staging:"


def page(key: str) -> str:
    """Name of the named graph that holds the source page whose identity is ``key``."""
    return PAGES + quote(key, safe="/-")


def key_of(graph: str) -> str:
    """The identity of the page whose page graph is ``graph`` ("" for another graph)."""
    return unquote(graph[len(PAGES) :]) if graph.startswith(PAGES) else ""


def history(key: str, sha256: str) -> str:
    """Name of the graph that keeps the version of the page ``key`` whose bytes have the
    SHA-256 ``sha256`` (64 hex digits, or its first 16), once it is no longer current."""
    return HISTORY + quote(key, safe="/-") + "/" + sha256[:16]


def report(page_graph: str) -> str:
    """Name of the graph that holds the validation report of the graph ``page_graph`` (a page
    graph, or a history graph, whose report is kept under ``report/history/``)."""
    if page_graph.startswith(PAGES):
        return REPORTS + page_graph[len(PAGES) :]
    if page_graph.startswith(HISTORY):
        return REPORTS + "history/" + page_graph[len(HISTORY) :]
    return REPORTS + "other/" + quote(page_graph, safe="")


def source_key(graph: str) -> str | None:
    """The identity of the page whose graph ``graph`` is: its page graph, its report, a kept
    version or that version's report; None for any other IRI."""
    for prefix, kept in ((REPORTS + "history/", True), (PAGES, False), (REPORTS, False)):
        if graph.startswith(prefix):
            rest = graph[len(prefix) :]
            return unquote(rest.rpartition("/")[0] if kept else rest) or None
    if graph.startswith(HISTORY):
        return unquote(graph[len(HISTORY) :].rpartition("/")[0]) or None
    return None


def is_page(graph: str) -> bool:
    """Whether ``graph`` is a page graph, whose statements enter the merged view."""
    return graph.startswith(PAGES)


def is_aliases(graph: str) -> bool:
    """Whether ``graph`` is the alias graph: reviewed data of its own, neither a page (it never
    enters the merged view) nor history."""
    return graph == ALIASES


def is_history(graph: str) -> bool:
    """Whether ``graph`` holds history: a kept version, its report, or the versions
    catalogue. None of them is a page or a page's current report."""
    return graph.startswith((HISTORY, REPORTS + "history/")) or graph == VERSIONS


def is_hidden(graph: str) -> bool:
    """Whether ``graph`` is the store's own machinery (the remote view, staging), which is
    never listed among the store's named graphs."""
    return graph == VIEW or graph.startswith(STAGING)
