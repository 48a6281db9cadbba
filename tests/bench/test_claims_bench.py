"""``bench.claims`` measures the leaderboard against the leaderboard before claims: on a
generated corpus, where no claim gathers two values, both rank the same results alike, and
the report's section and verdicts say so."""

from __future__ import annotations

from pathlib import Path

from support import generate_corpus, run_cli

from bench import claims, report
from benchgraph.store.embedded import EmbeddedStore


def test_the_board_ranks_as_before_where_every_claim_has_one_value(tmp_path: Path) -> None:
    generate_corpus(tmp_path / "corpus", seed=3, pages=40)
    store = tmp_path / "store"
    assert run_cli("ingest", str(tmp_path / "corpus" / "pages"), store=store).returncode in (0, 1)
    with EmbeddedStore(store, read_only=True) as opened:
        measured = claims.measure_store(opened, benchmarks=2, repeat=1)
    assert len(measured["benchmarks"]) == 2
    for board in measured["benchmarks"]:
        assert board["rows"] > 0 and board["gathered"] == 0
        assert board["same"] is True
        assert board["claims"] == board["results"]
    lines = report.claims_tables([{"pages": 40, **measured}])
    assert any(line.startswith("| 40 | `benchmark/") for line in lines)
    verdicts = report.claims_verdicts([{"pages": 40, **measured}])
    assert len(verdicts) == 2 and all("within 1.3×" in v for v in verdicts)
