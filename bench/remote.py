"""Measure benchgraph on remote stores against each server's own bulk loader and query endpoint.

    python -m bench.remote --sizes 100,1000 --out BENCHMARKS.md

For each size a corpus is generated (``bench.generate``, seed 1) and measured:

1. Oxigraph server: ``benchgraph ingest --store URL`` into a fresh ``oxigraph serve`` against
   ``oxigraph load --location DIR --file X.nq`` (no server running) and ``POST
   /store?no_transaction`` of X.nq to a fresh running server, X.nq being what benchgraph wrote
   (``benchgraph export --store URL --format nquads --history``). The quads each one holds are
   counted over SPARQL (default graph + named graphs) and must be the same.
2. Virtuoso (skipped when it is not installed): ``benchgraph ingest --store URL`` into an
   emptied server (``BENCHGRAPH_STORE_REQUEST_STATEMENTS=1000``) against ``ld_dir`` +
   ``rdf_loader_run()`` (isql) of the same N-Quads into the emptied server, the default graph's
   triples into benchgraph's merged-view graph. The quads of its named graphs are counted over
   SPARQL, less those of Virtuoso's own graphs, and must be the same.
3. Named queries on Virtuoso (at ``--query-sizes``): ``benchgraph serve --store URL`` answering
   ``/queries/NAME?param=IRI`` (a parameterless query: its ``/sparql``, which caches nothing,
   the text made distinct by a comment) against Virtuoso's ``/sparql`` given what benchgraph
   sends it: the text with the parameter written in, the merged view as ``default-graph-uri``
   (and every page graph as ``named-graph-uri`` for a query that says GRAPH). One client, a
   distinct parameter value per request, median latency and the ratio benchgraph / Virtuoso.
   Every answer's rows are counted against ``oxigraph serve-read-only`` over the Oxigraph store
   of step 1; a query Virtuoso refuses or answers with other row counts is recorded as failing.

Each server's loaders run in turn with benchgraph's ingest (interleaved, ``--repeat`` times),
so that a machine's changing load weighs on both alike. A batch of pages reaches each server
through its bulk path (``benchgraph/store/bulk.py``): one N-Quads POST per group into the
Oxigraph server, staging graphs moved into place on Virtuoso. ``--corpus`` reads pages
generated already instead of generating them. Timings are min/median/max over ``--repeat``
runs. The numbers go to a JSON file of their own beside ``--out``
(``BENCHMARKS.remote.json``), which :mod:`bench.report` reads whenever it writes the report, so
``bench.run`` keeps the section ("Remote stores").
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench import virtuoso
from bench.launch import REPO, Served, Server
from bench.report import machine, remote_path, write
from bench.run import generate_corpus, latency, load_average, log, parameter_values, stats
from bench.servers import (
    BIN,
    FORM,
    JSON_RESULTS,
    PARAM,
    Target,
    start_oxigraph,
    wait_up,
    wait_warmed,
)
from bench.virtuoso import VirtuosoServer
from benchgraph import graphs, queries
from benchgraph.sparqltext import keywords, substitute

OWN = REPO / "bench" / "queries"
NQUADS = "application/n-quads"
VIRTUOSO_STATEMENTS = "1000"  # Virtuoso compiles at most about 1,000 statements per update
# Virtuoso's answer names each graph of the dataset in a header of its own
# (X-SPARQL-named-graph), past http.client's limit of 100 headers once a query names every page
# graph: this process reads such answers (benchgraph, in its own process, keeps the limit).
HEADERS = 1_000_000
FAILED = (urllib.error.URLError, TimeoutError, ConnectionError, http.client.HTTPException)


def clean_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment without benchgraph's settings, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BENCHGRAPH_")}
    return {**env, **(extra or {})}


def post(url: str, data: bytes, content_type: str, timeout: float = 3600) -> bytes:
    """POST ``data``; the body of the answer (raises urllib.error.URLError on an error)."""
    headers = {"Content-Type": content_type, "Accept": JSON_RESULTS}
    request = urllib.request.Request(url, data=data, headers=headers)
    with urllib.request.urlopen(request, timeout=timeout) as response:
        body: bytes = response.read()
    return body


def count(query_url: str, name: str) -> int:
    """The single number ``bench/queries/NAME.rq`` answers, asked with no dataset."""
    text = (OWN / f"{name}.rq").read_text(encoding="utf-8")
    body = post(query_url, urllib.parse.urlencode({"query": text}).encode(), FORM)
    (row,) = json.loads(body)["results"]["bindings"]
    (value,) = row.values()
    return int(value["value"])


def benchgraph(*args: str, env: dict[str, str]) -> float:
    """Run ``benchgraph ARGS`` as a process; its seconds. Raises RuntimeError if it fails."""
    start = time.perf_counter()
    done = subprocess.run(
        [str(BIN / "benchgraph"), *args], capture_output=True, text=True, cwd=REPO, env=env
    )
    if done.returncode != 0:
        said = done.stderr[-2000:]
        raise RuntimeError(f"benchgraph {args[0]} failed ({done.returncode}): {said}")
    return time.perf_counter() - start


def ingest(pages: Path, url: str, env: dict[str, str]) -> float:
    """``benchgraph ingest --store URL PAGES``: its seconds."""
    return benchgraph("ingest", "--quiet", "--store", url, str(pages), env=env)


def export(url: str, nquads: Path, env: dict[str, str]) -> None:
    """Every quad of the store at ``url`` (its history too) to ``nquads``."""
    args = ("export", "--format", "nquads", "--history", "--store", url, "--out", str(nquads))
    benchgraph(*args, env=env)


def first_line(error: BaseException) -> str:
    """The first line of what a failure says (an HTTP error: of the body the server sent)."""
    text = str(error)
    if isinstance(error, urllib.error.HTTPError):
        body = error.read().decode("utf-8", "replace").strip()
        with contextlib.suppress(ValueError, KeyError, TypeError):  # benchgraph's error shape
            body = str(json.loads(body)["error"])
        text = f"HTTP {error.code}: {body or error.reason}"
    return next((line.strip() for line in text.splitlines() if line.strip()), text)


# ---------------------------------------------------------------------------------------------
# Oxigraph server


def oxigraph_quads(base: str) -> int:
    """The quads an Oxigraph server holds: its default graph's and its named graphs'."""
    query = base + "query"
    return count(query, "count-default-triples") + count(query, "count-named-quads")


def oxigraph_ingest(pages: Path, store: Path, nquads: Path | None = None) -> tuple[float, int]:
    """benchgraph's ingest into a fresh ``oxigraph serve`` on ``store``: seconds and quads; with
    ``nquads``, what it wrote is exported there (by the same server, still up)."""
    shutil.rmtree(store, ignore_errors=True)
    server, base = start_oxigraph(store, "serve")
    try:
        seconds, quads = ingest(pages, base + "query", clean_env()), oxigraph_quads(base)
        if nquads is not None:
            export(base + "query", nquads, clean_env())
        return seconds, quads
    finally:
        server.stop()


def oxigraph_load(nquads: Path, store: Path) -> tuple[float, int]:
    """``oxigraph load`` of ``nquads`` into a fresh ``store``: seconds and quads."""
    shutil.rmtree(store, ignore_errors=True)
    command = [str(BIN / "oxigraph"), "load", "--location", str(store), "--file", str(nquads)]
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    seconds = time.perf_counter() - start
    server, base = start_oxigraph(store)
    try:
        return seconds, oxigraph_quads(base)
    finally:
        server.stop()


def oxigraph_post(nquads: Path, store: Path) -> tuple[float, int]:
    """``POST /store?no_transaction`` of ``nquads`` to a fresh running server: seconds and
    quads."""
    shutil.rmtree(store, ignore_errors=True)
    server, base = start_oxigraph(store, "serve")
    try:
        data = nquads.read_bytes()
        start = time.perf_counter()
        post(base + "store?no_transaction", data, NQUADS)
        return time.perf_counter() - start, oxigraph_quads(base)
    finally:
        server.stop()


def measure_oxigraph(pages: Path, work: Path, repeat: int) -> dict[str, Any]:
    """benchgraph's ingest against both of the Oxigraph server's loaders (see the module). The
    store of benchgraph's last ingest stays at ``work/oxigraph``, its quads at
    ``work/oxigraph.nq``."""
    store, nquads = work / "oxigraph", work / "oxigraph.nq"
    runs = [oxigraph_ingest(pages, store, nquads)]
    load, posted = [], []
    for n in range(repeat):  # interleaved, so that the machine's load weighs on each alike
        load.append(oxigraph_load(nquads, work / "loaded"))
        posted.append(oxigraph_post(nquads, work / "posted"))
        if n + 1 < repeat:
            runs.append(oxigraph_ingest(pages, store))
    shutil.rmtree(work / "loaded", ignore_errors=True)
    shutil.rmtree(work / "posted", ignore_errors=True)
    return compared(runs, {"oxigraph load": load, "POST /store?no_transaction": posted}, nquads)


def compared(
    runs: list[tuple[float, int]], loaders: dict[str, list[tuple[float, int]]], nquads: Path
) -> dict[str, Any]:
    """benchgraph's ingest ``runs`` and each loader's, (seconds, quads) each: timings, quads
    and the ratio of the medians ingest / loader."""
    ingest_s = stats([s for s, _ in runs])
    quads = {"benchgraph ingest": runs[-1][1]}
    against = {}
    for name, timed in loaders.items():
        loader_s = stats([s for s, _ in timed])
        quads[name] = timed[-1][1]
        against[name] = {"s": loader_s, "ratio": ingest_s["median"] / loader_s["median"]}
    return {
        "ingest_s": ingest_s,
        "loaders": against,
        "quads": quads,
        "nquads_lines": sum(1 for _ in nquads.open("rb")),
        "same_quads": len(set(quads.values())) == 1,
        "load_average": load_average(),
    }


# ---------------------------------------------------------------------------------------------
# Virtuoso


def virtuoso_quads(server: VirtuosoServer, own: int) -> int:
    """The quads of the server's graphs, less the ``own`` quads of Virtuoso's own graphs."""
    return count(server.url, "count-named-quads") - own


def virtuoso_ingest(pages: Path, server: VirtuosoServer, own: int) -> tuple[float, int]:
    """benchgraph's ingest into the emptied server: seconds and quads."""
    server.clear()
    env = clean_env({**server.env(), "BENCHGRAPH_STORE_REQUEST_STATEMENTS": VIRTUOSO_STATEMENTS})
    return ingest(pages, server.url, env), virtuoso_quads(server, own)


def virtuoso_load(nquads: Path, server: VirtuosoServer, own: int) -> tuple[float, int]:
    """Virtuoso's bulk loader (``ld_dir`` + ``rdf_loader_run``) of ``nquads`` into the emptied
    server: seconds and quads. Raises RuntimeError if it refused the file."""
    server.clear()
    folder = server.folder / "load"  # under its DirsAllowed (its own folder)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    shutil.copy(nquads, folder / "quads.nq")
    server.isql("DELETE FROM DB.DBA.load_list;")
    start = time.perf_counter()
    server.isql(f"ld_dir('load', '*.nq', '{graphs.VIEW}');", "rdf_loader_run();")
    seconds = time.perf_counter() - start
    errors = server.isql("SELECT ll_error FROM DB.DBA.load_list WHERE ll_error IS NOT NULL;")
    if "0 Rows." not in errors:
        raise RuntimeError(f"Virtuoso's bulk loader refused {nquads}: {errors}")
    return seconds, virtuoso_quads(server, own)


def measure_virtuoso(
    pages: Path, nquads: Path, server: VirtuosoServer, repeat: int, work: Path
) -> dict[str, Any]:
    """benchgraph's ingest against Virtuoso's bulk loader on ``nquads`` (see the module); the
    server is left holding benchgraph's last ingest. Also records whether ``benchgraph export``
    reads the store back."""
    server.clear()
    own = count(server.url, "count-named-quads")
    load, runs = [], []
    for _ in range(repeat):  # interleaved
        load.append(virtuoso_load(nquads, server, own))
        runs.append(virtuoso_ingest(pages, server, own))
    result = compared(runs, {"ld_dir + rdf_loader_run": load}, nquads)
    env = clean_env({**server.env(), "BENCHGRAPH_STORE_REQUEST_STATEMENTS": VIRTUOSO_STATEMENTS})
    try:
        export(server.url, work / "virtuoso.nq", env)
        result["export"] = "read back"
    except RuntimeError as error:
        result["export"] = first_line(error)
    return result


# ---------------------------------------------------------------------------------------------
# Named queries on Virtuoso


class VirtuosoTarget(Target):
    """Virtuoso's ``/sparql`` asked one named query as benchgraph asks it: the parameter
    written into the text, the merged view as the default graph, and, for a query that says
    GRAPH, every page graph as a named graph (``named``)."""

    def __init__(self, url: str, name: str, text: str, named: Sequence[str]) -> None:
        super().__init__("virtuoso", url, name, text)
        self.named = named
        http.client._MAXHEADERS = max(http.client._MAXHEADERS, HEADERS)  # type: ignore[attr-defined]

    def request(self, value: str | None, cached: bool, n: int) -> Callable[[], int]:
        param = PARAM.get(self.name)
        text = self.text
        if param and value:
            import pyoxigraph as ox

            text = substitute(text, {param: ox.NamedNode(value)})
        fields = [("query", text), ("default-graph-uri", graphs.VIEW)]
        if "GRAPH" in keywords(text):
            fields += [("named-graph-uri", g) for g in self.named]
        data = urllib.parse.urlencode(fields).encode()

        def call() -> int:
            body = post(self.base, data, FORM, self.timeout)
            return len(json.loads(body)["results"]["bindings"])

        return call


def page_graphs(oxigraph_store: Path) -> list[str]:
    """The page graphs (and report graphs) of the store: every named graph benchgraph lists,
    read from the Oxigraph store of the same pages."""
    import pyoxigraph as ox

    store = ox.Store.read_only(str(oxigraph_store))
    names = (g.value for g in store.named_graphs() if isinstance(g, ox.NamedNode))
    return sorted(n for n in names if not graphs.is_hidden(n))


def probe(call: Callable[[], int]) -> tuple[int | None, str | None]:
    """One request: its rows, or None and the first line of its error."""
    try:
        return call(), None
    except FAILED as error:
        return None, first_line(error)


def measure_queries(
    server: VirtuosoServer, oxigraph_store: Path, work: Path, settings: argparse.Namespace
) -> dict[str, Any]:
    """Each named query through ``benchgraph serve --store URL`` against Virtuoso's own
    endpoint, rows checked against ``oxigraph serve-read-only`` (see the module)."""
    values = parameter_values(oxigraph_store, settings.requests)
    named = page_graphs(oxigraph_store)
    served = Served(server.url, "--query-timeout", "120", log=work / "serve.log", env=clean_env())
    servers: list[Server] = [served]
    try:
        wait_up(served.url + "queries")
        try:
            warmed: dict[str, float] | str = wait_warmed(served, 1800)
        except RuntimeError as error:  # it serves all the same: each query says what fails
            warmed = first_line(error)
        oxigraph, ox_base = start_oxigraph(oxigraph_store)
        servers.append(oxigraph)
        rows = {}
        for name, (text, why) in query_texts(settings.queries).items():
            if why:
                rows[name] = {"verdict": why}
                continue
            param = PARAM.get(name)
            series: list[str | None] = [None] * settings.requests
            if param:
                series = list(values[param][: settings.requests])
            targets = {
                "benchgraph": Target("benchgraph", served.url, name, text),
                "virtuoso": VirtuosoTarget(server.url, name, text, named),
                "oxigraph": Target("oxigraph", ox_base, name, text),
            }
            rows[name] = query_row(targets, series, settings.latency_budget)
            log(f"  {name}: {rows[name]['verdict']}")
    finally:
        for running in servers:
            running.stop()
    return {
        "requests": settings.requests,
        "latency_budget_s": settings.latency_budget,
        "warmed": warmed,
        "queries": rows,
        "load_average": load_average(),
    }


def query_texts(names: str) -> dict[str, tuple[str, str]]:
    """The named queries ``names`` (a comma list, or ``all``) with the text each server is
    sent, or why one is not measured (a required parameter the benchmark does not draw). A
    query without the parameter of :data:`bench.servers.PARAM` has its defaults written in, as
    benchgraph binds them."""
    listed = queries.catalogue()
    chosen = list(listed) if names == "all" else names.split(",")
    texts = {}
    for name in chosen:
        query = listed[name]
        required = [p.name for p in query.params if p.required]
        if set(required) - {PARAM.get(name)}:
            texts[name] = ("", f"not measured: needs {', '.join(required)}")
        elif name in PARAM:
            texts[name] = (query.text, "")
        else:
            texts[name] = (substitute(query.text, query.bind({})), "")
    return texts


def query_row(
    targets: dict[str, Target], series: list[str | None], budget: float
) -> dict[str, Any]:
    """One query measured on each target: probed first (Virtuoso's refusal, in its words, ends
    it), then median latencies and the rows per request compared."""
    counts, errors = {}, {}
    for kind, target in targets.items():
        counts[kind], errors[kind] = probe(target.request(series[0], False, 0))
    row: dict[str, Any] = {"errors": errors}
    if errors["virtuoso"]:
        row["verdict"] = f"fails on Virtuoso: {errors['virtuoso']}"
        return row
    if errors["benchgraph"]:
        row["verdict"] = f"fails through benchgraph on Virtuoso: {errors['benchgraph']}"
        return row
    measured = {kind: latency(t, series, False, budget) for kind, t in targets.items()}
    for kind in ("benchgraph", "virtuoso"):
        row[kind] = {k: measured[kind][k] for k in ("requests", "errors", "p50_ms", "row_counts")}
    row["oxigraph_row_counts"] = measured["oxigraph"]["row_counts"]
    row["ratio_p50"] = measured["benchgraph"]["p50_ms"] / measured["virtuoso"]["p50_ms"]
    same = [measured[k]["row_counts"] for k in targets]
    row["same_rows"] = same[0] == same[1] == same[2]
    differ = [k for k in ("virtuoso", "benchgraph") if measured[k]["row_counts"] != same[2]]
    row["verdict"] = f"{row['ratio_p50']:.2f}x" + (
        f", rows other than Oxigraph's from {' and '.join(differ)}" if differ else ""
    )
    return row


# ---------------------------------------------------------------------------------------------
# The run


def measure_size(args: argparse.Namespace, pages: int, work: Path) -> dict[str, Any]:
    """Every part measured on a corpus of ``pages`` pages generated in ``work``."""
    corpus = work / "corpus"
    given = Path(args.corpus.format(pages=pages)) if args.corpus else None
    if given is not None and (given / "manifest.json").is_file():
        corpus = given  # read only: every store is written elsewhere
    elif not generate_corpus(None, pages, corpus):
        raise RuntimeError(f"the corpus of {pages} pages could not be generated")
    manifest = json.loads((corpus / "manifest.json").read_text(encoding="utf-8"))
    log(f"remote, {pages} pages: Oxigraph server (load average {load_average()})")
    measured: dict[str, Any] = {"pages": pages, "results": manifest["results"]}
    measured["repeat"] = args.repeat
    measured["date"] = machine()["date"]
    measured["oxigraph"] = measure_oxigraph(corpus / "pages", work, args.repeat)
    if not virtuoso.installed():
        measured["virtuoso"] = {"skipped": virtuoso.INSTALL_HINT}
        return measured
    server = VirtuosoServer(work / "virtuoso").start()
    try:
        log(f"remote, {pages} pages: Virtuoso (load average {load_average()})")
        nquads = work / "oxigraph.nq"
        measured["virtuoso"] = measure_virtuoso(corpus / "pages", nquads, server, args.repeat, work)
        if pages in query_sizes(args):
            log(f"remote, {pages} pages: named queries on Virtuoso")
            measured["queries"] = measure_queries(server, work / "oxigraph", work, args)
    finally:
        server.stop()
    return measured


def query_sizes(args: argparse.Namespace) -> set[int]:
    """The sizes at which the named queries are measured: ``--query-sizes``, else the largest."""
    if args.query_sizes is not None:
        return {int(s) for s in args.query_sizes.split(",") if s}
    return {max(int(s) for s in args.sizes.split(","))}


def merged(old: list[dict[str, Any]], new: dict[str, Any]) -> list[dict[str, Any]]:
    """The sizes of the report with ``new`` in place of an earlier run's of the same size."""
    kept = [s for s in old if s["pages"] != new["pages"]]
    return sorted([*kept, new], key=lambda s: s["pages"])


def record(out: Path, command: str, measured: dict[str, Any]) -> None:
    """Add ``measured`` to the remote numbers beside ``out`` and write the report again."""
    path = remote_path(out)
    remote = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {"sizes": []}
    remote["machine"] = machine()
    measured["command"] = command
    remote["sizes"] = merged(remote["sizes"], measured)
    path.write_text(json.dumps(remote, indent=2) + "\n", encoding="utf-8")
    write(out, json.loads(out.with_suffix(".json").read_text(encoding="utf-8")))


def argument_parser() -> argparse.ArgumentParser:
    """The command's options (its docstring is the description)."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.remote",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--sizes", default="100,1000", help="corpus sizes in pages")
    parser.add_argument("--repeat", type=int, default=1, help="runs per timing")
    parser.add_argument(
        "--query-sizes", help="sizes at which the named queries are measured (default: largest)"
    )
    parser.add_argument(
        "--queries", default="all", help="named queries (comma list; default: all of queries/)"
    )
    parser.add_argument("--requests", type=int, default=10, help="requests per latency series")
    parser.add_argument(
        "--latency-budget",
        type=float,
        default=60.0,
        help="seconds one latency series may take; it stops after at least 3 requests once spent",
    )
    parser.add_argument(
        "--corpus",
        help="a corpus generated already (pages/ and manifest.json; {pages} stands for the size, "
        "as in /work/corpus/c{pages}); default: generated in the working folder",
    )
    parser.add_argument("--out", default="BENCHMARKS.md", help="the report (its .json beside)")
    parser.add_argument("--work", help="working folder (default: a temporary one)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Measure each size and write the report after each; 2 when a part could not run."""
    args = argument_parser().parse_args(argv)
    command = "python -m bench.remote " + shlex.join(sys.argv[1:] if argv is None else list(argv))
    out = Path(args.out)
    if args.work:
        Path(args.work).mkdir(parents=True, exist_ok=True)
    for pages in [int(s) for s in args.sizes.split(",")]:
        with tempfile.TemporaryDirectory(prefix="remote-", dir=args.work) as tmp:
            try:
                measured = measure_size(args, pages, Path(tmp))
            except (RuntimeError, OSError, subprocess.SubprocessError) as error:
                print(f"python -m bench.remote: error: {error}", file=sys.stderr)
                return 2
        record(out, command.strip(), measured)
        log(f"wrote {out} and {remote_path(out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
