"""``benchgraph query`` given any SPARQL (a file, stdin, the text itself), its output formats by
query form, and commands that write into a pipe whose reader goes away."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyoxigraph as ox
import pytest
import rdflib
from rdflib.compare import isomorphic
from support import EXAMPLES, REPO, run_cli

from benchgraph import prefixes
from benchgraph import vocab as V

PREFIX = f"PREFIX bg: <{V.BG}>\n"
RESULTS = PREFIX + "SELECT ?result WHERE { ?result a bg:Result }\n"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"


@pytest.fixture
def loaded(store_dir: Path) -> Path:
    """A store holding the example pages."""
    done = run_cli("ingest", str(EXAMPLES), store=store_dir)
    assert done.returncode == 0, done.stderr
    return store_dir


def results_in(store_dir: Path) -> set[str]:
    """The IRIs typed bg:Result in the store's default graph, read from its quads directly."""
    store = ox.Store.read_only(str(store_dir))
    found = store.quads_for_pattern(
        None, ox.NamedNode(RDF_TYPE), ox.NamedNode(V.Result), ox.DefaultGraph()
    )
    iris = {q.subject.value for q in found if isinstance(q.subject, ox.NamedNode)}
    del store
    assert iris, "the examples hold results"
    return iris


def csv_column(text: str) -> set[str]:
    header, *rows = text.splitlines()
    assert header == "result"
    return set(rows)


def test_a_query_file_without_a_header_runs(loaded: Path, tmp_path: Path) -> None:
    rq = tmp_path / "results.rq"
    rq.write_text(RESULTS)
    done = run_cli("query", str(rq), "--format", "csv", store=loaded)
    assert done.returncode == 0, done.stderr
    assert csv_column(done.stdout) == results_in(loaded)


def test_a_sparql_file_runs(loaded: Path, tmp_path: Path) -> None:
    query = tmp_path / "count.sparql"
    query.write_text(PREFIX + "SELECT (COUNT(?r) AS ?n) WHERE { ?r a bg:Result }")
    done = run_cli("query", str(query), "--format", "json", store=loaded)
    assert done.returncode == 0, done.stderr
    (row,) = json.loads(done.stdout)["results"]["bindings"]
    assert int(row["n"]["value"]) == len(results_in(loaded))


def test_a_query_read_from_stdin_runs(loaded: Path) -> None:
    done = run_cli("query", "-", "--format", "tsv", store=loaded, stdin=RESULTS)
    assert done.returncode == 0, done.stderr
    answer = ox.parse_query_results(done.stdout.encode(), ox.QueryResultsFormat.TSV)
    assert isinstance(answer, ox.QuerySolutions)
    assert {row["result"].value for row in answer} == results_in(loaded)


def test_the_query_text_as_the_argument_runs(loaded: Path) -> None:
    done = run_cli("query", RESULTS, store=loaded)
    assert done.returncode == 0, done.stderr
    header, rule, *rows, count = done.stdout.splitlines()
    assert header.split() == ["result"] and set(rule) == {"-"}
    # The table writes each IRI with a predeclared prefix.
    assert {row.strip() for row in rows} == {prefixes.shorten(r) for r in results_in(loaded)}
    assert all(row.startswith("id:result/") for row in rows)
    assert count == f"({len(rows)} rows)"


def test_a_header_in_a_query_file_gives_its_parameters(loaded: Path, tmp_path: Path) -> None:
    rq = tmp_path / "of-class.rq"
    rq.write_text(
        "#+ param: kind (iri, required) The class.\nSELECT ?result WHERE { ?result a ?kind }\n"
    )
    done = run_cli("query", str(rq), "--param", f"kind={V.Result}", "--format", "csv", store=loaded)
    assert done.returncode == 0, done.stderr
    assert csv_column(done.stdout) == results_in(loaded)
    missing = run_cli("query", str(rq), store=loaded)
    assert missing.returncode == 2
    assert f"{rq}: parameter 'kind' is required" in missing.stderr
    rq.write_text("#+ param: kind (colour) The class.\n" + RESULTS)
    malformed = run_cli("query", str(rq), store=loaded)
    assert malformed.returncode == 2
    assert f"{rq}:1: malformed parameter" in malformed.stderr


def test_a_query_without_a_header_has_no_parameters(loaded: Path) -> None:
    done = run_cli("query", RESULTS, "--param", "kind=x", store=loaded)
    assert done.returncode == 2
    assert "the query text: unknown parameter 'kind' (parameters: none)" in done.stderr


def test_a_query_file_that_is_not_there_is_named(store_dir: Path) -> None:
    for name in ("nowhere.rq", "nowhere.sparql"):
        done = run_cli("query", name, store=store_dir)
        assert done.returncode == 2
        assert f"benchgraph: error: {name}: the file does not exist" in done.stderr
    unknown = run_cli("query", "nowhere", store=store_dir)
    assert unknown.returncode == 2
    assert "no named query 'nowhere' (named queries: " in unknown.stderr


def test_a_format_that_does_not_fit_the_form_is_refused_before_the_store_opens(
    store_dir: Path,
) -> None:
    construct = "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }"
    done = run_cli("query", construct, "--format", "csv", store=store_dir)
    assert done.returncode == 2
    assert done.stdout == ""
    assert (
        "the query text: --format csv does not fit a CONSTRUCT query; use turtle, ntriples or "
        "jsonld" in done.stderr
    )
    ask = run_cli("query", "ASK { ?s ?p ?o }", "--format", "turtle", store=store_dir)
    assert ask.returncode == 2
    assert "does not fit an ASK query; use table or json" in ask.stderr
    assert not store_dir.exists()


# rdflib 7.6's own JSON-LD parser builds a ConjunctiveGraph, which rdflib itself deprecates.
@pytest.mark.filterwarnings("ignore:ConjunctiveGraph is deprecated:DeprecationWarning")
@pytest.mark.parametrize(
    ("fmt", "parser"), [(None, "turtle"), ("ntriples", "nt"), ("jsonld", "json-ld")]
)
def test_a_construct_prints_the_graph(loaded: Path, fmt: str | None, parser: str) -> None:
    construct = PREFIX + "CONSTRUCT { ?r a bg:Result } WHERE { ?r a bg:Result }"
    done = run_cli("query", construct, *(["--format", fmt] if fmt else []), store=loaded)
    assert done.returncode == 0, done.stderr
    printed = rdflib.Graph().parse(data=done.stdout, format=parser)
    expected = rdflib.Graph()
    for iri in results_in(loaded):
        expected.add((rdflib.URIRef(iri), rdflib.RDF.type, rdflib.URIRef(V.Result)))
    assert isomorphic(printed, expected)


def test_an_ask_prints_true_or_false(loaded: Path) -> None:
    yes = run_cli("query", PREFIX + "ASK { ?r a bg:Result }", store=loaded)
    no = run_cli("query", "ASK { ?r a <urn:benchgraph:test:nothing> }", store=loaded)
    assert (yes.returncode, yes.stdout, no.returncode, no.stdout) == (0, "true\n", 0, "false\n")
    as_json = run_cli("query", "-", "--format", "json", store=loaded, stdin="ASK {}")
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout)["boolean"] is True


@pytest.mark.parametrize("source", ["text", "stdin", "file"])
def test_a_query_the_parser_refuses_names_where_it_came_from(
    source: str, store_dir: Path, tmp_path: Path
) -> None:
    bad = "SELECT ?x WHERE { ?x ?y }"
    rq = tmp_path / "bad.rq"
    rq.write_text(bad)
    argument, stdin, where = {
        "text": (bad, None, "the query text"),
        "stdin": ("-", bad, "<stdin>"),
        "file": (str(rq), None, str(rq)),
    }[source]
    done = run_cli("query", argument, store=store_dir, stdin=stdin)
    assert done.returncode == 2
    assert done.stderr.startswith(f"benchgraph: error: {where}: line 1, column 26: ")
    assert done.stderr.endswith(f"\n1 | {bad}\n  | {' ' * 25}^\n")
    assert "Traceback" not in done.stderr
    assert not store_dir.exists()


@pytest.mark.parametrize(
    "update",
    [
        "INSERT DATA { <urn:benchgraph:test:a> <urn:benchgraph:test:b> 1 }",
        PREFIX + "DELETE WHERE { ?r a bg:Result }",
        "DROP ALL",
    ],
)
def test_an_update_is_refused_and_changes_nothing(loaded: Path, update: str) -> None:
    store = ox.Store.read_only(str(loaded))
    before = set(store)
    del store
    for argument, stdin in ((update, None), ("-", update)):
        done = run_cli("query", argument, store=loaded, stdin=stdin)
        assert done.returncode == 2
        assert "SPARQL Update (" in done.stderr and "is not accepted" in done.stderr
    store = ox.Store.read_only(str(loaded))
    assert set(store) == before


def buffered(store_dir: Path) -> dict[str, str]:
    """The environment of a command run as a user runs it: the store, and stdout buffered (not
    PYTHONUNBUFFERED), so an answer can still be in the buffer when the command returns."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    return {**env, "BENCHGRAPH_STORE": str(store_dir)}


def test_export_into_a_closed_pipe_ends_quietly_with_141(loaded: Path) -> None:
    export = subprocess.Popen(
        [sys.executable, "-m", "benchgraph.cli", "export", "--format", "nquads"],
        env=buffered(loaded),
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert export.stdout is not None and export.stderr is not None
    assert len(export.stdout.read(100)) == 100
    export.stdout.close()  # as `| head -c 100` does
    errors = export.stderr.read()
    export.stderr.close()
    assert export.wait(60) == 141
    assert errors == b""


def test_a_query_whose_reader_left_before_it_wrote_ends_quietly_with_141(loaded: Path) -> None:
    # The query comes on stdin, sent only once stdout's reader is gone: the answer (one short
    # line, still in the buffer when the command returns) meets a closed pipe at the last flush.
    query = subprocess.Popen(
        [sys.executable, "-m", "benchgraph.cli", "query", "-"],
        env=buffered(loaded),
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert query.stdin is not None and query.stdout is not None and query.stderr is not None
    query.stdout.close()
    query.stdin.write(b"ASK {}")
    query.stdin.close()
    errors = query.stderr.read()
    query.stderr.close()
    assert query.wait(60) == 141
    assert errors == b""


def test_service_is_refused_before_the_store_opens(store_dir: Path) -> None:
    for query in (
        "SELECT * WHERE { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } }",
        "ASK { ?s ?p ?o FILTER EXISTS { SERVICE <http://127.0.0.1:9/> { ?s ?p ?o } } }",
    ):
        done = run_cli("query", query, store=store_dir)
        assert done.returncode == 2
        assert done.stderr.startswith("benchgraph: error: the query text: SERVICE (federated")
        assert "Traceback" not in done.stderr
    assert not store_dir.exists()


def test_a_prefix_holding_service_is_no_service(loaded: Path) -> None:
    query = "PREFIX webservice: <https://w3id.org/benchgraph/ns#> " + RESULTS.replace(
        "bg:", "webservice:"
    )
    done = run_cli("query", query, "--format", "csv", store=loaded)
    assert done.returncode == 0, done.stderr
    assert csv_column(done.stdout) == results_in(loaded)


def test_relative_iris_are_the_stores_resources(loaded: Path) -> None:
    result = sorted(results_in(loaded))[0]
    assert result.startswith(V.ID)
    relative = f"SELECT ?result WHERE {{ BIND(<{result[len(V.ID) :]}> AS ?result) ?result ?p ?o }}"
    done = run_cli("query", relative, "--format", "csv", store=loaded)
    assert done.returncode == 0, done.stderr
    assert csv_column(done.stdout) == {result}


def test_a_query_the_engine_cannot_evaluate_is_one_line(loaded: Path) -> None:
    query = "SELECT * WHERE { ?s ?p ?o FILTER(<http://example.org/f>(?o)) }"
    done = run_cli("query", query, store=loaded)
    assert done.returncode == 2
    assert done.stderr == (
        "benchgraph: error: the query text: the query could not be evaluated: The custom "
        "function <http://example.org/f> is not supported\n"
    )
