"""The compare page leads with its verdict; the pairs of results behind it open on demand."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from urllib.parse import urlencode

from flask.testing import FlaskClient
from support.html import parse

GOLDEN = Path(__file__).parents[1] / "data" / "golden" / "queries" / "compare.json"


def test_the_compare_page_leads_with_the_verdict_and_keeps_the_pairs_in_details(
    seeds_site: FlaskClient,
) -> None:
    params = json.loads(GOLDEN.read_text(encoding="utf-8"))["params"]
    url = f"/queries/compare?{urlencode(params)}"
    answer = seeds_site.get(url, headers={"Accept": "application/sparql-results+json"}).get_json()
    verdicts = Counter(
        b.get("verdict", {}).get("value", "not comparable") for b in answer["results"]["bindings"]
    )
    reply = seeds_site.get(url, headers={"Accept": "text/html"})
    assert reply.status_code == 200
    root = parse(reply.get_data(as_text=True))
    listed = root.find("ul", "verdicts")
    assert listed is not None
    shown = [li.text for li in listed.iter("li")]
    assert len(shown) == len(verdicts)
    for verdict, count in verdicts.items():
        said = (
            "no difference at the published intervals"
            if verdict == "intervals overlap"
            else verdict
        )
        assert any(s.startswith(f"{said}: {count} pair") for s in shown), (verdict, shown)
    details = root.find("details")
    assert details is not None and details.find("table") is not None


def test_the_compare_page_links_back_to_its_benchmark(seeds_site: FlaskClient) -> None:
    """The way back went to a search for the benchmark's IRI, not to its page."""
    params = json.loads(GOLDEN.read_text(encoding="utf-8"))["params"]
    reply = seeds_site.get(f"/queries/compare?{urlencode(params)}", headers={"Accept": "text/html"})
    back = [a for a in parse(reply.get_data(as_text=True)).iter("a") if "Back to" in a.text]
    assert len(back) == 1
    target = back[0].attrs["href"]
    assert target.startswith("/page/benchmark/")
    assert seeds_site.get(target).status_code == 200
