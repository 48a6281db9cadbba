"""Writes: a :class:`Change`, and the SPARQL Update text that does it.

Each page lives in its own named graph; the merged view (the default graph, or a named graph a
remote server keeps it in: ``view``) holds each triple of the page graphs once. The updates
here keep the view equal to the union of the page graphs as pages are written and removed, in
the same request, so a reader never sees half a page. They are written here, not in
``queries/``: they are built around the data of each write.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pyoxigraph as ox

from benchgraph import graphs

_DECIMAL = ox.NamedNode("http://www.w3.org/2001/XMLSchema#decimal")
# A statement whose object is a blank node (see has_blank_node).
BLANK_OBJECT = re.compile(r" _:[^ \"<>]+ \.$")


def statement(triple: ox.Triple) -> str:
    """A triple as a line of SPARQL's data syntax. pyoxigraph prints terms in N-Triples syntax,
    which SPARQL accepts as is: page text reaches an update only inside escaped literals and
    validated IRIs. A whole decimal is written with its ``.0`` (``41.0``): the same value, and
    the form Virtuoso keeps a decimal (it reads ``"41"^^xsd:decimal`` as an integer)."""
    value = triple.object
    if isinstance(value, ox.Literal) and value.datatype == _DECIMAL and "." not in value.value:
        return f'{triple.subject} {triple.predicate} "{value.value}.0"^^<{_DECIMAL.value}> .'
    return f"{triple.subject} {triple.predicate} {value} ."


def in_view(body: str, view: str | None) -> str:
    """``body`` (triples or a triple pattern) placed in the merged view: the default graph
    (``view`` None) or the named graph ``view``."""
    return body if view is None else f"GRAPH <{view}> {{\n{body}\n}}"


def out_of_view(graph: str, view: str | None, *, unless_gone: str | None = None) -> str:
    """The update that takes out of the view every statement of ``graph`` that no other page
    graph states. With ``unless_gone``, it does nothing once the graph ``unless_gone`` is empty
    (a staged write's last request, safe to repeat)."""
    guard = f"FILTER EXISTS {{ GRAPH <{unless_gone}> {{ ?a ?b ?c }} }}\n" if unless_gone else ""
    return (
        f"DELETE {{ {in_view('?s ?p ?o', view)} }}\n"
        f"WHERE {{\n  GRAPH <{graph}> {{ ?s ?p ?o }}\n  {guard}"
        f"  FILTER NOT EXISTS {{\n    GRAPH ?other {{ ?s ?p ?o }}\n"
        f'    FILTER (?other != <{graph}> && STRSTARTS(STR(?other), "{graphs.PAGES}"))\n  }}\n}}'
    )


@dataclass(frozen=True)
class Change:
    """One write, done in one transaction: graphs ``replaced`` with their triples, after each
    graph of ``kept`` is copied to the graph it maps to (a version kept as history), and
    triples ``added`` to, and ``deleted`` from, graphs that are not replaced (the versions
    catalogue). ``expects`` holds, for each source whose catalogue entries the change rewrites,
    the fingerprint of those entries as read when the change was made
    (:func:`benchgraph.versions.fingerprint`): a store that more than one process writes (a
    served store) refuses the change with :class:`WriteConflict` when they differ by the time
    it is applied, as another writer changed that source meanwhile."""

    replaced: Mapping[str, Sequence[ox.Triple]]
    kept: Mapping[str, str] = field(default_factory=dict)
    added: Mapping[str, Sequence[ox.Triple]] = field(default_factory=dict)
    deleted: Mapping[str, Sequence[ox.Triple]] = field(default_factory=dict)
    expects: Mapping[str, str] = field(default_factory=dict)

    @property
    def names(self) -> str:
        """The graphs written, for messages."""
        return ", ".join(f"<{graph}>" for graph in dict.fromkeys([*self.replaced, *self.added]))


def copies(kept: Mapping[str, str]) -> list[str]:
    """The operations that copy each graph of ``kept`` to the graph it maps to (replacing
    that graph's content)."""
    return [f"COPY SILENT GRAPH <{graph}> TO GRAPH <{to}>" for graph, to in kept.items()]


def data(verb: str, lines: Mapping[str, Sequence[str]]) -> list[str]:
    """``INSERT DATA`` or ``DELETE DATA`` (``verb``) of the statements ``lines`` holds by
    graph, as one operation (none when there are none)."""
    body = [f"GRAPH <{graph}> {{\n" + "\n".join(ts) + "\n}" for graph, ts in lines.items() if ts]
    return [f"{verb} DATA {{\n" + "\n".join(body) + "\n}"] if body else []


def has_blank_node(line: str) -> bool:
    """Whether the statement ``line`` (see :func:`statement`) has a blank node as its subject
    or object: its first term is ``_:…``, or its last (a literal ends in a quote, a language
    tag or a datatype IRI, never in a blank node label)."""
    return line.startswith("_:") or BLANK_OBJECT.search(line) is not None


def insertion(lines: Mapping[str, Sequence[str]], view: str | None) -> list[str]:
    """The operations that insert the statements ``lines`` holds by graph, and those of the
    page graphs into the view: one ``INSERT DATA`` of the statements without blank nodes; and,
    for each graph with blank nodes, an ``INSERT … WHERE {}`` of its statements that have one
    (SPARQL allows no blank node in ``DELETE DATA`` and servers such as Virtuoso none in
    ``INSERT DATA``; a template gives them new identities, as ``INSERT DATA`` does), then, for
    a page graph, those statements copied into the view from the graph, so that the view
    holds the same nodes."""
    ground: dict[str, list[str]] = {}
    blank: dict[str, list[str]] = {}
    for graph, body in lines.items():
        for line in body:
            (blank if has_blank_node(line) else ground).setdefault(graph, []).append(line)
    blocks = [f"GRAPH <{graph}> {{\n" + "\n".join(ts) + "\n}" for graph, ts in ground.items()]
    facts = [line for graph, body in ground.items() if graphs.is_page(graph) for line in body]
    if facts:
        blocks.append(in_view("\n".join(facts), view))
    operations = ["INSERT DATA {\n" + "\n".join(blocks) + "\n}"] if blocks else []
    for graph, body in blank.items():
        operations.append(f"INSERT {{ GRAPH <{graph}> {{\n" + "\n".join(body) + "\n}} WHERE {}")
        if graphs.is_page(graph):
            operations.append(
                f"INSERT {{ {in_view('?s ?p ?o', view)} }} WHERE {{ GRAPH <{graph}> "
                "{ ?s ?p ?o } FILTER (isBlank(?s) || isBlank(?o)) }"
            )
    return operations


def replacement(
    lines: Mapping[str, Sequence[str]],
    view: str | None,
    change: Change | None = None,
) -> str:
    """The update that replaces each named graph of ``lines`` with its statements, in one
    request, and keeps the view equal to the union of the page graphs: first the graphs
    ``change`` keeps are copied, then the replaced pages' statements leave the view (unless
    another page states them), then the new ones enter (see :func:`insertion`), with the
    statements ``change`` adds (and without those it deletes). Blank node labels are scoped
    to the operation, so each must be unique per graph."""
    operations = copies(change.kept) if change else []
    operations += [out_of_view(graph, view) for graph in lines if graphs.is_page(graph)]
    operations += [f"DROP SILENT GRAPH <{graph}>" for graph in lines]
    if change is not None:
        operations += data(
            "DELETE", {g: [statement(t) for t in ts] for g, ts in change.deleted.items()}
        )
    written = dict(lines)
    if change is not None:
        for graph, ts in change.added.items():
            if ts:
                written[graph] = [*written.get(graph, ()), *(statement(t) for t in ts)]
    return " ;\n".join([*operations, *insertion(written, view)])


def removal(graph: str, view: str | None) -> str:
    """The update that removes the named graph ``graph`` (and its statements from the view,
    but those another page states)."""
    drop = f"DROP SILENT GRAPH <{graph}>"
    return f"{out_of_view(graph, view)} ;\n{drop}" if graphs.is_page(graph) else drop
