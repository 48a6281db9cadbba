"""The named queries answer the questions the project was founded on, over the seeds."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from benchgraph import answering, queries
from benchgraph import vocab as V
from benchgraph.store import Store
from benchgraph.suggest import Names
from ingest.loader import ingest_file


@pytest.fixture
def seeded(seeds: Path, store: Store) -> Store:
    for path in sorted(seeds.iterdir()):
        assert ingest_file(store, path).status == "loaded"
    return store


def labels(store: Store, name: str, paper: str) -> list[str]:
    named = queries.find(name)
    rows = answering.answer(store, named, {"paper": paper})
    return sorted(row["label"].value for row in rows)


INTRODUCED = {
    "68fa791f1e209131cea7c381": ["EDITOR"],
    "6a06a869dbc836b87d829ed7": ["MAs", "masked activation-transport mechanism"],
    "68fa775d1e209131cea72c0c": ["GRAPHGPT-O"],
    "68fa7aa31e209131cea84463": ["PRISM"],
    "CompoSET paper v1": [],
}
REPORTED = {
    "68fa791f1e209131cea7c381": sorted(["PH2P", "EDITOR", "PRISM", "VGD", "PEZ", "STEPS"]),
    "68fa7aa31e209131cea84463": [],
    "68fa775d1e209131cea72c0c": sorted(["GRAPHGPT-O", "DreamLLM", "Emu3", "Chameleon", "Janus"]),
}


@pytest.mark.parametrize("paper", sorted(INTRODUCED))
def test_methods_introduced_by_paper(seeded: Store, paper: str) -> None:
    assert labels(seeded, "methods-introduced-by-paper", paper) == INTRODUCED[paper]


@pytest.mark.parametrize("paper", sorted(REPORTED))
def test_methods_reported_by_paper(seeded: Store, paper: str) -> None:
    assert labels(seeded, "methods-reported-by-paper", paper) == REPORTED[paper]


def test_a_paper_named_by_title_or_iri(seeded: Store) -> None:
    by_title = labels(seeded, "methods-reported-by-paper", "CompoSET paper v1")
    assert len(by_title) == 28 and "SigLIP SO400M/14" in by_title
    iri = "https://w3id.org/benchgraph/id/paper/68fa791f1e209131cea7c381"
    assert labels(seeded, "methods-introduced-by-paper", iri) == ["EDITOR"]


def test_parameters_are_bound_not_spliced(seeded: Store) -> None:
    hostile = '68fa791f1e209131cea7c381" } UNION { ?method ?p ?label } #'
    with pytest.raises(queries.UnknownName, match="no paper is named") as refused:
        labels(seeded, "methods-reported-by-paper", hostile)
    assert refused.value.parameter == "paper"


def test_results_reported_by_paper_keep_published_precision(seeded: Store) -> None:
    named = queries.find("results-reported-by-paper")
    rows = list(answering.answer(seeded, named, {"paper": "CompoSET paper v1"}))
    assert len(rows) == 273
    values = {row["value"].value for row in rows}
    assert "5.0" in values and "0.0" in values  # not rewritten as 5 and 0


def no_names(text: str, bindings: object) -> Names:
    return Names(())


def test_a_name_that_names_several_benchmarks_lists_them() -> None:
    named = queries.find("leaderboard")
    several = ["https://example.org/b1", "https://example.org/b2"]
    with pytest.raises(queries.QueryError, match="names 2 benchmarks") as refused:
        queries.resolve(named, {"benchmark": "ImageNet"}, lambda text, b: several, no_names)
    assert not isinstance(refused.value, queries.UnknownName)
    assert refused.value.parameter == "benchmark"
    assert all(f"<{iri}>" in str(refused.value) for iri in several)


def test_an_iri_is_checked_for_being_a_benchmark_not_looked_up_by_label() -> None:
    named = queries.find("leaderboard")
    iri = "https://w3id.org/benchgraph/id/benchmark/x/y"
    asked: list[dict[str, str]] = []

    def lookup(text: str, bindings: Mapping[str, object]) -> list[str]:
        asked.append({k: str(v) for k, v in bindings.items()})
        return [iri]

    resolved = queries.resolve(named, {"benchmark": iri}, lookup, no_names)
    assert resolved["benchmark"].value == iri
    assert asked == [{"name": f"<{iri}>", "type": f"<{V.Benchmark}>"}]
    with pytest.raises(queries.UnknownName, match="no benchmark has the IRI"):
        queries.resolve(named, {"benchmark": iri}, lambda text, b: [], no_names)
