"""The feed tells a contradiction by the headline rule and the agreement of ``claims.rq``, read
again in Python for some of a claim's values (server.claims): held here to the query's own
answers, so the two cannot drift apart."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_claims import DATA, ask

from benchgraph.store import Store
from ingest.loader import ingest_file
from server import claims


@pytest.fixture
def claimed(store: Store, seeds: Path) -> Store:
    for path in [*sorted(DATA.iterdir()), *sorted(seeds.iterdir())]:
        assert ingest_file(store, path).status == "loaded", path
    return store


def test_the_headline_and_agreement_are_the_querys(claimed: Store) -> None:
    # as the server gives rows: an unbound cell left out
    rows = [{k: v for k, v in row.items() if v is not None} for row in ask(claimed, "claims")]
    found = claims.grouped(rows)
    several = [c for c in found.values() if len(c.values) > 1]
    assert several, "no claim with more than one value"
    for claim in found.values():
        assert claims.headline_among(claim.values) is claim.headline, claim.iri
        for value in claim.values:
            assert claims.agree(value, claim.headline) == (value["agrees"] == "true"), value


@pytest.mark.parametrize(
    ("one", "other", "agree"),
    [
        (("93.1", "93.1", ""), ("93.14", "93.14", ""), True),
        (("80.8", "80.8", ""), ("81.2", "81.2", ""), False),
        (("0.809", "80.9", "fraction read as percent"), ("80.8", "80.8", ""), False),
        (("0.808", "80.8", "fraction read as percent"), ("80.8", "80.8", ""), True),
        (("81", "81", ""), ("80.6", "80.6", ""), True),
    ],
)
def test_two_values_agree_at_the_coarser_precision(
    one: tuple[str, str, str], other: tuple[str, str, str], agree: bool
) -> None:
    def row(cells: tuple[str, str, str]) -> dict[str, str]:
        return dict(zip(("value", "scaled", "scale"), cells, strict=True))

    assert claims.agree(row(one), row(other)) is agree
    assert claims.agree(row(other), row(one)) is agree


def test_the_method_a_claim_names() -> None:
    base = "https://w3id.org/benchgraph/id/"
    claim = base + "claim/f0f979200e46259b/method/bert-base"
    assert claims.method_of(claim, base) == base + "method/bert-base"
    assert claims.method_of(base + "result/x", base) == ""
