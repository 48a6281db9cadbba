"""``benchgraph validate``: the whole store against the current shapes, page by page, plus the
cross-page checks; exit 0 conforms, 1 violations, 2 error."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pyoxigraph as ox
import pyshacl
import pytest
import rdflib
from support import EXAMPLES, REPO, SEEDS, build_store, run_cli

from benchgraph import graphs, queries, settings, shacl, store_validation, validation
from benchgraph import vocab as V
from benchgraph.store.embedded import EmbeddedStore
from ingest.loader import ingest_file

LAION_GRAPH = V.ID + "graph/sota2/prompt-recovery-on-laion/clip-score"
COCO_GRAPH = V.ID + "graph/sota2/prompt-recovery-on-ms-coco/clip-score"
LAION_RESULT = V.ID + "result/69aa7c5b6dbb7075b953ba9e"
LAION_METRIC = V.ID + "benchmark/prompt-recovery/laion/metric/clip-score"
EDITOR = V.ID + "method/editor"
SH = rdflib.Namespace("http://www.w3.org/ns/shacl#")


@pytest.fixture(scope="module")
def seeded_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not SEEDS.is_dir():
        pytest.skip("the seed pages (../shared/seeds) are not beside this checkout")
    store_dir = tmp_path_factory.mktemp("seeded") / "store"
    with EmbeddedStore(store_dir) as store:
        for path in sorted(SEEDS.iterdir()):
            assert ingest_file(store, path).status == "loaded"
    return store_dir


@pytest.fixture
def seeded(seeded_once: Path, store_dir: Path) -> Path:
    """A store of its own holding the seeds (a copy of one ingest, closed when copied)."""
    shutil.copytree(seeded_once, store_dir)
    return store_dir


def add(store_dir: Path, graph: str, s: str, p: str, o: ox.NamedNode | ox.Literal) -> None:
    """Write one triple straight into a page graph, past the gate (and into the merged view,
    as a write through the store would)."""
    raw = ox.Store(str(store_dir))
    raw.add(ox.Quad(ox.NamedNode(s), ox.NamedNode(p), o, ox.NamedNode(graph)))
    raw.add(ox.Quad(ox.NamedNode(s), ox.NamedNode(p), o, ox.DefaultGraph()))
    raw.flush()
    del raw


def remove_unit(store_dir: Path) -> None:
    raw = ox.Store(str(store_dir))
    for quad in list(
        raw.quads_for_pattern(ox.NamedNode(LAION_RESULT), ox.NamedNode(V.unit), None, None)
    ):
        raw.remove(quad)
    raw.flush()
    del raw


def stored_violations(store_dir: Path) -> dict[str, int]:
    named = queries.find("audit-validation")
    with EmbeddedStore(store_dir) as store:
        return {row["page"].value: int(row["violations"].value) for row in store.query(named.text)}


def test_the_seeds_conform(seeded: Path) -> None:
    done = run_cli("validate", "--format", "json", store=seeded)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["conforms"] is True
    assert (report["pages"], report["violations"], report["warnings"], report["infos"]) == (
        5,
        0,
        49,
        0,
    )
    text = run_cli("validate", "--all", store=seeded)  # every page again, as none changed
    assert text.returncode == 0
    assert text.stdout.splitlines()[-1] == (
        "5 pages and the cross-page checks validated: 0 violations, 49 warnings, 0 infos; conforms"
    )


def test_a_violation_injected_past_the_gate_is_found(seeded: Path) -> None:
    remove_unit(seeded)
    done = run_cli("validate", store=seeded)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("violation: ")]
    assert lines == [
        "violation: sota2/prompt-recovery-on-laion/clip-score: "
        "result 69aa7c5b6dbb7075b953ba9e: needs exactly one unit (bg:unit), a QUDT unit IRI: "
        "a number without its unit cannot be compared or converted [bgsh:Result-unit, bg:unit]",
        "violation: sota2/prompt-recovery-on-laion/clip-score: "
        "result 69aa7c5b6dbb7075b953ba9e: must have the unit of its metric "
        "(bg:metric/bg:unit equals bg:unit): otherwise the number would be read in the wrong "
        "unit [bgsh:Result-unitOfMetric, bg:metric/bg:unit]",
    ]
    assert "does not conform" in done.stdout.splitlines()[-1]
    # the new report replaced the stored one, where audits read it
    assert stored_violations(seeded)["sota2/prompt-recovery-on-laion/clip-score"] == 2


def test_json_and_turtle_reports_name_the_focus(seeded: Path) -> None:
    remove_unit(seeded)
    done = run_cli("validate", "--format", "json", "--no-save", store=seeded)
    assert done.returncode == 1
    report = json.loads(done.stdout)
    violations = [f for f in report["findings"] if f["severity"] == "Violation"]
    assert {(f["focus"], f["sourceId"], f["page"], f["shape"]) for f in violations} == {
        (
            LAION_RESULT,
            "69aa7c5b6dbb7075b953ba9e",
            "sota2/prompt-recovery-on-laion/clip-score",
            validation.BGSH + shape,
        )
        for shape in ("Result-unit", "Result-unitOfMetric")
    }
    turtle = run_cli("validate", "--format", "turtle", "--no-save", store=seeded)
    assert turtle.returncode == 1
    graph = rdflib.Graph().parse(data=turtle.stdout, format="turtle")
    (report_node,) = graph.subjects(rdflib.RDF.type, SH.ValidationReport)
    assert graph.value(report_node, SH.conforms) == rdflib.Literal(False)
    focus = {
        graph.value(r, SH.focusNode)
        for r in graph.objects(report_node, SH.result)
        if graph.value(r, SH.resultSeverity) == SH.Violation
    }
    assert focus == {rdflib.URIRef(LAION_RESULT)}
    assert len(list(graph.objects(report_node, SH.result))) == 51
    # --no-save left the stored reports as the gate wrote them
    assert stored_violations(seeded)["sota2/prompt-recovery-on-laion/clip-score"] == 0


CROSS_PAGE = {
    "check-metric-units": (
        LAION_METRIC,
        V.unit,
        ox.NamedNode(V.UNIT + "UNITLESS"),
        "Violation",
        1,
    ),
    "check-method-origin-papers": (
        EDITOR,
        V.introducedIn,
        ox.NamedNode(V.ID + "paper/68fa7aa31e209131cea84463"),
        "Warning",
        0,
    ),
    "check-result-sources": (
        LAION_RESULT,
        V.wasDerivedFrom,
        ox.NamedNode(V.ID + "source/sota2/prompt-recovery-on-ms-coco/clip-score"),
        "Violation",
        1,
    ),
}


@pytest.mark.parametrize("check", sorted(CROSS_PAGE))
def test_what_no_single_page_shows_is_found_across_pages(check: str, seeded: Path) -> None:
    focus, predicate, value, severity, code = CROSS_PAGE[check]
    add(seeded, COCO_GRAPH, focus, predicate, value)  # another page says otherwise
    done = run_cli("validate", "--format", "json", store=seeded)
    assert done.returncode == code, done.stdout + done.stderr
    report = json.loads(done.stdout)
    crossing = [f for f in report["findings"] if f["page"] == "across pages"]
    assert [(f["shape"], f["focus"], f["severity"]) for f in crossing] == [
        (validation.BGSH + check, focus, severity)
    ]
    assert "sota2/prompt-recovery-on-ms-coco/clip-score" in crossing[0]["message"]
    page_findings = [f for f in report["findings"] if f["page"] != "across pages"]
    assert all(f["severity"] == "Warning" for f in page_findings)  # each page alone is fine


def test_near_misses_are_reported_as_possible_duplicates_not_merged(seeded: Path) -> None:
    """A method named a near miss of another's, and a paper whose title is another's but for
    case and punctuation, stand apart as two resources and are reported as warnings."""
    jina_ours = V.ID + "method/jina-v4-ours"
    clip = V.ID + "method/clipb-16-laion-2b"
    paper = V.ID + "paper/arxiv-2101.00001"
    for s, o in ((jina_ours, "Jina-v4 (ours)"), (clip, "CLIPB/16 LAION-2B")):
        add(seeded, COCO_GRAPH, s, V.type_, ox.NamedNode(V.Method))
        add(seeded, COCO_GRAPH, s, V.label, ox.Literal(o))
    add(seeded, COCO_GRAPH, paper, V.type_, ox.NamedNode(V.Paper))
    add(seeded, COCO_GRAPH, paper, V.label, ox.Literal("CompoSET: paper, v1"))
    done = run_cli("validate", "--format", "json", store=seeded)
    assert done.returncode == 0, done.stdout + done.stderr  # warnings only
    report = json.loads(done.stdout)
    crossing = {
        (f["shape"].removeprefix(validation.BGSH), f["focus"]): f["message"]
        for f in report["findings"]
        if f["page"] == "across pages"
    }
    composet = V.ID + "paper/composet-paper-v1"
    assert set(crossing) == {
        ("check-possible-duplicate-methods", V.ID + "method/jina-v4"),
        ("check-possible-duplicate-methods", V.ID + "method/clip-b-16-laion-2b"),
        ("check-possible-duplicate-methods", clip),
        ("check-possible-duplicate-papers", composet),
        ("check-possible-duplicate-papers", paper),
    }
    jina = crossing["check-possible-duplicate-methods", V.ID + "method/jina-v4"]
    assert jina_ours in jina and "trailing parenthesis" in jina
    assert "the same title" in crossing["check-possible-duplicate-papers", paper]
    assert composet in crossing["check-possible-duplicate-papers", paper]


@pytest.mark.parametrize("engine", settings.ENGINES)
def test_validation_goes_page_by_page(
    seeded: Path, monkeypatch: pytest.MonkeyPatch, engine: validation.Engine
) -> None:
    """Each engine sees one page at a time, that page's triples only."""
    sizes: list[int] = []
    if engine == "pyshacl":
        real = pyshacl.validate

        def spy(data: rdflib.Graph, **options: object) -> object:
            sizes.append(len(data))
            return real(data, **options)

        monkeypatch.setattr(pyshacl, "validate", spy)
    else:
        real_page = shacl.Page

        def page_spy(triples: list[ox.Triple]) -> shacl.Page:
            sizes.append(len(triples))
            return real_page(triples)

        monkeypatch.setattr(shacl, "Page", page_spy)
    with EmbeddedStore(seeded) as store:
        pages = [g for g in store.named_graphs() if g.startswith(graphs.PAGES)]
        expected = sorted(len(list(store.graph_triples(g))) for g in pages)
        conforms, report = store_validation.validate_store(store, engine=engine)
    assert conforms and len(report.pages) == 5
    assert {r.engine for r in report.pages} == {"pyshacl" if engine == "pyshacl" else "compiled"}
    assert sorted(sizes) == expected


def copy_resources(root: Path) -> Path:
    for folder in ("ontology", "queries", "shapes"):
        shutil.copytree(REPO / folder, root / folder)
    return root


def test_shapes_changed_since_ingest_are_applied(
    seeded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_resources(tmp_path / "resources")
    core = root / "shapes" / "benchgraph.ttl"
    text = core.read_text()
    old = '    sh:minCount 1 ;\n    sh:severity sh:Warning ;\n    sh:message "has no recorded'
    assert old in text
    core.write_text(text.replace(old, old.replace("sh:Warning", "sh:Violation")))
    monkeypatch.setenv("BENCHGRAPH_RESOURCES", str(root))
    done = run_cli("validate", "--format", "json", store=seeded)
    assert done.returncode == 1
    assert json.loads(done.stdout)["violations"] == 16
    assert sum(stored_violations(seeded).values()) == 16


def test_shapes_that_do_not_parse_are_exit_two(
    seeded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_resources(tmp_path / "resources")
    (root / "shapes" / "provenance.ttl").write_text("bgsh:x a sh:NodeShape")
    monkeypatch.setenv("BENCHGRAPH_RESOURCES", str(root))
    done = run_cli("validate", store=seeded)
    assert done.returncode == 2
    assert "provenance.ttl: not valid Turtle" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_check_without_its_shape_is_exit_two(
    seeded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = copy_resources(tmp_path / "resources")
    (root / "queries" / "check-new.rq").write_text("#+ summary: New\nSELECT ?x WHERE { ?x ?p ?o }")
    monkeypatch.setenv("BENCHGRAPH_RESOURCES", str(root))
    done = run_cli("validate", store=seeded)
    assert done.returncode == 2
    assert "no shape bgsh:check-new" in done.stderr


def test_an_empty_store_conforms(store_dir: Path) -> None:
    EmbeddedStore(store_dir).close()
    done = run_cli("validate", store=store_dir)
    assert done.returncode == 0
    assert done.stdout == (
        "0 pages and the cross-page checks validated: 0 violations, 0 warnings, 0 infos; conforms\n"
    )


def test_summary_counts_by_severity_and_shape_and_lists_no_finding(tmp_path: Path) -> None:
    """On the examples (no seeds needed), a violation injected past the gate among the
    warnings: --summary gives the full report's counts, a line per severity and shape."""
    store_dir = build_store(tmp_path / "store", EXAMPLES)
    remove_unit(store_dir)
    full = run_cli("validate", "--format", "json", "--no-save", store=store_dir)
    assert full.returncode == 1, full.stderr
    findings = json.loads(full.stdout)["findings"]
    expected = Counter((f["severity"].lower(), validation.compact(f["shape"])) for f in findings)
    pages: dict[tuple[str, str], set[str]] = {}
    for f in findings:
        key = (f["severity"].lower(), validation.compact(f["shape"]))
        pages.setdefault(key, set()).add(f["page"])
    assert len(expected) > 2 and "violation" in {severity for severity, _ in expected}

    done = run_cli("validate", "--summary", "--no-save", store=store_dir)
    assert done.returncode == 1, done.stderr
    *lines, last = done.stdout.splitlines()
    assert last == run_cli("validate", "--no-save", store=store_dir).stdout.splitlines()[-1]
    found = {}
    for line in lines:
        shown = re.fullmatch(
            r"(violation|warning|info) (\S+): (\d+) (?:on (\d+) pages?|across pages)", line
        )
        assert shown, f"not a line of the summary: {line!r}"
        severity, shape, count, on = shown.groups()
        found[(severity, shape)] = int(count)
        assert int(on or 0) == len(pages[(severity, shape)] - {"across pages"}), line
    assert found == dict(expected)
    assert lines[0].startswith("violation ")  # the most severe first
    counts = [int(line.split(": ")[1].split()[0]) for line in lines if line.startswith("warning")]
    assert counts == sorted(counts, reverse=True)  # then the most frequent

    summary = run_cli("validate", "--summary", "--format", "json", "--no-save", store=store_dir)
    document = json.loads(summary.stdout)
    assert "findings" not in document
    assert document["violations"] == sum(n for (s, _), n in expected.items() if s == "violation")
    assert {
        (s["severity"].lower(), validation.compact(s["shape"])): s["findings"]
        for s in document["shapes"]
    } == dict(expected)
    turtle = run_cli("validate", "--summary", "--format", "turtle", store=store_dir)
    assert turtle.returncode == 2 and "--summary" in turtle.stderr
