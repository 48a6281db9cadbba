"""The text of synthetic source pages, in the two real formats line for line.

A page is first described by a plain record (:class:`Sota2Page`, :class:`RadarPage`) and then
rendered here. Headings, tables, link forms and the formats' fixed sentences are the ones the
real pages use; only the descriptive sentences are our own.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from urllib.parse import quote

from bench.catalogue import Metric

SITE = "https://www.sota2.com/research"
RADAR_PUBLISHER = "AI Benchmark Radar / Equality Machine"
FULL_COVERAGE = "All results currently returned for this benchmark"
NO_COVERAGE = "No results currently returned for this benchmark"
PARTIAL_COVERAGE = "Partial: further results for this benchmark are on later pages"

_SCOPE_NOTE = (
    "A research result applies to its stated dataset, split, metric and evaluation "
    "configuration. Compare like-for-like settings, preserve the metric's unit and direction, "
    "and distinguish paper-reported results from independent reproduction. The best result "
    "recorded here is not a claim of exhaustive, current global coverage."
)
_SETTINGS_NOTE = (
    "Evaluation settings may differ between results. The original papers and recorded "
    "configurations are needed to establish comparability. A shared metric name alone does not "
    "establish an identical protocol."
)
_NO_REPRODUCTION = "This record does not assert independent reproduction."
_MARKDOWN = re.compile(r"([\\*_\[\]`|<>])")


@dataclass(frozen=True)
class Sota2Row:
    """One recorded result: a table row and its ``### <Method>`` section."""

    result_id: str
    method: str
    value: str
    date: str | None
    reporter: str  # 24-hex paper ID
    origin: str | None  # 24-hex paper ID of the method's origin paper
    implementation: str | None
    configuration: str | None  # compact JSON object, or None for "Not recorded"


@dataclass(frozen=True)
class Sota2Page:
    """Everything one sota2 page shows, for one benchmark and one primary metric."""

    task: str
    dataset: str  # as published, with a trailing "(split)" when the benchmark has one
    slug: str  # the benchmark's slug, used by the metric links
    page_slug: str  # the slug of this page's Source URL
    updated: str
    description: str
    metrics: tuple[Metric, ...]
    primary: Metric
    rows: tuple[Sota2Row, ...]
    total: int  # M of "Results loaded | N of M"
    page_count: int


@dataclass(frozen=True)
class RadarTable:
    """One table of a Radar page as it is printed: its section and its tab-separated lines."""

    title: str  # the section heading, repeated as the table's first line
    intro: str  # the paragraph between them, naming the table (表N) and saying what it is
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    note: str | None = None  # the paragraph after the table


@dataclass(frozen=True)
class RadarFigure:
    """One number a Radar page prints, as a reader must find it in the graph."""

    table: str  # "Table 8"
    method: str | None  # the model's full name; None for an aggregate
    metric: str
    value: str  # as printed
    unit: str  # the QUDT unit IRI, or the IRI of the unit kept as published
    interval: tuple[str, str, str] | None = None  # lower, upper, level
    sample_size: int | None = None
    subset: str | None = None
    protocol: str | None = None
    headline: bool = False
    date: str | None = None


@dataclass(frozen=True)
class RadarPage:
    """Everything one AI Benchmark Radar page shows, and the figures a reader must find."""

    name: str
    source: str  # the source kind of the title: "Model reports", "Official leaderboard", ...
    checked: str  # YYYY-MM-DD
    published: str  # the paper's date, YYYY-MM-DD
    freeze: str
    metric: str  # 报告指标
    unit: str  # 原始单位, as printed
    higher: bool  # 指标方向
    tables: tuple[RadarTable, ...]  # in page order
    headline_table: str  # "Table 8"
    headline_count: int
    # English evidence rows (model, value, unit, protocol, date and kind), or no such table
    evidence: tuple[tuple[str, str, str, str, str], ...] | None
    block: bool  # whether the evidence block (来源, 发布者, ...) is printed
    released: str | None  # the block's 评测发布日期 (None: 未收录)
    cited: bool  # whether the list of cited documents is printed
    chance: tuple[str, str] | None  # (heading, sentence) that state a chance level
    figures: tuple[RadarFigure, ...]
    aggregates: tuple[RadarFigure, ...]
    models: tuple[str, ...]  # every model the page's results name, by full name
    labels: tuple[tuple[str, str], ...] = ()  # (metric, a column label that names it)

    @property
    def paper(self) -> str:
        return f"{self.name} paper v1"


@functools.cache
def md(text: str) -> str:
    """Escape the Markdown punctuation sota2 escapes (``S*T`` is written ``S\\*T``)."""
    return _MARKDOWN.sub(r"\\\1", text)


def _direction(metric: Metric) -> str:
    return "Higher is better" if metric.higher else "Lower is better"


def render_sota2(page: Sota2Page) -> str:
    """Return the Markdown text of a sota2 page."""
    title = md(f"{page.task} on {page.dataset}")
    metric = md(page.primary.name)
    declared = len(page.rows)
    if not page.total:
        coverage = NO_COVERAGE
    else:
        coverage = FULL_COVERAGE if declared == page.total else PARTIAL_COVERAGE
    out = [
        f"# {title}",
        f"Source: [{title}](<{SITE}/sota/{page.page_slug}>)",
        f"Collection index: [llms.txt](<{SITE}/llms.txt>)",
        f"Data updated: {page.updated}",
        page.description,
        _SCOPE_NOTE,
        "| Scope | Recorded value |\n| --- | --- |\n"
        f"| Task | {md(page.task)} |\n"
        f"| Dataset (including any stated split) | {md(page.dataset)} |\n"
        f"| Metric | {metric} |\n"
        f"| Unit | {page.primary.unit} |\n"
        f"| Direction | {_direction(page.primary)} |\n"
        f"| Results loaded | {declared} of {page.total} |\n"
        f"| Coverage | {coverage} |",
        _SETTINGS_NOTE,
        "## Metrics",
    ]
    for m in page.metrics:
        link = f"{SITE}/sota/{page.slug}.md?metric={quote(m.name, safe='()*!~')}"
        out.append(f"- [{md(m.name)}](<{link}>): {_direction(m)}; unit: {m.unit}.")
    out.append("## Recorded results")
    table = [f"| Method | {metric} | Result date | Report paper |\n| --- | --- | --- | --- |"]
    table += [
        f"| {md(r.method)} | {r.value} | {r.date or 'Not recorded'} | {r.reporter} |"
        for r in page.rows
    ]
    out.append("\n".join(table))
    for r in page.rows:
        out.append(f"### {md(r.method)}")
        out.append(f"{metric}: {r.value}. Result ID: {r.result_id}.")
        out.append(f"[Reporting paper](<{SITE}/paper/{r.reporter}.md>)")
        if r.origin:
            out.append(f"[Method origin paper](<{SITE}/paper/{r.origin}.md>)")
        if r.implementation:
            out.append(f"[Implementation](<{r.implementation}>)")
        config = r.configuration or "Not recorded"
        out.append(f"Recorded evaluation configuration: {config}. {_NO_REPRODUCTION}")
    out.append(f"Page 1 of {page.page_count}. This is an index page, not the full collection.")
    return "\n\n".join(out) + "\n"


def _tsv(rows: Iterable[Sequence[object]]) -> str:
    return "\n".join("\t".join(str(cell) for cell in row) for row in rows)


def render_radar(page: RadarPage) -> str:
    """Return the plain text of an AI Benchmark Radar page."""
    cite = f"{page.paper} — task, tables and limitations"
    source = f"{page.paper} · {page.metric.casefold()} ({page.headline_table})"
    parts = [
        f"{page.name} — {page.source} · AI Benchmark Radar",
        f"{RADAR_PUBLISHER} · 核对于 {page.checked}",
        f"本页对应{page.published}发布的论文v1（数据冻结标识{page.freeze}）。"
        "完整评测与各类分项成绩分别保留，不混为一张排名。",
        "评测说明",
        f"{page.name}的每个模型都在同一套题目上评测；各表的样本范围与评分方式以表前说明为准。",
        cite,
    ]
    if page.chance:
        parts += [page.chance[0], page.chance[1], cite]
    for table in page.tables:
        parts += [table.title, table.intro]
        parts.append(f"{table.title}\n" + _tsv((table.header, *table.rows)))
        if table.note:
            parts.append(table.note)
        parts.append(cite)
    direction = "数值越高越好" if page.higher else "数值越低越好"
    parts += [
        "已收录的评测资料",
        f"这条来源记录收录了 {page.headline_count} 条数值成绩。",
        f"报告指标: {page.metric}\n原始单位: {page.unit}\n指标方向: {direction}",
    ]
    if page.cited:
        parts += ["引用文档及日期（1）", f"{source} · {page.published}"]
    parts.append("评测信息与证据")
    if page.block:
        parts.append(
            f"来源: {page.source}\n发布者: 未收录\n评测发布日期: {page.released or '未收录'}\n"
            f"采集日期: {page.checked}\n模态: 未收录"
        )
    if page.evidence is not None:
        header = ("模型", "数值", "单位", "协议", "报告日期与口径", "来源")
        parts.append(_tsv((header, *((*row, source) for row in page.evidence))))
    parts.append(f"报告成绩 {page.headline_count}")
    return "\n\n".join(parts) + "\n"
