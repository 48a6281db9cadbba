"""Parser for Papers with Code evaluation tables (the sota-extractor "TaskDB" format).

``evaluation-tables.json`` and the files written in its format are a JSON list of tasks; a
task has datasets and subtasks (tasks again), a dataset has subdatasets (datasets again) and a
``sota`` table: its metric columns and its rows, one method each, with the paper that reported
it (title, URL, date), code links, whether it used additional data and a value per metric.

A benchmark is the task, the dataset and a split: the names of the subdatasets the table stands
in (joined by `` / ``), else the split a metric's name names (``Test Accuracy`` → ``test``).
The format states no unit and no direction: a percent sign in the cells or the metric name (or
the word "percent"/"percentage" in it) gives ``%``, the metric-name table gives an inferred
direction, and otherwise neither is set. The method's origin is not in the file. A row that
names no paper is the file's own claim (a "document" source, the file's title), dated by the
row's date; a paper is known by its arXiv ID when its URL gives one. A row with no model name
is named by its paper's title. The files name no URL and no date: their publisher is the
format's, Papers with Code.

Rule for this format: a file holds many independent claims. A row that cannot be read (not an
object, no ``metrics`` object, no method) is skipped, a cell that is not one value (``-``,
empty, ``(32.76 32.07)``) loses that value only, and a URL that is not one (a code link, a
paper's) is not kept; each is reported in ``Page.warnings``. A file that is not valid JSON, or
whose structure is not this format's (a task with no name, a ``datasets`` that is not a list, a
table's ``metrics`` that is not a list of names), or that holds no table, is refused.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from benchgraph.names import normalise
from ingest import directions
from ingest.cells import Cell, CellError, read_cell
from ingest.records import (
    Benchmark,
    Configuration,
    MetricDecl,
    Page,
    PageError,
    PageWarning,
    PaperRef,
    ResultRecord,
    Setting,
    SourceFormat,
)
from ingest.structured import load_json, path

FORMAT: SourceFormat = "pwc-tables"
# Whose format it is, and who publishes its files (the file names no one): the name that lets
# a reader go back to the tables, as the files carry no URL.
PUBLISHER = "Papers with Code"

_TASK_KEYS = (
    "task",
    "description",
    "categories",
    "synonyms",
    "source_link",
    "datasets",
    "subtasks",
)
_START = re.compile(r'\A\s*(?:\[\s*\{\s*"(?:' + "|".join(_TASK_KEYS) + r')"|\{\s*"task")\s*:')
_TASK_KEY = re.compile(r'"task"\s*:')
_CHILDREN_KEY = re.compile(r'"(?:datasets|subtasks)"\s*:')
_ARXIV = re.compile(
    r"arxiv\.org/(?:abs|pdf)/((?:[a-z-]+(?:\.[A-Z]{2})?/\d{7})|\d{4}\.\d{4,5})(?:v\d+)?",
    re.IGNORECASE,
)
_URL = re.compile(r"https?://[^\s<>\"{}|\\^`]+", re.IGNORECASE)  # absolute, and an IRI
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_PERCENT_WORD = re.compile(r"%|\bper\s?cent(?:age)?\b", re.IGNORECASE)
_KEY_PART = 120  # past this, a part of a key names its first name, a count and a digest
_TASK_HINT = 'each task is an object with a "task" name, "datasets" and "subtasks" lists'
_SOTA_HINT = 'a "sota" table has "metrics", a list of column names, and "rows", a list'
_DATASET_HINT = 'each dataset is an object with a "dataset" (or "subdataset") name and a "sota"'


def sniff(text: str) -> bool:
    """Return True when ``text`` is a JSON list of tasks: its first object has ``"task"`` and
    ``"datasets"`` or ``"subtasks"``. A lone task object, and a text that starts like a list of
    tasks but is not valid JSON, are claimed too, so that :func:`parse` says what is wrong."""
    text = text.lstrip("\ufeff")
    if _START.match(text) is None:
        return False
    try:
        document = json.loads(text)
    except (ValueError, RecursionError):  # not JSON, a number too long, nested too deeply
        return bool(_TASK_KEY.search(text) and _CHILDREN_KEY.search(text))
    first = document[0] if isinstance(document, list) and document else document
    return (
        isinstance(first, dict)
        and "task" in first
        and bool({"datasets", "subtasks"} & first.keys())
    )


def parse(data: bytes, origin: str) -> Page:
    """Read one evaluation-tables file from ``data``; ``origin`` names it in errors and warnings.

    Raises PageError for text that is not UTF-8 or not valid JSON (with the line and column, and
    a hint for a trailing comma), and for a structure that is not this format's (with the JSON
    path of the place). Rows and cells that cannot be read are skipped with a PageWarning.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise PageError(
            origin, f"byte {error.start}", "not UTF-8 text", "evaluation tables are UTF-8 JSON"
        ) from None
    try:
        document = load_json(text, origin)
    except PageError as error:
        raise PageError(origin, error.location, error.problem, _comma_hint(text)) from None
    except RecursionError:
        raise PageError(
            origin, "", "the JSON is nested too deeply to read", "tasks nest a few levels deep"
        ) from None
    if not isinstance(document, list):
        raise PageError(
            origin,
            "top level",
            f"the file holds {_kind(document)}, not a list of tasks",
            "an evaluation-tables file is a JSON list of tasks: [{...}, ...]",
        )
    tables: list[_Table] = []
    parents: list[tuple[str, str]] = []
    names = [
        _walk_task(origin, task, (index,), None, tables, parents)
        for index, task in enumerate(document)
    ]
    key = f"{FORMAT}/{_joined(names)}/{_joined(table.dataset for table in tables)}"
    title = _title(names)
    reader = _Reader(origin, key, title)
    for table in tables:
        reader.read(table)
    if not reader.decls:
        raise PageError(
            origin,
            "",
            "the file holds no evaluation table (no dataset has a sota table with metrics)",
            _SOTA_HINT,
        )
    decls = [decl.record() for decl in reader.decls.values()]
    return Page(
        format=FORMAT,
        origin=origin,
        key=key,
        title=title,
        url=None,
        data_updated=None,
        publisher=PUBLISHER,
        benchmark=decls[0].benchmark,
        metrics=tuple(decls),
        primary_metric=decls[0].name,
        results=tuple(reader.results),
        declared_count=len(reader.results),
        total_count=reader.rows,
        sha256=hashlib.sha256(data).hexdigest(),
        warnings=tuple(reader.warnings),
        task_parents=tuple(dict.fromkeys(parents)),
    )


@dataclass(frozen=True)
class _Table:
    """A dataset's sota table, with the names it stands under and its place in the file."""

    task: str
    dataset: str
    subsets: tuple[str, ...]  # the subdatasets' names, outermost first
    steps: tuple[str | int, ...]  # the JSON path of its ``sota``
    metrics: tuple[str, ...]
    rows: tuple[Any, ...]

    @property
    def name(self) -> str:
        inside = f" ({' / '.join(self.subsets)})" if self.subsets else ""
        return f"{self.task} on {self.dataset}{inside}"

    def benchmark(self, metric: str) -> Benchmark:
        split = " / ".join(self.subsets) if self.subsets else directions.split_in(metric)
        return Benchmark(self.task, self.dataset, split)


def _walk_task(
    origin: str,
    task: Any,
    steps: tuple[str | int, ...],
    parent: str | None,
    tables: list[_Table],
    parents: list[tuple[str, str]],
) -> str:
    """Gather the tables of ``task`` (at ``steps``) and of its subtasks; return its name.
    Raises PageError for a task that is not an object or has no name."""
    if not isinstance(task, dict):
        raise PageError(origin, path(*steps), f"a task is {_kind(task)}, not an object", _TASK_HINT)
    name = _name(origin, task, "task", steps, _TASK_HINT)
    if parent is not None and parent != name:
        parents.append((name, parent))
    for index, dataset in _items(origin, task, "datasets", steps, _TASK_HINT):
        _walk_dataset(origin, dataset, (*steps, "datasets", index), name, None, (), tables)
    for index, subtask in _items(origin, task, "subtasks", steps, _TASK_HINT):
        _walk_task(origin, subtask, (*steps, "subtasks", index), name, tables, parents)
    return name


def _walk_dataset(
    origin: str,
    dataset: Any,
    steps: tuple[str | int, ...],
    task: str,
    top: str | None,
    subsets: tuple[str, ...],
    tables: list[_Table],
) -> None:
    """Gather the table of ``dataset`` (a subdataset of ``top`` when ``top`` is given) and of
    its subdatasets. Raises PageError for a structure that is not this format's."""
    where = path(*steps)
    if not isinstance(dataset, dict):
        raise PageError(
            origin, where, f"a dataset is {_kind(dataset)}, not an object", _DATASET_HINT
        )
    own = "dataset" if "dataset" in dataset or top is None else "subdataset"
    name = _name(origin, dataset, own, steps, _DATASET_HINT)
    if top is not None:
        subsets = (*subsets, name)
    sota = dataset.get("sota")
    if sota is not None and not isinstance(sota, dict):
        raise PageError(origin, f"{where}.sota", f"{_kind(sota)}, not an object", _DATASET_HINT)
    if sota:
        metrics = _metric_names(origin, sota, (*steps, "sota"))
        rows = tuple(row for _, row in _items(origin, sota, "rows", (*steps, "sota"), _SOTA_HINT))
        tables.append(_Table(task, top or name, subsets, (*steps, "sota"), metrics, rows))
    for index, child in _items(origin, dataset, "subdatasets", steps, _DATASET_HINT):
        _walk_dataset(origin, child, (*steps, "subdatasets", index), task, top or name, subsets,
                      tables)  # fmt: skip


def _name(
    origin: str, item: dict[str, Any], key: str, steps: tuple[str | int, ...], hint: str
) -> str:
    value = item.get(key)
    if isinstance(value, str) and value.strip():
        return value.strip()
    if value is None:
        problem = f'no "{key}" name'
    elif isinstance(value, str):
        problem = f'an empty "{key}" name'
    else:
        problem = f'the "{key}" name is {_kind(value)}, not text'
    raise PageError(origin, path(*steps), problem, hint)


def _items(
    origin: str, item: dict[str, Any], key: str, steps: tuple[str | int, ...], hint: str = ""
) -> Iterator[tuple[int, Any]]:
    """The items of the list ``item[key]`` (none when absent or null), with their indexes.
    Raises PageError when it is not a list."""
    value = item.get(key)
    if value is None:
        return iter(())
    if not isinstance(value, list):
        raise PageError(origin, path(*steps, key), f"{_kind(value)}, not a list", hint)
    return enumerate(value)


def _metric_names(
    origin: str, sota: dict[str, Any], steps: tuple[str | int, ...]
) -> tuple[str, ...]:
    names = []
    for index, name in _items(origin, sota, "metrics", steps, _SOTA_HINT):
        if not isinstance(name, str) or not name.strip():
            raise PageError(
                origin,
                path(*steps, "metrics", index),
                f"a metric name is {_kind(name)}, not a name",
                _SOTA_HINT,
            )
        names.append(name)
    return tuple(dict.fromkeys(names))


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
class _Reader:
    """Reads tables into metric declarations, results and warnings, in file order."""

    origin: str
    key: str
    title: str
    decls: dict[tuple[Benchmark, str], _Decl] = field(default_factory=dict)
    results: list[ResultRecord] = field(default_factory=list)
    warnings: list[PageWarning] = field(default_factory=list)
    rows: int = 0

    def read(self, table: _Table) -> None:
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
            self.results.extend(row.results(table, columns, self.key))

    def _row(self, table: _Table, index: int, row: Any) -> _Row | None:
        """The row at ``index`` of ``table`` read, or None (with a warning) when it cannot be."""
        where = path(*table.steps, "rows", index)
        if not isinstance(row, dict):
            self._skip(where, f"the row is {_kind(row)}, not an object")
            return None
        metrics = row.get("metrics")
        if not isinstance(metrics, dict):
            self._skip(where, f'the row\'s "metrics" is {_kind(metrics)}, not an object')
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
        # A paper is known by its arXiv ID, else by its title, else by its URL.
        known = arxiv or (url if title is None else None)
        paper = PaperRef(known, url=url, title=title, date=date, arxiv_id=arxiv)
        return paper, None

    def _links(self, row: dict[str, Any], where: str) -> tuple[str, ...]:
        links = row.get("code_links") or []
        if not isinstance(links, list):
            self._warn(f"{where}.code_links", f"{_kind(links)}, not a list: not kept")
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
            self._warn(f"{where}.uses_additional_data", f"{_kind(extra)}, not true or false")
            return Configuration()
        return Configuration(settings=(Setting("uses additional data", json.dumps(extra)),))

    def _text(self, row: dict[str, Any], key: str, where: str) -> str | None:
        value = row.get(key)
        if value is None or (isinstance(value, str) and not value.strip()):
            return None
        if not isinstance(value, str):
            self._warn(f"{where}.{key}", f"{_kind(value)}, not text: not kept")
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

    def results(self, table: _Table, columns: list[str], key: str) -> Iterator[ResultRecord]:
        for name in columns:
            cell = self.cells.get(name)
            if cell is None:
                continue
            location = f"{self.where}.metrics[{json.dumps(name, ensure_ascii=False)}]"
            yield ResultRecord(
                source_id=f"{key}/{location}",
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


def _joined(names: Iterable[str]) -> str:
    """Part of the file's identity: the normal forms of ``names``, sorted and joined by ``+``,
    or, when that is long, the first of them, the number of the others and a digest of all."""
    forms = sorted({normalise(name) for name in names} - {""})
    joined = "+".join(forms)
    if len(joined) <= _KEY_PART:
        return joined
    digest = hashlib.sha256(joined.encode("utf-8")).hexdigest()[:12]
    return f"{forms[0]}+{len(forms) - 1}-more-{digest}"


def _title(names: list[str]) -> str:
    shown = ", ".join(dict.fromkeys(names[:3]))
    more = f" and {len(names) - 3} more" if len(names) > 3 else ""
    return f"Papers with Code evaluation tables: {shown}{more}"


def _comma_hint(text: str) -> str:
    """A hint for a JSON syntax error that is a trailing comma, else ""."""
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        before = text[: error.pos].rstrip()
        if before.endswith(",") and text[error.pos : error.pos + 1] in ("}", "]"):
            comma = len(before) - 1
            line = text.count("\n", 0, comma) + 1
            column = comma - (text.rfind("\n", 0, comma) + 1) + 1
            return (
                f"a trailing comma at line {line}, column {column}: JSON allows no comma "
                "after the last item of an object or list; remove it"
            )
    except (ValueError, RecursionError):
        pass
    return ""


def _kind(value: Any) -> str:
    """What a JSON value is, for messages: ``a string``, ``an object``, ``null``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    return "a number"
