"""Where each table of an AI Benchmark Radar page belongs: its place in the page's template.

The page says what its tables are, and their columns show it:

- the **headline** table is the one whose context says its rows enter the page's
  ``标准化主成绩序列`` (pages that do not use the phrase say they form its ``主成绩``);
- a table with no model column whose context says its numbers are means, medians or totals
  (``平均``, ``汇总``, ``不是任何单个模型的成绩``) holds **aggregates**;
- a table with a model column and a column naming each row's scoring method is a **sample**
  scored by another protocol;
- any other table with a model column holds results of its models: per subset (its key columns)
  or per condition (value columns that share a metric word), of the full evaluation or of a
  sample (``radar_results`` decides from its models and its words);
- the English evidence table is recognised by its fixed header.

A table that fits none of these is not read: it is reported as a warning with its line and
title. Only the headline is indispensable; a page whose headline cannot be found is refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ingest.radar_tables import Table
from ingest.records import PageWarning
from ingest.text import TRUNCATED, PageText

HEADLINE_CUE = "标准化主成绩序列"
WEAK_HEADLINE_CUE = "主成绩"
SAMPLE_CUES = ("小样本", "同一样本", "该样本", "这一样本")
_AGGREGATE_WORDS = ("平均", "均值", "汇总", "中位数", "合计", "总计")
_NEGATIONS = ("不", "非", "未", "无", "没")
_CLAUSE_RE = re.compile(r"[^。；;！!？?，,\n]+")


@dataclass(frozen=True)
class Layout:
    """The tables of a page by their place in the template."""

    headline: Table
    evidence: Table | None
    samples: tuple[Table, ...]  # model and protocol columns: scored by another protocol
    tables: tuple[Table, ...]  # other tables of models: subsets, conditions, sample breakdowns
    aggregates: tuple[Table, ...]
    warnings: tuple[PageWarning, ...]


def says(context: str, cue: str) -> bool:
    """Whether a clause of ``context`` says ``cue`` without a negation before it
    (``只有这些整体成绩进入本页的标准化主成绩序列`` does, ``不进入主成绩序列`` does not)."""
    for clause in _CLAUSE_RE.findall(context):
        at = clause.find(cue)
        if at >= 0 and not any(word in clause[:at] for word in _NEGATIONS):
            return True
    return False


def says_aggregate(context: str) -> bool:
    """Whether ``context`` says a table's numbers are aggregates over models, not a model's."""
    if any(word in context for word in _AGGREGATE_WORDS):
        return True
    return any(
        "模型" in clause and "成绩" in clause and any(word in clause for word in _NEGATIONS)
        for clause in _CLAUSE_RE.findall(context)
    )


def says_sample(context: str) -> bool:
    """Whether ``context`` says a table breaks down a sample (``小样本``)."""
    return any(cue in context for cue in SAMPLE_CUES)


def place(page: PageText, tables: list[Table]) -> Layout:
    """Return the layout of ``tables``: the headline, the evidence table, and the rest by kind.

    Raises PageError when no table, or more than one, is said to be the headline, or when the
    headline's columns cannot be read.
    """
    headline = _headline(page, tables)
    evidence: Table | None = None
    samples: list[Table] = []
    others: list[Table] = []
    aggregates: list[Table] = []
    warnings: list[PageWarning] = []

    def skip(table: Table, reason: str) -> None:
        warnings.append(
            page.warning(
                table.line,
                f"table {table.title or table.name!r} cannot be placed ({reason}): skipped",
                "its numbers are not loaded",
            )
        )

    for table in tables:
        if table is headline:
            continue
        if table.evidence:
            if evidence is None:
                evidence = table
            else:
                skip(table, f"a second evidence table; the first is at line {evidence.line}")
        elif table.problem:
            skip(table, table.problem)
        elif table.first("model") is None:
            if not says_aggregate(table.context):
                skip(table, "no model column, and the page does not say it holds aggregates")
            elif not table.of_kind("key"):
                skip(table, "aggregates with no column saying which subset each row is")
            else:
                aggregates.append(table)
        elif table.first("protocol") is not None:
            samples.append(table)
        else:
            others.append(table)
    return Layout(
        headline, evidence, tuple(samples), tuple(others), tuple(aggregates), tuple(warnings)
    )


def _headline(page: PageText, tables: list[Table]) -> Table:
    """The one table the page says is its headline series."""
    readable = [table for table in tables if not table.evidence]
    cue = HEADLINE_CUE
    found = [table for table in readable if says(table.context, cue)]
    if not found:
        cue = WEAK_HEADLINE_CUE
        found = [table for table in readable if says(table.context, cue)]
    if not found:
        raise page.error(
            None,
            f"no headline table: no table is said to enter the page's {HEADLINE_CUE}",
            "the paragraph above the headline table says its rows enter "
            f"{HEADLINE_CUE}; {TRUNCATED}",
        )
    if len(found) > 1:
        raise page.error(
            found[1].line,
            f"two tables say they are the page's {cue}: {found[0].where} and {found[1].where}",
            "a page has one headline series",
        )
    headline = found[0]
    if headline.problem or headline.first("model") is None:
        raise page.error(
            headline.line,
            f"the headline {headline.where} cannot be read: "
            f"{headline.problem or 'it has no model column (模型)'}",
        )
    return headline
