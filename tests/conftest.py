"""Shared fixtures: real on-disk stores and the seed pages."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support import SEEDS, Index, build_store

from benchgraph.store import Store, open_store
from benchgraph.store.embedded import EmbeddedStore


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


@pytest.fixture(scope="session")
def seeds_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seed pages ingested at a fixed time."""
    if not SEEDS.is_dir():
        pytest.skip("the seed pages (../shared/seeds) are not beside this checkout")
    return build_store(tmp_path_factory.mktemp("seeds") / "store", SEEDS)


@pytest.fixture(scope="session")
def seeds_index(seeds_store: Path) -> Index:
    """The seeds store's statements (every graph), read directly: the facts answers are held to."""
    with open_store(seeds_store, must_exist=True) as store:  # through its server, if served
        return Index(set(store.quads()))
