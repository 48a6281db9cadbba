"""Every Eval Ever (EEE): the store's results as EEE aggregate records, one JSON object a line.

An EEE record (schema :data:`SCHEMA_VERSION`, ``tests/data/eee/``) carries the source, the model
and the time of retrieval once, and a list of results under them; so a record here is one
evaluation: the results one source page gives for one method as one paper reported them (a
sota2 page: usually one result; a Radar page: a model's metrics and subsets). The results are
read by one SELECT (``queries/internal/eee-results.rq``), in order, and each evaluation is
written as soon as its rows are in: one evaluation is held in memory at a time.

What goes where:

- ``lower_is_better`` from the metric's ``bg:direction``; a metric without one gets None (JSON
  null), never a guess, and since EEE requires a boolean such a result is left out and told
  (:func:`write`, :class:`LeftOut`).
- ``metric_unit`` from ``bg:unit``: ``percent``, ``unitless``, another QUDT unit's local name, or
  an unmapped unit's label as published; the unit's IRI in ``additional_details``.
- ``score`` is the number as published (``bg:publishedValue``, written as the JSON number it is:
  ``5.0`` stays ``5.0``), else the exact decimal (``bg:value``); the published text is in
  ``score_details.details`` too.
- ``uncertainty``: the interval (``bg:ciLower``/``bg:ciUpper``), its level (``bg:ciLevel``) and
  ``num_samples`` (``bg:sampleSize``); the interval as published in ``details``. A published ±
  (``bg:plusMinus``) is ``standard_deviation`` or ``standard_error`` when its source says it is
  one; otherwise (a ± whose meaning is not stated, or a half-width of an interval of no stated
  level) it stays in ``score_details.details`` with its meaning, and is not exported as either.
- A metric with no stated unit (``bg:NoUnitStated``) has no ``metric_unit``; a direction read
  from the table of metric names is marked ``direction_inferred`` in ``metric_config``'s details.
- ``generation_config.additional_details``: the configuration's settings by their keys, and
  ``bg:protocol``, ``bg:subset``, ``bg:configurationJSON`` and ``bg:configuration`` (its IRI).
- ``evaluator_relationship``: ``first_party`` when the reporting paper is the method's origin
  paper, ``third_party`` when the origin is another paper; with no origin recorded, what the
  source says of who reported the result (``bg:developerReported``: a leaderboard's
  self-reported flag, an EEE record's relationship), else ``other``; ``relationship_basis``
  says which.
- The source page (its IRI, URL, format, data-updated and ingest times) and the reporting paper
  go into ``source_metadata.additional_details``; ``retrieved_timestamp`` is the ingest time as
  Unix epoch seconds, so the same store always exports the same records.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import IO, TYPE_CHECKING

import pyoxigraph as ox

from benchgraph import graphs, queries
from benchgraph import vocab as V

if TYPE_CHECKING:
    from benchgraph.store import Store

SCHEMA_VERSION = "0.3.0"
# Units QUDT names that EEE's own vocabulary names otherwise (its examples: proportion, percent).
UNIT_NAMES = {V.UNIT + "PERCENT": "percent", V.UNIT + "UNITLESS": "unitless"}
DIRECTIONS = {V.LowerIsBetter: True, V.HigherIsBetter: False}


@dataclass(frozen=True)
class Source:
    """Who published the numbers and how they relate to the method (``source_metadata``)."""

    name: str | None
    organization: str
    relationship: str  # first_party, third_party or other
    details: Mapping[str, str]


@dataclass(frozen=True)
class Model:
    """The method evaluated (``model_info``): its name as published and its benchgraph IRI."""

    name: str
    id: str


@dataclass(frozen=True)
class Uncertainty:
    """The published interval, its level and the sample size (``score_details.uncertainty``)."""

    lower: Decimal | None = None
    upper: Decimal | None = None
    level: Decimal | None = None
    num_samples: int | None = None
    standard_deviation: Decimal | None = None
    standard_error: Decimal | None = None


@dataclass(frozen=True)
class Result:
    """One benchgraph result as an entry of ``evaluation_results``."""

    iri: str
    result_id: str
    evaluation_name: str
    dataset_name: str
    dataset_details: Mapping[str, str]
    metric_id: str
    metric_name: str
    metric_unit: str | None
    lower_is_better: bool | None
    metric_details: Mapping[str, str]
    score: Decimal
    score_details: Mapping[str, str]
    uncertainty: Uncertainty
    evaluated_on: str | None = None
    configuration: Mapping[str, str] = field(default_factory=dict)

    def entry(self) -> dict[str, object]:
        """The result as the schema's ``evaluation_results`` item (None: a JSON null)."""
        entry: dict[str, object] = {
            "evaluation_result_id": self.result_id,
            "evaluation_name": self.evaluation_name,
            "source_data": {
                "dataset_name": self.dataset_name,
                "source_type": "other",
                "additional_details": dict(self.dataset_details),
            },
        }
        if self.evaluated_on is not None:
            entry["evaluation_timestamp"] = self.evaluated_on
        metric: dict[str, object] = {"metric_id": self.metric_id, "metric_name": self.metric_name}
        if self.metric_unit is not None:
            metric["metric_unit"] = self.metric_unit
        # Continuous, its bounds not provided (null): benchgraph records none.
        metric |= {
            "lower_is_better": self.lower_is_better,
            "score_type": "continuous",
            "min_score": None,
            "max_score": None,
            "additional_details": dict(self.metric_details),
        }
        entry["metric_config"] = metric
        score: dict[str, object] = {"score": self.score, "details": dict(self.score_details)}
        uncertainty = _uncertainty(self.uncertainty)
        if uncertainty:
            score["uncertainty"] = uncertainty
        entry["score_details"] = score
        if self.configuration:
            entry["generation_config"] = {"additional_details": dict(self.configuration)}
        return entry


@dataclass(frozen=True)
class LeftOut:
    """A result :func:`write` left out: its metric states no direction (EEE requires
    ``lower_is_better``)."""

    result: str  # the result's IRI
    metric: str  # the metric's IRI
    metric_name: str
    benchmark: str  # the benchmark's name (its IRI when it has none)
    source_format: str | None  # the format of the source it came from (sota2, pwc-tables, …)


@dataclass(frozen=True)
class Evaluation:
    """One EEE record: one method's results on one source page, as one paper reported them."""

    evaluation_id: str
    retrieved_timestamp: str
    source: Source
    model: Model
    results: tuple[Result, ...]

    def record(self) -> dict[str, object]:
        """The record as the schema's object (Decimal numbers, None as JSON null)."""
        source: dict[str, object] = {}
        if self.source.name is not None:
            source["source_name"] = self.source.name
        source |= {
            "source_type": "documentation",
            "source_organization_name": self.source.organization,
            "evaluator_relationship": self.source.relationship,
            "additional_details": dict(self.source.details),
        }
        return {
            "schema_version": SCHEMA_VERSION,
            "evaluation_id": self.evaluation_id,
            "retrieved_timestamp": self.retrieved_timestamp,
            "source_metadata": source,
            "model_info": {
                "name": self.model.name,
                "id": self.model.id,
                "additional_details": {
                    "deployment_type": "unknown",
                    "model_availability": "unknown",
                },
            },
            "eval_library": {"name": "unknown", "version": "unknown"},
            "evaluation_results": [result.entry() for result in self.results],
        }


def evaluations(store: Store) -> Iterator[Evaluation]:
    """Yield the store's results as evaluations, in the order of the results query (by source
    page, method and reporting paper, then the names the rows gave them). Raises StoreError
    when the store cannot answer."""
    answer = store.query(queries.internal("eee-results"), {"pages": ox.Literal(graphs.PAGES)})
    assert isinstance(answer, ox.QuerySolutions)
    rows = (_Row(solution) for solution in answer)
    by_result = itertools.groupby(rows, key=lambda row: row.text("result"))
    results = (list(result_rows) for _, result_rows in by_result)
    previous, repeat = "", 1
    for _, group in itertools.groupby(results, key=lambda rows: rows[0].evaluation_key):
        evaluation = list(group)
        found = _evaluation(evaluation[0][0], [_result(rows) for rows in evaluation])
        # The same page, method and paper under other names: the second is ``…/2``.
        repeat = repeat + 1 if found.evaluation_id == previous else 1
        previous = found.evaluation_id
        yield found if repeat == 1 else replace(found, evaluation_id=f"{previous}/{repeat}")


def write(store: Store, output: IO[bytes], left_out: Callable[[LeftOut], None]) -> int:
    """Write every evaluation of ``store`` to ``output`` as JSON Lines, one record a line, and
    return how many results were left out: those whose metric states no direction (EEE requires
    ``lower_is_better``), each told to ``left_out``. Raises StoreError or OSError."""
    missing = 0
    for evaluation in evaluations(store):
        kept = tuple(r for r in evaluation.results if r.lower_is_better is not None)
        for result in evaluation.results:
            if result.lower_is_better is None:
                missing += 1
                left_out(
                    LeftOut(
                        result=result.iri,
                        metric=result.metric_id,
                        metric_name=result.metric_name,
                        benchmark=result.dataset_details.get("benchmark_name")
                        or result.dataset_details["benchmark"],
                        source_format=evaluation.source.details.get("source_format"),
                    )
                )
        if kept:
            line = dumps(replace(evaluation, results=kept).record())
            output.write(line.encode("utf-8") + b"\n")
    return missing


def dumps(value: object) -> str:
    """``value`` as compact JSON, with each Decimal written as the JSON number it is (exactly:
    ``Decimal("5.0")`` as ``5.0``)."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, Mapping):
        items = (f"{json.dumps(str(k), ensure_ascii=False)}:{dumps(v)}" for k, v in value.items())
        return "{" + ",".join(items) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(dumps(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


class _Row:
    """One row of the results query, its terms read as text."""

    def __init__(self, solution: ox.QuerySolution) -> None:
        self.solution = solution
        names = ("document", "method", "paper", "methodName", "paperTitle", "paperUrl")
        self.evaluation_key = tuple(self.text(name) for name in names)

    def text(self, name: str) -> str | None:
        term = self.solution[name]
        return None if term is None else str(term.value)

    def flag(self, name: str) -> bool:
        return self.text(name) == "true"


def _evaluation(row: _Row, results: list[Result]) -> Evaluation:
    """The evaluation whose first row is ``row`` and whose results are ``results``."""
    document, method, paper = row.evaluation_key[:3]
    relationship, basis = _relationship(row)
    details = _present(
        source_document=document,
        source_document_id=row.text("documentId"),
        source_url=row.text("url"),
        source_format=row.text("format"),
        data_updated=row.text("modified"),
        ingested_at=row.text("ingested"),
        reporting_paper=paper,
        reporting_paper_id=row.text("paperId"),
        reporting_paper_title=row.text("paperTitle") or row.text("paperLabel"),
        reporting_paper_url=row.text("paperUrl") or row.text("paperPage"),
        relationship_basis=basis,
    )
    assert method is not None
    parts = (row.text("documentId") or document, _tail(method), _tail(paper) if paper else None)
    return Evaluation(
        evaluation_id="/".join(p for p in parts if p),
        retrieved_timestamp=_epoch(row.text("ingested")),
        source=Source(
            name=row.text("title"),
            organization=row.text("publisher") or row.text("format") or "unknown",
            relationship=relationship,
            details=details,
        ),
        model=Model(name=row.text("methodName") or row.text("methodLabel") or method, id=method),
        results=tuple(results),
    )


def _relationship(row: _Row) -> tuple[str, str]:
    """EEE's evaluator relationship for the row's method and reporting paper, and why."""
    if row.text("paper") is None:
        return "other", "unknown: no reporting paper is recorded"
    if row.flag("selfReported"):
        return "first_party", "the reporting paper is the method's origin paper"
    if row.flag("originKnown"):
        return "third_party", "the method's origin paper is another paper"
    if row.text("developerReported") is not None:  # what the source says (bg:developerReported)
        if row.flag("developerReported"):
            return "first_party", "the source says the model's developer reported it"
        return "third_party", "the source says another party than the model's developer did"
    return "other", "unknown: the method's origin paper is not recorded"


def _result(rows: list[_Row]) -> Result:
    """The result whose rows (one per setting of its configuration) are ``rows``."""
    row = rows[0]
    iri = row.text("result")
    metric = row.text("metric")
    benchmark = row.text("benchmark")
    assert iri is not None and metric is not None and benchmark is not None
    value, published = row.text("value"), row.text("published")
    assert value is not None
    subset = row.text("subset")
    name = row.text("benchmarkLabel") or benchmark
    direction = row.text("direction")
    unit = row.text("unit")
    return Result(
        iri=iri,
        result_id=row.text("id") or iri,
        evaluation_name=f"{name} / {subset}" if subset else name,
        dataset_name=row.text("datasetLabel") or name,
        dataset_details=_present(
            benchmark=benchmark,
            benchmark_name=row.text("benchmarkLabel"),
            task=row.text("task"),
            dataset=row.text("dataset"),
            split=row.text("split"),
        ),
        metric_id=metric,
        metric_name=row.text("metricLabel") or metric,
        metric_unit=_unit_name(unit, row.text("unitLabel")),
        lower_is_better=DIRECTIONS.get(direction) if direction else None,
        metric_details=_present(
            unit=unit,
            direction=direction,
            direction_inferred=row.text("directionInferred"),
            chance_level=row.text("chanceLevel"),
        ),
        score=_score(value, published),
        score_details=_present(
            published_value=published,
            result=iri,
            source_table=row.text("table"),
            headline=row.text("headline"),
            published_interval=row.text("interval"),
            published_cell=row.text("cell"),
            plus_minus=row.text("plusMinus"),
            plus_minus_meaning=row.text("plusMinusMeaning"),
            verified=row.text("verified"),
        ),
        uncertainty=_spread(
            row,
            Uncertainty(
                lower=_decimal(row.text("ciLower")),
                upper=_decimal(row.text("ciUpper")),
                level=_decimal(row.text("ciLevel")),
                num_samples=_integer(row.text("sampleSize")),
            ),
        ),
        evaluated_on=row.text("date"),
        configuration=_configuration(rows) if row.text("configuration") else {},
    )


def _configuration(rows: Iterable[_Row]) -> dict[str, str]:
    """The settings of the rows' configuration by key (in the published order), then what
    benchgraph records beside them under its own ``bg:`` names."""
    rows = list(rows)
    settings = {r.text("setting"): (r.text("key"), r.text("settingValue")) for r in rows}
    found: dict[str, str] = {}
    for iri in sorted((s for s in settings if s is not None), key=_ordinal):
        key, value = settings[iri]
        if key is not None and value is not None:
            found[key] = value
    first = rows[0]
    return found | _present(
        **{
            "bg:protocol": first.text("protocol"),
            "bg:subset": first.text("subset"),
            "bg:configurationJSON": first.text("json"),
            "bg:configuration": first.text("configuration"),
        }
    )


def _spread(row: _Row, found: Uncertainty) -> Uncertainty:
    """``found`` with the published ± as the deviation or error its source says it is."""
    half, meaning = _decimal(row.text("plusMinus")), row.text("plusMinusMeaning")
    if meaning == "standard deviation":
        return replace(found, standard_deviation=half)
    if meaning == "standard error":
        return replace(found, standard_error=half)
    return found


def _uncertainty(u: Uncertainty) -> dict[str, object]:
    """The schema's ``uncertainty`` object (empty when nothing is known)."""
    found: dict[str, object] = {}
    if u.lower is not None and u.upper is not None:
        interval: dict[str, object] = {"lower": u.lower, "upper": u.upper}
        if u.level is not None:
            interval["confidence_level"] = u.level
        found["confidence_interval"] = interval
    if u.standard_error is not None:
        found["standard_error"] = {"value": u.standard_error}
    if u.standard_deviation is not None:
        found["standard_deviation"] = u.standard_deviation
    if u.num_samples is not None:
        found["num_samples"] = u.num_samples
    return found


def _score(value: str, published: str | None) -> Decimal:
    """The number as published when it reads as the same decimal, else the stored decimal."""
    exact = Decimal(value)
    as_published = _decimal(published)
    return as_published if as_published is not None and as_published == exact else exact


def _decimal(text: str | None) -> Decimal | None:
    """``text`` as a finite decimal, or None."""
    if text is None:
        return None
    try:
        number = Decimal(text.strip())
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def _integer(text: str | None) -> int | None:
    number = _decimal(text)
    return int(number) if number is not None and number == number.to_integral_value() else None


def _unit_name(unit: str | None, label: str | None) -> str | None:
    """EEE's ``metric_unit`` for the QUDT (or unmapped) unit ``unit`` labelled ``label``."""
    if unit is None or unit == V.NoUnitStated:
        return None
    if unit in UNIT_NAMES:
        return UNIT_NAMES[unit]
    if unit.startswith(V.UNIT):
        return unit.removeprefix(V.UNIT)
    return label or unit


def _epoch(moment: str | None) -> str:
    """An xsd:dateTime as Unix epoch seconds (EEE's ``retrieved_timestamp``)."""
    if moment is None:
        return "unknown"
    seconds = Decimal(str(datetime.fromisoformat(moment).timestamp()))
    whole = seconds.to_integral_value()
    return str(whole) if seconds == whole else str(seconds)


def _tail(iri: str) -> str:
    """The last segment of a benchgraph IRI (a method's or paper's key)."""
    return iri.rstrip("/").rsplit("/", 1)[-1]


def _ordinal(iri: str) -> tuple[int, str]:
    """Sort key of a setting IRI: its trailing number (the published position), then the IRI."""
    tail = _tail(iri)
    return (int(tail) if tail.isdigit() else 1 << 30, iri)


def _present(**values: str | None) -> dict[str, str]:
    """The values that are there."""
    return {key: value for key, value in values.items() if value is not None}
