"""The versions of a page: what the versions catalogue records, and what a new version or a
withdrawal writes, in the same transaction as the page itself.

Every version of a page is a ``bg:SourceVersion`` (a ``prov:Entity``) in the catalogue graph
:data:`benchgraph.graphs.VERSIONS`, named by the page key and its bytes' SHA-256. The current
version lives in its page graph only; the others are kept in history graphs
(:func:`benchgraph.graphs.history`), each with its report. Versions are ordered by their
data-updated time (ingest time breaks ties; a page without one is placed at its ingest time),
and each is ``prov:wasRevisionOf`` the one before it in that order, so a version that arrives
late is linked in where it belongs.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from urllib.parse import unquote

import pyoxigraph as ox

from benchgraph import graphs, iris, queries
from benchgraph import vocab as V
from benchgraph.sparqltext import Term
from benchgraph.store import Change, Store

_DATETIME = ox.NamedNode(V.XSD + "dateTime")
_DATE = ox.NamedNode(V.XSD + "date")
_INTEGER = ox.NamedNode(V.XSD + "integer")


@dataclass(frozen=True)
class Activity:
    """An ingest: a ``prov:Activity`` with its start (and, once known, its end) time."""

    iri: str
    started: str
    ended: str = ""

    @classmethod
    def begin(cls, now: str, ended: bool = False) -> Activity:
        """An ingest starting at ``now`` (an xsd:dateTime), named by that time; ``ended``: one
        that ends with the one write it makes (a page sent to the write API)."""
        stamp = now.replace(":", "").replace("+0000", "Z")
        return cls(f"{V.ID}ingest/{stamp}-{secrets.token_hex(3)}", now, now if ended else "")

    def triples(self) -> list[ox.Triple]:
        """What the catalogue records of the activity."""
        node = ox.NamedNode(self.iri)
        found = [
            ox.Triple(node, ox.NamedNode(V.type_), ox.NamedNode(V.Activity)),
            ox.Triple(
                node, ox.NamedNode(V.startedAtTime), ox.Literal(self.started, datatype=_DATETIME)
            ),
        ]
        if self.ended:
            found.append(
                ox.Triple(
                    node, ox.NamedNode(V.endedAtTime), ox.Literal(self.ended, datatype=_DATETIME)
                )
            )
        return found

    def end(self, when: str) -> Change:
        """The write that records the activity ended at ``when``."""
        node, ended = ox.NamedNode(self.iri), ox.Literal(when, datatype=_DATETIME)
        return Change(
            {}, added={graphs.VERSIONS: [ox.Triple(node, ox.NamedNode(V.endedAtTime), ended)]}
        )


@dataclass(frozen=True)
class Version:
    """One version of a page, as the catalogue records it (or, for a store written before the
    catalogue, as its page graph gives it: ``recorded`` False)."""

    key: str
    sha256: str
    modified: str  # the page's "Data updated" time, as published ("" if it gives none)
    ingested: str
    results: int
    graph: str  # its page graph while current, else its history graph
    withdrawn: str = ""
    restored: str = ""  # when it was made current again, kept as history until then
    previous: str = ""  # the IRI of the version it revises
    activity: str = ""  # the IRI of the ingest that wrote it
    recorded: bool = True

    @property
    def iri(self) -> str:
        return iris.version(self.key, self.sha256)

    @property
    def current(self) -> bool:
        return graphs.is_page(self.graph)

    @property
    def status(self) -> str:
        """current, history (a newer or current version replaced it) or withdrawn."""
        if self.current:
            return "current"
        return "withdrawn" if self.withdrawn else "history"

    @property
    def order(self) -> tuple[datetime, datetime]:
        """Where it stands among the page's versions: by data-updated time, then ingest time."""
        ingested = instant(self.ingested) or datetime.min.replace(tzinfo=UTC)
        return (instant(self.modified) or ingested, ingested)

    def triples(self) -> list[ox.Triple]:
        """What the catalogue records of the version (its link to the one before apart)."""
        node = ox.NamedNode(self.iri)

        def t(p: str, o: ox.NamedNode | ox.Literal) -> ox.Triple:
            return ox.Triple(node, ox.NamedNode(p), o)

        found = [
            t(V.type_, ox.NamedNode(V.Entity)),
            t(V.type_, ox.NamedNode(V.SourceVersion)),
            t(V.versionOf, ox.NamedNode(iris.source(self.key))),
            t(V.sha256, ox.Literal(self.sha256)),
            t(V.generatedAtTime, ox.Literal(self.ingested, datatype=_DATETIME)),
            t(V.resultCount, ox.Literal(str(self.results), datatype=_INTEGER)),
            t(V.versionGraph, ox.NamedNode(self.graph)),
        ]
        if self.modified:
            kind = _DATETIME if "T" in self.modified else _DATE
            found.append(t(V.modified, ox.Literal(self.modified, datatype=kind)))
        if self.withdrawn:
            found.append(t(V.withdrawnAt, ox.Literal(self.withdrawn, datatype=_DATETIME)))
        if self.restored:
            found.append(t(V.restoredAt, ox.Literal(self.restored, datatype=_DATETIME)))
        if self.activity:
            found.append(t(V.wasGeneratedBy, ox.NamedNode(self.activity)))
        return found

    def link(self) -> list[ox.Triple]:
        """Its ``prov:wasRevisionOf`` link, if it revises a version."""
        if not self.previous:
            return []
        node, previous = ox.NamedNode(self.iri), ox.NamedNode(self.previous)
        return [ox.Triple(node, ox.NamedNode(V.wasRevisionOf), previous)]


def instant(text: str) -> datetime | None:
    """An xsd:date or xsd:dateTime lexical form as an aware datetime (a date: its start, a
    time with no zone: UTC); None for text that is neither (or none)."""
    try:
        found = datetime.fromisoformat(text)
    except ValueError:
        return None
    return found if found.tzinfo else found.replace(tzinfo=UTC)


@dataclass(frozen=True)
class Versions:
    """Every version of the page ``key`` the store knows, oldest first."""

    key: str
    all: tuple[Version, ...]

    @property
    def current(self) -> Version | None:
        return next((v for v in self.all if v.current), None)

    def find(self, sha256: str) -> Version | None:
        return next((v for v in self.all if v.sha256 == sha256), None)

    def at(self, when: datetime, clock: str = "data") -> Version | None:
        """The version that was current at ``when``: of those whose data-updated time (a
        version without one: its ingest time) is at or before it, the latest, unless a version
        was restored by then, after that one was ingested (then the last restored); None when
        there is none, or when the one chosen had been withdrawn by then (and is not current
        again; one restored: withdrawn after it was restored). With the ``store`` clock,
        ``when`` is the store's own time: of the versions ingested by then, the latest by
        data-updated time (the one the store held current, as a version that arrives late is
        kept as history), restored and withdrawn as above."""
        by = 0 if clock == "data" else 1
        earlier = [v for v in self.all if v.order[by] <= when]
        if not earlier:
            return None
        chosen = earlier[-1]
        restored = [
            (moment, v)
            for v in earlier
            if (moment := instant(v.restored)) is not None and chosen.order[1] <= moment <= when
        ]
        if restored:
            moment, chosen = max(restored, key=lambda pair: pair[0])
            withdrawn = instant(chosen.withdrawn)
            gone = withdrawn is not None and moment <= withdrawn <= when
            return None if gone and not chosen.current else chosen
        withdrawn = instant(chosen.withdrawn)
        if not chosen.current and withdrawn is not None and withdrawn <= when:
            return None
        return chosen


def fingerprint(versions: Versions) -> str:
    """What the catalogue records of the versions of one page, as a short digest: two reads
    give the same fingerprint exactly when no write changed that page's versions between
    them (see ``Change.expects``)."""
    rows = sorted(
        "\t".join((v.sha256, v.graph, v.modified, v.ingested, v.withdrawn, v.restored, v.previous))
        + f"\t{v.results}\t{v.recorded}"
        for v in versions.all
    )
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()[:32]


def read(store: Store, key: str) -> Versions:
    """The versions of the page ``key`` in ``store``, oldest first. Raises StoreError."""
    answer = store.query(
        queries.internal("versions"),
        {
            "source": ox.NamedNode(iris.source(key)),
            "versions": ox.NamedNode(graphs.VERSIONS),
            "page": ox.NamedNode(graphs.page(key)),
        },
        default_graph=(),
    )
    assert isinstance(answer, ox.QuerySolutions)
    return _gathered(key, answer)


def read_all(store: Store, scope: ox.NamedNode | None = None) -> list[Versions]:
    """The versions of every page in ``store``, or (``scope`` given) of every page one of
    whose versions mentions ``scope``, by page key. Raises StoreError."""
    if scope is not None:  # the pages first, then each one's versions: a lookup each
        return [read(store, key) for key in mentioning(store, scope)]
    bindings: dict[str, Term] = {
        "versions": ox.NamedNode(graphs.VERSIONS),
        "pages": ox.Literal(graphs.PAGES),
    }
    answer = store.query(queries.internal("past-versions"), bindings, default_graph=())
    assert isinstance(answer, ox.QuerySolutions)
    return gathered_by_page(answer)


def mentioning(store: Store, scope: ox.NamedNode) -> list[str]:
    """The keys of the pages one of whose versions mentions ``scope``, sorted. Raises
    StoreError."""
    found = store.query(
        queries.internal("pages-mentioning"),
        {
            "versions": ox.NamedNode(graphs.VERSIONS),
            "pages": ox.Literal(graphs.PAGES),
            "scope": scope,
        },
        default_graph=(),
    )
    assert isinstance(found, ox.QuerySolutions)
    return sorted(k for k in (key_of(_text(row["source"])) for row in found) if k)


def gathered_by_page(rows: Iterable[ox.QuerySolution]) -> list[Versions]:
    """The versions the rows of a versions query (``past-versions``' columns) give, page by
    page, by page key."""
    found: dict[str, list[ox.QuerySolution]] = {}
    for row in rows:
        key = key_of(_text(row["source"]))
        if key:
            found.setdefault(key, []).append(row)
    return [_gathered(key, page) for key, page in sorted(found.items())]


def key_of(source: str) -> str:
    """The page key of the source document IRI ``source`` ("" for another IRI)."""
    return unquote(source[len(_SOURCES) :]) if source.startswith(_SOURCES) else ""


_SOURCES = iris.source("")


def _gathered(key: str, rows: Iterable[ox.QuerySolution]) -> Versions:
    """The versions of the page ``key`` the rows of a versions query give, oldest first."""
    recorded: dict[str, Version] = {}
    unrecorded: Version | None = None
    for row in rows:
        version = Version(
            key,
            _text(row["sha"]),
            _text(row["modified"]),
            _text(row["ingested"]),
            int(_text(row["results"]) or 0),
            _text(row["graph"]) or graphs.page(key),
            _text(row["withdrawn"]),
            _text(row["restored"]),
            _text(row["previous"]),
            recorded=row["current"] is None,
        )
        if version.recorded:
            recorded[version.sha256] = version
        else:
            unrecorded = version
    if unrecorded is not None and unrecorded.sha256 not in recorded:
        recorded[unrecorded.sha256] = unrecorded  # a store from before the catalogue
    return Versions(key, tuple(sorted(recorded.values(), key=lambda v: v.order)))


def _text(term: object) -> str:
    return str(getattr(term, "value", "")) if term is not None else ""


@dataclass
class _Catalogue:
    """The catalogue statements a write adds and deletes."""

    read: Versions
    added: list[ox.Triple] = field(default_factory=list)
    deleted: list[ox.Triple] = field(default_factory=list)

    def change(
        self, replaced: dict[str, Sequence[ox.Triple]], kept: dict[str, str] | None = None
    ) -> Change:
        """The write: ``replaced`` and ``kept`` (see Change), these statements, and the
        fingerprint of the versions it was planned from."""
        return Change(
            replaced,
            kept or {},
            added={graphs.VERSIONS: self.added},
            deleted={graphs.VERSIONS: self.deleted} if self.deleted else {},
            expects={self.read.key: fingerprint(self.read)},
        )

    def revise(self, before: Version, after: Version) -> None:
        """Record ``after`` in place of ``before`` (the same version, as it is now)."""
        old = set(before.triples() + before.link()) if before.recorded else set()
        new = set(after.triples() + after.link())
        self.deleted += [t for t in old if t not in new]
        self.added += [t for t in new if t not in old]


def _relinked(versions: Iterable[Version]) -> list[Version]:
    """``versions`` in order, each revising the one before it."""
    ordered = sorted(versions, key=lambda v: v.order)
    return [replace(v, previous=ordered[i - 1].iri if i else "") for i, v in enumerate(ordered)]


@dataclass(frozen=True)
class Plan:
    """What writing a page's new bytes does: ``kind`` is ``unchanged`` (the bytes of the
    current version: nothing to write), ``loaded`` (it becomes current), ``restored`` (the
    bytes of a version kept as history while another is current: it is current again) or
    ``kept`` (older than the current version: kept as history only)."""

    kind: str
    change: Change | None = None


def plan(
    versions: Versions,
    sha256: str,
    modified: str,
    results: int,
    when: str,
    activity: Activity,
    page: Sequence[ox.Triple],
    report: Callable[[str], Sequence[ox.Triple]],
) -> Plan:
    """The write that records the new bytes (SHA-256 ``sha256``, data updated ``modified``,
    ``results`` results, ingested ``when`` by ``activity``) of the page of ``versions``, whose
    graph would hold ``page``; ``report`` gives its report as the report graph named."""
    key, current = versions.key, versions.current
    known = versions.find(sha256)
    if known is not None and known.current:
        return Plan("unchanged")
    graph = graphs.page(key)
    new = Version(key, sha256, modified, when, results, graph, activity=activity.iri)
    catalogue = _Catalogue(versions, added=activity.triples())
    if known is None and current is not None and _older(modified, current.modified):
        kept = graphs.history(key, sha256)
        new = replace(new, graph=kept)
        _record(catalogue, versions.all, new)
        kept_report = graphs.report(kept)
        return Plan("kept", catalogue.change({kept: page, kept_report: report(kept_report)}))
    replaced: dict[str, Sequence[ox.Triple]] = {
        graph: page,
        graphs.report(graph): report(graphs.report(graph)),
    }
    kept_graphs: dict[str, str] = {}
    if known is not None and current is not None:  # made current again, as it was first read
        new = replace(known, graph=graph, restored=when, recorded=True)
        replaced.update({known.graph: [], graphs.report(known.graph): []})
    elif known is not None:  # a withdrawn version again: its page graph holds it once more
        new = replace(new, withdrawn=known.withdrawn)
        replaced.update({known.graph: [], graphs.report(known.graph): []})
    if current is not None:
        history = graphs.history(key, current.sha256)
        kept_graphs = {graph: history, graphs.report(graph): graphs.report(history)}
    _record(catalogue, versions.all, new, superseded=current)
    kind = "restored" if known is not None and current is not None else "loaded"
    return Plan(kind, catalogue.change(replaced, kept_graphs))


def rewritten(before: Versions, after: Sequence[Version]) -> Change:
    """The catalogue-only write that records the versions ``after`` of a page in place of
    those ``before`` records (each relinked to the one before it in order)."""
    catalogue = _Catalogue(before)
    old = {t for v in before.all if v.recorded for t in v.triples() + v.link()}
    new = {t for v in _relinked(after) for t in v.triples() + v.link()}
    catalogue.deleted += [t for t in old if t not in new]
    catalogue.added += [t for t in new if t not in old]
    return catalogue.change({})


def _older(modified: str, than: str) -> bool:
    """Whether the data-updated time ``modified`` is before ``than`` (both known)."""
    mine, theirs = instant(modified), instant(than)
    return mine is not None and theirs is not None and mine < theirs


def _record(
    catalogue: _Catalogue,
    known: Sequence[Version],
    new: Version,
    superseded: Version | None = None,
) -> None:
    """Add ``new`` to the catalogue among the versions ``known`` (the one of the same bytes
    replaced by it), moving ``superseded`` to its history graph, and relink them all."""
    before = {v.sha256: v for v in known}
    now = {v.sha256: v for v in known}
    if superseded is not None:
        now[superseded.sha256] = replace(
            superseded, graph=graphs.history(superseded.key, superseded.sha256)
        )
    now[new.sha256] = new
    for version in _relinked(now.values()):
        old = before.get(version.sha256)
        if old is None:
            catalogue.added += version.triples() + version.link()
        else:
            catalogue.revise(old, version)


def withdrawal(versions: Versions, when: str) -> Change | None:
    """The catalogue statements and graphs kept when the current version of the page of
    ``versions`` is withdrawn at ``when``: it moves to its history graph, with its report, and
    is marked withdrawn. None when the page has no current version."""
    current = versions.current
    if current is None:
        return None
    history = graphs.history(current.key, current.sha256)
    catalogue = _Catalogue(versions)
    now = {v.sha256: v for v in versions.all}
    now[current.sha256] = replace(current, graph=history, withdrawn=when)
    before = {v.sha256: v for v in versions.all}
    for version in _relinked(now.values()):
        catalogue.revise(before[version.sha256], version)
    kept = {current.graph: history, graphs.report(current.graph): graphs.report(history)}
    return catalogue.change({}, kept)
