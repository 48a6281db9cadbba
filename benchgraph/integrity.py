"""The versions catalogue checked against the graphs it describes, and repaired to match them.

Every write records a page's version in the catalogue (:mod:`benchgraph.versions`) in the same
transaction as the page graph or history graph that holds it, so the three always agree. A store
written by a process that crashed between steps of an earlier benchgraph, or by writers that
raced one another, may not: this finds where, and :func:`repair` makes the catalogue say again
what the graphs hold. The graphs are what readers see, so they are taken as they are; only the
catalogue is rewritten.

What is checked, for every page:

- each version the catalogue records is held by the graph it names (that graph states the
  version's SHA-256 and holds its number of results); a version no graph holds any more is
  *lost*, and its entry is removed (its file, ingested again, brings it back);
- the version the page graph holds is recorded as current, and no other version is;
- a current version is not marked withdrawn after it was last ingested;
- every history graph is a version the catalogue records.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pyoxigraph as ox

from benchgraph import graphs, queries, versions
from benchgraph.store import Store
from benchgraph.versions import Version, Versions


@dataclass(frozen=True)
class Holding:
    """What a page graph or history graph holds: its source's page key, the SHA-256, times
    and number of results of the version in it."""

    graph: str
    key: str
    sha256: str
    ingested: str
    modified: str
    results: int


@dataclass(frozen=True)
class Inconsistency:
    """One place where the catalogue and the graphs disagree, and what a repair does there."""

    key: str
    what: str
    repair: str

    def text(self) -> str:
        return f"{self.key}: {self.what}; repair: {self.repair}"


@dataclass(frozen=True)
class CatalogueCheck:
    """The inconsistencies found, and for each page that has any, its versions as the graphs
    say they are (what a repair records)."""

    found: tuple[Inconsistency, ...]
    corrected: tuple[tuple[Versions, tuple[Version, ...]], ...]

    @property
    def exact(self) -> bool:
        return not self.found

    def text(self) -> str:
        if self.exact:
            return "the versions catalogue records each version the page and history graphs hold"
        lines = [
            f"the versions catalogue disagrees with the graphs in {len(self.found)} places "
            "(`benchgraph repair` makes it say what the graphs hold):"
        ]
        return "\n".join(lines + [f"  {i.text()}" for i in self.found])


def holdings(store: Store) -> dict[str, Holding]:
    """What every page graph and history graph of ``store`` holds, by graph. Raises
    StoreError."""
    answer = store.query(
        queries.internal("graph-holdings"),
        {"pages": ox.Literal(graphs.PAGES), "history": ox.Literal(graphs.HISTORY)},
        default_graph=(),
    )
    assert isinstance(answer, ox.QuerySolutions)
    found: dict[str, Holding] = {}
    for row in answer:
        graph = _text(row["graph"])
        found[graph] = Holding(
            graph,
            versions.key_of(_text(row["source"])),
            _text(row["sha"]),
            _text(row["ingested"]),
            _text(row["modified"]),
            int(_text(row["results"]) or 0),
        )
    return found


def check(store: Store) -> CatalogueCheck:
    """Compare the versions catalogue of ``store`` with its page and history graphs. Raises
    StoreError."""
    held = holdings(store)
    known = {page.key: page for page in versions.read_all(store)}
    found: list[Inconsistency] = []
    corrected: dict[str, tuple[Version, ...]] = {}
    for page in known.values():
        problems, right = _page(page, held)
        if problems:
            found += problems
            corrected[page.key] = right
    named = {v.graph for key, page in known.items() for v in corrected.get(key, page.all)}
    for graph, holding in sorted(held.items()):
        if not graphs.is_history(graph) or graph in named or not holding.key:
            continue
        key = holding.key
        known.setdefault(key, Versions(key, ()))
        found.append(
            Inconsistency(
                key,
                f"the history graph {graph} holds version {holding.sha256[:16]}, which the "
                "catalogue does not record",
                "record it as a version kept as history",
            )
        )
        corrected[key] = (*corrected.get(key, known[key].all), _version(holding))
    pages = tuple((known[key], right) for key, right in sorted(corrected.items()))
    return CatalogueCheck(tuple(found), pages)


def _page(
    page: Versions, held: dict[str, Holding]
) -> tuple[list[Inconsistency], tuple[Version, ...]]:
    """The inconsistencies of one page's versions, and its versions as the graphs hold them."""
    found: list[Inconsistency] = []
    right: list[Version] = []
    in_page = held.get(graphs.page(page.key))
    for version in page.all:
        fixed = _version_checked(version, page.key, held, in_page, found)
        if fixed is not None:
            right.append(fixed)
    if in_page is not None and not any(v.sha256 == in_page.sha256 for v in right):
        found.append(
            Inconsistency(
                page.key,
                f"its page graph holds version {in_page.sha256[:16]}, which the catalogue does "
                "not record",
                "record it as the current version",
            )
        )
        right.append(_version(in_page))
    return found, tuple(right)


def _version_checked(
    version: Version,
    key: str,
    held: dict[str, Holding],
    in_page: Holding | None,
    found: list[Inconsistency],
) -> Version | None:
    """``version`` as the graphs hold it (None when none does), adding to ``found`` where it
    differs from what the catalogue records."""
    short = version.sha256[:16]
    if not version.recorded:  # a page graph no catalogue entry names: the read says so
        found.append(
            Inconsistency(key, f"its page graph holds version {short}, which the catalogue "
                          "does not record", "record it as the current version")
        )  # fmt: skip
        return replace(version, recorded=True)
    history = graphs.history(key, version.sha256)
    where = in_page if in_page is not None and in_page.sha256 == version.sha256 else None
    where = where or held.get(history)
    if where is None or where.sha256 != version.sha256:
        found.append(
            Inconsistency(
                key,
                f"version {short} ({version.status}) is held by no graph: {version.graph} "
                + ("holds another version" if version.graph in held else "is empty"),
                "remove its entry (ingest its file again to bring it back)",
            )
        )
        return None
    fixed = replace(version, graph=where.graph, results=where.results)
    if fixed.graph != version.graph:
        status = "current" if graphs.is_page(fixed.graph) else "kept as history"
        found.append(
            Inconsistency(
                key,
                f"version {short} is recorded in {version.graph}, but {fixed.graph} holds it",
                f"record it as {status}",
            )
        )
    elif fixed.results != version.results:
        found.append(
            Inconsistency(
                key,
                f"version {short} is recorded with {version.results} results; its graph holds "
                f"{fixed.results}",
                "record the number its graph holds",
            )
        )
    if fixed.current and fixed.withdrawn > fixed.ingested and not fixed.restored:
        found.append(
            Inconsistency(
                key,
                f"version {short} is current, yet recorded as withdrawn at {fixed.withdrawn}",
                "record it as current only (`benchgraph remove` withdraws it)",
            )
        )
        fixed = replace(fixed, withdrawn="")
    return fixed


def _version(holding: Holding) -> Version:
    """The catalogue entry of the version a graph holds, recorded from the graph itself."""
    return Version(
        holding.key,
        holding.sha256,
        holding.modified,
        holding.ingested,
        holding.results,
        holding.graph,
    )


def repair(store: Store, found: CatalogueCheck) -> None:
    """Rewrite the catalogue entries of each page ``found`` corrects, one write a page.
    Raises StoreError."""
    for page, right in found.corrected:
        store.write(versions.rewritten(page, right))


def _text(term: object) -> str:
    return str(getattr(term, "value", "")) if term is not None else ""
