"""What a query is allowed to do, decided before it runs. The guard only refuses: it never
rewrites a query, and never gives the engine a dataset of its own reading.

Two readers look at a query. A lexer that knows SPARQL's strings, IRIs and comments
(:mod:`benchgraph.sparqltext`) refuses, cheaply and before anything else:

- nesting deeper than :data:`MAX_DEPTH`, which would exhaust the engine's parser stack;
- updates (``INSERT``, ``DELETE``, ``LOAD`` … as the operation): user text only ever reaches
  the engine's query parser, which cannot run an update anyway.

A SPARQL parser (rdflib's) then reads what the query names, when the lexer finds a ``FROM`` or
the word "service" anywhere in the text:

- ``SERVICE`` (federated query) is refused when the parsed query holds a service pattern
  anywhere (a ``FILTER EXISTS``, a subquery …); a name that only contains the word
  (``?service``, ``webservice:p`` with ``webservice:`` declared) is no SERVICE. As a second
  check, the lexer refuses a word it takes for the keyword (``SERVICE``, or glued:
  ``SERVICESILENT<…>``; a prefixed name with an undeclared prefix holding it, which the engine
  splits: ``trueservice:x`` is ``true`` then ``SERVICE :x``), and an IRI-like stretch the
  engine could read as code (``<`` is also less-than: a stretch holding ``'``, or holding ``#``
  followed on its line by a multi-line string): where the parser found no service, the two
  readings disagree.
- The ``FROM`` / ``FROM NAMED`` graphs are read as the engine reads them: BASE and PREFIX
  applied, relative IRIs resolved by the engine's own resolver (RFC 3987), nothing else
  normalised (``<HTTP://example.org/g>`` is not ``<http://example.org/g>``). The caller checks
  them against the store's graphs (:func:`outside`); the engine still reads the query's own.

A query the parser cannot read (SPARQL 1.2 syntax such as ``LATERAL``, or one too long or deep
for it) goes to the engine unchanged, its ``FROM`` unread; the lexer alone then refuses any
word holding "service" outside strings, IRIs and comments, even as a prefix (``service:x``).
Nothing outside the store is ever fetched either way: the engine reads ``FROM`` graphs from the
store only, and query workers cannot open network sockets (:mod:`server.sandbox`).

``/sparql`` runs :func:`screen` in the server, and :func:`inspect` in the query worker, within
the query's time limit (the parser takes about 0.2 ms per byte of query). The owner's path
(``/_store/query``) and ``benchgraph query`` run :func:`inspect` before the engine sees the
query, in their own process, which can reach the network.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

import pyoxigraph as ox

from benchgraph import sparqltext
from benchgraph.sparqltext import Token

MAX_DEPTH = 256

_QUERY_FORMS = {"SELECT", "ASK", "CONSTRUCT", "DESCRIBE"}
_PARSED_FORMS = {f"{form.title()}Query": form for form in _QUERY_FORMS}
_UPDATES = sparqltext.UPDATES
_OPEN, _CLOSE = "({[", ")}]"
_LOCAL_ESCAPE = re.compile(r"\\(.)")
# What an IRI cannot hold as it is written in Turtle: written as \u escapes, which it unescapes.
_NOT_IN_IRIREF = re.compile(r'[\x00-\x20<>"{}|^`\\]')
_SERVICE = "SERVICE (federated query) is not allowed: queries are answered from this store alone"


class Refused(Exception):
    """A query that will not be run; the message says why and what to do. ``graph``: the graph
    it names that the store does not hold, when that is why."""

    def __init__(self, message: str, graph: str | None = None) -> None:
        super().__init__(message)
        self.graph = graph


@dataclass(frozen=True)
class Inspection:
    """What the guard read of a query: its form (SELECT, ASK, CONSTRUCT or DESCRIBE; None when
    not recognised) and the graphs its ``FROM`` / ``FROM NAMED`` clauses name, resolved as the
    engine resolves them (empty when it has none, or when the parser could not read it)."""

    form: str | None
    from_graphs: tuple[str, ...] = ()
    from_named_graphs: tuple[str, ...] = ()


def screen(text: str) -> str | None:
    """The lexer's checks alone, cheap enough for any text: return the query's form (None when
    not recognised: the engine will say what is wrong). Raises Refused for nesting deeper than
    :data:`MAX_DEPTH` or an update."""
    return _screen(text, sparqltext.tokens(text))


def _screen(text: str, tokens: list[Token]) -> str | None:
    _check_depth(tokens)
    word = sparqltext.operation(text)
    if word in _UPDATES:
        raise Refused(
            f"SPARQL Update ({word}) is not accepted: this endpoint is read-only; "
            "data changes only through `benchgraph ingest`"
        )
    return word if word in _QUERY_FORMS else None


def inspect(text: str, base_iri: str | None = None) -> Inspection:
    """Check a query and read its dataset (see the module); ``base_iri`` is the base the
    engine is given. Raises Refused for what the query may not do. Syntax errors are left to
    the engine, whose message gives the position."""
    tokens = sparqltext.tokens(text)
    form = _screen(text, tokens)
    mentions_service = "service" in text.lower()
    if not (mentions_service or any(_is_word(t, "FROM") for t in tokens)):
        return Inspection(form)
    parsed = _parse(text)
    if parsed is None:  # the engine reads it alone: the lexer refuses any sign of SERVICE
        if mentions_service:
            _check_service(text, tokens, declared=None)
        return Inspection(form)
    prologue, query = parsed
    if _has_service(query):
        raise Refused(_SERVICE)
    if mentions_service:
        declared = {_part(d, "prefix") for d in prologue if d.name == "PrefixDecl"}
        _check_service(text, tokens, declared=declared)
    dataset = _dataset(prologue, query, base_iri)
    if dataset is None:
        return Inspection(_PARSED_FORMS.get(query.name, form))
    return Inspection(_PARSED_FORMS.get(query.name, form), *dataset)


def outside(inspection: Inspection, graphs: Collection[str]) -> None:
    """Raise Refused (with its ``graph``) for the first ``FROM`` / ``FROM NAMED`` graph of
    ``inspection`` that is not one of ``graphs``, the store's."""
    check_graphs("FROM", inspection.from_graphs, graphs)
    check_graphs("FROM NAMED", inspection.from_named_graphs, graphs)


def check_graphs(where: str, names: Iterable[str], graphs: Collection[str]) -> None:
    """Raise Refused (with its ``graph``) for the first of ``names`` (the graphs ``where``
    names: a clause, a parameter) that is not one of ``graphs``, the store's."""
    for name in names:
        if name not in graphs:
            raise Refused(
                f"{where} <{name}> is not a graph of this store; nothing outside the store is "
                "ever read (the store's graphs are listed in the Service Description, GET "
                "/sparql)",
                graph=name,
            )


def _is_word(token: Token, word: str) -> bool:
    return token.kind == "name" and token.text.upper() == word


def _parse(text: str) -> tuple[list[Any], Any] | None:
    """The prologue and the query of ``text`` as rdflib's SPARQL parser reads them; None when it
    cannot (its grammar is SPARQL 1.1, and it recurses as deep as the query nests)."""
    from rdflib.plugins.sparql.parser import parseQuery  # loaded when a query needs it

    try:
        prologue, query = parseQuery(text)
    except (Exception, RecursionError):  # a query it cannot read, whatever the error
        return None
    return list(prologue), query


def _has_service(query: Any) -> bool:
    """Whether the parsed ``query`` holds a SERVICE pattern anywhere."""
    from pyparsing import ParseResults
    from rdflib.plugins.sparql.parserutils import CompValue

    pending = [query]
    while pending:  # walked without recursion: a parsed query can nest deeply
        node = pending.pop()
        if isinstance(node, CompValue):
            if node.name == "ServiceGraphPattern":
                return True
            pending.extend(node.values())
        elif isinstance(node, list | ParseResults):
            pending.extend(node)
    return False


def _dataset(
    prologue: list[Any], query: Any, base_iri: str | None
) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The graphs of the parsed query's ``FROM`` and ``FROM NAMED`` clauses, resolved as the
    engine resolves them; None when one cannot be resolved (the engine then says why)."""
    base = base_iri
    prefixes: dict[str, str] = {}
    found: dict[str, list[str]] = {"default": [], "named": []}
    try:
        for declaration in prologue:  # in order: a BASE applies to what follows it
            iri = _resolve(str(declaration["iri"]), base)
            if declaration.name == "Base":
                base = iri
            else:
                prefixes[_part(declaration, "prefix")] = iri
        for clause in query.get("datasetClause", None) or ():
            for kind in found:
                if kind in clause:
                    found[kind].append(_graph(clause[kind], prefixes, base))
    except (KeyError, SyntaxError, ValueError):
        return None
    return tuple(found["default"]), tuple(found["named"])


def _part(node: Any, name: str) -> str:
    """The text of a parsed node's part ``name`` (empty when absent: the empty prefix)."""
    return str(node[name]) if name in node else ""


def _graph(iri: Any, prefixes: dict[str, str], base: str | None) -> str:
    """A parsed IRI or prefixed name, as the engine reads it. Raises KeyError for an undeclared
    prefix, SyntaxError for an IRI the engine would refuse."""
    if getattr(iri, "name", None) == "pname":
        local = _LOCAL_ESCAPE.sub(r"\1", _part(iri, "localname"))
        return prefixes[_part(iri, "prefix")] + local
    return _resolve(str(iri), base)


def _resolve(iri: str, base: str | None) -> str:
    """``iri`` resolved against ``base`` by the engine's own resolver (Oxigraph's, reached
    through its Turtle parser; it resolves SPARQL's IRIs the same way). Raises SyntaxError for
    an IRI it refuses, or a relative one without a base."""

    def escaped(match: re.Match[str]) -> str:
        return f"\\u{ord(match.group()):04X}"

    document = f"<{_NOT_IN_IRIREF.sub(escaped, iri)}> a <urn:x:x> .".encode()
    (quad,) = ox.parse(document, format=ox.RdfFormat.TURTLE, base_iri=base)
    return str(quad.subject.value)


def _check_service(text: str, tokens: list[Token], *, declared: set[str] | None) -> None:
    """The lexer's reading of SERVICE: raise Refused for a word holding it, or for an IRI-like
    stretch the engine may read as code. A prefixed name whose prefix is one of ``declared``
    is let through (the engine reads it as a name: undeclared, ``trueservice:x`` is ``true``
    then ``SERVICE :x`` to it); None: none is, the query's declarations being unread."""
    for token in tokens:
        if token.kind != "name":
            continue
        prefix, colon, _ = token.text.partition(":")
        if colon and declared is not None and prefix in declared:
            continue
        head = (prefix if colon else token.text).upper()
        if "SERVICE" in head:
            because = "" if head == "SERVICE" else f" (refused because of {token.text!r})"
            raise Refused(_SERVICE + because)
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
