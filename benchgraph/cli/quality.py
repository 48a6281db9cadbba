"""The ``validate``, ``audit`` and ``repair`` commands.

``benchgraph validate`` exits 0 when the store conforms to the current shapes and its versions
catalogue agrees with its graphs (:mod:`benchgraph.integrity`), 1 when something breaks a shape
with severity sh:Violation (on a page or across pages) or the catalogue, an audit summary, a
changes delta or a report key disagrees with the graphs, 2 on an error
(shapes that do not parse, a store that cannot be opened). ``benchgraph audit`` exits 0, or 2 on
an error (a store where a current version lacks its audit summary among them).
``benchgraph repair`` exits 0 when the merged view, the catalogue, the audit summaries, the
changes deltas and the report keys are right or were repaired, 1 when ``--check`` finds one
differs, 2 on an error.
"""

from __future__ import annotations

import argparse
import sys
from datetime import date

from benchgraph import audit, changelog, integrity, report_keys, settings, summaries
from benchgraph.cli.console import EXIT_ERROR, EXIT_OK, EXIT_REFUSED, existing_store, store_option
from benchgraph.store import Store

DEFAULT_STALE_DAYS = 180


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``validate``, ``audit`` and ``repair`` commands to the ``benchgraph`` command
    line."""
    _add_validate(commands)
    _add_audit(commands)
    _add_repair(commands)


def _add_validate(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    validate = commands.add_parser(
        "validate",
        help="re-validate the whole store against the current shapes",
        description="Re-validate the pages of the store against the shapes in shapes/ (they may "
        "have changed since ingest), one page at a time, then run the cross-page checks "
        "(queries/check-*.rq). Each page's report replaces its stored report. It also checks "
        "the merged view, the versions catalogue and the audit summaries against the page and "
        "history graphs, as `repair --check` does, and says on stderr where they disagree. Only "
        "the pages whose version changed since the last saved validation against the same shapes "
        "are checked again (--all: every page); the store-wide checks are taken from that "
        "validation when no page changed. "
        "Exit codes: 0 conforms; 1 violations, or the catalogue, a summary, a delta or a report "
        "key disagrees with the graphs; 2 error.",
    )
    validate.add_argument("--format", choices=("text", "json", "turtle"), default="text")
    validate.add_argument(
        "--summary",
        action="store_true",
        help="text and json: count the findings by severity and shape, with the pages they are "
        "on, instead of listing each",
    )
    validate.add_argument(
        "--no-save", action="store_true", help="do not replace the stored validation reports"
    )
    validate.add_argument(
        "--all",
        action="store_true",
        help="check every page, and the whole store, even those unchanged since the last saved "
        "validation",
    )
    validate.add_argument(
        "--engine",
        choices=settings.ENGINES,
        default="auto",
        help="auto (default): the shapes compiled to Python checks, which give pyshacl's report, "
        "with pyshacl for what they do not cover; pyshacl: pyshacl for every page",
    )
    store_option(validate)
    validate.set_defaults(handler=run_validate)


def _add_audit(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    audit_ = commands.add_parser(
        "audit",
        help="the provenance audit: self-reported results, missing origins, stale pages …",
        description="Per source page and overall: results self-reported (the reporting paper "
        "introduced the method) or reported by another paper (which is not independent "
        "reproduction), methods without an origin paper, results without configuration, "
        "partial coverage, stale pages, and the stored validation findings. Each section is a "
        "named query (queries/audit-*.rq). Exit codes: 0 done; 2 error (a store where a "
        "current version lacks its audit summary among them: `benchgraph repair` builds them).",
    )
    audit_.add_argument("--format", choices=("text", "json", "html"), default="text")
    audit_.add_argument(
        "--stale-days",
        type=_days,
        default=DEFAULT_STALE_DAYS,
        metavar="N",
        help=f"a page whose data was updated more than N days ago is stale "
        f"(default {DEFAULT_STALE_DAYS})",
    )
    audit_.add_argument(
        "--as-of",
        type=_date,
        metavar="YYYY-MM-DD",
        help="count the days back from this date instead of today",
    )
    store_option(audit_)
    audit_.set_defaults(handler=run_audit)


def _add_repair(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    repair = commands.add_parser(
        "repair",
        help="check the merged view and the versions catalogue against the page graphs, and "
        "rebuild what differs",
        description="Queries see the merged view as their default graph: each distinct triple "
        "of the page graphs once, kept in step with every write. This compares it with the "
        "union of the page graphs and adds what is missing and removes what no page states; "
        "it also builds the view of a store written by an earlier version. It checks the "
        "versions catalogue against the page and history graphs too (each version held by the "
        "graph it names, the page graph's version current, every history graph recorded) and "
        "makes the catalogue say what the graphs hold, and rebuilds the audit summary of each "
        "current version whose summary is missing or differs from its page graph, the changes "
        "delta of each two versions of a page, and the key of each page's validation report. "
        "Exit codes: 0 all is right (or was repaired); 1 with --check, something differs; "
        "2 error.",
    )
    repair.add_argument(
        "--check",
        action="store_true",
        help="change nothing: only say whether the view, the catalogue, a summary, a delta or a "
        "report key differs",
    )
    store_option(repair)
    repair.set_defaults(handler=run_repair)


def _days(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of days")
    return int(text)


def _date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date (YYYY-MM-DD)") from None


def run_validate(args: argparse.Namespace) -> int:
    from benchgraph import store_validation, validation  # with rdflib: imported by the command
    # that needs it

    if args.summary and args.format == "turtle":
        sys.stderr.write(
            "benchgraph: error: --summary counts the findings, in text or json: a turtle "
            "report is a SHACL validation report, which holds each finding\n"
        )
        return EXIT_ERROR
    try:
        report = None
        if not args.all:  # nothing changed: answered reading only, with nothing to save
            with existing_store(args, only_reads=True) as store:
                report = store_validation.unchanged(store, args.engine)
        if report is None:
            with existing_store(args, only_reads=args.no_save) as store:
                _, report = store_validation.validate_store(
                    store, save=not args.no_save, engine=args.engine, everything=args.all
                )
    except validation.ShapesError as error:
        sys.stderr.write(f"benchgraph: error: {error}\n")
        return EXIT_ERROR
    conforms, catalogue = report.conforms, report.catalogue
    summarised, deltas, keys = report.summarised, report.deltas, report.keys
    for record in (catalogue, summarised, deltas, keys):  # beside the shapes' report, in its format
        if not record.exact:
            sys.stderr.write(f"benchgraph: {record.text()}\n")
    if args.format == "json":
        sys.stdout.write(report.as_json(summary=args.summary))
    elif args.format == "turtle":
        sys.stdout.write(report.turtle())
    else:
        sys.stdout.write(report.text(summary=args.summary))
    exact = catalogue.exact and summarised.exact and deltas.exact and keys.exact
    return EXIT_OK if conforms and exact else EXIT_REFUSED


def run_repair(args: argparse.Namespace) -> int:
    with existing_store(args, reading=False) as store:
        catalogue = integrity.check(store)
        if not catalogue.exact and not args.check:
            integrity.repair(store, catalogue)
            print(f"repaired the versions catalogue in {len(catalogue.found)} places:")
            print("\n".join(f"  {found.text()}" for found in catalogue.found))
            catalogue = integrity.check(store)
        summarised = summaries.check(store)
        if not summarised.exact and not args.check:
            summaries.repair(store, summarised)
            print(f"rebuilt the audit summaries of {len(summarised.wrong)} current versions")
            summarised = summaries.check(store)
        deltas = _deltas_repaired(store, args.check)
        keys = report_keys.check(store)
        if not keys.exact and not args.check:
            report_keys.repair(store, keys)
            print(f"rebuilt the keys of {len({g for g, _ in keys.added})} validation reports")
            keys = report_keys.check(store)
        check = store.check_view()
        records = (catalogue, summarised, deltas, keys)
        if check.exact or args.check:
            print("\n".join(record.text() for record in records))
            print(check.text())
            exact = check.exact and all(record.exact for record in records)
            return EXIT_OK if exact else EXIT_REFUSED if args.check else EXIT_ERROR
        store.repair_view(check)
        after = store.check_view()
    print("\n".join(record.text() for record in records))
    print(
        f"repaired the merged view: added {len(check.missing)} triples stated by pages, "
        f"removed {len(check.extra)} stated by none; {after.text()}"
    )
    exact = after.exact and all(record.exact for record in records)
    return EXIT_OK if exact else EXIT_ERROR


def _deltas_repaired(store: Store, only_check: bool) -> changelog.DeltaCheck:
    """The changes record checked against the graphs, and (unless ``only_check``) repaired
    where it differs, saying what was repaired: how it is then."""
    deltas = changelog.check(store)
    if deltas.exact or only_check:
        return deltas
    changelog.repair(store, deltas)
    print(
        f"repaired the changes record: {len(deltas.missing)} deltas written, "
        f"{len(deltas.wrong)} rewritten, {len(deltas.stale)} removed"
    )
    return changelog.check(store)


def run_audit(args: argparse.Namespace) -> int:
    with existing_store(args, only_reads=True) as store:
        result = audit.run_audit(store, args.stale_days, args.as_of)
    if args.format == "json":
        sys.stdout.write(result.as_json())
    elif args.format == "html":
        sys.stdout.write(result.html())
    else:
        sys.stdout.write(result.text())
    return EXIT_OK
