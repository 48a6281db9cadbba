"""Fixtures for the server: stores built from the seeds and the examples, live servers started
as a user starts them (``benchgraph serve`` in its own process, on a free loopback port), and
the Flask test client where a real server is not needed."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from support import EXAMPLES, build_store, copy_store
from support.live import Live, Reply, fetch, query_url

from server.app import create_app
from server.engine import Job


@pytest.fixture(scope="session")
def examples_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("examples") / "store", EXAMPLES)


@pytest.fixture(scope="session")
def seeds_server(seeds_store: Path) -> Iterator[Live]:
    live = Live(seeds_store)
    yield live
    assert live.stop() == 0


@pytest.fixture(scope="session")
def server(examples_store: Path) -> Iterator[Live]:
    """The examples served with two query workers and a short time limit."""
    live = Live(examples_store, "--workers", "2")
    yield live
    assert live.stop() == 0


@pytest.fixture
def scratch_store(tmp_path: Path, examples_store: Path) -> Path:
    """A copy of the examples store of its own (the session server holds the original)."""
    return copy_store(examples_store, tmp_path / "store")


@pytest.fixture
def make_app(scratch_store: Path) -> Iterator[object]:
    """A factory of apps over a store of their own; their workers stop after the test."""
    apps: list[Flask] = []

    def make(**config: object) -> Flask:
        app = create_app({"store": str(scratch_store), "workers": 1, **config})
        app.config["TESTING"] = True
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.extensions["benchgraph"].pool.close()


@pytest.fixture
def client(make_app) -> FlaskClient:  # type: ignore[no-untyped-def]
    return make_app().test_client()


@pytest.fixture(scope="session")
def http() -> Any:
    """The HTTP helpers (:mod:`live`), for tests to use without importing them."""
    return SimpleNamespace(fetch=fetch, url=query_url, Reply=Reply, Live=Live)


@pytest.fixture
def counted(make_app: Callable[..., Any]) -> tuple[Any, list[Job]]:
    """An app with two query workers, and the jobs its pool is sent, in order."""
    app = make_app(workers=2)
    backend = app.extensions["benchgraph"]
    sent: list[Job] = []
    run = backend.pool.run

    def counting(job: Job, time_limit: float | None = None) -> Any:
        sent.append(job)
        return run(job, time_limit)

    backend.pool.run = counting
    return app, sent
