"""The ranks published intervals allow (``leaderboard``'s rankBest and rankWorst) and the
``compare`` query, held to what the store's own intervals give by the rule worked out here.

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

from benchgraph import answering, iris, queries
from benchgraph import vocab as V
from benchgraph.store.embedded import EmbeddedStore
from ingest.loader import Batch, ingest_file, prepare
from ingest.writer import Write

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
    solutions = answering.answer(store, queries.find(name), params)
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
        (item,) = prepare(store, NOISYCALL, Batch(now=NOW))
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


# --- compare -------------------------------------------------------------------------------


def test_compare_refuses_a_small_sample_against_a_dual_encoder(seeds_server, http) -> None:
    """A generative model's 200-example result, scored by another protocol, against a dual
    encoder's edit-type subsets: never comparable, and neither difference nor verdict."""
    rows = ask(
        http, seeds_server, "compare", benchmark="CompoSET", metric="Group accuracy",
        a="Claude Sonnet 4.6", b="SigLIP-2 SO400M/14",
    )  # fmt: skip
    assert len(rows) == 4 * 16
    for row in rows:
        assert row["comparable"] == "another protocol; another subset", row
        assert "difference" not in row and "verdict" not in row
        assert row["aCohort"].startswith("protocol=Frontier API")
        assert row["bCohort"].startswith("subset=")


def verdict(a: Interval, b: Interval, direction: str) -> str:
    """Which of two results is better by their intervals, worked out here."""
    if direction == "lower":
        a, b = (-a[1], -a[0]), (-b[1], -b[0])
    if a[0] > b[1]:
        return "A better"
    if b[0] > a[1]:
        return "B better"
    return "intervals overlap"


def test_compare_within_a_cohort_by_the_intervals(
    seeds_server: Any, http: Any, seeds_index: Index
) -> None:
    """SigLIP-2 SO400M/14 against CLIP B/32 on every edit-type subset: the pairs of one subset
    are comparable, with the verdict their intervals give; the others are of another subset."""
    rows = ask(
        http, seeds_server, "compare", benchmark="CompoSET", metric="Group accuracy",
        a="SigLIP-2 SO400M/14", b="CLIP B/32",
    )  # fmt: skip
    assert len(rows) == 16 * 16
    comparable = [r for r in rows if r["comparable"] == "comparable"]
    assert len(comparable) == 16 and all(r["aCohort"] == r["bCohort"] for r in comparable)
    for row in comparable:
        a, b = intervals_of(seeds_index, [row["aResult"], row["bResult"]]).values()
        assert row["verdict"] == verdict(a, b, "higher"), row
        expected = Decimal(row["aValue"]) - Decimal(row["bValue"])
        assert Decimal(row["difference"]) == expected
    assert {r["verdict"] for r in comparable} == {"A better", "intervals overlap"}
    others = [r for r in rows if r["comparable"] != "comparable"]
    assert {r["comparable"] for r in others} == {"another subset"}
    assert all("verdict" not in r and "difference" not in r for r in others)


def test_compare_on_the_headline(seeds_server: Any, http: Any) -> None:
    def one(a: str, b: str) -> dict[str, str]:
        (row,) = ask(http, seeds_server, "compare", benchmark="CompoSET", a=a, b=b)
        assert row["comparable"] == "comparable"
        return row

    clear = one("SigLIP-2 SO400M/14", "CLIP B/32")
    assert (clear["difference"], clear["verdict"]) == ("9.5", "A better")
    assert (clear["aInterval"], clear["bInterval"], clear["aLevel"]) == (
        "[13.0,14.9]",
        "[3.9,5.0]",
        "0.95",
    )
    assert one("CLIP B/32", "SigLIP-2 SO400M/14")["verdict"] == "B better"
    close = one("SigLIP-2 SO400M/14", "SigLIP-2 L/16-384")
    assert (close["difference"], close["verdict"]) == ("0.3", "intervals overlap")


def test_compare_without_intervals_and_across_conditions(seeds_server, http) -> None:
    """GenAI-Bench: pairs of one base model are comparable, by value only; pairs of two base
    models (a condition setting) are not."""
    rows = ask(
        http, seeds_server, "compare", benchmark="GenAI-Bench",
        a="Single Prompt", b="masked activation-transport mechanism",
    )  # fmt: skip
    assert rows
    for row in rows:
        if row["aCohort"] == row["bCohort"]:
            assert row["comparable"] == "comparable"
            difference = Decimal(row["aValue"]) - Decimal(row["bValue"])
            assert Decimal(row["difference"]) == difference
            side = "A better" if difference > 0 else "B better" if difference < 0 else ""
            assert row["verdict"] == (f"no intervals: {side} by value" if side else
                                      "no intervals: equal values")  # fmt: skip
        else:
            assert row["comparable"] == "another condition setting", row
            assert "verdict" not in row
    assert {r["aCohort"] == r["bCohort"] for r in rows} == {True, False}


def test_compare_lower_is_better(noisycall: EmbeddedStore) -> None:
    def one(a: str, b: str) -> dict[str, str]:
        (row,) = answer(noisycall, "compare", benchmark="NoisyCall", a=a, b=b)
        assert row["comparable"] == "comparable"
        return row

    clear = one("Canary-1B", "Moonshine Base")
    assert (clear["difference"], clear["verdict"]) == ("3.8", "A better")
    assert one("Moonshine Base", "Canary-1B")["difference"] == "-3.8"
    assert one("Moonshine Base", "Canary-1B")["verdict"] == "B better"
    touching = one("Whisper large-v3", "Voxtral Mini")  # [5.8,6.6] and [6.6,7.6]
    assert (touching["difference"], touching["verdict"]) == ("0.9", "intervals overlap")


def test_compare_with_an_unknown_method_is_404_naming_it(seeds_server, http) -> None:
    url = http.url(
        f"{seeds_server.url}queries/compare", benchmark="CompoSET", a="CLIP B/32",
        b="SigLIP-2 SO400M/41",
    )  # fmt: skip
    reply = http.fetch(url)
    assert reply.status == 404
    body = reply.json()
    assert body["parameter"] == "b" and body["suggestions"][0] == "SigLIP-2 SO400M/14"
    missing = http.fetch(http.url(f"{seeds_server.url}queries/compare", benchmark="CompoSET"))
    assert missing.status == 400 and missing.json()["parameter"] == "a"


def test_compare_a_recorded_configuration_with_none(seeds_server: Any, http: Any) -> None:
    """ART500K: GRAPHGPT-O's results record their Type, DreamLLM's no configuration at all."""
    rows = ask(http, seeds_server, "compare", benchmark="ART500K", a="GRAPHGPT-O", b="DreamLLM")
    assert sorted(r["aCohort"] for r in rows) == ["Type=Hard", "Type=Soft"]
    assert {r["bCohort"] for r in rows} == {"configuration not recorded"}
    assert {r["comparable"] for r in rows} == {"unrecorded configuration"}
    assert all("verdict" not in r and "difference" not in r for r in rows)
