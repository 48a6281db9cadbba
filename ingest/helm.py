"""Parser for HELM ``stats.json`` files: the aggregate statistics of one HELM run.

HELM writes each run to ``benchmark_output/runs/<suite>/<run name>/``; the run's name is its
run spec (``mmlu:subject=philosophy,method=multiple_choice_joint,model=openai_gpt2``), and
``run_spec.json`` beside ``stats.json`` gives the model (``adapter_spec.model``,
``openai/gpt2``). ``stats.json`` is a list of statistics, each named by ``name`` {``name``,
``split``, optional ``sub_split``, optional ``perturbation``} with ``count``, ``sum``,
``sum_squared``, ``min``, ``max``, ``mean``, ``variance`` and ``stddev``. HELM takes the mean of
each statistic over a trial's instances, then merges the trials: ``count`` is the number of
trials, ``mean`` the mean over them and ``stddev`` their spread; the number of instances is the
statistic ``num_instances``.

What each part becomes:

- The run's model is the method: ``run_spec.json``'s ``adapter_spec.model``; without that
  file, the ``model=`` argument of the run's name as the folder writes it (HELM writes a
  model's ``/`` as ``_`` there). The benchmark's task is the scenario (the run name before
  ``:``, ``mmlu``); its dataset the run name without its ``model=`` and
  ``model_deployment=`` arguments (``mmlu:subject=philosophy,method=multiple_choice_joint``),
  which is what two models' runs share; its split the statistic's ``split``.
- Each statistic that is a metric of the model's result is one result: its ``mean``, no unit
  stated, its direction by benchgraph's table of names (inferred; HELM's files state none).
  The run's bookkeeping is kept out, with one summary warning naming what was left: the counts
  (every ``num_*``, ``num_instances`` included), ``finish_reason_*``, ``batch_size``,
  ``prompt_truncated``, ``max_prob``, ``logprob`` (the sum behind ``perplexity``), the costs
  and runtimes of the run (``training_co2_cost``, ``training_energy_cost``,
  ``inference_runtime``, ``inference_denoised_runtime``, ``inference_idealized_runtime``,
  ``estimated_number_of_tokens``, ``number_of_requests``), and any statistic of count 0.
- A perturbed statistic is kept apart from the unperturbed one: its configuration's protocol is
  ``perturbation <name>, computed on <computed_on>`` and its fields are settings
  (``perturbation.robustness``...), so perturbed and unperturbed results never share a
  cohort. A ``sub_split`` is the configuration's subset.
- The sample size is the run's ``num_instances`` for the split (and sub-split). ``stddev`` is a
  ± whose meaning is "standard deviation" (over the run's trials), kept when ``count`` is 2 or
  more: over one trial it is 0 by construction and says nothing.

**One source per run**: ``helm/<suite>/<run name>``, normalised, when the file stands in
``runs/<suite>/<run name>/``, so the same run read again is the same source and a run of another
suite is another; elsewhere the suite is unknown and the bytes name it,
``helm/<run name>/sha256-`` and 16 hex digits. A result is named by its split, sub-split,
perturbation and metric.

A statistic whose ``mean`` is not a number is skipped with a warning naming its JSON path
(``[12].mean``). Refused, naming the JSON path: a document that is not a list of statistics, a
statistic that is not an object or whose ``name`` has no ``name`` or ``split``, a file in a
folder that is not a HELM run's (no run name of the form ``<scenario>:<args>``: the file names
neither model nor scenario), a ``run_spec.json`` beside it that cannot be read, and a file none
of whose metrics can be read.
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
from ingest import directions
from ingest.cells import CellError, read_cell
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
    Spread,
)
from ingest.sources import run_page
from ingest.structured import decoded, load_json, path, shown

FORMAT: SourceFormat = "helm"
KEY = "helm"
HINT = "a HELM stats.json is a list of statistics, each with name {name, split}, count and mean"
RUN_SPEC = "run_spec.json"
# The run's bookkeeping, which is no metric of the model's result (see the module).
BOOKKEEPING = frozenset(
    {
        "batch_size", "prompt_truncated", "max_prob", "logprob", "training_co2_cost",
        "training_energy_cost", "inference_runtime", "inference_denoised_runtime",
        "inference_idealized_runtime", "estimated_number_of_tokens", "number_of_requests",
    }
)  # fmt: skip
_BOOKKEEPING_PREFIXES = ("num_", "finish_reason_")
_SNIFF_HEAD = 1 << 16
_STAT_NAME = re.compile(r'^\[\s*\{\s*"name"\s*:\s*\{\s*"name"\s*:')
_RUN_NAME = re.compile(r"([^:,=]+):(.*)")


def sniff(text: str) -> bool:
    """Return True for a JSON list whose first item is named by an object of its own
    (``[{"name": {"name": …``) and whose start has a statistic's ``sum_squared``."""
    head = text.lstrip("\ufeff \t\r\n")[:_SNIFF_HEAD]
    return bool(_STAT_NAME.match(head)) and '"sum_squared"' in head


@dataclass(frozen=True)
class Run:
    """The HELM run a stats file belongs to: its name, suite (when known) and model."""

    name: str
    scenario: str
    dataset: str
    model: str
    suite: str | None


def locate(origin: str) -> Run:
    """The run of the stats file at ``origin``: its folder's name, ``run_spec.json`` beside it
    and the ``runs/<suite>/`` it stands in. Raises PageError for a folder that is no run's and
    a ``run_spec.json`` that cannot be read."""
    folder = Path(origin).parent
    spec = folder / RUN_SPEC
    model, name = _spec(spec) if spec.is_file() else (None, folder.name)
    found = _RUN_NAME.fullmatch(name)
    if found is None:
        raise PageError(
            origin,
            "",
            f"its folder ({name!r}) is not a HELM run's, <scenario>:<arguments>: the file names "
            "neither the model nor the scenario",
            "read it where HELM wrote it, runs/<suite>/<run name>/stats.json",
        )
    arguments = [part for part in found[2].split(",") if part]
    given = dict(part.partition("=")[::2] for part in arguments)
    model = model or given.get("model")
    if not model:
        raise PageError(origin, "", f"the run {name!r} names no model (model=…)", HINT)
    kept = [
        part for part in arguments if part.partition("=")[0] not in ("model", "model_deployment")
    ]
    dataset = f"{found[1]}:{','.join(kept)}" if kept else found[1]
    suite = folder.parent.name if folder.parent.parent.name == "runs" else None
    return Run(name, found[1], dataset, model, suite)


def _spec(spec: Path) -> tuple[str, str]:
    """``run_spec.json``'s model and run name. Raises PageError naming the file."""
    where = str(spec)
    try:
        document = load_json(spec.read_text(encoding="utf-8-sig"), where)
    except (OSError, UnicodeDecodeError) as error:
        raise PageError(where, "", f"cannot read the run's spec: {error}") from None
    adapter = document.get("adapter_spec") if isinstance(document, Mapping) else None
    model = adapter.get("model") if isinstance(adapter, Mapping) else None
    if not isinstance(model, str) or not model.strip():
        raise PageError(where, "adapter_spec.model", f"is {shown(model)}, not the run's model")
    name = document.get("name")
    if not isinstance(name, str) or not name.strip():
        raise PageError(where, "name", f"is {shown(name)}, not the run's name")
    return model.strip(), name.strip()


@dataclass
class _Reading:
    origin: str
    key: str
    run: Run
    document: PaperRef
    instances: dict[tuple[str, str | None], int]
    warnings: list[PageWarning] = field(default_factory=list)
    kept_out: set[str] = field(default_factory=set)
    metrics: dict[tuple[Benchmark, str], MetricDecl] = field(default_factory=dict)


def parse(data: bytes, origin: str) -> Page:
    """Read a HELM ``stats.json``; ``origin`` names it in errors, and where it stands names its
    run (see :func:`locate`).

    Returns its one Page. Raises PageError for bytes that are not UTF-8 JSON, for a structure
    that is not a stats file's (with its JSON path), for a folder that is no HELM run's, for a
    ``run_spec.json`` beside it that cannot be read, and for a file none of whose metrics can be
    read.
    """
    text = decoded(data, origin, HINT)
    document = load_json(text, origin)
    if not isinstance(document, list):
        raise PageError(origin, "", f"the document is {shown(document)}, not a list", HINT)
    names = [_name(origin, index, stat) for index, stat in enumerate(document)]
    run = locate(origin)
    reading = _reading(run, origin, hashlib.sha256(data).hexdigest(), document, names)
    results = []
    for index, (stat, name) in enumerate(zip(document, names, strict=True)):
        record = _stat(reading, index, stat, name)
        if record is not None:
            results.append(record)
    if reading.kept_out:
        left = ", ".join(sorted(reading.kept_out))
        problem = (
            f"kept out {len(reading.kept_out)} statistics that are no metric of the model's "
            f"result: {left}"
        )
        reading.warnings.append(PageWarning(origin, "", problem, "see docs/formats.md, HELM"))
    if not results:
        raise PageError(origin, "", "none of its metrics can be read", HINT)
    return _page(reading, results, data)


def _name(origin: str, index: int, stat: object) -> Mapping[str, Any]:
    """A statistic's ``name`` object. Raises PageError with its JSON path."""
    if not isinstance(stat, Mapping):
        raise PageError(origin, f"[{index}]", f"is {shown(stat)}, not a statistic", HINT)
    name = stat.get("name")
    if not isinstance(name, Mapping):
        raise PageError(origin, path(index, "name"), f"is {shown(name)}, not an object", HINT)
    for part in ("name", "split"):
        if not isinstance(name.get(part), str) or not name[part].strip():
            where = path(index, "name", part)
            raise PageError(origin, where, f"is {shown(name.get(part))}, not a name", HINT)
    return name


def _reading(
    run: Run, origin: str, digest: str, document: list[Any], names: list[Mapping[str, Any]]
) -> _Reading:
    tail = key_part(run.suite) if run.suite else None
    key = (
        f"{KEY}/{tail}/{key_part(run.name)}"
        if tail
        else f"{KEY}/{key_part(run.name)}/sha256-{digest[:16]}"
    )
    instances = {}
    for stat, name in zip(document, names, strict=True):
        if name["name"] == "num_instances" and "perturbation" not in name:
            count = stat.get("mean")
            if isinstance(count, Decimal) and count == count.to_integral_value() and count >= 0:
                instances[(name["split"], name.get("sub_split"))] = int(count)
    title = f"HELM run {run.name}" + (f" ({run.suite})" if run.suite else "")
    document_ref = PaperRef(source_id=key, title=title, kind="document")
    return _Reading(origin, key, run, document_ref, instances)


def _stat(
    reading: _Reading, index: int, stat: Mapping[str, Any], name: Mapping[str, Any]
) -> ResultRecord | None:
    """One statistic as a result, or None for one that is no metric or cannot be read."""
    metric = str(name["name"])
    if metric in BOOKKEEPING or metric.startswith(_BOOKKEEPING_PREFIXES) or stat.get("count") == 0:
        reading.kept_out.add(metric)
        return None
    try:
        value = read_cell(stat.get("mean")).value
    except CellError as error:
        where = path(index, "mean")
        reading.warnings.append(PageWarning(reading.origin, where, f"statistic skipped: {error}"))
        return None
    split, sub_split = str(name["split"]), name.get("sub_split")
    benchmark = Benchmark(task=reading.run.scenario, dataset=reading.run.dataset, split=split)
    direction = directions.infer(metric)
    decl = MetricDecl(
        metric, None, direction, direction_inferred=direction is not None, benchmark=benchmark
    )
    reading.metrics.setdefault((benchmark, metric), decl)
    configuration, tail = _configuration(reading, index, name)
    parts = (split, *tail, metric)
    return ResultRecord(
        source_id=f"{reading.key}/" + "/".join(key_part(part) for part in parts),
        method=reading.run.model,
        metric=metric,
        value=value,
        reported_in=reading.document,
        configuration=configuration,
        sample_size=reading.instances.get((split, sub_split)),
        benchmark=benchmark,
        spread=_spread(stat),
        location=path(index),
    )


def _configuration(
    reading: _Reading, index: int, name: Mapping[str, Any]
) -> tuple[Configuration, tuple[str, ...]]:
    """The statistic's configuration (its perturbation and sub-split) and the parts of its ID
    they add."""
    settings = [Setting("run", reading.run.name)]
    sub_split = name.get("sub_split")
    subset = sub_split if isinstance(sub_split, str) and sub_split.strip() else None
    tail = (subset,) if subset else ()
    perturbation = name.get("perturbation")
    if perturbation is None:
        return Configuration(settings=tuple(settings), subset=subset), tail
    if not isinstance(perturbation, Mapping) or not isinstance(perturbation.get("name"), str):
        where = path(index, "name", "perturbation")
        raise PageError(
            reading.origin, where, f"is {shown(perturbation)}, not a named perturbation", HINT
        )
    for key, value in perturbation.items():
        text = ("true" if value else "false") if isinstance(value, bool) else str(value)
        settings.append(Setting(f"perturbation.{key}", text))
    computed = perturbation.get("computed_on")
    protocol = f"perturbation {perturbation['name']}" + (
        f", computed on {computed}" if computed else ""
    )
    configuration = Configuration(settings=tuple(settings), protocol=protocol, subset=subset)
    return configuration, (*tail, str(perturbation["name"]), *([str(computed)] if computed else []))


def _spread(stat: Mapping[str, Any]) -> Spread | None:
    """``stddev`` over two or more trials, as a standard deviation."""
    count, stddev = stat.get("count"), stat.get("stddev")
    if not isinstance(count, Decimal) or count < 2 or stddev is None:
        return None
    try:
        cell = read_cell(stddev)
    except CellError:
        return None
    return Spread(cell.value, "standard deviation", cell.text)


def _page(reading: _Reading, results: list[ResultRecord], data: bytes) -> Page:
    title = str(reading.document.title)
    metrics, digest = reading.metrics.values(), hashlib.sha256(data).hexdigest()
    return run_page(FORMAT, reading.origin, reading.key, title, metrics, results,
                    "Stanford CRFM HELM", digest, reading.warnings)  # fmt: skip
