"""The ingest gate: every page is validated against the shapes before it is written; a page
with a violation is refused and changes nothing; warnings are counted, and the report of each
accepted page is stored beside it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pyoxigraph as ox
import pytest
from support import EXAMPLES, REPO, Index, run_cli

from benchgraph import graphs, validation
from benchgraph import vocab as V
from benchgraph.store import Store
from benchgraph.store.embedded import EmbeddedStore
from ingest import loader
from ingest.loader import ingest_file

LAION = EXAMPLES / "sota2-prompt-recovery-on-laion.md"
RADAR = EXAMPLES / "radar-composet-sample.txt"
LAION_RESULT = "69aa7c5b6dbb7075b953ba9e"  # the first result of the LAION page (PH2P)
SH = "http://www.w3.org/ns/shacl#"

# What the shapes find on each seed page: methods with no origin paper on the page (for the
# Radar page: all of its methods, it names no origin paper) and results with no configuration.
SEED_WARNINGS = {
    "000_a0804f4946519d1b.txt": ({"Interpolation", "Latent Interpolation"}, 0),
    "001_e5e96d7d59fada78.txt": ({"STEPS"}, 6),
    "002_d2512863a95936bb.txt": (None, 0),
    "003_29ccdc89561db5f0.txt": ({"STEPS"}, 6),
    "004_6734d08896cb7612.txt": ({"Janus"}, 4),
}


def quads(store_dir: Path) -> set[ox.Quad]:
    with EmbeddedStore(store_dir) as store:
        return set(store.quads())


def changed_copy(source: Path, folder: Path, old: str = "", new: str = "") -> Path:
    """A copy of a page with other bytes (so it is not 'unchanged') and ``old`` replaced."""
    text = source.read_text(encoding="utf-8")
    assert old in text
    text = text.replace(old, new, 1).replace("2026-", "2027-", 1)
    path = folder / f"changed-{source.name}"
    path.write_text(text, encoding="utf-8")
    return path


def test_seeds_load_with_no_violation_and_the_expected_warnings(seeds: Path, store: Store) -> None:
    for name, (no_origin, unconfigured) in SEED_WARNINGS.items():
        outcome = ingest_file(store, seeds / name)
        assert outcome.status == "loaded", outcome.message
        kinds = {(f.severity, validation.compact(f.shape)) for f in outcome.findings}
        assert kinds <= {
            ("Warning", "bgsh:Method-origin"),
            ("Warning", "bgsh:Result-configuration"),
        }
        methods = {f.name for f in outcome.findings if f.shape.endswith("Method-origin")}
        if no_origin is None:  # the Radar page: every method of the page
            page = Index(set(store.graph_triples(outcome.graph)))  # type: ignore[arg-type]
            no_origin = {page.value(m, V.label) for m in page.subjects_of_type(V.Method)}
            assert len(no_origin) == 28
        assert methods == no_origin, name
        results = [f for f in outcome.findings if f.shape.endswith("Result-configuration")]
        assert len(results) == unconfigured, name
        assert all(f.kind == "result" and len(f.name) == 24 for f in results)


def test_the_report_of_each_page_is_stored_beside_it(seeds: Path, store: Store) -> None:
    outcomes = [ingest_file(store, path) for path in sorted(seeds.iterdir())]
    index = Index(store.quads())
    for outcome in outcomes:
        assert outcome.graph is not None
        report = graphs.report(outcome.graph)
        assert report in store.named_graphs()
        sources = index.subjects_of_type(V.SourceDocument)
        assert index.value(report, V.type_) == SH + "ValidationReport"
        assert index.value(report, SH + "conforms") == "true"
        assert index.value(report, V.DCTERMS + "subject") in sources
        assert index.value(report, V.generatedAtTime)
        assert len(index.objects(report, SH + "result")) == len(outcome.findings)


def test_seeds_summary_counts_warnings_and_verbose_lists_them(seeds: Path, store_dir: Path) -> None:
    done = run_cli("ingest", str(seeds), store=store_dir)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(
        "5 loaded, 0 unchanged, 0 refused, 0 unreadable; 321 results in the loaded pages; "
        "8 warnings, 0 infos (--verbose lists them)"
    )
    # Grouped by kind without --verbose: the 49 findings of the shapes, said once per source.
    assert "warning:" not in done.stderr
    assert done.stderr.startswith("warnings by kind:\n  bgsh:Method-origin: 33 methods on 5 ")
    assert "\n  bgsh:Result-configuration: 16 results on 3 sources, e.g. " in done.stderr
    other = store_dir.parent / "other-store"
    verbose = run_cli("ingest", "--verbose", str(seeds), store=other)
    assert verbose.returncode == 0
    lines = verbose.stderr.splitlines()
    assert len([line for line in lines if line.startswith("warning: ")]) == 8
    assert any(
        line.startswith(
            f"warning: {seeds / '001_e5e96d7d59fada78.txt'}: source "
            "sota2/prompt-recovery-on-laion/clip-score: method STEPS: has no known"
        )
        for line in lines
    )


def _without(predicate: str, subject: str) -> Callable[[object, str], list[ox.Triple]]:
    real = loader.map_page

    def mapped(page: object, when: str) -> list[ox.Triple]:
        return [
            t
            for t in real(page, when)  # type: ignore[arg-type]
            if not (t.predicate.value == predicate and t.subject.value == subject)
        ]

    return mapped


CRAFTED = {
    "no-unit": (V.unit, "needs exactly one unit (bg:unit)", "bgsh:Result-unit"),
    "no-reporting-paper": (
        V.reportedIn,
        "needs exactly one reporting source",
        "bgsh:Result-reportedIn",
    ),
    "no-source": (
        V.wasDerivedFrom,
        "must be derived from exactly one source page",
        "bgsh:Result-source",
    ),
}


@pytest.mark.parametrize("case", sorted(CRAFTED))
def test_a_page_lacking_unit_paper_or_source_is_refused_and_changes_nothing(
    case: str, store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for path in sorted(EXAMPLES.iterdir()):
        assert ingest_file(store, path).status == "loaded"
    before = set(store.quads())
    predicate, message, shape = CRAFTED[case]
    monkeypatch.setattr(loader, "map_page", _without(predicate, V.ID + "result/" + LAION_RESULT))
    page = changed_copy(LAION, tmp_path)
    outcome = ingest_file(store, page)
    assert outcome.status == "refused"
    assert outcome.message.startswith(f"{page}: ")
    assert f"result {LAION_RESULT}: {message}" in outcome.message
    assert shape in outcome.message
    assert set(store.quads()) == before


def test_the_cli_refuses_a_page_whose_interval_excludes_its_value(
    store_dir: Path, tmp_path: Path
) -> None:
    assert run_cli("ingest", str(EXAMPLES), store=store_dir).returncode == 0
    before = quads(store_dir)
    bad = changed_copy(RADAR, tmp_path, "20.4 [17.2,23.6]", "20.4 [21.0,23.6]")
    done = run_cli("ingest", str(bad), store=store_dir)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.startswith("0 loaded, 0 unchanged, 1 refused, 0 unreadable;")
    assert f"refused: {bad}: 1 violation of the shapes, nothing written:" in done.stderr
    assert "clip-b-32" in done.stderr and "modify-color" in done.stderr
    assert "lower bound (bg:ciLower) no greater than its value" in done.stderr
    assert "Traceback" not in done.stderr
    assert quads(store_dir) == before


def test_shapes_that_do_not_parse_stop_ingest_with_exit_two(
    store_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "resources"
    for folder in ("ontology", "queries", "queries/internal", "shapes"):
        (root / folder).mkdir(parents=True)
        for path in (REPO / folder).iterdir():
            if path.is_file():  # queries/site/ holds the site's pages, not named queries
                (root / folder / path.name).write_bytes(path.read_bytes())
    broken = root / "shapes" / "provenance.ttl"
    broken.write_text(broken.read_text() + "\nthis is not turtle\n")
    monkeypatch.setenv("BENCHGRAPH_RESOURCES", str(root))
    done = run_cli("ingest", str(LAION), store=store_dir)
    assert done.returncode == 2
    assert f"{LAION}: cannot validate: {broken}: not valid Turtle" in done.stderr
    assert "Traceback" not in done.stderr
    assert quads(store_dir) == set()
