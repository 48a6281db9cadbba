"""The state of the art over time on a benchmark's page, and the badges and embeds of a board.

The seed pages date every result of a page alike (by the page) or not at all (CompoSET), so the
charts are tested on two pages given result dates of their own: ART500K (higher is better) and
LAION with its metric made lower-is-better. Every figure is read from the store the app serves.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from flask.testing import FlaskClient
from support import site_client
from support.dated import ART, LAION, running_best, stored_points

from benchgraph import vocab as V
from server import timeline

SVG = "{http://www.w3.org/2000/svg}"
GENAI = "benchmark/prompt-to-prompt-semantic-composition/genai-bench"
COMPOSET = "benchmark/composet/composet"


@pytest.fixture(scope="module")
def dated_site(
    dated_store: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FlaskClient]:
    yield from site_client(dated_store, tmp_path_factory)


def over_time(client: FlaskClient, benchmark: str) -> list[ET.Element]:
    response = client.get("/page/" + benchmark)
    assert response.status_code == 200
    text = response.get_data(as_text=True)
    return [ET.fromstring(s) for s in re.findall(r"<svg [^>]*over-time.*?</svg>", text, re.S)]


def circles(svg: ET.Element) -> list[ET.Element]:
    return svg.findall(f"{SVG}circle")


@pytest.mark.parametrize("benchmark", [ART, LAION])
def test_points_are_the_dated_results_of_the_cohort(
    dated_store: Path, dated_site: FlaskClient, benchmark: str
) -> None:
    (svg,) = over_time(dated_site, benchmark)
    points = stored_points(dated_store, benchmark)
    drawn = {(c.get("data-result"), c.get("data-date"), c.get("data-value")) for c in circles(svg)}
    expected = {(r, str(on), text) for r, on, _, text in points if on is not None}
    assert drawn == expected and len(circles(svg)) == len(expected) >= 2


@pytest.mark.parametrize(("benchmark", "lower"), [(ART, False), (LAION, True)])
def test_record_line_is_the_running_best_in_the_metrics_direction(
    dated_store: Path, dated_site: FlaskClient, benchmark: str, lower: bool
) -> None:
    (svg,) = over_time(dated_site, benchmark)
    direction = svg.find(f"{SVG}text[@class='direction']")
    assert direction is not None and ("Lower" in (direction.text or "")) == lower
    records = [c.get("data-result") for c in circles(svg) if "record" in (c.get("class") or "")]
    expected = running_best(stored_points(dated_store, benchmark), lower)
    assert records == expected and 1 < len(expected) < len(circles(svg))
    labels = [t.text for t in svg.findall(f"{SVG}text[@class='record-label']")]
    assert len(labels) == len(expected)
    path = svg.find(f"{SVG}path[@class='record-line']")
    assert path is not None
    vertices = re.findall(r"[MV] [\d.]+(?: [\d.]+)?", path.get("d", ""))
    assert len(vertices) == len(expected)  # one level per record-setter


def store_dates(store: Path, benchmark: str) -> set[str]:
    """The results on ``benchmark`` that the store dates."""
    found = ox.Store.read_only(str(store)).query(
        "PREFIX bg: <https://w3id.org/benchgraph/ns#>\n"
        "SELECT ?b ?r WHERE { ?r bg:benchmark ?b ; bg:reportedOn ?d }",
        substitutions={ox.Variable("b"): ox.NamedNode(V.ID + benchmark)},
    )
    return {row["r"].value for row in found}  # type: ignore[index, union-attr]


@pytest.mark.parametrize("benchmark", [GENAI, COMPOSET])
def test_a_cohort_not_charted_says_how_many_results_have_a_date(
    seeds_store: Path, seeds_site: FlaskClient, benchmark: str
) -> None:
    """The seeds date each page's results by one date, or not at all: no chart, and a note per
    cohort counting its dated results (the undated are counted, never placed)."""
    text = seeds_site.get("/page/" + benchmark).get_data(as_text=True)
    blocks = re.findall(
        r'<div class="cohort"[^>]*>(.*?)</div>\s*<p class="note over-time-none">'
        r"Not charted over time: (\d+) of (\d+) results have a date(?:, all ([\d-]+))?\.</p>",
        text,
        re.S,
    )
    assert blocks and len(blocks) == text.count('<div class="cohort"')
    assert "over-time" not in "".join(re.findall(r"<svg [^>]*>", text))
    dated = store_dates(seeds_store, benchmark)
    for block, placed, total, _ in blocks:
        results = re.findall(r'href="/page/(result/[^"]+)"', block)
        assert int(total) == len(results)
        assert int(placed) == sum(1 for r in results if V.ID + r in dated)


def test_chart_escapes_what_it_writes() -> None:
    hostile = "<script>alert(1)</script>"
    points = [
        timeline.Point(hostile, date(2023, 1, 1), 1.0, "1.0", "a"),
        timeline.Point("B", date(2024, 1, 1), 2.0, "2.0", "b"),
    ]
    svg = ET.fromstring(timeline.over_time_chart(points, "higher", hostile, hostile))
    labels = [t.text for t in svg.findall(f"{SVG}text[@class='record-label']")]
    assert labels == [f"{hostile} (1.0)", "B (2.0)"]
    assert svg.find(f"{SVG}script") is None


def test_chart_counts_undated_results_under_its_axis() -> None:
    points = [
        timeline.Point("A", date(2023, 1, 1), 1.0, "1.0", "a"),
        timeline.Point("B", date(2024, 1, 1), 2.0, "2.0", "b"),
    ]
    svg = ET.fromstring(timeline.over_time_chart(points, "higher", "score", "t", undated=3))
    assert len(svg.findall(f"{SVG}circle")) == 2
    note = svg.find(f"{SVG}text[@class='undated']")
    assert note is not None and note.text == "3 results without a date: not placed"


def board_rows(client: FlaskClient, benchmark: str) -> list[dict[str, str]]:
    """The rows of the named query leaderboard for the benchmark's primary metric."""
    response = client.get(
        "/queries/leaderboard", query_string={"benchmark": V.ID + benchmark, "format": "json"}
    )
    assert response.status_code == 200
    body: Any = response.get_json()
    return [{k: v["value"] for k, v in b.items()} for b in body["results"]["bindings"]]


@pytest.mark.parametrize("benchmark", [LAION, GENAI, COMPOSET])
def test_badge_gives_the_boards_rank(seeds_site: FlaskClient, benchmark: str) -> None:
    rows = board_rows(seeds_site, benchmark)
    for method in dict.fromkeys(r["method"] for r in rows):
        mine = [r for r in rows if r["method"] == method]
        best = min(mine, key=lambda r: int(r["rank"]))
        size = sum(1 for r in rows if r["cohort"] == best["cohort"])
        response = seeds_site.get(f"/badge/{benchmark}/{method.rsplit('/', 1)[-1]}.svg")
        assert response.status_code == 200 and response.content_type.startswith("image/svg+xml")
        svg = ET.fromstring(response.get_data(as_text=True))
        rank = svg.find(f".//{SVG}text[@class='rank']")
        assert rank is not None and rank.text == f"#{best['rank']} of {size}", method
        title = svg.find(f"{SVG}title")
        assert title is not None and "/page/" + benchmark in (title.text or "")
        assert "snapshot" in (title.text or "")


def test_badge_takes_the_methods_name_whatever_its_case(seeds_site: FlaskClient) -> None:
    upper = seeds_site.get(f"/badge/{LAION}/PH2P.svg").get_data()
    assert upper == seeds_site.get(f"/badge/{LAION}/ph2p.svg").get_data()


def test_embed_rows_are_the_boards(seeds_site: FlaskClient) -> None:
    for benchmark in (LAION, GENAI):
        response = seeds_site.get("/embed/" + benchmark)
        assert response.status_code == 200
        text = response.get_data(as_text=True)
        shown = re.findall(
            r'<tr data-result="([^"]+)"><td class="num">(\d*)</td><td>[^<]*</td>'
            r'<td class="num">([^<]*)</td>', text)  # fmt: skip
        rows = board_rows(seeds_site, benchmark)
        assert shown == [(r["result"], r.get("rank", ""), r["value"]) for r in rows]
        assert 'class="site"' not in text  # no site chrome
        assert f'href="http://localhost/page/{benchmark}"' in text
        assert re.search(r'<code class="generation">[0-9a-f]{20}</code>', text)


def test_the_benchmark_page_links_its_embed_and_badge(seeds_site: FlaskClient) -> None:
    text = seeds_site.get("/page/" + LAION).get_data(as_text=True)
    (embed,) = re.findall(r'<p class="note embeds">.*?<a href="([^"]+)"', text)
    assert embed == "/embed/" + LAION and seeds_site.get(embed).status_code == 200
    assert f"<code>/badge/{LAION}/METHOD.svg</code>" in text


@pytest.mark.parametrize(
    "url",
    [f"/badge/{LAION}/no-such-method.svg", "/badge/benchmark/no/such/PH2P.svg",
     "/embed/benchmark/no/such", f"/embed/{LAION}/result", f"/embed/{LAION}?metric=nope",
     f"/badge/{LAION}/PH2P.svg?metric=nope"],
)  # fmt: skip
def test_unknown_names_are_404_in_the_error_shape(seeds_site: FlaskClient, url: str) -> None:
    response = seeds_site.get(url, headers={"Accept": "image/svg+xml"})
    assert response.status_code == 404
    body = response.get_json()
    assert body["ok"] is False and body["status"] == 404 and body["error"]
