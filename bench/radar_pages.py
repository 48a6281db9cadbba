"""Synthetic AI Benchmark Radar pages: one benchmark, one paper, small tables.

The tables are those of the real pages: a headline series with 95 % intervals, per-edit-type
subsets with sample sizes, aggregates over models, a generative sample scored by another
protocol, its split by caption length, and an evidence table that agrees with the headline.
Subset tables abbreviate model names the way real pages do, never ambiguously.
"""

from __future__ import annotations

import math
import random
from datetime import date, timedelta

from bench import catalogue as C
from bench.pools import draw, zipf
from bench.templates import RadarPage

Encoder = tuple[str, str, str, str]  # family, size, patch, suffix


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
    picked = models.pick(rng, rng.randint(4, 10))
    pairs = rng.randint(400, 2400)
    headline = tuple(
        (f"{family} {size}/{patch}{suffix}", *_estimate(rng, 2, 25, pairs * 3))
        for family, size, patch, suffix in picked
    )
    edits = rng.sample(C.EDIT_TYPES, rng.randint(2, 4))
    members = rng.sample(picked, rng.randint(2, min(5, len(picked))))
    subset, aggregate = [], []
    for edit in edits:
        n = rng.randint(100, 650)
        for encoder in members:
            subset.append((_abbreviate(encoder, picked, rng), edit, n, *_estimate(rng, 0, 55, n)))
        aggregate.append((edit, n // 3, *_three(rng, 40)))
    generative = tuple(
        (model, protocol, *_three(rng, 75))
        for model, protocol in rng.sample(C.GENERATIVE_MODELS, rng.randint(2, 5))
    )
    by_length = tuple(
        (model, *_three(rng, 50))
        for model, protocol, *_ in generative
        if protocol == C.FRONTIER_API
    )
    checked = date(2026, 1, 1) + timedelta(days=rng.randrange(300))
    return RadarPage(
        name=name,
        checked=checked.isoformat(),
        published=(checked - timedelta(days=rng.randint(1, 30))).isoformat(),
        freeze=f"{rng.getrandbits(28):07x}",
        pairs=pairs,
        headline=headline,
        subset=tuple(subset),
        aggregate=tuple(aggregate),
        sample=rng.choice((100, 200, 300)),
        generative=generative,
        by_length=by_length,
    )


def result_count(page: RadarPage) -> int:
    """Results the page holds: headline and subset rows, three per generative row and per
    caption-length row."""
    return (
        len(page.headline) + len(page.subset) + 3 * len(page.generative) + 3 * len(page.by_length)
    )


def methods(page: RadarPage) -> list[str]:
    """The page's models by full name (subset rows abbreviate headline models)."""
    return [row[0] for row in (*page.headline, *page.generative)]


def _three(rng: random.Random, high: float) -> tuple[str, str, str]:
    """Three percentages from ``0..high`` (short, medium, long captions; or I2T, T2I, Group)."""
    first, second, third = (f"{rng.uniform(0, high):.1f}" for _ in range(3))
    return first, second, third


def _estimate(rng: random.Random, low: float, high: float, n: int) -> tuple[str, str, str]:
    """A percentage drawn from ``low..high`` with its 95 % interval for ``n`` samples."""
    value = round(rng.uniform(low, high), 1)
    half = 1.96 * math.sqrt(value * (100 - value) / n)
    return f"{value:.1f}", f"{max(0.0, value - half):.1f}", f"{min(100.0, value + half):.1f}"


def _abbreviate(encoder: Encoder, headline: list[Encoder], rng: random.Random) -> str:
    """The name a subset table uses for a headline model: its full name, the name without
    parentheses, or a prefix of exactly this one headline name (never an ambiguous one)."""
    family, size, patch, suffix = encoder
    names = [f"{family} {size}/{patch}{suffix}"]
    if suffix.startswith(" ("):
        names.append(f"{family} {size}/{patch} {suffix[2:-1]}")
    if suffix:
        names.append(f"{family} {size}/{patch}")
    if sum(1 for e in headline if e[:2] == (family, size)) == 1:
        names.append(f"{family} {size}")
    return rng.choice(names)
