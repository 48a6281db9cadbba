"""The query worker pool: bounded, killable query execution over a read-only store.

Neither pyoxigraph nor rdflib can cancel a running query, so every query runs in a worker
process (:mod:`server.engine`) that has the store open read-only. A query that outlives the time
limit is ended by killing its worker; a fresh one takes its place and the other workers go on
serving. When every worker is busy a request waits up to one time limit for one to come free.

While the pool runs it holds the store's write lock (the ``LOCK`` file RocksDB itself locks),
so nothing can write the store under the readers: ``benchgraph ingest`` fails cleanly with a
lock error until the server stops. The data therefore cannot change while serving, which makes
the store's *generation* (a fingerprint of its files) a valid cache key and ETag.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import queue
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from multiprocessing.connection import Connection
from pathlib import Path

from benchgraph.store import StoreError
from server.engine import Answer, DumpJob, Failure, Job

# A worker is a fresh interpreter (never a fork of the threaded server) that imports only the
# engine, talking over a socket pair: fd and store location are its arguments.
_BOOT = (
    "import sys; from server.engine import run_worker; run_worker(int(sys.argv[1]), sys.argv[2])"
)


class PoolError(Exception):
    """A query the pool could not run to completion; ``status`` is the HTTP status to answer."""

    status = 503


class Busy(PoolError):
    status = 503


class TimedOut(PoolError):
    status = 504


class Crashed(PoolError):
    """The worker died while running the query (its process, not the server)."""

    status = 400


@dataclass(frozen=True)
class Generation:
    """Which state of the store is being served: a fingerprint of its files and their time."""

    tag: str
    modified: datetime


class _Worker:
    def __init__(self, location: str) -> None:
        mine, theirs = socket.socketpair()
        with theirs:
            self.process = subprocess.Popen(
                [sys.executable, "-c", _BOOT, str(theirs.fileno()), location],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
            )
        self.conn = Connection(mine.detach())
        self.ready = False

    def wait_ready(self, timeout: float) -> list[str]:
        """Wait for the worker to open the store; return its graph names or raise StoreError."""
        if not self.conn.poll(timeout):
            raise StoreError(f"a query worker did not open the store within {timeout:g} s")
        try:
            status, detail = self.conn.recv()
        except (EOFError, OSError):
            raise StoreError("a query worker stopped while opening the store") from None
        if status != "ready":
            raise StoreError(detail)
        self.ready = True
        return list(detail)

    def stop(self) -> None:
        self.conn.close()
        if self.process.poll() is None:
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):  # reaped later by the kernel
            self.process.wait(5)


def _lock(location: Path) -> int:
    """Take the store's write lock, as RocksDB does; raise StoreError if someone holds it."""
    fd = os.open(location / "LOCK", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise StoreError(
            f"the store at {location} is open for writing (is `benchgraph ingest` running?); "
            "wait for it to finish, then start the server"
        ) from None
    return fd


def fingerprint(location: Path) -> Generation:
    """The store's generation: a digest of its data files' names, sizes and times."""
    digest = hashlib.sha256()
    newest = 0.0
    for path in sorted(location.iterdir()):
        if path.name == "LOCK" or path.name.startswith("LOG") or not path.is_file():
            continue
        stat = path.stat()
        digest.update(f"{path.name}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
        newest = max(newest, stat.st_mtime)
    modified = datetime.fromtimestamp(int(newest), UTC)
    return Generation(digest.hexdigest()[:20], modified)


class WorkerPool:
    """``size`` worker processes over the store at ``location``, each query limited to
    ``time_limit`` seconds."""

    def __init__(self, location: str | Path, size: int, time_limit: float) -> None:
        self.location = Path(location)
        self.size = size
        self.time_limit = time_limit
        self.start_timeout = 60.0
        self.graphs: list[str] = []
        self.generation = Generation("", datetime.fromtimestamp(0, UTC))
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._all: set[_Worker] = set()
        self._guard = threading.Lock()
        self._lock_fd: int | None = None
        self._started = False

    def start(self) -> None:
        """Lock the store, start the workers and wait for the first to open it.

        Raises StoreError when there is no store at the location, when it is locked for
        writing, or when it cannot be opened. Calling it again does nothing.
        """
        with self._guard:
            if self._started:
                return
            if not (self.location / "CURRENT").is_file():
                raise StoreError(
                    f"there is no store at {self.location}: load pages first with "
                    f"`benchgraph ingest --store {self.location} PAGES...`"
                )
            self._lock_fd = _lock(self.location)
            try:
                workers = [_Worker(str(self.location)) for _ in range(self.size)]
                self._all.update(workers)
                self.graphs = workers[0].wait_ready(self.start_timeout)
            except BaseException:
                self._close_locked()
                raise
            self.generation = fingerprint(self.location)
            for worker in workers:
                self._idle.put(worker)
            self._started = True

    def run(self, job: Job | DumpJob, time_limit: float | None = None) -> Answer | Failure:
        """Run ``job`` on a free worker and return what it answered; ``time_limit`` (seconds)
        replaces the pool's for this job.

        Raises Busy when no worker comes free within the time limit, TimedOut when the query
        outlives it (its worker is replaced), Crashed when the worker dies running it.
        """
        limit = self.time_limit if time_limit is None else time_limit
        self.start()
        worker = self._checkout()
        if worker.process.poll() is not None:  # it died idle (killed from outside): not this job
            self._replace(worker)
            worker = self._checkout()
        try:
            if not worker.ready:
                worker.wait_ready(self.start_timeout)
            worker.conn.send(job)
            if not worker.conn.poll(limit):
                self._replace(worker)
                if isinstance(job, DumpJob):
                    raise TimedOut(
                        f"writing the dump took longer than the time limit of {limit:g} s and "
                        "was stopped (the dump_timeout setting)"
                    )
                raise TimedOut(
                    f"the query ran longer than the time limit of {limit:g} s and was "
                    "stopped; narrow it (more specific patterns, a LIMIT) and try again"
                )
            reply: Answer | Failure = worker.conn.recv()
        except (EOFError, OSError, StoreError) as error:
            self._replace(worker)
            if isinstance(error, StoreError):
                raise Busy(f"no query worker is available: {error}") from None
            raise Crashed(
                "the query stopped its query worker (it may nest too deeply or be too long "
                "an expression); the server is fine, but the query cannot be answered"
            ) from None
        self._idle.put(worker)
        return reply

    def _checkout(self) -> _Worker:
        try:
            return self._idle.get(timeout=self.time_limit)
        except queue.Empty:
            raise Busy(
                f"all {self.size} query workers stayed busy for {self.time_limit:g} s; "
                "try again shortly"
            ) from None

    def _replace(self, worker: _Worker) -> None:
        worker.stop()
        with self._guard:
            self._all.discard(worker)
            if not self._started:
                return
            fresh = _Worker(str(self.location))
            self._all.add(fresh)
        self._idle.put(fresh)

    def close(self) -> None:
        """Stop every worker and release the store's lock."""
        with self._guard:
            self._close_locked()

    def _close_locked(self) -> None:
        self._started = False
        for worker in list(self._all):
            worker.stop()
        self._all.clear()
        while not self._idle.empty():
            self._idle.get_nowait()
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None
