"""Measure what keeping every version costs: a store given a second version of some pages.

    python -m bench.history --sizes 1000,10000 --out BENCHMARKS.md

For each size a corpus is generated (``bench.generate``, seed 1) and ingested once (untimed);
its store is copied (the store of one version). Then a second version of 10 % of the sota2
pages is written, dated a month after the newest page, with 5 % of each one's values changed
(at least one), and ingested into the store (timed, ``benchgraph ingest`` as a process). It
measures, against the store of one version where there is a peer:

- the store's size on disk, before and after;
- the second versions' ingest;
- ``changes`` since a day after the newest first version (so before every second version):
  its time read from the changes record (:mod:`benchgraph.changelog`: the versions that moved
  in the window, each pair from the delta kept at ingest) and, interleaved with it, read from
  every version in the catalogue and both graphs of each pair (as it was before the record;
  ``--before-repeat`` runs, no warm-up: it is slow), each in seconds and in this process's CPU
  seconds (what a loaded machine changes least), whether the two give the same rows, and the
  rows against the values changed (they must be equal);
- ``leaderboard`` as of that day against the current leaderboard, on the benchmarks of pages
  given a second version (so the two differ), and the as-of answer against the answer of the
  store of one version (they must be equal); ``benchmarks`` as of that day against the current
  one, up to ``--benchmarks-max-pages``.

``--first-store`` and ``--corpus`` start from a store of the first versions built beforehand
(``python -m bench.generate`` and ``benchgraph ingest``) instead: it is copied, and the first
ingest is not timed. A ``--work`` folder that already holds ``store``, ``one-version`` and
``revision.json`` (a run's, or stores built so) is measured as it is: only the queries run.

The queries run in this process on the store opened read-only (``Store.answer``, as
``benchgraph query`` runs them), ``--repeat`` times after a warm-up, min/median/max. The
numbers go into the ``history`` part of the report's JSON beside ``--out`` and its section of
the Markdown (see :mod:`bench.report`); the other parts of the report are kept.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyoxigraph as ox

from bench.launch import REPO
from bench.report import SEED, machine, write
from bench.run import du, generate_corpus, ingest_once, load_average, log, stats, timed_runs

if TYPE_CHECKING:
    from benchgraph.store import Store

SHARE = 0.10  # pages given a second version
VALUES_SHARE = 0.05  # values changed in each of them
_UPDATED = re.compile(r"^Data updated: (\S+)$", re.MULTILINE)
_SECTION = re.compile(r"^(?P<metric>.+): (?P<value>-?[\d.]+)\. Result ID: [0-9a-f]{24}\.$")
_ROW = re.compile(r"^\| (?P<method>.+?) \| (?P<value>-?[\d.]+) \| ")


@dataclass(frozen=True)
class Revision:
    """The second versions written: how many pages and values, and their dates."""

    pages: int
    values: int
    newest_first: str  # the newest data-updated time among the first versions
    dated: str  # the second versions' data-updated time


def _bumped(value: str) -> str:
    """``value`` one step of its last decimal place higher, written with as many places."""
    number = Decimal(value)
    step = Decimal(1).scaleb(number.as_tuple().exponent)  # type: ignore[arg-type]
    return str(number + step)


def revise(text: str, rng: random.Random, dated: str) -> tuple[str, int] | None:
    """A second version of the sota2 page ``text``, updated ``dated``, with 5 % of its values
    (at least one) changed in its table and its sections alike; None for a page of another
    shape (a Radar page, or a table whose rows do not match the sections)."""
    lines = text.split("\n")
    sections = [i for i, line in enumerate(lines) if _SECTION.match(line)]
    start = next((i for i, line in enumerate(lines) if line == "## Recorded results"), None)
    if start is None or not sections or not _UPDATED.search(text):
        return None
    rows = [i for i in range(start, sections[0]) if _ROW.match(lines[i])]
    if len(rows) != len(sections):
        return None
    count = max(1, round(len(sections) * VALUES_SHARE))
    for k in rng.sample(range(len(sections)), count):
        section, row = _SECTION.match(lines[sections[k]]), _ROW.match(lines[rows[k]])
        assert section is not None and row is not None
        if section["value"] != row["value"]:
            return None
        new = _bumped(section["value"])
        lines[sections[k]] = (
            f"{section['metric']}: {new}. Result ID: "
            + lines[sections[k]].split("Result ID: ", 1)[1]
        )
        lines[rows[k]] = lines[rows[k]].replace(f" | {row['value']} | ", f" | {new} | ", 1)
    return _UPDATED.sub(f"Data updated: {dated}", "\n".join(lines), count=1), count


def newest_version(store: Path) -> datetime:
    """The newest data-updated time (ingest time for a page without one) of the store's
    pages."""
    from benchgraph import versions
    from benchgraph.store.embedded import EmbeddedStore

    with EmbeddedStore(store, read_only=True) as opened:
        return max(v.order[0] for page in versions.read_all(opened) for v in page.all)


def second_versions(pages: Path, out: Path, newest: datetime, seed: int = SEED) -> Revision:
    """Write to ``out`` the second versions of :data:`SHARE` of the sota2 pages in
    ``pages``, dated 30 days after ``newest``."""

    def written(when: datetime) -> str:
        return when.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    dated = written(newest + timedelta(days=30))
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    count = values = 0
    for path in sorted(pages.iterdir()):
        if rng.random() >= SHARE:
            continue
        revised = revise(path.read_text(encoding="utf-8"), rng, dated)
        if revised is not None:
            (out / path.name).write_text(revised[0], encoding="utf-8")
            count, values = count + 1, values + revised[1]
    return Revision(count, values, written(newest), dated)


def compacted_size(store: Path) -> int:
    """The size on disk of the store at ``store`` once compacted (``Store.optimize``), so that
    two stores compare whatever compactions their writes happened to leave pending."""
    import pyoxigraph as ox

    opened = ox.Store(str(store))
    opened.optimize()
    opened.flush()
    del opened
    return du(store)


def _rows(store: Store, name: str, values: dict[str, str]) -> list[tuple[str, ...]]:
    """The rows of the named query ``name`` on ``store``."""
    from benchgraph import answering, queries

    answer = answering.answer(store, queries.find(name), values)
    return [tuple(str(getattr(t, "value", "")) for t in row) for row in answer]  # type: ignore[union-attr]


def _revised_benchmarks(store: Store, count: int) -> list[str]:
    """IRIs of benchmarks of pages given a second version (from the history graphs)."""
    from benchgraph import graphs

    found: list[str] = []
    subject = ox.NamedNode("http://purl.org/dc/terms/subject")
    for graph in store.named_graphs():
        if graph.startswith(graphs.HISTORY):
            for triple in store.graph_triples(graph):
                if triple.predicate == subject and triple.object.value not in found:  # type: ignore[union-attr]
                    found.append(triple.object.value)  # type: ignore[union-attr]
        if len(found) >= count:
            break
    return found[:count]


def _changes(store: Store, since: str, recorded: bool) -> list[tuple[str, ...]]:
    """The rows of ``changes`` since ``since`` on ``store``, read from the changes record or
    (not ``recorded``) from every version and both graphs of each pair."""
    from benchgraph import answering, asof, queries

    question = answering.ask(
        queries.find("changes"), {"since": since}, answering.StoreFinder(store)
    )
    assert question.past is not None
    answer = asof.run(store, question.past, question.text, question.bindings, recorded=recorded)
    return [tuple(str(getattr(t, "value", "")) for t in row) for row in answer]  # type: ignore[union-attr]


def _changes_timed(store: Store, since: str, repeat: int, before_repeat: int) -> dict[str, Any]:
    """``changes`` since ``since`` read from the record (a warm-up, then ``repeat`` runs) and
    from every version (``before_repeat`` runs, no warm-up), interleaved: their times, rows,
    and whether the rows are the same."""
    after = _changes(store, since, True)  # the warm-up
    rows: dict[bool, list[tuple[str, ...]]] = {True: after}
    times: dict[bool, list[float]] = {True: [], False: []}
    cpu: dict[bool, list[float]] = {True: [], False: []}  # this process's, whatever the load
    for i in range(max(repeat, before_repeat)):
        for recorded, runs in ((False, before_repeat), (True, repeat)):
            if i < runs:
                start, started = time.perf_counter(), time.process_time()
                rows[recorded] = _changes(store, since, recorded)
                times[recorded].append(time.perf_counter() - start)
                cpu[recorded].append(time.process_time() - started)
    return {
        "changes_rows": len(after),
        "changes_changed": sum(1 for r in after if r[0] == "changed"),
        "changes_s": stats(times[True]),
        "changes_cpu_s": stats(cpu[True]),
        "changes_before_s": stats(times[False]) if times[False] else None,
        "changes_before_cpu_s": stats(cpu[False]) if cpu[False] else None,
        "changes_same_rows": rows[True] == rows.get(False, rows[True]),
    }


def _queries(
    now: Store, then: Store, since: str, repeat: int, benchmarks: bool, before_repeat: int = 1
) -> dict[str, Any]:
    """``changes`` since ``since``, and leaderboards (and ``benchmarks``) as of then and now,
    on the store of two versions ``now``; the as-of answers against ``then``'s, the store of
    one version."""
    measured: dict[str, Any] = {
        **_changes_timed(now, since, repeat, before_repeat),
        "leaderboards": [],
    }
    for benchmark in _revised_benchmarks(now, 5):
        values = {"benchmark": benchmark}
        as_of = _rows(now, "leaderboard", {**values, "asOf": since})
        measured["leaderboards"].append(
            {
                "benchmark": benchmark,
                "current_s": timed_runs(lambda v=values: _rows(now, "leaderboard", v), repeat),
                "as_of_s": timed_runs(
                    lambda v=values: _rows(now, "leaderboard", {**v, "asOf": since}), repeat
                ),
                "rows": len(as_of),
                "same_as_one_version": as_of == _rows(then, "leaderboard", values),
                "differs_from_current": as_of != _rows(now, "leaderboard", values),
            }
        )
    if benchmarks:
        as_of = _rows(now, "benchmarks", {"asOf": since})
        measured["benchmarks"] = {
            "current_s": timed_runs(lambda: _rows(now, "benchmarks", {}), 1),
            "as_of_s": timed_runs(lambda: _rows(now, "benchmarks", {"asOf": since}), 1),
            "same_as_one_version": as_of == _rows(then, "benchmarks", {}),
        }
    return measured


def measure(
    pages: int,
    work: Path,
    repeat: int,
    benchmarks_max_pages: int,
    first: tuple[Path, Path] | None = None,
    before_repeat: int = 1,
) -> dict[str, Any]:
    """Everything the module's docstring lists, for a corpus of ``pages`` pages (``first``: its
    pages folder and a store of them, built beforehand)."""
    store, one = work / "store", work / "one-version"
    built = store.is_dir() and one.is_dir() and (work / "revision.json").is_file()
    measured: dict[str, Any] = {}
    if built:
        revision = Revision(**json.loads((work / "revision.json").read_text(encoding="utf-8")))
        log(f"history, {pages} pages: the stores in {work} as they are")
        timed = work / "built.json"  # how they were built, if it was timed
        measured = json.loads(timed.read_text(encoding="utf-8")) if timed.is_file() else {}
        measured.setdefault("store_bytes_one_version", du(one))
        measured.setdefault("store_bytes_two_versions", du(store))
        measured.setdefault("second_ingest_s", 0.0)
    else:
        measured = _built(pages, work, first)
        revision = Revision(**measured["second_versions"])
    since = (datetime.fromisoformat(revision.newest_first) + timedelta(days=1)).date().isoformat()
    log(f"history, {pages} pages: queries (load average {load_average()})")
    from benchgraph.store.embedded import EmbeddedStore

    with EmbeddedStore(store, read_only=True) as now, EmbeddedStore(one, read_only=True) as then:
        benchmarks = pages <= benchmarks_max_pages
        measured |= _queries(now, then, since, repeat, benchmarks, before_repeat)
    measured.update(pages=pages, date=machine()["date"], second_versions=asdict(revision))
    measured.update(since=since, load_average=load_average())
    return measured


def _built(pages: int, work: Path, first: tuple[Path, Path] | None) -> dict[str, Any]:
    """Build the store of one version and the store of two in ``work`` (see :func:`measure`),
    timing the second versions' ingest (and the first, unless ``first`` gives it)."""
    corpus, store, one = work / "corpus", work / "store", work / "one-version"
    if first is None:
        if not generate_corpus(None, pages, corpus):
            raise RuntimeError(f"bench.generate failed for {pages} pages")
        log(f"history, {pages} pages: first versions (load average {load_average()})")
        first_s, _ = ingest_once(corpus / "pages", store)
        folder = corpus / "pages"
    else:
        folder, built = first
        first_s = None
        shutil.copytree(built, store)
    shutil.copytree(store, one)
    before = compacted_size(one)
    revision = second_versions(folder, work / "second", newest_version(store))
    (work / "revision.json").write_text(json.dumps(asdict(revision)), encoding="utf-8")
    log(f"history, {pages} pages: {revision.pages} second versions (load average {load_average()})")
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "benchgraph.cli", "ingest", "--quiet", "--store", str(store),
         str(work / "second")],
        capture_output=True, text=True, cwd=REPO, timeout=7200,
    )  # fmt: skip
    second_s = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise RuntimeError(f"ingest failed: {done.stderr[-2000:]}")
    return {
        "second_versions": asdict(revision),
        "first_ingest_s": first_s,
        "second_ingest_s": second_s,
        "store_bytes_one_version": before,
        "store_bytes_two_versions": compacted_size(store),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.history",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--sizes", default="1000", help="corpus sizes in pages (comma list)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per query timing")
    parser.add_argument(
        "--benchmarks-max-pages",
        type=int,
        default=1000,
        help="time the benchmarks query as of a date only up to this many pages (it reads "
        "every page)",
    )
    parser.add_argument(
        "--before-repeat",
        type=int,
        default=1,
        help="runs of changes read from every version (no warm-up: it is slow)",
    )
    parser.add_argument("--corpus", help="a corpus built beforehand: its folder (pages/ inside)")
    parser.add_argument("--first-store", help="a store of --corpus's pages, built beforehand")
    parser.add_argument("--out", default="BENCHMARKS.md", help="the report (its .json beside)")
    parser.add_argument("--work", help="working folder (default: a temporary one)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    data = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    command = "python -m bench.history " + " ".join(sys.argv[1:] if argv is None else argv)
    history = {h["pages"]: h for h in data.get("history", [])}
    if args.work:
        Path(args.work).mkdir(parents=True, exist_ok=True)
    first = (Path(args.corpus) / "pages", Path(args.first_store)) if args.first_store else None
    for pages in (int(s) for s in args.sizes.split(",")):
        kept = Path(args.work or "") / "store"
        if args.work and kept.is_dir():  # stores built beforehand: measured as they are
            measured = measure(pages, Path(args.work), args.repeat, args.benchmarks_max_pages,
                               first, args.before_repeat)  # fmt: skip
        else:
            with tempfile.TemporaryDirectory(prefix="history-", dir=args.work) as tmp:
                measured = measure(pages, Path(tmp), args.repeat, args.benchmarks_max_pages,
                                   first, args.before_repeat)  # fmt: skip
        history[pages] = {**measured, "command": command}
        data["history"] = [history[p] for p in sorted(history)]
        write(out, data)
    log(f"wrote {out} and {out.with_suffix('.json')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
