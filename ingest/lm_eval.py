"""Parser for lm-evaluation-harness results files (``results_<time>.json``, 0.3 and 0.4).

A results file is one run of the harness: one model on a list of tasks. ``results`` holds,
per task, its metrics: in 0.4 keyed ``<metric>,<filter>`` (``acc,none``,
``exact_match,strict-match``) with the standard error beside them
(``acc_stderr,none``) and an ``alias``; in 0.3 keyed ``<metric>`` and ``<metric>_stderr``.
0.4 adds ``groups`` (a group's aggregate, in the same shape) and ``group_subtasks``, the
tasks' ``n-shot``, ``higher_is_better`` per task and metric, ``n-samples`` and the run's
``date`` (Unix time); the model is ``model_name``, else the ``pretrained=`` of
``config.model_args``, else ``config.model``.

What each part becomes:

- Each task (and group) is a benchmark: the task's name as both its task and its dataset
  (``arc_easy on arc_easy``). A group's sub-tasks are its subtasks (``bg:subtaskOf``).
- Each metric of a task is one result: the metric is its name (``acc``, ``acc_norm``); no unit
  is stated. Its direction is ``higher_is_better``'s for that task and metric, as stated; a
  0.3 file states none, and then the direction is unknown: never guessed from the name, so
  such results are never ranked.
- The standard error is a ± whose meaning is "standard error"; ``n-samples`` ``effective``
  is the sample size.
- The configuration: its protocol is the ``n-shot`` (the task's, else 0.3's
  ``config.num_fewshot``) as ``0-shot``, ``5-shot``, so that 0-shot and 5-shot results never
  share a cohort (a score file writes its protocol so too); the ``filter`` is a setting when it
  is not ``none``.
- The reporting source is the results file (a document titled after the model); the run's
  ``date`` dates it and its results. Nothing says who ran the harness, so whether the model's
  developer reported the figures is unknown.

**One source per results file**: it is one run, as the harness wrote it. Its identity is
``lm-eval/<model>/<date>``: the model (normalised) and the run's date as UTC
(``lm-eval/rylanschaeffer-mem-qwen3-93m-…/2026-01-21t03-39-43z``), so the same run read from
another copy is the same source, and two runs of one model are two. A file that gives no date
(the 0.3 layout) is known by its content: ``lm-eval/<model>/sha256-`` and 16 hex digits of
its bytes' SHA-256. A result is named by the source, its task, its metric and filter.

A metric whose value is not a number (``"N/A"``) is skipped with a warning naming its JSON
path; so is a standard error that is not one (the value is kept). A file whose structure is
not a results file's (``results`` no object, a task's entry no object) is refused, naming the
JSON path, and so is one none of whose metrics can be read.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from benchgraph.names import key_part
from ingest import moments
from ingest.cells import CellError, read_cell
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
    Setting,
    SourceFormat,
    Spread,
)
from ingest.sources import run_page
from ingest.structured import decoded, load_json, path, shown

FORMAT: SourceFormat = "lm-eval"
KEY = "lm-eval"
HINT = "an lm-evaluation-harness results file has a 'results' object of tasks and their metrics"
_SNIFF_HEAD = 1 << 16
_SIGNS = ('"versions"', '"n-shot"', '"higher_is_better"', '"model_args"', '"lm_eval_version"')
_PRETRAINED = re.compile(r"(?:^|,)\s*pretrained=([^,]+)")
_STDERR = "_stderr"


def sniff(text: str) -> bool:
    """Return True for a JSON object whose start has a ``results`` key and one of the
    harness's own (``versions``, ``n-shot``, ``higher_is_better``, ``model_args``,
    ``lm_eval_version``), and no Every Eval Ever ``evaluation_results``."""
    head = text.lstrip("\ufeff \t\r\n")[:_SNIFF_HEAD]
    if not head.startswith("{") or '"results"' not in head or '"evaluation_results"' in head:
        return False
    return any(sign in head for sign in _SIGNS)


@dataclass
class _Run:
    """What the file says of the run as a whole, and what reading its tasks gathered."""

    origin: str
    key: str
    model: str
    document: PaperRef
    date: str | None
    n_shot: Mapping[str, Any]
    better: Mapping[str, Any]
    samples: Mapping[str, Any]
    default_shot: object
    warnings: list[PageWarning] = field(default_factory=list)
    metrics: dict[tuple[Benchmark, str], MetricDecl] = field(default_factory=dict)


def parse(data: bytes, origin: str) -> Page:
    """Read an lm-evaluation-harness results file; ``origin`` names it in errors.

    Returns its one Page (one run of one model). Raises PageError for bytes that are not UTF-8
    JSON, for a structure that is not a results file's (with its JSON path), and for a file
    none of whose metrics can be read.
    """
    text = decoded(data, origin, HINT)
    document = load_json(text, origin)
    if not isinstance(document, Mapping):
        raise PageError(origin, "", f"the document is {shown(document)}, not an object", HINT)
    run = _run(document, origin, hashlib.sha256(data).hexdigest())
    results: list[ResultRecord] = []
    tasks = 0
    for part in ("results", "groups"):
        entries = document.get(part)
        if entries is None and part == "groups":
            continue
        if not isinstance(entries, Mapping):
            raise PageError(origin, part, f"is {shown(entries)}, not an object of tasks", HINT)
        for task, metrics in entries.items():
            if part == "groups" and task in document.get("results", {}):
                continue  # the harness wrote the group among the tasks too
            tasks += 1
            results.extend(_task(run, part, str(task), metrics))
    if not results:
        problem = f"none of the metrics of its {tasks} tasks can be read"
        raise PageError(origin, "results", problem, str(run.warnings[0]) if run.warnings else HINT)
    return _page(run, document, results, data)


def _run(document: Mapping[str, Any], origin: str, digest: str) -> _Run:
    """The run: its model, date and identity, and the per-task tables it gives."""
    config = document.get("config")
    config = config if isinstance(config, Mapping) else {}
    model = _model(document, config)
    if model is None:
        raise PageError(origin, "config.model_args", "names no model", HINT)
    date = moments.iso(document.get("date")) if document.get("date") is not None else None
    tail = key_part(date) if date else f"sha256-{digest[:16]}"
    key = f"{KEY}/{key_part(model)}/{tail}"
    document_ref = PaperRef(
        source_id=key, title=f"lm-evaluation-harness results: {model}", date=date, kind="document"
    )
    return _Run(
        origin=origin,
        key=key,
        model=model,
        document=document_ref,
        date=date,
        n_shot=_table(document, "n-shot", origin),
        better=_table(document, "higher_is_better", origin),
        samples=_table(document, "n-samples", origin),
        default_shot=config.get("num_fewshot"),
    )


def _model(document: Mapping[str, Any], config: Mapping[str, Any]) -> str | None:
    """The model evaluated: ``model_name``, else ``pretrained=`` in ``model_args``, else
    ``config.model``."""
    name = document.get("model_name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    arguments = config.get("model_args")
    if isinstance(arguments, str) and (found := _PRETRAINED.search(arguments)):
        return found[1].strip()
    model = config.get("model")
    return model.strip() if isinstance(model, str) and model.strip() else None


def _table(document: Mapping[str, Any], name: str, origin: str) -> Mapping[str, Any]:
    """A per-task table of the file (``n-shot``…), empty when absent; PageError when it is
    no object."""
    table = document.get(name, {})
    if not isinstance(table, Mapping):
        raise PageError(origin, name, f"is {shown(table)}, not an object of tasks", HINT)
    return table


def _task(run: _Run, part: str, task: str, metrics: object) -> list[ResultRecord]:
    """The results of one task (or group): one per metric that can be read."""
    if not isinstance(metrics, Mapping):
        raise PageError(run.origin, path(part, task), f"is {shown(metrics)}, not an object", HINT)
    benchmark = Benchmark(task=task, dataset=task)
    found = []
    for name, value in metrics.items():
        metric, _, filtered = str(name).partition(",")
        if metric == "alias" or metric.endswith(_STDERR) or metric in ("samples", "name"):
            continue
        where = path(part, task, str(name))
        try:
            cell = read_cell(value)
        except CellError as error:
            run.warnings.append(PageWarning(run.origin, where, f"metric skipped: {error}"))
            continue
        decl = _declare(run, benchmark, task, metric)
        spread = _stderr(run, part, task, metrics, metric, filtered)
        found.append(_record(run, benchmark, decl, cell.value, spread, task, filtered, where))
    return found


def _declare(run: _Run, benchmark: Benchmark, task: str, metric: str) -> MetricDecl:
    """The metric of a task, its direction as ``higher_is_better`` states it (else None)."""
    stated = run.better.get(task)
    flag = stated.get(metric) if isinstance(stated, Mapping) else None
    direction: Direction | None = None
    if isinstance(flag, bool):
        direction = "higher" if flag else "lower"
    decl = MetricDecl(name=metric, unit=None, direction=direction, benchmark=benchmark)
    return run.metrics.setdefault((benchmark, metric), decl)


def _stderr(
    run: _Run, part: str, task: str, metrics: Mapping[str, Any], metric: str, filtered: str
) -> Spread | None:
    """The metric's standard error, when the file gives one that is a number."""
    name = f"{metric}{_STDERR},{filtered}" if filtered else f"{metric}{_STDERR}"
    if name not in metrics:
        return None
    try:
        cell = read_cell(metrics[name])
    except CellError as error:
        where = path(part, task, name)
        run.warnings.append(PageWarning(run.origin, where, f"standard error not kept: {error}"))
        return None
    return Spread(cell.value, "standard error", cell.text)


def _record(
    run: _Run,
    benchmark: Benchmark,
    decl: MetricDecl,
    value: str,
    spread: Spread | None,
    task: str,
    filtered: str,
    where: str,
) -> ResultRecord:
    shots = run.n_shot.get(task, run.default_shot)
    protocol = None
    if isinstance(shots, int | Decimal | str) and not isinstance(shots, bool):
        protocol = f"{shots}-shot"
    settings = (Setting("filter", filtered),) if filtered and filtered != "none" else ()
    tail = "/".join(key_part(part) for part in (task, decl.name, filtered or "none"))
    return ResultRecord(
        source_id=f"{run.key}/{tail}",
        method=run.model,
        metric=decl.name,
        value=value,
        reported_in=run.document,
        result_date=run.date,
        configuration=Configuration(settings=settings, protocol=protocol),
        sample_size=_sample_size(run.samples.get(task)),
        benchmark=benchmark,
        spread=spread,
        location=where,
    )


def _sample_size(samples: object) -> int | None:
    """``n-samples``' ``effective`` count of a task, when it is a whole number."""
    count = samples.get("effective") if isinstance(samples, Mapping) else None
    if isinstance(count, Decimal) and count == count.to_integral_value() and count >= 0:
        return int(count)
    return None


def _page(run: _Run, document: Mapping[str, Any], results: list[ResultRecord], data: bytes) -> Page:
    title = f"lm-evaluation-harness results: {run.model}"
    digest = hashlib.sha256(data).hexdigest()
    return run_page(FORMAT, run.origin, run.key, title, run.metrics.values(), results,
                    "EleutherAI lm-evaluation-harness", digest, run.warnings,
                    data_updated=run.date, task_parents=_parents(document))  # fmt: skip


def _parents(document: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    """(sub-task, group) pairs of ``group_subtasks``."""
    groups = document.get("group_subtasks")
    if not isinstance(groups, Mapping):
        return ()
    return tuple(
        (str(child), str(group))
        for group, children in groups.items()
        if isinstance(children, list)
        for child in children
        if isinstance(child, str)
    )
