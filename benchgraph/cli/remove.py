"""The ``benchgraph remove`` command: withdraw pages from the store."""

from __future__ import annotations

import argparse
import sys

from benchgraph import settings
from benchgraph.cli.console import EXIT_ERROR, EXIT_OK, EXIT_REFUSED, store_option
from benchgraph.store import notice, open_store


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``remove`` command to the ``benchgraph`` command line."""
    command = commands.add_parser(
        "remove",
        help="withdraw pages from the store",
        description="Remove pages from the store, each with its validation report, in one "
        "transaction per page; the merged view keeps what other pages still state. A page is "
        "named by its file (its content gives its identity, as at ingest), by its source "
        "document's IRI, by the URL its source was published at (which names every page of "
        "that source: its other metrics and page numbers, all removed), or by its page "
        "graph's IRI. Every name is read and looked up before anything is removed. Exit "
        "codes: 0 every page named was removed; 1 some name names no page in the store (the "
        "others are still removed); 2 a file that cannot be read or parsed (nothing is "
        "removed), a store that cannot be opened or written, or bad usage.",
    )
    command.add_argument(
        "names",
        nargs="+",
        metavar="PAGE",
        help="a page's file, its source's IRI or URL, or its graph's IRI",
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
    removed = missing = 0
    with open_store(settings.get("store", args.store), must_exist=True, notify=notice) as store:
        for outcome in remove_pages(store, names):
            if outcome.status == "removed":
                removed += 0 if outcome.named_above else 1
                print(f"removed: {outcome.message}", flush=True)
            else:
                missing += 1
                sys.stderr.write(f"not found: {outcome.message}\n")
    print(f"{removed} removed, {missing} not found")
    return EXIT_REFUSED if missing else EXIT_OK
