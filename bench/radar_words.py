"""The words and units synthetic AI Benchmark Radar pages are drawn from.

Units with how a page prints them (原始单位, a column header, the evidence table) and their QUDT
unit (or the IRI of a unit kept as published); metric labels; key columns and their cells;
conditions of both scripts; header words for models, sample sizes, intervals and protocols; and
the sentences that say which table is the headline.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from bench import catalogue as C

UNIT = "http://qudt.org/vocab/unit/"
UNMAPPED = "https://w3id.org/benchgraph/id/unit/"


@dataclass(frozen=True)
class Unit:
    """A unit a page may print, with its spellings, its QUDT unit and a range of values."""

    source: str  # as 原始单位 prints it
    headers: tuple[str, ...]  # how a column header prints it, after the label
    evidence: str  # as the evidence table prints it
    iri: str
    low: float
    high: float
    labels: tuple[str, ...]  # headline labels that fit it


UNITS = (
    Unit(
        "percent",
        ("（%）", "%", " %", "百分数", "（％）"),
        "percent",
        UNIT + "PERCENT",
        0,
        100,
        ("整体准确率", "准确率", "通过率", "整体成功率", "胜率"),
    ),
    Unit(
        "milliseconds",
        ("（毫秒）", "（ms）"),
        "ms",
        UNIT + "MilliSEC",
        20,
        900,
        ("中位延迟", "首字延迟"),
    ),
    Unit(
        "seconds", ("（秒）", "（s）"), "seconds", UNIT + "SEC", 1, 90, ("端到端耗时", "平均耗时")
    ),
    Unit(
        "tokens per second",
        ("（tokens/s）", "（词元/秒）"),
        "tokens/s",
        UNIT + "NUM-PER-SEC",
        50,
        5000,
        ("解码吞吐", "生成吞吐"),
    ),
    Unit("points", ("（分）",), "分", UNIT + "UNITLESS", 0, 10, ("平均得分", "整体得分")),
    Unit("count", ("（题）", "（个）"), "count", UNIT + "NUM", 0, 500, ("解出题数", "通过题数")),
    Unit("帧", ("（帧）",), "帧", UNMAPPED + quote("帧"), 10, 120, ("平均连贯长度", "连贯长度")),
)
# Labels of other metrics: single words, none ending in another, so no two share an ending.
OTHER_LABELS = ("召回率", "精确率", "F1", "Pass@1", "命中率", "错误率", "Recall@5")
KEYS = (
    ("编辑类型", C.EDIT_TYPES),
    ("输入长度", ("4K", "16K", "32K", "64K", "128K")),
    ("语言", ("中文", "English", "日本語", "Español", "Français")),
    ("难度", ("简单", "中等", "困难")),
    ("划分", ("dev", "test", "val")),
    ("并发数", ("1", "8", "32", "64")),
)
# Conditions, before a Chinese label (Latin ones) or a Latin label (Chinese ones).
LATIN_CONDITIONS = (("4K", "32K", "128K"), ("dev", "test"), ("zh", "en", "ja"), ("Top-1", "Top-5"))
CHINESE_CONDITIONS = (
    ("短文本", "长文本"),
    ("单跳", "多跳"),
    ("简单题", "困难题"),
    ("图像", "视频"),
)
MODEL_HEADERS = ("模型", "模型", "模型", "方法", "系统", "Model")
SAMPLE_HEADERS = ("样本数n", "题目数n", "合并样本数n", "n")
INTERVAL_COLUMNS = (
    ("论文95%置信区间", "0.95"),
    ("官方95%置信区间", "0.95"),
    ("95%置信区间", "0.95"),
    ("论文90%置信区间", "0.9"),
)
INTERVAL_CELLS = (("［95%区间］", "0.95"), ("［95%置信区间］", "0.95"), ("［90%区间］", "0.9"))
SOURCES = ("Model reports", "Official leaderboard", "Paper results", "Independent evaluation")
PROTOCOL_HEADERS = ("评分方式", "评测协议", "评分方法")
PROTOCOLS = (
    C.OPEN_WEIGHT,
    C.FRONTIER_API,
    "人工评分（双盲，取平均）",
    "模型裁判（固定提示词）",
)
STRONG = (
    "只有这些整体成绩进入本页的标准化主成绩序列。",
    "本页的标准化主成绩序列取自这张表。",
    "这张表的成绩进入标准化主成绩序列。",
)
WEAK = "这些成绩构成本页的主成绩。"
NOT_HEADLINE = ("这些分项成绩不进入标准化主成绩序列。", "均不代表完整评测成绩。", None, None)
