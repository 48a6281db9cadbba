"""Bounded query memory, against a real server: a query that needs more memory than a worker
may use is stopped and answered 503 in the error shape, others are served meanwhile, and the
worker is replaced; a query that crashes its worker is still a crash."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import PATIENCE, REPO

from benchgraph.store import holder
from server import memory
from server.engine import Answered, Job
from server.workers import Crashed, MemoryExceeded, PoolError, WorkerPool

# Every triple with every pair of triples, sorted: over the examples' thousand quads, far more
# memory than the limits below (it grows by about 600 MiB/s on one core).
HUNGRY = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i } ORDER BY ?a ?d ?g"
LIMIT = "300MiB"
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


def workers_of(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (the server's query workers), from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid and fields[0] != "Z":
                    found.append(int(entry.name))
    return found


def await_worker_using(server_pid: int, size: int) -> int:
    """Wait until one of the server's workers holds more than ``size`` bytes; return its pid."""
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        pids = workers_of(server_pid)
        for _ in range(100):  # their memory often, the list of them now and then
            for pid in pids:
                if (memory.resident(pid) or 0) > size:
                    return pid
            time.sleep(0.002)
    raise AssertionError(f"no query worker grew past {size} bytes")


def await_workers(server_pid: int, count: int, gone: int) -> None:
    """Wait until the server has ``count`` workers again, ``gone`` not among them."""
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        now = workers_of(server_pid)
        if len(now) == count and gone not in now:
            return
        time.sleep(0.01)
    raise AssertionError(f"the server has workers {workers_of(server_pid)}, not {count}")


@pytest.fixture(scope="module")
def small_server(
    examples_store: Path, tmp_path_factory: pytest.TempPathFactory, http: Any
) -> Iterator[Any]:
    """A server whose workers may use 300 MiB, with a time limit the query will not reach, on
    a copy of the examples of its own."""
    copy = tmp_path_factory.mktemp("memory") / "store"
    shutil.copytree(examples_store, copy, ignore=shutil.ignore_patterns(*holder.NOT_DATA))
    live = http.Live(copy, "--workers", "2", "--query-memory", LIMIT, "--query-timeout", "600")
    yield live
    assert live.stop() == 0


def ask_in_thread(http: Any, url: str, outcome: dict[str, Any], **headers: str) -> threading.Thread:
    """GET ``url`` in a thread; ``outcome["reply"]`` is the answer."""

    def ask() -> None:
        outcome["reply"] = http.fetch(url, timeout=PATIENCE, **headers)

    thread = threading.Thread(target=ask)
    thread.start()
    return thread


def test_a_query_past_the_memory_limit_is_503_while_others_are_served(
    small_server: Any, http: Any
) -> None:
    server_pid = small_server.process.pid
    outcome: dict[str, Any] = {}
    thread = ask_in_thread(http, http.url(small_server.sparql, query=HUNGRY), outcome)
    # Hold the hungry worker still, under the limit, while another client asks: the other is
    # answered by the other worker, whatever the machine's speed.
    hungry = await_worker_using(server_pid, 60 << 20)
    os.kill(hungry, signal.SIGSTOP)
    try:
        quick = http.fetch(http.url(small_server.sparql, query="ASK { ?s ?p ?o }"))
        assert thread.is_alive()
    finally:
        os.kill(hungry, signal.SIGCONT)
    thread.join(PATIENCE)
    assert quick.status == 200 and quick.json()["boolean"] is True
    reply = outcome["reply"]
    assert reply.status == 503, reply.text
    assert reply.headers["retry-after"] and reply.type == "application/json"
    document = reply.json()
    assert document == {"ok": False, "error": document["error"], "status": 503}
    assert "needed more memory than the server's limit of 300 MiB" in document["error"]
    assert "Narrow it" in document["error"] and "crash" not in document["error"]
    # The stopped worker was replaced: the server answers, with as many workers as before.
    await_workers(server_pid, 3, hungry)
    again = http.fetch(http.url(small_server.sparql, query="ASK { ?s ?p ?o }"))
    assert again.status == 200 and again.json()["boolean"] is True


def test_browsers_get_the_memory_stop_as_an_html_page(small_server: Any, http: Any) -> None:
    reply = http.fetch(http.url(small_server.sparql, query=HUNGRY), Accept=BROWSER)
    assert reply.status == 503 and reply.type == "text/html"
    assert "<strong>503</strong>" in reply.text and "more memory" in reply.text
    assert reply.headers["retry-after"]


@pytest.fixture
def pool(scratch_store: Path) -> Iterator[WorkerPool]:
    """A pool of one worker that may use 300 MiB."""
    found = WorkerPool(scratch_store, 1, 600, memory_limit=300 << 20)
    yield found
    found.close()


def test_the_backstop_stops_what_the_watch_does_not_see(
    pool: WorkerPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the server's watch blind, the worker's own data limit ends the query: the engine's
    allocation fails and it aborts, and that is answered as a memory stop too."""
    monkeypatch.setattr(memory, "resident", lambda pid: None)
    with pytest.raises(MemoryExceeded) as stopped:
        pool.run(Job(HUNGRY, "json", None, 10))
    assert stopped.value.status == 503 and "more memory" in str(stopped.value)
    reply = pool.run(Job("ASK { ?s ?p ?o }", "json", None, 10))
    assert isinstance(reply, Answered) and b"true" in reply.body


def test_a_query_that_crashes_its_worker_is_still_a_crash(scratch_store: Path) -> None:
    """Nesting this deep overflows the query thread's stack (the guard refuses it long before a
    real request gets here): SIGSEGV, not the memory limit, with a limit above the stack."""
    pool = WorkerPool(scratch_store, 1, 600, memory_limit=2 << 30)
    deep = "SELECT * WHERE " + "{" * 200_000 + "}" * 200_000
    try:
        with pytest.raises(PoolError) as stopped:
            pool.run(Job(deep, "json", None, 10))
        reply = pool.run(Job("ASK { ?s ?p ?o }", "json", None, 10))
    finally:
        pool.close()
    assert isinstance(stopped.value, Crashed) and stopped.value.status == 400
    assert isinstance(reply, Answered)


def test_a_memory_error_in_a_worker_thread_ends_it_with_the_memory_status() -> None:
    code = (
        "import threading\n"
        "from server import memory\n"
        "threading.excepthook = memory.exit_on_memory_error\n"
        "def fail():\n"
        "    raise MemoryError\n"
        "thread = threading.Thread(target=fail)\n"
        "thread.start()\n"
        "thread.join()\n"
        "print('went on')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=PATIENCE
    )
    assert done.returncode == memory.EXIT_MEMORY and "went on" not in done.stdout
    assert memory.ran_out(done.returncode) and memory.ran_out(-signal.SIGABRT)
    assert not memory.ran_out(-signal.SIGSEGV) and not memory.ran_out(-signal.SIGKILL)
    assert not memory.ran_out(0) and not memory.ran_out(None)
