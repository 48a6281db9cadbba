"""The browsable site: server-rendered HTML pages over the graph, no script.

- ``/site``: what is loaded, a search box, the source pages, links to the query page and dumps.
- ``/search?q=``: resources whose label contains the text (case-insensitive, at most 100).
- ``/query?query=``: a SPARQL form; the query runs through the same checks as ``/sparql``.
- ``/page/<path>``: the resource ``https://w3id.org/benchgraph/id/<path>``, drawn by its kind
  (paper, method, benchmark with a chart per cohort, result with its provenance, source page,
  task or dataset with its benchmarks and their results; anything else as a table of its
  statements). Unknown resources are 404. A benchmark's page also lists the versions of its
  source pages and its latest changes (linking the changes feed), and with ``asOf`` (a date
  or date-time) draws its leaderboards as the versions current then give them.

The pages' SPARQL lives in ``queries/site/*.rq``; the resource is written into it as one RDF
term (:func:`benchgraph.sparqltext.substitute`), never as text. Answers are cached per store
generation, and so is each page once drawn (:func:`drawn_once`): a page asked again in the same
generation is sent from the answer cache, without a query or a template. Values are shown as
published (``bg:publishedValue``).
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from collections.abc import Callable
from urllib.parse import quote

import pyoxigraph as ox
from flask import Blueprint, Response, redirect, render_template, request, url_for
from markupsafe import Markup
from werkzeug.wrappers import Response as WerkzeugResponse

from benchgraph import asof, graphs, iris, media, prefixes
from benchgraph import vocab as V
from benchgraph.queries import QueryError
from server import charts, claims_pages, editor, ranks, sparql
from server.answers import table
from server.backend import current
from server.engine import Answered
from server.errors import ApiError
from server.site_queries import named as _named
from server.site_queries import select
from server.workers import TimedOut

blueprint = Blueprint("site", __name__, template_folder="templates")

Row = dict[str, str]
SH = "http://www.w3.org/ns/shacl#"
UNITS = {"PERCENT": "percent (%)", "UNITLESS": "unitless", "SEC": "seconds", "MilliSEC": "ms"}
KINDS = {
    V.Paper: "paper",
    V.ModelCard: "paper",  # what reported results: shown as a paper is
    V.ReportingDocument: "paper",
    V.Method: "method",
    V.Benchmark: "benchmark",
    V.Result: "result",
    V.SourceDocument: "source",
    V.Task: "task",
    V.Dataset: "dataset",
    V.Claim: "claim",  # drawn by server.claims_pages
    V.Metric: "metric",
}
# What each kind of reporting source is called on its page.
REPORTERS = {V.Paper: "paper", V.ModelCard: "model card", V.ReportingDocument: "document"}
# The most changes a benchmark's page lists (the feed has them all).
LATEST_CHANGES = 20
# The property that ties a benchmark to a task or dataset, by the kind of that page.
SCOPES = {"task": V.task, "dataset": V.dataset}


@blueprint.app_template_filter("page_url")
def page_url(iri: str) -> str:
    """The site page of a benchgraph IRI, the vocabulary's page for a term of its own; any other
    IRI as it is."""
    if iri.startswith(V.ID):
        return url_for("site.page", path="x").removesuffix("x") + iri[len(V.ID) :]
    if iri.startswith(V.BG):
        return url_for("vocabulary.namespace") + "#" + iri[len(V.BG) :]
    return iri


@blueprint.app_template_filter("unit_name")
def unit_name(iri: str) -> str:
    """A QUDT unit IRI as a reader names it (a result file's unit not stated, as such)."""
    if iri == V.NoUnitStated:
        return "no unit stated"
    local = iri.rsplit("/", 1)[-1]
    return UNITS.get(local, local)


@blueprint.app_template_filter("local")
def local_name(iri: str) -> str:
    """The last part of an IRI."""
    return iri.rstrip("/").rsplit("/", 1)[-1].rsplit("#", 1)[-1]


def _props(rows: list[Row]) -> dict[str, list[Row]]:
    found: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        found[row["property"]].append(row)
    return found


def _first(props: dict[str, list[Row]], prop: str) -> str:
    return props[prop][0]["value"] if props.get(prop) else ""


def _direction(iri: str) -> str:
    return "lower" if iri == V.LowerIsBetter else "higher"


def _details(benchmark: ox.NamedNode, past: asof.Past | None) -> dict[str, Row]:
    """Per result on ``benchmark``: its interval, paper label and settings (``setting:<key>``),
    now or as ``past`` reads them."""
    found: dict[str, Row] = {}
    for row in select("board", past, benchmark=benchmark):
        mine = found.setdefault(row["result"], {})
        mine.update({k: v for k, v in row.items() if k not in ("key", "value")})
        if "key" in row:
            mine["setting:" + row["key"]] = row.get("value", "")
    return found


def _cohort_table(members: list[Row]) -> list[tuple[str, str]]:
    """The columns (key, heading) a cohort's table draws: the settings that vary within the
    cohort (they tell its rows apart), and no column that is empty on every row."""
    keys = dict.fromkeys(k for row in members for k in row if k.startswith("setting:"))
    varying = [k for k in keys if len({row.get(k, "") for row in members}) > 1]
    columns = [("rank", "Rank"), ("method", "Method"), *((k, k[8:]) for k in varying)]
    columns += [
        ("value", "Value"),
        ("ciLower", "Confidence interval"),
        ("derivedCiLower", "Derived interval"),
        ("sampleSize", "Sample size"),
        ("claimSources", "Sources"),  # how many pages give the row's claim a value
    ]
    columns += [("paper", "Reported in"), ("result", "Result")]
    return [(k, name) for k, name in columns if any(row.get(k) for row in members)]


def _bar_label(row: Row, columns: list[tuple[str, str]]) -> str:
    """The method's label, with the settings that tell it apart within its cohort."""
    settings = [f"{name}={row.get(k, '')}" for k, name in columns if k.startswith("setting:")]
    return f"{row['methodLabel']} ({', '.join(settings)})" if settings else row["methodLabel"]


def _leaderboards(
    benchmark: ox.NamedNode, as_of: str = ""
) -> tuple[list[dict[str, object]], list[tuple[str, str]], list[str]]:
    """Per metric with results: its cohorts, each with its rows, its columns, its chart and
    (where every result has an interval) the rule of the ranks the intervals allow. And for the
    compare form: the methods of the rows as (IRI, label), by label, and the two it starts with,
    the first two of the first cohort with two (of the primary metric: a comparable pair).
    With ``as_of`` (a moment, as ``leaderboard`` takes it), all of it as of then. A board whose
    query outlives the server's time limit has no cohorts and ``late`` (the limit in seconds):
    the page says so, and the other boards still show."""
    methods: dict[str, str] = {}
    pair: list[str] = []
    past = asof.Past("as-of", (as_of,), benchmark.value) if as_of else None
    details = _details(benchmark, past)
    boards: list[dict[str, object]] = []
    for metric in select("metrics", past, benchmark=benchmark):
        if metric.get("results", "0") == "0":
            continue
        moment = {"asOf": as_of} if as_of else {}
        direction = _direction(metric.get("direction", ""))
        try:
            rows = _named(
                "leaderboard", benchmark=benchmark.value, metric=metric["metric"], **moment
            )
        except TimedOut:
            late = current().pool.time_limit
            boards.append({"metric": metric, "direction": direction, "cohorts": [], "late": late})
            continue
        cohorts: dict[str, list[Row]] = {}
        for row in rows:
            methods[row["method"]] = row.get("methodLabel", "")
            cohorts.setdefault(row["cohort"], []).append({**details.get(row["result"], {}), **row})
        unit = unit_name(metric.get("unit", ""))
        drawn = []
        for name, members in cohorts.items():
            columns = _cohort_table(members)
            if not pair:
                pair = list(dict.fromkeys(r["method"] for r in members))[:2]
                pair = pair if len(pair) == 2 else []
            said = ranks.cohort_ranks(members, direction)
            rule, overlapping, legend = said.rule, said.overlapping, said.legend
            rank_kind = ranks.kind(members)
            for row in members:
                row["rankKind"] = rank_kind
                row["derivedLabel"] = ranks.derived_label(row)
            bars = [
                charts.Bar(
                    _bar_label(r, columns),
                    float(r["value"]),
                    r["value"],
                    float(r["ciLower"]) if "ciLower" in r else None,
                    float(r["ciUpper"]) if "ciUpper" in r else None,
                    overlaps=r["result"] in overlapping,
                )
                for r in members
            ]
            title = f"{metric['metricLabel']} ({unit}), {name}"
            axis = f"{metric['metricLabel']} ({unit})"
            svg = charts.bar_chart(bars, axis, direction, title, legend)
            drawn.append(
                {
                    "name": name,
                    "rows": members,
                    "columns": columns,
                    "svg": Markup(f'<div class="wide">{svg}</div>'),
                    "rule": rule,
                    "point": rank_kind == ranks.POINT,
                }
            )
        boards.append({"metric": metric, "direction": direction, "cohorts": drawn})
    return boards, sorted(methods.items(), key=lambda item: (item[1].casefold(), item[0])), pair


def _findings(source: str) -> tuple[dict[str, str], list[Row]]:
    """The stored report about ``source`` (time, counts by severity) and its findings."""
    rows = select("findings", source=ox.NamedNode(source))
    counts = {"Violation": 0, "Warning": 0, "Info": 0}
    for row in rows:
        if "severity" in row:
            counts[local_name(row["severity"])] = counts.get(local_name(row["severity"]), 0) + 1
    report = {
        "report": rows[0]["report"] if rows else "",
        "time": rows[0].get("time", "") if rows else "",
        **{k: str(v) for k, v in counts.items()},
    }
    return report, [r for r in rows if "finding" in r]


def _render(template: str, title: str, **context: object) -> Response:
    return _html(render_template(f"site/{template}.html", title=title, **context))


def _html(text: str | bytes) -> Response:
    response = Response(text, content_type=media.BY_KEY["html"].content_type)
    response.headers["Vary"] = "Accept"
    return response


def drawn_once(
    view: Callable[..., Response | WerkzeugResponse],
) -> Callable[..., Response | WerkzeugResponse]:
    """``view``, its page kept in the answer cache for the store generation it was drawn in,
    under the request's path and parameters, and sent from there when asked again. Only a whole
    page is kept: an error (raised as ApiError), a redirect, or a page marked ``no-store`` (a
    board left out past the time limit) is not."""

    @functools.wraps(view)
    def cached(**arguments: str) -> Response | WerkzeugResponse:
        backend = current()
        backend.pool.start()
        shown = tuple(sorted(request.args.items(multi=True)))
        key = (backend.pool.generation.tag, ("html", request.path, shown))
        kept = backend.cache.get(key)
        if kept is not None:
            return _html(kept.body)
        response = view(**arguments)
        if response.status_code == 200 and "no-store" not in response.headers.get(
            "Cache-Control", ""
        ):
            body = response.get_data()
            backend.cache.put(key, Answered("solutions", "html", body, 0, False))
        return response

    return cached


@blueprint.get("/site")
@drawn_once
def home() -> Response:
    """What is loaded, a search box and where to go next."""
    counts = select("home")
    return _render(
        "home",
        "Browse benchgraph",
        counts=counts[0] if counts else {},
        sources=select("sources"),
    )


@blueprint.get("/search")
@drawn_once
def search() -> Response:
    """Resources whose label contains ``q``, and the paper whose ID or arXiv ID it is."""
    text = request.args.get("q", "").strip()
    if len(text) > 200:
        raise ApiError(400, "the search text is longer than 200 characters")
    key = re.sub(r"^arxiv:\s*", "", text.lower())  # a paper ID or arXiv ID, as stored
    found = select("search", q=ox.Literal(text), key=ox.Literal(key)) if text else []
    return _render("search", "Search", q=text, found=found, kinds=KINDS)


@blueprint.get("/query")
def query() -> Response:
    """A SPARQL form, with the SPARQL editor over it when installed (:mod:`server.editor`);
    with ``query``, its answer as a table under it (a refused query: for a browser, 400 said
    above the form holding it, without the examples; for others, the error in its shape);
    with ``example``, the form holding that named query's text, to edit before it runs (it
    needs a parameter)."""
    backend = current()
    text = request.args.get("query", "")
    example = request.args.get("example", "")
    edited = ""
    if example and not text:
        if example not in backend.catalogue:
            raise ApiError(404, f"there is no named query {example!r}; /queries lists them")
        edited = backend.catalogue[example].text
    names: list[str] = []
    rows: list[list[dict[str, str]]] = []
    answer = None
    graph_text = ""
    refused = None
    if text.strip():
        params = sparql.Protocol(query=text)
        try:
            answer = sparql.evaluate(backend, params, media.BY_KEY["html"], media.BY_KEY["turtle"])
        except ApiError as error:
            if error.status != 400 or not media.prefers_html(request.accept_mimetypes):
                raise
            refused = error  # said above the form, which keeps the query
        else:
            if answer.kind == "triples":
                graph_text = answer.body.decode("utf-8")
            else:
                names, rows = table(answer)
    # An error page says nothing but the error: the examples (whose comments name the server's
    # files) are left to the page without one.
    examples = {} if refused else backend.catalogue
    response = _render(
        "query",
        "Query",
        query=text or edited,
        names=names,
        rows=rows,
        answer=answer,
        graph_text=graph_text,
        refused=refused,
        examples=list(examples.values()),
        prefixes=prefixes.PREDECLARED,
        editor=editor.page(backend.base_url() + "sparql", examples),
    )
    if refused is not None:
        response.status_code = refused.status
    return response


@blueprint.get("/page/<path:path>")
@drawn_once
def page(path: str) -> Response | WerkzeugResponse:
    """The page of the resource ``https://w3id.org/benchgraph/id/<path>``; for the name of a
    page's graph (its statements, its validation report, a kept version), its source page."""
    iri = V.ID + quote(path, safe="/-")
    if path.startswith("claim/"):
        title, found = claims_pages.claim(iri)
        return _render("claim", title, iri=iri, kind="claim", **found)
    key = graphs.source_key(iri)
    if key is not None:
        findings = "#validation" if iri.startswith(graphs.REPORTS) else ""
        return redirect(page_url(iris.source(key)) + findings, 303)
    node = ox.NamedNode(iri)
    props = _props(select("properties", resource=node) or select("kept", resource=node))
    if not props:
        raise ApiError(404, f"there is no resource <{iri}> in this store")
    types = [r["value"] for r in props.get(V.type_, [])]
    kind = next((KINDS[t] for t in types if t in KINDS), "resource")
    label = _first(props, V.label) or _first(props, V.title) or _first(props, V.identifier)
    context: dict[str, object] = {"iri": iri, "props": props, "types": types, "kind": kind}
    incomplete = False  # a board left out past the time limit (a benchmark's page)
    if kind == "paper":
        referrers = select("referrers", resource=node)
        context["introduced"] = [r for r in referrers if r["property"] == V.introducedIn]
        context["results"] = select("results", role=ox.NamedNode(V.reportedIn), resource=node)
        reporter = next((REPORTERS[t] for t in types if t in REPORTERS), "paper")
        context["reporter"] = reporter
        # a card's and a document's titles name what they are ("Seraph-7B model card")
        title = f"Paper {label}" if reporter == "paper" else (label or iri)
    elif kind == "method":
        origins = props.get(V.introducedIn, [])
        context["origins"] = origins
        context["implementations"] = [r["value"] for r in props.get(V.implementation, [])]
        context["results"] = select("results", role=ox.NamedNode(V.method), resource=node)
        context.update(claims_pages.for_method(iri))
        title = f"Method {label}"
    elif kind == "benchmark":
        metrics = select("metrics", benchmark=node)
        context["metrics"] = [m for m in metrics if m.get("results", "0") != "0"]
        context["unused_metrics"] = [m for m in metrics if m.get("results", "0") == "0"]
        as_of = _as_of(iri)
        context["as_of"] = as_of
        boards, context["methods"], context["pair"] = _leaderboards(node, as_of)
        context["boards"] = boards
        incomplete = any(board.get("late") for board in boards)
        context["sources"] = [
            r for r in select("referrers", resource=node) if r["property"] == V.DCTERMS + "subject"
        ]
        context["partial"] = select("coverage", benchmark=node)  # pages that hold only part
        context.update(_history(node))
        context.update(claims_pages.for_benchmark(iri))
        title = f"Benchmark {label}"
    elif kind == "result":
        context.update(_provenance(iri, props))
        context.update(claims_pages.for_result(iri, _first(props, V.benchmark)))
        title = f"Result {label}"
    elif kind == "source":
        counts = select("counts", source=node)
        context["counts"] = counts[0] if counts else {}
        context["report"], context["findings"] = _findings(iri)
        context["results"] = select("results", role=ox.NamedNode(V.wasDerivedFrom), resource=node)
        title = f"Source page {label}"
    elif kind == "metric":
        referrers = select("referrers", resource=node)
        context["benchmarks"] = [r for r in referrers if r["property"] == V.hasMetric]
        context["results"] = select("results", role=ox.NamedNode(V.metric), resource=node)
        direction = _first(props, V.direction)
        context["direction"] = _direction(direction) if direction else ""
        context["inferred"] = _first(props, V.directionInferred) == "true"
        context["unit"], context["chance"] = _first(props, V.unit), _first(props, V.chanceLevel)
        title = f"Metric {label}"
    elif kind in SCOPES:
        role = ox.NamedNode(SCOPES[kind])
        benchmarks = select("benchmarks", role=role, resource=node)
        context["benchmarks"] = benchmarks
        context["total"] = sum(int(b["results"]) for b in benchmarks)
        title = f"{kind.capitalize()} {label}"
    else:
        title = label or iri
    response = _render("scope" if kind in SCOPES else kind, title, **context)
    if incomplete:
        # Not the page this generation gives: no tag to revalidate it by, and kept nowhere.
        response.headers["Cache-Control"] = "no-store"
    return response


def _as_of(benchmark: str) -> str:
    """The request's ``asOf`` (a date or date-time), checked as ``leaderboard`` checks it;
    "" when not given. Raises ApiError (400) naming it when it is no moment."""
    text = request.args.get("asOf", "").strip()
    if not text:
        return ""
    try:
        bound = current().catalogue["leaderboard"].bind({"benchmark": benchmark, "asOf": text})
    except QueryError as error:
        raise ApiError(400, str(error), parameter=error.parameter) from None
    return str(bound["asOf"].value)


def _history(benchmark: ox.NamedNode) -> dict[str, object]:
    """The versions of the benchmark's source pages, newest first; its latest changes, since
    the data-updated time of the version before the latest (at most ``LATEST_CHANGES``), and
    that time ("" when there is one version or none)."""
    versions = select(
        "versions",
        benchmark=benchmark,
        versions=ox.NamedNode(graphs.VERSIONS),
        pages=ox.Literal(graphs.PAGES),
    )
    times = list(dict.fromkeys(v.get("modified") or v["ingested"] for v in versions))
    since = times[1] if len(times) > 1 else ""
    changes = _named("changes", since=since, benchmark=benchmark.value) if since else []
    return {"versions": versions, "since": since, "changes": changes[:LATEST_CHANGES]}


def _provenance(iri: str, props: dict[str, list[Row]]) -> dict[str, object]:
    """The chain behind a result: metric, method and its origin, configuration, source page."""

    def of(prop: str) -> dict[str, list[Row]]:
        value = _first(props, prop)
        return _props(select("properties", resource=ox.NamedNode(value))) if value else {}

    metric, method, source, config = (
        of(V.metric),
        of(V.method),
        of(V.wasDerivedFrom),
        of(V.configuration),
    )
    settings = []
    if _first(props, V.configuration):
        settings = select("settings", configuration=ox.NamedNode(_first(props, V.configuration)))
    report: dict[str, str] = {}
    mine: list[Row] = []
    if _first(props, V.wasDerivedFrom):
        report, findings = _findings(_first(props, V.wasDerivedFrom))
        mine = [f for f in findings if f.get("focus") == iri]
    return {
        "metric": metric,
        "method": method,
        "source": source,
        "config": config,
        "settings": settings,
        "report": report,
        "own_findings": mine,
        "first": _first,
        "derived_method": ranks.method_names(_first(props, V.intervalMethod)),
    }
