"""Binding by text (what a remote store does) answers as pyoxigraph's substitutions do."""

from __future__ import annotations

import pyoxigraph as ox
import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchgraph.sparqltext import query_form, substitute, with_values

EX = "http://example.org/"
DATA = "\n".join(
    [
        f'<{EX}a> <{EX}label> "alpha" .',
        f'<{EX}b> <{EX}label> "beta"@en .',
        f"<{EX}a> <{EX}score> 3 .",
        f"<{EX}b> <{EX}score> 5 .",
        f'<{EX}c> <{EX}label> "}} UNION {{ ?s ?p ?o }} #" .',
        f"<{EX}a> <{EX}next> <{EX}b> .",
    ]
)

QUERIES = {
    "pattern": f"SELECT ?s ?x WHERE {{ ?s <{EX}label> ?x }}",
    "filter": f"SELECT ?s ?x WHERE {{ ?s <{EX}label> ?l FILTER (?l = ?x) }}",
    "aggregate": f"SELECT ?x (COUNT(?s) AS ?n) WHERE {{ ?s <{EX}label> ?x }} GROUP BY ?x",
    "nested": (
        f"SELECT ?x ?n WHERE {{ {{ SELECT ?x (COUNT(*) AS ?n) WHERE {{ ?s <{EX}label> ?x }} "
        "GROUP BY ?x } } ORDER BY ?x"
    ),
    "subject": f"SELECT ?x ?o WHERE {{ ?x <{EX}next> ?o }}",
}


@pytest.fixture(scope="module")
def store() -> ox.Store:
    found = ox.Store()
    found.load(DATA.encode(), ox.RdfFormat.TURTLE)
    return found


def answers(answer: object) -> list[tuple[str, ...]]:
    assert isinstance(answer, ox.QuerySolutions)
    names = answer.variables
    return sorted(tuple(str(row[v]) for v in names) for row in answer)


def both(store: ox.Store, name: str, term: ox.NamedNode | ox.Literal) -> None:
    query = QUERIES[name]
    bound = store.query(query, substitutions={ox.Variable("x"): term})
    written = store.query(substitute(query, {"x": term}))
    assert answers(written) == answers(bound), (name, term)


@pytest.mark.parametrize("name", sorted(set(QUERIES) - {"subject"}))
@pytest.mark.parametrize(
    "term",
    [
        ox.Literal("alpha"),
        ox.Literal("beta", language="en"),
        ox.Literal("} UNION { ?s ?p ?o } #"),
        ox.Literal("3", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")),
        ox.NamedNode(f"{EX}a"),
    ],
)
def test_text_binding_answers_as_substitution(
    store: ox.Store, name: str, term: ox.NamedNode | ox.Literal
) -> None:
    both(store, name, term)


def test_an_iri_in_subject_position(store: ox.Store) -> None:
    both(store, "subject", ox.NamedNode(f"{EX}a"))


@given(text=st.text(max_size=40))
def test_no_literal_changes_the_query(text: str) -> None:
    store = ox.Store()
    store.load(DATA.encode(), ox.RdfFormat.TURTLE)
    for name in ("pattern", "filter", "aggregate", "nested"):
        both(store, name, ox.Literal(text))


def test_comments_strings_and_iris_keep_their_variables() -> None:
    query = 'SELECT ?x WHERE { ?s <http://e/?x> "?x" # ?x\n FILTER (?s != ?x) }'
    written = substitute(query, {"x": ox.Literal("v")})
    assert written == (
        'SELECT ("v" AS ?x) WHERE { ?s <http://e/?x> "?x" # ?x\n FILTER (?s != "v") }'
    )


def test_a_blank_node_cannot_be_bound_in_text() -> None:
    with pytest.raises(ValueError, match="blank node"):
        substitute("SELECT * WHERE { ?x ?p ?o }", {"x": ox.BlankNode()})


@pytest.mark.parametrize(
    ("query", "form"),
    [
        ("PREFIX a: <http://a/> SELECT * WHERE { ?s ?p 'ADD' }", "SELECT"),
        ("# INSERT this\nBASE <http://b/> CONSTRUCT WHERE { ?s ?p ?o }", "CONSTRUCT"),
        ("ask {}", "ASK"),
        ("INSERT DATA { <a:b> <a:c> <a:d> }", None),
    ],
)
def test_the_query_form_is_read_by_the_lexer(query: str, form: str | None) -> None:
    assert query_form(query) == form


@pytest.mark.parametrize("name", ["aggregate", "nested"])
def test_a_bound_group_condition_is_one_rdflib_evaluates(store: ox.Store, name: str) -> None:
    """rdflib cannot evaluate a bare constant in GROUP BY (``GROUP BY (<iri>)``, valid SPARQL),
    so a bound group variable is written ``(term AS ?x)``: a remote store built on it answers
    as pyoxigraph does."""
    import rdflib

    term = ox.Literal("alpha")
    written = substitute(QUERIES[name], {"x": term})
    graph = rdflib.Graph()
    graph.parse(data=DATA, format="turtle")
    found = sorted(tuple(value.n3() for value in row) for row in graph.query(written))
    assert found == answers(store.query(QUERIES[name], substitutions={ox.Variable("x"): term}))


def test_a_values_block_holds_a_list_of_terms(store: ox.Store) -> None:
    text = (
        f"# VALUES ?s {{ }} in a comment is not the block\nSELECT ?s ?l WHERE {{ ?s <{EX}label> ?l "
        f'FILTER (?l != "VALUES ?s {{ }}") VALUES ?s {{ }} }}'
    )
    terms = [ox.NamedNode(f"{EX}a"), ox.NamedNode(f"{EX}c"), ox.Literal("} UNION { ?s ?p ?o } #")]
    filled = with_values(text, "s", terms)
    assert filled.startswith("# VALUES ?s { } in a comment")
    assert answers(store.query(filled)) == [
        (f"<{EX}a>", '"alpha"'),
        (f"<{EX}c>", str(ox.Literal("} UNION { ?s ?p ?o } #"))),
    ]
    assert answers(store.query(with_values(text, "s", []))) == []
    with pytest.raises(ValueError, match=r"no empty block VALUES \?x"):
        with_values(text, "x", terms)
    with pytest.raises(ValueError, match="blank node"):
        with_values(text, "s", [ox.BlankNode()])


def test_a_bound_group_condition_beside_others_is_left_out(store: ox.Store) -> None:
    """Grouping on a constant beside other conditions groups nothing: the condition is left
    out and the SELECT projects the term, which answers as pyoxigraph's substitutions do (and
    as Virtuoso reads it: it answers an IRI grouped on as a string)."""
    query = f"SELECT ?x ?s (COUNT(*) AS ?n) WHERE {{ ?s <{EX}next> ?x }} GROUP BY ?x ?s ORDER BY ?x"
    term = ox.NamedNode(f"{EX}b")
    written = substitute(query, {"x": term})
    assert "GROUP BY  ?s" in written and f"(<{EX}b> AS ?x)" in written
    bound = store.query(query, substitutions={ox.Variable("x"): term})
    assert (
        answers(store.query(written))
        == answers(bound)
        == [
            (
                f"<{EX}b>",
                f"<{EX}a>",
                str(
                    ox.Literal(
                        "1", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")
                    )
                ),
            )
        ]
    )
