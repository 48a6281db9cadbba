"""Confidence intervals benchgraph derives where a source publishes none: the Wilson score
interval of a proportion whose sample size the source states.

A result gets a derived interval only when all of these hold (:func:`is_proportion`):

- the source states its sample size ``n`` (``bg:sampleSize``, at least 1);
- its unit is percent with ``0 <= value <= 100``, or unitless with ``0 <= value <= 1`` (a
  result file that states no unit gets none: 0.5 could be a fraction or half a percent);
- its metric's name says it is a proportion of items: a word of :data:`PROPORTION_WORDS`
  (accuracy, exact match, pass@1, success rate, ...; on a Radar page, where the source names
  its metric in Chinese, 准确率, 正确率, 通过率, 成功率, 胜率 or 命中率) and no word of
  :data:`NOT_SINGLE` (a mean, a macro or balanced figure is an aggregate over groups, not one
  binomial count: 平均 on a Radar page), and
  nothing that makes it an error or a loss (no lower-is-better word of the direction table,
  no declared lower-is-better direction): error counts, word error rates and scores on other
  scales are never read as proportions.

The interval is the Wilson score interval at 95% (z = 1.959964) of the published proportion
over ``n`` items, computed with ``decimal``. Its bounds are in the result's unit, rounded
outward (lower bound down, upper bound up) to one decimal place more than the published
value has, and kept within the unit's range; so the rounded interval always holds the exact one
and the value. It assumes independent items: where items cluster (scenes, prompts), the true
uncertainty is wider.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal, localcontext

from ingest import directions, units

Z95 = Decimal("1.959964")  # the 0.975 quantile of the standard normal distribution
LEVEL = "0.95"
METHOD_NAME = "Wilson score interval"

# Words and phrases (lower case, whole words) naming a metric that is one proportion of items.
PROPORTION_WORDS = (
    "accuracy", "acc", "top-1", "top-5", "top 1", "top 5", "exact match", "em", "pass@1",
    "pass rate", "success rate", "win rate", "hit rate", "solve rate", "resolve rate",
    "resolved rate", "correct",
)  # fmt: skip
# Words that make a figure an aggregate of several proportions, or not a proportion at all.
NOT_SINGLE = (
    "mean", "average", "avg", "macro", "micro", "weighted", "balanced", "normalized",
    "normalised", "relative", "delta", "gain", "drop", "improvement", "difference", "std",
    "variance", "count", "number",
)  # fmt: skip
# The same, as Radar pages write them (Chinese is matched as a part of the name).
PROPORTION_CJK = ("准确率", "正确率", "通过率", "成功率", "胜率", "命中率")
NOT_SINGLE_CJK = ("平均", "均值", "中位", "加权", "宏平均", "差值", "提升", "下降")
_WORD = re.compile(r"[a-z0-9]+(?:[-@.][a-z0-9]+)*")


@dataclass(frozen=True)
class DerivedInterval:
    """A confidence interval benchgraph computed, bounds as decimal text in the result's unit."""

    lower: str
    upper: str
    level: str  # "0.95"
    method: str  # "Wilson score interval"
    sample_size: int


def _has(name: str, phrases: tuple[str, ...]) -> bool:
    """Whether one of ``phrases`` is in ``name`` as whole words (``top-1`` and ``pass@1``
    are one word each)."""
    words = " " + " ".join(_WORD.findall(name.lower())) + " "
    return any(" " + phrase + " " in words for phrase in phrases)


def is_proportion_metric(name: str, direction: str | None) -> bool:
    """Whether a metric called ``name`` (with its declared direction) is one proportion of
    items: a proportion word, no aggregate word, and nothing lower-is-better."""
    if direction == "lower" or directions.infer(name) == "lower":
        return False
    proportion = _has(name, PROPORTION_WORDS) or any(w in name for w in PROPORTION_CJK)
    return proportion and not (_has(name, NOT_SINGLE) or any(w in name for w in NOT_SINGLE_CJK))


def scale_of(unit: str | None, value: Decimal) -> Decimal | None:
    """What a value in ``unit`` (as published) is divided by to be a proportion: 100 for a
    percent in [0, 100], 1 for a unitless value in [0, 1]; None otherwise."""
    name = units.canonical(unit) if unit is not None else None
    if name == units.PERCENT and 0 <= value <= 100:
        return Decimal(100)
    if name == units.UNITLESS and 0 <= value <= 1:
        return Decimal(1)
    return None


def wilson(successes: Decimal, n: int, z: Decimal = Z95) -> tuple[Decimal, Decimal]:
    """The Wilson score interval (lower, upper) of the proportion ``successes`` (a fraction in
    [0, 1]) over ``n`` items, unrounded. Raises ValueError for n < 1 or a fraction outside
    [0, 1]."""
    if n < 1 or not 0 <= successes <= 1:
        raise ValueError(f"no Wilson interval for p={successes} over n={n}")
    with localcontext() as ctx:
        ctx.prec = 40
        p, size, z2 = successes, Decimal(n), z * z
        denominator = 1 + z2 / size
        centre = (p + z2 / (2 * size)) / denominator
        spread = z / denominator * (p * (1 - p) / size + z2 / (4 * size * size)).sqrt()
        return max(Decimal(0), centre - spread), min(Decimal(1), centre + spread)


def _places(text: str) -> int:
    """The number of decimal places of a published decimal text."""
    return len(text.partition(".")[2]) if "." in text else 0


def derive(
    value: str, unit: str | None, n: int | None, metric: str, direction: str | None
) -> DerivedInterval | None:
    """The derived 95% Wilson interval of a result published as ``value`` (decimal text) in
    ``unit`` over ``n`` items for the metric called ``metric``; None when the result is not a
    proportion with a known sample size (see the module's rule)."""
    if n is None or n < 1 or not is_proportion_metric(metric, direction):
        return None
    number = Decimal(value)
    scale = scale_of(unit, number)
    if scale is None:
        return None
    low, high = wilson(number / scale, n)
    step = Decimal(1).scaleb(-(_places(value) + 1))
    lower = max((low * scale).quantize(step, rounding=ROUND_FLOOR), Decimal(0))
    upper = min((high * scale).quantize(step, rounding=ROUND_CEILING), scale)
    return DerivedInterval(_text(lower, step), _text(upper, step), LEVEL, METHOD_NAME, n)


def _text(number: Decimal, step: Decimal) -> str:
    """``number`` as plain decimal text with the places of ``step`` (never an exponent)."""
    return f"{number.quantize(step):f}"
