"""The ingest's tally: warnings grouped by kind with their counts and an example, what holds for
every row of a source said once, each item listed if verbose, and every warning to a file."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from benchgraph import validation
from benchgraph.outcomes import Outcome
from benchgraph.validation import Finding
from ingest import leaderboard_csv, score_file
from ingest.mapper import map_page
from ingest.records import Page
from ingest.tally import Tally, warning_kind

DATA = Path(__file__).resolve().parents[1] / "data"
NOW = "2026-08-18T00:00:00Z"
SH = "https://w3id.org/benchgraph/shapes#"
CONFIGURATION = (
    "has no recorded evaluation configuration (bg:configuration): the settings needed to tell "
    "whether it is comparable with other results are unknown (a fact about the source, not an "
    "error)"
)
ORIGIN = (
    "has no known origin paper (bg:introducedIn) on this page: whether its results are "
    "self-reported cannot be told (a fact about the source, not an error)"
)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("c.csv: line 3, column benchmark_score: row skipped: no value (empty)",
         "row skipped: no value (empty)"),
        ("c.csv: line 7, column benchmark_score: row skipped: no value ('-')",
         "row skipped: no value (…)"),
        ("c.csv: line 4: row skipped: 10 fields, the header names 11",
         "row skipped: N fields, the header names N"),
        ("s.yml: results[0].value: result skipped: '71.5 72.0': several values in one cell",
         "result skipped: …: several values in one cell"),
        ("s.yml: results[1].reported_at: source 'lab_a_report' is dated 2025-01-02 and "
         "2025-02-03: the document is given no date",
         "source … is dated N and N: the document is given no date"),
        ('ogb.json: [0].datasets[0].sota.rows[13].metrics["Validation Accuracy"]: not a single '
         "value, skipped: 'Please tell us' is not a number",
         "not a single value, skipped: … is not a number"),
        ("clip.txt: line 25: the intervals of '平均连贯长度（帧）' in table "
         "'按分辨率划分的连贯长度' (line 25) state no confidence level: not recorded "
         "(an interval header names its level, such as 95%置信区间)",
         "the intervals of … in table … (line N) state no confidence level: not recorded (an "
         "interval header names its level, such as N%置信区间)"),
        ("decode.txt: line 33: metric '端到端耗时' of table '端到端耗时' (line 33) is in '秒', "
         "not in the page's unit 'tokens per second': it takes the page's direction",
         "metric … of table … (line N) is in …, not in the page's unit …: it takes the page's "
         "direction"),
        ("no-location.txt: the page names gpt4 twice", "the page names gpt4 twice"),
    ],
)  # fmt: skip
def test_a_parser_warning_is_of_its_problem_without_places_values_and_numbers(
    text: str, kind: str
) -> None:
    assert warning_kind(text, text.split(": ", 1)[0]) == kind


def finding(shape: str, kind: str, name: str, page: str, message: str, path: str) -> Finding:
    return Finding("Warning", SH + shape, message, f"urn:x:{name}", kind, name, page, "bg:" + path)


def configuration(page: str, name: str) -> Finding:
    return finding("Result-configuration", "result", name, page, CONFIGURATION, "configuration")


def origin(page: str, name: str) -> Finding:
    return finding("Method-origin", "method", name, page, ORIGIN, "introducedIn")


def loaded(file: str, key: str, results: int, findings: list[Finding], *warnings: str) -> Outcome:
    return Outcome(file, "loaded", "", results, None, tuple(findings), warnings, key)


def crawl() -> list[Outcome]:
    """Two benchmarks of one crawl: the first with three results of no configuration, of
    models of no origin paper, and two rows skipped; the second with one such result."""
    file = "crawl.csv"
    a = [configuration(file, f"a/m{i}") for i in range(3)] + [
        origin(file, f"Model {i}") for i in range(3)
    ]
    b = [configuration(file, "b/m9"), origin(file, "Model 9")]
    return [
        loaded(
            file, "lb/a", 3, a,
            "crawl.csv: line 3, column benchmark_score: row skipped: no value ('n/a')",
            "crawl.csv: line 6, column benchmark_score: row skipped: no value ('-')",
        ),
        loaded(file, "lb/b", 1, b),
        Outcome("other.yml", "refused", "other.yml: results: none of the 2 results can be read"),
    ]  # fmt: skip


def tallied(
    outcomes: list[Outcome], verbose: bool = False, log: io.StringIO | None = None
) -> Tally:
    tally = Tally(verbose, log)
    for outcome in outcomes:
        tally.add(outcome)
    return tally


def test_warnings_are_grouped_by_kind_with_counts_and_an_example() -> None:
    tally = tallied(crawl())
    assert tally.grouped_lines() == [
        "warnings by kind:\n",
        "  bgsh:Method-origin: 4 methods on 2 sources, e.g. crawl.csv: source lb/a: 3 methods "
        f"(Model 0, Model 1, Model 2): {ORIGIN} [bgsh:Method-origin, bg:introducedIn]\n",
        "  bgsh:Result-configuration: 4 results on 2 sources, e.g. crawl.csv: source lb/a: all 3 "
        f"results: {CONFIGURATION} [bgsh:Result-configuration, bg:configuration]\n",
        "  row skipped: no value (…): 2 on 1 source, e.g. crawl.csv: line 3, column "
        "benchmark_score: row skipped: no value ('n/a')\n",
    ]
    groups = {kind: (g.count, g.sources, g.items) for (_, kind), g in tally.groups.items()}
    assert groups == {
        "row skipped: no value (…)": (2, 1, 2),
        "bgsh:Result-configuration": (4, 2, 2),
        "bgsh:Method-origin": (4, 2, 2),
    }


def test_what_holds_for_every_result_of_a_source_is_said_once_for_it() -> None:
    tally = tallied(crawl())
    assert tally.summary(listed=False) == (
        "2 loaded, 0 unchanged, 1 refused, 0 unreadable; 4 results in the loaded pages; "
        "10 warnings, 0 infos (--verbose lists them)"
    )
    assert tally.summary(listed=False, folded=True) == (
        "2 loaded, 0 unchanged, 1 refused, 0 unreadable; 4 results in the loaded pages; "
        "6 warnings, 0 infos (--verbose lists them)"
    )


def test_verbose_lists_each_item_once_per_source() -> None:
    refused = "refused: other.yml: results: none of the 2 results can be read\n"
    assert tallied(crawl()).listing == [refused]
    assert tallied(crawl(), verbose=True).listing == [
        "warning: crawl.csv: line 3, column benchmark_score: row skipped: no value ('n/a')\n",
        "warning: crawl.csv: line 6, column benchmark_score: row skipped: no value ('-')\n",
        f"warning: crawl.csv: source lb/a: all 3 results: {CONFIGURATION} "
        "[bgsh:Result-configuration, bg:configuration]\n",
        f"warning: crawl.csv: source lb/a: 3 methods (Model 0, Model 1, Model 2): {ORIGIN} "
        "[bgsh:Method-origin, bg:introducedIn]\n",
        f"warning: crawl.csv: source lb/b: result b/m9: {CONFIGURATION} "
        "[bgsh:Result-configuration, bg:configuration]\n",
        f"warning: crawl.csv: source lb/b: method Model 9: {ORIGIN} "
        "[bgsh:Method-origin, bg:introducedIn]\n",
        refused,
    ]


def test_many_nodes_are_named_up_to_three() -> None:
    file = "big.csv"
    tally = tallied([loaded(file, "lb/c", 5, [origin(file, f"Model {i}") for i in range(5)])], True)
    assert tally.listing == [
        f"warning: big.csv: source lb/c: 5 methods (Model 0, Model 1, Model 2 and 2 more): "
        f"{ORIGIN} [bgsh:Method-origin, bg:introducedIn]\n"
    ]


def test_every_warning_goes_to_the_log_unfolded() -> None:
    log = io.StringIO()
    tallied(crawl(), log=log)
    lines = log.getvalue().splitlines()
    assert len(lines) == 10
    assert lines[0] == (
        "warning: crawl.csv: line 3, column benchmark_score: row skipped: no value ('n/a')"
    )
    assert lines[2] == (
        f"warning: crawl.csv: source lb/a: result a/m0: {CONFIGURATION} "
        "[bgsh:Result-configuration, bg:configuration]"
    )


def test_only_what_went_wrong_is_listed_unless_verbose() -> None:
    """Without --verbose the listing holds no warning (the groups say them); with it, each
    parser warning and each fold of findings once."""
    quiet, verbose = tallied(crawl()), tallied(crawl(), True)
    assert [line for line in quiet.listing if line.startswith("warning")] == []
    said = [line for line in verbose.listing if line.startswith("warning")]
    assert len(said) == verbose.said["Warning"] and 2 <= len(said) < verbose.warnings


def test_nothing_warned_of_gives_no_group() -> None:
    tally = tallied([loaded("a.txt", "sota2/a", 2, [])])
    assert (tally.grouped_lines(), tally.summary(listed=False, folded=True)) == (
        [],
        "1 loaded, 0 unchanged, 0 refused, 0 unreadable; 2 results in the loaded pages; "
        "0 warnings, 0 infos",
    )


def validated(page: Page) -> Outcome:
    """The outcome of a page through the mapper and the shapes, as the ingest gives it."""
    conforms, report = validation.validate_triples(map_page(page, NOW), page.origin)
    assert conforms, report.refusal()
    notes = tuple(str(w) for w in page.warnings)
    return loaded(page.origin, page.key, len(page.results), list(report.findings), *notes)


def test_the_real_files_with_bad_rows_are_told_by_kind() -> None:
    """Rows of the LLM Stats crawl and the benchmark-radar score file, a few made bad: each
    source's facts said once, the skipped rows each, grouped by kind."""
    csv_file = DATA / "leaderboard-csv" / "llm-stats-bad-rows.csv"
    yml_file = DATA / "score-file" / "radar-bad-rows.yml"
    pages = leaderboard_csv.parse(csv_file.read_bytes(), "crawl.csv")
    pages += score_file.parse(yml_file.read_bytes(), "scores.yml")
    tally = tallied([validated(page) for page in pages], verbose=True)
    amounts = {kind: (g.count, g.sources, g.items) for (_, kind), g in tally.groups.items()}
    assert amounts == {
        "row skipped: no value (empty)": (1, 1, 1),
        "row skipped: no benchmark_id": (1, 1, 1),
        "row skipped: no value (…)": (1, 1, 1),
        "result skipped: no value (…)": (1, 1, 1),
        "result skipped: benchmark … is not declared in …": (1, 1, 1),
        # once per source, whatever the number of its methods or results
        "bgsh:Method-origin": (6, 5, 5),
        "bgsh:Result-configuration": (3, 2, 2),
        "bgsh:Metric-direction-inferred": (2, 2, 2),
        "bgsh:Metric-unit-stated": (2, 2, 2),
        "bgsh:SourceDocument-undated": (3, 3, 3),
        "bgsh:SourceDocument-coverage": (2, 2, 2),
    }
    assert (
        "warning: crawl.csv: source leaderboard-csv/api.zeroeval.com/leaderboard/benchmarks/"
        f"aa-briefcase: all 2 results: {CONFIGURATION} [bgsh:Result-configuration, "
        "bg:configuration]\n"
    ) in tally.listing
    assert (
        "warning: scores.yml: source score-file/benchmark-radar/mmlu/mmlu: states no "
        "data-updated time (dcterms:modified): its numbers are dated by when they were "
        "ingested [bgsh:SourceDocument-undated, dcterms:modified]\n"
    ) in tally.listing
    assert tally.grouped_lines()[-2:] == [
        "infos by kind:\n",
        "  bgsh:SourceDocument-coverage: 2 sources, e.g. crawl.csv: source leaderboard-csv/"
        "api.zeroeval.com/leaderboard/benchmarks/aa-briefcase: covers its benchmark only "
        "partially: it lists fewer results (bg:declaredResultCount) than its source holds "
        "(bg:totalResultCount), so the missing results may include better ones (a fact about "
        "the source, not an error) [bgsh:SourceDocument-coverage, bg:totalResultCount]\n",
    ]
