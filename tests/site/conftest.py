"""Fixtures for the site: apps over the seed pages, over the examples ingested at different
times and over a page with a hostile method name, and live servers for the browser."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient
from support import EXAMPLES, build_store, copy_store, site_client
from support.dated import build_dated_store
from support.live import Live

from benchgraph.store.embedded import EmbeddedStore
from ingest.loader import ingest_file

HOSTILE = "<script>alert(1)</script>"


def _client(store: Path, factory: pytest.TempPathFactory) -> Iterator[FlaskClient]:
    yield from site_client(store, factory)


def _served(store: Path, factory: pytest.TempPathFactory, name: str) -> Iterator[Live]:
    """A live server over a copy of ``store`` (it holds the copy for writing)."""
    live = Live(copy_store(store, factory.mktemp(name) / "store"))
    yield live
    assert live.stop() == 0


@pytest.fixture(scope="session")
def seeds_site(
    seeds_store: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FlaskClient]:
    yield from _client(seeds_store, tmp_path_factory)


@pytest.fixture(scope="session")
def seeds_server(seeds_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    yield from _served(seeds_store, tmp_path_factory, "seeds-served")


@pytest.fixture(scope="session")
def staggered_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example pages, each ingested at a time of its own (the last one not the latest)."""
    folder = tmp_path_factory.mktemp("staggered") / "store"
    times = ["2026-03-01T08:00:00+00:00", "2026-11-05T17:30:00+00:00", "2026-07-14T12:00:00+00:00"]
    pages = sorted(p for p in EXAMPLES.iterdir() if p.is_file())
    with EmbeddedStore(folder) as store:
        for path, now in zip(pages, times, strict=True):
            assert ingest_file(store, path, now=now).status == "loaded", path
    return folder


@pytest.fixture(scope="session")
def staggered_site(
    staggered_store: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FlaskClient]:
    yield from _client(staggered_store, tmp_path_factory)


@pytest.fixture(scope="session")
def hostile_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The LAION example with its method STEPS renamed to a script tag."""
    pages = tmp_path_factory.mktemp("hostile-pages")
    text = (EXAMPLES / "sota2-prompt-recovery-on-laion.md").read_text(encoding="utf-8")
    (pages / "laion.md").write_text(text.replace("STEPS", HOSTILE), encoding="utf-8")
    return build_store(tmp_path_factory.mktemp("hostile") / "store", pages)


@pytest.fixture(scope="session")
def hostile_site(
    hostile_store: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FlaskClient]:
    yield from _client(hostile_store, tmp_path_factory)


@pytest.fixture(scope="session")
def hostile_server(hostile_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    yield from _served(hostile_store, tmp_path_factory, "hostile-served")


@pytest.fixture(scope="session")
def dated_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two pages whose results carry dates of their own (see support.dated)."""
    return build_dated_store(tmp_path_factory.mktemp("dated"))


@pytest.fixture(scope="session")
def dated_server(dated_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    yield from _served(dated_store, tmp_path_factory, "dated-served")
