"""The inside of a query worker process: open the store read-only, run jobs, send answers.

A worker is started by :class:`server.workers.WorkerPool` and talks to it over a socket pair: it
sends ``("ready", graph names)`` (or ``("failed", message)``) once, then one :class:`Answered` or
:class:`Failure` per :class:`Job` or :class:`DumpJob` (a dump is written to a file, not sent).
Everything a job costs — evaluation and serialisation — happens here, so the pool can stop it by
killing the process. This module imports nothing of Flask.

An answer the server reads itself rather than serves (the site's pages, the feed, labels, VoID
figures, parameter look-ups) is asked for in the format :data:`VALUES`: its rows come back as
data, each cell as text (:class:`Values`), with no body to write here nor to parse there. This
is the cheapest form that crosses the socket: on 5,000 rows of three cells, writing SPARQL JSON
takes 36 ms here and parsing it back 10 ms in the server, pickling the terms themselves 23 ms
and 11 ms, and the cells as text 1 ms to read.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from itertools import islice
from multiprocessing.connection import Connection
from typing import Literal

import pyoxigraph as ox

from benchgraph import answering, asof, export
from benchgraph import vocab as V
from benchgraph.answering import Question
from benchgraph.media import GRAPH_FORMATS, QUAD_FORMATS, RESULTS_FORMATS
from benchgraph.sparqltext import Term
from benchgraph.store import Store, StoreError, Triples
from benchgraph.store.embedded import EmbeddedStore
from server import guard, memory, results, sandbox

# A lookup run before a job's query (see :mod:`server.lookahead`): an internal query's text and
# its bindings; its answer is its first column, as :meth:`server.backend.Backend.lookup` reads it.
Check = tuple[str, Mapping[str, Term]]

# Deeply nested expressions recurse deeply in the engine's parser and evaluator: queries run on
# a thread with a large stack (address space, mostly never touched).
STACK_BYTES = 512 * 1024 * 1024


@dataclass(frozen=True)
class Job:
    """One query to run. ``default_graph``/``named_graphs`` None: the store's merged view as
    default graph, every named graph reachable with GRAPH."""

    query: str
    results_format: str | None  # media key or VALUES for SELECT/ASK answers; None: none fits
    graph_format: str | None  # media key for CONSTRUCT/DESCRIBE answers
    max_rows: int
    substitutions: Mapping[str, Term] = field(default_factory=dict)
    default_graph: tuple[str, ...] | None = None
    named_graphs: tuple[str, ...] | None = None
    base_iri: str | None = None
    # A client's own SPARQL (not one of the server's queries): under load it may be stopped
    # after its share of a worker to make room for waiting requests (server.workers).
    preemptible: bool = False
    # Read by the guard here, before it runs (server.guard): SERVICE refused, and without a
    # dataset given, its FROM graphs checked against the store's.
    guarded: bool = False
    # What a named query reads of the store's past (None: the store as it is).
    past: asof.Past | None = None
    # Lines of PREFIX declarations written before a client's query (the predeclared prefixes:
    # benchgraph.prefixes), so that a parse error is said in the client's own lines.
    added: int = 0
    # Lookups run first, each answered in :attr:`Answered.checked`; the query is run only when
    # each found something (else the job is a Failure "missing"): see server.lookahead.
    checks: tuple[Check, ...] = ()

    @classmethod
    def asking(
        cls,
        question: Question,
        results_format: str | None,
        graph_format: str | None,
        max_rows: int,
        checks: tuple[Check, ...] = (),
    ) -> Job:
        """The job that runs a named query's ``question`` (see :mod:`benchgraph.answering`),
        after the lookups ``checks``."""
        return cls(
            question.text,
            results_format,
            graph_format,
            max_rows,
            question.bindings,
            past=question.past,
            checks=checks,
        )


@dataclass(frozen=True)
class DumpJob:
    """Write the whole store as a dump in the format with media key ``format`` to ``path``,
    with its history if ``history`` (a quad format's only)."""

    format: str
    path: str
    history: bool = False


# The results format of an answer kept as data (not a media type: it is never served).
VALUES = "values"


@dataclass(frozen=True)
class Values:
    """A SELECT answer as data: its variables, and per row the text of each bound variable's
    term (an IRI, a blank node's label, a literal's lexical form; a triple term as N-Triples).
    An ASK answer is one row with ``boolean``: ``true`` or ``false``."""

    names: tuple[str, ...]
    rows: tuple[dict[str, str], ...]

    def column(self) -> list[str]:
        """The first variable's text in each row where it is bound."""
        if not self.names:
            return []
        first = self.names[0]
        return [row[first] for row in self.rows if first in row]


# What a row of Values costs beside its text, about: its dict, and each value's str object and
# slot in the dict (CPython 3.11, 64-bit; the names are shared between rows).
ROW_BYTES = 200
VALUE_BYTES = 80


@dataclass(frozen=True)
class Answered:
    """What a worker answered a job, as sent back to the server: the answer written in its
    format (or, in the format VALUES, its rows as text), with its size. Not the engine's answer
    (:data:`benchgraph.store.Answer`), which never leaves the worker."""

    kind: Literal["solutions", "boolean", "triples"]
    format: str  # media key, or VALUES
    body: bytes  # empty in the format VALUES
    rows: int
    truncated: bool
    values: Values | None = None  # in the format VALUES only
    checked: tuple[tuple[str, ...], ...] = ()  # the first column of each of the job's checks

    @property
    def size(self) -> int:
        """About how many bytes the answer takes in the server's memory: its body, or its
        values with what Python spends on each row (a dict) and each value (a str object)."""
        if self.values is None:
            return len(self.body)
        return sum(
            ROW_BYTES + sum(VALUE_BYTES + len(v) for v in row.values()) for row in self.values.rows
        )


@dataclass(frozen=True)
class Failure:
    # missing: one of the job's checks found nothing, and the query was not run
    reason: Literal["syntax", "evaluation", "not_acceptable", "store", "refused", "missing"]
    message: str
    kind: Literal["results", "graph"] | None = None  # for not_acceptable: the answer's kind
    graph: str | None = None  # for refused: the graph named that the store does not hold
    checked: tuple[tuple[str, ...], ...] = ()  # for missing: as Answered.checked


def _written(body: bytes | None) -> bytes:
    """The bytes a pyoxigraph serializer returns when given no output file."""
    assert body is not None
    return body


def _text(term: Term) -> str:
    """A term's text as :class:`Values` holds it."""
    return str(term) if isinstance(term, ox.Triple) else term.value


def _solutions(answer: ox.QuerySolutions, job: Job, fmt: str) -> Answered:
    """The first ``max_rows`` solutions of ``answer``, read once, written in ``fmt`` (or kept
    as :class:`Values`)."""
    names = [v.value for v in answer.variables]
    rows = [tuple(row) for row in islice(answer, job.max_rows + 1)]
    truncated = len(rows) > job.max_rows
    rows = rows[: job.max_rows]
    if fmt == VALUES:
        kept = tuple(
            {n: _text(t) for n, t in zip(names, row, strict=True) if t is not None} for row in rows
        )
        return Answered("solutions", fmt, b"", len(rows), truncated, Values(tuple(names), kept))
    return Answered("solutions", fmt, results.write(fmt, names, rows), len(rows), truncated)


def _boolean(answer: ox.QueryBoolean, fmt: str) -> Answered:
    """An ASK answer written in ``fmt`` (or kept as :class:`Values`)."""
    if fmt == VALUES:
        values = Values(("boolean",), ({"boolean": "true" if answer else "false"},))
        return Answered("boolean", fmt, b"", 1, False, values)
    return Answered(
        "boolean", fmt, _written(answer.serialize(format=RESULTS_FORMATS[fmt])), 1, False
    )


def _triples(triples: Iterable[ox.Triple], job: Job, fmt: str) -> Answered:
    kept = list(islice(triples, job.max_rows + 1))
    truncated = len(kept) > job.max_rows
    kept = kept[: job.max_rows]
    items: list[ox.Triple] | list[ox.Quad] = kept
    if fmt in QUAD_FORMATS:
        items = [ox.Quad(t.subject, t.predicate, t.object, ox.DefaultGraph()) for t in kept]
    body = _written(ox.serialize(items, format=GRAPH_FORMATS[fmt], prefixes=V.PREFIXES))
    return Answered("triples", fmt, body, len(kept), truncated)


def execute(store: Store, job: Job) -> Answered | Failure:
    """Run ``job`` on ``store`` and serialise its answer in the format asked for, after its
    checks (when one finds nothing, or fails, that is the answer and the query is not run).

    A remote store's StoreError (unreachable, timed out) is not a Failure: it propagates."""
    if job.checks:
        checked = []
        for text, bindings in job.checks:
            found = _answer(store, Job(text, VALUES, None, job.max_rows, bindings))
            if not isinstance(found, Answered) or found.values is None:
                return found
            checked.append(tuple(found.values.column()))
        if not all(checked):
            return Failure("missing", "", checked=tuple(checked))
        answered = _answer(store, job)
        if isinstance(answered, Failure):
            return answered
        return replace(answered, checked=tuple(checked))
    return _answer(store, job)


def _answer(store: Store, job: Job) -> Answered | Failure:
    """Run ``job``'s query (not its checks) on ``store``; as :func:`execute`."""
    refused = _refused(store, job) if job.guarded else None
    if refused is not None:
        return refused
    try:
        answer = answering.run(
            store,
            Question(job.query, dict(job.substitutions), job.past),
            job.base_iri,
            default_graph=job.default_graph,
            named_graphs=job.named_graphs,
        )
        if isinstance(answer, Triples):
            if job.graph_format is None:
                return Failure("not_acceptable", "", "graph")
            return _triples(answer, job, job.graph_format)
        if job.results_format is None:
            return Failure("not_acceptable", "", "results")
        if isinstance(answer, ox.QueryBoolean):
            return _boolean(answer, job.results_format)
        return _solutions(answer, job, job.results_format)
    except SyntaxError as error:
        return Failure("syntax", str(error))
    except OSError as error:  # the store failing to read, or the engine refusing an operation
        return Failure("store" if store_trouble(error) else "evaluation", str(error))
    except (ValueError, TypeError, RuntimeError) as error:
        return Failure("evaluation", str(error))


def store_trouble(error: OSError) -> bool:
    """Whether the engine's ``error`` is the store failing to read (not the query's fault)."""
    return str(error).startswith(("IO error", "Corruption", "Invalid argument"))


def _refused(store: Store, job: Job) -> Failure | None:
    """What the guard refuses of ``job``'s query, as a Failure; None when it may run. The guard
    reads it here, in the worker: a long query costs the parser time, within the time limit."""
    try:
        inspection = guard.inspect(job.query, job.base_iri)
        own_dataset = job.default_graph is None and job.named_graphs is None  # FROM is read
        if own_dataset and (inspection.from_graphs or inspection.from_named_graphs):
            guard.outside(inspection, set(store.named_graphs()))
    except guard.Refused as refused:
        return Failure("refused", str(refused), graph=refused.graph)
    return None


def dump(store: Store, job: DumpJob) -> Answered | Failure:
    """Write the dump ``job`` asks for; the answer's body is empty (the dump is in the file)."""
    try:
        with open(job.path, "wb") as output:
            export.write(store, job.format, output, job.history)
    except (OSError, ValueError) as error:
        return Failure("store", f"cannot write the dump: {error}")
    return Answered("triples", job.format, b"", 0, False)


def _serve(conn: Connection, location: str) -> None:
    """Open the generation at ``location``, then answer each job on the generation it comes
    with, opening that one first when it is another (the store has been written meanwhile)."""
    try:
        store = EmbeddedStore(location, read_only=True)
        graphs = store.named_graphs()
    except StoreError as error:
        conn.send(("failed", str(error)))
        return
    conn.send(("ready", graphs))
    while True:
        try:
            reading, job = conn.recv()
        except (EOFError, OSError):
            return
        if reading != location:
            store.close()
            try:
                store, location = EmbeddedStore(reading, read_only=True), reading
            except StoreError as error:
                conn.send(Failure("store", str(error)))
                return  # the pool replaces a worker that ended
        conn.send(dump(store, job) if isinstance(job, DumpJob) else execute(store, job))


def run_worker(fd: int, location: str, memory_limit: int = 0) -> None:
    """Entry point of a worker process started with its end of a socket pair as ``fd``;
    ``memory_limit`` (bytes, 0 none) is what the pool lets it use (see :mod:`server.memory`)."""
    main(Connection(fd), location, memory_limit)


def main(conn: Connection, location: str, memory_limit: int = 0) -> None:
    """Confine this worker process (its network, and its memory to the backstop of
    ``memory_limit`` bytes unless 0), then serve jobs from ``conn`` until it closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the server, which stops us
    sandbox.die_with_parent()
    sandbox.deny_network()
    if memory_limit:
        memory.cap(memory_limit, STACK_BYTES)  # before the query thread reserves its stack
        threading.excepthook = memory.exit_on_memory_error
    threading.stack_size(STACK_BYTES)
    worker = threading.Thread(target=_serve, args=(conn, location), name="query")
    worker.start()
    worker.join()
