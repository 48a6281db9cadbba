"""Fixtures for the robustness tests."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
import robustness.fuzz_settings  # noqa: F401  (registers and loads the hypothesis profile)
from robustness.parse_worker import ParseWorkers


@pytest.fixture(scope="module")
def worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ParseWorkers]:
    """Parse worker processes with a hard time limit per page (see parse_worker.py)."""
    opened = ParseWorkers(
        tmp_path_factory.mktemp("parse-workers"), count=min(4, os.cpu_count() or 2)
    )
    yield opened
    opened.close()
