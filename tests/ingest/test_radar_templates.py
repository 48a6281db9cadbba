"""Radar pages of other benchmarks: every variation of the template, every figure checked.

The pages in ``tests/data/radar/`` are the project's own (own prose; published-looking figures).
For each table this file says by hand how it is to be read (which column is the model, the keys,
the sample size, each value column's metric, condition and interval); a small scan of the
tab-separated lines applies that reading, and the parser must give exactly those records, no
more. Page-level facts, warnings and units in the graph are written out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest
from support import run_cli

from benchgraph import validation
from benchgraph import vocab as V
from ingest import radar
from ingest.mapper import map_page
from ingest.records import Page, PageError, PaperRef

DATA = Path(__file__).resolve().parents[1] / "data" / "radar"
NOW = "2026-12-31T00:00:00+00:00"

Cell = int | str | None  # a column index, a fixed text, or nothing


@dataclass(frozen=True)
class Column:
    """One value column as a reader sees it: its metric, condition and where its interval is."""

    index: int
    metric: str
    condition: str | None = None
    interval: int | str | None = None  # a column index, "cell" (in the cell), or None
    level: str | None = None


@dataclass(frozen=True)
class Spec:
    """How one table is read, by hand."""

    header: str  # the header row, tab-joined
    name: str  # "Table 3"
    kind: str  # "headline", "results" or "aggregate"
    values: tuple[Column, ...]
    model: int | None = 0
    keys: tuple[int, ...] = ()
    key_names: tuple[str, ...] = ()  # how each key reads in a subset ("" keeps the cell)
    n: int | None = None
    size: int | None = None  # one sample size for the whole table
    prefix: str | None = None  # the sample the subset starts with
    protocol: Cell = None  # a column index, or a fixed protocol
    protocols: dict[str, str] = field(default_factory=dict)  # per model, for a breakdown
    names: dict[str, str] = field(default_factory=dict)  # published short name: model
    description: str = ""  # aggregates: "{subset}" is replaced by the row's subset words


def rows(text: str, header: str) -> list[tuple[int, list[str]]]:
    lines = text.split("\n")
    start = lines.index(header)
    found = []
    for number in range(start + 1, len(lines)):
        if not lines[number].strip():
            break
        found.append((number + 1, lines[number].split("\t")))
    return found


def evidence(text: str) -> dict[str, tuple[str, str]]:
    """Protocol and date per model from the English evidence table, if there is one."""
    header = "模型\t数值\t单位\t协议\t报告日期与口径\t来源"
    if header not in text.split("\n"):
        return {}
    return {c[0]: (c[3], c[4].split(" · ")[0]) for _, c in rows(text, header)}


def expected(text: str, specs: list[Spec], released: str | None) -> tuple[set, set]:
    """The results and aggregates the specs read from ``text``."""
    proof = evidence(text)
    results, aggregates = set(), set()
    for spec in specs:
        for line, cells in rows(text, spec.header):
            model = (
                None if spec.model is None else spec.names.get(cells[spec.model], cells[spec.model])
            )
            keys = [
                f"{name} {cells[k]}" if name else cells[k]
                for k, name in zip(spec.keys, spec.key_names or [""] * len(spec.keys), strict=True)
            ]
            size = int(cells[spec.n].replace(",", "")) if spec.n is not None else spec.size
            if isinstance(spec.protocol, int):
                protocol = cells[spec.protocol]
            elif spec.protocols:
                protocol = spec.protocols[model]
            else:
                protocol = spec.protocol
            date = None
            if spec.kind == "headline":
                protocol, date = proof.get(model, (None, released))
            for column in spec.values:
                cell = cells[column.index]
                interval = None
                if column.interval == "cell":
                    cell, bounds = cell.split(" ")
                    interval = (*bounds[1:-1].split(","), column.level, bounds)
                elif isinstance(column.interval, int):
                    bounds = cells[column.interval]
                    interval = (*bounds[1:-1].split(","), column.level, bounds)
                parts = [p for p in (spec.prefix, *keys, column.condition) if p]
                subset = ", ".join(parts) or None
                if spec.kind == "aggregate":
                    words = spec.description.format(keys=" and ".join(keys), cond=column.condition)
                    aggregates.add(
                        (line, column.metric, cell, subset, size, interval, spec.name, words)
                    )
                    continue
                first = spec.kind == "headline" and column is spec.values[0]
                row = (line, model, column.metric, cell, interval, size, subset, protocol)
                results.add((*row, first, spec.name, date))
    return results, aggregates


def found(page: Page) -> tuple[set, set]:
    results = {
        (
            r.line,
            r.method,
            r.metric,
            r.value,
            r.interval and (r.interval.lower, r.interval.upper, r.interval.level, r.interval.text),
            r.sample_size,
            r.configuration.subset,
            r.configuration.protocol,
            r.headline,
            r.table,
            r.result_date,
        )
        for r in page.results
    }
    aggregates = {
        (
            a.line,
            a.metric,
            a.value,
            a.subset,
            a.sample_size,
            a.interval and (a.interval.lower, a.interval.upper, a.interval.level, a.interval.text),
            a.table,
            a.description,
        )
        for a in page.aggregates
    }
    return results, aggregates


def parse(name: str) -> Page:
    return radar.parse((DATA / name).read_bytes(), name)


def text_of(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def refuse(text: str, *parts: str) -> str:
    with pytest.raises(PageError) as caught:
        radar.parse(text.encode("utf-8"), "page.txt")
    message = str(caught.value)
    assert message.startswith("page.txt: "), message
    for part in parts:
        assert part in message, message
    return message


def edit(text: str, old: str, new: str) -> str:
    assert old in text, old
    return text.replace(old, new, 1)


def units_in_graph(page: Page) -> dict[str, str]:
    """Metric label: unit IRI, read back from the mapped triples."""
    triples = map_page(page, NOW)
    labels = {t.subject.value: t.object.value for t in triples if t.predicate.value == V.label}
    return {
        labels[t.subject.value]: t.object.value
        for t in triples
        if t.predicate.value == V.unit
        and t.subject.value.split("/metric/")[0] != t.subject.value
        and "/metric/" in t.subject.value
    }


def conforms(page: Page) -> tuple[bool, list[str]]:
    ok, report = validation.validate_triples(map_page(page, NOW), page.origin)
    return ok, [f.shape for f in report.findings]


# --- LongDocQA: the page: 整体准确率（%）, 官方95%置信区间, lengths, aggregates ----------

LONGDOC = "longdocqa-intervals-lengths.txt"
LONGDOC_SPECS = [
    Spec(
        "模型\t整体准确率（%）\t官方95%置信区间",
        "Table 2",
        "headline",
        (Column(1, "Overall accuracy", interval=2, level="0.95"),),
    ),
    Spec(
        "模型\t输入长度\t题目数n\t准确率（%）［95%区间］",
        "Table 3",
        "results",
        (Column(3, "准确率", interval="cell", level="0.95"),),
        keys=(1,),
        n=2,
        names={"Phi-5": "Phi-5 (14B)"},
    ),
    Spec(
        "输入长度\t每档n\t单跳准确率（%）\t多跳准确率（%）",
        "Table 4",
        "aggregate",
        (Column(2, "准确率", "单跳"), Column(3, "准确率", "多跳")),
        model=None,
        keys=(0,),
        n=1,
        description="Mean 准确率 over the models of Table 4 for 输入长度 {keys} with {cond}; "
        "not any single model's score.",
    ),
]


def test_longdocqa_every_figure() -> None:
    page = parse(LONGDOC)
    assert found(page) == expected(text_of(LONGDOC), LONGDOC_SPECS, "2026-09-01")
    assert len(page.results) == 6 + 9 and len(page.aggregates) == 6
    assert page.declared_count == 6 == sum(r.headline for r in page.results)
    assert page.reporting_paper == PaperRef(title="LongDocQA v2 leaderboard", date="2026-09-01")
    assert (page.key, page.title, page.data_freeze, page.checked_on) == (
        "radar/longdocqa",
        "LongDocQA — Official leaderboard · AI Benchmark Radar",
        "a41c9e0",
        "2026-09-14",
    )
    assert [(m.name, m.unit, m.direction, m.chance_level) for m in page.metrics] == [
        ("Overall accuracy", "percent", "higher", "25"),
        ("准确率", "percent", "higher", "25"),  # its heading, 如何读准确率, names it
    ]
    assert not page.warnings
    assert set(units_in_graph(page).values()) == {V.UNIT + "PERCENT"}
    assert conforms(page)[0]


def test_longdocqa_refusals() -> None:
    text = text_of(LONGDOC)
    refuse(
        edit(text, "模型\t整体准确率（%）", "模型\t整体准确率（秒）"),
        "line 24",
        "'整体准确率（秒）'",
        "is in '秒', which contradicts 原始单位 'percent' (line 77)",
    )
    refuse(edit(text, "\t[59.7,63.1]", "\t[63.1,59.7]"), "line 25", "lower > upper")
    refuse(edit(text, "\t[59.7,63.1]", "\t59.7–63.1"), "line 25", "not an interval")
    refuse(edit(text, "\t74.0 [71.5,76.5]", "\t74.0"), "line 45", "no interval in '74.0'")
    counted = edit(edit(text, "收录了 6 条", "收录了 7 条"), "报告成绩 6", "报告成绩 7")
    refuse(counted, "line 24", "declares 7 results but its headline table has 6 rows")
    refuse(edit(text, "报告成绩 6", "报告成绩 5"), "line 106", "'报告成绩 5' disagrees")
    refuse(
        edit(text, "Gemma 3 27B\t49.8\tpercent", "Gemma 3 27B\t49.9\tpercent"),
        "line 100",
        "evidence value 49.9",
        "headline value 49.8 (line 28)",
    )
    refuse(
        edit(text, "Gemma 3 27B\t49.8\tpercent", "Gemma 3 27B\t49.8\t分"),
        "evidence unit '分'",
        "page's unit 'percent'",
    )
    refuse(
        edit(text, "准确率（%）［95%区间］", "准确率（分）［95%区间］"),
        "metric '准确率' is in '%'",
        "but in '分'",
    )


def test_longdocqa_ambiguous_short_name() -> None:
    text = text_of(LONGDOC).replace("Llama-4 Scout\t55.0", "Qwen3-8B\t55.0")
    text = edit(text, "Qwen3-32B\t4K", "Qwen3\t4K")
    refuse(
        text,
        "line 42",
        "model 'Qwen3' in table '分长度成绩' (line 41) is ambiguous",
        "Qwen3-32B, Qwen3-8B",
    )


# --- ServeLat: lower is better, no intervals, no evidence table, conditions, tokens/s --------

SERVELAT = "servelat-latency-lower.txt"
TTFT = "Median time to first token"
SERVELAT_SPECS = [
    Spec("模型\t中位首字延迟（毫秒）", "Table 1", "headline", (Column(1, TTFT),)),
    Spec(
        "模型\t1K中位首字延迟（毫秒）\t8K中位首字延迟（毫秒）\t32K中位首字延迟（毫秒）",
        "Table 2",
        "results",
        (Column(1, TTFT, "1K"), Column(2, TTFT, "8K"), Column(3, TTFT, "32K")),
    ),
    Spec(
        "模型\t并发数\t生成吞吐（tokens/s）",
        "Table 3",
        "results",
        (Column(2, "生成吞吐"),),
        keys=(1,),
        key_names=("并发数",),
    ),
]


def test_servelat_every_figure() -> None:
    page = parse(SERVELAT)
    assert found(page) == expected(text_of(SERVELAT), SERVELAT_SPECS, "2026-07-28")
    assert [(m.name, m.unit, m.direction) for m in page.metrics] == [
        (TTFT, "milliseconds", "lower"),
        ("生成吞吐", "tokens/s", "lower"),
    ]
    assert [str(w) for w in page.warnings] == [
        "servelat-latency-lower.txt: line 45: metric '生成吞吐' of the column "
        "'生成吞吐（tokens/s）' of table '生成吞吐' (line 45) is in 'tokens/s', not in the page's "
        "unit 'milliseconds': it takes the page's direction (指标方向), which the page states "
        f"for '{TTFT}' (check which way the metric improves)"
    ]
    assert all(r.configuration.protocol is None for r in page.results)
    assert page.reporting_paper == PaperRef(title="ServeLat measurement report", date="2026-07-28")
    assert units_in_graph(page) == {TTFT: V.UNIT + "MilliSEC", "生成吞吐": V.UNIT + "NUM-PER-SEC"}
    ok, _ = conforms(page)
    assert ok
    directions = {t.object.value for t in map_page(page, NOW) if t.predicate.value == V.direction}
    assert directions == {V.LowerIsBetter}


def test_servelat_refusals() -> None:
    text = text_of(SERVELAT)
    refuse(
        edit(text, "指标方向: 数值越低越好", "指标方向: 越低越好"),
        "line 59",
        "unknown metric direction '越低越好'",
    )
    refuse(edit(text, "\t1020.0\n", "\t1,020\n"), "line 35", "not a decimal number: '1,020'")
    refuse(
        edit(text, "8K中位首字延迟（毫秒）", "8K中位首字延迟（秒）"),
        "line 34",
        "contradicts 原始单位 'milliseconds'",
    )
    refuse(
        edit(text, "本页只把这一列放进标准化主成绩序列", "本页只列出这一列"), "no headline table"
    )


# --- PolyWrite: points, 90% intervals in cells, languages, a sample under another protocol -----

POLY = "polywrite-points-sample.txt"
SCORE = "Mean writing score"
SAMPLE = "80-example stratified sample"
POLY_PROTOCOLS = {
    "GPT-5.1": "双人盲评（取平均）",
    "Claude Opus 4.5": "双人盲评（取平均）",
    "Qwen3-Max": "单人评审",
}
POLY_SPECS = [
    Spec(
        "模型\t平均得分（分）［90%区间］",
        "Table 5",
        "headline",
        (Column(1, SCORE, interval="cell", level="0.9"),),
    ),
    Spec(
        "模型\t语言\t样本数n\t平均得分（分）［90%区间］",
        "Table 6",
        "results",
        (Column(3, SCORE, interval="cell", level="0.9"),),
        keys=(1,),
        n=2,
    ),
    Spec(
        "模型\t评分方式\t平均得分（分）",
        "Table 7",
        "results",
        (Column(2, SCORE),),
        size=80,
        prefix=SAMPLE,
        protocol=1,
    ),
    Spec(
        "模型\t简单题平均得分（分）\t困难题平均得分（分）",
        "Table 8",
        "results",
        (Column(1, SCORE, "简单题"), Column(2, SCORE, "困难题")),
        prefix=SAMPLE,
        protocols=POLY_PROTOCOLS,
    ),
]


def test_polywrite_every_figure() -> None:
    page = parse(POLY)
    assert found(page) == expected(text_of(POLY), POLY_SPECS, "2026-10-12")
    assert [(m.name, m.unit, m.direction) for m in page.metrics] == [(SCORE, "points", "higher")]
    assert page.reporting_paper == PaperRef(title="PolyWrite report v3", date="2026-10-12")
    assert not page.warnings
    assert units_in_graph(page) == {SCORE: V.UNIT + "UNITLESS"}
    values = {t.object.value for t in map_page(page, NOW) if t.predicate.value == V.publishedValue}
    assert {"7.50", "6.00", "6.5", "7.10"} <= values  # as published, trailing zeros kept
    assert conforms(page)[0]


def test_polywrite_breakdown_must_name_the_sample_models() -> None:
    text = edit(text_of(POLY), "Qwen3-Max\t7.1\t5.7", "Kimi K2\t7.1\t5.7")
    refuse(
        text,
        "line 74",
        "model 'Kimi K2' in table '小样本按难度划分' (line 71) is not a model of table "
        "'80例人工复核小样本' (line 57)",
    )
    refuse(edit(text_of(POLY), "单人评审\t6.40", "\t6.40"), "line 60", "no scoring protocol")


def test_polywrite_headline_by_its_weaker_words_and_two_claimants() -> None:
    text = text_of(POLY)
    assert "标准化主成绩序列" not in text  # found by 构成本页的主成绩
    refuse(
        edit(text, "表6按写作语言拆分自动评分结果", "表6按写作语言拆分自动评分结果，也构成主成绩"),
        "line 42",
        "two tables say they are the page's 主成绩",
        "'自动评分：7个模型' (line 24)",
    )


# --- ClipFlow: an unknown unit, tables that cannot be placed, an unknown model ---------------

CLIP = "clipflow-unknown-unit-skipped.txt"
LENGTH = "Mean coherent length"
CLIP_SPECS = [
    Spec(
        "模型\t平均连贯长度（帧）\t论文95%置信区间",
        "Table 3",
        "headline",
        (Column(1, LENGTH, interval=2, level="0.95"),),
    ),
    Spec(
        "模型\t分辨率\t平均连贯长度（帧）\t置信区间",
        "Table 4",
        "results",
        (Column(2, LENGTH),),  # the intervals state no level: not recorded
        keys=(1,),
    ),
]


def test_clipflow_every_figure_and_what_was_read_past() -> None:
    page = parse(CLIP)
    assert found(page) == expected(text_of(CLIP), CLIP_SPECS, None)
    assert [str(w).removeprefix(f"{CLIP}: ") for w in page.warnings] == [
        "line 12: table '参评模型一览' cannot be placed (no value column (a header naming a "
        "metric and its unit, such as 准确率（%）)): skipped (its numbers are not loaded)",
        "line 25: the intervals of '平均连贯长度（帧）' in table '按分辨率划分的连贯长度' "
        "(line 25) state no confidence level: not recorded (an interval header names its "
        "level, such as 95%置信区间)",
        "line 29: model 'Wan 2.1' in table '按分辨率划分的连贯长度' (line 25) matches no model of "
        "the headline table or of a sample: read as a model of its own (a short name stands for "
        "the one headline name it begins)",
        "line 38: table '各分辨率的通过门槛' cannot be placed (no model column, and the page does "
        "not say it holds aggregates): skipped (its numbers are not loaded)",
    ]
    assert [(m.name, m.unit) for m in page.metrics] == [(LENGTH, "帧")]
    unit = V.ID + "unit/%E5%B8%A7"
    assert units_in_graph(page) == {LENGTH: unit}
    triples = {(t.subject.value, t.predicate.value, t.object.value) for t in map_page(page, NOW)}
    assert (unit, V.type_, V.UnmappedUnit) in triples and (unit, V.label, "帧") in triples
    ok, shapes = conforms(page)
    assert ok and validation.BGSH + "UnmappedUnit" in shapes
    assert page.reporting_paper == PaperRef(title="ClipFlow paper v2", date="2026-06-30")


def test_clipflow_an_unknown_unit_must_match_the_page_unit() -> None:
    text = edit(text_of(CLIP), "原始单位: 帧", "原始单位: 帧数")
    refuse(text, "line 49", "'平均连贯长度（帧）'", "contradicts 原始单位 '帧数'")


# --- ProofBench: counts, two key columns, headline not first, settings, aggregate intervals --

PROOF = "proofbench-counts-keys.txt"
SOLVED = "Problems solved"
PROOF_SPECS = [
    Spec(
        "模型\t发布方\t解出题数（题）\t论文95%置信区间",
        "Table 5",
        "headline",
        (Column(2, SOLVED, interval=3, level="0.95"),),
    ),
    Spec(
        "模型\t划分\t难度\t题目数n\t解出题数（题）",
        "Table 6",
        "results",
        (Column(4, SOLVED),),
        keys=(1, 2),
        n=3,
        names={"DeepSeek-Prover-V2": "DeepSeek-Prover-V2 (671B)"},
    ),
    Spec(
        "难度\t每档n\t解出题数（题）\t95%区间",
        "Table 7",
        "aggregate",
        (Column(2, SOLVED, interval=3, level="0.95"),),
        model=None,
        keys=(0,),
        n=1,
        description="Mean Problems solved over the models of Table 7 for 难度 {keys}; "
        "not any single model's score.",
    ),
]


def test_proofbench_every_figure() -> None:
    page = parse(PROOF)
    assert found(page) == expected(text_of(PROOF), PROOF_SPECS, None)
    assert [(m.name, m.unit) for m in page.metrics] == [(SOLVED, "count")]
    publishers = {r.method: r.configuration.settings for r in page.results if r.headline}
    assert {m: [(s.key, s.value) for s in v] for m, v in publishers.items()} == {
        "o4-mini": [("发布方", "OpenAI")],
        "DeepSeek-Prover-V2 (671B)": [("发布方", "DeepSeek")],
        "Kimina-Prover (72B)": [("发布方", "Moonshot")],
    }
    assert units_in_graph(page) == {SOLVED: V.UNIT + "NUM"}
    assert conforms(page)[0] and not page.warnings


def test_proofbench_aggregate_interval_must_hold_its_value() -> None:
    page = radar.parse(
        edit(text_of(PROOF), "72.3\t[68.0,76.6]", "80.3\t[68.0,76.6]").encode(), "page.txt"
    )
    ok, shapes = conforms(page)
    assert not ok and validation.BGSH + "Interval-valueBelowUpper" in shapes


# --- DecodeRace: tokens/s, seconds, a protocol column with its own n --------------------------

DECODE = "decoderace-throughput-protocols.txt"
THROUGHPUT = "Decode throughput"
DECODE_SPECS = [
    Spec(
        "模型\t解码吞吐（tokens/s）［95%置信区间］",
        "Table 1",
        "headline",
        (Column(1, THROUGHPUT, interval="cell", level="0.95"),),
    ),
    Spec(
        "模型\t短提示端到端耗时（秒）\t长提示端到端耗时（秒）",
        "Table 2",
        "results",
        (Column(1, "端到端耗时", "短提示"), Column(2, "端到端耗时", "长提示")),
    ),
    Spec(
        "模型\t计时协议\t重复次数n\t解码吞吐（tokens/s）",
        "Table 3",
        "results",
        (Column(3, THROUGHPUT),),
        n=2,
        prefix="30-example sample",
        protocol=1,
    ),
]


def test_decoderace_every_figure() -> None:
    page = parse(DECODE)
    assert found(page) == expected(text_of(DECODE), DECODE_SPECS, None)
    assert [(m.name, m.unit, m.direction) for m in page.metrics] == [
        (THROUGHPUT, "tokens per second", "higher"),
        ("端到端耗时", "秒", "higher"),
    ]
    assert [w.location for w in page.warnings] == ["line 33"]
    assert units_in_graph(page) == {
        THROUGHPUT: V.UNIT + "NUM-PER-SEC",
        "端到端耗时": V.UNIT + "SEC",
    }
    assert conforms(page)[0]


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.txt")))
def test_every_page_sniffs_parses_twice_alike_and_maps(name: str) -> None:
    text = text_of(name)
    assert radar.sniff(text)
    page, again = parse(name), radar.parse(text.encode("utf-8"), "elsewhere.txt")
    assert [r.source_id for r in page.results] == [r.source_id for r in again.results]
    ids = [r.source_id for r in page.results] + [a.source_id for a in page.aggregates]
    assert len(set(ids)) == len(ids)
    assert map_page(page, NOW)


def test_ingest_reports_what_the_parser_read_past(tmp_path: Path) -> None:
    """The CLI groups the parser's warnings by kind with the shapes' warnings (each with a
    count and an example), lists each with --verbose, and still exits 0: the page loaded."""
    page = radar.parse((DATA / CLIP).read_bytes(), str(DATA / CLIP))
    grouped = run_cli("ingest", str(DATA / CLIP), store=tmp_path / "other")
    assert grouped.returncode == 0, grouped.stderr
    assert "warning: " not in grouped.stderr
    kinds = grouped.stderr.split("warnings by kind:\n", 1)[1].splitlines()
    assert len(kinds) == 7 and all(" on 1 source, e.g. " in line for line in kinds), kinds
    assert any(line.startswith("  bgsh:Method-origin: 5 methods on 1 source") for line in kinds)
    done = run_cli("ingest", "--verbose", str(DATA / CLIP), store=tmp_path / "store")
    assert done.returncode == 0, done.stderr
    printed = [
        line
        for line in done.stderr.splitlines()
        if line.startswith("warning: ") and "[bgsh:" not in line
    ]
    assert printed == [f"warning: {w}" for w in page.warnings] != []
    assert printed[0].startswith(f"warning: {DATA / CLIP}: line 12: table '参评模型一览'")
    # 4 from the parser; from the shapes, the unmapped unit, the 4 headline results without a
    # configuration (said once, for the source) and the 5 methods with no origin paper (once).
    assert done.stdout.startswith(
        "1 loaded, 0 unchanged, 0 refused, 0 unreadable; 8 results in the loaded pages; "
        "7 warnings, 0 infos"
    )
    again = run_cli("ingest", str(DATA / CLIP), store=tmp_path / "store")
    assert again.returncode == 0 and "warning: " not in again.stderr
    assert again.stdout.startswith("0 loaded, 1 unchanged")
