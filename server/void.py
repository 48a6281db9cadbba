"""The dataset describing itself: VoID and DCAT triples, built from figures the store gives.

The figures (the triples of the merged view, entities, entities per class, triples per named
graph, the last ingest time) come from the queries in ``queries/internal/void-*.rq``; this module
only arranges them as a ``void:Dataset`` / ``dcat:Dataset`` with its class partitions, its named
graphs as subsets, the SPARQL endpoint and the dumps (the store as it is now, and the quad
dumps with its history) as distributions.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pyoxigraph as ox

from benchgraph import __version__, export, media
from benchgraph import vocab as V

VOID = "http://rdfs.org/ns/void#"
DCAT = "http://www.w3.org/ns/dcat#"
IANA = "https://www.iana.org/assignments/media-types/"
PREFIXES = {**V.PREFIXES, "void": VOID, "dcat": DCAT}
# The vocabularies the data uses (void:vocabulary).
VOCABULARIES = (V.BG, V.PROV, V.DCTERMS, V.UNIT, V.SCHEMA)


@dataclass(frozen=True)
class Figures:
    """What the store says about itself."""

    triples: int
    entities: int
    modified: ox.Literal | None
    classes: list[tuple[str, int]]  # class IRI, entities
    graphs: list[tuple[str, int, str | None]]  # graph IRI, triples, its source page
    examples: list[str]  # a few resource IRIs (void:exampleResource)


def dump_urls(base: str) -> list[tuple[str, str, bool]]:
    """The dumps: media key, URL, and whether it holds the history too (TriG and N-Quads with
    ``?history=true``: every earlier version of every page and the versions catalogue)."""
    found = [(key, f"{base}dump.{export.suffix(key)}", False) for key in export.FORMATS.values()]
    quads = [(key, url) for key, url, _ in found if key in media.QUAD_FORMATS]
    return found + [(key, f"{url}?history=true", True) for key, url in quads]


def triples(base: str, id_base: str, figures: Figures, license: str = "") -> list[ox.Triple]:
    """The VoID/DCAT description of the dataset served at ``base`` (ends in a slash).

    Only the example resources under ``id_base`` are named (those ``/id/...`` answers for);
    ``license``, when not empty, is stated as the dataset's ``dcterms:license``.
    """
    dataset = ox.NamedNode(base + "void#dataset")
    return [
        *_dataset(dataset, base, id_base, figures, license),
        *_partitions(dataset, figures),
        *_distributions(dataset, base),
    ]


Subject = ox.NamedNode | ox.BlankNode


def _triple(s: Subject, p: str, o: ox.NamedNode | ox.BlankNode | ox.Literal) -> ox.Triple:
    return ox.Triple(s, ox.NamedNode(p), o)


def _count(n: int) -> ox.Literal:
    return ox.Literal(str(n), datatype=ox.NamedNode(V.XSD + "integer"))


def _dataset(
    dataset: ox.NamedNode, base: str, id_base: str, figures: Figures, license: str
) -> Iterator[ox.Triple]:
    """What the dataset is: its kinds, title, size, endpoint, vocabularies and examples."""
    yield _triple(dataset, V.type_, ox.NamedNode(VOID + "Dataset"))
    yield _triple(dataset, V.type_, ox.NamedNode(DCAT + "Dataset"))
    yield _triple(dataset, V.title, ox.Literal("benchgraph"))
    yield _triple(
        dataset,
        V.description,
        ox.Literal(
            "ML papers, methods and benchmark results from leaderboard pages, one named graph "
            f"per source page (benchgraph {__version__})."
        ),
    )
    yield _triple(dataset, VOID + "triples", _count(figures.triples))
    yield _triple(dataset, VOID + "entities", _count(figures.entities))
    yield _triple(dataset, VOID + "uriSpace", ox.Literal(id_base))
    yield _triple(dataset, VOID + "sparqlEndpoint", ox.NamedNode(base + "sparql"))
    for vocabulary in VOCABULARIES:
        yield _triple(dataset, VOID + "vocabulary", ox.NamedNode(vocabulary))
    if figures.modified is not None:
        yield _triple(dataset, V.modified, figures.modified)
    if license:
        yield _triple(dataset, V.DCTERMS + "license", ox.NamedNode(license))
    for example in figures.examples:
        if example.startswith(id_base):
            yield _triple(dataset, VOID + "exampleResource", ox.NamedNode(example))


def _partitions(dataset: ox.NamedNode, figures: Figures) -> Iterator[ox.Triple]:
    """A class partition per class (its entities), a subset per named graph (its triples)."""
    for cls, entities in figures.classes:
        partition = ox.BlankNode()
        yield _triple(dataset, VOID + "classPartition", partition)
        yield _triple(partition, VOID + "class", ox.NamedNode(cls))
        yield _triple(partition, VOID + "entities", _count(entities))
    for graph, graph_triples, source in figures.graphs:
        subset = ox.NamedNode(graph)
        yield _triple(dataset, VOID + "subset", subset)
        yield _triple(subset, V.type_, ox.NamedNode(VOID + "Dataset"))
        yield _triple(subset, VOID + "triples", _count(graph_triples))
        if source is not None:
            yield _triple(subset, V.wasDerivedFrom, ox.NamedNode(source))


def _distributions(dataset: ox.NamedNode, base: str) -> Iterator[ox.Triple]:
    """A data dump and a DCAT distribution per dump the server offers."""
    for key, url, history in dump_urls(base):
        m = media.BY_KEY[key]
        what = "with every earlier version of every page" if history else "as it is now"
        yield _triple(dataset, VOID + "dataDump", ox.NamedNode(url))
        distribution = ox.BlankNode()
        yield _triple(dataset, DCAT + "distribution", distribution)
        yield _triple(distribution, V.type_, ox.NamedNode(DCAT + "Distribution"))
        yield _triple(distribution, DCAT + "downloadURL", ox.NamedNode(url))
        yield _triple(distribution, DCAT + "mediaType", ox.NamedNode(IANA + m.mime))
        name = m.label.split(" (")[0]
        yield _triple(distribution, V.title, ox.Literal(f"the whole dataset {what}, as {name}"))
        if m.w3c:
            yield _triple(distribution, V.DCTERMS + "format", ox.NamedNode(m.w3c))
