"""A real browser for the tests: headless Chromium driven by Selenium through Debian's
chromedriver, never a driver looked for or downloaded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
MISSING = "/usr/bin/chromium or /usr/bin/chromedriver is not installed"


def installed() -> bool:
    """Whether Chromium and its driver are there."""
    return CHROMIUM.exists() and CHROMEDRIVER.exists()


def chrome(tmp_path_factory: pytest.TempPathFactory, size: str = "1200,1400") -> Iterator[Any]:
    """A headless Chromium with a fresh profile and a window of ``size`` ("WIDTH,HEIGHT"),
    quit at the end."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in (
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run", f"--window-size={size}",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}",
    ):  # fmt: skip
        options.add_argument(argument)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SE_OFFLINE", "true")  # Selenium Manager: the path is given
        browser = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    browser.set_page_load_timeout(30)
    try:
        yield browser
    finally:
        browser.quit()


def screenshot(driver: Any, path: Path) -> None:
    """Save what the browser shows as a PNG at ``path``."""
    assert driver.save_screenshot(str(path))
    assert path.is_file() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
