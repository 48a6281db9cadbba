"""Measure benchgraph against peers measured in the same run, and write BENCHMARKS.md/.json.

    python -m bench.run --sizes 100,1000 --repeat 3 --out BENCHMARKS.md

For each size a corpus is generated (``bench.generate``, seed 1) and measured:

1. ingest through the real command (``benchgraph ingest``, a fresh store each run) against the
   floor: pyoxigraph ``Store.bulk_load`` of the same quads (``benchgraph export --format
   nquads``) into a fresh store; peak RSS of the ingest process and store size on disk;
2. named queries over HTTP: ``benchgraph serve`` against ``oxigraph serve-read-only
   --union-default-graph`` on a copy of the store, answering the same SPARQL text (the
   parameter inlined as ``VALUES`` for the peer only): latency percentiles with one client,
   uncached (a distinct parameter value per request) and cached (one value repeated), and
   throughput with several client threads;
3. validation (the smallest size only): ``benchgraph validate`` (page by page) against one
   ``pyshacl.validate`` over the union of the pages loaded into one rdflib graph.

Every timing of ingest, floor, validation and throughput is run ``--repeat`` times after a
warm-up and reported as min/median/max. The Markdown is written to ``--out`` and the same
numbers as JSON beside it (same name, ``.json``), after each size. A ``## Discussion`` section
at the end of an existing report is kept, after the new numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
SEED = 1
JSON_RESULTS = "application/sparql-results+json"
BG = "https://w3id.org/benchgraph/ns#"
QUERIES = (
    "methods-introduced-by-paper",
    "methods-reported-by-paper",
    "results-reported-by-paper",
    "leaderboard",
    "audit-self-reported",
)
PARAM = {
    "methods-introduced-by-paper": "paper",
    "methods-reported-by-paper": "paper",
    "results-reported-by-paper": "paper",
    "leaderboard": "benchmark",
}
DISCUSSION = "## Discussion"
PACKAGES = ("pyoxigraph", "oxigraph", "rdflib", "pyshacl", "flask", "waitress")


def stats(values: Sequence[float]) -> dict[str, float]:
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


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


def ingest_once(pages: Path, store: Path) -> tuple[float, int]:
    """Ingest into a fresh ``store``; return seconds and peak RSS in bytes."""
    shutil.rmtree(store, ignore_errors=True)
    command = [str(BIN / "benchgraph"), "ingest", "--quiet", "--store", str(store), str(pages)]
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
    return seconds, rss


def bulk_load_once(nquads: Path, store: Path) -> float:
    import pyoxigraph as ox

    shutil.rmtree(store, ignore_errors=True)
    start = time.perf_counter()
    target = ox.Store(str(store))
    target.bulk_load(path=str(nquads), format=ox.RdfFormat.N_QUADS)
    target.flush()
    del target
    return time.perf_counter() - start


def measure_ingest(
    pages: Path, work: Path, manifest: dict[str, Any], repeat: int, warmup: bool
) -> dict[str, Any]:
    store = work / "store"
    rss: list[int] = []

    def run() -> float:
        seconds, peak = ingest_once(pages, store)
        rss.append(peak)
        return seconds

    times = repeated(run, repeat, warmup)
    rss = rss[-repeat:]
    nquads = work / "store.nq"
    done = cli("export", "--format", "nquads", "--store", str(store), "--out", str(nquads))
    if done.returncode != 0:
        raise RuntimeError(f"export failed: {done.stderr}")
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
    }


# ---------------------------------------------------------------------------------------------
# 2. Named queries over HTTP


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_up(url: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except urllib.error.HTTPError:
            return
        except (urllib.error.URLError, ConnectionError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


class Server:
    """A server process, stopped (SIGTERM, by its own pid) on exit."""

    def __init__(self, command: list[str]) -> None:
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=REPO
        )

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start_benchgraph(store: Path) -> tuple[Server, str]:
    server = Server([str(BIN / "benchgraph"), "serve", "--store", str(store), "--port", "0"])
    assert server.process.stdout is not None
    line = server.process.stdout.readline()
    found = re.search(r"serving at (\S+)", line)
    if not found:
        server.stop()
        raise RuntimeError(f"benchgraph serve did not start: {line!r}")
    url = found.group(1)
    wait_up(url + "queries")
    return server, url


def start_oxigraph(store: Path) -> tuple[Server, str]:
    port = free_port()
    server = Server(
        [
            str(BIN / "oxigraph"),
            "serve-read-only",
            "--location",
            str(store),
            "--bind",
            f"127.0.0.1:{port}",
            "--union-default-graph",
        ]
    )
    url = f"http://127.0.0.1:{port}/"
    wait_up(url + "query?query=" + urllib.parse.quote("ASK {}"))
    return server, url


def get(url: str, data: bytes | None = None, content_type: str | None = None) -> int:
    """One request; return the number of result rows (raise on an error status)."""
    headers = {"Accept": JSON_RESULTS}
    if content_type:
        headers["Content-Type"] = content_type
    request = urllib.request.Request(url, data=data, headers=headers)
    with urllib.request.urlopen(request, timeout=300) as response:
        body = json.loads(response.read())
    return len(body["results"]["bindings"])


def inline(text: str, name: str, iri: str) -> str:
    """The query text with ``VALUES ?name { <iri> }`` at the start of the innermost group
    around each use of ``?name`` in a pattern or filter: the peer has no substitutions, and
    this binds the parameter wherever the embedded store substitutes it."""
    body = re.sub(r"(?m)^\s*#.*$", "", text)
    points = set()
    for use in re.finditer(rf"\?{name}\b", body):
        line_start = body.rfind("\n", 0, use.start()) + 1
        before = body[line_start : use.start()].upper().lstrip()
        if ("SELECT" in before and "WHERE" not in before) or before.startswith(
            ("(", "GROUP BY", "ORDER BY")
        ):
            continue
        depth, at = 0, use.start()
        while at > 0:
            at -= 1
            if body[at] == "}":
                depth += 1
            elif body[at] == "{":
                if depth == 0:
                    break
                depth -= 1
        points.add(at + 1)
    for at in sorted(points, reverse=True):
        body = body[:at] + f" VALUES ?{name} {{ <{iri}> }} " + body[at:]
    return body


class Target:
    """How one server is asked one query with one parameter value."""

    def __init__(self, kind: str, base: str, name: str, text: str) -> None:
        self.kind, self.base, self.name, self.text = kind, base, name, text

    def request(self, value: str | None, cached: bool, n: int) -> Callable[[], int]:
        param = PARAM.get(self.name)
        if self.kind == "benchgraph":
            if param is None and not cached:
                # A query without parameters: the endpoint, which caches nothing, with the
                # same text made distinct by a comment.
                data = urllib.parse.urlencode({"query": f"{self.text}\n# {n}"}).encode()
                form = "application/x-www-form-urlencoded"
                return lambda: get(self.base + "sparql", data, form)
            query = urllib.parse.urlencode({param: value} if param and value else {})
            url = f"{self.base}queries/{self.name}" + (f"?{query}" if query else "")
            return lambda: get(url)
        text = inline(self.text, param, value) if param and value else self.text
        data = urllib.parse.urlencode({"query": text}).encode()
        form = "application/x-www-form-urlencoded"
        return lambda: get(self.base + "query", data, form)


def timed(call: Callable[[], int]) -> tuple[float, int]:
    start = time.perf_counter()
    rows = call()
    return time.perf_counter() - start, rows


def latency(target: Target, values: list[str | None], cached: bool) -> dict[str, Any]:
    """Latency of one client; an error answer (a time-out, say) is counted, not timed."""
    timings, rows, errors = [], [], 0
    try:
        target.request(values[0], True, 0)()  # warm-up
    except (urllib.error.URLError, TimeoutError):
        errors += 1
    series = [values[0]] * len(values) if cached else values
    for n, value in enumerate(series, start=1):
        try:
            seconds, count = timed(target.request(value, cached, n))
        except (urllib.error.URLError, TimeoutError):
            errors += 1
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
        "rows": sum(rows),
    }


def throughput(target: Target, values: list[str | None], clients: int, each: int) -> float:
    calls = [target.request(v, True, 0) for v in values]
    errors: list[Exception] = []

    def client(offset: int) -> None:
        for i in range(each):
            try:
                calls[(offset + i) % len(calls)]()
            except (urllib.error.URLError, TimeoutError) as error:
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
        answer = graph.query(query, use_default_graph_as_union=True)
        assert isinstance(answer, ox.QuerySolutions)
        return [str(getattr(s[0], "value", s[0])) for s in answer]

    papers = column(
        f"SELECT DISTINCT ?p WHERE {{ ?m <{BG}introducedIn> ?p . ?r <{BG}reportedIn> ?p }}"
        " ORDER BY ?p"
    )
    benchmarks = column(f"SELECT DISTINCT ?b WHERE {{ ?b a <{BG}Benchmark> }} ORDER BY ?b")
    return {"paper": papers[: count + 1], "benchmark": benchmarks[: count + 1]}


def measure_queries(
    store: Path,
    work: Path,
    requests: int,
    clients: int,
    each: int,
    repeat: int,
    names: Sequence[str] = QUERIES,
) -> dict[str, Any]:
    peer_store = work / "peer-store"
    shutil.rmtree(peer_store, ignore_errors=True)
    shutil.copytree(store, peer_store, ignore=shutil.ignore_patterns("LOCK"))
    values = parameter_values(store, requests)
    texts = {name: (REPO / "queries" / f"{name}.rq").read_text(encoding="utf-8") for name in names}
    out: dict[str, Any] = {}
    servers: list[Server] = []
    try:
        bg_server, bg_url = start_benchgraph(store)
        servers.append(bg_server)
        ox_server, ox_url = start_oxigraph(peer_store)
        servers.append(ox_server)
        for name in names:
            param = PARAM.get(name)
            series: list[str | None] = list(values[param]) if param else [None] * (requests + 1)
            row: dict[str, Any] = {"parameter": param, "distinct_values": len(series) - 1}
            for kind, base in (("benchgraph", bg_url), ("oxigraph", ox_url)):
                target = Target(kind, base, name, texts[name])

                def load(t: Target = target, s: list[str | None] = series) -> float:
                    return throughput(t, s, clients, each)

                row[kind] = {
                    "uncached": latency(target, series, cached=False),
                    "cached": latency(target, series[: requests + 1], cached=True),
                    "throughput_qps": stats(repeated(load, repeat)),
                }
            bg, peer = row["benchgraph"], row["oxigraph"]
            row["same_rows"] = bg["uncached"]["rows"] == peer["uncached"]["rows"]
            row["ratio_p50_uncached"] = bg["uncached"]["p50_ms"] / peer["uncached"]["p50_ms"]
            row["ratio_p50_cached"] = bg["cached"]["p50_ms"] / peer["cached"]["p50_ms"]
            row["ratio_throughput"] = (
                bg["throughput_qps"]["median"] / peer["throughput_qps"]["median"]
            )
            out[name] = row
    finally:
        for server in servers:
            server.stop()
        shutil.rmtree(peer_store, ignore_errors=True)
    return out


# ---------------------------------------------------------------------------------------------
# 3. Validation


Finding = tuple[str, str, str]  # severity, focus, shape


def validate_once(store: Path) -> tuple[float, set[Finding]]:
    start = time.perf_counter()
    done = cli("validate", "--no-save", "--format", "json", "--store", str(store))
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise RuntimeError(f"validate failed: {done.stderr}")
    report = json.loads(done.stdout)
    return seconds, {(f["severity"], f["focus"], f["shape"]) for f in report["findings"]}


def pyshacl_once(nquads: Path) -> tuple[float, float, set[Finding]]:
    import pyoxigraph as ox
    import pyshacl
    import rdflib

    from benchgraph import validation

    start = time.perf_counter()
    union = rdflib.Graph()
    with nquads.open("rb") as source:
        text = b"".join(
            f"{q.subject} {q.predicate} {q.object} .\n".encode()
            for q in ox.parse(source, format=ox.RdfFormat.N_QUADS)
            if not str(getattr(q.graph_name, "value", "")).startswith(validation.REPORT_GRAPHS)
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


def measure_validation(store: Path, work: Path, repeat: int) -> dict[str, Any]:
    runs = [validate_once(store) for _ in range(repeat + 1)][1:]
    nquads = work / "store.nq"
    peer = [pyshacl_once(nquads) for _ in range(repeat + 1)][1:]
    ours, theirs = runs[-1][1], peer[-1][2]
    cross = {x for x in ours if "#check-" in x[2]}  # the cross-page SPARQL checks
    pages = ours - cross
    ours_s, peer_s = stats([r[0] for r in runs]), stats([p[0] for p in peer])
    return {
        "runs": repeat,
        "validate_s": ours_s,
        "pyshacl_s": peer_s,
        "pyshacl_load_s": stats([p[1] for p in peer]),
        "ratio_pyshacl_over_validate": peer_s["median"] / ours_s["median"],
        "findings_validate": dict(sorted(Counter(x[0] for x in ours).items())),
        "findings_pyshacl": dict(sorted(Counter(x[0] for x in theirs).items())),
        "cross_page_findings": len(cross),
        "common": len(pages & theirs),
        "only_validate": len(pages - theirs),
        "only_pyshacl": len(theirs - pages),
        "same_findings": pages == theirs,
    }


# ---------------------------------------------------------------------------------------------
# Report


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
    return f"{value:,.{digits}f}"


def mmm(s: dict[str, float], digits: int = 2) -> str:
    return f"{f(s['min'], digits)} / **{f(s['median'], digits)}** / {f(s['max'], digits)}"


def markdown(data: dict[str, Any]) -> str:
    m = data["machine"]
    lines = [
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
        f"- {m['platform']}, Python {m['python']}",
        "- " + ", ".join(f"{k} {v}" for k, v in m["packages"].items()),
        "",
        "## Command",
        "",
        "```",
        data["command"],
        "```",
        "",
        "## 1. Ingest vs the bulk-load floor",
        "",
        "`benchgraph ingest` as a process (a fresh store each run; parse, validate with pyshacl "
        "page by page, write each page's graph and report in one transaction) against "
        "pyoxigraph `Store.bulk_load` of the same quads (`benchgraph export --format nquads`) "
        "into a fresh store, in-process. Peak RSS is that of the ingest process.",
        "",
        "| pages | results | quads | runs | ingest s | pages/s | results/s | floor s "
        "| floor results/s | ingest/floor | peak RSS MB | store MB |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for size in data["sizes"]:
        i = size["ingest"]
        lines.append(
            f"| {i['pages']} | {i['results']} | {i['quads']} | {i['runs']} | {mmm(i['ingest_s'])} "
            f"| {mmm(i['pages_per_s'], 1)} | {mmm(i['results_per_s'], 0)} "
            f"| {mmm(i['floor_s'], 3)} | {mmm(i['floor_results_per_s'], 0)} "
            f"| **{f(i['ratio_ingest_over_floor'], 1)}×** | {mmm(i['peak_rss_mb'], 0)} "
            f"| {f(i['store_mb'], 0)} |"
        )
    q = data["query_settings"]
    lines += [
        "",
        "## 2. Named queries over HTTP: benchgraph serve vs oxigraph serve",
        "",
        "`benchgraph serve` (GET `/queries/NAME?param=IRI`) against `oxigraph serve-read-only "
        "--union-default-graph` on a copy of the same store (POST `/query` with the same text, "
        "the parameter inlined as `VALUES`). Both answer SPARQL JSON results. **Uncached**: one "
        f"client, up to {q['requests']} requests, each with a different parameter value "
        "(benchgraph caches named-query answers per store generation, so a repeated value "
        "would be a cache hit); `audit-self-reported` has no parameter, so its uncached series "
        "goes to benchgraph's `/sparql` endpoint (no cache) with the text made distinct by a "
        "comment. **Cached**: one value repeated. **Throughput**: "
        f"{q['clients']} client threads × {q['each']} requests cycling over the values "
        "(for benchgraph these are cache hits by then). Ratios are benchgraph / oxigraph "
        "(latency: lower is better for benchgraph; throughput: higher is).",
        "",
        "| pages | query | n | benchgraph p50 / p95 / p99 ms | oxigraph p50 / p95 / p99 ms "
        "| p50 ratio | cached p50 ms bg / ox | cached ratio | bg q/s | ox q/s | q/s ratio "
        "| same rows |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for size in data["sizes"]:
        for name, row in size["queries"].items():
            bg, ox_ = row["benchgraph"], row["oxigraph"]
            u, v = bg["uncached"], ox_["uncached"]
            lines.append(
                f"| {size['pages']} | {name} | {u['requests']}"
                + (f" ({u['errors']} errors)" if u.get("errors") else "")
                + " "
                f"| {f(u['p50_ms'])} / {f(u['p95_ms'])} / {f(u['p99_ms'])} "
                f"| {f(v['p50_ms'])} / {f(v['p95_ms'])} / {f(v['p99_ms'])} "
                f"| **{f(row['ratio_p50_uncached'])}×** "
                f"| {f(bg['cached']['p50_ms'])} / {f(ox_['cached']['p50_ms'])} "
                f"| {f(row['ratio_p50_cached'])}× | {mmm(bg['throughput_qps'], 0)} "
                f"| {mmm(ox_['throughput_qps'], 0)} | {f(row['ratio_throughput'])}× "
                f"| {'yes' if row['same_rows'] else 'NO'} |"
            )
    v = data.get("validation")
    lines += [
        "",
        "## 3. Validation: page by page vs whole-graph pyshacl",
        "",
    ]
    if v:
        lines += [
            f"At {v['pages']} pages. `benchgraph validate --no-save` as a process (every page "
            "with pyshacl, then the cross-page SPARQL checks) against one `pyshacl.validate` "
            "(same shapes, `inference='none'`, `inplace=True`) over the union of the page "
            "graphs loaded into one rdflib graph; the rdflib load is timed apart and not "
            "counted.",
            "",
            "Findings are compared as distinct (severity, focus node, shape) triples; the "
            "cross-page checks, which only `validate` runs, are counted apart.",
            "",
            "| pages | runs | validate s | pyshacl s | pyshacl/validate | rdflib load s "
            "| findings validate | findings pyshacl | cross-page | common | only validate "
            "| only pyshacl | same findings |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
            f"| {v['pages']} | {v['runs']} | {mmm(v['validate_s'])} | {mmm(v['pyshacl_s'])} "
            f"| **{f(v['ratio_pyshacl_over_validate'], 1)}×** | {mmm(v['pyshacl_load_s'])} "
            f"| {_counts(v['findings_validate'])} | {_counts(v['findings_pyshacl'])} "
            f"| {v['cross_page_findings']} | {v['common']} | {v['only_validate']} "
            f"| {v['only_pyshacl']} | {'yes' if v['same_findings'] else 'no'} |",
        ]
    lines += ["", "## Targets", "", *data.get("verdicts", ["(see the tables)"]), ""]
    return "\n".join(lines)


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{v} {k}" for k, v in counts.items()) or "none"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__)
    parser.add_argument("--sizes", default="100,1000", help="corpus sizes in pages")
    parser.add_argument("--repeat", type=int, default=5, help="runs per timing, after a warm-up")
    parser.add_argument(
        "--ingest-repeat",
        type=int,
        help="runs of the ingest timing above 100 pages (default --repeat); 1 skips its warm-up",
    )
    parser.add_argument("--requests", type=int, default=50, help="latency requests per query")
    parser.add_argument("--clients", type=int, default=8, help="throughput client threads")
    parser.add_argument("--each", type=int, default=25, help="throughput requests per client")
    parser.add_argument(
        "--query-max-pages",
        type=int,
        default=10**9,
        help="measure the HTTP queries only at sizes up to this many pages",
    )
    parser.add_argument(
        "--queries", default=",".join(QUERIES), help="the named queries to measure (comma list)"
    )
    parser.add_argument("--out", default="BENCHMARKS.md", help="the Markdown report")
    parser.add_argument("--work", help="working folder (default: a temporary one)")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    out = Path(args.out)
    command = "python -m bench.run " + " ".join(sys.argv[1:] if argv is None else list(argv))
    data: dict[str, Any] = {
        "command": command,
        "machine": machine(),
        "seed": SEED,
        "repeat": args.repeat,
        "query_settings": {"requests": args.requests, "clients": args.clients, "each": args.each},
        "sizes": [],
    }
    with tempfile.TemporaryDirectory(prefix="bench-", dir=args.work) as tmp:
        for pages in sizes:
            work = Path(tmp) / str(pages)
            corpus = work / "corpus"
            done = subprocess.run(
                [sys.executable, "-m", "bench.generate", "--pages", str(pages), "--seed",
                 str(SEED), "--out", str(corpus)],
                capture_output=True, text=True, cwd=REPO, timeout=3600,
            )  # fmt: skip
            if done.returncode != 0:
                sys.stderr.write(done.stderr)
                return 2
            manifest = json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))
            repeat = args.repeat
            if pages > 100 and args.ingest_repeat:
                repeat = args.ingest_repeat
            log(f"{pages} pages: ingest ×{repeat}")
            ingest = measure_ingest(corpus / "pages", work, manifest, repeat, warmup=repeat > 1)
            queries: dict[str, Any] = {}
            if pages <= args.query_max_pages:
                log(f"{pages} pages: queries")
                queries = measure_queries(
                    work / "store",
                    work,
                    args.requests,
                    args.clients,
                    args.each,
                    args.repeat,
                    args.queries.split(","),
                )
            data["sizes"].append({"pages": pages, "ingest": ingest, "queries": queries})
            if pages == min(sizes):
                log(f"{pages} pages: validation")
                data["validation"] = {"pages": pages, **measure_validation(
                    work / "store", work, args.repeat
                )}  # fmt: skip
            write(out, data)
    write(out, data)
    log(f"wrote {out} and {out.with_suffix('.json')}")
    return 0


def write(out: Path, data: dict[str, Any]) -> None:
    """Write the report so far (after each size, so a long run leaves what it measured)."""
    data["verdicts"] = verdicts(data)
    kept = ""  # the hand-written discussion of an earlier report stays, after the numbers
    if out.exists():
        previous = out.read_text(encoding="utf-8")
        if DISCUSSION in previous:
            kept = "\n" + previous[previous.index(DISCUSSION) :]
    out.write_text(markdown(data) + kept, encoding="utf-8")
    out.with_suffix(".json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def log(text: str) -> None:
    sys.stderr.write(f"[bench] {time.strftime('%H:%M:%S')} {text}\n")
    sys.stderr.flush()


def verdicts(data: dict[str, Any]) -> list[str]:
    """One line per target, from the numbers (the prose in BENCHMARKS.md explains them)."""
    lines = []
    for size in data["sizes"]:
        r = size["ingest"]["ratio_ingest_over_floor"]
        lines.append(
            f"- ingest within 3× of the bulk-load floor at {size['pages']} pages: "
            f"{'met' if r <= 3 else 'missed'} ({f(r, 1)}×)"
        )
    for size in [s for s in data["sizes"] if s["queries"]]:
        named = [n for n in size["queries"] if n in PARAM]
        worst = max(size["queries"][n]["ratio_p50_uncached"] for n in named)
        lines.append(
            f"- named-query p50 (uncached) within 1.2× of oxigraph serve at {size['pages']} "
            f"pages: {'met' if worst <= 1.2 else 'missed'} (worst {f(worst)}×)"
        )
    for size in [s for s in data["sizes"] if s["queries"]]:
        if "audit-self-reported" not in size["queries"]:
            continue
        audit = size["queries"]["audit-self-reported"]["benchgraph"]
        p50 = audit["uncached"]["p50_ms"]
        lines.append(
            f"- audit aggregate under 100 ms at {size['pages']} pages: "
            f"{'met' if p50 < 100 else 'missed'} (uncached p50 {f(p50)} ms, cached "
            f"{f(audit['cached']['p50_ms'])} ms)"
        )
    v = data.get("validation")
    if v:
        r = v["ratio_pyshacl_over_validate"]
        lines.append(
            f"- validate ≥ 5× faster than whole-graph pyshacl at {v['pages']} pages: "
            f"{'met' if r >= 5 else 'missed'} ({f(r, 1)}×)"
        )
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
