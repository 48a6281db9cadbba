"""The ranks published intervals allow (``leaderboard``'s rankBest and rankWorst), held to what
the store's own intervals give by the rule worked out here.

The rule: rankBest is 1 + the results of the cohort surely better (higher is better: lower bound
above this result's upper bound; lower is better: upper bound below its lower bound), rankWorst
1 + the other results that could be better (upper bound at or above its lower bound; lower is
better: lower bound at or below its upper bound).
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from support import REPO, Index

from benchgraph import queries
from benchgraph import vocab as V
from benchgraph.store import EmbeddedStore
from ingest import iris
from ingest.loader import Write, ingest_file, prepare

NOISYCALL = REPO / "tests" / "data" / "radar" / "noisycall-wer-intervals-lower.txt"
NOW = "2026-11-29T12:00:00+00:00"
Interval = tuple[Decimal, Decimal]


def allowed(intervals: dict[str, Interval], direction: str) -> dict[str, tuple[int, int]]:
    """Each result's (rankBest, rankWorst) among ``intervals``, by the rule, worked out here."""
    found = {}
    for result, (low, high) in intervals.items():
        others = [bounds for other, bounds in intervals.items() if other != result]
        if direction == "higher":
            best = 1 + sum(lo > high for lo, _ in others)
            worst = 1 + sum(hi >= low for _, hi in others)
        else:
            best = 1 + sum(hi < low for _, hi in others)
            worst = 1 + sum(lo <= high for lo, _ in others)
        found[result] = (best, worst)
    return found


def intervals_of(index: Index, results: list[str]) -> dict[str, Interval]:
    found = {}
    for r in results:
        low, high = index.value(r, V.ciLower), index.value(r, V.ciUpper)
        assert low is not None and high is not None, r
        found[r] = (Decimal(low), Decimal(high))
    return found


def ask(http: Any, server: Any, name: str, **params: str) -> list[dict[str, str]]:
    """The rows of a named query's answer over HTTP, each as its bound values by name."""
    reply = http.fetch(http.url(f"{server.url}queries/{name}", **params))
    assert reply.status == 200, reply.text
    return [{k: v["value"] for k, v in b.items()} for b in reply.json()["results"]["bindings"]]


def answer(store: EmbeddedStore, name: str, **params: str) -> list[dict[str, str]]:
    """The rows of a named query run on ``store`` as the CLI runs it."""
    solutions = store.answer(queries.find(name), params)
    assert isinstance(solutions, ox.QuerySolutions)
    names = [v.value for v in solutions.variables]
    return [{n: row[n].value for n in names if row[n] is not None} for row in solutions]


def ranks(rows: list[dict[str, str]]) -> dict[str, tuple[int, int]]:
    return {r["result"]: (int(r["rankBest"]), int(r["rankWorst"])) for r in rows}


# --- CompoSET's headline: 22 dual encoders with 95% intervals -------------------------------


def test_composet_headline_ranks_are_those_its_intervals_allow(
    seeds_server: Any, http: Any, seeds_index: Index
) -> None:
    rows = ask(http, seeds_server, "leaderboard", benchmark="CompoSET")
    assert len(rows) == 22 and len({r["cohort"] for r in rows}) == 1
    results = [r["result"] for r in rows]
    assert {seeds_index.value(r, V.ciLevel) for r in results} == {"0.95"}
    assert ranks(rows) == allowed(intervals_of(seeds_index, results), "higher")
    by_method = {r["methodLabel"]: (int(r["rankBest"]), int(r["rankWorst"])) for r in rows}
    assert by_method["SigLIP-2 SO400M/14"] == (1, 5)
    assert by_method["CLIP B/32"] == (19, 22)
    for row in rows:  # the rank by value lies within the range
        assert int(row["rankBest"]) <= int(row["rank"]) <= int(row["rankWorst"]), row


def test_cohorts_without_intervals_keep_their_rank_alone(seeds_server: Any, http: Any) -> None:
    """GenAI-Bench publishes no intervals: no row has a range, each a rank 1 + those better."""
    rows = ask(http, seeds_server, "leaderboard", benchmark="GenAI-Bench")
    assert len(rows) == 30
    for row in rows:
        assert "rankBest" not in row and "rankWorst" not in row, row
        cohort = [r for r in rows if r["cohort"] == row["cohort"]]
        better = sum(Decimal(r["value"]) > Decimal(row["value"]) for r in cohort)
        assert int(row["rank"]) == 1 + better


# --- A lower-is-better page of our own with 95% intervals ------------------------------------


@pytest.fixture(scope="module")
def noisycall(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedStore]:
    with EmbeddedStore(tmp_path_factory.mktemp("noisycall") / "store") as store:
        assert ingest_file(store, NOISYCALL, now=NOW).status == "loaded"
        yield store


def by_method(rows: list[dict[str, str]], key: str = "methodLabel") -> dict[str, dict[str, str]]:
    return {r[key]: r for r in rows}


def test_lower_is_better_ranks_mirror_the_rule(noisycall: EmbeddedStore) -> None:
    rows = answer(noisycall, "leaderboard", benchmark="NoisyCall")
    index = Index(set(noisycall.quads()))
    results = [r["result"] for r in rows]
    assert {r["direction"] for r in rows} == {V.LowerIsBetter}
    assert ranks(rows) == allowed(intervals_of(index, results), "lower")
    shown = {m: (r["rank"], r["rankBest"], r["rankWorst"]) for m, r in by_method(rows).items()}
    assert shown == {
        "Canary-1B": ("1", "1", "3"),
        "Parakeet-TDT 1.1B": ("2", "1", "3"),
        "Whisper large-v3": ("3", "1", "4"),  # Voxtral's lower bound touches its upper bound
        "Voxtral Mini": ("4", "3", "5"),
        "SenseVoice Small": ("5", "4", "5"),
        "Moonshine Base": ("6", "6", "6"),
    }


def test_a_cohort_with_a_result_without_interval_has_no_ranges(tmp_path: Path) -> None:
    """The same page with one result's interval not stated: the cohort mixes results with and
    without intervals, so no row has a range, and every rank stays as it was."""
    dropped = {V.ciLower, V.ciUpper, V.ciLevel, V.publishedInterval}
    with EmbeddedStore(tmp_path / "store") as store:
        item = prepare(store, NOISYCALL, now=NOW)
        assert isinstance(item, Write)
        (canary,) = {
            t.subject.value
            for triples in item.graphs.values()
            for t in triples
            if t.predicate.value == V.method and t.object.value == iris.method("Canary-1B")
        }
        graphs = {
            g: [
                t
                for t in triples
                if not (t.subject.value == canary and t.predicate.value in dropped)
            ]
            for g, triples in item.graphs.items()
        }
        assert sum(map(len, graphs.values())) == sum(map(len, item.graphs.values())) - 4
        store.replace_graphs(graphs)
        rows = answer(store, "leaderboard", benchmark="NoisyCall")
    assert len(rows) == 6
    assert all("rankBest" not in r and "rankWorst" not in r for r in rows)
    assert [r["rank"] for r in rows] == ["1", "2", "3", "4", "5", "6"]
