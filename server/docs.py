"""The API describing itself: ``/`` (links to every surface, the dumps and resource pages by
example) and ``/openapi.json``.

The OpenAPI 3.1 document is generated from the named-query headers and the media table, so a
new ``queries/*.rq`` file and a new format are documented the day they land.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, Response, jsonify, render_template, request

from benchgraph import __version__, media
from benchgraph.queries import MAX_LIMIT, NamedQuery, Param
from server import aliases, badges, indexes, pages, surfaces_doc
from server.backend import current
from server.dumps import DUMPS, HISTORY_DUMPS
from server.errors import ApiError
from server.linked import examples

blueprint = Blueprint("docs", __name__)

_SCHEMAS: dict[str, dict[str, Any]] = {
    "integer": {"type": "integer"},
    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT},
    "position": {"type": "string", "pattern": r"^[0-9a-f]{15}-[0-3][0-9a-f]{14}$"},
    "decimal": {"type": "number"},
    "date": {"type": "string", "format": "date"},
    "moment": {
        "type": "string",
        "pattern": r"^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?)?$",
    },
    "iri": {"type": "string", "format": "iri"},
}
_ERRORS = {
    "400": "Bad query or parameter (the body names it)",
    "404": "No such named query, or a parameter names nothing in the store (the body names it "
    "and lists the nearest names in suggestions)",
    "406": "No acceptable format",
    "413": "Request too large",
    "503": "No query worker free (retry), or the store is not ready for this query (the body "
    "says why)",
    "504": "The query outlived the time limit",
}


def _error_responses(*codes: str) -> dict[str, Any]:
    return {code: {"$ref": f"#/components/responses/E{code}"} for code in codes}


_content = surfaces_doc.content


def _format_parameter(*kinds: media.Kind) -> dict[str, Any]:
    names = sorted({n for m in media.of_kind(*kinds) for n in (m.key, *m.names)})
    return {
        "name": "format",
        "in": "query",
        "required": False,
        "description": "The answer's format, overriding the Accept header.",
        "schema": {"type": "string", "enum": names},
    }


def _parameter(p: Param) -> dict[str, Any]:
    schema: dict[str, Any] = dict(_SCHEMAS.get(p.type, {"type": "string"}))
    if p.default is not None:
        schema["default"] = int(p.default) if p.type in ("integer", "limit") else p.default
    return {
        "name": p.name,
        "in": "query",
        "required": p.required,
        "description": f"{p.help} (type: {p.type})",
        "schema": schema,
    }


def _named_operation(named: NamedQuery) -> dict[str, Any]:
    return {
        "get": {
            "operationId": named.name,
            "tags": ["named queries"],
            "summary": named.summary,
            "description": named.description,
            "parameters": [_parameter(p) for p in named.params]
            + [_format_parameter("results", "page")],
            "responses": {
                "200": {"description": "The answer", "content": _content("results", "page")},
                "304": {"description": "Not modified since the ETag or date given"},
                **_error_responses("400", "404", "406", "503", "504"),
            },
        }
    }


def _sparql_operation() -> dict[str, Any]:
    params: list[dict[str, Any]] = [
        {"name": "query", "in": "query", "required": False, "schema": {"type": "string"},
         "description": "The SPARQL query; without it, the Service Description."},
        {"name": "default-graph-uri", "in": "query", "required": False,
         "schema": {"type": "array", "items": {"type": "string"}}, "explode": True,
         "description": "A graph of the store to use as (part of) the default graph."},
        {"name": "named-graph-uri", "in": "query", "required": False,
         "schema": {"type": "array", "items": {"type": "string"}}, "explode": True,
         "description": "A graph of the store to offer as a named graph."},
        _format_parameter("results", "graph", "page"),
    ]  # fmt: skip
    answers = {
        "200": {
            "description": "Query results, a graph, or the Service Description",
            "content": _content("results", "graph", "page"),
        },
        **_error_responses("400", "406", "413", "503", "504"),
    }
    form = {"schema": {"type": "object", "properties": {"query": {"type": "string"}}}}
    return {
        "get": {"operationId": "sparqlQuery", "tags": ["SPARQL"], "parameters": params,
                "summary": "SPARQL 1.1 query (read-only)", "responses": answers},
        "post": {"operationId": "sparqlQueryPost", "tags": ["SPARQL"],
                 "summary": "SPARQL 1.1 query by POST (read-only)",
                 "requestBody": {"required": True, "content": {
                     "application/x-www-form-urlencoded": form,
                     "application/sparql-query": {"schema": {"type": "string"}}}},
                 "responses": {**answers, **_error_responses("415")}},
    }  # fmt: skip


def _write_operations() -> dict[str, Any]:
    """The write API's operations (see :mod:`server.pages`), described when it is on."""
    written = {
        "description": "What the ingest did: its summary line, the page and its counts",
        "content": {"application/json": {"schema": {"type": "object"}}},
    }
    secured: list[dict[str, list[str]]] = [{"writeToken": []}]
    post = {
        "operationId": "postPage",
        "tags": ["write API"],
        "summary": "Load a page through the parse and SHACL gate, as benchgraph ingest does",
        "security": secured,
        "parameters": [
            {"name": "name", "in": "query", "required": False, "schema": {"type": "string"},
             "description": "The page's name in messages"}
        ],
        "requestBody": {
            "required": True,
            "content": {"text/plain": {"schema": {"type": "string"}}},
            "description": "The page's bytes (its format is read from its content)",
        },
        "responses": {
            "201": written,
            "200": {**written, "description": "The same page is in the store already: unchanged"},
            **_error_responses("401", "413", "415", "422"),
        },
    }  # fmt: skip
    delete = {
        "operationId": "deletePage",
        "tags": ["write API"],
        "summary": "Withdraw a page, as benchgraph remove does",
        "security": secured,
        "parameters": [
            {"name": "page", "in": "path", "required": True, "schema": {"type": "string"},
             "description": "The page's identity, as benchgraph remove prints it"}
        ],
        "responses": {
            "200": {**written, "description": "What was removed"},
            **_error_responses("401", "404"),
        },
    }  # fmt: skip
    return {"/pages": {"post": post}, "/pages/{page}": {"delete": delete}}


def _dump_operations() -> dict[str, Any]:
    """The dumps' operations (see :mod:`server.dumps`), the quad ones with their ``history``."""
    history = {
        "name": "history",
        "in": "query",
        "required": False,
        "description": "true: also every earlier version of every page (its history graph and "
        "report) and the versions catalogue, so that loading the dump gives back every "
        "version; false or left out: the store as it is now",
        "schema": {"type": "boolean", "default": False},
    }
    operations: dict[str, Any] = {}
    for suffix, m in DUMPS.items():
        quads = suffix in HISTORY_DUMPS
        held = "its named graphs kept (the provenance)" if quads else "the merged view"
        operations[f"/dump.{suffix}"] = {
            "get": {
                "operationId": f"dump{suffix.capitalize()}",
                "tags": ["dumps"],
                "summary": f"The whole store as {m.label.split(' (')[0]}, {held}",
                "parameters": [history] if quads else [],
                "responses": {
                    "200": {
                        "description": "The dump, streamed",
                        "content": {m.mime: {"schema": surfaces_doc.schema(m.mime)}},
                    },
                    "304": {"description": "Not modified since the ETag given"},
                    **_error_responses("400", "503", "504"),
                },
            }
        }
    return operations


def openapi_document(
    base: str, catalogue: dict[str, NamedQuery], writes: bool = False
) -> dict[str, Any]:
    """The OpenAPI 3.1 description of the service at ``base`` (with the write API's
    operations if ``writes``)."""
    paths = _read_paths(catalogue)
    extra_errors = {"415": "Unsupported body type"}
    components: dict[str, Any] = {}
    if writes:
        paths.update(_write_operations())
        paths.update(aliases.operations(_error_responses))
        extra_errors.update(
            {
                "401": "No write token, or a wrong one",
                "409": "An alias record its rules refuse (a chain, a second target, two kinds)",
                "415": "Bytes that no page format recognises, or an unsupported body type",
                "422": "A page the gate refuses (its messages are in messages), or a name "
                "that names nothing",
            }
        )
        components["securitySchemes"] = {
            "writeToken": {"type": "http", "scheme": "bearer", "description": "The write token"}
        }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "benchgraph",
            "version": __version__,
            "description": "ML papers, methods and benchmark results as a knowledge graph: a "
            "read-only SPARQL 1.1 endpoint and named queries.",
        },
        "servers": [{"url": base.rstrip("/")}],
        "paths": paths,
        "components": {
            "schemas": {"Error": _error_schema()},
            "responses": _error_components({**_ERRORS, **extra_errors}),
            **components,
        },
    }


def _editor_operations() -> dict[str, Any]:
    """The SPARQL editor's files (see :mod:`server.editor`), which the query page loads."""
    return {
        "/editor/assets/{name}": {
            "get": {
                "operationId": "editorAsset",
                "tags": ["site"],
                "summary": "A file of the SPARQL editor (YASGUI's build: yasgui.min.js, "
                "yasgui.min.css), cached for a year; 404 when the editor is not installed "
                "(`make install` installs it)",
                "parameters": [
                    {
                        "name": "name",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                        "description": "The file's path in YASGUI's build folder.",
                    }
                ],
                "responses": {
                    "200": {
                        "description": "The file",
                        "content": {
                            m: {"schema": surfaces_doc.schema(m)}
                            for m in ("text/javascript", "text/css")
                        },
                    },
                    **_error_responses("404"),
                },
            }
        },
        "/editor/prefixes.json": {
            "get": {
                "operationId": "editorPrefixes",
                "tags": ["site"],
                "summary": "The predeclared prefixes (prefix: namespace), which the editor "
                "completes after PREFIX",
                "responses": {
                    "200": {
                        "description": "The prefixes",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "additionalProperties": {"type": "string", "format": "iri"},
                                }
                            }
                        },
                    }
                },
            }
        },
    }


def _read_paths(catalogue: dict[str, NamedQuery]) -> dict[str, Any]:
    """The operations that read: SPARQL, the catalogue, each named query, the dumps, the
    editor's files."""
    paths: dict[str, Any] = {"/sparql": _sparql_operation()}
    paths["/queries"] = {
        "get": {
            "operationId": "listQueries",
            "tags": ["named queries"],
            "summary": "The catalogue of named queries",
            "responses": {
                "200": {"description": "The catalogue", "content": _content("api", "page")}
            },
        }
    }
    for name, named in catalogue.items():
        paths[f"/queries/{name}"] = _named_operation(named)
    paths.update(_dump_operations())
    paths.update(surfaces_doc.operations(_error_responses))
    paths.update(badges.operations(_error_responses))
    paths.update(indexes.operations(_error_responses))
    paths.update(_editor_operations())
    return paths


def _error_schema() -> dict[str, Any]:
    """The one error shape, as a JSON Schema."""
    return {
        "type": "object",
        "required": ["ok", "error", "status"],
        "properties": {
            "ok": {"const": False},
            "error": {"type": "string"},
            "status": {"type": "integer"},
            "parameter": {"type": "string", "description": "The parameter at fault"},
            "line": {"type": "integer"},
            "column": {"type": "integer"},
        },
    }


def _error_components(errors: dict[str, str]) -> dict[str, Any]:
    """A response per error status of ``errors`` (status: what it means), in the error shape."""
    return {
        f"E{code}": {
            "description": text,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }
        for code, text in errors.items()
    }


@blueprint.get("/openapi.json")
def openapi() -> Response:
    """The OpenAPI document: JSON, or a page for a browser."""
    backend = current()
    document = openapi_document(backend.base_url(), backend.catalogue, pages.enabled())
    offered = [media.BY_KEY["apijson"], media.BY_KEY["html"]]
    chosen = media.choose(offered, request.accept_mimetypes, request.args.getlist("format"))
    if chosen is None:
        raise ApiError(406, "this document is served as application/json or text/html")
    if chosen.kind == "page":  # a browser: the operations as a table, then the document
        text = json.dumps(document, indent=2, ensure_ascii=False)
        page = render_template("openapi.html", title="The HTTP API", document=document, text=text)
        response = Response(page, content_type=chosen.content_type)
    else:
        response = jsonify(document)
    response.headers["Vary"] = "Accept"
    return response


def surfaces(base: str) -> dict[str, str]:
    """The service's surfaces by name, as absolute URLs (``base`` ends in a slash)."""
    return {
        "sparql": base + "sparql",
        "query": base + "query",
        "queries": base + "queries",
        "openapi": base + "openapi.json",
        "site": base + "site",
        "search": base + "search",
        "changes": base + "changes.atom",
        "void": base + "void",
        "wellKnownVoid": base + ".well-known/void",
        "vocabulary": base + "ns",
        "versions": base + "page/versions",
    }


@blueprint.get("/")
def index() -> Response:
    """Where everything is: every surface, the dumps, and resource pages by example."""
    backend = current()
    base = backend.base_url()
    links = surfaces(base)
    dumps = {m.key: f"{base}dump.{suffix}" for suffix, m in DUMPS.items()}
    offered = [media.BY_KEY["apijson"], media.BY_KEY["html"]]
    chosen = media.choose(offered, request.accept_mimetypes, request.args.getlist("format"))
    if chosen is None:
        raise ApiError(406, "this page is served as application/json or text/html")
    id_base = backend.id_base()
    resources = {"iri": id_base + "PATH", "url": base + "id/PATH"}
    if chosen.kind == "page":
        text = render_template(
            "index.html",
            title="benchgraph",
            links=links,
            dumps=[
                (url, media.BY_KEY[key], key in media.QUAD_FORMATS) for key, url in dumps.items()
            ],
            resources=resources,
            examples=[
                base + "id/" + iri.removeprefix(id_base)
                for iri in examples(backend)
                if iri.startswith(id_base)
            ],
        )
        response = Response(text, content_type=chosen.content_type)
    else:
        response = jsonify(
            {
                "name": "benchgraph",
                "version": __version__,
                "links": links,
                "dumps": dumps,
                "resources": resources,
            }
        )
    response.headers["Vary"] = "Accept"
    return response
