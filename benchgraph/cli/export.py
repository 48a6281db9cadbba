"""The ``benchgraph export`` command: the store as one RDF document (a dump)."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO

from benchgraph import eee, export
from benchgraph.cli.console import EXIT_ERROR, EXIT_OK, EXIT_REFUSED, existing_store, store_option
from benchgraph.store import Store


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
        "a line. Exit codes: 0 written; 1 (eee) some results left out, counted on stderr by "
        "metric and benchmark (their metric states no direction; --verbose names each); 2 a "
        "store that cannot be opened, a file that "
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
    command.add_argument(
        "--verbose",
        action="store_true",
        help="eee only: name each result left out, not only how many of each metric",
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
    left: list[eee.LeftOut] = []
    with existing_store(args, only_reads=True) as store:
        if args.out is None:
            write(store, args.format, sys.stdout.buffer, args.history, left.append)
            sys.stdout.buffer.flush()
        else:
            out = Path(args.out)
            part = out.with_name(f".{out.name}.part")
            try:
                with part.open("wb") as output:
                    write(store, args.format, output, args.history, left.append)
                os.replace(part, out)
            except OSError as error:
                sys.stderr.write(f"benchgraph: error: cannot write {out}: {error}\n")
                return EXIT_ERROR
            finally:  # a failed or interrupted dump leaves nothing behind
                with contextlib.suppress(OSError):
                    part.unlink(missing_ok=True)
    sys.stderr.writelines(left_out_lines(left, args.verbose))
    return EXIT_REFUSED if left else EXIT_OK


def write(
    store: Store,
    name: str,
    output: IO[bytes],
    history: bool = False,
    left_out: Callable[[eee.LeftOut], None] = lambda _: None,
) -> int:
    """Write ``store`` to ``output`` in the export format ``name`` (a quad dump with every
    earlier version when ``history``); return how many results were left out (only eee leaves
    any out, each told to ``left_out``). Raises StoreError or OSError."""
    if name == "eee":
        return eee.write(store, output, left_out)
    export.write(store, export.FORMATS[name], output, history)
    return 0


# The metrics (each on its benchmark) the summary of the results left out shows; --verbose
# names every result.
SHOWN = 8
# The formats whose files have no field for a direction, as a sentence names them.
_NO_FIELD = {
    "pwc-tables": "a Papers with Code tables file",
    "pwc-api": "a Papers with Code API response",
    "model-index": "a model card's model-index",
    "leaderboard-csv": "a crawled leaderboard (CSV)",
}
_PAGES = {"sota2": "a sota2 page", "radar": "an AI Benchmark Radar page"}


def left_out_lines(left: list[eee.LeftOut], verbose: bool) -> list[str]:
    """What ``export --format eee`` says on stderr of the results ``left`` out: how many, then
    a line per metric and benchmark with its count and an example (``verbose``: a line per
    result), then what can be done, once per format of their sources. Empty when ``left`` is."""
    if not left:
        return []
    groups: dict[tuple[str, str], list[eee.LeftOut]] = {}
    for item in left:
        groups.setdefault((item.metric_name, item.benchmark), []).append(item)
    benchmarks = {i.benchmark for i in left}  # a metric is a benchmark's: one group each
    lines = [
        f"left out: {_many(len(left), 'result')} whose metric states no direction (an EEE "
        f"record needs lower_is_better), of {_many(len(groups), 'metric')} on "
        f"{_many(len(benchmarks), 'benchmark')}:\n"
    ]
    if verbose:
        lines += [
            f"  result {i.result}: {i.metric_name} on {i.benchmark} ({i.metric})\n" for i in left
        ]
    else:
        ranked = sorted(groups.items(), key=lambda group: (-len(group[1]), group[0]))
        for (metric, benchmark), items in ranked[:SHOWN]:
            counted = _many(len(items), "result")
            lines.append(f"  {metric} on {benchmark}: {counted}, e.g. {items[0].result}\n")
        rest = ranked[SHOWN:]
        if rest:
            count = sum(len(items) for _, items in rest)
            lines.append(f"  and {len(rest)} more metrics, {_many(count, 'result')}\n")
        lines.append("  (--verbose names each result)\n")
    formats = sorted({i.source_format or "" for i in left})
    return lines + [_what_to_do(f) + "\n" for f in formats]


def _what_to_do(source_format: str) -> str:
    """What a user can do about a metric of no direction whose source is in ``source_format``."""
    if source_format == "score-file":
        return (
            "a score file states a benchmark's direction in its benchmarks: list: give the "
            "benchmark `direction: higher_is_better` (or lower_is_better) there and ingest "
            "the file again"
        )
    if source_format == "lm-eval":
        return (
            "an lm-evaluation-harness 0.3 results file states no direction (0.4 states "
            "higher_is_better), and benchgraph does not guess one: their results stay in the "
            "store, listed unranked"
        )
    if source_format == "eee":
        return (
            "an Every Eval Ever record states each metric's lower_is_better: give it to those "
            "that lack it and ingest the record again"
        )
    if source_format in _PAGES:
        return (
            f"{_PAGES[source_format]} states each metric's direction, and one that does not is "
            "refused at ingest: this store was changed around benchgraph (`benchgraph "
            "validate` names what is missing)"
        )
    what = _NO_FIELD.get(source_format, f"a {source_format or 'source'} file")
    return (
        f"{what} has no field for a direction: benchgraph reads one from the metric's name, by "
        'the lists in docs/formats.md ("Units and directions, honestly"), which hold none of '
        "these names.\n  Their results stay in the store, listed unranked; a name whose "
        "direction is known can be added to those lists (ingest/directions.py)"
    )


def _many(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"
