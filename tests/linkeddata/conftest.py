"""Fixtures for the linked-data surface: a served examples store of its own, and a copy for the
CLI (the server holds its store's lock)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support import EXAMPLES, build_store, copy_store
from support.live import Live


@pytest.fixture(scope="session")
def ld_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The examples, ingested at a fixed time."""
    return build_store(tmp_path_factory.mktemp("linkeddata") / "store", EXAMPLES)


@pytest.fixture(scope="session")
def ld_server(ld_store: Path) -> Iterator[object]:
    live = Live(ld_store, "--workers", "2")
    yield live
    assert live.stop() == 0


@pytest.fixture(scope="session")
def export_store(ld_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the served store for the CLI (same quads, same blank-node labels)."""
    return copy_store(ld_store, tmp_path_factory.mktemp("export") / "store")
