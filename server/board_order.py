"""The order of a benchmark page's cohort tables, chosen by the reader with no script.

``_sort=COLUMN`` or ``_sort_desc=COLUMN`` on a benchmark's page orders the rows of every cohort
table by that column (rank, method, value, sample size, sources, reported in, or a setting
column by its name), numbers as numbers and text without regard to case, as the indexes do
(:mod:`server.tables`); each table's headings are the links that sort. Without them, a cohort
is in rank order. Ranks never change with the order shown: they are the leaderboard's. An
unknown column, or both parameters at once, is 400 naming the parameter.
"""

from __future__ import annotations

from urllib.parse import urlencode

from flask import Blueprint, request

from server.errors import ApiError
from server.tables import Row, order_key

blueprint = Blueprint("board_order", __name__)

# The row value each sortable column is ordered by, and whether it is a number.
SORTED_BY = {
    "rank": ("rank", True),
    "method": ("methodLabel", False),
    "value": ("value", True),
    "sampleSize": ("sampleSize", True),
    "claimSources": ("claimSources", True),
    "paper": ("paperLabel", False),
}


def _sortable(key: str) -> tuple[str, bool] | None:
    if key.startswith("setting:"):
        return key, False
    return SORTED_BY.get(key)


def chosen() -> tuple[str, bool] | None:
    """The column the request orders cohort tables by and whether descending; None for rank
    order. Raises ApiError (400) naming the parameter for an unknown column or both given."""
    ascending, descending = request.args.get("_sort"), request.args.get("_sort_desc")
    if ascending and descending:
        raise ApiError(400, "give _sort or _sort_desc, not both", parameter="_sort_desc")
    key = ascending or descending
    if not key:
        return None
    if _sortable(key) is None:
        names = ", ".join([*SORTED_BY, "a setting's column (setting:NAME)"])
        parameter = "_sort" if ascending else "_sort_desc"
        raise ApiError(400, f"no sortable column {key!r}; columns: {names}", parameter=parameter)
    return key, bool(descending)


@blueprint.app_template_global("ordered")
def ordered(rows: list[Row]) -> list[Row]:
    """``rows`` (a cohort's, in rank order) in the order the request asks for."""
    asked = chosen()
    if asked is None:
        return rows
    field, numeric = _sortable(asked[0]) or ("rank", True)
    return sorted(rows, key=lambda row: order_key(row.get(field, ""), numeric), reverse=asked[1])


@blueprint.app_template_global("sort_href")
def sort_href(key: str) -> str | None:
    """The link a cohort table's heading of ``key`` sorts by: ascending, or descending when the
    table is already in ascending order of it; None for a column that does not sort."""
    if _sortable(key) is None:
        return None
    arguments = {k: v for k, v in request.args.items() if k not in ("_sort", "_sort_desc")}
    asked = chosen()
    name = "_sort_desc" if asked == (key, False) else "_sort"
    return "?" + urlencode({**arguments, name: key})
