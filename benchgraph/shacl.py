"""The shapes compiled to Python checks over one page's triples: pyshacl's findings and report,
without pyshacl's cost.

pyshacl is the reference and stays the engine for anything this module does not cover. It
spends about 50 ms on a page of thirty results, most of it its own machinery (the page's rdflib
graph, per-shape set-up, SPARQL parsing), several times what parsing, mapping and writing the page
cost together. The shapes in ``shapes/`` use a small part of SHACL Core; :func:`compile_shapes`
reads them once into :class:`Shape` objects whose checks run over a plain index of the page.

Two guards keep the answers exactly pyshacl's (``tests/quality/test_compiled.py`` compares both
engines' report graphs, on the example pages, the failing shape examples, generated corpora and
randomly damaged pages):

* :class:`Unsupported`: a shapes graph that uses anything outside the subset below is not compiled
  at all, and every page goes to pyshacl.
* :class:`Unsure`: a page on which pyshacl's reading of the data could differ from a plain reading
  of its terms raises it, and that page goes to pyshacl: a typed literal rdflib finds ill-typed or
  writes in another lexical form (``"01"^^xsd:integer`` becomes ``"1"``), a blank node that would
  appear in a result (pyshacl copies its description into the report), ``rdfs:subClassOf`` in the
  data (class targets then reach subclasses), or a comparison of values that are not both numbers.

The subset: targets ``sh:targetClass`` and ``sh:targetSubjectsOf``; paths that are a predicate or a
sequence of predicates; ``sh:minCount``, ``sh:maxCount``, ``sh:datatype``, ``sh:nodeKind``,
``sh:pattern`` (no flags), ``sh:minLength``, ``sh:class``, ``sh:in`` (IRIs), ``sh:equals``,
``sh:lessThanOrEquals``, ``sh:minInclusive``, ``sh:minExclusive``, ``sh:maxInclusive``,
``sh:maxExclusive``, ``sh:or`` of such shapes, and ``sh:sparql`` SELECT constraints (run by
pyoxigraph with ``$this`` pre-bound, as rdflib pre-binds it); every targeted shape has a fixed
``sh:message``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

import pyoxigraph as ox
import rdflib
from rdflib import RDF, RDFS, BNode, URIRef
from rdflib.collection import Collection
from rdflib.term import Node

from benchgraph.terms import to_oxigraph

SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")
_XSD = "http://www.w3.org/2001/XMLSchema#"
_STRING = _XSD + "string"
_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
_TYPE = ox.NamedNode(str(RDF.type))
_SUBCLASS = ox.NamedNode(str(RDFS.subClassOf))
_RESULT = ox.NamedNode(str(SH.ValidationResult))
_REPORT = ox.NamedNode(str(SH.ValidationReport))

# A node of the data graph, as pyoxigraph holds it.
DataNode = ox.NamedNode | ox.BlankNode | ox.Literal


class Unsupported(Exception):
    """The shapes use something this module does not compile; pyshacl validates every page."""


class Unsure(Exception):
    """pyshacl might read this page differently from its plain terms; pyshacl validates it."""


# ---------------------------------------------------------------------------------------------
# The page


class Page:
    """One page's triples, indexed by subject and predicate, by class and by predicate."""

    def __init__(self, triples: Iterable[ox.Triple]) -> None:
        self.triples = triples if isinstance(triples, list) else list(triples)
        out: dict[DataNode, dict[ox.NamedNode, dict[DataNode, None]]] = {}
        by_class: dict[DataNode, dict[DataNode, None]] = {}
        by_predicate: dict[ox.NamedNode, dict[DataNode, None]] = {}
        literals: set[tuple[DataNode, ox.NamedNode, ox.Literal]] = set()
        for t in self.triples:
            s, p, o = t.subject, t.predicate, t.object
            if isinstance(s, ox.Triple) or isinstance(o, ox.Triple):
                raise Unsure("an RDF-star triple term")
            props = out.get(s)
            if props is None:
                props = out[s] = {}
            objects = props.get(p)
            if objects is None:
                objects = props[p] = {}
            objects[o] = None
            subjects = by_predicate.get(p)
            if subjects is None:
                subjects = by_predicate[p] = {}
            subjects[s] = None
            if p == _TYPE:
                instances = by_class.get(o)
                if instances is None:
                    instances = by_class[o] = {}
                instances[s] = None
            elif isinstance(o, ox.Literal):
                literals.add((s, p, o))
        if _SUBCLASS in by_predicate:
            raise Unsure("rdfs:subClassOf in the data")
        self._check_literals(literals)
        self.out = out
        self.by_class = by_class
        self.by_predicate = by_predicate
        self._store: ox.Store | None = None

    @staticmethod
    def _check_literals(literals: set[tuple[DataNode, ox.NamedNode, ox.Literal]]) -> None:
        """Raise Unsure where rdflib would read the page's literals otherwise than as terms. A
        date or time rdflib writes in another form (``…15.780Z`` as ``…15.780000+00:00``) keeps
        its value, which is all the compiled checks read; two such values of one property that
        rdflib would merge, or any other literal it rewrites, are not safe."""
        seen: set[tuple[DataNode, ox.NamedNode, str]] = set()
        for s, p, literal in literals:
            text = _reading(literal)
            if text is None:
                continue
            if literal.datatype.value not in _TEMPORAL:
                raise Unsure(f"a literal rdflib writes otherwise: {literal}")
            if (s, p, text) in seen:
                raise Unsure(f"two values rdflib reads as one: {literal}")
            seen.add((s, p, text))

    def values(self, node: DataNode, path: Sequence[ox.NamedNode]) -> list[DataNode]:
        """The distinct values of ``path`` from ``node`` (the node itself for the empty path)."""
        nodes: dict[DataNode, None] = {node: None}
        for predicate in path:
            step: dict[DataNode, None] = {}
            for n in nodes:
                found = self.out.get(n)
                if found is not None:
                    step.update(found.get(predicate, {}))
            nodes = step
        return list(nodes)

    def has_type(self, node: DataNode, cls: DataNode) -> bool:
        return node in self.by_class.get(cls, {})

    def store(self) -> ox.Store:
        """The page in an in-memory pyoxigraph store, for SPARQL constraints (made once)."""
        if self._store is None:
            self._store = ox.Store()
            self._store.extend(ox.Quad(t.subject, t.predicate, t.object) for t in self.triples)
        return self._store


@lru_cache(maxsize=1 << 12)
def _rdflib_literal(lexical: str, datatype: str) -> rdflib.Literal:
    return rdflib.Literal(lexical, datatype=URIRef(datatype))


_TEMPORAL = {_XSD + "date", _XSD + "dateTime", _XSD + "time"}


def _reading(literal: ox.Literal) -> str | None:
    """The lexical form rdflib gives ``literal`` (None: the same). Raises Unsure for an ill-typed
    literal or a language tag rdflib may write otherwise."""
    if literal.language:
        if literal.language != literal.language.lower():
            raise Unsure(f"a language tag rdflib may write otherwise: {literal}")
        return None
    datatype = literal.datatype.value
    if datatype == _STRING:
        return None
    parsed = _rdflib_literal(literal.value, datatype)
    if parsed.ill_typed:
        raise Unsure(f"a literal rdflib finds ill-typed: {literal}")
    text = str(parsed)
    return None if text == literal.value else text


def _same_reading(literal: ox.Literal) -> None:
    """Raise Unsure unless rdflib writes ``literal`` as it is (it is to appear in a report)."""
    if _reading(literal) is not None:
        raise Unsure(f"a literal rdflib writes otherwise: {literal}")


def _python_value(term: DataNode) -> object:
    """The Python value pyshacl compares: rdflib's value of a literal (None if it has none)."""
    if not isinstance(term, ox.Literal):
        return None
    if term.language or term.datatype.value == _STRING:
        return term.value
    return _rdflib_literal(term.value, term.datatype.value).value


def _number(term: DataNode) -> Decimal | int | float:
    value = _python_value(term)
    if isinstance(value, bool) or not isinstance(value, (int, Decimal, float)):
        raise Unsure(f"a comparison of a value that is not a number: {term}")
    return value


# ---------------------------------------------------------------------------------------------
# Constraints: each gives the value nodes in violation (None: a result without sh:value)

Check = Callable[[Page, DataNode, list[DataNode]], list[DataNode | None]]


@dataclass(frozen=True)
class Constraint:
    component: str  # the constraint component's local name: "MinCount"
    check: Check
    source: ox.NamedNode | None = None  # sh:sourceConstraint (SPARQL constraints)


def _min_count(n: int) -> Check:
    return lambda page, focus, values: [None] if len(values) < n else []


def _max_count(n: int) -> Check:
    return lambda page, focus, values: [None] if len(values) > n else []


def _datatype(datatype: str) -> Check:
    def check(page: Page, focus: DataNode, values: list[DataNode]) -> list[DataNode | None]:
        bad: list[DataNode | None] = []
        for v in values:
            if not isinstance(v, ox.Literal):
                bad.append(v)
            elif v.language:
                if datatype != _LANG_STRING:
                    bad.append(v)
            elif v.datatype.value != datatype or not _matches_type(v, datatype):
                bad.append(v)
        return bad

    if datatype.startswith(str(RDFS)):  # rdfs:Literal, rdfs:Datatype: pyshacl's special cases
        raise Unsupported(f"sh:datatype {datatype}")
    return check


_PYTHON_TYPES = {
    _XSD + "integer": int,
    _XSD + "decimal": Decimal,
    _XSD + "float": float,
    _XSD + "boolean": bool,
}


def _matches_type(literal: ox.Literal, datatype: str) -> bool:
    """pyshacl's test of a literal of the right datatype: well typed, and of the Python type rdflib
    gives that datatype. Raises Unsure where that type is not known here."""
    if datatype in (_STRING, _LANG_STRING):
        return True
    value = _rdflib_literal(literal.value, datatype).value
    if datatype in _PYTHON_TYPES:
        return isinstance(value, _PYTHON_TYPES[datatype])
    if datatype in (_XSD + "date", _XSD + "dateTime", _XSD + "time"):
        return value is not None
    return True  # pyshacl passes datatypes it does not know (ill-typed ones raised Unsure)


_NODE_KINDS = {
    "IRI": (ox.NamedNode,),
    "BlankNode": (ox.BlankNode,),
    "Literal": (ox.Literal,),
    "BlankNodeOrIRI": (ox.BlankNode, ox.NamedNode),
    "BlankNodeOrLiteral": (ox.BlankNode, ox.Literal),
    "IRIOrLiteral": (ox.NamedNode, ox.Literal),
}


def _node_kind(kind: str) -> Check:
    if kind not in _NODE_KINDS:
        raise Unsupported(f"sh:nodeKind sh:{kind}")
    types = _NODE_KINDS[kind]
    return lambda page, focus, values: [v for v in values if not isinstance(v, types)]


def _pattern(pattern: str) -> Check:
    regex = re.compile(pattern)

    def check(page: Page, focus: DataNode, values: list[DataNode]) -> list[DataNode | None]:
        return [v for v in values if isinstance(v, ox.BlankNode) or not regex.search(_text(v))]

    return check


def _text(term: ox.NamedNode | ox.Literal) -> str:
    """The string pyshacl matches: an IRI, or a literal's lexical form as rdflib writes it
    (Unsure where that is not the page's)."""
    if isinstance(term, ox.Literal):
        _same_reading(term)
    return term.value


def _min_length(n: int) -> Check:
    def check(page: Page, focus: DataNode, values: list[DataNode]) -> list[DataNode | None]:
        if n == 0:
            return []
        return [v for v in values if isinstance(v, ox.BlankNode) or len(_text(v)) < n]

    return check


def _class(cls: ox.NamedNode) -> Check:
    def check(page: Page, focus: DataNode, values: list[DataNode]) -> list[DataNode | None]:
        return [v for v in values if isinstance(v, ox.Literal) or not page.has_type(v, cls)]

    return check


def _in(members: frozenset[DataNode]) -> Check:
    return lambda page, focus, values: [v for v in values if v not in members]


def _equals(predicate: ox.NamedNode) -> Check:
    def check(page: Page, focus: DataNode, values: list[DataNode]) -> list[DataNode | None]:
        others = page.values(focus, (predicate,))
        if any(isinstance(v, ox.Literal) for v in (*values, *others)):
            raise Unsure("sh:equals over literals")  # rdflib compares some literals by value
        mine, theirs = set(values), set(others)
        bad: list[DataNode | None] = [v for v in values if v not in theirs]
        return bad + [v for v in others if v not in mine]

    return check


def _less_than_or_equals(predicate: ox.NamedNode) -> Check:
    def check(page: Page, focus: DataNode, values: list[DataNode]) -> list[DataNode | None]:
        others = page.values(focus, (predicate,))
        bad: list[DataNode | None] = []
        for v in values:
            for other in others:  # pyshacl: one result per failed pair
                if not _number(v) <= _number(other):
                    bad.append(v)
        return bad

    return check


_RANGES: dict[str, Callable[[object, object], bool]] = {
    "MinInclusive": lambda value, bound: value >= bound,  # type: ignore[operator]
    "MinExclusive": lambda value, bound: value > bound,  # type: ignore[operator]
    "MaxInclusive": lambda value, bound: value <= bound,  # type: ignore[operator]
    "MaxExclusive": lambda value, bound: value < bound,  # type: ignore[operator]
}


def _range(component: str, bound: DataNode) -> Check:
    try:
        limit = _number(bound)
    except Unsure:
        raise Unsupported(f"sh:{component[0].lower()}{component[1:]} {bound}") from None
    holds = _RANGES[component]

    def check(page: Page, focus: DataNode, values: list[DataNode]) -> list[DataNode | None]:
        return [v for v in values if not holds(_number(v), limit)]

    return check


def _or(members: list[Shape]) -> Check:
    def check(page: Page, focus: DataNode, values: list[DataNode]) -> list[DataNode | None]:
        return [v for v in values if not any(m.conforms(page, v) for m in members)]

    return check


def _sparql(query: str) -> Check:
    if "$this" not in query or re.search(r"\$(value|PATH|currentShape|shapesGraph)\b", query):
        raise Unsupported("sh:sparql without $this, or with another pre-bound variable")
    this = ox.Variable("this")

    def check(page: Page, focus: DataNode, values: list[DataNode]) -> list[DataNode | None]:
        answer = page.store().query(query, substitutions={this: focus})
        if not isinstance(answer, ox.QuerySolutions):
            raise Unsupported("sh:sparql that is not a SELECT")
        names = [v.value for v in answer.variables]
        if "failure" in names or "path" in names:
            raise Unsupported("sh:sparql with ?failure or ?path")
        rows: dict[tuple[DataNode | None, ...], None] = {}
        for row in answer:
            rows[tuple(row[n] for n in names)] = None
        bad: list[DataNode | None] = []
        for row_values in rows:
            row_map = dict(zip(names, row_values, strict=True))
            if row_map.get("this") not in (None, focus):
                raise Unsure("a SPARQL constraint reporting on another focus node")
            value = row_map.get("value")
            if value is not None:
                bad.append(value)
            elif row_map.get("this") is not None:  # pyshacl skips a row binding neither
                bad.append(focus)
        return bad

    return check


# ---------------------------------------------------------------------------------------------
# Shapes


@dataclass(frozen=True)
class Shape:
    """One shape: where it looks (targets, path) and what it requires (constraints)."""

    iri: Node
    path: tuple[ox.NamedNode, ...] | None  # None: a node shape
    path_node: Node | None  # the sh:path node of the shapes graph, as the report names it
    constraints: tuple[Constraint, ...]
    target_classes: tuple[ox.NamedNode, ...] = ()
    target_subjects_of: tuple[ox.NamedNode, ...] = ()
    severity: str = "Violation"
    messages: tuple[rdflib.Literal, ...] = ()

    def focus_nodes(self, page: Page) -> list[DataNode]:
        found: dict[DataNode, None] = {}
        for cls in self.target_classes:
            found.update(page.by_class.get(cls, {}))
        for predicate in self.target_subjects_of:
            found.update(page.by_predicate.get(predicate, {}))
        return list(found)

    def value_nodes(self, page: Page, focus: DataNode) -> list[DataNode]:
        return [focus] if self.path is None else page.values(focus, self.path)

    def conforms(self, page: Page, focus: DataNode) -> bool:
        values = self.value_nodes(page, focus)
        return not any(c.check(page, focus, values) for c in self.constraints)

    def results(self, page: Page) -> Iterable[tuple[Constraint, DataNode, DataNode | None]]:
        for focus in self.focus_nodes(page):
            values = self.value_nodes(page, focus)
            for constraint in self.constraints:
                for value in constraint.check(page, focus, values):
                    yield constraint, focus, value


_NOT_CONSTRAINTS = {
    RDF.type,
    RDFS.label,
    RDFS.comment,
    SH.targetClass,
    SH.targetSubjectsOf,
    SH.path,
    SH.severity,
    SH.message,
    SH.name,
    SH.description,
}
_TARGETS = (SH.targetClass, SH.targetSubjectsOf, SH.targetNode, SH.targetObjectsOf, SH.target)


def _one(graph: rdflib.Graph, node: Node, predicate: URIRef) -> Node:
    values = list(graph.objects(node, predicate))
    if len(values) != 1:
        raise Unsupported(f"{node}: {len(values)} values of {predicate}")
    return values[0]


def _iri(node: Node) -> ox.NamedNode:
    if not isinstance(node, URIRef):
        raise Unsupported(f"not an IRI: {node!r}")
    return ox.NamedNode(str(node))


def _integer(node: Node) -> int:
    value = node.value if isinstance(node, rdflib.Literal) else None
    if not isinstance(value, int) or isinstance(value, bool):
        raise Unsupported(f"not an integer: {node!r}")
    return value


def _path(graph: rdflib.Graph, node: Node) -> tuple[ox.NamedNode, ...]:
    if isinstance(node, URIRef):
        return (ox.NamedNode(str(node)),)
    if isinstance(node, BNode) and (node, RDF.first, None) in graph:
        steps = tuple(_iri(step) for step in Collection(graph, node))
        if not steps:
            raise Unsupported("an empty sequence path")
        return steps
    raise Unsupported(f"a path other than a predicate or a sequence: {node!r}")


def _sparql_text(graph: rdflib.Graph, constraint: Node) -> str:
    unknown = set(graph.predicates(constraint)) - {RDF.type, SH.select, SH.prefixes}
    if unknown:
        raise Unsupported(f"{constraint}: {sorted(map(str, unknown))}")
    select = str(_one(graph, constraint, SH.select))
    prefixes = []
    for ontology in graph.objects(constraint, SH.prefixes):
        for declaration in graph.objects(ontology, SH.declare):
            prefix = _one(graph, declaration, SH.prefix)
            namespace = _one(graph, declaration, SH.namespace)
            prefixes.append(f"PREFIX {prefix}: <{namespace}>\n")
    return "".join(prefixes) + select


def _shape(graph: rdflib.Graph, node: Node, targeted: bool) -> Shape:
    predicates = set(graph.predicates(node))
    types = set(graph.objects(node, RDF.type))
    if types & {RDFS.Class, URIRef("http://www.w3.org/2002/07/owl#Class")}:
        raise Unsupported(f"{node}: an implicit class target")
    path_node = graph.value(node, SH.path)
    path = None if path_node is None else _path(graph, path_node)
    constraints = [
        constraint
        for predicate, value in graph.predicate_objects(node)
        if (constraint := _constraint(graph, node, predicate, value)) is not None
    ]
    if path is None and (SH.minCount in predicates or SH.maxCount in predicates):
        raise Unsupported(f"{node}: a count on a node shape")
    if path is not None and SH.sparql in predicates:
        raise Unsupported(f"{node}: sh:sparql on a property shape")
    severity = graph.value(node, SH.severity, default=SH.Violation)
    messages = tuple(m for m in graph.objects(node, SH.message) if isinstance(m, rdflib.Literal))
    if targeted:
        if not messages or any("{" in str(m) for m in messages):
            raise Unsupported(f"{node}: a shape without a fixed sh:message")
        if severity not in (SH.Violation, SH.Warning, SH.Info):
            raise Unsupported(f"{node}: severity {severity}")
    return Shape(
        iri=node,
        path=path,
        path_node=path_node,
        constraints=tuple(constraints),
        target_classes=tuple(_iri(c) for c in graph.objects(node, SH.targetClass)),
        target_subjects_of=tuple(_iri(p) for p in graph.objects(node, SH.targetSubjectsOf)),
        severity=str(severity).removeprefix(str(SH)),
        messages=messages,
    )


def _constraint(graph: rdflib.Graph, node: Node, predicate: Node, value: Node) -> Constraint | None:
    """The constraint the statement ``node predicate value`` of a shape states; None for a
    statement that states none (a target, a message …). Raises Unsupported for a constraint
    that is not compiled."""
    name = str(predicate).removeprefix(str(SH))
    component = name[:1].upper() + name[1:]
    if predicate == SH.minCount:
        return Constraint("MinCount", _min_count(_integer(value)))
    if predicate == SH.maxCount:
        return Constraint("MaxCount", _max_count(_integer(value)))
    if predicate == SH.datatype:
        return Constraint("Datatype", _datatype(str(_iri(value).value)))
    if predicate == SH.nodeKind:
        return Constraint("NodeKind", _node_kind(str(value).removeprefix(str(SH))))
    if predicate == SH.pattern:
        return Constraint("Pattern", _pattern(str(value)))
    if predicate == SH.minLength:
        return Constraint("MinLength", _min_length(_integer(value)))
    if predicate == SH["class"]:
        return Constraint("Class", _class(_iri(value)))
    if predicate == SH["in"]:
        return Constraint("In", _in(frozenset(_iri(m) for m in Collection(graph, value))))
    if predicate == SH.equals:
        return Constraint("Equals", _equals(_iri(value)))
    if predicate == SH.lessThanOrEquals:
        return Constraint("LessThanOrEquals", _less_than_or_equals(_iri(value)))
    if component in _RANGES:
        return Constraint(component, _range(component, to_oxigraph(value)))
    if predicate == SH["or"]:
        members = [_shape(graph, m, targeted=False) for m in Collection(graph, value)]
        return Constraint("Or", _or(members))
    if predicate == SH.sparql:
        return Constraint("SPARQL", _sparql(_sparql_text(graph, value)), _iri(value))
    if predicate not in _NOT_CONSTRAINTS:
        raise Unsupported(f"{node}: {predicate} is not compiled")
    return None


@dataclass(frozen=True)
class CompiledShapes:
    """The targeted shapes of a shapes graph, ready to run over pages."""

    shapes: tuple[Shape, ...]
    graph: rdflib.Graph  # for the path lists a report copies

    def validate(self, page: Page) -> list[ox.Triple]:
        """The validation report of a page as triples, as pyshacl makes it: a blank report node
        (``sh:conforms`` and ``sh:result``) and one blank ``sh:ValidationResult`` per result.
        Raises Unsure when pyshacl must validate this page instead."""
        report = ox.BlankNode()
        out: list[ox.Triple] = []
        copied: set[Node] = set()
        conforms = True
        for shape in self.shapes:
            for constraint, focus, value in shape.results(page):
                conforms = conforms and shape.severity != "Violation"
                out.extend(self._result(report, shape, constraint, focus, value, copied))
        conforms_literal = ox.Literal("true" if conforms else "false", datatype=_BOOLEAN)
        out.append(ox.Triple(report, _TYPE, _REPORT))
        out.append(ox.Triple(report, ox.NamedNode(str(SH.conforms)), conforms_literal))
        return out

    def _result(
        self,
        report: ox.BlankNode,
        shape: Shape,
        constraint: Constraint,
        focus: DataNode,
        value: DataNode | None,
        copied: set[Node],
    ) -> list[ox.Triple]:
        if isinstance(focus, ox.BlankNode) or isinstance(value, ox.BlankNode):
            raise Unsure("a blank node in a validation result")
        for reported in (focus, value):
            if isinstance(reported, ox.Literal):
                _same_reading(reported)
        node = ox.BlankNode()
        sparql = constraint.source is not None
        triples: list[ox.Triple] = [
            ox.Triple(report, _SH_RESULT, node),
            ox.Triple(node, _TYPE, _RESULT),
            ox.Triple(
                node, _COMPONENT, ox.NamedNode(f"{SH}{constraint.component}ConstraintComponent")
            ),
            ox.Triple(node, _SOURCE_SHAPE, to_oxigraph(shape.iri)),
            ox.Triple(node, _SEVERITY, ox.NamedNode(f"{SH}{shape.severity}")),
            ox.Triple(node, _FOCUS, focus),
        ]
        if value is not None:
            triples.append(ox.Triple(node, _VALUE, value))
        if shape.path_node is not None:
            triples.append(ox.Triple(node, _PATH, self._node(shape.path_node, copied, triples)))
        if sparql:
            assert constraint.source is not None
            triples.append(ox.Triple(node, _SOURCE_CONSTRAINT, constraint.source))
        for message in shape.messages:
            # pyshacl writes a SPARQL constraint's messages again, as plain strings
            term = ox.Literal(str(message)) if sparql else to_oxigraph(message)
            triples.append(ox.Triple(node, _MESSAGE, term))
        return triples

    def _node(self, node: Node, copied: set[Node], triples: list[ox.Triple]) -> DataNode:
        """A shapes-graph node in the report: an IRI as it is, a path list with its triples
        (copied once per report, under the same blank node label, as pyshacl does)."""
        if not isinstance(node, BNode):
            return to_oxigraph(node)
        label = ox.BlankNode(_blank_label(node))
        if node not in copied:
            copied.add(node)
            for _, p, o in self.graph.triples((node, None, None)):
                obj = self._node(o, copied, triples) if isinstance(o, BNode) else to_oxigraph(o)
                triples.append(ox.Triple(label, _iri(p), obj))
        return label


def _blank_label(node: BNode) -> str:
    text = str(node)
    return (
        text if re.fullmatch(r"[A-Za-z0-9_]+", text) else "b" + format(hash(text) & 0xFFFFFFFF, "x")
    )


_BOOLEAN = ox.NamedNode(_XSD + "boolean")
_SH_RESULT = ox.NamedNode(str(SH.result))
_COMPONENT = ox.NamedNode(str(SH.sourceConstraintComponent))
_SOURCE_SHAPE = ox.NamedNode(str(SH.sourceShape))
_SEVERITY = ox.NamedNode(str(SH.resultSeverity))
_FOCUS = ox.NamedNode(str(SH.focusNode))
_VALUE = ox.NamedNode(str(SH.value))
_PATH = ox.NamedNode(str(SH.resultPath))
_SOURCE_CONSTRAINT = ox.NamedNode(str(SH.sourceConstraint))
_MESSAGE = ox.NamedNode(str(SH.resultMessage))


def compile_shapes(graph: rdflib.Graph) -> CompiledShapes:
    """The shapes of ``graph`` with a target, compiled. Raises Unsupported (see the module)."""
    shapes = []
    nodes = {s for t in _TARGETS for s in graph.subjects(t, None)}
    for node in sorted(nodes, key=str):
        if not isinstance(node, URIRef):  # pyshacl would copy its description into reports
            raise Unsupported(f"an anonymous shape with a target: {node}")
        if (node, SH.deactivated, None) in graph:
            raise Unsupported(f"{node}: sh:deactivated")
        for target in (SH.targetNode, SH.targetObjectsOf, SH.target):
            if (node, target, None) in graph:
                raise Unsupported(f"{node}: {target}")
        shapes.append(_shape(graph, node, targeted=True))
    for node in graph.subjects(SH.property, None):
        raise Unsupported(f"{node}: sh:property")
    for node in graph.subjects(SH.node, None):
        raise Unsupported(f"{node}: sh:node")
    return CompiledShapes(tuple(shapes), graph)
