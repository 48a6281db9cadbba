"""The provenance audit a curator runs: per source page and overall.

Every figure comes from a named query (``queries/audit-*.rq``), so the same answers are
available over SPARQL and the REST API; this module only runs them, joins their rows by source
page and adds up the overall figures.
"""

from __future__ import annotations

import html
import json
from dataclasses import asdict, dataclass, field
from datetime import date, timedelta

import pyoxigraph as ox

from benchgraph import queries, summaries
from benchgraph.store import Store

# What each section of the audit is, and the named query that answers it.
SECTIONS = {
    "sources": "audit-sources",
    "selfReported": "audit-self-reported",
    "methodsWithoutOrigin": "audit-methods-without-origin",
    "resultsWithoutConfiguration": "audit-results-without-configuration",
    "partialCoverage": "audit-partial-coverage",
    "staleSources": "audit-stale-sources",
    "validation": "audit-validation",
    "disagreements": "claims",
}
NOT_REPRODUCTION = (
    "a result reported by another paper than the method's origin is NOT an independent "
    "reproduction: that paper may reuse the origin's code, checkpoints or numbers"
)


@dataclass
class SourceAudit:
    """The audit of one source page."""

    source: str
    page: str
    title: str | None = None
    format: str | None = None
    url: str | None = None
    publisher: str | None = None
    modified: str | None = None
    ingested: str | None = None
    declared: int | None = None
    total: int | None = None
    results: int = 0
    self_reported: int = 0
    self_reported_methods: list[str] = field(default_factory=list)
    reported_by_another_paper: int = 0
    origin_unknown: int = 0
    methods_without_origin: list[str] = field(default_factory=list)
    without_configuration: int = 0
    partial: bool = False
    coverage: str | None = None
    stale: bool = False
    validated: str | None = None
    violations: int = 0
    warnings: int = 0
    infos: int = 0
    disagreeing: int = 0  # its values that disagree with their claim's headline


@dataclass
class Audit:
    """The audit of a store: its source pages and the date before which data is stale."""

    as_of: date
    stale_days: int
    sources: list[SourceAudit]
    methods_without_origin: int  # distinct methods over all pages
    disagreements: int = 0  # claims whose sources disagree (as queries/disagreements.rq)

    @property
    def cutoff(self) -> date:
        return self.as_of - timedelta(days=self.stale_days)

    def overall(self) -> dict[str, int]:
        s = self.sources
        return {
            "sources": len(s),
            "results": sum(a.results for a in s),
            "selfReported": sum(a.self_reported for a in s),
            "reportedByAnotherPaper": sum(a.reported_by_another_paper for a in s),
            "originUnknown": sum(a.origin_unknown for a in s),
            "methodsWithoutOrigin": self.methods_without_origin,
            "resultsWithoutConfiguration": sum(a.without_configuration for a in s),
            "partialCoverage": sum(1 for a in s if a.partial),
            "staleSources": sum(1 for a in s if a.stale),
            "notValidated": sum(1 for a in s if a.validated is None),
            "violations": sum(a.violations for a in s),
            "warnings": sum(a.warnings for a in s),
            "infos": sum(a.infos for a in s),
            "disagreements": self.disagreements,
        }

    def as_json(self) -> str:
        document = {
            "asOf": self.as_of.isoformat(),
            "staleDays": self.stale_days,
            "staleBefore": self.cutoff.isoformat(),
            "note": NOT_REPRODUCTION,
            "queries": SECTIONS,
            "overall": self.overall(),
            "sources": [_camel(asdict(a)) for a in self.sources],
        }
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"

    def text(self) -> str:
        o = self.overall()
        lines = [
            f"Provenance audit: {o['sources']} source pages, {o['results']} results "
            f"(stale: data updated before {self.cutoff}, {self.stale_days} days before "
            f"{self.as_of})",
            "",
            "Overall",
        ]
        lines += [f"  {label:<54} {o[key]:>6}" for key, label in _OVERALL_LABELS]
        lines += [f"  Note: {NOT_REPRODUCTION}."]
        for a in self.sources:
            lines += ["", f"{a.page} — {a.title or 'untitled'}", *_source_lines(a)]
        return "\n".join(lines) + "\n"

    def html(self) -> str:
        o = self.overall()
        e = html.escape
        overall = "".join(
            f"<tr><th>{e(label)}</th><td>{o[key]}</td></tr>" for key, label in _OVERALL_LABELS
        )
        head = "".join(f"<th>{e(h)}</th>" for h, _ in _TABLE)
        rows = "".join(
            "<tr>" + "".join(f"<td>{e(str(cell(a)))}</td>" for _, cell in _TABLE) + "</tr>"
            for a in self.sources
        )
        return (
            "<!doctype html>\n<html lang=en><head><meta charset=utf-8>"
            "<title>benchgraph provenance audit</title>"
            "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
            "td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}"
            "</style></head><body>\n"
            f"<h1>Provenance audit</h1>\n<p>{o['sources']} source pages, {o['results']} results. "
            f"Stale: data updated before {self.cutoff} ({self.stale_days} days before "
            f"{self.as_of}).</p>\n"
            f"<h2>Overall</h2>\n<table>{overall}</table>\n"
            f"<p><strong>Note:</strong> {e(NOT_REPRODUCTION)}.</p>\n"
            f"<h2>Per source page</h2>\n<table><tr>{head}</tr>{rows}</table>\n"
            "</body></html>\n"
        )


_OVERALL_LABELS = (
    ("results", "results"),
    ("selfReported", "self-reported (reporting paper = method's origin paper)"),
    ("reportedByAnotherPaper", "reported by another paper than the method's origin"),
    ("originUnknown", "for a method whose origin paper is unknown"),
    ("methodsWithoutOrigin", "methods without an origin paper"),
    ("resultsWithoutConfiguration", "results without a recorded configuration"),
    ("partialCoverage", "pages with partial coverage"),
    ("staleSources", "stale pages"),
    ("notValidated", "pages with no stored validation report"),
    ("violations", "violations"),
    ("warnings", "warnings"),
    ("infos", "infos"),
    ("disagreements", "claims whose sources disagree (query disagreements)"),
)

_TABLE = (
    ("page", lambda a: a.page),
    ("format", lambda a: a.format or ""),
    ("URL or publisher", lambda a: a.url or a.publisher or ""),
    ("data updated", lambda a: a.modified or ""),
    ("stale", lambda a: "yes" if a.stale else "no"),
    ("results", lambda a: a.results),
    ("self-reported", lambda a: _with_names(a.self_reported, a.self_reported_methods)),
    ("reported by another paper (not reproduction)", lambda a: a.reported_by_another_paper),
    ("origin unknown", lambda a: a.origin_unknown),
    ("methods without origin", lambda a: ", ".join(a.methods_without_origin)),
    ("without configuration", lambda a: a.without_configuration),
    ("coverage", lambda a: _coverage(a)),
    ("violations", lambda a: a.violations),
    ("warnings", lambda a: a.warnings),
    ("infos", lambda a: a.infos),
    ("disagreeing with their claim's headline", lambda a: a.disagreeing),
)


def _with_names(count: int, names: list[str]) -> str:
    return f"{count} ({', '.join(names)})" if names else str(count)


def _coverage(a: SourceAudit) -> str:
    if a.partial:
        return f"partial: {a.declared} of {a.total}" + (f" ({a.coverage})" if a.coverage else "")
    return "complete"


def _source_lines(a: SourceAudit) -> list[str]:
    where = f"URL {a.url}" if a.url else f"publisher {a.publisher or 'unknown'}"
    methods = ", ".join(a.methods_without_origin) or "none"
    validated = f"validated {a.validated}" if a.validated else "no stored validation report"
    return [
        f"  {a.format or 'unknown format'}; {where}",
        f"  data updated {a.modified or 'unknown'}{' — STALE' if a.stale else ''}; "
        f"ingested {a.ingested or 'unknown'}",
        f"  results: {a.results} ({a.declared} declared)",
        f"  self-reported: {_with_names(a.self_reported, a.self_reported_methods)}; "
        f"reported by another paper (not independent reproduction): "
        f"{a.reported_by_another_paper}; origin unknown: {a.origin_unknown}",
        f"  methods without an origin paper ({len(a.methods_without_origin)}): {methods}",
        f"  results without a recorded configuration: {a.without_configuration}",
        f"  coverage: {_coverage(a)}",
        f"  validation: {a.violations} violations, {a.warnings} warnings, {a.infos} infos "
        f"({validated})",
        f"  values that disagree with their claim's headline: {a.disagreeing}",
    ]


def _camel(record: dict[str, object]) -> dict[str, object]:
    def camel(name: str) -> str:
        head, *rest = name.split("_")
        return head + "".join(part.title() for part in rest)

    return {camel(k): v for k, v in record.items()}


def _rows(store: Store, name: str, values: dict[str, str] | None = None) -> list[dict[str, str]]:
    named = queries.find(name)
    answer = store.query(named.text, named.bind(values or {}))
    if not isinstance(answer, ox.QuerySolutions):
        raise queries.QueryError(f"{named.path}: an audit section must be a SELECT query")
    columns = [v.value for v in answer.variables]
    return [{c: row[c].value for c in columns if row[c] is not None} for row in answer]


def _source(sources: dict[str, SourceAudit], iri: str) -> SourceAudit:
    """The audit of the page ``iri``; a page that only results point to is added bare."""
    if iri not in sources:
        sources[iri] = SourceAudit(source=iri, page=iri)
    return sources[iri]


def _int(value: str | None) -> int | None:
    return None if value is None else int(value)


def run_audit(store: Store, stale_days: int, as_of: date | None = None) -> Audit:
    """Run every audit section over ``store``; a page is stale when its data was updated more
    than ``stale_days`` days before ``as_of`` (default today). Raises QueryError, and
    MissingRecords (a StoreError) when a current version has no audit summary: the audit
    would count none of its results."""
    summaries.KEPT.require(store)
    as_of = as_of or date.today()
    sources: dict[str, SourceAudit] = {}
    for row in _rows(store, SECTIONS["sources"]):
        sources[row["source"]] = SourceAudit(
            source=row["source"],
            page=row.get("page", row["source"]),
            title=row.get("title"),
            format=row.get("format"),
            url=row.get("url"),
            publisher=row.get("publisher"),
            modified=row.get("modified"),
            ingested=row.get("ingested"),
            declared=_int(row.get("declared")),
            total=_int(row.get("total")),
        )
    for row in _rows(store, SECTIONS["selfReported"]):
        a = _source(sources, row["source"])
        a.results = int(row["results"])
        a.self_reported = int(row["selfReported"])
        a.self_reported_methods = sorted(
            filter(None, row.get("selfReportedMethods", "").split("; "))
        )
        a.reported_by_another_paper = int(row["reportedByAnotherPaper"])
        a.origin_unknown = int(row["originUnknown"])
    methods = set()
    for row in _rows(store, SECTIONS["methodsWithoutOrigin"]):
        methods.add(row["method"])
        _source(sources, row["source"]).methods_without_origin.append(
            row.get("label", row["method"])
        )
    for row in _rows(store, SECTIONS["resultsWithoutConfiguration"]):
        _source(sources, row["source"]).without_configuration = int(row["withoutConfiguration"])
    for row in _rows(store, SECTIONS["partialCoverage"]):
        _source(sources, row["source"]).partial = True
        _source(sources, row["source"]).coverage = row.get("coverage")
    stale = {"days": str(stale_days), "asOf": as_of.isoformat()}
    for row in _rows(store, SECTIONS["staleSources"], stale):
        _source(sources, row["source"]).stale = True
    for row in _rows(store, SECTIONS["validation"]):
        a = _source(sources, row["source"])
        a.validated = row.get("validated")
        a.violations, a.warnings, a.infos = (
            int(row[k]) for k in ("violations", "warnings", "infos")
        )
    contested = set()
    for row in _rows(store, SECTIONS["disagreements"]):
        # a claim with values from several pages, one of which disagrees or was rescaled
        if int(row["sources"]) > 1 and (row["agrees"] == "false" or row.get("scale")):
            contested.add(row["claim"])
            if row["agrees"] == "false":
                _source(sources, row["source"]).disagreeing += 1
    ordered = sorted(sources.values(), key=lambda a: (a.page, a.source))
    return Audit(as_of, stale_days, ordered, len(methods), len(contested))
