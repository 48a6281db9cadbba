"""Measure the ingest rate per source format, every format in the same run.

    python -m bench.formats --repeat 3 --out BENCHMARKS.md

Each input is one row: a file or a folder, or ``FORMAT=PATH`` for only the files of ``PATH``
whose content is of that format (the ``format`` of ``ingest.reading.read_pages``'s first
source; they are copied to a folder of their own, so the ingest sees exactly them). Without
``--input`` the rows are the
founding pages beside the checkout (``../shared/seeds``: the sota2 pages and the AI Benchmark
Radar pages apart), a generated corpus of ``--generated-pages`` sota2 and Radar pages
(``bench.generate``, seed 1) for a comparison of like size, and the result files of
``../shared/data``: Papers with Code evaluation tables (the largest file, ``eff.json``, alone,
and its whole folder), Papers with Code API responses, Hugging Face model-index blocks, the
benchmark-radar score file and its crawled leaderboard CSV; then the samples of the evaluation
tools' formats in ``tests/data`` (:data:`SAMPLE_FOLDERS`: Every Eval Ever records,
lm-evaluation-harness results, MTEB results, a HELM run and OpenMMLab metafiles), each folder a
row, read where it stands (MTEB, HELM and OpenMMLab files are named by their folders).

For each row it measures:

- ``benchgraph ingest`` as a process into a fresh embedded store (``bench.run``), ``--repeat``
  times after a warm-up, min/median/max, with its peak RSS; the results loaded, from the
  command's summary line (the same in every run), and results per second;
- parsing alone, in this process: ``read_pages`` on the bytes of every file of the row (read
  beforehand), ``--repeat`` times after a warm-up;
- the bulk-load floor: pyoxigraph ``Store.bulk_load`` of the quads the ingest left (``benchgraph
  export --format nquads --history``) into a fresh store, ``--repeat`` times after a warm-up,
  and the ratio of the ingest's median to the floor's.

The ingest of an empty folder (the process's start and end alone) is timed too, and the load
average before and after each row. The numbers go into the ``formats`` part of the report's
JSON beside ``--out`` and its section of the Markdown (see :mod:`bench.report`), replacing an
earlier run's; the other parts of the report are kept.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.launch import REPO
from bench.report import machine, write
from bench.run import (
    bulk_load_once,
    export,
    generate_corpus,
    ingest_process,
    load_average,
    log,
    repeated,
    stats,
)
from ingest.reading import read_pages
from ingest.records import PageError
from ingest.walking import walk

SHARED = REPO.parent / "shared"
SEEDS = SHARED / "seeds"
DATA = SHARED / "data"
# The result files measured by default, under DATA, each a row.
RESULT_FILES = (
    "pwc/sota-extractor/eff.json",  # the largest sample of Papers with Code tables
    "pwc/sota-extractor",
    "pwc/api",
    "hf_model_index",
    "benchmark_radar_ktwu01/benchmark_scores.yml",
    "benchmark_radar_ktwu01/llm_stats_benchmark_scores_2026-08-17.head300.csv",
)
# The samples of the evaluation tools' formats, under TEST_DATA, each folder a row.
TEST_DATA = REPO / "tests" / "data"
SAMPLE_FOLDERS = ("eee-records", "lm-eval", "mteb", "helm", "openmmlab")
SUMMARY = re.compile(
    r"^(?P<loaded>\d+) loaded, (?P<unchanged>\d+) unchanged.*?, (?P<refused>\d+) refused, "
    r"(?P<unreadable>\d+) unreadable(?:, (?P<skipped>\d+) skipped \(not a page\))?; "
    r"(?P<results>\d+) results in the loaded pages",
    re.MULTILINE,
)


@dataclass(frozen=True)
class Source:
    """One row: ``path`` (a file or folder) as ``label`` names it, all its files or only those
    of the format ``only``."""

    label: str
    path: Path
    only: str | None = None

    @classmethod
    def parse(cls, spec: str) -> Source:
        """The source ``[FORMAT=]PATH`` names (a path holding ``=`` needs a format first)."""
        only, named, path = spec.partition("=")
        if not named:
            only, path = "", spec
        found = Path(path)
        if not found.exists():
            raise SystemExit(f"python -m bench.formats: --input {spec}: no such file or folder")
        label = found.name + ("/" if found.is_dir() else "")
        return cls(label + (f" ({only} only)" if only else ""), found, only or None)

    def files(self) -> list[Path]:
        """The row's files: the file, or the files a folder's walk meets (of ``only``)."""
        found = walk(self.path) if self.path.is_dir() else [self.path]
        return [p for p in found if self.only is None or _format(p.read_bytes(), p) == self.only]


def _format(data: bytes, path: Path) -> str | None:
    """The format ``read_pages`` reads ``data`` as, or None for bytes it refuses."""
    try:
        return read_pages(data, str(path))[0].format
    except PageError:
        return None


def default_sources(
    seeds: Path, data: Path, generated: Path | None, samples: Path = TEST_DATA
) -> list[Source]:
    """The rows measured without ``--input``: those of them that exist beside the checkout,
    then the folders of ``samples`` named in :data:`SAMPLE_FOLDERS`."""
    sources = []
    if seeds.is_dir():
        sources += [Source(f"{seeds.name}/ ({f} only)", seeds, f) for f in ("sota2", "radar")]
    if generated is not None:
        sources.append(Source(f"generated/ ({len(walk(generated))} pages)", generated))
    for relative in RESULT_FILES:
        path = data / relative
        if path.exists():
            sources.append(Source(path.name + ("/" if path.is_dir() else ""), path))
    for name in SAMPLE_FOLDERS:
        if (samples / name).is_dir():
            sources.append(Source(f"tests/data/{name}/", samples / name))
    return sources


def staged(source: Source, work: Path) -> tuple[Path, list[Path]]:
    """The path to ingest for ``source`` and its files: the path itself when every file is
    kept, else a folder under ``work`` holding copies of the files kept."""
    files = source.files()
    if source.only is None:
        return source.path, files
    folder = work / "input"
    folder.mkdir(parents=True)
    for file in files:
        shutil.copy2(file, folder / file.name)
    return folder, files


def summary(stdout: str) -> dict[str, int]:
    """The counts of ``benchgraph ingest``'s summary line in ``stdout``."""
    found = SUMMARY.search(stdout)
    if found is None:
        raise RuntimeError(f"no summary line in the ingest's output: {stdout[-500:]!r}")
    return {k: int(v or 0) for k, v in found.groupdict().items()}


def parse_seconds(blobs: Sequence[tuple[bytes, str]]) -> tuple[float, int]:
    """Seconds to run ``read_pages`` on every ``(bytes, origin)`` of ``blobs``, and the results
    of the sources it returned."""
    results = 0
    start = time.perf_counter()
    for data, origin in blobs:
        with contextlib.suppress(PageError):  # a refused file is timed too
            results += sum(len(page.results) for page in read_pages(data, origin))
    return time.perf_counter() - start, results


def measure(source: Source, work: Path, repeat: int) -> dict[str, Any]:
    """Everything the module's docstring lists, for one row."""
    before = load_average()
    path, files = staged(source, work)
    blobs = [(file.read_bytes(), str(file)) for file in files]
    store, counts, rss = work / "store", [], []

    def ingest() -> float:
        done = ingest_process(path, store)
        counts.append(summary(done.stdout))
        rss.append(done.peak_rss)
        return done.seconds

    times = repeated(ingest, repeat)
    if any(c != counts[0] for c in counts):
        raise RuntimeError(f"{source.label}: the runs loaded different counts: {counts}")
    parse = repeated(lambda: parse_seconds(blobs)[0], repeat)
    nquads = work / "store.nq"
    export(store, nquads)
    with nquads.open("rb") as lines:
        quads = sum(1 for _ in lines)
    floor = repeated(lambda: bulk_load_once(nquads, work / "floor"), repeat)
    results = counts[0]["results"]
    ingest_s, floor_s = stats(times), stats(floor)
    formats = sorted({f for data, origin in blobs if (f := _format(data, Path(origin)))})
    row = {
        "label": source.label,
        "path": str(source.path),
        "only": source.only,
        "format": " + ".join(formats) or "none",
        "files": len(files),
        "bytes": sum(len(data) for data, _ in blobs),
        **counts[0],
        "parsed_results": parse_seconds(blobs)[1],
        "quads": quads,
        "runs": repeat,
        "warmup": True,
        "ingest_s": ingest_s,
        "results_per_s": stats([results / t for t in times]) if results else None,
        "parse_s": stats(parse),
        "floor_s": floor_s,
        "ratio_ingest_over_floor": ingest_s["median"] / floor_s["median"],
        "ratio_parse_over_ingest": stats(parse)["median"] / ingest_s["median"],
        "peak_rss_mb": stats([r / 2**20 for r in rss[-repeat:]]),
        "load_average_before": before,
        "load_average_after": load_average(),
    }
    shutil.rmtree(work, ignore_errors=True)
    return row


def generate(pages: int, out: Path) -> Path:
    """A corpus of ``pages`` sota2 and Radar pages (``bench.generate``, seed 1) in ``out``;
    its pages' folder."""
    if not generate_corpus(None, pages, out):
        raise RuntimeError(f"bench.generate failed for {pages} pages")
    return out / "pages"


def run(sources: Sequence[Source], work: Path, repeat: int, command: str) -> dict[str, Any]:
    """The ``formats`` part of the report: every row of ``sources`` measured in turn."""
    start = load_average()
    empty = work / "empty"
    empty.mkdir()
    startup = repeated(lambda: ingest_process(empty, work / "empty-store").seconds, repeat)
    rows = []
    for i, source in enumerate(sources):
        log(f"formats: {source.label} (load average {load_average()})")
        rows.append(measure(source, work / f"row-{i}", repeat))
    return {
        "date": machine()["date"],
        "command": command,
        "repeat": repeat,
        "load_average_start": start,
        "load_average_end": load_average(),
        "startup_s": stats(startup),
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.formats",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--input",
        action="append",
        metavar="[FORMAT=]PATH",
        help="a row: a file or folder, or only its files of FORMAT (repeatable; default: the "
        "seeds, a generated corpus and ../shared/data's result files)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="timed runs after a warm-up")
    parser.add_argument(
        "--generated-pages",
        type=int,
        default=100,
        help="pages of the generated corpus among the default rows (0: none)",
    )
    parser.add_argument("--out", default="BENCHMARKS.md", help="the report (its .json beside)")
    parser.add_argument("--work", help="working folder (default: a temporary one)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    data = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    command = "python -m bench.formats " + " ".join(sys.argv[1:] if argv is None else argv)
    if args.work:
        Path(args.work).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="formats-", dir=args.work) as tmp:
        work = Path(tmp)
        if args.input:
            sources = [Source.parse(spec) for spec in args.input]
        else:
            pages = args.generated_pages
            corpus = generate(pages, work / "corpus") if pages else None
            sources = default_sources(SEEDS, DATA, corpus)
        data["formats"] = run(sources, work, args.repeat, command.strip())
    write(out, data)
    log(f"wrote {out} and {out.with_suffix('.json')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
