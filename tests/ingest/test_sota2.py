"""The sota2 parser: the seed pages figure by figure, the examples, and pages it must refuse."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from types import ModuleType

import pytest

from benchgraph.names import normalise
from ingest import markdown, sota2, sota2_results, text
from ingest.records import Benchmark, Configuration, MetricDecl, Page, PageError, Setting

REPO = Path(__file__).resolve().parents[2]
SEEDS = REPO / ".." / "shared" / "seeds"
EXAMPLES = REPO / "examples"
DATA = REPO / "tests" / "data" / "sota2"
LAION = EXAMPLES / "sota2-prompt-recovery-on-laion.md"
ART = EXAMPLES / "sota2-multimodal-generation-on-art500k-test.md"
SOTA2_SEEDS = ("000", "001", "003", "004")
PAPER = "https://www.sota2.com/research/paper/{}.md"
REPORTING_001 = "68fa791f1e209131cea7c381"


def seed_path(prefix: str) -> Path:
    found = sorted(SEEDS.glob(f"{prefix}_*.txt"))
    if not found:
        pytest.skip("the seed pages (../shared/seeds) are not beside this checkout")
    return found[0]


def parse_file(path: Path) -> Page:
    return sota2.parse(path.read_bytes(), path.name)


def laion() -> str:
    return LAION.read_text(encoding="utf-8")


def edit(text: str, old: str, new: str) -> str:
    """Replace the one occurrence of ``old``; fail loudly when the page does not contain it."""
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
    return text.replace(old, new)


def drop_section(text: str, method: str) -> str:
    """Remove the ``### method`` section (the page's last section, followed by the footer)."""
    start = text.index(f"### {method}\n")
    return text[:start] + text[text.index("Page 1 of 1.", start) :]


def refused(page: str | bytes, origin: str = "bad-page.md") -> str:
    """Parse ``page``, expect a PageError naming ``origin``, and return its message."""
    data = page.encode("utf-8") if isinstance(page, str) else page
    with pytest.raises(PageError) as caught:
        sota2.parse(data, origin)
    assert caught.value.origin == origin
    message = str(caught.value)
    assert message.startswith(origin)
    return message


# -- an independent, deliberately simple reading of a page, to compare the parser with --------

UNESCAPE = re.compile(r"\\(.)")


def scan(text: str) -> dict:
    """Read the figures with plain regular expressions, section by section."""
    rows = re.findall(
        r"^\| (.+) \| (\S+) \| (Not recorded|[\d-]+) \| ([0-9a-f]{24}) \|$", text, re.M
    )
    lines = text.split("\n")
    headings = [number for number, line in enumerate(lines, 1) if line.startswith("### ")]
    sections = []
    for chunk in text.split("\n### ")[1:]:
        paper = r"\]\(<https://www\.sota2\.com/research/paper/([0-9a-f]{24})\.md>\)"
        origin = re.search(r"\[Method origin paper" + paper, chunk)
        implementation = re.search(r"\[Implementation\]\(<(.+)>\)", chunk)
        config = re.search(r"Recorded evaluation configuration: (.*)\. This record", chunk)
        assert config
        sections.append(
            {
                "method": UNESCAPE.sub(r"\1", chunk.split("\n", 1)[0]),
                "value_id": re.search(r": (\S+)\. Result ID: ([0-9a-f]{24})\.", chunk).groups(),
                "reported": re.search(r"\[Reporting paper" + paper, chunk).group(1),
                "origin": origin.group(1) if origin else None,
                "implementation": implementation.group(1) if implementation else None,
                "config": None if config.group(1) == "Not recorded" else config.group(1),
            }
        )
    metrics = re.findall(
        r"^- \[(.+)\]\(<(.+)>\): (Higher|Lower) is better; unit: (\w+)\.$", text, re.M
    )
    loaded = re.search(r"^\| Results loaded \| (\d+) of (\d+) \|$", text, re.M)
    return {
        "rows": rows,
        "headings": headings,
        "sections": sections,
        "metrics": metrics,
        "loaded": tuple(map(int, loaded.groups())),
        "metric": re.search(r"^\| Metric \| (.+) \|$", text, re.M).group(1),
    }


@pytest.mark.parametrize("prefix", SOTA2_SEEDS)
def test_seed_figures_match_an_independent_scan(prefix: str) -> None:
    path = seed_path(prefix)
    text = path.read_text(encoding="utf-8")
    page = parse_file(path)
    expected = scan(text)

    assert sota2.sniff(text)
    assert page.format == "sota2" and page.origin == path.name
    assert page.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert (page.declared_count, page.total_count) == expected["loaded"]
    assert page.primary_metric == UNESCAPE.sub(r"\1", expected["metric"])
    assert [(m.name, m.url, m.direction, m.unit) for m in page.metrics] == [
        (UNESCAPE.sub(r"\1", name), url, direction.lower(), unit)
        for name, url, direction, unit in expected["metrics"]
    ]
    assert len(page.results) == len(expected["rows"]) == len(expected["sections"])
    for record, row, section, line in zip(
        page.results, expected["rows"], expected["sections"], expected["headings"], strict=True
    ):
        method, value, date, reporting = row
        assert record.method == UNESCAPE.sub(r"\1", method) == section["method"]
        assert (record.value, record.source_id) == section["value_id"]
        assert record.value == value
        assert record.metric == page.primary_metric
        assert record.result_date == (None if date == "Not recorded" else date)
        assert record.reported_in.source_id == reporting == section["reported"]
        assert record.reported_in.url == PAPER.format(reporting)
        assert (record.origin.source_id if record.origin else None) == section["origin"]
        assert record.implementation == section["implementation"]
        assert record.configuration.raw_json == section["config"]
        settings = json.loads(section["config"]) if section["config"] else {}
        assert [(s.key, s.value) for s in record.configuration.settings] == list(settings.items())
        assert record.line == line
        assert (record.table, record.headline) == ("Recorded results", True)


def test_seed_001_by_hand() -> None:
    page = parse_file(seed_path("001"))
    assert page.title == "Prompt Recovery on LAION"
    assert page.url == "https://www.sota2.com/research/sota/prompt-recovery-on-laion"
    assert page.key == "sota2/prompt-recovery-on-laion/clip-score"
    assert page.data_updated == "2026-03-06T07:08:17.938Z"
    assert page.description and page.description.startswith("Evaluation of model performance")
    assert page.benchmark == Benchmark("Prompt Recovery", "LAION", None)
    assert page.primary_metric == "CLIP Score"
    assert page.coverage == "All results currently returned for this benchmark"
    assert (page.page_number, page.page_count) == (1, 1)
    assert [r.method for r in page.results] == ["PH2P", "EDITOR", "PRISM", "VGD", "PEZ", "STEPS"]
    ph2p, steps = page.results[0], page.results[-1]
    assert (ph2p.value, ph2p.source_id) == ("82.6", "69aa7c5b6dbb7075b953ba9e")
    assert ph2p.origin is not None and ph2p.origin.source_id == "68fa71901e209131cea5201e"
    assert ph2p.reported_in.source_id == REPORTING_001
    assert ph2p.configuration == Configuration() and not ph2p.configuration.recorded
    assert ph2p.line == 50
    assert (steps.value, steps.origin, steps.implementation) == ("72.2", None, None)
    assert page.metric("LPIPS") == MetricDecl(
        "LPIPS",
        "SCALAR",
        "lower",
        "https://www.sota2.com/research/sota/prompt-recovery-on-laion.md?metric=LPIPS",
    )
    assert [m.name for m in page.metrics][-1] == "Perplexity (PPL)"


def test_seed_004_by_hand() -> None:
    page = parse_file(seed_path("004"))
    assert page.benchmark == Benchmark("Multimodal Generation", "ART500K", "test")
    assert page.key == "sota2/multimodal-generation-on-art500k-test/clip-i2-score"
    assert page.title == "Multimodal Generation on ART500K (test)"
    assert page.metric("Perplexity").direction == "lower"
    assert page.metric("Perplexity").unit == "SCALAR"
    assert page.metric("CLIP I2 Score").unit == "SCALAR"
    hard, soft, dream = page.results[:3]
    assert (hard.method, hard.value) == ("GRAPHGPT-O", "77.62")
    assert hard.configuration.settings == (Setting("Type", "Hard"),)
    assert hard.configuration.raw_json == '{"Type":"Hard"}'
    assert soft.configuration.settings == (Setting("Type", "Soft"),)
    assert dream.method == "DreamLLM" and dream.implementation == "https://dreamllm.github.io/"
    assert page.results[3].implementation == "https://github.com/baaivision/Emu"
    assert page.results[-1].source_id == "699499833a6c3148491e504a"


def test_seed_000_by_hand() -> None:
    page = parse_file(seed_path("000"))
    assert page.primary_metric == "CLIP-T (S*T)"
    assert page.metrics[0].name == "CLIP-T (S*T)" and page.metrics[3].name == "CLIP-I (S*T)"
    assert len(page.metrics) == 9 and len(page.results) == 30
    assert (page.declared_count, page.total_count) == (30, 30)
    first = page.results[0]
    assert (first.method, first.value, first.metric) == ("Single Prompt", "46.8", "CLIP-T (S*T)")
    assert first.configuration.settings == (
        Setting("Model", "SANA1.5"),
        Setting("Mask", "false"),
        Setting("Layers / Steps", "none"),
    )
    assert page.results[5].value == "44"
    assert page.results[-1].value == "22.8" and page.results[-1].origin is None


def test_seed_003_by_hand() -> None:
    page = parse_file(seed_path("003"))
    assert page.benchmark == Benchmark("Prompt Recovery", "MS COCO")
    assert [(r.method, r.value) for r in page.results[:2]] == [("EDITOR", "79.6"), ("PH2P", "78.9")]


def test_the_radar_seed_is_not_sota2() -> None:
    path = seed_path("002")
    assert not sota2.sniff(path.read_text(encoding="utf-8"))
    assert "title" in refused(path.read_bytes(), path.name)


def test_pages_of_one_benchmark_for_other_metrics_or_numbers_are_other_pages() -> None:
    text = LAION.read_text(encoding="utf-8")
    lpips = (
        text.replace("| Metric | CLIP Score |", "| Metric | LPIPS |")
        .replace("| Unit | PERCENT |", "| Unit | SCALAR |")
        .replace("| Direction | Higher is better |", "| Direction | Lower is better |")
    )
    lpips = lpips.replace("| Method | CLIP Score |", "| Method | LPIPS |").replace(
        "CLIP Score: ", "LPIPS: "
    )
    second = text.replace("Page 1 of 1.", "Page 2 of 2.")
    keys = {sota2.parse(page.encode(), "page.md").key for page in (text, lpips, second)}
    assert keys == {
        "sota2/prompt-recovery-on-laion/clip-score",
        "sota2/prompt-recovery-on-laion/lpips",
        "sota2/prompt-recovery-on-laion/clip-score/page-2",
    }


@pytest.mark.parametrize(
    ("example", "prefix"), [(LAION, "001"), (ART, "004")], ids=["laion", "art500k"]
)
def test_examples_parse_and_carry_the_seed_figures(example: Path, prefix: str) -> None:
    page = parse_file(example)
    assert sota2.sniff(example.read_text(encoding="utf-8"))
    metric = normalise(page.primary_metric)
    assert page.key == "sota2/" + example.stem.removeprefix("sota2-") + "/" + metric
    assert len(page.results) == page.declared_count == 6
    seed = parse_file(seed_path(prefix))
    assert page.description != seed.description
    assert page.results == seed.results and page.metrics == seed.metrics
    assert page.benchmark == seed.benchmark


def test_crlf_and_bom_are_accepted() -> None:
    plain = sota2.parse(LAION.read_bytes(), "x.md")
    data = b"\xef\xbb\xbf" + LAION.read_bytes().replace(b"\n", b"\r\n")
    assert sota2.sniff(data.decode("utf-8"))
    windows = sota2.parse(data, "x.md")
    assert windows.results == plain.results and windows.title == plain.title
    assert windows.description == plain.description


def test_zero_result_page_is_valid() -> None:
    page = parse_file(DATA / "zero-results.md")
    assert page.results == () and (page.declared_count, page.total_count) == (0, 0)
    assert page.benchmark == Benchmark("Prompt Recovery", "LAION") and len(page.metrics) == 6
    without_table = laion().split("## Recorded results")[0] + "Page 1 of 1.\n"
    page = sota2.parse(edit(without_table, "6 of 6", "0 of 4").encode(), "none.md")
    assert page.results == () and page.total_count == 4


def test_partial_coverage_is_accepted() -> None:
    text = edit(drop_section(laion(), "STEPS"), "| STEPS | 72.2 |", "| STEPS-gone |")
    text = edit(text, "| STEPS-gone | Not recorded | 68fa791f1e209131cea7c381 |\n", "")
    page = sota2.parse(edit(text, "| 6 of 6 |", "| 5 of 9 |").encode(), "partial.md")
    assert (page.declared_count, page.total_count, len(page.results)) == (5, 9, 5)


def test_escapes_dates_and_typed_configuration_values() -> None:
    text = edit(laion(), "| VGD | 76.9 | Not recorded |", r"| VGD\_2 \| ext | 76.9 | 2024-05-01 |")
    text = edit(text, "### VGD\n", "### VGD\\_2 \\| ext\n")
    config = '{"Steps":50,"Scale":7.50,"Mask":true,"Tags":["a", "b"],"Note":null}'
    text = edit(
        text,
        "Result ID: 69aa7c5b6dbb7075b953ba9f.\n\n[Reporting paper](<https://www.sota2.com/research/"
        "paper/68fa791f1e209131cea7c381.md>)\n\n[Method origin paper](<https://www.sota2.com/"
        "research/paper/68fa7a1c1e209131cea813c0.md>)\n\nRecorded evaluation configuration: "
        "Not recorded.",
        "Result ID: 69aa7c5b6dbb7075b953ba9f.\n\n[Reporting paper](<https://www.sota2.com/research/"
        "paper/68fa791f1e209131cea7c381.md>)\n\nRecorded evaluation configuration: "
        f"{config}.",
    )
    vgd = sota2.parse(text.encode(), "x.md").results[3]
    assert vgd.method == "VGD_2 | ext" and vgd.result_date == "2024-05-01" and vgd.origin is None
    assert vgd.configuration.raw_json == config
    assert [(s.key, s.value) for s in vgd.configuration.settings] == [
        ("Steps", "50"),
        ("Scale", "7.50"),
        ("Mask", "true"),
        ("Tags", '["a", "b"]'),
        ("Note", "null"),
    ]


@pytest.mark.parametrize(
    ("dataset", "expected"),
    [
        ("LAION (val2017)", ("LAION", "val2017")),
        ("COCO (test-dev)", ("COCO", "test-dev")),
        ("LAION (Validation set)", ("LAION", "Validation set")),
        ("LAION (2B)", ("LAION (2B)", None)),
        ("Devanagari (script)", ("Devanagari (script)", None)),
    ],
)
def test_split_is_read_from_a_trailing_parenthesis(dataset: str, expected: tuple) -> None:
    text = edit(laion(), "| Dataset (including any stated split) | LAION |", f"| Dataset "
                f"(including any stated split) | {dataset} |")  # fmt: skip
    page = sota2.parse(text.encode(), "x.md")
    assert (page.benchmark.dataset, page.benchmark.split) == expected


# -- refused pages ---------------------------------------------------------------------------


def test_table_and_sections_disagree_on_count() -> None:
    message = refused(drop_section(laion(), "STEPS"))
    assert "6 rows" in message and "5 result sections" in message


def test_table_and_section_disagree_on_value() -> None:
    message = refused(edit(laion(), "CLIP Score: 81.7.", "CLIP Score: 81.8."))
    assert "results table row 3" in message and "'81.7'" in message and "'81.8'" in message
    assert "69aa7c5b6dbb7075b953baa1" in message


def test_table_and_section_disagree_on_method() -> None:
    message = refused(edit(laion(), "### VGD\n", "### VGD-XL\n"))
    assert "results table row 4" in message and "'VGD'" in message and "'VGD-XL'" in message


def test_table_and_section_disagree_on_reporting_paper() -> None:
    old = f"baa2.\n\n[Reporting paper](<{PAPER.format(REPORTING_001)}>)"
    other = "68fa7aa31e209131cea84463"
    message = refused(edit(laion(), old, f"baa2.\n\n[Reporting paper](<{PAPER.format(other)}>)"))
    assert "results table row 2" in message and REPORTING_001 in message and other in message


def test_declared_count_disagrees() -> None:
    message = refused(edit(laion(), "| 6 of 6 |", "| 7 of 7 |"))
    assert "line 20" in message and "declares 7 of 7" in message and "lists 6" in message
    message = refused(edit(laion(), "| 6 of 6 |", "| 0 of 6 |"))
    assert "declares 0 of 6" in message and "lists 6" in message


def test_more_loaded_than_exist() -> None:
    assert "6 of 5" in refused(edit(laion(), "| 6 of 6 |", "| 6 of 5 |"))


def test_results_declared_but_section_missing() -> None:
    message = refused(laion().split("## Recorded results")[0] + "Page 1 of 1.\n")
    assert "declares 6 results" in message and "Recorded results" in message


def test_truncated_page_is_refused_at_every_line() -> None:
    lines = laion().rstrip("\n").split("\n")
    for keep in range(len(lines)):
        refused("\n".join(lines[:keep]) + "\n", f"cut-at-line-{keep}.md")


@pytest.mark.parametrize("fraction", [0.03, 0.2, 0.33, 0.5, 0.61, 0.77, 0.9, 0.99])
def test_truncated_page_is_refused_mid_line(fraction: float) -> None:
    data = ART.read_bytes()
    refused(data[: int(len(data) * fraction)], "cut.md")


@pytest.mark.parametrize("bad", ["n/a", "12,5", "1e3", "+82.6", "82.", ".5", "", "—"])
def test_non_numeric_table_value(bad: str) -> None:
    message = refused(edit(laion(), "| PRISM | 81.7 |", f"| PRISM | {bad} |"))
    assert "results table row 3" in message and f"value {bad!r}" in message


def test_non_numeric_section_value() -> None:
    message = refused(edit(laion(), "CLIP Score: 81.7.", "CLIP Score: 81.7%."))
    assert "result 69aa7c5b6dbb7075b953baa1" in message and "'81.7%'" in message


def test_invalid_configuration_json() -> None:
    art = ART.read_text(encoding="utf-8")
    message = refused(edit(art, '{"Type":"Hard"}', '{"Type":"Hard"'))
    assert "result 699499833a6c3148491e504e" in message and "not valid JSON" in message
    message = refused(edit(art, '{"Type":"Hard"}', '["Hard"]'))
    assert "result 699499833a6c3148491e504e" in message and "not a JSON object" in message


def test_section_metric_differs_from_page_metric() -> None:
    message = refused(edit(laion(), "CLIP Score: 75.6.", "LPIPS: 75.6."))
    assert "result 69aa7c5b6dbb7075b953ba9d" in message and "'LPIPS'" in message


def test_duplicate_result_id() -> None:
    message = refused(edit(laion(), "Result ID: 69aa7c5b6dbb7075b953baa2.", "Result ID: "
                           "69aa7c5b6dbb7075b953ba9e."))  # fmt: skip
    assert "69aa7c5b6dbb7075b953ba9e" in message and "twice" in message


@pytest.mark.parametrize(
    "url",
    [
        "https://www.sota2.com/research/paper/68fa71901e209131cea5201.md",
        "https://www.sota2.com/research/paper/68fa71901e209131cea5201e",
        "https://www.sota2.com/research/method/68fa71901e209131cea5201e.md",
    ],
)
def test_paper_link_without_a_paper_id(url: str) -> None:
    old = "(<https://www.sota2.com/research/paper/68fa71901e209131cea5201e.md>)"
    message = refused(edit(laion(), old, f"(<{url}>)"))
    assert "result 69aa7c5b6dbb7075b953ba9e" in message and url in message


def test_results_header_must_name_the_page_metric() -> None:
    message = refused(edit(laion(), "| Method | CLIP Score |", "| Method | LPIPS |"))
    assert "results table header" in message and "LPIPS" in message


def test_page_metric_must_be_declared() -> None:
    message = refused(edit(laion(), "| Metric | CLIP Score |", "| Metric | BLEU |"))
    assert "'BLEU' is not in the Metrics list" in message


def test_unknown_direction() -> None:
    message = refused(edit(laion(), "LPIPS>): Lower is better", "LPIPS>): Smaller is better"))
    assert "unknown direction 'Smaller is better'" in message
    message = refused(edit(laion(), "| Direction | Higher is better |", "| Direction | Up |"))
    assert "unknown direction 'Up'" in message


def test_scope_unit_must_match_the_metric_declaration() -> None:
    message = refused(edit(laion(), "| Unit | PERCENT |", "| Unit | SCALAR |"))
    assert "'SCALAR'" in message and "'PERCENT'" in message


def test_bad_result_date() -> None:
    message = refused(edit(laion(), "| PEZ | 75.6 | Not recorded |", "| PEZ | 75.6 | May 2024 |"))
    assert "results table row 5" in message and "'May 2024'" in message


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("# Prompt Recovery on LAION\n", "", "title"),
        ("Source: [", "Origin: [", "Source"),
        ("Data updated: 2026", "Updated: 2026", "Data updated"),
        ("| Task | Prompt Recovery |\n", "", "'Task' is missing"),
        ("| Scope | Recorded value |", "| Field | Recorded value |", "Scope"),
        ("## Metrics\n", "", "'## Metrics' list is missing"),
        ("## Metrics", "## Metric list", "unexpected section"),
        ("Page 1 of 1. This is an index page, not the full collection.", "", "Page X of Y"),
        ("Recorded evaluation configuration: Not recorded. This record does not assert "
         "independent reproduction.\n\n### EDITOR", "### EDITOR", "configuration line is missing"),
    ],
)  # fmt: skip
def test_missing_parts(old: str, new: str, expected: str) -> None:
    assert expected in refused(edit(laion(), old, new))


def test_binary_junk_and_invalid_utf8() -> None:
    message = refused(bytes(range(256)))
    assert "byte 128" in message and "UTF-8" in message
    data = LAION.read_bytes()
    assert "byte 700" in refused(data[:700] + b"\xff" + data[700:])


@pytest.mark.parametrize("data", [b"", b"\n\n  \n", b"\xef\xbb\xbf"])
def test_empty_file(data: bytes) -> None:
    assert "empty" in refused(data, "empty.md")


@pytest.mark.parametrize(
    "text", ["hello world", "# Notes on things\n\nSource: [x](<https://x>)\n", "| a | b |"]
)
def test_text_that_is_not_a_page(text: str) -> None:
    assert not sota2.sniff(text)
    refused(text, "notes.md")


def test_empty_implementation_link() -> None:
    art = ART.read_text(encoding="utf-8")
    message = refused(
        edit(art, "[Implementation](<https://dreamllm.github.io/>)", "[Implementation](<>)")
    )
    assert "unexpected line in result section 'DreamLLM'" in message


@pytest.mark.parametrize("module", [sota2, sota2_results, markdown, text])
def test_parser_does_not_use_rdf(module: ModuleType) -> None:
    assert module.__file__ is not None
    assert "rdflib" not in Path(module.__file__).read_text(encoding="utf-8")
