"""Parser for benchmark-radar's curated score file (``benchmark_scores.yml``, YAML).

The file declares each benchmark's metric once (``benchmarks:``: ``benchmark_id``, ``metric``,
``direction``, ``unit``) and then lists ``results:``, each a number read out of a cited
document: ``benchmark_id``, ``instrument``, ``protocol``, ``model``, ``organization``,
optional ``reported_by``, ``source_id``, ``reported_at``, ``value`` and ``read_from``.

What becomes of each field:

- ``instrument`` is the benchmark's version identity (Terminal-Bench 2.0 and 2.1 share a
  ``benchmark_id`` and are different task sets), so it is the benchmark's dataset, with the
  ``benchmark_id`` as its task: results on two instruments never share a benchmark. A file
  with no ``instrument`` anywhere uses the ``benchmark_id`` as the dataset.
- ``protocol`` is the file's comparability class: the configuration's protocol.
- ``metric``, ``unit`` and ``direction`` (``higher_is_better``/``lower_is_better``, as
  given) become the metric of every instrument of that benchmark; a missing direction is read
  from the metric-name table and marked as inferred.
- ``source_id`` names the document the number was read from (an entry of the dataset's
  ``model_cards.yml``, which this file does not carry: no URL, title or arXiv ID). It is the
  reporting source, of kind "document", with that ID as its source ID and as its name;
  ``reported_at`` is the result's date (one that is not a date is left out, with a warning)
  and, when every row of the document on that benchmark gives the same one, the document's
  date (a benchmark's Page is read from its own rows only).
- ``organization`` (whose model), ``reported_by`` (who published the document, set on
  third-party citations) and ``read_from`` (``pdf_text``, ``html_text``) have no record field
  and are not kept.

Each benchmark of the file (a ``benchmark_id`` and its ``instrument``) is a source of its own,
one Page: its key is ``score-file/benchmark-radar/<benchmark_id>/<instrument>`` (both
normalised), its title names them, and its SHA-256 is taken over a canonical text of its own
content only (its ``benchmarks:`` entry and its ``results:`` rows, as JSON with sorted keys),
so a benchmark whose rows are the same in a newer file is unchanged and one whose rows
changed is a new version of that benchmark alone. A result's ID is the key, then the model,
the reporting document and the protocol (each normalised), then ``/2``, ``/3``... for a
repeat in file order: a row that moves keeps its ID. Its YAML path (``results[12]``) names it
in messages and is recorded as its location: a benchmark unchanged but for where its rows
stand in the file is unchanged, and keeps the locations of the version stored.

The file holds many independent claims: a result that cannot be read (no model, no value, a
value that is not one number) is skipped with a warning naming its YAML path, on its
benchmark's Page. A row that names no benchmark that can be read (no ``benchmark_id``, one
not declared, no ``instrument`` in a file that gives them, or the key of another benchmark of
the file) has no Page of its own: it is skipped with a warning on the file's first Page (the
first benchmark its results name), as are the rows of a benchmark none of whose rows can be
read. A broken structure (no ``benchmarks`` or ``results`` list, a benchmark declared twice or
with a direction it does not define, an unknown ``schema_version``) refuses the file, and so
does a file none of whose results can be read. The file states no date of its own, so
``data_updated`` is None; its publisher is the dataset (benchmark-radar, whose ``rebuild``
command its header names).

The dataset's snapshot registry (``leaderboard_snapshots.yml``) is recognised too, so that it
is refused with the reason: it describes crawled leaderboard CSV files (read by
:mod:`ingest.leaderboard_csv`) and holds no scores.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from benchgraph.names import key_part
from ingest import directions, units
from ingest.cells import Cell, CellError, read_cell
from ingest.records import (
    Benchmark,
    Configuration,
    Direction,
    MetricDecl,
    Page,
    PageError,
    PageWarning,
    PaperRef,
    ResultRecord,
    SourceFormat,
)
from ingest.sources import gathered
from ingest.structured import decoded, load_yaml, path, shown

FORMAT: SourceFormat = "score-file"
KEY = "score-file/benchmark-radar"  # a benchmark's key is this, its benchmark_id and instrument
PUBLISHER = "benchmark-radar"
NO_PROTOCOL = "no-protocol"  # the protocol part of the ID of a result that states none
SCHEMA_VERSIONS = ("1",)
_DIRECTIONS: dict[str, Direction] = {"higher_is_better": "higher", "lower_is_better": "lower"}
_BENCHMARKS = re.compile(r"^benchmarks:[ \t]*(?:#.*)?$", re.M)
_RESULTS = re.compile(r"^results:[ \t]*(?:#.*)?$", re.M)
_BENCHMARK_ID = re.compile(r"^[ \t]*-[ \t]+benchmark_id:", re.M)
_SNAPSHOTS = re.compile(r"^snapshots:[ \t]*(?:#.*)?$", re.M)
_SCORES_FILE = re.compile(r"^[ \t]+scores_file:", re.M)
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_HINT = "a benchmark-radar score file has 'benchmarks:' and 'results:' lists"


class _Skip(Exception):
    """A result that cannot be read: ``field`` is where in the row, ``str()`` the reason."""

    def __init__(self, field: str | None, problem: str) -> None:
        self.field = field
        super().__init__(problem)


@dataclass(frozen=True)
class _Declared:
    """A benchmark as ``benchmarks:`` declares it; ``entry`` is the entry as written."""

    metric: str
    unit: str | None
    direction: Direction | None
    inferred: bool
    entry: Mapping[str, Any] = field(compare=False)


@dataclass
class _Source:
    """One benchmark of the file (a benchmark_id on an instrument) and its rows, by index."""

    key: str
    benchmark_id: str
    dataset: str
    rows: list[tuple[int, Mapping[str, Any]]]


@dataclass(frozen=True)
class _Row:
    """One readable result, before its document date is settled."""

    index: int
    model: str
    cell: Cell
    protocol: str | None
    source: str
    date: str | None


def sniff(text: str) -> bool:
    """Return True for a benchmark-radar score file (top-level ``benchmarks:`` and ``results:``
    lists of ``benchmark_id`` entries) or the dataset's snapshot registry, which it refuses."""
    try:
        if _SNAPSHOTS.search(text) and _SCORES_FILE.search(text):
            return True
        return bool(
            _BENCHMARKS.search(text) and _RESULTS.search(text) and _BENCHMARK_ID.search(text)
        )
    except (TypeError, ValueError):
        return False


def parse(data: bytes, origin: str) -> list[Page]:
    """Read a benchmark-radar score file from ``data``; ``origin`` names it in errors.

    Returns one Page per benchmark (benchmark_id and instrument) that has a readable result,
    in the order the results first name them; the warnings of rows that belong to no such
    benchmark are on the first Page. Raises PageError for a file that is not UTF-8 or not
    YAML, for a broken structure (with its YAML path), for the dataset's snapshot registry,
    which holds no scores, and for a file none of whose results can be read.
    """
    text = decoded(data, origin, _HINT)
    document = load_yaml(text, origin)
    if not isinstance(document, Mapping):
        raise PageError(origin, "", f"the document is {shown(document)}, not a mapping", _HINT)
    if "snapshots" in document and "results" not in document:
        raise PageError(
            origin,
            "snapshots",
            "a leaderboard snapshot registry: it describes crawled CSV files and holds no scores",
            "ingest benchmark_scores.yml for the scores read out of cited documents",
        )
    _check_schema(document, origin)
    declared = _declarations(document, origin)
    rows = document.get("results")
    if not isinstance(rows, list):
        raise PageError(origin, "results", f"'results' is {shown(rows)}, not a list", _HINT)
    sources, stray = _sources(rows, declared, origin)
    read = (_page(source, declared[source.benchmark_id], origin) for source in sources)
    pages, stray = gathered(read, stray, _order)
    if not pages:
        problem = f"none of the {len(rows)} results can be read"
        raise PageError(origin, "results", problem, str(stray[0]) if stray else _HINT)
    return pages


def _check_schema(document: Mapping[str, Any], origin: str) -> None:
    """Raise PageError for a ``schema_version`` this reader does not know."""
    version = document.get("schema_version")
    if version is not None and str(version) not in SCHEMA_VERSIONS:
        raise PageError(
            origin,
            "schema_version",
            f"schema_version {version}: this reader knows version {', '.join(SCHEMA_VERSIONS)}",
            "the fields of another version may mean something else",
        )


def _declarations(document: Mapping[str, Any], origin: str) -> dict[str, _Declared]:
    """The ``benchmarks:`` list by benchmark_id. Raises PageError with the YAML path of a
    missing list, an entry that is no mapping, a missing field, an unknown direction or a
    benchmark declared twice."""
    entries = document.get("benchmarks")
    if not isinstance(entries, list):
        raise PageError(
            origin, "benchmarks", f"'benchmarks' is {shown(entries)}, not a list", _HINT
        )
    declared: dict[str, _Declared] = {}
    first_at: dict[str, str] = {}
    for index, entry in enumerate(entries):
        at = path("benchmarks", index)
        if not isinstance(entry, Mapping):
            raise PageError(origin, at, f"the entry is {shown(entry)}, not a mapping")
        name = _text(entry.get("benchmark_id"))
        if name is None:
            raise PageError(origin, f"{at}.benchmark_id", "no benchmark_id")
        if name in declared:
            raise PageError(
                origin,
                f"{at}.benchmark_id",
                f"{name!r} is declared twice (first at {first_at[name]})",
            )
        metric = _text(entry.get("metric"))
        if metric is None:
            raise PageError(origin, f"{at}.metric", f"benchmark {name!r} declares no metric")
        unit = _unit(origin, at, entry, metric)
        direction, inferred = _direction(origin, at, entry, metric)
        declared[name] = _Declared(metric, unit, direction, inferred, entry)
        first_at[name] = at
    return declared


def _unit(origin: str, at: str, entry: Mapping[str, Any], metric: str) -> str | None:
    """The unit the entry states, else "%" for a metric named with a percent sign, else None.
    Raises PageError for a stated unit that is blank or contradicts a percent sign."""
    if entry.get("unit") is None:
        return "%" if "%" in metric else None
    unit = _text(entry.get("unit"))
    if unit is None:
        raise PageError(origin, f"{at}.unit", f"the unit is {shown(entry.get('unit'))}")
    if "%" in metric and units.canonical(unit) != units.PERCENT:
        raise PageError(origin, f"{at}.unit", f"unit {unit!r} for a metric named {metric!r}")
    return unit


def _direction(
    origin: str, at: str, entry: Mapping[str, Any], metric: str
) -> tuple[Direction | None, bool]:
    """The direction as given, else the metric-name table's (inferred), else None. Raises
    PageError for a direction the file's header does not define."""
    given = entry.get("direction")
    if given is None:
        inferred = directions.infer(metric)
        return inferred, inferred is not None
    if not isinstance(given, str) or given not in _DIRECTIONS:
        raise PageError(
            origin,
            f"{at}.direction",
            f"direction {given!r} is neither higher_is_better nor lower_is_better",
        )
    return _DIRECTIONS[given], False


def _sources(
    rows: list[Any], declared: Mapping[str, _Declared], origin: str
) -> tuple[list[_Source], list[PageWarning]]:
    """The file's benchmarks, in the order the results first name them, each with its rows;
    and a warning for each row that names no benchmark that can be read (its Page's key taken
    by another benchmark of the file, when their names differ only in punctuation or case)."""
    sources: dict[str, _Source] = {}
    stray: list[PageWarning] = []
    uses_instrument = any(isinstance(row, Mapping) and "instrument" in row for row in rows)
    for index, row in enumerate(rows):
        try:
            benchmark_id, dataset = _benchmark_of(row, declared, uses_instrument)
        except _Skip as skip:
            stray.append(_skipped(origin, index, skip))
            continue
        key = f"{KEY}/{key_part(benchmark_id)}/{key_part(dataset)}"
        source = sources.setdefault(key, _Source(key, benchmark_id, dataset, []))
        if (source.benchmark_id, source.dataset) != (benchmark_id, dataset):
            taken = (
                f"benchmark {benchmark_id!r} on {dataset!r} has the key {key!r} of benchmark "
                f"{source.benchmark_id!r} on {source.dataset!r} (results[{source.rows[0][0]}])"
            )
            stray.append(_skipped(origin, index, _Skip("benchmark_id", taken)))
            continue
        source.rows.append((index, row))
    return list(sources.values()), stray


def _benchmark_of(
    row: object, declared: Mapping[str, _Declared], instrument: bool
) -> tuple[str, str]:
    """The benchmark_id and the dataset (its instrument, or the benchmark_id in a file that
    gives no instrument) of a row; raises _Skip for a row that names no declared one."""
    if not isinstance(row, Mapping):
        raise _Skip(None, f"the entry is {shown(row)}, not a mapping")
    benchmark_id = _required(row, "benchmark_id")
    if benchmark_id not in declared:
        raise _Skip("benchmark_id", f"benchmark {benchmark_id!r} is not declared in 'benchmarks'")
    return benchmark_id, _required(row, "instrument") if instrument else benchmark_id


def _page(source: _Source, decl: _Declared, origin: str) -> tuple[Page | None, list[PageWarning]]:
    """The Page of one benchmark and its warnings; None (with the warnings) when none of its
    results can be read."""
    found, warnings = _rows(source, decl, origin)
    if not found:
        return None, warnings
    benchmark = Benchmark(
        task=source.benchmark_id, dataset=source.dataset, split=directions.split_in(decl.metric)
    )
    metric = MetricDecl(
        name=decl.metric,
        unit=decl.unit or ("%" if any(row.cell.percent for row in found) else None),
        direction=decl.direction,
        direction_inferred=decl.inferred,
        benchmark=benchmark,
    )
    dates = _document_dates(found, origin, warnings)
    results = _records(source.key, found, metric, dates)
    page = Page(
        format=FORMAT,
        origin=origin,
        key=source.key,
        title=_title(source),
        url=None,
        data_updated=None,
        benchmark=benchmark,
        metrics=(metric,),
        primary_metric=metric.name,
        results=results,
        declared_count=len(results),
        total_count=len(source.rows),
        publisher=PUBLISHER,
        sha256=_digest(source, decl),
        warnings=tuple(sorted(warnings, key=_order)),
    )
    return page, warnings


def _rows(source: _Source, decl: _Declared, origin: str) -> tuple[list[_Row], list[PageWarning]]:
    """The benchmark's results that can be read, and a warning for each of the others."""
    found: list[_Row] = []
    warnings: list[PageWarning] = []
    for index, row in source.rows:
        try:
            found.append(_row(index, row, decl))
        except _Skip as skip:
            warnings.append(_skipped(origin, index, skip))
            continue
        if found[-1].date is None and row.get("reported_at") is not None:
            where = path("results", index, "reported_at")
            shown = row["reported_at"]
            warnings.append(
                PageWarning(origin, where, f"{shown!r} is not a date: the result has none")
            )
    return found, warnings


def _row(index: int, row: Mapping[str, Any], decl: _Declared) -> _Row:
    """One result of a benchmark read; raises _Skip naming the field that cannot be read."""
    model = _required(row, "model")
    try:
        cell = read_cell(row.get("value"))
    except CellError as error:
        raise _Skip("value", str(error)) from None
    if cell.percent and decl.unit is not None and units.canonical(decl.unit) != units.PERCENT:
        raise _Skip("value", f"{cell.text!r} is a percentage, the metric's unit is {decl.unit!r}")
    protocol = row.get("protocol")
    if protocol is not None and _text(protocol) is None:
        raise _Skip("protocol", f"the protocol is {shown(protocol)}")
    return _Row(
        index=index,
        model=model,
        cell=cell,
        protocol=_text(protocol),
        source=_required(row, "source_id"),
        date=_date(row.get("reported_at")),
    )


def _skipped(origin: str, index: int, skip: _Skip) -> PageWarning:
    """The warning for the result at ``results[index]`` that ``skip`` skips."""
    where = path("results", index, *([skip.field] if skip.field else []))
    return PageWarning(origin, where, f"result skipped: {skip}")


def _document_dates(rows: list[_Row], origin: str, warnings: list[PageWarning]) -> dict[str, str]:
    """Each source document's date: the ``reported_at`` all its rows agree on. A source whose
    rows disagree gets no date, with a warning at its first disagreeing row."""
    dates: dict[str, str | None] = {}
    for row in rows:
        if row.date is None:
            continue
        known = dates.setdefault(row.source, row.date)
        if known is not None and known != row.date:
            dates[row.source] = None
            warnings.append(
                PageWarning(
                    origin,
                    path("results", row.index, "reported_at"),
                    f"source {row.source!r} is dated {known} and {row.date}: "
                    "the document is given no date",
                )
            )
    return {source: date for source, date in dates.items() if date is not None}


def _records(
    key: str, rows: list[_Row], metric: MetricDecl, dates: Mapping[str, str]
) -> tuple[ResultRecord, ...]:
    """The benchmark's results, each named by the key, its model, document and protocol (and
    ``/2``, ``/3``... for a repeat of those in file order)."""
    seen: Counter[str] = Counter()
    records = []
    for row in rows:
        protocol = key_part(row.protocol) if row.protocol else NO_PROTOCOL
        name = f"{key}/{key_part(row.model)}/{key_part(row.source)}/{protocol}"
        seen[name] += 1
        location = path("results", row.index)
        records.append(
            ResultRecord(
                source_id=name if seen[name] == 1 else f"{name}/{seen[name]}",
                method=row.model,
                metric=metric.name,
                value=row.cell.value,
                reported_in=PaperRef(
                    source_id=row.source,
                    title=row.source,
                    date=dates.get(row.source),
                    kind="document",
                ),
                result_date=row.date,
                configuration=Configuration(protocol=row.protocol),
                benchmark=metric.benchmark,
                cell=None if row.cell.as_published else row.cell.text,
                spread=row.cell.spread,
                location=location,
            )
        )
    return tuple(records)


def _digest(source: _Source, decl: _Declared) -> str:
    """SHA-256 of the benchmark's own content: its declaration, its instrument and its rows
    as written, as JSON with sorted keys (dates and numbers as their text)."""
    content = {
        "benchmark": decl.entry,
        "instrument": source.dataset,
        "results": [row for _, row in source.rows],
    }
    text = json.dumps(
        _plain(content), sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _plain(value: object) -> object:
    """``value`` with every mapping's keys as text, so that JSON can sort them."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _required(row: Mapping[str, Any], field: str) -> str:
    value = _text(row.get(field))
    if value is None:
        said = "missing" if row.get(field) is None else shown(row.get(field))
        raise _Skip(field, f"no {field} ({said})")
    return value


def _text(value: object) -> str | None:
    """A non-blank text (a number counts, as written), stripped; else None."""
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def _date(value: object) -> str | None:
    """``reported_at`` as an ISO date, or None when it is missing or not a date."""
    if isinstance(value, datetime.datetime):
        return value.date().isoformat()
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, str) and _DATE.fullmatch(value.strip()):
        return value.strip()
    return None


def _title(source: _Source) -> str:
    """The benchmark's title: its benchmark_id, and its instrument when that differs."""
    if source.dataset == source.benchmark_id:
        return f"benchmark-radar scores on {source.benchmark_id}"
    return f"benchmark-radar scores on {source.benchmark_id}, instrument {source.dataset}"


def _order(warning: PageWarning) -> tuple[int, str]:
    """File order: by result index, then by field."""
    found = re.match(r"results\[(\d+)\]", warning.location)
    return (int(found[1]) if found else -1, warning.location)
