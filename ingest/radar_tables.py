"""The tab-separated tables of an AI Benchmark Radar page, with what the page says about them.

A table is a block of tab-separated lines up to the next blank line: a header row, then rows.
The template puts a title line just above the header row, repeating the heading of the table's
section; between heading and title a paragraph introduces the table (and names it: ``表9``), and a
note may follow it. That prose is the table's *context*: ``radar_layout`` reads from it what the
page says the table is (the headline series, aggregates, a sample under another protocol).

The English evidence table is the template's fixed block: its header names ``模型``, ``数值`` and
``单位``. Every other table's columns are read from their header words (``radar_columns``); a
table whose columns make no table of the template keeps the reason in ``problem``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace

from ingest.radar_columns import Column, ShapeError, classify
from ingest.text import PageText

EVIDENCE_COLUMNS = ("模型", "数值", "单位")
_TABLE_NO_RE = re.compile(r"表\s*([0-9]+)")
_LONGEST_INTRO = 12  # non-blank lines searched back for a table's section heading


@dataclass(frozen=True)
class Table:
    """One tab-separated table of the page."""

    name: str  # "Table 8" when the paragraph before it names 表8, else its title
    title: str  # the title line above the header row ("" if there is none)
    line: int  # line of the header row
    header: tuple[str, ...]
    rows: tuple[tuple[int, tuple[str, ...]], ...]  # (line, cells)
    context: str  # the paragraph that introduces it and the note after it
    columns: tuple[Column, ...] = ()  # empty for the evidence table and for a misshapen table
    problem: str = ""  # why the columns make no table of the template
    evidence: bool = False

    def of_kind(self, kind: str) -> list[Column]:
        """The columns of ``kind``, left to right."""
        return [column for column in self.columns if column.kind == kind]

    def first(self, kind: str) -> Column | None:
        """The leftmost column of ``kind``, or None."""
        return next((column for column in self.columns if column.kind == kind), None)

    @property
    def where(self) -> str:
        """How errors name the table: ``table '<title>' (line N)``."""
        return f"table {self.title or self.name!r} (line {self.line})"


def find_tables(page: PageText) -> list[Table]:
    """Return every tab-separated block of the page, in page order, with its columns.

    Raises PageError for a row whose number of cells differs from its header's (a truncated or
    damaged table).
    """
    lines = page.lines
    repeated = Counter(line.strip() for line in lines if line.strip())
    tables: list[Table] = []
    number = 0
    while number < len(lines):
        if "\t" not in lines[number]:
            number += 1
            continue
        header = tuple(cell.strip() for cell in lines[number].split("\t"))
        rows = _rows(page, number + 1, len(header), lines[number - 1].strip() if number else "")
        title = lines[number - 1].strip() if number else ""
        intro = _intro(lines, number - 1 if title else number, title)
        note = _note(lines, number + 1 + len(rows), repeated)
        table = Table(
            name=_table_name(lines, number - 1 if title else number) or title,
            title=title,
            line=number + 1,
            header=header,
            rows=rows,
            context="\n".join([*intro, *note]),
        )
        tables.append(_with_columns(table))
        number += 1 + len(rows)
    return tables


def _with_columns(table: Table) -> Table:
    if all(word in table.header for word in EVIDENCE_COLUMNS):
        return replace(table, evidence=True)
    try:
        return replace(table, columns=classify(table.header))
    except ShapeError as error:
        return replace(table, problem=str(error))


def _rows(
    page: PageText, start: int, width: int, title: str
) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """The (line, cells) rows from index ``start`` up to the next blank line."""
    rows = []
    lines = page.lines
    for index in range(start, len(lines)):
        if not lines[index].strip():
            break
        cells = tuple(cell.strip() for cell in lines[index].split("\t"))
        if len(cells) != width:
            named = f"table {title!r}" if title else "the table"
            raise page.error(
                index + 1,
                f"a row of {named} (header at line {start}) has "
                f"{len(cells)} cells, but the table has {width} columns",
                "the page may be truncated or the row malformed",
            )
        rows.append((index + 1, cells))
    return tuple(rows)


def _intro(lines: list[str], before: int, title: str) -> list[str]:
    """The non-blank lines between the table's section heading (the line its title repeats)
    and index ``before``; without such a heading near, the last non-blank line before it."""
    found: list[str] = []
    for index in range(before - 1, -1, -1):
        text = lines[index].strip()
        if not text:
            continue
        if "\t" in lines[index] or len(found) == _LONGEST_INTRO:
            break
        if title and text == title:
            return found[::-1]
        found.append(text)
    return found[:1]


def _note(lines: list[str], start: int, repeated: Counter[str]) -> list[str]:
    """The paragraph right after the table, unless it is a heading or a citation line (lines
    the page repeats) or another table."""
    for index in range(start, len(lines)):
        text = lines[index].strip()
        if text:
            return [] if "\t" in lines[index] or repeated[text] > 1 else [text]
    return []


def _table_name(lines: list[str], before: int) -> str | None:
    """'Table N' when the last non-blank line before index ``before`` names 表N."""
    for index in range(before - 1, -1, -1):
        if lines[index].strip():
            found = _TABLE_NO_RE.search(lines[index])
            return f"Table {found[1]}" if found else None
    return None
