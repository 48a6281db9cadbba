"""Validation against the SHACL shapes in ``shapes/``: the ingest gate and validation reports
as data (re-validating a whole store is :mod:`benchgraph.store_validation`).

Validation is a result, not an exception: ``(conforms, report)``; a page conforms when no
finding has severity ``sh:Violation``. Validation only ever sees one page's graph in memory, so
re-validating a store grows linearly with its pages. The shapes compiled to Python checks
(:mod:`benchgraph.shacl`) validate a page in a few milliseconds with pyshacl's exact report;
pyshacl itself (tens of milliseconds for a page of thirty results) validates the pages and shapes
they do not cover, and every page with ``engine="pyshacl"``. Neither runs over the store itself:
what no single page can show is checked by the ``queries/check-*.rq`` queries, each paired with a
shape of the same name (``bgsh:check-metric-units``) that gives its severity and message.

The report of each page is kept in the store, in a named graph of its own beside the page's
graph (:func:`benchgraph.graphs.report` names it), as a ``sh:ValidationReport`` whose
``dcterms:subject`` is the page's ``bg:SourceDocument``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyoxigraph as ox
import rdflib
from rdflib import RDF, BNode, URIRef
from rdflib.collection import Collection
from rdflib.term import Node

from benchgraph import (
    report_keys,
    resources,
    shacl,
    terms,
)
from benchgraph import vocab as V
from benchgraph.settings import Engine

if TYPE_CHECKING:
    from rdflib.plugins.sparql.sparql import Query

SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")
BGSH = "https://w3id.org/benchgraph/shapes#"
SEVERITIES = ("Violation", "Warning", "Info")
ACROSS_PAGES = "across pages"  # the page of a cross-page check's finding
PREFIXES = {
    **V.PREFIXES,
    "bgsh": BGSH,
    "sh": str(SH),
    "qudt": "http://qudt.org/schema/qudt/",
    "owl": "http://www.w3.org/2002/07/owl#",
}
_KINDS = {
    V.Result: "result",
    V.Aggregate: "aggregate",
    V.SourceDocument: "source",
    V.Method: "method",
    V.Metric: "metric",
    V.Benchmark: "benchmark",
    V.Paper: "paper",
    V.UnmappedUnit: "unit",
}


class ShapesError(Exception):
    """The shapes cannot be used: a file does not parse, a shape is malformed, or a cross-page
    check has no shape."""


def compact(term: Node | str) -> str:
    """An IRI as ``prefix:local`` when a known prefix fits, else as it is."""
    text = str(term)
    for prefix, namespace in PREFIXES.items():
        if text.startswith(namespace) and len(text) > len(namespace):
            return f"{prefix}:{text[len(namespace) :]}"
    return text


# ---------------------------------------------------------------------------------------------
# Shapes

_shapes_cache: dict[Path, tuple[tuple[tuple[str, int, int], ...], rdflib.Graph]] = {}


def shapes_graph(folder: Path | None = None) -> rdflib.Graph:
    """Every ``*.ttl`` file of ``folder`` (default: the shapes folder) as one graph, re-read
    when a file changes. Raises ShapesError naming a file that does not parse."""
    folder = folder or resources.shapes_dir()
    files = sorted(folder.glob("*.ttl"))
    if not files:
        raise ShapesError(f"no shapes (*.ttl) in {folder}")
    key = tuple((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in files)
    cached = _shapes_cache.get(folder)
    if cached and cached[0] == key:
        return cached[1]
    graph = rdflib.Graph()
    for path in files:
        try:
            graph.parse(path, format="turtle")
        except Exception as error:  # rdflib raises many types for bad Turtle
            raise ShapesError(f"{path}: not valid Turtle: {error}") from None
    _shapes_cache[folder] = (key, graph)
    return graph


def shape_text(shapes: rdflib.Graph, shape: str) -> tuple[str, str]:
    """The severity (``Violation``, ...) and message of ``shape``. Raises ShapesError if absent."""
    severity = shapes.value(URIRef(shape), SH.severity)
    message = shapes.value(URIRef(shape), SH.message)
    if severity is None or message is None:
        raise ShapesError(f"no shape {compact(shape)} with sh:severity and sh:message in shapes/")
    return str(severity).removeprefix(str(SH)), str(message)


# ---------------------------------------------------------------------------------------------
# Findings and reports


@dataclass(frozen=True)
class Finding:
    """One validation result, with what a reader needs to find the thing it is about."""

    severity: str  # "Violation", "Warning" or "Info"
    shape: str  # IRI of the source shape
    message: str
    focus: str  # IRI (or blank node label) of the focus node
    kind: str  # "result", "method", "source", ... or "node"
    name: str  # the focus node's source ID, else its label, else its IRI
    page: str  # the file (at ingest) or the page's source ID (in the store)
    path: str | None = None
    value: str | None = None

    def describe(self) -> str:
        """``result 69aa…: needs exactly one unit … [bgsh:Result-unit, bg:unit]``."""
        where = ", ".join(x for x in (compact(self.shape), self.path) if x)
        return f"{self.kind} {self.name}: {self.message} [{where}]"

    def text(self) -> str:
        return f"{self.severity.lower()}: {self.page}: {self.describe()}"

    def as_dict(self) -> dict[str, str | None]:
        return {
            "severity": self.severity,
            "page": self.page,
            "focus": self.focus,
            "kind": self.kind,
            "sourceId": self.name,
            "path": self.path,
            "shape": self.shape,
            "value": self.value,
            "message": self.message,
        }


def path_text(graph: rdflib.Graph, path: Node | None) -> str | None:
    """A SHACL path of ``graph`` as text: ``bg:unit``, or ``bg:metric/bg:unit`` for a sequence."""
    if path is None:
        return None
    if isinstance(path, BNode):  # a sequence path: an RDF list of predicates
        items = list(Collection(graph, path))
        return "/".join(compact(i) for i in items) if items else None
    return compact(path)


def _path_text(
    triples: Mapping[ox.BlankNode | ox.NamedNode, dict[str, list[Any]]], path: Any
) -> str | None:
    """A SHACL path of a report as text: ``bg:unit``, or ``bg:metric/bg:unit`` for a sequence."""
    if path is None:
        return None
    if isinstance(path, ox.NamedNode):
        return compact(path.value)
    steps = []
    while isinstance(path, ox.BlankNode) and path in triples:
        first = triples[path].get(str(RDF.first))
        if not first:
            break
        steps.append(compact(first[0].value))
        path = triples[path].get(str(RDF.rest), [None])[0]
    return "/".join(steps) if steps else None


Describe = Callable[[ox.NamedNode | ox.BlankNode | ox.Literal], tuple[str, str]]


def findings_of(report: Iterable[ox.Triple], page: str, describe: Describe) -> tuple[Finding, ...]:
    """The findings of a SHACL report given as triples, sorted; ``describe`` gives a focus
    node's kind and name."""
    by_subject: dict[Any, dict[str, list[Any]]] = {}
    for t in report:
        by_subject.setdefault(t.subject, {}).setdefault(t.predicate.value, []).append(t.object)
    findings = [
        _finding(props, by_subject, page, describe)
        for props in by_subject.values()
        if _RESULT in (o.value for o in props.get(str(RDF.type), []))
    ]
    findings.sort(
        key=lambda f: (
            SEVERITIES.index(f.severity),
            f.kind,
            f.name,
            f.shape,
            f.focus,
            f.path or "",
            f.value is not None,  # no value before an empty one: a total order
            f.value or "",
        )
    )
    return tuple(findings)


def _finding(
    props: dict[str, list[Any]],
    by_subject: Mapping[Any, dict[str, list[Any]]],
    page: str,
    describe: Describe,
) -> Finding:
    def one(name: str) -> Any:
        values = props.get(str(SH) + name)
        return values[0] if values else None

    focus, value, message = one("focusNode"), one("value"), one("resultMessage")
    kind, name = describe(focus) if focus is not None else ("node", "")
    return Finding(
        severity=one("resultSeverity").value.removeprefix(str(SH)),
        shape=one("sourceShape").value,
        message="" if message is None else message.value,
        focus="" if focus is None else focus.value,
        kind=kind,
        name=name,
        page=page,
        path=_path_text(by_subject, one("resultPath")),
        value=None if value is None else value.value,
    )


_RESULT = str(SH.ValidationResult)


@dataclass(frozen=True)
class Report:
    """The validation report of one page: its findings and the SHACL report as triples (a
    blank ``sh:ValidationReport`` node and its results)."""

    page: str
    findings: tuple[Finding, ...]
    report: tuple[ox.Triple, ...] = field(compare=False, repr=False)
    engine: str = field(default="pyshacl", compare=False)

    @property
    def conforms(self) -> bool:
        return not any(f.severity == "Violation" for f in self.findings)

    def count(self, severity: str) -> int:
        return sum(1 for f in self.findings if f.severity == severity)

    def refusal(self, limit: int = 20) -> str:
        """Why the page is refused: the page, then one line per violation (focus, message)."""
        violations = [f for f in self.findings if f.severity == "Violation"]
        lines = [f"  {f.describe()}" for f in violations[:limit]]
        if len(violations) > limit:
            lines.append(f"  … and {len(violations) - limit} more")
        n = len(violations)
        head = f"{self.page}: {n} violation{'s' if n != 1 else ''} of the shapes, nothing written:"
        return "\n".join([head, *lines])

    def triples(self, iri: str, subject: str | None, when: str) -> list[ox.Triple]:
        """The report as triples to store: the report node is ``iri`` (its report graph's
        name), about ``subject`` (the page's source document), made at ``when`` (an
        xsd:dateTime lexical form), with its key (:mod:`benchgraph.report_keys`)."""
        node = ox.NamedNode(iri)
        nodes = {t.subject for t in self.report if t.object == _REPORT_CLASS}
        kept: dict[ox.Triple, None] = {}
        for t in self.report:
            if t.predicate != _CONFORMS:
                s = node if t.subject in nodes else t.subject
                kept[ox.Triple(s, t.predicate, t.object)] = None
        kept[ox.Triple(node, _TYPE, _REPORT_CLASS)] = None
        conforms = ox.Literal("true" if self.conforms else "false", datatype=_BOOLEAN)
        kept[ox.Triple(node, _CONFORMS, conforms)] = None
        kept[ox.Triple(node, ox.NamedNode(V.generatedAtTime), ox.Literal(when, datatype=_DT))] = (
            None
        )
        if subject is not None:
            kept[ox.Triple(node, ox.NamedNode(V.DCTERMS + "subject"), ox.NamedNode(subject))] = None
        kept.update(dict.fromkeys(report_keys.triples(iri)))
        return list(kept)


_TYPE = ox.NamedNode(str(RDF.type))
_REPORT_CLASS = ox.NamedNode(str(SH.ValidationReport))
_CONFORMS = ox.NamedNode(str(SH.conforms))
_BOOLEAN = ox.NamedNode(V.XSD + "boolean")
_DT = ox.NamedNode(V.XSD + "dateTime")


def now() -> str:
    """The current time as an xsd:dateTime lexical form (UTC, seconds)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def _describe_in(data: rdflib.Graph) -> Describe:
    def describe(focus: ox.NamedNode | ox.BlankNode | ox.Literal) -> tuple[str, str]:
        node = terms.to_rdflib(focus)
        kinds = [_KINDS[str(t)] for t in data.objects(node, RDF.type) if str(t) in _KINDS]
        names = sorted(str(n) for n in data.objects(node, URIRef(V.identifier)))
        names = names or sorted(str(n) for n in data.objects(node, URIRef(V.label)))
        return (kinds[0] if kinds else "node"), (names[0] if names else focus.value)

    return describe


def _describe_page(page: shacl.Page) -> Describe:
    identifier, label = ox.NamedNode(V.identifier), ox.NamedNode(V.label)

    def describe(focus: ox.NamedNode | ox.BlankNode | ox.Literal) -> tuple[str, str]:
        props = page.out.get(focus, {})
        types = props.get(_TYPE, {})
        kinds = [_KINDS[t.value] for t in types if t.value in _KINDS]
        names = sorted(n.value for n in props.get(identifier, {}))
        names = names or sorted(n.value for n in props.get(label, {}))
        return (kinds[0] if kinds else "node"), (names[0] if names else focus.value)

    return describe


def validate_graph(
    data: rdflib.Graph, page: str, shapes: rdflib.Graph | None = None
) -> tuple[bool, Report]:
    """Validate one page's graph with pyshacl; return ``(conforms, report)``.

    ``page`` names the page in findings. Raises ShapesError when the shapes cannot be used.
    """
    import pyshacl  # only here: the compiled shapes validate most pages without it

    shapes = shapes if shapes is not None else shapes_graph()
    try:
        _, graph, _ = pyshacl.validate(
            data, shacl_graph=shapes, inference="none", inplace=True, allow_warnings=True
        )
    except pyshacl.errors.ReportableRuntimeError as error:
        raise ShapesError(f"the shapes cannot be applied: {error.message}") from None
    except (TypeError, ValueError) as error:  # pyshacl comparing values it cannot compare
        raise ShapesError(f"the shapes cannot be applied to these values: {error}") from None
    if not isinstance(graph, rdflib.Graph):  # pyshacl returns a ValidationFailure as the graph
        raise ShapesError(f"the shapes cannot be applied: {graph}")
    triples = tuple(terms.to_oxigraph_triples(graph))
    report = Report(page, findings_of(triples, page, _describe_in(data)), triples)
    return report.conforms, report


def compiled(shapes: rdflib.Graph) -> shacl.CompiledShapes | None:
    """``shapes`` compiled, or None when they use what is not compiled. A graph is compiled
    once, as it is then (:func:`shapes_graph` gives a new graph when a file changes)."""
    key = id(shapes)
    found = _compiled_cache.get(key)
    if found is None or found[0] is not shapes:
        try:
            found = (shapes, shacl.compile_shapes(shapes))
        except shacl.Unsupported:
            found = (shapes, None)
        if len(_compiled_cache) >= 8:
            _compiled_cache.clear()
        _compiled_cache[key] = found
    return found[1]


_compiled_cache: dict[int, tuple[rdflib.Graph, shacl.CompiledShapes | None]] = {}

# Engine and ENGINES are declared with the settings, which the command line reads without
# importing this module (and rdflib with it).


class PageGraph(rdflib.Graph):
    """An in-memory rdflib graph of one page, as pyshacl is given it.

    pyshacl runs a shape's SPARQL (``sh:sparql``) through the data graph's ``query`` as text, for
    every page and focus node, and rdflib parses SPARQL slowly (about 40 ms for the one such
    shape). This graph parses each text once per process and hands rdflib the parsed query,
    exactly as it would have parsed it (the same namespaces for undeclared prefixes).
    """

    def query(
        self,
        query_object: str | Query,
        processor: Any = "sparql",
        result: Any = "sparql",
        initNs: Mapping[str, Any] | None = None,  # rdflib's parameter names
        initBindings: Mapping[str, Any] | None = None,
        use_store_provided: bool = True,
        **kwargs: Any,
    ) -> rdflib.query.Result:
        if isinstance(query_object, str) and processor == "sparql" and not kwargs:
            namespaces = initNs or dict(self.namespaces())
            query_object = _prepared(query_object, tuple(sorted(namespaces.items())))
        return super().query(
            query_object, processor, result, initNs, initBindings, use_store_provided, **kwargs
        )


@lru_cache(maxsize=64)
def _prepared(text: str, namespaces: tuple[tuple[str, Any], ...]) -> Query:
    from rdflib.plugins.sparql import prepareQuery

    return prepareQuery(text, initNs=dict(namespaces))


def data_graph(triples: Iterable[ox.Triple]) -> PageGraph:
    """The triples of one page as the graph pyshacl validates."""
    graph = PageGraph()
    terms.to_graph(triples, graph)
    return graph


def validate_triples(
    triples: Iterable[ox.Triple],
    page: str,
    shapes: rdflib.Graph | None = None,
    engine: Engine = "auto",
) -> tuple[bool, Report]:
    """Validate the triples of one page (the mapper's output); return ``(conforms, report)``.

    With ``engine="auto"`` the compiled shapes (:mod:`benchgraph.shacl`) validate the page when
    they can, giving pyshacl's report; pyshacl does otherwise, and always with ``"pyshacl"``.
    """
    shapes = shapes if shapes is not None else shapes_graph()
    triples = triples if isinstance(triples, list) else list(triples)
    checker = compiled(shapes) if engine == "auto" else None
    if checker is not None:
        try:
            data = shacl.Page(triples)
            report = tuple(checker.validate(data))
        except shacl.Unsure:
            pass
        else:
            found = Report(
                page, findings_of(report, page, _describe_page(data)), report, "compiled"
            )
            return found.conforms, found
    return validate_graph(data_graph(triples), page, shapes)


# ---------------------------------------------------------------------------------------------
# The whole store
