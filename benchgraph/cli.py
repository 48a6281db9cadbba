"""The ``benchgraph`` command.

Exit codes (a tested contract): 0 everything done; 1 some input refused (a page that does not
parse or validate); 2 unreadable input, a store that cannot be opened, or bad usage; 141
(128 + SIGPIPE) the reader of the output went away before it was complete (``| head``), which
ends the command quietly, as it ends ``cat``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from benchgraph import __version__, settings
from benchgraph.queries import QueryError
from benchgraph.store import StoreError, open_store

if TYPE_CHECKING:
    from ingest.loader import Outcome

EXIT_OK, EXIT_REFUSED, EXIT_ERROR = 0, 1, 2
EXIT_PIPE = 128 + 13  # as a shell reports a command that SIGPIPE ended

# Modules that add further commands. Each has ``add_commands(subparsers)``, which adds its
# commands with ``set_defaults(handler=...)``; a handler takes the namespace and returns the code.
COMMAND_MODULES: tuple[str, ...] = (
    "benchgraph.query_cli",
    "benchgraph.quality_cli",
    "benchgraph.export_cli",
    "benchgraph.copy_cli",
    "benchgraph.remove_cli",
    "benchgraph.history_cli",
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
        epilog="Exit codes: 0 done; 1 some input refused (remove: some name named nothing); "
        "2 unreadable input, store error or bad usage; 141 the output was closed before it was "
        "complete (`| head`).",
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
    ingest.add_argument(
        "--quiet",
        action="store_true",
        help="draw no progress bar (what was refused or warned of, and the summary line, are "
        "still printed)",
    )
    ingest.add_argument(
        "--verbose",
        action="store_true",
        help="also list each warning and info the shapes found on the loaded pages, and the "
        "files of a folder skipped as no page",
    )
    ingest.set_defaults(handler=run_ingest)

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
    # The parsers and the shapes are imported by the commands that read pages, not by the others.
    from ingest.loader import IngestStopped, Input, Outcome, expand, ingest_files

    location = settings.get("store", args.store)
    items = list(expand(args.paths, store=location))  # folders are walked past the store
    files = [i for i in items if isinstance(i, Input)]
    show_bar = sys.stderr.isatty() and not args.quiet and len(files) > 1
    tally = Tally(args.verbose)
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
    print(tally.summary(listed=args.verbose))
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


class Tally:
    """What an ingest reports: counts, and the lines to print (messages and the parser's
    warnings; the shapes' findings and the files skipped as no page, if verbose), and the
    summary line (:meth:`summary`), which the write API answers with too."""

    def __init__(self, verbose: bool) -> None:
        self.verbose = verbose
        statuses = ("loaded", "unchanged", "kept", "refused", "unreadable", "skipped")
        self.counts = {s: 0 for s in statuses}
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

    def summary(self, listed: bool) -> str:
        """The summary line: how many inputs had each outcome, the results of the pages loaded
        (or unchanged), the warnings and infos; unless ``listed``, that --verbose lists them."""
        counts = self.counts
        hint = " (--verbose lists them)" if (self.warnings or self.infos) and not listed else ""
        # Only a folder walked can skip a file: a count that is always 0 for files named is
        # left out.
        skipped = f", {counts['skipped']} skipped (not a page)" if counts["skipped"] else ""
        # Only a version older than the current one is kept: 0 in the common case, left out.
        kept = ""
        if counts["kept"]:
            from ingest.loader import KEPT

            kept = f", {counts['kept']} {KEPT}"
        return (
            f"{counts['loaded']} loaded, {counts['unchanged']} unchanged{kept}, "
            f"{counts['refused']} refused, {counts['unreadable']} unreadable{skipped}; "
            f"{self.results} results in "
            f"the loaded pages; {self.warnings} warnings, {self.infos} infos{hint}"
        )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    args = build_parser().parse_args(argv)
    try:
        code = int(args.handler(args))
        sys.stdout.flush()  # a reader gone before the last write is found here, not at exit
        return code
    except (QueryError, StoreError) as error:
        sys.stderr.write(f"benchgraph: error: {error}\n")
        return EXIT_ERROR
    except BrokenPipeError:
        # The reader of stdout went away (`benchgraph export | head`): stop quietly, as Unix
        # tools do; stdout is pointed at /dev/null so the interpreter's last flush is silent.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_PIPE


if __name__ == "__main__":
    raise SystemExit(main())
