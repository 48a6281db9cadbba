"""Load and soak: a real ``benchgraph serve`` under concurrent clients and a slow-query flood.

    python -m bench.soak --clients 16 --seconds 60 --out RELIABILITY.md

The store is ingested from ``../shared/seeds`` when it is beside the checkout, else from
``examples/`` (``--pages`` names another folder); the server is started as a user starts it
(``benchgraph serve --port 0``, its URL read from what it prints) with a short
``--query-timeout``. Then, for ``--seconds``, each client thread sends one request after the
other on a keep-alive connection:

- *fast* clients pick each request at random (seeded) among five kinds: ``named`` (a named
  query with parameters), ``select`` (a SPARQL SELECT or ASK on ``/sparql``, by GET, form POST
  or query body), ``construct`` (CONSTRUCT or DESCRIBE there), ``linked`` (``/id/...`` in an RDF
  format, ``/page/...``) and ``dump`` (``/dump.*``, some revalidated with ``If-None-Match``),
  each in a format picked at random;
- ``--slow-clients`` of them (default: as many as the server has query workers) flood it with
  ``slow`` queries that run past the time limit, enough to hold every worker at once.

Every answer is checked: its status, its media type, its body parsed in that format (SPARQL
results as JSON, XML, CSV, TSV; RDF in every syntax; HTML), and an error body for the error
shape and for anything of the server's insides (a path, a traceback, an exception class). The
resident memory (VmRSS) of the server process and of its query workers is sampled meanwhile.

A **failure** is any of:

1. no HTTP answer (refused, reset, or none within four time limits plus 30 s);
2. a 5xx other than 503 (no query worker came free) and 504 (the time limit passed);
3. an answer not in the media type asked for, a body that does not parse in it, an error body
   without the error shape or showing the server's insides;
4. a fast request answered otherwise than 200 (304 when revalidating a dump); 503 and 504
   are not failures one by one but are counted as *shed* (6.);
5. a slow request answered otherwise than 504 (the time limit) or 503 (stopped to make room
   for waiting requests, or no worker free): it must be stopped, never answered;
6. starvation: more than ``--max-fast-shed`` (default 1 %) of the fast requests shed, or a
   stretch of more than ``--max-gap`` seconds (default: twice the time limit plus 1 s) after
   the first second in which no fast request was answered;
7. memory growth: the median resident memory of the server process, or of the server and its
   workers together, over the last third of the run more than ``--max-rss-growth`` (default
   1.5, which leaves room for warming up: the answer cache filling, templates compiled) times
   that over the first third.

The report (status counts, latency percentiles per kind, memory) is printed and written as the
``## Load`` section of ``--out`` (the rest of that file is kept), its figures as JSON to
``--json``. Exit code 0 without failure, 1 with one, 2 when the server could not be started.
"""

from __future__ import annotations

import argparse
import csv
import http.client
import io
import itertools
import json
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import urllib.parse
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from bench import launch
from bench.run import machine, percentile
from benchgraph import media
from benchgraph import vocab as V

REPO = Path(__file__).resolve().parents[1]
SEEDS = REPO.parent / "shared" / "seeds"
EXAMPLES = REPO / "examples"
SECTION = "## Load"
FAST = ("named", "select", "construct", "linked", "dump")
KINDS = (*FAST, "slow")
WEIGHTS = (30, 25, 15, 20, 10)
# A cross product of the whole store with itself, four times: never done within a time limit.
RUNAWAY = "SELECT (COUNT(*) AS ?n) WHERE {{ ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }} # {n}"
PREFIXES = (
    "PREFIX bg: <https://w3id.org/benchgraph/ns#>\n"
    "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n"
)
# What an error body must never show: a path, a traceback, Python's names for things.
INTERNALS = re.compile(
    r"Traceback|File \"|\.py\b|site-packages|\bline \d+, in\b|/tmp\b|/home/|/root\b|/usr/"
    r"|\b[A-Z]\w*(?:Error|Exception)\b|\bsys\.\w+|\b__\w+__\b"
)
RESULT_KEYS = ("json", "xml", "csv", "tsv")
GRAPH_KEYS = ("turtle", "ntriples", "jsonld", "rdfxml", "trig", "nquads")
DUMP_KEYS = ("turtle", "ntriples", "jsonld", "trig", "nquads")


# ---------------------------------------------------------------------------------------------
# Requests and their checks


@dataclass(frozen=True)
class Request:
    """One request and what its answer must be: ``expect`` is the media key of a 200 answer."""

    kind: str
    method: str
    path: str
    expect: str
    body: bytes | None = None
    headers: tuple[tuple[str, str], ...] = ()
    statuses: frozenset[int] = frozenset({200})


@dataclass(frozen=True)
class Record:
    """What became of one request: ``problem`` says why it failed (empty: it did not)."""

    kind: str
    start: float  # seconds since the load began
    seconds: float
    status: int  # 0: no HTTP answer
    problem: str = ""
    reason: str = ""  # the start of the error message of a 503 or 504


def reason(status: int, body: bytes) -> str:
    """The gist of a 503/504 answer's error message (its first words), '' for others."""
    if status not in (503, 504):
        return ""
    try:
        message = str(json.loads(body).get("error", ""))
    except ValueError:
        message = body.decode("utf-8", "replace")
    return re.sub(r"[\d.]+ s\b", "N s", message.split(";")[0])[:90]


class _Html(HTMLParser):
    def error(self, message: str) -> None:  # pragma: no cover (older Pythons only)
        raise ValueError(message)


def parse_problem(key: str, body: bytes) -> str:
    """Why ``body`` is not a document in the format with media key ``key`` ('' if it is)."""
    try:
        if key == "json":
            document = json.loads(body)
            if "boolean" not in document and not isinstance(
                document.get("results", {}).get("bindings"), list
            ):
                return "SPARQL JSON without bindings or boolean"
        elif key == "csv":
            rows = list(csv.reader(io.StringIO(body.decode("utf-8"), newline="")))
            if not rows or len({len(r) for r in rows}) != 1:
                return "CSV without a header or with rows of other widths"
        elif key in ("xml", "tsv"):
            parsed = ox.parse_query_results(body, media.RESULTS_FORMATS[key])
            if isinstance(parsed, ox.QuerySolutions):
                list(parsed)
        elif key in media.GRAPH_FORMATS:
            list(ox.parse(body, format=media.GRAPH_FORMATS[key]))
        elif key == "html":
            text = body.decode("utf-8")
            _Html().feed(text)
            if "</html>" not in text.lower() and "</body>" not in text.lower():
                return "HTML cut short"
        else:
            return f"no check for {key}"
    except (ValueError, SyntaxError, OSError, UnicodeDecodeError, csv.Error) as error:
        return f"{key} that does not parse: {str(error)[:200]}"
    return ""


def error_problem(status: int, content_type: str, body: bytes) -> str:
    """Why an error answer is not in the error shape, or shows the server's insides."""
    text = body.decode("utf-8", "replace")
    found = INTERNALS.search(text)
    if found:
        return f"error body shows {found.group()!r}"
    if content_type == "application/json":
        try:
            document = json.loads(body)
        except ValueError:
            return "error body that is not JSON"
        if document.get("ok") is not False or document.get("status") != status:
            return "error body without the error shape"
    elif content_type != "text/html":
        return f"error answered as {content_type or '(no type)'}"
    return ""


def judge(request: Request, status: int, content_type: str, body: bytes) -> str:
    """Why this answer to ``request`` is a failure ('' if it is not); 503/504 of a fast
    request are not failures here (they are counted as shed)."""
    if status >= 500 and status not in (503, 504):
        return f"{status} answered"
    if request.kind == "slow":
        if status not in (503, 504):
            return f"a query past the time limit answered {status}"
        return error_problem(status, content_type, body)
    if status in (503, 504):
        return error_problem(status, content_type, body)
    if status not in request.statuses:
        return f"{status} answered, expected {sorted(request.statuses)}"
    if status == 304:
        return "" if not body else "a 304 with a body"
    wanted = media.BY_KEY[request.expect].mime
    if content_type != wanted:
        return f"answered as {content_type or '(no type)'}, asked for {wanted}"
    return parse_problem(request.expect, body)


# ---------------------------------------------------------------------------------------------
# What to ask


@dataclass
class Data:
    """Parameter values and resources found in the served store."""

    papers: list[str]
    benchmarks: list[str]
    resources: list[str]  # IRIs under the id base

    def path(self, rng: random.Random) -> str:
        return rng.choice(self.resources)[len(V.ID) :]


class Client:
    """One keep-alive connection to the server; ``send`` never raises."""

    def __init__(self, base: str, timeout: float) -> None:
        address = urllib.parse.urlsplit(base)
        self.host, self.port = address.hostname or "127.0.0.1", address.port or 80
        self.timeout = timeout
        self.conn: http.client.HTTPConnection | None = None
        self.retried = 0

    def _once(self, request: Request) -> tuple[int, str, bytes, str]:
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        headers = dict(request.headers)
        self.conn.request(request.method, request.path, request.body, headers)
        response = self.conn.getresponse()
        body = response.read()
        kind = (response.getheader("Content-Type") or "").split(";")[0].strip()
        if response.will_close:
            self.close()
        return response.status, kind, body, response.getheader("ETag") or ""

    def send(self, request: Request) -> tuple[int, str, bytes, str, str]:
        """Status, media type, body, ETag, and what went wrong when there was no answer."""
        for attempt in (1, 2):
            reused = self.conn is not None
            try:
                return (*self._once(request), "")
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as e:
                self.close()
                if reused and attempt == 1:  # a kept-alive connection the server had closed
                    self.retried += 1
                    continue
                return 0, "", b"", "", f"no answer: {type(e).__name__}: {e}"
            except (OSError, http.client.HTTPException) as e:
                self.close()
                return 0, "", b"", "", f"no answer: {type(e).__name__}: {e}"
        raise AssertionError("unreachable")

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def _accept(key: str) -> tuple[tuple[str, str], ...]:
    return (("Accept", media.BY_KEY[key].mime),)


def _sparql(kind: str, query: str, key: str, rng: random.Random) -> Request:
    """``query`` sent to /sparql by GET, form POST or query body, asking for ``key``."""
    way = rng.randrange(3)
    if way == 0:
        path = "/sparql?" + urllib.parse.urlencode({"query": query})
        return Request(kind, "GET", path, key, headers=_accept(key))
    if way == 1:
        body = urllib.parse.urlencode({"query": query}).encode()
        form = ("Content-Type", "application/x-www-form-urlencoded")
        return Request(kind, "POST", "/sparql", key, body, (*_accept(key), form))
    body_type = ("Content-Type", "application/sparql-query")
    return Request(kind, "POST", "/sparql", key, query.encode(), (*_accept(key), body_type))


def named(data: Data, rng: random.Random) -> Request:
    key = rng.choice(RESULT_KEYS)
    choice = rng.randrange(6)
    if choice < 3:
        name = ("methods-introduced-by-paper", "methods-reported-by-paper",
                "results-reported-by-paper")[choice]  # fmt: skip
        params = {"paper": rng.choice(data.papers)}
    elif choice == 3:
        name, params = "leaderboard", {"benchmark": rng.choice(data.benchmarks)}
    else:
        name = rng.choice(["benchmarks", "papers", "audit-self-reported", "audit-sources",
                           "audit-findings", "check-metric-units"])  # fmt: skip
        params = {}
    query = f"?{urllib.parse.urlencode(params)}" if params else ""
    return Request("named", "GET", f"/queries/{name}{query}", key, headers=_accept(key))


def select(data: Data, rng: random.Random) -> Request:
    n = rng.randint(1, 50)
    letter = rng.choice("abcdefghilmnoprstu")
    iri = rng.choice(data.resources)
    queries = [
        f"SELECT ?s ?label WHERE {{ ?s rdfs:label ?label FILTER(CONTAINS(LCASE(STR(?label)), "
        f'"{letter}")) }} ORDER BY ?s LIMIT {n}',
        f"SELECT ?result ?value WHERE {{ ?result bg:value ?value FILTER(?value > {n}) }} "
        f"ORDER BY DESC(?value) LIMIT {n}",
        "SELECT ?type (COUNT(?s) AS ?n) WHERE { ?s a ?type } GROUP BY ?type",
        f"SELECT ?p ?o WHERE {{ <{iri}> ?p ?o }} LIMIT {n}",
        f"ASK {{ <{iri}> ?p ?o }}",
    ]
    choice = rng.randrange(len(queries))
    key = rng.choice(("json", "xml") if choice == 4 else RESULT_KEYS)
    return _sparql("select", PREFIXES + queries[choice], key, rng)


def construct(data: Data, rng: random.Random) -> Request:
    iri = rng.choice(data.resources)
    queries = [
        f"CONSTRUCT WHERE {{ <{iri}> ?p ?o }}",
        f"DESCRIBE <{iri}>",
        "CONSTRUCT { ?m rdfs:label ?l } WHERE { ?m a bg:Method ; rdfs:label ?l }",
        f"CONSTRUCT {{ ?r bg:value ?v }} WHERE {{ ?r bg:value ?v }} LIMIT {rng.randint(1, 50)}",
    ]
    return _sparql("construct", PREFIXES + rng.choice(queries), rng.choice(GRAPH_KEYS), rng)


def linked(data: Data, rng: random.Random) -> Request:
    path = data.path(rng)
    choice = rng.randrange(3)
    if choice == 0:
        return Request("linked", "GET", f"/page/{path}", "html", headers=_accept("html"))
    key = rng.choice(("turtle", "ntriples", "jsonld", "rdfxml"))
    if choice == 1:
        return Request("linked", "GET", f"/id/{path}.{media.BY_KEY[key].suffix}", key)
    return Request("linked", "GET", f"/id/{path}", key, headers=_accept(key))


def dump(etags: dict[str, str], rng: random.Random) -> Request:
    key = rng.choice(DUMP_KEYS)
    path = f"/dump.{media.BY_KEY[key].suffix}"
    if path in etags and rng.random() < 0.3:
        headers = (("If-None-Match", etags[path]),)
        return Request("dump", "GET", path, key, headers=headers, statuses=frozenset({304}))
    return Request("dump", "GET", path, key)


def slow(rng: random.Random) -> Request:
    query = RUNAWAY.format(n=rng.randrange(10**9))
    return _sparql("slow", query, "json", rng)


# ---------------------------------------------------------------------------------------------
# Load


@dataclass
class Sample:
    at: float
    server_kb: int
    workers_kb: int
    workers: int


@dataclass
class Report:
    settings: dict[str, Any]
    seconds: float = 0.0
    records: list[Record] = field(default_factory=list)
    samples: list[Sample] = field(default_factory=list)
    retried: int = 0

    def of(self, *kinds: str) -> list[Record]:
        return [r for r in self.records if r.kind in kinds]

    def statuses(self, *kinds: str) -> Counter[int]:
        return Counter(r.status for r in self.of(*kinds))

    def timings(self, *kinds: str) -> list[float]:
        """Seconds of the answers timed: 200/304 of fast kinds, every answer of slow ones."""
        return [r.seconds for r in self.of(*kinds) if r.kind == "slow" or r.status in (200, 304)]

    def shed(self) -> int:
        return sum(1 for r in self.of(*FAST) if r.status in (503, 504))

    def longest_gap(self) -> float:
        """The longest stretch (after the first second) without a fast request answered."""
        done = sorted(r.start + r.seconds for r in self.of(*FAST) if r.status in (200, 304))
        edges = [1.0, *(t for t in done if t > 1.0), self.seconds]
        return max((b - a for a, b in itertools.pairwise(edges)), default=self.seconds)

    def memory(self, attribute: str) -> tuple[float, float, float]:
        """Median of the first third, median of the last third, maximum (MB)."""
        if attribute == "total_kb":
            values = [(s.server_kb + s.workers_kb) / 1024 for s in self.samples]
        else:
            values = [getattr(s, attribute) / 1024 for s in self.samples]
        third = max(1, len(values) // 3)
        return statistics.median(values[:third]), statistics.median(values[-third:]), max(values)

    def failures(self) -> list[str]:
        """Every failure (see the module's docstring), one line each."""
        found = Counter(f"{r.kind}: {r.problem}" for r in self.records if r.problem)
        lines = [f"{n} × {what}" for what, n in found.most_common()]
        fast = self.of(*FAST)
        limit = float(self.settings["max_fast_shed"])
        if fast and self.shed() > limit * len(fast):
            lines.append(
                f"starvation: {self.shed()} of {len(fast)} fast requests answered 503/504 "
                f"(more than {limit:.1%})"
            )
        if not fast:
            lines.append("starvation: no fast request was answered at all")
        gap = self.longest_gap()
        if gap > float(self.settings["max_gap"]):
            lines.append(f"starvation: {gap:.1f} s without a fast request answered")
        if len(self.samples) >= 3:
            for label, attribute in (("the server process", "server_kb"),
                                     ("the server and its workers", "total_kb")):  # fmt: skip
                first, last, _ = self.memory(attribute)
                if last > first * float(self.settings["max_rss_growth"]):
                    lines.append(f"{label} grew from {first:.0f} MB to {last:.0f} MB")
        return lines


def rss_kb(pid: int) -> int:
    """The resident memory of process ``pid`` in kB (0 if it is gone)."""
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def sample(pid: int, at: float) -> Sample:
    """The resident memory of the server ``pid`` and of its child processes (the workers)."""
    children = launch.children(pid)
    return Sample(at, rss_kb(pid), sum(rss_kb(c) for c in children), len(children))


def discover(base: str) -> Data:
    """Papers, benchmarks and resources of the served store, to ask about."""
    client = Client(base, 60)

    def rows(request: Request) -> list[dict[str, Any]]:
        status, _, body, _, problem = client.send(request)
        if status != 200:
            raise RuntimeError(f"{request.path}: {status} {problem} {body[:300]!r}")
        return list(json.loads(body)["results"]["bindings"])

    def column(path: str, name: str) -> list[str]:
        return [
            b[name]["value"]
            for b in rows(Request("", "GET", path, "json", headers=_accept("json")))
        ]

    query = (
        f'SELECT DISTINCT ?s WHERE {{ ?s a ?type FILTER(STRSTARTS(STR(?s), "{V.ID}")) }} '
        "ORDER BY ?s LIMIT 5000"
    )
    papers = column("/queries/papers", "paper")
    benchmarks = column("/queries/benchmarks", "label")
    resources = column("/sparql?" + urllib.parse.urlencode({"query": query}), "s")
    client.close()
    if not (papers and benchmarks and resources):
        raise RuntimeError("the served store holds no papers, benchmarks or resources")
    return Data(papers, benchmarks, resources)


def load(
    base: str,
    pid: int,
    clients: int,
    seconds: float,
    slow_clients: int,
    time_limit: float,
    seed: int = 1,
    max_fast_shed: float = 0.01,
    max_gap: float | None = None,
    max_rss_growth: float = 1.5,
    interval: float = 0.5,
) -> Report:
    """Load the server at ``base`` (process ``pid``) for ``seconds``; return the report."""
    data = discover(base)
    report = Report(
        {
            "clients": clients,
            "slow_clients": slow_clients,
            "seconds": seconds,
            "query_timeout": time_limit,
            "seed": seed,
            "max_fast_shed": max_fast_shed,
            "max_gap": max_gap if max_gap is not None else 2 * time_limit + 1,
            "max_rss_growth": max_rss_growth,
        }
    )
    started = time.monotonic()
    stop = threading.Event()
    lock = threading.Lock()

    def client(number: int) -> None:
        rng = random.Random(seed * 1000 + number)
        mine, retried = drive(base, data, rng, number < slow_clients, time_limit, started, stop)
        with lock:
            report.records.extend(mine)
            report.retried += retried

    def sampler() -> None:
        while not stop.is_set():
            report.samples.append(sample(pid, time.monotonic() - started))
            stop.wait(interval)

    threads = [threading.Thread(target=client, args=(n,), daemon=True) for n in range(clients)]
    watcher = threading.Thread(target=sampler, daemon=True)
    watcher.start()
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join(4 * time_limit + 60)
    watcher.join(10)
    report.seconds = time.monotonic() - started
    report.records.sort(key=lambda r: r.start)
    return report


def drive(
    base: str,
    data: Data,
    rng: random.Random,
    is_slow: bool,
    time_limit: float,
    started: float,
    stop: threading.Event,
) -> tuple[list[Record], int]:
    """One client: requests one after the other on one connection until ``stop`` is set (slow
    ones if ``is_slow``, else fast ones of kinds drawn by weight), each judged. Returns what
    became of them (``start`` counted from ``started``) and the kept-alive connections retried."""
    connection = Client(base, 4 * time_limit + 30)
    etags: dict[str, str] = {}
    makers: dict[str, Callable[[], Request]] = {
        "named": lambda: named(data, rng),
        "select": lambda: select(data, rng),
        "construct": lambda: construct(data, rng),
        "linked": lambda: linked(data, rng),
        "dump": lambda: dump(etags, rng),
    }
    mine: list[Record] = []
    while not stop.is_set():
        kind = "slow" if is_slow else rng.choices(FAST, WEIGHTS)[0]
        request = slow(rng) if is_slow else makers[kind]()
        begin = time.monotonic()
        status, content_type, body, etag, trouble = connection.send(request)
        spent = time.monotonic() - begin
        problem = trouble or judge(request, status, content_type, body)
        if kind == "dump" and status == 200 and etag:
            etags[request.path] = etag
        mine.append(Record(kind, begin - started, spent, status, problem, reason(status, body)))
    connection.close()
    return mine, connection.retried


# ---------------------------------------------------------------------------------------------
# The report


def _ms(values: Sequence[float], p: float) -> str:
    return f"{percentile(values, p) * 1000:,.0f}" if values else "–"


def _counts(counter: Counter[int]) -> str:
    return ", ".join(f"{status or 'none'}: {n:,}" for status, n in sorted(counter.items()))


def markdown(report: Report, command: str, facts: dict[str, Any], store: str) -> str:
    """The ``## Load`` section of RELIABILITY.md."""
    lines = [
        *_preamble(report.settings, command, facts, store),
        *_latency_table(report),
        *_memory_table(report),
    ]
    return "\n".join(wrapped(line) for line in lines) + "\n"


def _preamble(s: dict[str, Any], command: str, facts: dict[str, Any], store: str) -> list[str]:
    """What the soak does and counts as a failure (``s``: its settings), the command, the
    machine and the store."""
    return [
        f"{SECTION}: `bench/soak.py`",
        "",
        "A real `benchgraph serve` on its own store, loaded by client threads that each send "
        "one request after the other (keep-alive): fast clients mix named queries with "
        "parameters, SPARQL SELECT/ASK and CONSTRUCT/DESCRIBE on `/sparql` (GET, form POST, "
        "query body), `/id/...` and `/page/...`, and dumps (some revalidated); slow clients "
        "flood it with queries that run past the time limit. Every answer is checked: status, "
        "media type, body parsed in its format, error bodies for the error shape and for the "
        "server's insides (paths, tracebacks, exception classes). The resident memory (VmRSS) "
        "of the server and of its query workers is sampled every half second. The test "
        "`tests/robustness/test_soak.py` runs a 10-second version on every `make test`.",
        "",
        "A failure is: a request with no HTTP answer; a 5xx other than 503 (no worker free, or "
        "stopped to make room) and 504 (time limit); an answer not in the format asked for or "
        "not parsing in it, an error body without the error shape or showing the server's "
        "insides; a fast request answered other than 200 (304 when revalidating), 503/504 "
        "being counted apart as *shed*; a slow query answered other than 504/503; "
        f"starvation: more than {s['max_fast_shed']:.0%} of the fast requests shed, or "
        f"{s['max_gap']:g} s without any fast request answered; memory: the median of the server "
        "process, or of the server and its workers together, over the last third of the run "
        f"above {s['max_rss_growth']:g} times that over the first third (room for warming up: "
        "the answer cache filling, templates compiled).",
        "",
        "```sh",
        command,
        "```",
        "",
        f"- date: {facts['date']}; nproc: {facts['nproc']} ({facts['cpu']}), memory: "
        f"{facts['memory_gb']} GB, load average before: {facts['load_average']}",
        f"- {facts['platform']}, Python {facts['python']}; "
        + ", ".join(f"{k} {v}" for k, v in facts["packages"].items()),
        f"- store: {store}; server: `--workers {s['workers']} --threads {s['threads']} "
        f"--query-timeout {s['query_timeout']:g}`; {s['clients']} clients, of which "
        f"{s['slow_clients']} slow, for {s['seconds']:g} s (seed {s['seed']})",
    ]


def _latency_table(report: Report) -> list[str]:
    """Requests, statuses and latency percentiles per kind, and the totals."""
    lines = [
        "",
        "| kind | requests | statuses | p50 ms | p95 ms | p99 ms |",
        "| --- | ---: | --- | ---: | ---: | ---: |",
    ]
    for kind in KINDS:
        rows = report.of(kind)
        times = report.timings(kind)
        lines.append(
            f"| {kind} | {len(rows):,} | {_counts(report.statuses(kind))} | {_ms(times, 50)} | "
            f"{_ms(times, 95)} | {_ms(times, 99)} |"
        )
    fast = report.of(*FAST)
    fast_times = report.timings(*FAST)
    total = len(report.records)
    five = Counter(r.status for r in report.records if r.status >= 500)
    return [
        *lines,
        f"| all fast | {len(fast):,} | {_counts(report.statuses(*FAST))} | "
        f"{_ms(fast_times, 50)} | {_ms(fast_times, 95)} | {_ms(fast_times, 99)} |",
        "",
        "Latencies are of the answers 200/304 (fast kinds) and of every answer (slow), from "
        "sending the request to reading the whole body.",
        "",
        f"- requests answered: {total:,} in {report.seconds:.1f} s ({total / report.seconds:,.1f}"
        f"/s); 5xx: {_counts(five) or 'none'}; fast requests shed (503/504): "
        f"{report.shed():,} of {len(fast):,}; longest stretch without a fast answer: "
        f"{report.longest_gap():.2f} s; kept-alive connections closed by the server and "
        f"retried: {report.retried}",
    ]


def _memory_table(report: Report) -> list[str]:
    """The resident memory over the run, the workers seen, and the failures."""
    lines = [
        "",
        "| resident memory (MB) | first third (median) | last third (median) | max |",
        "| --- | ---: | ---: | ---: |",
    ]
    for label, attribute in (("server process", "server_kb"), ("query workers", "workers_kb"),
                             ("together", "total_kb")):  # fmt: skip
        if report.samples:
            first, last, peak = report.memory(attribute)
            lines.append(f"| {label} | {first:,.1f} | {last:,.1f} | {peak:,.1f} |")
    workers = Counter(s.workers for s in report.samples)
    failures = report.failures()
    lines += [
        "",
        f"{len(report.samples)} samples; query worker processes seen per sample: "
        f"{_counts(workers)} (the workers and the spare; one fewer while a stopped worker is being "
        "replaced).",
        "",
        f"**Failures: {len(failures)}**" + ("" if not failures else ":"),
        *[f"- {line}" for line in failures],
    ]
    return lines


def wrapped(line: str, width: int = 100) -> str:
    """A prose line or list item wrapped as the rest of RELIABILITY.md is (tables, code and
    headings as they are)."""
    if len(line) <= width or line.startswith(("|", "#", "```", "python ")):
        return line
    indent = "  " if line.startswith("- ") else ""
    return textwrap.fill(line, width, subsequent_indent=indent, break_on_hyphens=False)


def write_section(out: Path, section: str, heading: str = SECTION) -> None:
    """Replace the section ``heading`` (``## Load``) of ``out`` with ``section`` (append it if
    missing)."""
    text = out.read_text(encoding="utf-8") if out.exists() else "# Reliability\n"
    start = text.find(f"\n{heading}")
    if start < 0:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + 1)
        rest = text[end:] if end >= 0 else "\n"
        text = text[: start + 1] + section + rest
    out.write_text(text, encoding="utf-8")


# ---------------------------------------------------------------------------------------------
# The command


def main(argv: Sequence[str] | None = None) -> int:
    """Soak a server over ``--pages``, print the report and write it where asked; 0 without
    failure, 1 with one, 2 when the store or the server could not be made."""
    args = argument_parser().parse_args(argv)
    pages = args.pages or (SEEDS if SEEDS.is_dir() else EXAMPLES)
    command = "python -m bench.soak " + " ".join(sys.argv[1:] if argv is None else list(argv))
    facts = machine()
    soaked = soak(args, pages)
    if soaked is None:
        return 2
    report, code = soaked
    report.settings.update(workers=args.workers, threads=args.threads)
    section = markdown(report, command, facts, described(pages))
    if code != 0:
        section += f"\nThe server then stopped with exit code {code} (0 expected).\n"
    print(section)
    if args.out:
        write_section(args.out, section)
    if args.json:
        text = json.dumps(figures(report, command, facts), indent=2) + "\n"
        args.json.write_text(text, encoding="utf-8")
    return 1 if report.failures() or code != 0 else 0


def argument_parser() -> argparse.ArgumentParser:
    """The command's options (its docstring is the description)."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.soak",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--clients", type=int, default=16, help="client threads (default 16)")
    parser.add_argument("--seconds", type=float, default=60, help="how long to load (default 60)")
    parser.add_argument(
        "--slow-clients", type=int, help="clients sending slow queries (default: --workers)"
    )
    parser.add_argument(
        "--query-timeout", type=float, default=1.0, help="the server's time limit (default 1 s)"
    )
    parser.add_argument("--workers", type=int, default=2, help="query workers (default 2)")
    parser.add_argument("--threads", type=int, default=8, help="HTTP threads (default 8)")
    parser.add_argument("--pages", type=Path, help="pages to serve (default: seeds or examples)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--max-fast-shed", type=float, default=0.01)
    parser.add_argument("--max-gap", type=float, help="default: twice the time limit plus 1 s")
    parser.add_argument("--max-rss-growth", type=float, default=1.5)
    parser.add_argument("--out", type=Path, help="write the ## Load section into this file")
    parser.add_argument("--json", type=Path, help="write the figures as JSON to this file")
    return parser


def soak(args: argparse.Namespace, pages: Path) -> tuple[Report, int] | None:
    """Ingest ``pages`` into a temporary store, serve it and load it: the report and the
    server's exit code, or None (why written out) when the store or the server could not be
    made."""
    slow_clients = args.slow_clients if args.slow_clients is not None else args.workers
    work = Path(tempfile.mkdtemp(prefix="benchgraph-soak-"))
    try:
        store = work / "store"
        if not ingest(pages, store):
            return None
        try:
            served = launch.Served(
                store,
                "--query-timeout", str(args.query_timeout),
                "--workers", str(args.workers),
                "--threads", str(args.threads),
            )  # fmt: skip
        except RuntimeError as error:
            sys.stderr.write(f"{error}\n")
            return None
        try:
            report = load(
                served.url,
                served.process.pid,
                args.clients,
                args.seconds,
                slow_clients,
                args.query_timeout,
                args.seed,
                args.max_fast_shed,
                args.max_gap,
                args.max_rss_growth,
            )
        finally:
            code = served.stop(60)
        return report, code
    finally:
        shutil.rmtree(work, ignore_errors=True)


def ingest(pages: Path, store: Path) -> bool:
    """Ingest ``pages`` into ``store`` with ``benchgraph ingest``; False (its errors written
    out) when it could not read them or write the store (some pages refused is fine)."""
    done = subprocess.run(
        [sys.executable, "-m", "benchgraph.cli", "ingest", "--quiet", "--store", str(store),
         str(pages)],
        capture_output=True, text=True, cwd=REPO, timeout=600,
    )  # fmt: skip
    if done.returncode not in (0, 1):
        sys.stderr.write(done.stderr)
        return False
    return True


def described(pages: Path) -> str:
    """The pages served, as the report names them."""
    shown = pages.relative_to(REPO.parent) if pages.is_relative_to(REPO.parent) else pages
    return f"{sum(1 for p in pages.iterdir() if p.is_file())} pages of `{shown}/`"


def figures(report: Report, command: str, facts: dict[str, Any]) -> dict[str, Any]:
    """The report's figures, for ``--json``."""
    return {
        "command": command,
        "machine": facts,
        "settings": report.settings,
        "seconds": report.seconds,
        "statuses": {k: dict(report.statuses(k)) for k in KINDS},
        "latency_ms": {
            k: {f"p{p}": percentile(report.timings(k), p) * 1000 for p in (50, 95, 99)}
            for k in KINDS
            if report.timings(k)
        },
        "memory_kb": [vars(s) for s in report.samples],
        "failures": report.failures(),
    }


if __name__ == "__main__":
    sys.exit(main())
