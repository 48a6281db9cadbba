"""The results of a model-index block: each model's task, dataset and metrics as records.

:mod:`ingest.model_index` finds the block and assembles the Page; a :class:`Reader` reads its
models, one result per metric, and keeps the warnings, the count of metrics read and the metric
declarations. See that module for what each part of a result becomes and which faults refuse
the block.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field
from typing import Any

from benchgraph.names import key_part, normalise
from ingest import directions
from ingest.cells import Cell, CellError, read_cell
from ingest.records import (
    Benchmark,
    Configuration,
    MetricDecl,
    PageError,
    PageWarning,
    PaperRef,
    ResultRecord,
    Setting,
)
from ingest.structured import path, shown

ROOT = "model-index"
_ARXIV = re.compile(
    r"arxiv\.org/(?:abs|pdf)/(\d{4}\.\d{4,5}|[a-z-]+(?:\.[a-z]{2})?/\d{7})(?:v\d+)?", re.I
)
HINT = "a model-index lists models, each with a name and results of task, dataset and metrics"
MAX_SETTINGS = 200  # per task, dataset or metric: a card's args are a few hyperparameters
RESULT_HINT = "a result gives its 'task', its 'dataset' and its 'metrics' side by side"


@dataclass
class _Metric:
    """What the results say about one metric of one benchmark, gathered in file order."""

    benchmark: Benchmark
    name: str
    type: str | None
    percent: bool = False


@dataclass
class Reader:
    """Reads the models of one block, keeping its warnings, its row count and its metrics."""

    origin: str
    warnings: list[PageWarning] = field(default_factory=list)
    rows: int = 0
    metrics: dict[tuple[Benchmark, str], _Metric] = field(default_factory=dict)
    ids: set[str] = field(default_factory=set)

    def error(self, where: str, problem: str, hint: str = HINT) -> PageError:
        return PageError(self.origin, where, problem, hint)

    def warn(self, where: str, problem: str, hint: str = "") -> None:
        self.warnings.append(PageWarning(self.origin, where, problem, hint))

    def model(self, model: object, index: int) -> tuple[str, dict[str, Any]]:
        """The name and entry of ``model-index[index]``, once its results are a non-empty
        list."""
        where = path(ROOT, index)
        entry = self.mapping(model, where)
        name = self.text(entry, where, "name")
        if name is None:
            raise self.error(where, "has no name", "a model's name is the method evaluated")
        if "results" not in entry:
            found = "a 'tasks' list where 'results' should be" if "tasks" in entry else None
            raise self.error(where, f"has {found or 'no results list'}")
        results = entry["results"]
        if not isinstance(results, list):
            raise self.error(path(where, "results"), f"is {shown(results)}, not a list")
        if not results:
            raise self.error(path(where, "results"), "lists no results", "nothing to load")
        return name, entry

    def results(
        self, model: dict[str, Any], index: int, name: str, card: PaperRef, key: str
    ) -> list[ResultRecord]:
        """The records of one model's results, its unreadable metrics skipped with a warning."""
        records = []
        for number, entry in enumerate(model["results"]):
            where = path(ROOT, index, "results", number)
            result = self.mapping(entry, where)
            task, task_settings = self.part(result, where, "task")
            dataset, dataset_settings = self.part(result, where, "dataset")
            split = self.text(result["dataset"], path(where, "dataset"), "split")
            source = self.source(result, where, card)
            metrics = result.get("metrics")
            if not isinstance(metrics, list) or not metrics:
                said = "no metrics" if metrics is None else f"metrics that are {shown(metrics)}"
                raise self.error(where, f"has {said}", RESULT_HINT)
            for position, item in enumerate(metrics):
                spot = path(where, "metrics", position)
                self.rows += 1
                read = self.metric(item, spot)
                if read is None:
                    continue
                label, settings, cell, verified = read
                benchmark = Benchmark(task, dataset, self.split(split, label, spot))
                self.declare(benchmark, label, item.get("type"), cell)
                config = (*task_settings, *dataset_settings, *settings)
                records.append(
                    ResultRecord(
                        source_id=self.identify(key, name, benchmark, label),
                        method=name,
                        metric=label,
                        value=cell.value,
                        reported_in=source,
                        configuration=Configuration(settings=config),
                        benchmark=benchmark,
                        cell=None if cell.as_published else cell.text,
                        spread=cell.spread,
                        verified=verified,
                        location=spot,
                    )
                )
        return records

    def identify(self, key: str, model: str, benchmark: Benchmark, metric: str) -> str:
        """A result's ID in the Page ``key``, from what it states: the model, the benchmark's
        task, dataset and split, and the metric, each normalised; ``/2``, ``/3``, ... for a
        repeat of an ID already given."""
        names = (model, benchmark.task, benchmark.dataset, benchmark.split, metric)
        found = "/".join([key, *(key_part(name) for name in names if name is not None)])
        if found not in self.ids:
            self.ids.add(found)
            return found
        repeat = 2
        while f"{found}/{repeat}" in self.ids:
            repeat += 1
        self.ids.add(f"{found}/{repeat}")
        return f"{found}/{repeat}"

    def part(self, result: dict[str, Any], where: str, part: str) -> tuple[str, list[Setting]]:
        """The label of a result's ``task`` or ``dataset`` and the settings it states."""
        if part not in result:
            found = f"a '{part}s' key where '{part}' should be" if f"{part}s" in result else None
            raise self.error(where, f"has {found or f'no {part}'}", RESULT_HINT)
        spot = path(where, part)
        entry = self.mapping(result[part], spot)
        label, settings = self.labelled(entry, spot, part)
        for name in ("config", "revision", "args"):
            if part == "dataset" or name == "args":
                settings += self.settings(f"{part} {name}", entry.get(name), spot)
        return label, settings

    def labelled(self, entry: dict[str, Any], where: str, part: str) -> tuple[str, list[Setting]]:
        """An entry's label (its name, else its type), and its type as a setting when the name
        is the label and the type says something else."""
        name, kind = self.text(entry, where, "name"), self.text(entry, where, "type")
        label = name or kind
        if label is None:
            raise self.error(where, "names neither a type nor a name")
        if kind and normalise(kind) != normalise(label):
            return label, [Setting(f"{part} type", kind)]
        return label, []

    def metric(
        self, item: object, where: str
    ) -> tuple[str, list[Setting], Cell, bool | None] | None:
        """A metric's label, settings, value and verified flag; None (with a warning naming its
        place) for a metric with no value that is one number: none, null, a placeholder, or a
        ``values`` list in its place."""
        metric = self.mapping(item, where)
        if metric.get("value") is None:
            if "values" in metric:
                self.warn(
                    path(where, "values"),
                    "skipped: 'values' (a list) where one 'value' should be",
                    "write one metric item, with its type and value, per value",
                )
            elif "value" in metric:
                self.warn(path(where, "value"), "skipped: no value (null)", "a value is one number")
            else:
                self.warn(where, "skipped: no value", "every metric gives its value")
            return None
        label, settings = self.labelled(metric, where, "metric")
        settings += self.settings("metric config", metric.get("config"), where)
        settings += self.settings("metric args", metric.get("args"), where)
        raw = metric["value"]
        try:
            cell = read_cell(str(raw) if isinstance(raw, str) else raw)
        except CellError as error:
            self.warn(path(where, "value"), f"skipped: {error}", "a value is one number")
            return None
        verified = metric.get("verified")
        if verified is not None and not isinstance(verified, bool):
            self.warn(path(where, "verified"), f"is {shown(verified)}, not true or false")
            verified = None
        return label, settings, cell, verified

    def split(self, stated: str | None, label: str, where: str) -> str | None:
        """The split of a metric's benchmark: the one its name names, else the dataset's."""
        named = directions.split_in(label)
        if named is None or (stated is not None and directions.split_in(stated) == named):
            return stated
        if stated is not None:
            self.warn(
                where,
                f"the metric's name names the {named} split, the dataset's split is {stated!r}",
                f"the result is placed on the {named} split",
            )
        return named

    def source(self, result: dict[str, Any], where: str, card: PaperRef) -> PaperRef:
        """Who reported a result: its own ``source`` when it names one, else the card."""
        if result.get("source") is None:
            return card
        spot = path(where, "source")
        source = self.mapping(result["source"], spot)
        name, url = self.text(source, spot, "name"), self.text(source, spot, "url")
        if name is None and url is None:
            raise self.error(spot, "names neither a name nor a URL")
        if url and (arxiv := _ARXIV.search(url)):
            return PaperRef(url=url, title=name or f"arXiv:{arxiv[1]}", arxiv_id=arxiv[1])
        return PaperRef(url=url, title=name or url, kind="document")

    def declare(self, benchmark: Benchmark, label: str, kind: object, cell: Cell) -> None:
        found = self.metrics.setdefault(
            (benchmark, label), _Metric(benchmark, label, kind if isinstance(kind, str) else None)
        )
        found.percent = found.percent or cell.percent

    def declarations(self) -> tuple[MetricDecl, ...]:
        """Every metric of every benchmark, in the order the results first name them."""
        decls = []
        for metric in self.metrics.values():
            direction = directions.infer(metric.name)
            if direction is None and metric.type:
                direction = directions.infer(metric.type)
            percent = metric.percent or "%" in metric.name
            decls.append(
                MetricDecl(
                    name=metric.name,
                    unit="%" if percent else None,
                    direction=direction,
                    direction_inferred=direction is not None,
                    benchmark=metric.benchmark,
                )
            )
        return tuple(decls)

    def settings(self, key: str, value: object, where: str) -> list[Setting]:
        where = path(where, key.split()[-1])
        try:
            return _settings(key, value)
        except ValueError as error:
            raise self.error(where, f"holds {error}", "") from None
        except RecursionError:
            raise self.error(where, "holds a list or mapping nested in itself", "") from None

    def mapping(self, value: object, where: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.error(where, f"is {shown(value)}, not a mapping")
        return value

    def text(self, entry: dict[str, Any], where: str, key: str) -> str | None:
        """``entry[key]`` as text (a number as written, a date in ISO form); None when absent
        or blank. Raises PageError for a list, a mapping or true/false."""
        value = entry.get(key)
        if isinstance(value, datetime.date):
            value = value.isoformat()
        if value is not None and not isinstance(value, str):
            raise self.error(path(where, key), f"is {shown(value)}, not text")
        if value is None or not value.strip():
            return None
        return str(value).strip()


def _settings(key: str, value: object, found: list[Setting] | None = None) -> list[Setting]:
    """``value`` as settings named after ``key``: a mapping's entries as ``key.entry``, a list
    of mappings as their entries, another list item by item as ``key[n]``.

    Raises ValueError past MAX_SETTINGS settings (YAML aliases can nest a list in itself)."""
    found = [] if found is None else found
    if isinstance(value, dict):
        for name, item in value.items():
            _settings(f"{key}.{name}", item, found)
    elif isinstance(value, list):
        every = all(isinstance(item, dict) for item in value)
        for n, item in enumerate(value):
            _settings(key if every else f"{key}[{n}]", item, found)
    elif value is not None:
        if len(found) == MAX_SETTINGS:
            raise ValueError(f"more than {MAX_SETTINGS} settings")
        found.append(Setting(key, _scalar(value)))
    return found


def _scalar(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime.date):
        return value.isoformat()
    return str(value)
