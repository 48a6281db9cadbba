"""Terms a server writes otherwise than they were sent are read back as sent; an answer as
SPARQL writes it passes through unchanged."""

from __future__ import annotations

import io

import pyoxigraph as ox

from benchgraph import lexical

XSD = "http://www.w3.org/2001/XMLSchema#"


def virtuoso_json(cells: str) -> bytes:
    """One row of a SELECT answer, laid out as Virtuoso lays it out."""
    return (
        '{ "head": { "link": [], "vars": ["b", "t", "x"] },\n'
        '  "results": { "distinct": false, "ordered": true, "bindings": [\n'
        f"    {{ {cells} }} ] }} }}\n"
    ).encode()


CELLS = (
    '"b": { "type": "typed-literal", "datatype": "' + XSD + 'boolean", "value": "1" }\t, '
    '"t": { "type": "typed-literal", "datatype": "' + XSD + 'dateTime", '
    '"value": "2026-05-15T06:46:15.780Z" }\t, "x": { "type": "bnode", "value": "nodeID://b10000" }'
)


def row(body: bytes) -> dict[str, object]:
    answer = ox.parse_query_results(body, ox.QueryResultsFormat.JSON)
    assert isinstance(answer, ox.QuerySolutions)
    (found,) = list(answer)
    return {name: found[name] for name in ("b", "t", "x")}


def test_a_virtuoso_answer_reads_as_sent() -> None:
    found = row(lexical.json_answer(virtuoso_json(CELLS)))
    assert found["b"] == ox.Literal("true", datatype=ox.NamedNode(XSD + "boolean"))
    assert found["t"] == ox.Literal(
        "2026-05-15T06:46:15.78Z", datatype=ox.NamedNode(XSD + "dateTime")
    )
    assert found["x"] == ox.BlankNode("b10000")


def test_a_streamed_answer_reads_the_same() -> None:
    streamed = lexical.json_stream(io.BytesIO(virtuoso_json(CELLS)))
    assert row(streamed.read()) == row(lexical.json_answer(virtuoso_json(CELLS)))


def test_an_answer_as_sparql_writes_it_is_unchanged() -> None:
    store = ox.Store()
    store.update(
        f'INSERT DATA {{ <urn:s> <urn:p> true, "2026-05-15T06:46:15.78Z"^^<{XSD}dateTime>, '
        '"1", "nodeID://b1", "12:00:00.500" }'
    )
    answer = store.query("SELECT ?o WHERE { ?s ?p ?o }")
    assert isinstance(answer, ox.QuerySolutions)
    written = answer.serialize(format=ox.QueryResultsFormat.JSON)
    assert written is not None
    assert lexical.json_answer(written) == written


def test_n_triples_read_as_sent() -> None:
    sent = (
        f'<urn:s> <urn:p> "0"^^<{XSD}boolean> .\n'
        f'<urn:s> <urn:p> "2026-05-15T06:46:15.000+01:00"^^<{XSD}dateTime> .\n'
        '<urn:s> <urn:p> "version 1.10" .\n'
    ).encode()
    assert (
        lexical.ntriples(sent)
        == (
            f'<urn:s> <urn:p> "false"^^<{XSD}boolean> .\n'
            f'<urn:s> <urn:p> "2026-05-15T06:46:15+01:00"^^<{XSD}dateTime> .\n'
            '<urn:s> <urn:p> "version 1.10" .\n'
        ).encode()
    )


def test_a_streamed_answer_on_one_long_line_reads_whole() -> None:
    """Oxigraph writes an answer on one line: read in parts, every row still comes through."""
    cells = ",".join(
        f'{{"s":{{"type":"uri","value":"urn:s{i}"}},"o":{{"type":"literal","value":"v{i}"}}}}'
        for i in range(60_000)
    )
    body = ('{"head":{"vars":["s","o"]},"results":{"bindings":[' + cells + "]}}").encode()
    assert b"\n" not in body and len(body) > 2 * lexical._LINE_BYTES
    streamed = ox.parse_query_results(
        lexical.json_stream(io.BytesIO(body)), ox.QueryResultsFormat.JSON
    )
    plain = ox.parse_query_results(body, ox.QueryResultsFormat.JSON)
    assert isinstance(streamed, ox.QuerySolutions) and isinstance(plain, ox.QuerySolutions)
    assert [str(row["o"]) for row in streamed] == [str(row["o"]) for row in plain]
