"""Over HTTP, a benchmark, metric, paper or method that names nothing in the store is 404 in the
error shape, naming the parameter, with the nearest names the store holds in ``suggestions``;
an existing name whose answer is empty is 200 with no rows.

The names a suggestion must come from are read from the store's quads by the test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support import METHOD_QUERY, REPO, Index, benchmark_named, labels, metrics_of

from benchgraph import queries
from benchgraph import vocab as V
from benchgraph.store import open_store

LAION = "Prompt Recovery on LAION"


@pytest.fixture(scope="module")
def index(examples_store: Path) -> Index:
    with open_store(examples_store, must_exist=True) as store:  # through its server, if served
        return Index(set(store.quads()))


def refused(reply: Any, parameter: str) -> dict[str, Any]:
    """The body of a 404 for an unknown value of ``parameter``, checked for the error shape."""
    assert reply.status == 404, reply.text
    assert reply.type == "application/json"
    body = reply.json()
    assert body["ok"] is False and body["status"] == 404 and body["parameter"] == parameter
    assert f"parameter {parameter!r}" in body["error"]
    assert set(body) == {"ok", "error", "status", "parameter", "suggestions"}
    return body


CASES = [
    ("leaderboard", {"benchmark": "Prompt Recovery on LAOIN"}, "benchmark"),
    ("leaderboard", {"benchmark": LAION, "metric": "CLIP Scor"}, "metric"),
    ("results-reported-by-paper", {"paper": "CompoSET paper v2"}, "paper"),
    ("methods-introduced-by-paper", {"paper": "68fa791f1e"}, "paper"),
]


@pytest.mark.parametrize(("name", "params", "parameter"), CASES, ids=[str(c[1]) for c in CASES])
def test_an_unknown_value_is_404_suggesting_names_the_store_holds(
    server: Any, http: Any, index: Index, name: str, params: dict[str, str], parameter: str
) -> None:
    body = refused(http.fetch(http.url(f"{server.url}queries/{name}", **params)), parameter)
    real = {
        "benchmark": labels(index, V.Benchmark) | labels(index, V.Dataset),
        "metric": set(metrics_of(index, benchmark_named(index, LAION))),
        "paper": labels(index, V.Paper) | labels(index, V.Paper, V.identifier),
    }[parameter]
    assert body["suggestions"] and set(body["suggestions"]) <= real
    assert f"did you mean {body['suggestions'][0]!r}" in body["error"]


def test_a_metric_of_another_benchmark_is_404_listing_the_benchmarks_metrics(
    server: Any, http: Any, index: Index
) -> None:
    mine = metrics_of(index, benchmark_named(index, LAION))
    others = {
        label: iri
        for b in index.subjects_of_type(V.Benchmark)
        for label, iri in metrics_of(index, b).items()
        if label not in mine
    }
    label, iri = sorted(others.items())[0]
    for given in (label, iri):
        url = http.url(f"{server.url}queries/leaderboard", benchmark=LAION, metric=given)
        body = refused(http.fetch(url), "metric")
        assert f"benchmark {LAION!r} has no metric" in body["error"]
        assert all(repr(m) in body["error"].split("its metrics: ")[1] for m in mine)


def test_genai_bench_spelled_loosely_suggests_it(seeds_server: Any, http: Any) -> None:
    for given in ("genai bench", "GENAI BENCH", "GenAI-Bnech"):
        url = http.url(f"{seeds_server.url}queries/leaderboard", benchmark=given)
        assert refused(http.fetch(url), "benchmark")["suggestions"][0] == "GenAI-Bench"


def test_an_existing_name_with_an_empty_answer_is_200_with_no_rows(
    server: Any, http: Any, index: Index
) -> None:
    reporting = {
        str(p.value)
        for r in index.subjects_of_type(V.Result)
        for p in index.objects(r, V.reportedIn)
    }
    paper = sorted(index.subjects_of_type(V.Paper) - reporting)[0]
    measured = {
        str(m.value) for r in index.subjects_of_type(V.Result) for m in index.objects(r, V.metric)
    }
    metric = sorted(
        label
        for label, iri in metrics_of(index, benchmark_named(index, LAION)).items()
        if iri not in measured
    )[0]
    for name, params in [
        ("results-reported-by-paper", {"paper": paper}),
        ("methods-reported-by-paper", {"paper": paper.rsplit("/", 1)[1]}),
        ("leaderboard", {"benchmark": LAION, "metric": metric}),
    ]:
        reply = http.fetch(http.url(f"{server.url}queries/{name}", **params))
        assert reply.status == 200, reply.text
        assert reply.json()["results"]["bindings"] == []


@pytest.fixture
def method_client(make_app, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:  # type: ignore[no-untyped-def]
    """A client of an app whose catalogue holds a query taking a method."""
    root = tmp_path / "resources"
    (root / "queries").mkdir(parents=True)
    for name in ("ontology", "shapes"):
        (root / name).symlink_to(REPO / name)
    for path in (REPO / "queries").iterdir():
        (root / "queries" / path.name).symlink_to(path)
    (root / "queries" / "methods-beside.rq").write_text(METHOD_QUERY, encoding="utf-8")
    monkeypatch.setenv("BENCHGRAPH_RESOURCES", str(root))
    return make_app().test_client()


def test_an_unknown_method_is_404_and_a_known_one_200(method_client: Any, index: Index) -> None:
    names = labels(index, V.Method)
    name = "SigLIP SO400M/14"
    assert name in names
    reply = method_client.get(
        "/queries/methods-beside", query_string={"method": "SigLIP SO400M/41"}
    )
    assert reply.status_code == 404
    body = reply.get_json()
    assert body["parameter"] == "method" and body["suggestions"][0] == name
    assert set(body["suggestions"]) <= names
    lonely = next(
        m for m in sorted(index.subjects_of_type(V.Method)) if not index.objects(m, V.introducedIn)
    )
    reply = method_client.get("/queries/methods-beside", query_string={"method": lonely})
    assert reply.status_code == 200 and reply.get_json()["results"]["bindings"] == []


def test_the_names_to_suggest_from_are_read_once_per_generation(make_app) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    client = app.test_client()
    first = client.get("/queries/leaderboard", query_string={"benchmark": "laoin"})
    again = client.get("/queries/leaderboard", query_string={"benchmark": "laoin"})
    assert first.status_code == again.status_code == 404
    assert first.get_json() == again.get_json()
    backend = app.extensions["benchgraph"]
    with app.app_context():
        text = queries.internal(queries.LOOKUPS["benchmark"].suggest)
        assert backend.names(text, {}) is backend.names(text, {})
        assert "LAION" in backend.names(text, {}).names


def test_a_misspelled_query_name_is_404_suggesting_the_query_meant(server: Any, http: Any) -> None:
    reply = http.fetch(f"{server.url}queries/leaderbord")
    assert reply.status == 404, reply.text
    body = reply.json()
    assert set(body) == {"ok", "error", "status", "suggestions"}
    assert body["suggestions"][0] == "leaderboard"
    assert "there is no named query 'leaderbord'; did you mean 'leaderboard'?" in body["error"]
    nothing = http.fetch(f"{server.url}queries/zzzz").json()
    assert nothing["suggestions"] == [] and "did you mean" not in nothing["error"]
