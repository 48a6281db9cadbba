"""What a cohort's ranks rest on, as the site says it: the ranks published intervals allow, the
ranks derived intervals allow (never shown as published), or point ranks with ties at the
published precision; and a result's derived interval as its page shows it.

The leaderboard query says, for each row, what its rankBest and rankWorst rest on
(``intervals``: "published", "derived (Wilson score, 95%)" or "point rank") and whether it is
tied at the published precision (``tiedWithin``); these functions turn that into the words of
the page.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from benchgraph import vocab as V

Row = dict[str, str]
PUBLISHED = "published"
POINT = "point rank"


@dataclass(frozen=True)
class CohortRanks:
    """What a cohort's board adds to its ranks: ``rule`` (a sentence under its heading; "" for
    none), the results other than the leader whose interval overlaps the leader's
    (``overlapping``, published intervals only) and the chart's legend for them."""

    rule: str = ""
    overlapping: frozenset[str] = frozenset()
    legend: str = ""


def kind(members: list[Row]) -> str:
    """What the cohort's rank bounds rest on: "published", "derived" or "point rank" (no
    bounds, or rows that do not say)."""
    said = {r.get("intervals", POINT) for r in members}
    if said == {PUBLISHED} and all("rankBest" in r for r in members):
        return PUBLISHED
    if all("rankBest" in r for r in members) and all(k.startswith("derived") for k in said):
        return "derived"
    return POINT


def method_names(iri: str) -> tuple[str, str]:
    """The names (in full, short) of the way an interval was derived, by its IRI."""
    local = iri.rsplit("#", 1)[-1]
    return V.INTERVAL_METHODS.get(iri, (local, local))


def derived_label(row: Row) -> str:
    """A derived interval as a cell shows it: ``[35.85, 49.43] derived (Wilson, n=200)``; ""
    for a row without one."""
    if not row.get("derivedCiLower"):
        return ""
    short = method_names(row.get("intervalMethod", ""))[1]
    size = f", n={row['sampleSize']}" if row.get("sampleSize") else ""
    return f"[{row['derivedCiLower']}, {row['derivedCiUpper']}] derived ({short}{size})"


def level(members: list[Row]) -> str:
    """The confidence level of the cohort's published intervals as a reader names it."""
    levels = sorted({f"{float(r['ciLevel']) * 100:g}%" for r in members if r.get("ciLevel")})
    return " and ".join(levels) if levels else "published"


def cohort_ranks(members: list[Row], direction: str) -> CohortRanks:
    """The rule the cohort's ranks follow, said with what they rest on, and (published
    intervals) the bars whose interval overlaps the leader's (the first row) with their legend.
    Point ranks get a rule only where some are tied at the published precision."""
    higher = direction == "higher"
    side = "above" if higher else "below"
    reach = (
        "upper bound is at or above its lower" if higher else "lower bound is at or below its upper"
    )
    found = kind(members)
    if found == POINT:
        if not any(r.get("tiedWithin") == "true" for r in members):
            return CohortRanks()
        return CohortRanks(
            "These are point ranks: the source publishes no interval for every result here, so a "
            "rank says only which published value is larger. A rank marked tied equals another "
            "at the published precision (the two differ by less than half a unit in the last "
            "decimal place of the coarser of the two values as published)."
        )
    if found == "derived":
        return CohortRanks(
            "A rank such as 2–4, derived, is the range that confidence intervals benchgraph "
            "derived allow: 95% Wilson score intervals, computed from each published proportion "
            "and its sample size n where the source publishes no interval (a published interval "
            f"is used where there is one). It runs from 1 + the results whose interval lies "
            f"wholly {side} this one's to 1 + the others whose {reach} bound. The intervals "
            "assume independent items; they are benchgraph's estimate, not the source's."
        )
    at = level(members)
    rule = (
        f"A rank such as 1–5 is the range the {at} confidence intervals allow: from 1 + the "
        f"results whose interval lies wholly {side} this one's (Chatbot Arena's rank (UB)) to "
        f"1 + the others whose {reach} bound."
    )
    leader = members[0]
    low, high = Decimal(leader["ciLower"]), Decimal(leader["ciUpper"])
    overlapping = frozenset(
        r["result"]
        for r in members[1:]
        if Decimal(r["ciLower"]) <= high and low <= Decimal(r["ciUpper"])
    )
    name = leader.get("methodLabel", "")
    legend = f"Lighter bars: the {at} interval overlaps the leader's ({name})"
    return CohortRanks(rule, overlapping, legend if overlapping else "")
