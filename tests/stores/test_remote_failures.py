"""A remote store that fails: down, refusing credentials, forbidding writes, failing mid-batch,
killed in the middle of an ingest. Each gives a clear error naming the endpoint, a non-zero exit,
and never a half-written page.

The server is a real Oxigraph; faults are injected by an HTTP proxy in front of it, as a gateway
in front of a store would fail (tests/oxiserver.py).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pyoxigraph as ox
import pytest
from support import EXAMPLES, PATIENCE, REPO, SEEDS, run_cli, virtserver
from support.oxiserver import FaultProxy, OxigraphServer

from bench.launch import free_port
from bench.virtuoso import VirtuosoServer
from benchgraph import graphs
from benchgraph import vocab as V
from benchgraph.store import StoreError
from benchgraph.store.remote import Endpoints, RemoteStore
from benchgraph.store.sparql_client import StoreTimeout
from ingest.loader import ingest_file

PAGES = SEEDS if SEEDS.is_dir() else EXAMPLES
LAION = EXAMPLES / "sota2-prompt-recovery-on-laion.md"


@pytest.fixture
def proxy(remote: object) -> Iterator[FaultProxy]:
    found = FaultProxy(remote.url)  # type: ignore[attr-defined]
    remote.clear()  # type: ignore[attr-defined]
    yield found
    found.close()


def through(proxy: FaultProxy, **settings: object) -> RemoteStore:
    """A store reaching the server through the proxy, with quick retries."""
    store = RemoteStore(
        Endpoints.of(proxy.url),
        credentials=settings.get("credentials"),  # type: ignore[arg-type]
        timeout=float(settings.get("timeout", 10)),
        retries=int(settings.get("retries", 2)),  # type: ignore[call-overload]
        request_bytes=int(settings.get("request_bytes", 8 * 1024 * 1024)),  # type: ignore[call-overload]
    )
    store.client.backoff = 0.05
    return store


def test_a_server_that_is_down_is_named_in_a_clear_error(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/query"
    with pytest.raises(StoreError, match=re.escape(f"cannot reach {url}")) as caught:
        RemoteStore(Endpoints.of(url), retries=1)
    assert "after 2 attempts" in str(caught.value)
    done = run_cli("ingest", str(LAION), "--store", url)
    assert done.returncode == 2
    assert f"benchgraph: error: cannot reach {url}" in done.stderr
    assert "Connection refused" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_forbidden_write_changes_nothing_and_says_so(proxy: FaultProxy, tmp_path: Path) -> None:
    store = through(proxy)
    assert ingest_file(store, LAION).status == "loaded"
    before = set(store.quads())
    proxy.faults.forbid_updates = True
    changed = tmp_path / LAION.name
    changed.write_bytes(LAION.read_bytes() + b"\n")
    update_url = proxy.url.replace("/query", "/update")
    with pytest.raises(StoreError, match=re.escape(f"{update_url} refused replacing graph")):
        ingest_file(store, changed)
    assert set(store.quads()) == before
    done = run_cli_env({}, "ingest", str(changed), "--store", proxy.url)
    assert done.returncode == 2
    assert "(403 Forbidden)" in done.stderr
    assert f"stopped at {changed}" in done.stderr


def test_a_transient_failure_is_retried(proxy: FaultProxy) -> None:
    store = through(proxy, retries=3)
    proxy.faults.fail_updates_from, proxy.faults.fail_updates_count = 1, 2  # 503, 503, then ok
    assert ingest_file(store, LAION).status == "loaded"
    assert proxy.faults.failed == 2
    assert len(store.named_graphs()) == 3  # the page, its report, the versions catalogue


def test_a_5xx_in_the_middle_of_a_staged_page_keeps_the_old_version(
    proxy: FaultProxy, tmp_path: Path
) -> None:
    big = max(PAGES.iterdir(), key=lambda p: p.stat().st_size)
    store = through(proxy, request_bytes=8192, retries=1)
    assert ingest_file(store, big, now="2026-11-29T12:00:00Z").status == "loaded"
    before = set(store.quads())
    assert before
    proxy.faults.updates_seen = 0
    proxy.faults.fail_updates_from, proxy.faults.status = 5, 500  # the 5th part fails
    newer = tmp_path / big.name
    newer.write_bytes(big.read_bytes() + b"\n")
    with pytest.raises(StoreError, match=r"staging part .* \(HTTP 500\)"):
        ingest_file(store, newer, now="2026-11-30T12:00:00Z")
    proxy.faults.fail_updates_from = 0
    assert set(store.quads()) == before  # the old version, whole; no staging graph left
    named = [q.graph_name.value for q in store.quads() if isinstance(q.graph_name, ox.NamedNode)]
    assert not [g for g in named if g.startswith(graphs.STAGING)]


def run_cli_env(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "benchgraph.cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "BENCHGRAPH_STORE_RETRIES": "0", **env},
        cwd=REPO,
        timeout=PATIENCE,
    )


class Killable:
    """A server of its own for a test that kills it: Oxigraph's or Virtuoso's, restarted on
    the same data."""

    def __init__(self, kind: str, folder: Path) -> None:
        if kind == "virtuoso" and not virtserver.installed():
            pytest.skip(virtserver.INSTALL_HINT)
        self.server: OxigraphServer | VirtuosoServer = (
            OxigraphServer(folder) if kind == "oxigraph" else VirtuosoServer(folder)
        )
        self.settings = virtserver.settings(self.server) if kind == "virtuoso" else {}

    @property
    def url(self) -> str:
        return self.server.url

    @property
    def base(self) -> str:
        return self.server.base

    def start(self) -> None:
        self.server.start()

    def kill(self) -> None:
        self.server.kill()


@pytest.mark.parametrize("kind", ["oxigraph", "virtuoso"])
def test_killing_the_server_mid_ingest_leaves_whole_pages_and_a_clear_error(
    kind: str, tmp_path: Path
) -> None:
    """``kill -9`` of the server while ``benchgraph ingest`` writes 120 pages; after a restart
    every page graph holds exactly its declared results (with its report), and a second ingest
    completes the job."""
    corpus = tmp_path / "corpus"
    made = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.generate",
            "--pages",
            "120",
            "--seed",
            "7",
            "--out",
            str(corpus),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=PATIENCE,
    )
    assert made.returncode == 0, made.stderr
    server = Killable(kind, tmp_path / "data")
    server.start()
    env = {
        **os.environ,
        **server.settings,
        "BENCHGRAPH_STORE_RETRIES": "1",
        "BENCHGRAPH_STORE": server.url,
    }
    ingest = subprocess.Popen(
        [sys.executable, "-m", "benchgraph.cli", "ingest", str(corpus / "pages")],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # The kill waits for the event (ten pages written), however slow the machine is.
        while count_pages(server.url) < 10 and ingest.poll() is None:
            time.sleep(0.05)
        ended = ingest.poll()
        server.kill()
        out, err = ingest.communicate(timeout=PATIENCE)
        assert ended is None, f"the ingest ended before the kill (exit {ended}): {out}{err}"
    finally:
        if ingest.poll() is None:
            ingest.kill()
    assert ingest.returncode == 2, out + err
    assert f"cannot reach {server.url}" in err or server.base in err
    server.start()
    try:
        store = RemoteStore(Endpoints.of(server.url))
        pages = check_whole_pages(store)
        assert 10 <= pages < 120
        print(f"server killed: {pages} of 120 pages whole after the restart, none partial")
        again = subprocess.run(
            [sys.executable, "-m", "benchgraph.cli", "ingest", "--quiet", str(corpus / "pages")],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=PATIENCE,
        )
        assert again.returncode == 0, again.stderr
        assert check_whole_pages(store) == 120
    finally:
        server.kill()


def count_pages(url: str) -> int:
    try:
        store = RemoteStore(Endpoints.of(url), retries=0, check=False)
        return sum(1 for g in store.named_graphs() if "/graph/" in g)
    except StoreError:
        return 0


def check_whole_pages(store: RemoteStore) -> int:
    """Assert every page graph there is whole (its declared count of results, its report);
    return how many there are."""
    graphs = store.named_graphs()
    pages = [g for g in graphs if "/graph/" in g]
    for graph in pages:
        triples = list(store.graph_triples(graph))
        results = sum(
            1
            for t in triples
            if t.predicate.value == V.RDF + "type" and t.object == ox.NamedNode(V.Result)
        )
        declared = [
            int(t.object.value)
            for t in triples
            if t.predicate.value == V.resultCount and isinstance(t.object, ox.Literal)
        ]
        assert declared == [results], graph
        assert graph.replace("/graph/", "/report/") in graphs, graph
    assert len([g for g in graphs if g != V.ID + "versions"]) == 2 * len(pages)  # + catalogue
    return len(pages)


def test_a_graph_answer_that_cannot_be_read_is_a_store_error() -> None:
    # A CONSTRUCT answer is read when it arrives, not as it is iterated: a malformed one is the
    # server's fault (StoreError), never taken for a malformed query (SyntaxError).
    class Garbled(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(200)
            self.send_header("Content-Type", "application/n-triples")
            self.end_headers()
            self.wfile.write(b"<http://example.org/s> <http://example.org/p> unquoted .\n")

    garbled = ThreadingHTTPServer(("127.0.0.1", 0), Garbled)
    threading.Thread(target=garbled.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{garbled.server_address[1]}/query"
    try:
        store = RemoteStore(Endpoints.of(url), retries=0, check=False)
        with pytest.raises(
            StoreError, match=re.escape(f"{url} sent an answer that cannot be read")
        ):
            store.query("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", default_graph=())
    finally:
        garbled.shutdown()
        garbled.server_close()


def test_a_query_the_server_stopped_at_its_time_limit_is_a_timeout() -> None:
    # Virtuoso's answer to a query it stopped at its MaxQueryExecutionTime with no rows to give
    # (met on the CompoSET board, docs/remote-stores.md): HTTP 500 and this text. It is the
    # server's time limit (a StoreTimeout, which `serve` answers 504, or leaves a board out),
    # never a server that cannot be reached.
    said = b"Virtuoso S1T00 Error SR171: Transaction timed out\n\nSPARQL query:\nSELECT ..."

    class Stopped(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(500, "SPARQL Request Failed")
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(said)))
            self.end_headers()
            self.wfile.write(said)

    stopped = ThreadingHTTPServer(("127.0.0.1", 0), Stopped)
    threading.Thread(target=stopped.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{stopped.server_address[1]}/query"
    try:
        store = RemoteStore(Endpoints.of(url), retries=2, check=False)
        with pytest.raises(StoreTimeout, match="stopped the query at its own time limit") as e:
            store.query("SELECT * WHERE { ?s ?p ?o }", default_graph=())
        assert "SR171: Transaction timed out" in str(e.value) and url in str(e.value)
    finally:
        stopped.shutdown()
        stopped.server_close()
