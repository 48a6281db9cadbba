"""The state of the art over time on a benchmark's page: per cohort of a leaderboard, its
results by the date they were reported, and the record as it moved.

A cohort is the leaderboard's (the named query ``leaderboard`` forms them, and the page draws
each from its rows), so only like-for-like results share a chart. A result's date is
``bg:reportedOn`` (``queries/site/dates.rq``): its own date, else its paper's, else its page's.
A cohort is charted where at least two of its results are dated, on at least two dates (a chart
of one date shows no progress: a note says so instead); results without a date are counted,
not placed.
"""

from __future__ import annotations

from datetime import date

import pyoxigraph as ox
from flask import Blueprint
from markupsafe import Markup

from benchgraph import asof
from server import timeline
from server.site import unit_name
from server.site_queries import select

blueprint = Blueprint("progress", __name__)

Row = dict[str, str]


def dates(benchmark: str, as_of: str = "") -> dict[str, date]:
    """The date each dated result on ``benchmark`` was reported, by result IRI (as of
    ``as_of``, a moment as the leaderboard takes it, when given)."""
    past = asof.Past("as-of", (as_of,), benchmark) if as_of else None
    found = select("dates", past, benchmark=ox.NamedNode(benchmark))
    return {row["result"]: date.fromisoformat(row["reportedOn"][:10]) for row in found}


def _label(row: Row, columns: list[tuple[str, str]]) -> str:
    """The method's label, with the settings that tell it apart within its cohort."""
    settings = [f"{name}={row.get(k, '')}" for k, name in columns if k.startswith("setting:")]
    return f"{row['methodLabel']} ({', '.join(settings)})" if settings else row["methodLabel"]


def points(
    rows: list[Row], columns: list[tuple[str, str]], when: dict[str, date]
) -> list[timeline.Point]:
    """The dated rows of a cohort as points (rows without a date, or a value, are left out)."""
    return [
        timeline.Point(
            _label(r, columns), when[r["result"]], float(r["value"]), r["value"], r["result"]
        )
        for r in rows
        if r["result"] in when and r.get("value")
    ]


@blueprint.app_template_global("over_time")
def over_time(
    benchmark: str, board: dict[str, object], cohort: dict[str, object], as_of: str = ""
) -> Markup:
    """The cohort's chart over time (a figure), or a note saying why it has none."""
    rows: list[Row] = cohort["rows"]  # type: ignore[assignment]
    columns: list[tuple[str, str]] = cohort["columns"]  # type: ignore[assignment]
    metric: Row = board["metric"]  # type: ignore[assignment]
    direction = str(board["direction"])
    if not any(r.get("rank") for r in rows):  # a metric of no known direction: no record
        return Markup('<p class="note over-time-none">Not charted over time: the metric\'s '
                      "direction is not known.</p>")  # fmt: skip
    placed = points(rows, columns, dates(benchmark, as_of))
    undated = len(rows) - len(placed)
    days = {p.when for p in placed}
    if len(placed) < 2 or len(days) < 2:
        said = f"{len(placed)} of {len(rows)} results have a date"
        said += f", all {min(days).isoformat()}" if len(placed) > 1 else ""
        return Markup('<p class="note over-time-none">Not charted over time: {}.</p>').format(said)
    unit = f"{metric['metricLabel']} ({unit_name(metric.get('unit', ''))})"
    title = f"{unit} over time, {cohort['name']}"
    svg = timeline.over_time_chart(placed, direction, unit, title, undated)
    caption = (
        f"State of the art over time: {len(placed)} dated result{'s' if len(placed) != 1 else ''}"
        f", the record-setters joined"
        + (f"; {undated} without a date, not placed" if undated else "")
    )
    return Markup('<figure class="over-time"><figcaption>{}</figcaption>{}</figure>').format(
        caption, Markup(svg)
    )
