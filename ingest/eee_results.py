"""One Every Eval Ever record read into a Page: its model's results, as records.

:mod:`ingest.eee_records` splits a file into records and names each source; this module reads
one. What each field becomes:

- ``model_info.name`` is the method (``id`` is the Hub-style ID; benchgraph names methods by
  their published name).
- ``source_metadata``: ``source_name`` titles the source and names the reporting document
  (kind "document"; with no name, the ``source_organization_name``), the organisation is its
  publisher. ``evaluator_relationship`` ``first_party`` (the model's developer evaluated it)
  and ``third_party`` become ``self_reported`` true and false (``bg:developerReported``);
  ``collaborative`` and ``other`` leave it unknown. ``retrieved_timestamp`` (Unix time) dates
  the source.
- Each ``evaluation_results`` item is one result: its benchmark is the ``evaluation_name`` (the
  task) on ``source_data.dataset_name`` (the dataset; the evaluation's name when there is
  none), split ``hf_split`` when given. Its metric is ``metric_name``, else ``metric_id``, else
  ``metric_kind``, else ``score`` (0.2.0 records name none); its unit
  ``metric_unit`` as published (``proportion``, ``percent``, QUDT's ``NUM`` or ``SEC``; none
  stated: no unit); its
  direction ``lower_is_better``, as stated (true: lower is better). A metric with no
  ``lower_is_better`` has no direction, with a warning: it is never guessed, and never ranked.
- ``score_details.score`` is the value, exactly as written. ``uncertainty``:
  ``standard_error.value`` is a ± whose meaning is "standard error", ``standard_deviation`` one
  that is a standard deviation (when both are given, the standard error is kept, with a
  warning), ``confidence_interval`` with its ``confidence_level`` the interval
  (``bg:ciLower``/``bg:ciUpper``/``bg:ciLevel``; one of no stated level stays in the published
  cell, never ranked), ``num_samples`` the sample size.
- ``generation_config``: every ``generation_args`` setting (``temperature``, ``max_tokens``,
  ``prompt_template``…; a nested one as compact JSON) and every ``additional_details`` entry
  (``n_shot``…) is a setting of the configuration, so that runs under other settings are never
  ranked together; so is ``eval_library`` (name and version, when known).
- ``evaluation_timestamp`` (the result's, else the record's) is the result's date.
- ``detailed_evaluation_results`` names an instance-level file: it is not read (benchgraph
  keeps aggregate scores), with a warning naming it.

What ``benchgraph export --format eee`` writes under its own names is read back, so that a
store's records come back as they went: the task and split in ``source_data``'s details, the
direction's being inferred and the chance level in ``metric_config``'s, the source table,
headline flag, published cell, verification and ± of unstated meaning in ``score_details``'s,
the protocol, subset and configuration JSON (``bg:protocol``, ``bg:subset``,
``bg:configurationJSON``) in ``generation_config``'s, and the reporting paper, source URL and
data-updated time in ``source_metadata``'s.

A result whose score is not one number, or whose metric another result of the record declares
otherwise, is skipped with a warning naming its JSON path; a record none of whose results can
be read is refused, and so is one whose structure is broken (a missing or mistyped
``model_info``, ``source_metadata``, ``evaluation_results``, ``evaluation_name``,
``metric_config`` or ``score_details``, a ``lower_is_better`` or ``evaluator_relationship``
that is none of the schema's values).
"""

from __future__ import annotations

import json
from collections import Counter
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
    Interval,
    MetricDecl,
    Page,
    PageError,
    PageWarning,
    PaperRef,
    ResultRecord,
    Setting,
    SourceFormat,
    Spread,
    SpreadMeaning,
)
from ingest.structured import path, shown

FORMAT: SourceFormat = "eee"
HINT = "an Every Eval Ever record has model_info, source_metadata and evaluation_results"
_RELATIONSHIPS: dict[str, bool | None] = {
    "first_party": True,
    "third_party": False,
    "collaborative": None,
    "other": None,
}
# QUDT units by the local name ``benchgraph export --format eee`` writes as a metric_unit, as
# the unit names benchgraph reads (ingest.units).
_QUDT_NAMES = {
    "SEC": "second",
    "MilliSEC": "millisecond",
    "NUM-PER-SEC": "token per second",
    "NUM": "count",
}
# What benchgraph's export records beside a configuration's settings, under its own names.
_PROTOCOL, _SUBSET, _JSON, _NODE = (
    "bg:protocol",
    "bg:subset",
    "bg:configurationJSON",
    "bg:configuration",
)


class _Skip(Exception):
    """A result that cannot be read: ``steps`` is where in it, ``str()`` the reason."""

    def __init__(self, steps: tuple[str | int, ...], problem: str) -> None:
        self.steps = steps
        super().__init__(problem)


@dataclass
class _Reader:
    """Reads one record, keeping its warnings, its metrics and the IDs its results took."""

    origin: str
    where: str  # the record's place in the file, as a prefix of JSON paths
    key: str
    warnings: list[PageWarning] = field(default_factory=list)
    metrics: dict[tuple[Benchmark, str], MetricDecl] = field(default_factory=dict)
    ids: Counter[str] = field(default_factory=Counter)

    def at(self, *steps: str | int) -> str:
        return self.where + path(*steps) if steps else self.where.rstrip(".: ")

    def error(self, steps: tuple[str | int, ...], problem: str) -> PageError:
        return PageError(self.origin, self.at(*steps), problem, HINT)

    def warn(self, steps: tuple[str | int, ...], problem: str) -> None:
        self.warnings.append(PageWarning(self.origin, self.at(*steps), problem))

    def mapping(self, value: object, *steps: str | int) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.error(steps, f"is {shown(value)}, not an object")
        return value

    def optional(self, value: object, *steps: str | int) -> Mapping[str, Any]:
        return {} if value is None else self.mapping(value, *steps)


def read_record(record: Mapping[str, Any], origin: str, where: str, key: str, digest: str) -> Page:
    """The Page of ``record``, keyed ``key`` and versioned by ``digest``; ``where`` prefixes
    its JSON paths (``[3].``, ``line 4: ``). Raises PageError for a broken structure and for a
    record none of whose results can be read."""
    reader = _Reader(origin, where, key)
    model = reader.mapping(record.get("model_info"), "model_info")
    method = _text(model.get("name"))
    if method is None:
        raise reader.error(("model_info", "name"), f"no model name ({shown(model.get('name'))})")
    source = _Source.read(reader, record)
    entries = record.get("evaluation_results")
    if not isinstance(entries, list) or not entries:
        raise reader.error(("evaluation_results",), f"is {shown(entries)}, not a list of results")
    common = _library(reader, record)
    results = []
    for index, entry in enumerate(entries):
        try:
            results.append(_result(reader, entry, index, method, source, common, record))
        except _Skip as skip:
            reader.warn(("evaluation_results", index, *skip.steps), f"result skipped: {skip}")
    _detailed(reader, record)
    if not results:
        first = reader.warnings[0]
        raise PageError(
            origin, reader.at("evaluation_results"), "no result can be read", first.problem
        )
    return _page(reader, source, results, len(entries), digest)


@dataclass(frozen=True)
class _Source:
    """What ``source_metadata`` says: who reported the scores, and how they relate to the
    model's developer."""

    title: str
    publisher: str | None
    url: str | None
    updated: str | None
    reported_in: PaperRef
    self_reported: bool | None

    @classmethod
    def read(cls, reader: _Reader, record: Mapping[str, Any]) -> _Source:
        meta = reader.mapping(record.get("source_metadata"), "source_metadata")
        details = reader.optional(
            meta.get("additional_details"), "source_metadata", "additional_details"
        )
        relationship = meta.get("evaluator_relationship")
        if not isinstance(relationship, str) or relationship not in _RELATIONSHIPS:
            raise reader.error(
                ("source_metadata", "evaluator_relationship"),
                f"is {shown(relationship)}, not one of {', '.join(_RELATIONSHIPS)}",
            )
        name = _text(meta.get("source_name"))
        organisation = _text(meta.get("source_organization_name"))
        title = name or organisation or f"{record.get('evaluation_id')}"
        paper = _text(details.get("reporting_paper_id"))
        paper_title = _text(details.get("reporting_paper_title"))
        paper_url = _text(details.get("reporting_paper_url"))
        if paper or paper_title or paper_url:
            reported = PaperRef(source_id=paper, title=paper_title, url=paper_url, kind="document")
        else:
            reported = PaperRef(title=title, kind="document")
        updated = details.get("data_updated") or record.get("retrieved_timestamp")
        return cls(
            title=title,
            publisher=organisation,
            url=_text(details.get("source_url")),
            updated=moments.iso(updated),
            reported_in=reported,
            self_reported=_RELATIONSHIPS[relationship],
        )


def _library(reader: _Reader, record: Mapping[str, Any]) -> tuple[Setting, ...]:
    """The ``eval_library`` as a setting, when its name is known."""
    library = reader.optional(record.get("eval_library"), "eval_library")
    name = _text(library.get("name"))
    if name is None or name == "unknown":
        return ()
    version = _text(library.get("version"))
    known = version is not None and version != "unknown"
    return (Setting("eval_library", f"{name} {version}" if known else name),)


def _result(
    reader: _Reader,
    entry: object,
    index: int,
    method: str,
    source: _Source,
    common: tuple[Setting, ...],
    record: Mapping[str, Any],
) -> ResultRecord:
    """One ``evaluation_results`` item. Raises PageError for a broken structure and _Skip for
    a result that cannot be read."""
    steps: tuple[str | int, ...] = ("evaluation_results", index)
    item = reader.mapping(entry, *steps)
    name = _text(item.get("evaluation_name"))
    if name is None:
        raise reader.error((*steps, "evaluation_name"), "no evaluation_name")
    benchmark = _benchmark(reader, item, name, steps)
    scores = reader.mapping(item.get("score_details"), *steps, "score_details")
    details = reader.optional(scores.get("details"), *steps, "score_details", "details")
    try:
        cell = read_cell(scores.get("score"))
    except CellError as error:
        raise _Skip(("score_details", "score"), str(error)) from None
    decl = _metric(reader, item, name, benchmark, steps)
    interval, spread, published = _uncertainty(reader, scores, details, steps, cell.value)
    when = item.get("evaluation_timestamp") or record.get("evaluation_timestamp")
    if when is not None and moments.iso(when) is None:
        reader.warn((*steps, "evaluation_timestamp"), f"{shown(when)} is no time: not kept")
    return ResultRecord(
        source_id=_result_id(reader, item, name, decl.name),
        method=method,
        metric=decl.name,
        value=cell.value,
        reported_in=source.reported_in,
        result_date=moments.iso(when) if when is not None else None,
        configuration=_configuration(reader, item, steps, common),
        interval=interval,
        sample_size=_samples(reader, scores, steps),
        table=_text(details.get("source_table")) or "",
        headline=details.get("headline") != "false",
        benchmark=benchmark,
        cell=_text(details.get("published_cell")) or published,
        spread=spread,
        verified={"true": True, "false": False}.get(str(details.get("verified"))),
        location=reader.at(*steps),
        self_reported=source.self_reported,
    )


def _benchmark(
    reader: _Reader, item: Mapping[str, Any], name: str, steps: tuple[str | int, ...]
) -> Benchmark:
    """The evaluation's benchmark: its task (benchgraph's ``task`` detail, else the
    evaluation's name) on its dataset, split as the details or ``hf_split`` say."""
    data = reader.optional(item.get("source_data"), *steps, "source_data")
    details = reader.optional(data.get("additional_details"), *steps, "source_data", "details")
    return Benchmark(
        task=_text(details.get("task")) or name,
        dataset=_text(data.get("dataset_name")) or name,
        split=_text(details.get("split")) or _text(data.get("hf_split")),
    )


def _metric(
    reader: _Reader,
    item: Mapping[str, Any],
    name: str,
    benchmark: Benchmark,
    steps: tuple[str | int, ...],
) -> MetricDecl:
    """The result's metric, declared once per benchmark. Raises PageError for a
    ``lower_is_better`` that is no boolean, and _Skip for a metric another result of the
    record declares otherwise."""
    at = (*steps, "metric_config")
    config = reader.mapping(item.get("metric_config"), *at)
    details = reader.optional(config.get("additional_details"), *at, "additional_details")
    lower = config.get("lower_is_better")
    if lower is not None and not isinstance(lower, bool):
        raise reader.error((*at, "lower_is_better"), f"is {shown(lower)}, not true or false")
    names = (_text(config.get(k)) for k in ("metric_name", "metric_id", "metric_kind"))
    metric = next((text for text in names if text is not None), "score")
    decl = MetricDecl(
        name=metric,
        unit=_unit(config.get("metric_unit")),
        direction=None if lower is None else ("lower" if lower else "higher"),
        direction_inferred=details.get("direction_inferred") == "true",
        chance_level=_decimal_text(details.get("chance_level")),
        benchmark=benchmark,
    )
    known = reader.metrics.setdefault((benchmark, metric), decl)
    if known != decl:
        raise _Skip(("metric_config",), f"metric {metric!r} is declared otherwise before")
    if lower is None and known is decl:
        reader.warn((*at, "lower_is_better"), f"metric {metric!r} states no direction: unranked")
    return decl


def _uncertainty(
    reader: _Reader,
    scores: Mapping[str, Any],
    details: Mapping[str, Any],
    steps: tuple[str | int, ...],
    value: str,
) -> tuple[Interval | None, Spread | None, str | None]:
    """The result's interval, its ± and, for an interval of no stated level, the published
    cell that keeps it (never ranked)."""
    at = (*steps, "score_details", "uncertainty")
    found = reader.optional(scores.get("uncertainty"), *at)
    bounds = found.get("confidence_interval") or scores.get("confidence_interval")
    interval, published = None, None
    if bounds is not None:
        ci = reader.mapping(bounds, *at, "confidence_interval")
        lower, upper = _decimal_text(ci.get("lower")), _decimal_text(ci.get("upper"))
        level = _decimal_text(ci.get("confidence_level"))
        if lower is None or upper is None:
            reader.warn((*at, "confidence_interval"), "an interval without bounds: not kept")
        elif level is None:
            published = f"{value} [{lower}, {upper}]"
        else:
            text = _text(details.get("published_interval")) or f"[{lower}, {upper}]"
            interval = Interval(lower, upper, level, text)
    return interval, _spread(reader, found, details, at), published


def _spread(
    reader: _Reader,
    found: Mapping[str, Any],
    details: Mapping[str, Any],
    at: tuple[str | int, ...],
) -> Spread | None:
    """The ±: a standard error, else a standard deviation, else benchgraph's ± of unstated
    meaning (``plus_minus``)."""
    error = found.get("standard_error")
    error = error.get("value") if isinstance(error, Mapping) else error
    deviation = found.get("standard_deviation")
    half_error, half_deviation = _decimal_text(error), _decimal_text(deviation)
    for given, half, name in (
        (error, half_error, "standard_error"),
        (deviation, half_deviation, "standard_deviation"),
    ):
        if given is not None and half is None:
            reader.warn((*at, name), f"{shown(given)} is not a number: not kept")
    if half_error is not None:
        if half_deviation is not None:
            reader.warn((*at, "standard_deviation"), "kept the standard error only")
        return Spread(half_error, "standard error", half_error)
    if half_deviation is not None:
        return Spread(half_deviation, "standard deviation", half_deviation)
    half = _decimal_text(details.get("plus_minus"))
    if half is None:
        return None
    meanings: dict[object, SpreadMeaning] = {
        m: m for m in ("standard deviation", "standard error", "confidence interval")
    }
    return Spread(half, meanings.get(details.get("plus_minus_meaning"), "not stated"), half)


def _samples(
    reader: _Reader, scores: Mapping[str, Any], steps: tuple[str | int, ...]
) -> int | None:
    """``uncertainty.num_samples``, when it is a whole number."""
    found = scores.get("uncertainty")
    count = found.get("num_samples") if isinstance(found, Mapping) else None
    if count is None:
        return None
    if isinstance(count, Decimal) and count == count.to_integral_value() and count >= 0:
        return int(count)
    reader.warn(
        (*steps, "score_details", "uncertainty", "num_samples"), f"{shown(count)}: not kept"
    )
    return None


def _configuration(
    reader: _Reader,
    item: Mapping[str, Any],
    steps: tuple[str | int, ...],
    common: tuple[Setting, ...],
) -> Configuration:
    """``generation_config`` as settings (see the module), after the record's own."""
    at = (*steps, "generation_config")
    config = reader.optional(item.get("generation_config"), *at)
    arguments = reader.optional(config.get("generation_args"), *at, "generation_args")
    details = reader.optional(config.get("additional_details"), *at, "additional_details")
    settings = [*common]
    for key, value in (*arguments.items(), *details.items()):
        if key in (_PROTOCOL, _SUBSET, _JSON, _NODE):
            continue
        text = _setting(value)
        if text is not None:
            settings.append(Setting(str(key), text))
    return Configuration(
        settings=tuple(settings),
        raw_json=_text(details.get(_JSON)),
        protocol=_text(details.get(_PROTOCOL)),
        subset=_text(details.get(_SUBSET)),
    )


def _setting(value: object) -> str | None:
    """A setting's value as text: a scalar as written, a nested value as compact JSON; None
    for null and an empty object or list (nothing set)."""
    if value is None or value == {} or value == []:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | Decimal):
        return str(value)
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def _result_id(reader: _Reader, item: Mapping[str, Any], name: str, metric: str) -> str:
    """The record's key and the result's own ID (else its evaluation and metric), with
    ``/2``, ``/3``... for a repeat."""
    own = _text(item.get("evaluation_result_id"))
    tail = key_part(own) if own else f"{key_part(name)}/{key_part(metric)}"
    found = f"{reader.key}/{tail}"
    reader.ids[found] += 1
    count = reader.ids[found]
    return found if count == 1 else f"{found}/{count}"


def _detailed(reader: _Reader, record: Mapping[str, Any]) -> None:
    """Warn that the instance-level file a record names is not read."""
    detailed = record.get("detailed_evaluation_results")
    if isinstance(detailed, Mapping) and detailed.get("file_path") is not None:
        reader.warn(
            ("detailed_evaluation_results", "file_path"),
            f"instance-level results {detailed['file_path']!r} are not read: benchgraph keeps "
            "the aggregate scores",
        )


def _page(
    reader: _Reader, source: _Source, results: list[ResultRecord], total: int, digest: str
) -> Page:
    metrics = tuple(reader.metrics.values())
    first = results[0].benchmark
    return Page(
        format=FORMAT,
        origin=reader.origin,
        key=reader.key,
        title=source.title,
        url=source.url,
        data_updated=source.updated,
        benchmark=first,
        metrics=metrics,
        primary_metric=next(d.name for d in metrics if d.benchmark == first),
        results=tuple(results),
        declared_count=sum(1 for r in results if r.headline),
        total_count=total,
        publisher=source.publisher,
        sha256=digest,
        warnings=tuple(reader.warnings),
    )


def _unit(value: object) -> str | None:
    """``metric_unit`` as published, a QUDT unit's local name as that unit; None when none."""
    unit = _text(value)
    return _QUDT_NAMES.get(unit, unit) if unit is not None else None


def _text(value: object) -> str | None:
    """A non-blank text, stripped; else None."""
    return value.strip() if isinstance(value, str) and value.strip() else None


def _decimal_text(value: object) -> str | None:
    """A JSON number (or numeric text) as decimal text, as written; else None."""
    if isinstance(value, bool) or value is None:
        return None
    try:
        return read_cell(value).value if isinstance(value, Decimal | str) else None
    except CellError:
        return None
