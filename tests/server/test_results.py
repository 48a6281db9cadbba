"""SELECT answers are written from the rows the engine gives once, in each results format: JSON
and TSV byte for byte as pyoxigraph's own serializer writes the same solutions, and CSV and XML
too where pyoxigraph writes them right (test_result_writers.py holds them to the standards where
it does not); the row cap holds and a cut answer says so."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchgraph.media import RESULTS_FORMATS
from benchgraph.store.embedded import EmbeddedStore
from server import results
from server.engine import VALUES, Answered, Job, execute

XSD = "http://www.w3.org/2001/XMLSchema#"
FORMATS = sorted(RESULTS_FORMATS)
# Written as pyoxigraph writes them whatever the terms; CSV and XML quote and escape where it
# does not (see server.results).
EXACT = ["json", "tsv"]


def literal(value: str, **extra: str) -> dict[str, str]:
    return {"type": "literal", "value": value, **extra}


def triple(s: dict[str, Any], p: str, o: dict[str, Any]) -> dict[str, Any]:
    return {"type": "triple", "value": {"subject": s, "predicate": iri(p), "object": o}}


def iri(value: str) -> dict[str, str]:
    return {"type": "uri", "value": value}


# Terms each format has a rule for: characters to escape or quote, white space XML keeps with
# character references, lexical forms TSV writes bare (and the near misses it must quote),
# language tags with a base direction, triple terms inside triple terms.
HOSTILE = [
    iri("http://example.org/a?b=c&d='e'"),
    iri("http://example.org/é"),
    {"type": "bnode", "value": "b0"},
    literal(""),
    literal("s,t"),
    literal('x"y'),
    literal("l\nm\tq\r\\<&>'"),
    literal(" a "),
    literal("\t"),
    literal("\n\r x\t"),
    literal("x \t y"),
    literal("\x01\x08\x0c\x1f\x7f\u00a0\u2028"),
    literal("a", **{"xml:lang": "en-us"}),
    literal("", **{"xml:lang": "en"}),
    literal("a", **{"xml:lang": "ar", "its:dir": "rtl"}),
    literal('a,"', **{"xml:lang": "en", "its:dir": "ltr"}),
    literal("x", datatype="http://example.org/dt?a='b'&c"),
    triple(iri("http://s"), "http://p", literal('o,"\t', datatype=XSD + "integer")),
    triple(
        {"type": "bnode", "value": "b1"},
        "http://p",
        triple(iri("http://s"), "http://p", literal("7", datatype=XSD + "integer")),
    ),
]
LEXICAL = {
    "integer": ["12", "-5", "+01", "1.0", "", "١"],
    "decimal": ["1.5", ".5", "1.", "1", "+.0", "-0.50"],
    "double": ["1e3", "1E-3", ".5e1", "5.e1", "1000", "e1", "INF", "NaN", "1.0e"],
    "boolean": ["true", "false", "1", "0", "TRUE"],
    "string": ["x"],
    "float": ["1e3"],
    "dateTime": ["2026-01-01T00:00:00Z"],
}
HOSTILE += [literal(v, datatype=XSD + name) for name, values in LEXICAL.items() for v in values]


def document(names: list[str], bindings: list[dict[str, Any]]) -> bytes:
    return json.dumps({"head": {"vars": names}, "results": {"bindings": bindings}}).encode()


def ours(fmt: str, body: bytes) -> bytes:
    answer = ox.parse_query_results(body, ox.QueryResultsFormat.JSON)
    assert isinstance(answer, ox.QuerySolutions)
    names = [v.value for v in answer.variables]
    return results.write(fmt, names, [tuple(row) for row in answer])


def theirs(fmt: str, body: bytes) -> bytes:
    answer = ox.parse_query_results(body, ox.QueryResultsFormat.JSON)
    assert isinstance(answer, ox.QuerySolutions)
    written = answer.serialize(format=RESULTS_FORMATS[fmt])
    assert written is not None
    return written


def hostile_bindings() -> list[dict[str, Any]]:
    """Each hostile term alone under ``b``, and beside another under ``a`` and ``c`` (``b``
    unbound), and a solution binding nothing."""
    found: list[dict[str, Any]] = []
    for i, term in enumerate(HOSTILE):
        found.append({"a": term, "c": HOSTILE[(i * 7) % len(HOSTILE)]})
        found.append({"b": term})
    return [*found, {}]


@pytest.mark.parametrize("fmt", EXACT)
@pytest.mark.parametrize(
    ("names", "bindings"),
    [
        (["a", "b", "c"], hostile_bindings()),
        ([], [{}]),  # SELECT * {}: one empty solution
        (["x"], []),  # no solution
        ([], []),
    ],
    ids=["hostile", "one-empty-solution", "no-solution", "nothing"],
)
def test_each_format_is_written_as_pyoxigraph_writes_it(
    fmt: str, names: list[str], bindings: list[dict[str, Any]]
) -> None:
    body = document(names, bindings)
    assert ours(fmt, body) == theirs(fmt, body)


TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12)
LANGS = st.sampled_from(["en", "en-us", "zh-hans", "de"])
TERMS = st.one_of(
    st.builds(lambda t: iri("http://example.org/" + t), st.sampled_from(["a", "b/c", "é?x=1"])),
    st.builds(lambda t: {"type": "bnode", "value": t}, st.sampled_from(["b0", "x1"])),
    st.builds(literal, TEXT),
    st.builds(lambda v, lang: literal(v, **{"xml:lang": lang}), TEXT, LANGS),
    st.builds(
        lambda v, d: literal(v, **{"xml:lang": "en", "its:dir": d}),
        TEXT,
        st.sampled_from(["ltr", "rtl"]),
    ),
    st.builds(
        lambda v, dt: literal(v, datatype=XSD + dt),
        st.one_of(TEXT, st.from_regex(r"[+-]?[0-9]{0,3}\.?[0-9]{0,3}([eE][+-]?[0-9]{0,2})?")),
        st.sampled_from(["integer", "decimal", "double", "boolean", "date"]),
    ),
)
ROWS = st.lists(st.fixed_dictionaries({}, optional={"a": TERMS, "b": TERMS}), max_size=6)


@settings(max_examples=150, deadline=None)
@given(ROWS)
def test_any_solutions_are_written_as_pyoxigraph_writes_them(bindings: list[dict]) -> None:
    body = document(["a", "b"], bindings)
    for fmt in EXACT:
        assert ours(fmt, body) == theirs(fmt, body), fmt


@pytest.fixture(scope="module")
def store(examples_store: Path) -> Iterator[EmbeddedStore]:
    with EmbeddedStore(examples_store, read_only=True) as opened:
        yield opened


ORDERED = "SELECT ?s ?p ?o WHERE { GRAPH ?g { ?s ?p ?o } } ORDER BY ?s ?p ?o ?g"


def engine_bytes(store: EmbeddedStore, query: str, fmt: str) -> bytes:
    answer = store.query(query)
    assert isinstance(answer, ox.QuerySolutions)
    written = answer.serialize(format=RESULTS_FORMATS[fmt])
    assert written is not None
    return written


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_answer_is_the_engines_own_bytes(store: EmbeddedStore, fmt: str) -> None:
    answer = execute(store, Job(ORDERED, fmt, None, 1_000_000))
    assert isinstance(answer, Answered)
    assert not answer.truncated
    assert answer.rows > 1000  # every statement of the example pages
    assert answer.body == engine_bytes(store, ORDERED, fmt)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_capped_answer_holds_the_first_rows_and_says_it_is_cut(
    store: EmbeddedStore, fmt: str
) -> None:
    answer = execute(store, Job(ORDERED, fmt, None, 7))
    assert isinstance(answer, Answered)
    assert (answer.rows, answer.truncated) == (7, True)
    assert answer.body == engine_bytes(store, f"{ORDERED} LIMIT 7", fmt)
    exact = execute(store, Job(f"{ORDERED} LIMIT 7", fmt, None, 7))
    assert isinstance(exact, Answered)
    assert (exact.rows, exact.truncated, exact.body) == (7, False, answer.body)


@pytest.mark.parametrize("fmt", ["json", "tsv", "xml"])  # CSV writes a literal's value alone
def test_a_literal_with_a_base_direction_keeps_it(store: EmbeddedStore, fmt: str) -> None:
    # The answer used to be written as SPARQL JSON without "its:dir", and the other formats
    # read back from that JSON: every format lost the direction.
    query = 'SELECT ?x WHERE { BIND("שלום"@he--rtl AS ?x) }'
    answer = execute(store, Job(query, fmt, None, 10))
    assert isinstance(answer, Answered)
    assert answer.body == engine_bytes(store, query, fmt)
    assert b"rtl" in answer.body


def test_an_answer_kept_as_values_holds_the_text_of_the_json_answer(
    store: EmbeddedStore,
) -> None:
    query = (
        "SELECT ?s ?label WHERE { ?s ?p ?o"
        " OPTIONAL { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?label } } ORDER BY ?s ?label"
    )
    kept = execute(store, Job(query, VALUES, None, 50))
    written = execute(store, Job(query, "json", None, 50))
    assert isinstance(kept, Answered) and isinstance(written, Answered)
    assert kept.values is not None and kept.body == b""
    document = json.loads(written.body)
    assert kept.values.names == tuple(document["head"]["vars"])
    bindings = document["results"]["bindings"]
    assert list(kept.values.rows) == [{k: v["value"] for k, v in b.items()} for b in bindings]
    assert any("label" not in row for row in kept.values.rows)  # unbound: left out
    assert (kept.rows, kept.truncated) == (written.rows, written.truncated) == (50, True)
    assert kept.values.column() == [b["s"]["value"] for b in bindings]


def test_an_ask_answer_kept_as_values_is_one_boolean_row(store: EmbeddedStore) -> None:
    for query, text in (("ASK { ?s ?p ?o }", "true"), ("ASK { FILTER(false) }", "false")):
        answer = execute(store, Job(query, VALUES, None, 10))
        assert isinstance(answer, Answered) and answer.values is not None
        assert answer.values.rows == ({"boolean": text},)
