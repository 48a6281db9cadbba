"""The SPARQL 1.1 Protocol surface: ``/sparql`` (query operation only; read-only).

- ``GET /sparql?query=…``, ``POST`` as ``application/x-www-form-urlencoded`` (``query=…``) or
  as ``application/sparql-query`` (the body is the query); ``default-graph-uri`` and
  ``named-graph-uri`` (repeatable) set the dataset and must name graphs of the store, as must
  the query's ``FROM`` / ``FROM NAMED``. Without any, the default graph is the merged view
  (each triple of the page graphs once) and every page and report graph is a named graph.
- The answer's format follows ``format`` (a media type or a short name, for browsers), else the
  ``Accept`` header; 406 when nothing acceptable fits the answer. A CONSTRUCT or DESCRIBE asked
  for as an HTML page (``format=html``) is shown as Turtle in a page.
- ``GET /sparql`` without a query answers the Service Description (HTML for browsers: the same
  description as a page, with a query form).
- A query may use the predeclared prefixes (``bg:``, ``rdfs:``, …: :mod:`benchgraph.prefixes`)
  without declaring them; a prefix it declares keeps its own namespace.
- Updates (``update=…``, ``application/sparql-update``, an update in ``query``) and ``SERVICE``
  are refused with 400; a malformed query gets 400 saying what is wrong, with the line and
  column in the client's text and that line quoted with a caret (``excerpt``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pyoxigraph as ox
from flask import Blueprint, Response, render_template, request

from benchgraph import media
from benchgraph import vocab as V
from benchgraph.prefixes import PREDECLARED, prepare
from server import description, guard
from server.answers import respond
from server.backend import Backend, current
from server.engine import Answered, Job
from server.errors import ApiError

blueprint = Blueprint("sparql", __name__)

_FORM = "application/x-www-form-urlencoded"
_QUERY_BODY = "application/sparql-query"
_UPDATE_BODY = "application/sparql-update"
_READ_ONLY = (
    "SPARQL Update is not accepted: this endpoint is read-only; data changes only through "
    "`benchgraph ingest`"
)


@dataclass
class Protocol:
    """The protocol parameters of one request."""

    query: str | None = None
    default_graphs: list[str] = field(default_factory=list)
    named_graphs: list[str] = field(default_factory=list)
    formats: list[str] = field(default_factory=list)


def _one(values: list[str], name: str) -> str | None:
    if len(values) > 1:
        raise ApiError(400, f"the {name} parameter is given {len(values)} times; give it once")
    return values[0] if values else None


def _protocol(limit: int) -> Protocol:
    """Read the request's protocol parameters. Raises ApiError for what the protocol refuses."""
    fields = request.args
    body_query: str | None = None
    if request.method == "POST":
        if request.content_length is not None and request.content_length > limit:
            raise ApiError(413, f"the request is larger than the limit of {limit} bytes")
        kind = request.mimetype
        if kind == _FORM:
            fields = request.form
        elif kind == _QUERY_BODY:
            # The media type is UTF-8 by definition (SPARQL 1.1 Protocol, 2.1.3); a body sent in
            # another charset is a body type this endpoint does not take.
            charset = request.mimetype_params.get("charset", "utf-8")
            if charset.lower() not in ("utf-8", "utf8"):
                raise ApiError(
                    415,
                    f"{_QUERY_BODY} is UTF-8 text; charset={charset} is not taken: send the "
                    "query in UTF-8",
                )
            try:
                body_query = request.get_data(cache=False).decode("utf-8")
            except UnicodeDecodeError as error:
                raise ApiError(
                    400, f"the query is not UTF-8 text (byte {error.start} is not)"
                ) from None
        elif kind == _UPDATE_BODY:
            raise ApiError(400, _READ_ONLY)
        else:
            raise ApiError(
                415,
                f"a POST body of type {kind or '(none)'} is not taken; send the query as "
                f"{_FORM} (query=...) or as {_QUERY_BODY}",
            )
    if "update" in fields or "update" in request.args:
        raise ApiError(400, _READ_ONLY)
    query = body_query if body_query is not None else _one(fields.getlist("query"), "query")
    if query is not None and len(query.encode("utf-8")) > limit:
        raise ApiError(413, f"the query is longer than the limit of {limit} bytes")
    return Protocol(
        query,
        fields.getlist("default-graph-uri") or request.args.getlist("default-graph-uri"),
        fields.getlist("named-graph-uri") or request.args.getlist("named-graph-uri"),
        fields.getlist("format") or request.args.getlist("format"),
    )


def _check_graphs(names: list[str], known: set[str], where: str) -> None:
    try:
        guard.check_graphs(where, names, known)
    except guard.Refused as refused:
        raise ApiError(400, str(refused), graph=refused.graph) from None


def _dataset(params: Protocol, backend: Backend) -> dict:
    """The Job fields of the dataset the protocol's parameters give, checked against the
    store's graphs; none when they give none: the engine then reads the query's own ``FROM``
    clauses, which the guard checks in the worker (:mod:`server.guard`)."""
    if not (params.default_graphs or params.named_graphs):
        return {}
    known = set(backend.graphs())
    _check_graphs(params.default_graphs, known, "default-graph-uri")
    _check_graphs(params.named_graphs, known, "named-graph-uri")
    return {
        "default_graph": tuple(params.default_graphs),
        "named_graphs": tuple(params.named_graphs),
    }


@blueprint.route("/sparql", methods=["GET", "POST"])
def endpoint() -> Response:
    """Answer a SPARQL query, or describe the service when there is none."""
    backend = current()
    params = _protocol(int(backend.config["max_request_bytes"]))
    if params.query is None:
        if request.method == "POST":
            raise ApiError(
                400, "no query: send query=... (form) or an application/sparql-query body"
            )
        return describe(backend, params.formats)
    accept = request.accept_mimetypes
    results = media.choose(media.of_kind("results", "page"), accept, params.formats)
    graph = media.choose(media.of_kind("graph"), accept, params.formats)
    page = results is not None and results.kind == "page"
    if page and graph is None:
        graph = media.BY_KEY["turtle"]  # a page shows a graph as Turtle text
    answer = evaluate(backend, params, results, graph)
    return respond(
        answer,
        page=page,
        title="SPARQL query results",
        query=params.query,
    )


def evaluate(
    backend: Backend,
    params: Protocol,
    results: media.MediaType | None,
    graph: media.MediaType | None,
) -> Answered:
    """Check ``params.query`` (read-only, no SERVICE, graphs of the store only: the guard,
    :mod:`server.guard`, whose parser reads it in the worker) and run it as it is, with the
    predeclared prefixes it does not declare itself (:mod:`benchgraph.prefixes`).

    ``results`` and ``graph`` are the formats acceptable for a SELECT/ASK and a
    CONSTRUCT/DESCRIBE answer (an HTML page means SPARQL JSON). Raises ApiError: 400 for a
    refused or malformed query, 406 when the answer's kind has no acceptable format.
    """
    assert params.query is not None
    sparql_url = backend.base_url() + "sparql"
    ready = prepare(params.query)  # the guard reads the text the engine runs
    try:
        form = guard.screen(ready.text)  # the lexer's checks, here; the parser's, in the worker
    except guard.Refused as refused:
        raise ApiError(400, str(refused)) from None
    answers_graph = form in ("CONSTRUCT", "DESCRIBE")
    answers_results = form in ("SELECT", "ASK")
    if (
        (answers_graph and graph is None)
        or (answers_results and results is None)
        or not (results or graph)
    ):
        kinds = ("graph",) if answers_graph else ("results", "page")
        offered = ", ".join(m.mime for m in media.of_kind(*kinds))
        raise ApiError(406, f"no acceptable format for this query's answer; formats: {offered}")
    page = results is not None and results.kind == "page"
    job = Job(
        ready.text,
        results_format="json" if page else (results.key if results else None),
        graph_format=graph.key if graph else None,
        max_rows=backend.max_rows,
        base_iri=sparql_url,
        preemptible=True,
        guarded=True,
        added=ready.added,
        **_dataset(params, backend),
    )
    return backend.run(job)


def describe(backend: Backend, formats: list[str]) -> Response:
    """The Service Description, in an RDF format or (browsers) as a page: the same
    :class:`server.description.Service` read out, with a query form."""
    endpoint_url = backend.base_url() + "sparql"
    chosen = media.choose(media.of_kind("graph", "page"), request.accept_mimetypes, formats)
    if chosen is None:
        offered = ", ".join(m.mime for m in media.of_kind("graph", "page"))
        raise ApiError(406, f"no acceptable format for the Service Description; formats: {offered}")
    limits = description.Limits(
        float(backend.config["query_timeout"]),
        backend.max_rows,
        int(backend.config["max_request_bytes"]),
    )
    described = description.service(endpoint_url, backend.graphs(), limits)
    if chosen.kind == "page":
        text = render_template(
            "sparql.html",
            title="SPARQL endpoint",
            service=described,
            languages=description.LANGUAGES,
            results=media.of_kind("results"),
            graphs=media.of_kind("graph"),
            prefixes=PREDECLARED,
        )
        response = Response(text, content_type=chosen.content_type)
    else:
        found = description.triples(described)
        prefixes = {**V.PREFIXES, "sd": description.SD}
        items: list[ox.Triple] | list[ox.Quad] = found
        if chosen.key in media.QUAD_FORMATS:
            items = [ox.Quad(t.subject, t.predicate, t.object, ox.DefaultGraph()) for t in found]
        body = ox.serialize(items, format=media.GRAPH_FORMATS[chosen.key], prefixes=prefixes)
        response = Response(body, content_type=chosen.content_type)
    response.headers["Vary"] = "Accept"
    return response
