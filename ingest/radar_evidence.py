"""What an AI Benchmark Radar page says about where its numbers come from.

- the **cited documents** (``引用文档及日期（N）`` and N lines ``<title> · … · <date>``): the one
  that reports the headline table is the reporting paper;
- the **evidence block** (``来源``, ``发布者``, ``评测发布日期``, ``采集日期``, ``模态``; ``未收录``
  means not recorded);
- the optional **English evidence table** (``模型 数值 单位 协议 报告日期与口径 来源``), one row
  per headline model, which must agree with the headline table: same models, values, unit and
  reporting paper. It gives each headline result its protocol and date.
"""

from __future__ import annotations

import datetime
import re

from ingest import units
from ingest.radar_tables import Table
from ingest.records import PaperRef
from ingest.text import TRUNCATED, PageText

NOT_RECORDED = "未收录"
_PAPERS_RE = re.compile(r"^引用文档及日期（([0-9]+)）$")
_BLOCK_RE = re.compile(r"^(来源|发布者|评测发布日期|采集日期|模态)[:：]\s*(.*)$")

Evidence = dict[str, tuple[str | None, str | None]]  # headline model: (protocol, date)


def read_date(page: PageText, text: str, line: int) -> str:
    """Return ``text`` when it is an ISO calendar date; raise PageError at ``line`` if not."""
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        raise page.error(line, f"not a date: {text!r}", "dates are written YYYY-MM-DD") from None
    return text


def evidence_block(page: PageText) -> dict[str, str | None]:
    """The evidence block's fields by label (``评测发布日期``: ``2026-10-30``); ``未收录`` is None.
    Dates are checked. A page without the block gives an empty mapping."""
    fields: dict[str, str | None] = {}
    for line, text in page.filled():
        found = _BLOCK_RE.match(text)
        if not found or found[1] in fields:
            continue
        value = found[2].strip()
        if value in ("", NOT_RECORDED):
            fields[found[1]] = None
        elif found[1].endswith("日期"):
            fields[found[1]] = read_date(page, value, line)
        else:
            fields[found[1]] = value
    return fields


def reporting_paper(
    page: PageText, table: str, evidence: Table | None, released: str | None
) -> PaperRef:
    """The cited document that reports the headline ``table`` (the only one, if one).

    Without a list of cited documents, the paper the evidence table names as its source, dated
    by the evidence block's ``评测发布日期``. Raises PageError when neither names it, or when
    several cited documents could be the one.
    """
    start, count = _cited(page)
    if start is None:
        title = _evidence_source(evidence)
        if title is None:
            raise page.error(
                None,
                "no reporting paper: no '引用文档及日期（N）' list of cited documents "
                "and no evidence table naming a source",
                "the reporting paper is the document listed after '引用文档及日期（N）'",
            )
        return PaperRef(title=title, date=released)
    entries = list(page.filled(start))[:count]
    chosen = entries if count == 1 else [e for e in entries if f"({table})" in e[1]]
    if len(chosen) != 1:
        raise page.error(
            start,
            f"cannot tell which of {count} cited documents reports the headline table ({table})",
        )
    line, text = chosen[0]
    parts = [part.strip() for part in text.split(" · ")]
    if len(parts) < 2 or not parts[0]:
        raise page.error(line, f"not '<title> · … · <date>': {text!r}")
    return PaperRef(title=parts[0], date=read_date(page, parts[-1], line))


def _cited(page: PageText) -> tuple[int | None, int]:
    for number, line in enumerate(page.lines, 1):
        found = _PAPERS_RE.match(line.strip())
        if found:
            count = page.number(number, found[1], "the number of cited documents")
            if count < 1:
                raise page.error(number, "'引用文档及日期（0）': no cited document")
            return number, count
    return None, 0


def _evidence_source(evidence: Table | None) -> str | None:
    if evidence is None or "来源" not in evidence.header or not evidence.rows:
        return None
    column = evidence.header.index("来源")
    title = evidence.rows[0][1][column].split(" · ")[0].strip()
    return title or None


def check_evidence(
    page: PageText,
    evidence: Table,
    values: dict[str, tuple[int, str]],
    unit: str,
    paper: PaperRef,
) -> Evidence:
    """Protocol and date per headline model, after checking the evidence table agrees with the
    headline ``values`` (model: (line, value)), the page's ``unit`` and the reporting ``paper``.

    Raises PageError for a row of a model the headline does not have, a model twice, another
    value, unit or source, or a headline model with no row.
    """
    column = {name: evidence.header.index(name) for name in evidence.header}
    found: Evidence = {}
    for line, cells in evidence.rows:
        model, value, row_unit = (cells[column[name]] for name in ("模型", "数值", "单位"))
        if model in found:
            raise page.error(line, f"model {model!r} appears twice in the evidence table")
        if model not in values:
            raise page.error(
                line, f"evidence row for {model!r}, which is not in the headline table"
            )
        if value != values[model][1]:
            raise page.error(
                line,
                f"evidence value {value} for {model!r} "
                f"differs from the headline value {values[model][1]} "
                f"(line {values[model][0]})",
            )
        if not units.same(row_unit, unit):
            raise page.error(
                line,
                f"evidence unit {row_unit!r} for {model!r} differs from the page's unit {unit!r}",
            )
        source = cells[column["来源"]] if "来源" in column else ""
        if source and source.split(" · ")[0].strip() != paper.title:
            raise page.error(
                line, f"evidence source {source!r} is not the reporting paper {paper.title!r}"
            )
        protocol = cells[column["协议"]] if "协议" in column else ""
        dated = (
            cells[column["报告日期与口径"]].split(" · ")[0].strip()
            if ("报告日期与口径" in column)
            else ""
        )
        date = read_date(page, dated, line) if dated and dated != NOT_RECORDED else None
        found[model] = (protocol or None, date)
    missing = [model for model in values if model not in found]
    if missing:
        raise page.error(
            evidence.line,
            f"headline model {missing[0]!r} has no "
            f"row in the evidence table ({len(found)} of {len(values)} rows)",
            TRUNCATED,
        )
    return found
