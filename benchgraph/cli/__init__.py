"""The ``benchgraph`` command.

Exit codes (a tested contract): 0 everything done; 1 some input refused (a page that does not
parse or validate); 2 unreadable input, a store that cannot be opened, or bad usage; 141
(128 + SIGPIPE) the reader of the output went away before it was complete (``| head``), which
ends the command quietly, as it ends ``cat``; 130 (128 + SIGINT) the command was interrupted
(Ctrl-C), which it says in one line, after what it holds is released as on any error.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from benchgraph import __version__
from benchgraph.cli import alias, copy, export, history, ingest, quality, query, remove, serve
from benchgraph.cli.console import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_PIPE, Parser, store_fault
from benchgraph.queries import QueryError
from benchgraph.store import StoreError

# The modules of the commands, in the order --help lists them. Each has
# ``add_commands(subparsers)``, which adds its commands with ``set_defaults(handler=...)``; a
# handler takes the namespace and returns the exit code.
COMMANDS = (ingest, query, quality, export, copy, remove, history, alias, serve)


def build_parser() -> argparse.ArgumentParser:
    """The ``benchgraph`` command line, with every command."""
    parser = Parser(
        prog="benchgraph",
        description="A knowledge graph of ML papers, methods and benchmark results.",
        epilog="Exit codes: 0 done; 1 some input refused (remove: some name named nothing); "
        "2 unreadable input, store error or bad usage; 130 interrupted (Ctrl-C); 141 the output "
        "was closed before it was complete (`| head`).",
    )
    parser.add_argument("--version", action="version", version=f"benchgraph {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for module in COMMANDS:
        module.add_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (130 when interrupted: one line says so,
    never a traceback). Raises SystemExit for ``--help``, ``--version`` and bad usage."""
    try:
        return _run(argv)
    except KeyboardInterrupt:
        # Ctrl-C: what the command holds (its store, a dump's part file) was released as the
        # interrupt passed through it, as on any error.
        sys.stderr.write("benchgraph: interrupted\n")
        return EXIT_INTERRUPTED


def _run(argv: Sequence[str] | None) -> int:
    """Parse ``argv`` and run its command; return the exit code."""
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
    except (OSError, RuntimeError) as error:  # the engine's, read lazily from an answer
        fault = store_fault(args, error)
        if fault is None:
            raise
        sys.stderr.write(f"benchgraph: error: {fault}\n")
        return EXIT_ERROR
