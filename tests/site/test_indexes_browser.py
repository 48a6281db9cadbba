"""The index pages in a real browser: a heading sorts, a download link gives the rows shown."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.browser import MISSING, chrome, installed, screenshot

pytestmark = pytest.mark.skipif(not installed(), reason=MISSING)


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    yield from chrome(tmp_path_factory, size="1200,900")


def _rows(browser: Any) -> list[list[str]]:
    from selenium.webdriver.common.by import By

    return [
        [cell.text for cell in row.find_elements(By.TAG_NAME, "td")]
        for row in browser.find_elements(By.CSS_SELECTOR, "table.data tbody tr")
    ]


def test_a_heading_sorts_and_the_download_gives_the_rows_shown(
    driver: Any, seeds_server: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    driver.get(seeds_server.url + "site/methods")
    heading = driver.find_element(By.LINK_TEXT, "Results")
    heading.click()
    assert driver.current_url.endswith("/site/methods?_sort=results")
    counts = [int(r[1]) for r in _rows(driver)]
    assert counts == sorted(counts) and len(counts) > 1
    driver.find_element(By.PARTIAL_LINK_TEXT, "Results").click()
    assert driver.current_url.endswith("/site/methods?_sort_desc=results")
    shown = _rows(driver)
    assert [int(r[1]) for r in shown] == sorted(counts, reverse=True)
    screenshot(driver, tmp_path / "index.png")  # docs/screenshots/index.png is one
    href = driver.find_element(By.CSS_SELECTOR, "a.download-json").get_attribute("href")
    with urllib.request.urlopen(href) as reply:  # the live server, on loopback
        rows = json.load(reply)["rows"]
    assert [[r["label"], r["results"], r["benchmarks"]] for r in rows] == [
        [s[0], s[1], s[2]] for s in shown
    ]
