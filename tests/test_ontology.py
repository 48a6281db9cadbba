"""The ontology files parse, and together declare exactly the vocabulary the code uses."""

from __future__ import annotations

import re
from pathlib import Path

import pyoxigraph
import pytest
import rdflib
from rdflib import OWL, RDF, RDFS, XSD, BNode, Literal, URIRef
from rdflib.collection import Collection

from benchgraph import vocab

REPO = Path(__file__).resolve().parents[1]
ONTOLOGY_FILES = sorted((REPO / "ontology").glob("*.ttl"))
ONTOLOGY = URIRef("https://w3id.org/benchgraph/ns")
BG = vocab.BG
SCHEMA_DOMAIN_INCLUDES = URIRef(vocab.SCHEMA + "domainIncludes")
VANN = "http://purl.org/vocab/vann/"
QUDT_UNIT_PROPERTY = "http://qudt.org/schema/qudt/unit"  # removed from QUDT: use qudt:hasUnit
PROPERTY_TYPES = (OWL.ObjectProperty, OWL.DatatypeProperty)


def _parse(path: Path) -> rdflib.Graph:
    return rdflib.Graph().parse(path, format="turtle")


@pytest.fixture(scope="module")
def ontology() -> rdflib.Graph:
    """The union of all ontology modules."""
    union = rdflib.Graph()
    for path in ONTOLOGY_FILES:
        union.parse(path, format="turtle")
    return union


def _bg_iri(term: object) -> bool:
    return isinstance(term, URIRef) and str(term).startswith(BG)


def _declared(graph: rdflib.Graph) -> set[str]:
    """The bg: terms that have a label, a comment, a type and are defined by the ontology."""
    return {
        str(term)
        for term in graph.subjects(RDFS.isDefinedBy, ONTOLOGY)
        if _bg_iri(term)
        and (term, RDFS.label, None) in graph
        and (term, RDFS.comment, None) in graph
        and (term, RDF.type, None) in graph
    }


def test_the_core_and_provenance_modules_exist() -> None:
    names = {path.name for path in ONTOLOGY_FILES}
    assert {"benchgraph.ttl", "provenance.ttl"} <= names


@pytest.mark.parametrize("path", ONTOLOGY_FILES, ids=lambda p: p.name)
def test_parses_with_rdflib(path: Path) -> None:
    assert len(_parse(path)) > 0


@pytest.mark.parametrize("path", ONTOLOGY_FILES, ids=lambda p: p.name)
def test_parses_with_pyoxigraph(path: Path) -> None:
    with path.open("rb") as data:
        triples = list(pyoxigraph.parse(data, format=pyoxigraph.RdfFormat.TURTLE))
    assert len(triples) == len(_parse(path))


def test_declares_exactly_the_vocabulary_of_the_code(ontology: rdflib.Graph) -> None:
    declared = _declared(ontology)
    expected = set(vocab.BG_TERMS)
    assert not expected - declared, f"used by the code, not declared: {sorted(expected - declared)}"
    assert not declared - expected, f"declared, unknown to the code: {sorted(declared - expected)}"


def test_mentions_no_bg_term_the_code_does_not_know(ontology: rdflib.Graph) -> None:
    mentioned = {str(term) for triple in ontology for term in triple if _bg_iri(term)}
    assert mentioned <= set(vocab.BG_TERMS), sorted(mentioned - set(vocab.BG_TERMS))


@pytest.mark.parametrize("term", vocab.BG_TERMS)
def test_every_term_is_described_in_english(ontology: rdflib.Graph, term: str) -> None:
    iri = URIRef(term)
    for annotation in (RDFS.label, RDFS.comment):
        values = list(ontology.objects(iri, annotation))
        assert len(values) == 1, f"{term} needs exactly one {annotation}"
        assert isinstance(values[0], Literal) and values[0].language == "en"
        assert str(values[0]).strip()
    assert set(ontology.objects(iri, RDFS.isDefinedBy)) == {ONTOLOGY}
    assert set(ontology.objects(iri, RDF.type)), f"{term} has no type"


def test_every_term_is_declared_in_exactly_one_module() -> None:
    seen: dict[str, str] = {}
    for path in ONTOLOGY_FILES:
        for term in _declared(_parse(path)):
            assert term not in seen, f"{term} is declared in {seen.get(term)} and {path.name}"
            seen[term] = path.name


def test_properties_have_a_domain_and_a_range(ontology: rdflib.Graph) -> None:
    properties = {p for kind in PROPERTY_TYPES for p in ontology.subjects(RDF.type, kind)}
    assert properties
    for prop in properties:
        has_domain = (prop, RDFS.domain, None) in ontology
        has_includes = (prop, SCHEMA_DOMAIN_INCLUDES, None) in ontology
        assert has_domain != has_includes, f"{prop}: rdfs:domain or schema:domainIncludes, one"
        assert len(set(ontology.objects(prop, RDFS.range))) == 1, f"{prop} needs one rdfs:range"


def test_datatype_properties_range_over_datatypes(ontology: rdflib.Graph) -> None:
    for prop in ontology.subjects(RDF.type, OWL.DatatypeProperty):
        rng = str(ontology.value(prop, RDFS.range))
        assert rng.startswith(str(XSD)) or rng == vocab.JSON, f"{prop} ranges over {rng}"
    for prop in ontology.subjects(RDF.type, OWL.ObjectProperty):
        rng = str(ontology.value(prop, RDFS.range))
        assert not rng.startswith(str(XSD)) and rng != vocab.JSON, f"{prop} ranges over {rng}"


@pytest.mark.parametrize("path", ONTOLOGY_FILES, ids=lambda p: p.name)
def test_never_uses_the_removed_qudt_unit_property(path: Path) -> None:
    graph = _parse(path)
    assert not any(str(term) == QUDT_UNIT_PROPERTY for triple in graph for term in triple)
    text = path.read_text(encoding="utf-8")
    assert not re.search(r"qudt:unit\b", text)
    assert not re.search(re.escape(QUDT_UNIT_PROPERTY) + r"\b", text)


@pytest.mark.parametrize("path", ONTOLOGY_FILES, ids=lambda p: p.name)
def test_redeclares_no_standard_term(path: Path) -> None:
    graph = _parse(path)
    for subject, predicate, _ in graph:
        if isinstance(subject, BNode):  # only the nodes of an RDF list (owl:oneOf)
            assert predicate in (RDF.first, RDF.rest), f"{path.name}: blank node with {predicate}"
        else:
            assert _bg_iri(subject) or subject == ONTOLOGY, f"{path.name} describes {subject}"


def test_has_one_header(ontology: rdflib.Graph) -> None:
    assert set(ontology.subjects(RDF.type, OWL.Ontology)) == {ONTOLOGY}
    header = _parse(REPO / "ontology" / "benchgraph.ttl")
    assert (ONTOLOGY, RDF.type, OWL.Ontology) in header
    assert str(header.value(ONTOLOGY, OWL.versionInfo)) == "0.1.0"
    license_ = URIRef("http://purl.org/dc/terms/license")
    assert header.value(ONTOLOGY, license_) == URIRef(
        "https://creativecommons.org/licenses/by/4.0/"
    )
    assert header.value(ONTOLOGY, URIRef(vocab.DCTERMS + "title")) is not None
    assert str(header.value(ONTOLOGY, URIRef(VANN + "preferredNamespacePrefix"))) == "bg"
    assert str(header.value(ONTOLOGY, URIRef(VANN + "preferredNamespaceUri"))) == BG


def test_the_header_names_the_standard_terms_in_use(ontology: rdflib.Graph) -> None:
    description = str(ontology.value(ONTOLOGY, URIRef(vocab.DCTERMS + "description")))
    standard = (
        "rdfs:label",
        "dcterms:identifier",
        "dcterms:title",
        "dcterms:modified",
        "dcterms:date",
        "prov:wasDerivedFrom",
        "prov:generatedAtTime",
        "schema:url",
    )
    for curie in standard:
        assert curie in description, f"the header does not say where {curie} is used"


def test_direction_has_exactly_two_members(ontology: rdflib.Graph) -> None:
    direction = URIRef(vocab.Direction)
    members = list(Collection(ontology, ontology.value(direction, OWL.oneOf)))
    assert members == [URIRef(vocab.HigherIsBetter), URIRef(vocab.LowerIsBetter)]
    for member in members:
        assert {direction, OWL.NamedIndividual} <= set(ontology.objects(member, RDF.type))
