"""The SPARQL editor (YASGUI, served by the app) in a real browser (headless Chromium through
Selenium and Debian's chromedriver) over a live server of the seed pages: it loads from this
server only, runs a query into a table of the store's rows, says a refused query's error with
the query kept, opens the named queries, shows a graph as RDF and keeps the query in the URL."""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rdflib import Graph
from rdflib.compare import isomorphic
from support.browser import MISSING, chrome, installed, screenshot
from support.live import fetch, query_url

from benchgraph import queries
from server import editor

pytestmark = [
    pytest.mark.skipif(not installed(), reason=MISSING),
    pytest.mark.skipif(
        not (editor.CHECKOUT_BUILD / editor.SCRIPT).is_file(),
        reason="the SPARQL editor is not installed (make install installs it)",
    ),
]

LABELS = (
    "SELECT ?label WHERE { ?method a bg:Method ; rdfs:label ?label }\nORDER BY ?label\nLIMIT 12"
)
GRAPH = (
    "CONSTRUCT { ?method rdfs:label ?label } WHERE { ?method a bg:Method ; rdfs:label ?label }"
    " ORDER BY ?label LIMIT 5"  # the response view shows 30 lines before "show all"
)
BROKEN = "SELECT ?label WHERE { ?method rdfs:label ?label "
# The active tab: its editor, its results, the rows of its table as shown (each row's cells
# after the first, which numbers the row) and the text a CodeMirror holds.
TAB = "#editor .tabPanel.active"
EDITOR = f"{TAB} .CodeMirror"
TABLE_ROWS = f"{TAB} .yasr table.dataTable tbody tr"
ROWS = """
return [...document.querySelectorAll(arguments[0])].map(
  tr => [...tr.querySelectorAll('td')].slice(1).map(td => td.innerText.trim()));
"""
TEXT = "return document.querySelector(arguments[0]).CodeMirror.getValue();"


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    yield from chrome(tmp_path_factory)


def _open(driver: Any, url: str) -> None:
    """Load ``url`` and wait until the editor is mounted."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(url)
    WebDriverWait(driver, 30).until(EC.visibility_of_element_located((By.CSS_SELECTOR, EDITOR)))


def _run(driver: Any, text: str) -> None:
    """Put ``text`` in the editor and run it."""
    from selenium.webdriver.common.by import By

    driver.execute_script(
        "document.querySelector(arguments[0]).CodeMirror.setValue(arguments[1]);", EDITOR, text
    )
    driver.find_element(By.CSS_SELECTOR, f"{TAB} .yasqe_queryButton").click()


def _wait(driver: Any, css: str) -> Any:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, 30).until(EC.visibility_of_element_located((By.CSS_SELECTOR, css)))


def _labels(server: Any, text: str = LABELS) -> list[list[str]]:
    """The store's answer to ``text`` (a query of labels), read over the SPARQL protocol."""
    reply = fetch(query_url(server.sparql, query=text), Accept="application/sparql-results+json")
    assert reply.status == 200
    return [[b["label"]["value"]] for b in reply.json()["results"]["bindings"]]


def test_the_editor_loads_everything_from_this_server(driver: Any, seeds_server: Any) -> None:
    _open(driver, seeds_server.url + "query")
    assert not driver.find_element("css selector", "#plain").is_displayed()
    # Prefix completion reads this server's list, on demand: ask for it.
    driver.execute_script(
        "const cm = document.querySelector(arguments[0]).CodeMirror;"
        "cm.setValue('PREFIX b'); cm.setCursor({line: 0, ch: 8}); cm.autocomplete();",
        EDITOR,
    )
    hints = _wait(driver, ".CodeMirror-hints")
    assert "bg: <https://w3id.org/benchgraph/ns#>" in hints.text
    names = driver.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name);"
    )
    assert any(n.startswith(seeds_server.url + "editor/assets/") for n in names)
    assert seeds_server.url + "editor/prefixes.json" in names
    assert [n for n in names if not n.startswith(seeds_server.url)] == []


def test_a_select_shows_the_stores_rows_and_goes_into_the_url(
    driver: Any, seeds_server: Any
) -> None:
    _open(driver, seeds_server.url + "query")
    _run(driver, LABELS)
    _wait(driver, TABLE_ROWS)
    assert driver.execute_script(ROWS, TABLE_ROWS) == _labels(seeds_server)
    shared = urllib.parse.urlsplit(driver.current_url)
    assert shared.path == "/query"
    assert urllib.parse.parse_qs(shared.query) == {"query": [LABELS]}


def test_the_predeclared_prefixes_are_known_to_the_editors_check(
    driver: Any, seeds_server: Any
) -> None:
    _open(driver, seeds_server.url + "query")
    # The error marks the editor's check puts in the gutter, after it holds a text.
    marks = "document.querySelector(arguments[0]).CodeMirror.setValue(arguments[1]);"
    marks += "return document.querySelectorAll(arguments[2]).length;"
    icons = f"{TAB} .parseErrorIcon"
    assert driver.execute_script(marks, EDITOR, LABELS, icons) == 0  # bg:, rdfs: undeclared
    assert driver.execute_script(marks, EDITOR, LABELS.replace("bg:", "nope:"), icons) == 1


def test_a_refused_query_is_said_inline_and_kept(driver: Any, seeds_server: Any) -> None:
    _open(driver, seeds_server.url + "query")
    _run(driver, BROKEN)
    said = _wait(driver, f"{TAB} .yasr .errorResult")
    reply = fetch(query_url(seeds_server.sparql, query=BROKEN), Accept="application/json")
    assert reply.status == 400
    assert reply.json()["error"] in said.text
    assert driver.execute_script(TEXT, EDITOR) == BROKEN


def test_an_example_opens_a_named_querys_text(driver: Any, seeds_server: Any) -> None:
    catalogue = queries.catalogue()
    name = next(n for n, q in catalogue.items() if any(p.required for p in q.params))
    _open(driver, seeds_server.url + "query")
    driver.find_element("css selector", f"a[data-example='{name}']").click()
    _wait(driver, EDITOR)
    assert driver.execute_script(TEXT, EDITOR) == catalogue[name].text
    tab = driver.find_element("css selector", "#editor .tabsList > .active")
    assert tab.text.splitlines()[0] == name  # then its close button


def test_a_construct_is_shown_as_rdf(driver: Any, seeds_server: Any) -> None:
    _open(driver, seeds_server.url + "query")
    _run(driver, GRAPH)
    _wait(driver, f"{TAB} .yasr .CodeMirror")
    shown = driver.execute_script(TEXT, f"{TAB} .yasr .CodeMirror")
    reply = fetch(query_url(seeds_server.sparql, query=GRAPH), Accept="text/turtle")
    expected = Graph().parse(data=reply.text, format="turtle")
    assert len(expected) > 0
    assert isomorphic(Graph().parse(data=shown, format="turtle"), expected)


def test_a_query_in_the_url_opens_in_the_editor_and_runs(
    driver: Any, seeds_server: Any, tmp_path: Path
) -> None:
    linked = LABELS.replace("LIMIT 12", "LIMIT 7")  # not the query any tab holds yet
    _open(driver, query_url(seeds_server.url + "query", query=linked))
    assert driver.execute_script(TEXT, EDITOR) == linked
    _wait(driver, TABLE_ROWS)
    assert driver.execute_script(ROWS, TABLE_ROWS) == _labels(seeds_server, linked)
    screenshot(driver, tmp_path / "editor.png")  # docs/screenshots/editor.png is one
