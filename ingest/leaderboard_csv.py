"""Parser for crawled aggregator leaderboards exported as CSV (benchmark-radar's LLM Stats
crawl: ``llm_stats_benchmark_scores_<date>.csv``).

Each row is one model's score on one benchmark as the aggregator's leaderboard endpoint
returned it: ``benchmark_id``, ``benchmark_name``, ``rank``, ``model_id``, ``model_name``,
``benchmark_score``, ``verified``, ``self_reported``, ``retrieved_at_utc`` and the endpoint's
``source_url``, beside catalogue and pricing columns that say nothing about the score.

What becomes of the columns:

- ``benchmark_name`` names the benchmark (task and dataset alike: the export names no task);
  its one metric is the column's ``score``, with no unit (the export states none; a percent
  sign in the cells makes it "%") and the direction the metric-name table gives "score",
  marked as inferred.
- The leaderboard page (``source_url``) is the reporting source, of kind "document": a
  leaderboard row is a claim as reported to an aggregator. A row states no protocol, so its
  configuration is not recorded: the leaderboard ranks the rows of a benchmark together, in
  the cohort "configuration not recorded", as the aggregator ranks them.
- ``model_name`` is the method. ``model_id`` is the row's identity, with ``benchmark_id``:
  two checkpoints can share a display name (two Claude 3.5 Sonnet releases), and a display
  name that two model IDs of one benchmark share is followed by the ID (``Claude 3.5 Sonnet
  (claude-3-5-sonnet-20240620)``).
- ``verified`` and ``self_reported`` are kept; ``rank`` (the score's order) and the
  catalogue, pricing and release columns are not results.
- ``retrieved_at_utc`` is when the crawl fetched the row: the latest of a benchmark's rows is
  its ``data_updated``. No row states when its figure was obtained, so results have no date.

Each benchmark of the crawl is a source of its own, one Page: its key is the leaderboard
endpoint the rows were fetched from (``source_url`` without its query and last segment), then
the normalised ``benchmark_id``; its URL is the benchmark's ``source_url`` and its title
names the benchmark and the host. Its SHA-256 is taken over a canonical text of its own rows
only (the columns read above but the retrieval time, as JSON, in file order), so a benchmark
whose figures a newer crawl repeats is unchanged (keeping the date of the crawl that first
read them), and one whose figures changed is a new version of that benchmark alone. A
result's ID is the key and the row's ``model_id``; its line names it in messages and is
recorded as its location (a benchmark unchanged but for where its rows stand keeps the
lines of the version stored).

Rule: a crawl holds many independent claims. A row that cannot be read (no model, a score
that is not one number, another benchmark name for the same ``benchmark_id``, a second row
for the same benchmark and model) is skipped with a warning naming its line and column, on
its benchmark's Page. A row that names no benchmark (too few or too many fields, no
``benchmark_id`` or ``source_url``, or the key of another benchmark of the crawl) has no Page
of its own: it is skipped with a warning on the file's first Page (the first benchmark its
rows name), as are the rows of a benchmark none of whose rows can be read. A header without
the columns above refuses the file, and so does a file none of whose rows can be read.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from benchgraph.names import key_part
from ingest import directions
from ingest.cells import Cell, CellError, read_cell
from ingest.records import (
    Benchmark,
    MetricDecl,
    Page,
    PageError,
    PageWarning,
    PaperRef,
    ResultRecord,
    SourceFormat,
)
from ingest.sources import gathered
from ingest.structured import decoded

if TYPE_CHECKING:
    from _csv import Reader

FORMAT: SourceFormat = "leaderboard-csv"
METRIC = "score"
REQUIRED = (
    "benchmark_id",
    "benchmark_name",
    "model_id",
    "model_name",
    "benchmark_score",
    "retrieved_at_utc",
    "source_url",
)
# The columns a benchmark's SHA-256 is taken over: those read, but the retrieval time.
CONTENT = (
    "benchmark_id",
    "benchmark_name",
    "model_id",
    "model_name",
    "benchmark_score",
    "verified",
    "self_reported",
    "source_url",
)
_HEADER = frozenset({*REQUIRED, "rank"})
_BOOLEANS = {"true": True, "false": False}
_INSTANT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})")
_HINT = "a leaderboard export's first line names its columns, e.g. benchmark_id,benchmark_name"


@dataclass
class _Source:
    """One benchmark of the crawl and its rows, by line."""

    key: str
    benchmark_id: str
    rows: list[tuple[int, dict[str, str]]]


@dataclass(frozen=True)
class _Row:
    line: int
    benchmark: Benchmark
    model_id: str
    model: str
    cell: Cell
    url: str
    verified: bool | None
    self_reported: bool | None
    retrieved: str | None  # the retrieval instant, when it is one


class _Skip(Exception):
    def __init__(self, column: str | None, problem: str) -> None:
        self.column = column
        super().__init__(problem)


def sniff(text: str) -> bool:
    """Return True when the first line of ``text`` is a leaderboard export's header: it names
    the benchmark, model, score, retrieval time, source URL and rank columns."""
    try:
        first = text.lstrip("\ufeff").split("\n", 1)[0].rstrip("\r")
        return {name.strip() for name in first.split(",")} >= _HEADER
    except (TypeError, ValueError, AttributeError):
        return False


def parse(data: bytes, origin: str) -> list[Page]:
    """Read a crawled leaderboard export from ``data``; ``origin`` names it in errors.

    Returns one Page per benchmark that has a readable row, in the order the rows first name
    them; the warnings of rows that belong to no such benchmark are on the first Page.
    Raises PageError for a file that is not UTF-8 or not CSV, whose header lacks a column
    this reader needs, or none of whose rows can be read.
    """
    text = decoded(data, origin, _HINT)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = [name.strip() for name in next(reader, [])]
        missing = [name for name in REQUIRED if name not in header]
        if missing:
            raise PageError(
                origin, "line 1", f"the header has no column {', '.join(missing)}", _HINT
            )
        sources, stray, total = _sources(reader, header, origin)
    except csv.Error as error:
        raise PageError(origin, f"line {reader.line_num}", f"not valid CSV: {error}") from None
    pages, stray = gathered((_page(source, origin) for source in sources), stray, _order)
    if not pages:
        raise PageError(
            origin,
            "",
            f"none of the {total} rows can be read",
            str(stray[0]) if stray else "the file has a header and no rows",
        )
    return pages


def _sources(
    reader: Reader, header: list[str], origin: str
) -> tuple[list[_Source], list[PageWarning], int]:
    """The crawl's benchmarks, in the order the rows first name them, each with its rows; a
    warning for each row that names no benchmark; and the number of rows that are not blank.
    Raises csv.Error for text that is not CSV."""
    sources: dict[str, _Source] = {}
    stray: list[PageWarning] = []
    total = 0
    line = reader.line_num + 1
    for fields in reader:
        start, line = line, reader.line_num + 1
        if not any(field.strip() for field in fields):
            continue
        total += 1
        try:
            if len(fields) != len(header):
                raise _Skip(None, f"{len(fields)} fields, the header names {len(header)}")
            values = dict(zip(header, fields, strict=True))
            benchmark_id = _required(values, "benchmark_id")
            key = f"{_endpoint(_required(values, 'source_url'))}/{key_part(benchmark_id)}"
            source = sources.setdefault(key, _Source(key, benchmark_id, []))
            if source.benchmark_id != benchmark_id:
                first = source.rows[0][0]
                taken = f"{benchmark_id!r} has the key of {source.benchmark_id!r} (line {first})"
                raise _Skip("benchmark_id", taken)
        except _Skip as skip:
            stray.append(_skipped(origin, start, skip))
            continue
        source.rows.append((start, values))
    return list(sources.values()), stray, total


def _page(source: _Source, origin: str) -> tuple[Page | None, list[PageWarning]]:
    """The Page of one benchmark and its warnings; None (with the warnings) when none of its
    rows can be read."""
    rows, warnings = _rows(source, origin)
    if not rows:
        return None, warnings
    first = rows[0]
    direction = directions.infer(METRIC)
    metric = MetricDecl(
        name=METRIC,
        unit="%" if any(row.cell.percent for row in rows) else None,
        direction=direction,
        direction_inferred=direction is not None,
        benchmark=first.benchmark,
    )
    names: dict[str, set[str]] = {}
    for row in rows:
        names.setdefault(row.model, set()).add(row.model_id)
    results = tuple(_record(row, source.key, len(names[row.model]) > 1) for row in rows)
    page = Page(
        format=FORMAT,
        origin=origin,
        key=source.key,
        title=_title(first),
        url=first.url,
        data_updated=_latest(row.retrieved for row in rows),
        benchmark=first.benchmark,
        metrics=(metric,),
        primary_metric=METRIC,
        results=results,
        declared_count=len(results),
        total_count=len(source.rows),
        sha256=_digest(source),
        warnings=tuple(warnings),
    )
    return page, warnings


def _rows(source: _Source, origin: str) -> tuple[list[_Row], list[PageWarning]]:
    """The benchmark's readable rows and the warnings for the others, in file order."""
    rows: list[_Row] = []
    warnings: list[PageWarning] = []
    seen: dict[str, int] = {}
    for line, values in source.rows:
        try:
            row = _row(line, values)
            if rows and row.benchmark != rows[0].benchmark:
                named = f"the benchmark is named {row.benchmark.dataset!r}"
                raise _Skip(
                    "benchmark_name", f"{named}, not {rows[0].benchmark.dataset!r} as above"
                )
            first = seen.setdefault(row.model_id, line)
            if first != line:
                raise _Skip(
                    "model_id", f"a second row for {row.model_id!r} (first at line {first})"
                )
        except _Skip as skip:
            warnings.append(_skipped(origin, line, skip))
            continue
        rows.append(row)
    return rows, warnings


def _row(line: int, values: Mapping[str, str]) -> _Row:
    """One row of a benchmark read; raises _Skip naming the column that cannot be read."""
    name = _required(values, "benchmark_name")
    try:
        cell = read_cell(values["benchmark_score"])
    except CellError as error:
        raise _Skip("benchmark_score", str(error)) from None
    instant = values["retrieved_at_utc"].strip()
    return _Row(
        line=line,
        benchmark=Benchmark(task=name, dataset=name),
        model_id=_required(values, "model_id"),
        model=_required(values, "model_name"),
        cell=cell,
        url=_required(values, "source_url"),
        verified=_boolean(values.get("verified")),
        self_reported=_boolean(values.get("self_reported")),
        retrieved=instant if _INSTANT.fullmatch(instant) else None,
    )


def _skipped(origin: str, line: int, skip: _Skip) -> PageWarning:
    """The warning for the row at ``line`` that ``skip`` skips."""
    where = f"line {line}" + (f", column {skip.column}" if skip.column else "")
    return PageWarning(origin, where, f"row skipped: {skip}")


def _record(row: _Row, key: str, shared: bool) -> ResultRecord:
    """The row's record; ``shared``: another model of the benchmark has its display name, so
    the method is named with its model ID too."""
    return ResultRecord(
        source_id=f"{key}/{row.model_id}",
        method=f"{row.model} ({row.model_id})" if shared else row.model,
        metric=METRIC,
        value=row.cell.value,
        reported_in=PaperRef(url=row.url, title=_title(row), kind="document"),
        benchmark=row.benchmark,
        cell=None if row.cell.as_published else row.cell.text,
        spread=row.cell.spread,
        verified=row.verified,
        self_reported=row.self_reported,
        line=row.line,
        location=f"line {row.line}",
    )


def _title(row: _Row) -> str:
    """The title of the leaderboard page a row was fetched from."""
    return f"{row.benchmark.dataset} leaderboard at {urlsplit(row.url).netloc}"


def _digest(source: _Source) -> str:
    """SHA-256 of the benchmark's own content: its rows in file order, each the columns of
    CONTENT as written, as JSON."""
    content = [{column: values.get(column) for column in CONTENT} for _, values in source.rows]
    text = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _latest(instants: Iterable[str | None]) -> str | None:
    """The latest of the instants (as written), compared as moments, not as text."""
    found = [instant for instant in instants if instant is not None]
    return max(found, key=datetime.fromisoformat, default=None)


def _endpoint(url: str) -> str:
    """The key of the leaderboard endpoint a row's ``source_url`` names: the format, then the
    URL's host and path without its query and last segment (the benchmark)."""
    parts = urlsplit(url)
    return f"{FORMAT}/{parts.netloc}{parts.path.rsplit('/', 1)[0]}"


def _required(values: Mapping[str, str], column: str) -> str:
    value = values.get(column, "").strip()
    if not value:
        raise _Skip(column, f"no {column}")
    return value


def _boolean(text: str | None) -> bool | None:
    return _BOOLEANS.get((text or "").strip().lower())


def _order(warning: PageWarning) -> tuple[int, str]:
    """File order: by line."""
    found = re.match(r"line (\d+)", warning.location)
    return (int(found[1]) if found else 0, warning.location)
