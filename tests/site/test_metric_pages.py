"""A metric's page: its unit and direction, every result on it, and the way back to the
benchmark that declares it (it was a bare table of statements, with no results)."""

from __future__ import annotations

import re

from flask.testing import FlaskClient
from support import Index

from benchgraph import vocab as V


def _page(iri: str) -> str:
    return "/page/" + iri[len(V.ID) :]


def test_a_metric_page_lists_every_result_on_it_and_links_back_to_its_benchmark(
    seeds_site: FlaskClient, seeds_index: Index
) -> None:
    results = seeds_index.subjects_of_type(V.Result)
    checked = 0
    for benchmark in sorted(seeds_index.subjects_of_type(V.Benchmark)):
        for metric in sorted(str(m.value) for m in seeds_index.objects(benchmark, V.hasMetric)):
            reply = seeds_site.get(_page(metric))
            assert reply.status_code == 200, metric
            text = reply.get_data(as_text=True)
            assert f'href="{_page(benchmark)}"' in text.split("<h2>Results</h2>")[0], metric
            on_it = {r for r in results if seeds_index.value(r, V.metric) == metric}
            shown = set(re.findall(r'href="/page/(result/[^"]+)"', text))
            assert shown == {r[len(V.ID) :] for r in on_it}, metric
            direction = seeds_index.value(metric, V.direction)
            said = {V.HigherIsBetter: "higher is better", V.LowerIsBetter: "lower is better"}
            assert said.get(direction or "", "not stated") in text, metric
            checked += bool(on_it)
    assert checked >= 5  # metrics with results on every seed benchmark


def test_an_unknown_metric_is_said_to_be_unknown(seeds_site: FlaskClient) -> None:
    reply = seeds_site.get("/page/benchmark/composet/composet/metric/no-such-metric")
    assert reply.status_code == 404
    assert "there is no resource" in reply.get_data(as_text=True)
