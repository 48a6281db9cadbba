"""The servers the benchmark asks, and how it asks them: ``benchgraph serve``, ``oxigraph
serve-read-only`` (its default graph is the store's: the merged view) and an rdflib in-memory
endpoint (:mod:`bench.rdflib_endpoint`), each a process of its own, asked over HTTP for SPARQL
JSON."""

from __future__ import annotations

import json
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pyoxigraph as ox

from bench.launch import Served, Server, free_port
from benchgraph.sparqltext import substitute

BIN = Path(sys.executable).parent
JSON_RESULTS = "application/sparql-results+json"
FORM = "application/x-www-form-urlencoded"
PARAM = {
    "methods-introduced-by-paper": "paper",
    "methods-reported-by-paper": "paper",
    "results-reported-by-paper": "paper",
    "leaderboard": "benchmark",
}


def wait_up(url: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except urllib.error.HTTPError:
            return
        except (urllib.error.URLError, ConnectionError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


WARMED = re.compile(r"warmed (\d+) of (\d+) named queries for generation \S+ in ([\d.]+) s")


def start_benchgraph(
    store: Path, log: Path, query_timeout: float = 5.0, warm_timeout: float = 3600
) -> tuple[Served, str, dict[str, float]]:
    """``benchgraph serve`` on ``store`` with its query time limit (the default is 5 s), its
    log written to ``log``, once it is up and has warmed its parameterless named queries (so
    that warming does not compete with the measurements). Returns the server, its URL, and
    what its log says was warmed: ``{"warmed": K, "of": N, "seconds": S}``."""
    server = Served(store, "--query-timeout", str(query_timeout), log=log)
    url = server.url
    wait_up(url + "queries")
    try:
        warmed = wait_warmed(server, warm_timeout)
    except RuntimeError:
        server.stop()
        raise
    return server, url, warmed


def wait_warmed(server: Server, seconds: float) -> dict[str, float]:
    """Wait until the server's log says it warmed its named queries (or will not warm them);
    raise RuntimeError when it says warming failed, or after ``seconds``."""
    assert server.log is not None
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        text = server.errors()
        found = WARMED.search(text)
        if found:
            return {
                "warmed": int(found.group(1)),
                "of": int(found.group(2)),
                "seconds": float(found.group(3)),
            }
        if "are not warmed ahead" in text:
            return {"warmed": 0, "of": 0, "seconds": 0.0}
        if "cannot be warmed now" in text or "warming the named queries failed" in text:
            raise RuntimeError(
                f"benchgraph serve could not warm its named queries; see {server.log}"
            )
        if server.process.poll() is not None:
            raise RuntimeError(f"benchgraph serve stopped while warming; see {server.log}")
        time.sleep(0.5)
    raise RuntimeError(f"benchgraph serve did not warm in {seconds:.0f} s; see {server.log}")


def start_rdflib(nquads: Path, seconds: float = 1800) -> tuple[Server, str]:
    """The rdflib in-memory endpoint over the quads of ``nquads``, once it has loaded them."""
    port = free_port()
    server = Server(
        [sys.executable, "-m", "bench.rdflib_endpoint", "--data", str(nquads), "--port", str(port)]
    )
    url = f"http://127.0.0.1:{port}/"
    wait_up(url + "query?query=" + urllib.parse.quote("ASK {}"), seconds)
    return server, url


def start_oxigraph(store: Path, command: str = "serve-read-only") -> tuple[Server, str]:
    """``oxigraph COMMAND`` (``serve-read-only``, or ``serve`` to write too) on ``store``, once
    it answers queries; the server and its base URL (``…/``: ``query``, ``update`` and ``store``
    beneath it)."""
    port = free_port()
    server = Server(
        [
            str(BIN / "oxigraph"),
            command,
            "--location",
            str(store),
            "--bind",
            f"127.0.0.1:{port}",
        ]
    )
    url = f"http://127.0.0.1:{port}/"
    wait_up(url + "query?query=" + urllib.parse.quote("ASK {}"))
    return server, url


def get(
    url: str, data: bytes | None = None, content_type: str | None = None, timeout: float = 300
) -> int:
    """One request; return the number of result rows (raise on an error status, TimeoutError
    after ``timeout`` seconds)."""
    headers = {"Accept": JSON_RESULTS}
    if content_type:
        headers["Content-Type"] = content_type
    request = urllib.request.Request(url, data=data, headers=headers)
    with urllib.request.urlopen(request, timeout=timeout) as response:
        body = json.loads(response.read())
    return len(body["results"]["bindings"])


def inline(text: str, name: str, iri: str) -> str:
    """The query text with the parameter ``?name`` written in as ``<iri>``: the peers have no
    substitutions, and this is the text benchgraph sends a remote store (the same lexer-based
    substitution, which keeps the column where the query projects it)."""
    return substitute(text, {name: ox.NamedNode(iri)})


class Target:
    """How one server (``kind``: benchgraph, oxigraph or rdflib) is asked one query with one
    parameter value; a request gives up after ``timeout`` seconds."""

    def __init__(self, kind: str, base: str, name: str, text: str, timeout: float = 300) -> None:
        self.kind, self.base, self.name, self.text = kind, base, name, text
        self.timeout = timeout

    def request(self, value: str | None, cached: bool, n: int) -> Callable[[], int]:
        param = PARAM.get(self.name)
        if self.kind == "benchgraph":
            if param is None and not cached:
                # A query without parameters: the endpoint, which caches nothing, with the
                # same text made distinct by a comment.
                data = urllib.parse.urlencode({"query": f"{self.text}\n# {n}"}).encode()
                return lambda: get(self.base + "sparql", data, FORM, self.timeout)
            query = urllib.parse.urlencode({param: value} if param and value else {})
            url = f"{self.base}queries/{self.name}" + (f"?{query}" if query else "")
            return lambda: get(url, timeout=self.timeout)
        # The peers have no substitutions: the parameter is written into the text.
        text = inline(self.text, param, value) if param and value else self.text
        data = urllib.parse.urlencode({"query": text}).encode()
        return lambda: get(self.base + "query", data, FORM, self.timeout)


def timed(call: Callable[[], int]) -> tuple[float, int]:
    start = time.perf_counter()
    rows = call()
    return time.perf_counter() - start, rows
