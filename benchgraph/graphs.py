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
- **Staging graphs**, ``urn:benchgraph:staging:…``: a large page on its way to a remote store.
"""

from __future__ import annotations

from urllib.parse import quote

from benchgraph.vocab import ID

PAGES = ID + "graph/"
REPORTS = ID + "report/"
VIEW = ID + "merged"
STAGING = "urn:benchgraph:staging:"


def page(key: str) -> str:
    """Name of the named graph that holds the source page whose identity is ``key``."""
    return PAGES + quote(key, safe="/-")


def report(page_graph: str) -> str:
    """Name of the graph that holds the validation report of the graph ``page_graph``."""
    if page_graph.startswith(PAGES):
        return REPORTS + page_graph[len(PAGES) :]
    return REPORTS + "other/" + quote(page_graph, safe="")


def is_page(graph: str) -> bool:
    """Whether ``graph`` is a page graph, whose statements enter the merged view."""
    return graph.startswith(PAGES)


def is_hidden(graph: str) -> bool:
    """Whether ``graph`` is the store's own machinery (the remote view, staging), which is
    never listed among the store's named graphs."""
    return graph == VIEW or graph.startswith(STAGING)
