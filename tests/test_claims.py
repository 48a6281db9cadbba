"""Claims: every source's value for one result gathered, its headline chosen by a stated rule,
and the disagreements between sources told apart, over pages in three formats that report one
result (tests/data/claims: BERT-Base's SQuAD1.1 exact match from its own paper, from the
DistilBERT paper's table and from a model card on a 0-1 scale)."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from benchgraph import answering, queries
from benchgraph.store import Store
from benchgraph.store.embedded import EmbeddedStore
from ingest.loader import ingest_file

DATA = Path(__file__).parent / "data" / "claims"
QUERIES = Path(__file__).parents[1] / "queries"
SQUAD = "https://w3id.org/benchgraph/id/benchmark/question-answering/squad1-1"


@pytest.fixture
def claimed(store: Store) -> Store:
    for path in sorted(DATA.iterdir()):
        assert ingest_file(store, path).status == "loaded", path
    return store


def ask(store: Store, name: str, **values: str) -> list[dict[str, Any]]:
    """The rows of the named query, each a mapping of column to its value as Python text."""
    answer = answering.answer(store, queries.find(name), values)
    names = [v.value for v in answer.variables]
    return [{n: (row[n].value if row[n] is not None else None) for n in names} for row in answer]


def bert(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [row for row in rows if row["methodLabel"] == "BERT-Base"]


def test_one_result_in_three_formats_is_one_claim_of_three_values(claimed: Store) -> None:
    rows = bert(ask(claimed, "claims", benchmark=SQUAD))
    assert len(rows) == 3 and len({row["claim"] for row in rows}) == 1
    assert {row["values"] for row in rows} == {"3"} and {row["sources"] for row in rows} == {"3"}
    by_role = {row["role"]: row for row in rows}
    assert set(by_role) == {"origin paper", "another paper", "model card"}
    # the headline by the default rule: the origin paper's own figure
    assert [row["value"] for row in rows if row["headline"] == "true"] == ["80.8"]
    # the model card's fraction is read as a percentage, and said to be
    card = by_role["model card"]
    assert (card["value"], Decimal(card["scaled"])) == ("0.809", Decimal("80.9"))
    assert card["scale"] == "fraction read as percent"
    assert [by_role[r]["scale"] for r in ("origin paper", "another paper")] == ["", ""]
    # 0.4 and 0.1 points from the headline: more than half the last place of 80.8
    assert Decimal(by_role["another paper"]["difference"]) == Decimal("0.4")
    assert Decimal(card["difference"]) == Decimal("0.1")
    assert [by_role[r]["agrees"] for r in ("origin paper", "another paper", "model card")] == [
        "true",
        "false",
        "false",
    ]


def test_a_tolerance_makes_values_agree(claimed: Store) -> None:
    rows = bert(ask(claimed, "claims", benchmark=SQUAD, tolerance="0.4"))
    assert {row["agrees"] for row in rows} == {"true"}
    rows = bert(ask(claimed, "claims", benchmark=SQUAD, tolerance="0.2"))
    assert sorted(row["agrees"] for row in rows) == ["false", "true", "true"]


@pytest.mark.parametrize(
    ("rule", "headline"), [("origin", "80.8"), ("independent", "81.2"), ("latest", "81.2")]
)
def test_the_rule_chooses_the_headline(claimed: Store, rule: str, headline: str) -> None:
    rows = bert(ask(claimed, "claims", benchmark=SQUAD, prefer=rule))
    assert [row["value"] for row in rows if row["headline"] == "true"] == [headline]


def test_an_unknown_rule_is_refused(claimed: Store) -> None:
    with pytest.raises(queries.QueryError, match="origin, independent, latest"):
        ask(claimed, "claims", prefer="newest")


def test_two_papers_baselines_stay_apart(claimed: Store) -> None:
    baselines = [row for row in ask(claimed, "claims") if row["methodLabel"] == "Baseline"]
    assert sorted(row["value"] for row in baselines) == ["40.4", "64.7"]
    assert len({row["claim"] for row in baselines}) == 2
    assert {row["values"] for row in baselines} == {"1"}
    board = ask(claimed, "leaderboard", benchmark=SQUAD)
    assert sorted(r["value"] for r in board if r["methodLabel"] == "Baseline") == ["40.4", "64.7"]


def test_the_disagreement_is_named_with_its_spread_and_cause(claimed: Store) -> None:
    (row,) = ask(claimed, "disagreements")
    assert row["methodLabel"] == "BERT-Base"
    assert (row["values"], row["sources"], row["disagreeing"]) == ("3", "3", "2")
    assert row["headlineValue"] == "80.8"
    low, high, spread = (Decimal(row[k]) for k in ("low", "high", "spread"))
    assert (low, high, spread) == (Decimal("80.8"), Decimal("81.2"), Decimal("0.4"))
    assert row["causes"] == "scale mismatch"
    assert ask(claimed, "disagreements", minSpread="0.5") == []
    assert len(ask(claimed, "disagreements", benchmark=SQUAD, minSpread="0.4")) == 1


def test_the_leaderboard_ranks_each_claim_once(claimed: Store) -> None:
    board = ask(claimed, "leaderboard", benchmark=SQUAD)
    (row,) = [r for r in board if r["methodLabel"] == "BERT-Base"]
    assert (row["value"], row["rank"]) == ("80.8", "1")
    assert (row["claimValues"], row["claimSources"], row["agreeing"]) == ("3", "3", "1")
    (latest,) = [
        r
        for r in ask(claimed, "leaderboard", benchmark=SQUAD, prefer="latest")
        if r["methodLabel"] == "BERT-Base"
    ]
    assert latest["value"] == "81.2"


def test_a_page_that_names_several_results_alike_keeps_them_apart(
    seeds: Path, store: Store
) -> None:
    """GenAI-Bench's page gives one method several results (variants, base models): each is a
    claim of its own, none hides another on the board."""
    for path in sorted(seeds.iterdir()):
        ingest_file(store, path)
    rows = ask(store, "claims", benchmark="GenAI-Bench")
    assert len(rows) == len({row["claim"] for row in rows}) == 30
    assert len(ask(store, "leaderboard", benchmark="GenAI-Bench")) == 30


def _blocks(text: str, marker: str) -> list[str]:
    """The blocks of ``text`` that open with a line ending in ``marker``, dedented, up to the
    line that closes them."""
    found = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.rstrip().endswith(marker):
            depth, block = 0, []
            for inner in lines[i:]:
                block.append(inner.strip())
                depth += inner.count("{") - inner.count("}")
                if depth <= 0 and len(block) > 1:
                    break
            found.append("\n".join(block[1:]))
    return found


def test_the_copies_of_a_value_are_alike() -> None:
    """claims.rq writes its block "value of" twice; disagreements.rq and leaderboard.rq hold
    copies of it: all must be the same text, or a board would rank by another rule than the
    claims it lists."""
    texts = {name: (QUERIES / f"{name}.rq").read_text() for name in ("claims", "disagreements")}
    texts["leaderboard"] = (QUERIES / "leaderboard.rq").read_text()
    blocks = {name: _blocks(text, "# value of") for name, text in texts.items()}
    assert [len(blocks[n]) for n in ("claims", "disagreements", "leaderboard")] == [2, 2, 5]
    everyone = {re.sub(r"\s+", " ", b) for found in blocks.values() for b in found}
    assert len(everyone) == 1


def test_an_accepted_alias_gathers_two_names_and_a_proposed_or_rejected_one_does_not(
    store_dir: Path, tmp_path: Path
) -> None:
    """A fourth source, a second model card, names BERT-Base "BERT-Base (single model)": a near
    miss, proposed from the findings, gathered into BERT-Base's claim only once accepted, and
    apart again once the alias is rejected. The pages' own statements are never rewritten."""
    from support import run_cli

    card = (DATA / "card-bert-base-squad.md").read_text(encoding="utf-8")
    (tmp_path / "card.md").write_text(
        card.replace("- name: BERT-Base", "- name: BERT-Base (single model)"), encoding="utf-8"
    )
    for path in (DATA, tmp_path / "card.md"):
        done = run_cli("ingest", str(path), store=store_dir)
        assert done.returncode == 0, done.stderr

    def bert_values() -> list[int]:
        with EmbeddedStore(store_dir, read_only=True) as opened:
            rows = ask(opened, "claims", benchmark=SQUAD)
        named = [r for r in rows if r["methodName"].startswith("BERT-Base")]
        return sorted({(r["claim"], int(r["values"])) for r in named}, key=str)

    assert sorted(n for _, n in bert_values()) == [1, 3]
    done = run_cli("alias", "propose-from-findings", store=store_dir)
    assert done.returncode == 0, done.stderr
    assert sorted(n for _, n in bert_values()) == [1, 3]  # proposed: not followed
    subject, target = "BERT-Base (single model)", "BERT-Base"
    assert (
        run_cli("alias", "accept", subject, target, "--by", "ana", store=store_dir).returncode == 0
    )
    ((claim, values),) = bert_values()
    assert values == 4 and claim.endswith("/method/bert-base")
    with EmbeddedStore(store_dir, read_only=True) as opened:
        board = ask(opened, "leaderboard", benchmark=SQUAD)
    assert [r["claimValues"] for r in board if r["method"].endswith("/bert-base")] == ["4"]
    assert not [r for r in board if r["method"].endswith("/bert-base-single-model")]
    assert (
        run_cli("alias", "reject", subject, target, "--by", "bo", store=store_dir).returncode == 0
    )
    assert sorted(n for _, n in bert_values()) == [1, 3]
