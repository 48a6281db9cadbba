"""A real browser (headless Chromium driven by Selenium through Debian's chromedriver) using the
pages of a live server: the charts, the query form, the escaping of a hostile name."""

from __future__ import annotations

import shutil
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest
import test_asof
from support import build_store, dated
from support.browser import MISSING, chrome, installed, screenshot
from support.live import Live
from test_history import sha16

from benchgraph import vocab as V
from benchgraph.store import holder

pytestmark = pytest.mark.skipif(not installed(), reason=MISSING)

GENAI = "page/benchmark/prompt-to-prompt-semantic-composition/genai-bench"
COMPOSET = "page/benchmark/composet/composet"
LAION = "page/benchmark/prompt-recovery/laion"
LAION_IRI = V.ID + "benchmark/prompt-recovery/laion"
# Each text of each chart whose box, as drawn, is not wholly inside its chart's viewBox.
OUTSIDE = """
const outside = [];
for (const svg of document.querySelectorAll("svg.chart")) {
  const view = svg.viewBox.baseVal;
  for (const text of svg.querySelectorAll("text")) {
    const box = text.getBBox();
    if (box.width === 0 || box.x < view.x || box.y < view.y
        || box.x + box.width > view.x + view.width || box.y + box.height > view.y + view.height) {
      outside.push([text.textContent, box.x, box.y, box.width, box.height, view.width]);
    }
  }
}
return [document.querySelectorAll("svg.chart text.label").length, outside];
"""
COUNT_RESULTS = (
    "PREFIX bg: <https://w3id.org/benchgraph/ns#>\n"
    "SELECT (COUNT(DISTINCT ?result) AS ?results) WHERE { ?result a bg:Result }"
)


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    yield from chrome(tmp_path_factory)


def test_each_cohort_chart_has_one_bar_per_row(
    driver: Any, seeds_server: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    driver.get(seeds_server.url + GENAI)
    cohorts = driver.find_elements(By.CSS_SELECTOR, "div.cohort")
    names = [c.find_element(By.TAG_NAME, "h4").text for c in cohorts]
    assert len(names) == 5 and all(n.startswith("Cohort: Model=") for n in names)
    for cohort, name in zip(cohorts, names, strict=True):
        (svg,) = cohort.find_elements(By.CSS_SELECTOR, "svg")
        bars = svg.find_elements(By.CSS_SELECTOR, "rect.bar")
        rows = cohort.find_elements(By.CSS_SELECTOR, "table tbody tr")
        assert rows, name
        assert len(bars) == len(rows), name
        assert all(b.is_displayed() for b in bars), name
    screenshot(driver, tmp_path / "genai-bench.png")


def test_chart_text_lies_inside_the_chart(driver: Any, seeds_server: Any, tmp_path: Path) -> None:
    """No label is clipped: every text of every chart is drawn inside the chart."""
    for page in (GENAI, COMPOSET):
        driver.get(seeds_server.url + page)
        labels, outside = driver.execute_script(OUTSIDE)
        assert labels and outside == [], page
    screenshot(driver, tmp_path / "composet.png")


def test_query_form_answers_as_a_table(driver: Any, seeds_server: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    # The form as it works without JavaScript (with it, the editor takes its place).
    driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        driver.get(seeds_server.url + "query")
        box = driver.find_element(By.CSS_SELECTOR, "form textarea[name=query]")
        box.clear()
        box.send_keys(COUNT_RESULTS)
        driver.find_element(By.XPATH, "//form[textarea]//button[not(@formaction)]").click()
        table = WebDriverWait(driver, 15).until(
            EC.presence_of_element_located((By.CSS_SELECTOR, "table.answer"))
        )
    finally:
        driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
    headers = [th.text for th in table.find_elements(By.CSS_SELECTOR, "thead th")]
    assert headers == ["results"]
    rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
    assert len(rows) == 1
    assert int(rows[0].find_element(By.TAG_NAME, "td").text) == 321
    assert "1 row" in driver.find_element(By.CSS_SELECTOR, "p.note").text
    screenshot(driver, tmp_path / "query.png")


def test_hostile_method_name_is_shown_not_run(
    driver: Any, hostile_server: Any, tmp_path: Path
) -> None:
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    driver.get(hostile_server.url + "page/benchmark/prompt-recovery/laion")
    assert driver.find_elements(By.CSS_SELECTOR, "svg rect.bar")
    assert "<script>alert(1)</script>" in driver.find_element(By.TAG_NAME, "body").text
    scripts = driver.find_elements(By.TAG_NAME, "script")
    assert not any("alert(1)" in (s.get_attribute("innerHTML") or "") for s in scripts)
    with pytest.raises(NoAlertPresentException):
        driver.switch_to.alert.text  # noqa: B018 (reading it raises when there is no alert)
    screenshot(driver, tmp_path / "laion.png")


# The store of test_asof: the LAION page in five monthly versions (PRISM 81.7 in March, 81.9
# from April on), and the ART500K page.
five, kept = test_asof.five, test_asof.kept


@pytest.fixture(scope="module")
def history_server(kept: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    copy = tmp_path_factory.mktemp("history-served") / "store"
    shutil.copytree(kept, copy, ignore=shutil.ignore_patterns(*holder.NOT_DATA))
    live = Live(copy)
    yield live
    assert live.stop() == 0


def _value_of(driver: Any, method: str) -> str:
    """The value the leaderboards show for ``method``."""
    from selenium.webdriver.common.by import By

    for table in driver.find_elements(By.CSS_SELECTOR, "div.cohort table"):
        heads = [th.text for th in table.find_elements(By.CSS_SELECTOR, "thead th")]
        for row in table.find_elements(By.CSS_SELECTOR, "tbody tr"):
            cells = [td.text for td in row.find_elements(By.TAG_NAME, "td")]
            if cells[heads.index("Method")] == method:
                return cells[heads.index("Value")]
    raise AssertionError(f"no row of {method}")


def test_a_benchmark_shows_its_versions_and_its_leaderboard_as_of_a_date(
    driver: Any, history_server: Any, five: list[Path], tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    page = history_server.url + LAION
    driver.get(page)
    # The timeline: the five versions of the LAION page, newest first.
    rows = driver.find_elements(By.CSS_SELECTOR, "table.versions tbody tr")
    cells = [[td.text for td in row.find_elements(By.TAG_NAME, "td")] for row in rows]
    assert [c[0][:10] for c in cells] == [f"2026-{m:02d}-06" for m in (7, 6, 5, 4, 3)]
    assert [c[4] for c in cells] == ["current", "history", "history", "history", "history"]
    assert [c[5] for c in cells] == [sha16(p) for p in reversed(five)]
    assert [c[3] for c in cells] == ["6", "6", "7", "6", "6"]
    # The latest changes, against the version before (June): PEZ's configuration.
    changes = driver.find_elements(By.CSS_SELECTOR, "table.changes tbody tr")
    assert [r.find_elements(By.TAG_NAME, "td")[1].text for r in changes] == ["PEZ"]
    # The feed, linked from the page and announced in its head.
    feed = driver.find_element(By.CSS_SELECTOR, "p.feed a").get_attribute("href")
    (announced,) = driver.find_elements(
        By.CSS_SELECTOR, 'head link[rel="alternate"][type="application/atom+xml"]'
    )
    assert announced.get_attribute("href") == feed
    address, query = feed.split("?", 1)
    assert address == history_server.url + "changes.atom"
    assert parse_qs(query) == {"benchmark": [LAION_IRI]}
    with urllib.request.urlopen(feed, timeout=60) as reply:
        assert reply.headers.get_content_type() == "application/atom+xml"
    assert _value_of(driver, "PRISM") == "81.9"
    # As of the end of March: PRISM's value then, said so, with the way back.
    box = driver.find_element(By.CSS_SELECTOR, "form.as-of input[name=asOf]")
    assert box.get_attribute("type") == "date"
    driver.execute_script("arguments[0].value = '2026-03-31'", box)
    driver.find_element(By.CSS_SELECTOR, "form.as-of button").click()
    notice = WebDriverWait(driver, 30).until(
        EC.presence_of_element_located((By.CSS_SELECTOR, "p.as-of-notice"))
    )
    assert "As of 2026-03-31" in notice.text
    assert driver.current_url == page + "?asOf=2026-03-31"
    assert _value_of(driver, "PRISM") == "81.7"
    screenshot(driver, tmp_path / "laion-as-of.png")
    notice.find_element(By.TAG_NAME, "a").click()
    WebDriverWait(driver, 30).until(EC.url_to_be(page))
    assert not driver.find_elements(By.CSS_SELECTOR, "p.as-of-notice")
    assert _value_of(driver, "PRISM") == "81.9"


def test_a_bad_as_of_date_is_the_sites_400_page(driver: Any, history_server: Any) -> None:
    from selenium.webdriver.common.by import By

    driver.get(history_server.url + LAION + "?asOf=June")
    text = driver.find_element(By.CSS_SELECTOR, "div.error").text
    assert "400" in text and "'asOf'" in text and "YYYY-MM-DD" in text


# Pages of tests/data/claims: BERT-Base's SQuAD1.1 exact match from its own paper, from the
# DistilBERT paper's table and from a model card on a 0-1 scale.
CLAIMS = Path(__file__).parents[1] / "data" / "claims"
SQUAD = "page/benchmark/question-answering/squad1-1"


@pytest.fixture(scope="module")
def claims_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    live = Live(build_store(tmp_path_factory.mktemp("claims-served") / "store", CLAIMS))
    yield live
    assert live.stop() == 0


def _figures(table: Any) -> list[list[str]]:
    """The rows of a table of a claim's values, as a reader sees them: value as published,
    value compared, role, against the headline."""
    from selenium.webdriver.common.by import By

    heads = [th.text for th in table.find_elements(By.CSS_SELECTOR, "thead th")]
    wanted = ["Value (as published)", "Compared as", "Role", "Against the headline"]
    rows = []
    for row in table.find_elements(By.CSS_SELECTOR, "tbody tr"):
        cells = [td.text for td in row.find_elements(By.TAG_NAME, "td")]
        rows.append([cells[heads.index(w)] for w in wanted])
    return rows


def test_where_sources_disagree_and_a_claim_page_show_every_figure(
    driver: Any, claims_server: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    expected = [
        ["80.8", "80.8", "origin paper", "headline"],
        ["81.2", "81.2", "another paper", "disagrees (0.4)"],
        ["0.809", "80.9 (read as percent)", "model card", "disagrees (0.1)"],
    ]
    driver.get(claims_server.url + SQUAD)
    heading = driver.find_element(By.ID, "disagree")
    assert heading.text == "Where sources disagree" and heading.is_displayed()
    (block,) = driver.find_elements(By.CSS_SELECTOR, "div.claim")
    assert _figures(block.find_element(By.CSS_SELECTOR, "table.claim-values")) == expected
    summary = block.find_element(By.CSS_SELECTOR, "p.claim-summary").text
    assert summary.endswith("Spread 0.4; causes: scale mismatch.")
    sources = [td.text for td in driver.find_elements(By.CSS_SELECTOR, "div.cohort td.sources")]
    assert "3 sources · 1 agrees" in sources
    screenshot(driver, tmp_path / "squad-disagree.png")
    block.find_element(By.CSS_SELECTOR, "h3 a").click()
    title = WebDriverWait(driver, 30).until(EC.presence_of_element_located((By.TAG_NAME, "h1")))
    assert title.text == "Claim: BERT-Base on Question Answering on SQuAD1.1, EM"
    assert "/page/claim/" in driver.current_url
    table = driver.find_element(By.CSS_SELECTOR, "table.claim-values")
    assert _figures(table) == expected
    (headline,) = table.find_elements(By.CSS_SELECTOR, "tr.headline strong")
    assert headline.text == "headline"
    screenshot(driver, tmp_path / "claim.png")
    driver.find_element(By.CSS_SELECTOR, "p.query a").click()
    WebDriverWait(driver, 30).until(EC.url_contains("/queries/claims?"))
    assert "81.2" in driver.find_element(By.TAG_NAME, "body").text


def test_chart_over_time_has_a_point_per_dated_result_and_its_text_inside(
    driver: Any, dated_server: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    for benchmark in (dated.ART, dated.LAION):
        driver.get(dated_server.url + "page/" + benchmark)
        (svg,) = driver.find_elements(By.CSS_SELECTOR, "svg.over-time")
        placed = [p for p in dated.stored_points(dated_server.store, benchmark) if p[1]]
        shown = svg.find_elements(By.CSS_SELECTOR, "circle.point")
        assert len(shown) == len(placed) and all(c.is_displayed() for c in shown), benchmark
        _, outside = driver.execute_script(OUTSIDE)
        assert outside == [], benchmark
    figure = driver.find_element(By.CSS_SELECTOR, "figure.over-time")
    driver.execute_script("arguments[0].scrollIntoView()", figure)
    (tmp_path / "sota-over-time.png").write_bytes(figure.screenshot_as_png)
    screenshot(driver, tmp_path / "page.png")
