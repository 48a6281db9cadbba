"""The ``benchgraph`` command.

Exit codes (a tested contract): 0 everything done; 1 some input refused (a page that does not
parse or validate); 2 unreadable input, a store that cannot be opened, or bad usage.
"""

from __future__ import annotations

import argparse
import csv
import importlib
import os
import sys
from collections.abc import Sequence

import pyoxigraph as ox

from benchgraph import __version__, settings
from benchgraph.queries import QueryError, find
from benchgraph.store import StoreError, open_store
from ingest.loader import IngestStopped, Input, Outcome, expand, ingest_files

EXIT_OK, EXIT_REFUSED, EXIT_ERROR = 0, 1, 2

# Modules that add further commands. Each has ``add_commands(subparsers)``, which adds its
# commands with ``set_defaults(handler=...)``; a handler takes the namespace and returns the code.
COMMAND_MODULES: tuple[str, ...] = (
    "benchgraph.quality_cli",
    "benchgraph.export_cli",
    "benchgraph.copy_cli",
    "server.cli",
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message}\n")


def notice(text: str) -> None:
    """Tell the user something that is not the command's output (a store being upgraded)."""
    sys.stderr.write(text + "\n")


def store_option(parser: argparse.ArgumentParser) -> None:
    """Add the ``--store`` option every command that opens the store takes."""
    s = settings._BY_NAME["store"]
    parser.add_argument(
        "--store", metavar="DIR", help=f"{s.help} Default: ${s.env}, else {s.default}."
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="benchgraph",
        description="A knowledge graph of ML papers, methods and benchmark results.",
        epilog="Exit codes: 0 done; 1 some input refused; 2 unreadable input, store error "
        "or bad usage.",
    )
    parser.add_argument("--version", action="version", version=f"benchgraph {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    ingest = commands.add_parser(
        "ingest",
        help="load source pages (files or folders) into the store",
        description="Load source pages into the store, one named graph per page. A page that "
        "does not parse changes nothing; the others in the batch still load.",
    )
    ingest.add_argument("paths", nargs="+", metavar="PATH", help="a page file or a folder")
    store_option(ingest)
    ingest.add_argument("--quiet", action="store_true", help="print only the summary line")
    ingest.add_argument(
        "--verbose",
        action="store_true",
        help="also list each warning and info the shapes found on the loaded pages, and the "
        "files of a folder skipped as no page",
    )
    ingest.set_defaults(handler=run_ingest)

    query = commands.add_parser(
        "query",
        help="run a named query or a .rq file",
        description="Run a named query (the stem of a file in queries/) or a .rq file. "
        "--format json prints the W3C SPARQL 1.1 Query Results JSON document.",
    )
    query.add_argument("query", metavar="NAME_OR_FILE")
    query.add_argument(
        "--param", action="append", default=[], metavar="NAME=VALUE", help="a query parameter"
    )
    query.add_argument("--format", choices=("table", "json", "csv"), default="table")
    store_option(query)
    query.set_defaults(handler=run_query)
    for module in COMMAND_MODULES:
        importlib.import_module(module).add_commands(commands)
    return parser


def show_progress(done: int, total: int, name: str) -> None:
    """Draw a progress bar on stderr (a terminal): ``done`` of ``total``, at ``name``."""
    width = 30
    filled = width * done // max(total, 1)
    bar = "#" * filled + "." * (width - filled)
    sys.stderr.write(f"\r[{bar}] {done}/{total} {name[-40:]:<40}")
    sys.stderr.flush()


def run_ingest(args: argparse.Namespace) -> int:
    location = settings.get("store", args.store)
    items = list(expand(args.paths, store=location))  # folders are walked past the store
    files = [i for i in items if isinstance(i, Input)]
    show_bar = sys.stderr.isatty() and not args.quiet and len(files) > 1
    tally = _Tally(args.verbose)
    for outcome in items:
        if isinstance(outcome, Outcome):
            tally.add(outcome)
    failure: IngestStopped | None = None
    with open_store(location, notify=notice) as store:
        try:
            for done, outcome in enumerate(ingest_files(store, files), start=1):
                tally.add(outcome)  # pages are not kept: a long ingest stays small
                if show_bar:
                    show_progress(done, len(files), outcome.origin)
        except IngestStopped as stopped:
            failure = stopped
    if show_bar:
        sys.stderr.write("\n")
    sys.stderr.writelines(tally.lines)
    counts = tally.counts
    hint = " (--verbose lists them)" if (tally.warnings or tally.infos) and not args.verbose else ""
    # Only a folder walked can skip a file: a count that is always 0 for files named is left out.
    skipped = f", {counts['skipped']} skipped (not a page)" if counts["skipped"] else ""
    print(
        f"{counts['loaded']} loaded, {counts['unchanged']} unchanged, {counts['refused']} refused, "
        f"{counts['unreadable']} unreadable{skipped}; {tally.results} results in the loaded "
        f"pages; {tally.warnings} warnings, {tally.infos} infos{hint}"
    )
    if failure is not None:
        after = len(files) - [str(f.path) for f in files].index(failure.path) - 1
        sys.stderr.write(
            f"benchgraph: error: {failure}\nstopped at {failure.path}: it and the "
            f"{after} pages after it were not loaded; run the ingest again once "
            "the store works (pages already loaded are skipped)\n"
        )
        return EXIT_ERROR
    if counts["unreadable"]:
        return EXIT_ERROR
    return EXIT_REFUSED if counts["refused"] else EXIT_OK


class _Tally:
    """What an ingest reports: counts, and the lines to print (messages and the parser's
    warnings; the shapes' findings and the files skipped as no page, if verbose)."""

    def __init__(self, verbose: bool) -> None:
        self.verbose = verbose
        self.counts = {s: 0 for s in ("loaded", "unchanged", "refused", "unreadable", "skipped")}
        self.results = self.warnings = self.infos = 0
        self.lines: list[str] = []

    def add(self, o: Outcome) -> None:
        self.counts[o.status] += 1
        if o.message and (self.verbose or o.status != "skipped"):
            self.lines.append(f"{o.status}: {o.message}\n")
        self.lines.extend(f"warning: {warning}\n" for warning in o.warnings)
        if self.verbose:
            self.lines.extend(f.text() + "\n" for f in o.findings)
        if o.status in ("loaded", "unchanged"):
            self.results += o.results
        self.warnings += len(o.warnings)
        self.warnings += sum(1 for f in o.findings if f.severity == "Warning")
        self.infos += sum(1 for f in o.findings if f.severity == "Info")


def _cell(term: object) -> str:
    if term is None:
        return ""
    return str(getattr(term, "value", term))


def run_query(args: argparse.Namespace) -> int:
    named = find(args.query)
    values: dict[str, str] = {}
    for item in args.param:
        name, sep, value = item.partition("=")
        if not sep:
            raise QueryError(f"--param {item!r}: expected NAME=VALUE")
        values[name] = value
    named.bind(values)  # a bad parameter is refused before the store is opened
    with open_store(settings.get("store", args.store), notify=notice) as store:
        try:
            answer = store.answer(named, values)
        except SyntaxError as error:
            raise QueryError(f"{named.path}: {error}") from None
        if isinstance(answer, ox.QueryTriples):
            sys.stdout.buffer.write(answer.serialize(format=ox.RdfFormat.TURTLE) or b"")
            return EXIT_OK
        if args.format == "json":
            sys.stdout.buffer.write(answer.serialize(format=ox.QueryResultsFormat.JSON) or b"")
            sys.stdout.buffer.write(b"\n")
            return EXIT_OK
        if isinstance(answer, ox.QueryBoolean):
            print("true" if bool(answer) else "false")
            return EXIT_OK
        names = [v.value for v in answer.variables]
        rows = [[_cell(solution[n]) for n in names] for solution in answer]
    if args.format == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(names)
        writer.writerows(rows)
    else:
        _print_table(names, rows)
    return EXIT_OK


def _print_table(names: list[str], rows: list[list[str]]) -> None:
    widths = [max([len(n)] + [len(r[i]) for r in rows]) for i, n in enumerate(names)]
    print("  ".join(n.ljust(w) for n, w in zip(names, widths, strict=True)))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)))
    print(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args))
    except (QueryError, StoreError) as error:
        sys.stderr.write(f"benchgraph: error: {error}\n")
        return EXIT_ERROR
    except BrokenPipeError:
        # The reader of stdout went away (`benchgraph export | head`): stop without a
        # traceback; stdout is pointed at /dev/null so the interpreter's last flush is silent.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.stderr.write("benchgraph: error: the output was closed before it was complete\n")
        return EXIT_ERROR


if __name__ == "__main__":
    raise SystemExit(main())
