"""A deterministic Papers-with-Code-archive-like ``evaluation-tables.json``, for measuring the
ingest of one large many-source file.

    python -m bench.generate --pwc-archive 10000 --seed 1 --out /tmp/evaluation-tables.json

writes a JSON list of tasks in the sota-extractor format with exactly N leaderboards (sota
tables), shaped like the samples in ``../shared/data/pwc/sota-extractor``: top-level tasks with
subtasks, datasets with subdatasets (each a leaderboard of its own), one to three metrics per
table (two on average) and 5 to 13 rows, so about 16 results a leaderboard (10,000
leaderboards hold some 164,000). Cells are JSON numbers (fractions and integers), numeric
strings with trailing zeros, ``±`` spreads and percentages; a few are ``-``, empty or several
values in one cell, which the parser skips with a warning. Rows name an arXiv paper, another
paper URL or none, and carry code links, a date (or none) and ``uses_additional_data``.

The file is written one top-level task at a time: only the names taken (for distinct keys)
stay in memory. The same seed gives the same bytes; each task is drawn from its own seeded
generator.
"""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import IO, Any

from bench import catalogue as C
from bench.pools import fold

SUBSETS = ("Test", "Dev", "Validation", "Full", "Restricted", "Unrestricted", "5-shot", "Hard")
AREAS = ("Computer Vision", "Natural Language Processing", "Speech", "Multimodal", "Graphs")
UNREADABLE = ("-", "", "(32.76 32.07)")  # cells the parser skips, with a warning
VENUES = ("https://aclanthology.org/2020.acl-main.{n}/", "https://openreview.net/forum?id=r{n}x",
          "https://proceedings.neurips.cc/paper/2021/hash/{n:032x}-Abstract.html")  # fmt: skip


@dataclass(frozen=True)
class ArchiveManifest:
    """What a generated archive holds: the counts the parser reads from it."""

    seed: int
    leaderboards: int
    tasks: int  # top-level tasks
    subtasks: int
    rows: int
    results: int  # readable cells: each one result
    skipped_cells: int  # cells that hold no single value
    bytes: int


@dataclass
class _Counts:
    tables: int = 0
    tasks: int = 0
    subtasks: int = 0
    rows: int = 0
    results: int = 0
    skipped: int = 0


@dataclass
class _Archive:
    """Draws the tasks of one archive, in order, keeping task names distinct."""

    seed: int
    leaderboards: int
    counts: _Counts = field(default_factory=_Counts)
    _taken: set[str] = field(default_factory=set)

    def tasks(self) -> Any:
        """Yield the top-level tasks until the archive holds its leaderboards."""
        for number in itertools.count():
            if self.counts.tables >= self.leaderboards:
                return
            rng = random.Random(f"{self.seed}/pwc-task/{number}")
            self.counts.tasks += 1
            yield self._task(rng, rng.randrange(len(C.DOMAINS)), depth=0)

    def _task(self, rng: random.Random, domain: int, depth: int) -> dict[str, Any]:
        tasks, datasets, metrics = C.DOMAINS[domain]
        name = self._unique(rng.choice(C.TASK_MODIFIERS) + rng.choice(tasks))
        task: dict[str, Any] = {
            "task": name,
            "description": f"{name} is a task of {AREAS[domain % len(AREAS)]}.",
            "categories": [AREAS[domain % len(AREAS)]],
            "synonyms": [],
            "source_link": None,
            "datasets": [],
            "subtasks": [],
        }
        taken: set[str] = set()
        for _ in range(rng.choice((1, 1, 2, 2, 3, 4))):
            if self.counts.tables >= self.leaderboards:
                break
            dataset = rng.choice(datasets)
            while fold(dataset) in taken:
                dataset = f"{dataset} {rng.choice(('v2', 'Extended', 'Full', 'Mini'))}"
            taken.add(fold(dataset))
            task["datasets"].append(self._dataset(rng, dataset, metrics))
        if depth < 2 and rng.random() < 0.35:
            for _ in range(rng.randint(1, 3)):
                if self.counts.tables >= self.leaderboards:
                    break
                self.counts.subtasks += 1
                task["subtasks"].append(self._task(rng, domain, depth + 1))
        return task

    def _unique(self, candidate: str) -> str:
        name = candidate
        for number in itertools.count(2):
            if fold(name) not in self._taken:
                break
            name = f"{candidate} {number}"
        self._taken.add(fold(name))
        return name

    def _dataset(
        self, rng: random.Random, name: str, metrics: tuple[C.Metric, ...]
    ) -> dict[str, Any]:
        dataset: dict[str, Any] = {"dataset": name, "description": "", "dataset_links": [],
                                   "dataset_citations": [], "subdatasets": []}  # fmt: skip
        if rng.random() < 0.2:  # subdatasets, each a leaderboard; the dataset has none
            for subset in rng.sample(SUBSETS, rng.randint(2, 3)):
                if self.counts.tables >= self.leaderboards:
                    break
                dataset["subdatasets"].append(
                    {"subdataset": subset, "subdatasets": [], "sota": self._sota(rng, metrics)}
                )
            dataset["sota"] = {"metrics": [], "rows": []}
        else:
            dataset["sota"] = self._sota(rng, metrics)
        return dataset

    def _sota(self, rng: random.Random, metrics: tuple[C.Metric, ...]) -> dict[str, Any]:
        self.counts.tables += 1
        chosen = rng.sample(metrics, min(rng.choice((1, 2, 2, 3)), len(metrics)))
        rows = [self._row(rng, chosen) for _ in range(rng.randint(5, 13))]
        return {"metrics": [m.name for m in chosen], "rows": rows}

    def _row(self, rng: random.Random, metrics: list[C.Metric]) -> dict[str, Any]:
        self.counts.rows += 1
        name = rng.choice(C.METHOD_PREFIXES) + rng.choice(C.METHOD_ROOTS)
        name += rng.choice(C.METHOD_VARIANTS)
        paper, url = _paper(rng, name)
        day = date(2014, 1, 1) + timedelta(days=rng.randrange(3650))
        org, repo = rng.choice(C.GITHUB_ORGS), fold(name)
        return {
            "model_name": name,
            "paper_title": paper,
            "paper_url": url,
            "paper_date": rng.choice((day.isoformat(), day.isoformat(), "", None)),
            "code_links": [{"title": f"{org}/{repo}", "url": f"https://github.com/{org}/{repo}"}]
            * rng.choice((0, 1, 1)),
            "model_links": [],
            "metrics": {m.name: self._cell(rng, m) for m in metrics if rng.random() < 0.95},
            "uses_additional_data": rng.random() < 0.2,
        }

    def _cell(self, rng: random.Random, metric: C.Metric) -> object:
        value = rng.uniform(metric.low, metric.high)
        kind = rng.random()
        if kind < 0.04:
            self.counts.skipped += 1
            return rng.choice(UNREADABLE)
        self.counts.results += 1
        text = f"{value:.{metric.decimals}f}"
        if kind < 0.35:  # a JSON number
            return round(value) if metric.decimals == 0 else round(value, metric.decimals)
        if kind < 0.45:
            return f"{text} ± {rng.uniform(0.01, 1.5):.2f}"
        if kind < 0.55 and metric.unit == "PERCENT":
            return f"{text}%"
        return text


def _paper(rng: random.Random, name: str) -> tuple[str, str]:
    """A row's paper title and URL: an arXiv paper, another venue's, or none."""
    kind = rng.random()
    title = f"{name}: {rng.choice(('Towards', 'Rethinking', 'Scaling'))} {name.split('-')[0]}"
    number = rng.randrange(1, 10**6)
    if kind < 0.6:
        arxiv = f"{rng.randint(15, 24)}{rng.randint(1, 12):02d}.{number % 100000:05d}"
        return title, f"https://arxiv.org/abs/{arxiv}"
    if kind < 0.8:
        return title, rng.choice(VENUES).format(n=number)
    return "", ""


def write_archive(out: str | Path, leaderboards: int = 10_000, seed: int = 0) -> ArchiveManifest:
    """Write an evaluation-tables file of ``leaderboards`` tables to ``out``, one task at a
    time, and return what it holds. Raises ValueError when ``leaderboards`` is not positive and
    FileExistsError when ``out`` exists."""
    if leaderboards < 1:
        raise ValueError(f"leaderboards must be at least 1, not {leaderboards}")
    path = Path(out)
    archive = _Archive(seed, leaderboards)
    with path.open("x", encoding="utf-8") as file:
        size = _write(file, archive)
    counts = archive.counts
    return ArchiveManifest(seed, counts.tables, counts.tasks, counts.subtasks, counts.rows,
                           counts.results, counts.skipped, size)  # fmt: skip


def _write(file: IO[str], archive: _Archive) -> int:
    """Write the tasks of ``archive`` as a JSON list; return the bytes written."""
    size = 0
    for index, task in enumerate(archive.tasks()):
        text = ("[\n" if index == 0 else ",\n") + json.dumps(task, ensure_ascii=False)
        file.write(text)
        size += len(text.encode("utf-8"))
    file.write("\n]\n")
    return size + 3
