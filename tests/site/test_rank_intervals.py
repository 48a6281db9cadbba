"""The benchmark page where intervals bound the ranks: a rank reads as a range, the rule is
stated with the intervals' level, the bars whose interval overlaps the leader's are marked, and
a form runs ``compare``."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from urllib.parse import urlencode

import pyoxigraph as ox
from flask.testing import FlaskClient
from support import Index
from support.html import Element, parse, table_rows

from benchgraph import vocab as V
from server import charts

HTML = {"Accept": "text/html"}
COMPOSET = "/page/benchmark/composet/composet"
GENAI = "/page/benchmark/prompt-to-prompt-semantic-composition/genai-bench"


def page(client: FlaskClient, url: str) -> Element:
    reply = client.get(url, headers=HTML)
    assert reply.status_code == 200, reply.get_data(as_text=True)[-500:]
    return parse(reply.get_data(as_text=True))


def cohorts(root: Element) -> dict[str, Element]:
    found = {}
    for div in root.iter("div", "cohort"):
        heading = div.find("h4")
        assert heading is not None
        found[heading.text.removeprefix("Cohort: ")] = div
    return found


def result_of(cells: dict[str, Element]) -> str:
    (href,) = [h for h, _ in cells["Result"].links() if "/page/result/" in h]
    return V.ID + href.removeprefix("/page/")


def test_composet_headline_reads_ranks_as_ranges(
    seeds_site: FlaskClient, seeds_store: Path
) -> None:
    index = Index(set(ox.Store.read_only(str(seeds_store))))
    (headline,) = [
        c for name, c in cohorts(page(seeds_site, COMPOSET)).items() if "Table 8" in name
    ]
    table = headline.find("table")
    assert table is not None
    rows = table_rows(table)
    assert len(rows) == 22
    rank = {c["Method"].text: c["Rank"].text for c in rows}
    assert rank["SigLIP-2 SO400M/14"] == "1–5" and rank["CLIP B/32"] == "19–22"
    rule = headline.find("p", "rank-rule")
    assert rule is not None and "95% confidence intervals" in rule.text

    # the bars marked are those whose interval overlaps the leader's, and the legend says so
    bounds = {
        c["Method"].text: (
            Decimal(index.value(result_of(c), V.ciLower) or ""),
            Decimal(index.value(result_of(c), V.ciUpper) or ""),
        )
        for c in rows
    }
    leader = rows[0]["Method"].text
    low, high = bounds[leader]
    overlapping = {m for m, (lo, hi) in bounds.items() if m != leader and lo <= high and hi >= low}
    assert overlapping == {
        "SigLIP-2 L/16-384", "DreamLIP B/16 (30M)", "SigLIP SO400M/14", "SigLIP L/16-384",
    }  # fmt: skip
    svg = headline.find("svg")
    assert svg is not None
    marked = {r.find("title").text.rsplit(": ", 1)[0] for r in svg.iter("rect", "overlap")}  # type: ignore[union-attr]
    assert marked == overlapping
    assert len(list(svg.iter("rect", "bar"))) == 22
    assert len(list(svg.iter("g", "whisker"))) == 22
    legend = svg.find("g", "legend")
    assert legend is not None and "95% interval overlaps the leader's" in legend.text
    assert leader in legend.text


def test_cohorts_without_intervals_read_as_before(seeds_site: FlaskClient) -> None:
    """Point ranks, as before; where two values are equal at the published precision (SANA1.5:
    MAs published as 33, to the unit, and Interpolation as 32.7) the ranks say they are tied,
    and the cohort says what its ranks are."""
    root = page(seeds_site, GENAI)
    assert root.find("p", "rank-rule") is None
    tie = " (tied at the published precision)"
    for name, div in cohorts(root).items():
        table = div.find("table")
        assert table is not None
        shown = [c["Rank"].text for c in table_rows(table)]
        assert [s.removesuffix(tie) for s in shown] == ["1", "2", "3", "4", "5", "6"]
        tied = {c["Value"].text for c in table_rows(table) if c["Rank"].text.endswith(tie)}
        note = div.find("p", "point-ranks")
        if name == "Model=SANA1.5":
            assert tied == {"33", "32.7"} and note is not None and "point ranks" in note.text
        else:
            assert not tied and note is None
        svg = div.find("svg")
        assert svg is not None and svg.find("rect", "overlap") is None
        assert svg.find("g", "legend") is None


def test_the_compare_form_runs_compare(seeds_site: FlaskClient) -> None:
    root = page(seeds_site, COMPOSET)
    form = root.find("form", "compare")
    assert form is not None and form.attrs["action"] == "/queries/compare"
    fields = {i.attrs["name"]: i.attrs["value"] for i in form.iter("input")}
    assert fields == {"benchmark": V.ID + "benchmark/composet/composet", "format": "html"}
    choices = {}
    for select in form.iter("select"):
        options = list(select.iter("option"))
        chosen = [o for o in options if "selected" in o.attrs] or options[:1]
        choices[select.attrs["name"]] = (options, chosen[0].attrs["value"])
    a_options, a = choices["a"]
    b_options, b = choices["b"]
    labels = [o.text for o in a_options]
    assert labels == [o.text for o in b_options] == sorted(labels, key=str.casefold)
    assert {"CLIP B/32", "SigLIP-2 SO400M/14", "Claude Sonnet 4.6"} <= set(labels)
    assert (a, b) == (V.ID + "method/siglip-2-so400m-14", V.ID + "method/dreamlip-b-16-30m")
    metric = choices["metric"][1]
    reply = seeds_site.get(
        "/queries/compare?" + urlencode({**fields, "a": a, "b": b, "metric": metric})
    )
    assert reply.status_code == 200 and reply.mimetype == "text/html"
    answer = parse(reply.get_data(as_text=True)).find("table")
    assert answer is not None
    (row,) = table_rows(answer)  # the leaders of the primary metric, one pair
    assert row["comparable"].text == "comparable"
    assert row["verdict"].text == "intervals overlap"


def test_chart_marks_bars_and_says_why() -> None:
    bars = [charts.Bar("A", 5.0, "5.0", 4.0, 6.0), charts.Bar("B", 4.5, "4.5", 3.9, 5.1, True)]
    svg = parse(charts.bar_chart(bars, "u", "higher", "t", "Lighter bars: overlap"))
    assert [r.find("title").text for r in svg.iter("rect", "overlap")] == ["B: 4.5"]  # type: ignore[union-attr]
    legend = svg.find("g", "legend")
    assert legend is not None and legend.text == "Lighter bars: overlap"
    plain = parse(charts.bar_chart(bars[:1], "u", "higher", "t"))
    assert plain.find("g", "legend") is None and plain.find("rect", "overlap") is None
