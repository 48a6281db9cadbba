"""A query the parser refuses is said at the right line and column of the text as written, in a
few words, with the line quoted and a caret under the column: pyoxigraph's and rdflib's
messages read, the predeclared prefixes' lines left out, and ``benchgraph query`` saying it."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest
from support import run_cli

from benchgraph import prefixes, syntax

# A closing bracket missing on line 5; the engine notices it at the '}' of line 7.
MISSING = """SELECT ?label
WHERE {
  ?method a bg:Method ;
          rdfs:label ?label .
  FILTER (STRLEN(?label) > 3

}
"""


def refused(text: str) -> syntax.Problem:
    """The problem the engine finds in ``text``, as :func:`benchgraph.syntax.explain` says it,
    the text run with the predeclared prefixes as the CLI and /sparql run it."""
    ready = prefixes.prepare(text)
    with pytest.raises(SyntaxError) as caught:
        ox.Store().query(ready.text)
    return syntax.explain(str(caught.value), ready.text, ready.added)


def test_a_missing_bracket_is_said_where_it_belongs() -> None:
    problem = refused(MISSING)
    line = "  FILTER (STRLEN(?label) > 3"
    assert (problem.line, problem.column, problem.message) == (5, len(line) + 1, "expected ')'")
    assert problem.source == line
    assert problem.excerpt() == f"5 | {line}\n  | {' ' * len(line)}^"
    assert str(problem) == f"line 5, column {len(line) + 1}: expected ')'"


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        ("SELECT ?x WHERE { ?x a nope:Thing }", 1, 24, "unknown prefix 'nope:'"),
        ("SELECT ?x WHERE {\n  ?x a ex:y ; bg:z 3 }", 2, 8, "unknown prefix 'ex:'"),
        ("SELECT ?x WHERE { ?x ?p ?o", 1, 27, "unexpected end of query: expected '}'"),
        ('SELECT ?x WHERE { ?x ?p "abc }', 1, 25, "unterminated string"),
        ("SELECT (COUNT(?x) AS ?n WHERE { ?x ?p ?o }", 1, 24, "expected ')'"),
        ("SELECT * WHERE { ?s ?p ?o . } }", 1, 31, "unexpected '}': no bracket is open"),
        ("SELECT ?x WHERE {\n ?x ?p ?o\n  FILTER(?o = 1 && (?x > 3)\n}", 3, 28, "expected ')'"),
        ("SELECT ?é WHERE { ?é ?p 'ü' FILTER(?é = 1 }", 1, 42, "expected ')'"),
    ],
)
def test_the_place_and_the_words(text: str, line: int, column: int, message: str) -> None:
    problem = refused(text)
    assert (problem.line, problem.column, problem.message) == (line, column, message)


def test_other_messages_are_the_engines_first_line_cut_short() -> None:
    problem = refused("SELECT ?x WHERE { ?x ?p ?o } LIMT 5")
    assert problem.line == 1 and "expected one of HAVING" in problem.message
    assert "\n" not in problem.message and len(problem.message) <= 120
    long = syntax.explain("error at 1:1: " + "x" * 300 + "\nmore", "ASK {", 0)
    assert len(long.message) == 120 and long.message.endswith("…")


def test_an_expectation_is_said_without_the_engines_character_ranges() -> None:
    # Oxigraph's "expected one of" lists Unicode ranges ('\u{00C0}'..='\u{00D6}' | …) a reader
    # cannot act on; what was found and the words it expected are said instead.
    text = "SELECT * WHERE { ?s ?p ?o } ORDER BY"
    with pytest.raises(SyntaxError) as caught:
        ox.Store().query(text)
    assert "..=" in str(caught.value)  # what the engine says
    problem = refused(text)
    assert (problem.line, problem.column) == (1, len(text) + 1)
    assert problem.message == 'unexpected end of query; expected one of "$", "(", ":", "<", "?"'
    found = refused("SELEC ?x WHERE { ?x ?p ?o }")
    assert found.message == "unexpected 'WHERE'; expected CONSTRUCT"


def test_rdflib_messages_are_read_too() -> None:
    text = "SELECT ?x WHERE {\n ?x ?p ?o .\n FILTER(?x = 1\n}"
    problem = syntax.explain(
        "Expected SelectQuery, found 'FILTER'  (at char 31), (line:3, col:2)", text
    )
    assert (problem.line, problem.column) == (3, 2)  # rdflib's place: where the group began
    assert problem.message == "Expected SelectQuery, found 'FILTER'"
    unknown = syntax.explain("Unknown namespace prefix : x", "SELECT * WHERE { ?s x:p ?o }")
    assert str(unknown) == "unknown prefix 'x:'" and unknown.excerpt() == ""


def test_the_lines_written_before_the_query_are_not_counted() -> None:
    ready = prefixes.prepare("ASK {\n  ?s ?p ?o\n  FILTER(?s\n}")
    assert ready.added > 0
    with pytest.raises(SyntaxError) as caught:
        ox.Store().query(ready.text)
    assert f"error at {ready.added + 4}:" in str(caught.value)  # the engine counts them
    problem = syntax.explain(str(caught.value), ready.text, ready.added)
    assert (problem.line, problem.column, problem.message) == (3, 12, "expected ')'")


@pytest.mark.parametrize("source", ["text", "stdin", "file"])
def test_the_cli_says_the_line_and_column_with_a_caret(
    source: str, store_dir: Path, tmp_path: Path
) -> None:
    rq = tmp_path / "bad.rq"
    rq.write_text(MISSING)
    argument, stdin, where = {
        "text": (MISSING, None, "the query text"),
        "stdin": ("-", MISSING, "<stdin>"),
        "file": (str(rq), None, str(rq)),
    }[source]
    done = run_cli("query", argument, store=store_dir, stdin=stdin)
    assert done.returncode == 2
    line = "  FILTER (STRLEN(?label) > 3"
    assert done.stderr == (
        f"benchgraph: error: {where}: line 5, column {len(line) + 1}: expected ')'\n"
        f"5 | {line}\n"
        f"  | {' ' * len(line)}^\n"
    )
    assert not store_dir.exists()


def test_the_cli_names_an_unknown_prefix(store_dir: Path) -> None:
    done = run_cli("query", "SELECT ?x WHERE { ?x a nope:Thing }", store=store_dir)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "benchgraph: error: the query text: line 1, column 24: unknown prefix 'nope:'",
        "1 | SELECT ?x WHERE { ?x a nope:Thing }",
        "  |                        ^",
    ]
