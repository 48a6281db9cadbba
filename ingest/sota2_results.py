"""The ``## Recorded results`` part of a sota2 page: its table and one section per result.

The table gives each result's method, value, result date and report paper; the ``### <Method>``
sections below it repeat each result with its result ID, papers, implementation and evaluation
configuration. Row N and section N must agree, and no result ID may appear twice.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from ingest.markdown import cells, table_rows, unescape
from ingest.records import Configuration, PaperRef, ResultRecord, Setting
from ingest.text import TRUNCATED, TRUNCATED_OR_EDITED, PageText

TABLE = "Recorded results"

# The value holds no colon, so only the last ": " can start it: matching stays linear.
_RESULT_LINE = re.compile(r"^(.+): ([^:]*?)\. Result ID: (\S*)\.$")
_LINK_LINE = re.compile(r"^\[(Reporting paper|Method origin paper|Implementation)\]\(<(\S+)>\)$")
_CONFIG_LINE = re.compile(
    r"^Recorded evaluation configuration: (.*)\. "
    r"This record does not assert independent reproduction\.$"
)
_PAPER_URL = re.compile(r"^https?://[^/\s]+/(?:\S*/)?paper/([0-9a-f]{24})\.md$")
_HEX_ID = re.compile(r"^[0-9a-f]{24}$")
_DECIMAL = re.compile(r"^-?[0-9]+(?:\.[0-9]+)?$")  # ASCII digits: xsd:decimal allows no others
_ISO_DATE = re.compile(
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}(?:T[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?Z?)?$"
)


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


def read_results(page: PageText, start: int, end: int, metric: str) -> list[ResultRecord]:
    """Return the results listed between line indices ``start`` and ``end``, in page order.

    ``metric`` is the page metric, which the table header and every section must name.
    Raises PageError for a malformed table or section, a row and section that disagree, a
    different number of rows and sections, or a repeated result ID.
    """
    rows, sections = _rows_and_sections(page, start, end, metric)
    if len(rows) != len(sections):
        raise page.error(
            f"'## {TABLE}'",
            f"the results table has {len(rows)} rows but there are {len(sections)} result sections",
            TRUNCATED_OR_EDITED,
        )
    results: list[ResultRecord] = []
    seen: dict[str, int] = {}
    for row, section in zip(rows, sections, strict=True):
        record = _record(page, section, row, metric)
        if record.source_id in seen:
            raise page.error(
                f"result {record.source_id}",
                f"result ID appears twice (lines {seen[record.source_id]} and {section.line})",
            )
        seen[record.source_id] = section.line
        results.append(record)
    return results


def _rows_and_sections(
    page: PageText, start: int, end: int, metric: str
) -> tuple[list[_Row], list[_Section]]:
    """The results table rows and the ``### <Method>`` sections (not yet read) below it."""
    lines = page.lines
    rows: list[_Row] = []
    sections: list[_Section] = []
    index = next((i for i in range(start, end) if lines[i].strip()), end)
    if index < end and lines[index].startswith("|"):
        header = [unescape(cell) for cell in cells(page, index)]
        if header != ["Method", metric, "Result date", "Report paper"]:
            raise page.error(
                index + 1,
                f"results table header {header} does not match "
                f"'Method | {metric} | Result date | Report paper'",
            )
        table = table_rows(page, index, 4)
        rows = [_row(page, number, *entry) for number, entry in enumerate(table, 1)]
        index = table[-1][0] + 1 if table else index + 2
    for position in range(index, end):
        line = lines[position]
        if line.startswith("### "):
            sections.append(_Section(position + 1, unescape(line[4:].strip())))
        elif line.strip() and not sections:
            raise page.error(position + 1, f"unexpected line in '## {TABLE}': {line!r}")
        elif line.strip():
            sections[-1].body.append((position + 1, line))
    return rows, sections


def _row(page: PageText, number: int, index: int, entry: list[str]) -> _Row:
    method, value, date, paper = entry
    where = f"results table row {number} (line {index + 1})"
    if not _DECIMAL.match(value):
        raise page.error(where, f"value {value!r} is not a decimal number")
    if date != "Not recorded" and not _ISO_DATE.match(date):
        raise page.error(where, f"result date {date!r} is neither an ISO date nor 'Not recorded'")
    if not _HEX_ID.match(paper):
        raise page.error(where, f"report paper {paper!r} is not a 24-hex paper ID")
    return _Row(
        number, index + 1, unescape(method), value, None if date == "Not recorded" else date, paper
    )


def _section_lines(page: PageText, section: _Section) -> dict[str, tuple[int, re.Match[str]]]:
    """The recognised lines of a result section by kind; anything else is refused."""
    found: dict[str, tuple[int, re.Match[str]]] = {}
    for number, line in section.body:
        result, link, config = (p.match(line) for p in (_RESULT_LINE, _LINK_LINE, _CONFIG_LINE))
        match = result or link or config
        if match is None:
            raise page.error(
                number, f"unexpected line in result section '{section.method}': {line!r}"
            )
        kind = link.group(1) if link else "result" if result else "configuration"
        if kind in found:
            raise page.error(
                number, f"result section '{section.method}' has a second {kind!r} line"
            )
        found[kind] = (number, match)
    return found


def _record(page: PageText, section: _Section, row: _Row, metric: str) -> ResultRecord:
    """Read one ``### <Method>`` section and check it against its table row."""
    found = _section_lines(page, section)
    if "result" not in found:
        raise page.error(
            section.line,
            f"result section '{section.method}' has no '<metric>: <value>. Result ID: <id>.' line",
            TRUNCATED,
        )
    result_line, result = found["result"]
    result_id = result.group(3)
    where = f"result {result_id} (line {result_line})"
    if not _HEX_ID.match(result_id):
        raise page.error(result_line, f"result ID {result_id!r} is not 24 hex digits")
    for required in ("Reporting paper", "configuration"):
        if required not in found:
            raise page.error(where, f"the {required} line is missing", TRUNCATED)
    if unescape(result.group(1)) != metric:
        raise page.error(
            where, f"metric {unescape(result.group(1))!r} differs from the page metric {metric!r}"
        )
    value = result.group(2)
    if not _DECIMAL.match(value):
        raise page.error(where, f"value {value!r} is not a decimal number")
    reported = _paper(page, where, found["Reporting paper"][1].group(2))
    _compare(page, row, section, value, reported.source_id or "", result_id)
    origin = found.get("Method origin paper")
    implementation = found.get("Implementation")
    return ResultRecord(
        source_id=result_id,
        method=section.method,
        metric=metric,
        value=value,
        reported_in=reported,
        origin=_paper(page, where, origin[1].group(2)) if origin else None,
        implementation=implementation[1].group(2) if implementation else None,
        result_date=row.date,
        configuration=_configuration(page, where, found["configuration"][1].group(1)),
        table=TABLE,
        headline=True,
        line=section.line,
    )


def _compare(
    page: PageText, row: _Row, section: _Section, value: str, paper: str, result_id: str
) -> None:
    where = f"results table row {row.number} (line {row.line})"
    for what, in_row, in_section in (
        ("method", row.method, section.method),
        ("value", row.value, value),
        ("reporting paper", row.paper, paper),
    ):
        if in_row != in_section:
            raise page.error(
                where,
                f"the table gives {what} {in_row!r} but result section "
                f"{row.number} (result {result_id}, line {section.line}) gives "
                f"{in_section!r}",
                "table and result sections must agree",
            )


def _paper(page: PageText, where: str, url: str) -> PaperRef:
    match = _PAPER_URL.match(url)
    if not match:
        raise page.error(where, f"paper link {url!r} is not a paper URL with a 24-hex ID")
    return PaperRef(source_id=match.group(1), url=url)


def _configuration(page: PageText, where: str, text: str) -> Configuration:
    """``Not recorded`` or a JSON object; non-string values keep their published JSON text."""
    if text == "Not recorded":
        return Configuration()
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError) as error:  # RecursionError: absurdly deep nesting
        raise page.error(
            where, f"evaluation configuration is not valid JSON ({error}): {text!r}"
        ) from None
    if not isinstance(parsed, dict):
        raise page.error(where, f"evaluation configuration is not a JSON object: {text!r}")
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
