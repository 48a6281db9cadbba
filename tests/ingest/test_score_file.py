"""The benchmark-radar score-file parser: the published file figure by figure and benchmark by
benchmark (one source each), the dataset's files it refuses, small files it must refuse or read
past, and sniffing every sample."""

from __future__ import annotations

import csv
import io
import shutil
from pathlib import Path

import pytest
from support import needs_shared, run_cli

from benchgraph import vocab as V
from benchgraph.names import normalise
from ingest import score_file
from ingest.reading import read_pages
from ingest.records import (
    Benchmark,
    Configuration,
    MetricDecl,
    Page,
    PageError,
    PaperRef,
    ResultRecord,
)

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO / ".." / "shared"
DATA = SHARED / "data"
RADAR = DATA / "benchmark_radar_ktwu01"
SCORES = RADAR / "benchmark_scores.yml"
SNAPSHOTS = RADAR / "leaderboard_snapshots.yml"
EXPORT = RADAR / "llm_stats_benchmark_scores_2026-08-17.head300.csv"
SMALL = REPO / "tests" / "data" / "score-file" / "small.yml"
BAD_ROWS = REPO / "tests" / "data" / "score-file" / "radar-bad-rows.yml"
ID = "https://w3id.org/benchgraph/id/"
KEY = "score-file/benchmark-radar"
# The command line's ingest reads one Page per file until the loader takes the list of Pages
# a many-source file gives: these tests pass once it does (and then this mark goes).


def sample(path: Path) -> Path:
    if not path.exists():
        pytest.skip("the third-party samples (../shared/data) are not beside this checkout")
    return path


@pytest.fixture(scope="module")
def scores() -> list[Page]:
    path = sample(SCORES)
    return score_file.parse(path.read_bytes(), path.name)


def every_result(pages: list[Page]) -> list[ResultRecord]:
    return [r for page in pages for r in page.results]


def every_warning(pages: list[Page]) -> list[tuple[str, str, str]]:
    return [(w.origin, w.location, w.problem) for page in pages for w in page.warnings]


def small() -> str:
    return SMALL.read_text(encoding="utf-8")


def edit(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
    return text.replace(old, new)


def parsed(text: str, origin: str = "small.yml") -> list[Page]:
    return score_file.parse(text.encode("utf-8"), origin)


def refused(text: str, origin: str = "bad-scores.yml") -> PageError:
    with pytest.raises(PageError) as caught:
        score_file.parse(text.encode("utf-8"), origin)
    assert caught.value.origin == origin
    return caught.value


# --- the published file -------------------------------------------------------------------


def test_the_file_is_one_source_per_benchmark(scores: list[Page]) -> None:
    keys = [page.key for page in scores]
    assert len(set(keys)) == len(keys) == 83  # agieval is declared and has no result
    assert keys[0] == f"{KEY}/mmlu/mmlu"
    assert f"{KEY}/terminal-bench/terminal-bench-2-1" in keys
    assert not any(page.benchmark and page.benchmark.task == "agieval" for page in scores)
    assert len(every_result(scores)) == 271
    for page in scores:
        assert page.benchmark is not None
        task, dataset = page.benchmark.task, page.benchmark.dataset
        assert page.key == f"{KEY}/{normalise(task)}/{normalise(dataset)}"
        assert (page.format, page.url, page.data_updated, page.publisher, page.warnings) == (
            "score-file", None, None, "benchmark-radar", (),
        )  # fmt: skip
        assert page.declared_count == page.total_count == len(page.results)
        (metric,) = page.metrics
        assert (metric.name, metric.benchmark) == (page.primary_metric, page.benchmark)
        assert {r.benchmark for r in page.results} == {page.benchmark}
        assert len(page.sha256) == 64
    assert len({page.sha256 for page in scores}) == 83
    titles = {page.key: page.title for page in scores}
    assert titles[f"{KEY}/mmlu/mmlu"] == "benchmark-radar scores on mmlu"
    assert titles[f"{KEY}/terminal-bench/terminal-bench-2-1"] == (
        "benchmark-radar scores on terminal_bench, instrument terminal_bench_2.1"
    )


def by_location(pages: list[Page], index: int) -> tuple:
    page, r = next((p, r) for p in pages for r in p.results if r.location == f"results[{index}]")
    decl = page.metric(r.metric, r.benchmark)
    return (
        r.benchmark,
        r.method,
        r.metric,
        r.value,
        decl.unit,
        decl.direction,
        decl.direction_inferred,
        r.configuration.protocol,
        r.reported_in,
        r.result_date,
    )


def document(source: str, date: str) -> PaperRef:
    return PaperRef(source_id=source, title=source, date=date, kind="document")


GEMINI_15 = document("google_gemini_1_5_report", "2024-03-08")
DEEPSEEK_V3 = document("deepseek_v3_report", "2024-12-27")
FIGURES = {
    # Gemini 1.5 report, Table 11: the first row of the file
    0: (Benchmark("mmlu", "mmlu"), "Gemini 1.5 Pro", "accuracy", "85.9", "percent", "higher",
        False, "5-shot", GEMINI_15, "2024-03-08"),
    # the chat preamble is part of the protocol
    2: (Benchmark("humaneval", "humaneval"), "Gemini 1.5 Pro", "pass@1", "84.1", "percent",
        "higher", False, "0-shot, chat preamble", GEMINI_15, "2024-03-08"),
    # a trailing zero as printed
    8: (Benchmark("swe_bench_verified", "swe_bench_verified"), "DeepSeek-V3", "resolved",
        "42.0", "percent", "higher", False, "Resolved, vendor harness", DEEPSEEK_V3,
        "2024-12-27"),
    # two protocols of one table, kept apart
    9: (Benchmark("livecodebench", "livecodebench"), "DeepSeek-V3", "pass@1", "40.5", "percent",
        "higher", False, "Pass@1-COT", DEEPSEEK_V3, "2024-12-27"),
    10: (Benchmark("livecodebench", "livecodebench"), "DeepSeek-V3", "pass@1", "37.6",
         "percent", "higher", False, "Pass@1", DEEPSEEK_V3, "2024-12-27"),
    # the instrument is the benchmark's dataset: AIME 2024 under the aime family
    12: (Benchmark("aime", "aime_2024"), "DeepSeek-V3", "pass@1", "39.2", "percent", "higher",
         False, "Pass@1", DEEPSEEK_V3, "2024-12-27"),
    # a subset named in the instrument and in the protocol
    67: (Benchmark("swe_bench_verified", "swe_bench_verified_anthropic_489"),
         "Claude 3.7 Sonnet", "resolved", "63.7", "percent", "higher", False,
         "vanilla pass@1, 489-task infrastructure-compatible subset",
         document("anthropic_claude_3_7_sonnet", "2025-02-24"), "2025-02-24"),
    # Terminal-Bench 2.0 and 2.1 are different instruments
    77: (Benchmark("terminal_bench", "terminal_bench_2.0"), "GLM-5", "accuracy", "56.2",
         "percent", "higher", False,
         "Terminal-Bench 2.0, Terminus-2 harness, timeout 2h, temp 0.7, top_p 1.0, 128K context",
         document("zai_glm_5_model_card", "2026-02-11"), "2026-02-11"),
    102: (Benchmark("terminal_bench", "terminal_bench_2.1"), "GLM-5.2", "accuracy", "81.0",
          "percent", "higher", False,
          "Terminal-Bench 2.1, Terminus-2, parser json, timeout 4h, temp 1.0, top_p 1.0, "
          "max_new_tokens 48k, max_episodes 500, 256K context",
          document("zai_glm_5_2_model_card", "2026-06-16"), "2026-06-16"),
    # a rating in Elo, an integer as printed
    149: (Benchmark("codeforces", "codeforces"), "DeepSeek-V4-Pro", "rating", "3206", "elo",
          "higher", False, "think max, rating", document("deepseek_v4_model_card", "2026-04-22"),
          "2026-04-22"),
    # a revenue in US dollars
    "vending": (Benchmark("vending_bench", "vending_bench_2"), "GLM-5", "revenue", "4432.12",
                "usd", "higher", False, "runs conducted independently by Andon Labs",
                document("zai_glm_5_model_card", "2026-02-11"), "2026-02-11"),
    # the last row of the file
    270: (Benchmark("gdpval", "gdpval_aa_v2"), "Claude Opus 5", "elo", "1861", "elo", "higher",
          False, "ELO rating, max effort, agentic loop with shell access and web browsing",
          document("anthropic_claude_opus_5_system_card", "2026-07-24"), "2026-07-24"),
}  # fmt: skip


@pytest.mark.parametrize("index", [k for k in FIGURES if isinstance(k, int)])
def test_figures_as_published(scores: list[Page], index: int) -> None:
    assert by_location(scores, index) == FIGURES[index]


def test_a_revenue_in_dollars(scores: list[Page]) -> None:
    found = [r for r in every_result(scores) if r.value == "4432.12"]
    assert len(found) == 1
    index = int(found[0].location.removeprefix("results[").removesuffix("]"))
    assert by_location(scores, index) == FIGURES["vending"]


def test_a_third_party_citation_is_reported_in_the_citing_document(scores: list[Page]) -> None:
    """Google's report repeats OpenAI's o3 figure: the document reporting it is Google's."""
    found = [
        r
        for r in every_result(scores)
        if r.method == "o3 high" and r.benchmark == Benchmark("gpqa_diamond", "gpqa_diamond")
    ]
    assert [(r.value, r.reported_in, r.configuration) for r in found] == [
        (
            "83.3",
            document("google_gemini_2_5_report", "2025-06-17"),
            Configuration(protocol="single attempt, pass@1"),
        )
    ]


def test_result_ids_are_the_key_the_model_the_document_and_the_protocol(
    scores: list[Page],
) -> None:
    ids = [r.source_id for r in every_result(scores)]
    assert ids[0] == f"{KEY}/mmlu/mmlu/gemini-1-5-pro/google-gemini-1-5-report/5-shot"
    assert len(set(ids)) == len(ids)
    assert all(r.source_id.startswith(page.key + "/") for page in scores for r in page.results)
    again = score_file.parse(SCORES.read_bytes(), "elsewhere/scores.yml")
    assert [r.source_id for r in every_result(again)] == ids
    assert [(p.key, p.sha256) for p in again] == [(p.key, p.sha256) for p in scores]


def test_a_benchmark_is_unchanged_when_another_benchmark_changes(scores: list[Page]) -> None:
    """One figure of Vending-Bench 2 corrected: that benchmark alone is a new version."""
    text = edit(SCORES.read_text(encoding="utf-8"), "value: 4432.12", "value: 4432.13")
    newer = score_file.parse(text.encode("utf-8"), "newer.yml")
    before = {page.key: page.sha256 for page in scores}
    after = {page.key: page.sha256 for page in newer}
    assert before.keys() == after.keys()
    assert [key for key in before if before[key] != after[key]] == [
        f"{KEY}/vending-bench/vending-bench-2"
    ]
    assert [r.source_id for r in every_result(newer)] == [r.source_id for r in every_result(scores)]


def test_values_are_kept_as_published(scores: list[Page]) -> None:
    assert all(r.cell is None and r.spread is None for r in every_result(scores))
    metrics = [m for page in scores for m in page.metrics]
    assert {m.unit for m in metrics} == {"percent", "elo", "usd"}
    assert {m.direction for m in metrics} == {"higher"}


def test_a_bad_row_is_skipped_and_the_others_load() -> None:
    """Rows of the published file, two made bad: a value replaced by '-' is skipped on its
    benchmark's source; a row of a benchmark the file does not declare has no source of its
    own, and is reported on the file's first."""
    pages = score_file.parse(BAD_ROWS.read_bytes(), "radar-bad-rows.yml")
    assert [(p.key, p.title, p.declared_count, p.total_count) for p in pages] == [
        (f"{KEY}/mmlu/mmlu", "benchmark-radar scores on mmlu", 1, 2),
        (f"{KEY}/humaneval/humaneval", "benchmark-radar scores on humaneval", 1, 1),
        (f"{KEY}/livecodebench/livecodebench", "benchmark-radar scores on livecodebench", 2, 2),
    ]
    assert [(w.location, w.problem) for w in pages[0].warnings] == [
        ("results[2].value", "result skipped: no value ('-')"),
        (
            "results[3].benchmark_id",
            "result skipped: benchmark 'gpqa_diamond' is not declared in 'benchmarks'",
        ),
    ]
    assert pages[1].warnings == pages[2].warnings == ()
    assert [(r.source_id.removeprefix(KEY + "/"), r.value) for r in every_result(pages)] == [
        ("mmlu/mmlu/gemini-1-5-pro/google-gemini-1-5-report/5-shot", "85.9"),
        ("humaneval/humaneval/gemini-1-5-pro/google-gemini-1-5-report/0-shot-chat-preamble",
         "84.1"),
        ("livecodebench/livecodebench/deepseek-v3/deepseek-v3-report/pass-1-cot", "40.5"),
        ("livecodebench/livecodebench/deepseek-v3/deepseek-v3-report/pass-1", "37.6"),
    ]  # fmt: skip
    assert by_location(pages, 4) == FIGURES[9]


# --- the dataset's other files ------------------------------------------------------------


def test_the_snapshot_registry_is_refused_saying_it_holds_no_scores() -> None:
    path = sample(SNAPSHOTS)
    with pytest.raises(PageError) as caught:
        score_file.parse(path.read_bytes(), path.name)
    assert str(caught.value) == (
        "leaderboard_snapshots.yml: snapshots: a leaderboard snapshot registry: it describes "
        "crawled CSV files and holds no scores (ingest benchmark_scores.yml for the scores "
        "read out of cited documents)"
    )


# --- small files: what is read past and what is refused -----------------------------------


def test_a_small_file() -> None:
    qa, lm = score_file.parse(SMALL.read_bytes(), "small.yml")
    assert (qa.key, lm.key) == (f"{KEY}/toy-qa/toy-qa-v1", f"{KEY}/toy-lm/toy-lm")
    assert (qa.metrics, lm.metrics) == (
        (MetricDecl("accuracy", "percent", "higher", benchmark=Benchmark("toy_qa", "toy_qa_v1")),),
        (MetricDecl("perplexity", "nats", "lower", direction_inferred=True,
                    benchmark=Benchmark("toy_lm", "toy_lm")),),
    )  # fmt: skip
    (first,), (second,) = qa.results, lm.results
    assert (first.value, first.cell) == ("71.50", None)
    assert (second.value, second.cell, second.spread.half_width if second.spread else None) == (
        "12.3",
        "12.3 ± 0.4",
        "0.4",
    )
    assert second.configuration == Configuration()  # no protocol stated: not recorded


@pytest.mark.parametrize(
    ("old", "new", "location", "problem"),
    [
        ("value: 71.50", "value: '-'", "results[0].value", "result skipped: no value ('-')"),
        ("value: 71.50", "value: 71.5 72.0", "results[0].value",
         "result skipped: '71.5 72.0': several values in one cell"),
        ("    model: Model A\n    organization: Lab A\n    source_id: lab_a_report\n"
         "    reported_at: 2025-01-02\n    value: 71.50",
         "    organization: Lab A\n    source_id: lab_a_report\n"
         "    reported_at: 2025-01-02\n    value: 71.50",
         "results[0].model", "result skipped: no model (missing)"),
        ("  - benchmark_id: toy_qa\n    instrument", "  - benchmark_id: toy_mt\n    instrument",
         "results[0].benchmark_id",
         "result skipped: benchmark 'toy_mt' is not declared in 'benchmarks'"),
        ("    instrument: toy_qa_v1\n", "", "results[0].instrument",
         "result skipped: no instrument (missing)"),
        ("value: 71.50", "value: 71.5%", "results[0].value", ""),
        ("protocol: 5-shot", "protocol: [5-shot]", "results[0].protocol",
         "result skipped: the protocol is a list"),
    ],
)  # fmt: skip
def test_a_result_that_cannot_be_read_is_skipped(
    old: str, new: str, location: str, problem: str
) -> None:
    """The first result is toy_qa's only one: skipped, its benchmark has no source, and the
    warning is on the file's first (toy_lm's)."""
    text = small()
    text = text.replace(old, new, 1) if old.startswith("  - benchmark_id") else edit(text, old, new)
    pages = parsed(text)
    if not problem:  # a percent sign in a percent metric's cell is read
        assert (pages[0].results[0].value, pages[0].results[0].cell) == ("71.5", "71.5%")
        return
    (page,) = pages
    assert page.key == f"{KEY}/toy-lm/toy-lm"
    assert every_warning(pages) == [("small.yml", location, problem)]
    assert (len(page.results), page.declared_count, page.total_count) == (1, 1, 1)


def test_a_percentage_for_a_metric_of_another_unit_is_skipped() -> None:
    text = edit(small(), 'value: "12.3 ± 0.4"', "value: 12.3%")
    assert every_warning(parsed(text)) == [
        (
            "small.yml",
            "results[1].value",
            "result skipped: '12.3%' is a percentage, the metric's unit is 'nats'",
        )
    ]


def test_a_date_that_is_not_one_is_left_out() -> None:
    text = edit(
        small(),
        "reported_at: 2025-01-02\n    value: 71.50",
        "reported_at: Q1 2025\n    value: 71.50",
    )
    pages = parsed(text)
    # a benchmark's source reads the document's date from its own rows only
    assert [(r.result_date, r.reported_in.date) for r in every_result(pages)] == [
        (None, None),
        ("2025-01-02", "2025-01-02"),
    ]
    assert every_warning(pages) == [
        ("small.yml", "results[0].reported_at", "'Q1 2025' is not a date: the result has none")
    ]


SECOND_QA_ROW = """
  - benchmark_id: toy_qa
    instrument: toy_qa_v1
    model: Model B
    source_id: lab_a_report
    reported_at: 2025-02-03
    value: 70.0
"""


def test_a_source_dated_twice_on_one_benchmark_gets_no_date_there() -> None:
    qa, lm = parsed(small() + SECOND_QA_ROW)
    assert [r.reported_in.date for r in qa.results] == [None, None]
    assert [r.result_date for r in qa.results] == ["2025-01-02", "2025-02-03"]
    assert [(w.location, w.problem) for w in qa.warnings] == [
        (
            "results[2].reported_at",
            "source 'lab_a_report' is dated 2025-01-02 and 2025-02-03: "
            "the document is given no date",
        )
    ]
    assert ([r.reported_in.date for r in lm.results], lm.warnings) == (["2025-01-02"], ())


def test_a_repeated_result_is_numbered_and_a_moved_one_keeps_its_id() -> None:
    again = SECOND_QA_ROW.replace("Model B", "Model A").replace("2025-02-03", "2025-01-02")
    again = again.replace("    reported_at", "    protocol: 5-shot\n    reported_at")
    qa, _ = parsed(small() + again)
    assert [r.source_id.removeprefix(qa.key) for r in qa.results] == [
        "/model-a/lab-a-report/5-shot",
        "/model-a/lab-a-report/5-shot/2",
    ]
    head, rows = small().split("results:\n")
    first, second = rows.rstrip("\n").split("\n\n")
    swapped = parsed(f"{head}results:\n{second}\n\n{first}\n")
    assert [(p.key, p.sha256, [r.source_id for r in p.results]) for p in swapped] == [
        (p.key, p.sha256, [r.source_id for r in p.results]) for p in reversed(parsed(small()))
    ]
    assert [r.location for r in every_result(swapped)] == ["results[0]", "results[1]"]


def test_two_benchmarks_of_one_key_keep_the_first() -> None:
    text = small().replace("benchmark_id: toy_lm", "benchmark_id: toy-qa")
    text = text.replace("instrument: toy_lm", "instrument: toy_qa_v1")
    (page,) = parsed(text)
    assert [w.problem for w in page.warnings] == [
        "result skipped: benchmark 'toy-qa' on 'toy_qa_v1' has the key "
        "'score-file/benchmark-radar/toy-qa/toy-qa-v1' of benchmark 'toy_qa' on 'toy_qa_v1' "
        "(results[0])"
    ]


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("direction: higher_is_better", "direction: up",
         "bad-scores.yml: benchmarks[0].direction: direction 'up' is neither higher_is_better "
         "nor lower_is_better"),
        ("  - benchmark_id: toy_lm\n    metric: perplexity",
         "  - benchmark_id: toy_qa\n    metric: perplexity",
         "bad-scores.yml: benchmarks[1].benchmark_id: 'toy_qa' is declared twice (first at "
         "benchmarks[0])"),
        ("    metric: perplexity\n", "",
         "bad-scores.yml: benchmarks[1].metric: benchmark 'toy_lm' declares no metric"),
        ("schema_version: 1", "schema_version: 2",
         "bad-scores.yml: schema_version: schema_version 2: this reader knows version 1 (the "
         "fields of another version may mean something else)"),
        ("results:\n", "results: 3\nformer_results:\n",
         "bad-scores.yml: results: 'results' is the number 3, not a list (a benchmark-radar "
         "score file has 'benchmarks:' and 'results:' lists)"),
        ("  - benchmark_id: toy_qa\n    metric", "  - toy_qa\n  - benchmark_id: toy_x\n    metric",
         "bad-scores.yml: benchmarks[0]: the entry is the text 'toy_qa', not a mapping"),
        ("unit: nats", "unit: ''", "bad-scores.yml: benchmarks[1].unit: the unit is the text ''"),
        ("benchmarks:\n", "benchmarks: {}\nformer:\n",
         "bad-scores.yml: benchmarks: 'benchmarks' is a mapping, not a list (a benchmark-radar "
         "score file has 'benchmarks:' and 'results:' lists)"),
        ("value: 71.50", "value: [",
         "bad-scores.yml: line 25, column 17: not valid YAML: did not find expected ',' or ']'"),
    ],
)  # fmt: skip
def test_a_broken_structure_is_refused_with_its_path(old: str, new: str, message: str) -> None:
    text = small()
    text = text.replace(old, new, 1) if text.count(old) > 1 else edit(text, old, new)
    assert str(refused(text)) == message


def test_a_file_of_no_readable_result_is_refused() -> None:
    text = edit(small(), "value: 71.50", "value: ''")
    text = edit(text, 'value: "12.3 ± 0.4"', "value: null")
    assert str(refused(text)) == (
        "bad-scores.yml: results: none of the 2 results can be read "
        "(bad-scores.yml: results[0].value: result skipped: no value (empty))"
    )


def test_a_file_that_is_not_utf8_is_refused() -> None:
    with pytest.raises(PageError) as caught:
        score_file.parse(b"benchmarks:\n  - benchmark_id: \xff\n", "bad-scores.yml")
    assert (caught.value.location, caught.value.problem) == ("byte 30", "not UTF-8 text")


def test_a_document_that_is_not_a_mapping_is_refused() -> None:
    assert str(refused("- benchmarks\n- results\n")) == (
        "bad-scores.yml: the document is a list, not a mapping (a benchmark-radar score file "
        "has 'benchmarks:' and 'results:' lists)"
    )


# --- sniffing -----------------------------------------------------------------------------


def every_sample() -> list[Path]:
    found = [p for p in sorted(DATA.rglob("*")) if p.is_file()]
    found += sorted((SHARED / "seeds").glob("*"))
    found += sorted((REPO / "examples").glob("*.*"))
    return found


CLAIMED = {SCORES.name, SNAPSHOTS.name}


def test_sniff_claims_its_files_and_no_other() -> None:
    needs_shared(SCORES, SNAPSHOTS, SHARED / "seeds")  # the files it claims, and others
    samples = every_sample()
    claimed = {
        p.name for p in samples if score_file.sniff(p.read_bytes().decode("utf-8", "replace"))
    }
    assert claimed == CLAIMED
    assert score_file.sniff(small())


@pytest.mark.parametrize("text", ["", "results:\n", "\x00\xff", "benchmarks:\nresults:\n"])
def test_sniff_needs_the_whole_layout(text: str) -> None:
    assert not score_file.sniff(text)


def test_every_file_of_the_dataset_loads_or_is_refused_with_the_reason() -> None:
    """Through the loader's format detection: the scores and the crawl load, the registry is
    refused."""
    formats: dict[str, object] = {}
    for path in sorted(sample(RADAR).iterdir()):
        try:
            formats[path.name] = {page.format for page in read_pages(path.read_bytes(), path.name)}
        except PageError as error:
            formats[path.name] = f"refused: {error.problem}"
    assert formats == {
        SCORES.name: {"score-file"},
        SNAPSHOTS.name: "refused: a leaderboard snapshot registry: it describes crawled CSV "
        "files and holds no scores",
        EXPORT.name: {"leaderboard-csv"},
    }


# --- end to end: the dataset's folder through the command line ----------------------------


@pytest.fixture(scope="module")
def radar_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = sample(RADAR)
    store = tmp_path_factory.mktemp("radar") / "store"
    done = run_cli("ingest", str(folder), store=store)
    assert done.returncode == 1, done.stderr  # the registry refused, the others loaded
    # 83 benchmarks of the score file and 20 of the crawl, each a source of its own
    assert done.stdout.startswith(
        "103 loaded, 0 unchanged, 1 refused, 0 unreadable; 571 results in the loaded pages;"
    )
    assert (
        f"refused: {SNAPSHOTS}: snapshots: a leaderboard snapshot registry: it describes "
        "crawled CSV files and holds no scores" in done.stderr
    )
    return store


def leaderboard(store: Path, benchmark: str) -> list[tuple[str, ...]]:
    """The leaderboard's rows as (cohort, rank, method, value, unit, direction, source)."""
    done = run_cli(
        "query", "leaderboard", "--param", f"benchmark={benchmark}", "--format", "csv",
        store=store,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [
        (row["cohort"], row["rank"], row["methodLabel"], row["value"], row["unit"],
         row["direction"], row["paper"].removeprefix(ID))
        for row in csv.DictReader(io.StringIO(done.stdout))
    ]  # fmt: skip


def test_a_leaderboard_ranks_only_within_one_instrument_and_protocol(radar_store: Path) -> None:
    pct, up = "http://qudt.org/vocab/unit/PERCENT", V.HigherIsBetter
    rows = leaderboard(radar_store, "livecodebench")
    assert [row for row in rows if row[0] in ("protocol=Pass@1", "protocol=Pass@1-COT")] == [
        ("protocol=Pass@1", "1", "DeepSeek-V3", "37.6", pct, up, "document/deepseek-v3-report"),
        ("protocol=Pass@1", "2", "Qwen2.5-Coder-32B-Instruct", "31.4", pct, up,
         "document/qwen2-5-coder-report"),
        ("protocol=Pass@1-COT", "1", "DeepSeek-R1", "65.9", pct, up, "document/deepseek-r1-report"),
        ("protocol=Pass@1-COT", "2", "DeepSeek-V3", "40.5", pct, up, "document/deepseek-v3-report"),
    ]  # fmt: skip
    assert len(rows) == 9 and len({row[0] for row in rows}) == 6  # every cohort one protocol
    # Terminal-Bench 2.1 is a benchmark of its own: no 2.0 figure is ranked with its figures
    assert sorted(row[2:4] for row in leaderboard(radar_store, "terminal_bench_2.1")) == [
        ("DeepSeek-V4-Pro-0813", "87.9"), ("GLM-5.2", "81.0"), ("Grok 4.5", "83.3"),
        ("Kimi K3", "88.3"),
    ]  # fmt: skip


def test_a_leaderboard_keeps_units_the_file_states(radar_store: Path) -> None:
    elo, usd, up = f"{ID}unit/elo", f"{ID}unit/usd", V.HigherIsBetter
    assert leaderboard(radar_store, "codeforces") == [
        ("protocol=Elo", "1", "Gemma 4 (31B)", "2150", elo, up,
         "document/google-gemma-4-model-card"),
        ("protocol=think max, rating", "1", "DeepSeek-V4-Pro", "3206", elo, up,
         "document/deepseek-v4-model-card"),
        ("protocol=think max, rating", "2", "DeepSeek-V4-Flash", "3052", elo, up,
         "document/deepseek-v4-technical-report"),
    ]  # fmt: skip
    assert [row[2:5] for row in leaderboard(radar_store, "vending_bench_2")] == [
        ("GLM-5.1", "5634.41", usd), ("GLM-5", "4432.12", usd),
    ]  # fmt: skip


def test_the_store_keeps_the_reporting_document_and_its_date(
    radar_store: Path, tmp_path: Path
) -> None:
    rq = tmp_path / "reported.rq"
    rq.write_text(
        f"PREFIX bg: <{V.BG}>\nPREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n"
        "PREFIX dcterms: <http://purl.org/dc/terms/>\n"
        "SELECT ?method ?value ?protocol ?kind ?source ?date ?resultDate WHERE {\n"
        "  ?r a bg:Result ; bg:method/rdfs:label ?method ; bg:publishedValue ?value ;\n"
        "     bg:reportedIn ?by ; bg:resultDate ?resultDate ;\n"
        "     bg:configuration/bg:protocol ?protocol .\n"
        "  ?by a ?kind ; rdfs:label ?source . OPTIONAL { ?by dcterms:date ?date }\n"
        "  FILTER (?value IN ('85.9', '83.3') && ?method IN ('o3 high', 'Gemini 1.5 Pro'))\n"
        "} ORDER BY ?value\n"
    )
    done = run_cli("query", str(rq), "--format", "csv", store=radar_store)
    assert done.returncode == 0, done.stderr
    rows = [tuple(row.values()) for row in csv.DictReader(io.StringIO(done.stdout))]
    assert rows == [
        ("o3 high", "83.3", "single attempt, pass@1", V.ReportingDocument,
         "google_gemini_2_5_report", "2025-06-17", "2025-06-17"),
        ("Gemini 1.5 Pro", "85.9", "5-shot", V.ReportingDocument, "google_gemini_1_5_report",
         "2024-03-08", "2024-03-08"),
    ]  # fmt: skip


def test_a_newer_version_of_the_file_replaces_only_the_benchmark_that_changed(
    radar_store: Path, tmp_path: Path
) -> None:
    store = tmp_path / "store"
    shutil.copytree(radar_store, store)
    newer = tmp_path / "renamed.yml"  # another name: the page is known by its content
    newer.write_text(edit(SCORES.read_text(encoding="utf-8"), "value: 4432.12", "value: 4432.13"))
    done = run_cli("ingest", str(newer), store=store)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("1 loaded, 82 unchanged, 0 refused, 0 unreadable; 271 results")
    assert [row[2:4] for row in leaderboard(store, "vending_bench_2")] == [
        ("GLM-5.1", "5634.41"), ("GLM-5", "4432.13"),
    ]  # fmt: skip
