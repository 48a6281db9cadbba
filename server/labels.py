"""What an IRI in an HTML answer table is called, and where its link goes.

- An IRI of the store (under ``https://w3id.org/benchgraph/id/``) is called by its name in the
  store (its label, else its title, else its source ID: ``queries/internal/labels.rq``) and
  links to its site page.
- A term of the ontology (``bg:HigherIsBetter``) is called by its ``rdfs:label`` there.
- Any other IRI (``unit:PERCENT``) is shortened to a prefixed name (the prefixes of the ontology
  and shapes files, and of :data:`PREFIXES`) and links to itself.

The full IRI is kept as the link's title. The store is asked once per table (the names of at
most ``MAX_LOOKUPS`` distinct IRIs, cached per store generation); IRIs past that are shown by
their prefixed names.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pyoxigraph as ox
from flask import url_for

from benchgraph import queries, resources
from benchgraph import vocab as V
from benchgraph.sparqltext import with_values
from server.backend import current
from server.engine import VALUES, Job
from server.errors import ApiError
from server.workers import PoolError

_log = logging.getLogger(__name__)
MAX_LOOKUPS = 2000
# Namespaces the data and the descriptions use besides those the Turtle files declare.
PREFIXES = {
    **V.PREFIXES,
    "sd": "http://www.w3.org/ns/sparql-service-description#",
    "void": "http://rdfs.org/ns/void#",
    "formats": "http://www.w3.org/ns/formats/",
}


@dataclass(frozen=True)
class Name:
    text: str  # what the table shows
    href: str  # where the link goes


@dataclass(frozen=True)
class Vocabulary:
    labels: dict[str, str]  # term IRI -> its rdfs:label (English first)
    prefixes: dict[str, str]  # prefix -> namespace


@cache
def vocabulary(*folders: Path) -> Vocabulary:
    """The labels and prefixes of the Turtle files in ``folders`` (with :data:`PREFIXES`)."""
    found: dict[str, tuple[bool, str]] = {}
    prefixes = dict(PREFIXES)
    for folder in folders:
        for path in sorted(folder.glob("*.ttl")):
            parser = ox.parse(path=path, format=ox.RdfFormat.TURTLE)
            for quad in parser:
                label, subject = quad.object, quad.subject
                if quad.predicate.value != V.label or not isinstance(label, ox.Literal):
                    continue
                if not isinstance(subject, ox.NamedNode):
                    continue
                english = label.language in (None, "en")
                kept = found.get(subject.value)
                if kept is None or (english and not kept[0]):
                    found[subject.value] = (english, label.value)
            prefixes = {**parser.prefixes, **prefixes}
    return Vocabulary({iri: text for iri, (_, text) in found.items()}, prefixes)


def prefixed(iri: str, prefixes: dict[str, str]) -> str:
    """``iri`` as a prefixed name (the longest namespace that fits), else as it is; an IRI of
    the store as its path (``method/editor``)."""
    if iri.startswith(V.ID):
        return iri[len(V.ID) :]
    fits = [(len(ns), p) for p, ns in prefixes.items() if iri.startswith(ns) and len(iri) > len(ns)]
    if not fits:
        return iri
    size, prefix = max(fits)
    return f"{prefix}:{iri[size:]}"


def _store_names(iris: list[str]) -> dict[str, str]:
    """The names the store gives ``iris`` (cached per store generation); none when the store
    cannot be asked now (no worker free, past the time limit): the table then shows prefixed
    names, and an answer that needed no worker (a cached one) is still served."""
    if not iris:
        return {}
    backend = current()
    backend.pool.start()
    key = (backend.pool.generation.tag, ("labels", tuple(iris)))
    answer = backend.cache.get(key)
    if answer is None:
        text = with_values(queries.internal("labels"), "resource", [ox.NamedNode(i) for i in iris])
        try:
            answer = backend.run(Job(text, VALUES, None, len(iris)))
        except (ApiError, PoolError) as error:
            _log.warning("the names of an answer's IRIs could not be read: %s", error)
            return {}
        backend.cache.put(key, answer)
    assert answer.values is not None
    return {r["resource"]: r["name"] for r in answer.values.rows if "name" in r}


def page_href(iri: str) -> str:
    """The site page of an IRI of the store; any other IRI as it is."""
    if iri.startswith(V.ID):
        return url_for("site.page", path="x").removesuffix("x") + iri[len(V.ID) :]
    return iri


def names(iris: Iterable[str]) -> dict[str, Name]:
    """What each of ``iris`` is called and where its link goes."""
    distinct = sorted(set(iris))
    from_store = _store_names(distinct[:MAX_LOOKUPS])
    known = vocabulary(resources.ontology_dir(), resources.shapes_dir())
    return {
        iri: Name(
            from_store.get(iri) or known.labels.get(iri) or prefixed(iri, known.prefixes),
            page_href(iri),
        )
        for iri in distinct
    }
