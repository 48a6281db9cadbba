"""Benchmark and metric names given to a named query are matched without regard to case, as
method names are: another case gives the same answer, and a name of nothing is still unknown."""

from __future__ import annotations

import json
from urllib.parse import urlencode

from flask.testing import FlaskClient
from support import Index

from benchgraph import vocab as V


def answer(client: FlaskClient, name: str, **params: str) -> tuple[int, object]:
    reply = client.get(
        f"/queries/{name}?{urlencode(params)}", headers={"Accept": "application/json"}
    )
    return reply.status_code, json.loads(reply.get_data(as_text=True))


def named_benchmark(index: Index) -> tuple[str, str]:
    """A benchmark's label and the label of one of its metrics, as the store holds them."""
    for benchmark in sorted(index.subjects_of_type(V.Benchmark)):
        label = index.value(benchmark, V.label)
        metrics = sorted(index.objects(benchmark, V.hasMetric), key=str)
        if label and label.swapcase() != label and metrics:
            metric = index.value(metrics[0].value, V.label)
            if metric and metric.swapcase() != metric:
                return label, metric
    raise AssertionError("no benchmark with a cased label in the seeds")


def test_a_benchmark_named_in_another_case_gives_the_same_answer(
    seeds_site: FlaskClient, seeds_index: Index
) -> None:
    label, _ = named_benchmark(seeds_index)
    status, published = answer(seeds_site, "leaderboard", benchmark=label)
    assert status == 200
    assert answer(seeds_site, "leaderboard", benchmark=label.swapcase()) == (200, published)
    assert answer(seeds_site, "leaderboard", benchmark=label.upper()) == (200, published)


def test_a_metric_named_in_another_case_gives_the_same_answer(
    seeds_site: FlaskClient, seeds_index: Index
) -> None:
    label, metric = named_benchmark(seeds_index)
    status, published = answer(seeds_site, "leaderboard", benchmark=label, metric=metric)
    assert status == 200
    again = answer(seeds_site, "leaderboard", benchmark=label.lower(), metric=metric.swapcase())
    assert again == (200, published)


def test_a_name_of_nothing_is_still_unknown(seeds_site: FlaskClient) -> None:
    status, _ = answer(seeds_site, "leaderboard", benchmark="No Such Benchmark At All")
    assert status == 404
