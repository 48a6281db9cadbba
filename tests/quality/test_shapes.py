"""Each shapes file: valid SHACL, a message and a severity on every shape, conforming examples
that raise nothing, and failing examples with the exact (focus, path, shape, severity) set.

A failing example (``tests/data/shapes/<shapes file stem>/fail-*.ttl``) states its expected
results in the file itself, as a ``sh:ValidationReport`` in the style of the W3C SHACL test
suite; the report's description is taken out before the rest is validated.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import rdflib
from pyshacl.entrypoints import meta_validate
from rdflib import RDF, URIRef
from support import REPO

from benchgraph import validation
from benchgraph.validation import SH, compact, path_text

SHAPES_FILES = sorted((REPO / "shapes").glob("*.ttl"))
DATA = REPO / "tests" / "data" / "shapes"
PASSING = sorted((DATA / "pass").glob("*.ttl"))
FAILING = sorted(DATA.glob("*/fail-*.ttl"))
CHECKS = sorted(p.stem for p in (REPO / "queries").glob("check-*.rq"))

Finding = tuple[str, str | None, str, str]  # focus, path, source shape, severity


def parse(path: Path) -> rdflib.Graph:
    return rdflib.Graph().parse(path, format="turtle")


def shapes_of(graph: rdflib.Graph) -> set[rdflib.term.Node]:
    typed = set(graph.subjects(RDF.type, SH.NodeShape)) | set(
        graph.subjects(RDF.type, SH.PropertyShape)
    )
    return typed | set(graph.subjects(SH.path, None))


def split_example(path: Path) -> tuple[rdflib.Graph, set[Finding]]:
    """The data of a failing example and the findings it expects."""
    graph = parse(path)
    reports = list(graph.subjects(RDF.type, SH.ValidationReport))
    assert len(reports) == 1, f"{path.name} states no expected report"
    expected = set()
    for result in graph.objects(reports[0], SH.result):
        expected.add(
            (
                str(graph.value(result, SH.focusNode)),
                path_text(graph, graph.value(result, SH.resultPath)),
                compact(graph.value(result, SH.sourceShape)),
                compact(graph.value(result, SH.resultSeverity)),
            )
        )
    data = rdflib.Graph()
    for triple in graph - graph.cbd(reports[0]):
        data.add(triple)
    return data, expected


def found(data: rdflib.Graph, shapes: rdflib.Graph) -> set[Finding]:
    _, report = validation.validate_graph(data, "example", shapes)
    return {(f.focus, f.path, compact(f.shape), "sh:" + f.severity) for f in report.findings}


def test_there_are_shapes_for_both_ontology_modules() -> None:
    assert {"benchgraph.ttl", "provenance.ttl"} <= {p.name for p in SHAPES_FILES}


@pytest.mark.parametrize("path", SHAPES_FILES, ids=lambda p: p.name)
def test_shapes_file_is_valid_shacl(path: Path) -> None:
    conforms, _, text = meta_validate(parse(path))
    assert conforms, text


@pytest.mark.parametrize("path", SHAPES_FILES, ids=lambda p: p.name)
def test_every_shape_has_a_message_and_a_deliberate_severity(path: Path) -> None:
    graph = parse(path)
    for shape in shapes_of(graph):
        if isinstance(shape, URIRef):
            assert graph.value(shape, SH.severity) in (SH.Violation, SH.Warning, SH.Info), shape
            assert str(graph.value(shape, SH.message) or "").strip(), shape
        else:  # anonymous shapes only as members of sh:or lists, under their parent's message
            assert (None, RDF.first, shape) in graph, f"an anonymous shape outside sh:or: {shape}"


@pytest.mark.parametrize("path", SHAPES_FILES, ids=lambda p: p.name)
def test_every_shapes_file_has_failing_examples(path: Path) -> None:
    assert list((DATA / path.stem).glob("fail-*.ttl")), f"no tests/data/shapes/{path.stem}/fail-*"


@pytest.mark.parametrize("shapes", SHAPES_FILES, ids=lambda p: p.name)
@pytest.mark.parametrize("example", PASSING, ids=lambda p: p.stem)
def test_conforming_example_raises_nothing(shapes: Path, example: Path) -> None:
    assert found(parse(example), parse(shapes)) == set()


@pytest.mark.parametrize("example", PASSING, ids=lambda p: p.stem)
def test_conforming_example_raises_nothing_against_all_shapes(example: Path) -> None:
    assert found(parse(example), validation.shapes_graph()) == set()


@pytest.mark.parametrize("example", FAILING, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_failing_example_gives_exactly_the_expected_findings(example: Path) -> None:
    data, expected = split_example(example)
    assert expected, f"{example.name} expects nothing"
    shapes = parse(REPO / "shapes" / f"{example.parent.name}.ttl")
    assert found(data, shapes) == expected


def test_every_cross_page_check_has_a_shape_and_every_such_shape_a_check() -> None:
    shapes = validation.shapes_graph()
    declared = {
        str(s).removeprefix(validation.BGSH)
        for s in shapes_of(shapes)
        if str(s).startswith(validation.BGSH + "check-")
    }
    assert declared == set(CHECKS)
    for name in CHECKS:
        severity, message = validation.shape_text(shapes, validation.BGSH + name)
        assert severity in validation.SEVERITIES and message
        shape = URIRef(validation.BGSH + name)
        assert not {p for p in shapes.predicates(shape) if str(p).startswith(str(SH) + "target")}


def test_a_shapes_file_that_does_not_parse_is_named(tmp_path: Path) -> None:
    (tmp_path / "broken.ttl").write_text("@prefix sh: <http://www.w3.org/ns/shacl#> .\nsh:x sh:y")
    with pytest.raises(validation.ShapesError, match=r"broken\.ttl"):
        validation.shapes_graph(tmp_path)
