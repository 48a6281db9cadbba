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

__all__ = ["FAULTS", "INSTALL_HINT", "installed", "settings", "virtuoso"]

# The named queries Virtuoso 7.2.5 (as bench/virtuoso.py configures it) refuses on some data
# before running them, with what it says; docs/remote-stores.md lists them. Its estimate of their
# cost varies from run to run, so the contract tests let these fail, naming Virtuoso's error,
# and otherwise require the embedded store's rows; compare through the proxy (test_proxy) is
# pinned as failing.
FAULTS = {
    "leaderboard": "42000 The estimated execution time … exceeds the limit of 400 (sec)",
    "compare": "42000 The estimated execution time … exceeds the limit of 400 (sec)",
}

# What benchgraph needs to be told about Virtuoso (the docs say the same).
SETTINGS = {"BENCHGRAPH_STORE_REQUEST_STATEMENTS": "1000"}


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
