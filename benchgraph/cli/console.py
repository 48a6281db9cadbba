"""What the commands share: the exit codes, the parser that exits 2 on bad usage, the
``--store`` option and the progress bar."""

from __future__ import annotations

import argparse
import sys

from benchgraph import settings, upgrades
from benchgraph.store import Store, StoreError, damage, disk_full, notice, open_store

EXIT_OK, EXIT_REFUSED, EXIT_ERROR = 0, 1, 2
EXIT_INTERRUPTED = 128 + 2  # as a shell reports a command that SIGINT (Ctrl-C) ended
EXIT_PIPE = 128 + 13  # as a shell reports a command that SIGPIPE ended


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors exit 2 (``EXIT_ERROR``)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message}\n")


def existing_store(
    args: argparse.Namespace, reading: bool = True, only_reads: bool = False
) -> Store:
    """The store ``--store`` (else its variable, else its default) names, which must exist: a
    command that finds none says so, naming where the location came from, rather than make an
    empty store and answer from it. A command ``reading`` only refuses a store its first
    ingest left half-loaded, never empties it; one that ``only_reads`` (writes nothing at all)
    opens it read-only, so that it answers on a full disk. Raises StoreError."""
    location = settings.get("store", args.store)
    by = settings.named_by("store", args.store)
    return opened(location, must_exist=True, reading=reading, only_reads=only_reads, named_by=by)


def opened(
    location: str,
    *,
    must_exist: bool = False,
    reading: bool = False,
    only_reads: bool = False,
    named_by: str = "",
) -> Store:
    """The store at ``location``, as every command opens it: the user told on stderr of an
    upgrade, and a store of an earlier layout upgraded, its sources' identities and records with
    it (:func:`benchgraph.upgrades.upgrade`). Raises StoreError."""
    return open_store(
        location,
        must_exist=must_exist,
        notify=notice,
        reading=reading,
        only_reads=only_reads,
        named_by=named_by,
        upgrade=upgrades.upgrade,
    )


def store_fault(args: argparse.Namespace, error: BaseException) -> StoreError | None:
    """What the engine's or the system's ``error``, met while a command ran, says of the store
    it used: the store is damaged (a read failing its checksum), or its disk is full; None for
    any other error."""
    location = settings.get("store", getattr(args, "store", None))
    return damage(None, error) or disk_full(location, error)


def store_option(parser: argparse.ArgumentParser) -> None:
    """Add the ``--store`` option every command that opens the store takes."""
    s = settings._BY_NAME["store"]
    parser.add_argument(
        "--store", metavar="DIR", help=f"{s.help} Default: ${s.env}, else {s.default}."
    )


def show_progress(done: int, total: int, name: str, counted: str = "") -> None:
    """Draw a progress bar on stderr (a terminal): ``done`` of ``total`` (or, with
    ``counted``, that text in place of the count), at ``name``."""
    width = 30
    filled = width * done // max(total, 1)
    bar = "#" * filled + "." * (width - filled)
    sys.stderr.write(f"\r[{bar}] {counted or f'{done}/{total}'} {name[-40:]:<40}")
    sys.stderr.flush()
