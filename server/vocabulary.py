"""The vocabulary, served at its namespace: ``/ns`` and ``/ontology``.

The ``bg:`` terms (``https://w3id.org/benchgraph/ns#…``) are declared in ``ontology/``. A
browser asking for either path gets a page with one entry per term, anchored by its local
name, so that ``/ns#Result`` finds it (the site links every ``bg:`` term there); any other
client gets the ontology as RDF, in the format asked for (Turtle by default), read from the
files as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pyoxigraph as ox
from flask import Blueprint, Response, render_template, request

from benchgraph import media, resources
from benchgraph import vocab as V
from server.errors import ApiError

blueprint = Blueprint("vocabulary", __name__)

# How each kind of term is named on the page, by its rdf:type.
KINDS = {
    V.OWL + "Class": "class",
    V.RDFS + "Class": "class",
    V.OWL + "ObjectProperty": "property",
    V.OWL + "DatatypeProperty": "property",
    V.OWL + "AnnotationProperty": "property",
    V.RDF + "Property": "property",
    V.OWL + "NamedIndividual": "individual",
}
_COMMENT = V.RDFS + "comment"
_LABEL = V.RDFS + "label"
_DOMAIN = V.RDFS + "domain"
_RANGE = V.RDFS + "range"
_SUPER = V.RDFS + "subClassOf"


@dataclass(frozen=True)
class Entry:
    """One ``bg:`` term's entry, as the page shows it."""

    name: str  # the local name, the page's anchor
    iri: str
    kind: str
    label: str
    comment: str
    domain: tuple[str, ...]
    range: tuple[str, ...]
    parents: tuple[str, ...]


@cache
def _triples(folder: Path) -> tuple[ox.Triple, ...]:
    """The triples of every Turtle file of the ontology folder ``folder``."""
    found: list[ox.Triple] = []
    for path in sorted(folder.glob("*.ttl")):
        found += [q.triple for q in ox.parse(path=path, format=ox.RdfFormat.TURTLE)]
    return tuple(found)


def terms(triples: tuple[ox.Triple, ...]) -> list[Entry]:
    """The ``bg:`` terms ``triples`` declare, classes first, each kind by name."""
    about: dict[str, dict[str, list[str]]] = {}
    for t in triples:
        if isinstance(t.subject, ox.NamedNode) and t.subject.value.startswith(V.BG):
            value = t.object.value if isinstance(t.object, ox.NamedNode | ox.Literal) else ""
            about.setdefault(t.subject.value, {}).setdefault(t.predicate.value, []).append(value)
    found = []
    for iri, props in about.items():
        kinds = [KINDS[t] for t in props.get(V.type_, []) if t in KINDS]
        if not kinds:
            continue
        found.append(
            Entry(
                iri[len(V.BG) :],
                iri,
                kinds[0],
                next(iter(props.get(_LABEL, [])), ""),
                " ".join(props.get(_COMMENT, [])),
                tuple(props.get(_DOMAIN, [])),
                tuple(props.get(_RANGE, [])),
                tuple(props.get(_SUPER, [])),
            )
        )
    order = {"class": 0, "property": 1, "individual": 2}
    return sorted(found, key=lambda t: (order[t.kind], t.name.lower()))


@blueprint.get("/ontology")
@blueprint.get("/ns")  # the first rule, which the site's links name
def namespace() -> Response:
    """The vocabulary: a page for a browser, else the ontology as RDF."""
    offered = [*media.of_kind("graph"), media.BY_KEY["html"]]
    offered.sort(key=lambda m: m.key != "turtle")  # Turtle for a client that says nothing
    chosen = media.choose(offered, request.accept_mimetypes, request.args.getlist("format"))
    if chosen is None:
        names = ", ".join(m.mime for m in offered)
        raise ApiError(406, f"no acceptable format; the vocabulary is served as: {names}")
    triples = _triples(resources.ontology_dir())
    if chosen.kind == "page":
        body = render_template(
            "vocabulary.html", title="The benchgraph vocabulary", terms=terms(triples), ns=V.BG
        )
        response = Response(body, content_type=chosen.content_type)
    else:
        items: list[ox.Triple] | list[ox.Quad] = list(triples)
        if chosen.key in media.QUAD_FORMATS:
            items = [ox.Quad(t.subject, t.predicate, t.object, ox.DefaultGraph()) for t in triples]
        fmt = media.GRAPH_FORMATS[chosen.key]
        response = Response(
            ox.serialize(items, format=fmt, prefixes=V.PREFIXES), content_type=chosen.content_type
        )
    response.headers["Vary"] = "Accept"
    return response
