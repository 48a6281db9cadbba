"""A benchmark page's cohort tables sort by a heading, on the server, with no script; the ranks
stay the leaderboard's."""

from __future__ import annotations

from flask.testing import FlaskClient
from support.html import parse

COMPOSET = "/page/benchmark/composet/composet"


def _tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    """Each cohort table's headings and rows of cell texts."""
    found = []
    for div in parse(text).iter("div"):
        if div.attrs.get("class") != "cohort":
            continue
        table = div.find("table")
        assert table is not None
        headings = [th.text.strip() for th in table.iter("th")]
        rows = [[td.text.strip() for td in tr.iter("td")] for tr in table.find("tbody").iter("tr")]
        found.append((headings, rows))
    return found


def _number(text: str) -> float:
    return float(text.split()[0].replace("–", " ").split()[0].rstrip(","))


def test_each_cohort_sorts_by_value_both_ways_and_keeps_its_rows_and_ranks(
    seeds_site: FlaskClient,
) -> None:
    plain = _tables(seeds_site.get(COMPOSET).get_data(as_text=True))
    for name in ("_sort", "_sort_desc"):
        reply = seeds_site.get(f"{COMPOSET}?{name}=value")
        assert reply.status_code == 200
        tables = _tables(reply.get_data(as_text=True))
        assert len(tables) == len(plain) > 1
        for (headings, rows), (_, before) in zip(tables, plain, strict=True):
            assert sorted(map(tuple, rows)) == sorted(map(tuple, before))  # same rows, same ranks
            values = [_number(row[headings.index("Value")]) for row in rows]
            assert values == sorted(values, reverse=name == "_sort_desc")


def test_a_heading_links_the_order_it_gives(seeds_site: FlaskClient) -> None:
    links = [
        a.attrs["href"]
        for a in parse(seeds_site.get(COMPOSET).get_data(as_text=True)).iter("a")
        if a.attrs.get("class") == "sort"
    ]
    assert any(h.startswith("?_sort=value#cohort-") for h in links)
    again = parse(seeds_site.get(f"{COMPOSET}?_sort=method").get_data(as_text=True))
    turned = [a.attrs["href"] for a in again.iter("a") if a.attrs.get("class") == "sort"]
    assert any(h.startswith("?_sort_desc=method#") for h in turned)
    reply = seeds_site.get(f"{COMPOSET}?_sort=method")
    for headings, rows in _tables(reply.get_data(as_text=True)):
        methods = [row[headings.index("Method")].casefold() for row in rows]
        assert methods == sorted(methods)


def test_an_unknown_column_or_both_orders_is_400_naming_the_parameter(
    seeds_site: FlaskClient,
) -> None:
    for query, parameter in (
        ("_sort=nonsense", "_sort"),
        ("_sort=value&_sort_desc=rank", "_sort_desc"),
    ):
        reply = seeds_site.get(f"{COMPOSET}?{query}", headers={"Accept": "application/json"})
        assert reply.status_code == 400
        body = reply.get_json()
        assert body["ok"] is False and body.get("parameter") == parameter, body
