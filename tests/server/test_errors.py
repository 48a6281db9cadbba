"""One error shape on every route: JSON clients get {"ok": false, "error", "status"}, browsers
an HTML page; the HTTP status and the body's status agree."""

from __future__ import annotations

from typing import Any

import pytest

BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

# (route family, method, path, body, content type, expected status)
CASES = [
    ("sparql malformed", "GET", "sparql?query=SELEC", None, None, 400),
    ("sparql update", "GET", "sparql?update=DROP%20ALL", None, None, 400),
    ("sparql no query", "POST", "sparql", b"", "application/x-www-form-urlencoded", 400),
    ("sparql body type", "POST", "sparql", b"ASK {}", "text/plain", 415),
    ("sparql not acceptable", "GET", "sparql?query=ASK%20%7B%7D&format=png", None, None, 406),
    ("sparql method", "PUT", "sparql", b"", "text/plain", 405),
    ("sparql unknown graph", "GET", "sparql?query=ASK%7B%7D&default-graph-uri=urn:x", None, None,
     400),
    ("queries unknown", "GET", "queries/nope", None, None, 404),
    ("queries parameter", "GET", "queries/methods-introduced-by-paper", None, None, 400),
    ("queries unknown name", "GET", "queries/leaderboard?benchmark=LAOIN", None, None, 404),
    ("queries method", "POST", "queries/leaderboard", b"", "text/plain", 405),
    ("queries format", "GET", "queries?format=csv", None, None, 406),
    ("feed unknown benchmark", "GET", "changes.atom?benchmark=LAOIN", None, None, 404),
    ("feed moment", "GET", "changes.atom?since=June", None, None, 400),
    ("openapi method", "DELETE", "openapi.json", None, None, 405),
    ("badge unknown benchmark", "GET", "badge/benchmark/nope/PH2P.svg", None, None, 404),
    ("embed unknown benchmark", "GET", "embed/benchmark/nope", None, None, 404),
    ("index format", "GET", "?format=turtle", None, None, 406),
    ("dump history value", "GET", "dump.trig?history=yes", None, None, 400),
    ("dump history of one graph", "GET", "dump.ttl?history=true", None, None, 400),
    ("unknown route", "GET", "no/such/thing", None, None, 404),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_json_error_shape(server: Any, http: Any, case: tuple) -> None:
    _, method, path, body, content_type, status = case
    headers = {"Content_Type": content_type} if content_type else {}
    reply = http.fetch(server.url + path, body, method=method, **headers)
    assert reply.status == status, reply.text
    assert reply.type == "application/json"
    document = reply.json()
    assert document["ok"] is False and document["status"] == status
    assert isinstance(document["error"], str) and document["error"]
    extra = {"parameter", "graph", "line", "column", "excerpt", "suggestions"}
    assert set(document) - {"ok", "error", "status"} <= extra
    if status == 405:
        assert reply.headers["allow"]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_browsers_get_an_html_error_page(server: Any, http: Any, case: tuple) -> None:
    _, method, path, body, content_type, status = case
    headers = {"Content_Type": content_type} if content_type else {}
    reply = http.fetch(server.url + path, body, method=method, Accept=BROWSER, **headers)
    assert reply.status == status
    if status != 406 or "format=" in path:
        assert reply.type == "text/html" and f"<strong>{status}</strong>" in reply.text


def test_time_out_and_too_large_use_the_shape_too(server: Any, http: Any) -> None:
    runaway = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
    slow = http.fetch(http.url(server.sparql, query=runaway))
    large = http.fetch(
        server.sparql, b"ASK {} #" + b"x" * 2_000_000, Content_Type="application/sparql-query"
    )
    for reply, status in ((slow, 504), (large, 413)):
        assert reply.status == status and reply.json() == {
            "ok": False,
            "error": reply.json()["error"],
            "status": status,
        }
