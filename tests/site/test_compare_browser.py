"""In a real browser 1280 px wide, the compare page's verdict is in view without scrolling
sideways, and the pairs of results behind it open on a click."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from support.live import Live

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
GOLDEN = Path(__file__).parents[1] / "data" / "golden" / "queries" / "compare.json"

pytestmark = pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
    reason="/usr/bin/chromium or /usr/bin/chromedriver is not installed",
)


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SE_OFFLINE", "true")  # never let Selenium Manager look for a driver
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        options = webdriver.ChromeOptions()
        options.binary_location = str(CHROMIUM)
        for argument in (
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--no-first-run", "--window-size=1280,900",
            f"--user-data-dir={tmp_path_factory.mktemp('chromium-compare')}",
        ):  # fmt: skip
            options.add_argument(argument)
        browser = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
        browser.set_page_load_timeout(30)
        try:
            yield browser
        finally:
            browser.quit()


def test_the_verdict_is_in_view_at_1280_px_and_the_pairs_open_on_click(
    driver: Any, seeds_server: Live
) -> None:
    from selenium.webdriver.common.by import By

    driver.set_window_size(1280, 900)
    params = json.loads(GOLDEN.read_text(encoding="utf-8"))["params"]
    driver.get(f"{seeds_server.url}queries/compare?{urlencode(params)}&format=html")
    verdicts = driver.find_element(By.CSS_SELECTOR, "ul.verdicts")
    box = driver.execute_script(
        "const r = arguments[0].getBoundingClientRect();"
        "return [r.left, r.right, window.innerWidth, window.scrollX];",
        verdicts,
    )
    assert verdicts.is_displayed() and box[0] >= 0 and box[1] <= box[2] and box[3] == 0
    table = driver.find_element(By.CSS_SELECTOR, "details table")
    assert not table.is_displayed()
    driver.find_element(By.CSS_SELECTOR, "details summary").click()
    assert table.is_displayed()
