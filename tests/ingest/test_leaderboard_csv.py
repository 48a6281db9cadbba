"""The crawled-leaderboard CSV parser: benchmark-radar's LLM Stats crawl figure by figure,
small files it must refuse or read past, and sniffing every sample."""

from __future__ import annotations

import csv
import hashlib
import io
from pathlib import Path

import pytest
from support import run_cli

from benchgraph import vocab as V
from ingest import leaderboard_csv
from ingest.records import Benchmark, Configuration, MetricDecl, Page, PageError, PaperRef

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO / ".." / "shared"
DATA = SHARED / "data"
EXPORT = DATA / "benchmark_radar_ktwu01" / "llm_stats_benchmark_scores_2026-08-17.head300.csv"
SMALL = REPO / "tests" / "data" / "leaderboard-csv" / "small.csv"
ENDPOINT = "https://api.zeroeval.com/leaderboard/benchmarks/"


@pytest.fixture(scope="module")
def export() -> Page:
    if not EXPORT.exists():
        pytest.skip("the third-party samples (../shared/data) are not beside this checkout")
    return leaderboard_csv.parse(EXPORT.read_bytes(), EXPORT.name)


def small() -> str:
    return SMALL.read_text(encoding="utf-8")


def edit(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
    return text.replace(old, new)


def test_the_crawl_loads_every_row(export: Page) -> None:
    assert (export.format, export.key, export.url) == (
        "leaderboard-csv",
        "leaderboard-csv/api.zeroeval.com/leaderboard/benchmarks",
        ENDPOINT,
    )
    assert export.title == "Leaderboard export of api.zeroeval.com"
    assert export.data_updated == "2026-08-17T18:48:15.428473+00:00"  # the last row fetched
    assert (len(export.results), export.declared_count, export.total_count) == (300, 300, 300)
    assert export.warnings == ()
    assert export.benchmark == Benchmark("AA-Briefcase", "AA-Briefcase")
    assert export.primary_metric == "score"
    assert len(export.metrics) == 20
    assert all(
        m == MetricDecl("score", None, "higher", direction_inferred=True, benchmark=m.benchmark)
        for m in export.metrics
    )
    assert all(r.configuration == Configuration() for r in export.results)  # no protocol
    assert export.sha256 == hashlib.sha256(EXPORT.read_bytes()).hexdigest()


def leaderboard(benchmark_id: str, name: str) -> PaperRef:
    return PaperRef(
        url=f"{ENDPOINT}{benchmark_id}?top_n=500",
        title=f"{name} leaderboard at api.zeroeval.com",
        kind="document",
    )


BRIEFCASE = leaderboard("aa-briefcase", "AA-Briefcase")
FIGURES = {
    # line: benchmark, method, value as published, verified, self-reported, reporting source
    2: ("AA-Briefcase", "Grok 4.6", "1577.0", False, True, BRIEFCASE),
    3: ("AA-Briefcase", "Kimi K3", "1548.0", False, False, BRIEFCASE),
    5: ("AA-Index", "GLM-4.5", "0.677", False, True, leaderboard("aa-index", "AA-Index")),
    28: ("AA-Omniscience Index", "LFM2.5-2.6B", "-29.5", False, True,
         leaderboard("aa-omniscience-index", "AA-Omniscience Index")),
    50: ("AGIEval", "Ministral 3 (8B Base 2512)", "0.591", False, True,
         leaderboard("agieval", "AGIEval")),
    # the source URL escapes the parentheses; the model's display name is not its ID
    58: ("AI2 Reasoning Challenge (ARC)", "GPT-4", "0.963", False, True,
         PaperRef(url=f"{ENDPOINT}ai2-reasoning-challenge-%28arc%29?top_n=500",
                  title="AI2 Reasoning Challenge (ARC) leaderboard at api.zeroeval.com",
                  kind="document")),
    59: ("AI2D", "Claude 3.5 Sonnet", "0.947", False, True, leaderboard("ai2d", "AI2D")),
    150: ("AIME 2024", "DeepSeek R1 Distill Qwen 7B", "0.833", False, True,
          leaderboard("aime-2024", "AIME 2024")),
    301: ("AIME 2026", "Inkling-Small", "0.955", False, True,
          leaderboard("aime-2026", "AIME 2026")),
}  # fmt: skip


@pytest.mark.parametrize("line", FIGURES)
def test_figures_as_published(export: Page, line: int) -> None:
    name, method, value, verified, self_reported, source = FIGURES[line]
    (r,) = [r for r in export.results if r.line == line]
    assert (r.benchmark, r.method, r.reported_in, r.location) == (
        Benchmark(name, name),
        method,
        source,
        f"line {line}",
    )
    assert (r.value, r.cell, r.verified, r.self_reported) == (value, None, verified, self_reported)
    assert r.result_date is None
    assert r.metric == "score" and r.source_id.startswith(export.key + "/")


def test_result_ids_are_the_benchmark_and_model_id(export: Page) -> None:
    ids = [r.source_id for r in export.results]
    assert ids[0] == "leaderboard-csv/api.zeroeval.com/leaderboard/benchmarks/aa-briefcase/grok-4.6"
    assert len(set(ids)) == len(ids)


def test_a_small_file() -> None:
    page = leaderboard_csv.parse(SMALL.read_bytes(), "small.csv")
    assert page.key == "leaderboard-csv/lb.example.org/leaderboard/benchmarks"
    assert page.data_updated == "2026-01-02T10:00:09+00:00"
    assert [m.unit for m in page.metrics] == ["%", None]  # a percent sign in the cells
    assert [(r.method, r.value, r.cell, r.verified, r.self_reported) for r in page.results] == [
        ("Model A (model-a-0601)", "81.5", "81.5%", True, False),
        ("Model A (model-a-0301)", "79.0", "79.0%", False, True),
        ("Model B", "0.62", None, None, None),
    ]
    assert page.results[2].benchmark == Benchmark("Toy LM, large", "Toy LM, large")


@pytest.mark.parametrize(
    ("old", "new", "location", "problem"),
    [
        (",81.5%,", ",,", "line 2, column benchmark_score", "row skipped: no value (empty)"),
        (",81.5%,", ",81 / 82,", "line 2, column benchmark_score",
         "row skipped: '81 / 82': several values in one cell"),
        (",Model B,", ",,", "line 4, column model_name", "row skipped: no model_name"),
        (",0.62,,", ",0.62,", "line 4", "row skipped: 10 fields, the header names 11"),
        (",model-a-0301,", ",model-a-0601,", "line 3, column model_id",
         "row skipped: a second row for 'model-a-0601' (first at line 2)"),
    ],
)  # fmt: skip
def test_a_row_that_cannot_be_read_is_skipped(
    old: str, new: str, location: str, problem: str
) -> None:
    page = leaderboard_csv.parse(edit(small(), old, new).encode("utf-8"), "small.csv")
    assert [(w.origin, w.location, w.problem) for w in page.warnings] == [
        ("small.csv", location, problem)
    ]
    assert (len(page.results), page.total_count) == (2, 3)


def refused(text: str | bytes) -> str:
    data = text.encode("utf-8") if isinstance(text, str) else text
    with pytest.raises(PageError) as caught:
        leaderboard_csv.parse(data, "bad.csv")
    assert caught.value.origin == "bad.csv"
    return str(caught.value)


def test_a_header_without_a_needed_column_is_refused() -> None:
    assert refused(edit(small(), ",benchmark_score,", ",score,")) == (
        "bad.csv: line 1: the header has no column benchmark_score (a leaderboard export's "
        "first line names its columns, e.g. benchmark_id,benchmark_name)"
    )


def test_a_file_of_no_readable_row_is_refused() -> None:
    header = small().split("\n", 1)[0] + "\n"
    assert (
        refused(header)
        == "bad.csv: none of the 0 rows can be read (the file has a header and no rows)"
    )
    one = header + small().split("\n")[3].replace(",0.62,", ",n/a,") + "\n"
    assert refused(one) == (
        "bad.csv: none of the 1 rows can be read (bad.csv: line 2, column benchmark_score: "
        "row skipped: no value ('n/a'))"
    )


def test_text_that_is_not_csv_or_utf8_is_refused() -> None:
    broken = small() + 'toy-qa,"Toy QA\n'
    assert refused(broken) == "bad.csv: line 5: not valid CSV: unexpected end of data"
    assert refused(small().encode("utf-8") + b"\xff") == (
        f"bad.csv: byte {len(small().encode('utf-8'))}: not UTF-8 text (a leaderboard export's "
        "first line names its columns, e.g. benchmark_id,benchmark_name)"
    )


def every_sample() -> list[Path]:
    found = [p for p in sorted(DATA.rglob("*")) if p.is_file()]
    found += sorted((SHARED / "seeds").glob("*"))
    found += sorted((REPO / "examples").glob("*.*"))
    return found


def test_sniff_claims_the_crawl_and_no_other_sample() -> None:
    samples = every_sample()
    if not samples:
        pytest.skip("the samples (../shared/data, ../shared/seeds) are not beside this checkout")
    claimed = {
        p.name for p in samples if leaderboard_csv.sniff(p.read_bytes().decode("utf-8", "replace"))
    }
    assert claimed == {EXPORT.name}
    assert leaderboard_csv.sniff(small())


@pytest.mark.parametrize(
    "text", ["", "benchmark_id,benchmark_name,model_name\n", "\x00", "rank,score\n1,2\n"]
)
def test_sniff_needs_the_header(text: str) -> None:
    assert not leaderboard_csv.sniff(text)


def test_a_leaderboard_of_the_crawl_shows_each_figure_as_published(tmp_path: Path) -> None:
    if not EXPORT.exists():
        pytest.skip("the third-party samples (../shared/data) are not beside this checkout")
    store = tmp_path / "store"
    done = run_cli("ingest", str(EXPORT), store=store)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("1 loaded, 0 unchanged, 0 refused, 0 unreadable; 300 results")
    done = run_cli(
        "query", "leaderboard", "--param", "benchmark=AA-Omniscience Index", "--format", "csv",
        store=store,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = [
        (row["cohort"], row["rank"], row["methodLabel"], row["value"], row["unit"],
         row["direction"], row["paper"])
        for row in csv.DictReader(io.StringIO(done.stdout))
    ]  # fmt: skip
    board = (
        "https://w3id.org/benchgraph/id/document/"
        "aa-omniscience-index-leaderboard-at-api-zeroeval-com"
    )
    assert rows == [
        ("configuration not recorded", "1", "Grok 4.5", "126.0", V.NoUnitStated,
         V.HigherIsBetter, board),
        ("configuration not recorded", "2", "LFM2.5-2.6B", "-29.5", V.NoUnitStated,
         V.HigherIsBetter, board),
    ]  # fmt: skip


def test_the_last_retrieval_is_the_latest_moment_not_the_greatest_text() -> None:
    text = edit(small(), "2026-01-02T10:00:09+00:00", "2026-01-02T11:00:00+02:00")  # 09:00 UTC
    page = leaderboard_csv.parse(text.encode("utf-8"), "small.csv")
    assert page.data_updated == "2026-01-02T10:00:05+00:00"
