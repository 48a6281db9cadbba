"""The tables of a Papers with Code evaluation-tables file read into records (see
:mod:`ingest.pwc_tables`, which finds them), one leaderboard at a time: metric declarations,
results and the warnings of what could not be read, in file order.

A result's ID is its leaderboard's key, its method and its metric, normalised, so that a row
moving in its table (or its table in the file) keeps the ID: ``…/squad2-0/fpnet-ensemble/em``,
and ``/2``, ``/3`` … for a second, third result of the same method and metric, in file order."""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from benchgraph.names import key_part
from ingest import directions
from ingest.cells import Cell, CellError, read_cell
from ingest.records import (
    Benchmark,
    Configuration,
    MetricDecl,
    PageWarning,
    PaperRef,
    ResultRecord,
    Setting,
)
from ingest.structured import path, shown

_ARXIV = re.compile(
    r"arxiv\.org/(?:abs|pdf)/((?:[a-z-]+(?:\.[A-Z]{2})?/\d{7})|\d{4}\.\d{4,5})(?:v\d+)?",
    re.IGNORECASE,
)
_URL = re.compile(r"https?://[^\s<>\"{}|\\^`]+", re.IGNORECASE)  # absolute, and an IRI
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_PERCENT_WORD = re.compile(r"%|\bper\s?cent(?:age)?\b", re.IGNORECASE)


@dataclass(frozen=True)
class Table:
    """A dataset's sota table, with the names it stands under, its place in the file and the
    SHA-256 of its content (see :func:`ingest.pwc_tables.read`)."""

    task: str
    dataset: str
    subsets: tuple[str, ...]  # the subdatasets' names, outermost first
    steps: tuple[str | int, ...]  # the JSON path of its ``sota``
    metrics: tuple[str, ...]
    rows: tuple[Any, ...]
    parents: tuple[str, ...] = ()  # the tasks above ``task``, nearest first
    sha256: str = ""

    @property
    def task_parents(self) -> tuple[tuple[str, str], ...]:
        """The (subtask, task) pairs of the chain of tasks above the table, nearest first."""
        chain = (self.task, *self.parents)
        return tuple(dict.fromkeys((a, b) for a, b in itertools.pairwise(chain) if a != b))

    @property
    def name(self) -> str:
        inside = f" ({' / '.join(self.subsets)})" if self.subsets else ""
        return f"{self.task} on {self.dataset}{inside}"

    def benchmark(self, metric: str) -> Benchmark:
        split = " / ".join(self.subsets) if self.subsets else directions.split_in(metric)
        return Benchmark(self.task, self.dataset, split)


@dataclass
class _Decl:
    """A metric of a benchmark as the file's tables declare and fill it."""

    name: str
    benchmark: Benchmark
    percent: bool

    def record(self) -> MetricDecl:
        direction = directions.infer(self.name)
        return MetricDecl(
            self.name,
            "%" if self.percent else None,
            direction,
            direction_inferred=direction is not None,
            benchmark=self.benchmark,
        )


@dataclass
class Reader:
    """Reads the table of one leaderboard (``key``) into metric declarations, results and
    warnings, in file order."""

    origin: str
    key: str
    title: str
    decls: dict[tuple[Benchmark, str], _Decl] = field(default_factory=dict)
    results: list[ResultRecord] = field(default_factory=list)
    warnings: list[PageWarning] = field(default_factory=list)
    rows: int = 0
    _ids: Counter[str] = field(default_factory=Counter)

    def read(self, table: Table) -> None:
        """Declare the metrics of ``table`` and read its rows into results."""
        self.rows += len(table.rows)
        rows = [
            row for index, raw in enumerate(table.rows) if (row := self._row(table, index, raw))
        ]
        columns = list(table.metrics)
        for row in rows:
            columns.extend(name for name in row.cells if name not in columns)
        for name in columns:
            benchmark = table.benchmark(name)
            decl = self.decls.setdefault(
                (benchmark, name), _Decl(name, benchmark, _PERCENT_WORD.search(name) is not None)
            )
            decl.percent = decl.percent or any(
                cell.percent for row in rows if (cell := row.cells.get(name)) is not None
            )
        for row in rows:
            self.results.extend(row.results(table, columns, self._source_id))

    def _source_id(self, method: str, metric: str) -> str:
        """The ID of the next result of ``method`` on ``metric``: ``/2`` and on for repeats."""
        found = f"{self.key}/{key_part(method)}/{key_part(metric)}"
        self._ids[found] += 1
        repeat = self._ids[found]
        return found if repeat == 1 else f"{found}/{repeat}"

    def _row(self, table: Table, index: int, row: Any) -> _Row | None:
        """The row at ``index`` of ``table`` read, or None (with a warning) when it cannot be."""
        where = path(*table.steps, "rows", index)
        if not isinstance(row, dict):
            self._skip(where, f"the row is {shown(row)}, not an object")
            return None
        metrics = row.get("metrics")
        if not isinstance(metrics, dict):
            self._skip(where, f'the row\'s "metrics" is {shown(metrics)}, not an object')
            return None
        paper, date = self._paper(row, where)
        method = self._text(row, "model_name", where)
        if method is None and paper.kind == "paper" and paper.title:
            method = paper.title
            self._warn(
                f"{where}.model_name",
                "no model name: the method is named by the title of the row's paper",
            )
        if method is None:
            self._skip(where, 'the row names no method (no "model_name" and no "paper_title")')
            return None
        cells: dict[str, Cell | None] = {}
        for name, raw in metrics.items():
            try:
                cells[name] = read_cell(raw)
            except CellError as error:
                cells[name] = None
                self._warn(
                    f"{where}.metrics[{json.dumps(name, ensure_ascii=False)}]",
                    f"not a single value, skipped: {error}",
                    "the row's other metrics are loaded",
                )
        links = self._links(row, where)
        configuration = self._configuration(row, where)
        return _Row(where, method, paper, date, links, configuration, cells)

    def _paper(self, row: dict[str, Any], where: str) -> tuple[PaperRef, str | None]:
        """The paper the row names (or this file itself, as a document, when it names none) and
        the row's date when that is no paper's: a table's entry date."""
        title = self._text(row, "paper_title", where)
        url = self._text(row, "paper_url", where)
        date = self._text(row, "paper_date", where)
        if date is not None and _DATE.fullmatch(date) is None:
            self._warn(f"{where}.paper_date", f"{date!r} is not a YYYY-MM-DD date: not kept")
            date = None
        if title is None and url is None:
            return PaperRef(title=self.title, kind="document"), date
        found = _ARXIV.search(url) if url else None
        arxiv = found[1] if found else None
        if url is not None and _URL.fullmatch(url) is None:
            kept = "its title names the paper" if title else "kept as the paper's title"
            self._warn(f"{where}.paper_url", f"{url!r} is not a URL: {kept}")
            title, url = title or url, None
        # The IRIs name a paper by its arXiv ID, else its title, else its URL (benchgraph.iris).
        paper = PaperRef(url=url, title=title, date=date, arxiv_id=arxiv)
        return paper, None

    def _links(self, row: dict[str, Any], where: str) -> tuple[str, ...]:
        links = row.get("code_links") or []
        if not isinstance(links, list):
            self._warn(f"{where}.code_links", f"{shown(links)}, not a list: not kept")
            return ()
        found = []
        for index, link in enumerate(links):
            url = link.get("url") if isinstance(link, dict) else None
            url = url.strip() if isinstance(url, str) else ""
            if _URL.fullmatch(url):
                found.append(url)
            else:
                problem = f"{url!r} is not a URL" if url else "a code link with no URL"
                self._warn(f"{where}.code_links[{index}]", f"{problem}: not kept")
        return tuple(dict.fromkeys(found))

    def _configuration(self, row: dict[str, Any], where: str) -> Configuration:
        extra = row.get("uses_additional_data")
        if extra is None:
            return Configuration()
        if not isinstance(extra, bool):
            self._warn(f"{where}.uses_additional_data", f"{shown(extra)}, not true or false")
            return Configuration()
        return Configuration(settings=(Setting("uses additional data", json.dumps(extra)),))

    def _text(self, row: dict[str, Any], key: str, where: str) -> str | None:
        value = row.get(key)
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        if not isinstance(value, str):
            self._warn(f"{where}.{key}", f"{shown(value)}, not text: not kept")
            return None
        return value.strip()

    def _skip(self, where: str, problem: str) -> None:
        self._warn(where, f"{problem}; the row is skipped")

    def _warn(self, where: str, problem: str, hint: str = "") -> None:
        self.warnings.append(PageWarning(self.origin, where, problem, hint))


@dataclass(frozen=True)
class _Row:
    """A row read: its method, paper, code links, configuration and cells (None: unreadable)."""

    where: str
    method: str
    paper: PaperRef
    date: str | None  # the row's date, when it names no paper to date
    code_links: tuple[str, ...]
    configuration: Configuration
    cells: dict[str, Cell | None]

    def results(
        self, table: Table, columns: list[str], source_id: Callable[[str, str], str]
    ) -> Iterator[ResultRecord]:
        """The row's results, one per readable cell, in the order of ``columns``; ``source_id``
        gives the ID of a result from its method and metric."""
        for name in columns:
            cell = self.cells.get(name)
            if cell is None:
                continue
            location = f"{self.where}.metrics[{json.dumps(name, ensure_ascii=False)}]"
            yield ResultRecord(
                source_id=source_id(self.method, name),
                method=self.method,
                metric=name,
                value=cell.value,
                reported_in=self.paper,
                result_date=self.date,
                configuration=self.configuration,
                table=table.name,
                benchmark=table.benchmark(name),
                cell=None if cell.as_published else cell.text,
                spread=cell.spread,
                code_links=self.code_links,
                location=location,
            )
