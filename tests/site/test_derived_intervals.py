"""The site never shows a derived interval as a published one: a benchmark's board reads a rank
bounded by derived intervals as "2–4, derived" and each such interval as "derived (Wilson,
n=…)", a point rank tied at the published precision says so, and a result's page labels its
derived interval with its method and n (TallyQuiz, a page of our own, served by a real server;
CompoSET's Table 9 and Table 11 from the seeds)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from support import REPO
from support.html import Element, parse, table_rows
from support.live import Live, fetch

from benchgraph.store.embedded import EmbeddedStore
from ingest.loader import ingest_file

TALLYQUIZ = REPO / "tests" / "data" / "radar" / "tallyquiz-accuracy-sample-sizes.txt"
BOARD = "page/benchmark/tallyquiz/tallyquiz"
COMPOSET = "/page/benchmark/composet/composet"
TIE = " (tied at the published precision)"


@pytest.fixture(scope="module")
def tallyquiz(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    folder: Path = tmp_path_factory.mktemp("tallyquiz") / "store"
    with EmbeddedStore(folder) as store:
        assert ingest_file(store, TALLYQUIZ, now="2026-11-29T12:00:00+00:00").status == "loaded"
    live = Live(folder)
    yield live
    assert live.stop() == 0


def served(live: Live, path: str) -> Element:
    reply = fetch(live.url + path.lstrip("/"), Accept="text/html")
    assert reply.status == 200 and reply.type == "text/html", reply.text[-500:]
    return parse(reply.text)


def cohorts(root: Element) -> dict[str, Element]:
    found = {}
    for div in root.iter("div", "cohort"):
        heading = div.find("h4")
        assert heading is not None
        found[heading.text.removeprefix("Cohort: ")] = div
    return found


def rows_of(div: Element) -> list[dict[str, Element]]:
    table = div.find("table")
    assert table is not None
    return table_rows(table)


def result_path(cells: dict[str, Element]) -> str:
    (href,) = [h for h, _ in cells["Result"].links() if "/page/result/" in h]
    return href


def test_the_board_says_derived_and_tied(tallyquiz: Live) -> None:
    boards = cohorts(served(tallyquiz, BOARD))
    counting = boards["subset=计数"]
    rows = rows_of(counting)
    assert [c["Rank"].text for c in rows] == [
        "1–2, derived", "1–2, derived", "3–4, derived", "3–4, derived",
    ]  # fmt: skip
    assert "Confidence interval" not in rows[0]  # nothing published: no such column
    assert [c["Derived interval"].text for c in rows] == [
        "[78.47, 85.91] derived (Wilson, n=400)",
        "[73.68, 81.79] derived (Wilson, n=400)",
        "[56.13, 65.66] derived (Wilson, n=400)",
        "[55.12, 64.69] derived (Wilson, n=400)",
    ]
    rule = counting.find("p", "rank-rule")
    assert rule is not None and "derived" in rule.text and "Wilson score" in rule.text
    assert "not the source's" in rule.text
    assert rows_of(boards["subset=换算"])[0]["Rank"].text == "1, derived"  # alone at the top

    overall = boards["configuration not recorded"]
    shown = [(c["Value"].text, c["Rank"].text) for c in rows_of(overall)]
    assert shown == [
        ("71.42", "1" + TIE), ("71.4", "2" + TIE), ("70.93", "3" + TIE), ("70.9", "4" + TIE),
        ("69", "5" + TIE), ("68.7", "6" + TIE), ("65.0", "7"), ("64.9", "8"),
    ]  # fmt: skip
    note = overall.find("p", "point-ranks")
    assert note is not None and "point ranks" in note.text
    assert overall.find("p", "rank-rule") is None and overall.find("td", "derived-interval") is None


def test_a_result_page_labels_its_derived_interval(tallyquiz: Live) -> None:
    rows = rows_of(cohorts(served(tallyquiz, BOARD))["subset=换算"])
    root = served(tallyquiz, result_path(rows[0]))  # Basalt 13B, 76.0% of 150
    facts = root.find("dl", "facts")
    assert facts is not None
    terms = [dt.text for dt in facts.iter("dt")]
    assert "Derived interval" in terms and "Confidence interval" not in terms
    derived = facts.find("dd", "derived-interval")
    assert derived is not None
    assert derived.text.startswith("[68.57, 82.14] at 0.95, derived (Wilson, n=150)")
    assert "Wilson score interval" in derived.text
    assert "publishes no interval for this result" in derived.text


def test_composet_sample_ranks_and_pages_say_derived(seeds_site: FlaskClient) -> None:
    """Table 11 (n = 200, no interval) reads as derived on the board and on its results'
    pages; Table 9 keeps its published intervals, with the derived one beside them, labelled."""
    reply = seeds_site.get(COMPOSET, headers={"Accept": "text/html"})
    assert reply.status_code == 200
    divs = list(parse(reply.get_data(as_text=True)).iter("div", "cohort"))
    every = [r for div in divs for r in rows_of(div)]
    (sonnet,) = [
        r for r in every if r["Method"].text == "Claude Sonnet 4.6" and r["Value"].text == "42.5"
    ]  # Table 11's Group accuracy, under its protocol, in its own cohort
    assert sonnet["Rank"].text == "1, derived"
    assert sonnet["Derived interval"].text == "[35.85, 49.43] derived (Wilson, n=200)"
    derived_ranks = [r for r in every if r["Rank"].text.endswith(", derived")]
    assert len(derived_ranks) == 18  # Table 11: three metrics, two protocols, three models
    assert all("Confidence interval" not in r for r in derived_ranks)
    page = seeds_site.get(result_path(sonnet), headers={"Accept": "text/html"})
    derived = parse(page.get_data(as_text=True)).find("dd", "derived-interval")
    assert derived is not None and "derived (Wilson, n=200)" in derived.text

    (first,) = [
        r for r in every if r["Method"].text == "DreamLIP B/16 (30M)" and r["Value"].text == "52.4"
    ]  # Table 9, modify_color
    assert first["Rank"].text == "1"  # DreamLIP's published interval is clear of the others'
    assert first["Confidence interval"].text == "[48.5,56.4] (95%)"
    assert first["Derived interval"].text.endswith("derived (Wilson, n=618)")
    page = seeds_site.get(result_path(first), headers={"Accept": "text/html"})
    derived = parse(page.get_data(as_text=True)).find("dd", "derived-interval")
    assert derived is not None and "the interval above, not this one" in derived.text
