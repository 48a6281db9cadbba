"""The ``benchgraph ingest`` command: source pages (files or folders) into the store."""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from benchgraph import settings
from benchgraph.cli.console import (
    EXIT_ERROR,
    EXIT_OK,
    EXIT_REFUSED,
    opened,
    show_progress,
    store_option,
)

if TYPE_CHECKING:
    from ingest.loader import Outcome
    from ingest.tally import Tally
    from ingest.walking import Input


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``ingest`` command to the ``benchgraph`` command line."""
    ingest = commands.add_parser(
        "ingest",
        help="load source pages (files or folders) into the store",
        description="Load source pages into the store, one named graph per page. A page that "
        "does not parse changes nothing; the others in the batch still load.",
    )
    ingest.add_argument("paths", nargs="+", metavar="PATH", help="a page file or a folder")
    store_option(ingest)
    ingest.add_argument(
        "--repository",
        metavar="ORG/NAME[@REVISION]",
        help="the Hugging Face repository the one model card named is the card of (else found "
        "from a benchgraph-sources.yml manifest, the Hugging Face cache layout or an "
        "ORG/NAME/README.md path; a card of unknown repository is its own source, by content)",
    )
    ingest.add_argument(
        "--quiet",
        action="store_true",
        help="draw no progress bar (what was refused or warned of, and the summary line, are "
        "still printed)",
    )
    ingest.add_argument(
        "--verbose",
        action="store_true",
        help="also list each warning and info (what holds for a whole source said once for "
        "it), and the files of a folder skipped as no page; without it, they are grouped by kind "
        "with a count and an example each",
    )
    ingest.add_argument(
        "--warnings-file",
        metavar="FILE",
        help="write every warning and info to FILE, one a line, none grouped",
    )
    ingest.set_defaults(handler=run_ingest)


def run_ingest(args: argparse.Namespace) -> int:
    """Handler of ``benchgraph ingest``."""
    # The parsers and the shapes are imported by the commands that read pages, not by the others.
    from ingest.locating import LocatingError, repository
    from ingest.tally import Tally
    from ingest.walking import expand

    location = settings.get("store", args.store)
    try:
        given = repository(args.repository) if args.repository else None
    except LocatingError as error:
        sys.stderr.write(f"benchgraph: error: {error}\n")
        return EXIT_ERROR
    if given is not None and (len(args.paths) != 1 or not Path(args.paths[0]).is_file()):
        sys.stderr.write(
            "benchgraph: error: --repository names the repository of one card: name one file\n"
        )
        return EXIT_ERROR
    items = list(expand(args.paths, store=location, repository=given))  # past the store
    with contextlib.ExitStack() as stack:
        log = None
        if args.warnings_file:
            try:
                log = stack.enter_context(open(args.warnings_file, "w", encoding="utf-8"))
            except OSError as error:
                sys.stderr.write(f"benchgraph: error: {args.warnings_file}: {error.strerror}\n")
                return EXIT_ERROR
        return _ingest(args, location, items, Tally(args.verbose, log))


def _ingest(
    args: argparse.Namespace, location: str, items: list[Input | Outcome], tally: Tally
) -> int:
    """Load the files of ``items`` (the others: the outcomes of paths that give none) into
    the store at ``location``, counting in ``tally``; print what it tells, and return the
    exit code."""
    from ingest.loader import IngestStopped, Outcome, ingest_files
    from ingest.walking import Input

    files = [i for i in items if isinstance(i, Input)]
    for outcome in items:
        if isinstance(outcome, Outcome):
            tally.add(outcome)
    bar = _Bar() if sys.stderr.isatty() and not args.quiet else None
    failure: IngestStopped | None = None
    with opened(location) as store:
        try:
            for outcome in ingest_files(store, files, progress=bar.read if bar else None):
                tally.add(outcome)  # pages are not kept: a long ingest stays small
                if bar is not None:
                    bar.show(outcome.origin)
        except IngestStopped as stopped:
            failure = stopped
    if bar is not None:
        sys.stderr.write("\n")
    sys.stderr.writelines(tally.listing)
    sys.stderr.writelines(tally.grouped_lines())
    if failure is not None and failure.emptied:
        sys.stderr.write(
            f"benchgraph: error: {failure}\nthe {len(files)} files were loaded at once into an "
            "empty store, so none of them is kept, and the store is empty again; run the "
            "ingest again once the store works\n"
        )
        return EXIT_ERROR
    print(tally.summary(listed=args.verbose, folded=True))
    if failure is not None:
        after = len(files) - [str(f.path) for f in files].index(failure.path) - 1
        sys.stderr.write(
            f"benchgraph: error: {failure}\nstopped at {failure.path}: it and the "
            f"{after} pages after it were not loaded; run the ingest again once "
            "the store works (pages already loaded are skipped)\n"
        )
        return EXIT_ERROR
    if tally.counts["unreadable"]:
        return EXIT_ERROR
    return EXIT_REFUSED if tally.counts["refused"] else EXIT_OK


class _Bar:
    """The progress bar of an ingest on a terminal: how far its files are read, and how many
    sources are done, drawn at most ten times a second."""

    def __init__(self) -> None:
        self.done = self.total = self.sources = 0
        self._drawn = 0.0

    def read(self, done: int, total: int) -> None:
        self.done, self.total = done, total

    def show(self, name: str) -> None:
        self.sources += 1
        now = time.monotonic()
        if now - self._drawn >= 0.1 or self.done >= self.total:
            self._drawn = now
            percent = 100 * self.done // max(self.total, 1)
            counted = f"{percent:3d}% read, {self.sources} sources"
            show_progress(self.done, self.total, name, counted)
