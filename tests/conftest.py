"""Shared fixtures: real on-disk stores and the seed pages."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support import SEEDS

from benchgraph.store import EmbeddedStore, Store


@pytest.fixture
def seeds() -> Path:
    if not SEEDS.is_dir():
        pytest.skip("the seed pages (../shared/seeds) are not beside this checkout")
    return SEEDS


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    return tmp_path / "store"


@pytest.fixture
def store(store_dir: Path) -> Iterator[Store]:
    with EmbeddedStore(store_dir) as opened:
        yield opened
