"""Badges and embeds: a method's rank on a benchmark as a small SVG, and a benchmark's board as
a small standalone HTML page for an iframe.

- ``/badge/<benchmark path>/<method>.svg``: "<benchmark> | #2 of 7", the method's best rank
  on the board (the named query ``leaderboard``'s rank, in the cohort where it ranks best) and
  the size of that cohort.
- ``/embed/<benchmark path>``: the board's rows (rank, method, value) per cohort, no site
  chrome.

``<benchmark path>`` is the benchmark's page path (``benchmark/prompt-recovery/laion``), the
method its IRI's last part or its name (case ignored); ``metric`` (an IRI or a name) picks a
metric other than the primary one. Each cites its source (the benchmark's page) and the store's
snapshot (its generation and when it was written). An unknown benchmark, method or metric
is 404.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote
from xml.sax.saxutils import escape, quoteattr

import pyoxigraph as ox
from flask import Blueprint, Response, render_template, request

from benchgraph import media
from benchgraph import vocab as V
from server.backend import current
from server.charts import text_width
from server.errors import ApiError
from server.site_queries import named, select

blueprint = Blueprint("badges", __name__)

Row = dict[str, str]
BADGE_FONT = 11
BADGE_HEIGHT = 20
GREY = "#555"
COLOURS = {1: "#2e7d32", 2: "#4a78b0", 3: "#4a78b0"}  # the first three; the rest are "#6b7a8c"


def _benchmark(path: str) -> str:
    """The IRI of the benchmark whose page path is ``path``. Raises ApiError (404) when the
    store has no such benchmark."""
    iri = V.ID + quote(path, safe="/-")
    types = [
        r["value"]
        for r in select("properties", resource=ox.NamedNode(iri))
        if r["property"] == V.type_
    ]
    if V.Benchmark not in types:
        raise ApiError(404, f"there is no benchmark <{iri}> in this store")
    return iri


def board(path: str) -> tuple[str, list[Row]]:
    """The benchmark of ``path`` and its board's rows for the request's ``metric`` (its IRI or
    name; the primary metric by default), as the named query ``leaderboard`` gives them. Raises
    ApiError (404) for a benchmark or metric the store does not know."""
    iri = _benchmark(path)
    metric = request.args.get("metric", "").strip()
    if metric:
        known = select("metrics", benchmark=ox.NamedNode(iri))
        if not any(metric in (m["metric"], m.get("metricLabel")) for m in known):
            raise ApiError(
                404, f"the benchmark <{iri}> has no metric {metric!r}", parameter="metric"
            )
    rows = named("leaderboard", benchmark=iri, **({"metric": metric} if metric else {}))
    return iri, rows


def _snapshot() -> dict[str, str]:
    """The store's state the answer was drawn from: its generation and when it was written."""
    generation = current().pool.generation
    return {"generation": generation.tag, "date": generation.modified.isoformat()}


def _source(path: str) -> str:
    return current().base_url() + "page/" + path


def method_rank(rows: list[Row], method: str) -> tuple[Row, int] | None:
    """The row of ``method`` (its IRI's last part or its label, case ignored) with its best rank,
    and the size of that row's cohort; None when the method has no row. An unranked row (a
    metric whose direction is not known) is taken when it has no ranked one."""
    wanted = method.casefold()
    mine = [
        r
        for r in rows
        if r["method"].rsplit("/", 1)[-1].casefold() == wanted
        or r.get("methodLabel", "").casefold() == wanted
    ]
    if not mine:
        return None
    best = min(mine, key=lambda r: int(r["rank"]) if r.get("rank") else 10**9)
    return best, sum(1 for r in rows if r["cohort"] == best["cohort"])


def badge_svg(left: str, right: str, colour: str, title: str, link: str) -> str:
    """A shields-like badge: ``left`` on grey, ``right`` on ``colour``; ``title`` is its text
    for assistive technology and tooltips, ``link`` where it points."""
    left_width = text_width(left, BADGE_FONT) + 12
    right_width = text_width(right, BADGE_FONT) + 12
    width = left_width + right_width
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        f'class="badge" width="{width}" height="{BADGE_HEIGHT}" '
        f'viewBox="0 0 {width} {BADGE_HEIGHT}" role="img" aria-label={quoteattr(title)}>'
        f"<title>{escape(title)}</title>"
        f"<a xlink:href={quoteattr(link)} href={quoteattr(link)}>"
        f'<rect width="{left_width}" height="{BADGE_HEIGHT}" fill="{GREY}"/>'
        f'<rect x="{left_width}" width="{right_width}" height="{BADGE_HEIGHT}" fill="{colour}"/>'
        f'<g fill="#fff" font-family="DejaVu Sans, Verdana, sans-serif" '
        f'font-size="{BADGE_FONT}">'
        f'<text class="name" x="6" y="14">{escape(left)}</text>'
        f'<text class="rank" x="{left_width + 6}" y="14">{escape(right)}</text></g></a></svg>'
    )


@blueprint.get("/badge/<path:benchmark>/<method>.svg")
def badge(benchmark: str, method: str) -> Response:
    """A method's rank on a benchmark's board, as an SVG badge."""
    iri, rows = board(benchmark)
    found = method_rank(rows, method)
    if found is None:
        raise ApiError(404, f"the method {method!r} has no result on the board of <{iri}>")
    row, size = found
    name = rows[0].get("benchmarkLabel", benchmark)
    rank = f"#{row['rank']} of {size}" if row.get("rank") else "not ranked"
    snapshot = _snapshot()
    title = (
        f"{row.get('methodLabel', method)}: {rank} on {name}, {row.get('metricLabel', '')}, "
        f"cohort {row['cohort']}. Source: {_source(benchmark)}; snapshot {snapshot['generation']} "
        f"({snapshot['date']})"
    )
    colour = COLOURS.get(int(row["rank"]), "#6b7a8c") if row.get("rank") else "#9e9e9e"
    svg = badge_svg(name, rank, colour, title, _source(benchmark))
    response = Response(svg, content_type="image/svg+xml; charset=utf-8")
    response.headers["X-Benchgraph-Generation"] = snapshot["generation"]
    return response


@blueprint.get("/embed/<path:benchmark>")
def embed(benchmark: str) -> Response:
    """A benchmark's board as a small standalone HTML page, for an iframe."""
    iri, rows = board(benchmark)
    cohorts: dict[str, list[Row]] = {}
    for row in rows:
        cohorts.setdefault(row["cohort"], []).append(row)
    first = rows[0] if rows else {}
    page = render_template(
        "embed.html",
        benchmark=first.get("benchmarkLabel", iri),
        metric=first.get("metricLabel", ""),
        cohorts=cohorts,
        source=_source(benchmark),
        snapshot=_snapshot(),
    )
    return Response(page, content_type=media.BY_KEY["html"].content_type)


def operations(errors: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """The OpenAPI operations of the badge and the embed (``errors(*codes)``: the references to
    the error responses of those codes)."""
    benchmark = {
        "name": "benchmark", "in": "path", "required": True, "schema": {"type": "string"},
        "description": "The benchmark's page path, slashes and all "
        "(benchmark/prompt-recovery/laion)",
    }  # fmt: skip
    method = {
        "name": "method", "in": "path", "required": True, "schema": {"type": "string"},
        "description": "The method: its IRI's last part or its name, case ignored",
    }  # fmt: skip
    metric = {
        "name": "metric", "in": "query", "required": False, "schema": {"type": "string"},
        "description": "The metric (its IRI or name); default: the benchmark's primary metric",
    }  # fmt: skip
    return {
        "/badge/{benchmark}/{method}.svg": {
            "get": {
                "operationId": "badge",
                "tags": ["site"],
                "summary": "A method's rank on a benchmark's board, as an SVG badge citing the "
                "board's page and the store's generation",
                "parameters": [benchmark, method, metric],
                "responses": {
                    "200": {
                        "description": "The badge: '<benchmark> | #<rank> of <cohort size>', "
                        "the leaderboard's rank in the cohort where the method ranks best",
                        "content": {"image/svg+xml": {"schema": {"type": "string"}}},
                    },
                    **errors("400", "404", "503", "504"),
                },
            }
        },
        "/embed/{benchmark}": {
            "get": {
                "operationId": "embed",
                "tags": ["site"],
                "summary": "A benchmark's board as a small standalone HTML page for an iframe, "
                "citing the board's page and the store's generation",
                "parameters": [benchmark, metric],
                "responses": {
                    "200": {
                        "description": "The board's rows (rank, method, value) per cohort",
                        "content": {"text/html": {"schema": {"type": "string"}}},
                    },
                    **errors("400", "404", "503", "504"),
                },
            }
        },
    }
