"""Tests for the AI Benchmark Radar parser.

Expected figures come from independent scans of the pages' tab-separated lines or are written
out here, never from the parser's own output.
"""

from __future__ import annotations

import ast
import hashlib
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

from ingest import (
    radar,
    radar_builder,
    radar_columns,
    radar_evidence,
    radar_layout,
    radar_results,
    radar_tables,
    text,
    units,
)
from ingest.records import Configuration, Page, PageError, PaperRef, ResultRecord

REPO = Path(__file__).resolve().parents[2]
SEED = REPO.parent / "shared" / "seeds" / "002_d2512863a95936bb.txt"
SOTA2_SEED = REPO.parent / "shared" / "seeds" / "000_a0804f4946519d1b.txt"
EXAMPLE = REPO / "examples" / "radar-composet-sample.txt"

HEADLINE = "模型\t整体Group（%）\t论文95%置信区间"
SUBSET = "模型\t编辑类型\t合并样本数n\tGroup百分数［95%区间］"
AGGREGATE = "编辑类型\t每档n\t短描述Group %\t中描述Group %\t长描述Group %"
EVIDENCE = "模型\t数值\t单位\t协议\t报告日期与口径\t来源"

PRIMARY = "Overall strict Group accuracy"
PAPER = PaperRef(title="CompoSET paper v1", date="2026-10-30")
SHORT_NAMES = {  # subset-table spelling: headline name
    "SigLIP SO400M": "SigLIP SO400M/14",
    "SigLIP-2 SO400M": "SigLIP-2 SO400M/14",
    "SigLIP-2 L/16": "SigLIP-2 L/16-384",
    "CLIP B/16 LAION-2B": "CLIP B/16 (LAION-2B)",
    "CLIP H/14 LAION-2B": "CLIP H/14 (LAION-2B)",
    "DreamLIP B/16": "DreamLIP B/16 (30M)",
}
OPEN = "Open-weight (caption log-likelihood)"
API = "Frontier API (prompted pairwise, counterbalanced)"
GENERATIVE = {  # model: (protocol, I2T, T2I, Group), as printed in the seed's Table 11
    "BLIP-2 (OPT-2.7B)": (OPEN, "5.0", "11.0", "2.5"),
    "LLaVA-1.6 (Mistral-7B)": (OPEN, "30.5", "3.0", "1.5"),
    "Qwen2-VL (7B Instruct)": (OPEN, "36.5", "0.5", "0.5"),
    "Gemini 2.5 Flash": (API, "64.5", "16.0", "12.0"),
    "Claude Haiku 4.5": (API, "46.5", "17.0", "13.0"),
    "Claude Sonnet 4.6": (API, "71.5", "47.0", "42.5"),
}
BY_LENGTH = {  # model: (short, medium, long), as printed in the seed's Table 12
    "Gemini 2.5 Flash": ("15.9", "19.7", "13.6"),
    "Claude Haiku 4.5": ("11.1", "19.7", "7.6"),
    "Claude Sonnet 4.6": ("44.4", "46.5", "36.4"),
}
SAMPLE = "200-example stratified sample"


# --- helpers -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def seed_text() -> str:
    if not SEED.is_file():
        pytest.skip("the seed pages (../shared/seeds) are not beside this checkout")
    return SEED.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def seed(seed_text: str) -> Page:
    return radar.parse(seed_text.encode("utf-8"), str(SEED))


@pytest.fixture(scope="module")
def example_text() -> str:
    return EXAMPLE.read_text(encoding="utf-8")


def tsv_rows(text: str, header: str) -> list[tuple[int, list[str]]]:
    """(1-based line, cells) of the rows under ``header`` up to the next blank line."""
    lines = text.split("\n")
    start = lines.index(header)
    rows = []
    for number in range(start + 1, len(lines)):
        if not lines[number]:
            break
        rows.append((number + 1, lines[number].split("\t")))
    return rows


def by_line(page: Page) -> dict[int, list[ResultRecord]]:
    found: dict[int, list[ResultRecord]] = {}
    for result in page.results:
        found.setdefault(result.line, []).append(result)
    return found


def edit(text: str, old: str, new: str) -> str:
    assert text.count(old) >= 1, old
    return text.replace(old, new, 1)


def refuse(data: str | bytes, *parts: str) -> str:
    """Parse ``data`` expecting a PageError whose message contains every one of ``parts``."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    with pytest.raises(PageError) as caught:
        radar.parse(raw, "page.txt")
    message = str(caught.value)
    assert message.startswith("page.txt"), message
    for part in parts:
        assert part in message, message
    return message


# --- the seed page -------------------------------------------------------------------------


def test_seed_counts(seed: Page) -> None:
    tables = Counter(result.table for result in seed.results)
    assert tables == {"Table 8": 22, "Table 9": 224, "Table 11": 18, "Table 12": 9}
    assert len(seed.results) == 273
    assert [r.headline for r in seed.results].count(True) == 22 == seed.declared_count
    assert all(r.table == "Table 8" for r in seed.results if r.headline)
    assert len({result.method for result in seed.results}) == 28
    assert len(seed.aggregates) == 48


def test_seed_page_fields(seed: Page, seed_text: str) -> None:
    assert seed.format == "radar" == radar.FORMAT
    assert seed.origin == str(SEED)
    assert seed.title == "CompoSET — Model reports · AI Benchmark Radar"
    assert seed.key == "radar/composet"
    assert seed.url is None
    assert (seed.benchmark.task, seed.benchmark.dataset, seed.benchmark.split) == (
        "CompoSET",
        "CompoSET",
        None,
    )
    assert seed.publisher == "AI Benchmark Radar / Equality Machine"
    assert seed.checked_on == seed.data_updated == "2026-11-02"
    assert seed.data_freeze == "662230d"
    assert seed.reporting_paper == PAPER
    assert all(result.reported_in == PAPER for result in seed.results)
    assert seed.primary_metric == PRIMARY
    assert seed.sha256 == hashlib.sha256(seed_text.encode("utf-8")).hexdigest()


def test_seed_metrics(seed: Page) -> None:
    assert [m.name for m in seed.metrics] == [
        PRIMARY,
        "Group accuracy",
        "I2T accuracy",
        "T2I accuracy",
    ]
    assert {(m.unit, m.direction) for m in seed.metrics} == {("percent", "higher")}
    assert seed.metric(PRIMARY).chance_level == "16.67"
    assert seed.metric("Group accuracy").chance_level == "16.67"
    assert seed.metric("I2T accuracy").chance_level is None
    assert {r.metric for r in seed.results} <= {m.name for m in seed.metrics}


def test_seed_headline_rows_match_the_table(seed: Page, seed_text: str) -> None:
    rows = tsv_rows(seed_text, HEADLINE)
    assert len(rows) == 22
    results = by_line(seed)
    for line, (model, value, interval) in rows:
        (result,) = results[line]
        lower, upper = interval.strip("[]").split(",")
        assert (result.method, result.metric, result.value) == (model, PRIMARY, value)
        assert result.interval is not None
        assert (result.interval.lower, result.interval.upper) == (lower, upper)
        assert (result.interval.level, result.interval.text) == ("0.95", interval)
        assert result.headline and result.table == "Table 8"
        assert result.sample_size is None and result.configuration.subset is None
        assert result.configuration.protocol is not None
        assert result.configuration.protocol.startswith("Paper v1 Table 8; full CompoSET")


def test_seed_subset_rows_match_the_table(seed: Page, seed_text: str) -> None:
    rows = tsv_rows(seed_text, SUBSET)
    assert len(rows) == 224
    headline = {r.method for r in seed.results if r.headline}
    results = by_line(seed)
    for line, (model, edit_type, n, cell) in rows:
        (result,) = results[line]
        value, interval = cell.split(" ")
        lower, upper = interval.strip("[]").split(",")
        expected = SHORT_NAMES.get(model, model)
        assert expected in headline
        assert (result.method, result.metric, result.value) == (expected, "Group accuracy", value)
        assert result.interval is not None
        assert (result.interval.lower, result.interval.upper, result.interval.text) == (
            lower,
            upper,
            interval,
        )
        assert result.sample_size == int(n)
        assert result.configuration.subset == edit_type
        assert not result.headline and result.table == "Table 9"


def test_seed_short_names_are_reconciled(seed: Page, seed_text: str) -> None:
    published = {cells[0] for _, cells in tsv_rows(seed_text, SUBSET)}
    headline = {cells[0] for _, cells in tsv_rows(seed_text, HEADLINE)}
    assert published - headline == set(SHORT_NAMES)
    methods = {r.method for r in seed.results}
    assert not set(SHORT_NAMES) & methods
    assert set(SHORT_NAMES.values()) <= methods
    assert methods == headline | set(GENERATIVE)


def test_seed_generative_sample(seed: Page) -> None:
    results = [r for r in seed.results if r.table == "Table 11"]
    found = {(r.method, r.metric): r for r in results}
    for model, (protocol, i2t, t2i, group) in GENERATIVE.items():
        for metric, value in (
            ("I2T accuracy", i2t),
            ("T2I accuracy", t2i),
            ("Group accuracy", group),
        ):
            result = found[model, metric]
            assert result.value == value
            assert result.configuration.protocol == protocol
            assert result.configuration.subset == SAMPLE
            assert result.sample_size == 200
            assert not result.headline and result.interval is None


def test_seed_api_by_caption_length(seed: Page) -> None:
    found = {(r.method, r.configuration.subset): r for r in seed.results if r.table == "Table 12"}
    assert len(found) == 9
    for model, values in BY_LENGTH.items():
        for length, value in zip(("short", "medium", "long"), values, strict=True):
            result = found[model, f"{SAMPLE}, {length} captions"]
            assert (result.metric, result.value) == ("Group accuracy", value)
            assert result.configuration.protocol == API
            assert result.sample_size is None and not result.headline


def test_seed_aggregates_are_not_results(seed: Page, seed_text: str) -> None:
    rows = tsv_rows(seed_text, AGGREGATE)
    assert len(rows) == 16
    found = {(a.line, a.subset): a for a in seed.aggregates}
    for line, (edit_type, n, *values) in rows:
        for length, value in zip(("short", "medium", "long"), values, strict=True):
            aggregate = found[line, f"{edit_type}, {length} captions"]
            assert (aggregate.metric, aggregate.value) == ("Group accuracy", value)
            assert aggregate.sample_size == int(n) and aggregate.table == "Table 10"
            assert "not any single model's score" in aggregate.description
    assert not [r for r in seed.results if r.table == "Table 10"]
    assert {line for line, _ in rows}.isdisjoint(r.line for r in seed.results)


def test_seed_evidence_agrees_with_headline(seed: Page, seed_text: str) -> None:
    rows = tsv_rows(seed_text, EVIDENCE)
    assert len(rows) == 22
    headline = {r.method: r for r in seed.results if r.headline}
    assert set(headline) == {cells[0] for _, cells in rows}
    for _, (model, value, unit, protocol, dated, _source) in rows:
        assert (headline[model].value, unit) == (value, "percent")
        assert headline[model].configuration.protocol == protocol
        assert headline[model].result_date == dated.split(" · ")[0] == "2026-10-30"


def test_seed_source_ids(seed: Page, seed_text: str) -> None:
    ids = [r.source_id for r in seed.results] + [a.source_id for a in seed.aggregates]
    assert len(set(ids)) == len(ids) == 273 + 48
    again = radar.parse(seed_text.encode("utf-8"), "elsewhere.txt")
    assert [r.source_id for r in again.results] == [r.source_id for r in seed.results]
    assert "composet/table-8/clip-b-32/overall-strict-group-accuracy" in ids
    assert "composet/table-9/siglip-so400m-14/group-accuracy/modify-color" in ids
    assert "composet/table-10/aggregate/group-accuracy/swap-role-long-captions" in ids
    assert (
        "composet/table-12/claude-sonnet-4-6/group-accuracy/"
        "200-example-stratified-sample-medium-captions"
    ) in ids


def test_seed_ambiguous_short_name_is_refused(seed_text: str) -> None:
    text = edit(seed_text, "CLIP B/16 LAION-2B\tmodify_color", "CLIP B/16\tmodify_color")
    refuse(
        text,
        "line 83",
        "'CLIP B/16'",
        "ambiguous",
        "CLIP B/16 (OpenAI)",
        "CLIP B/16 (LAION-400M)",
        "CLIP B/16 (LAION-2B)",
    )


def test_seed_evidence_value_differs(seed_text: str) -> None:
    text = edit(seed_text, "Jina-v4\t8.5\tpercent", "Jina-v4\t8.6\tpercent")
    refuse(text, "line 415", "'Jina-v4'", "8.6", "8.5")


@pytest.mark.parametrize("fraction", [0.05, 0.2, 0.5, 0.8, 0.9, 0.95])
def test_seed_truncated_is_refused(seed_text: str, fraction: float) -> None:
    refuse(seed_text[: int(len(seed_text) * fraction)])


def test_seed_cut_inside_the_evidence_table_is_refused(seed_text: str) -> None:
    end = seed_text.index("SigLIP-2 SO400M/14\t13.9\tpercent")
    refuse(seed_text[:end], "'SigLIP-2 SO400M/14'", "evidence")
    refuse(seed_text[: end + 40], "cells")


def test_sniff_seed_pages(seed_text: str) -> None:
    assert radar.sniff(seed_text)
    if SOTA2_SEED.is_file():
        assert not radar.sniff(SOTA2_SEED.read_text(encoding="utf-8"))


# --- the example page ----------------------------------------------------------------------


def test_example_parses_with_its_designed_counts(example_text: str) -> None:
    page = radar.parse(example_text.encode("utf-8"), str(EXAMPLE))
    assert Counter(r.table for r in page.results) == {
        "Table 8": 4,
        "Table 9": 8,
        "Table 11": 6,
        "Table 12": 6,
    }
    assert page.declared_count == 4 == sum(r.headline for r in page.results)
    assert len(page.aggregates) == 6
    assert {r.method for r in page.results} == {
        "CLIP B/32",
        "CLIP B/16 (LAION-2B)",
        "SigLIP SO400M/14",
        "DreamLIP B/16 (30M)",
        "Gemini 2.5 Flash",
        "Claude Sonnet 4.6",
    }
    assert page.reporting_paper == PAPER and page.data_freeze == "662230d"
    assert page.metric(PRIMARY).chance_level == "16.67"


def test_example_rows_match_its_tables(example_text: str) -> None:
    page = radar.parse(example_text.encode("utf-8"), str(EXAMPLE))
    results = by_line(page)
    for line, (model, value, interval) in tsv_rows(example_text, HEADLINE):
        (result,) = results[line]
        assert (result.method, result.value, result.interval and result.interval.text) == (
            model,
            value,
            interval,
        )
    for line, (model, edit_type, n, cell) in tsv_rows(example_text, SUBSET):
        (result,) = results[line]
        assert result.method == SHORT_NAMES.get(model, model)
        assert (result.value, result.sample_size) == (cell.split(" ")[0], int(n))
        assert result.configuration.subset == edit_type


def test_bom_and_crlf_are_accepted(example_text: str) -> None:
    plain = radar.parse(example_text.encode("utf-8"), "a.txt")
    dressed = ("\ufeff" + example_text.replace("\n", "\r\n")).encode("utf-8")
    assert radar.sniff(dressed.decode("utf-8"))
    page = radar.parse(dressed, "a.txt")
    assert page.results == plain.results and page.aggregates == plain.aggregates
    assert page.sha256 != plain.sha256


def test_sniff() -> None:
    assert radar.sniff(EXAMPLE.read_text(encoding="utf-8"))
    sota2 = (
        "# Prompt Recovery on LAION\n\nSource: [Prompt Recovery on LAION]"
        "(<https://www.sota2.com/research/sota/prompt-recovery-on-laion>)\n\n"
        "| Scope | Recorded value |\n| --- | --- |\n| Metric | CLIP Score |\n"
    )
    assert not radar.sniff(sota2)
    assert not radar.sniff("A plain English note about benchmarks.\nNothing else here.\n")
    assert not radar.sniff("")
    assert not radar.sniff("CompoSET — Model reports · AI Benchmark Radar\n\nno metric line\n")


@pytest.mark.parametrize(
    "module",
    [
        radar,
        radar_builder,
        radar_columns,
        radar_evidence,
        radar_layout,
        radar_tables,
        radar_results,
        text,
        units,
    ],
)
def test_parser_does_not_import_rdflib(module: ModuleType) -> None:
    assert module.__file__ is not None
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    imported = {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not {name for name in imported if name.split(".")[0] == "rdflib"}


# --- refusals on the example ---------------------------------------------------------------


def test_evidence_value_differs(example_text: str) -> None:
    text = edit(example_text, "CLIP B/32\t4.4\tpercent", "CLIP B/32\t4.5\tpercent")
    refuse(text, "line 90", "'CLIP B/32'", "evidence value 4.5", "headline value 4.4")


def test_evidence_unit_differs(example_text: str) -> None:
    refuse(
        edit(example_text, "CLIP B/32\t4.4\tpercent", "CLIP B/32\t4.4\tratio"),
        "'ratio'",
        "'percent'",
    )


def test_evidence_row_missing(example_text: str) -> None:
    text = edit(example_text, "SigLIP SO400M/14\t13.5\tpercent", "Other B/16\t13.5\tpercent")
    refuse(text, "'Other B/16'", "not in the headline table")


def test_ambiguous_short_name(example_text: str) -> None:
    text = edit(example_text, "CLIP B/32\tswap_color", "CLIP\tswap_color")
    refuse(text, "line 36", "'CLIP'", "ambiguous", "CLIP B/32", "CLIP B/16 (LAION-2B)")


def test_unknown_subset_model_is_read_as_its_own_with_a_warning(example_text: str) -> None:
    text = edit(example_text, "DreamLIP B/16\tmodify_color", "ALIGN B/16\tmodify_color")
    page = radar.parse(text.encode("utf-8"), "page.txt")
    (result,) = by_line(page)[35]
    assert (result.method, result.value, result.configuration.subset) == (
        "ALIGN B/16",
        "52.4",
        "modify_color",
    )
    (warning,) = page.warnings
    assert str(warning).startswith("page.txt: line 35: model 'ALIGN B/16' in table")
    assert "matches no model of the headline table" in str(warning)


def test_unknown_caption_length_model(example_text: str) -> None:
    text = edit(example_text, "Gemini 2.5 Flash\t15.9", "GPT-5\t15.9")
    refuse(
        text, "line 71", "'GPT-5'", "is not a model of table '200例生成式模型小样本'", "breaks down"
    )


def test_caption_length_model_outside_the_generative_sample(example_text: str) -> None:
    text = edit(example_text, "Gemini 2.5 Flash\t15.9", "CLIP B/32\t15.9")
    refuse(text, "line 71", "'CLIP B/32'", "(line 59), the sample this table breaks down")


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        ("CLIP B/32\t4.4\t", "CLIP B/32\t4.4%\t", "line 19"),
        ("\t20.4 [17.2,23.6]", "\tn/a [17.2,23.6]", "line 32"),
        ("\t35.3\t", "\t35,3\t", "line 49"),
        ("\t64.5\t", "\t六十\t", "line 60"),
        ("\t44.4\t", "\t44.4 \u00b1 1.0\t", "line 72"),
    ],
)
def test_non_numeric_value(example_text: str, old: str, new: str, line: str) -> None:
    refuse(edit(example_text, old, new), line, "not a decimal")


@pytest.mark.parametrize(
    ("old", "new", "line", "problem"),
    [
        ("[3.9,5.0]", "[3.9;5.0]", "line 19", "not an interval"),
        ("[3.9,5.0]", "(3.9,5.0)", "line 19", "not an interval"),
        ("[3.9,5.0]", "[5.0,3.9]", "line 19", "lower > upper"),
        ("[17.2,23.6]", "[17.2,23.6", "line 32", "not an interval"),
        ("20.4 [17.2,23.6]", "20.4", "line 32", "no interval"),
    ],
)
def test_malformed_interval(example_text: str, old: str, new: str, line: str, problem: str) -> None:
    refuse(edit(example_text, old, new), line, problem)


@pytest.mark.parametrize("size", ["0", "six hundred", "-618", "61.8"])
def test_bad_sample_size(example_text: str, size: str) -> None:
    refuse(edit(example_text, "\t618\t", f"\t{size}\t"), "line 32", "sample size")


def test_declared_count_mismatch(example_text: str) -> None:
    text = edit(edit(example_text, "收录了 4 条", "收录了 5 条"), "报告成绩 4", "报告成绩 5")
    refuse(text, "declares 5 results", "4 rows")


def test_reported_count_mismatch(example_text: str) -> None:
    refuse(edit(example_text, "报告成绩 4", "报告成绩 3"), "报告成绩 3")


def test_headline_row_missing(example_text: str) -> None:
    text = edit(example_text, "SigLIP SO400M/14\t13.5\t[12.6,14.4]\n", "")
    refuse(text, "declares 4 results", "3 rows")


def test_duplicate_subset_row(example_text: str) -> None:
    text = edit(example_text, "CLIP B/32\tswap_color", "CLIP B/32\tmodify_color")
    refuse(text, "line 36", "duplicate")


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        ("数值越高越好", "越大越好", "direction"),
        ("报告指标: Overall strict Group accuracy\n", "", "报告指标"),
        ("原始单位: percent\n", "", "原始单位"),
        ("这条来源记录收录了 4 条数值成绩。", "", "这条来源记录收录了"),
        (" · 2026-10-30\n", " · 2026-13-30\n", "not a date"),
        ("Equality Machine · 核对于 2026-11-02", "Equality Machine", "核对于"),
        ("CompoSET — Model reports", "CompoSET Model reports", "line 1"),
    ],
)
def test_broken_fixed_labels(example_text: str, old: str, new: str, problem: str) -> None:
    refuse(edit(example_text, old, new), problem)


def test_without_evidence_table_the_headline_has_no_protocol(example_text: str) -> None:
    start = example_text.index("模型\t数值")
    end = example_text.index("报告成绩")
    page = radar.parse((example_text[:start] + example_text[end:]).encode("utf-8"), "page.txt")
    plain = radar.parse(example_text.encode("utf-8"), "page.txt")
    headline = [r for r in page.results if r.headline]
    assert [(r.method, r.value, r.interval) for r in headline] == [
        (r.method, r.value, r.interval) for r in plain.results if r.headline
    ]
    assert all(r.configuration == Configuration() and r.result_date is None for r in headline)
    assert page.results[len(headline) :] == plain.results[len(headline) :]
    assert page.reporting_paper == PAPER and not page.warnings


def test_reporting_paper_from_the_evidence_table(example_text: str) -> None:
    text = edit(example_text, "引用文档及日期（1）", "引用文档")
    page = radar.parse(text.encode("utf-8"), "page.txt")
    assert page.reporting_paper == PaperRef(title="CompoSET paper v1", date=None)
    start = text.index("模型\t数值")
    end = text.index("报告成绩")
    refuse(text[:start] + text[end:], "no reporting paper", "引用文档及日期（N）")


def test_missing_headline_table(example_text: str) -> None:
    start = example_text.index("完整评测：4个双编码器\n模型")
    end = example_text.index("CompoSET paper v1 — task", start)
    refuse(example_text[:start] + example_text[end:], "no headline table")


def test_a_table_that_cannot_be_placed_is_skipped_with_a_warning(example_text: str) -> None:
    text = edit(example_text, "报告成绩 4", "报告成绩 4\n\n模型成本\n模型\t分数\nX\t1.0")
    page = radar.parse(text.encode("utf-8"), "page.txt")
    plain = radar.parse(example_text.encode("utf-8"), "page.txt")
    assert page.results == plain.results and page.aggregates == plain.aggregates
    (warning,) = page.warnings
    assert str(warning) == (
        "page.txt: line 97: table '模型成本' cannot be placed (no value column (a header "
        "naming a metric and its unit, such as 准确率（%）)): skipped (its numbers are not loaded)"
    )


def test_generative_title_without_sample_size(example_text: str) -> None:
    text = edit(example_text, "200例生成式模型小样本\n模型", "生成式模型小样本\n模型")
    page = radar.parse(text.encode("utf-8"), "page.txt")
    sample = [r for r in page.results if r.table == "Table 11"]
    assert len(sample) == 6
    assert all(r.sample_size is None and r.configuration.subset is None for r in sample)
    assert {r.configuration.protocol for r in sample} == {API}
    by_length = [r for r in page.results if r.table == "Table 12"]
    assert {r.configuration.subset for r in by_length} == {
        "short captions",
        "medium captions",
        "long captions",
    }


@pytest.mark.parametrize(
    "cut",
    [
        "模型\t编辑类型",
        "DreamLIP B/16\tswap_color\t312\t18.6 [",
        "已收录的评测资料",
        "指标方向",
        "CLIP B/32\t4.4\tpercent",
    ],
)
def test_truncated_example(example_text: str, cut: str) -> None:
    refuse(example_text[: example_text.index(cut) + len(cut)])


@pytest.mark.parametrize("fraction", [0.0, 0.1, 0.3, 0.5, 0.7, 0.85, 0.9])
def test_truncated_example_at_fractions(example_text: str, fraction: float) -> None:
    refuse(example_text[: int(len(example_text) * fraction)])


@pytest.mark.parametrize(
    "data",
    [
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe",
        b"\xff\xfe\x00\x00garbage",
        b"\x00\x01\x02\x03",
        b"",
    ],
)
def test_binary_junk(data: bytes) -> None:
    refuse(data)


def test_invalid_utf8_inside_a_page(example_text: str) -> None:
    raw = example_text.encode("utf-8")
    cut = raw.index(b"CLIP B/32")
    refuse(raw[:cut] + b"\xc3\x28" + raw[cut:], "not UTF-8", f"byte {cut}")


def test_sota2_page_is_refused() -> None:
    refuse(
        "# Prompt Recovery on LAION\n\nSource: [x](<https://www.sota2.com/x>)\n",
        "line 1",
        "not an AI Benchmark Radar title",
    )
