"""A gathered query (``#+ gathered:``): on the servers it names, it runs on its scope's current
pages and the alias records, gathered into memory, and gives the rows the store itself gives.

Checked here on an embedded store, where the same engine answers both ways, with what the
gathering must carry over: every board of the seeds, an accepted alias (a record outside the
pages), and a withdrawn page. tests/stores/test_contract.py holds the rows Virtuoso answers
gathered to the embedded store's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest
from support import copy_store, run_cli

from benchgraph import answering, asof, queries
from benchgraph.store.embedded import EmbeddedStore

CLAIMS = Path(__file__).parent / "data" / "claims"
SQUAD = "https://w3id.org/benchgraph/id/benchmark/question-answering/squad1-1"
LEADERBOARD = queries.find("leaderboard")


Rows = list[dict[str, str]]


def both(store: EmbeddedStore, **values: str) -> tuple[Rows, Rows]:
    """The leaderboard's rows as the store gives them, and as its scope's pages gathered give
    them."""
    question = answering.ask(LEADERBOARD, values, answering.StoreFinder(store))
    past = question.past
    assert past is not None and past.reading == "current" and not past.read_on(store.kind)
    direct = answering.run(store, question)
    gathered = asof.run(store, past, question.text, question.bindings)
    return _rows(direct), _rows(gathered)


def _rows(answer: object) -> Rows:
    assert isinstance(answer, ox.QuerySolutions)
    names = [v.value for v in answer.variables]
    found = [{n: str(row[n]) if row[n] is not None else "" for n in names} for row in answer]
    return sorted(found, key=lambda row: sorted(row.items()))


@pytest.fixture
def seeded(seeds_store: Path, tmp_path: Path) -> Iterator[EmbeddedStore]:
    with EmbeddedStore(copy_store(seeds_store, tmp_path / "store"), read_only=True) as store:
        yield store


def test_every_board_of_the_seeds_is_the_store_s_when_gathered(seeded: EmbeddedStore) -> None:
    boards = seeded.query(
        "PREFIX bg: <https://w3id.org/benchgraph/ns#> "
        "SELECT ?b ?m WHERE { ?b a bg:Benchmark ; bg:hasMetric ?m }"
    )
    assert isinstance(boards, ox.QuerySolutions)
    asked = [(str(row["b"].value), str(row["m"].value)) for row in boards]
    ranked = 0
    for benchmark, metric in asked:
        direct, gathered = both(seeded, benchmark=benchmark, metric=metric)
        assert gathered == direct, (benchmark, metric)
        ranked += len(direct)
    results = seeded.query(
        "PREFIX bg: <https://w3id.org/benchgraph/ns#> SELECT ?r WHERE { ?r a bg:Result }"
    )
    assert isinstance(results, ox.QuerySolutions)
    assert ranked == len(list(results))  # each seed result is a claim of its own, ranked once


def test_an_accepted_alias_and_a_withdrawal_are_gathered_as_the_store_reads_them(
    store_dir: Path, tmp_path: Path
) -> None:
    """A second model card names BERT-Base otherwise; once the alias is accepted its value joins
    BERT-Base's claim, gathered as in the store. Once a page is withdrawn, its values are gone
    from both."""
    card = (CLAIMS / "card-bert-base-squad.md").read_text(encoding="utf-8")
    (tmp_path / "card.md").write_text(
        card.replace("- name: BERT-Base", "- name: BERT-Base (single model)"), encoding="utf-8"
    )
    for path in (CLAIMS, tmp_path / "card.md"):
        assert run_cli("ingest", str(path), store=store_dir).returncode == 0
    proposed = run_cli("alias", "propose-from-findings", store=store_dir)
    assert proposed.returncode == 0, proposed.stderr
    accepted = run_cli(
        "alias", "accept", "BERT-Base (single model)", "BERT-Base", "--by", "ana", store=store_dir
    )
    assert accepted.returncode == 0, accepted.stderr
    with EmbeddedStore(store_dir, read_only=True) as store:
        direct, gathered = both(store, benchmark=SQUAD)
    counts = [row["claimValues"] for row in direct]
    assert any(c.startswith('"4"') for c in counts)  # the alias is followed: four values
    assert gathered == direct
    removed = run_cli("remove", str(tmp_path / "card.md"), store=store_dir)
    assert removed.returncode == 0, removed.stderr
    with EmbeddedStore(store_dir, read_only=True) as store:
        after, gathered_after = both(store, benchmark=SQUAD)
    assert not any(row["claimValues"].startswith('"4"') for row in after)
    assert gathered_after == after
