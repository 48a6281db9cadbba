"""The changes record: what the ``changes`` query reads instead of every version of every page.

``changes`` compares, page by page, the version current at ``since`` with the one current at
``until`` (:mod:`benchgraph.asof`). Two things kept in the versions catalogue spare it from
reading the whole store:

- **The versions that moved.** Which version of a page is current at a moment changes only at
  a time the catalogue records of one of its versions: its ingest, data-updated, withdrawal or
  restore time. So the pages whose version may differ between two moments are those with such
  a time in between, which one read of the catalogue finds (:func:`moved`); the others are left
  unread. A store whose catalogue does not record a version of every source its graphs state
  (written before the catalogue, or loaded from an export without its history) is read whole.
- **Version deltas.** When a version is written, the differences between it and each version
  next to it (the ones before and after it in data-updated order, and the version current
  until then) are recorded in the same write: a ``bg:VersionDelta`` holding, as N-Triples, the
  statements each version's graph makes about the results whose statements differ between the
  two, with the labels of what they name (:func:`recorded`). A page whose two versions compared
  have a delta is read from it instead of from both graphs; the query, run on those statements
  and the versions' catalogue entries, gives the rows the whole graphs give (the results whose
  statements are the same in both give none). A delta depends only on the two versions' graphs,
  so it stays right whatever is written after it (a version arriving late between the two, a
  withdrawal, a restore); a pair without one is read from its graphs.

:func:`check` compares the deltas with the graphs (each two versions next to each other in a
page's order have one, each one as the graphs give it, none naming a version no graph holds),
and :func:`repair` writes what differs: ``benchgraph validate`` and ``benchgraph repair`` run
them.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

import pyoxigraph as ox

from benchgraph import graphs, iris, queries, versions
from benchgraph import vocab as V
from benchgraph.sparqltext import Term, with_values
from benchgraph.store import Change, Store
from benchgraph.versions import Version, Versions

_TYPE = ox.NamedNode(V.type_)
_RESULT = ox.NamedNode(V.Result)
_LABEL = ox.NamedNode(V.label)
_DELTA_TYPE = ox.NamedNode(V.VersionDelta)
# The recorded deltas :func:`check` reads at once: memory holds one group's statements, never
# every delta of the store.
GROUP = 200
# What queries/changes.rq reads of a result: a delta compares and keeps these statements only.
READ = frozenset(
    ox.NamedNode(p)
    for p in (
        V.type_,
        V.benchmark,
        V.value,
        V.publishedValue,
        V.unit,
        V.metric,
        V.wasDerivedFrom,
        V.reportedIn,
        V.configuration,
        V.method,
    )
)
# Times are compared as text in the catalogue read, widened by this margin (time zones).
_MARGIN = timedelta(days=2)

Pair = tuple[str, str, str]  # a page key and the SHA-256 of two of its versions


def delta_iri(key: str, first: str, second: str) -> str:
    """The IRI of the delta between the versions ``first`` and ``second`` (SHA-256 digests) of
    the page ``key``, either way round: under the version of the digest that sorts first."""
    low, high = sorted((first[:16], second[:16]))
    return f"{iris.version(key, low)}/delta/{high}"


def differing(
    first: Iterable[ox.Triple], second: Iterable[ox.Triple]
) -> tuple[list[ox.Triple], list[ox.Triple]]:
    """The statements of two versions' graphs (``first``, ``second``) that ``changes`` reads
    about the results whose statements differ between them: of each such result, its own
    statements in each graph, and the labels each graph gives what they name. Only the
    statements the query reads (:data:`READ`) are compared and kept."""
    mine, theirs = _by_subject(first), _by_subject(second)
    results = {
        s for found in (mine, theirs) for s, said in found.items() if (_TYPE, _RESULT) in said
    }
    changed = sorted((r for r in results if _read(mine, r) != _read(theirs, r)), key=str)
    return _about(changed, mine), _about(changed, theirs)


def _read(
    said: Mapping[ox.NamedNode, set[tuple[object, object]]], result: ox.NamedNode
) -> set[tuple[object, object]]:
    return {(p, o) for p, o in said.get(result, set()) if p != _LABEL}


def _by_subject(triples: Iterable[ox.Triple]) -> dict[ox.NamedNode, set[tuple[object, object]]]:
    found: dict[ox.NamedNode, set[tuple[object, object]]] = {}
    for t in triples:
        if isinstance(t.subject, ox.NamedNode) and (t.predicate in READ or t.predicate == _LABEL):
            found.setdefault(t.subject, set()).add((t.predicate, t.object))
    return found


def _about(
    results: Sequence[ox.NamedNode], said: Mapping[ox.NamedNode, set[tuple[object, object]]]
) -> list[ox.Triple]:
    """The statements of ``results`` in ``said``, and the labels of the IRIs they name."""
    found: list[ox.Triple] = []
    named: set[ox.NamedNode] = set()
    for result in results:
        for p, o in said.get(result, set()):
            if p == _LABEL:
                continue
            found.append(ox.Triple(result, p, o))  # type: ignore[arg-type]
            if isinstance(o, ox.NamedNode):
                named.add(o)
    for node in named:
        found += [ox.Triple(node, _LABEL, o) for p, o in said.get(node, set()) if p == _LABEL]  # type: ignore[arg-type]
    return sorted(found, key=str)


def _ntriples(triples: Iterable[ox.Triple]) -> str:
    return (ox.serialize(triples, format=ox.RdfFormat.N_TRIPLES) or b"").decode("utf-8")


def _as_held(triples: Iterable[ox.Triple]) -> list[ox.Triple]:
    """``triples`` as a store holds them (a decimal ``90.0`` read back ``90``): a page's triples
    as mapped, compared with a version's graph as read, would otherwise differ in every
    figure."""
    held = ox.Store()
    held.extend(ox.Quad(t.subject, t.predicate, t.object) for t in triples)
    return [quad.triple for quad in held]


def _parsed(text: str) -> set[ox.Triple]:
    """The triples of the N-Triples ``text`` as a store holds them (a decimal written ``81.70``
    read back ``81.7``), so that a delta written from a page compares equal to its graphs."""
    held = ox.Store()
    held.load(text.encode("utf-8"), format=ox.RdfFormat.N_TRIPLES)
    return {quad.triple for quad in held}


def statements(
    key: str, first: tuple[str, Iterable[ox.Triple]], second: tuple[str, Iterable[ox.Triple]]
) -> list[ox.Triple]:
    """The catalogue statements of the delta between two versions of the page ``key``, each
    given as its SHA-256 and its graph's triples."""
    (a, a_triples), (b, b_triples) = sorted((first, second), key=lambda side: side[0][:16])
    a_part, b_part = differing(a_triples, b_triples)
    node = ox.NamedNode(delta_iri(key, a, b))
    return [
        ox.Triple(node, _TYPE, _DELTA_TYPE),
        ox.Triple(node, ox.NamedNode(V.deltaFrom), ox.NamedNode(iris.version(key, a))),
        ox.Triple(node, ox.NamedNode(V.deltaTo), ox.NamedNode(iris.version(key, b))),
        ox.Triple(node, ox.NamedNode(V.fromStatements), ox.Literal(_ntriples(a_part))),
        ox.Triple(node, ox.NamedNode(V.toStatements), ox.Literal(_ntriples(b_part))),
    ]


@dataclass(frozen=True)
class Delta:
    """A delta as the catalogue records it: its IRI, the IRIs of the two versions it compares,
    and the N-Triples of each one's side."""

    iri: str
    first: str
    second: str
    first_text: str
    second_text: str

    def triples(self) -> list[ox.Triple]:
        """Its catalogue statements."""
        node = ox.NamedNode(self.iri)
        return [
            ox.Triple(node, _TYPE, _DELTA_TYPE),
            ox.Triple(node, ox.NamedNode(V.deltaFrom), ox.NamedNode(self.first)),
            ox.Triple(node, ox.NamedNode(V.deltaTo), ox.NamedNode(self.second)),
            ox.Triple(node, ox.NamedNode(V.fromStatements), ox.Literal(self.first_text)),
            ox.Triple(node, ox.NamedNode(V.toStatements), ox.Literal(self.second_text)),
        ]

    def side(self, version: str) -> str:
        """The N-Triples of the side of the version IRI ``version``."""
        return self.first_text if version == self.first else self.second_text


def read_deltas(store: Store, wanted: Sequence[str] | None = None) -> dict[str, list[Delta]]:
    """The deltas the catalogue of ``store`` records, by IRI (more than one for an IRI: its
    record is damaged): those of the IRIs ``wanted``, or every one. Raises StoreError."""
    bindings = {"versions": ox.NamedNode(graphs.VERSIONS)}
    if wanted is None:
        text = queries.internal("all-version-deltas")
    elif not wanted:
        return {}
    else:
        text = with_values(
            queries.internal("version-deltas"), "delta", [ox.NamedNode(i) for i in wanted]
        )
    answer = store.query(text, bindings, default_graph=())
    assert isinstance(answer, ox.QuerySolutions)
    found: dict[str, list[Delta]] = {}
    for row in answer:
        cells = [_text(row[n]) for n in ("delta", "from", "to", "fromStatements", "toStatements")]
        found.setdefault(cells[0], []).append(Delta(*cells))
    return found


def _text(term: object) -> str:
    return str(getattr(term, "value", "")) if term is not None else ""


def recorded(
    store: Store, known: Versions, sha256: str, modified: str, when: str, change: Change
) -> Change:
    """``change``, the write of the version ``sha256`` (data updated ``modified``, ingested
    ``when``) of the page of ``known`` (its versions stored), with the deltas between that
    version and each version next to it in the page's order, and the version current until
    then, added to the catalogue (a delta of the same IRI recorded before is replaced). Reads
    those versions' graphs. Raises StoreError."""
    key = known.key
    mine = change.replaced.get(graphs.page(key)) or change.replaced.get(graphs.history(key, sha256))
    others = [v for v in known.all if v.sha256 != sha256]
    if not mine or not others:
        return change
    mine = _as_held(mine)  # as the store will hold them, as the others' graphs are read
    new = known.find(sha256) or Version(key, sha256, modified, when, 0, "")
    ordered = sorted([*others, new], key=lambda v: v.order)
    at = next(i for i, v in enumerate(ordered) if v.sha256 == sha256)
    near = [ordered[at - 1] if at else None, ordered[at + 1] if at + 1 < len(ordered) else None]
    chosen = {v.sha256: v for v in (*near, known.current) if v is not None and v.sha256 != sha256}
    added: list[ox.Triple] = []
    for version in chosen.values():
        theirs = list(store.graph_triples(version.graph))
        added += statements(key, (sha256, mine), (version.sha256, theirs))
    iris_ = [delta_iri(key, sha256, s) for s in chosen]
    before = [t for found in read_deltas(store, iris_).values() for d in found for t in d.triples()]
    deleted = [t for t in before if t not in added]
    catalogue = graphs.VERSIONS
    return replace(
        change,
        added={**change.added, catalogue: [*change.added.get(catalogue, ()), *added]},
        deleted={**change.deleted, catalogue: [*change.deleted.get(catalogue, ()), *deleted]},
    )


def moved(
    store: Store,
    since: datetime,
    until: datetime | None,
    clock: str = "data",
    scope: ox.NamedNode | None = None,
) -> list[Versions] | None:
    """The versions of each page whose current version by ``clock`` (``data`` or ``store``,
    see :meth:`benchgraph.versions.Versions.at`) may differ between ``since`` and ``until``
    (None: now), by page key: those with a time recorded between the two (see the
    module's docstring), of the pages mentioning ``scope`` if given. None when the store's
    catalogue does not record a version of every source document its graphs state (it records
    versions of fewer sources than they state): then every page must be read
    (:func:`benchgraph.versions.read_all`). Raises StoreError."""
    catalogue = ox.NamedNode(graphs.VERSIONS)
    counted = store.query(
        queries.internal("versions-recorded"),
        {"versions": catalogue},
        default_graph=(),
    )
    assert isinstance(counted, ox.QuerySolutions)
    counts = next(iter(counted), None)
    if counts is None or _text(counts["held"]) != _text(counts["recorded"]):
        return None
    high = (until + _MARGIN).date().isoformat() if until is not None else "~"
    window: dict[str, Term] = {
        "versions": catalogue,
        "from": ox.Literal((since - _MARGIN).date().isoformat()),
        "to": ox.Literal(high),
        "clock": ox.Literal(clock),
    }
    found = store.query(queries.internal("versions-moved"), window, default_graph=())
    assert isinstance(found, ox.QuerySolutions)
    sources = [row["source"] for row in found]
    if not sources:
        return []
    text = with_values(queries.internal("versions-of"), "source", sources)
    answer = store.query(text, {"versions": catalogue}, default_graph=())
    assert isinstance(answer, ox.QuerySolutions)
    pages = versions.gathered_by_page(answer)
    if scope is not None:
        within = set(versions.mentioning(store, scope))
        pages = [page for page in pages if page.key in within]
    return pages


def pairs_read(store: Store, pairs: Sequence[tuple[Version, Version]]) -> dict[Pair, Delta]:
    """The deltas recorded for the pairs of versions ``pairs`` (one page's each), by page key
    and the two versions' digests as given; a pair whose record is damaged (two deltas of one
    IRI) is left out. Raises StoreError."""
    wanted = {delta_iri(old.key, old.sha256, new.sha256): (old, new) for old, new in pairs}
    found: dict[Pair, Delta] = {}
    for iri, deltas in read_deltas(store, sorted(wanted)).items():
        old, new = wanted[iri]
        ends = {old.iri, new.iri}
        if len(deltas) == 1 and {deltas[0].first, deltas[0].second} == ends:
            found[(old.key, old.sha256, new.sha256)] = deltas[0]
    return found


@dataclass(frozen=True)
class DeltaCheck:
    """How the deltas differ from the graphs: the pairs of versions next to each other in a
    page's order without one, the deltas that differ from their versions' graphs (or are
    recorded twice), and those naming a version no graph holds; with what a repair writes."""

    missing: tuple[Pair, ...]
    wrong: tuple[str, ...]
    stale: tuple[str, ...]
    deleted: tuple[ox.Triple, ...] = ()
    added: tuple[ox.Triple, ...] = ()

    @property
    def exact(self) -> bool:
        return not self.missing and not self.wrong and not self.stale

    def text(self) -> str:
        if self.exact:
            return (
                "the changes record holds, for each two versions of a page next to each other, "
                "the delta their graphs give"
            )
        return (
            f"the changes record differs from the graphs: {len(self.missing)} pairs of versions "
            f"next to each other have no delta, {len(self.wrong)} deltas differ from their "
            f"versions' graphs, {len(self.stale)} name a version no graph holds; "
            "`benchgraph repair` rebuilds it"
        )


def check(store: Store, only: Collection[str] | None = None) -> DeltaCheck:
    """Compare the deltas of ``store`` with its page and history graphs (reading the graphs of
    each pair compared), the recorded deltas read :data:`GROUP` at a time: what it holds at
    once is the catalogue's versions, one group's deltas and what a repair would write. With
    ``only`` (page identities), only the deltas of those pages. Raises StoreError."""
    pages = versions.read_all(store)
    recorded_ = _recorded(store)
    if only is not None:
        pages = [page for page in pages if page.key in only]
        sources = {iris.source(key) for key in only}
        recorded_ = [iri for iri in recorded_ if iri.rsplit("/version/", 1)[0] in sources]
    by_iri = {v.iri: v for page in pages for v in page.all if v.recorded}
    known = set(recorded_)
    expected: dict[str, tuple[Version, Version]] = {}
    for page in pages:
        held = [v for v in page.all if v.recorded]
        for old, new in itertools.pairwise(held):
            expected[delta_iri(page.key, old.sha256, new.sha256)] = (old, new)
    missing: list[Pair] = []
    wrong: list[str] = []
    stale: list[str] = []
    deleted: list[ox.Triple] = []
    added: list[ox.Triple] = []
    for iri, (old, new) in sorted(expected.items()):
        if iri not in known:
            missing.append((old.key, old.sha256, new.sha256))
            added += _built(store, old, new)
    for start in range(0, len(recorded_), GROUP):
        for iri, deltas in sorted(read_deltas(store, recorded_[start : start + GROUP]).items()):
            ends = [by_iri.get(deltas[0].first), by_iri.get(deltas[0].second)]
            old_triples = [t for d in deltas for t in d.triples()]
            if ends[0] is None or ends[1] is None:
                stale.append(iri)
                deleted += old_triples
                continue
            right = _built(store, ends[0], ends[1])
            if len(deltas) > 1 or not _same(deltas[0], right):
                wrong.append(iri)
                deleted += old_triples
                added += right
    return DeltaCheck(tuple(missing), tuple(wrong), tuple(stale), tuple(deleted), tuple(added))


def _recorded(store: Store) -> list[str]:
    """The IRIs of the deltas the catalogue of ``store`` records, sorted. Raises StoreError."""
    answer = store.query(
        queries.internal("version-delta-iris"),
        {"versions": ox.NamedNode(graphs.VERSIONS)},
        default_graph=(),
    )
    assert isinstance(answer, ox.QuerySolutions)
    return sorted({_text(row["delta"]) for row in answer})


def _built(store: Store, first: Version, second: Version) -> list[ox.Triple]:
    """The delta's statements as the graphs of ``first`` and ``second`` give them."""
    return statements(
        first.key,
        (first.sha256, store.graph_triples(first.graph)),
        (second.sha256, store.graph_triples(second.graph)),
    )


def _same(delta: Delta, right: Sequence[ox.Triple]) -> bool:
    """Whether ``delta`` records what the statements ``right`` (see :func:`statements`) do."""
    values = {t.predicate.value: str(getattr(t.object, "value", "")) for t in right}
    try:
        return (
            delta.first == values[V.deltaFrom]
            and delta.second == values[V.deltaTo]
            and _parsed(delta.first_text) == _parsed(values[V.fromStatements])
            and _parsed(delta.second_text) == _parsed(values[V.toStatements])
        )
    except SyntaxError:
        return False


def repair(store: Store, found: DeltaCheck) -> None:
    """Write what ``found`` says the deltas lack, and remove what it says they hold wrongly,
    in one write. Raises StoreError."""
    if found.exact:
        return
    catalogue = graphs.VERSIONS
    store.write(Change({}, added={catalogue: found.added}, deleted={catalogue: found.deleted}))
