"""In a real browser 1280 px wide, the compare page's verdict is in view without scrolling
sideways, and the pairs of results behind it open on a click."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from support.browser import MISSING, chrome, installed
from support.live import Live

GOLDEN = Path(__file__).parents[1] / "data" / "golden" / "queries" / "compare.json"

pytestmark = pytest.mark.skipif(not installed(), reason=MISSING)


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    yield from chrome(tmp_path_factory, size="1280,900")


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
