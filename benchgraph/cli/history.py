"""The ``benchgraph history`` command: the versions of a page, and what changed between two.

A result is the same result in two versions when its source ID (``dcterms:identifier``) is the
same; it changed when its value, unit, reporting paper or configuration differ.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

import pyoxigraph as ox

from benchgraph import queries, versions
from benchgraph import vocab as V
from benchgraph.cli.console import EXIT_ERROR, EXIT_OK, EXIT_REFUSED, existing_store, store_option
from benchgraph.store import Store
from benchgraph.versions import Version

FORMATS = ("table", "csv", "json")
COLUMNS = (
    "version", "dataUpdated", "ingested", "results", "added", "removed", "changed", "status",
)  # fmt: skip
CHANGES = ("added", "removed", "changed")
DIFF_COLUMNS = ("change", "result", "methodLabel", "metric", "oldValue", "newValue")
_INTEGER = V.XSD + "integer"
_DATETIME = V.XSD + "dateTime"


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``history`` command to the ``benchgraph`` command line."""
    command = commands.add_parser(
        "history",
        help="list the versions of a page, or what changed between two",
        description="List the versions of a page the store holds, oldest first (by the "
        "page's 'Data updated' time): data-updated time, ingest time, the first 16 hex digits "
        "of the SHA-256 of its bytes, its results, how many results were added, removed or "
        "changed against the version before (a result is the same when its source ID is; it "
        "changed when its value, unit, reporting paper or configuration did), and whether it "
        "is current, history or withdrawn. A page is named by its file or by its source's "
        "IRI or URL, as `remove` names pages. Exit codes: 0 listed; 1 the store holds no such "
        "page; 2 a file that cannot be read or parsed, a version --diff cannot find, a store "
        "error, or bad usage.",
    )
    command.add_argument("page", metavar="PAGE", help="a page's file, or its source's IRI or URL")
    command.add_argument(
        "--diff",
        nargs=2,
        metavar=("A", "B"),
        help="list the results that differ from version A to version B (SHA-256 prefixes as "
        "listed), one row each: change, result ID, method, metric, old and new value as "
        "published",
    )
    command.add_argument(
        "--format", choices=FORMATS, default="table", help="as `query` prints a SELECT"
    )
    store_option(command)
    command.set_defaults(handler=run_history)


@dataclass(frozen=True)
class Published:
    """One result as one version states it."""

    id: str
    value: str  # as published
    number: Decimal | None
    unit: str
    paper: str
    configuration: str
    method: str
    metric: str

    def differs(self, other: Published) -> bool:
        """Whether ``other`` is this result changed: value, unit, reporting paper or
        configuration."""
        same_value = (
            self.number == other.number if self.number is not None else self.value == other.value
        )
        mine = (self.unit, self.paper, self.configuration)
        return not same_value or mine != (other.unit, other.paper, other.configuration)


@dataclass(frozen=True)
class Difference:
    """A result added, removed or changed from one version to another."""

    change: str
    old: Published | None
    new: Published | None

    @property
    def shown(self) -> Published:
        found = self.new or self.old
        assert found is not None
        return found


def differences(old: dict[str, Published], new: dict[str, Published]) -> list[Difference]:
    """The results added, removed and changed from ``old`` to ``new`` (by source ID), by ID."""
    found = []
    for key in sorted(old.keys() | new.keys()):
        before, after = old.get(key), new.get(key)
        if before is None:
            found.append(Difference("added", None, after))
        elif after is None:
            found.append(Difference("removed", before, None))
        elif before.differs(after):
            found.append(Difference("changed", before, after))
    return found


def results(store: Store, graph: str) -> dict[str, Published]:
    """The results the version in ``graph`` states, by source ID. Raises StoreError."""
    answer = store.query(
        queries.internal("version-results"), {"graph": ox.NamedNode(graph)}, default_graph=()
    )
    assert isinstance(answer, ox.QuerySolutions)
    found = {}
    for row in answer:
        value = _text(row["published"])
        try:
            number: Decimal | None = Decimal(_text(row["value"]))
        except InvalidOperation:
            number = None
        item = Published(
            _text(row["id"]),
            value,
            number,
            _text(row["unit"]),
            _text(row["paper"]),
            _text(row["configuration"]),
            _text(row["method"]),
            _text(row["metric"]),
        )
        found[item.id] = item
    return found


def _text(term: object) -> str:
    return str(getattr(term, "value", "")) if term is not None else ""


class NoPage(Exception):
    """The name names no page in the store."""


def page_key(store: Store, given: str) -> str:
    """The identity of the one page ``given`` names (see :func:`ingest.removal.page_names`).
    Raises UnnamedPage for a name that gives none, NoPage for a source that has no page, and
    ValueError for a source URL, or a file, with several pages."""
    from ingest.removal import page_names, pages_of

    names = page_names(given)
    if len(names) > 1:
        listed = ", ".join(name.key for name in names[:5])
        raise ValueError(
            f"{given}: holds {len(names)} sources ({listed}, ...); name one of them by its "
            "identity or its source document's IRI"
        )
    name = names[0]
    if name.key:
        return name.key
    source = ox.NamedNode(name.source).value
    key = versions.key_of(source)
    if key:
        return key
    keys = [key for _, key, _ in pages_of(store, name)]
    if not keys:
        raise NoPage(f"{given}: no page has that source")
    if len(keys) > 1:
        listed = ", ".join(keys)
        raise ValueError(
            f"{given}: names {len(keys)} pages ({listed}); name one of them by its file or "
            "its source document's IRI"
        )
    return keys[0]


def run_history(args: argparse.Namespace) -> int:
    """Handler of ``benchgraph history``."""
    from ingest.removal import UnnamedPage  # the parsers, when needed

    with existing_store(args, only_reads=True) as store:
        try:
            key = page_key(store, args.page)
        except (UnnamedPage, ValueError) as error:
            sys.stderr.write(f"benchgraph: error: {error}\n")
            return EXIT_ERROR
        except NoPage as error:
            sys.stderr.write(f"not found: {error}\n")
            return EXIT_REFUSED
        known = versions.read(store, key)
        if not known.all:
            sys.stderr.write(f"not found: {args.page}: no version of page {key} in the store\n")
            return EXIT_REFUSED
        if args.diff:
            try:
                old, new = (_version(known.all, prefix) for prefix in args.diff)
            except ValueError as error:
                sys.stderr.write(f"benchgraph: error: --diff: {error}\n")
                return EXIT_ERROR
            found = differences(results(store, old.graph), results(store, new.graph))
            _write(DIFF_COLUMNS, [_diff_row(d) for d in found], args.format)
            return EXIT_OK
        rows = []
        before: dict[str, Published] | None = None
        for version in known.all:
            now = results(store, version.graph)
            # The first version has nothing to count against: its counts stay unbound.
            counts = dict.fromkeys(CHANGES, "")
            if before is not None:
                changed = Counter(d.change for d in differences(before, now))
                counts = {c: str(changed[c]) for c in CHANGES}
            before = now
            rows.append(
                [
                    (version.sha256[:16], None),
                    (version.modified, _DATETIME if "T" in version.modified else V.XSD + "date"),
                    (version.ingested, _DATETIME),
                    (str(version.results), _INTEGER),
                    *((counts[c], _INTEGER) for c in CHANGES),
                    (version.status, None),
                ]
            )
        _write(COLUMNS, rows, args.format)
    return EXIT_OK


def _version(known: Sequence[Version], prefix: str) -> Version:
    """The one version of ``known`` whose SHA-256 starts with ``prefix``. Raises ValueError."""
    found = [v for v in known if v.sha256.startswith(prefix.lower())] if prefix else []
    if len(found) == 1:
        return found[0]
    listed = ", ".join(v.sha256[:16] for v in known)
    if not found:
        raise ValueError(f"no version's SHA-256 starts with {prefix!r} (the versions: {listed})")
    raise ValueError(f"{prefix!r} starts the SHA-256 of {len(found)} versions; give more digits")


def _diff_row(d: Difference) -> list[tuple[str, str | None]]:
    shown = d.shown
    return [
        (d.change, None),
        (shown.id, None),
        (shown.method, None),
        (shown.metric, None),
        (d.old.value if d.old else "", None),
        (d.new.value if d.new else "", None),
    ]


def _write(columns: Sequence[str], rows: list[list[tuple[str, str | None]]], fmt: str) -> None:
    """Print ``rows`` (each cell its text and datatype IRI, None a plain string; empty text:
    unbound) as `query` prints a SELECT's answer in ``fmt``."""
    from benchgraph.cli.query import write

    bindings = []
    for row in rows:
        cells = {}
        for name, (text, datatype) in zip(columns, row, strict=True):
            if text:
                cells[name] = {"type": "literal", "value": text}
                if datatype:
                    cells[name]["datatype"] = datatype
        bindings.append(cells)
    document = {"head": {"vars": list(columns)}, "results": {"bindings": bindings}}
    answer = ox.parse_query_results(json.dumps(document).encode(), ox.QueryResultsFormat.JSON)
    write(answer, fmt)
