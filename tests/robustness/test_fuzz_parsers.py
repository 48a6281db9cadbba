"""Fuzzing the readers: whatever bytes arrive, ``read_page`` returns a Page or raises a
PageError that names the origin, within a time bound, and ``map_page`` of a page that parsed
raises nothing but PageError.

Three kinds of input: generated ones (hypothesis: raw bytes, text, edited seed pages, table
cells, whole sota2 pages built from parts), deterministic mutations of the seed pages (run in a
worker process that is killed when a page overruns its budget), and pages of 10 MB.
The bugs this suite found (huge counts, deeply nested JSON, quadratic regular expressions and
name matching) each have a regression test at the end.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable

import pytest
from hypothesis import event, given
from hypothesis import strategies as st
from robustness.corpus import (
    HUGE,
    Row,
    families,
    json_text,
    new_id,
    render_sota2,
    source_pages,
)
from robustness.fuzz_settings import LONG, PROFILE
from robustness.parse_worker import ParseWorkers
from support import EXAMPLES

from ingest.mapper import map_page
from ingest.reading import read_page
from ingest.records import Page, PageError

BUDGET = 2.0  # seconds for one page of ordinary size
PER_MB = 2.0  # and this much more per MB: a parser must read at least 0.5 MB/s
NOW = "2026-01-01T00:00:00+00:00"
PAGES = source_pages()
TEXTS = [(name, data.decode("utf-8")) for name, data in PAGES]
LAION = (EXAMPLES / "sota2-prompt-recovery-on-laion.md").read_text(encoding="utf-8")
RADAR = (EXAMPLES / "radar-composet-sample.txt").read_text(encoding="utf-8")


def budget(size: int) -> float:
    return BUDGET + PER_MB * size / 2**20


def read_in_process(data: bytes, origin: str) -> Page | None:
    """The contract, in this process: a Page (which maps, or is refused by the mapper with a
    PageError naming the origin) or a PageError naming the origin. Anything else propagates."""
    try:
        page = read_page(data, origin)
    except PageError as error:
        assert origin in str(error), f"the PageError does not name {origin!r}: {error}"
        event("refused")
        return None
    try:
        map_page(page, NOW)
        event(f"{page.format} page parsed and mapped")
    except PageError as error:
        assert origin in str(error), f"the mapper's PageError does not name {origin!r}: {error}"
        event(f"{page.format} page parsed, refused by the mapper")
    return page


# --- generated inputs (hypothesis) --------------------------------------------------------

TOKENS = (
    "|", " | ", "\t", "\n", "\n\n", "\r\n", "\r", "\x00", "\ufeff", "\\", "\\|", "### ", "## ",
    "## Metrics", "## Recorded results", "# A on B", ": ", ". Result ID: ", "Not recorded",
    "{", "}", '"', "[", "]", "(<", ">)", "-", ".", "0", "-0", "9" * 30, "1e5", "NaN", " of ",
    "Page 1 of 1.", "Page 2 of 1.", "| Results loaded | 9 of 3 |", "[1.0,2.0]", "[2.0,1.0]",
    "68fa791f1e209131cea7c381", "Higher is better", "unit: FURLONG.", " · ", " — ", "例", "表",
    "核对于 2026-02-30", "数值越高越好", "原始单位: ", "引用文档及日期（0）", "（", "）",
    "２０", "٣",
)  # fmt: skip
snippet = st.one_of(st.text(max_size=30), st.sampled_from(TOKENS))
cell = st.one_of(
    st.from_regex(r"-?\d{1,30}(\.\d{1,30})?", fullmatch=True),
    st.decimals().map(str),
    st.floats().map(str),
    st.integers().map(str),
    st.dates().map(str),
    st.from_regex(r"[0-9a-f]{24}", fullmatch=True),
    st.from_regex(r"-?\d{1,3}(\.\d)? ?\[-?\d{1,3}(\.\d)?, ?-?\d{1,3}(\.\d)?\]", fullmatch=True),
    snippet,
)


@st.composite
def edited_page(draw: st.DrawFn) -> tuple[str, str]:
    """A seed page with one to four edits: characters inserted or deleted, lines replaced,
    duplicated, deleted, swapped or moved."""
    name, text = draw(st.sampled_from(TEXTS))
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["insert", "cut", "replace", "double", "drop", "swap", "move"]))
        if op == "insert":
            at = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:at] + draw(snippet) + lines[i][at:]
        elif op == "cut":
            at = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:at] + lines[i][at + draw(st.integers(1, 40)) :]
        elif op == "replace":
            lines[i] = draw(snippet)
        elif op == "double":
            lines.insert(i, lines[i])
        elif op == "drop" and len(lines) > 1:
            del lines[i]
        elif op in ("swap", "move"):
            j = draw(st.integers(0, len(lines) - 1))
            if op == "swap":
                lines[i], lines[j] = lines[j], lines[i]
            else:
                lines.insert(j, lines.pop(i))
    return name, "\n".join(lines)


@st.composite
def page_with_cells(draw: st.DrawFn) -> tuple[str, str]:
    """A seed page with one to three table cells (Markdown or tab-separated) replaced."""
    name, text = draw(st.sampled_from(TEXTS))
    lines = text.split("\n")
    rows = [i for i, line in enumerate(lines) if line.startswith("| ") or "\t" in line]
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.sampled_from(rows))
        if "\t" in lines[i]:
            cells = lines[i].split("\t")
            cells[draw(st.integers(0, len(cells) - 1))] = draw(cell)
            lines[i] = "\t".join(cells)
        else:
            cells = lines[i].split("|")
            cells[draw(st.integers(1, len(cells) - 2))] = f" {draw(cell)} "
            lines[i] = "|".join(cells)
    return name, "\n".join(lines)


# Generated sota2 pages lean towards valid parts (about one field in three is odd), so that
# many reach the mapper; the test after them builds only valid pages and checks what is read.
name = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9 .+/()-]{0,20}[A-Za-z0-9]", fullmatch=True)
one_line = st.text(st.characters(exclude_characters="\n\r", exclude_categories=["Cs"]), max_size=30)
hex_id = st.from_regex(r"[0-9a-f]{24}", fullmatch=True)
decimal = st.from_regex(r"-?[0-9]{1,12}(\.[0-9]{1,8})?", fullmatch=True)
json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)


def mostly(valid: st.SearchStrategy[str], odd: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(valid, valid, odd)


row = st.builds(
    Row,
    method=mostly(name, one_line),
    value=mostly(decimal, cell),
    result_id=mostly(hex_id, one_line),
    paper=mostly(hex_id, one_line),
    origin=st.none() | mostly(hex_id, one_line),
    configuration=mostly(
        st.just("Not recorded") | st.dictionaries(st.text(max_size=8), json_value).map(json_text),
        st.sampled_from(["{", "[]", "{} x", "", "null", '{"a":1}}', "{'a': 1}"]),
    ),
    date=mostly(st.just("Not recorded") | st.dates().map(str), st.sampled_from(["2026-13-45", ""])),
)
generated_sota2 = st.builds(
    render_sota2,
    task=mostly(name, one_line),
    dataset=mostly(name, one_line),
    metric=mostly(name, one_line),
    unit=mostly(
        st.sampled_from(["PERCENT", "SCALAR", "percent", "%", "seconds"]),
        st.sampled_from(["FURLONG", "", "PER CENT", "percent."]),
    ),
    direction=mostly(
        st.sampled_from(["Higher is better", "Lower is better"]),
        st.sampled_from(["higher IS BETTER", "Up", ""]),
    ),
    rows=st.lists(row, max_size=5),
    declared=st.one_of(st.none(), st.none(), st.integers(0, 7)),
    total=st.one_of(st.none(), st.none(), st.integers(0, 9)),
    updated=st.sampled_from(["2026-03-06T07:08:17.938Z", "2026-03-06", "yesterday", "٢٠٢٦-٠١-٠١"]),
)


@given(st.binary(max_size=4096))
def test_any_bytes(data: bytes) -> None:
    read_in_process(data, "fuzz/any-bytes.bin")


@given(st.sampled_from(TEXTS), st.integers(0, 60), st.text(max_size=2000))
def test_page_heads_with_any_text(page: tuple[str, str], keep: int, tail: str) -> None:
    """The first lines of a real page (so the format is sniffed) and then anything."""
    head = "\n".join(page[1].split("\n")[:keep])
    read_in_process(f"{head}\n{tail}".encode(), f"fuzz/{page[0]}-head-{keep}")


@given(edited_page())
def test_edited_pages(page: tuple[str, str]) -> None:
    read_in_process(page[1].encode(), f"fuzz/{page[0]}-edited")


@given(page_with_cells())
def test_pages_with_odd_cells(page: tuple[str, str]) -> None:
    read_in_process(page[1].encode(), f"fuzz/{page[0]}-cells")


@given(generated_sota2)
def test_generated_sota2_pages(text: str) -> None:
    read_in_process(text.encode(), "fuzz/generated.md")


plain_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3),
    max_leaves=5,
)


@given(
    st.lists(
        st.tuples(
            name,
            decimal,
            st.dictionaries(st.text(max_size=8), plain_json, max_size=3),
        ),
        max_size=6,
    ),
    st.data(),
)
def test_well_formed_generated_pages_parse_as_written(
    parts: list[tuple[str, str, dict[str, object]]], data: st.DataObject
) -> None:
    """A complete, consistent sota2 page with arbitrary (plain) names, values and
    configurations reads back as exactly what was written, and maps."""
    ids = data.draw(
        st.lists(
            hex_id,
            min_size=len(parts),
            max_size=len(parts),
            unique=True,
        )
    )
    rows = [
        Row(
            method, value, rid, new_id("paper", method), None, json_text(c) if c else "Not recorded"
        )
        for (method, value, c), rid in zip(parts, ids, strict=True)
    ]
    text = render_sota2(data.draw(name), data.draw(name), data.draw(name), "PERCENT",
                        "Higher is better", rows)  # fmt: skip
    page = read_page(text.encode(), "fuzz/well-formed.md")
    assert [(r.method, r.value, r.source_id) for r in page.results] == [
        (r.method, r.value, r.result_id) for r in rows
    ]
    for record, (_, _, config) in zip(page.results, parts, strict=True):
        published = {s.key: s.value for s in record.configuration.settings}
        assert published == {
            k: v if isinstance(v, str) else json_text(v) for k, v in config.items()
        }
    assert page.declared_count == len(rows)
    map_page(page, NOW)


# --- deterministic mutations of the seed pages, each in the worker with a hard time limit ---

FAMILIES = tuple(families(random.Random(0)))
CAP = 25  # mutations per family and page in the ci profile; the long profile tries them all
ALL_IN_CI = {"truncated at every line", "wrong encodings", "NUL bytes"}
RANDOM_FAMILIES = {"truncated at random bytes", "swapped lines", "broken table pipes", "NUL bytes"}


@pytest.mark.parametrize("family", FAMILIES)
def test_mutated_seed_pages(family: str, worker: ParseWorkers) -> None:
    rng = random.Random(f"{family}/{PROFILE}")
    mutate = families(rng)[family]
    jobs: dict[str, tuple[bytes, str, float]] = {}
    for page, data in PAGES:
        for round_ in range(10 if LONG and family in RANDOM_FAMILIES else 1):
            cases = list(mutate(data))
            if not LONG and family not in ALL_IN_CI and len(cases) > CAP:
                cases = rng.sample(cases, CAP)
            for label, mutated in cases:
                origin = f"mutated/{page}/{label}" + (f" (round {round_})" if round_ else "")
                jobs[origin] = (mutated, origin, budget(len(mutated)))
    problems: list[str] = []
    parsed = 0
    for verdict in worker.check_all(jobs.values()):
        parsed += verdict.outcome == "page"
        _, _, limit = jobs[verdict.origin]
        problems += [f"{verdict.origin}: {p}" for p in verdict.problems(limit)]
    print(f"{family}: {len(jobs)} pages, {parsed} parsed")
    assert jobs
    assert not problems, f"{len(problems)} of {len(jobs)} pages break the contract:\n" + "\n".join(
        problems[:20]
    )


def test_every_seed_page_parses_unmutated(worker: ParseWorkers) -> None:
    """The sweep above only means something if the unmutated pages are accepted."""
    for page, data in PAGES:
        verdict = worker.check(data, f"seed/{page}", BUDGET)
        assert (verdict.outcome, verdict.mapped) == ("page", "ok"), verdict


# --- pages of 10 MB -------------------------------------------------------------------------

MB10 = 10 * 2**20


def _many_results(count: int) -> bytes:
    rows = [
        Row(f"Method {i}", f"{i % 97}.{i % 10}", new_id("result", i), new_id("paper", i % 50),
            new_id("origin", i % 70), json_text({"Type": "Hard", "k": i % 3}))
        for i in range(count)
    ]  # fmt: skip
    text = render_sota2(
        "Prompt Recovery", "LAION", "CLIP Score", "PERCENT", "Higher is better", rows
    )
    return text.encode()


BIG_PAGES: dict[str, Callable[[], bytes]] = {
    "a 10 MB description paragraph": lambda: LAION.replace(
        "Prompt recovery on LAION images", "x" * MB10, 1
    ).encode(),
    "a 10 MB title": lambda: ("# " + "a on b " * (MB10 // 7) + "\n" + LAION).encode(),
    "10 MB of one line, no page": lambda: b"x" * MB10,
    "10 MB of random bytes": lambda: random.Random(10).randbytes(MB10),
    "a radar page with a 10 MB model name": lambda: RADAR.replace(
        "CLIP B/32\t", "CLIP B/32" + " x" * (MB10 // 2) + "\t", 1
    ).encode(),
    "a valid sota2 page of 1 MB (2,400 results)": lambda: _many_results(2400),
}
LONG_BIG_PAGES: dict[str, Callable[[], bytes]] = {
    "a valid sota2 page of 10 MB (24,000 results)": lambda: _many_results(24000),
    "10 MB of blank lines inside a sota2 page": lambda: LAION.replace(
        "## Metrics", "\n" * MB10 + "## Metrics"
    ).encode(),
    "10 MB of short lines after a sota2 page": lambda: (LAION + "zzz\n" * (MB10 // 4)).encode(),
    "10 MB of short lines after a radar page": lambda: (RADAR + "zzz\n" * (MB10 // 4)).encode(),
}


@pytest.mark.parametrize("shape", [*BIG_PAGES, *(LONG_BIG_PAGES if LONG else ())])
def test_big_pages(shape: str, worker: ParseWorkers) -> None:
    data = {**BIG_PAGES, **LONG_BIG_PAGES}[shape]()
    verdict = worker.check(data, f"big/{shape}", budget(len(data)))
    print(f"{shape}: {len(data) / 2**20:.1f} MB, {verdict.outcome}, {verdict.seconds:.2f} s")
    assert not verdict.problems(budget(len(data))), verdict
    if "valid" in shape:
        assert (verdict.outcome, verdict.mapped) == ("page", "ok"), verdict


# --- regressions: one test per bug this suite found ------------------------------------------

HUGE_NUMBERS = {
    "sota2 'Results loaded' count": (
        LAION,
        "| Results loaded | 6 of 6 |",
        f"| Results loaded | 6 of {HUGE} |",
        "ingest/sota2.py _parse_scope: int(count.group(2)) of the 'N of M' row",
    ),
    "sota2 footer page number": (
        LAION,
        "Page 1 of 1.",
        f"Page 1 of {HUGE}.",
        "ingest/sota2.py parse: map(int, _FOOTER.findall(...)) of the footer",
    ),
    "radar declared result count": (
        RADAR,
        "这条来源记录收录了 4 条数值成绩",
        f"这条来源记录收录了 {HUGE} 条数值成绩",
        "ingest/radar.py _declared_count: int(found[1]) of 这条来源记录收录了 N 条",
    ),
    "radar count of cited documents": (
        RADAR,
        "引用文档及日期（1）",
        f"引用文档及日期（{HUGE}）",
        "ingest/radar.py _reporting_paper: int(found[1]) of 引用文档及日期（N）",
    ),
    "radar subset sample size": (
        RADAR,
        "\tmodify_color\t618\t",
        f"\tmodify_color\t{HUGE}\t",
        "ingest/radar_results.py _count: int(cell.replace(',', '')) of the subset table's n",
    ),
    "radar generative sample size": (
        RADAR,
        "200例生成式模型小样本\n模型",
        f"{HUGE}例生成式模型小样本\n模型",
        "ingest/radar_results.py _sample: int(found[1]) of the title's N例",
    ),
}


@pytest.mark.parametrize(
    "where",
    [pytest.param(where, id=where) for where in HUGE_NUMBERS],
)
def test_a_huge_number_is_refused_not_a_crash(where: str) -> None:
    page, old, new, _ = HUGE_NUMBERS[where]
    assert old in page
    with pytest.raises(PageError, match="huge-number"):
        read_page(page.replace(old, new, 1).encode(), f"huge-number/{where}")


def test_a_deeply_nested_configuration_is_refused_not_a_crash() -> None:
    config = '{"Type":"Hard"}'
    art = (EXAMPLES / "sota2-multimodal-generation-on-art500k-test.md").read_text("utf-8")
    assert config in art
    deep = '{"Type":' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(PageError, match="nested-json"):
        read_page(art.replace(config, deep, 1).encode(), "nested-json/art500k.md")


def _seconds(data: bytes) -> float:
    """The CPU seconds reading ``data`` takes (CPU, not wall-clock: other work on the machine
    does not change it)."""
    started = time.process_time()
    with contextlib.suppress(PageError):
        read_page(data, "growth")
    return time.process_time() - started


def assert_linear(make: Callable[[int], bytes], n: int) -> None:
    """Reading a page four times larger takes less than eight times as long (linear: ~4,
    quadratic: ~16). Ignored when both are too quick to measure."""
    small = min(_seconds(make(n)) for _ in range(3))
    big = min(_seconds(make(4 * n)) for _ in range(3))
    assert big < 0.05 or big / small < 8, (
        f"{n} -> {4 * n}: {small:.3f} s -> {big:.3f} s, x{big / small:.0f}: quadratic; "
        f"a 10 MB page of this shape would take about {big * (MB10 / len(make(4 * n))) ** 2:.0f} s"
    )


def test_result_section_lines_are_read_in_linear_time() -> None:
    line = "CLIP Score: 82.6. Result ID: 69aa7c5b6dbb7075b953ba9e."
    assert line in LAION
    assert_linear(lambda n: LAION.replace(line, "a: " * n + line[:-1] + "x", 1).encode(), 1500)


def test_generative_table_title_is_read_in_linear_time() -> None:
    title = "200例生成式模型小样本\n模型"
    assert title in RADAR
    assert_linear(lambda n: RADAR.replace(title, "1" * n + "\n模型", 1).encode(), 1500)


def _radar_with_models(count: int) -> bytes:
    """The radar example with ``count`` models in its headline, evidence and subset tables."""
    lines = RADAR.split("\n")
    evidence = next(line for line in lines if line.count("\t") == 5 and "percent" in line)
    tail = evidence.split("\t")[2:]
    out: list[str] = []
    skipping = False
    for line in lines:
        if skipping and line.strip():
            continue
        skipping = False
        out.append(
            line.replace("收录了 4 条", f"收录了 {count} 条").replace(
                "报告成绩 4", f"报告成绩 {count}"
            )
        )
        models = [f"Model{k} X/{k}" for k in range(count)]
        if line == "模型\t整体Group（%）\t论文95%置信区间":
            out += [f"{m}\t4.4\t[3.9,5.0]" for m in models]
        elif line.startswith("模型\t数值\t单位"):
            out += ["\t".join([m, "4.4", *tail]) for m in models]
        elif line.startswith("模型\t编辑类型\t"):
            out += [f"{m}\tmodify_color\t618\t20.4 [17.2,23.6]" for m in models]
        else:
            continue
        skipping = True
    return "\n".join(out).encode()


def test_many_radar_models_are_read_in_linear_time() -> None:
    page = read_page(_radar_with_models(30), "radar-models")
    assert sum(r.headline for r in page.results) == 30  # the builder makes a valid page
    assert_linear(_radar_with_models, 250)
