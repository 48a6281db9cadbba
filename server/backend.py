"""What the views share: the settings, the named-query catalogue, the worker pool and the
answer cache (:mod:`server.cache`).

Views never build stores; they ask for the app's backend (:func:`current`), which starts its
query workers on first use (``benchgraph serve`` starts them before it listens).
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import cast

from flask import current_app, request

from benchgraph import graphs, media, syntax
from benchgraph.queries import NamedQuery
from benchgraph.store import is_remote
from benchgraph.suggest import Names
from server.cache import CACHE_ENTRIES, Cache
from server.engine import VALUES, Answered, DumpJob, Failure, Job, Term, Values
from server.errors import ApiError
from server.kinds import Kinds
from server.remote_pool import RemotePool
from server.workers import PoolError, WorkerPool

NAMES_ENTRIES = 64  # sets of names to suggest from, of one generation (a benchmark's metrics each)
NAMES_ROWS = 10_000_000  # the rows such a set is read with (every method's name, however many)


class Backend:
    """The per-app state: ``config`` holds the resolved settings by name."""

    def __init__(self, config: dict[str, str | int | float], catalogue: dict[str, NamedQuery]):
        self.config = config
        self.catalogue = catalogue
        location, size = str(config["store"]), int(config["workers"])
        limit = float(config["query_timeout"])
        self.pool: WorkerPool | RemotePool = (
            RemotePool(location, size, limit)
            if is_remote(location)
            else WorkerPool(location, size, limit, memory_limit=int(config["query_memory"]))
        )
        self.cache = Cache(CACHE_ENTRIES)
        self.kinds = Kinds()
        self._dumps: Path | None = None
        self._dump_locks: dict[str, threading.Lock] = {}
        self._dump_guard = threading.Lock()
        self._names: OrderedDict[Hashable, Names] = OrderedDict()
        self._names_generation = ""
        self._names_lock = threading.Lock()

    @property
    def max_rows(self) -> int:
        return int(self.config["max_rows"])

    def graphs(self) -> list[str]:
        """The named graphs of the store (starting the workers if need be)."""
        self.pool.start()
        return self.pool.graphs

    def base_url(self) -> str:
        """The service's public URL, ending in a slash."""
        configured = str(self.config["base_iri"])
        return configured.rstrip("/") + "/" if configured else request.url_root

    def id_base(self) -> str:
        """The base of the resource IRIs ``/id/...`` answers for, ending in a slash."""
        return str(self.config["id_base"]).rstrip("/") + "/"

    def run(self, job: Job | DumpJob, time_limit: float | None = None) -> Answered:
        """Run ``job``; return its answer or raise ApiError with the status to answer."""
        reply = self.pool.run(job, time_limit)
        if isinstance(reply, Answered):
            return reply
        raise failure_error(reply, job if isinstance(job, Job) else None)

    def lookup(
        self, text: str, bindings: Mapping[str, Term], within: Sequence[str] | None = None
    ) -> list[str]:
        """The first column of the internal query ``text`` run with ``bindings`` (what a value
        given for a parameter stands for: see :func:`benchgraph.queries.resolve`), on the
        merged view or the union of the graphs ``within``, cached for the store generation
        like any answer."""
        self.pool.start()
        tag = self.pool.generation.tag
        if within is None and (checked := self.kinds.check(tag, text, bindings)) is not None:
            return checked
        within = tuple(within) if within is not None else None
        key = (tag, _lookup_key(text, bindings, within))
        answer = self.cache.get(key)
        if answer is None:
            job = Job(text, VALUES, None, self.max_rows, dict(bindings), default_graph=within)
            answer = self.run(job)
            self.cache.put(key, answer)
        return _first_column(answer)

    def looked_up(self, tag: str, text: str, bindings: Mapping[str, Term]) -> bool:
        """Whether :meth:`lookup` of ``text`` with ``bindings`` on the merged view is answered
        without a query in the store generation ``tag`` (cached, or a check :attr:`kinds`
        answers)."""
        if self.kinds.check(tag, text, bindings) is not None:
            return True
        return self.cache.get((tag, _lookup_key(text, bindings, None))) is not None

    def read_kinds(self, tag: str, time_limit: float | None = None) -> int | None:
        """Read the things of each looked-up type for the store generation ``tag`` into
        :attr:`kinds` (each query within ``time_limit`` seconds); return how many, or None when
        the generation changed meanwhile (nothing is kept then). Raises ApiError or PoolError
        like :meth:`run`."""

        def reader(text: str, bindings: Mapping[str, Term]) -> list[str] | None:
            answer = self.run(Job(text, VALUES, None, NAMES_ROWS, dict(bindings)), time_limit)
            return None if answer.truncated else _first_column(answer)

        read = Kinds()
        count = read.read(tag, reader)
        if self.pool.generation.tag != tag:
            return None
        self.kinds = read
        return count

    def remember(
        self, tag: str, text: str, bindings: Mapping[str, Term], column: Sequence[str]
    ) -> None:
        """Keep ``column`` as what :meth:`lookup` of ``text`` with ``bindings`` on the merged
        view answers in the store generation ``tag`` (a job's checks found it:
        :mod:`server.lookahead`)."""
        values = Values(("name",), tuple({"name": value} for value in column))
        answer = Answered("solutions", VALUES, b"", len(column), False, values)
        self.cache.put((tag, _lookup_key(text, bindings, None)), answer)

    def earlier(self, text: str, bindings: Mapping[str, Term]) -> list[str]:
        """As :meth:`lookup`, in the versions of pages the store keeps as history."""
        self.pool.start()
        kept = tuple(g for g in self.pool.graphs if g.startswith(graphs.HISTORY))
        return self.lookup(text, bindings, kept) if kept else []

    def names(self, text: str, bindings: Mapping[str, Term]) -> Names:
        """The names the internal query ``text`` answers with ``bindings`` (every name things
        of a kind go by, to suggest from), read once per store generation and kept apart from
        the answers: a value that names nothing costs no reading of the store after the first.
        No names when they cannot be read now (no worker free, past the time limit): the log says.
        """
        self.pool.start()
        tag = self.pool.generation.tag
        key = (text, _key(bindings))
        with self._names_lock:
            if self._names_generation != tag:
                self._names, self._names_generation = OrderedDict(), tag
            found = self._names.get(key)
            if found is not None:
                self._names.move_to_end(key)
                return found
        try:
            answer = self.run(Job(text, VALUES, None, NAMES_ROWS, dict(bindings)))
        except (ApiError, PoolError) as error:  # an error then suggests nothing, and says why
            current_app.logger.warning("no names to suggest from: %s", error)
            return Names(())
        found = Names(_first_column(answer))
        with self._names_lock:
            if self._names_generation == tag:
                self._names[key] = found
                while len(self._names) > NAMES_ENTRIES:
                    self._names.popitem(last=False)
        return found

    def dump_file(self, key: str, history: bool = False) -> Path:
        """The dump of the store in the format with media key ``key``, with its history if
        ``history``, as a file.

        A query worker writes it (the store stays read-only) the first time it is asked for in
        this store generation; later requests get the same file. The dump with the history is
        a file of its own. Raises ApiError or PoolError like :meth:`run`.
        """
        self.pool.start()
        variant = f"{key}-history" if history else key
        with self._dump_guard:
            if self._dumps is None:
                self._dumps = Path(tempfile.mkdtemp(prefix="benchgraph-dumps-"))
                atexit.register(shutil.rmtree, self._dumps, True)
            lock = self._dump_locks.setdefault(variant, threading.Lock())
        tag = self.pool.generation.tag
        path = self._dumps / f"{tag}.{variant}"
        with lock:
            if not path.is_file():
                for older in self._dumps.glob(f"*.{variant}"):  # of generations no longer served
                    if not older.name.startswith(f"{tag}."):
                        older.unlink(missing_ok=True)
                part = path.with_name(path.name + ".part")
                job = DumpJob(key, str(part), history)
                self.run(job, float(self.config["dump_timeout"]))
                os.replace(part, path)
        return path


def _key(bindings: Mapping[str, Term]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, str(v)) for k, v in bindings.items()))


def _lookup_key(
    text: str, bindings: Mapping[str, Term], within: tuple[str, ...] | None
) -> tuple[Hashable, ...]:
    """The cache key (the generation aside) of a lookup's answer."""
    return ("lookup", text, _key(bindings), within)


def _first_column(answer: Answered) -> list[str]:
    """The first column of an answer in the format VALUES."""
    assert answer.values is not None
    return answer.values.column()


def failure_error(failure: Failure, job: Job | None = None) -> ApiError:
    """The ApiError for what a worker reported about ``job``. A query the parser refused is
    said at its line and column in the client's own text (``line``, ``column``, and
    ``excerpt``: the line quoted with a caret under the place; see :mod:`benchgraph.syntax`)."""
    if failure.reason == "syntax":
        problem = (
            syntax.explain(failure.message, job.query, job.added)
            if job is not None
            else syntax.Problem(0, 0, failure.message)
        )
        if not problem.line:
            return ApiError(400, f"malformed query: {problem}")
        return ApiError(
            400,
            f"malformed query at line {problem.line}, column {problem.column}: {problem.message}",
            line=problem.line,
            column=problem.column,
            excerpt=problem.excerpt(),
        )
    if failure.reason == "not_acceptable":
        kinds = ("results", "page") if failure.kind == "results" else ("graph",)
        offered = ", ".join(m.mime for m in media.of_kind(*kinds))
        return ApiError(
            406,
            f"none of the acceptable formats fits this query's answer; it can be had as: {offered}",
        )
    if failure.reason == "evaluation":
        return ApiError(400, f"the query could not be evaluated: {failure.message}")
    if failure.reason == "refused":  # by the guard (server.guard), in the worker
        if failure.graph is not None:
            return ApiError(400, failure.message, graph=failure.graph)
        return ApiError(400, failure.message)
    # The engine's message may name the store's files: for the log, not for clients.
    current_app.logger.error("the store could not be read: %s", failure.message)
    return ApiError(500, "the store could not be read; the server's log says why")


def current() -> Backend:
    """The backend of the app handling the request."""
    return cast(Backend, current_app.extensions["benchgraph"])
