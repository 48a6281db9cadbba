"""Read-only and bounded, against a real server: updates, SERVICE, FROM outside the store,
injection through named-query parameters, path tricks, oversized bodies, runaway queries."""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from support import PATIENCE
from support.live import children, running

from server.engine import Answered, Failure, Job
from server.workers import Busy, PoolError, Preempted, TimedOut, WorkerPool

MARK = "<urn:benchgraph:test:inserted>"
ASK_MARK = f"ASK {{ GRAPH ?g {{ {MARK} ?p ?o }} }}"


class Listener:
    """A TCP socket on the loopback that records whether anything ever connected to it."""

    def __init__(self) -> None:
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen()
        self.socket.settimeout(0.2)
        self.port = self.socket.getsockname()[1]
        self.connections = 0

    def connected(self) -> bool:
        try:
            conn, _ = self.socket.accept()
        except TimeoutError:
            return self.connections > 0
        conn.close()
        self.connections += 1
        return True


@pytest.fixture
def listener() -> Iterator[Listener]:
    found = Listener()
    yield found
    found.socket.close()


def store_size(store: Path) -> int:
    return len(ox.Store.read_only(str(store)))


def asks_mark(http: Any, endpoint: str) -> bool:
    return http.fetch(http.url(endpoint, query=ASK_MARK)).json()["boolean"]


@pytest.mark.parametrize(
    "update",
    [
        f"INSERT DATA {{ GRAPH <urn:g> {{ {MARK} <urn:p> 1 }} }}",
        f"PREFIX x: <urn:x> insert data {{ {MARK} <urn:p> 1 }}",
        "DROP ALL",
        "CLEAR DEFAULT",
        "LOAD <http://127.0.0.1:9/data.ttl>",
        f"WITH <urn:g> DELETE {{ ?s ?p ?o }} INSERT {{ {MARK} <urn:p> 1 }} WHERE {{ ?s ?p ?o }}",
    ],
)
def test_updates_are_refused_and_never_run(server: Any, http: Any, update: str) -> None:
    before = store_size(server.store)
    attempts = [
        http.fetch(http.url(server.sparql, query=update)),
        http.fetch(http.url(server.sparql, update=update)),
        http.fetch(
            server.sparql,
            urllib.parse.urlencode({"update": update}).encode(),
            Content_Type="application/x-www-form-urlencoded",
        ),
        http.fetch(server.sparql, update.encode(), Content_Type="application/sparql-update"),
    ]
    for reply in attempts:
        assert reply.status == 400, reply.text
        assert "read-only" in reply.json()["error"]
    assert store_size(server.store) == before
    assert not asks_mark(http, server.sparql)


def service_queries(port: int) -> list[str]:
    target = f"http://127.0.0.1:{port}/"
    return [
        f"SELECT * WHERE {{ SERVICE <{target}> {{ ?s ?p ?o }} }}",
        f"select * where {{ service silent <{target}> {{ ?s ?p ?o }} }}",
        f"SELECT * WHERE {{ SERVICESILENT<{target}>{{}} }}",
        f"SELECT * WHERE {{ ?s ?p trueSERVICE SILENT <{target}> {{}} }}",
        f"PREFIX : <{target}> SELECT * WHERE {{ SERVICE SILENT:x {{}} }}",
        f"PREFIX x: <{target}> SELECT * WHERE {{ SERVICE x:sparql {{ ?s ?p ?o }} }}",
        # '<' read as an IRI by a naive lexer, as "less than" by the engine:
        f"SELECT * WHERE {{ FILTER(1<'x>') SERVICE <{target}> {{ }} }} #'",
        f"SELECT * WHERE {{ ?s ?p ?o FILTER(?o <?s#> '''\n) SERVICE <{target}> {{}} #'''\n}}",
        f"SELECT * WHERE {{ OPTIONAL {{ SERVICE ?endpoint {{ ?s ?p ?o }} }} "
        f"VALUES ?endpoint {{ <{target}> }} }}",
    ]


def test_service_is_refused_and_connects_nowhere(server: Any, http: Any, listener: Listener):
    for query in service_queries(listener.port):
        for reply in (
            http.fetch(http.url(server.sparql, query=query)),
            http.fetch(server.sparql, query.encode(), Content_Type="application/sparql-query"),
        ):
            assert reply.status == 400, (query, reply.text)
            assert reply.json()["ok"] is False
    assert not listener.connected()


def test_query_workers_cannot_connect_even_if_asked(scratch_store: Path, listener: Listener):
    # The second wall: a SERVICE query handed straight to a worker, past the guard.
    pool = WorkerPool(scratch_store, 1, 10)
    try:
        for query in service_queries(listener.port)[:2]:
            reply = pool.run(Job(query, "json", None, 10))
            assert isinstance(reply, Failure | Answered)
            if isinstance(reply, Answered):  # SILENT: the failed call yields no rows
                assert b'"bindings":[{}]' in reply.body or b'"bindings":[]' in reply.body
    finally:
        pool.close()
    assert not listener.connected()


@pytest.mark.parametrize(
    "graph", ["file:///etc/passwd", "http://127.0.0.1:{port}/graph", "urn:not-a-stored-graph"]
)
def test_only_graphs_of_the_store_can_be_named(server: Any, http: Any, listener: Listener, graph):
    graph = graph.format(port=listener.port)
    replies = [
        http.fetch(http.url(server.sparql, query=f"SELECT * FROM <{graph}> WHERE {{ ?s ?p ?o }}")),
        http.fetch(
            http.url(server.sparql, query=f"SELECT * FROM NAMED <{graph}> WHERE {{ ?s ?p ?o }}")
        ),
        http.fetch(
            http.url(server.sparql, query="ASK { ?s ?p ?o }", **{"default-graph-uri": graph})
        ),
        http.fetch(http.url(server.sparql, query="ASK { ?s ?p ?o }", **{"named-graph-uri": graph})),
    ]
    for reply in replies:
        assert reply.status == 400, reply.text
        assert (
            reply.json()["graph"] == graph and "not a graph of this store" in reply.json()["error"]
        )
    assert not listener.connected()


def test_from_with_a_prefixed_name_is_checked_too(server: Any, http: Any) -> None:
    query = "PREFIX f: <file:///etc/> SELECT * FROM f:passwd WHERE { ?s ?p ?o }"
    reply = http.fetch(http.url(server.sparql, query=query))
    assert reply.status == 400 and reply.json()["graph"] == "file:///etc/passwd"


HOSTILE = [
    '68fa791f1e209131cea7c381" } UNION { ?method ?p ?label } #',
    "68fa791f1e209131cea7c381' } UNION { ?method ?p ?label } #",
    "} UNION { ?paper ?p ?label }",
    '"} } SELECT * WHERE { ?s ?p ?o } #',
    "{ ?s ?p ?o }",
    "https://w3id.org/benchgraph/id/paper/x> } UNION { ?paper ?p ?label } #",
    "\\u0022 } UNION { ?s ?p ?o }",
]


@pytest.mark.parametrize("value", HOSTILE)
def test_named_query_parameters_are_bound_not_spliced(server: Any, http: Any, value: str) -> None:
    for name in ("methods-introduced-by-paper", "methods-reported-by-paper"):
        reply = http.fetch(http.url(f"{server.url}queries/{name}", paper=value))
        # Not a valid IRI (400), or no paper of the store (404): refused, naming the parameter.
        assert reply.status in (400, 404), reply.text
        assert reply.json()["parameter"] == "paper"


@pytest.mark.parametrize(
    "path", ["/queries/../x", "/queries/..%2Fx", "/queries/%2e%2e/%2e%2e/etc/passwd", "/queries/.."]
)
def test_paths_outside_the_catalogue_are_404(server: Any, path: str) -> None:
    address = urllib.parse.urlsplit(server.url)
    conn = http.client.HTTPConnection(address.hostname, address.port, timeout=10)
    conn.request("GET", path, headers={"Accept": "application/json"})  # sent as written
    response = conn.getresponse()
    body = response.read()
    conn.close()
    assert response.status == 404, body
    assert b'"ok":false' in body.replace(b" ", b"")


def test_a_10_mb_body_is_413(server: Any, http: Any) -> None:
    body = b"SELECT * WHERE { ?s ?p ?o } #" + b"x" * (10 * 1024 * 1024)
    for content_type, data in [
        ("application/sparql-query", body),
        ("application/x-www-form-urlencoded", b"query=" + body),
    ]:
        reply = http.fetch(server.sparql, data, Content_Type=content_type, timeout=60)
        assert reply.status == 413 and reply.json()["status"] == 413


def test_deep_nesting_is_refused_and_the_server_stays_up(server: Any, http: Any) -> None:
    deep = "SELECT * WHERE " + "{" * 5000 + "}" * 5000
    reply = http.fetch(server.sparql, deep.encode(), Content_Type="application/sparql-query")
    assert reply.status == 400 and "levels deep" in reply.json()["error"]
    assert http.fetch(http.url(server.sparql, query="ASK {}")).status == 200


RUNAWAY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"


def test_a_runaway_query_times_out_while_others_are_served(server: Any, http: Any) -> None:
    answers: dict[str, Any] = {}

    def runaway() -> None:
        started = time.monotonic()
        answers["reply"] = http.fetch(http.url(server.sparql, query=RUNAWAY))
        answers["seconds"] = time.monotonic() - started
        answers["runaway done"] = time.monotonic()

    thread = threading.Thread(target=runaway)
    thread.start()
    time.sleep(0.3)
    quick = http.fetch(http.url(server.sparql, query="ASK { ?s ?p ?o }"))
    answers["quick done"] = time.monotonic()
    thread.join(PATIENCE)
    assert quick.status == 200 and quick.json()["boolean"] is True
    assert answers["quick done"] < answers["runaway done"]  # served while the other ran
    reply = answers["reply"]
    assert reply.status == 504, reply.text
    assert reply.json()["ok"] is False and "time limit" in reply.json()["error"]
    assert 1.4 < answers["seconds"] < 15
    # The stopped worker was replaced: the server answers as before.
    again = http.fetch(http.url(server.sparql, query="ASK { ?s ?p ?o }"))
    assert again.status == 200 and again.json()["boolean"] is True


def test_a_worker_killed_while_idle_is_replaced_unnoticed(scratch_store: Path) -> None:
    pool = WorkerPool(scratch_store, 1, 10)
    try:
        pool.start()
        (worker,) = pool._idle  # (a spare waits beside it)
        worker.process.kill()
        worker.process.wait()
        reply = pool.run(Job("ASK { ?s ?p ?o }", "json", None, 10))
        assert isinstance(reply, Answered) and b"true" in reply.body
    finally:
        pool.close()


def test_a_spare_killed_while_waiting_is_not_handed_a_query(scratch_store: Path) -> None:
    """Regression: a spare that had opened the store and then died was handed the next query,
    which failed as if the query had crashed its worker (400)."""
    pool = WorkerPool(scratch_store, 1, 10)
    try:
        pool.start()
        for spare in pool._spares:
            spare.wait_ready(30)
        for worker in list(pool._all):
            worker.process.kill()
            worker.process.wait()
        reply = pool.run(Job("ASK { ?s ?p ?o }", "json", None, 10))
        assert isinstance(reply, Answered) and b"true" in reply.body
    finally:
        pool.close()


def run_in_thread(pool: WorkerPool, job: Job, outcome: dict[str, object]) -> threading.Thread:
    """Run ``job`` on ``pool`` in a thread; ``outcome["reply"]`` is its answer or error."""

    def run() -> None:
        try:
            outcome["reply"] = pool.run(job)
        except PoolError as error:
            outcome["reply"] = error
        outcome["done"] = time.monotonic()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def await_running(pool: WorkerPool) -> None:
    """Wait until a worker of ``pool`` runs a job."""
    deadline = time.monotonic() + PATIENCE
    while pool.running() == 0:
        assert time.monotonic() < deadline, "no job began"
        time.sleep(0.01)


def test_long_queries_give_way_to_waiting_ones(scratch_store: Path) -> None:
    """Regression: clients whose queries ran to the time limit held every worker, and every
    other request waited that long and got 503 (the soak's starvation)."""
    pool = WorkerPool(scratch_store, 1, 4)  # a share of 1 s
    outcome: dict[str, object] = {}
    try:
        pool.start()
        thread = run_in_thread(pool, Job(RUNAWAY, "json", None, 10, preemptible=True), outcome)
        await_running(pool)
        quick = pool.run(Job("ASK { ?s ?p ?o }", "json", None, 10))
        thread.join(PATIENCE)
        again = pool.run(Job("ASK { ?s ?p ?o }", "json", None, 10))  # the pool is whole
    finally:
        pool.close()
    assert isinstance(quick, Answered) and b"true" in quick.body
    stopped = outcome["reply"]  # stopped after its share to make room, not after its 4 s
    assert isinstance(stopped, Preempted) and stopped.status == 503
    assert "busy" in str(stopped) and "try again" in str(stopped)
    assert isinstance(again, Answered)


def test_the_server_s_own_queries_are_not_stopped_to_make_room(scratch_store: Path) -> None:
    pool = WorkerPool(scratch_store, 1, 2)
    outcome: dict[str, object] = {}
    try:
        pool.start()
        thread = run_in_thread(pool, Job(RUNAWAY, "json", None, 10), outcome)
        await_running(pool)
        with contextlib.suppress(Busy):  # it may wait past its own time limit
            pool.run(Job("ASK { ?s ?p ?o }", "json", None, 10))
        thread.join(PATIENCE)
    finally:
        pool.close()
    assert isinstance(outcome["reply"], TimedOut)  # ran its whole time limit


def test_a_worker_that_cannot_open_the_store_is_503_without_the_path(
    scratch_store: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Regression: the 503's message quoted the worker's error, which names the store's
    folder."""
    pool = WorkerPool(scratch_store, 1, 5)
    errors: list[str] = []
    try:
        pool.start()
        scratch_store.rename(tmp_path / "moved")  # fresh workers cannot open it any more
        for worker in list(pool._all):
            worker.process.kill()
            worker.process.wait()
        for _ in range(4):
            try:
                pool.run(Job("ASK { ?s ?p ?o }", "json", None, 10))
            except Busy as error:
                errors.append(str(error))
    finally:
        pool.close()
    assert errors and all("no query worker is available" in e for e in errors)
    assert not any(str(tmp_path) in e for e in errors)
    assert "cannot open the store at" in caplog.text  # the log still says why


def ask_quietly(fetch: Any, url: str) -> None:
    """Ask, not minding that the server dies meanwhile."""
    with contextlib.suppress(OSError, http.client.HTTPException):
        fetch(url)


def test_query_workers_die_with_the_server(scratch_store: Path, http: Any) -> None:
    """Even one busy with a query that would run for a minute: it would not notice that the
    server is gone until the query ends."""
    live = http.Live(scratch_store, "--workers", "2", "--query-timeout", "60")
    try:
        workers = children(live.process.pid)
        assert len(workers) == 3  # two workers and the spare
        url = http.url(live.sparql, query=RUNAWAY)
        busy = threading.Thread(target=ask_quietly, args=(http.fetch, url), daemon=True)
        busy.start()
        time.sleep(0.5)
        live.process.kill()  # no chance to stop them itself
        live.process.wait()
        deadline = time.monotonic() + PATIENCE
        while any(running(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(running(p) for p in workers)
    finally:
        live.stop()
