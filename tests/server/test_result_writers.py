"""SPARQL CSV and XML results hold any term a standard reader can read back: CSV cells quoted
as RFC 4180 has it (an IRI with a comma stays one cell), XML with carriage returns as references
and the characters XML 1.0 cannot hold written as U+FFFD, so the document parses. Asked of the
real endpoint and of the ``benchgraph query`` command, on the W3C test suite's odd literals."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from rdflib import BNode, Literal, URIRef
from rdflib.query import Result
from support import PATIENCE, REPO

XSD = "http://www.w3.org/2001/XMLSchema#"
RESULTS = "{http://www.w3.org/2005/sparql-results#}"
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"
# What XML 1.0 cannot hold, and is written as U+FFFD.
NOT_XML = {chr(c) for c in [*range(0x20), 0xFFFE, 0xFFFF]} - set("\t\n\r")

ODD: list[ox.NamedNode | ox.Literal] = [
    ox.NamedNode("http://example.org/a,b"),
    ox.NamedNode("http://example.org/q?x=1,2&y=3"),
    ox.Literal('say "hi"'),
    ox.Literal("carriage\rreturn"),
    ox.Literal("line\nfeed"),
    ox.Literal("crlf\r\nend"),
    ox.Literal("tab\there"),
    ox.Literal("\r"),
    ox.Literal("ctrl\x01char"),
    ox.Literal("not\ufffe\uffffchars"),
    ox.Literal("astral \U0001f600 \U00010348"),
    ox.Literal("a,b", language="en-gb"),
    ox.Literal('x"\r\n', datatype=ox.NamedNode("http://example.org/dt,1")),
    ox.Literal("12", datatype=ox.NamedNode(XSD + "integer")),
    ox.Literal(" padded "),
]


def odd_query() -> str:
    """One row per odd term, in order (``?i``), and one blank node. pyoxigraph writes each
    term as N-Triples, which SPARQL reads as is."""
    rows = " ".join(f"({i} {term})" for i, term in enumerate(ODD))
    return (
        f"SELECT ?i ?x WHERE {{ {{ VALUES (?i ?x) {{ {rows} }} }} "
        f'UNION {{ BIND({len(ODD)} AS ?i) BIND(BNODE("b") AS ?x) }} }} ORDER BY ?i'
    )


def csv_rows(body: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(body.decode("utf-8"), newline="")))


def in_xml(text: str) -> str:
    return "".join("\ufffd" if c in NOT_XML else c for c in text)


def as_rdflib(term: ox.NamedNode | ox.Literal, xml: bool = False) -> Any:
    if isinstance(term, ox.NamedNode):
        return URIRef(term.value)
    value = in_xml(term.value) if xml else term.value
    if term.language:
        return Literal(value, lang=term.language)
    datatype = None if term.datatype.value == XSD + "string" else URIRef(term.datatype.value)
    return Literal(value, datatype=datatype)


def check_csv(body: bytes) -> None:
    rows = csv_rows(body)
    assert rows[0] == ["i", "x"]
    assert [len(row) for row in rows] == [2] * (len(ODD) + 2)  # no cell split in two
    assert [row[1] for row in rows[1:-1]] == [term.value for term in ODD]
    assert rows[-1][1].startswith("_:")


def check_xml(body: bytes) -> None:
    root = ET.fromstring(body)  # well-formed: raises otherwise
    results = root.findall(f"{RESULTS}results/{RESULTS}result")
    assert len(results) == len(ODD) + 1
    for result, term in zip(results, ODD, strict=False):
        binding = result.find(f"{RESULTS}binding[@name='x']")
        assert binding is not None
        (node,) = list(binding)
        assert node.tag == RESULTS + ("uri" if isinstance(term, ox.NamedNode) else "literal")
        assert node.text == in_xml(term.value) or (node.text is None and term.value == "")
        if isinstance(term, ox.Literal) and term.language:
            assert node.get(XML_LANG) == term.language
    read = Result.parse(io.BytesIO(body), format="xml")
    found = [row["x"] for row in read]  # type: ignore[index]
    assert found[:-1] == [as_rdflib(term, xml=True) for term in ODD]
    assert isinstance(found[-1], BNode)


@pytest.mark.parametrize("fmt", ["csv", "xml"])
def test_the_endpoint_writes_odd_terms_a_standard_reader_reads_back(
    http: Any, server: Any, fmt: str
) -> None:
    reply = http.fetch(http.url(server.sparql, query=odd_query(), format=fmt))
    assert reply.status == 200, reply.text
    (check_csv if fmt == "csv" else check_xml)(reply.body)


def test_the_endpoints_json_holds_the_odd_terms_exactly(http: Any, server: Any) -> None:
    # The formats that can hold every character hold it: what CSV and XML are checked against.
    reply = http.fetch(http.url(server.sparql, query=odd_query(), format="json"))
    answer = ox.parse_query_results(reply.body, ox.QueryResultsFormat.JSON)
    assert isinstance(answer, ox.QuerySolutions)
    assert [row["x"] for row in answer][:-1] == ODD


def cli_args(store: Path) -> list[str]:
    return ["--store", str(store), odd_query()]


def test_the_cli_csv_keeps_each_odd_term_in_one_cell(scratch_store: Path) -> None:
    # Read as bytes: a text pipe would turn the carriage returns inside cells into line feeds.
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchgraph.cli",
            "query",
            "--format",
            "csv",
            *cli_args(scratch_store),
        ],
        capture_output=True,
        cwd=REPO,
        timeout=PATIENCE,
    )
    assert done.returncode == 0, done.stderr
    rows = csv_rows(done.stdout)
    assert rows[0] == ["i", "x"]
    assert [len(row) for row in rows] == [2] * (len(ODD) + 2)
    assert [row[1] for row in rows[1:-1]] == [term.value for term in ODD]
