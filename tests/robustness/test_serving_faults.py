"""Serving faults: what operators and clients do to a running ``benchgraph serve`` (real
processes, asked over loopback), and what must hold through it.

- **A second start**: refused, naming the first server, and touching nothing that server
  holds (the store folder, its holder record, its generations are as they were); the first
  keeps answering queries, publishing writes and replacing workers. Several starts at once
  give exactly one server, round after round.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from live import TIME_LIMIT, Live, Reply, fetch, query_url
from support import EXAMPLES, REPO, build_store, copy_store, run_cli

from bench.launch import Server
from benchgraph import graphs, holder

NOCAPS = REPO / "tests" / "data" / "sota2" / "nocaps-cider.md"  # not in the examples
NOCAPS_PAGE = "sota2/image-captioning-on-nocaps-val/cider"
TOKEN = "operator-5d1e7a90c3b24f68"
RUNAWAY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
# Starts at once, and rounds of them: the fault needed the loser to fail while the winner
# was still taking its first generation, which a few rounds give it the chance to.
STARTS = 3
ROUNDS = 3


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("examples") / "store", EXAMPLES)


@pytest.fixture
def store(examples: Path, tmp_path: Path) -> Path:
    """A copy of the examples store of the test's own."""
    return copy_store(examples, tmp_path / "store")


@pytest.fixture
def token(tmp_path: Path) -> Path:
    path = tmp_path / "write.token"
    path.write_text(TOKEN + "\n")
    path.chmod(0o600)
    return path


@pytest.fixture
def first(store: Path, token: Path) -> Iterator[Live]:
    """The first server on the store: one worker (and its spare), the write API on."""
    live = Live(store, "--workers", "1", "--write-token-file", str(token))
    yield live
    assert live.stop() == 0, live.errors()


def ask(url: str, query: str = "ASK { ?s ?p ?o }") -> Reply:
    return fetch(query_url(url + "sparql", query=query), Accept="application/sparql-results+json")


def holds(url: str, page: str) -> bool:
    """Whether the server at ``url`` answers that the graph of ``page`` holds statements."""
    reply = ask(url, f"ASK {{ GRAPH <{graphs.page(page)}> {{ ?s ?p ?o }} }}")
    assert reply.status == 200, reply.text
    return bool(reply.json()["boolean"])


def assert_keeps_serving(url: str) -> None:
    """The server at ``url`` answers a query, publishes a page posted and then withdrawn
    (each seen by its readers at once), and answers again after a query past the time limit
    made it replace its worker, twice (the spare, then the one started in its place)."""
    assert ask(url).status == 200
    auth = {"Authorization": f"Bearer {TOKEN}"}
    posted = fetch(query_url(url + "pages", name="nocaps-cider.md"), NOCAPS.read_bytes(), "POST",
                   Accept="application/json", **auth)  # fmt: skip
    assert posted.status == 201, posted.text
    assert holds(url, NOCAPS_PAGE)
    withdrawn = fetch(url + "pages/" + NOCAPS_PAGE, None, "DELETE", **auth)
    assert withdrawn.status == 200, withdrawn.text
    assert not holds(url, NOCAPS_PAGE)
    for _ in range(2):
        stopped = ask(url, RUNAWAY)
        assert stopped.status == 504, stopped.text
        after = ask(url)
        assert after.status == 200, after.text


def folder_state(store: Path) -> tuple[list[str], bytes, list[str]]:
    """What a refused start must leave as it was: the store folder's names, the holder
    record's bytes, the generations' names."""
    generations = sorted(p.name for p in (store / holder.GENERATIONS).iterdir())
    record = (store / holder.FILE).read_bytes()
    return sorted(p.name for p in store.iterdir()), record, generations


def test_a_refused_start_touches_nothing_the_running_server_holds(first: Live) -> None:
    before = folder_state(first.store)
    done = run_cli("serve", "--port", "0", "--store", str(first.store))
    assert done.returncode == 2, done.stderr
    pid = first.process.pid
    assert f"another server holds the store at {first.store}" in done.stderr
    assert f"(pid {pid}, serving {first.url})" in done.stderr
    assert "Traceback" not in done.stderr
    assert folder_state(first.store) == before
    assert_keeps_serving(first.url)


def start(store: Path, token: Path, log: Path) -> Server:
    """``benchgraph serve`` on ``store`` with the write API on, started, not waited for."""
    command = [sys.executable, "-m", "benchgraph.cli", "serve", "--store", str(store)]
    command += ["--port", "0", "--query-timeout", TIME_LIMIT, "--workers", "1"]
    command += ["--write-token-file", str(token)]
    return Server(command, log, env=dict(os.environ))


def test_of_starts_at_once_exactly_one_serves_and_keeps_serving(
    store: Path, token: Path, tmp_path: Path
) -> None:
    for round_ in range(ROUNDS):
        logs = [tmp_path / f"serve-{round_}-{i}.log" for i in range(STARTS)]
        servers = [start(store, token, log) for log in logs]
        try:
            # Each prints its URL, or ends (refused) and its output closes.
            lines = [s.process.stdout.readline() for s in servers]  # type: ignore[union-attr]
            serving = [s for s, line in zip(servers, lines, strict=True) if "serving at" in line]
            assert len(serving) == 1, [s.errors() for s in servers]
            (winner,) = serving
            for refused in (s for s in servers if s is not winner):
                assert refused.process.wait() == 2, refused.errors()
                said = refused.errors()
                assert "holds the store" in said or "is locked by another process" in said, said
                assert "Traceback" not in said
            url = lines[servers.index(winner)].split("serving at ")[1].split()[0]
            assert_keeps_serving(url)
        finally:
            codes = [s.stop() for s in servers]
        assert codes.count(0) == 1, [s.errors() for s in servers]
        assert "Traceback" not in winner.errors()
        assert not (store / holder.GENERATIONS).exists() and holder.read(store) is None
