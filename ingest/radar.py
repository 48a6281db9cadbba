"""Parser for "AI Benchmark Radar" pages: plain text, Chinese prose, tab-separated tables.

A page covers one benchmark and one reporting paper. Its tables are recognised by their header
rows, never by position:

- headline: one overall score per model with a 95% interval (the page's declared series);
- subset: per model and edit type, with the pooled sample size;
- aggregate: means over models per edit type and caption length (not any model's score);
- generative: a small sample scored by a different protocol (I2T, T2I and Group);
- by caption length: the generative sample split by caption length;
- evidence: model, value, unit, protocol, date and source, which must agree with the headline.

Short model names in the secondary tables are mapped to the headline (or generative) names with
``names.reconcile``. Anything the parser cannot account for raises ``PageError``.
"""

from __future__ import annotations

import datetime
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal

from ingest.names import AmbiguousName, normalise, reconcile
from ingest.records import (
    AggregateRecord,
    Benchmark,
    Configuration,
    Direction,
    Interval,
    MetricDecl,
    Page,
    PageError,
    PaperRef,
    ResultRecord,
    SourceFormat,
)

FORMAT: SourceFormat = "radar"

GROUP = "Group accuracy"
I2T = "I2T accuracy"
T2I = "T2I accuracy"
LENGTHS = ("short", "medium", "long")

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

_SUFFIX = "· AI Benchmark Radar"
_DIRECTIONS: dict[str, Direction] = {"数值越高越好": "higher", "数值越低越好": "lower"}
_DECIMAL = r"-?[0-9]+(?:\.[0-9]+)?"
_DECIMAL_RE = re.compile(rf"^{_DECIMAL}$")
_INTERVAL_RE = re.compile(rf"^\[\s*({_DECIMAL})\s*,\s*({_DECIMAL})\s*\]$")
_COUNT_RE = re.compile(r"^(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)$")
_DATE = r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
_PUBLISHER_RE = re.compile(rf"^(.+?) · 核对于 ({_DATE})$")
_METRIC_RE = re.compile(r"^报告指标[:：]\s*(.*)$")
_UNIT_RE = re.compile(r"^原始单位[:：]\s*(.*)$")
_DIRECTION_RE = re.compile(r"^指标方向[:：]\s*(.*)$")
_CHANCE_RE = re.compile(rf"机会水平是\s*({_DECIMAL})\s*%")
_FREEZE_RE = re.compile(r"数据冻结标识\s*([0-9A-Za-z]+)")
_COUNT_LINE_RE = re.compile(r"这条来源记录收录了\s*([0-9]+)\s*条数值成绩")
_REPORTED_RE = re.compile(r"^报告成绩\s*([0-9]+)$")
_PAPERS_RE = re.compile(r"^引用文档及日期（([0-9]+)）$")
_TABLE_NO_RE = re.compile(r"表\s*([0-9]+)")
_SAMPLE_RE = re.compile(r"([0-9]+)\s*例")


@dataclass(frozen=True)
class _Table:
    kind: str
    name: str  # "Table 8" from the paragraph before it, else its title
    title: str
    line: int  # line of the header row
    rows: tuple[tuple[int, tuple[str, ...]], ...]  # (line, cells)


@dataclass
class _Builder:
    """Collects records for one page and keeps their source IDs unique."""

    origin: str
    benchmark: str
    paper: PaperRef
    results: list[ResultRecord] = field(default_factory=list)
    aggregates: list[AggregateRecord] = field(default_factory=list)
    _ids: set[str] = field(default_factory=set)

    def key(self, table: str, who: str, metric: str, subset: str | None, line: int) -> str:
        parts = [self.benchmark, table, who, metric, *([subset] if subset else [])]
        key = "/".join(normalise(part) for part in parts)
        if key in self._ids:
            raise _error(
                self.origin,
                line,
                f"duplicate row: {key} appears twice",
                "each model, metric and subset may appear once per table",
            )
        self._ids.add(key)
        return key

    def result(
        self,
        table: _Table,
        line: int,
        method: str,
        metric: str,
        value: str,
        *,
        configuration: Configuration | None = None,
        interval: Interval | None = None,
        sample_size: int | None = None,
        result_date: str | None = None,
        headline: bool = False,
    ) -> None:
        config = configuration or Configuration()
        self.results.append(
            ResultRecord(
                source_id=self.key(table.name, method, metric, config.subset, line),
                method=method,
                metric=metric,
                value=value,
                reported_in=self.paper,
                result_date=result_date,
                configuration=config,
                interval=interval,
                sample_size=sample_size,
                table=table.name,
                headline=headline,
                line=line,
            )
        )


def sniff(text: str) -> bool:
    """Return True when ``text`` looks like an AI Benchmark Radar page (by content only)."""
    lines = _split(text)
    return lines[0].strip().endswith(_SUFFIX) and any(
        _METRIC_RE.match(line.strip()) for line in lines
    )


def parse(data: bytes, origin: str) -> Page:
    """Parse the bytes of one radar page read from ``origin`` into a ``Page``.

    Raises PageError (naming ``origin``, the line, the problem and a hint) for text that is
    not UTF-8, a page that is not a radar page or is truncated, unknown or malformed tables,
    values that are not decimals, model names that cannot be reconciled, and counts or
    evidence that disagree with the headline table.
    """
    lines = _decode(data, origin)
    title, name = _title(lines, origin)
    publisher, checked = _publisher(lines, origin)
    metric, unit, direction = _declared_metric(lines, origin)
    declared = _declared_count(lines, origin)
    tables = _tables(lines, origin)
    paper = _reporting_paper(lines, origin, _required(tables, "headline", origin).name)
    build = _Builder(origin, name, paper)
    _read_tables(build, tables, metric, unit, declared)
    chance = _first(_CHANCE_RE, lines)
    freeze = _first(_FREEZE_RE, lines)
    return Page(
        format=FORMAT,
        origin=origin,
        key="radar/" + normalise(name),
        title=title,
        url=None,
        data_updated=checked,
        benchmark=Benchmark(task=name, dataset=name, split=None),
        metrics=_metrics(build, metric, unit, direction, chance[1] if chance else None),
        primary_metric=metric,
        declared_count=declared,
        results=tuple(sorted(build.results, key=lambda result: result.line)),
        publisher=publisher,
        checked_on=checked,
        data_freeze=freeze[1] if freeze else None,
        reporting_paper=paper,
        aggregates=tuple(build.aggregates),
        sha256=hashlib.sha256(data).hexdigest(),
    )


def _read_tables(
    build: _Builder, tables: dict[str, _Table], metric: str, unit: str, declared: int
) -> None:
    """Check the headline table against the count and the evidence, then read every table."""
    origin, headline = build.origin, tables["headline"]
    if len(headline.rows) != declared:
        raise _error(
            origin,
            headline.line,
            f"the page declares {declared} results but its headline table has "
            f"{len(headline.rows)} rows",
            "the page may be truncated or edited",
        )
    values = _headline_values(headline, origin)
    evidence = _required(tables, "evidence", origin)
    agreed = _check_evidence(evidence, values, unit, build.paper, origin)
    _headline(build, headline, metric, agreed)
    known = list(values)
    generative = tables.get("generative")
    protocols = _generative(build, generative, known) if generative else {}
    known += [model for model in protocols if model not in known]
    if "subset" in tables:
        _subset(build, tables["subset"], known)
    if "aggregate" in tables:
        _aggregate(build, tables["aggregate"])
    if "by-length" in tables:
        if not generative:
            raise _error(
                origin,
                tables["by-length"].line,
                "a caption-length table without the generative sample table",
                "its rows break down the generative sample",
            )
        _by_length(build, tables["by-length"], generative, known, protocols)


# --- page lines and fixed labels -----------------------------------------------------------


def _error(origin: str, line: int | None, problem: str, hint: str = "") -> PageError:
    return PageError(origin, f"line {line}" if line else "", problem, hint)


def _decode(data: bytes, origin: str) -> list[str]:
    """Lines of the UTF-8 ``data`` without a BOM, accepting CRLF; index 0 is line 1."""
    try:
        return _split(data.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise PageError(
            origin, f"byte {err.start}", "not UTF-8 text", "radar pages are UTF-8 plain text"
        ) from None


def _split(text: str) -> list[str]:
    return text.removeprefix("\ufeff").replace("\r\n", "\n").split("\n")


def _title(lines: list[str], origin: str) -> tuple[str, str]:
    """The page title and the benchmark name before its ' — '."""
    title = lines[0].strip()
    name = title.split(" — ", 1)[0].strip()
    if not title.endswith(_SUFFIX) or " — " not in title or not name:
        raise _error(
            origin,
            1,
            f"not an AI Benchmark Radar title: {title[:80]!r}",
            f"the first line reads '<benchmark> — <source> {_SUFFIX}'",
        )
    return title, name


def _first(pattern: re.Pattern[str], lines: Iterable[str]) -> tuple[int, str] | None:
    """The 1-based line number and first group of the first line ``pattern`` finds."""
    for number, line in enumerate(lines, 1):
        found = pattern.search(line.strip())
        if found:
            return number, found[1]
    return None


def _date(text: str, origin: str, line: int) -> str:
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        raise _error(
            origin, line, f"not a date: {text!r}", "dates are written YYYY-MM-DD"
        ) from None
    return text


def _publisher(lines: list[str], origin: str) -> tuple[str, str]:
    """The publisher and the checked date from the second non-blank line."""
    numbered = [(n, line.strip()) for n, line in enumerate(lines, 1) if line.strip()]
    line, text = numbered[1] if len(numbered) > 1 else (2, "")
    found = _PUBLISHER_RE.match(text)
    if not found:
        raise _error(
            origin,
            line,
            "no '<publisher> · 核对于 YYYY-MM-DD' line",
            "the second line names the publisher and the date the page was checked",
        )
    return found[1], _date(found[2], origin, line)


def _declared_metric(lines: list[str], origin: str) -> tuple[str, str, Direction]:
    values = []
    for pattern, label in (
        (_METRIC_RE, "报告指标"),
        (_UNIT_RE, "原始单位"),
        (_DIRECTION_RE, "指标方向"),
    ):
        found = _first(pattern, lines)
        if not found or not found[1].strip():
            raise _error(
                origin,
                None,
                f"no '{label}:' line",
                "the page may be truncated: it ends before the metric declaration",
            )
        values.append(found)
    (_, metric), (_, unit), (line, direction) = values
    if direction.strip() not in _DIRECTIONS:
        raise _error(
            origin,
            line,
            f"unknown metric direction {direction!r}",
            f"expected one of {', '.join(_DIRECTIONS)}",
        )
    return metric.strip(), unit.strip(), _DIRECTIONS[direction.strip()]


def _declared_count(lines: list[str], origin: str) -> int:
    found = _first(_COUNT_LINE_RE, lines)
    if not found:
        raise _error(
            origin,
            None,
            "no '这条来源记录收录了 N 条数值成绩' line",
            "the page may be truncated: it ends before its result count",
        )
    declared = int(found[1])
    reported = _first(_REPORTED_RE, lines)
    if reported and int(reported[1]) != declared:
        raise _error(
            origin,
            reported[0],
            f"'报告成绩 {reported[1]}' disagrees with the declared count {declared}",
        )
    return declared


def _reporting_paper(lines: list[str], origin: str, table: str) -> PaperRef:
    found = _first(_PAPERS_RE, lines)
    if not found or int(found[1]) < 1:
        raise _error(
            origin,
            None,
            "no '引用文档及日期（N）' list of cited documents",
            "the reporting paper is the document listed after it",
        )
    start, count = found[0], int(found[1])
    entries = [
        (n, line.strip()) for n, line in enumerate(lines[start:], start + 1) if line.strip()
    ][:count]
    chosen = entries if count == 1 else [e for e in entries if f"({table})" in e[1]]
    if len(chosen) != 1:
        raise _error(
            origin,
            start,
            f"cannot tell which of {count} cited documents reports the headline table ({table})",
        )
    line, text = chosen[0]
    parts = [part.strip() for part in text.split(" · ")]
    if len(parts) < 2 or not parts[0]:
        raise _error(origin, line, f"not '<title> · … · <date>': {text!r}")
    return PaperRef(title=parts[0], date=_date(parts[-1], origin, line))


# --- tables --------------------------------------------------------------------------------


def _tables(lines: list[str], origin: str) -> dict[str, _Table]:
    """Every tab-separated block of the page, by kind; unknown or repeated kinds are refused."""
    tables: dict[str, _Table] = {}
    number = 0
    while number < len(lines):
        if "\t" not in lines[number]:
            number += 1
            continue
        header = tuple(cell.strip() for cell in lines[number].split("\t"))
        kind = _KINDS.get(header)
        if kind is None:
            raise _error(
                origin,
                number + 1,
                f"unknown table header {header}",
                "the parser knows the headline, subset, aggregate, generative, "
                "caption-length and evidence tables",
            )
        if kind in tables:
            raise _error(
                origin,
                number + 1,
                f"a second {kind} table",
                f"the first starts at line {tables[kind].line}",
            )
        rows = _rows(lines, number + 1, len(header), kind, origin)
        title = lines[number - 1].strip() if number else ""
        name = _table_name(lines, number - 1 if title else number) or title or kind
        tables[kind] = _Table(kind, name, title, number + 1, rows)
        number += 1 + len(rows)
    return tables


def _rows(
    lines: list[str], start: int, width: int, kind: str, origin: str
) -> tuple[tuple[int, tuple[str, ...]], ...]:
    """The (line, cells) rows from index ``start`` up to the next blank line."""
    rows = []
    for number, line in enumerate(lines[start:], start + 1):
        if not line.strip():
            break
        cells = tuple(cell.strip() for cell in line.split("\t"))
        if len(cells) != width:
            raise _error(
                origin,
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


def _required(tables: dict[str, _Table], kind: str, origin: str) -> _Table:
    if kind not in tables:
        header = next(h for h, k in _KINDS.items() if k == kind)
        raise _error(
            origin,
            None,
            f"no {kind} table (header {' | '.join(header)})",
            "the page may be truncated",
        )
    return tables[kind]


def _decimal(cell: str, origin: str, line: int) -> str:
    if not _DECIMAL_RE.match(cell):
        raise _error(
            origin,
            line,
            f"not a decimal number: {cell!r}",
            "values are published as plain decimals such as 13.5",
        )
    return cell


def _interval(cell: str, origin: str, line: int) -> Interval:
    found = _INTERVAL_RE.match(cell)
    if not found:
        raise _error(origin, line, f"not an interval '[lower,upper]': {cell!r}")
    if Decimal(found[1]) > Decimal(found[2]):
        raise _error(origin, line, f"interval {cell} has lower > upper")
    return Interval(lower=found[1], upper=found[2], level="0.95", text=cell)


def _count(cell: str, origin: str, line: int) -> int:
    count = int(cell.replace(",", "")) if _COUNT_RE.match(cell) else 0
    if count <= 0:
        raise _error(origin, line, f"not a positive sample size: {cell!r}")
    return count


def _canonical(
    name: str, known: list[str], origin: str, line: int, kind: str, new: bool = False
) -> str:
    """The known model that ``name`` stands for; ``name`` itself if none and ``new``.

    Raises PageError when ``name`` fits several known models, or none and not ``new``.
    """
    try:
        found = reconcile(name, known)
    except AmbiguousName as err:
        raise _error(
            origin,
            line,
            f"model {name!r} in the {kind} table is "
            f"ambiguous: it could be any of {', '.join(err.candidates)}",
            "the row must name one model of the full evaluation",
        ) from None
    if found is None and new and name:
        return name
    if found is None:
        raise _error(
            origin,
            line,
            f"model {name!r} in the {kind} table matches no "
            "model of the full evaluation or the generative sample",
            "a model outside the full evaluation is suspicious here",
        )
    return found


# --- one function per table kind -----------------------------------------------------------


def _headline_values(table: _Table, origin: str) -> dict[str, tuple[int, str]]:
    """Line and value text per headline model, checking names are present and distinct."""
    values: dict[str, tuple[int, str]] = {}
    for line, (model, value, _) in table.rows:
        if not model or model in values:
            raise _error(
                origin, line, f"empty or repeated model name {model!r} in the headline table"
            )
        values[model] = (line, _decimal(value, origin, line))
    return values


def _check_evidence(
    evidence: _Table, values: dict[str, tuple[int, str]], unit: str, paper: PaperRef, origin: str
) -> dict[str, tuple[str, str]]:
    """Protocol and date per headline model, after checking the evidence table agrees."""
    found: dict[str, tuple[str, str]] = {}
    for line, (model, value, row_unit, protocol, dated, source) in evidence.rows:
        if model in found:
            raise _error(origin, line, f"model {model!r} appears twice in the evidence table")
        if model not in values:
            raise _error(
                origin, line, f"evidence row for {model!r}, which is not in the headline table"
            )
        if value != values[model][1]:
            raise _error(
                origin,
                line,
                f"evidence value {value} for {model!r} "
                f"differs from the headline value {values[model][1]} "
                f"(line {values[model][0]})",
            )
        if row_unit != unit:
            raise _error(
                origin,
                line,
                f"evidence unit {row_unit!r} for {model!r} differs from the page's unit {unit!r}",
            )
        if source.split(" · ")[0].strip() != paper.title:
            raise _error(
                origin,
                line,
                f"evidence source {source!r} is not the reporting paper {paper.title!r}",
            )
        found[model] = (protocol, _date(dated.split(" · ")[0].strip(), origin, line))
    missing = [model for model in values if model not in found]
    if missing:
        raise _error(
            origin,
            evidence.line,
            f"headline model {missing[0]!r} has no "
            f"row in the evidence table ({len(found)} of {len(values)} rows)",
            "the page may be truncated",
        )
    return found


def _headline(
    build: _Builder, table: _Table, metric: str, evidence: dict[str, tuple[str, str]]
) -> None:
    for line, (model, value, interval) in table.rows:
        protocol, date = evidence[model]
        build.result(
            table,
            line,
            model,
            metric,
            value,
            interval=_interval(interval, build.origin, line),
            result_date=date,
            configuration=Configuration(protocol=protocol),
            headline=True,
        )


def _subset(build: _Builder, table: _Table, known: list[str]) -> None:
    origin = build.origin
    for line, (model, edit, n, cell) in table.rows:
        if not edit:
            raise _error(origin, line, "no edit type in a subset row")
        value, bracket, bounds = cell.partition("[")
        if not bracket:
            raise _error(
                origin,
                line,
                f"no interval in {cell!r}",
                "subset cells read '<value> [lower,upper]'",
            )
        build.result(
            table,
            line,
            _canonical(model, known, origin, line, "subset"),
            GROUP,
            _decimal(value.strip(), origin, line),
            interval=_interval(bracket + bounds, origin, line),
            sample_size=_count(n, origin, line),
            configuration=Configuration(subset=edit),
            headline=False,
        )


def _aggregate(build: _Builder, table: _Table) -> None:
    origin = build.origin
    for line, (edit, n, *values) in table.rows:
        size = _count(n, origin, line)
        for length, value in zip(LENGTHS, values, strict=True):
            subset = f"{edit}, {length} captions"
            build.aggregates.append(
                AggregateRecord(
                    source_id=build.key(table.name, "aggregate", GROUP, subset, line),
                    metric=GROUP,
                    value=_decimal(value, origin, line),
                    subset=subset,
                    sample_size=size,
                    table=table.name,
                    line=line,
                    description=f"Mean {GROUP} over the models of {table.name} for {edit} edits "
                    f"with {length} captions; not any single model's score.",
                )
            )


def _sample(table: _Table, origin: str) -> tuple[str, int]:
    found = _SAMPLE_RE.search(table.title)
    if not found:
        raise _error(
            origin,
            table.line - 1,
            f"the generative table's title gives no sample size ('N例'): {table.title!r}",
        )
    return f"{found[1]}-example stratified sample", int(found[1])


def _generative(build: _Builder, table: _Table, headline: list[str]) -> dict[str, str]:
    """Add the generative sample's results; return each canonical model's scoring protocol."""
    origin = build.origin
    subset, size = _sample(table, origin)
    protocols: dict[str, str] = {}
    for line, (model, protocol, i2t, t2i, group) in table.rows:
        method = _canonical(model, headline, origin, line, "generative", new=True)
        if not protocol:
            raise _error(origin, line, f"no scoring protocol for {model!r}")
        protocols[method] = protocol
        config = Configuration(protocol=protocol, subset=subset)
        for metric, value in ((I2T, i2t), (T2I, t2i), (GROUP, group)):
            build.result(
                table,
                line,
                method,
                metric,
                _decimal(value, origin, line),
                configuration=config,
                sample_size=size,
                headline=False,
            )
    return protocols


def _by_length(
    build: _Builder, table: _Table, generative: _Table, known: list[str], protocols: dict[str, str]
) -> None:
    origin = build.origin
    sample, _ = _sample(generative, origin)
    for line, (model, *values) in table.rows:
        method = _canonical(model, known, origin, line, "caption-length")
        if method not in protocols:
            raise _error(
                origin,
                line,
                f"{method!r} has no row in the generative sample table",
                "this table breaks down that sample",
            )
        for length, value in zip(LENGTHS, values, strict=True):
            config = Configuration(
                protocol=protocols[method], subset=f"{sample}, {length} captions"
            )
            build.result(
                table,
                line,
                method,
                GROUP,
                _decimal(value, origin, line),
                configuration=config,
                headline=False,
            )


def _metrics(
    build: _Builder, primary: str, unit: str, direction: Direction, chance: str | None
) -> tuple[MetricDecl, ...]:
    """The declared metric, then the table metrics the page's records use."""
    used = {r.metric for r in build.results} | {a.metric for a in build.aggregates}
    names = [primary] + [m for m in (GROUP, I2T, T2I) if m in used and m != primary]
    return tuple(
        MetricDecl(
            name=name,
            unit=unit,
            direction=direction,
            chance_level=chance if name in (primary, GROUP) else None,
        )
        for name in names
    )
