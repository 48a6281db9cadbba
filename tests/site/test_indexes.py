"""The index pages (/site/<kind>): what they list, sorting, filtering, paging, downloads, bad
parameters, the query behind each table, and the benchmark page's table of contents."""

from __future__ import annotations

import csv
import io
import re
from html.parser import HTMLParser
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from flask.testing import FlaskClient

from server.indexes import INDEXES

KINDS = {
    "benchmarks": "Benchmark",
    "tasks": "Task",
    "datasets": "Dataset",
    "methods": "Method",
    "papers": "Paper",
}
COMPOSET = "/page/benchmark/composet/composet"


class _Page(HTMLParser):
    """The cells' text of the page's data table, and its links by class."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.links: dict[str, list[str]] = {}
        self.ids: set[str] = set()
        self._body = False
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if found.get("id"):
            self.ids.add(str(found["id"]))
        if tag == "a":
            for name in (found.get("class") or "").split():
                self.links.setdefault(name, []).append(str(found.get("href")))
            self.links.setdefault("", []).append(str(found.get("href")))
        if tag == "tbody":
            self._body = True
        elif self._body and tag == "tr":
            self.rows.append([])
        elif self._body and tag == "td":
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "tbody":
            self._body = False
        elif tag == "td" and self._cell is not None:
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _page(client: FlaskClient, url: str) -> _Page:
    reply = client.get(url)
    assert reply.status_code == 200, reply.data[:300]
    page = _Page()
    page.feed(reply.get_data(as_text=True))
    return page


def _json(client: FlaskClient, url: str) -> dict[str, Any]:
    reply = client.get(url + ("&" if "?" in url else "?") + "_format=json")
    assert reply.status_code == 200, reply.data[:300]
    found: dict[str, Any] = reply.get_json()
    return found


def _all(client: FlaskClient, kind: str) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = _json(client, f"/site/{kind}?_size=500")["rows"]
    return rows


def _sparql(client: FlaskClient, text: str) -> list[dict[str, str]]:
    reply = client.get(
        "/sparql",
        query_string={"query": text},
        headers={"Accept": "application/sparql-results+json"},
    )
    assert reply.status_code == 200, reply.data[:300]
    bindings = reply.get_json()["results"]["bindings"]
    return [{k: v["value"] for k, v in b.items()} for b in bindings]


def _shown(row: dict[str, str], kind: str) -> list[str]:
    """The cells a row shows on the page: a linked column shows its label, else its IRI's end."""
    cells = []
    for column in INDEXES[kind].columns:
        text = row[column.key]
        if column.link and not text and row[column.link]:
            text = re.split(r"[/#]", row[column.link])[-1]
        cells.append(text)
    return cells


@pytest.mark.parametrize("kind", KINDS)
def test_each_index_lists_every_resource_of_its_kind(seeds_site: FlaskClient, kind: str) -> None:
    held = _sparql(
        seeds_site,
        "PREFIX bg: <https://w3id.org/benchgraph/ns#>\n"
        f"SELECT DISTINCT ?x WHERE {{ ?x a bg:{KINDS[kind]} }}",
    )
    key = INDEXES[kind].columns[0].link
    listed = [r[key] for r in _all(seeds_site, kind)]
    assert held and len(listed) == len(set(listed))
    assert set(listed) == {r["x"] for r in held}


def test_home_counts_link_to_the_indexes(seeds_site: FlaskClient) -> None:
    page = _page(seeds_site, "/site")
    for kind in KINDS:
        assert f"/site/{kind}" in page.links[""], kind


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("direction", ["_sort", "_sort_desc"])
def test_sorting_orders_the_rows(seeds_site: FlaskClient, kind: str, direction: str) -> None:
    for column in INDEXES[kind].columns:
        rows = _json(seeds_site, f"/site/{kind}?{direction}={column.key}&_size=500")["rows"]
        values = [r[column.key] for r in rows if r[column.key]]
        keys: list[Any] = (
            [float(v) for v in values] if column.numeric else [v.casefold() for v in values]
        )
        assert len(rows) == len(_all(seeds_site, kind)), column.key
        assert keys == sorted(keys, reverse=direction == "_sort_desc"), column.key


def test_a_heading_links_to_its_sort_and_back(seeds_site: FlaskClient) -> None:
    page = _page(seeds_site, "/site/methods")
    assert "/site/methods?_sort=results" in page.links["sort"]
    page = _page(seeds_site, "/site/methods?_sort=results")
    assert "/site/methods?_sort_desc=results" in page.links["sort"]


@pytest.mark.parametrize("kind", KINDS)
def test_filtering_narrows_the_rows(seeds_site: FlaskClient, kind: str) -> None:
    every = _all(seeds_site, kind)
    word = every[0]["label"].split()[0]
    found = _json(seeds_site, f"/site/{kind}?_search={word.upper()}&_size=500")
    assert 0 < found["matched"] == len(found["rows"]) <= len(every)
    columns = INDEXES[kind].columns
    for row in found["rows"]:
        assert any(word.casefold() in row[c.key].casefold() for c in columns)
    missed = [r for r in every if r not in found["rows"]]
    for row in missed:
        assert not any(word.casefold() in row[c.key].casefold() for c in columns)
    assert _json(seeds_site, f"/site/{kind}?_search=no-such-text-anywhere")["rows"] == []


@pytest.mark.parametrize("kind", KINDS)
def test_paging_covers_every_row_once(seeds_site: FlaskClient, kind: str) -> None:
    every = _all(seeds_site, kind)
    first = _json(seeds_site, f"/site/{kind}?_size=3&_sort=label")
    paged = list(first["rows"])
    for number in range(2, first["pages"] + 1):
        paged += _json(seeds_site, f"/site/{kind}?_size=3&_sort=label&_page={number}")["rows"]
    assert first["pages"] == -(-len(every) // 3)
    key = INDEXES[kind].columns[0].link
    assert sorted(r[key] for r in paged) == sorted(r[key] for r in every)
    assert len(paged) == len(every)


@pytest.mark.parametrize(
    "arguments", ["", "?_sort_desc=results&_size=4&_page=2", "?_search=a&_sort=label&_size=3"]
)
@pytest.mark.parametrize("kind", KINDS)
def test_downloads_are_the_rows_shown(seeds_site: FlaskClient, kind: str, arguments: str) -> None:
    if kind == "tasks" and "_page=2" in arguments:
        arguments = arguments.replace("_page=2", "_page=1")
    page = _page(seeds_site, f"/site/{kind}{arguments}")
    (csv_href,) = page.links["download-csv"]
    (json_href,) = page.links["download-json"]
    rows = seeds_site.get(json_href).get_json()["rows"]
    assert [_shown(r, kind) for r in rows] == page.rows
    text = seeds_site.get(csv_href).get_data(as_text=True)
    assert list(csv.DictReader(io.StringIO(text))) == rows
    assert page.rows


@pytest.mark.parametrize(
    ("arguments", "parameter"),
    [
        ("_sort=nothing", "_sort"),
        ("_sort_desc=nothing", "_sort_desc"),
        ("_sort=label&_sort_desc=label", "_sort_desc"),
        ("_page=0", "_page"),
        ("_page=x", "_page"),
        ("_page=999", "_page"),
        ("_size=0", "_size"),
        ("_size=501", "_size"),
        ("_format=xml", "_format"),
        ("_other=1", "_other"),
    ],
)
def test_bad_parameters_are_refused(
    seeds_site: FlaskClient, arguments: str, parameter: str
) -> None:
    reply = seeds_site.get(f"/site/methods?{arguments}", headers={"Accept": "application/json"})
    assert reply.status_code == 400
    body = reply.get_json()
    assert body["ok"] is False and body["status"] == 400 and body["parameter"] == parameter


def test_an_unknown_index_is_not_found(seeds_site: FlaskClient) -> None:
    reply = seeds_site.get("/site/gadgets", headers={"Accept": "application/json"})
    assert reply.status_code == 404 and "gadgets" in reply.get_json()["error"]


@pytest.mark.parametrize("kind", KINDS)
def test_the_query_link_reproduces_the_table(seeds_site: FlaskClient, kind: str) -> None:
    page = _page(seeds_site, f"/site/{kind}")
    (href,) = page.links["query-link"]
    assert urlsplit(href).path == "/query"
    (text,) = parse_qs(urlsplit(href).query)["query"]
    answered = _sparql(seeds_site, text)
    keys = [k for c in INDEXES[kind].columns for k in (c.key, c.link) if k]
    assert [{k: r.get(k, "") for k in keys} for r in answered] == _all(seeds_site, kind)


def test_the_board_contents_link_to_every_cohort(seeds_site: FlaskClient) -> None:
    reply = seeds_site.get(COMPOSET)
    html = reply.get_data(as_text=True)
    page = _Page()
    page.feed(html)
    (toc,) = re.findall(r'<nav class="toc".*?</nav>', html, re.S)
    targets = re.findall(r'href="#([^"]+)"', toc)
    cohorts = set(re.findall(r'<div class="cohort" id="([^"]+)"', html))
    boards = set(re.findall(r'<h3 id="(board-[^"]+)"', html))
    assert len(cohorts) == html.count('<div class="cohort"') == 26
    assert set(targets) == cohorts | boards and len(targets) == len(set(targets))
    assert set(targets) <= page.ids


def test_the_openapi_document_lists_the_indexes(seeds_site: FlaskClient) -> None:
    paths = seeds_site.get("/openapi.json").get_json()["paths"]
    for kind in KINDS:
        operation = paths[f"/site/{kind}"]["get"]
        names = {p["name"] for p in operation["parameters"]}
        assert names == {"_sort", "_sort_desc", "_search", "_page", "_size", "_format"}


def test_each_board_links_its_rows_and_the_query_behind_them(seeds_site: FlaskClient) -> None:
    html = seeds_site.get(COMPOSET).get_data(as_text=True)
    page = _Page()
    page.feed(html)
    boards = html.split("<h2>Leaderboards</h2>", 1)[1].split("<h2", 1)[0]
    results = re.findall(r'href="/page/(result/[^"]+)">result</a>', boards)
    assert page.links["query-link"] and len(page.links["query-link"]) == len(
        page.links["download-csv"]
    )
    from_boards: list[str] = []
    links = zip(
        page.links["query-link"],
        page.links["download-json"],
        page.links["download-csv"],
        strict=True,
    )
    for query, download, download_csv in links:
        (text,) = parse_qs(urlsplit(query).query)["query"]
        answered = _sparql(seeds_site, text)
        reply = seeds_site.get(download)
        assert reply.status_code == 200, reply.data[:300]
        rows = [
            {k: v["value"] for k, v in b.items()} for b in reply.get_json()["results"]["bindings"]
        ]
        assert answered == rows and rows
        table = seeds_site.get(download_csv).get_data(as_text=True)
        assert [r["result"] for r in csv.DictReader(io.StringIO(table))] == [
            r["result"] for r in rows
        ]
        from_boards += [r["result"] for r in rows]
    shown = ["https://w3id.org/benchgraph/id/" + r for r in results]
    assert sorted(from_boards) == sorted(shown)
