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
from typing import Any

from benchgraph.names import normalise
from ingest.pwc_tables_rows import Reader, Table
from ingest.records import Page, PageError, SourceFormat
from ingest.structured import load_json, path, shown

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
_KEY_PART = 120  # past this, a part of a key names its first name, a count and a digest
_TASK_HINT = 'each task is an object with a "task" name, "datasets" and "subtasks" lists'
_SOTA_HINT = 'a "sota" table has "metrics", a list of column names, and "rows", a list'
_DATASET_HINT = 'each dataset is an object with a "dataset" (or "subdataset") name and a "sota"'


def sniff(text: str) -> bool:
    """Return True when ``text`` starts as a JSON list of tasks (or a lone task object) and
    names a task and its datasets or subtasks. Only patterns are matched, so that a large dump
    is not parsed twice: :func:`parse` checks the structure, and says what is wrong with it."""
    text = text.lstrip("\ufeff")
    return bool(_START.match(text) and _TASK_KEY.search(text) and _CHILDREN_KEY.search(text))


def parse(data: bytes, origin: str) -> Page:
    """Read one evaluation-tables file from ``data``; ``origin`` names it in errors and warnings.

    Raises PageError for text that is not UTF-8 or not valid JSON (with the line and column, and
    a hint for a trailing comma), and for a structure that is not this format's (with the JSON
    path of the place). Rows and cells that cannot be read are skipped with a PageWarning.
    """
    tables: list[Table] = []
    parents: list[tuple[str, str]] = []
    names = [
        _walk_task(origin, task, (index,), None, tables, parents)
        for index, task in enumerate(_tasks(_document(data, origin), origin))
    ]
    key = f"{FORMAT}/{_joined(names)}/{_joined(table.dataset for table in tables)}"
    reader = _read(Reader(origin, key, _title(names)), tables)
    return _page(data, reader, parents)


def _document(data: bytes, origin: str) -> Any:
    """The JSON value of ``data``. Raises PageError for bytes that are not UTF-8, JSON that
    does not parse (with a hint for a trailing comma) or nests too deeply to read."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise PageError(
            origin, f"byte {error.start}", "not UTF-8 text", "evaluation tables are UTF-8 JSON"
        ) from None
    try:
        return load_json(text, origin)
    except PageError as error:
        raise PageError(origin, error.location, error.problem, _comma_hint(text)) from None
    except RecursionError:
        raise PageError(
            origin, "", "the JSON is nested too deeply to read", "tasks nest a few levels deep"
        ) from None


def _tasks(document: Any, origin: str) -> list[Any]:
    """The file's tasks: ``document`` when it is a list. Raises PageError when it is not."""
    if not isinstance(document, list):
        raise PageError(
            origin,
            "top level",
            f"the file holds {shown(document)}, not a list of tasks",
            "an evaluation-tables file is a JSON list of tasks: [{...}, ...]",
        )
    return document


def _read(reader: Reader, tables: list[Table]) -> Reader:
    """``reader`` once it has read every table in ``tables``. Raises PageError when none of
    them declares a metric."""
    for table in tables:
        reader.read(table)
    if not reader.decls:
        raise PageError(
            reader.origin,
            "",
            "the file holds no evaluation table (no dataset has a sota table with metrics)",
            _SOTA_HINT,
        )
    return reader


def _page(data: bytes, reader: Reader, parents: list[tuple[str, str]]) -> Page:
    """The Page of the file ``data``, from what ``reader`` read and the tasks' ``parents``."""
    decls = [decl.record() for decl in reader.decls.values()]
    return Page(
        format=FORMAT,
        origin=reader.origin,
        key=reader.key,
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
        sha256=hashlib.sha256(data).hexdigest(),
        warnings=tuple(reader.warnings),
        task_parents=tuple(dict.fromkeys(parents)),
    )


def _walk_task(
    origin: str,
    task: Any,
    steps: tuple[str | int, ...],
    parent: str | None,
    tables: list[Table],
    parents: list[tuple[str, str]],
) -> str:
    """Gather the tables of ``task`` (at ``steps``) and of its subtasks; return its name.
    Raises PageError for a task that is not an object or has no name."""
    if not isinstance(task, dict):
        raise PageError(origin, path(*steps), f"a task is {shown(task)}, not an object", _TASK_HINT)
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
    tables: list[Table],
) -> None:
    """Gather the table of ``dataset`` (a subdataset of ``top`` when ``top`` is given) and of
    its subdatasets. Raises PageError for a structure that is not this format's."""
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
        tables.append(Table(task, top or name, subsets, (*steps, "sota"), metrics, rows))
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
        problem = f'the "{key}" name is {shown(value)}, not text'
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
        raise PageError(origin, path(*steps, key), f"{shown(value)}, not a list", hint)
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
                f"a metric name is {shown(name)}, not a name",
                _SOTA_HINT,
            )
        names.append(name)
    return tuple(dict.fromkeys(names))


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
