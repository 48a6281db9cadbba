"""The live store: a real ``benchgraph serve`` holding its store while ``benchgraph ingest
--store DIR`` (its own process) writes 200 pages through it.

- Readers on 8 threads, querying the merged view, the page graphs and a named query all through
  the ingest, get no error and only whole pages (every generated page holds the same number of
  results, and its validation report is written with it); the answer right after the ingest
  ends counts every page; the ingest says what it says on a store no server holds; and the
  server's generations stay few, and go when it stops.
- ``kill -9`` of the server in the middle of a served ingest: the ingest stops with exit code 2,
  naming the file and saying to run it again; the server starts again on the same store (its
  lock, holder record and generations left by the dead one are no trouble); every page in the
  store is whole and the merged view is the pages' union; the same ingest run again loads the
  rest.
"""

from __future__ import annotations

import inspect
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from robustness.corpus import Row, new_id, render_sota2
from support import PATIENCE, REPO, run_cli
from support.live import Live, children, fetch, running

from benchgraph.queries import load
from benchgraph.store import StoreError, holder, open_store
from benchgraph.store.embedded import EmbeddedStore
from benchgraph.store.served import ServedStore
from ingest.loader import ingest_file
from server.workers import WorkerPool

PAGES = 200
RESULTS = 3  # in every page: a total that is no multiple of it shows part of a page
CLIENTS = 8
WORKERS = 2
SPARES = inspect.signature(WorkerPool).parameters["spares"].default
# The readers wait for a worker as long as they need: the test is about what they see, and
# shedding load under a busy machine (503) is the soak test's subject, not this one's.
PATIENT_SERVER = ("--workers", str(WORKERS), "--query-timeout", "60")
QUERIES = REPO / "tests" / "data" / "robustness"
TOTAL = load(QUERIES / "live-results.rq").text
BY_PAGE = load(QUERIES / "live-pages.rq").text
JSON = "application/sparql-results+json"


def write_pages(folder: Path) -> Path:
    """Write the pages, each a benchmark of its own with RESULTS results; return ``folder``."""
    folder.mkdir()
    for i in range(PAGES):
        rows = [
            Row(
                f"Method {i}-{j}", f"{50 + j}.{i % 10}", new_id("live", i, j), new_id("paper", i, j)
            )
            for j in range(RESULTS)
        ]
        text = render_sota2(f"Task {i:03}", f"Dataset {i:03}", "Accuracy", "PERCENT",
                            "Higher is better", rows, slug=f"live-{i:03}")  # fmt: skip
        (folder / f"page-{i:03}.md").write_text(text, encoding="utf-8")
    return folder


def empty_store(folder: Path) -> Path:
    EmbeddedStore(folder).close()
    return folder


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_pages(tmp_path_factory.mktemp("live") / "pages")


def ingest(pages: Path, store: Path) -> subprocess.Popen[str]:
    """``benchgraph ingest --store DIR`` in its own process, started."""
    return subprocess.Popen(
        [sys.executable, "-m", "benchgraph.cli", "ingest", "--quiet", "--store", str(store),
         str(pages)],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=REPO,
    )  # fmt: skip


def sparql(live: Live, text: str) -> tuple[int, list[dict[str, Any]]]:
    """The status of the server's answer to the query ``text``, and its rows (values only)."""
    reply = fetch(live.url + "sparql", text.encode(), timeout=PATIENCE,
                  Content_Type="application/sparql-query", Accept=JSON)  # fmt: skip
    if reply.status != 200:
        return reply.status, [{"error": reply.text[:300]}]
    bindings = reply.json()["results"]["bindings"]
    return 200, [{name: cell["value"] for name, cell in row.items()} for row in bindings]


def whole_pages(live: Live) -> tuple[int, dict[str, tuple[int, int]]]:
    """The status of the per-page query's answer and, by page graph, its results and reports."""
    status, rows = sparql(live, BY_PAGE)
    if status != 200:
        return status, {}
    return 200, {row["page"]: (int(row["results"]), int(row["reports"])) for row in rows}


def benchmarks(live: Live) -> tuple[int, list[dict[str, Any]]]:
    """The status of the named query ``benchmarks``'s answer, and its rows."""
    reply = fetch(live.url + "queries/benchmarks", timeout=PATIENCE, Accept=JSON)
    if reply.status != 200:
        return reply.status, [{"error": reply.text[:300]}]
    bindings = reply.json()["results"]["bindings"]
    return 200, [{name: cell["value"] for name, cell in row.items()} for row in bindings]


def generations(store: Path) -> int:
    folder = store / holder.GENERATIONS
    return sum(1 for _ in folder.iterdir()) if folder.is_dir() else 0


# --- readers while 200 pages are ingested through the server ---------------------------------


@dataclass
class Served:
    """What one served ingest under readers showed."""

    unserved: subprocess.CompletedProcess[str] | None = None
    unserved_seconds: float = 0.0
    ingest: subprocess.CompletedProcess[str] | None = None
    seconds: float = 0.0
    statuses: Counter[int] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    totals: set[int] = field(default_factory=set)  # results counted in the merged view
    counted: Counter[str] = field(default_factory=Counter)  # answers checked, by query
    after: dict[str, int] = field(default_factory=dict)  # what the first answers after it said
    most_generations: int = 0
    idle_generations: int = 0
    generations_after_stop: int = -1
    server_exit: int | None = None


def read(
    live: Live, store: Path, stop: threading.Event, seen: Served, tally: threading.Lock
) -> None:
    """Ask the three questions in turn until ``stop``; note each status, and each answer that
    shows part of a page or goes back in time (a reader only ever moves to newer generations)."""
    last = {"total": 0, "pages": 0, "benchmarks": 0}

    def note(what: str, status: int, problem: str | None, count: int) -> None:
        with tally:
            seen.statuses[status] += 1
            seen.counted[what] += status == 200
            seen.most_generations = max(seen.most_generations, generations(store))
            if status != 200:
                seen.failures.append(f"{what}: status {status}")
            elif problem:
                seen.failures.append(f"{what}: {problem}")
            elif count < last[what]:
                seen.failures.append(f"{what}: {count} after {last[what]}")
        last[what] = max(last[what], count)

    while not stop.is_set():
        status, rows = sparql(live, TOTAL)
        total = int(rows[0]["results"]) if status == 200 else 0
        if status == 200:
            with tally:
                seen.totals.add(total)
        bad = total % RESULTS or total > PAGES * RESULTS
        note("total", status, f"{total} results" if bad else None, total)

        status, found = whole_pages(live)
        partial = {g: c for g, c in found.items() if c != (RESULTS, 1)}
        note("pages", status, f"(results, reports) {partial}" if partial else None, len(found))

        status, rows = benchmarks(live)
        ours = [r for r in rows if r.get("label", "").startswith("Task ")]
        wrong = [r["label"] for r in ours if (r["results"], r["sources"]) != (str(RESULTS), "1")]
        note("benchmarks", status, f"part of {wrong}" if wrong else None, len(ours))


def ingested(live: Live, pages: Path, store: Path, seen: Served) -> None:
    """Run the served ingest under CLIENTS readers; note what the first answers after it say."""
    stop = threading.Event()
    tally = threading.Lock()
    readers = [
        threading.Thread(target=read, args=(live, store, stop, seen, tally), daemon=True)
        for _ in range(CLIENTS)
    ]
    for reader in readers:
        reader.start()
    try:
        started = time.monotonic()
        process = ingest(pages, store)
        stdout, stderr = process.communicate(timeout=PATIENCE)
        seen.seconds = time.monotonic() - started
        seen.ingest = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
        # The very next answers, before the readers stop: the ingest waited for them to see it.
        _, rows = sparql(live, TOTAL)
        seen.after["results"] = int(rows[0]["results"]) if rows and "results" in rows[0] else -1
        _, found = whole_pages(live)
        seen.after["whole pages"] = sum(1 for c in found.values() if c == (RESULTS, 1))
        _, rows = benchmarks(live)
        seen.after["benchmarks"] = sum(1 for r in rows if r.get("label", "").startswith("Task "))
    finally:
        stop.set()
        for reader in readers:
            reader.join(PATIENCE)
    assert not any(r.is_alive() for r in readers), "a reader did not finish"


@pytest.fixture(scope="module")
def served(pages: Path, tmp_path_factory: pytest.TempPathFactory) -> Served:
    root = tmp_path_factory.mktemp("served")
    seen = Served()
    started = time.monotonic()
    seen.unserved = run_cli("ingest", "--quiet", str(pages), store=root / "unserved")
    seen.unserved_seconds = time.monotonic() - started
    store = empty_store(root / "store")
    live = Live(store, *PATIENT_SERVER)
    try:
        ingested(live, pages, store, seen)
        seen.idle_generations = generations(store)
    finally:
        seen.server_exit = live.stop()
    seen.generations_after_stop = (
        generations(store) if (store / holder.GENERATIONS).exists() else -1
    )
    print(
        f"unserved ingest of {PAGES} pages: {seen.unserved_seconds:.1f} s "
        f"({PAGES / seen.unserved_seconds:.0f} pages/s); served, under {CLIENTS} readers: "
        f"{seen.seconds:.1f} s ({PAGES / seen.seconds:.0f} pages/s); answers checked: "
        f"{dict(seen.counted)}; distinct totals seen: {len(seen.totals)}; generations: at most "
        f"{seen.most_generations}, {seen.idle_generations} once idle"
    )
    return seen


def test_readers_see_only_whole_pages_while_pages_are_ingested_through_the_server(
    served: Served,
) -> None:
    assert served.ingest is not None and served.ingest.returncode == 0, served.ingest
    assert set(served.statuses) == {200}, (served.statuses, served.failures[:10])
    assert not served.failures, served.failures[:10]
    # The readers ran all through the ingest: they saw it part done, not only before and after.
    assert len(served.totals - {0, PAGES * RESULTS}) >= 2, sorted(served.totals)
    assert min(served.counted.values()) >= CLIENTS, served.counted


def test_the_answer_right_after_a_served_ingest_counts_every_page(served: Served) -> None:
    assert served.ingest is not None and served.ingest.returncode == 0, served.ingest
    assert served.after == {"results": PAGES * RESULTS, "whole pages": PAGES, "benchmarks": PAGES}


def test_a_served_ingest_says_what_an_unserved_one_says(served: Served) -> None:
    assert served.unserved is not None and served.ingest is not None
    assert served.unserved.returncode == 0, served.unserved.stderr
    assert served.unserved.stdout.startswith(
        f"{PAGES} loaded, 0 unchanged, 0 refused, 0 unreadable"
    )
    assert (served.ingest.returncode, served.ingest.stdout, served.ingest.stderr) == (
        served.unserved.returncode, served.unserved.stdout, served.unserved.stderr,
    )  # fmt: skip


def test_generations_stay_few_during_a_served_ingest_and_go_when_the_server_stops(
    served: Served,
) -> None:
    """Each worker and spare reads one generation at most, and one more is the newest; while a
    write goes on, one more may be being taken."""
    assert served.server_exit == 0
    assert 1 <= served.idle_generations <= WORKERS + SPARES + 1
    assert served.most_generations <= WORKERS + SPARES + 2
    assert served.generations_after_stop == -1, "the generations folder outlived its server"


# --- kill -9 of the server in the middle of a served ingest ---------------------------------


def await_(what: str, done: Any) -> Any:
    """Ask ``done()`` until it gives something true; that. Fail after PATIENCE seconds."""
    deadline = time.monotonic() + PATIENCE
    while not (found := done()):
        assert time.monotonic() < deadline, f"waited {PATIENCE:g} s for {what}"
        time.sleep(0.01)  # a breath between two looks, to leave the cores to the others
    return found


def under_way(live: Live) -> int:
    """How many pages the server serves once they are a tenth of them or more; else 0."""
    status, found = whole_pages(live)
    assert status == 200, status
    return len(found) if len(found) >= PAGES // 10 else 0


def test_kill_9_of_the_server_during_a_served_ingest_loses_and_half_writes_nothing(
    pages: Path, tmp_path: Path
) -> None:
    store = empty_store(tmp_path / "store")
    live = Live(store, *PATIENT_SERVER)
    try:
        workers = children(live.process.pid)
        assert len(workers) >= WORKERS, workers
        process = ingest(pages, store)
        # Once a tenth of the pages are in, the ingest is well under way and far from its end.
        before = await_("a tenth of the pages to be served", lambda: under_way(live))
        assert before < PAGES, "the ingest ended before the server could be killed"
        live.process.send_signal(signal.SIGKILL)
        stdout, stderr = process.communicate(timeout=PATIENCE)
    finally:
        live.stop()
    await_("the killed server's query workers to end", lambda: not any(map(running, workers)))

    assert process.returncode == 2, (stdout, stderr)
    assert "Traceback" not in stderr, stderr
    # The warnings of the pages loaded, grouped by kind, then the error and what to do.
    *grouped, error, then = stderr.splitlines()
    assert all(line.endswith(" by kind:") or line.startswith("  ") for line in grouped), stderr
    assert error.startswith("benchgraph: error: ") and str(store) in error, stderr
    assert f"(pid {live.process.pid}" in error, stderr
    assert then.startswith(f"stopped at {pages}{os.sep}page-"), stderr
    assert then.endswith("run the ingest again once the store works (pages already loaded are "
                         "skipped)"), stderr  # fmt: skip
    stopped_at = int(then.split()[2].removeprefix(f"{pages}{os.sep}page-").removesuffix(".md:"))
    loaded = int(stdout.split(" loaded,")[0])
    assert 0 < loaded <= stopped_at < PAGES, (stdout, stderr)
    # What the dead server left: its record (stale: its pid is gone), and its generations.
    left = holder.read(store)
    assert left is not None and left.pid == live.process.pid and holder.live(store) is None
    assert generations(store) >= 1

    again = Live(store, *PATIENT_SERVER)
    try:
        assert generations(store) == 1, "the dead server's generations were kept"
        status, found = whole_pages(again)
        assert status == 200 and found, status
        assert set(found.values()) == {(RESULTS, 1)}, found
        present = len(found)
        # The pages before the one it stopped at are in; that one too if the server wrote it
        # before it was killed, without answering.
        assert present in (stopped_at, stopped_at + 1), (stopped_at, present)
        print(f"killed with {before} pages served; the ingest said {loaded} loaded and stopped "
              f"at page {stopped_at}; {present} pages in the store")  # fmt: skip
        assert sparql(again, TOTAL)[1] == [{"results": str(present * RESULTS)}]
        check = run_cli("repair", "--check", store=store)
        assert check.returncode == 0, check.stdout + check.stderr

        rerun = run_cli("ingest", "--quiet", str(pages), store=store)
        assert rerun.returncode == 0, rerun.stderr
        assert rerun.stdout.startswith(f"{PAGES - present} loaded, {present} unchanged, 0 refused")
        status, found = whole_pages(again)
        assert status == 200 and len(found) == PAGES and set(found.values()) == {(RESULTS, 1)}
    finally:
        assert again.stop() == 0
    assert not (store / holder.GENERATIONS).exists()


def test_a_served_store_whose_server_was_killed_closes_without_failing_again(
    pages: Path, tmp_path: Path
) -> None:
    """Closing a served store publishes what was written, but not once a request has failed:
    with the server gone, that failed as well, and the ingest reported this second failure
    in place of the first (the file it stopped at, and the summary line, were lost)."""
    location = empty_store(tmp_path / "store")
    first, second = sorted(pages.iterdir())[:2]
    live = Live(location, "--workers", "1")
    try:
        store = open_store(location)
        assert isinstance(store, ServedStore)
        assert ingest_file(store, first).status == "loaded"
        live.process.kill()
        live.process.wait(PATIENCE)
        with pytest.raises(StoreError, match="could not be reached while"):
            ingest_file(store, second)
        store.close()
    finally:
        live.stop()
