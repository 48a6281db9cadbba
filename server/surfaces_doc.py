"""The OpenAPI operations of the surfaces that are not queries: the linked data (``/id``,
``/page``, ``/void``, ``/ns``), the site (``/site``, ``/search``, ``/query``), the feed, the
API's own description and the static files. :mod:`server.docs` puts them in the document.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benchgraph import media

ErrorResponses = Callable[..., dict[str, Any]]


def content(*kinds: media.Kind) -> dict[str, Any]:
    """Each media type of ``kinds`` with the schema of its body: SPARQL JSON results, a JSON
    object, or text (a document of that media type)."""
    return {m.mime: {"schema": schema(m.mime)} for m in media.of_kind(*kinds)}


def schema(mime: str) -> dict[str, Any]:
    """The JSON Schema of a body of media type ``mime``."""
    if mime == "application/sparql-results+json":
        return SPARQL_JSON
    if mime.endswith("json") and mime != "application/ld+json":
        return {"type": "object"}
    if mime == "application/ld+json":
        return {"type": ["object", "array"]}
    return {"type": "string", "description": f"A {mime} document"}


SPARQL_JSON: dict[str, Any] = {
    "type": "object",
    "description": "SPARQL 1.1 Query Results JSON (bindings, or a boolean for ASK)",
    "properties": {
        "head": {"type": "object", "properties": {"vars": {"type": "array"}}},
        "results": {
            "type": "object",
            "properties": {"bindings": {"type": "array", "items": {"type": "object"}}},
        },
        "boolean": {"type": "boolean"},
    },
    "required": ["head"],
}
_HTML = {"text/html": {"schema": schema("text/html")}}
_PATH = {"name": "path", "in": "path", "required": True, "schema": {"type": "string"}}


def _get(
    op: str,
    tag: str,
    summary: str,
    body: dict[str, Any],
    errors: dict[str, Any],
    parameters: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """One GET operation answering 200 with ``body`` (media type: schema)."""
    answers = {"200": {"description": summary, "content": body}, **errors}
    operation = {"operationId": op, "tags": [tag], "summary": summary, "responses": answers}
    return {"get": {**operation, "parameters": parameters or []}}


def operations(errors: ErrorResponses) -> dict[str, Any]:
    """The operations, by path."""
    graph = content("graph")
    text = {"name": "q", "in": "query", "required": False, "schema": {"type": "string"}}
    return {
        "/": _get("index", "about", "Where everything is", {**content("api"), **_HTML},
                  errors("406")),
        "/openapi.json": _get("openapi", "about", "This document",
                              {"application/json": {"schema": {"type": "object"}}}, {}),
        "/id/{path}": _get("resource", "linked data",
                           "A resource's description as RDF, or (303) its page for a browser; "
                           "a graph's name: the graph's triples", {**graph},
                           errors("404", "406", "503", "504"), [_PATH]),
        "/page/{path}": _get("page", "site", "A resource's page (a graph's name: its source "
                             "page)", _HTML, errors("400", "404", "503", "504"), [_PATH]),
        "/page/graph/{path}": _get("graphPage", "linked data", "A page graph's page: its size, "
                                   "source page and downloads", _HTML, errors("404"), [_PATH]),
        "/page/history/{path}": _get("keptGraphPage", "linked data", "A kept version's graph "
                                     "page", _HTML, errors("404"), [_PATH]),
        "/page/versions": _get("versionsPage", "linked data",
                               "The versions catalogue: its size and downloads", _HTML,
                               errors("503", "504")),
        "/void": _get("void", "linked data", "The dataset's VoID and DCAT description",
                      {**graph, **_HTML}, errors("406", "503", "504")),
        "/.well-known/void": _get("wellKnownVoid", "linked data", "The same as /void",
                                  {**graph, **_HTML}, errors("406", "503", "504")),
        "/ns": _get("vocabulary", "linked data", "The bg: vocabulary (a page, or RDF)",
                    {**graph, **_HTML}, errors("406")),
        "/ontology": _get("ontology", "linked data", "The same as /ns", {**graph, **_HTML},
                          errors("406")),
        "/site": _get("site", "site", "The site's home page", _HTML, errors("503", "504")),
        "/search": _get("search", "site", "Search by label", _HTML, errors("400", "503"),
                        [text]),
        "/query": _get("queryEditor", "site", "The query editor", _HTML, errors("400", "404")),
        "/changes.atom": _get("changes", "feed", "What was loaded, as an Atom feed",
                              {"application/atom+xml": {"schema": schema("application/atom+xml")}},
                              errors("503", "504")),
        "/static/{filename}": _get("static", "about", "The site's static files",
                                   {"application/octet-stream": {"schema": {"type": "string"}}},
                                   errors("404"), [{**_PATH, "name": "filename"}]),
    }  # fmt: skip
