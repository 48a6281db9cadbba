"""What a query is allowed to do, decided before it runs.

The engine would follow ``SERVICE`` out to the network, so every query is scanned first by a
lexer that knows SPARQL's strings, IRIs and comments. It refuses:

- updates (``INSERT``, ``DELETE``, ``LOAD`` … as the operation): this is a query endpoint, and
  user text only ever reaches ``Store.query``, whose parser cannot run an update anyway;
- ``SERVICE`` anywhere outside strings, IRIs and comments, including glued forms the engine
  accepts (``SERVICESILENT<…>``, ``trueSERVICE<…>``), so the word is refused even as the
  prefix of a prefixed name (``service:x``);
- queries whose tokens the engine could read differently (``<`` is both an IRI opener and the
  less-than operator: an IRI-like stretch holding ``'``, or holding ``#`` followed on its line
  by a multi-line string, could hide text from the lexer), when the query mentions "service";
- nesting deeper than :data:`MAX_DEPTH`, which would exhaust the engine's parser stack.

It also reports the query form and the ``FROM`` / ``FROM NAMED`` graphs, which the caller checks
against the store's graphs: nothing outside the store is ever fetched. Query workers cannot
open network sockets either (see :mod:`server.sandbox`), so a miss here still reaches nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urljoin

from benchgraph import sparqltext
from benchgraph.sparqltext import Token

MAX_DEPTH = 256

_UCHAR = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")
_LOCAL_ESCAPE = re.compile(r"\\(.)")
_QUERY_FORMS = {"SELECT", "ASK", "CONSTRUCT", "DESCRIBE"}
_UPDATES = sparqltext.UPDATES
_OPEN, _CLOSE = "({[", ")}]"


class Refused(Exception):
    """A query this endpoint will not run; the message says why and what to do."""


@dataclass(frozen=True)
class Inspection:
    form: str | None  # SELECT, ASK, CONSTRUCT or DESCRIBE (None when not recognised)
    from_graphs: tuple[str, ...] = ()
    from_named_graphs: tuple[str, ...] = ()

    @property
    def has_dataset(self) -> bool:
        return bool(self.from_graphs or self.from_named_graphs)


def _unescape_iri(iri: str) -> str:
    def char(match: re.Match[str]) -> str:
        return chr(int(match.group(1) or match.group(2), 16))

    return _UCHAR.sub(char, iri[1:-1])


def _check_service(text: str, tokens: list[Token]) -> None:
    for token in tokens:
        if token.kind != "name":
            continue
        word = token.text.upper()
        head = word.split(":", 1)[0] if ":" in word else word
        if "SERVICE" in head:
            raise Refused(
                "SERVICE (federated query) is not allowed: this endpoint only answers from its "
                "own store" + ("" if head == "SERVICE" else f" (refused because of {token.text!r})")
            )
    # An IRI-like stretch the engine may read as '<' followed by code.
    for token in tokens:
        if token.kind == "iri" and "'" in token.text:
            raise Refused(
                f"ambiguous query: {token.text!r} may be an IRI or a comparison; in a query "
                "that mentions 'service', write the apostrophe in the IRI as %27"
            )
    line_end = -1
    for token in tokens:
        if token.kind == "iri" and "#" in token.text:
            line_end = _line_end(text, token.end)
        elif token.kind == "long" and token.start < line_end < token.end:
            raise Refused(
                "ambiguous query: a multi-line string starts on the line of an IRI holding "
                "'#'; in a query that mentions 'service', start the string on a new line"
            )


def _line_end(text: str, start: int) -> int:
    ends = [i for i in (text.find("\n", start), text.find("\r", start)) if i >= 0]
    return min(ends) if ends else len(text)


def _check_depth(tokens: list[Token]) -> None:
    depth = 0
    for token in tokens:
        if token.kind != "other":
            continue
        if token.text in _OPEN:
            depth += 1
            if depth > MAX_DEPTH:
                raise Refused(f"the query nests brackets more than {MAX_DEPTH} levels deep")
        elif token.text in _CLOSE:
            depth = max(depth - 1, 0)


def inspect(text: str, base_iri: str | None = None) -> Inspection:
    """Scan a query: return its form and dataset clauses, or raise Refused.

    Syntax errors are left to the engine, whose message gives the position; ``base_iri``
    resolves relative IRIs in ``FROM`` clauses as the engine will.
    """
    tokens = sparqltext.tokens(text)
    _check_depth(tokens)
    if "service" in text.lower():
        _check_service(text, tokens)
    prefixes: dict[str, str] = {}
    base = base_iri
    form: str | None = None
    from_graphs: list[str] = []
    from_named: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        word = token.text.upper() if token.kind == "name" else ""
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        if form is None and word == "BASE" and after is not None and after.kind == "iri":
            base = _resolve(_unescape_iri(after.text), base)
            i += 2
            continue
        if form is None and word == "PREFIX" and i + 2 < len(tokens):
            name, value = tokens[i + 1], tokens[i + 2]
            if name.kind == "name" and name.text.endswith(":") and value.kind == "iri":
                prefixes[name.text[:-1]] = _resolve(_unescape_iri(value.text), base)
                i += 3
                continue
        if form is None and word:
            if word in _UPDATES:
                raise Refused(
                    f"SPARQL Update ({word}) is not accepted: this endpoint is read-only; "
                    "data changes only through `benchgraph ingest`"
                )
            form = word if word in _QUERY_FORMS else None
            if form is None:
                break  # not a query the lexer understands: the engine will say why
        elif word == "FROM" and after is not None:
            named = after.kind == "name" and after.text.upper() == "NAMED"
            target = tokens[i + 2] if named and i + 2 < len(tokens) else after
            iri = _graph_iri(target, prefixes, base)
            if iri is not None:
                (from_named if named else from_graphs).append(iri)
        i += 1
    return Inspection(form, tuple(from_graphs), tuple(from_named))


def _resolve(iri: str, base: str | None) -> str:
    return urljoin(base, iri) if base else iri


def _graph_iri(token: Token, prefixes: dict[str, str], base: str | None) -> str | None:
    if token.kind == "iri":
        return _resolve(_unescape_iri(token.text), base)
    if token.kind == "name" and ":" in token.text:
        prefix, _, local = token.text.rstrip(".").partition(":")
        if prefix in prefixes:
            return prefixes[prefix] + _LOCAL_ESCAPE.sub(r"\1", local)
    return None
