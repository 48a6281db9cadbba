"""What a leaderboard's rank rests on (``intervals``) and ties at the published precision
(``tiedWithin``): published intervals (CompoSET, as before), derived Wilson intervals (a page of
our own whose subset table states n, and CompoSET's Table 11), and point ranks with their ties.

The rank bounds are held to the rule worked out here (as in test_rank_intervals) from each
result's published interval, or else its derived one; ties to a rule worked out here from the
published text."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pyoxigraph as ox
import pytest
from support import REPO, Index

from benchgraph import answering, queries
from benchgraph import vocab as V
from benchgraph.store.embedded import EmbeddedStore
from ingest.loader import ingest_file

TALLYQUIZ = REPO / "tests" / "data" / "radar" / "tallyquiz-accuracy-sample-sizes.txt"
NOW = "2026-11-29T12:00:00+00:00"
DERIVED = "derived (Wilson score, 95%)"
Bounds = tuple[Decimal, Decimal]


def answer(store: EmbeddedStore, **params: str) -> list[dict[str, str]]:
    """The leaderboard's rows on ``store``, as the CLI runs it."""
    solutions = answering.answer(store, queries.find("leaderboard"), params)
    assert isinstance(solutions, ox.QuerySolutions)
    names = [v.value for v in solutions.variables]
    return [{n: row[n].value for n in names if row[n] is not None} for row in solutions]


def ask(http: Any, server: Any, **params: str) -> list[dict[str, str]]:
    reply = http.fetch(http.url(f"{server.url}queries/leaderboard", **params))
    assert reply.status == 200, reply.text
    return [{k: v["value"] for k, v in b.items()} for b in reply.json()["results"]["bindings"]]


def allowed(bounds: dict[str, Bounds]) -> dict[str, tuple[int, int]]:
    """(rankBest, rankWorst) of each result by the rule, higher is better, worked out here."""
    found = {}
    for result, (low, high) in bounds.items():
        others = [b for other, b in bounds.items() if other != result]
        best = 1 + sum(lo > high for lo, _ in others)
        found[result] = (best, 1 + sum(hi >= low for _, hi in others))
    return found


def bounds_of(index: Index, results: list[str], low: str, high: str) -> dict[str, Bounds]:
    found = {}
    for r in results:
        lo, hi = index.value(r, low), index.value(r, high)
        assert lo is not None and hi is not None, r
        found[r] = (Decimal(lo), Decimal(hi))
    return found


def ranges(rows: list[dict[str, str]]) -> dict[str, tuple[int, int]]:
    return {r["result"]: (int(r["rankBest"]), int(r["rankWorst"])) for r in rows}


def tied(values: list[str]) -> list[bool]:
    """Whether each published value equals another at the coarser of their precisions: they
    differ by less than half a unit of the coarser's last place, worked out here."""

    def places(text: str) -> int:
        return len(text.split(".")[1]) if "." in text else 0

    found = []
    for i, mine in enumerate(values):
        found.append(
            any(
                abs(Decimal(mine) - Decimal(other))
                < Decimal("0.5").scaleb(-min(places(mine), places(other)))
                for j, other in enumerate(values)
                if j != i
            )
        )
    return found


def cohorts(rows: list[dict[str, str]]) -> dict[str, list[dict[str, str]]]:
    found: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        found.setdefault(row["cohort"], []).append(row)
    return found


# --- a page of our own: overall accuracy without intervals, subsets with n --------------------


@pytest.fixture(scope="module")
def tallyquiz(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[EmbeddedStore, Index]]:
    with EmbeddedStore(tmp_path_factory.mktemp("tallyquiz") / "store") as store:
        assert ingest_file(store, TALLYQUIZ, now=NOW).status == "loaded"
        yield store, Index(set(store.quads()))


def test_subsets_with_n_rank_by_their_derived_intervals(
    tallyquiz: tuple[EmbeddedStore, Index],
) -> None:
    store, index = tallyquiz
    rows = answer(store, benchmark="TallyQuiz", metric="准确率")
    found = cohorts(rows)
    assert set(found) == {"subset=计数", "subset=换算"}
    for members in found.values():
        results = [r["result"] for r in members]
        assert {r["intervals"] for r in members} == {DERIVED}
        derived = bounds_of(index, results, V.derivedCiLower, V.derivedCiUpper)
        assert ranges(members) == allowed(derived)
        for r in results:  # derived, never published
            assert index.value(r, V.ciLower) is None and index.value(r, V.sampleSize) is not None
    shown = {
        (r["cohort"], r["methodLabel"]): (r["rank"], r["rankBest"], r["rankWorst"]) for r in rows
    }
    assert shown == {  # 82.5% of 400 is [78.47, 85.91]; 78.0% [73.68, 81.79]: they overlap
        ("subset=计数", "Orca-Count 7B"): ("1", "1", "2"),
        ("subset=计数", "Lumen-2 Mini"): ("2", "1", "2"),
        ("subset=计数", "Basalt 13B"): ("3", "3", "4"),
        ("subset=计数", "Kestrel Small"): ("4", "3", "4"),
        ("subset=换算", "Basalt 13B"): ("1", "1", "1"),  # 76.0% of 150: [68.57, 82.14]
        ("subset=换算", "Lumen-2 Mini"): ("2", "2", "4"),
        ("subset=换算", "Orca-Count 7B"): ("3", "2", "4"),
        ("subset=换算", "Kestrel Small"): ("4", "2", "4"),
    }
    assert {r["tiedWithin"] for r in rows} == {"false"}


def test_without_intervals_or_n_ranks_are_point_ranks_with_ties_marked(
    tallyquiz: tuple[EmbeddedStore, Index],
) -> None:
    store, _ = tallyquiz
    rows = answer(store, benchmark="TallyQuiz")
    assert len(rows) == 8
    assert all("rankBest" not in r and "rankWorst" not in r for r in rows)
    assert {r["intervals"] for r in rows} == {"point rank"}
    assert [r["tiedWithin"] == "true" for r in rows] == tied([r["value"] for r in rows])
    shown = {r["methodLabel"]: (r["value"], r["rank"], r["tiedWithin"]) for r in rows}
    assert shown == {
        "Lumen-2 Mini": ("71.42", "1", "true"),  # 71.4 and 71.42 are equal at 0.1
        "Orca-Count 7B": ("71.4", "2", "true"),
        "Fjord-3 8B": ("70.93", "3", "true"),
        "Basalt 13B": ("70.9", "4", "true"),
        "Kestrel Small": ("69", "5", "true"),  # published to the unit: 68.7 is within
        "Marlin-1.5 3B": ("68.7", "6", "true"),
        "Tarn 1B": ("65.0", "7", "false"),  # 65.0 and 64.9 differ at 0.1
        "Quill 1B": ("64.9", "8", "false"),
    }


# --- the seeds: CompoSET's published intervals, as before; its Table 11 derived ---------------


def test_composet_published_ranks_are_unchanged(
    seeds_server: Any, http: Any, seeds_index: Index
) -> None:
    """Every cohort of CompoSET whose results all publish an interval (the headline, each
    edit-type subset of Table 9, whose results also carry a derived one) ranks by the published
    intervals alone and says so."""
    headline = ask(http, seeds_server, benchmark="CompoSET")
    subsets = [
        r
        for r in ask(http, seeds_server, benchmark="CompoSET", metric="Group accuracy")
        if r["cohort"].startswith("subset=")
    ]
    assert len(headline) == 22 and len(subsets) == 224
    for members in [headline, *cohorts(subsets).values()]:
        assert {r["intervals"] for r in members} == {"published"}
        results = [r["result"] for r in members]
        published = bounds_of(seeds_index, results, V.ciLower, V.ciUpper)
        assert ranges(members) == allowed(published)
        assert [r["tiedWithin"] == "true" for r in members] == tied([r["value"] for r in members])
    by_method = {r["methodLabel"]: (r["rankBest"], r["rankWorst"]) for r in headline}
    assert by_method["SigLIP-2 SO400M/14"] == ("1", "5") and by_method["CLIP B/32"] == ("19", "22")


def test_composet_table_11_ranks_by_derived_intervals(
    seeds_server: Any, http: Any, seeds_index: Index
) -> None:
    """Table 11's 200-example sample publishes n and no interval: its two protocols' cohorts
    rank by the derived intervals and say so; Table 12 (no n) has point ranks."""
    rows = ask(http, seeds_server, benchmark="CompoSET", metric="Group accuracy")
    sample = [r for r in rows if seeds_index.value(r["result"], V.sourceTable) == "Table 11"]
    assert len(sample) == 6
    for members in cohorts(sample).values():
        assert len(members) == 3 and {r["intervals"] for r in members} == {DERIVED}
        results = [r["result"] for r in members]
        derived = bounds_of(seeds_index, results, V.derivedCiLower, V.derivedCiUpper)
        assert ranges(members) == allowed(derived)
    by_length = [r for r in rows if seeds_index.value(r["result"], V.sourceTable) == "Table 12"]
    assert by_length and {r["intervals"] for r in by_length} == {"point rank"}
    assert all("rankBest" not in r for r in by_length)
