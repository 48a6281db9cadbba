"""The tab-separated tables of an AI Benchmark Radar page, recognised by their header rows.

A table is a block of tab-separated lines up to the next blank line; its header row says which
kind it is, never its position. Its name (``Table 8``) comes from the paragraph before it, else
its title line. ``radar_results`` reads the rows of each kind into records.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ingest.text import TRUNCATED, PageText

HEADLINE = ("模型", "整体Group（%）", "论文95%置信区间")
SUBSET = ("模型", "编辑类型", "合并样本数n", "Group百分数［95%区间］")
AGGREGATE = ("编辑类型", "每档n", "短描述Group %", "中描述Group %", "长描述Group %")
GENERATIVE = ("模型", "评分方式", "图到文%", "文到图%", "Group %")
BY_LENGTH = ("模型", "短描述Group %", "中描述Group %", "长描述Group %")
EVIDENCE = ("模型", "数值", "单位", "协议", "报告日期与口径", "来源")
_KINDS = {
    HEADLINE: "headline",
    SUBSET: "subset",
    AGGREGATE: "aggregate",
    GENERATIVE: "generative",
    BY_LENGTH: "by-length",
    EVIDENCE: "evidence",
}
_TABLE_NO_RE = re.compile(r"表\s*([0-9]+)")


@dataclass(frozen=True)
class Table:
    """One tab-separated table of the page."""

    kind: str
    name: str  # "Table 8" from the paragraph before it, else its title
    title: str
    line: int  # line of the header row
    rows: tuple[tuple[int, tuple[str, ...]], ...]  # (line, cells)


def find_tables(page: PageText) -> dict[str, Table]:
    """Return every tab-separated block of the page, by kind.

    Raises PageError for an unknown header row, a second table of one kind, or a row whose
    number of cells differs from its header's.
    """
    lines = page.lines
    tables: dict[str, Table] = {}
    number = 0
    while number < len(lines):
        if "\t" not in lines[number]:
            number += 1
            continue
        header = tuple(cell.strip() for cell in lines[number].split("\t"))
        kind = _KINDS.get(header)
        if kind is None:
            raise page.error(
                number + 1,
                f"unknown table header {header}",
                "the parser knows the headline, subset, aggregate, generative, "
                "caption-length and evidence tables",
            )
        if kind in tables:
            raise page.error(
                number + 1,
                f"a second {kind} table",
                f"the first starts at line {tables[kind].line}",
            )
        rows = _rows(page, number + 1, len(header), kind)
        title = lines[number - 1].strip() if number else ""
        name = _table_name(lines, number - 1 if title else number) or title or kind
        tables[kind] = Table(kind, name, title, number + 1, rows)
        number += 1 + len(rows)
    return tables


def _rows(
    page: PageText, start: int, width: int, kind: str
) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """The (line, cells) rows from index ``start`` up to the next blank line."""
    rows = []
    for number, line in enumerate(page.lines[start:], start + 1):
        if not line.strip():
            break
        cells = tuple(cell.strip() for cell in line.split("\t"))
        if len(cells) != width:
            raise page.error(
                number,
                f"a row of the {kind} table has "
                f"{len(cells)} cells, but the table has {width} columns",
                "the page may be truncated or the row malformed",
            )
        rows.append((number, cells))
    return tuple(rows)


def _table_name(lines: list[str], before: int) -> str | None:
    """'Table N' when the last non-blank line before index ``before`` mentions 表N."""
    for line in reversed(lines[:before]):
        if line.strip():
            found = _TABLE_NO_RE.search(line)
            return f"Table {found[1]}" if found else None
    return None


def required(tables: dict[str, Table], kind: str, page: PageText) -> Table:
    """Return the table of ``kind``; raise PageError naming its header when there is none."""
    if kind not in tables:
        header = next(h for h, k in _KINDS.items() if k == kind)
        raise page.error(None, f"no {kind} table (header {' | '.join(header)})", TRUNCATED)
    return tables[kind]
