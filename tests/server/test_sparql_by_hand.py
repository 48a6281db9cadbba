"""SPARQL written by hand at ``/sparql`` of a live server: the predeclared prefixes in every
form of the protocol (an explicit PREFIX winning, the guard reading the same text as the
engine), a parse error at the line and column of the text sent with the line quoted, and the
editor showing the prefixes."""

from __future__ import annotations

import urllib.parse
from typing import Any

import pytest
from support.html import parse

from benchgraph.prefixes import PREDECLARED

COUNT = "SELECT (COUNT(?m) AS ?n) WHERE { ?m a bg:Method }"
JSON = "application/sparql-results+json"
MISSING = """SELECT ?label
WHERE {
  ?method a bg:Method ;
          rdfs:label ?label .
  FILTER (STRLEN(?label) > 3

}
"""


def count(reply: Any) -> int:
    assert reply.status == 200, reply.text
    (row,) = reply.json()["results"]["bindings"]
    return int(row["n"]["value"])


@pytest.mark.parametrize("how", ["get", "form", "body"])
def test_the_manuals_example_runs_verbatim_in_every_form(server: Any, http: Any, how: str) -> None:
    if how == "get":
        reply = http.fetch(http.url(server.sparql, query=COUNT), Accept=JSON)
    elif how == "form":
        body = urllib.parse.urlencode({"query": COUNT}).encode()
        form = "application/x-www-form-urlencoded"
        reply = http.fetch(server.sparql, body, Accept=JSON, Content_Type=form)
    else:
        body = COUNT.encode()
        reply = http.fetch(
            server.sparql, body, Accept=JSON, Content_Type="application/sparql-query"
        )
    assert count(reply) > 0


def test_a_prefix_the_query_declares_wins(server: Any, http: Any) -> None:
    own = "PREFIX bg: <urn:benchgraph:test:nothing#>\n" + COUNT
    assert count(http.fetch(http.url(server.sparql, query=own), Accept=JSON)) == 0


def test_the_guard_reads_the_predeclared_prefixes(server: Any, http: Any) -> None:
    reply = http.fetch(
        http.url(server.sparql, query="SELECT * FROM id:nowhere WHERE { ?s ?p ?o }"), Accept=JSON
    )
    assert reply.status == 400
    assert reply.json()["graph"] == PREDECLARED["id"] + "nowhere"
    service = http.fetch(http.url(server.sparql, query="ASK { SERVICE bg:x { ?s ?p ?o } }"))
    assert service.status == 400 and "SERVICE" in service.json()["error"]


def test_a_parse_error_is_said_in_the_lines_sent(server: Any, http: Any) -> None:
    reply = http.fetch(http.url(server.sparql, query=MISSING), Accept="application/json")
    document = reply.json()
    line = "  FILTER (STRLEN(?label) > 3"
    assert reply.status == 400
    assert document == {
        "ok": False,
        "error": f"malformed query at line 5, column {len(line) + 1}: expected ')'",
        "status": 400,
        "line": 5,
        "column": len(line) + 1,
        "excerpt": f"5 | {line}\n  | {' ' * len(line)}^",
    }


def test_a_browser_sees_the_quoted_line(server: Any, http: Any) -> None:
    reply = http.fetch(http.url(server.sparql, query=MISSING), Accept="text/html")
    assert reply.status == 400
    pre = parse(reply.text).find("pre", "excerpt")
    assert pre is not None and pre.text.startswith("5 |   FILTER (STRLEN(?label) > 3\n")


def test_the_editor_shows_the_predeclared_prefixes(server: Any, http: Any) -> None:
    for url in (server.sparql, server.url + "query"):
        page = parse(http.fetch(url, Accept="text/html").text)
        shown, editor = page.find("pre", "predeclared"), page.find("textarea")
        assert shown is not None and editor is not None, url
        lines = shown.text.splitlines()
        assert lines == [f"PREFIX {p}: <{iri}>" for p, iri in PREDECLARED.items()], url
        example = editor.text
        assert "PREFIX" not in example and "bg:Method" in example
        assert http.fetch(http.url(server.sparql, query=example), Accept=JSON).status == 200
