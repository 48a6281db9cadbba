"""The report of a benchmark run: the machine it ran on, the tables of BENCHMARKS.md, one verdict
per target, and the same numbers as JSON beside it."""

from __future__ import annotations

import json
import math
import os
import platform
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from bench.archive_report import archive_section
from bench.remote_report import remote_section
from bench.servers import PARAM

SEED = 1
DISCUSSION = "## Discussion"
# Named-query targets at 10,000 pages: uncached p50 in ms.
P50_TARGETS_MS = {
    "leaderboard": 100.0,
    "results-reported-by-paper": 30.0,
    "methods-reported-by-paper": 10.0,
    "audit-self-reported": 1000.0,
}
PACKAGES = ("pyoxigraph", "oxigraph", "rdflib", "pyshacl", "flask", "waitress")


def machine() -> dict[str, Any]:
    memory = 0
    with open("/proc/meminfo", encoding="utf-8") as meminfo:
        for line in meminfo:
            if line.startswith("MemTotal:"):
                memory = int(line.split()[1]) * 1024
    versions = {}
    for package in PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "not installed"
    cpu = ""
    with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return {
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "memory_gb": round(memory / 2**30, 1),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "packages": versions,
    }


def f(value: float, digits: int = 2) -> str:
    """A number, or a dash where none was measured (every request of a series failed)."""
    return "—" if math.isnan(value) else f"{value:,.{digits}f}"


def percentiles(series: dict[str, Any]) -> str:
    """p50 / p95 / p99 of a latency series, or why there are none."""
    if not series["requests"]:
        return f"none answered ({series.get('errors', 0)} errors)"
    return f"{f(series['p50_ms'])} / {f(series['p95_ms'])} / {f(series['p99_ms'])}"


def mmm(s: dict[str, float], digits: int = 2) -> str:
    return f"{f(s['min'], digits)} / **{f(s['median'], digits)}** / {f(s['max'], digits)}"


def qps(s: dict[str, float] | None) -> str:
    return "not measured (slow)" if s is None else mmm(s, 0)


def one_client(row: dict[str, Any]) -> str:
    """The one-client throughputs of a query row, benchgraph / oxigraph (ratio)."""
    if "throughput_1_qps" not in row["benchgraph"]:
        return "not recorded"
    mine, theirs = row["benchgraph"]["throughput_1_qps"], row["oxigraph"]["throughput_1_qps"]
    text = " / ".join("slow" if t is None else f"{t['median']:,.0f}" for t in (mine, theirs))
    return f"{text} ({ratio(row['ratio_throughput_1'])})"


def yes_no(same: bool | None) -> str:
    """Whether two servers gave the same rows: n/a when no request was answered by both."""
    return "n/a" if same is None else ("yes" if same else "NO")


def ratio(value: float | None) -> str:
    return "—" if value is None or math.isnan(value) else f"{f(value)}×"


def size_line(size: dict[str, Any], date: str) -> str:
    """One size's line under Machine: when, how loaded, and how its queries were measured."""
    ingest = size["ingest"] or {}
    q = size.get("query_settings", {})
    dates = size.get("dates", {})
    when = size.get("date", date)
    if len(set(dates.values())) > 1:  # parts measured by different runs
        when = f"{dates['ingest']} (ingest) and {dates['queries']} (queries)"
    line = (
        f"- {size['pages']} pages: measured from {when}, load average after "
        f"its ingest {ingest.get('load_average', 'not recorded')} (the benchmark's own "
        "processes count in it)"
    )
    if size["queries"]:
        line += f"; benchgraph serve's query time limit {q.get('query_timeout', 5.0):g} s"
        budget = q.get("latency_budget_s", math.inf)
        line += f"; up to {q.get('requests')} requests per latency series" + (
            f", each series stopped after {budget:g} s (at least 3 requests)"
            if math.isfinite(budget)
            else ""
        )
    warm = size.get("serve_warm")
    if warm:
        line += (
            f"; benchgraph serve warmed {warm['warmed']} of {warm['of']} parameterless named "
            f"queries in {f(warm['seconds'], 1)} s at start, before the measurements"
        )
    return line


def remote_path(out: Path) -> Path:
    """Where ``python -m bench.remote`` keeps its numbers beside the report ``out``: a file of
    their own, which a run of ``bench.run`` (which writes the report's JSON anew) leaves."""
    return out.with_name(f"{out.stem}.remote.json")


def archive_path(out: Path) -> Path:
    """Where ``python -m bench.archive`` keeps its numbers beside the report ``out``."""
    return out.with_name(f"{out.stem}.archive.json")


def markdown(
    data: dict[str, Any],
    remote: dict[str, Any] | None = None,
    archive: dict[str, Any] | None = None,
) -> str:
    """BENCHMARKS.md for the numbers in ``data`` and the ``remote`` and ``archive`` ones
    (without a discussion kept after them)."""
    sizes = data["sizes"]
    lines = [
        *heading(data),
        *ingest_section(sizes),
        *baseline_table(sizes),
        *queries_section(sizes, data["query_settings"]),
        *rdflib_section(sizes),
        *user_query_table(sizes),
        *validation_section(_validations(data)),
        *history_tables(data.get("history", [])),
        *claims_tables(data.get("claims", [])),
        *formats_section(data.get("formats")),
        *archive_section(archive),
        *remote_section(remote),
        *["", "## Targets", "", *data.get("verdicts", ["(see the tables)"]), ""],
    ]
    return "\n".join(lines)


def heading(data: dict[str, Any]) -> list[str]:
    """The title, the machine the numbers were measured on, and the commands run."""
    m = data["machine"]
    return [
        "# Benchmarks",
        "",
        "Measured by `bench/run.py` on synthetic corpora from `bench/generate.py` (seed "
        f"{SEED}). Each peer is measured in the same run, on the same machine, over the same "
        "data. Cells with three numbers are min / **median** / max over the runs.",
        "",
        "## Machine",
        "",
        f"- date: {m['date']}",
        f"- nproc: {m['nproc']} ({m['cpu']}), memory: {m['memory_gb']} GB",
        f"- load average at the start (1, 5, 15 min): {m.get('load_average', 'not recorded')}",
        *(size_line(s, m["date"]) for s in data["sizes"]),
        f"- {m['platform']}, Python {m['python']}",
        "- " + ", ".join(f"{k} {v}" for k, v in m["packages"].items()),
        "",
        "## Command",
        "",
        "```",
        *data.get("commands", [data["command"]]),
        "```",
    ]


def ingest_section(sizes: list[dict[str, Any]]) -> list[str]:
    """Section 1: the ingest against the bulk-load floor, a row per size measured."""
    lines = [
        "",
        "## 1. Ingest vs the bulk-load floor",
        "",
        "`benchgraph ingest` as a process, a fresh store each run: parse, validate (the "
        "compiled shapes; pyshacl for a page they cannot be sure of), and write, on a writer "
        "thread while the next pages are prepared. Into an empty store, 100 files or more are "
        "loaded at once, all or nothing: each page's graph and report go to pyoxigraph's bulk "
        "loader in groups of about 25,000 triples (fewer files are written one transaction a "
        "page, as every batch into a store that holds pages is). Against it, pyoxigraph "
        "`Store.bulk_load` of the same quads (`benchgraph export --format nquads --history`) "
        "into a fresh store, in-process. Peak RSS is that of the ingest process.",
        "",
        "| pages | results | quads | runs | ingest s | pages/s | results/s | floor s "
        "| floor results/s | ingest/floor | peak RSS MB | store MB |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for size in sizes:
        i = size["ingest"]
        if not i:
            continue
        lines.append(
            f"| {i['pages']} | {i['results']} | {i['quads']} | {i['runs']} | {mmm(i['ingest_s'])} "
            f"| {mmm(i['pages_per_s'], 1)} | {mmm(i['results_per_s'], 0)} "
            f"| {mmm(i['floor_s'], 3)} | {mmm(i['floor_results_per_s'], 0)} "
            f"| **{f(i['ratio_ingest_over_floor'], 1)}×** | {mmm(i['peak_rss_mb'], 0)} "
            f"| {f(i['store_mb'], 0)} |"
        )
    return lines


def queries_section(sizes: list[dict[str, Any]], q: dict[str, Any]) -> list[str]:
    """Section 2: each named query on benchgraph serve and on oxigraph serve, per size (``q``:
    the query settings of the run)."""
    lines = [
        "",
        "## 2. Named queries over HTTP: benchgraph serve vs oxigraph serve",
        "",
        "`benchgraph serve` (GET `/queries/NAME?param=IRI`) against `oxigraph serve-read-only` "
        "on a copy of the same store (the same default graph: the merged view) "
        "(POST `/query` with the same text, the parameter written into the text as benchgraph "
        "does for a remote store). Both answer SPARQL JSON results. **Uncached**: one "
        "client, up to the requests listed per size under Machine, each with a different "
        "parameter value "
        "(benchgraph caches named-query answers per store generation, so a repeated value "
        "would be a cache hit); `audit-self-reported` has no parameter, so its uncached series "
        "goes to benchgraph's `/sparql` endpoint (no cache) with the text made distinct by a "
        "comment. **Cached**: one value repeated. **Throughput**: one client, then "
        f"{q['clients']} client threads, each making {q['each']} requests cycling over the values "
        "(for benchgraph these are cache hits by then; oxigraph computes each again), not "
        "measured for a server whose p50 on those requests (benchgraph cached, oxigraph "
        "uncached) is above `--throughput-max-ms` (1,000 ms unless the command says "
        "otherwise). `n` is the requests timed per series (benchgraph / "
        "oxigraph where they differ: a series stops early on its time budget, listed per size "
        "under Machine). Ratios are benchgraph / oxigraph "
        "(latency: lower is better for benchgraph; throughput: higher is). An error (a time-out, "
        "504 from benchgraph past its query time limit, listed per size under Machine) is "
        "counted, not timed.",
        "",
        "| pages | query | n | benchgraph p50 / p95 / p99 ms | oxigraph p50 / p95 / p99 ms "
        "| p50 ratio | cached p50 ms bg / ox | cached ratio | 1 client q/s bg / ox (ratio) "
        "| bg q/s | ox q/s | q/s ratio | same rows |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for size in sizes:
        for name, row in size["queries"].items():
            lines.append(query_row(size["pages"], name, row))
    return lines


def query_row(pages: int, name: str, row: dict[str, Any]) -> str:
    """One query's row of section 2: latency, cached latency, throughputs, same rows."""
    bg, ox_ = row["benchgraph"], row["oxigraph"]
    u, v = bg["uncached"], ox_["uncached"]
    errors = u.get("errors", 0) + v.get("errors", 0)
    n = str(u["requests"])
    if v["requests"] != u["requests"]:
        n += f" / {v['requests']}"
    return (
        f"| {pages} | {name} | {n}" + (f" ({errors} errors)" if errors else "") + " "
        f"| {percentiles(u)} | {percentiles(v)} "
        f"| **{ratio(row['ratio_p50_uncached'])}** "
        f"| {f(bg['cached']['p50_ms'])} / {f(ox_['cached']['p50_ms'])} "
        f"| {ratio(row['ratio_p50_cached'])} | {one_client(row)} "
        f"| {qps(bg['throughput_qps'])} "
        f"| {qps(ox_['throughput_qps'])} | {ratio(row['ratio_throughput'])} "
        f"| {yes_no(row['same_rows'])} |"
    )


def rdflib_section(sizes: list[dict[str, Any]]) -> list[str]:
    """The queries asked of the rdflib in-memory endpoint, where it was measured."""
    peers = [(s["pages"], n, r) for s in sizes for n, r in s["queries"].items()]
    peers = [(p, n, r) for p, n, r in peers if "rdflib" in r]
    lines = ["", "### The rdflib in-memory endpoint", ""]
    if not peers:
        return [*lines, "Not measured in this run."]
    lines += [
        "`python -m bench.rdflib_endpoint`: the same quads (`benchgraph export --format "
        "nquads --history`) loaded into an `rdflib.Dataset` whose default graph is the "
        "dump's: the merged view, answering the same SPARQL over HTTP (waitress, as "
        "benchgraph), the parameter written into the text as for oxigraph; nothing is "
        "cached. One client, "
        "uncached, fewer requests (rdflib is slow); a request still running after the time "
        "limit ends the series (`n + 1 timed out`: n answered, then one timed out), the "
        "endpoint is restarted, and the ratio is then a lower bound (`≥`: the median with "
        "the timed-out request counted at the limit); an error answer ends it too (`n + 1 "
        "refused`), with no ratio. Ratio: rdflib p50 / benchgraph uncached p50 (higher is "
        "better for benchgraph).",
        "",
        "| pages | query | n | rdflib p50 / p95 ms | benchgraph p50 ms | rdflib / benchgraph "
        "| rdflib load s | same rows |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += [rdflib_row(pages, name, row) for pages, name, row in peers]
    return lines


def rdflib_row(pages: int, name: str, row: dict[str, Any]) -> str:
    """One query's row against rdflib: refused, timed out (a lower bound) or answered."""
    r = row["rdflib"]
    u = r["uncached"]
    if r.get("refused"):  # the endpoint answered an error: nothing to compare
        return (
            f"| {pages} | {name} | {u['requests']} + 1 refused ({r['refused']}) | — "
            f"| {f(row['benchgraph']['uncached']['p50_ms'])} | — "
            f"| {f(r.get('load_s', math.nan), 1)} | n/a |"
        )
    bound = "≥ " if r["timed_out"] else ""
    p50 = (
        f"≥ {f(r['timeout_s'] * 1000, 0)}"
        if r["timed_out"] and not u["requests"]
        else (f"{f(u['p50_ms'])} / {f(u['p95_ms'])}")
    )
    same = yes_no(r["same_rows"])
    return (
        f"| {pages} | {name} | {u['requests']}"
        + (" + 1 timed out" if r["timed_out"] else "")
        + f" | {p50} | {f(row['benchgraph']['uncached']['p50_ms'])} "
        f"| **{bound}{f(row['ratio_rdflib_over_benchgraph'], 1)}×** "
        f"| {f(r.get('load_s', math.nan), 1)} | {same} |"
    )


def validation_section(validations: list[dict[str, Any]]) -> list[str]:
    """Section 3: validate against pyshacl page by page and whole-graph, timings and
    findings."""
    lines = ["", "## 3. Validation: validate vs pyshacl page by page and whole-graph", ""]
    if not validations:
        return lines
    lines += [
        "Three measurements over the same store. **validate**: `benchgraph validate "
        "--no-save --format json` as a process (the default engine: the compiled shapes, "
        "pyshacl for a page they cannot be sure of; then the cross-page SPARQL checks). "
        "**pyshacl page by page**: the same with `--engine pyshacl` (pyshacl for every "
        "page). **Whole-graph pyshacl**: one `pyshacl.validate` (same shapes, "
        "`inference='none'`, `inplace=True`) over the union of the page graphs loaded into "
        "one rdflib graph, in-process; the rdflib load is timed apart and not counted. It "
        "grows faster than the pages and is not run above `--pyshacl-max-pages`. Ratios are "
        "the peer's time / validate's.",
        "",
        "| pages | runs | validate s | ms/page | pyshacl page by page s | page by page "
        "/ validate | whole-graph pyshacl s | whole-graph / validate | rdflib load s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for v in validations:
        per_page = v["validate_s"]["median"] / v["pages"] * 1000
        lines.append(
            f"| {v['pages']} | {v['runs']} | {mmm(v['validate_s'])} | {f(per_page, 1)} "
            f"| {_timing(v, 'page_pyshacl_s', 'page-pyshacl-max-pages')} "
            f"| {_ratio(v, 'ratio_page_pyshacl_over_validate')} "
            f"| {_timing(v, 'pyshacl_s', 'pyshacl-max-pages')} "
            f"| {_ratio(v, 'ratio_pyshacl_over_validate', bold=True)} "
            f"| {mmm(v['pyshacl_load_s']) if v.get('pyshacl_load_s') else '—'} |"
        )
    lines += [
        "",
        "Findings are compared as distinct (severity, focus node, shape) triples. Both runs "
        "of `benchgraph validate` include the cross-page checks and are compared whole; "
        "whole-graph pyshacl, which does not run them, is compared with validate's other "
        "findings.",
        "",
        "| pages | validate | cross-page | pyshacl page by page | same | whole-graph pyshacl "
        "| common | only validate | only whole-graph | same |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for v in validations:
        paged = _same(v.get("same_findings_page_pyshacl"), v.get("page_pyshacl_differences"))
        lines.append(
            f"| {v['pages']} | {_counts(v['findings_validate'])} "
            f"| {v['cross_page_findings']} | {_counts(v.get('findings_page_pyshacl'))} "
            f"| {paged} | {_counts(v.get('findings_pyshacl'))} | {_number(v.get('common'))} "
            f"| {_number(v.get('only_validate'))} | {_number(v.get('only_pyshacl'))} "
            f"| {_same(v.get('same_findings'), None)} |"
        )
    return lines


def history_tables(history: list[dict[str, Any]]) -> list[str]:
    """The section of ``python -m bench.history``'s numbers (see its docstring), if any."""
    if not history:
        return []
    lines = [
        "",
        "## History: a second version of 10 % of the pages",
        "",
        "`python -m bench.history` (its docstring says how): a store given every page once, "
        "then a second version of 10 % of the sota2 pages, dated a month after the newest page, "
        "with 5 % of each one's values changed (at least one). Queries run in-process on the "
        "store opened read-only, as `benchgraph query` runs them; `changes` and the as-of "
        "queries are asked since/as of a day after the newest first version. `same` compares "
        "the as-of answer with the answer of a copy of the store taken before the second "
        "versions; `changes rows` with the values changed. `changes s` reads the changes "
        "record (the versions that moved in the window, each pair from its delta); `every "
        "version` reads every version in the catalogue and both graphs of each pair, "
        "interleaved with it, and `same rows` compares the two.",
        "",
        "| pages | second versions | values changed | ingest s (second versions) | ingest s "
        "(first) | store MB one version | store MB two | growth | changes s | changes s (every "
        "version) | same rows | changes rows | same |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for h in history:
        revision = h["second_versions"]
        before, after = h["store_bytes_one_version"], h["store_bytes_two_versions"]
        first = f(h["first_ingest_s"]) if h.get("first_ingest_s") else "—"  # not always timed
        lines.append(
            f"| {h['pages']} | {revision['pages']} | {revision['values']} "
            f"| {f(h['second_ingest_s'])} | {first} | {f(before / 1e6, 0)} "
            f"| {f(after / 1e6, 0)} | {f(after / before)}× | {mmm(h['changes_s'], 3)} "
            f"| {mmm(h['changes_before_s']) if h.get('changes_before_s') else '—'} "
            f"| {yes_no(h['changes_same_rows']) if 'changes_same_rows' in h else '—'} "
            f"| {h['changes_rows']} ({h['changes_changed']} changed) "
            f"| {yes_no(h['changes_changed'] == revision['values'])} |"
        )
    lines += [
        "",
        "| pages | query | benchmark | rows | current s | as of s | as-of / current | same as "
        "one version | differs from current |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for h in history:
        for b in h["leaderboards"]:
            r = b["as_of_s"]["median"] / b["current_s"]["median"]
            lines.append(
                f"| {h['pages']} | leaderboard | `{b['benchmark'].rsplit('/id/', 1)[-1]}` "
                f"| {b['rows']} | {mmm(b['current_s'], 3)} | {mmm(b['as_of_s'], 3)} "
                f"| **{f(r)}×** | {yes_no(b['same_as_one_version'])} "
                f"| {yes_no(b['differs_from_current'])} |"
            )
        if h.get("benchmarks"):
            b = h["benchmarks"]
            r = b["as_of_s"]["median"] / b["current_s"]["median"]
            lines.append(
                f"| {h['pages']} | benchmarks | (all) | — | {mmm(b['current_s'], 3)} "
                f"| {mmm(b['as_of_s'], 3)} | **{f(r)}×** | {yes_no(b['same_as_one_version'])} "
                "| — |"
            )
    return lines


def claims_tables(claims: list[dict[str, Any]]) -> list[str]:
    """The section of ``python -m bench.claims``'s numbers (see its docstring), if any."""
    if not claims:
        return []
    lines = [
        "",
        "## Claims: a leaderboard that ranks each claim once",
        "",
        "`python -m bench.claims` (its docstring says how): on the benchmarks with the most "
        "results, `leaderboard` (each claim ranked once, by its headline, with its claim's "
        "counts) and `claims` (every value with its claim, role, scale, headline and "
        "agreement) against the leaderboard as it ranked before claims (every result a row of "
        "its own), in-process on the store opened read-only. `same`: both rank the same results "
        "alike (where every claim has one value; — where a claim gathered several).",
        "",
        "| pages | benchmark | results | rows | claims gathered | before s | leaderboard s "
        "| leaderboard / before | claims s | claims / before | same |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for c in claims:
        for b in c["benchmarks"]:
            before = b["before_s"]["median"]
            lines.append(
                f"| {c['pages']} | `{b['benchmark'].rsplit('/id/', 1)[-1]}` | {b['results']} "
                f"| {b['rows']} | {b['gathered']} | {mmm(b['before_s'], 3)} "
                f"| {mmm(b['leaderboard_s'], 3)} | **{f(b['leaderboard_s']['median'] / before)}×** "
                f"| {mmm(b['claims_s'], 3)} | **{f(b['claims_s']['median'] / before)}×** "
                f"| {yes_no(b['same'])} |"
            )
    lines += [""] + [
        f"- {c['pages']} pages: `disagreements` over the whole store: "
        f"{f(c['disagreements_s'])} s, {c['disagreements']} claims."
        for c in claims
    ]
    return lines


def claims_verdicts(claims: list[dict[str, Any]]) -> list[str]:
    """The leaderboard and the claims of a benchmark against the leaderboard before claims."""
    lines: list[str] = []
    for c in claims:
        for key, what in (("leaderboard_s", "grouping and headline on the leaderboard"),
                          ("claims_s", "the claims of a benchmark")):  # fmt: skip
            ratios = [b[key]["median"] / b["before_s"]["median"] for b in c["benchmarks"]]
            if ratios:
                lines.append(
                    f"- {what} within 1.3× of the leaderboard before claims at {c['pages']} "
                    f"pages: {'met' if max(ratios) <= 1.3 else 'missed'} "
                    f"(worst {f(max(ratios))}×)"
                )
    return lines


def formats_section(formats: dict[str, Any] | None) -> list[str]:
    """The section of ``python -m bench.formats``'s numbers (see its docstring), if any."""
    if not formats:
        return []
    lines = [
        "",
        "## Formats: ingest rate per source format",
        "",
        "`python -m bench.formats` (its docstring says how): each row's files ingested by "
        "`benchgraph ingest` as a process into a fresh store, against the bulk-load floor of the "
        "quads it left (`benchgraph export --format nquads --history`, pyoxigraph "
        "`Store.bulk_load` into a fresh store), every row in the same run. **parse s** is "
        "`read_pages` alone on the row's bytes, in-process. Files are counted as the command's "
        "summary line counts them; results are those of the pages loaded. Measured from "
        f"{formats['date']}; load average (1, 5, 15 min) {formats['load_average_start']} at the "
        f"start and {formats['load_average_end']} at the end (each row's before and after are in "
        "BENCHMARKS.json).",
        "",
        "```",
        formats["command"],
        "```",
        "",
        "| format | files | results | runs | ingest s | results/s | parse s | floor s "
        "| ingest/floor | peak RSS MB |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in formats["rows"]:
        rate = mmm(r["results_per_s"], 0) if r["results_per_s"] else "— (no results)"
        lines.append(
            f"| {r['format']} | {_files(r)} | {r['results']} | {r['runs']} "
            f"| {mmm(r['ingest_s'])} | {rate} | {mmm(r['parse_s'], 3)} | {mmm(r['floor_s'], 3)} "
            f"| **{f(r['ratio_ingest_over_floor'], 1)}×** | {mmm(r['peak_rss_mb'], 0)} |"
        )
    startup = formats["startup_s"]["median"]
    return [
        *lines,
        "",
        "**What the ratios mean.** The floor is the least any ingest of those quads could cost: "
        "one bulk load, no parsing, no checks, no transactions. ingest/floor is what the gate "
        "costs on top, per format and against its own quads: starting the process (the ingest "
        f"of an empty folder takes {f(startup)} s, in every ingest time and in no floor), "
        "parsing (parse s), mapping to RDF and the SHACL validation of each page, then one "
        "transaction per page that writes its graph and report, the merged view and the "
        "versions catalogue. The ratio falls as a row grows (the start is paid once) and rises "
        "with its files (a validation and a transaction each) and with the warnings per result "
        "(each found by the checks and written to a report graph, which the floor just loads "
        "as quads). So ratios compare formats at like sizes only: a row of one small file is "
        "mostly the process's start, and PWC's `eff.json` is best set against the generated "
        "pages, not the five seeds.",
    ]


def _files(row: dict[str, Any]) -> str:
    """The files of a row as its ingest counted them."""
    counted = [
        f"{row[k]} {k}"
        for k in ("loaded", "unchanged", "refused", "unreadable", "skipped")
        if row[k]
    ]
    return f"`{row['label']}` {row['files']} ({', '.join(counted) or 'none loaded'})"


def baseline_table(sizes: list[dict[str, Any]]) -> list[str]:
    """The ingest against the baseline version's (``--baseline``), where it was measured."""
    rows = [s["ingest"] for s in sizes if s["ingest"] and s["ingest"].get("baseline")]
    if not rows:
        return []
    lines = [
        "",
        "Against the ingest of the baseline version (`--baseline`: another checkout, its own "
        "venv), run in turn with this one's on the same pages. The baseline has no merged view: "
        "it writes each page's graph and report only.",
        "",
        "| pages | runs | ingest s | baseline (revision) ingest s | ratio | store MB / baseline "
        "| peak RSS MB / baseline |",
        "|---|---|---|---|---|---|---|",
    ]
    for i in rows:
        b = i["baseline"]
        lines.append(
            f"| {i['pages']} | {i['runs']} | {mmm(i['ingest_s'])} | {b['revision'] or '?'}: "
            f"{mmm(b['ingest_s'])} | **{f(i['ratio_over_baseline'])}×** "
            f"| {f(i['store_mb'], 0)} / {f(b['store_mb'], 0)} "
            f"| {f(i['peak_rss_mb']['median'], 0)} / {f(b['peak_rss_mb']['median'], 0)} |"
        )
    return lines


def user_query_table(sizes: list[dict[str, Any]]) -> list[str]:
    """The hand-written leaderboard of the largest benchmark against its bare lookup."""
    rows = [s for s in sizes if s.get("user_query")]
    if not rows:
        return []
    lines = [
        "",
        "### A leaderboard written by hand",
        "",
        "The query a user writes for one benchmark (`bench/queries/user-leaderboard.rq`: every "
        "result with its value, its method's label, the metric's direction and the "
        "configuration, over the default graph) against the bare lookup of the benchmark's "
        "results (`bench/queries/bare-lookup.rq`), on the benchmark with the most results, "
        "through benchgraph's `/sparql` and oxigraph's `/query`, uncached, one client. Over the "
        "merged view it must give one row per result.",
        "",
        "| pages | results | rows per answer | user query p50 ms bg / ox | bare lookup p50 ms "
        "bg / ox | user / bare (benchgraph) |",
        "|---|---|---|---|---|---|",
    ]
    for size in rows:
        u = size["user_query"]
        mine, bare = u["user-leaderboard"], u["bare-lookup"]
        counts = sorted({c for c in mine["benchgraph"]["row_counts"] if c is not None})
        lines.append(
            f"| {size['pages']} | {u['results']} | {', '.join(map(str, counts)) or '—'} "
            f"| {f(mine['benchgraph']['p50_ms'])} / {f(mine['oxigraph']['p50_ms'])} "
            f"| {f(bare['benchgraph']['p50_ms'])} / {f(bare['oxigraph']['p50_ms'])} "
            f"| **{f(u['ratio_over_bare'])}×** |"
        )
    return lines


def _counts(counts: dict[str, int] | None) -> str:
    if counts is None:
        return "—"
    return ", ".join(f"{v} {k}" for k, v in counts.items()) or "none"


def _validations(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The validation rows, also from a report written before there could be several."""
    return data.get("validations") or ([data["validation"]] if data.get("validation") else [])


def _timing(v: dict[str, Any], key: str, option: str) -> str:
    """Min/median/max of ``key``; "not run" when the size was past ``--option``; "—" in a row
    written before it was measured."""
    if v.get(key):
        return mmm(v[key])
    return f"not run ({v['pages']} pages > --{option})" if key in v else "—"


def _ratio(v: dict[str, Any], key: str, bold: bool = False) -> str:
    value = v.get(key)
    if value is None:
        return "—"
    return f"**{f(value, 1)}×**" if bold else f"{f(value, 1)}×"


def _number(value: int | None) -> str:
    return "—" if value is None else str(value)


def _same(same: bool | None, differences: int | None) -> str:
    if same is None:
        return "—"
    if same:
        return "yes"
    return "no" if differences is None else f"no ({differences} differ)"


def write(out: Path, data: dict[str, Any]) -> None:
    """Write the report so far (after each size, so a long run leaves what it measured)."""
    data["verdicts"] = verdicts(data)
    kept = ""  # the hand-written discussion of an earlier report stays, after the numbers
    if out.exists():
        previous = out.read_text(encoding="utf-8")
        if DISCUSSION in previous:
            kept = "\n" + previous[previous.index(DISCUSSION) :]
    remote, archive = remote_path(out), archive_path(out)
    numbers = json.loads(remote.read_text(encoding="utf-8")) if remote.exists() else None
    large = json.loads(archive.read_text(encoding="utf-8")) if archive.exists() else None
    out.write_text(markdown(data, numbers, large) + kept, encoding="utf-8")
    out.with_suffix(".json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def verdicts(data: dict[str, Any]) -> list[str]:
    """One line per target and size, from the numbers (the prose in BENCHMARKS.md explains
    them)."""
    sizes = data["sizes"]
    return [
        *ingest_verdicts(sizes),
        *named_query_verdicts(sizes),
        *user_query_verdicts(sizes),
        *baseline_verdicts(sizes),
        *rdflib_verdicts(sizes),
        *audit_verdicts(sizes),
        *history_verdicts(data.get("history", [])),
        *claims_verdicts(data.get("claims", [])),
        *validation_verdicts(_validations(data)),
    ]


def ingest_verdicts(sizes: list[dict[str, Any]]) -> list[str]:
    """The ingest against its floor per size, and its memory from the smallest size to the
    largest."""
    lines: list[str] = []
    for size in sizes:
        if not size["ingest"]:
            continue
        r = size["ingest"]["ratio_ingest_over_floor"]
        lines.append(
            f"- ingest within 3× of the bulk-load floor at {size['pages']} pages: "
            f"{'met' if r <= 3 else 'missed'} ({f(r, 1)}×)"
        )
    ingested = [s for s in sizes if s["ingest"]]
    if len(ingested) > 1:
        low, high = ingested[0]["ingest"], ingested[-1]["ingest"]
        growth = high["peak_rss_mb"]["median"] / low["peak_rss_mb"]["median"]
        scale = high["pages"] / low["pages"]
        lines.append(
            f"- ingest memory bounded (peak RSS grows far less than the pages, ×{f(scale, 0)}): "
            f"{'met' if growth <= 1.5 else 'missed'} ({f(low['peak_rss_mb']['median'], 0)} MB at "
            f"{low['pages']} pages, {f(high['peak_rss_mb']['median'], 0)} MB at {high['pages']}, "
            f"×{f(growth)})"
        )
    return lines


def named_query_verdicts(sizes: list[dict[str, Any]]) -> list[str]:
    """The named queries against oxigraph serve per size, and against their p50 targets at
    10,000 pages."""
    lines: list[str] = []
    with_queries = [s for s in sizes if s["queries"]]
    for size in with_queries:
        named = [
            n
            for n in size["queries"]
            if n in PARAM and not math.isnan(size["queries"][n]["ratio_p50_uncached"])
        ]
        if not named:  # no query with a parameter was answered by both servers
            continue
        worst = max(named, key=lambda n: size["queries"][n]["ratio_p50_uncached"])
        ratio = size["queries"][worst]["ratio_p50_uncached"]
        lines.append(
            f"- named-query p50 (uncached) within 1.3× of oxigraph serve at {size['pages']} "
            f"pages: {'met' if ratio <= 1.3 else 'missed'} (worst {f(ratio)}×, {worst})"
        )
    for size in with_queries:
        if size["pages"] < 10000:
            continue
        for name, target in P50_TARGETS_MS.items():
            row = size["queries"].get(name)
            if row is None:
                continue
            p50 = row["benchgraph"]["uncached"]["p50_ms"]
            lines.append(
                f"- {name} uncached p50 ≤ {target:g} ms at {size['pages']} pages: "
                f"{'met' if p50 <= target else 'missed'} ({f(p50)} ms)"
            )
    return lines


def user_query_verdicts(sizes: list[dict[str, Any]]) -> list[str]:
    """The hand-written leaderboard against the bare lookup, per size."""
    lines: list[str] = []
    for size in sizes:
        u = size.get("user_query")
        if not u:
            continue
        ratio, one = u["ratio_over_bare"], u["one_row_per_result"]
        lines.append(
            f"- a hand-written leaderboard gives one row per result, within 1.5× of the bare "
            f"lookup, at {size['pages']} pages: {'met' if one and ratio <= 1.5 else 'missed'} "
            f"({'one row per result' if one else 'NOT one row per result'}, {f(ratio)}×)"
        )
    return lines


def baseline_verdicts(sizes: list[dict[str, Any]]) -> list[str]:
    """The ingest against the baseline version's, per size."""
    lines: list[str] = []
    for size in sizes:
        i = size["ingest"]
        if not i or not i.get("baseline"):
            continue
        ratio = i["ratio_over_baseline"]
        lines.append(
            f"- ingest with the merged view within 1.2× of the baseline "
            f"({i['baseline']['revision'] or 'another checkout'}) at {i['pages']} pages: "
            f"{'met' if ratio <= 1.2 else 'missed'} ({f(ratio)}×; store "
            f"{f(i['baseline']['store_mb'], 0)} MB before, {f(i['store_mb'], 0)} MB after)"
        )
    return lines


def rdflib_verdicts(sizes: list[dict[str, Any]]) -> list[str]:
    """The named queries against the rdflib endpoint, per size."""
    lines: list[str] = []
    with_queries = [s for s in sizes if s["queries"]]
    for size in with_queries:
        rows = [
            (n, r)
            for n, r in size["queries"].items()
            if "rdflib" in r and not math.isnan(r["ratio_rdflib_over_benchgraph"])
        ]
        if not rows:
            continue
        name, row = min(rows, key=lambda nr: nr[1]["ratio_rdflib_over_benchgraph"])
        ratio = row["ratio_rdflib_over_benchgraph"]
        bound = "≥ " if row["rdflib"]["timed_out"] else ""
        lines.append(
            f"- named-query p50 ≥ 30× faster than the rdflib in-memory endpoint at "
            f"{size['pages']} pages: {'met' if ratio >= 30 else 'missed'} (least "
            f"{bound}{f(ratio, 1)}×, {name})"
        )
    return lines


def audit_verdicts(sizes: list[dict[str, Any]]) -> list[str]:
    """The audit aggregate, uncached and cached, per size."""
    lines: list[str] = []
    with_queries = [s for s in sizes if s["queries"]]
    for size in with_queries:
        if "audit-self-reported" not in size["queries"]:
            continue
        audit = size["queries"]["audit-self-reported"]["benchgraph"]
        p50, cached = audit["uncached"]["p50_ms"], audit["cached"]["p50_ms"]
        limit = size.get("query_settings", {}).get("query_timeout", 5.0)
        uncached = (
            f"({f(p50)} ms)"
            if audit["uncached"]["requests"]
            else f"(every request past the query time limit, {limit:g} s)"
        )
        lines.append(
            f"- audit aggregate under 100 ms at {size['pages']} pages: uncached "
            f"{'met' if p50 < 100 else 'missed'} {uncached}, cached per store generation "
            f"{'met' if cached < 100 else 'missed'} ({f(cached)} ms)"
        )
    return lines


def history_verdicts(history: list[dict[str, Any]]) -> list[str]:
    """The as-of leaderboards against the current ones, per size."""
    lines: list[str] = []
    for h in history:
        ratios = [b["as_of_s"]["median"] / b["current_s"]["median"] for b in h["leaderboards"]]
        if ratios:
            lines.append(
                f"- an as-of leaderboard within 2× of the current one at {h['pages']} pages: "
                f"{'met' if max(ratios) <= 2 else 'missed'} (worst {f(max(ratios))}×)"
            )
    return lines


def validation_verdicts(validations: list[dict[str, Any]]) -> list[str]:
    """validate against whole-graph pyshacl per size, and its time per page across sizes."""
    lines: list[str] = []
    for v in validations:
        r = v.get("ratio_pyshacl_over_validate")
        if r is None:  # whole-graph pyshacl was not run at this size
            continue
        same = v["same_findings"] and v.get("same_findings_page_pyshacl") is not False
        lines.append(
            f"- validate ≥ 5× faster than whole-graph pyshacl, same findings, at {v['pages']} "
            f"pages: {'met' if r >= 5 and same else 'missed'} ({f(r)}×, "
            f"{'same' if same else 'different'} findings)"
        )
    by_size = sorted(validations, key=lambda v: v["pages"])
    if len(by_size) > 1 and by_size[0]["pages"] < by_size[-1]["pages"]:
        low, high = by_size[0], by_size[-1]
        per_page = [v["validate_s"]["median"] / v["pages"] for v in (low, high)]
        growth = per_page[1] / per_page[0]
        lines.append(
            f"- validate linear in pages: {'met' if growth <= 1.25 else 'missed'} (time per "
            f"page ×{f(growth)} from {low['pages']} to {high['pages']} pages)"
        )
    return lines
