"""Fixtures for the server: stores built from the seeds and the examples, live servers started
as a user starts them (``benchgraph serve`` in its own process, on a free loopback port), and
the Flask test client where a real server is not needed."""

from __future__ import annotations

import json
import shutil
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from email.message import Message
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from live import Live
from support import EXAMPLES, SEEDS, Index

from benchgraph import holder
from benchgraph.store import EmbeddedStore, open_store
from ingest.loader import ingest_file
from server.app import create_app

# A fixed ingest time makes every answer (and so every golden file) repeatable.
INGESTED_AT = "2026-11-29T12:00:00+00:00"


def build_store(folder: Path, pages: Path) -> Path:
    """Ingest every page of ``pages`` into a new store at ``folder``; return ``folder``."""
    with EmbeddedStore(folder) as store:
        for path in sorted(p for p in pages.iterdir() if p.is_file()):
            outcome = ingest_file(store, path, now=INGESTED_AT)
            assert outcome.status == "loaded", outcome.message
    return folder


@pytest.fixture(scope="session")
def seeds_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not SEEDS.is_dir():
        pytest.skip("the seed pages (../shared/seeds) are not beside this checkout")
    return build_store(tmp_path_factory.mktemp("seeds") / "store", SEEDS)


@pytest.fixture(scope="session")
def seeds_index(seeds_store: Path) -> Index:
    """The seeds store's statements (every graph), read directly: the facts answers are held to."""
    with open_store(seeds_store, must_exist=True) as store:  # through its server, if served
        return Index(set(store.quads()))


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
    copy = tmp_path / "store"
    shutil.copytree(examples_store, copy, ignore=shutil.ignore_patterns(*holder.NOT_DATA))
    return copy


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


class Reply:
    """An HTTP answer: status, headers, body (errors included, never raised)."""

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")

    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip()


def fetch(
    url: str,
    data: bytes | None = None,
    method: str | None = None,
    timeout: float = 30,
    **headers: str,
) -> Reply:
    """One HTTP request with urllib; header names are given with underscores."""
    names = {k.replace("_", "-"): v for k, v in headers.items()}
    request = urllib.request.Request(url, data=data, method=method, headers=names)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return Reply(response.status, _lower(response.headers), response.read())
    except urllib.error.HTTPError as error:
        with error:
            return Reply(error.code, _lower(error.headers), error.read())


def _lower(headers: Message) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items()}


def query_url(base: str, **params: str) -> str:
    return f"{base}?{urllib.parse.urlencode(params)}"


@pytest.fixture(scope="session")
def http() -> Any:
    """The HTTP helpers, for tests to use without importing this file."""
    return SimpleNamespace(fetch=fetch, url=query_url, Reply=Reply, Live=Live)
