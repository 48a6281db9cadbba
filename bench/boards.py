"""Measure benchmarks' leaderboards on Virtuoso against the embedded store.

    python -m bench.boards --out /tmp/boards [--repeat 3] [--pages DIR --boards N]

The seed pages (``../shared/seeds``), or the pages in ``--pages`` (a generated corpus's), are
ingested (``benchgraph ingest`` as a process, a batch) into a fresh embedded store and into a
private Virtuoso (``bench.virtuoso``, in a folder of its own, emptied first and stopped after).
For each benchmark (the ``--boards`` with the most results; default every one) its primary
metric's board, and where the seeds are loaded CompoSET's "Group accuracy" board, interleaved,
``--repeat`` times:

1. the named query ``leaderboard`` on the embedded store (in this process, as ``benchgraph
   query`` runs it);
2. the same on Virtuoso as benchgraph answers it: gathered (the benchmark's pages and the alias
   records read from Virtuoso, the query run on them in memory: ``benchgraph/asof.py``), its
   rows checked against the embedded store's;
3. its text run on Virtuoso itself (its planning hint included, see
   ``benchgraph/store/pragmas.py``), its rows checked too: what a client of Virtuoso's own
   endpoint meets.

Then ``benchgraph serve --store URL`` in front of Virtuoso, with its default ``--query-timeout``,
is asked once per benchmark for ``/queries/leaderboard`` and for the benchmark's page (the site
runs ``leaderboard`` once per metric), each uncached, and their status and time are recorded.
Times are min / median / max in seconds. The figures go to ``OUT/boards.json`` and a table to
``OUT/boards.md``, with the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from bench.launch import REPO, Served
from bench.run import load_average
from bench.virtuoso import VirtuosoServer
from benchgraph import answering, queries
from benchgraph.queries import NamedQuery
from benchgraph.store import Store
from benchgraph.store.embedded import EmbeddedStore
from benchgraph.store.remote import RemoteStore

SEEDS = REPO.parent / "shared" / "seeds"
ID = "https://w3id.org/benchgraph/id/"


def rows(
    store: Store, named: NamedQuery, values: dict[str, str], gathered: bool = True
) -> list[tuple[str, ...]]:
    """The answer's rows as sorted text (an unbound value as ""): as benchgraph answers the
    query, or (not ``gathered``) with its text run on the store itself."""
    question = answering.ask(named, values, answering.StoreFinder(store))
    answer = answering.run(store, question if gathered else replace(question, past=None))
    names = [v.value for v in answer.variables]  # type: ignore[union-attr]
    return sorted(tuple(str(row[n]) if row[n] is not None else "" for n in names) for row in answer)  # type: ignore[union-attr]


def timed(call: Callable[[], Any]) -> tuple[float, Any]:
    """Seconds ``call`` took, and what it returned (the error's first line when it failed)."""
    start = time.perf_counter()
    try:
        found: Any = call()
    except Exception as error:  # a refusal is a figure: Virtuoso's words are kept
        found = f"error: {str(error).splitlines()[0][:300]}"
    return time.perf_counter() - start, found


def spread(times: list[float]) -> dict[str, float]:
    return {
        "min": round(min(times), 3),
        "median": round(statistics.median(times), 3),
        "max": round(max(times), 3),
    }


def fetch(url: str, accept: str) -> tuple[float, int]:
    """Seconds a GET of ``url`` took, and its status."""
    request = urllib.request.Request(url, headers={"Accept": accept})
    start = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=600) as response:
            response.read()
            status = response.status
    except urllib.error.HTTPError as error:
        status = error.code
    return time.perf_counter() - start, status


# The board past a minute on Virtuoso when its text runs there (BENCHMARKS.md), besides each
# benchmark's primary metric's.
GROUP_ACCURACY = {"benchmark": ID + "benchmark/composet/composet", "metric": "Group accuracy"}


def ingest(folder: Path, store: str, env: dict[str, str]) -> None:
    """``benchgraph ingest --store STORE FOLDER`` as a process (a batch: each server's bulk
    path)."""
    done = subprocess.run(
        [sys.executable, "-m", "benchgraph.cli", "ingest", "--store", store, str(folder)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1):  # 1: some page refused, which the boards do not need
        raise RuntimeError(f"ingest into {store} failed: {done.stderr[-2000:]}")


def largest(store: Store, count: int) -> list[str]:
    """The ``count`` benchmarks of ``store`` (the named query ``benchmarks``) with the most
    results (all when ``count`` is 0), sorted by IRI."""
    answer = answering.answer(store, queries.find("benchmarks"), {})
    assert isinstance(answer, ox.QuerySolutions)
    found = [(int(row["results"].value), row["benchmark"].value) for row in answer]
    chosen = sorted(found, reverse=True)[: count or len(found)]
    return sorted(iri for _, iri in chosen)


def measure(out: Path, repeat: int, folder: Path = SEEDS, count: int = 0) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="bench-boards-"))
    server = VirtuosoServer(work / "virtuoso").start()
    env = {**os.environ, **server.env(), "BENCHGRAPH_STORE_REQUEST_STATEMENTS": "1000"}
    env["PYTHONPATH"] = str(REPO)
    os.environ.update({k: v for k, v in env.items() if k.startswith("BENCHGRAPH_")})
    os.environ["BENCHGRAPH_STORE_TIMEOUT"] = "300"
    measured: dict[str, Any] = {
        "load_before": load_average(),
        "repeat": repeat,
        "pages": len(list(folder.iterdir())),
        "boards": [],
    }
    try:
        ingest(folder, str(work / "store"), env)
        ingest(folder, server.url, env)
        remote = RemoteStore.from_settings(server.url)
        with EmbeddedStore(work / "store") as embedded:
            board = queries.find("leaderboard")
            benchmarks = largest(embedded, count)
            asked = [{"benchmark": iri} for iri in benchmarks]
            asked += [GROUP_ACCURACY] if GROUP_ACCURACY["benchmark"] in benchmarks else []
            for values in asked:
                series: dict[str, list[float]] = {"embedded": [], "virtuoso": [], "text": []}
                outcome: dict[str, str] = {}
                for _ in range(repeat):
                    took, expected = timed(partial(rows, embedded, board, values))
                    series["embedded"].append(took)
                    took, found = timed(partial(rows, remote, board, values))
                    series["virtuoso"].append(took)
                    outcome["virtuoso"] = "same rows" if found == expected else str(found)[:300]
                    took, found = timed(partial(rows, remote, board, values, gathered=False))
                    series["text"].append(took)
                    outcome["text"] = "same rows" if found == expected else str(found)[:300]
                measured["boards"].append(
                    {
                        "benchmark": values["benchmark"],
                        "metric": values.get("metric", ""),
                        "rows": len(expected),
                        **{k: spread(v) for k, v in series.items()},
                        "outcome": outcome,
                    }
                )
                log(f"{values}: {measured['boards'][-1]}")
        measured["served"] = served(server.url, asked, env)
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)
    measured["load_after"] = load_average()
    (out / "boards.json").write_text(json.dumps(measured, indent=1), encoding="utf-8")
    return measured


def served(url: str, asked: list[dict[str, str]], env: dict[str, str]) -> list[dict[str, Any]]:
    """Each board's leaderboard and its benchmark's page through ``benchgraph serve`` in front
    of ``url`` with its default time limit, once each, uncached (a fresh server)."""
    found = []
    live = Served(url, env=env)
    try:
        for values in asked:
            path = values["benchmark"].removeprefix(ID)
            query = f"{live.url}queries/leaderboard?{urllib.parse.urlencode(values)}"
            took, status = fetch(query, "application/sparql-results+json")
            page_took, page_status = fetch(f"{live.url}page/{path}", "text/html")
            found.append(
                {
                    **values,
                    "query": {"seconds": round(took, 3), "status": status},
                    "page": {"seconds": round(page_took, 3), "status": page_status},
                }
            )
            log(f"served {values}: {found[-1]}")
    finally:
        live.stop()
    return found


def table(measured: dict[str, Any]) -> str:
    """The figures as a Markdown table."""
    lines = [
        "| board | rows | embedded (s) | text on Virtuoso (s) | gathered from Virtuoso (s) | "
        "gathered / embedded | rows gathered | served query | served page |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |",
    ]
    served_by = {(s["benchmark"], s.get("metric", "")): s for s in measured.get("served", [])}
    for board in measured["boards"]:
        shown = served_by.get((board["benchmark"], board["metric"]), {})
        q, p = shown.get("query", {}), shown.get("page", {})
        ratio = board["virtuoso"]["median"] / max(board["embedded"]["median"], 1e-9)
        text = board["outcome"]["text"]
        refused = "" if text == "same rows" else f" ({text[:60]})"
        metric = f" / {board['metric']}" if board["metric"] else ""
        named = board["benchmark"].removeprefix(ID) + metric
        lines.append(
            f"| {named} | {board['rows']} | "
            f"{board['embedded']['median']:.2f} | {board['text']['median']:.2f}{refused} | "
            f"{board['virtuoso']['median']:.2f} | {ratio:.1f}x | "
            f"{board['outcome']['virtuoso']} | "
            f"{q.get('status')} in {q.get('seconds')} s | "
            f"{p.get('status')} in {p.get('seconds')} s |"
        )
    return "\n".join(lines) + "\n"


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.boards", description=__doc__)
    parser.add_argument("--out", type=Path, required=True, help="folder for the figures")
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing")
    parser.add_argument(
        "--pages", type=Path, default=SEEDS, help="the pages to load (default: the seeds)"
    )
    parser.add_argument(
        "--boards", type=int, default=0, help="measure the N benchmarks with most results (0: all)"
    )
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    measured = measure(args.out, args.repeat, args.pages, args.boards)
    text = table(measured)
    loads = f"load average {measured['load_before']} before, {measured['load_after']} after\n"
    (args.out / "boards.md").write_text(text + "\n" + loads, encoding="utf-8")
    print(text + loads)
    return 0


if __name__ == "__main__":
    sys.exit(main())
