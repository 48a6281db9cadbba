"""The tables of a synthetic AI Benchmark Radar page, each drawn at random.

``Draw`` holds what one page is drawn from (its randomness, reported metric, unit, headline
label and models) and collects the figures every table prints. One function per kind of table:
the headline, subsets (key columns of any kind, maybe a sample size), per-condition tables,
aggregates, a sample scored by another protocol and its breakdown. Header words, units and
interval styles are drawn from the pools below; the combinations are those the template allows
(a condition and a label of different scripts, labels that share no ending, a headline label
no other label ends in), so that every page is one a reader of the template must read.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from decimal import Decimal

from bench import catalogue as C
from bench import radar_words as W
from bench.templates import RadarFigure, RadarTable

Encoder = tuple[str, str, str, str]  # family, size, patch, suffix


@dataclass
class Draw:
    """What one page is being drawn from: its randomness, unit and tables so far."""

    rng: random.Random
    name: str
    unit: W.Unit
    metric: str  # 报告指标
    label: str  # the headline column's label
    encoders: list[Encoder]
    decimals: int
    numbers: list[int] = field(default_factory=list)  # 表N of the tables so far
    figures: list[RadarFigure] = field(default_factory=list)
    aggregates: list[RadarFigure] = field(default_factory=list)
    units: dict[str, W.Unit] = field(default_factory=dict)  # metric: unit
    labels: list[tuple[str, str]] = field(default_factory=list)

    def number(self) -> int:
        """A table number not used yet on the page."""
        while True:
            number = self.rng.randint(1, 40)
            if number not in self.numbers:
                self.numbers.append(number)
                return number

    def value(self, unit: W.Unit) -> str:
        """A number in ``unit``, printed with the page's decimals (trailing zeros kept)."""
        return f"{self.rng.uniform(unit.low, unit.high):.{self.decimals}f}"

    def interval(self, value: str) -> tuple[str, str]:
        """Bounds around ``value`` with as many decimals: the value is inside."""
        exact = Decimal(value)
        step = Decimal(1).scaleb(-self.decimals)
        lower = max(Decimal(0), exact - step * self.rng.randint(0, 40))
        return str(lower), str(exact + step * self.rng.randint(0, 40))

    def metric_of(self, label: str) -> str:
        """The metric a column label names: the reported one for the headline's label."""
        return self.metric if label == self.label else label

    def unit_of(self, label: str) -> W.Unit:
        """The unit of a metric: the page's, or, for some other metrics, another one."""
        metric = self.metric_of(label)
        if metric not in self.units:
            other = metric != self.metric and self.rng.random() < 0.2
            self.units[metric] = self.rng.choice(W.UNITS) if other else self.unit
        return self.units[metric]


def full(encoder: Encoder) -> str:
    """A model's full name, as the headline prints it."""
    family, size, patch, suffix = encoder
    return f"{family} {size}/{patch}{suffix}"


def _interval_style(rng: random.Random) -> tuple[str, str, str] | None:
    """("column", label, level), ("cell", marker, level), or None for no intervals."""
    style = rng.random()
    if style < 0.35:
        return ("column", *rng.choice(W.INTERVAL_COLUMNS))
    if style < 0.7:
        return ("cell", *rng.choice(W.INTERVAL_CELLS))
    return None


def headline(page: Draw, evidence: bool, protocol: str, dated: str | None) -> RadarTable:
    rng, number = page.rng, page.number()
    style = _interval_style(rng)
    column = page.label + rng.choice(page.unit.headers)
    header = [rng.choice(W.MODEL_HEADERS), column]
    if style and style[0] == "cell":
        header[1] += style[1]
    elif style:
        header.append(style[1])
    rows = []
    for encoder in page.encoders:
        model, value = full(encoder), page.value(page.unit)
        lower, upper = page.interval(value)
        cells = [model, value]
        if style and style[0] == "cell":
            cells[1] = f"{value} [{lower},{upper}]"
        elif style:
            cells.append(f"[{lower},{upper}]")
        rows.append(tuple(cells))
        page.figures.append(
            RadarFigure(
                table=f"Table {number}",
                method=model,
                metric=page.metric,
                value=value,
                unit=page.unit.iri,
                interval=(lower, upper, style[2]) if style else None,
                protocol=protocol if evidence else None,
                headline=True,
                date=dated,
            )
        )
    page.labels.append((page.metric, page.label))
    cue = rng.choice(W.STRONG) if rng.random() < 0.8 else W.WEAK
    return RadarTable(
        title=f"完整评测：{len(rows)}个模型",
        intro=f"表{number}报告完整评测的{page.label}；{cue}",
        header=tuple(header),
        rows=tuple(rows),
        note=rng.choice(("每个模型在全部题目上各评测一次。", None)),
    )


def _abbreviate(encoder: Encoder, headline: list[Encoder], rng: random.Random) -> str:
    """The name a subset table uses for a headline model: its full name, the name without
    parentheses, or a prefix of exactly this one headline name (never an ambiguous one)."""
    family, size, patch, suffix = encoder
    names = [f"{family} {size}/{patch}{suffix}"]
    if suffix.startswith(" ("):
        names.append(f"{family} {size}/{patch} {suffix[2:-1]}")
    if suffix and sum(1 for e in headline if e[:3] == encoder[:3]) == 1:
        names.append(f"{family} {size}/{patch}")
    if sum(1 for e in headline if e[:2] == (family, size)) == 1:
        names.append(f"{family} {size}")
    return rng.choice(names)


def _other_label(page: Draw) -> str:
    """The headline's label, or another metric's that does not end in it."""
    if page.rng.random() < 0.5:
        return page.label
    return page.rng.choice([x for x in W.OTHER_LABELS if not x.endswith(page.label)])


def _chinese(text: str) -> bool:
    return "\u3400" <= text[0] <= "\u9fff"


def _value_column(page: Draw, text: str, unit: W.Unit, style: tuple[str, str, str] | None) -> str:
    """A value column's header: ``text`` (its label, maybe after a condition) and ``unit``."""
    header = text + page.rng.choice(unit.headers)
    return header + style[1] if style and style[0] == "cell" else header


def _cells(
    page: Draw, unit: W.Unit, style: tuple[str, str, str] | None
) -> tuple[list[str], str, tuple[str, str, str] | None]:
    """The cells of one value (with its interval) and what a reader finds in them."""
    value = page.value(unit)
    if style is None:
        return [value], value, None
    lower, upper = page.interval(value)
    if style[0] == "cell":
        return [f"{value} [{lower},{upper}]"], value, (lower, upper, style[2])
    return [value, f"[{lower},{upper}]"], value, (lower, upper, style[2])


def _subset(parts: list[str | None]) -> str | None:
    found = [part for part in parts if part]
    return ", ".join(found) if found else None


def _key(header: str, cell: str) -> str:
    """How a key cell reads in a subset: a bare number keeps its header (``并发数 8``)."""
    return f"{header} {cell}" if cell.isdigit() else cell


def subsets(page: Draw) -> RadarTable:
    """A table of headline models per subset: one or two key columns, maybe a sample size."""
    rng, number = page.rng, page.number()
    kinds = rng.sample(W.KEYS, rng.choice((1, 1, 2)))
    values = [rng.sample(list(cells), min(len(cells), rng.randint(1, 3))) for _, cells in kinds]
    members = rng.sample(page.encoders, rng.randint(1, min(4, len(page.encoders))))
    label, style = _other_label(page), _interval_style(rng)
    unit, sized = page.unit_of(label), rng.random() < 0.6
    header = [rng.choice(W.MODEL_HEADERS), *(k for k, _ in kinds)]
    header += [rng.choice(W.SAMPLE_HEADERS)] if sized else []
    header.append(_value_column(page, label, unit, style))
    header += [style[1]] if style and style[0] == "column" else []
    rows = []
    combos: list[list[str]] = [[]]
    for cells in values:
        combos = [[*combo, cell] for combo in combos for cell in cells]
    for combo in combos:
        n = rng.randint(30, 2400)
        for encoder in members:
            printed, value, interval = _cells(page, unit, style)
            size = [f"{n:,}" if n >= 1000 and rng.random() < 0.5 else str(n)] if sized else []
            rows.append((_abbreviate(encoder, page.encoders, rng), *combo, *size, *printed))
            keys = [_key(kind, cell) for (kind, _), cell in zip(kinds, combo, strict=True)]
            page.figures.append(
                RadarFigure(
                    table=f"Table {number}",
                    method=full(encoder),
                    metric=page.metric_of(label),
                    value=value,
                    unit=unit.iri,
                    interval=interval,
                    sample_size=n if sized else None,
                    subset=_subset(keys),
                )
            )
    page.labels.append((page.metric_of(label), label))
    kind = "与".join(k for k, _ in kinds)
    return RadarTable(
        title=f"按{kind}划分",
        intro=f"表{number}按{kind}拆开成绩，每行只覆盖一个子集。",
        header=tuple(header),
        rows=tuple(rows),
        note=rng.choice(W.NOT_HEADLINE),
    )


def _conditions_for(label: str, rng: random.Random) -> tuple[str, ...]:
    pools = W.LATIN_CONDITIONS if _chinese(label) else W.CHINESE_CONDITIONS
    return rng.choice(pools)


def conditions(page: Draw) -> RadarTable:
    """A table of headline models with one value column per condition."""
    rng, number = page.rng, page.number()
    label = _other_label(page)
    conditions, unit = _conditions_for(label, rng), page.unit_of(label)
    columns = [_value_column(page, f"{c}{label}", unit, None) for c in conditions]
    members = rng.sample(page.encoders, rng.randint(1, len(page.encoders)))
    rows = []
    for encoder in members:
        cells = [page.value(unit) for _ in conditions]
        rows.append((_abbreviate(encoder, page.encoders, rng), *cells))
        for condition, value in zip(conditions, cells, strict=True):
            page.figures.append(
                RadarFigure(
                    table=f"Table {number}",
                    method=full(encoder),
                    metric=page.metric_of(label),
                    value=value,
                    unit=unit.iri,
                    subset=condition,
                )
            )
    page.labels.append((page.metric_of(label), label))
    return RadarTable(
        title="分条件成绩",
        intro=f"表{number}在{len(conditions)}种条件下重复评测同一批模型。",
        header=(rng.choice(W.MODEL_HEADERS), *columns),
        rows=tuple(rows),
        note=rng.choice(W.NOT_HEADLINE),
    )


def aggregate(page: Draw) -> RadarTable:
    """Means over the models, per subset (and maybe per condition): no model's score."""
    rng, number = page.rng, page.number()
    kind, cells = rng.choice(W.KEYS)
    label = _other_label(page)
    unit = page.unit_of(label)
    conditions: tuple[str | None, ...] = (None,)
    style = None
    if rng.random() < 0.5:
        conditions = _conditions_for(label, rng)
    else:
        style = _interval_style(rng)
    sized = rng.random() < 0.6
    header = [kind, *(["每档n"] if sized else [])]
    header += [_value_column(page, f"{c or ''}{label}", unit, style) for c in conditions]
    header += [style[1]] if style and style[0] == "column" else []
    rows = []
    for cell in rng.sample(list(cells), min(len(cells), rng.randint(1, 4))):
        n = rng.randint(20, 900)
        row = [cell, *([str(n)] if sized else [])]
        for condition in conditions:
            printed, value, interval = _cells(page, unit, style)
            row += printed
            page.aggregates.append(
                RadarFigure(
                    table=f"Table {number}",
                    method=None,
                    metric=page.metric_of(label),
                    value=value,
                    unit=unit.iri,
                    interval=interval,
                    sample_size=n if sized else None,
                    subset=_subset([_key(kind, cell), condition]),
                )
            )
        rows.append(tuple(row))
    page.labels.append((page.metric_of(label), label))
    return RadarTable(
        title=f"各{kind}的模型平均",
        intro=f"表{number}把参评模型的成绩按{kind}取平均；这些平均值不是任何单个模型的成绩。",
        header=tuple(header),
        rows=tuple(rows),
    )


def sample(page: Draw) -> tuple[RadarTable, dict[str, str], str, list[str]]:
    """A small sample scored by another protocol, named on each row."""
    rng, number = page.rng, page.number()
    size = rng.choice((60, 100, 200, 300))
    stratified = rng.random() < 0.5
    labels = [page.label] if rng.random() < 0.5 else []
    labels += rng.sample(
        [x for x in W.OTHER_LABELS if not x.endswith(page.label)], rng.randint(1, 2)
    )
    own_n = rng.random() < 0.3
    header = [rng.choice(W.MODEL_HEADERS), rng.choice(W.PROTOCOL_HEADERS)]
    header += [rng.choice(W.SAMPLE_HEADERS)] if own_n else []
    header += [_value_column(page, label, page.unit_of(label), None) for label in labels]
    sample = f"{size}-example {'stratified ' if stratified else ''}sample"
    protocols: dict[str, str] = {}
    rows = []
    for model, _ in rng.sample(C.GENERATIVE_MODELS, rng.randint(2, 4)):
        protocol = rng.choice(W.PROTOCOLS)
        protocols[model] = protocol
        n = rng.randint(10, size) if own_n else size
        cells = [page.value(page.unit_of(label)) for label in labels]
        rows.append((model, protocol, *([str(n)] if own_n else []), *cells))
        for label, value in zip(labels, cells, strict=True):
            page.figures.append(
                RadarFigure(
                    table=f"Table {number}",
                    method=model,
                    metric=page.metric_of(label),
                    value=value,
                    unit=page.unit_of(label).iri,
                    sample_size=n,
                    subset=sample,
                    protocol=protocol,
                )
            )
    page.labels += [(page.metric_of(label), label) for label in labels]
    how = "分层抽取" if stratified else "抽取"
    table = RadarTable(
        title=f"{size}例另一评分方式的小样本",
        intro=f"表{number}从题库中{how}{size}例，采用与主评测不同的评分方式，逐行注明。",
        header=tuple(header),
        rows=tuple(rows),
        note="小样本的成绩不能与完整评测直接比较。",
    )
    return table, protocols, sample, labels


def breakdown(page: Draw, protocols: dict[str, str], sample: str, labels: list[str]) -> RadarTable:
    """The sample's models again, one column per condition: the page says it breaks down the
    sample (小样本), so its rows keep the sample's protocols."""
    rng, number = page.rng, page.number()
    label = rng.choice(labels)
    conditions, unit = _conditions_for(label, rng), page.unit_of(label)
    members = rng.sample(sorted(protocols), rng.randint(1, len(protocols)))
    rows = []
    for model in members:
        cells = [page.value(unit) for _ in conditions]
        rows.append((model, *cells))
        for condition, value in zip(conditions, cells, strict=True):
            page.figures.append(
                RadarFigure(
                    table=f"Table {number}",
                    method=model,
                    metric=page.metric_of(label),
                    value=value,
                    unit=unit.iri,
                    subset=f"{sample}, {condition}",
                    protocol=protocols[model],
                )
            )
    page.labels.append((page.metric_of(label), label))
    return RadarTable(
        title="小样本分条件成绩",
        intro=f"表{number}把同一小样本按条件拆开。",
        header=(
            rng.choice(W.MODEL_HEADERS),
            *(_value_column(page, c + label, unit, None) for c in conditions),
        ),
        rows=tuple(rows),
    )
