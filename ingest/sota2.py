"""Parser for sota2 leaderboard pages (Markdown).

A sota2 page names one benchmark (task, dataset, optional split), declares its metrics, lists
the recorded results in a table and then repeats each result in a ``### <Method>`` section with
its result ID, papers, implementation and evaluation configuration. The table and the sections
must agree, and their count must match the page's ``Results loaded | N of M`` row: this is how
a truncated or edited page is caught. Anything unexpected raises :class:`PageError`.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from ingest.records import (
    Benchmark,
    Configuration,
    Direction,
    MetricDecl,
    Page,
    PageError,
    PaperRef,
    ResultRecord,
    Setting,
    SourceFormat,
)

FORMAT: SourceFormat = "sota2"
TABLE = "Recorded results"

_TITLE = re.compile(r"^# (.+ on .+)$")
_SOURCE = re.compile(r"^Source: \[(.*)\]\(<([^<>\s]+)>\)$")
_UPDATED = re.compile(r"^Data updated: (\S+)$")
_SCOPE_HEADER = re.compile(r"^\|\s*Scope\s*\|\s*Recorded value\s*\|\s*$")
_SEPARATOR = re.compile(r"^:?-{3,}:?$")
_METRIC_ITEM = re.compile(r"^- \[((?:\\.|[^\]\\])+)\]\(<([^<>\s]*)>\): (.+?); unit: (\S+?)\.$")
_RESULT_LINE = re.compile(r"^(.+): (.*?)\. Result ID: (\S*)\.$")
_LINK_LINE = re.compile(r"^\[(Reporting paper|Method origin paper|Implementation)\]\(<(\S+)>\)$")
_CONFIG_LINE = re.compile(
    r"^Recorded evaluation configuration: (.*)\. "
    r"This record does not assert independent reproduction\.$"
)
_FOOTER = re.compile(r"^Page (\d+) of (\d+)\.(?: .*\.)?$")  # a cut footer ends mid-sentence
_COUNT = re.compile(r"^(\d+) of (\d+)$")
_PAPER_URL = re.compile(r"^https?://[^/\s]+/(?:\S*/)?paper/([0-9a-f]{24})\.md$")
_HEX_ID = re.compile(r"^[0-9a-f]{24}$")
_DECIMAL = re.compile(r"^-?\d+(?:\.\d+)?$")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z?)?$")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
_SPLIT = re.compile(r"^(.*\S)\s*\(([^()]+)\)$")
_SPLIT_WORD = re.compile(r"(?<![a-z])(?:test|val|valid|validation|dev|train)(?![a-z])", re.I)
_PIPE = re.compile(r"(?<!\\)\|")
_DIRECTIONS: dict[str, Direction] = {"higher is better": "higher", "lower is better": "lower"}
_TRUNCATED = "the page may be truncated"
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


@dataclass
class _Row:
    number: int
    line: int
    method: str
    value: str
    date: str | None
    paper: str


@dataclass
class _Section:
    line: int
    method: str
    body: list[tuple[int, str]] = field(default_factory=list)


class _Reader:
    """The page's lines plus its origin, for errors that name a place."""

    def __init__(self, origin: str, lines: list[str]) -> None:
        self.origin = origin
        self.lines = lines

    def fail(self, location: str | int, problem: str, hint: str = "") -> PageError:
        where = f"line {location}" if isinstance(location, int) else location
        return PageError(self.origin, where, problem, hint)

    def find_index(self, pattern: re.Pattern[str], end: int) -> int | None:
        return next((i for i in range(end) if pattern.match(self.lines[i])), None)


def unescape(text: str) -> str:
    """Undo Markdown backslash escapes (``CLIP-T (S\\*T)`` becomes ``CLIP-T (S*T)``)."""
    return _ESCAPE.sub(r"\1", text)


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
    reader = _Reader(origin, _decode(data, origin))
    footer = _footer_index(reader.lines)
    body_end = len(reader.lines) if footer is None else footer
    headings = _headings(reader, body_end)
    preamble_end = headings[0][0] if headings else body_end
    title, url, key, updated, description = _parse_header(reader, preamble_end)
    scope = _parse_scope(reader, preamble_end)
    bounds = [index for index, _ in headings] + [body_end]
    blocks = {name: (bounds[i] + 1, bounds[i + 1]) for i, (_, name) in enumerate(headings)}
    if "Metrics" not in blocks:
        raise reader.fail("page", "the '## Metrics' list is missing", _TRUNCATED)
    metrics = _parse_metrics(reader, *blocks["Metrics"])
    _check_primary(reader, scope, metrics)
    rows: list[_Row] = []
    sections: list[_Section] = []
    if TABLE in blocks:
        rows, sections = _parse_results(reader, *blocks[TABLE], scope.metric)
    elif scope.declared:
        raise reader.fail(
            "page",
            f"the page declares {scope.declared} results but has no '## {TABLE}' section",
            _TRUNCATED,
        )
    results = _combine(reader, rows, sections, scope.metric)
    if len(results) != scope.declared:
        raise reader.fail(
            scope.count_line,
            f"'Results loaded' declares {scope.declared} of {scope.total} results "
            f"but the page lists {len(results)}",
            "the page may be truncated or edited",
        )
    if footer is None:
        raise reader.fail("end of page", "the closing 'Page X of Y.' line is missing", _TRUNCATED)
    number, count = map(int, _FOOTER.findall(reader.lines[footer])[0])
    if not 1 <= number <= count:
        raise reader.fail(footer + 1, f"page number {number} of {count} is impossible")
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
        sha256=hashlib.sha256(data).hexdigest(),
    )


def _decode(data: bytes, origin: str) -> list[str]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise PageError(
            origin,
            f"byte {error.start}",
            "the file is not valid UTF-8 text",
            "a sota2 page is a UTF-8 Markdown file",
        ) from None
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    if not text.strip():
        raise PageError(origin, "", "the file is empty", "a sota2 page starts with a '# ' title")
    return text.split("\n")


def _footer_index(lines: list[str]) -> int | None:
    filled = [index for index, line in enumerate(lines) if line.strip()]
    return filled[-1] if filled and _FOOTER.match(lines[filled[-1]]) else None


def _headings(reader: _Reader, end: int) -> list[tuple[int, str]]:
    """The ``## `` headings as (line index, name): one Metrics and one Recorded results."""
    headings: list[tuple[int, str]] = []
    for index, line in enumerate(reader.lines[:end]):
        if line.startswith("## "):
            name = line[3:].strip()
            if name not in ("Metrics", TABLE) or name in (n for _, n in headings):
                raise reader.fail(
                    index + 1,
                    f"unexpected section '## {name}'",
                    f"a sota2 page has one '## Metrics' and one '## {TABLE}'",
                )
            headings.append((index, name))
    return headings


def _parse_header(reader: _Reader, end: int) -> tuple[str, str, str, str, str | None]:
    """Title, Source URL, page key, Data updated and description."""
    first = next((i for i in range(end) if reader.lines[i].strip()), None)
    title = _TITLE.match(reader.lines[first]) if first is not None else None
    if title is None:
        raise reader.fail(
            first + 1 if first is not None else "page",
            "the page does not start with a '# <task> on <dataset>' title",
        )
    source_at = reader.find_index(_SOURCE, end)
    if source_at is None:
        raise reader.fail("page", "the 'Source: [...](<url>)' line is missing or malformed")
    url = _SOURCE.findall(reader.lines[source_at])[0][1]
    slug = urlsplit(url).path.rstrip("/").rsplit("/", 1)[-1]
    if not slug:
        raise reader.fail("Source", f"the Source URL {url!r} has no page name")
    updated_at = reader.find_index(_UPDATED, end)
    if updated_at is None:
        raise reader.fail("page", "the 'Data updated: <timestamp>' line is missing or malformed")
    updated = _UPDATED.findall(reader.lines[updated_at])[0]
    description = _paragraph_after(reader.lines, updated_at + 1, end)
    return unescape(title.group(1)), url, f"sota2/{slug}", updated, description


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


def _cells(reader: _Reader, index: int) -> list[str]:
    """Split a Markdown table row into stripped cells; escaped pipes stay inside a cell."""
    line = reader.lines[index].strip()
    if len(line) < 2 or not line.startswith("|") or not line.endswith("|") or line[-2] == "\\":
        raise reader.fail(
            index + 1, f"malformed table row {line!r}", "a table row starts and ends with '|'"
        )
    return [cell.strip() for cell in _PIPE.split(line[1:-1])]


def _table(reader: _Reader, header: int, width: int) -> list[tuple[int, list[str]]]:
    """The rows under a table header line, as (line index, cells) with ``width`` cells each."""
    separator = header + 1
    if (
        separator >= len(reader.lines)
        or not reader.lines[separator].startswith("|")
        or not all(_SEPARATOR.match(c) for c in _cells(reader, separator))
    ):
        raise reader.fail(separator + 1, "the table header is not followed by a '| --- |' line")
    rows = []
    index = separator + 1
    while index < len(reader.lines) and reader.lines[index].startswith("|"):
        cells = _cells(reader, index)
        if len(cells) != width:
            raise reader.fail(index + 1, f"table row has {len(cells)} cells, expected {width}")
        rows.append((index, cells))
        index += 1
    return rows


def _direction(reader: _Reader, location: str | int, text: str) -> Direction:
    try:
        return _DIRECTIONS[text.strip().lower()]
    except KeyError:
        raise reader.fail(
            location,
            f"unknown direction {text!r}",
            "expected 'Higher is better' or 'Lower is better'",
        ) from None


def _parse_scope(reader: _Reader, end: int) -> _Scope:
    header = reader.find_index(_SCOPE_HEADER, end)
    if header is None:
        raise reader.fail("page", "the '| Scope | Recorded value |' table is missing", _TRUNCATED)
    rows: dict[str, tuple[int, str]] = {}
    for index, (label, value) in _table(reader, header, 2):
        if label in rows:
            raise reader.fail(index + 1, f"scope row {label!r} appears twice")
        rows[label] = (index + 1, value)
    for label in _SCOPE_ROWS:
        if label not in rows:
            raise reader.fail(
                f"scope table (line {header + 1})",
                f"the row {label!r} is missing",
                _TRUNCATED,
            )
    count_line, count_text = rows["Results loaded"]
    count = _COUNT.match(count_text)
    if not count:
        raise reader.fail(count_line, f"'Results loaded' is {count_text!r}, expected 'N of M'")
    declared, total = int(count.group(1)), int(count.group(2))
    if declared > total:
        raise reader.fail(
            count_line,
            f"'Results loaded' says {declared} of {total}: more results loaded than exist",
        )
    direction_line, direction_text = rows["Direction"]
    return _Scope(
        benchmark=_benchmark(unescape(rows["Task"][1]), unescape(rows[_DATASET_ROW][1])),
        metric=unescape(rows["Metric"][1]),
        unit=rows["Unit"],
        direction=(direction_line, _direction(reader, direction_line, direction_text)),
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


def _parse_metrics(reader: _Reader, start: int, end: int) -> list[MetricDecl]:
    metrics: list[MetricDecl] = []
    for index in range(start, end):
        line = reader.lines[index]
        if not line.strip():
            continue
        item = _METRIC_ITEM.match(line)
        if not item:
            raise reader.fail(
                index + 1,
                f"unexpected line in the Metrics list: {line!r}",
                "expected '- [Name](<url>): Higher is better; unit: UNIT.'",
            )
        name = unescape(item.group(1))
        if any(m.name == name for m in metrics):
            raise reader.fail(index + 1, f"metric {name!r} is declared twice")
        direction = _direction(reader, index + 1, item.group(3))
        metrics.append(MetricDecl(name, item.group(4), direction, item.group(2) or None))
    if not metrics:
        raise reader.fail(start, "the Metrics list is empty")
    return metrics


def _check_primary(reader: _Reader, scope: _Scope, metrics: list[MetricDecl]) -> None:
    """The scope's metric must be declared in the Metrics list, with the same unit and direction."""
    decl = next((m for m in metrics if m.name == scope.metric), None)
    if decl is None:
        raise reader.fail(
            "scope table",
            f"the page metric {scope.metric!r} is not in the Metrics list",
            f"declared: {', '.join(m.name for m in metrics)}",
        )
    for what, (line, published), declared in (
        ("unit", scope.unit, decl.unit),
        ("direction", scope.direction, decl.direction),
    ):
        if published != declared:
            raise reader.fail(
                line,
                f"scope {what} {published!r} differs from {declared!r} "
                f"declared for {scope.metric!r} in the Metrics list",
            )


def _parse_results(
    reader: _Reader, start: int, end: int, metric: str
) -> tuple[list[_Row], list[_Section]]:
    """The results table rows and the ``### <Method>`` sections (not yet read) below it."""
    rows: list[_Row] = []
    sections: list[_Section] = []
    index = next((i for i in range(start, end) if reader.lines[i].strip()), end)
    if index < end and reader.lines[index].startswith("|"):
        header = [unescape(cell) for cell in _cells(reader, index)]
        if header != ["Method", metric, "Result date", "Report paper"]:
            raise reader.fail(
                index + 1,
                f"results table header {header} does not match "
                f"'Method | {metric} | Result date | Report paper'",
            )
        table = _table(reader, index, 4)
        rows = [_row(reader, number, *entry) for number, entry in enumerate(table, 1)]
        index = table[-1][0] + 1 if table else index + 2
    for position in range(index, end):
        line = reader.lines[position]
        if line.startswith("### "):
            sections.append(_Section(position + 1, unescape(line[4:].strip())))
        elif line.strip() and not sections:
            raise reader.fail(position + 1, f"unexpected line in '## {TABLE}': {line!r}")
        elif line.strip():
            sections[-1].body.append((position + 1, line))
    return rows, sections


def _row(reader: _Reader, number: int, index: int, cells: list[str]) -> _Row:
    method, value, date, paper = cells
    where = f"results table row {number} (line {index + 1})"
    if not _DECIMAL.match(value):
        raise reader.fail(where, f"value {value!r} is not a decimal number")
    if date != "Not recorded" and not _ISO_DATE.match(date):
        raise reader.fail(where, f"result date {date!r} is neither an ISO date nor 'Not recorded'")
    if not _HEX_ID.match(paper):
        raise reader.fail(where, f"report paper {paper!r} is not a 24-hex paper ID")
    return _Row(
        number, index + 1, unescape(method), value, None if date == "Not recorded" else date, paper
    )


def _paper(reader: _Reader, where: str, url: str) -> PaperRef:
    match = _PAPER_URL.match(url)
    if not match:
        raise reader.fail(where, f"paper link {url!r} is not a paper URL with a 24-hex ID")
    return PaperRef(source_id=match.group(1), url=url)


def _configuration(reader: _Reader, where: str, text: str) -> Configuration:
    """``Not recorded`` or a JSON object; non-string values keep their published JSON text."""
    if text == "Not recorded":
        return Configuration()
    try:
        parsed = json.loads(text)
    except ValueError as error:
        raise reader.fail(
            where, f"evaluation configuration is not valid JSON ({error}): {text!r}"
        ) from None
    if not isinstance(parsed, dict):
        raise reader.fail(where, f"evaluation configuration is not a JSON object: {text!r}")
    decoder, settings = json.JSONDecoder(), []
    position = _skip_space(text, _skip_space(text, 0) + 1)  # after "{"
    while text[position] != "}":
        key, position = decoder.raw_decode(text, position)
        position = _skip_space(text, _skip_space(text, position) + 1)  # after ":"
        value, end = decoder.raw_decode(text, position)
        settings.append(Setting(key, value if isinstance(value, str) else text[position:end]))
        position = _skip_space(text, end)
        position = _skip_space(text, position + (text[position] == ","))
    return Configuration(settings=tuple(settings), raw_json=text)


def _skip_space(text: str, position: int) -> int:
    return len(text) - len(text[position:].lstrip(" \t\n\r"))


def _section_lines(reader: _Reader, section: _Section) -> dict[str, tuple[int, re.Match[str]]]:
    """The recognised lines of a result section by kind; anything else is refused."""
    found: dict[str, tuple[int, re.Match[str]]] = {}
    for number, line in section.body:
        result, link, config = (p.match(line) for p in (_RESULT_LINE, _LINK_LINE, _CONFIG_LINE))
        match = result or link or config
        if match is None:
            raise reader.fail(
                number, f"unexpected line in result section '{section.method}': {line!r}"
            )
        kind = link.group(1) if link else "result" if result else "configuration"
        if kind in found:
            raise reader.fail(
                number, f"result section '{section.method}' has a second {kind!r} line"
            )
        found[kind] = (number, match)
    return found


def _record(reader: _Reader, section: _Section, row: _Row, metric: str) -> ResultRecord:
    """Read one ``### <Method>`` section and check it against its table row."""
    found = _section_lines(reader, section)
    if "result" not in found:
        raise reader.fail(
            section.line,
            f"result section '{section.method}' has no '<metric>: <value>. Result ID: <id>.' line",
            _TRUNCATED,
        )
    result_line, result = found["result"]
    result_id = result.group(3)
    where = f"result {result_id} (line {result_line})"
    if not _HEX_ID.match(result_id):
        raise reader.fail(result_line, f"result ID {result_id!r} is not 24 hex digits")
    for required in ("Reporting paper", "configuration"):
        if required not in found:
            raise reader.fail(where, f"the {required} line is missing", _TRUNCATED)
    if unescape(result.group(1)) != metric:
        raise reader.fail(
            where, f"metric {unescape(result.group(1))!r} differs from the page metric {metric!r}"
        )
    value = result.group(2)
    if not _DECIMAL.match(value):
        raise reader.fail(where, f"value {value!r} is not a decimal number")
    reported = _paper(reader, where, found["Reporting paper"][1].group(2))
    _compare(reader, row, section, value, reported.source_id or "", result_id)
    origin = found.get("Method origin paper")
    implementation = found.get("Implementation")
    return ResultRecord(
        source_id=result_id,
        method=section.method,
        metric=metric,
        value=value,
        reported_in=reported,
        origin=_paper(reader, where, origin[1].group(2)) if origin else None,
        implementation=implementation[1].group(2) if implementation else None,
        result_date=row.date,
        configuration=_configuration(reader, where, found["configuration"][1].group(1)),
        table=TABLE,
        headline=True,
        line=section.line,
    )


def _compare(
    reader: _Reader, row: _Row, section: _Section, value: str, paper: str, result_id: str
) -> None:
    where = f"results table row {row.number} (line {row.line})"
    for what, in_row, in_section in (
        ("method", row.method, section.method),
        ("value", row.value, value),
        ("reporting paper", row.paper, paper),
    ):
        if in_row != in_section:
            raise reader.fail(
                where,
                f"the table gives {what} {in_row!r} but result section "
                f"{row.number} (result {result_id}, line {section.line}) gives "
                f"{in_section!r}",
                "table and result sections must agree",
            )


def _combine(
    reader: _Reader, rows: list[_Row], sections: list[_Section], metric: str
) -> list[ResultRecord]:
    if len(rows) != len(sections):
        raise reader.fail(
            f"'## {TABLE}'",
            f"the results table has {len(rows)} rows but there are {len(sections)} result sections",
            "the page may be truncated or edited",
        )
    results: list[ResultRecord] = []
    seen: dict[str, int] = {}
    for row, section in zip(rows, sections, strict=True):
        record = _record(reader, section, row, metric)
        if record.source_id in seen:
            raise reader.fail(
                f"result {record.source_id}",
                f"result ID appears twice (lines {seen[record.source_id]} and {section.line})",
            )
        seen[record.source_id] = section.line
        results.append(record)
    return results
