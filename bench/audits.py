"""The whole-store audits, uncached, in process: each named query's time on a store, its text
as this checkout has it against another text of it (an earlier checkout's ``queries/``), in
the same run, interleaved, with the rows of the two compared.

    python -m bench.audits --store DIR [--store DIR ...] --before OTHER/queries \\
        [--queries audit-self-reported ...] [--repeat 5] [--out FILE.json]

A store written before the audit summaries (benchgraph/summaries.py) gets them first with
``benchgraph repair``: the tool never writes. Each query runs on the store opened read-only,
``--repeat`` times for each text, alternating, the p50 and the least of each reported with their
ratio, and the p50 of the CPU seconds the process spent on each. pyoxigraph caches nothing
between queries, so each run is uncached.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import pyoxigraph as ox

from benchgraph import resources

QUERIES = [
    "audit-self-reported",
    "audit-methods-without-origin",
    "audit-results-without-configuration",
    "benchmarks",
    "papers",
    "audit-validation",
]


def timed(store: ox.Store, text: str) -> tuple[float, float, list[tuple[str, ...]]]:
    """How long ``text`` takes on ``store`` (wall and CPU seconds, its rows read whole), and
    the rows."""
    started, cpu = time.perf_counter(), time.process_time()
    answer = store.query(text)
    assert isinstance(answer, ox.QuerySolutions)
    names = [v.value for v in answer.variables]
    rows = [tuple(str(row[n]) if row[n] is not None else "" for n in names) for row in answer]
    return time.perf_counter() - started, time.process_time() - cpu, rows


def measure(location: str, before: Path, names: list[str], repeat: int) -> list[dict[str, object]]:
    """Each query of ``names`` on the store at ``location``: this checkout's text and the
    text in ``before``, ``repeat`` times each, alternating."""
    store = ox.Store.read_only(location)
    found: list[dict[str, object]] = []
    for name in names:
        now = (resources.queries_dir() / f"{name}.rq").read_text(encoding="utf-8")
        then = (before / f"{name}.rq").read_text(encoding="utf-8")
        times: dict[str, list[float]] = {"before": [], "after": []}
        cpu: dict[str, list[float]] = {"before": [], "after": []}
        answers: dict[str, list[tuple[str, ...]]] = {}
        for _ in range(repeat):
            for which, text in (("before", then), ("after", now)):
                seconds, spent, rows = timed(store, text)
                times[which].append(seconds)
                cpu[which].append(spent)
                answers[which] = rows
        p50 = {which: statistics.median(t) for which, t in times.items()}
        found.append(
            {
                "store": location,
                "query": name,
                "rows": len(answers["after"]),
                "same rows": answers["before"] == answers["after"],
                "before p50 ms": round(p50["before"] * 1000, 1),
                "after p50 ms": round(p50["after"] * 1000, 1),
                "before least ms": round(min(times["before"]) * 1000, 1),
                "after least ms": round(min(times["after"]) * 1000, 1),
                "ratio": round(p50["after"] / p50["before"], 3),
                "before cpu p50 s": round(statistics.median(cpu["before"]), 3),
                "after cpu p50 s": round(statistics.median(cpu["after"]), 3),
                "load": os.getloadavg()[0],
            }
        )
        print(json.dumps(found[-1]), flush=True)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", action="append", required=True, help="a store folder")
    parser.add_argument("--before", type=Path, required=True, help="the earlier queries/ folder")
    parser.add_argument("--queries", nargs="+", default=QUERIES)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    found = [row for s in args.store for row in measure(s, args.before, args.queries, args.repeat)]
    if args.out:
        args.out.write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
