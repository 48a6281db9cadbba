"""What Virtuoso does otherwise than SPARQL says, met where benchgraph reads or writes it: an
answer cut at its row limit, and one it gives with the rows found when its time ran out, are
refused, never taken as whole (the other differences are in the contract tests, which run on
Virtuoso too)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support import EXAMPLES, run_cli, virtserver

from bench.virtuoso import VirtuosoServer

CAP = 20  # rows: fewer than the results of the examples


@pytest.fixture(scope="module")
def capped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VirtuosoServer]:
    """A Virtuoso of its own whose answers are cut at CAP rows."""
    if not virtserver.installed():
        pytest.skip(virtserver.INSTALL_HINT)
    server = VirtuosoServer(tmp_path_factory.mktemp("capped"), max_rows=CAP).start()
    yield server
    server.stop()


def test_an_answer_cut_at_the_row_limit_is_an_error_not_a_short_answer(
    capped: VirtuosoServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in virtserver.settings(capped).items():
        monkeypatch.setenv(name, value)
    loaded = run_cli("ingest", str(EXAMPLES), "--store", capped.url)
    assert loaded.returncode == 0, loaded.stderr
    few = run_cli("query", f"SELECT ?r WHERE {{ ?r a ?t }} LIMIT {CAP - 1}", "--store", capped.url)
    assert few.returncode == 0, few.stderr
    assert len(few.stdout.splitlines()) > 1
    cut = run_cli("query", "SELECT ?s ?p ?o WHERE { ?s ?p ?o }", "--store", capped.url)
    assert cut.returncode == 2, cut.stdout[:300]
    assert f"cut its answer while answering a query at {CAP} rows" in cut.stderr
    assert capped.url in cut.stderr
    dumped = run_cli("export", "--format", "nquads", "--store", capped.url)
    assert dumped.returncode == 2
    assert "cut its answer while reading every quad" in dumped.stderr


def test_an_answer_cut_when_the_time_ran_out_is_an_error_not_a_short_answer(
    capped: VirtuosoServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Virtuoso's "anytime" answer: asked with a time limit (a ``timeout`` in the endpoint's
    URL, as a public endpoint's address may carry one, or its own MaxQueryExecutionTime), it
    answers HTTP 200 with the rows found so far and the state S1TAT in a header."""
    for name, value in virtserver.settings(capped).items():
        monkeypatch.setenv(name, value)
    loaded = run_cli("ingest", str(EXAMPLES), "--store", capped.url)
    assert loaded.returncode == 0, loaded.stderr
    hurried = capped.url + "?timeout=200"  # milliseconds
    quick = run_cli("query", "ASK { ?s ?p ?o }", "--store", hurried)
    assert quick.returncode == 0 and "true" in quick.stdout, quick.stderr
    # Every triple of statements, their objects compared as text: far past 200 ms.
    slow = (
        "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o . ?a ?b ?c . ?x ?y ?z "
        "FILTER (CONCAT(STR(?o), STR(?z)) = STR(?c)) }"
    )
    cut = run_cli("query", slow, "--store", hurried)
    assert cut.returncode == 2, cut.stdout[:300]
    assert "answered with the rows it had found when its time ran out" in cut.stderr
    assert "X-SQL-State S1TAT" in cut.stderr and hurried in cut.stderr
    assert "Traceback" not in cut.stderr
