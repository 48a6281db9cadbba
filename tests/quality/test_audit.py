"""``benchgraph audit``: the provenance audit, per source page and overall, every figure of it
from a named query; asserted exactly on the seed pages."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pyoxigraph as ox
import pytest
from support import EXAMPLES, REPO, run_cli

from benchgraph import audit, queries
from benchgraph import vocab as V
from benchgraph.store.embedded import EmbeddedStore

LAION = EXAMPLES / "sota2-prompt-recovery-on-laion.md"
AS_OF = "2026-11-29"  # with the default 180 days: stale means updated before 2026-06-02

# source ID: results, self-reported (methods), by another paper, origin unknown,
# methods without origin, results without configuration, stale, warnings
SEED_FIGURES = {
    "radar/composet": (273, 0, [], 0, 273, 28, 0, False, 28),
    "sota2/multimodal-generation-on-art500k-test/clip-i2-score": (
        6,
        2,
        ["GRAPHGPT-O"],
        3,
        1,
        1,
        4,
        True,
        5,
    ),
    "sota2/prompt-recovery-on-laion/clip-score": (6, 1, ["EDITOR"], 4, 1, 1, 6, True, 7),
    "sota2/prompt-recovery-on-ms-coco/clip-score": (6, 1, ["EDITOR"], 4, 1, 1, 6, True, 7),
    "sota2/prompt-to-prompt-semantic-composition-on-genai-bench/clip-t-s-t": (
        30,
        10,
        ["MAs", "masked activation-transport mechanism"],
        5,
        15,
        2,
        0,
        True,
        2,
    ),
}
SEED_OVERALL = {
    "sources": 5,
    "results": 321,
    "selfReported": 14,
    "reportedByAnotherPaper": 16,
    "originUnknown": 291,
    "methodsWithoutOrigin": 32,  # STEPS is on two pages
    "resultsWithoutConfiguration": 16,
    "partialCoverage": 0,
    "staleSources": 4,
    "notValidated": 0,
    "violations": 0,
    "warnings": 49,
    "infos": 0,
    "disagreements": 0,  # no two seed pages give one claim a value
}


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from support import SEEDS

    if not SEEDS.is_dir():
        pytest.skip("the seed pages (../shared/seeds) are not beside this checkout")
    store_dir = tmp_path_factory.mktemp("audit") / "store"
    assert run_cli("ingest", str(SEEDS), store=store_dir).returncode == 0
    return store_dir


def audit_json(store_dir: Path, *options: str) -> dict:
    done = run_cli("audit", "--format", "json", "--as-of", AS_OF, *options, store=store_dir)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_seed_figures_per_source_and_overall(seeded: Path) -> None:
    document = audit_json(seeded)
    assert document["overall"] == SEED_OVERALL
    assert document["staleBefore"] == "2026-06-02"
    assert document["queries"] == audit.SECTIONS
    assert "NOT an independent reproduction" in document["note"]
    figures = {
        s["page"]: (
            s["results"],
            s["selfReported"],
            s["selfReportedMethods"],
            s["reportedByAnotherPaper"],
            s["originUnknown"],
            len(s["methodsWithoutOrigin"]),
            s["withoutConfiguration"],
            s["stale"],
            s["warnings"],
        )
        for s in document["sources"]
    }
    assert figures == SEED_FIGURES
    for s in document["sources"]:
        assert (s["partial"], s["violations"], s["infos"]) == (False, 0, 0)
        assert s["validated"] is not None
    by_page = {s["page"]: s for s in document["sources"]}
    assert by_page["sota2/prompt-recovery-on-laion/clip-score"]["methodsWithoutOrigin"] == ["STEPS"]
    assert by_page["sota2/multimodal-generation-on-art500k-test/clip-i2-score"][
        "methodsWithoutOrigin"
    ] == ["Janus"]
    radar = by_page["radar/composet"]
    assert (radar["url"], radar["publisher"]) == (None, "AI Benchmark Radar / Equality Machine")
    assert (radar["declared"], radar["results"]) == (22, 273)


def test_text_says_who_reported_what_and_that_it_is_not_reproduction(seeded: Path) -> None:
    done = run_cli("audit", "--as-of", AS_OF, store=seeded)
    assert done.returncode == 0
    text = done.stdout
    assert text.startswith("Provenance audit: 5 source pages, 321 results (stale: data updated")
    laion = text[text.index("sota2/prompt-recovery-on-laion/clip-score — ") :]
    laion = laion[: laion.index("\n\n")]
    assert (
        "self-reported: 1 (EDITOR); reported by another paper (not independent reproduction): "
        "4; origin unknown: 1" in laion
    )
    assert "methods without an origin paper (1): STEPS" in laion
    assert "results without a recorded configuration: 6" in laion
    assert "NOT an independent reproduction" in text


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.cells: list[str] = []

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag not in ("meta", "br"):
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.open.pop() == tag

    def handle_data(self, data: str) -> None:
        if self.open and self.open[-1] == "td":
            self.cells.append(data)


def test_html_is_a_well_formed_page_with_the_figures(seeded: Path) -> None:
    done = run_cli("audit", "--format", "html", "--as-of", AS_OF, store=seeded)
    assert done.returncode == 0
    parser = _Tags()
    parser.feed(done.stdout)
    assert parser.open == []
    assert "1 (EDITOR)" in parser.cells and "321" in parser.cells
    assert "NOT an independent reproduction" in done.stdout


def test_each_section_is_a_named_query_with_the_same_answers(seeded: Path) -> None:
    for name in audit.SECTIONS.values():
        assert (REPO / "queries" / f"{name}.rq").is_file()
    done = run_cli("query", "audit-self-reported", "--format", "json", store=seeded)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["results"]["bindings"]
    laion = next(
        r for r in rows if r["page"]["value"] == "sota2/prompt-recovery-on-laion/clip-score"
    )
    assert (laion["results"]["value"], laion["selfReported"]["value"]) == ("6", "1")
    assert laion["selfReportedMethods"]["value"] == "EDITOR"


@pytest.mark.parametrize(
    ("options", "stale"),
    [
        ((), 4),
        (("--stale-days", "0"), 5),
        (("--stale-days", "10", "--as-of", "2026-03-01"), 0),
        (("--stale-days", "90", "--as-of", "2026-06-05"), 3),  # before 2026-03-07
    ],
)
def test_stale_sources_follow_the_days_and_the_date(
    seeded: Path, options: tuple[str, ...], stale: int
) -> None:
    assert audit_json(seeded, *options)["overall"]["staleSources"] == stale


def test_partial_coverage_is_an_info_and_an_audit_figure(store_dir: Path, tmp_path: Path) -> None:
    page = tmp_path / "partial.md"
    page.write_text(
        LAION.read_text().replace("| Results loaded | 6 of 6 |", "| Results loaded | 6 of 10 |")
    )
    done = run_cli("ingest", "--verbose", str(page), store=store_dir)
    assert done.returncode == 0, done.stderr
    # The 6 results without a configuration are said once, and so is STEPS without an origin.
    assert "; 2 warnings, 1 infos" in done.stdout
    assert (
        f"info: {page}: source sota2/prompt-recovery-on-laion/clip-score: "
        "covers its benchmark only partially" in done.stderr
    )
    document = audit_json(store_dir)
    assert document["overall"]["partialCoverage"] == 1
    (source,) = document["sources"]
    assert (source["partial"], source["declared"], source["total"], source["infos"]) == (
        True,
        6,
        10,
        1,
    )


def test_bad_options_are_exit_two(store_dir: Path) -> None:
    for options in (("--as-of", "yesterday"), ("--stale-days", "-3"), ("--format", "pdf")):
        done = run_cli("audit", *options, store=store_dir)
        assert done.returncode == 2, options
        assert "Traceback" not in done.stderr


def test_an_empty_store_audits_to_zeros(store_dir: Path) -> None:
    EmbeddedStore(store_dir).close()
    document = audit_json(store_dir)
    assert document["sources"] == []
    assert set(document["overall"].values()) == {0}


def test_claims_whose_sources_disagree_are_counted(store_dir: Path) -> None:
    """One result in three formats (tests/data/claims): the origin paper's 80.8 is its
    headline; the DistilBERT paper's 81.2 and the model card's 0.809 (read as 80.9) disagree."""
    done = run_cli("ingest", str(REPO / "tests" / "data" / "claims"), store=store_dir)
    assert done.returncode == 0, done.stderr
    document = audit_json(store_dir)
    assert document["overall"]["disagreements"] == 1
    disagreeing = {s["format"]: s["disagreeing"] for s in document["sources"]}
    assert disagreeing == {"sota2": 0, "pwc-tables": 1, "model-index": 1}
    text = run_cli("audit", "--as-of", AS_OF, store=store_dir).stdout
    assert "claims whose sources disagree (query disagreements)" in text


def test_the_self_reported_audit_comes_in_the_order_of_the_page_ids() -> None:
    """Rows sort by page ID as the IDs sort as text (an ID that begins another first), then by
    source; a source without an ID first. Asked of a graph of source documents alone."""
    ids = ["b", "a-b", "a", "ab", "a b", "A", "a/b", "é", "a\u0002", None]
    store = ox.Store()
    for n, given in enumerate(ids):
        source = ox.NamedNode(f"https://example.org/source/{n}")
        store.add(ox.Quad(source, ox.NamedNode(V.type_), ox.NamedNode(V.SourceDocument)))
        if given is not None:
            store.add(ox.Quad(source, ox.NamedNode(V.identifier), ox.Literal(given)))
    answer = store.query(queries.find("audit-self-reported").text)
    assert isinstance(answer, ox.QuerySolutions)
    found = [getattr(row["page"], "value", None) for row in answer]
    assert found == [None, *sorted(i for i in ids if i is not None)]
