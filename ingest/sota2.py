"""Parser for sota2 leaderboard pages (Markdown).

A sota2 page names one benchmark (task, dataset, optional split), declares its metrics, lists
the recorded results in a table and then repeats each result in a ``### <Method>`` section with
its result ID, papers, implementation and evaluation configuration. The table and the sections
must agree, and their count must match the page's ``Results loaded | N of M`` row: this is how
a truncated or edited page is caught. Anything unexpected raises :class:`PageError`.

This module reads the page's layout (title, Source, headings, footer), its Scope table and its
Metrics list, and assembles the ``Page``; ``sota2_results`` reads the results.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from benchgraph.names import normalise
from ingest.markdown import table_rows, unescape
from ingest.records import Benchmark, Direction, MetricDecl, Page, ResultRecord, SourceFormat
from ingest.sota2_results import TABLE, read_results
from ingest.text import TRUNCATED, TRUNCATED_OR_EDITED, PageText

FORMAT: SourceFormat = "sota2"

_TITLE = re.compile(r"^# (.+ on .+)$")
_SOURCE = re.compile(r"^Source: \[(.*)\]\(<([^<>\s]+)>\)$")
_UPDATED = re.compile(r"^Data updated: (\S+)$")
_SCOPE_HEADER = re.compile(r"^\|\s*Scope\s*\|\s*Recorded value\s*\|\s*$")
_METRIC_ITEM = re.compile(r"^- \[((?:\\.|[^\]\\])+)\]\(<([^<>\s]*)>\): (.+?); unit: (\S+?)\.$")
_FOOTER = re.compile(r"^Page ([0-9]+) of ([0-9]+)\.(?: .*\.)?$")  # a cut footer ends mid-sentence
_COUNT = re.compile(r"^(\d+) of (\d+)$")
_SPLIT = re.compile(r"^(.*\S)\s*\(([^()]+)\)$")
_SPLIT_WORD = re.compile(r"(?<![a-z])(?:test|val|valid|validation|dev|train)(?![a-z])", re.I)
_DIRECTIONS: dict[str, Direction] = {"higher is better": "higher", "lower is better": "lower"}
_DATASET_ROW = "Dataset (including any stated split)"
_SCOPE_ROWS = ("Task", _DATASET_ROW, "Metric", "Unit", "Direction", "Results loaded")


@dataclass
class _Scope:
    benchmark: Benchmark
    metric: str
    unit: tuple[int, str]  # (line, published unit)
    direction: tuple[int, Direction]
    declared: int
    total: int
    count_line: int
    coverage: str | None


def sniff(text: str) -> bool:
    """Return True when ``text`` looks like a sota2 page: title, Source line and scope table."""
    lines = [line.rstrip("\r") for line in text.lstrip("\ufeff").split("\n")]
    return (
        any(_TITLE.match(line) for line in lines)
        and any(line.startswith("Source: [") for line in lines)
        and any(_SCOPE_HEADER.match(line) for line in lines)
    )


def parse(data: bytes, origin: str) -> Page:
    """Read one sota2 page from ``data``; ``origin`` names it in errors and in the Page.

    Raises PageError for anything that is not a complete, self-consistent sota2 page.
    """
    page = PageText.decode(
        data, origin, "the file is not valid UTF-8 text", "a sota2 page is a UTF-8 Markdown file"
    )
    if next(page.filled(), None) is None:
        raise page.error(None, "the file is empty", "a sota2 page starts with a '# ' title")
    footer = _footer_index(page.lines)
    body_end = len(page.lines) if footer is None else footer
    headings = _headings(page, body_end)
    preamble_end = headings[0][0] if headings else body_end
    title, url, updated, description = _parse_header(page, preamble_end)
    scope = _parse_scope(page, preamble_end)
    bounds = [index for index, _ in headings] + [body_end]
    blocks = {name: (bounds[i] + 1, bounds[i + 1]) for i, (_, name) in enumerate(headings)}
    if "Metrics" not in blocks:
        raise page.error("page", "the '## Metrics' list is missing", TRUNCATED)
    metrics = _parse_metrics(page, *blocks["Metrics"])
    _check_primary(page, scope, metrics)
    results = _results(page, blocks, scope)
    number, count = _page_number(page, footer)
    key = _key(scope, number)
    return Page(
        format=FORMAT,
        origin=origin,
        key=key,
        title=title,
        url=url,
        data_updated=updated,
        benchmark=scope.benchmark,
        metrics=tuple(metrics),
        primary_metric=scope.metric,
        results=tuple(results),
        declared_count=scope.declared,
        total_count=scope.total,
        coverage=scope.coverage,
        description=description,
        page_number=number,
        page_count=count,
        sha256=page.sha256,
    )


def _results(
    page: PageText, blocks: dict[str, tuple[int, int]], scope: _Scope
) -> list[ResultRecord]:
    """The results table's records, as many as the scope table declares.

    Raises PageError for a missing table when results are declared, or another count."""
    results: list[ResultRecord] = []
    if TABLE in blocks:
        results = read_results(page, *blocks[TABLE], scope.metric)
    elif scope.declared:
        raise page.error(
            "page",
            f"the page declares {scope.declared} results but has no '## {TABLE}' section",
            TRUNCATED,
        )
    if len(results) != scope.declared:
        raise page.error(
            scope.count_line,
            f"'Results loaded' declares {scope.declared} of {scope.total} results "
            f"but the page lists {len(results)}",
            TRUNCATED_OR_EDITED,
        )
    return results


def _page_number(page: PageText, footer: int | None) -> tuple[int, int]:
    """The page's number and the count of pages, from its closing 'Page X of Y.' line at index
    ``footer``. Raises PageError when the line is missing or the number is impossible."""
    if footer is None:
        raise page.error("end of page", "the closing 'Page X of Y.' line is missing", TRUNCATED)
    number, count = (
        page.number(footer + 1, text, "page number")
        for text in _FOOTER.findall(page.lines[footer])[0]
    )
    if not 1 <= number <= count:
        raise page.error(footer + 1, f"page number {number} of {count} is impossible")
    return number, count


def _find(page: PageText, pattern: re.Pattern[str], end: int) -> int | None:
    """The index of the first line before index ``end`` that ``pattern`` matches."""
    return next((i for i in range(end) if pattern.match(page.lines[i])), None)


def _footer_index(lines: list[str]) -> int | None:
    filled = [index for index, line in enumerate(lines) if line.strip()]
    return filled[-1] if filled and _FOOTER.match(lines[filled[-1]]) else None


def _headings(page: PageText, end: int) -> list[tuple[int, str]]:
    """The ``## `` headings as (line index, name): one Metrics and one Recorded results."""
    headings: list[tuple[int, str]] = []
    for index, line in enumerate(page.lines[:end]):
        if line.startswith("## "):
            name = line[3:].strip()
            if name not in ("Metrics", TABLE) or name in (n for _, n in headings):
                raise page.error(
                    index + 1,
                    f"unexpected section '## {name}'",
                    f"a sota2 page has one '## Metrics' and one '## {TABLE}'",
                )
            headings.append((index, name))
    return headings


def _key(scope: _Scope, number: int) -> str:
    """The page's identity: the benchmark and the metric it states, and past the first, its
    page number (a benchmark has a page per metric, and may have several per metric). Never
    its Source URL, which takes several forms for one page (the page, its ``.md``, a
    ``?metric=`` link): each is the same page, and a later copy is a newer version of it."""
    bench = scope.benchmark
    split = f" ({bench.split})" if bench.split else ""
    stated = normalise(f"{bench.task} on {bench.dataset}{split}")
    return f"sota2/{stated}/{normalise(scope.metric)}" + (f"/page-{number}" if number > 1 else "")


def _parse_header(page: PageText, end: int) -> tuple[str, str, str, str | None]:
    """Title, Source URL, Data updated and description."""
    lines = page.lines
    first = next((i for i in range(end) if lines[i].strip()), None)
    title = _TITLE.match(lines[first]) if first is not None else None
    if title is None:
        raise page.error(
            first + 1 if first is not None else "page",
            "the page does not start with a '# <task> on <dataset>' title",
        )
    source_at = _find(page, _SOURCE, end)
    if source_at is None:
        raise page.error("page", "the 'Source: [...](<url>)' line is missing or malformed")
    url = _SOURCE.findall(lines[source_at])[0][1]
    try:
        slug = urlsplit(url).path.rstrip("/").rsplit("/", 1)[-1]
    except ValueError:  # e.g. an unbalanced '[' read as an IPv6 host
        slug = ""
    if not slug:
        raise page.error("Source", f"the Source URL {url!r} has no page name")
    updated_at = _find(page, _UPDATED, end)
    if updated_at is None:
        raise page.error("page", "the 'Data updated: <timestamp>' line is missing or malformed")
    updated = _UPDATED.findall(lines[updated_at])[0]
    description = _paragraph_after(lines, updated_at + 1, end)
    return unescape(title.group(1)), url, updated, description


def _paragraph_after(lines: list[str], start: int, end: int) -> str | None:
    index = start
    while index < end and not lines[index].strip():
        index += 1
    paragraph: list[str] = []
    while index < end and lines[index].strip():
        paragraph.append(lines[index].strip())
        index += 1
    text = " ".join(paragraph)
    return text if text and not text.startswith(("|", "#")) else None


def _direction(page: PageText, location: str | int, text: str) -> Direction:
    try:
        return _DIRECTIONS[text.strip().lower()]
    except KeyError:
        raise page.error(
            location,
            f"unknown direction {text!r}",
            "expected 'Higher is better' or 'Lower is better'",
        ) from None


def _parse_scope(page: PageText, end: int) -> _Scope:
    header = _find(page, _SCOPE_HEADER, end)
    if header is None:
        raise page.error("page", "the '| Scope | Recorded value |' table is missing", TRUNCATED)
    rows: dict[str, tuple[int, str]] = {}
    for index, (label, value) in table_rows(page, header, 2):
        if label in rows:
            raise page.error(index + 1, f"scope row {label!r} appears twice")
        rows[label] = (index + 1, value)
    for label in _SCOPE_ROWS:
        if label not in rows:
            raise page.error(
                f"scope table (line {header + 1})", f"the row {label!r} is missing", TRUNCATED
            )
    count_line, count_text = rows["Results loaded"]
    count = _COUNT.match(count_text)
    if not count:
        raise page.error(count_line, f"'Results loaded' is {count_text!r}, expected 'N of M'")
    declared = page.number(count_line, count.group(1), "'Results loaded' count")
    total = page.number(count_line, count.group(2), "'Results loaded' total")
    if declared > total:
        raise page.error(
            count_line,
            f"'Results loaded' says {declared} of {total}: more results loaded than exist",
        )
    direction_line, direction_text = rows["Direction"]
    return _Scope(
        benchmark=_benchmark(unescape(rows["Task"][1]), unescape(rows[_DATASET_ROW][1])),
        metric=unescape(rows["Metric"][1]),
        unit=rows["Unit"],
        direction=(direction_line, _direction(page, direction_line, direction_text)),
        declared=declared,
        total=total,
        count_line=count_line,
        coverage=rows.get("Coverage", (0, None))[1],
    )


def _benchmark(task: str, dataset: str) -> Benchmark:
    """A trailing ``(...)`` of the dataset is its split when it names one (``ART500K (test)``)."""
    split = _SPLIT.match(dataset)
    if split and _SPLIT_WORD.search(split.group(2)):
        return Benchmark(task, split.group(1), split.group(2).strip())
    return Benchmark(task, dataset)


def _parse_metrics(page: PageText, start: int, end: int) -> list[MetricDecl]:
    metrics: list[MetricDecl] = []
    for index in range(start, end):
        line = page.lines[index]
        if not line.strip():
            continue
        item = _METRIC_ITEM.match(line)
        if not item:
            raise page.error(
                index + 1,
                f"unexpected line in the Metrics list: {line!r}",
                "expected '- [Name](<url>): Higher is better; unit: UNIT.'",
            )
        name = unescape(item.group(1))
        if any(m.name == name for m in metrics):
            raise page.error(index + 1, f"metric {name!r} is declared twice")
        direction = _direction(page, index + 1, item.group(3))
        metrics.append(MetricDecl(name, item.group(4), direction, item.group(2) or None))
    if not metrics:
        raise page.error(start, "the Metrics list is empty")
    return metrics


def _check_primary(page: PageText, scope: _Scope, metrics: list[MetricDecl]) -> None:
    """The scope's metric must be declared in the Metrics list, with the same unit and direction."""
    decl = next((m for m in metrics if m.name == scope.metric), None)
    if decl is None:
        raise page.error(
            "scope table",
            f"the page metric {scope.metric!r} is not in the Metrics list",
            f"declared: {', '.join(m.name for m in metrics)}",
        )
    for what, (line, published), declared in (
        ("unit", scope.unit, decl.unit),
        ("direction", scope.direction, decl.direction),
    ):
        if published != declared:
            raise page.error(
                line,
                f"scope {what} {published!r} differs from {declared!r} "
                f"declared for {scope.metric!r} in the Metrics list",
            )
