"""A benchmark, metric, paper or method that names nothing in the store is an error (exit 2)
that names the parameter and suggests the nearest names the store holds; an existing name whose
answer is empty is no error. Over the examples, through the ``benchgraph`` command.

The names a suggestion must come from are read from the store's quads by the test, not by the
queries under test.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import EXAMPLES, METHOD_QUERY, Index, benchmark_named, labels, metrics_of, run_cli

from benchgraph import vocab as V
from benchgraph.store.embedded import EmbeddedStore
from benchgraph.suggest import Names

LAION = "Prompt Recovery on LAION"


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Index]]:
    """A store of the examples, and an index of its quads."""
    store_dir = tmp_path_factory.mktemp("unknown") / "store"
    done = run_cli("ingest", str(EXAMPLES), store=store_dir)
    assert done.returncode == 0, done.stderr
    with EmbeddedStore(store_dir) as store:
        index = Index(set(store.quads()))
    yield store_dir, index


@pytest.fixture(scope="module")
def method_query(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("queries") / "methods-beside.rq"
    path.write_text(METHOD_QUERY, encoding="utf-8")
    return path


def benchmark_names(index: Index) -> set[str]:
    datasets = {
        str(d.value)
        for b in index.subjects_of_type(V.Benchmark)
        for d in index.objects(b, V.dataset)
    }
    return labels(index, V.Benchmark) | {
        str(t.value) for d in datasets for t in index.objects(d, V.label)
    }


def metric_names(index: Index, benchmark: str) -> set[str]:
    return set(metrics_of(index, benchmark))


def query(store: Path, name: str, **params: str) -> tuple[int, str, list[list[str]]]:
    """Run a named query (or a query file); its exit code, stderr, and CSV rows (the header
    first)."""
    args = [a for k, v in params.items() for a in ("--param", f"{k}={v}")]
    done = run_cli("query", name, *args, "--format", "csv", store=store)
    assert "Traceback" not in done.stderr
    return done.returncode, done.stderr, list(csv.reader(io.StringIO(done.stdout)))


def suggested(stderr: str) -> str:
    """The first name an error suggests."""
    assert "did you mean '" in stderr, stderr
    return stderr.split("did you mean '", 1)[1].split("'", 1)[0]


def test_an_unknown_benchmark_is_exit_two_suggesting_a_benchmark(examples) -> None:
    store, index = examples
    code, stderr, rows = query(store, "leaderboard", benchmark="Prompt Recovery on LAIOM")
    assert code == 2 and rows == []
    assert (
        "leaderboard: parameter 'benchmark': no benchmark is named 'Prompt Recovery on LAIOM'"
        in stderr
    )
    assert suggested(stderr) == LAION and LAION in benchmark_names(index)


@pytest.mark.parametrize(
    ("given", "meant"),
    [
        ("Prompt-Recovery on LAION", LAION),  # punctuation
        ("prompt-recovery on laion", LAION),  # punctuation, in other case
        ("Prompt Recovery on LIAON", LAION),  # a typo
        ("compo-set", "CompoSET"),  # a dataset's name, spelled loosely
        ("art 500k", "ART500K"),
    ],
)
def test_a_near_miss_suggests_the_name_meant(examples, given: str, meant: str) -> None:
    store, index = examples
    code, stderr, _ = query(store, "leaderboard", benchmark=given)
    assert code == 2 and suggested(stderr) == meant
    assert meant in benchmark_names(index)


def test_an_unknown_metric_is_exit_two_suggesting_one_of_the_benchmarks(examples) -> None:
    store, index = examples
    mine = metric_names(index, benchmark_named(index, LAION))
    primary = sorted(mine)[0]
    typo = primary[:-1] + "x"
    code, stderr, _ = query(store, "leaderboard", benchmark=LAION, metric=typo)
    assert code == 2
    assert f"parameter 'metric': benchmark {LAION!r} has no metric named {typo!r}" in stderr
    assert suggested(stderr) in mine


def test_names_in_another_case_are_the_names_themselves(examples) -> None:
    """Benchmark and metric names match without regard to case, as method names do."""
    store, index = examples
    primary = sorted(metric_names(index, benchmark_named(index, LAION)))[0]
    code, _, rows = query(store, "leaderboard", benchmark=LAION.lower(), metric=primary.upper())
    assert code == 0 and len(rows) > 1
    assert rows == query(store, "leaderboard", benchmark=LAION, metric=primary)[2]


def test_a_metric_of_another_benchmark_is_exit_two_listing_the_benchmarks_metrics(examples) -> None:
    store, index = examples
    mine = metric_names(index, benchmark_named(index, LAION))
    others = set().union(*(metric_names(index, b) for b in index.subjects_of_type(V.Benchmark)))
    elsewhere = sorted(others - mine)[0]
    code, stderr, _ = query(store, "leaderboard", benchmark=LAION, metric=elsewhere)
    assert code == 2
    assert f"benchmark {LAION!r} has no metric named {elsewhere!r}" in stderr
    assert all(repr(name) in stderr.split("its metrics: ", 1)[1] for name in mine)
    other = sorted(
        b for b in index.subjects_of_type(V.Benchmark) if elsewhere in metric_names(index, b)
    )[0]
    (iri,) = (
        str(m.value)
        for m in index.objects(other, V.hasMetric)
        if index.value(str(m.value), V.label) == elsewhere
    )
    code, stderr, _ = query(store, "leaderboard", benchmark=LAION, metric=iri)
    assert code == 2 and f"has no metric with the IRI {iri!r}" in stderr


def test_an_unknown_paper_is_exit_two_suggesting_by_title_and_by_id_prefix(examples) -> None:
    store, index = examples
    titles = labels(index, V.Paper)
    ids = labels(index, V.Paper, V.identifier)
    title = sorted(titles)[0]
    code, stderr, _ = query(store, "results-reported-by-paper", paper=title + " v2")
    assert code == 2 and "parameter 'paper': no paper is named" in stderr
    assert suggested(stderr) == title
    full = sorted(ids)[-1]
    code, stderr, _ = query(store, "methods-introduced-by-paper", paper=full[:10])
    assert code == 2 and suggested(stderr) in {i for i in ids if i.startswith(full[:10])}
    code, stderr, _ = query(store, "methods-reported-by-paper", paper="0000")
    assert code == 2 and "no paper is named '0000' (a 24-hex source ID" in stderr


def test_an_iri_of_something_else_is_not_a_paper(examples) -> None:
    store, index = examples
    method = sorted(index.subjects_of_type(V.Method))[0]
    code, stderr, _ = query(store, "methods-introduced-by-paper", paper=method)
    assert code == 2 and f"no paper has the IRI {method!r}" in stderr
    benchmark = f"{V.ID}benchmark/no/such"
    code, stderr, _ = query(store, "leaderboard", benchmark=benchmark)
    assert code == 2 and f"no benchmark has the IRI {benchmark!r}" in stderr


def test_an_unknown_method_is_exit_two_suggesting_a_method(examples, method_query) -> None:
    store, index = examples
    names = labels(index, V.Method)
    name = max(sorted(names), key=len)
    typo = name[:-2] + name[-1] + name[-2]
    code, stderr, _ = query(store, str(method_query), method=typo)
    assert code == 2 and f"parameter 'method': no method is named {typo!r}" in stderr
    assert suggested(stderr) == name
    assert Names(names).nearest(typo)[0] == name


# (Every benchmark of the examples has results: a benchmark's empty answer is its metric's.)
@pytest.mark.parametrize("kind", ["metric", "paper", "method"])
def test_an_existing_name_with_an_empty_answer_is_exit_zero(examples, method_query, kind) -> None:
    store, index = examples
    if kind == "paper":
        reporting = {
            str(p.value)
            for r in index.subjects_of_type(V.Result)
            for p in index.objects(r, V.reportedIn)
        }
        paper = sorted(index.subjects_of_type(V.Paper) - reporting)[0]
        code, stderr, rows = query(
            store, "results-reported-by-paper", paper=paper.rsplit("/", 1)[1]
        )
    elif kind == "method":
        alone = [
            m
            for m in sorted(index.subjects_of_type(V.Method))
            if not index.objects(m, V.introducedIn)
        ]
        code, stderr, rows = query(
            store, str(method_query), method=str(index.value(alone[0], V.label))
        )
    else:
        benchmark = benchmark_named(index, LAION)
        measured = {
            str(m.value)
            for r in index.subjects_of_type(V.Result)
            for m in index.objects(r, V.metric)
        }
        unused = sorted(
            str(m.value)
            for m in index.objects(benchmark, V.hasMetric)
            if str(m.value) not in measured
        )
        metric = str(index.value(unused[0], V.label))
        code, stderr, rows = query(store, "leaderboard", benchmark=LAION, metric=metric)
    assert code == 0, stderr
    assert len(rows) == 1  # the header alone


def test_the_nearest_names_come_first_and_are_few() -> None:
    names = Names(["GenAI-Bench", "Prompt-to-prompt on GenAI-Bench", "LAION", "MS COCO", "COCO"])
    assert names.nearest("genai bench") == ["GenAI-Bench", "Prompt-to-prompt on GenAI-Bench"]
    assert names.nearest("GenAI-Bnech") == ["GenAI-Bench"]
    assert names.nearest("coco") == ["COCO", "MS COCO"]  # the same first, then a word of it
    assert names.nearest("ImageNet") == []
    assert names.nearest("zzz") == [] and names.nearest("C" * 10_000) == []
    ids = Names(
        ["68fa791f1e209131cea7c381", "68fa775d1e209131cea72c0c", "68fa7aa31e209131cea84463"]
    )
    assert ids.nearest("68fa7") == sorted(ids.names)  # an ID's prefix: at most three
    assert ids.nearest("0000") == []


@pytest.mark.parametrize(
    ("given", "meant"),
    [
        ("leaderbord", "leaderboard"),
        ("Leaderboard", "leaderboard"),
        ("methods-introduced", "methods-introduced-by-paper"),
        ("benchmark", "benchmarks"),
    ],
)
def test_a_misspelled_query_name_suggests_the_query_meant(
    store_dir: Path, given: str, meant: str
) -> None:
    """Refused before the store is opened (none is made), with the names of every query."""
    done = run_cli("query", given, store=store_dir)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert suggested(done.stderr) == meant
    assert f"no named query {given!r}; did you mean {meant!r}" in done.stderr
    assert "(named queries: " in done.stderr
    assert not store_dir.exists()


def test_a_query_name_near_nothing_suggests_nothing(store_dir: Path) -> None:
    done = run_cli("query", "zzzz", store=store_dir)
    assert done.returncode == 2
    assert "did you mean" not in done.stderr and "no named query 'zzzz' (named" in done.stderr
