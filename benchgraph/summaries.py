"""Per-version summaries: what the whole-store audits count of a page, kept in the versions
catalogue beside the page's version, so that an audit reads one small record per page rather
than every result of the store.

A summary holds only what the page's own graph decides, so it never goes stale when another
page changes: it is written once, with its version (in the same transaction, see
:func:`added`), and a version's bytes always give the same summary. Whether a result is
self-reported depends on origin papers (``bg:introducedIn``) that other pages may state too;
the summary counts a page's results by the origins the page itself names, and lists the
methods it names no origin for. ``queries/audit-self-reported.rq`` joins those with the
origins the merged view holds, a small set, and looks again in the page graph only for the
methods whose origins another page completes. The audit reads the summaries of the current
versions (``bg:versionGraph`` a page graph); a version kept as history keeps its summary,
which counts again if it is restored.

On each version node ``V`` (all in :data:`benchgraph.graphs.VERSIONS`):

- ``V bg:summaryResults n``: its results (each pair of a result's method and reporting paper);
- ``V bg:summarySelfReported n``: of those, reported by an origin paper the page names for
  the method;
- ``V bg:summaryOriginKnown n``: of those, for a method the page names an origin paper for;
- ``V bg:summarySelfReportedMethod m``: each method of those self-reported ones;
- ``V bg:summarySelfReportedNames "a; b"``: their labels on the page, in order, as the audit
  shows them (unless one of them has no label on the page: then ``V bg:summaryUnnamedMethod m``
  for each such method, and the audit finds the names in the merged view);
- ``V bg:summaryMethodWithoutOrigin t``, with ``t bg:summaryMethod m``, ``t bg:summaryPaper p``
  and ``t bg:summaryResults n``: each method the page names no origin paper for, with each
  paper that reported its results, and their number.

A store written before summaries, or one whose summaries were damaged, is found by
:func:`check` and put right by :func:`repair` (``benchgraph repair``). Until then the audit
would count none of the results of a version without its summary: a false all-clear. So the
named queries that read them (:data:`READERS`) are refused on a store where a current version
has none (:func:`require`, one count over the catalogue; the server answers 503), and a whole
store answers them as ever.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass

import pyoxigraph as ox

from benchgraph import graphs, iris, queries
from benchgraph import vocab as V
from benchgraph.kept import Kept
from benchgraph.sparqltext import Term, with_values
from benchgraph.store import Change, Store

_INTEGER = ox.NamedNode(V.XSD + "integer")
# The predicates of a summary, by which check finds the summaries stored.
PREDICATES = (
    V.summaryResults,
    V.summarySelfReported,
    V.summaryOriginKnown,
    V.summarySelfReportedMethod,
    V.summarySelfReportedNames,
    V.summaryUnnamedMethod,
    V.summaryMethodWithoutOrigin,
    V.summaryMethod,
    V.summaryPaper,
)
# The named queries that read the summaries: refused where a current version has none.
READERS = ("audit-self-reported",)
# What counts the current versions without a summary (one row: ``missing``).
MISSING = "versions-without-summary"
# The current versions :func:`check` compares at once (their summaries and page graphs' facts
# read in one query each): memory holds one group's, never every page's (every page's facts at
# once: 289 MB peak at 3,000 pages, against 137 MB a group at a time).
GROUP = 200


def refusal(store: str, missing: int, repair: str = "`benchgraph repair`") -> str:
    """What a reader of the summaries is told when ``missing`` current versions of ``store``
    (named as the reader may see it) have none, ``repair`` the command that builds them."""
    lack = "version lacks its" if missing == 1 else "versions lack their"
    return (
        f"{store} cannot answer the self-reported audit: {missing} current page {lack} audit "
        "summary (the store was written before benchgraph kept them, or they were removed), "
        f"so the audit would count none of their results; {repair} builds them"
    )


def bindings() -> dict[str, Term]:
    """The bindings of :data:`MISSING` (and of the other catalogue queries here)."""
    return {"versions": ox.NamedNode(graphs.VERSIONS), "pages": ox.Literal(graphs.PAGES)}


# The summaries as a record the queries of READERS need (benchgraph.kept): a current version
# without one is counted by MISSING over the catalogue.
KEPT = Kept(READERS, MISSING, bindings, refusal)


def summary(version: str, page: Iterable[ox.Triple]) -> list[ox.Triple]:
    """The summary of the version ``version`` (its IRI) whose page graph holds ``page``."""
    methods: dict[Term, set[Term]] = {}  # sets: a statement counts once, as in a graph
    papers: dict[Term, set[Term]] = {}
    origins: set[tuple[Term, Term]] = set()
    labels: dict[Term, set[Term]] = {}
    for t in page:
        predicate = t.predicate.value
        if predicate == V.method:
            methods.setdefault(t.subject, set()).add(t.object)
        elif predicate == V.reportedIn:
            papers.setdefault(t.subject, set()).add(t.object)
        elif predicate == V.introducedIn:
            origins.add((t.subject, t.object))
        elif predicate == V.label:
            labels.setdefault(t.subject, set()).add(t.object)
    known = {method for method, _ in origins}
    results = self_reported = origin_known = 0
    self_methods: set[Term] = set()
    without: Counter[tuple[Term, Term]] = Counter()
    for result, found in methods.items():
        for method in found:
            for paper in papers.get(result, ()):
                results += 1
                if (method, paper) in origins:
                    self_reported += 1
                    self_methods.add(method)
                if method in known:
                    origin_known += 1
                else:
                    without[method, paper] += 1
    node = ox.NamedNode(version)
    found_triples = [
        ox.Triple(node, ox.NamedNode(V.summaryResults), _integer(results)),
        ox.Triple(node, ox.NamedNode(V.summarySelfReported), _integer(self_reported)),
        ox.Triple(node, ox.NamedNode(V.summaryOriginKnown), _integer(origin_known)),
    ]
    for method in sorted(self_methods, key=str):
        found_triples.append(ox.Triple(node, ox.NamedNode(V.summarySelfReportedMethod), method))
    unnamed = sorted((m for m in self_methods if m not in labels), key=str)
    for method in unnamed:
        found_triples.append(ox.Triple(node, ox.NamedNode(V.summaryUnnamedMethod), method))
    if self_methods and not unnamed:
        names = {name for method in self_methods for name in labels[method]}
        ordered = sorted(names, key=lambda name: (getattr(name, "value", ""), str(name)))
        text = "; ".join(getattr(name, "value", "") for name in ordered)
        found_triples.append(
            ox.Triple(node, ox.NamedNode(V.summarySelfReportedNames), ox.Literal(text))
        )
    for (method, paper), count in sorted(without.items(), key=lambda item: str(item[0])):
        tally = ox.NamedNode(f"{version}/without-origin/{_digest(method, paper)}")
        found_triples += [
            ox.Triple(node, ox.NamedNode(V.summaryMethodWithoutOrigin), tally),
            ox.Triple(tally, ox.NamedNode(V.summaryMethod), method),
            ox.Triple(tally, ox.NamedNode(V.summaryPaper), paper),
            ox.Triple(tally, ox.NamedNode(V.summaryResults), _integer(count)),
        ]
    return found_triples


def _integer(value: int) -> ox.Literal:
    return ox.Literal(str(value), datatype=_INTEGER)


def _digest(*terms: Term) -> str:
    return hashlib.sha256(" ".join(map(str, terms)).encode()).hexdigest()[:16]


def added(change: Change, key: str, sha256: str, page: Sequence[ox.Triple]) -> Change:
    """``change`` (the write of a version of the page ``key`` whose bytes have the SHA-256
    ``sha256``, and whose graph holds ``page``) with that version's summary added to the
    catalogue. Writing it again adds nothing: a version's bytes give one summary."""
    found = summary(iris.version(key, sha256), page)
    catalogue = [*change.added.get(graphs.VERSIONS, ()), *found]
    return Change(
        change.replaced,
        change.kept,
        {**change.added, graphs.VERSIONS: catalogue},
        change.deleted,
        change.expects,
    )


@dataclass(frozen=True)
class PageSummary:
    """The summary of one current version: what is stored, and what its page graph gives."""

    key: str
    graph: str
    stored: frozenset[ox.Triple]
    right: frozenset[ox.Triple]

    @property
    def exact(self) -> bool:
        return self.stored == self.right


@dataclass(frozen=True)
class SummaryCheck:
    """The current versions whose stored summary is missing or differs from their page
    graph's."""

    wrong: tuple[PageSummary, ...]

    @property
    def exact(self) -> bool:
        return not self.wrong

    def text(self) -> str:
        if self.exact:
            return "the summary of every current version matches its page graph"
        missing = sum(1 for page in self.wrong if not page.stored)
        shown = ", ".join(page.key for page in self.wrong[:5])
        more = f" and {len(self.wrong) - 5} more" if len(self.wrong) > 5 else ""
        return (
            f"the audit summaries of {len(self.wrong)} current versions differ from their page "
            f"graphs ({missing} missing): {shown}{more}; `benchgraph repair` rebuilds them"
        )


def check(store: Store, only: Collection[str] | None = None) -> SummaryCheck:
    """Compare the stored summary of each current version of ``store`` (as the catalogue
    records it) with the summary its page graph gives, :data:`GROUP` versions at a time: what
    it holds at once is one group's statements, and the summaries found wrong. With ``only``
    (page identities), only the current versions of those pages. Raises StoreError."""
    found = current(store)
    if only is not None:
        found = {v: graph for v, graph in found.items() if graphs.key_of(graph) in only}
    ordered = sorted(found)
    wrong = []
    for start in range(0, len(ordered), GROUP):
        group = ordered[start : start + GROUP]
        stored_ = stored(store, group)
        facts = _facts(store, sorted({found[version] for version in group}))
        for version in group:
            graph = found[version]
            right = frozenset(summary(version, facts.get(graph, ())))
            page = PageSummary(
                graphs.key_of(graph), graph, frozenset(stored_.get(version, ())), right
            )
            if not page.exact:
                wrong.append(page)
    return SummaryCheck(tuple(wrong))


def current(store: Store) -> dict[str, str]:
    """The current versions of ``store`` (their IRIs), each with its page graph. Raises
    StoreError."""
    answer = store.query(queries.internal("current-versions"), bindings(), default_graph=())
    assert isinstance(answer, ox.QuerySolutions)
    return {_text(row["version"]): _text(row["graph"]) for row in answer}


def stored(store: Store, versions: Sequence[str]) -> dict[str, set[ox.Triple]]:
    """The summary statements the catalogue of ``store`` holds for each of ``versions`` (IRIs)
    that has any. Raises StoreError."""
    if not versions:
        return {}
    text = with_values(
        queries.internal("summaries"), "version", [ox.NamedNode(v) for v in versions]
    )
    answer = store.query(text, {"versions": ox.NamedNode(graphs.VERSIONS)}, default_graph=())
    assert isinstance(answer, ox.QuerySolutions)
    found: dict[str, set[ox.Triple]] = {}
    for row in answer:
        subject, predicate, value = row["s"], row["p"], row["o"]
        assert isinstance(subject, ox.NamedNode) and isinstance(predicate, ox.NamedNode)
        assert value is not None
        found.setdefault(_text(row["version"]), set()).add(ox.Triple(subject, predicate, value))
    return found


def _facts(store: Store, pages: Sequence[str]) -> dict[str, list[ox.Triple]]:
    """The statements a summary is made of in each of the page graphs ``pages``, by graph."""
    if not pages:
        return {}
    text = with_values(queries.internal("summary-facts"), "graph", [ox.NamedNode(g) for g in pages])
    answer = store.query(text, default_graph=())
    assert isinstance(answer, ox.QuerySolutions)
    found: dict[str, list[ox.Triple]] = {}
    for row in answer:
        subject, predicate, value = row["s"], row["p"], row["o"]
        assert isinstance(subject, ox.NamedNode | ox.BlankNode)
        assert isinstance(predicate, ox.NamedNode) and value is not None
        found.setdefault(_text(row["graph"]), []).append(ox.Triple(subject, predicate, value))
    return found


def repair(store: Store, found: SummaryCheck) -> None:
    """Write the right summary of each version ``found`` finds wrong, one write a page.
    Raises StoreError."""
    for page in found.wrong:
        store.write(
            Change(
                {},
                added={graphs.VERSIONS: sorted(page.right - page.stored, key=str)},
                deleted={graphs.VERSIONS: sorted(page.stored - page.right, key=str)},
            )
        )


def _text(term: object) -> str:
    return str(getattr(term, "value", "")) if term is not None else ""
