"""Hostile requests against a real server, beyond ``test_security.py``: nothing outside the store
is ever fetched or read (a loopback listener and a canary file keep watch), named-query
parameters cannot reach the query text (an injection corpus), no path reaches the file system,
and error bodies give nothing of the server away (no path, no traceback, no exception class)."""

from __future__ import annotations

import http.client as http_client
import os
import re
import socket
import tempfile
import threading
import time
import urllib.parse
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import REPO

from benchgraph import queries
from server.app import create_app
from server.backend import failure_error
from server.engine import Failure

SECRET = f"canary-{uuid.uuid4().hex}"  # the canary file's content: it must never be answered
PAPER = "68fa791f1e209131cea7c381"  # a paper of the examples, with methods and results
PAPER_IRI = f"https://w3id.org/benchgraph/id/paper/{PAPER}"
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
RUNAWAY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"


class Trap:
    """A loopback listener that records every connection (and what it was sent), and a canary
    file holding ``SECRET`` whose access time shows whether anything read it."""

    def __init__(self) -> None:
        self.socket = socket.socket()
        self.socket.bind(("127.0.0.1", 0))
        self.socket.listen(16)
        self.socket.settimeout(0.1)
        self.port = self.socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/data.ttl"
        self.received: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()
        handle, name = tempfile.mkstemp(prefix="benchgraph-canary-", suffix=".ttl", dir="/tmp")
        with os.fdopen(handle, "w") as canary:
            canary.write(f'<urn:{SECRET}> <urn:{SECRET}> "{SECRET}" .\n')
        self.path = Path(name)
        self.file = self.path.as_uri()
        self._atime = self._age(self.path)
        self.atime_works = self._calibrate()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.socket.accept()
            except (TimeoutError, OSError):
                continue
            with conn:
                conn.settimeout(1)
                try:
                    self.received.append(conn.recv(4096) or b"(connected, sent nothing)")
                except OSError:
                    self.received.append(b"(connected)")

    @staticmethod
    def _age(path: Path) -> float:
        """Set ``path``'s access time days back (so that any read moves it, even with
        relatime) and return it."""
        old = time.time() - 3 * 86400
        os.utime(path, (old, path.stat().st_mtime))
        return path.stat().st_atime

    def _calibrate(self) -> bool:
        """Whether reading a file moves its access time on this file system (not noatime)."""
        with tempfile.NamedTemporaryFile("w", dir="/tmp") as control:
            control.write("x")
            control.flush()
            before = self._age(Path(control.name))
            Path(control.name).read_bytes()
            return Path(control.name).stat().st_atime != before

    def assert_untouched(self) -> None:
        time.sleep(0.3)  # let a late connection arrive
        assert self.received == [], f"the listener was connected to: {self.received}"
        if self.atime_works:
            assert self.path.stat().st_atime == self._atime, "the canary file was read"

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.socket.close()
        self.path.unlink(missing_ok=True)


@pytest.fixture
def trap() -> Iterator[Trap]:
    found = Trap()
    yield found
    found.close()


def raw_get(base: str, path: str, accept: str = "application/json") -> tuple[int, dict, bytes]:
    """GET ``path`` exactly as written (no normalisation, no redirect followed)."""
    address = urllib.parse.urlsplit(base)
    conn = http_client.HTTPConnection(address.hostname, address.port, timeout=30)
    try:
        conn.request("GET", path, headers={"Accept": accept})
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


# ---------------------------------------------------------------------------------------------
# Nothing outside the store is fetched or read.

REFUSED = [
    "SELECT * WHERE {{ SERVICE <{file}> {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ SERVICE SILENT <{http}> {{ ?s ?p ?o }} }}",
    "LOAD <{http}>",
    "LOAD <{file}>",
    "LOAD SILENT <{file}> INTO GRAPH <urn:g>",
    "SELECT * FROM <{http}> WHERE {{ ?s ?p ?o }}",
    "SELECT * FROM NAMED <{http}> WHERE {{ GRAPH ?g {{ ?s ?p ?o }} }}",
    "SELECT * FROM <{file}> WHERE {{ ?s ?p ?o }}",
    "SELECT * FROM NAMED <{file}> WHERE {{ GRAPH ?g {{ ?s ?p ?o }} }}",
    "CONSTRUCT {{ ?s ?p ?o }} FROM <{file}> WHERE {{ ?s ?p ?o }}",
    "DESCRIBE <{file}> FROM <{file}>",
    "ASK FROM <{escaped}> {{ ?s ?p ?o }}",
    "BASE <file:///tmp/> SELECT * FROM <{name}> WHERE {{ ?s ?p ?o }}",
    "PREFIX t: <file:///tmp/> SELECT * FROM NAMED t:{name} WHERE {{ ?s ?p ?o }}",
]
# Queries that only name the IRIs (nothing is fetched for a name): answered, and empty.
NAMED_ONLY = [
    "SELECT * WHERE {{ GRAPH <{file}> {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ <{file}> ?p ?o }}",
    "DESCRIBE <{file}>",
    "CONSTRUCT {{ ?s ?p ?o }} WHERE {{ GRAPH <{http}> {{ ?s ?p ?o }} }}",
]


def fill(template: str, trap: Trap) -> str:
    escaped = trap.file.replace("/", "\\u002F")
    return template.format(http=trap.url, file=trap.file, escaped=escaped, name=trap.path.name)


def all_ways(http: Any, server: Any, query: str) -> list[Any]:
    """``query`` sent by GET, by form POST, as a query body, and through the site's form."""
    return [
        http.fetch(http.url(server.sparql, query=query)),
        http.fetch(
            server.sparql,
            urllib.parse.urlencode({"query": query}).encode(),
            Content_Type="application/x-www-form-urlencoded",
        ),
        http.fetch(server.sparql, query.encode(), Content_Type="application/sparql-query"),
        http.fetch(http.url(server.url + "query", query=query), Accept=BROWSER),
    ]


def test_nothing_outside_the_store_is_fetched_or_read(server: Any, http: Any, trap: Trap) -> None:
    replies: list[tuple[str, int, Any]] = []  # (what was asked, status expected, reply)
    for template in REFUSED:
        query = fill(template, trap)
        replies += [(query, 400, reply) for reply in all_ways(http, server, query)]
    for target in (trap.file, trap.url):
        for name in ("default-graph-uri", "named-graph-uri"):
            reply = http.fetch(http.url(server.sparql, query="ASK { ?s ?p ?o }", **{name: target}))
            replies.append((f"{name}={target}", 400, reply))
    for template in NAMED_ONLY:  # answered, and empty
        query = fill(template, trap)
        replies += [(query, 200, reply) for reply in all_ways(http, server, query)]
        accept = "application/sparql-results+json, application/n-triples"
        answer = http.fetch(http.url(server.sparql, query=query), Accept=accept)
        replies.append((query, 200, answer))
        empty = answer.type == "application/n-triples" and answer.body.strip() == b""
        assert empty or answer.json()["results"]["bindings"] == [], (query, answer.text)
    for target in (trap.file, trap.url):  # a severity names one of three: never a location
        reply = http.fetch(http.url(server.url + "queries/audit-findings", severity=target))
        assert reply.json()["parameter"] == "severity"
        replies.append((f"severity={target}", 400, reply))
    trap.assert_untouched()  # first: whatever was answered, nothing was fetched or read
    for asked, status, reply in replies:
        assert SECRET not in reply.text, asked
        assert reply.status == status, (asked, reply.status, reply.text)
        if "graph-uri=" in asked:
            assert reply.json()["graph"] == asked.split("=", 1)[1]


def test_the_trap_would_notice(trap: Trap) -> None:
    """The trap itself: a connection and a read are both seen."""
    with socket.create_connection(("127.0.0.1", trap.port), timeout=5) as conn:
        conn.sendall(b"GET /data.ttl HTTP/1.0\r\n\r\n")
    assert trap.path.read_text().count(SECRET) == 3
    with pytest.raises(AssertionError):
        trap.assert_untouched()


# ---------------------------------------------------------------------------------------------
# Named-query parameters are bound, never spliced.

SPLICE = [
    '"',
    "'",
    '"""',
    "'''",
    'x" } UNION { ?s ?p ?o } #',
    "x' } UNION { ?s ?p ?o } #",
    "x> } UNION { ?s ?p ?o } #",
    f'{PAPER}" }} VALUES ?paper {{ <{PAPER_IRI}> }} #',
    f"{PAPER_IRI}> }} UNION {{ ?paper ?p ?o }} #",
    "}",
    "} } SELECT * WHERE { ?s ?p ?o",
    "# comment\n} UNION { ?s ?p ?o }",
    "x\n} UNION { ?s ?p ?o }\n#",
    "x\r\n} UNION { ?s ?p ?o }",
    "\\u0022 } UNION { ?s ?p ?o } #",
    "\\u003E } UNION { ?s ?p ?o } #",
    '\\" } UNION { ?s ?p ?o } #',
    "?s",
    "$paper",
    "<urn:x>",
    "_:b0",
    '"x"@en',
    '"1"^^<http://www.w3.org/2001/XMLSchema#integer>',
    "1 ; DROP ALL",
    "\x00",
    "\u202e\u0022 UNION",
    "A" * 100_000,
    '"} UNION {' * 5_000,
]
# A value of each type that names nothing in the store.
HARMLESS = {
    "paper": "No Such Paper",
    "method": "No Such Method",
    "benchmark": "No Such Benchmark",
    "metric": "No Such Metric",
    "iri": "urn:benchgraph:harmless",
    "string": "harmless",
    "integer": "7",
    "decimal": "7.5",
    "date": "2020-01-02",
    "moment": "2020-01-02T03:04:05Z",
    "clock": "store",
    "precedence": "latest",
    "severity": "Info",
    "shape": "Method-origin",
    "limit": "7",
    "position": "000000000000000-000000000000000",
}
# Other parameters a query needs while one is being attacked: real values with real rows.
REAL = {
    "paper": PAPER,
    "benchmark": "Prompt Recovery on LAION",
    "a": "PEZ",
    "b": "STEPS",
    "since": "2026-01-01",
}
TARGETS = sorted((q.name, p.name, p.type) for q in queries.catalogue().values() for p in q.params)


def bindings(reply: Any) -> list[dict]:
    assert reply.status == 200, reply.text
    return sorted(reply.json()["results"]["bindings"], key=repr)


@pytest.mark.parametrize(
    ("name", "param", "kind"), TARGETS, ids=[f"{n}-{p}" for n, p, _ in TARGETS]
)
def test_parameters_cannot_reach_the_query_text(server: Any, http: Any, name, param, kind) -> None:
    url = f"{server.url}queries/{name}"
    others = {p.name: REAL[p.name] for p in queries.catalogue()[name].params
              if p.name != param and p.name in REAL}  # fmt: skip
    # A value of a type that is looked up first (a benchmark, metric, paper or method) names
    # nothing: 404, like every splice attempt, which is then refused as a name, never run.
    looked_up = kind in queries.LOOKUPS
    first = http.fetch(http.url(url, **others, **{param: HARMLESS[kind]}))
    if looked_up:
        assert first.status == 404 and first.json()["parameter"] == param, first.text
    harmless = None if looked_up else bindings(first)
    outcomes = {"refused": 0, "harmless": 0}
    for value in SPLICE:
        reply = http.fetch(http.url(url, **others, **{param: value}))
        if reply.status == 400 or (looked_up and reply.status == 404):
            assert reply.json()["parameter"] == param, reply.text
            assert len(reply.body) < 4096  # a long value is not echoed back whole
            outcomes["refused"] += 1
        else:
            assert bindings(reply) == harmless, (value[:80], reply.text[:500])
            outcomes["harmless"] += 1
    assert sum(outcomes.values()) == len(SPLICE)


def test_the_injection_check_would_see_rows(server: Any, http: Any) -> None:
    """The real paper answers rows, so an injected paper would not pass as refused."""
    url = f"{server.url}queries/methods-reported-by-paper"
    assert bindings(http.fetch(http.url(url, paper=PAPER))) != []
    assert http.fetch(http.url(url, paper=HARMLESS["paper"])).status == 404


@pytest.mark.parametrize("key", ["paper}", "paper UNION", "?paper", "pa\u0022per", "x" * 5000])
def test_unknown_parameter_names_are_refused_by_name(server: Any, http: Any, key: str) -> None:
    reply = http.fetch(http.url(f"{server.url}queries/methods-reported-by-paper", **{key: PAPER}))
    assert reply.status == 400 and reply.json()["parameter"] == key
    assert len(reply.body) < 12_000


# ---------------------------------------------------------------------------------------------
# No path reaches the file system.

TRAVERSALS = [
    "../../../../../../etc/passwd",
    "..%2F..%2F..%2F..%2F..%2F..%2Fetc%2Fpasswd",
    "%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "%252e%252e%252f%252e%252e%252fetc%252fpasswd",
    "..%5c..%5c..%5c..%5c..%5c..%5cetc%5cpasswd",
    "%2Fetc%2Fpasswd",
    "/etc/passwd",
    "file:%2F%2F%2Fetc%2Fpasswd",
    "....//....//....//....//etc/passwd",
    "..%00/etc/passwd",
    "%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd",
    "{repo}/README.md",
    "..%2F..%2F..%2F..%2F..%2F..%2F..%2F..{canary}",
    "../README.md",
    "../queries/papers.rq",
]
ROUTES = ["/queries/", "/id/", "/page/", "/dump.", "/static/", "/"]
# What any of the files aimed at would show.
LEAKS = [b"root:", b"#+ summary", b"PREFIX ", b"# benchgraph", SECRET.encode()]


def test_no_path_reaches_the_file_system(server: Any, trap: Trap) -> None:
    for route in ROUTES:
        for template in TRAVERSALS:
            path = route + template.format(repo=REPO, canary=urllib.parse.quote(str(trap.path)))
            for accept in ("application/json", BROWSER, "text/turtle"):
                status, headers, body = raw_get(server.url, path, accept)
                hops = 0
                while status in (301, 303, 308) and hops < 3:  # merged slashes; /id/ to /page/
                    location = urllib.parse.urlsplit(headers["Location"])
                    assert f"{location.scheme}://{location.netloc}/" == server.url
                    target = location.path + (f"?{location.query}" if location.query else "")
                    status, headers, body = raw_get(server.url, target, accept)
                    hops += 1
                assert status in (400, 404, 406), (path, accept, status, body[:300])
                for leak in LEAKS:
                    assert leak not in body, (path, leak)
    trap.assert_untouched()


@pytest.mark.parametrize("path", ["internal/describe", "internal%2Fdescribe", "site%2Fhome"])
def test_the_server_s_own_queries_are_not_named_queries(server: Any, path: str) -> None:
    status, _, body = raw_get(server.url, "/queries/" + path)
    assert status == 404 and b"PREFIX" not in body


# ---------------------------------------------------------------------------------------------
# Error bodies give nothing away.

INTERNALS = re.compile(
    r"Traceback|File \"|\.py\b|site-packages|\bline \d+, in\b|/tmp\b|/home/|/root\b|/usr/"
    r"|\b[A-Z]\w*(?:Error|Exception|Exceeded|Expired)\b|\bsys\.\w+|\b__\w+__\b"
)

# (method, path, body, content type, expected status)
ERRORS = [
    ("GET", "sparql?query=SELEC", None, None, 400),
    ("GET", "sparql?query=SELECT%20*%20WHERE%20%7B%20%3Fs%20%7D", None, None, 400),
    ("GET", "sparql?update=DROP%20ALL", None, None, 400),
    ("POST", "sparql", b"DROP ALL", "application/sparql-update", 400),
    ("GET", "sparql?query=ASK%7B%7D&query=ASK%7B%7D", None, None, 400),
    ("GET", "sparql?query=ASK%7BSERVICE%3Curn:x%3E%7B%7D%7D", None, None, 400),
    ("GET", "sparql?query=ASK%7B%7D&default-graph-uri=urn:nope", None, None, 400),
    ("POST", "sparql", b"SELECT * WHERE " + b"{" * 300 + b"}" * 300, "application/sparql-query",
     400),
    ("POST", "sparql", b"ASK {} #\xff\xfe", "application/sparql-query", 400),
    ("POST", "sparql", b"ASK {}", "application/sparql-query; charset=no-such-charset", 415),
    ("POST", "sparql", "ASK {}".encode("utf-16"), "application/sparql-query; charset=UTF-16", 415),
    ("POST", "sparql", b"", "application/x-www-form-urlencoded", 400),
    ("GET", "queries/methods-introduced-by-paper", None, None, 400),
    ("GET", "queries/methods-introduced-by-paper?paper=http://a%20b", None, None, 400),
    ("GET", "queries/methods-introduced-by-paper?paper=a&paper=b", None, None, 400),
    ("GET", "queries/audit-stale-sources?days=1" + "0" * 5000, None, None, 400),
    ("GET", "queries/audit-stale-sources?days=1e3", None, None, 400),
    ("GET", "queries/audit-stale-sources?asOf=2026-02-30", None, None, 400),
    ("GET", "queries/audit-stale-sources?asOf=" + "9" * 300, None, None, 400),
    ("GET", "queries/audit-findings?severity=%3Curn:x%3E", None, None, 400),
    ("GET", "queries/papers?nope=1", None, None, 400),
    ("GET", "search?q=" + "x" * 300, None, None, 400),
    ("GET", "query?query=SELEC", None, None, 400),
    ("GET", "queries/nope", None, None, 404),
    ("GET", "id/no/such/thing", None, None, 404),
    ("GET", "page/no/such/thing", None, None, 404),
    ("GET", "dump.exe", None, None, 404),
    ("GET", "no/such/route", None, None, 404),
    ("PUT", "sparql", b"", "text/plain", 405),
    ("POST", "queries/papers", b"", "text/plain", 405),
    ("DELETE", "id/paper/x", None, None, 405),
    ("GET", "sparql?query=ASK%7B%7D&format=png", None, None, 406),
    ("GET", "queries/papers?format=png", None, None, 406),
    ("GET", "id/method/steps?format=png", None, None, 406),
    ("GET", "void?format=png", None, None, 406),
    ("POST", "sparql", b"ASK {} #" + b"x" * 2_000_000, "application/sparql-query", 413),
    ("POST", "sparql", b"ASK {}", "text/plain", 415),
    ("GET", "sparql?query=" + urllib.parse.quote(RUNAWAY), None, None, 504),
]  # fmt: skip


def assert_says_nothing_of_the_server(body: str, *secrets: str) -> None:
    found = INTERNALS.search(body)
    assert found is None, f"{found.group()!r} in {body[:600]!r}"
    for secret in secrets:
        assert secret not in body, f"{secret!r} in {body[:600]!r}"


@pytest.mark.parametrize("case", ERRORS, ids=[f"{c[4]}-{c[1][:40]}" for c in ERRORS])
@pytest.mark.parametrize("accept", ["application/json", BROWSER])
def test_error_bodies_say_nothing_of_the_server(server: Any, http: Any, case, accept) -> None:
    method, path, body, content_type, status = case
    headers = {"Content_Type": content_type} if content_type else {}
    reply = http.fetch(server.url + path, body, method=method, Accept=accept, **headers)
    assert reply.status == status, reply.text[:500]
    assert_says_nothing_of_the_server(
        reply.text, str(server.store), str(REPO), str(Path(tempfile.gettempdir()))
    )


def test_what_the_http_server_refuses_says_nothing_either(server: Any, http: Any) -> None:
    """Refused by waitress before the app: a body over 16 times the limit (announced, never
    sent), a request line over its header limit."""
    address = urllib.parse.urlsplit(server.url)
    conn = http_client.HTTPConnection(address.hostname, address.port, timeout=30)
    try:
        conn.putrequest("POST", "/sparql")
        conn.putheader("Content-Type", "application/sparql-query")
        conn.putheader("Content-Length", str(17 * 1048576))
        conn.endheaders()
        response = conn.getresponse()
        huge_body = http.Reply(response.status, {}, response.read())
    finally:
        conn.close()
    huge_header = http.fetch(server.url + "queries/papers?x=" + "y" * 300_000)
    for reply, status in ((huge_body, 413), (huge_header, 431)):
        assert reply.status == status
        assert_says_nothing_of_the_server(reply.text, str(server.store), str(REPO))


def test_reflected_input_is_escaped_in_html_errors(server: Any, http: Any) -> None:
    hostile = '<img src=x onerror="alert(1)">'
    shown = []
    for path in (
        "queries/" + urllib.parse.quote(hostile),
        "queries/papers?" + urllib.parse.urlencode({hostile: "1"}),
        "queries/audit-findings?" + urllib.parse.urlencode({"severity": hostile}),
        "sparql?" + urllib.parse.urlencode({"query": hostile}),
        "page/" + urllib.parse.quote(hostile),
    ):
        reply = http.fetch(server.url + path, Accept=BROWSER)
        assert reply.status in (400, 404) and reply.type == "text/html", path
        assert "<img" not in reply.text, path
        shown.append("&lt;img src=x onerror=" in reply.text)
    assert shown[:3] == [True, True, True]  # the value is repeated, as text


# ---------------------------------------------------------------------------------------------
# Regressions: what these tests found.


def test_a_5000_digit_integer_parameter_is_refused_in_plain_words(server: Any, http: Any) -> None:
    """It was refused with Python's own advice ("use sys.set_int_max_str_digits() to increase
    the limit"); integers beyond the engine's 64 bits could never match anyway."""
    url = server.url + "queries/audit-stale-sources"
    for days in ("1" + "0" * 5000, "9223372036854775808", "-9223372036854775809"):
        reply = http.fetch(http.url(url, days=days))
        assert reply.status == 400 and reply.json()["parameter"] == "days"
        assert "out of range" in reply.json()["error"] and "sys." not in reply.text
        assert len(reply.body) < 1000
    assert http.fetch(http.url(url, days="9223372036854775807")).status == 200


def test_a_huge_refused_value_is_not_repeated_whole(server: Any, http: Any) -> None:
    """A refused 100 KB value came back whole in the error, twice for a date."""
    for name, param in (("audit-findings", "severity"), ("audit-stale-sources", "asOf")):
        reply = http.fetch(http.url(f"{server.url}queries/{name}", **{param: "x" * 100_000}))
        assert reply.status == 400 and reply.json()["parameter"] == param
        assert len(reply.body) < 1000 and "(100000 characters)" in reply.json()["error"]


def test_store_failures_do_not_name_the_store(tmp_path: Path) -> None:
    """A store that could not be opened or read was answered with its folder's path."""
    missing = tmp_path / "no-store-here"
    app = create_app({"store": str(missing), "workers": 1})
    try:
        reply = app.test_client().get("/sparql", query_string={"query": "ASK {}"})
        assert reply.status_code == 503 and str(tmp_path) not in reply.get_data(as_text=True)
        with app.test_request_context("/sparql"):
            error = failure_error(Failure("store", f"IO error: {missing}/000012.sst: gone"))
        assert error.status == 500 and str(tmp_path) not in error.message
    finally:
        app.extensions["benchgraph"].pool.close()
