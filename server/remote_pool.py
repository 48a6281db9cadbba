"""Queries answered by a remote SPARQL server: the server as a read-only proxy.

:class:`RemotePool` stands where :class:`server.workers.WorkerPool` stands for an embedded
store, with the same surface (``start``, ``run``, ``graphs``, ``generation``, ``close``). The
guard, the dataset checks, the row cap and the answer formats are the same: only the evaluation
happens elsewhere. At most ``size`` queries are sent at once; each request to the server is
limited to the query time limit (504 past it), and a server that cannot be reached is 502.

The data can change on the server at any time (another process may ingest), so the store's
generation, which keys the answer cache and the ETag, is read from the server: the number of
page and report stamps and the latest of them. It is read again at most once a second, so an
answer may be served from the cache for up to a second after the data changed.
"""

from __future__ import annotations

import hashlib
import threading
import time
from datetime import UTC, datetime

import pyoxigraph as ox

from benchgraph import queries
from benchgraph.store import StoreError
from benchgraph.store.remote import RemoteStore, StoreTimeout
from server import engine
from server.engine import Answered, DumpJob, Failure, Job
from server.generation import Generation
from server.workers import Busy, PoolError, TimedOut

REFRESH_SECONDS = 1.0


class Unreachable(PoolError, StoreError):
    """The remote store could not be reached or failed (a StoreError too, so that
    ``benchgraph serve`` reports it at start-up like any store that cannot be opened)."""

    status = 502


class RemotePool:
    """Run queries on the SPARQL server at ``url``, ``size`` at a time, each limited to
    ``time_limit`` seconds."""

    def __init__(self, url: str, size: int, time_limit: float) -> None:
        self.location = url
        self.size = size
        self.time_limit = time_limit
        self.graphs: list[str] = []
        self.generation = Generation("", datetime.fromtimestamp(0, UTC))
        self._store: RemoteStore | None = None
        self._slots = threading.BoundedSemaphore(size)
        self._guard = threading.Lock()
        self._read_at = 0.0

    def start(self) -> None:
        """Connect (checking the server) and read the store's generation and graphs, at most
        once a second. Raises StoreError when the server cannot be used."""
        with self._guard:
            if self._store is None:
                try:
                    self._store = RemoteStore.from_settings(self.location, read_only=True)
                except StoreError as error:
                    raise Unreachable(str(error)) from None
                # A client waits: one quick retry, not the full backoff of a batch job.
                client = self._store.client
                client.retries, client.backoff = min(client.retries, 1), 0.2
            if time.monotonic() - self._read_at < REFRESH_SECONDS:
                return
            store = self._store.with_timeout(self.time_limit)
            try:
                self.generation = _generation(store)
                self.graphs = store.named_graphs()
            except StoreError as error:
                raise Unreachable(str(error)) from None
            self._read_at = time.monotonic()

    def run(self, job: Job | DumpJob, time_limit: float | None = None) -> Answered | Failure:
        """Run ``job`` on the server; raise Busy, TimedOut or Unreachable as the pool would."""
        limit = self.time_limit if time_limit is None else time_limit
        self.start()
        if not self._slots.acquire(timeout=self.time_limit):
            raise Busy(
                f"all {self.size} query slots stayed busy for {self.time_limit:g} s; "
                "try again shortly"
            )
        try:
            assert self._store is not None
            store = self._store.with_timeout(limit)
            if isinstance(job, DumpJob):
                return engine.dump(store, job)
            return engine.execute(store, job)
        except StoreTimeout:
            raise TimedOut(
                f"the query ran longer than the time limit of {limit:g} s and was stopped; "
                "narrow it (more specific patterns, a LIMIT) and try again"
            ) from None
        except StoreError as error:
            raise Unreachable(str(error)) from None
        finally:
            self._slots.release()

    def close(self) -> None:
        """Nothing runs in the background: forget the connection settings."""
        with self._guard:
            self._store = None
            self._read_at = 0.0


def _generation(store: RemoteStore) -> Generation:
    answer = store.query(queries.internal("generation"), default_graph=())  # named graphs only
    assert isinstance(answer, ox.QuerySolutions)
    values = [str(getattr(row[name], "value", "")) for row in answer for name in answer.variables]
    latest = values[-1] if values else ""
    try:
        modified = datetime.fromisoformat(latest.replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        modified = datetime.fromtimestamp(0, UTC)
    tag = hashlib.sha256("\0".join([store.location, *values]).encode()).hexdigest()[:20]
    return Generation(tag, modified.replace(microsecond=0))
