"""The compiled shapes (benchgraph.shacl) against pyshacl, the reference: on every page the
compiled checks take, the same findings and a report graph isomorphic to pyshacl's; where they
cannot be sure of pyshacl's reading, or the shapes use what they do not compile, pyshacl runs.

The pages: the seeds, the examples, every failing and passing shape example, a generated corpus,
and seeded random damage to real pages (values retyped, ill-typed, out of range or removed,
types swapped, units doubled, intervals added, nodes retargeted)."""

from __future__ import annotations

import json
import random
from decimal import Decimal
from pathlib import Path

import pyoxigraph as ox
import pytest
import rdflib
from rdflib.compare import isomorphic
from support import EXAMPLES, REPO, run_cli

from bench.generate import generate
from benchgraph import settings, shacl, terms, validation
from benchgraph import vocab as V
from ingest.mapper import map_page
from ingest.reading import read_page

DATA = REPO / "tests" / "data" / "shapes"
SH = "http://www.w3.org/ns/shacl#"
WHEN = "2026-01-01T00:00:00+00:00"
XSD = V.XSD


def page_triples(path: Path) -> list[ox.Triple]:
    return map_page(read_page(path.read_bytes(), str(path)), WHEN)


def example_triples(path: Path) -> list[ox.Triple]:
    """A shapes example without the report it expects."""
    graph = rdflib.Graph().parse(path, format="turtle")
    for report in list(graph.subjects(rdflib.RDF.type, rdflib.URIRef(SH + "ValidationReport"))):
        for triple in graph.cbd(report):
            graph.remove(triple)
    return terms.to_oxigraph_triples(graph)


def as_graph(triples: tuple[ox.Triple, ...]) -> rdflib.Graph:
    return terms.to_graph(triples)


def both(triples: list[ox.Triple]) -> tuple[validation.Report, validation.Report]:
    _, compiled = validation.validate_triples(triples, "page")
    _, reference = validation.validate_triples(triples, "page", engine="pyshacl")
    return compiled, reference


def assert_same(compiled: validation.Report, reference: validation.Report) -> None:
    assert reference.engine == "pyshacl"
    assert set(compiled.findings) == set(reference.findings)
    assert len(compiled.findings) == len(reference.findings)
    assert isomorphic(as_graph(compiled.report), as_graph(reference.report))
    assert compiled.conforms == reference.conforms


def sources(seeds: Path) -> list[Path]:
    return sorted(seeds.iterdir()) + sorted(EXAMPLES.iterdir())


def test_the_shapes_compile() -> None:
    compiled = validation.compiled(validation.shapes_graph())
    assert compiled is not None
    names = {str(s.iri).removeprefix(validation.BGSH) for s in compiled.shapes}
    assert {"Result-value", "Paper", "SourceDocument-resultCount", "Interval-level"} <= names
    assert not any(n.startswith("check-") for n in names)  # no target: only `validate` runs them


def test_seed_and_example_pages_give_pyshacls_report(seeds: Path) -> None:
    for path in sources(seeds):
        compiled, reference = both(page_triples(path))
        assert compiled.engine == "compiled", path.name
        assert_same(compiled, reference)


@pytest.mark.parametrize("path", sorted(DATA.glob("*/*.ttl")), ids=lambda p: p.stem)
def test_shape_examples_give_pyshacls_report(path: Path) -> None:
    compiled, reference = both(example_triples(path))
    assert compiled.engine == "compiled"
    assert_same(compiled, reference)
    if path.stem.startswith("fail-"):
        assert compiled.findings


def test_a_generated_corpus_gives_pyshacls_reports(tmp_path: Path) -> None:
    generate(tmp_path, pages=40, seed=7)
    engines = set()
    for path in sorted((tmp_path / "pages").iterdir()):
        compiled, reference = both(page_triples(path))
        engines.add(compiled.engine)
        assert_same(compiled, reference)
    assert engines == {"compiled"}


# ---------------------------------------------------------------------------------------------
# Damaged pages


def _literal(text: str, datatype: str) -> ox.Literal:
    return ox.Literal(text, datatype=ox.NamedNode(datatype))


ODD_VALUES = [
    _literal("abc", XSD + "decimal"),
    _literal("01", XSD + "integer"),
    _literal("-1", XSD + "integer"),
    _literal("0", XSD + "integer"),
    _literal("1.5", XSD + "decimal"),
    _literal("0.95", XSD + "decimal"),
    _literal("-3.25", XSD + "decimal"),
    _literal("1e5", XSD + "decimal"),
    _literal("2026-13-01", XSD + "date"),
    _literal("2026-02-03", XSD + "date"),
    _literal("2026-02-03T04:05:06Z", XSD + "dateTime"),
    _literal("true", XSD + "boolean"),
    ox.Literal("82.6"),
    ox.Literal(""),
    ox.Literal("percent", language="en"),
    ox.NamedNode("http://qudt.org/vocab/unit/PERCENT"),
    ox.NamedNode("http://qudt.org/vocab/unit/UNITLESS"),
    ox.NamedNode("https://example.org/not-qudt"),
    ox.NamedNode(V.HigherIsBetter),
    ox.NamedNode(V.LowerIsBetter),
    ox.BlankNode("damage"),
]
UNCERTAINTY = [V.BG + "ciLower", V.BG + "ciUpper", V.BG + "ciLevel", V.BG + "sampleSize"]


def damage(triples: list[ox.Triple], rng: random.Random) -> list[ox.Triple]:
    """``triples`` with one to four random changes."""
    out = list(triples)
    nodes = sorted({t.subject for t in out if isinstance(t.subject, ox.NamedNode)}, key=str)
    classes = sorted({t.object for t in out if t.predicate.value == V.type_}, key=str)
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(out))
        t = out[i]
        action = rng.choice(
            ["drop", "retype", "revalue", "double", "retarget", "interval", "subclass", "typeless"]
        )
        if action == "drop":
            out.pop(i)
        elif action == "retype":
            out.append(ox.Triple(rng.choice(nodes), ox.NamedNode(V.type_), rng.choice(classes)))
        elif action == "revalue" and t.predicate.value != V.type_:
            out[i] = ox.Triple(t.subject, t.predicate, rng.choice(ODD_VALUES))
        elif action == "double":
            out.append(ox.Triple(t.subject, t.predicate, rng.choice(ODD_VALUES + nodes)))
        elif action == "retarget" and isinstance(t.object, ox.NamedNode):
            out[i] = ox.Triple(t.subject, t.predicate, rng.choice(nodes))
        elif action == "interval":
            subject = rng.choice(nodes)
            for predicate in rng.sample(UNCERTAINTY, rng.randint(1, 4)):
                value = str(Decimal(rng.randint(-20, 120)) / 10)
                kind = XSD + ("integer" if predicate.endswith("sampleSize") else "decimal")
                if kind.endswith("integer"):
                    value = str(rng.randint(-2, 500))
                out.append(ox.Triple(subject, ox.NamedNode(predicate), _literal(value, kind)))
        elif action == "subclass" and rng.random() < 0.2:
            out.append(
                ox.Triple(rng.choice(classes), ox.NamedNode(V.RDFS + "subClassOf"), classes[0])
            )
        elif action == "typeless":
            out = [u for u in out if not (u.subject == t.subject and u.predicate.value == V.type_)]
    return out


@pytest.fixture(scope="module")
def base_pages() -> list[list[ox.Triple]]:
    # the example pages (the big Radar seed page costs pyshacl half a second a run)
    return [page_triples(p) for p in sorted(EXAMPLES.iterdir())]


@pytest.mark.parametrize("seed", range(80))
def test_damaged_pages_give_pyshacls_report_or_go_to_pyshacl(
    seed: int, base_pages: list[list[ox.Triple]]
) -> None:
    rng = random.Random(seed)
    triples = damage(rng.choice(base_pages), rng)
    compiled, reference = both(triples)
    if compiled.engine == "compiled":
        assert_same(compiled, reference)
    else:  # sent to pyshacl: the same run twice
        assert compiled.findings == reference.findings


def test_damage_mostly_stays_on_the_compiled_path_and_finds_violations(
    base_pages: list[list[ox.Triple]],
) -> None:
    """The damage above is not all sent to pyshacl, and it breaks shapes: the comparison is
    not vacuous."""
    checker = validation.compiled(validation.shapes_graph())
    assert checker is not None
    compiled = violating = 0
    for seed in range(80):
        rng = random.Random(seed)
        triples = damage(rng.choice(base_pages), rng)
        try:
            report = checker.validate(shacl.Page(triples))
        except shacl.Unsure:
            continue
        compiled += 1
        violating += any(t.object.value == SH + "Violation" for t in report)
    assert compiled >= 40
    assert violating >= 20


# ---------------------------------------------------------------------------------------------
# When pyshacl runs instead


def test_a_literal_rdflib_rewrites_sends_the_page_to_pyshacl(seeds: Path) -> None:
    triples = page_triples(seeds / "001_e5e96d7d59fada78.txt")
    result = next(t.subject for t in triples if t.object.value == V.Result)
    triples.append(
        ox.Triple(result, ox.NamedNode(V.BG + "sampleSize"), _literal("01", XSD + "integer"))
    )
    compiled, reference = both(triples)
    assert compiled.engine == "pyshacl"
    assert_same(compiled, reference)


def test_shapes_outside_the_compiled_subset_go_to_pyshacl_for_every_page(seeds: Path) -> None:
    shapes = rdflib.Graph()
    shapes += validation.shapes_graph()
    shapes.parse(
        data=f"""@prefix sh: <{SH}> . @prefix bg: <{V.BG}> .
        <urn:shape:x> a sh:NodeShape ; sh:targetClass bg:Result ;
            sh:property [ sh:path bg:value ; sh:maxCount 1 ] ;
            sh:severity sh:Warning ; sh:message "x" .""",
        format="turtle",
    )
    assert validation.compiled(shapes) is None
    _, report = validation.validate_triples(
        page_triples(seeds / "001_e5e96d7d59fada78.txt"), "p", shapes
    )
    assert report.engine == "pyshacl"
    assert report.findings


@pytest.mark.parametrize(
    "extra",
    [
        "sh:flags 'i'",
        "sh:hasValue bg:x",
        "sh:uniqueLang true",
        "sh:qualifiedMinCount 1",
        "sh:minInclusive 'a'",
    ],
)
def test_each_component_outside_the_subset_is_refused(extra: str) -> None:
    shapes = rdflib.Graph().parse(
        data=f"""@prefix sh: <{SH}> . @prefix bg: <{V.BG}> .
        <urn:shape:x> a sh:PropertyShape ; sh:targetClass bg:Result ; sh:path bg:value ;
            sh:pattern "a" ; {extra} ; sh:severity sh:Warning ; sh:message "x" .""",
        format="turtle",
    )
    with pytest.raises(shacl.Unsupported):
        shacl.compile_shapes(shapes)


def test_an_anonymous_shape_with_a_target_is_refused() -> None:
    shapes = rdflib.Graph().parse(
        data=f"""@prefix sh: <{SH}> . @prefix bg: <{V.BG}> .
        [] a sh:PropertyShape ; sh:targetClass bg:Result ; sh:path bg:value ; sh:minCount 1 ;
            sh:severity sh:Warning ; sh:message "x" .""",
        format="turtle",
    )
    with pytest.raises(shacl.Unsupported):
        shacl.compile_shapes(shapes)


def test_validate_gives_the_same_answer_with_either_engine(tmp_path: Path, seeds: Path) -> None:
    store = tmp_path / "store"
    assert run_cli("ingest", str(seeds), store=store).returncode == 0
    # Apart: examples/ holds copies of seeds, which one batch would refuse as pages met again.
    assert run_cli("ingest", str(EXAMPLES), store=store).returncode == 0
    answers = [
        run_cli("validate", "--format", "json", "--no-save", "--engine", engine, store=store)
        for engine in ("auto", "pyshacl")
    ]
    assert [a.returncode for a in answers] == [0, 0]
    auto, reference = (json.loads(a.stdout) for a in answers)
    pages = auto["pages"]
    assert auto.pop("engines") == {"compiled": pages}  # no seed or example needs pyshacl
    assert reference.pop("engines") == {"pyshacl": pages}
    assert auto == reference and auto["warnings"] > 0


def test_values_pyshacl_cannot_compare_are_a_shapes_error_not_a_crash(seeds: Path) -> None:
    triples = page_triples(seeds / "001_e5e96d7d59fada78.txt")
    result = next(t.subject for t in triples if t.object.value == V.Result)
    for name, value in (("ciLower", "abc"), ("ciUpper", "99"), ("ciLevel", "0.95")):
        literal = _literal(value, XSD + "decimal")
        triples.append(ox.Triple(result, ox.NamedNode(V.BG + name), literal))
    for engine in settings.ENGINES:
        with pytest.raises(validation.ShapesError, match="cannot be applied"):
            validation.validate_triples(triples, "page", engine=engine)
