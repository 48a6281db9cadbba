"""The things of each looked-up type, kept per store generation (server.kinds), check an IRI
given for a parameter as the is-a query does, and are used only for the generation they were
read in. The IRIs checked are read from the store by the test."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pyoxigraph as ox
import pytest

from benchgraph import queries
from benchgraph import vocab as V
from benchgraph.sparqltext import Term
from benchgraph.store.embedded import EmbeddedStore
from server.engine import Job
from server.kinds import CHECK, TYPES, Kinds

IS_A = queries.internal(CHECK)


@pytest.fixture
def read(scratch_store: Path) -> Iterator[EmbeddedStore]:
    with EmbeddedStore(scratch_store, read_only=True) as opened:
        yield opened


def column(store: EmbeddedStore, text: str, bindings: Mapping[str, Term]) -> list[str]:
    found = store.query(text, bindings)
    assert isinstance(found, ox.QuerySolutions)
    return [row[0].value for row in found]


def subjects(store: EmbeddedStore, kind: str) -> list[str]:
    return column(store, f"SELECT DISTINCT ?s WHERE {{ ?s a <{kind}> }} ORDER BY ?s LIMIT 3", {})


def test_a_check_answers_as_the_is_a_query_does(read: EmbeddedStore) -> None:
    kinds = Kinds()
    assert kinds.read("g1", lambda text, b: column(read, text, b)) > 0
    asked = [iri for kind in TYPES for iri in subjects(read, kind)]
    asked.append("https://w3id.org/benchgraph/id/paper/000000000000000000000000")
    checked = 0
    for kind in TYPES:
        for iri in asked:
            bindings = {"name": ox.NamedNode(iri), "type": ox.NamedNode(kind)}
            found = kinds.check("g1", IS_A, bindings)
            assert found == column(read, IS_A, bindings), (kind, iri)
            checked += bool(found)
    assert 0 < checked < len(TYPES) * len(asked)  # some found, some not


def test_a_check_is_a_query_for_another_generation_a_literal_or_another_lookup(
    read: EmbeddedStore,
) -> None:
    kinds = Kinds()
    kinds.read("g1", lambda text, b: column(read, text, b))
    paper = subjects(read, V.Paper)[0]
    typed = {"name": ox.NamedNode(paper), "type": ox.NamedNode(V.Paper)}
    assert kinds.check("g1", IS_A, typed) == [paper]
    assert kinds.check("g2", IS_A, typed) is None
    assert kinds.check("g1", IS_A, {**typed, "name": ox.Literal(paper)}) is None
    assert kinds.check("g1", queries.internal("metric-iri"), typed) is None


def test_a_type_whose_things_were_cut_is_not_kept(read: EmbeddedStore) -> None:
    kinds = Kinds()
    kinds.read("g1", lambda text, b: None)
    paper = subjects(read, V.Paper)[0]
    typed = {"name": ox.NamedNode(paper), "type": ox.NamedNode(V.Paper)}
    assert kinds.check("g1", IS_A, typed) is None


def test_a_paper_is_checked_without_a_query_once_the_things_are_read(
    counted: tuple[Any, list[Job]], scratch_store: Path
) -> None:
    app, sent = counted
    with EmbeddedStore(scratch_store, read_only=True) as store:
        papers = subjects(store, V.Paper)
    backend = app.extensions["benchgraph"]
    backend.pool.start()
    assert backend.read_kinds(backend.pool.generation.tag)
    sent.clear()
    client = app.test_client()
    for paper in papers:
        reply = client.get(
            f"/queries/methods-reported-by-paper?paper={quote(paper, safe='')}",
            headers={"Accept": "application/sparql-results+json"},
        )
        assert reply.status_code == 200, reply.text
    assert len(sent) == len(papers) and not any(job.checks for job in sent)
