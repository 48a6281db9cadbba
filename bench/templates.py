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
RADAR_SUFFIX = "Model reports · AI Benchmark Radar"
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
class RadarPage:
    """Everything one AI Benchmark Radar page shows (values as published decimal text)."""

    name: str
    checked: str  # YYYY-MM-DD
    published: str  # the paper's date, YYYY-MM-DD
    freeze: str
    pairs: int
    headline: tuple[tuple[str, str, str, str], ...]  # model, value, lower, upper
    subset: tuple[tuple[str, str, int, str, str, str], ...]  # model, edit, n, value, lower, upper
    aggregate: tuple[tuple[str, int, str, str, str], ...]  # edit, n, short, medium, long
    sample: int
    generative: tuple[tuple[str, str, str, str, str], ...]  # model, protocol, i2t, t2i, group
    by_length: tuple[tuple[str, str, str, str], ...]  # model, short, medium, long

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
    n_head, n_sub = len(page.headline), len(page.subset)
    cite = f"{page.paper} — task, tables and limitations"
    source = f"{page.paper} · overall strict Group accuracy (Table 8)"
    protocol = (
        f"Paper v1 Table 8; full {page.name} release, all caption verbosity tiers; "
        "deterministic dual-encoder cosine similarity; strict bidirectional Group pass rate."
    )
    evidence = sorted(
        (model, value, "percent", protocol, f"{page.published} · document_publication", source)
        for model, value, _, _ in page.headline
    )
    parts = [
        f"{page.name} — {RADAR_SUFFIX}",
        f"{RADAR_PUBLISHER} · 核对于 {page.checked}",
        f"对应{page.published}发布的论文v1（数据冻结标识{page.freeze}）。"
        "完整评测、编辑类型分项与生成式模型小样本分别保留。",
        "Group指标",
        f"每道测试包含两张近似图像及各自描述，共{page.pairs}组。Group要求图到文与文到图两个方向"
        "都判对。随机打分时的机会水平是16.67%。",
        cite,
        f"完整评测：{n_head}个双编码器",
        f"下表列出表8中的{n_head}个模型，它们构成本页的主成绩。",
        f"完整评测：{n_head}个双编码器\n模型\t整体Group（%）\t论文95%置信区间\n"
        + _tsv((m, v, f"[{lo},{hi}]") for m, v, lo, hi in page.headline),
        cite,
        "编辑子集：逐模型、逐编辑类型Group",
        f"以下{n_sub}行选自表9，每行只覆盖一种编辑类型，均不代表完整评测成绩。",
        "编辑子集：逐模型、逐编辑类型Group\n模型\t编辑类型\t合并样本数n\tGroup百分数［95%区间］\n"
        + _tsv((m, e, n, f"{v} [{lo},{hi}]") for m, e, n, v, lo, hi in page.subset),
        cite,
        "编辑类型与描述长度汇总",
        f"表10的{len(page.aggregate)}行是多个模型的平均值，并非某个模型的成绩。",
        "编辑类型与描述长度汇总\n编辑类型\t每档n\t短描述Group %\t中描述Group %\t长描述Group %\n"
        + _tsv(page.aggregate),
        cite,
        f"{page.sample}例生成式模型小样本",
        f"表11中的{len(page.generative)}个生成式模型，评分方式与双编码器不同。",
        f"{page.sample}例生成式模型小样本\n模型\t评分方式\t图到文%\t文到图%\tGroup %\n"
        + _tsv(page.generative),
        cite,
    ]
    if page.by_length:
        parts += [
            "API模型按描述长度划分",
            "表12把同一小样本按描述长度拆开。",
            "API模型按描述长度划分\n模型\t短描述Group %\t中描述Group %\t长描述Group %\n"
            + _tsv(page.by_length),
        ]
    parts += [
        "已收录的评测资料",
        f"这条来源记录收录了 {n_head} 条数值成绩。",
        "报告指标: Overall strict Group accuracy\n原始单位: percent\n指标方向: 数值越高越好",
        "引用文档及日期（1）",
        f"{source} · {page.published}",
        "评测信息与证据",
        "模型\t数值\t单位\t协议\t报告日期与口径\t来源\n" + _tsv(evidence),
        f"报告成绩 {n_head}",
    ]
    return "\n\n".join(parts) + "\n"
