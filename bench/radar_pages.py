"""Synthetic AI Benchmark Radar pages: one benchmark, one paper, table layouts drawn at random.

Every page follows the template the parser reads; what varies is drawn: the reported metric and
its unit (percent, milliseconds, seconds, tokens per second, points, counts, or a unit QUDT has
none for), its direction, the header words of every column (the unit in ``（…）``, ``%`` or
``百分数``), the interval style (a column under one of several labels, in the cells, or none, at
95 % or 90 %), subset tables with key columns of any kind and sample sizes, per-condition tables,
aggregates, a sample scored by another protocol and its breakdown, where the headline table
stands, which words say it is the headline, and whether the evidence table, the evidence block
and the list of cited documents are printed. Each printed number is recorded as a RadarFigure:
what a reader must find in the graph.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from bench import catalogue as C
from bench import radar_tables as T
from bench import radar_words as W
from bench.pools import draw, zipf
from bench.radar_tables import Encoder
from bench.templates import RadarPage, RadarTable


class RadarModels:
    """The dual-encoder models Radar pages rank, in a seeded order of popularity."""

    def __init__(self, seed: int) -> None:
        self._encoders: list[Encoder] = [
            (family, *size) for family in C.ENCODER_FAMILIES for size in C.ENCODER_SIZES
        ]
        random.Random(f"{seed}/encoders").shuffle(self._encoders)
        self._weights = zipf(len(self._encoders), 0.9)

    def pick(self, rng: random.Random, count: int) -> list[Encoder]:
        """``count`` distinct models, popular ones more often."""
        picked: list[Encoder] = []
        while len(picked) < count:
            encoder = self._encoders[draw(rng, self._weights)]
            if encoder not in picked:
                picked.append(encoder)
        return picked


def radar_page(rng: random.Random, name: str, models: RadarModels) -> RadarPage:
    """A Radar page for benchmark ``name``, drawn from ``rng``."""
    unit = rng.choice(W.UNITS)
    label = rng.choice(unit.labels)
    page = T.Draw(
        rng=rng,
        name=name,
        unit=unit,
        metric=rng.choice(("Overall score", "Overall accuracy", "Main result")) + f" ({label})",
        label=label,
        encoders=models.pick(rng, rng.randint(3, 8)),
        decimals=rng.choice((1, 1, 1, 2, 0)),
    )
    page.units[page.metric] = unit
    checked = date(2026, 1, 1) + timedelta(days=rng.randrange(300))
    published = (checked - timedelta(days=rng.randint(1, 30))).isoformat()
    evidence = rng.random() < 0.8
    block = rng.random() < 0.7
    released = published if block and rng.random() < 0.8 else None
    protocol = f"Paper v1; full {name} release; one run per model; {unit.source}."
    headline = T.headline(page, evidence, protocol, published if evidence else released)
    tables = _tables(rng, page, headline)
    full = [T.full(e) for e in page.encoders]
    values = {f.method: f.value for f in page.figures if f.headline}
    chance = None
    if rng.random() < 0.3:
        chance = (f"如何理解{label}", f"随机作答的机会水平是{rng.choice(('25', '16.67', '50'))}%。")
    return RadarPage(
        name=name,
        source=rng.choice(W.SOURCES),
        checked=checked.isoformat(),
        published=published,
        freeze=f"{rng.getrandbits(28):07x}",
        metric=page.metric,
        unit=unit.source,
        higher=rng.random() < 0.7,
        tables=tuple(tables),
        headline_table=next(f.table for f in page.figures if f.headline),
        headline_count=len(full),
        evidence=tuple(
            (m, values[m], unit.evidence, protocol, f"{published} · document_publication")
            for m in sorted(full)
        )
        if evidence
        else None,
        block=block,
        released=released,
        cited=not evidence or rng.random() < 0.85,
        chance=chance,
        figures=tuple(page.figures),
        aggregates=tuple(page.aggregates),
        models=tuple(dict.fromkeys(f.method for f in page.figures if f.method)),
        labels=tuple(page.labels),
    )


def _tables(rng: random.Random, page: T.Draw, headline: RadarTable) -> list[RadarTable]:
    """The page's tables: ``headline`` among the subset, condition, aggregate and small-sample
    tables drawn for it (the draws in the order the corpus was first generated in)."""
    others: list[RadarTable] = []
    for _ in range(rng.choice((0, 1, 1, 2))):
        others.append(T.subsets(page))
    if rng.random() < 0.5:
        others.append(T.conditions(page))
    if rng.random() < 0.5:
        others.append(T.aggregate(page))
    if rng.random() < 0.5:
        sample, protocols, sample_label, labels = T.sample(page)
        others.append(sample)
        if rng.random() < 0.6:
            others.append(T.breakdown(page, protocols, sample_label, labels))
    tables = list(others)
    tables.insert(0 if rng.random() < 0.6 else rng.randint(0, len(others)), headline)
    return tables


def result_count(page: RadarPage) -> int:
    """The results the page holds: every printed number that is some model's."""
    return len(page.figures)


def methods(page: RadarPage) -> list[str]:
    """The page's models by full name (subset rows abbreviate headline models)."""
    return list(page.models)
