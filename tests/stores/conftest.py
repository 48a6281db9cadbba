"""Stores for the contract tests: each test runs on an embedded store and on a real Oxigraph
server (``.ci/run`` starts one and names it in BENCHGRAPH_TEST_OXIGRAPH; otherwise one is
started here for the session)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from oxiserver import OxigraphServer, shared_server, update

from benchgraph.remote import RemoteStore
from benchgraph.store import EmbeddedStore, Store


class Remote:
    """The Oxigraph server the tests share: its query endpoint and a way to empty it."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.base = url.rsplit("/", 1)[0]

    def clear(self) -> None:
        update(self.base, "DROP ALL")


@pytest.fixture(scope="session")
def remote(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Remote]:
    url = shared_server()
    if url is not None:
        yield Remote(url)
        return
    server = OxigraphServer(tmp_path_factory.mktemp("oxigraph")).start()
    try:
        yield Remote(server.url)
    finally:
        server.kill()


@pytest.fixture
def remote_store(remote: Remote, monkeypatch: pytest.MonkeyPatch) -> Iterator[RemoteStore]:
    """An empty remote store (the shared server, emptied), with quick retries."""
    monkeypatch.setenv("BENCHGRAPH_STORE_RETRIES", "2")
    remote.clear()
    store = RemoteStore.from_settings(remote.url)
    store.client.backoff = 0.05
    yield store
    store.close()


@pytest.fixture(params=["embedded", "remote"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def location(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """Where the store under test is: a folder, or the (emptied) shared server's URL."""
    if kind == "embedded":
        return str(tmp_path / "store")
    found: Remote = request.getfixturevalue("remote")
    found.clear()
    return found.url


@pytest.fixture
def any_store(kind: str, location: str) -> Iterator[Store]:
    """An empty store of each kind."""
    store: Store = (
        EmbeddedStore(location) if kind == "embedded" else RemoteStore.from_settings(location)
    )
    yield store
    store.close()
