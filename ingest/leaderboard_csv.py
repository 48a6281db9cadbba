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
  name that two model IDs of the file share is followed by the ID (``Claude 3.5 Sonnet
  (claude-3-5-sonnet-20240620)``).
- ``verified`` and ``self_reported`` are kept; ``rank`` (the score's order) and the
  catalogue, pricing and release columns are not results.
- ``retrieved_at_utc`` is when the crawl fetched the row: the latest of them is the file's
  ``data_updated``. No row states when its figure was obtained, so results have no date.

Rule: a crawl holds many independent claims. A row that cannot be read (too few or too many
fields, no model, a score that is not one number, a second row for the same benchmark and
model) is skipped with a warning naming its line and column; a header without the columns
above refuses the file. The key is the leaderboard endpoint the rows were fetched from
(``source_url`` without its benchmark), so a newer crawl of the same aggregator replaces
the older one.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

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
_HEADER = frozenset({*REQUIRED, "rank"})
_BOOLEANS = {"true": True, "false": False}
_INSTANT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})")
_HINT = "a leaderboard export's first line names its columns, e.g. benchmark_id,benchmark_name"


@dataclass(frozen=True)
class _Row:
    line: int
    benchmark: Benchmark
    benchmark_id: str
    model_id: str
    model: str
    cell: Cell
    url: str
    verified: bool | None
    self_reported: bool | None


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


def parse(data: bytes, origin: str) -> Page:
    """Read a crawled leaderboard export from ``data``; ``origin`` names it in errors.

    Raises PageError for a file that is not UTF-8 or not CSV, whose header lacks a column
    this reader needs, or none of whose rows can be read.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise PageError(origin, f"byte {error.start}", "not UTF-8 text", _HINT) from None
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = [name.strip() for name in next(reader, [])]
        missing = [name for name in REQUIRED if name not in header]
        if missing:
            raise PageError(
                origin, "line 1", f"the header has no column {', '.join(missing)}", _HINT
            )
        rows, warnings, instants = _rows(reader, header, origin)
    except csv.Error as error:
        raise PageError(origin, f"line {reader.line_num}", f"not valid CSV: {error}") from None
    total = len(rows) + len(warnings)
    if not rows:
        raise PageError(
            origin,
            "",
            f"none of the {total} rows can be read",
            str(warnings[0]) if warnings else "the file has a header and no rows",
        )
    key, url = _key(rows[0].url)
    metrics = _metrics(rows)
    ids: dict[str, set[str]] = {}
    for row in rows:
        ids.setdefault(row.model, set()).add(row.model_id)
    shared = {name for name, found in ids.items() if len(found) > 1}
    results = tuple(_record(row, key, row.model in shared) for row in rows)
    return Page(
        format=FORMAT,
        origin=origin,
        key=key,
        title=f"Leaderboard export of {urlsplit(url).netloc}",
        url=url,
        data_updated=_latest(instants),
        benchmark=rows[0].benchmark,
        metrics=tuple(metrics.values()),
        primary_metric=METRIC,
        results=results,
        declared_count=len(results),
        total_count=total,
        sha256=hashlib.sha256(data).hexdigest(),
        warnings=tuple(warnings),
    )


def _rows(
    reader: Reader, header: list[str], origin: str
) -> tuple[list[_Row], list[PageWarning], list[str]]:
    """The readable rows, the warnings for the others (in file order), and the retrieval
    instants the rows state. Raises csv.Error for text that is not CSV."""
    rows: list[_Row] = []
    warnings: list[PageWarning] = []
    instants: list[str] = []
    seen: dict[tuple[str, str], int] = {}
    line = reader.line_num + 1
    for fields in reader:
        start, line = line, reader.line_num + 1
        if not any(field.strip() for field in fields):
            continue
        try:
            if len(fields) != len(header):
                raise _Skip(None, f"{len(fields)} fields, the header names {len(header)}")
            values = dict(zip(header, fields, strict=True))
            row = _row(start, values)
            first = seen.setdefault((row.benchmark_id, row.model_id), start)
            if first != start:
                raise _Skip(
                    "model_id", f"a second row for {row.model_id!r} (first at line {first})"
                )
        except _Skip as skip:
            where = f"line {start}" + (f", column {skip.column}" if skip.column else "")
            warnings.append(PageWarning(origin, where, f"row skipped: {skip}"))
            continue
        rows.append(row)
        instant = values["retrieved_at_utc"].strip()
        if _INSTANT.fullmatch(instant):
            instants.append(instant)
    return rows, warnings, instants


def _row(line: int, values: Mapping[str, str]) -> _Row:
    name = _required(values, "benchmark_name")
    try:
        cell = read_cell(values["benchmark_score"])
    except CellError as error:
        raise _Skip("benchmark_score", str(error)) from None
    return _Row(
        line=line,
        benchmark=Benchmark(task=name, dataset=name),
        benchmark_id=_required(values, "benchmark_id"),
        model_id=_required(values, "model_id"),
        model=_required(values, "model_name"),
        cell=cell,
        url=_required(values, "source_url"),
        verified=_boolean(values.get("verified")),
        self_reported=_boolean(values.get("self_reported")),
    )


def _metrics(rows: list[_Row]) -> dict[Benchmark, MetricDecl]:
    """Each benchmark's one metric, in the order the rows first name the benchmark."""
    direction = directions.infer(METRIC)
    percent = {row.benchmark for row in rows if row.cell.percent}
    metrics: dict[Benchmark, MetricDecl] = {}
    for row in rows:
        if row.benchmark in metrics:
            continue
        metrics[row.benchmark] = MetricDecl(
            name=METRIC,
            unit="%" if row.benchmark in percent else None,
            direction=direction,
            direction_inferred=direction is not None,
            benchmark=row.benchmark,
        )
    return metrics


def _record(row: _Row, key: str, shared: bool) -> ResultRecord:
    """The row's record; ``shared``: another model of the file has its display name, so the
    method is named with its model ID too."""
    return ResultRecord(
        source_id=f"{key}/{row.benchmark_id}/{row.model_id}",
        method=f"{row.model} ({row.model_id})" if shared else row.model,
        metric=METRIC,
        value=row.cell.value,
        reported_in=PaperRef(
            url=row.url,
            title=f"{row.benchmark.dataset} leaderboard at {urlsplit(row.url).netloc}",
            kind="document",
        ),
        benchmark=row.benchmark,
        cell=None if row.cell.as_published else row.cell.text,
        spread=row.cell.spread,
        verified=row.verified,
        self_reported=row.self_reported,
        line=row.line,
        location=f"line {row.line}",
    )


def _latest(instants: list[str]) -> str | None:
    """The latest of the instants (as written), compared as moments, not as text."""
    return max(instants, key=datetime.fromisoformat, default=None)


def _key(url: str) -> tuple[str, str]:
    """The page key and URL of the leaderboard endpoint a row's ``source_url`` names: the URL
    without its query and last segment (the benchmark)."""
    parts = urlsplit(url)
    base = parts.path.rsplit("/", 1)[0]
    return f"{FORMAT}/{parts.netloc}{base}", f"{parts.scheme}://{parts.netloc}{base}/"


def _required(values: Mapping[str, str], column: str) -> str:
    value = values.get(column, "").strip()
    if not value:
        raise _Skip(column, f"no {column}")
    return value


def _boolean(text: str | None) -> bool | None:
    return _BOOLEANS.get((text or "").strip().lower())
