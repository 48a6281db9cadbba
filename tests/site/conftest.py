"""Fixtures for the site: apps over the seed pages, over the examples ingested at different
times and over a page with a hostile method name, and live servers for the browser."""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from support import EXAMPLES, SEEDS

from benchgraph import holder
from benchgraph.store import EmbeddedStore
from ingest.loader import ingest_file
from server.app import create_app

_spec = importlib.util.spec_from_file_location(
    "server_fixtures", Path(__file__).parents[1] / "server" / "conftest.py"
)
assert _spec is not None and _spec.loader is not None
fixtures: Any = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fixtures)

HOSTILE = "<script>alert(1)</script>"


def _client(store: Path, factory: pytest.TempPathFactory) -> Iterator[FlaskClient]:
    """A test client of an app over a copy of ``store``: the app holds its store for writing
    in this process, where the tests read ``store`` itself."""
    copy = factory.mktemp("site") / "store"
    shutil.copytree(store, copy, ignore=shutil.ignore_patterns(*holder.NOT_DATA))
    app = create_app({"store": str(copy), "workers": 1})
    app.config["TESTING"] = True
    yield app.test_client()
    app.extensions["benchgraph"].pool.close()


@pytest.fixture(scope="session")
def seeds_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not SEEDS.is_dir():
        pytest.skip("the seed pages (../shared/seeds) are not beside this checkout")
    return fixtures.build_store(tmp_path_factory.mktemp("seeds") / "store", SEEDS)


seeds_index = fixtures.seeds_index  # the seeds store's statements, read directly


@pytest.fixture(scope="session")
def seeds_site(
    seeds_store: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FlaskClient]:
    yield from _client(seeds_store, tmp_path_factory)


@pytest.fixture(scope="session")
def seeds_server(seeds_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A live server over a copy of the seeds store (it holds the copy for writing)."""
    copy = tmp_path_factory.mktemp("seeds-served") / "store"
    shutil.copytree(seeds_store, copy, ignore=shutil.ignore_patterns(*holder.NOT_DATA))
    live = fixtures.Live(copy)
    yield live
    assert live.stop() == 0


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
    return fixtures.build_store(tmp_path_factory.mktemp("hostile") / "store", pages)


@pytest.fixture(scope="session")
def hostile_site(
    hostile_store: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[FlaskClient]:
    yield from _client(hostile_store, tmp_path_factory)


@pytest.fixture(scope="session")
def hostile_server(hostile_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    copy = tmp_path_factory.mktemp("hostile-served") / "store"
    shutil.copytree(hostile_store, copy, ignore=shutil.ignore_patterns(*holder.NOT_DATA))
    live = fixtures.Live(copy)
    yield live
    assert live.stop() == 0
