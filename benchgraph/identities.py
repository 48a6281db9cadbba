"""Sources stored under earlier identity rules, and what opening such a store to write does.

Before layout 3 (see :class:`benchgraph.store.EmbeddedStore`), some sources were named by what
they say rather than by which source they are: a model card by its first model's name (every
"PPO" card one source), a Papers with Code tables file, a score file or a crawl as one source
for all its leaderboards, and a sota2 page by the last part of its Source URL (so the same page
saved from its ``.md`` link was a second source). A store written so is upgraded once, when
first opened to write:

- sota2 pages that the present rule (the benchmark and metric the page states) takes for one
  page: the newest (by its data-updated time) stays current; each older one is withdrawn, kept
  as history, as a newer version replaces an older one. One result then holds one value.
- every other source keeps its identity, and stays current: its graph cannot be split or
  renamed without its file. Ingesting that file again replaces it with the file's sources
  under the present rules (:func:`ingest.loader.prepare` recognises it by its bytes), and
  ``benchgraph remove`` withdraws it.

``notify`` is told what was done.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable

import pyoxigraph as ox

from benchgraph import graphs, queries, validation, versions
from benchgraph.names import normalise
from benchgraph.store import Store

# The formats whose identity rule changed with layout 3, as the notice names their sources.
_CHANGED = {
    "model-index": "model cards named by their model",
    "pwc-tables": "Papers with Code tables files as one source each",
    "score-file": "score files as one source each",
    "leaderboard-csv": "crawled leaderboards as one source each",
}


def upgrade(store: Store, notify: Callable[[str], None] | None) -> list[str]:
    """Upgrade the sources of ``store`` stored under earlier identity rules (see the module),
    telling ``notify``; return the identities of the sota2 pages withdrawn. Raises
    StoreError."""
    stated = _stated(store)
    withdrawn = _merge_sota2(store, stated)
    kept = Counter(
        fmt for key, (_, fmt) in stated.items() if fmt in _CHANGED and key not in withdrawn
    )
    if notify is None or not (kept or withdrawn):
        return withdrawn
    parts = [f"{count} {_CHANGED[fmt]}" for fmt, count in sorted(kept.items())]
    text = "benchgraph: this store was written when sources were named by what they say"
    if parts:
        text += (
            f"; {', '.join(parts)} keep their identity until their file is ingested again, "
            "which replaces each with the file's sources as they are named now "
            "(`benchgraph remove` withdraws one)"
        )
    if withdrawn:
        text += (
            f"; {len(withdrawn)} sota2 pages stored twice (saved from two of their links) were "
            f"older copies, withdrawn and kept as history: {', '.join(withdrawn)}"
        )
    notify(text)
    return withdrawn


def _stated(store: Store) -> dict[str, tuple[str, str]]:
    """Each source a page graph holds: its identity, with its title and format."""
    answer = store.query(
        queries.internal("sources-stated"), {"pages": ox.Literal(graphs.PAGES)}, default_graph=()
    )
    assert isinstance(answer, ox.QuerySolutions)
    found = {}
    for row in answer:
        key, title, fmt = (str(getattr(row[n], "value", "")) for n in ("key", "title", "format"))
        found[key] = (title, fmt)
    return found


def sota2_key(key: str, title: str) -> str:
    """The identity the present rule gives the sota2 page stored as ``key`` whose title is
    ``title`` (``<task> on <dataset (split)>``): the benchmark it states, then the metric (and
    page number) ``key`` ends with."""
    parts = key.split("/", 2)
    tail = parts[2] if len(parts) == 3 else ""
    return f"sota2/{normalise(title)}/{tail}"


def _merge_sota2(store: Store, stated: dict[str, tuple[str, str]]) -> list[str]:
    """Withdraw each sota2 page that the present rule takes for another stored page and that
    is older than it; return their identities."""
    groups: dict[str, list[str]] = defaultdict(list)
    for key, (title, fmt) in stated.items():
        if fmt == "sota2" and title:
            groups[sota2_key(key, title)].append(key)
    withdrawn = []
    for keys in groups.values():
        if len(keys) < 2:
            continue
        found = [versions.read(store, key) for key in keys]
        ordered = sorted(
            (v for v in found if v.current is not None),
            key=lambda v: v.current.order if v.current else (),
        )
        for older in ordered[:-1]:
            change = versions.withdrawal(older, validation.now())
            store.remove_page(graphs.page(older.key), change)
            withdrawn.append(older.key)
    return sorted(withdrawn)
