"""Re-validating a whole store: every page against the current shapes, one page at a time
(:func:`benchgraph.validation.validate_triples`), the cross-page checks (``queries/check-*.rq``,
after a change only for the nodes it can affect), and the merged view, the versions catalogue,
the audit summaries, the changes record and the report keys against the graphs; or only what
changed since the last saved re-validation (:mod:`benchgraph.validated` keeps it). The result is
a :class:`StoreReport`, which ``benchgraph validate`` prints.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import pyoxigraph as ox
import rdflib
from rdflib import RDF, RDFS, BNode, URIRef

from benchgraph import (
    changelog,
    graphs,
    integrity,
    queries,
    report_keys,
    resources,
    sparqltext,
    summaries,
    terms,
    validated,
)
from benchgraph import vocab as V
from benchgraph.settings import Engine
from benchgraph.store import Store, ViewCheck
from benchgraph.validation import (
    ACROSS_PAGES,
    BGSH,
    PREFIXES,
    SEVERITIES,
    SH,
    Finding,
    Report,
    compact,
    now,
    shape_text,
    shapes_graph,
    validate_triples,
)

_TYPE = ox.NamedNode(str(RDF.type))
_SH_RESULT = ox.NamedNode(str(SH.result))
_REPORT_CLASS = ox.NamedNode(str(SH.ValidationReport))


@dataclass
class StoreReport:
    """The result of re-validating a store: one report per page, the cross-page findings, and
    whether the merged view equals the union of the page graphs."""

    pages: list[Report]
    cross_page: list[Finding]
    view: ViewCheck = field(default_factory=lambda: ViewCheck((), ()))
    catalogue: integrity.CatalogueCheck = field(
        default_factory=lambda: integrity.CatalogueCheck((), ())
    )
    # What was left unchecked as unchanged since the last saved re-validation (nothing, when
    # every page was checked).
    rechecked: validated.Rechecked = field(default_factory=validated.Rechecked)
    # Whether each current version's audit summary matches its page graph: checked with the
    # catalogue, and taken with it from the last saved re-validation when nothing changed.
    summarised: summaries.SummaryCheck = field(default_factory=lambda: summaries.SummaryCheck(()))
    # Whether the changes record holds the delta of each two versions next to each other, as
    # their graphs give it: checked and reused as the summaries are.
    deltas: changelog.DeltaCheck = field(default_factory=lambda: changelog.DeltaCheck((), (), ()))
    # Whether each page's current report holds its key (audit-findings): checked and reused as
    # the summaries are.
    keys: report_keys.KeyCheck = field(default_factory=report_keys.KeyCheck)

    @property
    def findings(self) -> list[Finding]:
        return [f for r in self.pages for f in r.findings] + self.cross_page

    @property
    def conforms(self) -> bool:
        return self.view.exact and not self.count("Violation")

    def count(self, severity: str) -> int:
        """The findings of ``severity``: those found, and those the stored reports of the
        pages left unchecked hold."""
        stored = sum(n for s, _, n, _ in self.rechecked.stored if s == severity)
        return stored + sum(1 for f in self.findings if f.severity == severity)

    def summary(self) -> str:
        counts = ", ".join(f"{self.count(s)} {s.lower()}s" for s in SEVERITIES)
        verdict = "conforms" if self.conforms else "does not conform"
        kept = self.rechecked.kept
        if not kept and self.rechecked.state is None:
            return (
                f"{len(self.pages)} pages and the cross-page checks validated: {counts}; {verdict}"
            )
        made = self.rechecked.state.made if self.rechecked.state else ""
        checks = "taken from it" if self.rechecked.reused else "run again"
        return (
            f"{len(self.pages)} pages validated, {kept} unchanged since the validation of "
            f"{made} (their stored reports hold their findings; `validate --all` checks every "
            f"page), the cross-page checks {checks}: {counts}; {verdict}"
        )

    def by_shape(self) -> list[tuple[str, str, int, int]]:
        """``(severity, shape IRI, findings, pages)`` for each severity and shape that found
        something, the most severe first, then the most findings; ``pages`` counts the pages
        they are on (0 for the cross-page checks)."""
        found: dict[tuple[str, str], list[str]] = {}
        for f in self.findings:
            found.setdefault((f.severity, f.shape), []).append(f.page)
        for severity, shape, n, graph in self.rechecked.stored:  # a page's graph: one page
            found.setdefault((severity, shape), []).extend([graph] * n)
        rows = [
            (severity, shape, len(pages), len(set(pages) - {ACROSS_PAGES}))
            for (severity, shape), pages in found.items()
        ]
        return sorted(rows, key=lambda r: (SEVERITIES.index(r[0]), -r[2], r[1]))

    def text(self, summary: bool = False) -> str:
        """The report as text: a line per finding (``summary``: a line per severity and shape,
        with its count), what differs in the merged view, then the summary line."""
        view = "" if self.view.exact else f"store: {self.view.text()}\n"
        if summary:
            lines = [
                f"{severity.lower()} {compact(shape)}: {n:,} "
                + (f"on {p:,} page{'s' * (p != 1)}" if p else ACROSS_PAGES)
                + "\n"
                for severity, shape, n, p in self.by_shape()
            ]
        else:
            lines = [f.text() + "\n" for f in self.findings]
        return "".join(lines) + view + self.summary() + "\n"

    def as_json(self, summary: bool = False) -> str:
        """The report as a JSON document: counts, the findings (``summary``: the counts by
        severity and shape instead) and the merged view's check."""
        listed: dict[str, object] = {"findings": [f.as_dict() for f in self.findings]}
        if summary:
            listed = {
                "shapes": [
                    {"severity": sev, "shape": shape, "findings": n, "pages": p}
                    for sev, shape, n, p in self.by_shape()
                ]
            }
        document = {
            "conforms": self.conforms,
            "pages": len(self.pages),
            # Pages left unchecked: unchanged since the last saved re-validation.
            "unchanged": self.rechecked.kept,
            # How many pages each engine validated: the compiled shapes hand pyshacl a page
            # they cannot be sure of (and every page, when the shapes are beyond them).
            "engines": dict(sorted(Counter(r.engine for r in self.pages).items())),
            **{s.lower() + "s": self.count(s) for s in SEVERITIES},
            **listed,
            "view": {
                "exact": self.view.exact,
                "missing": len(self.view.missing),
                "extra": len(self.view.extra),
            },
        }
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"

    def turtle(self) -> str:
        """One sh:ValidationReport holding every finding, pages and cross-page checks alike."""
        graph = rdflib.Graph()
        for prefix, namespace in PREFIXES.items():
            graph.bind(prefix, namespace)
        report = BNode()
        graph.add((report, RDF.type, SH.ValidationReport))
        graph.add((report, SH.conforms, rdflib.Literal(self.conforms)))
        if not self.view.exact:
            graph.add((report, RDFS.comment, rdflib.Literal(self.view.text())))
        for page in self.pages:
            nodes = {t.subject for t in page.report if t.object == _REPORT_CLASS}
            for t in page.report:
                s, p, o = (terms.to_rdflib(x) for x in (t.subject, t.predicate, t.object))
                if t.subject not in nodes:
                    graph.add((s, p, o))
                elif t.predicate == _SH_RESULT:
                    graph.add((report, p, o))
        for f in self.cross_page:
            node = BNode()
            graph.add((report, SH.result, node))
            graph.add((node, RDF.type, SH.ValidationResult))
            graph.add((node, SH.focusNode, URIRef(f.focus)))
            graph.add((node, SH.resultSeverity, SH[f.severity]))
            graph.add((node, SH.sourceShape, URIRef(f.shape)))
            graph.add((node, SH.sourceConstraintComponent, SH.SPARQLConstraintComponent))
            graph.add((node, SH.resultMessage, rdflib.Literal(f.message)))
        return graph.serialize(format="turtle")


def _page_name(triples: list[ox.Triple], graph: str | None) -> tuple[str, str | None]:
    """The source ID and IRI of the page a graph holds (its graph name if it has no source)."""
    source_class, identifier = ox.NamedNode(V.SourceDocument), ox.NamedNode(V.identifier)
    sources = {t.subject for t in triples if t.predicate == _TYPE and t.object == source_class}
    for source in sorted(sources, key=str):
        names = [t.object for t in triples if t.subject == source and t.predicate == identifier]
        iri = str(source.value)  # type: ignore[union-attr]
        return (min(str(n.value) for n in names) if names else iri), iri  # type: ignore[union-attr]
    return (graph or "default graph"), None


def cross_page_findings(
    store: Store,
    shapes: rdflib.Graph | None = None,
    *,
    saved: Iterable[Finding] | None = None,
    nodes: Sequence[ox.NamedNode] = (),
    touched: Sequence[str] = (),
) -> list[Finding]:
    """Run every ``check-*.rq`` over the store: each row is a finding on its first column.

    With ``saved`` (the findings of a run since which only the graphs ``touched`` changed, the
    changed pages' versions, old and new, which state about ``nodes``), each check runs only
    for the nodes whose finding may have changed: ``nodes``, and the nodes its
    ``queries/internal/<check>-near.rq`` gives for them (sharing a key with one, old or new).
    Its variant ``queries/internal/<check>-of.rq`` is run for them, and every other node keeps
    its saved finding: the findings of a run over everything.

    Raises ShapesError for a check with no shape ``bgsh:<name>``, QueryError for a bad query.
    """
    shapes = shapes if shapes is not None else shapes_graph()
    earlier = list(saved) if saved is not None else None
    findings = []
    for path in sorted(resources.queries_dir().glob("check-*.rq")):
        named = queries.load(path)
        shape = BGSH + named.name
        severity, message = shape_text(shapes, shape)
        found, text, focus = [], named.text, {}
        if earlier is not None:
            focus = _focus(store, named.name, nodes, touched)
            found = [f for f in earlier if f.shape == shape and f.focus not in focus]
            text = _filled(queries.internal(f"{named.name}-of"), "focus", list(focus.values()))
        if earlier is None or focus:
            answer = store.query(text)
            if not isinstance(answer, ox.QuerySolutions):
                raise queries.QueryError(f"{named.path}: a check must be a SELECT query")
            columns = [v.value for v in answer.variables]
            for row in answer:
                values = {c: row[c].value for c in columns if row[c] is not None}
                focus_node = values.pop(columns[0])
                label = values.pop("label", None) or values.pop("identifier", None) or focus_node
                details = "; ".join(f"{k}: {v}" for k, v in values.items())
                said = f"{message} ({details})" if details else message
                found.append(
                    Finding(severity, shape, said, focus_node, columns[0], label, ACROSS_PAGES)
                )
        # In the order of a run over everything (each check's ORDER BY its focus, an IRI).
        findings.extend(sorted(found, key=lambda f: f.focus) if earlier is not None else found)
    return findings


def _focus(
    store: Store, check: str, nodes: Sequence[ox.NamedNode], touched: Sequence[str]
) -> dict[str, ox.NamedNode]:
    """The nodes whose finding of ``check`` may differ since the graphs ``touched`` changed:
    ``nodes`` (what those graphs state about), and the nodes the check's ``-near`` query, if
    it has one, gives for them."""
    focus = {node.value: node for node in nodes}
    near = resources.queries_dir() / "internal" / f"{check}-near.rq"
    if focus and near.is_file():
        text = _filled(queries.internal(near.stem), "node", nodes)
        answer = store.query(_filled(text, "graph", [ox.NamedNode(g) for g in touched]))
        assert isinstance(answer, ox.QuerySolutions)
        for row in answer:
            node = row[answer.variables[0]]
            if isinstance(node, ox.NamedNode):
                focus[node.value] = node
    return focus


def _filled(text: str, name: str, terms: Sequence[ox.NamedNode]) -> str:
    """``text`` with every empty block ``VALUES ?name { }`` holding ``terms`` (an empty list
    leaves them empty: no solution)."""
    while terms:
        try:
            text = sparqltext.with_values(text, name, terms)
        except ValueError:  # no empty block left (the terms are IRIs, which it always takes)
            break
    return text


def page_graphs(store: Store) -> list[str]:
    """The graphs to validate: every named graph but the reports (the merged view only repeats
    what they state), the history (kept versions, which were validated when current) and the
    alias graph (no page: :func:`validate_store` checks its records, and keeps no report)."""
    return [
        g
        for g in store.named_graphs()
        if not g.startswith(graphs.REPORTS)
        and not graphs.is_history(g)
        and not graphs.is_aliases(g)
    ]


def validate_store(
    store: Store,
    *,
    save: bool = True,
    when: str | None = None,
    engine: Engine = "auto",
    everything: bool = True,
) -> tuple[bool, StoreReport]:
    """Re-validate the pages of ``store`` against the current shapes, one page at a time, run
    the cross-page checks, compare the merged view with the union of the page graphs and the
    versions catalogue with the graphs (:mod:`benchgraph.integrity`). With ``save``, each
    page's report replaces its stored report, reports of pages no longer in the store are
    removed, and what was checked is saved (:mod:`benchgraph.validated`).

    With ``everything`` False, only the pages whose version changed since the last saved
    re-validation (against the same shapes) are checked again, the view over the triples
    those pages' versions touch, the cross-page checks for the nodes they state (see
    :func:`cross_page_findings`); the store-wide checks are taken from that re-validation when
    nothing changed, and the others run whole otherwise. Its verdict and the reports it leaves
    are those of a run over everything.

    Returns ``(conforms, report)``; a catalogue that disagrees is in ``report.catalogue``.
    Raises ShapesError, QueryError or StoreError.
    """
    digest, held, listed, state, found = _plan(store, everything)
    shapes = shapes_graph()
    when = when or now()
    wanted = set(found.pages) if found is not None else set(listed)
    reports, checked = [], []
    kept = set()
    for graph in listed:
        if graph not in wanted:
            continue
        checked.append(graph)
        triples = list(store.graph_triples(graph))
        page, source = _page_name(triples, graph)
        _, report = validate_triples(triples, page, shapes, engine)
        reports.append(report)
        if save:
            name = graphs.report(graph)
            kept.add(name)
            store.replace_graphs({name: report.triples(name, source, when)})
    if save and found is None:
        for stale in store.named_graphs():
            current = stale.startswith(graphs.REPORTS) and not graphs.is_history(stale)
            if current and stale not in kept and stale != validated.GRAPH:
                store.remove_graph(stale)
    elif save and found is not None:
        for gone in found.gone:
            store.remove_graph(graphs.report(gone))
    # The alias records, against the same shapes: their findings are the store's, beside the
    # cross-page checks' (no report is stored for them).
    records = list(store.graph_triples(graphs.ALIASES))
    recorded = (
        validate_triples(records, "the alias records", shapes, engine)[1] if records else None
    )
    if state is not None and _reusable(state, found):
        cross = [Finding(**f) for f in state.cross_page]  # type: ignore[arg-type]
        view, catalogue, reuse = ViewCheck((), ()), integrity.CatalogueCheck((), ()), True
        nodes: int | None = None
        summarised, deltas = summaries.SummaryCheck(()), changelog.DeltaCheck((), (), ())
        keys = report_keys.KeyCheck()
    else:
        reuse = False
        narrow = state is not None and found is not None and state.view and not found.whole
        view = (
            validated.view_check(store, found.touched) if narrow and found else store.check_view()
        )
        cross, nodes = _cross_page(store, shapes, state if narrow and view.exact else None, found)
        catalogue = integrity.check(store)
        changed = _changed_keys(state, found, held) if state is not None and found else None
        summarised, deltas = summaries.check(store, changed), changelog.check(store, changed)
        keys = report_keys.check(store)
    across = [*cross, *(recorded.findings if recorded else ())]
    rechecked = validated.Rechecked(state, len(listed) - len(reports), reuse, found)
    rechecked.nodes = nodes
    if state is not None:
        rechecked.stored = _stored(state, [g for g in listed if g not in wanted])
    result = StoreReport(reports, across, view, catalogue, rechecked, summarised, deltas, keys)
    if save:
        versions = {g: held.get(g, "") for g in listed}
        versions.update({g: sha for g, sha in held.items() if graphs.is_history(g)})
        cross_page = tuple(dataclasses.asdict(f) for f in cross)
        counts = {g: c for g, c in (state.counts if state else {}).items() if g not in wanted}
        counts.update({g: _counts(r) for g, r in zip(checked, reports, strict=True)})
        saved = validated.State(
            digest,
            versions,
            view.exact,
            catalogue.exact and summarised.exact and deltas.exact and keys.exact,
            cross_page,
            when,
            counts,
            validated.checks_digest(),
        )
        store.replace_graphs({validated.GRAPH: saved.triples()})
    return result.conforms, result


def _changed_keys(
    state: validated.State, found: validated.Changes, held: Mapping[str, str]
) -> set[str] | None:
    """The pages whose audit summaries and deltas are compared again after the changes
    ``found`` (``held``: each graph's version now): those whose page graph changed or went, and
    those a kept version of came or went (a late older version changes a page's deltas, not its
    page graph). The others' were right at the saved run ``state``, as the catalogue was. None
    (every page) when that run found something wrong."""
    if not state.catalogue:
        return None
    moved = {g for g in set(held) ^ set(state.versions) if graphs.is_history(g)}
    named = (graphs.source_key(g) for g in [*found.pages, *found.gone, *moved])
    return {key for key in named if key}


def _plan(
    store: Store, everything: bool
) -> tuple[str, dict[str, str], list[str], validated.State | None, validated.Changes | None]:
    """The shapes' digest, the versions the graphs hold, the graphs to validate, the last saved
    re-validation against the same shapes (None with ``everything``) and what changed since."""
    digest = validated.shapes_digest()
    held = validated.versions(store)
    listed = page_graphs(store)
    state = None if everything else validated.saved(store)
    state = state if state is not None and state.shapes == digest else None
    found = validated.changes(state, held, listed) if state is not None else None
    return digest, held, listed, state, found


def _reusable(state: validated.State, found: validated.Changes | None) -> bool:
    """Whether the store-wide checks of ``state`` still hold: nothing changed, the view and
    the catalogue were right, and the cross-page checks are the queries that ran then."""
    same = state.checks == validated.checks_digest()
    return found is not None and found.none and state.view and state.catalogue and same


def _cross_page(
    store: Store,
    shapes: rdflib.Graph,
    state: validated.State | None,
    found: validated.Changes | None,
) -> tuple[list[Finding], int | None]:
    """The cross-page findings, and for how many nodes they were run again (None: over
    everything). They are run again only for what the pages changed since ``state`` state
    (see :func:`cross_page_findings`) when ``state``'s findings hold for the rest: found by
    the same queries, over a view that was right then and is right now over what changed,
    every earlier version of a changed page kept; else over everything."""
    if state is None or found is None or state.checks != validated.checks_digest():
        return cross_page_findings(store, shapes), None
    nodes = validated.stated(store, found.touched)
    saved = [Finding(**f) for f in state.cross_page]  # type: ignore[arg-type]
    found_now = cross_page_findings(store, shapes, saved=saved, nodes=nodes, touched=found.touched)
    return found_now, len(nodes)


def unchanged(store: Store, engine: Engine = "auto") -> StoreReport | None:
    """The report of a re-validation of ``store`` that has nothing to check again (see
    :func:`validate_store`): no page changed since the last saved re-validation against the
    same shapes, whose store-wide checks still hold. None when something must be checked.
    Reads only: it needs no store open to write. Raises ShapesError, QueryError or
    StoreError."""
    _, _, listed, state, found = _plan(store, everything=False)
    if state is None or not _reusable(state, found):
        return None
    records = list(store.graph_triples(graphs.ALIASES))
    recorded = (
        validate_triples(records, "the alias records", shapes_graph(), engine)[1]
        if records
        else None
    )
    cross = [Finding(**f) for f in state.cross_page]  # type: ignore[arg-type]
    across = [*cross, *(recorded.findings if recorded else ())]
    rechecked = validated.Rechecked(state, len(listed), True, found, _stored(state, listed))
    return StoreReport([], across, rechecked=rechecked)


def _counts(report: Report) -> list[tuple[str, str, int]]:
    """How many findings of each severity and shape ``report`` holds."""
    found = Counter((f.severity, f.shape) for f in report.findings)
    return [(severity, shape, n) for (severity, shape), n in sorted(found.items())]


def _stored(state: validated.State, unchecked: Iterable[str]) -> list[tuple[str, str, int, str]]:
    """``(severity, shape, findings, graph)`` of the stored reports of the pages ``unchecked``,
    as ``state`` counted them."""
    return [(s, shape, n, g) for g in unchecked for s, shape, n in state.counts.get(g, ())]
