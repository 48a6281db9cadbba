"""Measure the curator's findings paths over a store: a page of ``audit-findings`` against
OFFSET paging of the query as it was, and ``benchgraph validate`` re-checking what changed
against a run over every page. Writes JSON and Markdown to ``--out``.

    python -m bench.findings pages --store DIR --out /work/bench-out/findings [--repeat 3]
    python -m bench.findings validate --store DIR --corpus PAGES --out ... [--changed 3]

``pages`` opens the store read-only and asks, uncached and in-process (as ``benchgraph query``
does), pages of 100 findings: the first, the tenth (after walking to it), one with
``severity=Warning`` and one with ``kind=Method-origin``; against them, interleaved in the
same run, the query as it was before paging (``bench/queries/findings-unpaged.rq``: every
finding, sorted) cut with ``LIMIT 100 OFFSET k``, each asked in a process of its own killed
after ``--timeout`` seconds (recorded as a lower bound).

``validate`` writes into the store it is given (copy one first): ``validate --all`` (the run
over every page, which saves what it checked), then ``validate`` with nothing changed, then, once
new versions of ``--changed`` pages of ``--corpus`` are ingested (their data updated a month
later), ``validate`` against ``validate --all --no-save`` on a copy of the store taken then,
comparing their verdicts and counts. Each ``validate`` is a process, timed whole.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.launch import REPO

UNPAGED = REPO / "bench" / "queries" / "findings-unpaged.rq"


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _page_run(store: str, values: dict[str, str], pages: int) -> dict[str, Any]:
    """Ask ``pages`` pages of audit-findings in turn (each after the last row of the one
    before); the time of the last page, uncached (a fresh process asks each series)."""
    code = (
        "import json, sys, time\n"
        "from benchgraph import answering, queries\n"
        "from benchgraph.store.opening import open_store\n"
        "store = open_store(sys.argv[1], must_exist=True, only_reads=True)\n"
        "values = json.loads(sys.argv[2]); named = queries.find('audit-findings')\n"
        "after, times, rows = None, [], 0\n"
        "for _ in range(int(sys.argv[3])):\n"
        "    asked = dict(values, **({'after': after} if after else {}))\n"
        "    t = time.perf_counter(); c = time.process_time()\n"
        "    found = list(answering.answer(store, named, asked))\n"
        "    times.append((time.perf_counter() - t, time.process_time() - c))\n"
        "    rows = len(found); after = found[-1]['position'].value if found else None\n"
        "print(json.dumps({'wall': times[-1][0], 'cpu': times[-1][1], 'rows': rows}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, store, json.dumps(values), str(pages)],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=True,
    )
    return dict(json.loads(done.stdout))


def _offset_run(store: str, offset: int, timeout: float) -> dict[str, Any]:
    """The query as it was, ``LIMIT 100 OFFSET offset``, in a process killed after
    ``timeout`` s."""
    text = UNPAGED.read_text(encoding="utf-8") + f"\nLIMIT 100 OFFSET {offset}\n"
    code = (
        "import sys, time, pyoxigraph as ox\n"
        "s = ox.Store.read_only(sys.argv[1])\n"
        "t = time.perf_counter(); c = time.process_time()\n"
        "n = len(list(s.query(sys.stdin.read())))\n"
        "print(time.perf_counter() - t, time.process_time() - c, n)\n"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", code, store],
            input=text,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=True,
        )
    except subprocess.TimeoutExpired:
        return {"wall": None, "cpu": None, "rows": None, "over": timeout}
    wall, cpu, rows = done.stdout.split()
    return {"wall": float(wall), "cpu": float(cpu), "rows": int(rows)}


def measure_pages(args: argparse.Namespace) -> dict[str, Any]:
    cases = [
        ("first page", {"limit": "100"}, 1, 0),
        ("10th page", {"limit": "100"}, 10, 900),
        ("severity=Warning", {"limit": "100", "severity": "Warning"}, 1, 0),
        ("kind=Method-origin", {"limit": "100", "kind": "Method-origin"}, 1, 0),
    ]
    rows = []
    for name, values, pages, offset in cases:
        ours, peer = [], []
        for _ in range(args.repeat):  # interleaved: the machine is shared
            ours.append(_page_run(args.store, values, pages))
            if name in ("first page", "10th page"):
                peer.append(_offset_run(args.store, offset, args.timeout))
        rows.append({"case": name, "paged": ours, "offset": peer, "load": load_average()})
        print(name, ours, peer, flush=True)
    return {"store": args.store, "pages": rows}


def _cpu() -> float:
    """The CPU seconds (user and system) the finished child processes have used."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _validate(store: Path, *args: str) -> tuple[float, dict[str, Any]]:
    started, cpu = time.perf_counter(), _cpu()
    done = subprocess.run(
        [sys.executable, "-m", "benchgraph.cli", "validate", "--format", "json", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "BENCHGRAPH_STORE": str(store)},
    )
    took = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise RuntimeError(f"validate {args} failed: {done.stderr}")
    document = json.loads(done.stdout)
    document.pop("findings", None)
    document["cpu_s"] = _cpu() - cpu
    return took, document


def _new_versions(corpus: Path, count: int, out: Path, first: int = 0) -> list[Path]:
    """New versions of ``count`` sota2 pages of ``corpus``: the same page, updated a month
    later (new bytes, so a new version)."""
    out.mkdir(parents=True, exist_ok=True)
    made = []
    for path in sorted(corpus.glob("*.txt"))[first:]:
        text = path.read_text(encoding="utf-8")
        found = re.search(r"^Data updated: 2026-(\d{2})", text, flags=re.MULTILINE)
        if found is None or len(made) == count:
            continue
        month = int(found[1]) % 12 + 1
        text = text.replace(found[0], f"Data updated: 2026-{month:02d}", 1)
        (out / path.name).write_text(text, encoding="utf-8")
        made.append(out / path.name)
    return made


def measure_validate(args: argparse.Namespace) -> dict[str, Any]:
    store = Path(args.store)
    result: dict[str, Any] = {"store": str(store)}
    if not args.skip_all:
        took, document = _validate(store, "--all")
        result["all"] = {"s": took, "answer": document, "load": load_average()}
        print("all", took, flush=True)
    result["unchanged"] = []
    for _ in range(args.repeat):
        took, document = _validate(store)
        result["unchanged"].append({"s": took, "answer": document, "load": load_average()})
        print("unchanged", took, flush=True)
    new = Path(args.work) / f"new-{args.first}"
    changed = _new_versions(Path(args.corpus), args.changed, new, args.first)
    done = subprocess.run(
        [sys.executable, "-m", "benchgraph.cli", "ingest", "--quiet", *map(str, changed)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "BENCHGRAPH_STORE": str(store)},
    )
    if done.returncode != 0:
        raise RuntimeError(f"ingest failed: {done.stderr}")
    copy = Path(args.work) / "every"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(store, copy, ignore=shutil.ignore_patterns("LOCK", "benchgraph-holder.json"))
    took, few = _validate(store)
    result["changed"] = {"pages": args.changed, "s": took, "answer": few, "load": load_average()}
    print("changed", took, flush=True)
    if not args.skip_all:
        took, every = _validate(copy, "--all", "--no-save")
        result["changed_all"] = {"s": took, "answer": every, "load": load_average()}
        keys = ("conforms", "violations", "warnings", "infos", "view")
        result["same"] = {k: few[k] for k in keys} == {k: every[k] for k in keys}
        print("changed --all", took, result["same"], flush=True)
    shutil.rmtree(copy, ignore_errors=True)
    return result


def measure_unchanged(args: argparse.Namespace) -> dict[str, Any]:
    """In-process, on the store opened read-only: what ``validate`` reads when no page changed
    (:func:`benchgraph.store_validation.unchanged`), against a saved state of the store's own size.
    With no saved validation in the store (a run over every page saves one), one is made from
    its graphs' versions (every page counted with two shapes' findings), written as the saved
    one is and read back; its write and read are timed apart."""
    from benchgraph import store_validation, validated
    from benchgraph.store.opening import open_store

    store = open_store(args.store, must_exist=True, only_reads=True)
    runs = []
    for _ in range(args.repeat):
        started, cpu = time.perf_counter(), time.process_time()
        state = validated.saved(store)
        made = state is None
        if state is None:
            held = validated.versions(store)
            pages = store_validation.page_graphs(store)
            versions = {g: held.get(g, "") for g in pages}
            versions.update(
                {
                    g: s
                    for g, s in held.items()
                    if g.startswith("https://w3id.org/benchgraph/id/history/")
                }
            )
            counts = {
                g: [
                    ("Warning", "bgsh:Result-configuration", 18),
                    ("Warning", "bgsh:Method-origin", 4),
                ]
                for g in pages
            }
            built = validated.State(
                validated.shapes_digest(), versions, True, True, (), "now", counts
            )
            text = built.triples()[0].object.value
            state = validated.State(**{**built.__dict__})
            json.loads(text)
        read = time.perf_counter() - started
        real = validated.saved
        validated.saved = lambda _store, state=state: state  # type: ignore[assignment]
        try:
            t0, c0 = time.perf_counter(), time.process_time()
            report = store_validation.unchanged(store)
            took, used = time.perf_counter() - t0, time.process_time() - c0
        finally:
            validated.saved = real  # type: ignore[assignment]
        runs.append(
            {"state_made": made, "state_s": read, "unchanged_s": took, "unchanged_cpu_s": used,
             "answered": report is not None, "pages": len(state.versions), "load": load_average(),
             "total_cpu_s": time.process_time() - cpu}
        )  # fmt: skip
        print(runs[-1], flush=True)
    return {"store": args.store, "runs": runs}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.findings", description=__doc__)
    parser.add_argument("part", choices=("pages", "validate", "unchanged"))
    parser.add_argument("--store", required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--corpus", help="validate: the pages folder the store was built from")
    parser.add_argument("--work", default="/tmp/bench-findings")
    parser.add_argument("--changed", type=int, default=3)
    parser.add_argument("--first", type=int, default=0, help="validate: the first page changed")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--skip-all", action="store_true", help="validate: no --all runs")
    parser.add_argument("--label", default="")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    measure = {"pages": measure_pages, "validate": measure_validate, "unchanged": measure_unchanged}
    data = measure[args.part](args)
    data.update({"started": started, "load_at_end": load_average(), "argv": sys.argv})
    name = f"{args.part}{'-' + args.label if args.label else ''}.json"
    (args.out / name).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
