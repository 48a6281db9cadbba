"""Measure the ingest of one Papers-with-Code-archive-sized file, and write its section of
BENCHMARKS.md.

    python -m bench.archive --leaderboards 10000 --scales 1,2 --repeat 2 --out BENCHMARKS.md

For each scale a file of ``leaderboards`` × scale leaderboards is generated
(:mod:`bench.pwc_archive`, seed 1: about 16 results a leaderboard) and measured:

- ``benchgraph ingest`` of the file into a fresh store, as a process: wall time and peak RSS
  (``/usr/bin/time -v``), ``--repeat`` times (each a process of its own, so no warm-up);
- the floor: pyoxigraph ``Store.bulk_load`` of the same quads (``benchgraph export --format
  nquads --history`` of the store the ingest wrote) into a fresh store, as often.

The numbers go to ``BENCHMARKS.archive.json`` beside ``--out``, which the report reads whenever
it is written (so ``bench.run`` keeps the section), and the report is written again from
``BENCHMARKS.json`` with them. Targets (issue "the field's real corpora"): peak RSS at most
1 GB at 150,000 results, the 2× file in at most 2.2× the time of the 1× file, and the ingest
within 3× of the floor.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import sys
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import report
from bench.pwc_archive import write_archive
from bench.run import bulk_load_once, du, export, ingest_process, load_average, repeated, stats

_SUMMARY = re.compile(r"^(\d+) loaded, .*?; (\d+) results in the loaded pages; (\d+) warnings")


def measure(leaderboards: int, work: Path, repeat: int) -> dict[str, Any]:
    """The numbers of one file of ``leaderboards`` leaderboards (see the module)."""
    archive = work / "evaluation-tables.json"
    made = write_archive(archive, leaderboards=leaderboards, seed=1)
    store, rss, outputs = work / "store", [], []

    def run() -> float:
        done = ingest_process(archive, store)
        rss.append(done.peak_rss)
        outputs.append(done.stdout)
        return done.seconds

    before = load_average()
    times = repeated(run, repeat, warmup=False)
    found = _SUMMARY.search(outputs[-1].strip().splitlines()[-1])
    if found is None:
        raise RuntimeError(f"no summary line in the ingest's output: {outputs[-1][-500:]!r}")
    nquads = work / "store.nq"
    export(store, nquads)
    with nquads.open("rb") as lines:
        quads = sum(1 for _ in lines)
    floor = repeated(lambda: bulk_load_once(nquads, work / "floor"), repeat, warmup=False)
    shutil.rmtree(work / "floor", ignore_errors=True)
    ingest_s, floor_s = stats(times), stats(floor)
    return {
        "leaderboards": made.leaderboards,
        "file_results": made.results,
        "sources": int(found[1]),
        "results": int(found[2]),
        "warnings": int(found[3]),
        "file_mb": archive.stat().st_size / 2**20,
        "quads": quads,
        "runs": repeat,
        "ingest_s": ingest_s,
        "floor_s": floor_s,
        "ratio_ingest_over_floor": ingest_s["median"] / floor_s["median"],
        "results_per_s": stats([made.results / t for t in times]),
        "peak_rss_mb": stats([r / 2**20 for r in rss[-repeat:]]),
        "store_mb": du(store) / 2**20,
        "load_average": {"before": before, "after": load_average()},
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.archive", description=__doc__)
    parser.add_argument("--leaderboards", type=int, default=10_000, metavar="N")
    parser.add_argument("--scales", default="1,2", help="file sizes, in N leaderboards (1,2)")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each (2)")
    parser.add_argument("--out", type=Path, default=Path("BENCHMARKS.md"))
    parser.add_argument("--work", type=Path, help="a folder for the files (a temporary one)")
    args = parser.parse_args(argv)
    scales = [int(s) for s in args.scales.split(",")]
    numbers: dict[str, Any] = {
        "machine": {
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
        },
        "command": "python -m bench.archive " + " ".join(sys.argv[1:] if argv is None else argv),
        "sizes": [],
    }
    with tempfile.TemporaryDirectory(dir=args.work) as scratch:
        for scale in scales:
            work = Path(scratch) / f"x{scale}"
            work.mkdir()
            numbers["sizes"].append(
                {"scale": scale, **measure(args.leaderboards * scale, work, args.repeat)}
            )
            shutil.rmtree(work, ignore_errors=True)
            report.archive_path(args.out).write_text(json.dumps(numbers, indent=2) + "\n")
            print(json.dumps(numbers["sizes"][-1]), flush=True)
    data = json.loads(args.out.with_suffix(".json").read_text(encoding="utf-8"))
    report.write(args.out, data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
