"""Measure what gathering results into claims costs the leaderboard.

    python -m bench.claims --sizes 1000,10000 --repeat 5 --out BENCHMARKS.md

For each size a corpus is generated (``bench.generate``, seed 1) and ingested once (untimed).
Then, on the ``--benchmarks`` benchmarks with the most results, it times against the same
peer, in this process, on the store opened read-only, ``--repeat`` times after a warm-up
(min / median / max):

- ``leaderboard`` (each claim ranked once, by its headline chosen by the default rule, with its
  claim's counts) against the leaderboard as it ranked before claims
  (``bench/queries/leaderboard-before-claims.rq``: every result a row of its own), and checks
  that both rank the same results the same way where every claim has one value;
- ``claims`` for the benchmark (the grouping and the headline of every value) against the
  same peer;
- ``disagreements`` over the whole store, once.

The numbers go into the ``claims`` part of the report's JSON beside ``--out`` and its section of
the Markdown (see :mod:`bench.report`); the other parts of the report are kept.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bench.launch import REPO
from bench.report import write
from bench.run import generate_corpus, ingest_once, load_average, log, timed_runs

if TYPE_CHECKING:
    from benchgraph.store import Store

PEER = REPO / "bench" / "queries" / "leaderboard-before-claims.rq"
LARGEST = REPO / "bench" / "queries" / "benchmarks-by-results.rq"


def _rows(store: Store, named: Any, values: dict[str, str]) -> list[dict[str, str]]:
    """The rows of ``named`` on ``store``, each column's value as text."""
    from benchgraph import answering

    answer = answering.answer(store, named, values)
    names = [v.value for v in answer.variables]
    return [{n: row[n].value for n in names if row[n] is not None} for row in answer]


def _ranked(rows: list[dict[str, str]]) -> set[tuple[str, str, str]]:
    return {(r["result"], r.get("cohort", ""), r.get("rank", "")) for r in rows}


def measure_store(store: Store, benchmarks: int, repeat: int) -> dict[str, Any]:
    """The timings on ``store`` (see the module)."""
    from benchgraph import queries

    leaderboard, claims, peer = (
        queries.find("leaderboard"),
        queries.find("claims"),
        queries.load(PEER),
    )
    largest = _rows(store, queries.given(str(LARGEST), sys.stdin), {})[:benchmarks]
    measured: dict[str, Any] = {"benchmarks": []}
    for row in largest:
        values = {"benchmark": row["benchmark"]}
        board, before = _rows(store, leaderboard, values), _rows(store, peer, values)
        gathered = _rows(store, claims, values)
        single = all(r.get("claimValues", "1") == "1" for r in board)
        measured["benchmarks"].append(
            {
                "benchmark": row["benchmark"],
                "results": int(row["results"]),
                "rows": len(board),
                "claims": len({r["claim"] for r in gathered}),
                "gathered": sum(1 for r in board if r.get("claimValues", "1") != "1"),
                "same": _ranked(board) == _ranked(before) if single else None,
                "leaderboard_s": timed_runs(lambda v=values: _rows(store, leaderboard, v), repeat),
                "before_s": timed_runs(lambda v=values: _rows(store, peer, v), repeat),
                "claims_s": timed_runs(lambda v=values: _rows(store, claims, v), repeat),
            }
        )
    disagreements = queries.find("disagreements")
    start = time.perf_counter()
    found = _rows(store, disagreements, {})
    measured["disagreements_s"] = time.perf_counter() - start
    measured["disagreements"] = len(found)
    return measured


def measure(pages: int, work: Path, benchmarks: int, repeat: int) -> dict[str, Any]:
    """Generate and ingest ``pages`` pages in ``work``, then time them (see the module)."""
    from benchgraph.store.embedded import EmbeddedStore

    corpus, store = work / "corpus", work / "store"
    if not generate_corpus(None, pages, corpus):
        raise SystemExit(f"could not generate {pages} pages")
    seconds, _ = ingest_once(corpus, store)
    log(f"{pages} pages: ingested in {seconds:.1f} s (load average {load_average()})")
    with EmbeddedStore(store, read_only=True) as opened:
        measured = measure_store(opened, benchmarks, repeat)
    return {"pages": pages, "load_average": load_average(), **measured}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.claims",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--sizes", default="1000", help="corpus sizes in pages (comma list)")
    parser.add_argument("--benchmarks", type=int, default=5, help="leaderboards timed per size")
    parser.add_argument("--repeat", type=int, default=5, help="runs per query timing")
    parser.add_argument("--out", default="BENCHMARKS.md", help="the report (its .json beside)")
    parser.add_argument("--work", help="working folder (default: a temporary one)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    data = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    command = "python -m bench.claims " + " ".join(sys.argv[1:] if argv is None else argv)
    sizes = {c["pages"]: c for c in data.get("claims", [])}
    if args.work:
        Path(args.work).mkdir(parents=True, exist_ok=True)
    for pages in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory(prefix="claims-", dir=args.work) as tmp:
            measured = measure(pages, Path(tmp), args.benchmarks, args.repeat)
        sizes[pages] = {**measured, "command": command}
        data["claims"] = [sizes[p] for p in sorted(sizes)]
        write(out, data)
    log(f"wrote {out} and {out.with_suffix('.json')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
