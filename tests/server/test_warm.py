"""Warming: ``benchgraph serve`` answers the named queries that take no parameter before anyone
asks, for every store generation, and keeps those answers where a request finds them.

That an answer comes from the cache is shown without timing: the server's query workers are
stopped (SIGSTOP), so anything not in the cache cannot be answered at all (a control request
proves it), while the warmed answers still are.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest
from support import EXAMPLES, PATIENCE, REPO, run_cli
from support.live import Live, children
from support.oxiserver import OxigraphServer

from benchgraph.queries import NamedQuery, catalogue
from benchgraph.store.remote import RemoteStore
from ingest.loader import ingest_file
from server.cache import CACHE_ENTRY_BYTES, Cache
from server.engine import Answered
from server.named import cache_key, parameterless

JSON = "application/sparql-results+json"
WARMED = re.compile(r"warmed (\d+) of (\d+) named queries for generation (\w+)")
# The named queries a server warms: those that need no parameter.
WARMABLE = sum(parameterless(named) for named in catalogue().values())
# Never finishes over the examples (about a thousand triples, to the fourth power).
RUNAWAY = (
    "#+ summary: Every quadruple of triples.\n"
    "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }\n"
)


def log_of(live: Live) -> str:
    """What the server wrote to stderr so far."""
    return live.errors()


def wait_for_log(live: Live, pattern: re.Pattern[str], count: int = 1) -> list[re.Match[str]]:
    """The matches of ``pattern`` in the server's log, once there are ``count`` of them."""
    deadline = time.monotonic() + PATIENCE
    while True:
        found = list(pattern.finditer(log_of(live)))
        if len(found) >= count:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"{pattern.pattern!r} is not in the log:\n{log_of(live)}")
        time.sleep(0.1)


@contextmanager
def workers_stopped(live: Live) -> Iterator[None]:
    """Stop every query worker of ``live`` (SIGSTOP); let them go on afterwards."""
    stopped = children(live.process.pid)
    assert stopped, "the server has no query workers"
    for pid in stopped:
        os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        for pid in stopped:
            with suppress(ProcessLookupError):  # killed by the pool after its time limit
                os.kill(pid, signal.SIGCONT)


def unanswered(reply: Any) -> bool:
    """Whether ``reply`` says the store could not answer: 504 when the request's worker ran
    out of time, 503 when the pool had already put a stopped worker aside and its spare was
    still opening the store (which of the two depends on when the request arrives)."""
    return reply.status in (503, 504) and reply.json()["status"] == reply.status


def cold_names() -> list[str]:
    return [name for name, q in catalogue().items() if parameterless(q)]


def rows(reply: Any) -> list[str]:
    return sorted(json.dumps(b, sort_keys=True) for b in reply.json()["results"]["bindings"])


@pytest.fixture
def live(scratch_store: Path) -> Iterator[Live]:
    server = Live(scratch_store, "--workers", "2")
    yield server
    assert server.stop() == 0


def test_parameterless_named_queries_are_answered_before_anyone_asks(live: Live, http) -> None:
    names = cold_names()
    assert "papers" in names and "audit-sources" in names
    warmed = wait_for_log(live, WARMED)[0]
    assert warmed[1] == warmed[2] == str(len(names))
    tag = warmed[3]
    with workers_stopped(live):
        replies = {n: http.fetch(f"{live.url}queries/{n}", Accept=JSON) for n in names}
        anything = http.fetch(live.url + "queries/papers", Accept="*/*")
        no_accept = http.fetch(live.url + "queries/papers")
        page = http.fetch(live.url + "queries/papers", Accept="text/html")
        # Control: what is not in the cache cannot be answered while the workers are stopped.
        control = http.fetch(http.url(live.sparql, query="ASK { ?s ?p ?o }"), Accept=JSON)
    for name, reply in replies.items():
        assert reply.status == 200, (name, reply.text)
        assert reply.type == JSON
        assert reply.headers["etag"].startswith(f'"{tag}-')
    papers = replies["papers"]
    # A SELECT's answer does not depend on the graph format: */* and no Accept at all share
    # the warmed entry (same body, same ETag); the HTML page is made from it too.
    for reply in (anything, no_accept):
        assert reply.status == 200 and reply.type == JSON
        assert reply.body == papers.body and reply.headers["etag"] == papers.headers["etag"]
    assert page.status == 200 and page.type == "text/html"
    assert page.headers["etag"] != papers.headers["etag"]
    assert unanswered(control), control.text
    # The warmed answer is the query's answer: the same query sent to the endpoint agrees.
    text = catalogue()["papers"].text.encode()
    direct = http.fetch(live.sparql, text, Content_Type="application/sparql-query", Accept=JSON)
    assert direct.status == 200 and rows(direct) == rows(papers)
    assert len(rows(papers)) == 10
    revalidated = http.fetch(live.url + "queries/papers", If_None_Match=papers.headers["etag"])
    assert revalidated.status == 304


def test_a_select_answer_cached_by_a_request_serves_every_accept(live: Live, http) -> None:
    url = http.url(live.url + "queries/leaderboard", benchmark="Prompt Recovery on LAION")
    first = http.fetch(url, Accept=JSON)
    assert first.status == 200 and first.json()["results"]["bindings"]
    with workers_stopped(live):
        anything = http.fetch(url, Accept="*/*")
        browser = http.fetch(url, Accept="text/html,application/xhtml+xml,*/*;q=0.8")
        csv = http.fetch(url, Accept="text/csv")  # another answer: not in the cache
    assert anything.status == 200, anything.text
    assert anything.body == first.body and anything.headers["etag"] == first.headers["etag"]
    assert browser.status == 200 and browser.type == "text/html"
    assert unanswered(csv), csv.text


def test_an_ingest_through_the_server_is_warmed_again_in_the_background(live: Live, http) -> None:
    """Readers move to the new generation at once; its parameterless named queries are then
    answered ahead again, so that they come from the cache once more."""
    first = wait_for_log(live, WARMED)[0]
    page = REPO / "tests" / "data" / "sota2" / "nocaps-cider.md"
    done = run_cli("ingest", str(page), store=live.store)
    assert done.returncode == 0 and done.stdout.startswith("1 loaded"), done.stderr
    now = http.fetch(f"{live.url}queries/benchmarks", Accept=JSON)  # at once: the new data
    assert now.status == 200 and "NoCaps" in now.text
    tag = now.headers["etag"].strip('"').split("-", 1)[0]
    assert tag != first[3]
    deadline = time.monotonic() + PATIENCE
    while not any(m[3] == tag for m in WARMED.finditer(log_of(live))):
        assert time.monotonic() < deadline, log_of(live)
        time.sleep(0.1)
    with workers_stopped(live):
        warmed = http.fetch(f"{live.url}queries/papers", Accept=JSON)
    assert warmed.status == 200 and warmed.headers["etag"].startswith(f'"{tag}-')


def test_the_cache_key_holds_only_the_format_the_answer_is_written_in() -> None:
    papers = catalogue()["papers"]
    assert cache_key(papers, {}, "json", "turtle") == cache_key(papers, {}, "json", None)
    assert cache_key(papers, {}, "json", None) != cache_key(papers, {}, "csv", None)
    described = NamedQuery(
        "graph", REPO / "graph.rq", "", "", (), "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }"
    )
    turtle = cache_key(described, {}, "json", "turtle")
    assert turtle == cache_key(described, {}, None, "turtle")
    assert turtle != cache_key(described, {}, "json", "ntriples")
    other = cache_key(catalogue()["benchmarks"], {}, "json", None)
    assert other != cache_key(papers, {}, "json", None)


def answer(size: int = 10) -> Answered:
    return Answered("solutions", "json", b"x" * size, 1, False)


def test_pinned_answers_outlive_a_flood_and_give_way_to_a_new_generation() -> None:
    cache = Cache(4, pins=3, pinned_bytes=CACHE_ENTRY_BYTES + 30)
    warm = answer()
    assert cache.pin("g1", "papers", warm)
    for n in range(100):
        cache.put(("g1", f"other-{n}"), answer())
    assert cache.get(("g1", "papers")) is warm
    assert cache.get(("g1", "other-0")) is None  # the flood itself is bounded
    cache.put(("g1", "large"), answer(CACHE_ENTRY_BYTES + 1))
    assert cache.get(("g1", "large")) is None  # too large for the others
    assert not cache.pin("g1", "huge", answer(CACHE_ENTRY_BYTES + 21))  # past pinned_bytes
    assert cache.pin("g1", "b", answer(CACHE_ENTRY_BYTES + 1))  # a pinned one may be large
    assert not cache.pin("g1", "c", answer(20))  # past pinned_bytes, with b
    assert cache.pin("g1", "b", answer()) and cache.pin("g1", "c", answer())  # b replaced
    assert not cache.pin("g1", "d", answer())  # at most three pinned
    assert cache.get(("g1", "d")) is None
    assert cache.pin("g2", "papers", answer())
    assert cache.get(("g1", "papers")) is None and cache.get(("g2", "papers")) is not None


def with_runaway(tmp_path: Path) -> dict[str, str]:
    """The environment of a server whose catalogue starts with a named query that never ends."""
    resources = tmp_path / "resources"
    shutil.copytree(REPO / "queries", resources / "queries")
    (resources / "queries" / "a-runaway.rq").write_text(RUNAWAY)
    return {"BENCHGRAPH_RESOURCES": str(resources)}


def test_warming_leaves_a_worker_to_the_requests(scratch_store: Path, http, tmp_path) -> None:
    live = Live(scratch_store, "--workers", "2", env=with_runaway(tmp_path))
    try:
        wait_for_log(live, re.compile(rf"warming {WARMABLE + 1} named queries"))
        replies = [
            http.fetch(http.url(live.sparql, query="SELECT * WHERE { ?s ?p ?o } LIMIT 3")),
            http.fetch(live.url + "queries/audit-sources", Accept=JSON),
            http.fetch(http.url(live.url + "queries/leaderboard", benchmark="ART500K")),
            http.fetch(live.url + "void", Accept="text/turtle"),
            http.fetch(live.url + "queries/benchmarks", Accept="text/html"),
        ]
        assert [r.status for r in replies] == [200] * len(replies), [r.text for r in replies]
        assert len(replies[1].json()["results"]["bindings"]) == 3
        assert not WARMED.search(log_of(live))  # still held by the runaway query
    finally:
        assert live.stop() == 0  # a warm in progress does not hold up stopping


def test_a_query_that_cannot_be_warmed_is_logged_and_the_rest_are_warmed(
    scratch_store: Path, http, tmp_path
) -> None:
    env = with_runaway(tmp_path)
    live = Live(scratch_store, "--workers", "2", "--dump-timeout", "1", env=env)
    try:
        warmed = wait_for_log(live, WARMED)[0]
        assert (warmed[1], warmed[2]) == (str(WARMABLE), str(WARMABLE + 1))  # all but a-runaway
        log = log_of(live)
        assert "named query a-runaway was not warmed: the query ran longer than" in log
        assert "Traceback" not in log
        assert http.fetch(live.url + "queries/papers", Accept=JSON).status == 200
    finally:
        assert live.stop() == 0


def test_a_single_worker_is_not_taken_by_warming(scratch_store: Path) -> None:
    live = Live(scratch_store, "--workers", "1")
    try:
        log = log_of(live)  # written before the server says it is serving
        assert "named queries are not warmed ahead: with one query worker" in log
        assert not re.search(r"warming \d+ named queries", log)
    finally:
        assert live.stop() == 0


def test_an_ingest_into_a_remote_store_while_serving_is_warmed_again(tmp_path: Path, http) -> None:
    oxigraph = OxigraphServer(tmp_path / "oxigraph").start()
    live: Live | None = None
    try:
        store = RemoteStore.from_settings(oxigraph.url)
        later = EXAMPLES / "radar-composet-sample.txt"
        for path in sorted(p for p in EXAMPLES.iterdir() if p != later):
            assert ingest_file(store, path).status == "loaded"
        live = Live(oxigraph.url, "--workers", "2")
        first = wait_for_log(live, WARMED)[0]
        assert first[1] == first[2] == str(len(cold_names()))
        before = http.fetch(live.url + "queries/audit-sources", Accept=JSON)
        assert before.headers["etag"].startswith(f'"{first[3]}-')
        assert len(before.json()["results"]["bindings"]) == 2
        assert ingest_file(store, later).status == "loaded"
        second = wait_for_log(live, WARMED, count=2)[1]
        assert second[3] != first[3] and second[1] == second[2]
        after = http.fetch(live.url + "queries/audit-sources", Accept=JSON)
        assert after.status == 200
        assert after.headers["etag"].startswith(f'"{second[3]}-')
        pages = [b["page"]["value"] for b in after.json()["results"]["bindings"]]
        assert "radar/composet" in pages and len(pages) == 3
    finally:
        if live is not None:
            assert live.stop() == 0
        oxigraph.kill()
