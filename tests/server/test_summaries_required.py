"""The server never answers the self-reported audit from a store whose current versions lack
their audit summaries: ``/queries/audit-self-reported`` is answered 503 in the one error shape
(JSON, or the error page for a browser), with how many lack one, and is not warmed ahead; a
whole store is answered exactly what the query itself gives. On the embedded store and on an
Oxigraph server, whose repair changes no store generation."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pyoxigraph as ox
import pytest
from flask import Flask
from stores.conftest import Remote, remote
from stores.test_summaries_any_store import A, B, C, Pages
from stores.test_summaries_required import remove_summaries, unguarded
from support import run_cli

from benchgraph import graphs
from benchgraph.store import open_store
from server.app import create_app
from server.errors import shape
from server.named import Warmer

__all__ = ["remote"]  # the Oxigraph server fixture, for the remote case

JSON = {"Accept": "application/json"}
RESULTS = {"Accept": "application/sparql-results+json"}
HTML = {"Accept": "text/html"}
URL = "/queries/audit-self-reported"


@pytest.fixture(params=["embedded", "oxigraph"])
def location(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> str:
    if request.param == "embedded":
        return str(tmp_path / "store")
    found: Remote = request.getfixturevalue("remote")
    return found.use(monkeypatch)


@pytest.fixture
def apps(location: str) -> Iterator[list[Flask]]:
    """The apps a test makes over ``location``; their workers stop after it."""
    made: list[Flask] = []
    yield made
    for app in made:
        app.extensions["benchgraph"].pool.close()


def serve(location: str, apps: list[Flask]) -> Flask:
    app = create_app({"store": location, "workers": 1})
    app.config["TESTING"] = True
    apps.append(app)
    return app


def rows(body: bytes) -> list[str]:
    answer = ox.parse_query_results(body, ox.QueryResultsFormat.JSON)
    assert isinstance(answer, ox.QuerySolutions)
    return sorted(map(str, answer))


def test_the_audit_is_answered_503_until_the_summaries_are_repaired(
    location: str, apps: list[Flask], tmp_path: Path
) -> None:
    with open_store(location) as store:
        pages = Pages(store, tmp_path)
        for page in (A, B, C):
            pages.ingest(page)
        whole = unguarded(store)
    assert any("results" in row for row in whole)

    app = serve(location, apps)
    answered = app.test_client().get(URL, headers=RESULTS)
    assert answered.status_code == 200, answered.get_data(as_text=True)
    assert rows(answered.data) == whole  # the guard changes no answer
    apps.pop().extensions["benchgraph"].pool.close()

    with open_store(location) as store:
        remove_summaries(store, graphs.page(A.key))
        remove_summaries(store, graphs.page(B.key))
    app = serve(location, apps)
    client = app.test_client()
    for headers in (JSON, RESULTS):
        refused = client.get(URL, headers=headers)
        assert refused.status_code == 503, refused.get_data(as_text=True)
        body = refused.get_json()
        assert body == shape(503, body["error"], missing=2)
        assert body["error"].startswith("the store cannot answer the self-reported audit: 2 ")
        assert "`benchgraph repair` builds them" in body["error"]
        assert "Retry-After" not in refused.headers  # only a repair makes it ready
        assert location not in body["error"]  # the store's place is for the log alone
    page = client.get(URL, headers=HTML)
    assert page.status_code == 503 and page.mimetype == "text/html"
    assert "2 current page versions lack their audit summary" in page.get_data(as_text=True)
    assert client.get("/queries/audit-sources", headers=RESULTS).status_code == 200

    backend = app.extensions["benchgraph"]
    backend.pool.start()
    tag = backend.pool.generation.tag
    assert Warmer(app).warm(tag)  # the audit is not warmed from a store lacking summaries

    remote = location.startswith("http")
    if not remote:  # the embedded store is the server's to hold: served again once repaired
        apps.pop().extensions["benchgraph"].pool.close()
    repaired = run_cli("repair", "--store", location)
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    if remote:
        backend.pool.start()
        assert backend.pool.generation.tag == tag  # the repair changed no generation
    else:
        client = serve(location, apps).test_client()
    again = client.get(URL, headers=RESULTS)
    assert again.status_code == 200, again.get_data(as_text=True)
    assert rows(again.data) == whole
