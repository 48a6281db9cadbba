"""Endurance: a real ``benchgraph serve`` over a store of realistic size, at a steady rate of
mixed requests for half an hour, its memory sampled all along.

    python -m bench.endurance --minutes 30 --out RELIABILITY.md

A corpus of ``--pages`` synthetic pages (:mod:`bench.generate`, seed 1; 1,000 by default) is
ingested into a store in ``--work`` (a temporary folder unless given; a store already there is
served again), and the store is served as a user serves it (``benchgraph serve --port 0``, the
default settings). Once the server has warmed its named queries:

1. **Idle**: the board pages (``/page/benchmark/...``) of ``--idle`` benchmarks set aside for
   this, one request at a time, each asked twice: the first answer (nothing cached) and the
   second (the same generation's answers known);
2. **Load**: for ``--minutes``, requests sent at ``--rate`` per second, on a schedule that does
   not wait for the answers (a slow answer does not slow the load down), drawn at random
   (seeded) among: board pages of the other benchmarks, other site pages (a method, a result,
   a paper), named queries with and without parameters, SPARQL on ``/sparql`` and site search.

Every answer is checked as :mod:`bench.soak` checks it (status, media type, body parsed in its
format, error bodies in the error shape and without the server's insides). The resident memory
(VmRSS) of the server process and of its query workers is read from ``/proc`` every
``--interval`` seconds. The report gives the memory's slope after warming up (least squares over
the last two thirds of the run, MB per minute), its median over the first and the last third,
and the latency percentiles per kind, the board pages' beside their idle ones.

A **failure** is any request without an answer or answered otherwise than 200, any answer that
does not check out, the server process's slope above ``--max-slope`` MB/min, or the board
pages' p99 under load above ``--max-board-ratio`` times their idle p99 (first answers).

The report is printed and written as the ``## Memory and load`` section of ``--out`` (the rest of
that file is kept), its figures as JSON to ``--json``. Exit code 0 without failure, 1 with one,
2 when the store or the server could not be made.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bench import generate, launch, soak
from bench.report import machine
from bench.run import percentile

REPO = Path(__file__).resolve().parents[1]
SECTION = "## Memory and load"
KINDS = ("board", "page", "named", "sparql", "search")
WEIGHTS = (25, 20, 25, 20, 10)
WORDS = ("net", "bert", "res", "vision", "former", "large", "base", "graph", "gpt", "v2")
READY_SECONDS = 600  # the most the server may take to warm its named queries


@dataclass
class Targets:
    """What the load asks about: benchmark IRIs (their board pages) set aside for the idle
    measurement and for the load, other resources' IRIs, and :class:`bench.soak.Data`."""

    idle: list[str]
    boards: list[str]
    others: list[str]
    data: soak.Data


@dataclass
class Run:
    """What became of the requests and the memory samples."""

    settings: dict[str, Any]
    idle_first: list[float] = field(default_factory=list)
    idle_again: list[float] = field(default_factory=list)
    records: list[soak.Record] = field(default_factory=list)
    samples: list[soak.Sample] = field(default_factory=list)
    late: int = 0  # requests sent more than a second after their time (every client busy)
    refused: Counter[str] = field(default_factory=Counter)  # "status path" of those not 200
    seconds: float = 0.0

    def timings(self, kind: str) -> list[float]:
        return [r.seconds for r in self.records if r.kind == kind and r.status == 200]

    def memory_mb(self, attribute: str) -> list[tuple[float, float]]:
        """(minutes since the load began, MB) per sample, of ``server_kb``, ``workers_kb`` or
        both together (``total_kb``)."""
        found = []
        for s in self.samples:
            kb = s.server_kb + s.workers_kb if attribute == "total_kb" else getattr(s, attribute)
            found.append((s.at / 60, kb / 1024))
        return found

    def slope(self, attribute: str, thirds: int = 2) -> float:
        """MB per minute: the least-squares slope over the last ``thirds`` thirds of the
        samples."""
        points = self.memory_mb(attribute)
        points = points[len(points) * (3 - thirds) // 3 :]
        if len(points) < 2:
            return 0.0
        return statistics.linear_regression([t for t, _ in points], [m for _, m in points]).slope

    def thirds(self, attribute: str) -> tuple[float, float]:
        """The median MB over the first third of the samples and over the last third."""
        values = [m for _, m in self.memory_mb(attribute)]
        third = max(1, len(values) // 3)
        return statistics.median(values[:third]), statistics.median(values[-third:])

    def board_ratio(self) -> float:
        """The board pages' p99 under load over their idle p99 (first answers)."""
        loaded = self.timings("board")
        if not loaded or not self.idle_first:
            return 0.0
        return percentile(loaded, 99) / percentile(self.idle_first, 99)

    def failures(self) -> list[str]:
        """Every failure (see the module's docstring), one line each."""
        found = Counter(
            f"{r.kind}: {r.problem or f'{r.status} answered'}"
            for r in self.records
            if r.problem or r.status != 200
        )
        lines = [f"{n} × {what}" for what, n in found.most_common()]
        slope, most = self.slope("server_kb"), float(self.settings["max_slope"])
        if len(self.samples) >= 3 and slope > most:
            lines.append(f"the server process grew {slope:.2f} MB/min (at most {most:g})")
        ratio, bound = self.board_ratio(), float(self.settings["max_board_ratio"])
        if ratio > bound:  # the p99s of the board pages under load and idle (first answers)
            lines.append(f"board pages: p99 {ratio:.1f}× the idle one (at most {bound:g}×)")
        return lines


# ---------------------------------------------------------------------------------------------
# What to ask


def discover(base: str, idle: int, seed: int) -> Targets:
    """The benchmarks, papers and other resources of the store served at ``base``; ``idle``
    benchmarks (drawn with ``seed``) are set aside for the idle measurement."""
    client = soak.Client(base, 600)

    def rows(path: str) -> list[dict[str, Any]]:
        request = soak.Request("", "GET", path, "json", headers=(("Accept", "application/json"),))
        status, _, body, _, problem = client.send(request)
        if status != 200:
            raise RuntimeError(f"{path}: {status} {problem} {body[:300]!r}")
        return list(json.loads(body)["results"]["bindings"])

    text = (REPO / "bench" / "queries" / "endurance-resources.rq").read_text(encoding="utf-8")
    try:
        found = rows("/queries/benchmarks")
        papers = [row["paper"]["value"] for row in rows("/queries/papers")]
        sampled = rows("/sparql?" + urllib.parse.urlencode({"query": text}))
    finally:
        client.close()
    benchmarks = [row["benchmark"]["value"] for row in found]
    labels = [row["label"]["value"] for row in found if "label" in row]
    others = [row["resource"]["value"] for row in sampled]
    if len(benchmarks) <= idle or not (papers and others):
        raise RuntimeError("the served store holds too few benchmarks, papers or resources")
    rng = random.Random(seed)
    set_aside = set(rng.sample(benchmarks, idle))
    boards = [b for b in benchmarks if b not in set_aside]
    return Targets(sorted(set_aside), boards, others + papers, soak.Data(papers, labels, others))


def page_path(iri: str) -> str:
    """The site page of a resource of the store."""
    return "/page/" + iri[len(soak.V.ID) :]


def html(kind: str, path: str) -> soak.Request:
    return soak.Request(kind, "GET", path, "html", headers=(("Accept", "text/html"),))


def request_maker(targets: Targets, rng: random.Random) -> Callable[[], soak.Request]:
    """A function drawing the load's next request."""
    makers: dict[str, Callable[[], soak.Request]] = {
        "board": lambda: html("board", page_path(rng.choice(targets.boards))),
        "page": lambda: html("page", page_path(rng.choice(targets.others))),
        "named": lambda: soak.named(targets.data, rng),
        "sparql": lambda: soak.select(targets.data, rng),
        "search": lambda: html("search", "/search?q=" + rng.choice(WORDS)),
    }

    def draw() -> soak.Request:
        kind = rng.choices(KINDS, WEIGHTS)[0]
        return replace(makers[kind](), kind=kind)

    return draw


# ---------------------------------------------------------------------------------------------
# The run


def ask(client: soak.Client, request: soak.Request, started: float) -> soak.Record:
    """Send ``request`` and judge its answer; ``start`` counted from ``started``."""
    begin = time.monotonic()
    status, content_type, body, _, trouble = client.send(request)
    spent = time.monotonic() - begin
    problem = trouble or soak.judge(request, status, content_type, body)
    return soak.Record(request.kind, begin - started, spent, status, problem)


def measure_idle(base: str, targets: Targets, run: Run) -> None:
    """Each set-aside board page asked twice, one request at a time."""
    client = soak.Client(base, 600)
    for iri in targets.idle:
        for timings in (run.idle_first, run.idle_again):
            record = ask(client, html("idle", page_path(iri)), time.monotonic())
            if record.problem or record.status != 200:
                run.records.append(record)
            else:
                timings.append(record.seconds)
    client.close()


def load(base: str, pid: int, targets: Targets, run: Run, rate: float, minutes: float) -> None:
    """Requests at ``rate`` per second for ``minutes``, each on a keep-alive connection of the
    client thread that sends it; the memory of process ``pid`` and its children sampled."""
    draw = request_maker(targets, random.Random(int(run.settings["seed"])))
    local = threading.local()
    clients: list[soak.Client] = []
    lock = threading.Lock()
    started = time.monotonic()
    stop = threading.Event()

    def send(request: soak.Request, due: float) -> None:
        if not hasattr(local, "client"):
            local.client = soak.Client(base, 600)
            with lock:
                clients.append(local.client)
        record = ask(local.client, request, started)
        with lock:
            run.records.append(record)
            if record.status != 200:
                run.refused[f"{record.status} {request.path.split('?')[0]}"] += 1
            run.late += record.start - due > 1.0

    def sampler() -> None:
        while not stop.is_set():
            run.samples.append(soak.sample(pid, time.monotonic() - started))
            stop.wait(float(run.settings["interval"]))

    watcher = threading.Thread(target=sampler, daemon=True)
    watcher.start()
    total = int(minutes * 60 * rate)
    with ThreadPoolExecutor(int(run.settings["clients"]), "endurance") as pool:
        for number in range(total):
            due = number / rate
            wait = started + due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            pool.submit(send, draw(), due)
    stop.set()
    watcher.join(60)
    for client in clients:
        client.close()
    run.seconds = time.monotonic() - started
    run.records.sort(key=lambda r: r.start)


def warmed(served: launch.Served) -> bool:
    """Wait until the server says it has warmed its named queries (True), or has stopped."""
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline and served.process.poll() is None:
        if "warmed " in served.errors():
            return True
        time.sleep(0.5)
    return False


def endure(args: argparse.Namespace, run: Run) -> int | None:
    """Build (or reuse) the store, serve it, measure idle and under load; the server's exit
    code, or None (why written out) when the store or the server could not be made."""
    work = args.work or Path(tempfile.mkdtemp(prefix="benchgraph-endurance-"))
    store = work / "store"
    try:
        if not store.is_dir():
            corpus = work / "corpus"
            shutil.rmtree(corpus, ignore_errors=True)
            generate.generate(corpus, args.pages, 1)
            if not soak.ingest(corpus / generate.PAGES_DIR, store):
                return None
        try:
            served = launch.Served(store, "--workers", str(args.workers))
        except RuntimeError as error:
            sys.stderr.write(f"{error}\n")
            return None
        try:
            if not warmed(served):
                sys.stderr.write(f"the server did not warm its queries:\n{served.errors()}\n")
                return None
            targets = discover(served.url, args.idle, args.seed)
            measure_idle(served.url, targets, run)
            load(served.url, served.process.pid, targets, run, args.rate, args.minutes)
        finally:
            code = served.stop(60)
        return code
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# The report


def _ms(values: Sequence[float], p: float) -> str:
    return f"{percentile(values, p) * 1000:,.0f}" if values else "–"


def markdown(run: Run, command: str, facts: dict[str, Any]) -> str:
    """The ``## Memory and load`` section of RELIABILITY.md."""
    s = run.settings
    lines = [
        f"{SECTION}: `bench/endurance.py`",
        "",
        f"A real `benchgraph serve` (default settings: {s['workers']} query workers, 8 HTTP "
        f"threads) on a store of {s['pages']:,} generated pages, sent {s['rate']:g} requests a "
        f"second for {s['minutes']:g} minutes on a schedule that does not wait for answers: "
        "board pages (`/page/benchmark/...`), other site pages, named queries, SPARQL and "
        "site search. Every answer is checked as the load above checks it. The resident memory "
        f"of the server and its query workers is read every {s['interval']:g} s. Before the "
        f"load, the board pages of {s['idle']} benchmarks kept out of it are asked one at a "
        "time, twice each: *idle, first* is an answer nothing was cached for, *idle, again* "
        "the same page once more.",
        "",
        "```sh",
        command,
        "```",
        "",
        f"- date: {facts['date']}; nproc: {facts['nproc']} ({facts['cpu']}), memory: "
        f"{facts['memory_gb']} GB, load average before: {facts['load_average']}",
        f"- {facts['platform']}, Python {facts['python']}; "
        + ", ".join(f"{k} {v}" for k, v in facts["packages"].items()),
        "",
        "| resident memory | first third, median MB | last third, median MB | slope, last two "
        "thirds, MB/min | slope, last third, MB/min |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for label, attribute in (("server process", "server_kb"), ("query workers", "workers_kb"),
                             ("together", "total_kb")):  # fmt: skip
        first, last = run.thirds(attribute)
        lines.append(
            f"| {label} | {first:,.1f} | {last:,.1f} | {run.slope(attribute):+.3f} | "
            f"{run.slope(attribute, 1):+.3f} |"
        )
    lines += [
        "",
        f"{len(run.samples)} samples; a slope is the least-squares line through the samples of "
        "the last two thirds of the run (after warming up) or of its last third.",
        "",
        "| requests | n | statuses | p50 ms | p95 ms | p99 ms |",
        "| --- | ---: | --- | ---: | ---: | ---: |",
        f"| board pages, idle, first | {len(run.idle_first)} | | {_ms(run.idle_first, 50)} | "
        f"{_ms(run.idle_first, 95)} | {_ms(run.idle_first, 99)} |",
        f"| board pages, idle, again | {len(run.idle_again)} | | {_ms(run.idle_again, 50)} | "
        f"{_ms(run.idle_again, 95)} | {_ms(run.idle_again, 99)} |",
    ]
    for kind in KINDS:
        times = run.timings(kind)
        statuses = Counter(r.status for r in run.records if r.kind == kind)
        shown = ", ".join(f"{k or 'none'}: {n:,}" for k, n in sorted(statuses.items()))
        lines.append(
            f"| {kind} under load | {len(times):,} | {shown} | {_ms(times, 50)} | "
            f"{_ms(times, 95)} | {_ms(times, 99)} |"
        )
    failures = run.failures()
    lines += [
        "",
        f"- board pages' p99 under load: {run.board_ratio():.2f}× their idle p99 (first "
        f"answers); requests sent more than a second late (every client thread busy): "
        f"{run.late:,} of {len(run.records):,}",
        "",
        f"**Failures: {len(failures)}**" + ("" if not failures else ":"),
        *[f"- {line}" for line in failures],
    ]
    if run.refused:
        often = ", ".join(f"{what} ({n})" for what, n in run.refused.most_common(5))
        lines += ["", f"Most often not answered 200 under load: {often}."]
    return "\n".join(soak.wrapped(line) for line in lines) + "\n"


def figures(run: Run, command: str, facts: dict[str, Any]) -> dict[str, Any]:
    """The run's figures, for ``--json``."""
    return {
        "command": command,
        "machine": facts,
        "settings": run.settings,
        "slope_mb_per_min": {a: run.slope(a) for a in ("server_kb", "workers_kb", "total_kb")},
        "last_third_slope_mb_per_min": {
            a: run.slope(a, 1) for a in ("server_kb", "workers_kb", "total_kb")
        },
        "idle_seconds": {"first": run.idle_first, "again": run.idle_again},
        "latency_ms": {
            k: {f"p{p}": percentile(run.timings(k), p) * 1000 for p in (50, 95, 99)}
            for k in KINDS
            if run.timings(k)
        },
        "memory_kb": [vars(s) for s in run.samples],
        "failures": run.failures(),
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run, print the report and write it where asked; 0 without failure, 1 with one, 2 when
    the store or the server could not be made."""
    args = argument_parser().parse_args(argv)
    command = "python -m bench.endurance " + " ".join(sys.argv[1:] if argv is None else argv)
    facts = machine()
    settings = {k: v for k, v in vars(args).items() if k not in ("out", "json", "work")}
    run = Run(settings)
    code = endure(args, run)
    if code is None:
        return 2
    section = markdown(run, command, facts)
    if code != 0:
        section += f"\nThe server then stopped with exit code {code} (0 expected).\n"
    print(section)
    if args.out:
        soak.write_section(args.out, section, SECTION)
    if args.json:
        args.json.write_text(json.dumps(figures(run, command, facts), indent=2) + "\n", "utf-8")
    return 1 if run.failures() or code != 0 else 0


def argument_parser() -> argparse.ArgumentParser:
    """The command's options (its docstring is the description)."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.endurance",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--minutes", type=float, default=30, help="how long (default 30)")
    parser.add_argument("--rate", type=float, default=4, help="requests a second (default 4)")
    parser.add_argument("--pages", type=int, default=1000, help="pages generated (default 1000)")
    parser.add_argument("--workers", type=int, default=2, help="query workers (default 2)")
    parser.add_argument("--clients", type=int, default=32, help="client threads (default 32)")
    parser.add_argument("--idle", type=int, default=20, help="benchmarks measured idle")
    parser.add_argument("--interval", type=float, default=5, help="seconds between samples")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--max-slope", type=float, default=0.2, help="MB/min (default 0.2)")
    parser.add_argument("--max-board-ratio", type=float, default=2.0)
    parser.add_argument("--work", type=Path, help="folder for the corpus and the store")
    parser.add_argument("--out", type=Path, help="write the section into this file")
    parser.add_argument("--json", type=Path, help="write the figures as JSON to this file")
    return parser


if __name__ == "__main__":
    sys.exit(main())
