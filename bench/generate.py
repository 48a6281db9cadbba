"""A deterministic generator of synthetic source pages, for measurements at realistic scale.

    python -m bench.generate --pages 1000 --seed 1 --out /tmp/corpus

writes ``/tmp/corpus/pages/`` (one file per page: about 95 % sota2 pages, 5 % AI Benchmark Radar
pages) and ``/tmp/corpus/manifest.json``, which states what was generated: the counts a store
holds after ``benchgraph ingest /tmp/corpus/pages``. The same seed gives the same bytes.

    python -m bench.generate --pwc-archive 10000 --seed 1 --out /tmp/evaluation-tables.json

writes instead one Papers with Code evaluation-tables file of 10,000 leaderboards (see
:mod:`bench.pwc_archive`).

Pages are written one at a time. Only what the distinct counts need (sets of method, paper and
benchmark keys) and the benchmark whose pages are being written stay in memory.

The shape follows the real pages. A sota2 page shows one benchmark (task, dataset, sometimes a
split) ranked by one of its metrics, so a benchmark recurs on one page per metric, with mostly
the same rows. Methods and papers are shared across pages with Zipf-like popularity; a method
keeps one origin paper everywhere (85 % have one), which reports some of its results while other
papers report the rest. About a third of the results carry a configuration.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import date, datetime, timedelta
from pathlib import Path

from bench import catalogue as C
from bench import pwc_archive, radar_pages
from bench.pools import Method, Pools, digest, fold
from bench.templates import RadarPage, Sota2Page, Sota2Row, render_radar, render_sota2

PAGES_DIR = "pages"
MANIFEST = "manifest.json"
RADAR_EVERY = 20  # one page in 20 is a Radar page
PARTIAL_EVERY = 29  # one sota2 page in about 29 shows "N of M" with N < M
SELF_REPORT_SHARE = 0.35  # results of such a method that its origin paper reports
CONFIGURED_SHARE = 0.35  # benchmarks whose results record a configuration
DATED_SHARE = 0.3  # benchmarks whose results record a date
OTHER_METRIC_SHARE = 0.7  # further metrics of a benchmark that get a page of their own
ROW_SHARE = 0.9  # rows of a benchmark that also report a further metric


@dataclass(frozen=True)
class Manifest:
    """What a generated corpus holds; the counts are those a store holds after ingesting it.

    ``results`` counts every result (Radar pages also have subset, generative and per-caption-
    length results besides their headline series); ``aggregates`` counts the Radar means that
    are no method's result. ``methods``, ``papers`` and ``benchmarks`` are distinct counts.
    """

    seed: int
    pages: int
    sota2_pages: int
    radar_pages: int
    results: int
    sota2_results: int
    radar_results: int
    aggregates: int
    methods: int
    papers: int
    benchmarks: int
    partial_pages: int
    empty_pages: int
    bytes: int
    pages_dir: str = PAGES_DIR

    @classmethod
    def read(cls, path: str | Path) -> Manifest:
        """Read a ``manifest.json``; raise OSError or ValueError if it cannot be read."""
        return cls(**json.loads(Path(path).read_text(encoding="utf-8")))


def _decimal(value: float, decimals: int) -> str:
    """A value as sota2 prints it: rounded, without trailing zeros (``44.0`` is ``44``)."""
    text = f"{value:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


@dataclass(frozen=True)
class _Entry:
    """One row a benchmark's pages share: who reported what, how, and how good it is."""

    method: Method
    reporter: str
    configuration: str | None
    date: str | None
    quality: float  # 0 (worst) .. 1 (best), the same on every metric up to noise


@dataclass(frozen=True)
class _Benchmark:
    task: str
    dataset: str  # as published, with "(split)"
    key: tuple[str, str, str]
    slug: str
    description: str
    metrics: tuple[C.Metric, ...]
    page_metrics: tuple[int, ...]
    roster: tuple[_Entry, ...]
    updated: datetime


@dataclass
class _Counts:
    sota2_pages: int = 0
    radar_pages: int = 0
    sota2_results: int = 0
    radar_results: int = 0
    aggregates: int = 0
    partial_pages: int = 0
    empty_pages: int = 0


class _Corpus:
    """Plans and builds the pages of one corpus, in order, and counts what they hold."""

    def __init__(self, seed: int, pages: int) -> None:
        self.seed, self.count = seed, pages
        self.pools = Pools(seed, pages)
        self._radar_offset = random.Random(f"{seed}/radar-offset").randrange(RADAR_EVERY)
        self._empty = {self._next_sota2(pages // 2)}
        if pages >= 100:
            self._empty.add(self._next_sota2(pages * 9 // 10))
        self._partial = {self._next_sota2(k) for k in range(11, pages, PARTIAL_EVERY)}
        self._partial -= self._empty
        self._models = radar_pages.RadarModels(seed)
        self._used: set[object] = set()  # benchmark keys, slugs and Radar names taken
        self.methods: set[str] = set()
        self.papers: set[str] = set()
        self.benchmarks: set[object] = set()
        self.counts = _Counts()

    def is_radar(self, index: int) -> bool:
        return (index + self._radar_offset) % RADAR_EVERY == 0

    def _next_sota2(self, index: int) -> int:
        while self.is_radar(index):
            index += 1
        return index

    def _unique(self, candidate: str, kind: str) -> str:
        """``candidate``, or ``candidate-2``, ``-3`` … : the first not yet taken for ``kind``."""
        name = candidate
        for number in itertools.count(2):
            if (kind, fold(name)) not in self._used:
                break
            name = f"{candidate}-{number}"
        self._used.add((kind, fold(name)))
        return name

    def pages(self) -> Iterator[tuple[int, str]]:
        """Yield ``(index, text)`` for every page, in order."""
        slots = self._slots()
        for index in range(self.count):
            if self.is_radar(index):
                yield index, render_radar(self._radar(index))
            else:
                benchmark, metric = next(slots)
                yield index, render_sota2(self._sota2(index, benchmark, metric))

    def _slots(self) -> Iterator[tuple[_Benchmark, int]]:
        for number in itertools.count():
            benchmark = self._benchmark(number)
            for metric in benchmark.page_metrics:
                yield benchmark, metric

    def _benchmark(self, number: int) -> _Benchmark:
        rng = random.Random(f"{self.seed}/benchmark/{number}")
        for attempt in itertools.count():
            domain = rng.randrange(len(C.DOMAINS))
            tasks, datasets, metrics = C.DOMAINS[domain]
            task = rng.choice(C.TASK_MODIFIERS) + rng.choice(tasks)
            dataset, split = rng.choice(datasets), rng.choice(C.SPLITS)
            if attempt >= 40:  # the catalogue is exhausted: number the dataset's parts
                dataset = f"{dataset} (part {attempt - 38})"
            key = (fold(task), fold(dataset), fold(split))
            if ("benchmark", key) not in self._used:
                break
        self._used.add(("benchmark", key))
        published = f"{dataset} ({split})" if split else dataset
        chosen = tuple(rng.sample(metrics, rng.randint(2, min(7, len(metrics)))))
        others = [m for m in range(1, len(chosen)) if rng.random() < OTHER_METRIC_SHARE]
        names = [m.name for m in chosen[:3]]
        description = rng.choice(C.DESCRIPTIONS).format(
            task=task,
            where=f"the {split} split of {dataset}" if split else dataset,
            metrics=", ".join(names[:-1]) + " and " + names[-1],
        )
        reporters = [self.pools.draw_paper(rng) for _ in range(rng.choice((1, 1, 2, 2, 3, 4, 6)))]
        keys = rng.sample(C.CONFIG_KEYS, rng.randint(1, 3))
        configured, dated = rng.random() < CONFIGURED_SHARE, rng.random() < DATED_SHARE
        roster = []
        for _ in range(int(rng.triangular(5, 60, 36))):
            method = self.pools.draw_method(rng, domain)
            own = method.origin is not None and rng.random() < SELF_REPORT_SHARE
            config = None
            if configured and rng.random() < 0.95:
                settings = {k: rng.choice(values) for k, values in keys}
                config = json.dumps(settings, ensure_ascii=False, separators=(",", ":"))
            day = date(2019, 1, 1) + timedelta(days=rng.randrange(2650))
            roster.append(
                _Entry(
                    method,
                    method.origin if own and method.origin else rng.choice(reporters),
                    config,
                    day.isoformat() if dated and rng.random() < 0.85 else None,
                    rng.betavariate(2, 2),
                )
            )
        return _Benchmark(
            task,
            published,
            key,
            self._unique(fold(f"{task} on {published}"), "slug"),
            description,
            chosen,
            (0, *others),
            tuple(roster),
            datetime(2025, 6, 1) + timedelta(seconds=rng.randrange(300 * 86400)),
        )

    def _sota2(self, index: int, bench: _Benchmark, m: int) -> Sota2Page:
        rng = random.Random(f"{self.seed}/page/{index}")
        metric = bench.metrics[m]
        ranked: list[tuple[float, Sota2Row]] = []
        prefix = f"{0x69000000 + index * 7919:08x}{rng.getrandbits(40):010x}"
        counter = rng.randrange(1 << 24)
        for position, entry in enumerate(() if index in self._empty else bench.roster):
            if m and position and rng.random() > ROW_SHARE:
                continue
            quality = min(1.0, max(0.0, entry.quality + rng.gauss(0.0, 0.08)))
            span = (metric.high - metric.low) * (quality if metric.higher else 1.0 - quality)
            value = _decimal(metric.low + span, metric.decimals)
            row = Sota2Row(
                result_id=f"{prefix}{(counter + position) % (1 << 24):06x}",
                method=entry.method.name,
                value=value,
                date=entry.date,
                reporter=entry.reporter,
                origin=entry.method.origin,
                implementation=entry.method.implementation,
                configuration=entry.configuration,
            )
            ranked.append((float(value), row))
        ranked.sort(key=lambda item: item[0], reverse=metric.higher)
        rows, total, page_count = [row for _, row in ranked], len(ranked), 1
        if index in self._partial and total >= 2:
            shown = rng.randint(max(1, total // 3), total - 1)
            rows, page_count = rows[:shown], math.ceil(total / shown)
            self.counts.partial_pages += 1
        self.counts.empty_pages += not rows
        self.counts.sota2_pages += 1
        self.counts.sota2_results += len(rows)
        self.benchmarks.add(("sota2", bench.key))
        for row in rows:
            self.methods.add(fold(row.method))
            self.papers.update(p for p in (row.reporter, row.origin) if p)
        stamp = bench.updated + timedelta(milliseconds=rng.randrange(86_400_000))
        # The page key comes from the Source URL's path, so each metric's page needs its own.
        slug = bench.slug if m == 0 else self._unique(f"{bench.slug}-{fold(metric.name)}", "slug")
        return Sota2Page(
            task=bench.task,
            dataset=bench.dataset,
            slug=bench.slug,
            page_slug=slug,
            updated=f"{stamp:%Y-%m-%dT%H:%M:%S}.{stamp.microsecond // 1000:03d}Z",
            description=bench.description,
            metrics=bench.metrics,
            primary=metric,
            rows=tuple(rows),
            total=total,
            page_count=page_count,
        )

    def _radar(self, index: int) -> RadarPage:
        rng = random.Random(f"{self.seed}/radar/{index}")
        name = self._unique(rng.choice(C.RADAR_PREFIXES) + rng.choice(C.RADAR_SUFFIXES), "radar")
        page = radar_pages.radar_page(rng, name, self._models)
        self.counts.radar_pages += 1
        self.counts.radar_results += radar_pages.result_count(page)
        self.counts.aggregates += len(page.aggregates)
        self.methods.update(fold(method) for method in radar_pages.methods(page))
        self.papers.add("title:" + fold(page.paper))
        self.benchmarks.add(("radar", fold(name)))
        return page

    def manifest(self, size: int) -> Manifest:
        """The manifest of the pages built so far, ``size`` bytes in all."""
        return Manifest(
            seed=self.seed,
            pages=self.count,
            results=self.counts.sota2_results + self.counts.radar_results,
            methods=len(self.methods),
            papers=len(self.papers),
            benchmarks=len(self.benchmarks),
            bytes=size,
            **asdict(self.counts),
        )


def generate(out_dir: str | Path, pages: int, seed: int = 0) -> Manifest:
    """Write ``pages`` synthetic pages to ``out_dir/pages/`` and ``out_dir/manifest.json``.

    Returns the manifest. Raises ValueError when ``pages`` is not positive and
    FileExistsError when ``out_dir/pages`` already holds files.
    """
    if pages < 1:
        raise ValueError(f"pages must be at least 1, not {pages}")
    out = Path(out_dir)
    folder = out / PAGES_DIR
    folder.mkdir(parents=True, exist_ok=True)
    if any(folder.iterdir()):
        raise FileExistsError(f"{folder} is not empty: choose a new output folder")
    corpus = _Corpus(seed, pages)
    width = max(3, len(str(pages - 1)))
    size = 0
    for index, text in corpus.pages():
        data = text.encode("utf-8")
        (folder / f"{index:0{width}d}_{digest(seed, 'file', index, size=8)}.txt").write_bytes(data)
        size += len(data)
    manifest = corpus.manifest(size)
    (out / MANIFEST).write_text(json.dumps(asdict(manifest), indent=2) + "\n", encoding="utf-8")
    return manifest


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit code (0 done, 2 bad usage or output folder)."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.generate",
        description="Write a deterministic synthetic corpus of sota2 and AI Benchmark Radar "
        "pages, plus a manifest.json of what it holds, or one Papers with Code "
        "evaluation-tables file.",
    )
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--pages", type=int, metavar="N", help="number of pages")
    what.add_argument(
        "--pwc-archive",
        type=int,
        metavar="N",
        help="write one evaluation-tables.json of N leaderboards (the archive has about 10000)",
    )
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (0)")
    parser.add_argument(
        "--out", type=Path, required=True, metavar="DIR|FILE", help="output folder (the file "
        "for --pwc-archive)"
    )  # fmt: skip
    args = parser.parse_args(argv)
    started = time.perf_counter()
    if args.pwc_archive is not None:
        return _archive(args.out, args.pwc_archive, args.seed, started)
    try:
        m = generate(args.out, args.pages, seed=args.seed)
    except (ValueError, FileExistsError) as error:
        print(f"bench.generate: error: {error}", file=sys.stderr)
        return 2
    print(
        f"{m.pages} pages ({m.sota2_pages} sota2, {m.radar_pages} radar), {m.results} results, "
        f"{m.methods} methods, {m.papers} papers, {m.benchmarks} benchmarks; "
        f"{m.bytes / 1e6:.1f} MB in {time.perf_counter() - started:.1f} s: "
        f"{args.out / PAGES_DIR}, {args.out / MANIFEST}"
    )
    return 0


def _archive(out: Path, leaderboards: int, seed: int, started: float) -> int:
    """Write the evaluation-tables file of ``--pwc-archive``; return the exit code."""
    try:
        m = pwc_archive.write_archive(out, leaderboards, seed=seed)
    except (ValueError, FileExistsError) as error:
        print(f"bench.generate: error: {error}", file=sys.stderr)
        return 2
    print(
        f"{m.leaderboards} leaderboards in {m.tasks} tasks ({m.subtasks} subtasks), {m.rows} "
        f"rows, {m.results} results ({m.skipped_cells} cells of no value); {m.bytes / 1e6:.1f} "
        f"MB in {time.perf_counter() - started:.1f} s: {out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
