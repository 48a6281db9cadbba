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

# The named queries Virtuoso 7.2.5 cannot always compile (the same text runs on Oxigraph and in
# the embedded store), with what it says; docs/remote-stores.md lists them. Whether some fail
# depends on the data and on its plans, so the contract tests let these fail, naming
# Virtuoso's error, and otherwise require the embedded store's rows; the leaderboard without
# asOf (test_past_any_store) and papers through the proxy (test_proxy) are pinned as failing.
FAULTS = {
    "papers": "SQ156 Internal Optimized compiler error: Bad dfe in sqlo_place_exp",
    "benchmarks": "SQ156 Internal Optimized compiler error: Bad dfe in sqlo_place_exp",
    "audit-self-reported": "SQ156 Internal Optimized compiler error: Bad dfe in sqlo_place_exp",
    "leaderboard": "SP031 ssg_print_bop_bool_expn (): unsupported mode (EXISTS inside IF)",
    "compare": "SP031 ssg_print_bop_bool_expn (): unsupported mode (EXISTS inside IF)",
    "audit-stale-sources": "SR185 Undefined procedure DB.DBA.…#dayTimeDuration",
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
