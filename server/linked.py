"""The linked-data surface: dereferenceable resource IRIs (``/id/...``) and the dataset's own
description (``/void``, ``/.well-known/void``).

``GET /id/PATH`` describes the resource whose IRI is the ``id_base`` setting followed by PATH
(by default ``https://w3id.org/benchgraph/id/PATH``, whatever host serves it): its statements,
the types and labels of what it links to, what links to it (bounded) and the source pages that
state something about it (``queries/internal/describe.rq``, run by a query worker with the IRI
bound). The name of a graph (a page's, its validation report's, a kept version's, the versions
catalogue's) stands for what that graph holds: its triples, as they are.
The format follows a suffix (``.ttl``, ``.jsonld``, ``.nt``, ``.rdf``, ``.trig``,
``.nq``), else ``format``, else ``Accept`` (the media table); a browser asking for HTML is sent
303 See Other to ``/page/PATH``. An IRI the store knows nothing about is 404.
"""

from __future__ import annotations

import hashlib
from collections.abc import Hashable
from urllib.parse import quote

import pyoxigraph as ox
from flask import Blueprint, Response, redirect, render_template, request
from werkzeug.http import is_resource_modified
from werkzeug.wrappers import Response as WerkzeugResponse

from benchgraph import graphs, iris, media, queries
from benchgraph import vocab as V
from server import void
from server.answers import respond
from server.backend import Backend, current
from server.engine import VALUES, Answered, Job
from server.errors import ApiError

blueprint = Blueprint("linked", __name__)


def _graph_format(path: str | None, with_page: bool) -> tuple[media.MediaType, str | None]:
    """The format asked for (a suffix of ``path`` first) and ``path`` without that suffix."""
    if path is not None:
        stem, dot, suffix = path.rpartition(".")
        found = media.BY_SUFFIX.get(suffix) if dot and "/" not in suffix else None
        if found is not None and stem:
            return found, stem
    offered = media.of_kind("graph") + ([media.BY_KEY["html"]] if with_page else [])
    chosen = media.choose(offered, request.accept_mimetypes, request.args.getlist("format"))
    if chosen is None:
        names = ", ".join(m.mime for m in offered)
        raise ApiError(406, f"no acceptable format; this is served as: {names}")
    return chosen, path


def _cached(backend: Backend, key: Hashable, job: Job) -> Answered:
    backend.pool.start()
    full = (backend.pool.generation.tag, *key) if isinstance(key, tuple) else key
    answer = backend.cache.get(full)
    if answer is None:
        answer = backend.run(job)
        backend.cache.put(full, answer)
    return answer


def _finish(response: Response, backend: Backend) -> Response:
    response.headers["Vary"] = "Accept"
    response.last_modified = backend.pool.generation.modified
    return response


@blueprint.get("/id/<path:path>")
def resource(path: str) -> Response | WerkzeugResponse:
    """Describe one resource in the format asked for, or send a browser to its page."""
    backend = current()
    chosen, stem = _graph_format(path, with_page=True)
    local = quote(stem or path, safe="/-")  # the path as minted (percent-encoded segments)
    if chosen.kind == "page":
        response = redirect(f"{backend.base_url()}page/{local}", 303)
        response.headers["Vary"] = "Accept"
        return response
    iri = backend.id_base() + local
    backend.pool.start()
    generation = backend.pool.generation
    digest = hashlib.sha256(repr((iri, chosen.key)).encode("utf-8")).hexdigest()[:16]
    etag = f"{generation.tag}-{digest}"
    if not is_resource_modified(request.environ, etag=etag, last_modified=generation.modified):
        unchanged = Response(status=304)
        unchanged.set_etag(etag)
        return _finish(unchanged, backend)
    # A graph's name (a page's, its report's, a kept version's, the catalogue's, the alias
    # graph's) stands for what the graph holds; any other IRI for its description.
    holds = graphs.source_key(iri) is not None or iri in (graphs.VERSIONS, graphs.ALIASES)
    job = Job(
        queries.internal("graph-triples" if holds else "describe"),
        None,
        chosen.key,
        backend.max_rows,
        {"graph" if holds else "resource": ox.NamedNode(iri)},
    )
    answer = _cached(backend, ("describe", iri, chosen.key), job)
    if answer.rows == 0:
        raise ApiError(404, f"nothing is known about <{iri}>", iri=iri)
    response = respond(answer)
    if chosen.suffix:
        response.headers["Content-Location"] = f"{backend.base_url()}id/{local}.{chosen.suffix}"
    response.set_etag(etag)
    return _finish(response, backend)


def _rows(backend: Backend, name: str) -> tuple[dict[str, str], ...]:
    """The rows of the internal query ``name`` (cached), each cell as text."""
    job = Job(queries.internal(name), VALUES, None, backend.max_rows)
    answer = _cached(backend, ("void-query", name), job)
    assert answer.values is not None
    return answer.values.rows


def figures(backend: Backend) -> void.Figures:
    """The store's figures for its VoID description (the last ingest time an xsd:dateTime, as
    the shapes hold every ingest time to be)."""
    summary = _rows(backend, "void-summary")[0]
    modified = summary.get("modified")
    return void.Figures(
        triples=int(summary["triples"]),
        entities=int(summary["entities"]),
        modified=ox.Literal(modified, datatype=ox.NamedNode(V.XSD + "dateTime"))
        if modified
        else None,
        classes=[(row["class"], int(row["entities"])) for row in _rows(backend, "void-classes")],
        graphs=[
            (row["graph"], int(row["triples"]), row.get("source"))
            for row in _rows(backend, "void-graphs")
        ],
        examples=examples(backend),
    )


def examples(backend: Backend) -> list[str]:
    """A few resource IRIs: the first paper, method, benchmark and result (cached)."""
    return [row["example"] for row in _rows(backend, "void-examples")]


def _graph_page(iri: str, title: str, about: str, source: str | None = None) -> Response:
    """The page of the named graph ``iri``: what it is, its size in triples, the page of the
    source it holds (``source``, a ``bg:`` IRI), its downloads. Raises ApiError (404) for a
    graph that holds nothing."""
    backend = current()
    job = Job(
        queries.internal("graph-triples"), None, "turtle", backend.max_rows,
        {"graph": ox.NamedNode(iri)},
    )  # fmt: skip
    answer = _cached(backend, ("describe", iri, "turtle"), job)
    if answer.rows == 0:
        raise ApiError(404, f"there is no graph <{iri}> in this store", iri=iri)
    page = render_template(
        "site/graph.html",
        title=title,
        iri=iri,
        about=about,
        source=f"{backend.base_url()}page/{source[len(V.ID) :]}" if source else None,
        triples=answer.rows,
        download=f"{backend.base_url()}id/{iri[len(V.ID) :]}",
        formats=[m for m in media.of_kind("graph") if m.suffix],
    )
    return _finish(Response(page, content_type=media.BY_KEY["html"].content_type), backend)


@blueprint.get("/page/versions")
def versions_page() -> Response:
    """The versions catalogue's page."""
    about = "Every version of every source page loaded, current or kept, with its ingest."
    return _graph_page(graphs.VERSIONS, "The versions catalogue", about)


@blueprint.get("/page/graph/<path:path>")
@blueprint.get("/page/history/<path:path>")
def graph_page(path: str) -> Response:
    """The page of a source page's graph, or of a kept version of it."""
    iri = V.ID + request.path.split("/", 3)[2] + "/" + quote(path, safe="/-")
    key = graphs.source_key(iri)
    if key is None:
        raise ApiError(404, f"there is no graph <{iri}> in this store", iri=iri)
    kept = iri.startswith(graphs.HISTORY)
    about = "A kept (earlier) version of the statements" if kept else "The statements"
    return _graph_page(iri, f"Graph {key}", f"{about} of the source page", iris.source(key))


@blueprint.get("/void")
@blueprint.get("/.well-known/void")
def dataset() -> Response:
    """The VoID and DCAT description of the dataset."""
    backend = current()
    chosen, _ = _graph_format(None, with_page=True)
    found = void.triples(
        backend.base_url(), backend.id_base(), figures(backend), str(backend.config["license"])
    )
    if chosen.kind == "page":  # a browser: the Turtle, readable, with the formats to fetch
        text = ox.serialize(found, format=ox.RdfFormat.TURTLE, prefixes=void.PREFIXES) or b""
        page = render_template(
            "void.html",
            title="The dataset's description (VoID and DCAT)",
            turtle=text.decode("utf-8"),
            formats=media.of_kind("graph"),
        )
        return _finish(Response(page, content_type=chosen.content_type), backend)
    items: list[ox.Triple] | list[ox.Quad] = found
    if chosen.key in media.QUAD_FORMATS:
        items = [ox.Quad(t.subject, t.predicate, t.object, ox.DefaultGraph()) for t in found]
    body = ox.serialize(items, format=media.GRAPH_FORMATS[chosen.key], prefixes=void.PREFIXES)
    return _finish(Response(body, content_type=chosen.content_type), backend)
