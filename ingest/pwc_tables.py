"""Parser for Papers with Code evaluation tables (the sota-extractor "TaskDB" format).

``evaluation-tables.json`` and the files written in its format are a JSON list of tasks (or one
task object); a task has datasets and subtasks (tasks again), a dataset has subdatasets
(datasets again) and a ``sota`` table: its metric columns and its rows, one method each, with
the paper that reported it (title, URL, date), code links, whether it used additional data and
a value per metric.

Each table is a leaderboard, and each leaderboard is a source of its own (a :class:`Page`): its
key names its task, its dataset and its subdatasets (``pwc-tables/question-answering/squad2-0``),
never the file or the place in it, so a re-scraped file gives the same leaderboards the same
keys, and its SHA-256 is that of a canonical text of what the leaderboard says (task, parent
tasks, dataset, subdatasets, table), so one that did not change is recognised as unchanged. A
result's ID is its leaderboard's key, its method and its metric (``/2``, ``/3`` … for a repeat).

A benchmark is the task, the dataset and a split: the names of the subdatasets the table stands
in (joined by `` / ``), else the split a metric's name names (``Test Accuracy`` → ``test``).
The format states no unit and no direction: a percent sign in the cells or the metric name (or
the word "percent"/"percentage" in it) gives ``%``, the metric-name table gives an inferred
direction, and otherwise neither is set. The method's origin is not in the file. A row that
names no paper is the leaderboard's own claim (a "document" source, its title), dated by the
row's date; a paper is known by its arXiv ID when its URL gives one. A row with no model name
is named by its paper's title. The files name no URL and no date: their publisher is the
format's, Papers with Code.

The file is read as a stream (:func:`read`), one top-level task in memory at a time. What is
refused, at three levels:

- the whole file (a PageError raised, before anything is yielded): not UTF-8, not valid JSON
  (line and column, a hint for a trailing comma), nested past reading, a top level that is no
  list of tasks, and a file none of whose leaderboards has a table with a metric;
- a task (a PageError yielded, naming the JSON path): a task that is not an object or has no
  name, a ``datasets`` or ``subtasks`` that is not a list, a dataset of no name, a ``sota``
  that is not an object, a table's ``metrics`` that is not a list of names. That task and its
  subtasks load nothing; its parent, its siblings and the file's other tasks load. So does a
  second table of a leaderboard already read with other content;
- a row (not an object, no ``metrics`` object, no method) or a cell (``-``, empty,
  ``(32.76 32.07)``) is skipped, and a URL that is not one (a code link, a paper's) is not
  kept: each is a warning of its leaderboard (``Page.warnings``).
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from collections.abc import Iterator
from typing import Any, BinaryIO

import ijson

from benchgraph.names import key_part
from ingest import json_stream
from ingest.pwc_tables_rows import Reader, Table
from ingest.records import Page, PageError, SourceFormat
from ingest.structured import path, shown

FORMAT: SourceFormat = "pwc-tables"
# Whose format it is, and who publishes its files (the file names no one): the name that lets
# a reader go back to the tables, as the files carry no URL.
PUBLISHER = "Papers with Code"

# The keys of a task: a list of tasks starts with one of them.
_TASK_KEYS = ("task", "description", "categories", "synonyms", "source_link", "datasets",
              "subtasks")  # fmt: skip
_START = re.compile(r'\A\s*(?:\[\s*\{\s*"(?:' + "|".join(_TASK_KEYS) + r')"|\{\s*"task")\s*:')
_TASK_KEY = re.compile(r'"task"\s*:')
_CHILDREN_KEY = re.compile(r'"(?:datasets|subtasks)"\s*:')
# What of a row the records are read from: the leaderboard's content, for its SHA-256.
_ROW_KEYS = ("model_name", "paper_title", "paper_url", "paper_date", "code_links",
             "uses_additional_data", "metrics")  # fmt: skip
_TASK_HINT = 'each task is an object with a "task" name, "datasets" and "subtasks" lists'
_SOTA_HINT = 'a "sota" table has "metrics", a list of column names, and "rows", a list'
_DATASET_HINT = 'each dataset is an object with a "dataset" (or "subdataset") name and a "sota"'

Steps = tuple[str | int, ...]


def sniff(text: str) -> bool:
    """Return True when ``text`` starts as a JSON list of tasks (or a lone task object) and
    names a task and its datasets or subtasks. Only patterns are matched, so that a large dump
    is not parsed twice: :func:`read` checks the structure, and says what is wrong with it."""
    text = text.lstrip("\ufeff")
    return bool(_START.match(text) and _TASK_KEY.search(text) and _CHILDREN_KEY.search(text))


def parse(data: bytes, origin: str) -> list[Page]:
    """Read one evaluation-tables file from ``data``: one Page per leaderboard, in file order.

    ``origin`` names the file in errors and warnings. Raises the first PageError :func:`read`
    yields or raises: a file with one broken task is refused here (the loader, reading it with
    :func:`read`, loads its other tasks).
    """
    pages = []
    for item in read(io.BytesIO(data), origin):
        if isinstance(item, PageError):
            raise item
        pages.append(item)
    return pages


def read(file: BinaryIO, origin: str) -> Iterator[Page | PageError]:
    """Yield the leaderboards of the evaluation-tables file ``file`` (binary, seekable), one
    Page each, in file order, and a PageError for each part of the file refused (a broken task:
    its leaderboards); ``origin`` names the file in errors and warnings.

    The file is read twice: once whole, keeping nothing, for its syntax, then one top-level task
    at a time; memory is bounded by the largest task, never by the file. Raises PageError,
    before anything is yielded, for a file refused whole: not UTF-8, not valid JSON (line and
    column), nested too deeply, a top level that is not a list of tasks (or one task), or no
    leaderboard at all (then the first task's error when a task was refused).
    """
    top = json_stream.check(file, origin)
    tasks: Iterator[tuple[Steps, Any]]
    if top.kind == "list":
        tasks = (((i,), task) for i, task in enumerate(ijson.items(file, "item", use_float=False)))
    elif top.kind == "object" and "task" in top.keys:
        tasks = (((), task) for task in ijson.items(file, "", use_float=False))
    else:
        raise PageError(
            origin,
            "top level",
            f"the file holds {top.shown()}, not a list of tasks",
            "an evaluation-tables file is a JSON list of tasks: [{...}, ...]",
        )
    yield from _leaderboards(origin, tasks)


def _leaderboards(origin: str, tasks: Iterator[tuple[Steps, Any]]) -> Iterator[Page | PageError]:
    """The Pages of the leaderboards of ``tasks`` and the PageErrors of the parts refused. The
    errors met before the first leaderboard wait for it: a file with none raises the first."""
    seen: dict[str, tuple[str, str]] = {}  # key: (sha256, where), to tell a second table
    held: list[PageError] = []
    loaded = False
    for steps, task in tasks:
        for item in _task_items(origin, task, steps, ()):
            found = item if isinstance(item, PageError) else _leaderboard(origin, item, seen)
            if found is None:
                continue
            if isinstance(found, PageError) and not loaded:
                held.append(found)
                continue
            if not loaded:
                yield from held
                held, loaded = [], True
            yield found
    if not loaded:
        raise (
            held[0]
            if held
            else PageError(
                origin,
                "",
                "the file holds no evaluation table (no dataset has a sota table with metrics)",
                _SOTA_HINT,
            )
        )


def _leaderboard(
    origin: str, table: Table, seen: dict[str, tuple[str, str]]
) -> Page | PageError | None:
    """The Page of ``table``; None when it declares no metric or repeats a leaderboard already
    read, word for word; a PageError when it is a second, different table of one."""
    key = _key(table)
    where = path(*table.steps)
    if key in seen:
        sha256, first = seen[key]
        if sha256 == table.sha256:
            return None
        return PageError(
            origin,
            where,
            f"a second table of the leaderboard {table.name!r} ({key}), unlike the first (at "
            f"{first}): not loaded",
            "a file gives each task, dataset and subdataset one table; merge the two",
        )
    reader = Reader(origin, key, f"Papers with Code evaluation tables: {table.name}")
    reader.read(table)
    if not reader.decls:
        return None
    seen[key] = (table.sha256, where)
    decls = [decl.record() for decl in reader.decls.values()]
    return Page(
        format=FORMAT,
        origin=origin,
        key=key,
        title=reader.title,
        url=None,
        data_updated=None,
        publisher=PUBLISHER,
        benchmark=decls[0].benchmark,
        metrics=tuple(decls),
        primary_metric=decls[0].name,
        results=tuple(reader.results),
        declared_count=len(reader.results),
        total_count=reader.rows,
        sha256=table.sha256,
        warnings=tuple(reader.warnings),
        task_parents=table.task_parents,
    )


def _key(table: Table) -> str:
    """``pwc-tables/{task}/{dataset}`` and ``/{subdataset}`` per level, each normalised."""
    parts = (table.task, table.dataset, *table.subsets)
    return "/".join((FORMAT, *(key_part(part) for part in parts)))


def _task_items(
    origin: str, task: Any, steps: Steps, chain: tuple[str, ...]
) -> Iterator[Table | PageError]:
    """The tables of ``task`` (at ``steps``, under the tasks ``chain``, nearest first) and of
    its subtasks, in file order; a PageError in place of a task whose structure is broken."""
    try:
        name, tables, subtasks = _task(origin, task, steps, chain)
    except PageError as error:
        task_at = path(*steps) or "top level"
        hint = f"{error.hint}; the task at {task_at} and its subtasks are not loaded"
        yield PageError(error.origin, error.location, error.problem, hint)
        return
    yield from tables
    for index, subtask in subtasks:
        yield from _task_items(origin, subtask, (*steps, "subtasks", index), (name, *chain))


def _task(
    origin: str, task: Any, steps: Steps, chain: tuple[str, ...]
) -> tuple[str, list[Table], list[tuple[int, Any]]]:
    """The name of ``task``, its own tables and its subtasks (with their indexes). Raises
    PageError for a structure that is not this format's."""
    if not isinstance(task, dict):
        raise PageError(
            origin, path(*steps) or "top level", f"a task is {shown(task)}, not an object",
            _TASK_HINT,
        )  # fmt: skip
    name = _name(origin, task, "task", steps, _TASK_HINT)
    tables: list[Table] = []
    for index, dataset in _items(origin, task, "datasets", steps, _TASK_HINT):
        where = (*steps, "datasets", index)
        _walk_dataset(origin, dataset, where, (name, *chain), None, (), tables)
    subtasks = list(_items(origin, task, "subtasks", steps, _TASK_HINT))
    return name, tables, subtasks


def _walk_dataset(
    origin: str,
    dataset: Any,
    steps: Steps,
    tasks: tuple[str, ...],
    top: str | None,
    subsets: tuple[str, ...],
    tables: list[Table],
) -> None:
    """Gather the table of ``dataset`` (a subdataset of ``top`` when ``top`` is given) of the
    task ``tasks[0]`` (under ``tasks[1:]``) and of its subdatasets. Raises PageError for a
    structure that is not this format's."""
    where = path(*steps)
    if not isinstance(dataset, dict):
        raise PageError(
            origin, where, f"a dataset is {shown(dataset)}, not an object", _DATASET_HINT
        )
    own = "dataset" if "dataset" in dataset or top is None else "subdataset"
    name = _name(origin, dataset, own, steps, _DATASET_HINT)
    if top is not None:
        subsets = (*subsets, name)
    sota = dataset.get("sota")
    if sota is not None and not isinstance(sota, dict):
        raise PageError(origin, f"{where}.sota", f"{shown(sota)}, not an object", _DATASET_HINT)
    if sota:
        metrics = _metric_names(origin, sota, (*steps, "sota"))
        rows = tuple(row for _, row in _items(origin, sota, "rows", (*steps, "sota"), _SOTA_HINT))
        tables.append(
            Table(tasks[0], top or name, subsets, (*steps, "sota"), metrics, rows, tasks[1:],
                  _sha256(tasks, top or name, subsets, sota))
        )  # fmt: skip
    for index, child in _items(origin, dataset, "subdatasets", steps, _DATASET_HINT):
        _walk_dataset(origin, child, (*steps, "subdatasets", index), tasks, top or name, subsets,
                      tables)  # fmt: skip


def _sha256(
    tasks: tuple[str, ...], dataset: str, subsets: tuple[str, ...], sota: dict[str, Any]
) -> str:
    """The SHA-256 of the canonical JSON of what a leaderboard's records are read from: its
    task and the tasks above it, its dataset and subdatasets, its table's columns and rows."""
    rows = sota.get("rows")
    if isinstance(rows, list):
        rows = [
            {k: row[k] for k in _ROW_KEYS if k in row} if isinstance(row, dict) else row
            for row in rows
        ]
    content = {
        "tasks": list(tasks),
        "dataset": dataset,
        "subsets": list(subsets),
        "sota": {"metrics": sota.get("metrics"), "rows": rows},
    }
    text = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                      default=str)  # fmt: skip
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _name(origin: str, item: dict[str, Any], key: str, steps: Steps, hint: str) -> str:
    value = item.get(key)
    if isinstance(value, str) and value.strip():
        return value.strip()
    if value is None:
        problem = f'no "{key}" name'
    elif isinstance(value, str):
        problem = f'an empty "{key}" name'
    else:
        problem = f'the "{key}" name is {shown(value)}, not text'
    raise PageError(origin, path(*steps) or "top level", problem, hint)


def _items(
    origin: str, item: dict[str, Any], key: str, steps: Steps, hint: str = ""
) -> Iterator[tuple[int, Any]]:
    """The items of the list ``item[key]`` (none when absent or null), with their indexes.
    Raises PageError when it is not a list."""
    value = item.get(key)
    if value is None:
        return iter(())
    if not isinstance(value, list):
        raise PageError(origin, path(*steps, key), f"{shown(value)}, not a list", hint)
    return enumerate(value)


def _metric_names(origin: str, sota: dict[str, Any], steps: Steps) -> tuple[str, ...]:
    names = []
    for index, name in _items(origin, sota, "metrics", steps, _SOTA_HINT):
        if not isinstance(name, str) or not name.strip():
            raise PageError(
                origin,
                path(*steps, "metrics", index),
                f"a metric name is {shown(name)}, not a name",
                _SOTA_HINT,
            )
        names.append(name)
    return tuple(dict.fromkeys(names))
