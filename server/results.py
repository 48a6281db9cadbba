"""SELECT answers written from their rows, one row after another: the W3C SPARQL 1.1 Query
Results formats (JSON, XML, CSV and TSV).

pyoxigraph's own serializer writes every solution an answer has left, and the server keeps at
most ``max_rows``: the engine reads the rows once (:mod:`server.engine`) and the format asked for
is written from those kept here. JSON and TSV are byte for byte as pyoxigraph writes them
(``tests/server/test_results.py`` holds them to its bytes). CSV and XML are not where
pyoxigraph's are wrong: a CSV cell holding a comma, a quote or a line break is quoted whatever
its term (pyoxigraph leaves IRIs and blank nodes bare, so an IRI with a comma splits in two),
and XML writes a carriage return as ``&#13;`` (a reader turns a raw one into a line feed) and
each character XML 1.0 cannot hold (U+0000–U+001F but tab and line breaks, U+FFFE, U+FFFF) as
U+FFFD, the replacement character, where pyoxigraph writes it raw and the document is not XML.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence

import pyoxigraph as ox

from benchgraph import vocab as V
from benchgraph.media import csv_cell
from benchgraph.sparqltext import Term

Row = Sequence[Term | None]  # one term (None: unbound) per variable, in the answer's order

_STRING = V.XSD + "string"
# Literals TSV writes bare, as Turtle does: each datatype with the lexical form of its token.
_BARE = {
    V.XSD + "boolean": re.compile(r"true|false"),
    V.XSD + "integer": re.compile(r"[+-]?[0-9]+"),
    V.XSD + "decimal": re.compile(r"[+-]?[0-9]*\.[0-9]+"),
    V.XSD + "double": re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][+-]?[0-9]+"),
}
_ITS = 'xmlns:its="http://www.w3.org/2005/11/its" its:version="2.0"'
_WHITE = " \t\n\r"  # XML's white space
# What XML 1.0 character data cannot hold as it is: markup, the carriage return (a reader turns
# it into a line feed: written as a reference), and the characters it cannot hold at all.
_XML_SPECIAL = re.compile("[&<>'\"\r\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")
_XML_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "'": "&apos;", '"': "&quot;", "\r": "&#13;"}
_NOT_XML = "\ufffd"  # written for a character XML 1.0 cannot hold
_XML_HEAD = '<?xml version="1.0"?><sparql xmlns="http://www.w3.org/2005/sparql-results#">'


def write(fmt: str, names: Sequence[str], rows: Sequence[Row]) -> bytes:
    """The answer with variables ``names`` and solutions ``rows`` in the results format with
    media key ``fmt`` (json, xml, csv or tsv). Raises KeyError for another key."""
    return _WRITERS[fmt](names, rows)


def _memo(text: Callable[[Term], str]) -> Callable[[Term], str]:
    """``text``, remembering what it wrote for each term: an answer repeats its IRIs."""
    seen: dict[Term, str] = {}

    def cached(term: Term) -> str:
        found = seen.get(term)
        if found is None:
            found = seen[term] = text(term)
        return found

    return cached


def _direction(literal: ox.Literal) -> str:
    """The literal's base direction, ``ltr`` or ``rtl``; empty when it has none."""
    return str(literal.direction) if literal.direction is not None else ""


# JSON (https://www.w3.org/TR/sparql11-results-json/)


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def _json_term(term: Term) -> str:
    if isinstance(term, ox.NamedNode):
        return f'{{"type":"uri","value":{_quoted(term.value)}}}'
    if isinstance(term, ox.BlankNode):
        return f'{{"type":"bnode","value":{_quoted(term.value)}}}'
    if isinstance(term, ox.Literal):
        extra = ""
        if term.language:
            extra = f',"xml:lang":{_quoted(term.language)}'
            if term.direction is not None:
                extra += f',"its:dir":"{_direction(term)}"'
        elif term.datatype.value != _STRING:
            extra = f',"datatype":{_quoted(term.datatype.value)}'
        return f'{{"type":"literal","value":{_quoted(term.value)}{extra}}}'
    parts = (_json_term(term.subject), _json_term(term.predicate), _json_term(term.object))
    return '{{"type":"triple","value":{{"subject":{},"predicate":{},"object":{}}}}}'.format(*parts)


def _json(names: Sequence[str], rows: Sequence[Row]) -> bytes:
    keys = [f"{_quoted(name)}:" for name in names]
    term = _memo(_json_term)
    bindings = ",".join(
        "{" + ",".join([k + term(t) for k, t in zip(keys, row, strict=True) if t is not None]) + "}"
        for row in rows
    )
    head = ",".join(_quoted(name) for name in names)
    text = f'{{"head":{{"vars":[{head}]}},"results":{{"bindings":[{bindings}]}}}}'
    return text.encode("utf-8")


def cut(fmt: str, body: bytes, rows: int) -> bytes:
    """The answer ``body`` in ``fmt``, cut at ``rows`` rows, saying so where its format can: a
    JSON answer gets the top-level member ``"benchgraph": {"truncated": true, "rows": N}``,
    which SPARQL JSON readers pass over (they read ``head`` and ``results``). The other formats
    stay as they are (a CSV or TSV row would be read as data): their ``Benchgraph-Truncated``
    header says it."""
    if fmt != "json":
        return body
    assert body.endswith(b"}")
    return body[:-1] + b',"benchgraph":{"truncated":true,"rows":%d}}' % rows


# XML (https://www.w3.org/TR/rdf-sparql-XMLres/)


def _escaped(text: str) -> str:
    """``text`` as XML character data or an attribute value: markup and carriage returns as
    references, a character XML 1.0 cannot hold as U+FFFD."""
    return _XML_SPECIAL.sub(lambda found: _XML_ESCAPES.get(found[0], _NOT_XML), text)


def _character_data(text: str) -> str:
    """A literal's value as XML character data: white space that opens or ends it written as
    character references (so that a reader trimming white space keeps it)."""
    core = text.strip(_WHITE)
    if core == text:
        return _escaped(text)
    if not core:
        return _references(text)
    start = len(text) - len(text.lstrip(_WHITE))
    end = len(text.rstrip(_WHITE))
    return _references(text[:start]) + _escaped(core) + _references(text[end:])


def _references(white: str) -> str:
    return "".join(f"&#{ord(c)};" for c in white)


def _xml_term(term: Term) -> str:
    if isinstance(term, ox.NamedNode):
        return f"<uri>{_escaped(term.value)}</uri>"
    if isinstance(term, ox.BlankNode):
        return f"<bnode>{_escaped(term.value)}</bnode>"
    if isinstance(term, ox.Literal):
        attributes = ""
        if term.language:
            attributes = f' xml:lang="{_escaped(term.language)}"'
            if term.direction is not None:
                attributes += f' its:dir="{_direction(term)}" {_ITS}'
        elif term.datatype.value != _STRING:
            attributes = f' datatype="{_escaped(term.datatype.value)}"'
        return f"<literal{attributes}>{_character_data(term.value)}</literal>"
    return (
        f"<triple><subject>{_xml_term(term.subject)}</subject>"
        f"<predicate>{_xml_term(term.predicate)}</predicate>"
        f"<object>{_xml_term(term.object)}</object></triple>"
    )


def _xml(names: Sequence[str], rows: Sequence[Row]) -> bytes:
    opens = [f'<binding name="{_escaped(name)}">' for name in names]
    term = _memo(_xml_term)
    results = "".join(
        "<result>"
        + "".join(
            [f"{o}{term(t)}</binding>" for o, t in zip(opens, row, strict=True) if t is not None]
        )
        + "</result>"
        for row in rows
    )
    head = "".join(f'<variable name="{_escaped(name)}"/>' for name in names)
    text = f"{_XML_HEAD}<head>{head}</head><results>{results}</results></sparql>"
    return text.encode("utf-8")


# CSV and TSV (https://www.w3.org/TR/sparql11-results-csv-tsv/)


def _csv_text(term: Term) -> str:
    """A term's text in a CSV cell, before quoting."""
    if isinstance(term, ox.NamedNode | ox.Literal):
        return term.value
    if isinstance(term, ox.BlankNode):
        return f"_:{term.value}"
    return f"{_csv_text(term.subject)} {_csv_text(term.predicate)} {_csv_text(term.object)}"


def _csv_term(term: Term) -> str:
    """A term as a CSV cell, quoted as RFC 4180 has it."""
    return csv_cell(_csv_text(term))


def _csv(names: Sequence[str], rows: Sequence[Row]) -> bytes:
    term = _memo(_csv_term)
    lines = [",".join(names)]
    lines += [",".join(["" if t is None else term(t) for t in row]) for row in rows]
    lines.append("")
    return "\r\n".join(lines).encode("utf-8")


def _tsv_string(text: str) -> str:
    if any(c in text for c in '\\"\t\n\r'):
        text = (
            text.replace("\\", "\\\\")
            .replace('"', '\\"')
            .replace("\t", "\\t")
            .replace("\n", "\\n")
            .replace("\r", "\\r")
        )
    return f'"{text}"'


def _tsv_term(term: Term) -> str:
    if isinstance(term, ox.NamedNode):
        return f"<{term.value}>"
    if isinstance(term, ox.BlankNode):
        return f"_:{term.value}"
    if isinstance(term, ox.Literal):
        if term.language:
            direction = f"--{_direction(term)}" if term.direction is not None else ""
            return f"{_tsv_string(term.value)}@{term.language}{direction}"
        datatype = term.datatype.value
        bare = _BARE.get(datatype)
        if bare is not None and bare.fullmatch(term.value):
            return term.value
        if datatype == _STRING:
            return _tsv_string(term.value)
        return f"{_tsv_string(term.value)}^^<{datatype}>"
    parts = (_tsv_term(term.subject), _tsv_term(term.predicate), _tsv_term(term.object))
    return "<<( {} {} {} )>>".format(*parts)


def _tsv(names: Sequence[str], rows: Sequence[Row]) -> bytes:
    term = _memo(_tsv_term)
    lines = ["\t".join(f"?{name}" for name in names)]
    lines += ["\t".join(["" if t is None else term(t) for t in row]) for row in rows]
    lines.append("")
    return "\n".join(lines).encode("utf-8")


_WRITERS: dict[str, Callable[[Sequence[str], Sequence[Row]], bytes]] = {
    "json": _json,
    "xml": _xml,
    "csv": _csv,
    "tsv": _tsv,
}
