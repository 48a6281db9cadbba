"""The ``benchgraph query`` command: a named query, a query file, stdin or the query text itself,
answered in a format that fits its form.

Everything that can be refused is refused before the store opens: an unknown name, a file that
is not there, a malformed header or parameter, an update, text the parser refuses, and a
``--format`` that does not fit the query's form.
"""

from __future__ import annotations

import argparse
import csv
import sys

import pyoxigraph as ox

from benchgraph import queries, sparqltext
from benchgraph import vocab as V
from benchgraph.cli.console import EXIT_OK, existing_store, store_option
from benchgraph.media import GRAPH_FORMATS, RESULTS_FORMATS
from benchgraph.queries import NamedQuery, QueryError
from benchgraph.store import Answer, Triples

# The formats each query form is printed in; the first is its default. ``table`` and ``csv``
# print each term's value; ``tsv`` and ``json`` are the W3C SPARQL 1.1 Query Results formats.
_GRAPH = ("turtle", "ntriples", "jsonld")
FORMATS: dict[str, tuple[str, ...]] = {
    "SELECT": ("table", "csv", "tsv", "json"),
    "ASK": ("table", "json"),
    "CONSTRUCT": _GRAPH,
    "DESCRIBE": _GRAPH,
}


def _listed(names: tuple[str, ...], last: str = "or") -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {last} {names[-1]}"


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``query`` command to the ``benchgraph`` command line."""
    command = commands.add_parser(
        "query",
        help="run a named query, a .rq or .sparql file, or SPARQL text (- reads stdin)",
        description="Run a SPARQL query over the store: a named query (the stem of a file in "
        "queries/), a .rq or .sparql file (a '#+' header is optional; its parameters then "
        "work with --param), - to read the query from stdin, or the query text itself (an "
        "argument holding white space or '{'). Updates are refused. Exit codes: 0 answered; "
        "2 a query, parameter or --format refused, or a store error; 141 the output was "
        "closed before it was complete (`| head`).",
    )
    command.add_argument("query", metavar="QUERY", help="a name, a file, - or the text")
    command.add_argument(
        "--param", action="append", default=[], metavar="NAME=VALUE", help="a query parameter"
    )
    forms: dict[tuple[str, ...], list[str]] = {}
    for form, names in FORMATS.items():
        forms.setdefault(names, []).append(form)
    fitting = "; ".join(
        f"{_listed(tuple(f), 'and')}: {_listed(names)} (default {names[0]})"
        for names, f in forms.items()
    )
    command.add_argument(
        "--format",
        choices=tuple(dict.fromkeys(n for names in FORMATS.values() for n in names)),
        help=f"{fitting}. json is the W3C SPARQL 1.1 Query Results JSON document.",
    )
    store_option(command)
    command.set_defaults(handler=run_query)


def form_of(named: NamedQuery) -> str:
    """The form of ``named`` (SELECT, ASK, CONSTRUCT or DESCRIBE), read from its text before
    anything runs. Raises QueryError, naming where the query came from, for an update or for
    text the parser refuses."""
    word = sparqltext.operation(named.text)
    if word in sparqltext.UPDATES:
        raise QueryError(
            f"{named.where}: SPARQL Update ({word}) is not accepted: `benchgraph query` only "
            "reads; data changes only through `benchgraph ingest`"
        )
    form = sparqltext.query_form(named.text)
    if form == "ASK" and "SERVICE" in sparqltext.keywords(named.text):
        return form  # an ASK is evaluated at once, and would call the service: the store parses it
    # The engine parses it over an empty store in memory: a SELECT or a graph is evaluated only
    # as it is read, and an ASK over nothing at once, so this costs the parse alone.
    try:
        parsed = ox.Store().query(named.text)
    except SyntaxError as error:
        raise QueryError(f"{named.where}: {error}") from None
    if form is not None:
        return form
    if isinstance(parsed, ox.QueryBoolean):
        return "ASK"
    return "CONSTRUCT" if isinstance(parsed, ox.QueryTriples) else "SELECT"


def run_query(args: argparse.Namespace) -> int:
    """Handler of ``benchgraph query``."""
    named = queries.given(args.query, sys.stdin)
    form = form_of(named)
    fmt = args.format or FORMATS[form][0]
    if fmt not in FORMATS[form]:
        raise QueryError(
            f"{named.where}: --format {fmt} does not fit {'an' if form == 'ASK' else 'a'} "
            f"{form} query; use {_listed(FORMATS[form])}"
        )
    values: dict[str, str] = {}
    for item in args.param:
        name, sep, value = item.partition("=")
        if not sep:
            raise QueryError(f"--param {item!r}: expected NAME=VALUE")
        values[name] = value
    named.bind(values)  # a bad parameter is refused before the store is opened
    with existing_store(args) as store:
        try:
            answer = store.answer(named, values)
        except SyntaxError as error:
            raise QueryError(f"{named.where}: {error}") from None
        write(answer, fmt)
    return EXIT_OK


def write(answer: Answer, fmt: str) -> None:
    """Print ``answer`` on stdout in the format ``fmt`` (one that fits its form)."""
    out = sys.stdout.buffer
    if isinstance(answer, Triples):
        ox.serialize(answer, out, GRAPH_FORMATS[fmt], prefixes=V.PREFIXES)
    elif fmt in ("json", "tsv"):
        answer.serialize(out, RESULTS_FORMATS[fmt])
    elif isinstance(answer, ox.QueryBoolean):
        print("true" if bool(answer) else "false")
    else:
        names = [v.value for v in answer.variables]
        rows = [[_cell(solution[n]) for n in names] for solution in answer]
        if fmt == "csv":
            writer = csv.writer(sys.stdout, lineterminator="\n")
            writer.writerow(names)
            writer.writerows(rows)
        else:
            _print_table(names, rows)
    if fmt in ("json", "jsonld"):
        out.write(b"\n")  # a document on one line: end the line


def _cell(term: object) -> str:
    if term is None:
        return ""
    return str(getattr(term, "value", term))


def _print_table(names: list[str], rows: list[list[str]]) -> None:
    widths = [max([len(n)] + [len(r[i]) for r in rows]) for i, n in enumerate(names)]
    print("  ".join(n.ljust(w) for n, w in zip(names, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
    print(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
