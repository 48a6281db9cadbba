"""A named query whose parameters are IRIs is looked up and answered in one trip to a query
worker (server.lookahead): the lookups run first in the worker, the query only when each found
something, and the answer is the one the two trips gave.

The papers asked for are read from the store by the test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pyoxigraph as ox
import pytest

from benchgraph import queries
from benchgraph import vocab as V
from benchgraph.answering import answer
from benchgraph.store.embedded import EmbeddedStore
from server import results
from server.engine import Answered, Failure, Job, execute

CHECK = queries.internal("is-a")  # the lookup of a paper given by its IRI
JSON = {"Accept": "application/sparql-results+json"}


def introduced_in(store: EmbeddedStore) -> list[str]:
    """The papers the store says introduced a method, in order."""
    text = f"SELECT DISTINCT ?p WHERE {{ ?m <{V.BG}introducedIn> ?p }} ORDER BY ?p"
    found = store.query(text)
    assert isinstance(found, ox.QuerySolutions)
    return [row[0].value for row in found]


@pytest.fixture
def read(scratch_store: Path) -> Iterator[EmbeddedStore]:
    with EmbeddedStore(scratch_store, read_only=True) as opened:
        yield opened


def is_paper(iri: str) -> tuple[str, dict[str, ox.NamedNode]]:
    return CHECK, {"name": ox.NamedNode(iri), "type": ox.NamedNode(V.Paper)}


def test_a_check_that_finds_nothing_stops_the_job_before_its_query(read: EmbeddedStore) -> None:
    nowhere = "https://example.org/no-such-paper"
    # Run, this query would be a syntax error: the job must end before it.
    job = Job("SELECT ?x WHERE {", "json", None, 100, checks=(is_paper(nowhere),))
    found = execute(read, job)
    assert isinstance(found, Failure) and found.reason == "missing"
    assert found.checked == ((),)


def test_checks_that_find_their_iris_give_the_answer_without_checks(read: EmbeddedStore) -> None:
    paper = introduced_in(read)[0]
    text = queries.find("methods-introduced-by-paper").text
    bindings = {"paper": ox.NamedNode(paper)}
    alone = execute(read, Job(text, "json", None, 100, bindings))
    checked = execute(read, Job(text, "json", None, 100, bindings, checks=(is_paper(paper),)))
    assert isinstance(alone, Answered) and isinstance(checked, Answered)
    assert checked.body == alone.body and checked.rows == alone.rows > 0
    assert checked.checked == ((paper,),)


def test_a_paper_given_by_iri_is_answered_in_one_trip(
    counted: tuple[Any, list[Job]], scratch_store: Path
) -> None:
    app, sent = counted
    with EmbeddedStore(scratch_store, read_only=True) as store:
        paper = introduced_in(store)[-1]
    reply = app.test_client().get(
        f"/queries/methods-introduced-by-paper?paper={quote(paper, safe='')}", headers=JSON
    )
    assert reply.status_code == 200, reply.text
    assert len(sent) == 1 and len(sent[0].checks) == 1
    app.extensions["benchgraph"].pool.close()  # it holds the store the expected answer reads
    with EmbeddedStore(scratch_store, read_only=True) as store:
        expected = answer(store, queries.find("methods-introduced-by-paper"), {"paper": paper})
        assert isinstance(expected, ox.QuerySolutions)
        names = [v.value for v in expected.variables]
        assert reply.data == results.write("json", names, [tuple(row) for row in expected])


def test_a_paper_looked_up_once_is_not_looked_up_again(
    counted: tuple[Any, list[Job]], scratch_store: Path
) -> None:
    app, sent = counted
    with EmbeddedStore(scratch_store, read_only=True) as store:
        paper = introduced_in(store)[0]
    client = app.test_client()
    for name in ("methods-introduced-by-paper", "methods-reported-by-paper"):
        reply = client.get(f"/queries/{name}?paper={quote(paper, safe='')}", headers=JSON)
        assert reply.status_code == 200, reply.text
    assert [len(job.checks) for job in sent] == [1, 0]


def test_an_unknown_paper_is_404_and_its_query_is_not_run(
    counted: tuple[Any, list[Job]],
) -> None:
    app, sent = counted
    nowhere = quote("https://w3id.org/benchgraph/id/paper/000000000000000000000000", safe="")
    reply = app.test_client().get(
        f"/queries/methods-introduced-by-paper?paper={nowhere}", headers=JSON
    )
    assert reply.status_code == 404, reply.text
    assert reply.json["parameter"] == "paper"
    assert len(sent[0].checks) == 1
    assert all(job.query != sent[0].query for job in sent[1:])  # the suggestions' lookups only
