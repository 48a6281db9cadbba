"""The site on a phone: a real Chromium on a 390 × 844 screen (a phone's, emulated, as a window
is never narrower than 500 pixels). No page is wider than the screen (a wide table or chart
scrolls in its own box) and a chart's text is drawn no smaller than 10 pixels."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.browser import screenshot

from server.charts import SMALLEST_TEXT

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
GENAI = "page/benchmark/prompt-to-prompt-semantic-composition/genai-bench"
COMPOSET = "page/benchmark/composet/composet"
pytestmark = pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
    reason="/usr/bin/chromium or /usr/bin/chromedriver is not installed",
)
WIDTH, HEIGHT = 390, 844
# The smallest size, in CSS pixels, at which any chart text is drawn: its font size scaled as
# the chart is (its drawn width over its viewBox's).
SMALLEST_CHART_TEXT = """
let smallest = Infinity;
for (const svg of document.querySelectorAll("svg.chart")) {
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  for (const text of svg.querySelectorAll("text")) {
    smallest = Math.min(smallest, parseFloat(getComputedStyle(text).fontSize) * scale);
  }
}
return smallest;
"""


@pytest.fixture(scope="module")
def phone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SE_OFFLINE", "true")  # the driver's path is given: look for none
        options = webdriver.ChromeOptions()
        options.binary_location = str(CHROMIUM)
        for argument in (
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--no-first-run", f"--window-size={WIDTH},{HEIGHT}", "--hide-scrollbars",
            f"--user-data-dir={tmp_path_factory.mktemp('chromium-phone')}",
        ):  # fmt: skip
            options.add_argument(argument)
        browser = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
        browser.set_page_load_timeout(60)
        # Chromium keeps a window at least 500 pixels wide: the screen is a phone's, emulated.
        browser.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": True},
        )
        try:
            yield browser
        finally:
            browser.quit()


def pages(phone: Any, url: str) -> list[str]:
    """The pages looked at: home, two boards, and a method, paper and result the GenAI-Bench
    board links to, the query page, a search, and two API pages (the named queries and the
    SPARQL endpoint's form)."""
    phone.get(url + GENAI)
    linked = []
    for kind in ("method", "paper", "result"):
        hrefs = phone.execute_script(
            "return [...document.querySelectorAll('a[href*=\"/page/' + arguments[0] + '/\"]')]"
            ".map(a => a.href)",
            kind,
        )
        assert hrefs, f"the GenAI-Bench board links to no {kind}"
        linked.append(hrefs[0])
    boards = [url + GENAI, url + COMPOSET]
    api = [url + "queries", url + "sparql"]
    return [url + "site", *boards, *linked, url + "query", url + "search?q=bench", *api]


def test_no_page_is_wider_than_a_phone(phone: Any, seeds_server: Any) -> None:
    wider = {}
    for page in pages(phone, seeds_server.url):
        phone.get(page)
        inner = phone.execute_script("return window.innerWidth")
        assert inner == WIDTH, (page, inner)
        scroll = phone.execute_script("return document.documentElement.scrollWidth")
        if scroll > inner:
            wider[page] = scroll
    assert not wider, wider


def test_chart_text_is_drawn_at_ten_pixels_or_more_on_a_phone(
    phone: Any, seeds_server: Any, tmp_path: Path
) -> None:
    for page in (GENAI, COMPOSET):
        phone.get(seeds_server.url + page)
        smallest = phone.execute_script(SMALLEST_CHART_TEXT)
        assert SMALLEST_TEXT - 0.01 <= smallest < float("inf"), (page, smallest)
    phone.get(seeds_server.url + GENAI)
    phone.execute_script("document.querySelector('svg.chart').parentNode.scrollIntoView()")
    screenshot(phone, tmp_path / "phone.png")  # docs/screenshots/phone.png is one
