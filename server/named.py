"""The named-query surface: ``/queries`` lists the catalogue, ``/queries/<name>`` runs one.

Every ``queries/*.rq`` file is served under its stem. Query-string parameters are converted to
RDF terms by :meth:`benchgraph.queries.NamedQuery.bind` (a benchmark, metric, paper or method
is looked up first: :func:`benchgraph.queries.resolve`; one that names nothing is 404, with the
nearest names in ``suggestions``) and
bound to the query's variables, each written in place of its variable as one RDF term by
:func:`benchgraph.sparqltext.substitute`; ``format`` is reserved for choosing the answer's
format. A query that reads the audit summaries (:data:`benchgraph.summaries.READERS`) is
answered 503 while a current version of the store has none (it would count none of its
results), and one that reads the report keys (:data:`benchgraph.report_keys.READERS`) while a
current report has none (it would list none of its findings); neither is warmed ahead then:
no answer of it is made from such a store. Answers are cached per store generation and carry
an ``ETag`` and ``Last-Modified``, so revalidation is answered 304 without running anything.
The queries that take no parameter are answered ahead of their first request by a
:class:`Warmer` (``benchgraph serve`` starts one).
"""

from __future__ import annotations

import functools
import hashlib
import threading
import time
from collections.abc import Hashable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace

from flask import Blueprint, Flask, Response, jsonify, render_template, request
from werkzeug.datastructures import MIMEAccept
from werkzeug.http import is_resource_modified, parse_accept_header

from benchgraph import media, queries
from benchgraph.answering import RECORDS, Question, ask, bound
from benchgraph.queries import NamedQuery, QueryError, UnknownName, did_you_mean
from benchgraph.sparqltext import query_form
from benchgraph.store import StoreError
from server import lookahead
from server.answers import respond
from server.backend import Backend, current
from server.engine import VALUES, Answered, Failure, Job, Term
from server.errors import ApiError
from server.workers import PoolError, TimedOut

blueprint = Blueprint("named", __name__)
# How often the warmer reads the store's generation (a remote store's changes with ingests).
WARM_POLL_SECONDS = 2.0


def entry(named: NamedQuery, base: str) -> dict[str, object]:
    """A catalogue entry as the JSON listing shows it."""
    return {
        "name": named.name,
        "summary": named.summary,
        "description": named.description,
        "url": f"{base}queries/{named.name}",
        "parameters": [
            {
                "name": p.name,
                "type": p.type,
                "required": p.required,
                "default": p.default,
                "description": p.help,
            }
            for p in named.params
        ],
    }


@blueprint.get("/queries")
def listing() -> Response:
    """The catalogue of named queries, as JSON or (browsers) HTML."""
    backend = current()
    offered = [media.BY_KEY["apijson"], media.BY_KEY["html"]]
    chosen = media.choose(offered, request.accept_mimetypes, request.args.getlist("format"))
    if chosen is None:
        raise ApiError(406, "the catalogue is served as application/json or text/html")
    base = backend.base_url()
    entries = [entry(q, base) for q in backend.catalogue.values()]
    if chosen.kind == "page":
        text = render_template("queries.html", title="Named queries", entries=entries)
        response = Response(text, content_type=chosen.content_type)
    else:
        response = jsonify({"queries": entries})
    response.headers["Vary"] = "Accept"
    return response


def given(named: NamedQuery) -> dict[str, str]:
    """The request's query-string parameters for ``named`` but ``format``, by name. An empty
    one is not given: a form's field left empty (the catalogue page's forms send every field)
    leaves its parameter to its default. Raises ApiError (400) for a parameter given twice."""
    values: dict[str, str] = {}
    for key in request.args:
        if key == "format":
            continue
        sent = request.args.getlist(key)
        if len(sent) > 1:
            raise ApiError(400, f"{named.name}: parameter {key!r} is given twice", parameter=key)
        if sent[0].strip():
            values[key] = sent[0]
    return values


def _find(backend: Backend, name: str) -> NamedQuery:
    """The named query ``name``. Raises ApiError (404) when there is none, with the nearest
    names in ``suggestions``."""
    named = backend.catalogue.get(name)
    if named is None:
        suggestions, hint = did_you_mean(name, backend.catalogue)
        raise ApiError(
            404,
            f"there is no named query {name!r}; {hint + ' ' if hint else ''}GET /queries lists "
            "them",
            suggestions=suggestions,
        )
    return named


def require_records(backend: Backend, named: NamedQuery) -> None:
    """Return unless ``named`` reads the audit summaries and some current version of the store
    has none, or reads the report keys and some current report has none: asked before any
    answer of it is made (an answer cached for the store generation was made from a whole
    store). The count is read each time, never cached: a repair changes
    no generation of a remote store. Raises ApiError: 503, the store not ready for it
    (``missing``: how many; no ``Retry-After``, as only ``benchgraph repair`` makes it ready),
    or what the count met."""
    for kept in RECORDS:
        if named.name not in kept.readers:
            continue
        job = Job(queries.internal(kept.count), VALUES, None, 1, kept.bindings(), default_graph=())
        answered = backend.run(job).values
        found = answered.column() if answered is not None else []
        missing = int(found[0]) if found and found[0] else 0
        if missing:
            raise ApiError(
                503, kept.refusal("the store", missing, "`benchgraph repair`"), missing=missing
            )


def asked(backend: Backend, named: NamedQuery, values: Mapping[str, str]) -> Question:
    """The question ``named`` asks with ``values``, each name looked up in the store through
    the query workers (see :func:`benchgraph.answering.ask`). Raises ApiError: 404 for a value
    that names nothing, with the nearest names in ``suggestions``; 400 for a value that is not
    valid."""
    with _refusals():
        return ask(named, values, backend)


def _at_hand(
    backend: Backend, named: NamedQuery, values: Mapping[str, str], tag: str
) -> Question | None:
    """:func:`asked` when its lookups are answered without a query in the store generation
    ``tag`` (see :func:`server.lookahead.at_hand`); None when one needs a query. Raises
    ApiError as :func:`asked` does."""
    with _refusals():
        return lookahead.at_hand(backend, named, values, tag)


@contextmanager
def _refusals() -> Iterator[None]:
    """Raise a parameter's refusal as the ApiError that says it: 404 for a value that names
    nothing (with the nearest names in ``suggestions``), 400 for one that is not valid."""
    try:
        yield
    except UnknownName as error:
        raise ApiError(
            404, str(error), parameter=error.parameter, suggestions=error.suggestions
        ) from None
    except QueryError as error:
        raise ApiError(400, str(error), parameter=error.parameter) from None


@functools.lru_cache(maxsize=256)
def _negotiated(
    accept: str, formats: tuple[str, ...]
) -> tuple[media.MediaType | None, media.MediaType | None]:
    """The results (or page) format and the graph format a named query's answer may take, for
    the ``Accept`` header ``accept`` and the ``format`` parameters ``formats``: worked out once
    per pair (clients send the same few)."""
    parsed = parse_accept_header(accept, MIMEAccept)
    return (
        media.choose(media.of_kind("results", "page"), parsed, formats),
        media.choose(media.of_kind("graph"), parsed, formats),
    )


@functools.cache
def _form(text: str) -> str | None:
    return query_form(text)


def cache_key(
    named: NamedQuery,
    bindings: Mapping[str, Term],
    results_format: str | None,
    graph_format: str | None,
) -> tuple[Hashable, ...]:
    """The answer-cache key of ``named`` run with ``bindings`` (the store generation aside).

    It holds the format the answer is written in and not the other: a SELECT or ASK answer is
    written in ``results_format`` whatever ``graph_format`` is, a CONSTRUCT or DESCRIBE answer
    the other way round. A query of no known form keeps both.
    """
    form = _form(named.text)
    formats: tuple[str | None, ...] = (
        (results_format,)
        if form in ("SELECT", "ASK")
        else (graph_format,)
        if form in ("CONSTRUCT", "DESCRIBE")
        else (results_format, graph_format)
    )
    return (named.name, tuple(sorted((k, str(v)) for k, v in bindings.items())), *formats)


def _asked_ahead(
    backend: Backend,
    named: NamedQuery,
    values: Mapping[str, str],
    tag: str,
    results_format: str | None,
    graph_format: str | None,
) -> tuple[Question, Answered] | None:
    """Run ``named`` with ``values`` and the lookups its parameters need in one job, when
    they are not cached for the store generation ``tag`` (see :mod:`server.lookahead`); keep
    what the lookups found in the cache, as :meth:`Backend.lookup` would. Returns the question
    asked and its answer; None when nothing was asked ahead or no answer came (a lookup found
    nothing, the store changed meanwhile): :func:`asked` then says why, or runs the question.
    Raises PoolError as :meth:`Backend.run` does."""
    found = lookahead.ahead(named, values)
    if found is None or all(backend.looked_up(tag, t, b) for t, b in found.checks):
        return None
    key = cache_key(named, found.question.bindings, results_format, graph_format)
    if backend.cache.get((tag, key)) is not None:
        return None
    require_records(backend, named)
    job = Job.asking(found.question, results_format, graph_format, backend.max_rows, found.checks)
    reply = backend.pool.run(job)
    if backend.pool.generation.tag != tag or len(reply.checked) != len(found.checks):
        return None  # another generation, or a lookup failed: the ordinary path says how
    for (text, bindings), column in zip(found.checks, reply.checked, strict=True):
        backend.remember(tag, text, bindings, column)
    if isinstance(reply, Failure):
        return None
    return found.question, replace(reply, checked=())


def parameterless(named: NamedQuery) -> bool:
    """Whether ``named`` can be run with no parameter given (each is optional)."""
    return not any(p.required for p in named.params)


@contextmanager
def _limited(named: NamedQuery) -> Iterator[None]:
    """A named query past the time limit, said in its terms: its user can change its
    parameters, not its text, and the server's operator can allow more time."""
    try:
        yield
    except TimedOut:
        limit = current().pool.time_limit
        raise TimedOut(
            f"the named query {named.name} ran longer than the server's time limit of "
            f"{limit:g} s and was stopped; a parameter that narrows it may answer in time, "
            "and the server's operator can allow more (benchgraph serve --query-timeout)"
        ) from None


@blueprint.get("/queries/<name>")
def run(name: str) -> Response:
    """Run a named query with the request's parameters."""
    backend = current()
    named = _find(backend, name)
    with _limited(named):
        return _run(backend, named)


def _run(backend: Backend, named: NamedQuery) -> Response:
    values = given(named)
    accept = request.headers.get("Accept", "")
    results, graph = _negotiated(accept, tuple(request.args.getlist("format")))
    page = results is not None and results.kind == "page"
    results_format = "json" if page else (results.key if results else None)
    graph_format = graph.key if graph else None
    backend.pool.start()
    generation = backend.pool.generation
    conditional = "If-None-Match" in request.headers or "If-Modified-Since" in request.headers
    early = None
    question = _at_hand(backend, named, values, generation.tag)
    if question is None:
        if (results or graph) and not conditional:
            early = _asked_ahead(
                backend, named, values, generation.tag, results_format, graph_format
            )
        question = asked(backend, named, values)
    if results is None and graph is None:
        offered = ", ".join(m.mime for m in media.of_kind("results", "page"))
        raise ApiError(406, f"no acceptable format; named queries answer as: {offered}")
    key = cache_key(named, question.bindings, results_format, graph_format)
    # Equal keys give equal bodies: only the HTML page is another representation.
    variant = "html" if page else "answer"
    digest = hashlib.sha256(repr((key, variant)).encode("utf-8")).hexdigest()[:16]
    etag = f"{generation.tag}-{digest}"
    if not is_resource_modified(request.environ, etag=etag, last_modified=generation.modified):
        response = Response(status=304)
    else:
        answer = backend.cache.get((generation.tag, key))
        if answer is None:
            if early is not None and early[0] == question:
                answer = early[1]
            else:
                require_records(backend, named)
                job = Job.asking(question, results_format, graph_format, backend.max_rows)
                answer = backend.run(job)
            backend.cache.put((generation.tag, key), answer)
        response = respond(
            answer,
            page=page and answer.kind != "triples",
            title=named.summary,
            named=named,
            values=values,
        )
    response.set_etag(etag)
    response.last_modified = generation.modified
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Vary"] = "Accept"
    return response


class Warmer:
    """Answers the named queries that take no parameter before anyone asks, so that those
    longer than the query time limit are answered from the cache too.

    For each store generation it sees, one background thread runs them one at a time (so it
    holds at most one query worker, and does not run with a single worker), each limited to the
    ``dump_timeout`` setting, in the default formats (SPARQL JSON results, Turtle), and pins
    each answer in the cache under the key a request looks up. The generation is read every
    ``WARM_POLL_SECONDS``: it changes with each generation an embedded store's server publishes
    (:mod:`server.holding`) and with each write to a remote store, and is warmed once it has
    stayed the same for one look (readers meanwhile are answered as any request is). A change
    midway stops the pass; the new generation is warmed next. Failures are logged, not raised.
    """

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.backend: Backend = app.extensions["benchgraph"]
        self.warmed = ""  # the tag of the generation last warmed through
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="benchgraph-warmer", daemon=True)

    def start(self) -> None:
        """Start warming in the background, unless the pool has a single query worker."""
        if self.backend.pool.size < 2:
            self.app.logger.info(
                "named queries are not warmed ahead: with one query worker, warming would hold it"
            )
            return
        self._thread.start()

    def stop(self) -> None:
        """Stop warming; a query running goes on until the pool is closed."""
        self._stopping.set()

    def _watch(self) -> None:
        seen = ""
        failing = False
        with self.app.app_context():
            while not self._stopping.is_set():
                try:
                    self.backend.pool.start()  # reads a remote store's generation again
                    failing = False
                    tag = self.backend.pool.generation.tag
                    if tag != self.warmed and (tag == seen or not seen):
                        self.warm(tag)
                    seen = tag
                except (PoolError, StoreError) as error:
                    if not failing and not self._stopping.is_set():
                        self.app.logger.warning("named queries cannot be warmed now: %s", error)
                    failing = True
                except Exception:  # the thread must go on; the log says what broke
                    self.app.logger.exception("warming the named queries failed")
                self._stopping.wait(WARM_POLL_SECONDS)

    def warm(self, tag: str) -> bool:
        """Answer every parameterless named query for generation ``tag`` and pin the answers.

        Returns False when stopped, or when the store's generation changed meanwhile (the pass
        ends there). Raises PoolError or StoreError only when the store cannot be reached.
        """
        backend, log = self.backend, self.app.logger
        chosen = [q for q in backend.catalogue.values() if parameterless(q)]
        results_format = media.of_kind("results")[0].key
        graph_format = media.of_kind("graph")[0].key
        limit = float(backend.config["dump_timeout"])
        started, kept = time.monotonic(), 0
        try:
            things = backend.read_kinds(tag, limit)
            if things is not None:
                log.info("kept the %d things parameters are checked against, for %s", things, tag)
        except (ApiError, PoolError) as error:
            log.warning("parameters will be checked by queries: %s", error)
        log.info("warming %d named queries for generation %s", len(chosen), tag)
        for named in chosen:
            if self._stopping.is_set():
                return False
            try:
                require_records(backend, named)  # never an answer from a store lacking them
                question = bound(named, named.bind({}))
                job = Job.asking(question, results_format, graph_format, backend.max_rows)
                answer = backend.run(job, limit)
            except (ApiError, PoolError, QueryError) as error:
                if self._stopping.is_set():
                    return False
                log.warning("named query %s was not warmed: %s", named.name, error)
                continue
            backend.pool.start()
            if backend.pool.generation.tag != tag:
                log.info("warming for generation %s stopped: the store changed", tag)
                return False
            key = cache_key(named, question.bindings, results_format, graph_format)
            if backend.cache.pin(tag, key, answer):
                kept += 1
            else:
                log.warning(
                    "named query %s was not warmed: %d answers or %d bytes are kept at most",
                    named.name,
                    backend.cache.pins,
                    backend.cache.pinned_bytes,
                )
        log.info(
            "warmed %d of %d named queries for generation %s in %.1f s",
            kept,
            len(chosen),
            tag,
            time.monotonic() - started,
        )
        self.warmed = tag
        return True
