"""The Virtuoso the remote-store tests run against (bench.virtuoso starts it): the one
``.ci/run`` starts and names in BENCHGRAPH_TEST_VIRTUOSO_FOLDER, or one started for the test
process when Virtuoso is installed. Without either, the Virtuoso tests are skipped, saying how to
install it; CI installs it, so they never are there."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.virtuoso import INSTALL_HINT, VirtuosoServer, installed

__all__ = ["INSTALL_HINT", "installed", "settings", "virtuoso"]

# What benchgraph needs to be told about Virtuoso (the docs say the same): its cap on the
# statements of one update, and time for a leaderboard (8-12 s on the founding pages' GenAI-Bench
# board on an idle machine, longer beside the other tests, against a default of 30 s).
SETTINGS = {"BENCHGRAPH_STORE_REQUEST_STATEMENTS": "1000", "BENCHGRAPH_STORE_TIMEOUT": "120"}


def settings(server: VirtuosoServer) -> dict[str, str]:
    """The environment that points benchgraph's writes at ``server``."""
    return {**server.env(), **SETTINGS}


def virtuoso(folder: Path) -> Iterator[VirtuosoServer]:
    """The shared Virtuoso, for the first test process (pytest-xdist's gw0; the tests empty the
    server they use, so each other process starts one of its own in ``folder``)."""
    shared = os.environ.get("BENCHGRAPH_TEST_VIRTUOSO_FOLDER")
    if shared and os.environ.get("PYTEST_XDIST_WORKER", "gw0") == "gw0":
        yield VirtuosoServer(Path(shared))
        return
    if not installed():
        pytest.skip(INSTALL_HINT)
    server = VirtuosoServer(folder).start()
    try:
        yield server
    finally:
        server.stop()
