"""The named-query surface: ``/queries`` lists the catalogue, ``/queries/<name>`` runs one.

Every ``queries/*.rq`` file is served under its stem. Query-string parameters are converted to
RDF terms by :meth:`benchgraph.queries.NamedQuery.bind` and bound to the query's variables,
never written into its text; ``format`` is reserved for choosing the answer's format. Answers
are cached per store generation and carry an ``ETag`` and ``Last-Modified``, so revalidation is
answered 304 without running anything.
"""

from __future__ import annotations

import hashlib

from flask import Blueprint, Response, jsonify, render_template, request
from werkzeug.http import is_resource_modified

from benchgraph.queries import NamedQuery, QueryError
from server import media
from server.answers import respond
from server.backend import Backend, current
from server.engine import Job
from server.errors import ApiError

blueprint = Blueprint("named", __name__)


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


def _values(named: NamedQuery) -> dict[str, str]:
    values: dict[str, str] = {}
    for key in request.args:
        if key == "format":
            continue
        given = request.args.getlist(key)
        if len(given) > 1:
            raise ApiError(400, f"{named.name}: parameter {key!r} is given twice", parameter=key)
        values[key] = given[0]
    return values


def _find(backend: Backend, name: str) -> NamedQuery:
    named = backend.catalogue.get(name)
    if named is None:
        raise ApiError(404, f"there is no named query {name!r}; GET /queries lists them")
    return named


@blueprint.get("/queries/<name>")
def run(name: str) -> Response:
    """Run a named query with the request's parameters."""
    backend = current()
    named = _find(backend, name)
    values = _values(named)
    try:
        bindings = named.bind(values)
    except QueryError as error:
        raise ApiError(400, str(error), parameter=error.parameter) from None
    formats = request.args.getlist("format")
    results = media.choose(media.of_kind("results", "page"), request.accept_mimetypes, formats)
    graph = media.choose(media.of_kind("graph"), request.accept_mimetypes, formats)
    if results is None and graph is None:
        offered = ", ".join(m.mime for m in media.of_kind("results", "page"))
        raise ApiError(406, f"no acceptable format; named queries answer as: {offered}")
    page = results is not None and results.kind == "page"
    results_format = "json" if page else (results.key if results else None)
    graph_format = graph.key if graph else None
    backend.pool.start()
    generation = backend.pool.generation
    key = (
        name,
        tuple(sorted((k, str(v)) for k, v in bindings.items())),
        results_format,
        graph_format,
    )
    variant = "html" if page else f"{results_format}/{graph_format}"
    digest = hashlib.sha256(repr((key, variant)).encode("utf-8")).hexdigest()[:16]
    etag = f"{generation.tag}-{digest}"
    if not is_resource_modified(request.environ, etag=etag, last_modified=generation.modified):
        response = Response(status=304)
    else:
        answer = backend.cache.get((generation.tag, key))
        if answer is None:
            job = Job(named.text, results_format, graph_format, backend.max_rows, bindings)
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
