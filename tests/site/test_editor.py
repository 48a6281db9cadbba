"""The SPARQL editor's side of the server, through the Flask test client: its files served
from the folder the setting names, the prefixes it completes, the query page without it (as a
wheel installs the app), a refused query said above the form that keeps it, and a graph asked
for as a page shown as Turtle rather than refused with 406."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import pytest
from flask.testing import FlaskClient
from rdflib import Graph
from rdflib.compare import isomorphic
from support import copy_store
from support.html import parse

from benchgraph import queries
from benchgraph.prefixes import PREDECLARED
from benchgraph.settings import SettingError
from server import editor
from server.app import create_app

HTML = {"Accept": "text/html"}
installed = pytest.mark.skipif(
    not (editor.CHECKOUT_BUILD / editor.SCRIPT).is_file(),
    reason="the SPARQL editor is not installed (make install installs it)",
)
GRAPHS = [
    "CONSTRUCT { ?m rdfs:label ?l } WHERE { ?m a bg:Method ; rdfs:label ?l } ORDER BY ?l LIMIT 9",
    "DESCRIBE ?m WHERE { ?m a bg:Method } ORDER BY ?m LIMIT 2",
]


@pytest.fixture
def bare(
    seeds_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[FlaskClient]:
    """A client of an app with no editor installed, as a wheel installs it."""
    monkeypatch.setattr(editor, "CHECKOUT_BUILD", tmp_path / "no-build")
    app = create_app({"store": str(copy_store(seeds_store, tmp_path / "store")), "workers": 1})
    app.config["TESTING"] = True
    yield app.test_client()
    app.extensions["benchgraph"].pool.close()


@pytest.mark.parametrize("text", GRAPHS, ids=["construct", "describe"])
def test_a_graph_asked_for_as_a_page_is_shown_as_turtle(seeds_site: FlaskClient, text: str) -> None:
    # Once 406: the page format had no graph format beside it.
    reply = seeds_site.get("/sparql?" + urlencode({"query": text, "format": "html"}))
    assert reply.status_code == 200 and reply.mimetype == "text/html"
    shown = parse(reply.get_data(as_text=True)).find("pre", "graph")
    assert shown is not None
    turtle = seeds_site.get("/sparql?" + urlencode({"query": text, "format": "turtle"}))
    expected = Graph().parse(data=turtle.get_data(as_text=True), format="turtle")
    assert len(expected) > 0
    assert isomorphic(Graph().parse(data=shown.text, format="turtle"), expected)


@installed
def test_the_editors_files_are_served_for_a_year(seeds_site: FlaskClient) -> None:
    page = seeds_site.get("/query", headers=HTML).get_data(as_text=True)
    assert "make install" not in page
    urls = [e.attrs.get("src") for e in parse(page).iter("script") if e.attrs.get("src")]
    assert len(urls) == 1 and urls[0].startswith("/editor/assets/yasgui.min.js?v=")
    for url in (urls[0], "/editor/assets/yasgui.min.css"):
        with seeds_site.get(url) as reply:
            assert reply.status_code == 200
            assert reply.headers["Cache-Control"] == "public, max-age=31536000"
            name = url.split("?")[0].rsplit("/", 1)[1]
            assert reply.data == (editor.CHECKOUT_BUILD / name).read_bytes()
    with seeds_site.get("/editor/assets/yasgui.min.js") as reply:
        assert reply.mimetype == "text/javascript"
    for missing in ("/editor/assets/nothing.js", "/editor/assets/../package.json"):
        reply = seeds_site.get(missing)
        assert reply.status_code == 404 and reply.json["ok"] is False


def test_the_prefixes_the_editor_completes_are_the_predeclared_ones(
    seeds_site: FlaskClient,
) -> None:
    reply = seeds_site.get("/editor/prefixes.json")
    assert reply.status_code == 200 and reply.json == PREDECLARED


def test_without_the_editor_the_query_page_is_its_form_and_says_so(bare: FlaskClient) -> None:
    page = bare.get("/query", headers=HTML).get_data(as_text=True)
    root = parse(page)
    note = root.find("p", "editor-missing")
    assert note is not None and "make install" in note.text
    assert root.find("script") is None and root.find("textarea") is not None
    answer = bare.get("/query?query=ASK%20%7B%7D", headers=HTML)
    assert answer.status_code == 200 and "<td>true</td>" in answer.get_data(as_text=True)
    reply = bare.get("/editor/assets/yasgui.min.js")
    assert reply.status_code == 404 and "make install" in reply.json["error"]


def test_an_editor_folder_without_the_build_is_refused(seeds_store: Path, tmp_path: Path) -> None:
    store = copy_store(seeds_store, tmp_path / "store")
    with pytest.raises(SettingError, match=r"editor_assets.*yasgui\.min\.js"):
        create_app({"store": str(store), "editor_assets": str(tmp_path)})


def test_a_refused_query_is_said_above_the_form_that_keeps_it(seeds_site: FlaskClient) -> None:
    text = "SELECT ?x WHERE { ?x ?p ?o "
    reply = seeds_site.get("/query?" + urlencode({"query": text}), headers=HTML)
    assert reply.status_code == 400 and reply.mimetype == "text/html"
    root = parse(reply.get_data(as_text=True))
    said = root.find("div", "error")
    expected = seeds_site.get("/sparql?" + urlencode({"query": text}))
    assert said is not None and said.text.count(expected.json["error"]) == 1
    textarea = root.find("textarea")
    assert textarea is not None and textarea.text == text


@installed
def test_the_editor_is_given_the_named_queries_as_examples(seeds_site: FlaskClient) -> None:
    root = parse(seeds_site.get("/query", headers=HTML).get_data(as_text=True))
    settings = next(e for e in root.iter("script") if e.attrs.get("id") == "editor-settings")
    examples = json.loads(settings.text)["examples"]
    assert examples == {name: q.text for name, q in queries.catalogue().items()}
    linked = [a.attrs["data-example"] for a in root.iter("a") if "data-example" in a.attrs]
    assert linked == list(examples)


def test_the_openapi_document_describes_the_editors_routes(seeds_site: FlaskClient) -> None:
    paths = seeds_site.get("/openapi.json").json["paths"]
    assert paths["/editor/assets/{name}"]["get"]["responses"].keys() == {"200", "404"}
    assert "200" in paths["/editor/prefixes.json"]["get"]["responses"]
