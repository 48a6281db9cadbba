"""The site's index pages: every benchmark, task, dataset, method or paper, as a table.

``/site/<kind>`` (``benchmarks``, ``tasks``, ``datasets``, ``methods``, ``papers``) lists the
resources of that kind from ``queries/site/index-<kind>.rq``, sorted, searched and paged on the
server by the table parameters of :mod:`server.tables`; ``_format=csv`` or ``_format=json`` gives
the rows shown. Each page links to the query page holding the query that made its table, and
(``board_query``) each leaderboard of a benchmark's page to the query behind it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pyoxigraph as ox
from flask import Blueprint, Response, render_template
from werkzeug.wrappers import Response as WerkzeugResponse

from benchgraph import media, resources, sparqltext
from server import tables
from server.backend import current
from server.errors import ApiError
from server.site_queries import select
from server.surfaces_doc import schema
from server.tables import Column

blueprint = Blueprint("indexes", __name__, template_folder="templates")


@dataclass(frozen=True)
class Index:
    """An index page: its title, the query it shows and the table's columns."""

    title: str
    query: str
    columns: tuple[Column, ...]


INDEXES = {
    "benchmarks": Index(
        "Benchmarks",
        "index-benchmarks",
        (
            Column("label", "Benchmark", "benchmark"),
            Column("taskLabel", "Task", "task"),
            Column("datasetLabel", "Dataset", "dataset"),
            Column("results", "Results", numeric=True),
        ),
    ),
    "tasks": Index(
        "Tasks",
        "index-tasks",
        (
            Column("label", "Task", "task"),
            Column("benchmarks", "Benchmarks", numeric=True),
            Column("results", "Results", numeric=True),
        ),
    ),
    "datasets": Index(
        "Datasets",
        "index-datasets",
        (
            Column("label", "Dataset", "dataset"),
            Column("benchmarks", "Benchmarks", numeric=True),
            Column("results", "Results", numeric=True),
        ),
    ),
    "methods": Index(
        "Methods",
        "index-methods",
        (
            Column("label", "Method", "method"),
            Column("results", "Results", numeric=True),
            Column("benchmarks", "Benchmarks", numeric=True),
            Column("originLabel", "Origin paper", "origin"),
        ),
    ),
    "papers": Index(
        "Papers",
        "index-papers",
        (
            Column("label", "Paper", "paper"),
            Column("identifier", "Identifier"),
            Column("results", "Results reported", numeric=True),
            Column("methods", "Methods introduced", numeric=True),
        ),
    ),
}


@blueprint.app_template_global("board_query")
def board_query(benchmark: str, metric: str) -> str:
    """The link to the query page holding the named query ``leaderboard`` with ``benchmark``
    and ``metric`` written into it as IRIs: the query behind a benchmark page's board."""
    text = current().catalogue["leaderboard"].text
    bound = {"benchmark": ox.NamedNode(benchmark), "metric": ox.NamedNode(metric)}
    return tables.query_href(sparqltext.substitute(text, bound))


@blueprint.get("/site/<kind>")
def index(kind: str) -> Response | WerkzeugResponse:
    """The index of ``kind``: a sortable, searchable, paged table, or its rows as CSV or JSON.
    An unknown kind is 404; a bad table parameter 400."""
    found = INDEXES.get(kind)
    if found is None:
        known = ", ".join(INDEXES)
        raise ApiError(404, f"there is no index of {kind!r} (there are: {known})")
    seen = tables.view(found.columns)
    shown = tables.show(found.columns, select(found.query), seen)
    if seen.format != "html":
        return tables.download(shown, kind)
    text = (resources.queries_dir() / "site" / f"{found.query}.rq").read_text(encoding="utf-8")
    page = render_template(
        "site/index.html",
        title=found.title,
        kind=kind,
        shown=shown,
        query=tables.query_href(text),
        indexes=INDEXES,
    )
    response = Response(page, content_type=media.BY_KEY["html"].content_type)
    response.headers["Vary"] = "Accept"
    return response


def operations(errors: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """The index pages' OpenAPI operations; ``errors`` gives the error responses by code."""

    def parameter(name: str, text: str, schema: dict[str, Any]) -> dict[str, Any]:
        return {
            "name": name,
            "in": "query",
            "required": False,
            "description": text,
            "schema": schema,
        }

    size = {"type": "integer", "minimum": 1, "maximum": tables.MAX_SIZE}
    parameters = [
        parameter("_sort", "Sort ascending by this column", {"type": "string"}),
        parameter("_sort_desc", "Sort descending by this column", {"type": "string"}),
        parameter("_search", "Only rows where some column contains this text", {"type": "string"}),
        parameter("_page", "The page, from 1", {"type": "integer", "minimum": 1}),
        parameter("_size", f"Rows a page (default {tables.DEFAULT_SIZE})", size),
        parameter(
            "_format",
            "html (the page), csv or json (the rows shown)",
            {"enum": list(tables.FORMATS)},
        ),
    ]
    found: dict[str, Any] = {}
    for kind, index in INDEXES.items():
        found[f"/site/{kind}"] = {
            "get": {
                "operationId": f"index{kind.capitalize()}",
                "tags": ["site"],
                "summary": f"{index.title}: a table sorted, filtered and paged by the server",
                "parameters": parameters,
                "responses": {
                    "200": {
                        "description": "The page, or the rows shown as CSV or JSON",
                        "content": {
                            m: {"schema": schema(m)}
                            for m in ("text/html", "text/csv", "application/json")
                        },
                    },
                    **errors("400"),
                },
            }
        }
    return found
