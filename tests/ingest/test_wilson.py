"""Derived intervals: the Wilson score function against values worked out by hand, the rule
of which results are proportions, and the derived terms on a real page (CompoSET's Table 11,
200 items, no published interval), never stated as a published interval.

Hand working, z = 1.959964, z² = 3.841459:
- 50 of 100: z²/n = 0.0384146, centre (0.5 + 0.0192073) / 1.0384146 = 0.5; half-width
  1.959964 / 1.0384146 × √(0.0025 + 0.0000960) = 1.887458 × 0.0509513 = 0.096168:
  [0.40383, 0.59617].
- 0 of 10: centre 0.192073 / 1.384146 = 0.138766; half-width 1.416009 × √(3.841459 / 400)
  = 1.416009 × 0.0979982 = 0.138766: [0, 0.27753].
- 42.5% of 200 (Claude Sonnet 4.6's Group accuracy): z²/n = 0.0192073; centre
  (0.425 + 0.00960365) / 1.0192073 = 0.426413; half-width 1.923028 × √(0.001221875 +
  0.0000240091) = 1.923028 × 0.0352972 = 0.067878: [0.358535, 0.494291], in percent rounded
  outward to two places (the value has one): [35.85, 49.43].
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pyoxigraph as ox
import pytest
from support import SEEDS, Index, needs_shared

from benchgraph import vocab as V
from benchgraph.store.embedded import EmbeddedStore
from ingest import wilson
from ingest.loader import ingest_file

COMPOSET = SEEDS / "002_d2512863a95936bb.txt"
NOW = "2026-11-29T12:00:00+00:00"
TABLE_11_GROUP = {  # model: Group % as printed in the seed's Table 11 (n = 200)
    "BLIP-2 (OPT-2.7B)": "2.5",
    "LLaVA-1.6 (Mistral-7B)": "1.5",
    "Qwen2-VL (7B Instruct)": "0.5",
    "Gemini 2.5 Flash": "12.0",
    "Claude Haiku 4.5": "13.0",
    "Claude Sonnet 4.6": "42.5",
}


def near(found: Decimal, expected: str, within: str = "0.00001") -> bool:
    return abs(found - Decimal(expected)) <= Decimal(within)


@pytest.mark.parametrize(
    ("p", "n", "low", "high"),
    [("0.5", 100, "0.40383", "0.59617"), ("0", 10, "0", "0.27753"),
     ("0.425", 200, "0.358535", "0.494291")],
)  # fmt: skip
def test_wilson_matches_the_hand_worked_values(p: str, n: int, low: str, high: str) -> None:
    lower, upper = wilson.wilson(Decimal(p), n)
    assert near(lower, low) and near(upper, high), (lower, upper)


def test_wilson_is_symmetric_and_refuses_what_is_no_proportion() -> None:
    low, high = wilson.wilson(Decimal("0.12"), 200)
    mirror_low, mirror_high = wilson.wilson(Decimal("0.88"), 200)
    assert abs(low - (1 - mirror_high)) < Decimal("1e-25")
    assert abs(high - (1 - mirror_low)) < Decimal("1e-25")
    for p, n in (("1.2", 10), ("-0.1", 10), ("0.5", 0)):
        with pytest.raises(ValueError):
            wilson.wilson(Decimal(p), n)


def test_derived_bounds_are_rounded_outward_one_place_finer() -> None:
    found = wilson.derive("42.5", "percent", 200, "Group accuracy", "higher")
    assert found is not None
    assert (found.lower, found.upper, found.level) == ("35.85", "49.43", "0.95")
    assert found.method == "Wilson score interval" and found.sample_size == 200
    unitless = wilson.derive("0.5", "SCALAR", 100, "acc", None)
    assert unitless is not None and (unitless.lower, unitless.upper) == ("0.40", "0.60")
    whole = wilson.derive("0", "%", 10, "Accuracy", None)  # 0 of 10: [0, 27.753…]
    assert whole is not None and (whole.lower, whole.upper) == ("0.0", "27.8")
    full = wilson.derive("100", "percent", 10, "Accuracy", None)
    assert full is not None and (full.lower, full.upper) == ("72.2", "100.0")


@pytest.mark.parametrize(
    ("value", "unit", "n", "metric", "direction"),
    [
        ("12.0", "percent", None, "Group accuracy", "higher"),  # no sample size
        ("12.0", "percent", 200, "Top-1 Error", "lower"),  # an error rate
        ("12.0", "percent", 200, "WER", None),  # word error rate: can pass 100%
        ("12", "count", 200, "Accuracy", None),  # a count
        ("12.0", "point", 200, "Accuracy", None),  # a score on its own scale
        ("0.5", None, 200, "acc", None),  # no unit stated: a fraction or half a percent?
        ("1.5", "unitless", 200, "Accuracy", None),  # not in [0, 1]
        ("120", "percent", 200, "Accuracy", None),  # not in [0, 100]
        ("12.0", "percent", 200, "Balanced accuracy", None),  # a mean of per-class rates
        ("12.0", "percent", 200, "Mean accuracy", None),  # an aggregate
        ("12.0", "percent", 200, "F1", "higher"),  # not one proportion of items
        ("12.0", "percent", 200, "CLIP Score", "higher"),
        ("12.0", "percent", 200, "pass@10", "higher"),  # an estimate over k samples
    ],
)
def test_no_interval_is_derived_for_what_is_no_proportion(
    value: str, unit: str | None, n: int | None, metric: str, direction: str | None
) -> None:
    assert wilson.derive(value, unit, n, metric, direction) is None


@pytest.mark.parametrize(
    "metric", ["Group accuracy", "Top-1 Accuracy", "Exact Match", "pass@1", "Success rate"]
)
def test_accuracy_like_metrics_are_proportions(metric: str) -> None:
    assert wilson.is_proportion_metric(metric, None)


# --- a real page: CompoSET's seed ------------------------------------------------------------


@pytest.fixture(scope="module")
def composet(tmp_path_factory: pytest.TempPathFactory) -> Index:
    needs_shared(COMPOSET)
    folder: Path = tmp_path_factory.mktemp("composet") / "store"
    with EmbeddedStore(folder) as store:
        assert ingest_file(store, COMPOSET, now=NOW).status == "loaded"
    return Index(set(ox.Store.read_only(str(folder))))


def results(index: Index) -> set[str]:
    return index.subjects_of_type(V.Result)


def table(index: Index, name: str) -> set[str]:
    return {r for r in results(index) if index.value(r, V.sourceTable) == name}


def test_table_11_gets_derived_intervals_never_published_ones(composet: Index) -> None:
    """Table 11 states n = 200 and no interval: each of its 18 proportions gets a derived
    Wilson interval with its method, and none a bg:ciLower or bg:ciUpper."""
    rows = table(composet, "Table 11")
    assert len(rows) == 18
    for r in rows:
        assert composet.value(r, V.sampleSize) == "200"
        assert composet.value(r, V.intervalMethod) == V.WilsonScoreInterval
        assert composet.value(r, V.derivedCiLevel) == "0.95"
        assert composet.value(r, V.ciLower) is None and composet.value(r, V.ciUpper) is None
        assert composet.value(r, V.publishedInterval) is None
        value = Decimal(composet.value(r, V.value) or "")
        low = Decimal(composet.value(r, V.derivedCiLower) or "")
        high = Decimal(composet.value(r, V.derivedCiUpper) or "")
        exact_low, exact_high = wilson.wilson(value / 100, 200)
        assert low <= exact_low * 100 <= value <= exact_high * 100 <= high
        assert high - exact_high * 100 < Decimal("0.01") and exact_low * 100 - low < Decimal("0.01")
    by_method = {
        composet.value(composet.value(r, V.method) or "", V.label): r
        for r in rows
        if composet.value(composet.value(r, V.metric) or "", V.label) == "Group accuracy"
    }
    assert {m: composet.value(r, V.publishedValue) for m, r in by_method.items()} == TABLE_11_GROUP
    sonnet = by_method["Claude Sonnet 4.6"]  # worked out by hand above
    bounds = (composet.value(sonnet, V.derivedCiLower), composet.value(sonnet, V.derivedCiUpper))
    assert tuple(map(Decimal, bounds)) == (Decimal("35.85"), Decimal("49.43"))  # type: ignore[arg-type]


def test_published_intervals_stay_as_published(composet: Index) -> None:
    """Table 9 publishes its intervals and n: they stay bg:ciLower/bg:ciUpper as printed, and
    the derived interval stands beside them under its own terms. Table 8 states no n and
    Table 12 only "about 67": nothing is derived there; nor for the aggregates of Table 10."""
    subsets = table(composet, "Table 9")
    assert len(subsets) == 224
    for r in subsets:
        published = composet.value(r, V.publishedInterval) or ""
        low, high = published.strip("[]").split(",")
        bounds = (composet.value(r, V.ciLower), composet.value(r, V.ciUpper))
        assert tuple(map(Decimal, bounds)) == (Decimal(low), Decimal(high))  # type: ignore[arg-type]
        assert composet.value(r, V.intervalMethod) == V.WilsonScoreInterval
        assert composet.value(r, V.derivedCiLower) != composet.value(r, V.ciLower) or (
            composet.value(r, V.derivedCiUpper) != composet.value(r, V.ciUpper)
        )
    for name in ("Table 8", "Table 12"):
        for r in table(composet, name):
            assert composet.value(r, V.derivedCiLower) is None, r
            assert composet.value(r, V.intervalMethod) is None, r
    for a in composet.subjects_of_type(V.Aggregate):
        assert composet.value(a, V.derivedCiLower) is None
    derived = {r for r in results(composet) if composet.value(r, V.derivedCiLower) is not None}
    assert derived == subsets | table(composet, "Table 11")
