"""The ``benchgraph query`` command: a named query, a query file, stdin or the query text itself,
answered in a format that fits its form.

Everything that can be refused is refused before the store opens: an unknown name, a file that
is not there, a malformed header or parameter, an update, a ``SERVICE`` (the endpoint's guard,
:mod:`server.guard`: the answer comes from the store alone), text the parser refuses (said at
its line and column, the line quoted: :mod:`benchgraph.syntax`), and a ``--format`` or
``--columns`` that does not fit the query's form. A query given as text, a file or on stdin
may use the predeclared prefixes (:mod:`benchgraph.prefixes`); its relative IRIs are resolved
against :data:`BASE_IRI`, the base of the store's resources. A query the engine cannot
evaluate (an unknown function) is said in one line, as any refusal. The table writes IRIs with
those prefixes and fits the terminal (:mod:`benchgraph.cli.table`); a table with ``result``
and ``value`` columns gets an ``interval`` column where results have a published interval.
"""

from __future__ import annotations

import argparse
import re
import sys

import pyoxigraph as ox

from benchgraph import answering, prefixes, queries, sparqltext, syntax
from benchgraph import vocab as V
from benchgraph.cli import table
from benchgraph.cli.console import EXIT_OK, existing_store, store_option
from benchgraph.media import GRAPH_FORMATS, RESULTS_FORMATS, csv_cell
from benchgraph.queries import NamedQuery, QueryError
from benchgraph.store import Answer, Store, Triples
from benchgraph.store.served import ServedStore
from server import guard

# The base of the query's relative IRIs: that of the store's resources (<result/…> is a result).
BASE_IRI = V.ID

# The formats each query form is printed in; the first is its default. ``table`` and ``csv``
# print each term's value (the table an IRI with a predeclared prefix); ``tsv`` and ``json``
# are the W3C SPARQL 1.1 Query Results formats.
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
        "argument holding white space or '{'); such a query may use the predeclared prefixes "
        "(bg:, rdfs:, xsd:, ...; docs/queries.md lists them). Updates are refused. The table "
        "fits the terminal's width. Exit codes: 0 answered; "
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
    command.add_argument(
        "--columns",
        metavar="A,B,C",
        help="the columns of a SELECT's answer to print, in this order (table and csv); the "
        "table's own 'interval' column among them",
    )
    command.add_argument(
        "--width",
        type=_width,
        metavar="N",
        help="fit the table in N columns (default: the terminal's width on a terminal, no "
        "limit into a pipe or a file)",
    )
    store_option(command)
    command.set_defaults(handler=run_query)


def _width(text: str) -> int:
    try:
        width = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of columns") from None
    if width < table.MIN_WIDTH:
        raise argparse.ArgumentTypeError(
            f"{width}: a table needs {table.MIN_WIDTH} columns at least"
        )
    return width


def form_of(named: NamedQuery) -> str:
    """The form of ``named`` (SELECT, ASK, CONSTRUCT or DESCRIBE), read from its text before
    anything runs. Raises QueryError, naming where the query came from, for an update, for what
    the guard refuses (SERVICE), for text the parser refuses, and for a query the engine
    cannot evaluate (an unknown function)."""
    word = sparqltext.operation(named.text)
    if word in sparqltext.UPDATES:
        raise QueryError(
            f"{named.where}: SPARQL Update ({word}) is not accepted: `benchgraph query` only "
            "reads; data changes only through `benchgraph ingest`"
        )
    try:
        form = guard.inspect(named.text, BASE_IRI).form
    except guard.Refused as refusal:
        raise QueryError(f"{named.where}: {refusal}") from None
    # The engine parses it over an empty store in memory: a SELECT or a graph is evaluated only
    # as it is read, and an ASK over nothing at once, so this costs the parse alone.
    try:
        parsed = ox.Store().query(named.text, base_iri=BASE_IRI)
    except SyntaxError as error:
        raise refused(named, error) from None
    except EVALUATION_ERRORS as error:
        raise unevaluated(named, error) from None
    if form is not None:
        return form
    if isinstance(parsed, ox.QueryBoolean):
        return "ASK"
    return "CONSTRUCT" if isinstance(parsed, ox.QueryTriples) else "SELECT"


# What the engine raises for a query it parsed but cannot evaluate, at once or as the answer is
# read: an unknown function (RuntimeError), a failed operation (OSError), a bad value.
EVALUATION_ERRORS = (OSError, RuntimeError, ValueError, TypeError)


def unevaluated(named: NamedQuery, error: Exception) -> QueryError:
    """The QueryError for a query the engine could not evaluate, naming where it came from."""
    return QueryError(f"{named.where}: the query could not be evaluated: {error}")


def refused(named: NamedQuery, error: SyntaxError) -> QueryError:
    """The QueryError for the parser's ``error`` about ``named``: where it came from, the line
    and column in its text as given, what is wrong in words, and the line quoted with a caret
    under the place (see :mod:`benchgraph.syntax`)."""
    problem = syntax.explain(str(error), named.text, named.added)
    excerpt = problem.excerpt()
    return QueryError(f"{named.where}: {problem}" + (f"\n{excerpt}" if excerpt else ""))


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
    columns = _columns(args.columns, form, fmt)
    values: dict[str, str] = {}
    for item in args.param:
        name, sep, value = item.partition("=")
        if not sep:
            raise QueryError(f"--param {item!r}: expected NAME=VALUE")
        values[name] = value
    bound = named.bind(values)  # a bad parameter is refused before the store is opened
    reads_past = queries.reads_past(named, bound)
    with existing_store(args, only_reads=True) as store:
        if isinstance(store, ServedStore):  # answered in a worker, as /sparql answers
            store.bounded = True
        try:
            _answer(store, named, values, reads_past, fmt, columns, args.width)
        except SyntaxError as error:
            raise refused(named, error) from None
        except BrokenPipeError:
            raise  # the reader of the output went away: not the query's fault
        except EVALUATION_ERRORS as error:
            raise unevaluated(named, error) from None
    return EXIT_OK


def _answer(
    store: Store,
    named: NamedQuery,
    values: dict[str, str],
    reads_past: bool,
    fmt: str,
    columns: list[str] | None,
    width: int | None,
) -> None:
    """Run ``named`` with ``values`` on ``store`` and print its answer in ``fmt`` (a table with
    intervals unless the query ``reads_past``). Raises what the store and the engine raise
    (see :data:`EVALUATION_ERRORS`)."""
    answer = answering.answer(store, named, values, BASE_IRI)
    if isinstance(answer, ox.QuerySolutions) and fmt in ("table", "csv"):
        names, rows = _rows(answer)
        if fmt == "table" and not reads_past:
            names, rows = _with_intervals(store, names, rows)
        _print_rows(names, rows, fmt, columns, width)
    else:
        write(answer, fmt, width)


def _columns(given: str | None, form: str, fmt: str) -> list[str] | None:
    """The column names ``--columns`` gives (None: all). Raises QueryError when the query is
    no SELECT or its format (json, tsv) prints every column."""
    if given is None:
        return None
    if form != "SELECT" or fmt not in ("table", "csv"):
        raise QueryError(
            f"--columns picks the columns of a SELECT's answer as a table or csv, not of "
            f"{'an' if form == 'ASK' else 'a'} {form} query's as {fmt}"
        )
    names = [n.strip().lstrip("?$") for n in given.split(",") if n.strip()]
    if not names:
        raise QueryError("--columns: expected column names, such as --columns methodLabel,value")
    return names


Cell = ox.NamedNode | ox.BlankNode | ox.Literal | ox.Triple | str | None
_PRINTED = re.compile(r"\[\s*([-+]?[\d.]+)\s*,\s*([-+]?[\d.]+)\s*\]")  # "[3.9,5.0]"


def _rows(answer: ox.QuerySolutions) -> tuple[list[str], list[list[Cell]]]:
    names = [v.value for v in answer.variables]
    return names, [[solution[n] for n in names] for solution in answer]


def _with_intervals(
    store: Store, names: list[str], rows: list[list[Cell]]
) -> tuple[list[str], list[list[Cell]]]:
    """``names`` and ``rows``, with an ``interval`` column after ``value`` when the answer has
    ``value`` and ``result`` columns, no interval columns of its own, and a result with a
    confidence interval: ``lower–upper``, the bounds as the page printed them when the store
    kept that text; for a result with no published interval but one benchgraph derived,
    ``lower–upper derived (Wilson, n=200)``. Raises StoreError when the store cannot answer."""
    if not {"result", "value"} <= set(names) or {"ciLower", "ciUpper", "interval"} & set(names):
        return names, rows
    at = names.index("result")
    results = {cell.value: cell for row in rows if isinstance(cell := row[at], ox.NamedNode)}
    if not results:
        return names, rows
    text = sparqltext.with_values(queries.internal("intervals"), "result", list(results.values()))
    found = store.query(text)
    assert isinstance(found, ox.QuerySolutions)
    intervals: dict[str, str] = {}
    derived: dict[str, str] = {}
    for row in found:
        result, low, high = row["result"], row["ciLower"], row["ciUpper"]
        if result is not None and low is not None and high is not None:
            # The bounds as the page printed them ("[3.9,5.0]"), else as stored ("3.9", "5").
            printed = _PRINTED.fullmatch(_cell(row["published"]))
            bounds = printed.groups() if printed else (_cell(low), _cell(high))
            intervals[_cell(result)] = "–".join(bounds)
        elif result is not None and row["derivedLower"] is not None:
            derived[_cell(result)] = _derived(row)
    intervals = {**derived, **intervals}  # a published interval wherever there is one
    if not intervals:
        return names, rows
    after = names.index("value") + 1
    widened = []
    for row in rows:
        result = row[at]
        shown = intervals.get(result.value, "") if isinstance(result, ox.NamedNode) else ""
        widened.append([*row[:after], shown, *row[after:]])
    return [*names[:after], "interval", *names[after:]], widened


def _derived(row: ox.QuerySolution) -> str:
    """A derived interval as the table shows it: ``35.85–49.43 derived (Wilson, n=200)``."""
    method = _cell(row["method"])
    short = V.INTERVAL_METHODS.get(method, (method, method.rsplit("#", 1)[-1]))[1]
    size = f", n={_cell(row['sampleSize'])}" if row["sampleSize"] is not None else ""
    bounds = f"{_cell(row['derivedLower'])}–{_cell(row['derivedUpper'])}"
    return f"{bounds} derived ({short}{size})"


def _print_rows(
    names: list[str],
    rows: list[list[Cell]],
    fmt: str,
    columns: list[str] | None,
    width: int | None = None,
) -> None:
    """Print ``rows`` as a table (``width`` columns wide at most; None: the terminal's, see
    :func:`benchgraph.cli.table.terminal_width`) or as CSV, the ``columns`` given (None: all)
    in their order. Raises QueryError for a column the answer does not have."""
    if columns is not None:
        unknown = [c for c in columns if c not in names]
        if unknown:
            raise QueryError(
                f"--columns: the answer has no column {unknown[0]!r} (its columns: "
                f"{', '.join(names)})"
            )
        picked = [names.index(c) for c in columns]
        names, rows = columns, [[row[i] for i in picked] for row in rows]
    if fmt == "csv":
        for cells in [names, *([_cell(c) for c in row] for row in rows)]:
            print(",".join(csv_cell(text) for text in cells))
        return
    shown = [[_cell(c, short=True) for c in row] for row in rows]
    fit = width or table.terminal_width()
    for line in table.render(names, shown, fit, fold=columns is None):
        print(line)


def write(answer: Answer, fmt: str, width: int | None = None) -> None:
    """Print ``answer`` on stdout in the format ``fmt`` (one that fits its form; a table
    ``width`` columns wide at most, or as :func:`_print_rows` has it)."""
    out = sys.stdout.buffer
    if isinstance(answer, Triples):
        ox.serialize(answer, out, GRAPH_FORMATS[fmt], prefixes=V.PREFIXES)
    elif fmt in ("json", "tsv"):
        answer.serialize(out, RESULTS_FORMATS[fmt])
    elif isinstance(answer, ox.QueryBoolean):
        print("true" if bool(answer) else "false")
    else:
        names, rows = _rows(answer)
        _print_rows(names, rows, fmt, None, width)
    if fmt in ("json", "jsonld"):
        out.write(b"\n")  # a document on one line: end the line


def _cell(term: Cell, short: bool = False) -> str:
    """The text a table or CSV shows for ``term``: an IRI (written with the predeclared
    prefixes when ``short``), a blank node's label, a literal's lexical form; empty when
    unbound."""
    if term is None:
        return ""
    if isinstance(term, ox.NamedNode):
        return prefixes.shorten(term.value) if short else term.value
    return str(getattr(term, "value", term))
