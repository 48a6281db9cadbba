"""The query worker pool: bounded, killable query execution over a read-only store.

Neither pyoxigraph nor rdflib can cancel a running query, so every query runs in a worker
process (:mod:`server.engine`) that has the store open read-only. A query that outlives the time
limit is ended by killing its worker; a fresh one takes its place and the other workers go on
serving. When every worker is busy a request waits up to one time limit for one to come free,
first come first served.

Under load, a client's own SPARQL query (a job marked ``preemptible``) gets a *share* of a worker
(a quarter of the time limit) before it gives way: while requests wait for a worker and none is
free, the one that has run longest past its share is stopped (its worker killed and replaced)
and answered 503, so a few clients sending long queries cannot starve everyone else; alone, a
query may run for the whole time limit. The server's own queries (named queries, resources,
pages, dumps) are bounded by design and are never stopped that way.

Every job, the server's own and dumps included, is also bounded in memory: while it runs, its
worker's resident memory is watched, and past ``memory_limit`` the worker is killed and replaced
like one past the time limit, and the job answered 503 (:mod:`server.memory` says how, and why
so). That dumps are bounded too is by design: they stream in every format (a Turtle dump of
10,000 pages peaks at 143 MB), far under the default limit (``RELIABILITY.md`` has the
figures).

A dump may run for the dump time limit, far longer than a query's, but it must keep moving: a
dump whose worker has used no CPU time and written no byte for a query time limit (a worker
stopped, or stuck on something that never comes) is stopped, its worker replaced, and the job
answered 503 then, not at the end of the dump time limit.

While the pool runs it holds the store open for writing (:class:`server.holding.HeldStore`:
RocksDB's lock, and a record in the store folder with its pid, the URL once the server listens,
and the secret other commands write with through the server), and the workers read the
store's latest published *generation*, a snapshot no one writes: each job is sent with the
generation it runs on, and a worker opens a new one on its first job there. A generation no
worker reads any more is deleted. The generation's tag keys the answer cache and the ETags.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import secrets
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass
from datetime import UTC, datetime
from multiprocessing.connection import Connection
from pathlib import Path

from benchgraph.store import StoreError, holder
from server import memory
from server.engine import Answered, DumpJob, Failure, Job
from server.generation import Generation
from server.holding import HeldStore

_log = logging.getLogger(__name__)
# A worker is a fresh interpreter (never a fork of the threaded server) that imports only the
# engine, talking over a socket pair: fd, store location and memory limit (bytes, 0: none) are
# its arguments. Isolated (-I): the folder served from is not on its import path (a checkout
# named benchgraph there would be imported instead), nor the user's site or PYTHON* variables.
_BOOT = (
    "import sys; from server.engine import run_worker; "
    "run_worker(int(sys.argv[1]), sys.argv[2], int(sys.argv[3]))"
)


class PoolError(Exception):
    """A query the pool could not run to completion; ``status`` is the HTTP status to answer."""

    status = 503


class Busy(PoolError):
    status = 503


class NotReady(StoreError):
    """A worker still opening the store (not failed: slow to start)."""


class TimedOut(PoolError):
    status = 504


class Stalled(PoolError):
    """A long job (a dump) whose worker made no progress for the time limit: stopped."""

    status = 503


class _Progress:
    """Whether a worker writing the file ``path`` still moves: its CPU time or the file's size
    grew since last looked at. A worker stopped (SIGSTOP), or stuck waiting on something that
    never comes, does neither."""

    def __init__(self, pid: int, path: str) -> None:
        self.pid = pid
        self.path = Path(path)
        self.stalled = False
        self._seen = self._mark()
        self._since = time.monotonic()

    def _mark(self) -> tuple[int, int]:
        try:
            fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
            cpu = int(fields[11]) + int(fields[12])  # utime + stime, in clock ticks
        except (OSError, IndexError, ValueError):
            cpu = -1  # no /proc, or the process has ended: its end is an answer
        try:
            size = self.path.stat().st_size
        except OSError:
            size = -1
        return cpu, size

    def idle(self) -> float:
        """Seconds since the worker last moved."""
        now, seen = time.monotonic(), self._mark()
        if seen != self._seen or seen[0] < 0:
            self._seen, self._since = seen, now
        return now - self._since


class Crashed(PoolError):
    """The worker died while running the query (its process, not the server)."""

    status = 400


class Preempted(PoolError):
    """The query had run past its share of a worker while others waited, and was stopped."""

    status = 503


class MemoryExceeded(PoolError):
    """The job needed more memory than a worker may use, and its worker was stopped: a bound
    of this server, like the time limit, not a fault of the query (which Crashed is)."""

    status = 503


@dataclass
class _Running:
    started: float | None  # when the job was sent (None: the worker is still starting)
    preemptible: bool


class _Worker:
    def __init__(self, location: str, memory_limit: int | None) -> None:
        mine, theirs = socket.socketpair()
        limit = memory_limit or 0
        with theirs:
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-c", _BOOT, str(theirs.fileno()), location, str(limit)],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
            )
        self.conn = Connection(mine.detach())
        self.location = location  # the generation it reads, or will on its next job
        self.ready = False
        self.preempted = False  # stopped to make room for waiting requests
        self.over_memory = False  # stopped for passing the memory limit

    def wait_ready(self, timeout: float) -> list[str]:
        """Wait for the worker to open the store; return its graph names. Raises NotReady when
        it has not within ``timeout`` s, StoreError when it failed to."""
        if not self.conn.poll(timeout):
            raise NotReady(f"a query worker did not open the store within {timeout:g} s")
        try:
            status, detail = self.conn.recv()
        except (EOFError, OSError):
            raise StoreError("a query worker stopped while opening the store") from None
        if status != "ready":
            raise StoreError(detail)
        self.ready = True
        return list(detail)

    def exit_status(self, timeout: float = 1.0) -> int | None:
        """The worker's exit status (negative: the signal that ended it) once it has ended,
        waiting up to ``timeout`` s; None if it is still running."""
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self) -> None:
        self.conn.close()
        if self.process.poll() is None:
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):  # reaped later by the kernel
            self.process.wait(5)


class WorkerPool:
    """``size`` worker processes over the store at ``location``, each query limited to
    ``time_limit`` seconds; under load, a preemptible query that has run ``share`` seconds
    (default a quarter of the time limit) gives way to the requests waiting. ``spares`` more
    processes are started ahead, each to take the place of a stopped worker at once. A job
    whose worker's memory passes ``memory_limit`` bytes is stopped (None: no limit)."""

    def __init__(
        self,
        location: str | Path,
        size: int,
        time_limit: float,
        share: float | None = None,
        spares: int = 1,
        memory_limit: int | None = None,
    ) -> None:
        self.location = Path(location)
        self.memory_limit = memory_limit
        self.size = size
        self.time_limit = time_limit
        self.share = time_limit / 4 if share is None else share
        self.start_timeout = 60.0
        self.graphs: list[str] = []
        self.generation = Generation("", datetime.fromtimestamp(0, UTC))
        self._guard = threading.Lock()
        self._changed = threading.Condition(self._guard)  # a worker freed, a job begun
        self._idle: deque[_Worker] = deque()
        self._running: dict[_Worker, _Running] = {}
        self._line: deque[int] = deque()  # the requests waiting for a worker, in arrival order
        self._tickets = itertools.count()
        self._freeing = 0  # workers stopped to make room whose replacements are not idle yet
        self._spares: deque[_Worker] = deque()  # started, to take a stopped worker's place
        self.spare_count = spares
        self._all: set[_Worker] = set()
        self.held: HeldStore | None = None
        self._reading = str(self.location)  # the generation the next job runs on
        # Whether a generation may have lost its last reader since the last look (a worker
        # moved to the latest, or stopped): only then are the generations listed, after a job.
        self._unread = False
        self._started = False

    def start(self) -> None:
        """Hold the store, publish its first generation, start the workers and wait for the
        first to open it.

        Raises StoreError when there is no store at the location, when another process holds
        it (named), or when it cannot be opened. Calling it again does nothing.
        """
        with self._guard:
            if self._started:
                return
            if not (self.location / "CURRENT").is_file():
                raise StoreError(
                    f"there is no store at {self.location}: load pages first with "
                    f"`benchgraph ingest --store {self.location} PAGES...`"
                )
            self.held = HeldStore(self.location, secrets.token_urlsafe(32), self._switch)
            try:
                first = self.held.open()
                self._reading, self.generation = str(first.location), first.generation
                workers = [self._spawn() for _ in range(self.size)]
                self._spares.extend(self._spawn() for _ in range(self.spare_count))
                self._all.update(workers, self._spares)
                workers[0].wait_ready(self.start_timeout)
                self.graphs = first.graphs
            except BaseException:
                held = self._close_locked()
                if held is not None:  # nothing is being published yet: safe under the lock
                    held.close()
                raise
            self._idle.extend(workers)
            self._started = True
            self._changed.notify_all()

    def run(self, job: Job | DumpJob, time_limit: float | None = None) -> Answered | Failure:
        """Run ``job`` on a free worker and return what it answered; ``time_limit`` (seconds)
        replaces the pool's for this job.

        Raises Busy when no worker comes free within the time limit, TimedOut when the query
        outlives it (its worker is replaced), Preempted when it was stopped to make room for
        waiting requests, MemoryExceeded when it needed more than the memory limit, Crashed
        when the worker dies running it.
        """
        limit = self.time_limit if time_limit is None else time_limit
        self.start()
        worker = self._checkout()
        for _ in range(self.size + self.spare_count):
            if worker.process.poll() is None:
                break
            self._replace(worker)  # it died idle (killed from outside): not this job
            worker = self._checkout()
        try:
            if not worker.ready:
                try:
                    # A spare put in a stopped worker's place may still be starting: the job
                    # waits for it no longer than its own time limit; the worker is kept.
                    worker.wait_ready(min(self.start_timeout, limit))
                except NotReady:
                    self._release(worker)
                    raise Busy(
                        "no query worker is available right now; try again shortly"
                    ) from None
            self._begin(worker, preemptible=isinstance(job, Job) and job.preemptible)
            with self._guard:
                if worker.location != self._reading:
                    worker.location = self._reading
                    self._unread = True  # the generation it read may be read by none now
            worker.conn.send((worker.location, job))
            watched = _Progress(worker.process.pid, job.path) if isinstance(job, DumpJob) else None
            if not self._wait(worker, limit, watched):
                self._replace(worker)
                if watched is not None and watched.stalled:
                    raise Stalled(
                        f"writing the dump made no progress for {self.time_limit:g} s (its "
                        "query worker stalled) and was stopped; try again shortly"
                    )
                if isinstance(job, DumpJob):
                    raise TimedOut(
                        f"writing the dump took longer than the time limit of {limit:g} s and "
                        "was stopped (the dump_timeout setting)"
                    )
                raise TimedOut(
                    f"the query ran longer than the time limit of {limit:g} s and was "
                    "stopped; narrow it (more specific patterns, a LIMIT) and try again"
                )
            reply: Answered | Failure = worker.conn.recv()
        except (EOFError, OSError, StoreError) as error:
            raise self._stopped(worker, job, error, limit) from None
        self._release(worker)
        return reply

    def _wait(self, worker: _Worker, limit: float, watched: _Progress | None = None) -> bool:
        """Wait up to ``limit`` s for ``worker``'s answer; return False if none came. Meanwhile
        watch its memory: past the limit, mark it and kill it (its end is then an answer).
        With ``watched`` (a dump's), also give up once it has made no progress for the pool's
        time limit (``watched.stalled``): a long job must keep moving."""
        deadline = time.monotonic() + limit
        bound = self.memory_limit
        watching = bound is not None or watched is not None
        while (left := deadline - time.monotonic()) > 0:
            if worker.conn.poll(min(left, memory.WATCH_SECONDS) if watching else left):
                return True
            if bound is not None and not worker.over_memory:
                used = memory.resident(worker.process.pid)
                if used is not None and used > bound:
                    worker.over_memory = True
                    worker.process.kill()
            if watched is not None and watched.idle() > self.time_limit:
                watched.stalled = True
                return False
        return False

    def _stopped(
        self, worker: _Worker, job: Job | DumpJob, error: Exception, limit: float
    ) -> PoolError:
        """Replace ``worker``, which ended or failed while running ``job``; return the error
        that says why (the pool's own stops first, then what the worker's end shows)."""
        over, preempted = worker.over_memory, worker.preempted
        status = None
        if self.memory_limit and not (over or preempted or isinstance(error, StoreError)):
            status = worker.exit_status()  # it ended by itself: under its backstop?
        self._replace(worker)
        if over or memory.ran_out(status):
            if not over:
                _log.warning(
                    "a query worker ran out of memory under its backstop (status %s)", status
                )
            return MemoryExceeded(
                memory.stop_message(self.memory_limit or 0, isinstance(job, DumpJob))
            )
        if preempted:
            return Preempted(
                f"the server is busy: this query ran past its share of a query worker "
                f"({self.share:g} s) while other requests waited, and was stopped to let "
                f"them run; try again shortly (when the server is not busy, a query may "
                f"run for {limit:g} s)"
            )
        if isinstance(error, StoreError):
            _log.warning("a query worker could not be used: %s", error)
            return Busy("no query worker is available right now; try again shortly")
        return Crashed(
            "the query stopped its query worker (it may nest too deeply or be too long "
            "an expression); the server is fine, but the query cannot be answered"
        )

    def _checkout(self) -> _Worker:
        """The next idle worker, first come first served; raise Busy when none comes free
        within the time limit. While waiting, make room (see :meth:`_make_room`)."""
        with self._changed:
            ticket = next(self._tickets)
            self._line.append(ticket)
            deadline = time.monotonic() + self.time_limit
            try:
                while not (self._idle and self._line[0] == ticket):
                    now = time.monotonic()
                    if now >= deadline:
                        raise Busy(
                            f"all {self.size} query workers stayed busy for "
                            f"{self.time_limit:g} s; try again shortly"
                        )
                    self._changed.wait(min(deadline, self._make_room(now)) - now)
                worker = self._idle.popleft()
                self._running[worker] = _Running(None, False)
                return worker
            finally:
                self._line.remove(ticket)
                self._changed.notify_all()  # the next in line may go

    def _make_room(self, now: float) -> float:
        """When more requests wait than workers are idle or being freed, stop the query that
        has run longest if it has had its share; return when to look again.

        Called with the lock held."""
        if len(self._line) <= len(self._idle) + self._freeing:
            return now + self.share
        running = [
            (r.started, w)
            for w, r in self._running.items()
            if r.preemptible and r.started is not None and not w.preempted
        ]
        if not running:
            return now + self.share
        started, oldest = min(running, key=lambda item: item[0])
        if started + self.share > now:
            return started + self.share
        oldest.preempted = True
        self._freeing += 1
        oldest.process.kill()  # its request's thread sees the end and replaces it
        return now + self.share

    def _switch(self, location: Path, generation: Generation, graphs: list[str]) -> None:
        """Make the generation at ``location`` the one the next jobs run on (the store holding
        ``graphs``), and delete those no worker reads any more."""
        with self._guard:
            self._reading, self.generation, self.graphs = str(location), generation, graphs
            self._discard()

    def _discard(self) -> None:
        """Delete the generations no worker reads (with the lock held)."""
        self._unread = False
        if self.held is not None:
            reading = {Path(w.location) for w in self._all} | {Path(self._reading)}
            self.held.discard(reading)

    def serving(self, url: str) -> None:
        """Add the URL the server listens at, ``url``, to the record of the store's holder."""
        with self._guard:
            if self.held is None:
                return
            found = holder.read(self.location)
            if found is None or found.pid != os.getpid():
                return
            try:
                holder.write(self.location, found.serving(url))
            except OSError as error:  # the record is a courtesy to others: serve on
                _log.warning("cannot add the URL to %s: %s", self.location / holder.FILE, error)

    def running(self) -> int:
        """How many jobs the workers are running now."""
        with self._guard:
            return len(self._running)

    def _spawn(self) -> _Worker:
        return _Worker(self._reading, self.memory_limit)

    def _begin(self, worker: _Worker, preemptible: bool) -> None:
        with self._changed:
            self._running[worker] = _Running(time.monotonic(), preemptible)
            self._changed.notify_all()  # waiters may now count this job's share

    def _release(self, worker: _Worker) -> None:
        """Put ``worker`` back after its job, or replace it if it was stopped meanwhile (its
        answer may have come just before it was killed)."""
        with self._changed:
            self._running.pop(worker, None)
            if not (worker.preempted or worker.over_memory):
                self._idle.append(worker)
                self._changed.notify_all()
                if self._unread:  # the generation it read before this job may be free now
                    self._discard()
                return
        self._replace(worker)

    def _replace(self, worker: _Worker) -> None:
        worker.stop()
        with self._changed:
            self._all.discard(worker)
            self._unread = True
            self._running.pop(worker, None)
            if worker.preempted:
                self._freeing -= 1
            if self._started:
                while self._spares and self._spares[0].process.poll() is not None:
                    dead = self._spares.popleft()  # a spare that died waiting
                    dead.stop()
                    self._all.discard(dead)
                fresh = self._spares.popleft() if self._spares else self._spawn()
                self._idle.append(fresh)
                while len(self._spares) < self.spare_count:
                    self._spares.append(self._spawn())
                self._all.update(self._idle, self._spares)
            self._changed.notify_all()

    def close(self) -> None:
        """Stop every worker and release the store."""
        with self._guard:
            held = self._close_locked()
        if held is not None:  # outside the lock: a generation being published takes it
            held.close()

    def _close_locked(self) -> HeldStore | None:
        """Stop every worker; return the held store, for the caller to close once it has let
        go of the lock (closing waits for a generation being published, which takes it)."""
        self._started = False
        for worker in list(self._all):
            worker.stop()
        self._all.clear()
        self._idle.clear()
        self._spares.clear()
        self._running.clear()
        self._freeing = 0
        self._changed.notify_all()
        held, self.held = self.held, None
        return held
