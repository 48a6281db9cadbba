"""Tables a reader sorts, filters and pages on the server, with no script (Datasette's model).

A table is its columns and its rows (plain values, as ``site_queries`` gives them). The request's
parameters say which rows are shown:

- ``_sort=COLUMN`` / ``_sort_desc=COLUMN``: ordered by that column, ascending or descending
  (numbers as numbers, text without regard to case); one of the two at most.
- ``_search=TEXT``: only rows where some column contains the text (case-insensitive).
- ``_page=N`` (from 1) and ``_size=N`` (1 to ``MAX_SIZE``, ``DEFAULT_SIZE`` when left out).
- ``_format=csv`` or ``_format=json``: the rows shown, as a download, instead of the page.

Any other parameter starting with ``_``, an unknown column, a page or size that is no number or
out of range, or a page past the last is refused (ApiError, 400), naming the parameter.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from urllib.parse import urlencode

from flask import Response, jsonify, request, url_for

from server.errors import ApiError

Row = dict[str, str]
DEFAULT_SIZE = 50
MAX_SIZE = 500
MAX_SEARCH = 200
FORMATS = ("html", "csv", "json")
PARAMETERS = ("_sort", "_sort_desc", "_search", "_page", "_size", "_format")


@dataclass(frozen=True)
class Column:
    """A column: the row key it shows, its heading, the row key of the IRI its cell links to
    ("" for none) and whether its values are numbers."""

    key: str
    heading: str
    link: str = ""
    numeric: bool = False


@dataclass(frozen=True)
class View:
    """What a request asks of a table: the sort column ("" for the query's order), its
    direction, the search text, the page (from 1), its size and the format."""

    sort: str = ""
    descending: bool = False
    search: str = ""
    page: int = 1
    size: int = DEFAULT_SIZE
    format: str = "html"

    def arguments(self, **changed: object) -> dict[str, str]:
        """The query parameters that ask for this view with ``changed`` fields (defaults
        left out)."""
        view = replace(self, **changed)  # type: ignore[arg-type]
        found: dict[str, str] = {}
        if view.sort:
            found["_sort_desc" if view.descending else "_sort"] = view.sort
        if view.search:
            found["_search"] = view.search
        if view.page != 1:
            found["_page"] = str(view.page)
        if view.size != DEFAULT_SIZE:
            found["_size"] = str(view.size)
        if view.format != "html":
            found["_format"] = view.format
        return found


@dataclass(frozen=True)
class Shown:
    """The rows a view shows, and what the page says about them: the rows that matched the
    search (``matched``) and the number of pages they fill."""

    columns: Sequence[Column]
    view: View
    rows: list[Row]
    matched: int
    pages: int

    def href(self, **changed: object) -> str:
        """The link to this table (the request's own path) with ``changed`` view fields."""
        text = urlencode(self.view.arguments(**changed))
        return request.path + ("?" + text if text else "")

    def sort_href(self, key: str) -> str:
        """The link a column heading makes: sorted by it ascending, or descending when it is
        sorted ascending already; back to the first page."""
        descending = self.view.sort == key and not self.view.descending
        return self.href(sort=key, descending=descending, page=1)

    def keys(self) -> list[str]:
        """The fields of a downloaded row: each column, and after it the IRI it links to."""
        found: list[str] = []
        for column in self.columns:
            found += [column.key, column.link] if column.link else [column.key]
        return found


def view(columns: Sequence[Column]) -> View:
    """The request's view of a table of ``columns``. Raises ApiError (400) for a parameter
    this module does not know or a value that is not valid, naming the parameter."""
    args = request.args
    for name in args:
        if name.startswith("_") and name not in PARAMETERS:
            raise ApiError(400, f"unknown table parameter {name!r}", parameter=name)
    keys = {c.key for c in columns}
    if "_sort" in args and "_sort_desc" in args:
        raise ApiError(400, "give _sort or _sort_desc, not both", parameter="_sort_desc")
    name = "_sort_desc" if "_sort_desc" in args else "_sort"
    sort = args.get(name, "")
    if sort and sort not in keys:
        known = ", ".join(c.key for c in columns)
        raise ApiError(400, f"there is no column {sort!r} to sort by ({known})", parameter=name)
    search = args.get("_search", "").strip()
    if len(search) > MAX_SEARCH:
        raise ApiError(400, f"_search is longer than {MAX_SEARCH} characters", parameter="_search")
    page = _number("_page", 1, 1, None)
    size = _number("_size", DEFAULT_SIZE, 1, MAX_SIZE)
    fmt = args.get("_format", "html")
    if fmt not in FORMATS:
        raise ApiError(400, f"_format is one of {', '.join(FORMATS)}", parameter="_format")
    return View(sort, name == "_sort_desc" and bool(sort), search, page, size, fmt)


def _number(name: str, default: int, lowest: int, highest: int | None) -> int:
    text = request.args.get(name, "")
    if not text:
        return default
    if not text.isdigit() or int(text) < lowest or (highest is not None and int(text) > highest):
        bounds = f"{lowest} to {highest}" if highest is not None else f"{lowest} or more"
        raise ApiError(400, f"{name} is a whole number from {bounds}", parameter=name)
    return int(text)


def show(columns: Sequence[Column], rows: list[Row], seen: View) -> Shown:
    """The rows of ``rows`` that ``seen`` shows: searched, sorted, then paged. Raises ApiError
    (400) for a page past the last (the first page always exists, empty or not)."""
    if seen.search:
        text = seen.search.casefold()
        rows = [r for r in rows if any(text in r.get(c.key, "").casefold() for c in columns)]
    if seen.sort:
        column = next(c for c in columns if c.key == seen.sort)
        rows = sorted(rows, key=lambda r: order_key(r.get(column.key, ""), column.numeric))
        if seen.descending:
            rows.reverse()
    pages = max(1, math.ceil(len(rows) / seen.size))
    if seen.page > pages:
        raise ApiError(400, f"_page {seen.page} is past the last page, {pages}", parameter="_page")
    start = (seen.page - 1) * seen.size
    return Shown(columns, seen, rows[start : start + seen.size], len(rows), pages)


def order_key(value: str, numeric: bool) -> tuple[int, float, str]:
    """The sort key of a cell's ``value``: empty values first, numbers by value, text without
    regard to case."""
    if not value:
        return (0, 0.0, "")
    if numeric:
        try:
            return (1, float(value), "")
        except ValueError:
            pass
    return (1, 0.0, value.casefold())


def download(shown: Shown, name: str) -> Response:
    """The rows shown as CSV or JSON (as ``shown.view.format`` says), named ``name``."""
    keys = shown.keys()
    rows = [{k: r.get(k, "") for k in keys} for r in shown.rows]
    if shown.view.format == "json":
        response = jsonify(
            {
                "columns": keys,
                "rows": rows,
                "matched": shown.matched,
                "page": shown.view.page,
                "pages": shown.pages,
                "size": shown.view.size,
            }
        )
    else:
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=keys, lineterminator="\r\n")
        writer.writeheader()
        writer.writerows(rows)
        response = Response(out.getvalue(), content_type="text/csv; charset=utf-8")
        response.headers["Content-Disposition"] = f'attachment; filename="{name}.csv"'
    return response


def query_href(text: str) -> str:
    """The link to the query page holding ``text``."""
    return url_for("site.query") + "?" + urlencode({"query": text})
