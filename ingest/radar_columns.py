"""The columns of an AI Benchmark Radar table, read from the shape of their header words.

Every Radar page names its columns after its own benchmark, so a column is recognised by the
template's marks, not by the words of one page:

- a **value** column names a metric and its unit: ``整体准确率（%）``, ``平均得分（分）``,
  ``中位延迟（毫秒）``, ``Group %``, ``Group百分数``; a trailing ``［95%区间］`` says its cells
  hold ``<value> [lower,upper]``;
- an **interval** column says ``区间`` (``论文95%置信区间``, ``官方95%置信区间``) and belongs
  to the value column on its left;
- a **sample-size** column ends in ``n`` (``合并样本数n``, ``题目数n``, ``每档n``) or says
  ``样本数`` without naming a unit;
- the **model** column is ``模型`` (or ``方法``, ``系统``, ``智能体``, ``Agent``, ``Model``);
- a **protocol** column names the scoring method of each row (``评分方式``, ``协议``);
- any other column is a **key**: the subset a row is about (edit type, input length, language,
  difficulty, split ...).

Several value columns that share a metric word (``短描述Group %``, ``中描述Group %``) are one metric
under several conditions (``split_conditions``). A short glossary gives the English names the
project has always used for a few published words (``Group`` is ``Group accuracy``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from typing import Literal

ColumnKind = Literal["model", "protocol", "sample", "interval", "value", "key"]

_MODEL_WORDS = {"模型", "模型名称", "模型名", "方法", "系统", "智能体", "agent", "model", "method"}
_PROTOCOL_WORDS = ("评分方式", "评分方法", "评测方式", "评测方法", "评测协议", "打分方式", "协议")
_SAMPLE_WORDS = ("样本数", "样本量", "题目数", "题数", "例数")
_PERCENT_WORDS = ("百分数", "百分比", "百分率")
_LEVEL_RE = re.compile(r"([0-9]{1,3}(?:\.[0-9]{1,6})?)\s*[%％]")
_LONGEST_HEADER = 200  # a longer cell is no header word of the template
# Words a label is split at, so that a condition before them ends there (短文本|准确率,
# 简单题|平均|得分): metric words and the modifiers that begin a metric's name.
_METRIC_WORDS = (
    "准确率", "正确率", "通过率", "成功率", "胜率", "召回率", "精确率", "错误率", "命中率",
    "得分", "分数", "成绩", "延迟", "时延", "耗时", "吞吐量", "吞吐", "速度",
    "平均", "中位", "整体", "总体",
)  # fmt: skip
_WORD_RE = re.compile("|".join(sorted(_METRIC_WORDS, key=len, reverse=True)))
_CJK_RE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+|[^\u3400-\u9fff\uf900-\ufaff]+")

# English names the project gives a few published words: metric labels, conditions, key columns.
METRIC_NAMES = {"Group": "Group accuracy", "图到文": "I2T accuracy", "文到图": "T2I accuracy"}
CONDITION_NAMES = {
    "短描述": "short captions",
    "中描述": "medium captions",
    "长描述": "long captions",
}
KEY_PHRASES = {"编辑类型": "{} edits"}


class ShapeError(ValueError):
    """A header row whose columns do not make a table of the template; the text says why."""


@dataclass(frozen=True)
class Column:
    """One column of a table, as its header word shows it."""

    index: int
    header: str  # as published
    kind: ColumnKind
    label: str = ""  # value: the metric label, e.g. "整体Group" of "整体Group（%）"
    unit: str | None = None  # value: the unit the header names, e.g. "%"; None if it names none
    level: str | None = None  # interval (or value with intervals in its cells): e.g. "0.95"
    in_cell: bool = False  # value: cells read "<value> [lower,upper]"
    interval: int | None = None  # value: the index of its interval column


def classify(header: tuple[str, ...]) -> tuple[Column, ...]:
    """The columns of a header row, each with its kind; a value column knows its interval.

    Raises ShapeError for a table with no value column, an interval column with no value column
    on its left, or two sample-size columns.
    """
    columns = [_column(index, text) for index, text in enumerate(header)]
    kinds = [c.kind for c in columns]
    for kind in ("model", "protocol"):  # a second one is a key column like any other
        for index in [i for i, k in enumerate(kinds) if k == kind][1:]:
            columns[index] = replace(columns[index], kind="key")
    if kinds.count("sample") > 1:
        raise ShapeError("two sample-size columns")
    if any(c.kind == "value" and not c.label for c in columns):
        raise ShapeError("a value column names no metric")
    if "value" not in kinds:
        raise ShapeError(
            "no value column (a header naming a metric and its unit, such as 准确率（%）)"
        )
    for index, column in enumerate(columns):
        if column.kind != "interval":
            continue
        owner = next((i for i in range(index - 1, -1, -1) if columns[i].kind == "value"), None)
        if owner is None or columns[owner].in_cell or columns[owner].interval is not None:
            raise ShapeError(f"the interval column {column.header!r} follows no value column")
        columns[owner] = replace(columns[owner], interval=index, level=column.level)
    return tuple(columns)


def _column(index: int, text: str) -> Column:
    header = text.strip()
    if len(header) > _LONGEST_HEADER:
        return Column(index, header, "key")
    rest, level, in_cell = _interval_suffix(header)
    if in_cell:
        label, unit = _unit_split(rest) or (rest, None)
        return Column(index, header, "value", label, unit, level, in_cell=True)
    if "区间" in header:
        return Column(index, header, "interval", level=_level(header))
    if _ends_in_n(header):
        return Column(index, header, "sample")
    base = _unit_split(header)
    if _base(header).casefold() in _MODEL_WORDS:
        return Column(index, header, "model")
    if base is not None and base[0]:
        return Column(index, header, "value", base[0], base[1])
    if any(word in header for word in _SAMPLE_WORDS):
        return Column(index, header, "sample")
    if any(word in header.casefold() for word in (*_PROTOCOL_WORDS, "scoring", "protocol")):
        return Column(index, header, "protocol")
    return Column(index, header, "key")


def _interval_suffix(header: str) -> tuple[str, str | None, bool]:
    """``("Group百分数", "0.95", True)`` for ``Group百分数［95%区间］``; else the header as it
    is, None and False."""
    if not header.endswith(("］", "]")):
        return header, None, False
    opening = max(header.rfind("［"), header.rfind("["))
    inner = header[opening + 1 : -1]
    if opening < 0 or "区间" not in inner:
        return header, None, False
    return header[:opening].strip(), _level(inner), True


def _level(text: str) -> str | None:
    """The confidence level a header states (``95%`` is ``0.95``), or None if it states none."""
    found = _LEVEL_RE.search(text)
    if not found:
        return None
    try:
        level = Decimal(found[1]) / 100
    except InvalidOperation:  # pragma: no cover - the pattern admits only decimals
        return None
    return format(level.normalize(), "f") if 0 < level < 1 else None


def _unit_split(text: str) -> tuple[str, str] | None:
    """(label, unit) of a header that names a unit: ``（…）`` at its end, ``%``, ``百分数``."""
    if text.endswith(("）", ")")):
        opening = max(text.rfind("（"), text.rfind("("))
        unit = text[opening + 1 : -1].strip()
        if opening >= 0 and unit:
            return text[:opening].strip(), unit
    if text.endswith(("%", "％")):
        return text[:-1].strip(), "%"
    for word in _PERCENT_WORDS:
        if text.endswith(word) and len(text) > len(word):
            return text[: -len(word)].strip(), word
    return None


def _base(header: str) -> str:
    """The header without a qualifier in parentheses at its end (``模型（版本）`` is ``模型``)."""
    split = _unit_split(header)
    return split[0] if split and split[1] != "%" else header


def _ends_in_n(header: str) -> bool:
    """``合并样本数n``, ``每档n``, ``n``: an ``n`` that ends no Latin word."""
    return header[-1:] in ("n", "N") and not (header[-2:-1].isascii() and header[-2:-1].isalpha())


def _tokens(label: str) -> list[str]:
    """A label in words: runs of Chinese and of other script, a Chinese run split around the
    metric words in it (``4K平均得分`` is ``4K`` ``平均`` ``得分``)."""
    tokens: list[str] = []
    for run in _CJK_RE.findall(label):
        start = 0
        for found in _WORD_RE.finditer(run):
            if found.start() > start:
                tokens.append(run[start : found.start()])
            tokens.append(found[0])
            start = found.end()
        if start < len(run):
            tokens.append(run[start:])
    return tokens


def split_conditions(labels: list[str], *known: str) -> tuple[str, list[str]] | None:
    """The metric and the conditions of value columns that share a metric word, or None.

    ``["短描述Group", "中描述Group"]`` is ``("Group", ["短描述", "中描述"])``: every label ends in
    the same words and has words of its own before them. When every label ends in one of the
    ``known`` names (the headline's label, the table's title), that is the metric. Labels with
    no common end are several metrics (``["图到文", "文到图", "Group"]`` is None).
    """
    if len(labels) < 2:
        return None
    for name in known:
        if name and all(label.endswith(name) and label != name for label in labels):
            conditions = [label[: -len(name)].strip() for label in labels]
            if _distinct(conditions):
                return name, conditions
    split = [_tokens(label) for label in labels]
    common = 0
    while all(len(tokens) > common + 1 for tokens in split) and (
        len({tokens[-1 - common] for tokens in split}) == 1
    ):
        common += 1
    if not common:
        return None
    metric = "".join(split[0][-common:]).strip()
    conditions = ["".join(tokens[:-common]).strip() for tokens in split]
    return (metric, conditions) if metric and _distinct(conditions) else None


def _distinct(conditions: list[str]) -> bool:
    return all(conditions) and len(set(conditions)) == len(conditions)


def metric_name(label: str) -> str:
    """The name of the metric a label publishes: the glossary's English name, else the label."""
    return METRIC_NAMES.get(label, label)


def condition_name(condition: str) -> str:
    """The name of a condition: the glossary's English name, else the condition as published."""
    return CONDITION_NAMES.get(condition, condition)


def key_phrase(header: str, value: str) -> str:
    """A key cell in words, for a description: ``modify_color edits``, else ``语言 中文``."""
    return KEY_PHRASES.get(header, f"{header} {{}}").format(value)
