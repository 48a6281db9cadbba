"""The ``benchgraph export`` command: the store as one RDF document (a dump)."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path
from typing import IO

from benchgraph import eee, export, settings
from benchgraph.cli import EXIT_ERROR, EXIT_OK, EXIT_REFUSED, notice, store_option
from benchgraph.store import Store, open_store


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``export`` command to the ``benchgraph`` command line."""
    command = commands.add_parser(
        "export",
        help="write the whole store as one RDF file (a dump), or its results as EEE records",
        description="Write the whole store as one RDF document. trig and nquads keep the named "
        "graphs (one per source page: the provenance); turtle, ntriples and jsonld hold their "
        "union, each triple once. The server offers the same dumps at /dump.trig, /dump.nq, "
        "/dump.ttl, /dump.nt and /dump.jsonld. eee writes the results as Every Eval Ever records "
        f"(schema {eee.SCHEMA_VERSION}), one JSON object a line. Exit codes: 0 written; 1 (eee) "
        "some results left out, each named on stderr (their metric states no direction); 2 a "
        "store that cannot be opened or a file that cannot be written; 141 stdout was closed "
        "before the dump was complete (`| head`).",
    )
    command.add_argument("--format", choices=(*export.FORMATS, "eee"), default="trig")
    command.add_argument(
        "--out", metavar="FILE", help="write to FILE (replaced only once complete); default stdout"
    )
    store_option(command)
    command.set_defaults(handler=run_export)


def run_export(args: argparse.Namespace) -> int:
    """Handler of ``benchgraph export``."""
    with open_store(settings.get("store", args.store), must_exist=True, notify=notice) as store:
        if args.out is None:
            left_out = write(store, args.format, sys.stdout.buffer)
            sys.stdout.buffer.flush()
            return EXIT_REFUSED if left_out else EXIT_OK
        out = Path(args.out)
        part = out.with_name(f".{out.name}.part")
        try:
            with part.open("wb") as output:
                left_out = write(store, args.format, output)
            os.replace(part, out)
        except OSError as error:
            with contextlib.suppress(OSError):
                part.unlink()
            sys.stderr.write(f"benchgraph: error: cannot write {out}: {error}\n")
            return EXIT_ERROR
    return EXIT_REFUSED if left_out else EXIT_OK


def write(store: Store, name: str, output: IO[bytes]) -> int:
    """Write ``store`` to ``output`` in the export format ``name``; return how many results were
    left out (only eee leaves any out)."""
    if name == "eee":
        return eee.write(store, output, notice)
    store.export(export.FORMATS[name], output)
    return 0
