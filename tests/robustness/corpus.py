"""Pages for the robustness tests: the seed pages, copies of the sota2 examples, and the
deterministic ways the fuzz tests break them.

Every mutation is a generator of ``(label, bytes)``; the label says what was done, so a failure
names the exact input. Randomness comes from a ``random.Random`` seeded by the caller.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from support import EXAMPLES, SEEDS

Mutation = Iterator[tuple[str, bytes]]

HUGE = "1" + "0" * 5000  # "1 followed by 5,000 digits": past Python's 4,300-digit int() limit
SOTA2_EXAMPLES = tuple(sorted(EXAMPLES.glob("sota2-*.md")))

_RESULT_ID = re.compile(r"(?m)^(.+: .*\. Result ID: )([0-9a-f]{24})(\.)$")
_SOURCE_URL = re.compile(r"(?m)^(Source: \[.*\]\(<)([^<>\s]+?)(>\))$")
_UPDATED = re.compile(r"(?m)^Data updated: \S+$")
_COUNT_ROW = re.compile(r"(?m)^\| Results loaded \| (\d+) of (\d+) \|$")
_TITLE = re.compile(r"(?m)\A(# )(.+?)( on .+)$")
_TASK_ROW = re.compile(r"(?m)^(\| Task \| )(.+?)( \|)$")
_DIGITS = re.compile(rb"\d+")


def source_pages() -> list[tuple[str, bytes]]:
    """The seed pages when ``../shared/seeds`` is beside the checkout, else the examples."""
    folder = SEEDS if SEEDS.is_dir() else EXAMPLES
    return [(p.name, p.read_bytes()) for p in sorted(folder.iterdir()) if p.is_file()]


# --- copies of sota2 pages: same shape, their own identity --------------------------------


def new_id(*parts: object) -> str:
    """A 24-hex ID derived from ``parts`` (deterministic, distinct for distinct parts)."""
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()[:24]


def sota2_copy(
    text: str,
    tag: str,
    updated: str | None = None,
    keep: int | None = None,
    version: str = "",
) -> str:
    """A copy of the sota2 page ``text`` that is a page of its own: its task (in its title and
    scope table) and its Source URL end in ``-{tag}`` (so its key and graph differ), its result
    IDs are new (and differ between versions of the copy), ``Data updated`` is ``updated``
    when given, and only the first ``keep`` results remain when given."""
    text, found = _SOURCE_URL.subn(lambda m: f"{m[1]}{m[2]}-{tag}{m[3]}", text, count=1)
    assert found == 1, "the page has no 'Source: [...](<url>)' line"
    for pattern in (_TITLE, _TASK_ROW):
        text, found = pattern.subn(lambda m: f"{m[1]}{m[2]}-{tag}{m[3]}", text, count=1)
        assert found == 1, f"the page has no {pattern.pattern!r}"
    text = _RESULT_ID.sub(lambda m: f"{m[1]}{new_id(tag, version, m[2])}{m[3]}", text)
    if updated is not None:
        text = _UPDATED.sub(f"Data updated: {updated}", text, count=1)
    if keep is not None:
        text = keep_results(text, keep)
    return text


def keep_results(text: str, keep: int) -> str:
    """The page with only its first ``keep`` results (table rows and sections), declared so."""
    lines = text.split("\n")
    header = lines.index("## Recorded results")
    rows = [i for i in range(header, len(lines)) if lines[i].startswith("| ")][2:]
    sections = [i for i in range(header, len(lines)) if lines[i].startswith("### ")]
    footer = max(i for i, line in enumerate(lines) if line.startswith("Page "))
    drop = set(rows[keep:])
    if keep < len(sections):
        drop |= set(range(sections[keep], footer))
    kept = "\n".join(line for i, line in enumerate(lines) if i not in drop)
    count = _COUNT_ROW.search(kept)
    assert count is not None, "the page has no 'Results loaded' row"
    return _COUNT_ROW.sub(f"| Results loaded | {keep} of {count[2]} |", kept, count=1)


def declared_results(text: str) -> int:
    count = _COUNT_ROW.search(text)
    assert count is not None, "the page has no 'Results loaded' row"
    return int(count[1])


def result_ids(text: str) -> set[str]:
    return {m[2] for m in _RESULT_ID.finditer(text)}


# --- a sota2 page from parts, for generated pages -----------------------------------------


@dataclass(frozen=True)
class Row:
    method: str
    value: str
    result_id: str
    paper: str
    origin: str | None = None
    configuration: str = "Not recorded"
    date: str = "Not recorded"


def render_sota2(
    task: str,
    dataset: str,
    metric: str,
    unit: str,
    direction: str,
    rows: Sequence[Row],
    declared: int | None = None,
    total: int | None = None,
    slug: str = "generated-page",
    updated: str = "2026-03-06T07:08:17.938Z",
) -> str:
    """A sota2 page in the layout of the examples, with ``rows`` as its results."""
    declared = len(rows) if declared is None else declared
    total = declared if total is None else total
    base = f"https://www.sota2.com/research/sota/{slug}"
    paper = "https://www.sota2.com/research/paper/{}.md"
    out = [
        f"# {task} on {dataset}",
        "",
        f"Source: [{task} on {dataset}](<{base}>)",
        "",
        f"Data updated: {updated}",
        "",
        "A generated page.",
        "",
        "| Scope | Recorded value |",
        "| --- | --- |",
        f"| Task | {task} |",
        f"| Dataset (including any stated split) | {dataset} |",
        f"| Metric | {metric} |",
        f"| Unit | {unit} |",
        f"| Direction | {direction} |",
        f"| Results loaded | {declared} of {total} |",
        "| Coverage | All results currently returned for this benchmark |",
        "",
        "## Metrics",
        "",
        f"- [{metric}](<{base}.md?metric=x>): {direction}; unit: {unit}.",
        "",
        "## Recorded results",
        "",
        f"| Method | {metric} | Result date | Report paper |",
        "| --- | --- | --- | --- |",
    ]
    out += [f"| {r.method} | {r.value} | {r.date} | {r.paper} |" for r in rows]
    for r in rows:
        out += ["", f"### {r.method}", "", f"{metric}: {r.value}. Result ID: {r.result_id}.", ""]
        out += [f"[Reporting paper](<{paper.format(r.paper)}>)", ""]
        if r.origin is not None:
            out += [f"[Method origin paper](<{paper.format(r.origin)}>)", ""]
        out.append(
            f"Recorded evaluation configuration: {r.configuration}. "
            "This record does not assert independent reproduction."
        )
    out += ["", "Page 1 of 1. This is an index page, not the full collection.", ""]
    return "\n".join(out)


def json_text(value: object) -> str:
    """JSON as the pages publish it: one line."""
    return json.dumps(value, ensure_ascii=False)


# --- deterministic mutations --------------------------------------------------------------


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _join(lines: Sequence[bytes]) -> bytes:
    return b"\n".join(lines)


def _table_lines(lines: Sequence[bytes]) -> list[int]:
    return [i for i, line in enumerate(lines) if line.startswith(b"|") or b"\t" in line]


def truncated_at_lines(data: bytes) -> Mutation:
    lines = _lines(data)
    for i in range(len(lines)):
        yield f"cut after line {i}", _join(lines[:i]) + b"\n"


def truncated_at_bytes(data: bytes, rng: random.Random, count: int = 40) -> Mutation:
    for offset in sorted(rng.sample(range(1, len(data)), min(count, len(data) - 1))):
        yield f"cut at byte {offset}", data[:offset]


def swapped_lines(data: bytes, rng: random.Random, count: int = 40) -> Mutation:
    lines = _lines(data)
    filled = [i for i, line in enumerate(lines) if line.strip()]
    for _ in range(count):
        i = rng.randrange(len(filled) - 1)
        a, b = (filled[i], filled[i + 1]) if rng.random() < 0.7 else rng.sample(filled, 2)
        swapped = list(lines)
        swapped[a], swapped[b] = swapped[b], swapped[a]
        yield f"lines {a + 1} and {b + 1} swapped", _join(swapped)


def doubled_sections(data: bytes) -> Mutation:
    """Each blank-line block doubled, then each heading section (``#`` lines) doubled."""
    blocks = data.split(b"\n\n")
    for i in range(len(blocks)):
        yield f"block {i} doubled", b"\n\n".join([*blocks[: i + 1], blocks[i], *blocks[i + 1 :]])
    lines = _lines(data)
    heads = [i for i, line in enumerate(lines) if line.startswith(b"#")] + [len(lines)]
    for start, end in itertools.pairwise(heads):
        doubled = lines[:end] + lines[start:end] + lines[end:]
        yield f"section at line {start + 1} doubled", _join(doubled)


def deleted_rows(data: bytes) -> Mutation:
    lines = _lines(data)
    for i in _table_lines(lines):
        yield f"table row {i + 1} deleted", _join(lines[:i] + lines[i + 1 :])


def broken_pipes(data: bytes, rng: random.Random, count: int = 30) -> Mutation:
    """Markdown rows lose or gain a pipe (or escape the last one); tab rows lose or gain a tab."""
    lines = _lines(data)
    rows = _table_lines(lines)
    for i in sorted(rng.sample(rows, min(count, len(rows)))):
        line = lines[i]
        if line.startswith(b"|"):
            middle = line.find(b" |", 1)
            variants = {
                "no closing pipe": line.rstrip()[:-1],
                "no opening pipe": line[1:],
                "escaped closing pipe": line.rstrip()[:-1] + b"\\|",
                "extra pipe": line[:middle] + b" | x" + line[middle:] if middle > 0 else line,
                "only pipes": b"|||",
            }
        else:
            variants = {
                "tab removed": line.replace(b"\t", b" ", 1),
                "tab added": line + b"\t",
                "tabs as spaces": line.replace(b"\t", b"    "),
            }
        for what, new in variants.items():
            yield f"line {i + 1}: {what}", _join([*lines[:i], new, *lines[i + 1 :]])


def wrong_encodings(data: bytes) -> Mutation:
    text = data.decode("utf-8")
    for codec in ("utf-16", "utf-16-le", "utf-16-be", "utf-32", "gb18030", "big5", "shift_jis"):
        yield f"encoded {codec}", text.encode(codec, errors="replace")
    yield "encoded latin-1 (unencodable as '?')", text.encode("latin-1", errors="replace")
    yield "UTF-8 read as Latin-1, saved as UTF-8", data.decode("latin-1").encode("utf-8")
    yield "UTF-8 read as cp1252, saved as UTF-8", data.decode("cp1252", "replace").encode()
    yield "UTF-8 with BOM", b"\xef\xbb\xbf" + data
    yield "CRLF line ends", data.replace(b"\n", b"\r\n")
    yield "CR line ends", data.replace(b"\n", b"\r")
    yield "a lone invalid byte", data[: len(data) // 2] + b"\xff" + data[len(data) // 2 :]


def huge_numbers(data: bytes) -> Mutation:
    """On each line with digits, its first and its last number replaced by a 5,001-digit one."""
    lines = _lines(data)
    for i, line in enumerate(lines):
        runs = list(_DIGITS.finditer(line))
        if not runs:
            continue
        for what, run, huge in (
            ("first number huge", runs[0], HUGE.encode()),
            ("last number huge", runs[-1], HUGE.encode()),
            ("huge decimal", runs[0], HUGE.encode() + b".5"),
        ):
            new = line[: run.start()] + huge + line[run.end() :]
            yield f"line {i + 1}: {what}", _join([*lines[:i], new, *lines[i + 1 :]])


def empty_names(data: bytes) -> Mutation:
    """Names blanked: headings, first cells, scope values, metric names, tab-table cells."""
    lines = _lines(data)

    def edited(i: int, new: bytes) -> bytes:
        return _join([*lines[:i], new, *lines[i + 1 :]])

    sections = [i for i, line in enumerate(lines) if line.startswith(b"### ")]
    rows = [i for i, line in enumerate(lines) if line.startswith(b"| ") and b" --- " not in line]
    for i in sections:
        yield f"line {i + 1}: empty heading", edited(i, b"### ")
    for i in rows:
        cells = lines[i].split(b"|")
        for c in range(1, len(cells) - 1):
            blank = b"|".join([*cells[:c], b" ", *cells[c + 1 :]])
            yield f"line {i + 1}: cell {c} empty", edited(i, blank)
    result_rows = rows[-len(sections) :] if sections else []
    for i, (row, head) in enumerate(zip(result_rows, sections, strict=False)):
        both = list(lines)
        both[head] = b"### "
        both[row] = b"|  |" + b"|".join(lines[row].split(b"|")[2:])
        yield f"result {i + 1}: empty method in table and heading", _join(both)
    for i, line in enumerate(lines):
        if line.startswith(b"- ["):
            yield f"line {i + 1}: empty metric name", edited(i, b"- [" + line[line.find(b"]") :])
    tables = [i for i, line in enumerate(lines) if b"\t" in line]
    for i in tables:
        if i - 1 not in tables or i - 2 not in tables:  # a header or a first data row
            cells = lines[i].split(b"\t")
            for c in range(len(cells)):
                yield (
                    f"line {i + 1}: tab cell {c} empty",
                    edited(i, b"\t".join([*cells[:c], b"", *cells[c + 1 :]])),
                )
    if lines and b" \xe2\x80\x94 " in lines[0]:  # the radar title's " — "
        yield "empty benchmark name in the title", edited(0, lines[0][lines[0].find(b" \xe2") :])


def nul_bytes(data: bytes, rng: random.Random, count: int = 8) -> Mutation:
    places = {0, len(data) // 2, len(data) - 1, min(len(data) - 1, 8193)}
    places |= set(rng.sample(range(len(data)), min(count, len(data))))
    for at in sorted(places):
        yield f"NUL inserted at byte {at}", data[:at] + b"\x00" + data[at:]
    yield "NUL instead of every newline", data.replace(b"\n", b"\x00")
    late = data + b"\n" * 9000 + b"\x00\n"
    yield "NUL after 9,000 blank lines at the end", late


def families(rng: random.Random) -> dict[str, Callable[[bytes], Mutation]]:
    """Every deterministic mutation family, by name."""
    return {
        "truncated at every line": truncated_at_lines,
        "truncated at random bytes": lambda d: truncated_at_bytes(d, rng),
        "swapped lines": lambda d: swapped_lines(d, rng),
        "doubled sections": doubled_sections,
        "deleted table rows": deleted_rows,
        "broken table pipes": lambda d: broken_pipes(d, rng),
        "wrong encodings": wrong_encodings,
        "huge numbers": huge_numbers,
        "empty names": empty_names,
        "NUL bytes": lambda d: nul_bytes(d, rng),
    }
