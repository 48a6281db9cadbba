"""A real browser (headless Chromium) opening a benchmark page of a live server."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="/usr/bin/chromium is not installed")


def chromium(tmp_path: Path, *args: str) -> str:
    command = [
        str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}", *args,
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_browser_sees_chart_and_escaped_name(hostile_server: Any, tmp_path: Path) -> None:
    url = hostile_server.url + "page/benchmark/prompt-recovery/laion"
    dom = chromium(tmp_path, "--dump-dom", url)
    assert "<svg" in dom and 'class="bar"' in dom
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom
    assert "<script>alert(1)</script>" not in dom
    shot = tmp_path / "page.png"
    chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,1400", url)
    assert shot.stat().st_size > 0
