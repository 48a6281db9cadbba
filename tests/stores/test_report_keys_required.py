"""A store whose current validation reports lack their keys (written before benchgraph kept
them, or damaged) is never answered `audit-findings` as if it held no finding: the command line
refuses it, exit 2, naming the store, how many reports lack one and `benchgraph repair`, and the
server answers 503 in the one error shape; other queries answer as ever. A whole store answers
exactly what the query itself gives. On the embedded store and on each remote server."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest
from flask import Flask
from stores.test_summaries_any_store import A, B, C, Pages
from support import run_cli

from benchgraph import answering, graphs, kept, queries, report_keys
from benchgraph import vocab as V
from benchgraph.store import Store, open_store
from server.app import create_app
from server.errors import shape

URL = "/queries/audit-findings"


def remove_keys(store: Store, graph: str | None = None) -> None:
    """Delete the key of the report of the page graph ``graph`` (None: of every report) with a
    SPARQL update, as damage, or a store written before them, has it."""
    which = f"<{graphs.report(graph)}>" if graph else "?graph"
    store.update(
        "removing report keys",
        f"PREFIX bg: <{V.BG}>\n"
        f"DELETE {{ GRAPH {which} {{ ?report bg:reportKey ?key }} }}\n"
        f"WHERE {{ GRAPH {which} {{ ?report bg:reportKey ?key }} }}",
    )


def unguarded(store: Store) -> list[str]:
    """The rows of audit-findings as its text alone gives them (no guard), sorted."""
    named = queries.find("audit-findings")
    answer = answering.run(store, answering.ask(named, {}, answering.StoreFinder(store)))
    assert isinstance(answer, ox.QuerySolutions)
    return sorted(map(str, answer))


def guarded(store: Store) -> list[str]:
    """The rows of audit-findings as the command line answers them, sorted."""
    answer = answering.answer(store, queries.find("audit-findings"), {})
    assert isinstance(answer, ox.QuerySolutions)
    return sorted(map(str, answer))


def test_the_findings_are_refused_until_the_keys_are_repaired(
    location: str, tmp_path: Path
) -> None:
    with open_store(location) as store:
        pages = Pages(store, tmp_path)
        for page in (A, B, C):
            pages.ingest(page)
        assert report_keys.KEPT.missing(store) == 0
        whole = unguarded(store)
        assert whole and guarded(store) == whole  # the guard changes no answer
        remove_keys(store, graphs.page(A.key))
        assert report_keys.KEPT.missing(store) == 1
        assert unguarded(store) != whole  # what the query alone answers now: too little
        with pytest.raises(kept.MissingRecords, match="validation findings") as refused:
            guarded(store)
        assert refused.value.missing == 1
    said = run_cli("query", "audit-findings", "--store", location)
    assert said.returncode == 2 and said.stdout == "", said.stdout
    line = said.stderr.strip()
    assert line.startswith(f"benchgraph: error: the store at {location} cannot list the")
    assert "1 current validation report lacks its key" in line, line
    assert f"`benchgraph repair --store {location}` writes them" in line, line
    assert "\n" not in line and "Traceback" not in said.stderr
    other = run_cli("query", "audit-sources", "--format", "csv", "--store", location)
    assert other.returncode == 0, other.stderr  # a query that reads no key answers as ever

    with open_store(location) as store:
        remove_keys(store)  # every report's, as a store written before them
        assert report_keys.KEPT.missing(store) == 3
    repaired = run_cli("repair", "--store", location)
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    with open_store(location) as store:
        assert report_keys.KEPT.missing(store) == 0
        assert guarded(store) == whole


def test_the_server_answers_503_while_a_report_lacks_its_key(tmp_path: Path) -> None:
    location = str(tmp_path / "store")
    with open_store(location) as store:
        pages = Pages(store, tmp_path)
        for page in (A, B):
            pages.ingest(page)
        remove_keys(store, graphs.page(B.key))
    app: Flask = create_app({"store": location, "workers": 1})
    app.config["TESTING"] = True
    try:
        refused = app.test_client().get(URL, headers={"Accept": "application/json"})
        assert refused.status_code == 503, refused.get_data(as_text=True)
        body = refused.get_json()
        assert body == shape(503, body["error"], missing=1)
        assert body["error"].startswith("the store cannot list the validation findings: 1 ")
        assert location not in body["error"]
    finally:
        app.extensions["benchgraph"].pool.close()


def test_every_named_query_that_reads_the_keys_is_guarded() -> None:
    reading = {n.name for n in queries.catalogue().values() if "bg:reportKey" in n.text}
    assert reading == set(report_keys.READERS)
