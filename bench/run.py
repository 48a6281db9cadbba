"""Measure benchgraph against peers measured in the same run, and write BENCHMARKS.md/.json.

    python -m bench.run --sizes 100,1000 --repeat 5 --out BENCHMARKS.md

For each size a corpus is generated (``bench.generate``, seed 1) and measured (with
``--stores``, a store already built is copied instead, and its queries measured):

1. ingest through the real command (``benchgraph ingest``, a fresh store each run) against the
   floor: pyoxigraph ``Store.bulk_load`` of the same quads (``benchgraph export --format
   nquads --history``) into a fresh store; peak RSS of the ingest process and store size on disk;
2. named queries over HTTP: ``benchgraph serve`` against ``oxigraph serve-read-only`` on a
   copy of the store (its default graph the store's: the merged view), answering the same
   SPARQL text (the
   parameter written into the text for the peer only), once benchgraph serve has warmed its
   parameterless named queries: latency percentiles with one client, uncached (a distinct
   parameter value per request) and cached (one value repeated), each series within
   ``--latency-budget`` seconds, and throughput with one client and with several client
   threads; and, up to ``--rdflib-max-pages``, against an
   rdflib in-memory endpoint over the same quads (``bench.rdflib_endpoint``), uncached
   latency only, a query running past ``--rdflib-timeout`` recorded as a lower bound;
3. validation (``--validation-sizes``, default the smallest size), on the same store:
   ``benchgraph validate`` (the default engine, the compiled shapes), ``benchgraph validate
   --engine pyshacl`` (pyshacl page by page) up to ``--page-pyshacl-max-pages``, and one
   ``pyshacl.validate`` over the union of the pages loaded into one rdflib graph up to
   ``--pyshacl-max-pages`` (it grows faster than the pages); the findings of all three are
   compared.

Every timing of ingest, floor, validation and throughput is run ``--repeat`` times after a
warm-up and reported as min/median/max. The Markdown is written to ``--out`` and the same
numbers as JSON beside it (same name, ``.json``), after each size. A ``## Discussion`` section
at the end of an existing report is kept, after the new numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.launch import REPO, Server
from bench.report import SEED, machine, write
from bench.servers import (
    BIN,
    PARAM,
    Target,
    start_benchgraph,
    start_oxigraph,
    start_rdflib,
    timed,
)

BG = "https://w3id.org/benchgraph/ns#"
QUERIES = (
    "methods-introduced-by-paper",
    "methods-reported-by-paper",
    "results-reported-by-paper",
    "leaderboard",
    "audit-self-reported",
)
FAILED = (urllib.error.URLError, TimeoutError, ConnectionError)
MIN_REQUESTS = 3  # timed per latency series, whatever its time budget


def stats(values: Sequence[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def timed_runs(fn: Callable[[], object], repeat: int) -> dict[str, float]:
    """``fn`` run once to warm up, then ``repeat`` times: the :func:`stats` of its seconds."""
    fn()
    found = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        found.append(time.perf_counter() - start)
    return stats(found)


def percentile(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


def repeated(fn: Callable[[], float], repeat: int, warmup: bool = True) -> list[float]:
    """Run ``fn`` (which returns its own timing) once to warm up, then ``repeat`` times."""
    if warmup:
        fn()
    return [fn() for _ in range(repeat)]


def cli(*args: str, timeout: float = 3600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "benchgraph"), *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=timeout,
    )


def du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


# ---------------------------------------------------------------------------------------------
# 1. Ingest


@dataclass(frozen=True)
class Ingested:
    """One ``benchgraph ingest`` process: its seconds, peak RSS in bytes and standard output
    (the summary line)."""

    seconds: float
    peak_rss: int
    stdout: str


def ingest_process(pages: Path, store: Path, binary: Path = BIN / "benchgraph") -> Ingested:
    """Ingest ``pages`` (a file or folder) into a fresh ``store`` with ``binary`` (this
    checkout's ``benchgraph``, or a baseline's), as a process; raise RuntimeError if it fails
    other than by refusing some input (exit 1)."""
    shutil.rmtree(store, ignore_errors=True)
    command = [str(binary), "ingest", "--quiet", "--store", str(store), str(pages)]
    timer = Path("/usr/bin/time")
    if timer.exists():
        command = [str(timer), "-v", *command]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO, timeout=7200)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise RuntimeError(f"ingest failed: {done.stderr[-2000:]}")
    found = re.search(r"Maximum resident set size \(kbytes\): (\d+)", done.stderr)
    if found:
        rss = int(found.group(1)) * 1024
    else:
        import resource

        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    return Ingested(seconds, rss, done.stdout)


def ingest_once(pages: Path, store: Path, binary: Path = BIN / "benchgraph") -> tuple[float, int]:
    """Ingest into a fresh ``store`` with ``binary`` (this checkout's ``benchgraph``, or a
    baseline's); return seconds and peak RSS in bytes."""
    done = ingest_process(pages, store, binary)
    return done.seconds, done.peak_rss


def bulk_load_once(nquads: Path, store: Path) -> float:
    import pyoxigraph as ox

    shutil.rmtree(store, ignore_errors=True)
    start = time.perf_counter()
    target = ox.Store(str(store))
    target.bulk_load(path=str(nquads), format=ox.RdfFormat.N_QUADS)
    target.flush()
    del target
    return time.perf_counter() - start


def build_store(pages: Path, work: Path) -> None:
    """The store and its quads, as :func:`measure_ingest` leaves them, without timing."""
    ingest_once(pages, work / "store")
    export(work / "store", work / "store.nq")


def export(store: Path, nquads: Path) -> None:
    """Every quad of ``store`` (the versions catalogue too, as the ingest wrote it) to
    ``nquads``."""
    done = cli(
        "export", "--format", "nquads", "--history", "--store", str(store), "--out", str(nquads)
    )
    if done.returncode != 0:
        raise RuntimeError(f"export failed: {done.stderr}")


def measure_ingest(
    pages: Path,
    work: Path,
    manifest: dict[str, Any],
    repeat: int,
    warmup: bool,
    baseline: Path | None = None,
) -> dict[str, Any]:
    """Ingest against the bulk-load floor, and against the ingest of the ``baseline`` checkout
    (another version, its own ``.venv``), run in turn with this one's on the same pages."""
    store = work / "store"
    rss: list[int] = []

    def run() -> float:
        seconds, peak = ingest_once(pages, store)
        rss.append(peak)
        return seconds

    before: dict[str, Any] | None = None
    if baseline is None:
        times = repeated(run, repeat, warmup)
    else:
        times, before = _with_baseline(run, pages, work, repeat, warmup, baseline)
    rss = rss[-repeat:]
    nquads = work / "store.nq"
    export(store, nquads)
    quads = sum(1 for _ in nquads.open("rb"))
    floor = repeated(lambda: bulk_load_once(nquads, work / "floor"), repeat, warmup)
    shutil.rmtree(work / "floor", ignore_errors=True)
    n_pages, n_results = manifest["pages"], manifest["results"]
    ingest_s, floor_s = stats(times), stats(floor)
    return {
        "pages": n_pages,
        "results": n_results,
        "quads": quads,
        "runs": repeat,
        "warmup": warmup,
        "ingest_s": ingest_s,
        "floor_s": floor_s,
        "pages_per_s": stats([n_pages / t for t in times]),
        "results_per_s": stats([n_results / t for t in times]),
        "floor_results_per_s": stats([n_results / t for t in floor]),
        "ratio_ingest_over_floor": ingest_s["median"] / floor_s["median"],
        "peak_rss_mb": stats([r / 2**20 for r in rss]),
        "store_mb": du(store) / 2**20,
        "nquads_mb": nquads.stat().st_size / 2**20,
        "baseline": before,
        "ratio_over_baseline": (
            ingest_s["median"] / before["ingest_s"]["median"] if before else None
        ),
    }


def _with_baseline(
    run: Callable[[], float], pages: Path, work: Path, repeat: int, warmup: bool, baseline: Path
) -> tuple[list[float], dict[str, Any]]:
    """This checkout's ingest times (``run``) taken in turn with the ``baseline`` checkout's
    on the same ``pages``, and what the baseline's runs measured."""
    base_store, base_rss = work / "baseline-store", []
    binary = baseline / ".venv" / "bin" / "benchgraph"

    def base() -> float:
        seconds, peak = ingest_once(pages, base_store, binary)
        base_rss.append(peak)
        return seconds

    if warmup:
        run(), base()
    pairs = [(run(), base()) for _ in range(repeat)]
    times, base_times = [a for a, _ in pairs], [b for _, b in pairs]
    before = {
        "checkout": str(baseline),
        "revision": _revision(baseline),
        "ingest_s": stats(base_times),
        "peak_rss_mb": stats([r / 2**20 for r in base_rss[-repeat:]]),
        "store_mb": du(base_store) / 2**20,
    }
    shutil.rmtree(base_store, ignore_errors=True)
    return times, before


def _revision(checkout: Path) -> str:
    """The commit a checkout is at (abbreviated), or '' outside git."""
    done = subprocess.run(
        ["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return done.stdout.strip()


# ---------------------------------------------------------------------------------------------
# 2. Named queries over HTTP

USER_QUERIES = ("largest-benchmark", "user-leaderboard", "bare-lookup")


def latency(
    target: Target, values: list[str | None], cached: bool, budget: float = float("inf")
) -> dict[str, Any]:
    """Latency of one client; an error answer (a time-out, say) is counted, not timed. The
    series stops early, after at least ``MIN_REQUESTS``, once ``budget`` seconds are spent
    (``requests`` says how many were timed)."""
    started = time.monotonic()
    timings: list[float] = []
    rows: list[int | None] = []  # per request, None for an error
    errors = 0
    try:
        target.request(values[0], True, 0)()  # warm-up
    except FAILED:
        errors += 1
    series = [values[0]] * len(values) if cached else values
    for n, value in enumerate(series, start=1):
        if n > MIN_REQUESTS and time.monotonic() - started > budget:
            break
        try:
            seconds, count = timed(target.request(value, cached, n))
        except FAILED:
            errors += 1
            rows.append(None)
            continue
        timings.append(seconds * 1000)
        rows.append(count)
    nan = float("nan")
    return {
        "requests": len(timings),
        "errors": errors,
        "p50_ms": percentile(timings, 50) if timings else nan,
        "p95_ms": percentile(timings, 95) if timings else nan,
        "p99_ms": percentile(timings, 99) if timings else nan,
        "rows": sum(r for r in rows if r is not None),
        "row_counts": rows,
    }


def latencies(
    targets: dict[str, Target],
    values: list[str | None],
    cached: bool,
    budget: float = float("inf"),
) -> dict[str, dict[str, Any]]:
    """:func:`latency` of each of ``targets`` (by kind), their requests interleaved: each value
    asked of one server, then of the next, so that the load others put on the machine falls on
    both alike. The series stop together, once ``budget`` seconds are spent on them."""
    started = time.monotonic()
    found: dict[str, dict[str, Any]] = {}
    series = [values[0]] * len(values) if cached else values
    spent: dict[str, list[tuple[float, int] | None]] = {kind: [] for kind in targets}
    for kind, target in targets.items():
        found[kind] = {"errors": 0}
        try:
            target.request(values[0], True, 0)()  # warm-up
        except FAILED:
            found[kind]["errors"] += 1
    for n, value in enumerate(series, start=1):
        if n > MIN_REQUESTS and time.monotonic() - started > budget:
            break
        for kind, target in targets.items():
            try:
                spent[kind].append(timed(target.request(value, cached, n)))
            except FAILED:
                found[kind]["errors"] += 1
                spent[kind].append(None)
    for kind, answers in spent.items():
        found[kind] |= _latency_figures(answers)
    return found


def _latency_figures(answers: list[tuple[float, int] | None]) -> dict[str, Any]:
    """Percentiles (ms) and rows of a latency series (None: an error answer, not timed)."""
    timings = [seconds * 1000 for seconds, _ in filter(None, answers)]
    nan = float("nan")
    return {
        "requests": len(timings),
        "p50_ms": percentile(timings, 50) if timings else nan,
        "p95_ms": percentile(timings, 95) if timings else nan,
        "p99_ms": percentile(timings, 99) if timings else nan,
        "rows": sum(a[1] for a in answers if a is not None),
        "row_counts": [a[1] if a is not None else None for a in answers],
    }


def throughput(target: Target, values: list[str | None], clients: int, each: int) -> float:
    calls = [target.request(v, True, 0) for v in values]
    errors: list[Exception] = []

    def client(offset: int) -> None:
        for i in range(each):
            try:
                calls[(offset + i) % len(calls)]()
            except FAILED as error:
                errors.append(error)

    threads = [threading.Thread(target=client, args=(c,)) for c in range(clients)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.perf_counter() - start
    # Answers per second: an error answer (a time-out) is not an answer.
    return (clients * each - len(errors)) / seconds


def parameter_values(store: Path, count: int) -> dict[str, list[str]]:
    import pyoxigraph as ox

    graph = ox.Store.read_only(str(store))

    def column(query: str) -> list[str]:
        answer = graph.query(query)
        assert isinstance(answer, ox.QuerySolutions)
        return [str(getattr(s[0], "value", s[0])) for s in answer]

    # Papers that introduced a method and reported a result. Distinct origins first, then one
    # lookup each: joined directly, every copy of every bg:introducedIn (one per page naming
    # the method) meets every result the paper reported, which takes minutes at 10,000 pages.
    papers = column(
        f"SELECT ?p WHERE {{ {{ SELECT DISTINCT ?p WHERE {{ ?m <{BG}introducedIn> ?p }} }}"
        f" FILTER EXISTS {{ ?r <{BG}reportedIn> ?p }} }} ORDER BY ?p LIMIT {count + 1}"
    )
    benchmarks = column(
        f"SELECT DISTINCT ?b WHERE {{ ?b a <{BG}Benchmark> }} ORDER BY ?b LIMIT {count + 1}"
    )
    return {"paper": papers[: count + 1], "benchmark": benchmarks[: count + 1]}


@dataclass
class QuerySettings:
    """How the HTTP queries are measured (see ``--help``)."""

    requests: int
    clients: int
    each: int
    repeat: int
    names: Sequence[str] = QUERIES
    throughput_max_ms: float = 1000.0
    latency_budget: float = float("inf")
    rdflib: bool = False
    rdflib_requests: int = 5
    rdflib_timeout: float = 60.0
    query_timeout: float = 5.0


def measure_queries(
    store: Path, nquads: Path, work: Path, settings: QuerySettings
) -> tuple[dict[str, Any], dict[str, float], dict[str, Any]]:
    """Each named query's measurements, what benchgraph serve warmed before them, and the
    user's hand-written leaderboard (:func:`measure_user_query`)."""
    peer_store = work / "peer-store"
    copy_store(store, peer_store)
    values = parameter_values(store, settings.requests)
    names = settings.names
    texts = {name: (REPO / "queries" / f"{name}.rq").read_text(encoding="utf-8") for name in names}
    out: dict[str, Any] = {}
    servers: list[Server] = []
    try:
        log_path = work / "benchgraph-serve.log"
        bg_server, bg_url, warmed = start_benchgraph(store, log_path, settings.query_timeout)
        log(f"  benchgraph serve warmed {warmed['warmed']} named queries in {warmed['seconds']} s")
        servers.append(bg_server)
        ox_server, ox_url = start_oxigraph(peer_store)
        servers.append(ox_server)
        for name in names:
            param = PARAM.get(name)
            series: list[str | None] = (
                list(values[param]) if param else [None] * (settings.requests + 1)
            )
            targets = {"benchgraph": bg_url, "oxigraph": ox_url}
            out[name] = _measure_query(name, texts[name], param, series, targets, settings)
        user = measure_user_query(store, bg_url, ox_url, settings)
        for server in servers:
            server.stop()
        servers.clear()
        if settings.rdflib:
            measure_rdflib(out, nquads, texts, values, settings)
    finally:
        for server in servers:
            server.stop()
        shutil.rmtree(peer_store, ignore_errors=True)
    return out, warmed, user


def _measure_query(
    name: str,
    text: str,
    param: str | None,
    series: list[str | None],
    targets: dict[str, str],
    settings: QuerySettings,
) -> dict[str, Any]:
    """One named query's latency and throughput on each server of ``targets`` (kind: base
    URL), asked the values of ``series``, and their ratios."""
    row: dict[str, Any] = {"parameter": param, "distinct_values": len(series) - 1}
    log(f"  {name}")
    asked = {kind: Target(kind, base, name, text) for kind, base in targets.items()}
    budget = settings.latency_budget
    uncached = latencies(asked, series, False, budget)
    cached = latencies(asked, series[: settings.requests + 1], True, budget)
    for kind, target in asked.items():

        def load(
            clients: int, t: Target = target, s: list[str | None] = series
        ) -> Callable[[], float]:
            return lambda: throughput(t, s, clients, settings.each)

        row[kind] = {"uncached": uncached[kind], "cached": cached[kind]}
        # Heavy answers are not hammered: 8 clients × 25 requests of a 2 s query on 2
        # cores would take minutes and say nothing the latency does not. The
        # throughput asks the values the uncached series asked: benchgraph answers
        # them from its cache, the peer computes them again.
        answered = "cached" if kind == "benchgraph" else "uncached"
        # Written so that a series with no answer (p50 NaN) counts as slow.
        slow = not row[kind][answered]["p50_ms"] <= settings.throughput_max_ms
        for key, clients in (("throughput_1_qps", 1), ("throughput_qps", settings.clients)):
            row[kind][key] = None if slow else stats(repeated(load(clients), settings.repeat))
    bg, peer = row["benchgraph"], row["oxigraph"]
    row["same_rows"] = same_rows(bg, peer)
    row["ratio_p50_uncached"] = bg["uncached"]["p50_ms"] / peer["uncached"]["p50_ms"]
    row["ratio_p50_cached"] = bg["cached"]["p50_ms"] / peer["cached"]["p50_ms"]
    for key in ("throughput_1", "throughput"):
        mine, theirs = bg[f"{key}_qps"], peer[f"{key}_qps"]
        row[f"ratio_{key}"] = mine["median"] / theirs["median"] if mine and theirs else None
    return row


def measure_user_query(
    store: Path, bg_url: str, ox_url: str, settings: QuerySettings
) -> dict[str, Any]:
    """The leaderboard a user writes by hand for the largest benchmark (bench/queries/
    user-leaderboard.rq) against the bare lookup of its results (bare-lookup.rq), each through
    benchgraph's /sparql and oxigraph's /query: uncached latency and rows."""
    import pyoxigraph as ox

    from benchgraph.sparqltext import substitute

    text = {name: (REPO / "bench" / "queries" / f"{name}.rq").read_text() for name in USER_QUERIES}
    found = ox.Store.read_only(str(store)).query(text["largest-benchmark"])
    assert isinstance(found, ox.QuerySolutions)
    (top,) = list(found)
    benchmark, results = top["benchmark"], int(top["results"].value)
    row: dict[str, Any] = {"benchmark": benchmark.value, "results": results}
    for name in ("user-leaderboard", "bare-lookup"):
        sparql = substitute(text[name], {"benchmark": benchmark})
        series: list[str | None] = [None] * (settings.requests + 1)
        for kind, base in (("benchgraph", bg_url), ("oxigraph", ox_url)):
            log(f"  {name} on {kind}")
            row.setdefault(name, {})[kind] = latency(
                Target(kind, base, name, sparql), series, False, settings.latency_budget
            )
    mine, bare = row["user-leaderboard"]["benchgraph"], row["bare-lookup"]["benchgraph"]
    row["ratio_over_bare"] = mine["p50_ms"] / bare["p50_ms"]
    counts = {c for c in mine["row_counts"] if c is not None}
    row["one_row_per_result"] = counts == {results}
    return row


def same_rows(one: dict[str, Any], other: dict[str, Any]) -> bool | None:
    """Whether two servers answered the same numbers of rows, request by request, in their
    uncached and their cached series, where both answered (a series may stop early on its time
    budget; an error answers nothing); None when no request was answered by both."""
    pairs = [
        (a, b)
        for series in ("uncached", "cached")
        for a, b in zip(one[series]["row_counts"], other[series]["row_counts"], strict=False)
        if a is not None and b is not None
    ]
    return all(a == b for a, b in pairs) if pairs else None


def measure_rdflib(
    out: dict[str, Any],
    nquads: Path,
    texts: dict[str, str],
    values: dict[str, list[str]],
    settings: QuerySettings,
) -> None:
    """Add the rdflib endpoint's uncached latency to each row of ``out``. A request past the
    time limit ends that query's series (the endpoint is restarted: rdflib cannot stop a
    query), and the ratio is then a lower bound."""
    started = time.perf_counter()
    server, url = start_rdflib(nquads)
    load_s = time.perf_counter() - started
    try:
        for name, row in out.items():
            param = PARAM.get(name)
            n = settings.rdflib_requests
            # The first values, which benchgraph was also asked uncached.
            series: list[str | None] = list(values[param][1 : n + 1]) if param else [None] * n
            target = Target("rdflib", url, name, texts[name], timeout=settings.rdflib_timeout)
            timings, rows, timed_out, refused = _rdflib_series(target, series)
            if timed_out:
                server.stop()
                server, url = start_rdflib(nquads)
            bg = row["benchgraph"]["uncached"]
            p50 = statistics.median(timings) if timings else float("nan")
            worst = max(timings) if timings else settings.rdflib_timeout * 1000
            # The request that timed out took at least the limit: the median of the requests
            # asked, counting it at the limit, bounds their true median from below.
            bound = statistics.median([*timings, settings.rdflib_timeout * 1000])
            row["rdflib"] = {
                "uncached": {
                    "requests": len(timings),
                    "p50_ms": p50,
                    "p95_ms": percentile(timings, 95) if timings else float("nan"),
                    "max_ms": worst,
                    "rows": sum(rows),
                },
                "timed_out": timed_out,
                "refused": refused,  # the endpoint's error status, when it answered one
                "timeout_s": settings.rdflib_timeout,
                "load_s": load_s,
                # benchgraph's first values are the same (after its warm-up value).
                "same_rows": None
                if timed_out or refused
                else rows == _benchgraph_rows(row, param, rows),
            }
            ratio = (bound if timed_out else p50) / bg["p50_ms"]
            row["ratio_rdflib_over_benchgraph"] = float("nan") if refused else ratio
    finally:
        server.stop()


def _rdflib_series(
    target: Target, series: list[str | None]
) -> tuple[list[float], list[int], bool, str]:
    """Ask ``target`` once per value of ``series``: the times (ms) and row counts of the answers,
    whether a request timed out, and the error status the endpoint answered, if any; either
    ends the series."""
    timings: list[float] = []
    rows: list[int] = []
    for value in series:
        try:
            seconds, count = timed(target.request(value, False, 0))
        except urllib.error.HTTPError as error:  # an answer, not a time-out
            log(f"rdflib: {target.name}: {error!r}")
            return timings, rows, False, f"HTTP {error.code}"
        except FAILED as error:
            log(f"rdflib: {target.name}: {error!r}")
            return timings, rows, True, ""
        timings.append(seconds * 1000)
        rows.append(count)
    return timings, rows, False, ""


def _benchgraph_rows(row: dict[str, Any], param: str | None, rows: list[int]) -> list[int | None]:
    """The row counts benchgraph answered for the values the rdflib endpoint was asked."""
    counts: list[int | None] = row["benchgraph"]["uncached"]["row_counts"]
    return counts[1 : len(rows) + 1] if param else counts[:1] * len(rows)


# ---------------------------------------------------------------------------------------------
# 3. Validation


Finding = tuple[str, str, str]  # severity, focus, shape


def validate_once(store: Path, engine: str = "auto") -> tuple[float, set[Finding]]:
    """Run ``benchgraph validate --all`` (every page) with ``engine`` over ``store``, saving
    nothing; return seconds and the distinct findings. Raises RuntimeError if the command
    fails."""
    start = time.perf_counter()
    done = cli(
        "validate", "--all", "--no-save", "--format", "json", "--engine", engine,
        "--store", str(store),
    )  # fmt: skip
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise RuntimeError(f"validate --engine {engine} failed: {done.stderr}")
    report = json.loads(done.stdout)
    return seconds, {(f["severity"], f["focus"], f["shape"]) for f in report["findings"]}


def pyshacl_once(nquads: Path) -> tuple[float, float, set[Finding]]:
    import pyoxigraph as ox
    import pyshacl
    import rdflib

    from benchgraph import graphs, validation

    start = time.perf_counter()
    union = rdflib.Graph()
    with nquads.open("rb") as source:
        text = b"".join(
            f"{q.subject} {q.predicate} {q.object} .\n".encode()
            for q in ox.parse(source, format=ox.RdfFormat.N_QUADS)
            if not str(getattr(q.graph_name, "value", "")).startswith(graphs.REPORTS)
        )
    union.parse(data=text, format="nt")
    loaded = time.perf_counter() - start
    shapes = validation.shapes_graph()
    start = time.perf_counter()
    _, report, _ = pyshacl.validate(
        union, shacl_graph=shapes, inference="none", inplace=True, allow_warnings=True
    )
    seconds = time.perf_counter() - start
    sh = rdflib.Namespace("http://www.w3.org/ns/shacl#")
    assert isinstance(report, rdflib.Graph)
    found = {
        (
            str(report.value(r, sh.resultSeverity)).rsplit("#", 1)[-1],
            str(report.value(r, sh.focusNode)),
            str(report.value(r, sh.sourceShape)),
        )
        for r in report.subjects(rdflib.RDF.type, sh.ValidationResult)
    }
    return seconds, loaded, found


def measure_validation(
    store: Path, work: Path, repeat: int, page_pyshacl: bool = True, pyshacl: bool = True
) -> dict[str, Any]:
    """``validate`` (the default engine), then, if ``page_pyshacl``, ``validate --engine
    pyshacl`` and, if ``pyshacl``, whole-graph pyshacl, ``repeat`` times each after a warm-up
    run unless ``repeat`` is 1. Return the timings and findings; the fields of a measurement
    not run are None."""
    skip = 1 if repeat > 1 else 0

    def runs(fn: Callable[[], tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        return [fn() for _ in range(repeat + skip)][skip:]

    ours = runs(lambda: validate_once(store))
    found: set[Finding] = ours[-1][1]
    cross = {x for x in found if "#check-" in x[2]}  # the cross-page SPARQL checks
    pages = found - cross
    validate_s = stats([r[0] for r in ours])
    result: dict[str, Any] = {
        "runs": repeat,
        "validate_s": validate_s,
        "findings_validate": _severities(found),
        "cross_page_findings": len(cross),
        "page_pyshacl_s": None,
        "ratio_page_pyshacl_over_validate": None,
        "findings_page_pyshacl": None,
        "page_pyshacl_differences": None,
        "same_findings_page_pyshacl": None,
        "pyshacl_s": None,
        "pyshacl_load_s": None,
        "ratio_pyshacl_over_validate": None,
        "findings_pyshacl": None,
        "common": None,
        "only_validate": None,
        "only_pyshacl": None,
        "same_findings": None,
    }
    if page_pyshacl:  # both runs of validate give the cross-page findings: compared whole
        paged = runs(lambda: validate_once(store, "pyshacl"))
        theirs: set[Finding] = paged[-1][1]
        paged_s = stats([r[0] for r in paged])
        result["page_pyshacl_s"] = paged_s
        result["ratio_page_pyshacl_over_validate"] = paged_s["median"] / validate_s["median"]
        result["findings_page_pyshacl"] = _severities(theirs)
        result["page_pyshacl_differences"] = len(found ^ theirs)
        result["same_findings_page_pyshacl"] = found == theirs
    if pyshacl:
        peer = runs(lambda: pyshacl_once(work / "store.nq"))
        whole: set[Finding] = peer[-1][2]
        peer_s = stats([p[0] for p in peer])
        result["pyshacl_s"] = peer_s
        result["pyshacl_load_s"] = stats([p[1] for p in peer])
        result["ratio_pyshacl_over_validate"] = peer_s["median"] / validate_s["median"]
        result["findings_pyshacl"] = _severities(whole)
        result["common"] = len(pages & whole)
        result["only_validate"] = len(pages - whole)
        result["only_pyshacl"] = len(whole - pages)
        result["same_findings"] = pages == whole
    return result


def _severities(found: set[Finding]) -> dict[str, int]:
    return dict(sorted(Counter(x[0] for x in found).items()))


def main(argv: Sequence[str] | None = None) -> int:
    """Measure each size of ``--sizes`` and write the report after each; 2 when a corpus
    could not be generated, else 0."""
    args = argument_parser().parse_args(argv)
    command = "python -m bench.run " + " ".join(sys.argv[1:] if argv is None else list(argv))
    out = Path(args.out)
    data = report_data(args, command, out)
    if args.work:
        Path(args.work).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="bench-", dir=args.work) as tmp:
        for pages in [int(s) for s in args.sizes.split(",")]:
            if not measure_size(args, pages, Path(tmp) / str(pages), command, data, out):
                return 2
    write(out, data)
    log(f"wrote {out} and {out.with_suffix('.json')}")
    return 0


def argument_parser() -> argparse.ArgumentParser:
    """The command's options (its docstring is the description)."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.run",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _corpus_options(parser)
    _query_options(parser)
    _validation_options(parser)
    _report_options(parser)
    return parser


def _corpus_options(parser: argparse.ArgumentParser) -> None:
    """The sizes, the runs per timing, and whether the ingest is timed."""
    parser.add_argument("--sizes", default="100,1000", help="corpus sizes in pages")
    parser.add_argument("--repeat", type=int, default=5, help="runs per timing, after a warm-up")
    parser.add_argument(
        "--ingest-repeat",
        type=int,
        help="runs of the ingest timing above 100 pages (default --repeat); 1 skips its warm-up",
    )
    parser.add_argument(
        "--stores",
        help="measure stores already built rather than corpora generated and ingested: a "
        "folder name in which {pages} stands for the size (/work/corpus/store-{pages}); each "
        "is copied (never written) and no ingest is measured (as with --skip-ingest)",
    )
    parser.add_argument(
        "--skip-ingest",
        action="store_true",
        help="build each store with one untimed ingest and measure no ingest (with --append, "
        "the report keeps the ingest numbers it has for the size)",
    )


def _query_options(parser: argparse.ArgumentParser) -> None:
    """How the named queries are measured over HTTP, on which sizes, against which peers."""
    parser.add_argument("--requests", type=int, default=50, help="latency requests per query")
    parser.add_argument("--clients", type=int, default=8, help="throughput client threads")
    parser.add_argument("--each", type=int, default=25, help="throughput requests per client")
    parser.add_argument(
        "--throughput-max-ms",
        type=float,
        default=1000.0,
        help="skip the throughput of a server whose p50 on its requests (benchgraph: cached, "
        "the peer: uncached) is above this (ms)",
    )
    parser.add_argument(
        "--latency-budget",
        type=float,
        default=float("inf"),
        help="seconds one latency series (one query, one server, uncached or cached) may take; "
        f"it stops after at least {MIN_REQUESTS} requests once they are spent (default: none)",
    )
    parser.add_argument(
        "--query-max-pages",
        type=int,
        default=10**9,
        help="measure the HTTP queries only at sizes up to this many pages",
    )
    parser.add_argument(
        "--queries", default=",".join(QUERIES), help="the named queries to measure (comma list)"
    )
    parser.add_argument(
        "--rdflib-max-pages",
        type=int,
        default=1000,
        help="measure the rdflib endpoint only at sizes up to this many pages (0: never)",
    )
    parser.add_argument(
        "--rdflib-requests", type=int, default=5, help="latency requests per query to rdflib"
    )
    parser.add_argument(
        "--rdflib-timeout",
        type=float,
        default=60.0,
        help="seconds an rdflib query may run; a longer one gives a lower bound",
    )
    parser.add_argument(
        "--query-timeout",
        type=float,
        default=5.0,
        help="benchgraph serve's query time limit in seconds (its default: 5)",
    )


def _validation_options(parser: argparse.ArgumentParser) -> None:
    """Where validation and each peer validator are run, and how often."""
    parser.add_argument(
        "--validation-sizes",
        help="sizes at which validation is measured (comma list; default: the smallest size)",
    )
    parser.add_argument(
        "--pyshacl-max-pages",
        type=int,
        default=1000,
        help="run whole-graph pyshacl only at sizes up to this many pages (it grows faster "
        "than the pages: 13 s at 100, 920 s at 1,000)",
    )
    parser.add_argument(
        "--page-pyshacl-max-pages",
        type=int,
        default=10**9,
        help="run validate --engine pyshacl only at sizes up to this many pages",
    )
    parser.add_argument(
        "--validation-repeat",
        type=int,
        help="runs of the validation timings above 100 pages (default --repeat)",
    )


def _report_options(parser: argparse.ArgumentParser) -> None:
    """The baseline version, the report written and the working folder."""
    parser.add_argument(
        "--baseline",
        type=Path,
        help="a checkout of another version with its own .venv (git worktree add DIR REV; make "
        "-C DIR install): its ingest is timed in turn with this one's, on the same pages, which "
        "its own generator draws (so that both versions read every page)",
    )
    parser.add_argument("--out", default="BENCHMARKS.md", help="the Markdown report")
    parser.add_argument(
        "--append",
        action="store_true",
        help="add this run's sizes to the report already at --out (its .json) instead of "
        "replacing it",
    )
    parser.add_argument("--work", help="working folder (default: a temporary one)")


def query_settings(args: argparse.Namespace) -> dict[str, Any]:
    """How the named queries were measured, as the report records it."""
    return {
        "requests": args.requests,
        "clients": args.clients,
        "each": args.each,
        "query_timeout": args.query_timeout,
        "latency_budget_s": args.latency_budget,
    }


def report_data(args: argparse.Namespace, command: str, out: Path) -> dict[str, Any]:
    """The report to fill in: a new one, or with ``--append`` the one already beside ``out``
    with ``command`` added to its commands."""
    data: dict[str, Any] = {
        "command": command,
        "commands": [command],
        "machine": machine(),
        "seed": SEED,
        "repeat": args.repeat,
        "query_settings": query_settings(args),
        "sizes": [],
        "validations": [],
    }
    previous = out.with_suffix(".json")
    if args.append and previous.exists():  # a later run adds its sizes to the report
        data = json.loads(previous.read_text(encoding="utf-8"))
        commands = data.setdefault("commands", [data["command"]])
        if command not in commands:  # a run repeated replaces its numbers, one line is enough
            commands.append(command)
        data.setdefault("validations", [data["validation"]] if data.get("validation") else [])
    return data


def measure_size(
    args: argparse.Namespace,
    pages: int,
    work: Path,
    command: str,
    data: dict[str, Any],
    out: Path,
) -> bool:
    """Generate a corpus of ``pages`` pages in ``work``, measure it into ``data`` and write the
    report so far; False when the corpus could not be generated."""
    ingest: dict[str, Any] | None = None
    if args.stores:
        given = Path(args.stores.format(pages=pages))
        log(f"{pages} pages: copying the store {given} (load average {load_average()})")
        copy_store(given, work / "store")
    else:
        corpus = work / "corpus"
        if not generate_corpus(args.baseline, pages, corpus):
            return False
        manifest = json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))
        ingest = ingest_step(args, pages, corpus / "pages", work, manifest)
    queries: dict[str, Any] = {}
    warmed: dict[str, float] | None = None
    user: dict[str, Any] | None = None
    if pages <= args.query_max_pages:
        queries, warmed, user = queries_step(args, pages, work)
    measured = {
        "pages": pages,
        "command": command,
        "date": machine()["date"],
        "query_settings": query_settings(args),
        "serve_warm": warmed,
        "ingest": ingest,
        "queries": queries,
        "user_query": user,
    }
    data["sizes"] = merged(data["sizes"], measured)
    write(out, data)
    if pages in validation_sizes(args):
        data["validations"].append(validation_step(args, pages, work))
        data["validation"] = data["validations"][0]
    write(out, data)
    shutil.rmtree(work, ignore_errors=True)
    return True


def copy_store(store: Path, to: Path) -> None:
    """A copy of the store at ``store`` (its data: not its lock, holder record or published
    generations) at ``to``, for the servers, which write into the store they serve."""
    from benchgraph.store import holder

    shutil.rmtree(to, ignore_errors=True)
    shutil.copytree(store, to, ignore=shutil.ignore_patterns(*holder.NOT_DATA))


def generate_corpus(baseline: Path | None, pages: int, corpus: Path) -> bool:
    """Generate ``pages`` pages into ``corpus``; False (its errors written out) on failure.
    With a baseline, its own generator draws the corpus: pages both versions read."""
    source = baseline or REPO
    python = source / ".venv" / "bin" / "python" if baseline else Path(sys.executable)
    done = subprocess.run(
        [str(python), "-m", "bench.generate", "--pages", str(pages), "--seed",
         str(SEED), "--out", str(corpus)],
        capture_output=True, text=True, cwd=source, timeout=3600,
    )  # fmt: skip
    if done.returncode != 0:
        sys.stderr.write(done.stderr)
        return False
    return True


def ingest_step(
    args: argparse.Namespace, pages: int, corpus: Path, work: Path, manifest: dict[str, Any]
) -> dict[str, Any] | None:
    """The ingest measured on ``corpus`` (None with ``--skip-ingest``, which builds the
    store with one untimed ingest)."""
    repeat = args.repeat
    if pages > 100 and args.ingest_repeat:
        repeat = args.ingest_repeat
    if args.skip_ingest:
        log(f"{pages} pages: building the store (load average {load_average()})")
        ingest = None
        build_store(corpus, work)
    else:
        log(f"{pages} pages: ingest ×{repeat} (load average {load_average()})")
        ingest = measure_ingest(corpus, work, manifest, repeat, repeat > 1, args.baseline)
        ingest["load_average"] = load_average()
    return ingest


def queries_step(
    args: argparse.Namespace, pages: int, work: Path
) -> tuple[dict[str, Any], dict[str, float], dict[str, Any]]:
    """The named queries measured over the store in ``work``."""
    log(f"{pages} pages: queries (load average {load_average()})")
    settings = QuerySettings(
        args.requests,
        args.clients,
        args.each,
        args.repeat,
        args.queries.split(","),
        args.throughput_max_ms,
        rdflib=pages <= args.rdflib_max_pages,
        rdflib_requests=args.rdflib_requests,
        rdflib_timeout=args.rdflib_timeout,
        query_timeout=args.query_timeout,
        latency_budget=args.latency_budget,
    )
    return measure_queries(work / "store", work / "store.nq", work, settings)


def validation_sizes(args: argparse.Namespace) -> set[int]:
    """The sizes at which validation is measured: ``--validation-sizes``, else the smallest."""
    if args.validation_sizes:
        return {int(s) for s in args.validation_sizes.split(",")}
    return {min(int(s) for s in args.sizes.split(","))}


def validation_step(args: argparse.Namespace, pages: int, work: Path) -> dict[str, Any]:
    """Validation measured over the store in ``work``, with the limits it was run under."""
    repeat = args.repeat
    if pages > 100 and args.validation_repeat:
        repeat = args.validation_repeat
    log(f"{pages} pages: validation ×{repeat} (load average {load_average()})")
    measured = measure_validation(
        work / "store",
        work,
        repeat,
        page_pyshacl=pages <= args.page_pyshacl_max_pages,
        pyshacl=pages <= args.pyshacl_max_pages,
    )
    result = {
        "pages": pages,
        "pyshacl_max_pages": args.pyshacl_max_pages,
        "page_pyshacl_max_pages": args.page_pyshacl_max_pages,
        **measured,
    }
    result["load_average"] = load_average()
    return result


# The parts of a size that a run measures, each dated by the run that measured it last.
PARTS = ("ingest", "queries")


def merged(sizes: list[dict[str, Any]], measured: dict[str, Any]) -> list[dict[str, Any]]:
    """The report's sizes with ``measured`` added, or, for a size already there (``--append``),
    its parts this run measured replaced and the others kept, with both commands; ``dates``
    gives each part's own date (``date`` is the newest run's)."""
    old = next((s for s in sizes if s["pages"] == measured["pages"]), None)
    if old is None:
        dates = {part: measured["date"] for part in PARTS if measured[part]}
        return [*sizes, {**measured, "dates": dates}]
    new = dict(old)
    new["dates"] = {part: old["date"] for part in PARTS if old[part]} | old.get("dates", {})
    for part in PARTS:
        if measured[part]:
            new[part] = measured[part]
            new["dates"][part] = measured["date"]
    if measured["queries"]:
        new["query_settings"] = measured["query_settings"]
        new["serve_warm"] = measured["serve_warm"]
        new["user_query"] = measured["user_query"]
    new["commands"] = list(old.get("commands", [old["command"]]))
    if measured["command"] not in new["commands"]:
        new["commands"].append(measured["command"])
    new["date"] = measured["date"]
    return [new if s is old else s for s in sizes]


def load_average() -> list[float]:
    """The 1, 5 and 15 minute load averages, rounded (others share this machine)."""
    return [round(x, 2) for x in os.getloadavg()]


def log(text: str) -> None:
    sys.stderr.write(f"[bench] {time.strftime('%H:%M:%S')} {text}\n")
    sys.stderr.flush()


if __name__ == "__main__":
    raise SystemExit(main())
