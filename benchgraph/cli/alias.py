"""The ``benchgraph alias`` command: alias records, proposed, reviewed, listed, exported and
imported (see :mod:`benchgraph.aliases`)."""

from __future__ import annotations

import argparse
import getpass
import sys
from decimal import Decimal
from pathlib import Path

from benchgraph import alias_files, alias_findings, aliases, validation
from benchgraph.aliases import AliasError
from benchgraph.cli.console import EXIT_ERROR, EXIT_OK, EXIT_REFUSED, existing_store, store_option


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``alias`` command and its subcommands to the ``benchgraph`` command line."""
    command = commands.add_parser(
        "alias",
        help="propose, review, list, export and import alias records",
        description="Alias records say that two IRIs of one kind (two methods, papers or "
        "benchmarks) name the same thing: who said so, when, on what evidence, with what "
        "confidence, and whether a curator accepted or rejected it. They live in the alias "
        "graph, never in a page's: queries follow accepted records only. SUBJECT and TARGET "
        "are IRIs or names as the named queries take them (a method's name, a paper's 24-hex "
        "ID or title, a benchmark's label). Exit codes: 0 done; 1 refused (a name that names "
        "nothing, a record the rules refuse: a chain, a second target, two kinds; a file with "
        "a record that cannot be stored: nothing is written); 2 a file that cannot be read, a "
        "store that cannot be opened, or bad usage.",
    )
    subcommands = command.add_subparsers(dest="alias_command", required=True)
    propose = subcommands.add_parser(
        "propose", help="propose that SUBJECT is another name of TARGET"
    )
    propose.add_argument("subject", metavar="SUBJECT")
    propose.add_argument("target", metavar="TARGET")
    propose.add_argument("--evidence", default="", help="why: free text")
    propose.add_argument("--confidence", help="how sure, from 0 to 1")
    for name, verb in (("accept", "accept"), ("reject", "reject")):
        review = subcommands.add_parser(
            name,
            help=f"{verb} a record, named by its ID or by its SUBJECT and TARGET",
            description="Accepting is refused when the target is itself accepted as another "
            "name, when the subject is already another name of something else, or when the "
            "subject is an accepted name: the accepted records stay a forest of depth one."
            if name == "accept"
            else None,
        )
        review.add_argument("record", nargs="+", metavar="ID | SUBJECT TARGET")
    subcommands.add_parser(
        "propose-from-findings",
        help="propose each pair the possible-duplicate checks find (a pair with a record, "
        "reviewed or not, is left as it is)",
    )
    listing = subcommands.add_parser("list", help="list the records, one a line")
    listing.add_argument("--status", choices=sorted(aliases.STATUSES))
    export = subcommands.add_parser("export", help="write the records to FILE (else stdout)")
    export.add_argument("file", nargs="?", metavar="FILE")
    export.add_argument("--format", choices=alias_files.FORMATS, default="turtle")
    load = subcommands.add_parser(
        "import",
        help="store the records of a curated file (Turtle, or .csv) over those of the same ID",
    )
    load.add_argument("file", metavar="FILE")
    for sub in subcommands.choices.values():
        if sub not in (listing, export, load):
            sub.add_argument("--by", help="who says so (default: your user name)")
        store_option(sub)
    command.set_defaults(handler=run_alias)


def run_alias(args: argparse.Namespace) -> int:
    """Handler of ``benchgraph alias``."""
    try:
        return _HANDLERS[args.alias_command](args)
    except AliasError as error:
        unreadable = error.reason == "unreadable"
        sys.stderr.write(f"benchgraph: {'error' if unreadable else error.reason}: {error}\n")
        return EXIT_ERROR if unreadable else EXIT_REFUSED


def _by(args: argparse.Namespace) -> str:
    return str(args.by or getpass.getuser())


def _propose(args: argparse.Namespace) -> int:
    confidence: Decimal | None = None
    if args.confidence is not None:
        try:
            confidence = aliases.checked_confidence(args.confidence)
        except AliasError as error:
            sys.stderr.write(f"benchgraph: error: --confidence: {error}\n")
            return EXIT_ERROR
    with existing_store(args, reading=False) as store:
        outcome = aliases.propose(
            store,
            args.subject,
            args.target,
            by=_by(args),
            when=validation.now(),
            evidence=args.evidence,
            confidence=confidence,
        )
    print(outcome.message)
    return EXIT_OK


def _review(args: argparse.Namespace) -> int:
    status = "accepted" if args.alias_command == "accept" else "rejected"
    if len(args.record) > 2:
        sys.stderr.write("benchgraph: error: name a record by its ID, or by SUBJECT TARGET\n")
        return EXIT_ERROR
    with existing_store(args, reading=False) as store:
        outcome = aliases.review(store, args.record, status, by=_by(args), when=validation.now())
    print(outcome.message)
    return EXIT_OK


def _from_findings(args: argparse.Namespace) -> int:
    with existing_store(args, reading=False) as store:
        made, left = alias_findings.propose_findings(
            store, by=args.by or alias_findings.FOUND_BY, when=validation.now()
        )
    for alias in made:
        print(f"{alias.id} proposed: {alias.subject} -> {alias.target} ({alias.evidence})")
    print(f"{len(made)} proposed, {left} left as they were")
    return EXIT_OK


def _list(args: argparse.Namespace) -> int:
    with existing_store(args, only_reads=True) as store:
        found = aliases.listed(store, args.status)
    for alias in found:
        confidence = "" if alias.confidence is None else str(alias.confidence)
        print("\t".join((alias.id, alias.status, alias.subject, alias.target, confidence)))
    print(f"({len(found)} records)")
    return EXIT_OK


def _export(args: argparse.Namespace) -> int:
    with existing_store(args, only_reads=True) as store:
        found = aliases.listed(store)
    if args.file is None:
        alias_files.write(found, args.format, sys.stdout.buffer)
        return EXIT_OK
    try:
        with open(args.file, "wb") as output:
            alias_files.write(found, args.format, output)
    except OSError as error:
        sys.stderr.write(f"benchgraph: error: {args.file}: cannot be written: {error.strerror}\n")
        return EXIT_ERROR
    print(f"{len(found)} records written to {args.file}")
    return EXIT_OK


def _import(args: argparse.Namespace) -> int:
    path = Path(args.file)
    records = alias_files.read(path)
    with existing_store(args, reading=False) as store:
        new, replaced = alias_files.store_records(store, records, str(path))
    print(f"{new} records added, {replaced} replaced, from {path}")
    return EXIT_OK


_HANDLERS = {
    "propose": _propose,
    "accept": _review,
    "reject": _review,
    "propose-from-findings": _from_findings,
    "list": _list,
    "export": _export,
    "import": _import,
}
