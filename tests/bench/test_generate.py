"""The synthetic corpus generator, at a small size: the same seed gives the same bytes, every
page is a page the real parsers accept, and the manifest states what the store holds after the
corpus is ingested through the real command.

Counts in the store are read back from its quads, never recomputed the generator's way.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from support import REPO, Index, generate_corpus, run_cli

from benchgraph import vocab as V
from benchgraph.store.embedded import EmbeddedStore
from ingest.reading import read_page
from ingest.records import Page

PAGES = 40


def generate(out: Path, seed: int, pages: int = PAGES) -> dict[str, int]:
    return generate_corpus(out, seed, pages)


def contents(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    out = tmp_path_factory.mktemp("corpus")
    return out / "pages", generate(out, seed=7)


@pytest.fixture(scope="module")
def parsed(corpus: tuple[Path, dict[str, int]]) -> list[Page]:
    pages, _ = corpus
    return [read_page(path.read_bytes(), str(path)) for path in sorted(pages.iterdir())]


def test_same_seed_same_bytes_other_seed_other_pages(
    corpus: tuple[Path, dict[str, int]], tmp_path: Path
) -> None:
    pages, manifest = corpus
    again = generate(tmp_path / "again", seed=7)
    assert contents(tmp_path / "again" / "pages") == contents(pages)
    assert again == manifest
    generate(tmp_path / "other", seed=8)
    other = contents(tmp_path / "other" / "pages")
    assert len(other) == PAGES
    assert set(other.values()).isdisjoint(contents(pages).values())


def test_refuses_a_folder_that_already_has_pages(corpus: tuple[Path, dict[str, int]]) -> None:
    pages, _ = corpus
    done = subprocess.run(
        [sys.executable, "-m", "bench.generate", "--pages", "3", "--out", str(pages.parent)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert done.returncode == 2
    assert "not empty" in done.stderr
    assert len(list(pages.iterdir())) == PAGES


def test_every_page_parses_in_its_format(
    corpus: tuple[Path, dict[str, int]], parsed: list[Page]
) -> None:
    _, manifest = corpus
    assert len(parsed) == manifest["pages"] == PAGES
    formats = Counter(page.format for page in parsed)
    assert formats == {"sota2": manifest["sota2_pages"], "radar": manifest["radar_pages"]}
    assert formats["radar"] >= 1 and formats["sota2"] >= 0.9 * PAGES


def test_pages_have_the_shape_of_real_ones(parsed: list[Page]) -> None:
    sota2 = [page for page in parsed if page.format == "sota2"]
    counts = [len(page.results) for page in sota2]
    assert 20 <= sum(counts) / len(counts) <= 40
    assert any(not page.results and page.total_count == 0 for page in sota2)
    assert any(0 < page.declared_count < (page.total_count or 0) for page in sota2)
    declared = {(m.unit, m.direction) for page in sota2 for m in page.metrics}
    assert {unit for unit, _ in declared} == {"PERCENT", "SCALAR"}
    assert {direction for _, direction in declared} == {"higher", "lower"}
    benchmarks = Counter(page.benchmark for page in sota2)
    assert max(benchmarks.values()) > 1  # a benchmark recurs, ranked by another metric
    results = [r for page in sota2 for r in page.results]
    configured = sum(r.configuration.recorded for r in results) / len(results)
    assert 0.1 < configured < 0.6
    assert any(r.result_date for r in results) and any(r.implementation for r in results)
    for page in sota2:
        values = [float(r.value) for r in page.results]
        higher = page.metric(page.primary_metric).direction == "higher"
        assert values == sorted(values, reverse=higher), page.origin
    methods = Counter(r.method for r in results)
    assert max(methods.values()) >= 10 * min(methods.values())  # a few methods are everywhere
    radar = [page for page in parsed if page.format == "radar"]
    for page in radar:  # layouts vary (tests/ingest/test_radar_generated.py); the template not
        assert sum(r.headline for r in page.results) == page.declared_count > 0
        assert not [w for w in page.warnings if "cannot be placed" in w.problem], page.origin


def test_store_holds_what_the_manifest_says(
    corpus: tuple[Path, dict[str, int]], store_dir: Path
) -> None:
    pages, manifest = corpus
    done = run_cli("ingest", str(pages), store=store_dir)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(
        f"{manifest['pages']} loaded, 0 unchanged, 0 refused, 0 unreadable; "
        f"{manifest['results']} results in the loaded pages"
    )
    with EmbeddedStore(store_dir) as store:
        index = Index(store.quads())
    sources = index.subjects_of_type(V.SourceDocument)
    assert len(sources) == manifest["pages"]
    formats = Counter(index.value(source, V.sourceFormat) for source in sources)
    assert formats == {"sota2": manifest["sota2_pages"], "radar": manifest["radar_pages"]}
    results = index.subjects_of_type(V.Result)
    assert len(results) == manifest["results"]
    assert len(index.subjects_of_type(V.Aggregate)) == manifest["aggregates"]
    methods = index.subjects_of_type(V.Method)
    assert len(methods) == manifest["methods"]
    assert {index.value(r, V.method) for r in results} == methods
    assert len(index.subjects_of_type(V.Paper)) == manifest["papers"]
    assert len(index.subjects_of_type(V.Benchmark)) == manifest["benchmarks"]
    for method in methods:  # one origin per method, however many pages name it
        assert len(index.objects(method, V.introducedIn)) <= 1, method
    with_origin = [m for m in methods if index.objects(m, V.introducedIn)]
    assert 0.6 < len(with_origin) / len(methods) < 0.95
