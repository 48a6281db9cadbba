"""The dataset describing itself: VoID and DCAT triples, built from figures the store gives.

The figures (the triples of the merged view, entities, entities per class, triples per named
graph, the last ingest time) come from the queries in ``queries/internal/void-*.rq``; this module
only arranges them as a ``void:Dataset`` / ``dcat:Dataset`` with its class partitions, its named
graphs as subsets, the SPARQL endpoint and the dumps (the store as it is now, and the quad
dumps with its history) as distributions.
"""

from __future__ import annotations

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
    out: list[ox.Triple] = []

    def add(s: ox.NamedNode | ox.BlankNode, p: str, o: ox.NamedNode | ox.BlankNode | ox.Literal):
        out.append(ox.Triple(s, ox.NamedNode(p), o))

    def count(n: int) -> ox.Literal:
        return ox.Literal(str(n), datatype=ox.NamedNode(V.XSD + "integer"))

    add(dataset, V.type_, ox.NamedNode(VOID + "Dataset"))
    add(dataset, V.type_, ox.NamedNode(DCAT + "Dataset"))
    add(dataset, V.title, ox.Literal("benchgraph"))
    add(
        dataset,
        V.description,
        ox.Literal(
            "ML papers, methods and benchmark results from leaderboard pages, one named graph "
            f"per source page (benchgraph {__version__})."
        ),
    )
    add(dataset, VOID + "triples", count(figures.triples))
    add(dataset, VOID + "entities", count(figures.entities))
    add(dataset, VOID + "uriSpace", ox.Literal(id_base))
    add(dataset, VOID + "sparqlEndpoint", ox.NamedNode(base + "sparql"))
    for vocabulary in VOCABULARIES:
        add(dataset, VOID + "vocabulary", ox.NamedNode(vocabulary))
    if figures.modified is not None:
        add(dataset, V.modified, figures.modified)
    if license:
        add(dataset, V.DCTERMS + "license", ox.NamedNode(license))
    for example in figures.examples:
        if example.startswith(id_base):
            add(dataset, VOID + "exampleResource", ox.NamedNode(example))
    for cls, entities in figures.classes:
        partition = ox.BlankNode()
        add(dataset, VOID + "classPartition", partition)
        add(partition, VOID + "class", ox.NamedNode(cls))
        add(partition, VOID + "entities", count(entities))
    for graph, graph_triples, source in figures.graphs:
        subset = ox.NamedNode(graph)
        add(dataset, VOID + "subset", subset)
        add(subset, V.type_, ox.NamedNode(VOID + "Dataset"))
        add(subset, VOID + "triples", count(graph_triples))
        if source is not None:
            add(subset, V.wasDerivedFrom, ox.NamedNode(source))
    for key, url, history in dump_urls(base):
        m = media.BY_KEY[key]
        what = "with every earlier version of every page" if history else "as it is now"
        add(dataset, VOID + "dataDump", ox.NamedNode(url))
        distribution = ox.BlankNode()
        add(dataset, DCAT + "distribution", distribution)
        add(distribution, V.type_, ox.NamedNode(DCAT + "Distribution"))
        add(distribution, DCAT + "downloadURL", ox.NamedNode(url))
        add(distribution, DCAT + "mediaType", ox.NamedNode(IANA + m.mime))
        name = m.label.split(" (")[0]
        add(distribution, V.title, ox.Literal(f"the whole dataset {what}, as {name}"))
        if m.w3c:
            add(distribution, V.DCTERMS + "format", ox.NamedNode(m.w3c))
    return out
