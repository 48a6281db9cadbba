"""Parser for MTEB results files (one task's scores for one model, as ``mteb`` writes them).

The layout of ``embeddings-benchmark/results`` is ``results/<org>__<model>/<revision>/<Task>.json``
with ``model_meta.json`` beside the task files. A task file gives ``task_name``,
``mteb_version``, ``dataset_revision`` and ``scores``: per split (``test``, ``validation``) a
list of subsets' scores, each with its ``hf_subset``, its ``languages``, its ``main_score`` and
the task's metrics (``accuracy``, ``ndcg_at_10``, ``cosine_spearman``...); a classification
task adds ``scores_per_experiment``, the runs its figures are the mean of.

What each part becomes:

- The model is ``model_meta.json``'s ``name`` and ``revision``, when that file stands beside the
  task file; else the folders the file stands in, ``<org>__<model>/<revision>/`` (the
  ``__`` is MTEB's own mark for the ``/`` of a model's name); else the model is not known, the
  page says so in a warning, and the results are the method "unknown model" followed by 12 hex
  digits of the file's SHA-256 (never one method across files of unknown models).
- Each split is a benchmark: the task's name as task and dataset, the split as split. Each
  subset's scores are results under the configuration's subset (``hf_subset``), so subsets are
  never ranked together; the subset's languages, the ``mteb_version``, the
  ``dataset_revision`` and the model's revision are settings.
- Each metric of a subset is one result, no unit stated. ``main_score`` is a result of its own,
  the headline (the page's primary metric; the others are not headline results): MTEB's task
  metadata names the metric it copies (``TaskMetadata.main_score``, "the main score used for
  evaluation"), the results file does not.
- Directions: neither the results file nor MTEB's task metadata states one. A metric's direction
  is benchgraph's table of names' (:mod:`ingest.directions`), marked inferred, except for names
  the table would misread here: a ``*_threshold`` (a similarity cut-off chosen by the
  evaluation, not a score) and the ``nauc_*`` figures (the ``max``, ``std`` and ``diff1`` of a
  calibration curve, of no documented direction) have none, and are never ranked.
  ``main_score`` takes the direction of the metrics of its subset whose value it is, when they
  all have one and the same (``accuracy`` for a classification task); else it has none.
- ``scores_per_experiment`` is not read: the metrics beside it are their mean. No sample size
  is given.

**One source per (model, revision, task) file**: ``mteb/<model>/<revision>/<task>``, each
normalised (``mteb/intfloat-e5-small/e272f30…/amazoncounterfactualclassification``), so the
same file read from another copy is the same source and a later run of it a newer version. A
known model of unknown revision puts ``sha256-`` and 16 hex digits of the file's bytes in
place of the revision; a file of unknown model is ``mteb/sha256-`` and 16 hex digits: never
another source's newer version. A result is named by the source, its split, subset and metric.

A score that is not a number (MTEB writes ``NaN`` where a figure cannot be computed) is skipped
with a warning naming its JSON path. Refused, naming the JSON path: a file whose ``scores`` is
not an object of splits, a split that is not a list, a subset's scores that are not an object or
name no ``hf_subset``, a file without ``task_name`` (MTEB before 1.11 wrote another layout),
a ``model_meta.json`` beside it that cannot be read, and a file none of whose scores can be read.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from benchgraph.names import key_part
from ingest import directions, moments
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
)
from ingest.sources import run_page
from ingest.structured import decoded, load_json, path, shown

FORMAT: SourceFormat = "mteb"
KEY = "mteb"
HINT = (
    "an MTEB results file has task_name, mteb_version and scores: per split, a list of each "
    "subset's scores"
)
META = "model_meta.json"  # the model's name and revision, beside its task files
MAIN = "main_score"
_SNIFF_HEAD = 1 << 16
_NOT_SCORES = frozenset({"hf_subset", "languages", "scores_per_experiment"})
# Words of a metric's name that the table of names would misread in MTEB's vocabulary.
_UNDIRECTED = frozenset({"threshold", "nauc"})
_WORDS = re.compile(r"[^a-z0-9]+")


def sniff(text: str) -> bool:
    """Return True for a JSON object whose start has MTEB's ``mteb_version`` and its
    ``scores`` (or the ``mteb_dataset_name`` of MTEB before 1.11, which :func:`parse` refuses),
    and no Every Eval Ever ``evaluation_results``."""
    head = text.lstrip("\ufeff \t\r\n")[:_SNIFF_HEAD]
    if not head.startswith("{") or '"mteb_version"' not in head:
        return False
    if '"evaluation_results"' in head:
        return False
    return '"scores"' in head or '"mteb_dataset_name"' in head


@dataclass(frozen=True)
class Model:
    """The model a results file scores, as its folder says; None where it does not."""

    name: str | None
    revision: str | None


def locate(origin: str) -> Model:
    """The model of the results file at ``origin``: ``model_meta.json`` beside it, else the
    ``<org>__<model>/<revision>/`` folders it stands in, else unknown. Raises PageError, naming
    ``model_meta.json``, for one that cannot be read."""
    file = Path(origin)
    meta = file.parent / META
    if meta.is_file():
        return _meta(meta)
    folder = file.parent
    if "__" in folder.parent.name and folder.name:
        return Model(folder.parent.name.replace("__", "/", 1), folder.name)
    return Model(None, None)


def _meta(meta: Path) -> Model:
    where = str(meta)
    try:
        text = meta.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise PageError(where, "", f"cannot read the model's metadata: {error}") from None
    document = load_json(text, where)
    if not isinstance(document, Mapping):
        raise PageError(where, "", f"is {shown(document)}, not the model's metadata (an object)")
    name, revision = document.get("name"), document.get("revision")
    if not isinstance(name, str) or not name.strip():
        raise PageError(where, "name", f"is {shown(name)}, not the model's name")
    if revision is not None and not isinstance(revision, str):
        raise PageError(where, "revision", f"is {shown(revision)}, not a revision")
    return Model(name.strip(), revision.strip() if revision and revision.strip() else None)


@dataclass
class _Run:
    """The file as a whole, and what reading its scores gathered."""

    origin: str
    key: str
    method: str
    task: str
    document: PaperRef
    settings: tuple[Setting, ...]
    warnings: list[PageWarning] = field(default_factory=list)
    directions: dict[Benchmark, set[Direction | None]] = field(default_factory=dict)
    metrics: dict[tuple[Benchmark, str], MetricDecl] = field(default_factory=dict)


def parse(data: bytes, origin: str) -> Page:
    """Read an MTEB results file; ``origin`` names it in errors, and where it stands names its
    model (see :func:`locate`).

    Returns its one Page. Raises PageError for bytes that are not UTF-8 JSON, for a structure
    that is not a results file's (with its JSON path), for a ``model_meta.json`` beside it that
    cannot be read, and for a file none of whose scores can be read.
    """
    text = decoded(data, origin, HINT)
    document = load_json(text, origin)
    if not isinstance(document, Mapping):
        raise PageError(origin, "", f"the document is {shown(document)}, not an object", HINT)
    run = _run(document, origin, hashlib.sha256(data).hexdigest())
    scores = document.get("scores")
    if not isinstance(scores, Mapping):
        raise PageError(origin, "scores", f"is {shown(scores)}, not an object of splits", HINT)
    results: list[ResultRecord] = []
    for split, entries in scores.items():
        if not isinstance(entries, list):
            where = path("scores", str(split))
            raise PageError(origin, where, f"is {shown(entries)}, not a list of subsets", HINT)
        for index, entry in enumerate(entries):
            results.extend(_subset(run, str(split), index, entry))
    if not results:
        first = str(run.warnings[-1]) if run.warnings else HINT
        raise PageError(origin, "scores", "none of its scores can be read", first)
    return _page(run, results, data)


def _run(document: Mapping[str, Any], origin: str, digest: str) -> _Run:
    """The file's task, model and identity."""
    task = document.get("task_name")
    if not isinstance(task, str) or not task.strip():
        problem = f"is {shown(task)}, not the task's name"
        if "mteb_dataset_name" in document:
            problem = "is missing: MTEB before 1.11 wrote this layout, which is not read"
        raise PageError(origin, "task_name", problem, HINT)
    task = task.strip()
    model = locate(origin)
    warnings = []
    if model.name is None:
        key = f"{KEY}/sha256-{digest[:16]}"
        method = f"unknown model {digest[:12]}"
        warnings.append(PageWarning(origin, "", _UNKNOWN, f"put the model's {META} beside it"))
    else:
        revision = key_part(model.revision) if model.revision else f"sha256-{digest[:16]}"
        key = f"{KEY}/{key_part(model.name)}/{revision}/{key_part(task)}"
        method = model.name
    title = f"MTEB results: {method} on {task}"
    settings = [Setting("model_revision", model.revision)] if model.revision else []
    for name in ("mteb_version", "dataset_revision"):
        value = document.get(name)
        if isinstance(value, str) and value.strip():
            settings.append(Setting(name, value.strip()))
    when = moments.iso(document["date"]) if document.get("date") is not None else None
    reported = PaperRef(source_id=key, title=title, date=when, kind="document")
    run = _Run(origin, key, method, task, reported, tuple(settings))
    run.warnings.extend(warnings)
    return run


_UNKNOWN = (
    f"the model is not known: no {META} beside the file and no <org>__<model>/<revision>/ "
    "folders above it; the source is known by its content"
)


def _subset(run: _Run, split: str, index: int, entry: object) -> list[ResultRecord]:
    """The results of one subset's scores: one per metric that can be read."""
    steps: tuple[str | int, ...] = ("scores", split, index)
    if not isinstance(entry, Mapping):
        raise PageError(run.origin, path(*steps), f"is {shown(entry)}, not an object", HINT)
    subset = entry.get("hf_subset")
    if not isinstance(subset, str) or not subset.strip():
        where = path(*steps, "hf_subset")
        raise PageError(run.origin, where, f"is {shown(subset)}, not the subset's name", HINT)
    benchmark = Benchmark(task=run.task, dataset=run.task, split=split)
    read: dict[str, str] = {}
    for name, value in entry.items():
        if name in _NOT_SCORES:
            continue
        try:
            read[str(name)] = read_cell(value).value
        except CellError as error:
            where = path(*steps, str(name))
            run.warnings.append(PageWarning(run.origin, where, f"score skipped: {error}"))
    for name in read:
        if name != MAIN:
            _declare(run, benchmark, name, _direction(name))
    if MAIN in read:
        run.directions.setdefault(benchmark, set()).add(_main_direction(run, benchmark, read))
    configuration = _configuration(run, subset.strip(), entry.get("languages"))
    return [
        _record(run, benchmark, configuration, name, value, path(*steps, name))
        for name, value in read.items()
    ]


def _direction(name: str) -> Direction | None:
    """A metric's direction by the table of names, None for the names it would misread."""
    if _UNDIRECTED & set(_WORDS.split(name.lower())):
        return None
    return directions.infer(name)


def _main_direction(run: _Run, benchmark: Benchmark, read: Mapping[str, str]) -> Direction | None:
    """The direction of the metrics of a subset whose value ``main_score`` is, when they all
    have one and the same; else None."""
    main = Decimal(read[MAIN])
    found = {
        run.metrics[(benchmark, name)].direction
        for name, value in read.items()
        if name != MAIN and Decimal(value) == main
    }
    return found.pop() if len(found) == 1 else None


def _declare(run: _Run, benchmark: Benchmark, name: str, direction: Direction | None) -> None:
    decl = MetricDecl(
        name=name,
        unit=None,
        direction=direction,
        direction_inferred=direction is not None,
        benchmark=benchmark,
    )
    run.metrics.setdefault((benchmark, name), decl)


def _configuration(run: _Run, subset: str, languages: object) -> Configuration:
    settings = list(run.settings)
    if isinstance(languages, list) and all(isinstance(code, str) for code in languages):
        settings.insert(0, Setting("languages", ", ".join(languages)))
    return Configuration(settings=tuple(settings), subset=subset)


def _record(
    run: _Run,
    benchmark: Benchmark,
    configuration: Configuration,
    metric: str,
    value: str,
    where: str,
) -> ResultRecord:
    parts = (benchmark.split or "", configuration.subset or "", metric)
    return ResultRecord(
        source_id=f"{run.key}/" + "/".join(key_part(part) for part in parts),
        method=run.method,
        metric=metric,
        value=value,
        reported_in=run.document,
        result_date=run.document.date,
        configuration=configuration,
        headline=metric == MAIN,
        benchmark=benchmark,
        location=where,
    )


def _page(run: _Run, results: list[ResultRecord], data: bytes) -> Page:
    for benchmark, found in run.directions.items():
        direction = found.pop() if len(found) == 1 else None
        _declare(run, benchmark, MAIN, direction)
    first = results[0].benchmark
    names = [decl.name for decl in run.metrics.values() if decl.benchmark == first]
    return run_page(FORMAT, run.origin, run.key, str(run.document.title), run.metrics.values(),
                    results, "MTEB (embeddings-benchmark)", hashlib.sha256(data).hexdigest(),
                    run.warnings, data_updated=run.document.date,
                    primary_metric=MAIN if MAIN in names else names[0],
                    declared_count=sum(1 for result in results if result.headline))  # fmt: skip
