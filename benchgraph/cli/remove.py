"""The ``benchgraph remove`` command: withdraw pages from the store."""

from __future__ import annotations

import argparse
import sys

from benchgraph.cli.console import EXIT_ERROR, EXIT_OK, EXIT_REFUSED, existing_store, store_option


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``remove`` command to the ``benchgraph`` command line."""
    command = commands.add_parser(
        "remove",
        help="withdraw pages from the store",
        description="Remove pages from the store, each with its validation report, in one "
        "transaction per page; the merged view keeps what other pages still state. A page is "
        "named by its file (its content gives its identity, as at ingest, and the version it "
        "holds: a file of a version that is not current removes nothing, unless "
        "--any-version), by its source "
        "document's IRI, by the URL its source was published at (which names every page of "
        "that source: its other metrics and page numbers, all removed), or by its page "
        "graph's IRI. Every name is read and looked up before anything is removed. Exit "
        "codes: 0 every page named was removed; 1 some name names no page in the store, or a "
        "version that is not current (the others are still removed); 2 a file that cannot be "
        "read or parsed (nothing is removed), a store that cannot be opened or written, or bad "
        "usage.",
    )
    command.add_argument(
        "names",
        nargs="+",
        metavar="PAGE",
        help="a page's file, its source's IRI or URL, or its graph's IRI",
    )
    command.add_argument(
        "--any-version",
        action="store_true",
        help="withdraw the current version of a file's page even when the file holds another",
    )
    store_option(command)
    command.set_defaults(handler=run_remove)


def run_remove(args: argparse.Namespace) -> int:
    """Handler of ``benchgraph remove``."""
    from ingest.removal import UnnamedPage, page_names, remove_pages  # the parsers, when needed

    try:
        names = [name for given in args.names for name in page_names(given)]
    except UnnamedPage as error:
        sys.stderr.write(f"benchgraph: error: {error}\n")
        return EXIT_ERROR
    removed, left = 0, {"not found": 0, "not current": 0}
    with existing_store(args, reading=False) as store:
        for outcome in remove_pages(store, names, any_version=args.any_version):
            if outcome.status == "removed":
                removed += 0 if outcome.named_above else 1
                print(f"removed: {outcome.message}", flush=True)
            else:
                left[outcome.status] += 1
                sys.stderr.write(f"{outcome.status}: {outcome.message}\n")
    other = f", {left['not current']} not current" if left["not current"] else ""
    print(f"{removed} removed, {left['not found']} not found{other}")
    return EXIT_REFUSED if any(left.values()) else EXIT_OK
