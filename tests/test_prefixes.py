"""SPARQL written by hand: the predeclared prefixes (one table, the ontology's namespaces, the
manual's table), an explicit PREFIX winning over them, and every SPARQL example of the manual
run verbatim by ``benchgraph query``."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pyoxigraph as ox
import pytest
from support import EXAMPLES, REPO, build_store, doc, manual, run_cli

from benchgraph import prefixes
from benchgraph import vocab as V
from benchgraph.prefixes import PREDECLARED

COUNT = "SELECT (COUNT(?m) AS ?n) WHERE { ?m a bg:Method }"
FORMS = ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE", "PREFIX")
FENCED = re.compile(r"^```sparql\n(.*?)^```", re.M | re.S)
SPAN = re.compile(r"(?<!`)`([^`]+)`(?!`)")
SHELL = re.compile(r"^```sh\n(.*?)^```", re.M | re.S)
ANY_FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def examples() -> list[tuple[str, str]]:
    """Every SPARQL example of the manual, with its file: the ``sparql`` blocks, the code spans
    that are a query, and the queries ``benchgraph query`` is given as text in shell blocks."""
    found = []
    for path, text in manual().items():
        name = path.relative_to(REPO).as_posix()
        found += [(name, block) for block in FENCED.findall(text)]
        prose = ANY_FENCE.sub("", text)
        found += [
            (name, span) for span in SPAN.findall(prose) if span.startswith(FORMS) and "{" in span
        ]
        for block in SHELL.findall(text):
            for line in block.splitlines():
                if line.startswith("benchgraph query '"):
                    found.append((name, shlex.split(line.split("   #")[0])[2]))
    return found


EXAMPLES_OF_THE_MANUAL = examples()


@pytest.fixture(scope="module")
def examples_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("prefixes") / "store", EXAMPLES)


def test_the_predeclared_prefixes_are_the_ontologys_namespaces() -> None:
    declared: dict[str, str] = {}
    for path in sorted((REPO / "ontology").glob("*.ttl")):
        parser = ox.parse(path=path, format=ox.RdfFormat.TURTLE)
        for _ in parser:
            pass
        declared |= parser.prefixes
    for prefix in ("bg", "rdf", "rdfs", "xsd", "owl", "prov", "dcterms", "qudt", "schema", "mls"):
        assert PREDECLARED[prefix] == declared[prefix], prefix
    assert PREDECLARED["unit"] == V.UNIT and PREDECLARED["id"] == V.ID
    assert set(PREDECLARED) - set(declared) == {"unit", "id"}


def test_the_manuals_table_is_the_predeclared_table() -> None:
    section = doc("queries.md").split("## SPARQL written by hand", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w*):` \| `([^`]+)` \|", section, re.M)
    assert dict(rows) == PREDECLARED
    assert [p for p, _ in rows] == list(PREDECLARED)


def test_only_the_prefixes_a_query_lacks_are_declared_before_it() -> None:
    text = "PREFIX bg: <urn:mine#>\nprefix rdfs:<urn:labels#> SELECT * WHERE { ?s a bg:x }"
    ready = prefixes.prepare(text)
    assert ready.added == len(PREDECLARED) - 2
    assert ready.text.endswith(text) and ready.given == text
    assert ready.text.count("PREFIX bg:") == 1 and f"PREFIX xsd: <{V.XSD}>\n" in ready.text
    assert prefixes.declared("SELECT * WHERE { ?s <urn:PREFIX> 'PREFIX x: <y>' }") == set()
    assert prefixes.prepare("ASK {}").given == "ASK {}"


@pytest.mark.parametrize(
    ("iri", "shown"),
    [
        (V.Method, "bg:Method"),
        (V.ID + "method/editor", "id:method/editor"),
        (V.UNIT + "PERCENT", "unit:PERCENT"),
        ("urn:other", "urn:other"),
        (V.BG, V.BG),
    ],
)
def test_an_iri_is_shortened_with_the_prefix_that_fits(iri: str, shown: str) -> None:
    assert prefixes.shorten(iri) == shown


def test_the_manual_has_sparql_examples() -> None:
    queries = [text for _, text in EXAMPLES_OF_THE_MANUAL]
    assert COUNT in queries
    assert {name for name, _ in EXAMPLES_OF_THE_MANUAL} >= {
        "README.md",
        "docs/queries.md",
        "docs/graph.md",
    }


@pytest.mark.parametrize(
    ("name", "query"), EXAMPLES_OF_THE_MANUAL, ids=[q[:50] for _, q in EXAMPLES_OF_THE_MANUAL]
)
def test_every_sparql_example_of_the_manual_runs_verbatim(
    examples_store: Path, name: str, query: str
) -> None:
    done = run_cli("query", query, store=examples_store)
    assert done.returncode == 0, f"{name}: {done.stderr}"
    assert re.search(r"^\(\d+ rows?\)", done.stdout, re.M) or done.stdout.strip() in (
        "true",
        "false",
    ), done.stdout


def test_the_count_of_methods_runs_as_the_manual_writes_it(examples_store: Path) -> None:
    done = run_cli("query", COUNT, "--format", "csv", store=examples_store)
    assert done.returncode == 0, done.stderr
    header, count = done.stdout.splitlines()
    assert header == "n" and int(count) > 0


def test_a_prefix_the_query_declares_wins(examples_store: Path, tmp_path: Path) -> None:
    own = "PREFIX bg: <urn:benchgraph:test:nothing#>\n" + COUNT
    rq = tmp_path / "own.rq"
    rq.write_text(own)
    for argument, stdin in ((own, None), ("-", own), (str(rq), None)):
        done = run_cli("query", argument, "--format", "csv", store=examples_store, stdin=stdin)
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines() == ["n", "0"], argument
