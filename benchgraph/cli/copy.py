"""The ``benchgraph copy`` command: every named graph from one store to another."""

from __future__ import annotations

import argparse
import sys

from benchgraph.cli.console import EXIT_ERROR, EXIT_OK, opened, show_progress
from benchgraph.copying import check_distinct, copy_graphs


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``copy`` command to the ``benchgraph`` command line."""
    command = commands.add_parser(
        "copy",
        help="copy every named graph from one store to another",
        description="Copy every named graph of one store into another: an embedded store (a "
        "folder) or a SPARQL server (its query endpoint URL), either way. Each graph replaces "
        "the graph of the same name in the target at once; graphs only in the target are left "
        "alone. The triples of each graph are counted on both sides at the end. Exit codes: 0 "
        "copied and counted alike; 2 a store that cannot be opened, read or written, or counts "
        "that differ.",
    )
    command.add_argument("--from", dest="source", required=True, metavar="STORE")
    command.add_argument("--to", dest="target", required=True, metavar="STORE")
    command.add_argument("--quiet", action="store_true", help="print only the summary line")
    command.set_defaults(handler=run_copy)


def run_copy(args: argparse.Namespace) -> int:
    """Handler of ``benchgraph copy``."""
    check_distinct(args.source, args.target)
    bar = show_progress if sys.stderr.isatty() and not args.quiet else None
    with (
        opened(args.source, must_exist=True, only_reads=True) as source,
        opened(args.target) as target,
    ):
        copied = copy_graphs(source, target, bar)
    if bar is not None:
        sys.stderr.write("\n")
    for mismatch in copied.mismatches:
        sys.stderr.write(f"benchgraph: error: counts differ after the copy: {mismatch}\n")
    print(
        f"{copied.graphs} graphs, {copied.triples} triples copied from {args.source} to "
        f"{args.target}; " + ("counts differ" if copied.mismatches else "counts match")
    )
    return EXIT_ERROR if copied.mismatches else EXIT_OK
