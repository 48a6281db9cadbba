"""Where a named query's milliseconds go, request by request: ``benchgraph serve`` against
``oxigraph serve-read-only`` on copies of the same store.

    python -m bench.fixed_cost --store /work/corpus/store-1000 --requests 30 \\
        --work /tmp/fixed-cost --out /tmp/fixed-cost/report.md

For each point query (``--queries``), one client asks both servers, in turn, a distinct paper
per request (so benchgraph's answer cache never answers), and the server and its query workers
say what each request spent where. ``benchgraph serve`` runs as a user runs it, in a process of
its own, with timers wrapped around the functions a named query passes through (nothing else
changes); each of its query workers, a fresh interpreter, is started with the same timers
around the engine's steps. Every process writes what it timed, with the times it started and
ended on the system's monotonic clock, to a trace file in ``--work``; a worker's job is matched
to the request whose job it ran by those times. The stages, per request:

- ``client + HTTP + waitress``: the client's time less the app's (the WSGI call): the request
  and answer on the socket, waitress's parsing and its threads handing the request over;
- ``Flask``: the WSGI call less the view: routing, the request and response objects, the
  hooks run after each request (compression, CORS, revalidation);
- ``bind``: the parameters converted to terms (:meth:`benchgraph.queries.NamedQuery.bind`);
- ``lookup (server)``: the rest of looking the paper up (:func:`benchgraph.queries.resolve`),
  in the server; ``lookup hop`` and ``lookup (worker)``: the lookup's job, the hop to a worker
  and back (pickling, the socket, the processes waking) and its run in the worker;
- ``query hop``: the hop of the query's job; in the worker: ``lookups in the job`` (those
  the server asked ahead with the query: :mod:`server.lookahead`), ``substitute`` (the
  parameter written into the text), ``parse + plan`` (the engine given the text: for a query
  that sorts or groups, most of its evaluation), ``evaluate`` (the rows read), ``serialise``
  (SPARQL JSON written), ``worker other``;
- ``respond``: the answer made a response; ``view other``: the rest of the view (format
  negotiation, the cache key and ETag, the cache).

Each stage is reported as the median and the mean over the requests (the medians do not add up
to the median of the whole; the means do, to the mean). The Markdown goes to ``--out`` and the
numbers as JSON beside it.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bench.launch import REPO, Server
from bench.run import load_average, parameter_values
from bench.servers import JSON_RESULTS, Target, start_oxigraph, wait_up, wait_warmed

QUERIES = (
    "methods-introduced-by-paper",
    "methods-reported-by-paper",
    "results-reported-by-paper",
)
STAGES = (
    "client + HTTP + waitress",
    "Flask",
    "bind",
    "lookup (server)",
    "lookup hop",
    "lookup (worker)",
    "query hop",
    "lookups in the job",
    "substitute",
    "parse + plan",
    "evaluate",
    "serialise",
    "worker other",
    "respond",
    "view other",
)

# Run first in each query worker (a fresh interpreter: `python -I -c ...`), the trace file's
# path given as _TRACE: the engine's steps timed, one line per job.
_WORKER_TIMERS = """
import json as _json, time as _time
import benchgraph.answering as _answering, benchgraph.store.embedded as _embedded
import server.engine as _engine, server.results as _results
_spent = {}
_within = [""]  # "check ": inside a lookup run before the job's query (Job.checks)
def _timed(label, fn):
    def timed(*args, **kwargs):
        start = _time.monotonic()
        try:
            return fn(*args, **kwargs)
        finally:
            key = _within[0] + label
            _spent[key] = _spent.get(key, 0.0) + _time.monotonic() - start
    return timed
_answering.run = _timed("run", _answering.run)
_embedded.substitute = _timed("substitute", _embedded.substitute)
_engine._solutions = _timed("solutions", _engine._solutions)
_results.write = _timed("serialise", _results.write)
_query = getattr(_engine, "_answer", None)  # a version without Job.checks has none
_outer = [None]
def _answer(store, job):
    _within[0] = "check " if job is not _outer[0] else ""
    try:
        return _timed("answer", _query)(store, job)
    finally:
        _within[0] = ""
if _query is not None:
    _engine._answer = _answer
_execute = _engine.execute
_out = open(_TRACE, "a", buffering=1)
def _traced(store, job):
    _spent.clear()
    _outer[0] = job
    start = _time.monotonic()
    try:
        return _execute(store, job)
    finally:
        line = {"start": start, "end": _time.monotonic(), "spent": dict(_spent)}
        _out.write(_json.dumps(line) + "\\n")
_engine.execute = _traced
"""


def instrumented_serve(trace: Path, options: list[str]) -> int:
    """Run ``benchgraph serve OPTIONS`` in this process with timers around a named query's
    path, its records written to ``trace``.server.jsonl and its workers' to
    ``trace``.worker.jsonl."""
    import server.app
    import server.named
    import server.workers
    from benchgraph import queries
    from benchgraph.cli import main
    from server.engine import VALUES

    worker_trace = f"{trace}.worker.jsonl"
    server.workers._BOOT = f"_TRACE = {worker_trace!r}\n{_WORKER_TIMERS}\n{server.workers._BOOT}"
    out = open(f"{trace}.server.jsonl", "a", buffering=1)  # noqa: SIM115 (the process's life)
    local = threading.local()

    def timed(label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            start = time.monotonic()
            try:
                return fn(*args, **kwargs)
            finally:
                spent = getattr(local, "spent", None)
                if spent is not None:
                    spent[label] = spent.get(label, 0.0) + time.monotonic() - start

        return wrapped

    pool_run = server.workers.WorkerPool.run

    def run(self: Any, job: Any, time_limit: float | None = None) -> Any:
        start = time.monotonic()
        try:
            return pool_run(self, job, time_limit)
        finally:
            jobs = getattr(local, "jobs", None)
            if jobs is not None:
                kind = "lookup" if getattr(job, "results_format", None) == VALUES else "query"
                jobs.append({"kind": kind, "start": start, "end": time.monotonic()})

    server.workers.WorkerPool.run = run  # type: ignore[method-assign]
    server.named.asked = timed("resolve", server.named.asked)
    if hasattr(server.named, "_at_hand"):  # resolving with every lookup at hand, if it can
        server.named._at_hand = timed("resolve", server.named._at_hand)
    server.named.respond = timed("respond", server.named.respond)
    queries.NamedQuery.bind = timed("bind", queries.NamedQuery.bind)  # type: ignore[method-assign]
    create_app = server.app.create_app

    def created(*args: Any, **kwargs: Any) -> Any:
        app = create_app(*args, **kwargs)
        app.view_functions["named.run"] = timed("view", app.view_functions["named.run"])
        wsgi_app = app.wsgi_app

        def traced(environ: Any, start_response: Any) -> Any:
            local.spent, local.jobs = {}, []
            start = time.monotonic()
            try:
                return wsgi_app(environ, start_response)
            finally:
                end = time.monotonic()
                record = {"path": environ.get("PATH_INFO", ""), "start": start, "end": end}
                out.write(json.dumps({**record, "spent": local.spent, "jobs": local.jobs}) + "\n")
                local.spent = local.jobs = None

        app.wsgi_app = traced  # type: ignore[method-assign]
        return app

    server.app.create_app = created
    return main(["serve", *options])


def wait_things(server: Server, seconds: float) -> None:
    """Wait until the server's log says it has read the things parameters are checked
    against (the first step of its warming), or that it warms nothing."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        text = server.errors()
        if "parameters are checked against" in text or "are not warmed ahead" in text:
            return
        if server.process.poll() is not None:
            raise RuntimeError(f"benchgraph serve stopped; see {server.log}")
        time.sleep(0.5)
    raise RuntimeError(f"benchgraph serve did not read its things in {seconds:.0f} s")


@contextmanager
def benchgraph_serve(store: Path, trace: Path, log: Path, warmed: bool = True) -> Iterator[str]:
    """The instrumented ``benchgraph serve`` on ``store``, once it has warmed its named
    queries (``warmed``), else once it has read the things parameters are checked against
    (its warming goes on meanwhile, in one query worker); its URL."""
    command = [sys.executable, "-m", "bench.fixed_cost", "--serve", str(trace), "--"]
    command += ["--store", str(store), "--port", "0", "--query-timeout", "120"]
    served = Server(command, log)
    try:
        assert served.process.stdout is not None
        line = served.process.stdout.readline()
        if "serving at " not in line:
            raise RuntimeError(f"benchgraph serve did not start: {line}{served.errors()}")
        url = line.split("serving at ", 1)[1].split()[0]
        wait_up(url + "queries")
        if warmed:
            wait_warmed(served, 3600)
        else:
            wait_things(served, 3600)
        yield url
    finally:
        served.stop()


def ask(url: str) -> tuple[float, float]:
    """GET ``url`` for SPARQL JSON; its start and end on the monotonic clock."""
    request = urllib.request.Request(url, headers={"Accept": JSON_RESULTS})
    start = time.monotonic()
    with urllib.request.urlopen(request, timeout=300) as response:
        response.read()
    return start, time.monotonic()


def read_lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def breakdown(
    client: tuple[float, float], server: dict[str, Any], workers: list[dict[str, Any]]
) -> dict[str, float]:
    """One request's stages (ms) from the client's times, the server's record of it and the
    workers' records (matched to its jobs by time)."""
    spent = server["spent"]
    wsgi = server["end"] - server["start"]
    stages = {
        "client + HTTP + waitress": (client[1] - client[0]) - wsgi,
        "Flask": wsgi - spent.get("view", 0.0),
        "bind": spent.get("bind", 0.0),
    }
    jobs = {"lookup": 0.0, "query": 0.0}
    for job in server["jobs"]:
        inside = [w for w in workers if job["start"] <= w["start"] and w["end"] <= job["end"]]
        total = job["end"] - job["start"]
        ran = sum(w["end"] - w["start"] for w in inside)
        jobs[job["kind"]] += total
        if job["kind"] == "lookup":
            stages["lookup hop"] = stages.get("lookup hop", 0.0) + total - ran
            stages["lookup (worker)"] = stages.get("lookup (worker)", 0.0) + ran
            continue
        stages["query hop"] = stages.get("query hop", 0.0) + total - ran
        for w in inside:
            done = w["spent"]
            solutions = done.get("solutions", 0.0)
            substituted = done.get("substitute", 0.0)
            checks = done.get("check answer", 0.0)
            add = {
                "lookups in the job": checks,
                "substitute": substituted,
                "parse + plan": done.get("run", 0.0) - substituted,
                "evaluate": solutions - done.get("serialise", 0.0),
                "serialise": done.get("serialise", 0.0),
                "worker other": (w["end"] - w["start"]) - checks - done.get("run", 0.0) - solutions,
            }
            for key, value in add.items():
                stages[key] = stages.get(key, 0.0) + value
    resolve = spent.get("resolve", 0.0)
    stages["lookup (server)"] = resolve - stages["bind"] - jobs["lookup"]
    stages["respond"] = spent.get("respond", 0.0)
    stages["view other"] = spent.get("view", 0.0) - resolve - jobs["query"] - stages["respond"]
    return {k: stages.get(k, 0.0) * 1000 for k in STAGES}


def measure(
    store: Path, work: Path, names: list[str], requests: int, warmed: bool = True
) -> dict[str, Any]:
    """Each query of ``names`` asked ``requests`` distinct papers of both servers, in turn
    (once benchgraph serve has warmed, or with ``warmed`` False while it warms)."""
    work.mkdir(parents=True, exist_ok=True)
    mine, peer = work / "bg-store", work / "peer-store"
    for copy in (mine, peer):
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(store, copy, ignore=shutil.ignore_patterns("LOCK", "benchgraph-holder*"))
    papers = parameter_values(peer, requests)["paper"]
    trace = work / "trace"
    for suffix in (".server.jsonl", ".worker.jsonl"):
        Path(f"{trace}{suffix}").unlink(missing_ok=True)
    out: dict[str, Any] = {
        "store": str(store),
        "requests": requests,
        "warmed": warmed,
        "queries": {},
    }
    ox_server, ox_url = start_oxigraph(peer)
    try:
        with benchgraph_serve(mine, trace, work / "serve.log", warmed) as url:
            out["load_average"] = load_average()
            for name in names:
                out["queries"][name] = _measure_query(name, url, ox_url, papers, trace)
    finally:
        ox_server.stop()
        for copy in (mine, peer):
            shutil.rmtree(copy, ignore_errors=True)
    return out


def _measure_query(
    name: str, url: str, ox_url: str, papers: list[str], trace: Path
) -> dict[str, Any]:
    text = (REPO / "queries" / f"{name}.rq").read_text(encoding="utf-8")
    peer = Target("oxigraph", ox_url, name, text)
    peer.request(papers[0], True, 0)()  # warm-up, as the first request to benchgraph
    ask(f"{url}queries/{name}?paper={urllib.parse.quote(papers[0], safe='')}")
    server_lines, worker_lines = Path(f"{trace}.server.jsonl"), Path(f"{trace}.worker.jsonl")
    skip_server, skip_worker = len(read_lines(server_lines)), len(read_lines(worker_lines))
    clients, ox_ms = [], []
    for paper in papers[1:]:
        clients.append(ask(f"{url}queries/{name}?paper={urllib.parse.quote(paper, safe='')}"))
        start = time.monotonic()
        peer.request(paper, False, 0)()
        ox_ms.append((time.monotonic() - start) * 1000)
    served = read_lines(server_lines)[skip_server:]
    workers = read_lines(worker_lines)[skip_worker:]
    rows = []
    for client in clients:
        record = next(s for s in served if client[0] <= s["start"] and s["end"] <= client[1])
        rows.append(breakdown(client, record, workers))
    totals = [(c[1] - c[0]) * 1000 for c in clients]
    stages = {k: _summary([r[k] for r in rows]) for k in STAGES}
    bg_p50, ox_p50 = statistics.median(totals), statistics.median(ox_ms)
    return {
        "benchgraph_p50_ms": bg_p50,
        "benchgraph_mean_ms": statistics.mean(totals),
        "oxigraph_p50_ms": ox_p50,
        "oxigraph_mean_ms": statistics.mean(ox_ms),
        "ratio_p50": bg_p50 / ox_p50,
        "stages": stages,
    }


def _summary(values: list[float]) -> dict[str, float]:
    return {"p50": statistics.median(values), "mean": statistics.mean(values)}


def markdown(data: dict[str, Any]) -> str:
    """The report: per query, the stages' medians and means beside oxigraph serve's whole."""
    lines = [
        f"Store {data['store']}, {data['requests']} requests per query (a distinct paper each), "
        f"load average {data['load_average']}, {data['date']}"
        + ("." if data["warmed"] else ", while benchgraph serve warmed its named queries."),
        "",
    ]
    for name, found in data["queries"].items():
        lines += [
            f"**{name}**: benchgraph p50 {found['benchgraph_p50_ms']:.2f} ms (mean "
            f"{found['benchgraph_mean_ms']:.2f}), oxigraph serve p50 "
            f"{found['oxigraph_p50_ms']:.2f} ms (mean {found['oxigraph_mean_ms']:.2f}), "
            f"ratio **{found['ratio_p50']:.2f}×**",
            "",
            "| stage | p50 ms | mean ms |",
            "|---|---|---|",
        ]
        for stage, value in found["stages"].items():
            lines.append(f"| {stage} | {value['p50']:.3f} | {value['mean']:.3f} |")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Measure and write the report; with ``--serve TRACE -- OPTIONS``, be the instrumented
    server (the measurement starts it so)."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--serve"]:
        return instrumented_serve(Path(argv[1]), argv[3:])
    parser = argparse.ArgumentParser(
        prog="python -m bench.fixed_cost",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--store", required=True, type=Path, help="the store (copied, twice)")
    parser.add_argument("--requests", type=int, default=30, help="requests per query")
    parser.add_argument("--queries", default=",".join(QUERIES), help="comma list")
    parser.add_argument("--work", type=Path, default=Path("fixed-cost"), help="working folder")
    parser.add_argument("--out", type=Path, help="the Markdown report (and .json beside it)")
    parser.add_argument(
        "--while-warming",
        action="store_true",
        help="measure once benchgraph serve has read the things parameters are checked against, "
        "while it warms its parameterless named queries (on a large store on a busy machine, "
        "warming takes long)",
    )
    args = parser.parse_args(argv)
    names = args.queries.split(",")
    store, work = args.store.resolve(), args.work.resolve()
    data = measure(store, work, names, args.requests, warmed=not args.while_warming)
    data["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    text = markdown(data)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
        args.out.with_suffix(".json").write_text(json.dumps(data, indent=1), encoding="utf-8")
    sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
