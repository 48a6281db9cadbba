"""A store whose current versions lack their audit summaries (written before benchgraph kept
them, or damaged) is never answered the self-reported audit as if it were whole: `benchgraph
audit` and `benchgraph query audit-self-reported` refuse it, exit 2, naming the store, how many
versions lack one and `benchgraph repair`; other queries answer as ever. A whole store answers
exactly what the query itself gives. On the embedded store and on each remote server."""

from __future__ import annotations

import json
from pathlib import Path

import pyoxigraph as ox
import pytest
from stores.test_summaries_any_store import A, B, C, Pages, audited, expected
from support import run_cli

from benchgraph import answering, graphs, kept, queries, summaries
from benchgraph import vocab as V
from benchgraph.store import Store, open_store

AS_OF = "2026-12-01"


def remove_summaries(store: Store, graph: str | None = None) -> None:
    """Delete the audit summaries of the current version of the page graph ``graph`` (None:
    of every version) with a SPARQL update, as damage, or a store written before them, has it."""
    which = f"<{graph}>" if graph else "?graph"
    store.update(
        "removing audit summaries",
        f"PREFIX bg: <{V.BG}>\n"
        f"DELETE {{ GRAPH <{graphs.VERSIONS}> {{ ?version ?p ?o }} }}\n"
        f"WHERE {{ GRAPH <{graphs.VERSIONS}> {{ ?version bg:versionGraph {which} . "
        f'?version ?p ?o FILTER (STRSTARTS(STR(?p), "{V.BG}summary")) }} }}',
    )


def unguarded(store: Store) -> list[str]:
    """The rows of audit-self-reported as its text alone gives them (no guard), sorted."""
    answer = store.query(queries.find("audit-self-reported").text)
    assert isinstance(answer, ox.QuerySolutions)
    return sorted(map(str, answer))


def guarded(store: Store) -> list[str]:
    """The rows of audit-self-reported as the command line answers them, sorted."""
    answer = answering.answer(store, queries.find("audit-self-reported"), {})
    assert isinstance(answer, ox.QuerySolutions)
    return sorted(map(str, answer))


def test_the_audit_is_refused_until_the_summaries_are_repaired(
    location: str, tmp_path: Path
) -> None:
    with open_store(location) as store:
        pages = Pages(store, tmp_path)
        for page in (A, B, C):
            pages.ingest(page)
        assert summaries.KEPT.missing(store) == 0
        # A whole store: the guard changes nothing, and the figures are the pages' own.
        whole = unguarded(store)
        assert guarded(store) == whole
        assert audited(store) == expected([A, B, C])
    before = run_cli("audit", "--format", "json", "--as-of", AS_OF, "--store", location)
    assert before.returncode == 0, before.stderr
    assert before.stderr == ""
    rows = run_cli("query", "audit-self-reported", "--format", "csv", "--store", location)
    assert rows.returncode == 0, rows.stderr

    with open_store(location) as store:
        remove_summaries(store, graphs.page(A.key))
        assert summaries.KEPT.missing(store) == 1
        assert unguarded(store) != whole  # what the query alone answers now: wrong
        with pytest.raises(kept.MissingRecords, match="audit summary") as refused:
            guarded(store)
        assert refused.value.missing == 1

    for command in (
        ("audit", "--as-of", AS_OF),
        ("audit", "--format", "json", "--as-of", AS_OF),
        ("query", "audit-self-reported"),
        ("query", "audit-self-reported", "--format", "json"),
    ):
        said = run_cli(*command, "--store", location)
        assert said.returncode == 2, (command, said.stdout, said.stderr)
        assert said.stdout == "", command
        line = said.stderr.strip()
        assert line.startswith(f"benchgraph: error: the store at {location} cannot answer")
        assert "1 current page version lacks its audit summary" in line, line
        assert f"`benchgraph repair --store {location}` builds them" in line, line
        assert "\n" not in line and "Traceback" not in said.stderr

    # A query that reads no summary answers as ever.
    sources = run_cli("query", "audit-sources", "--format", "csv", "--store", location)
    assert sources.returncode == 0, sources.stderr

    with open_store(location) as store:
        remove_summaries(store)  # every version's, as a store written before them
        assert summaries.KEPT.missing(store) == 3
    said = run_cli("audit", "--store", location)
    assert said.returncode == 2 and "3 current page versions lack their" in said.stderr

    repaired = run_cli("repair", "--store", location)
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    after = run_cli("audit", "--format", "json", "--as-of", AS_OF, "--store", location)
    assert after.returncode == 0, after.stderr
    assert json.loads(after.stdout) == json.loads(before.stdout)
    again = run_cli("query", "audit-self-reported", "--format", "csv", "--store", location)
    assert again.returncode == 0 and again.stdout == rows.stdout


def test_a_store_with_no_page_is_not_refused(tmp_path: Path) -> None:
    location = str(tmp_path / "store")
    with open_store(location) as store:
        assert summaries.KEPT.missing(store) == 0
        assert guarded(store) == unguarded(store) == []


def test_every_named_query_that_reads_the_summaries_is_guarded() -> None:
    reading = {
        named.name
        for named in queries.catalogue().values()
        if any(f"bg:{name}" in named.text for name in _SUMMARY_TERMS)
    }
    assert reading == set(summaries.READERS)


_SUMMARY_TERMS = [term.removeprefix(V.BG) for term in summaries.PREDICATES]
