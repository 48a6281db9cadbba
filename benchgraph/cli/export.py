"""The ``benchgraph export`` command: the store as one RDF document (a dump)."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path
from typing import IO

from benchgraph import eee, export
from benchgraph.cli.console import EXIT_ERROR, EXIT_OK, EXIT_REFUSED, existing_store, store_option
from benchgraph.store import Store, notice


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``export`` command to the ``benchgraph`` command line."""
    command = commands.add_parser(
        "export",
        help="write the whole store as one RDF file (a dump), or its results as EEE records",
        description="Write the whole store as one RDF document. trig and nquads keep the named "
        "graphs (one per source page: the provenance), as they are now unless --history; "
        "turtle, ntriples and jsonld hold their union, each triple once. The server offers the "
        "same dumps at /dump.trig, /dump.nq, /dump.ttl, /dump.nt and /dump.jsonld. eee writes "
        f"the results as Every Eval Ever records (schema {eee.SCHEMA_VERSION}), one JSON object "
        "a line. Exit codes: 0 written; 1 (eee) some results left out, each named on stderr "
        "(their metric states no direction); 2 a store that cannot be opened, a file that "
        "cannot be written, or bad usage; 141 stdout was closed before the dump was complete "
        "(`| head`).",
    )
    command.add_argument("--format", choices=(*export.FORMATS, "eee"), default="trig")
    command.add_argument(
        "--history",
        action="store_true",
        help="trig and nquads only: also write every earlier version of every page (its "
        "history graph and report) and the versions catalogue, so that loading the dump gives "
        "back every version",
    )
    command.add_argument(
        "--out", metavar="FILE", help="write to FILE (replaced only once complete); default stdout"
    )
    store_option(command)
    command.set_defaults(handler=run_export)


def run_export(args: argparse.Namespace) -> int:
    """Handler of ``benchgraph export``."""
    if args.history and args.format not in export.QUAD_DUMPS:
        holds = (
            "eee records hold the results of the current versions"
            if args.format == "eee"
            else f"a {args.format} dump holds one graph, the merged view, which no earlier "
            "version of a page enters"
        )
        sys.stderr.write(
            f"benchgraph: error: --history needs --format {' or '.join(export.QUAD_DUMPS)}: "
            f"{holds}\n"
        )
        return EXIT_ERROR
    with existing_store(args) as store:
        if args.out is None:
            left_out = write(store, args.format, sys.stdout.buffer, args.history)
            sys.stdout.buffer.flush()
            return EXIT_REFUSED if left_out else EXIT_OK
        out = Path(args.out)
        part = out.with_name(f".{out.name}.part")
        try:
            with part.open("wb") as output:
                left_out = write(store, args.format, output, args.history)
            os.replace(part, out)
        except OSError as error:
            with contextlib.suppress(OSError):
                part.unlink()
            sys.stderr.write(f"benchgraph: error: cannot write {out}: {error}\n")
            return EXIT_ERROR
    return EXIT_REFUSED if left_out else EXIT_OK


def write(store: Store, name: str, output: IO[bytes], history: bool = False) -> int:
    """Write ``store`` to ``output`` in the export format ``name`` (a quad dump with every
    earlier version when ``history``); return how many results were left out (only eee leaves
    any out)."""
    if name == "eee":
        return eee.write(store, output, notice)
    store.export(export.FORMATS[name], output, history)
    return 0
