"""Stores for the contract tests: each test runs on an embedded store, on a real Oxigraph server
and on a real Virtuoso. ``.ci/run`` starts one of each and names them (BENCHGRAPH_TEST_OXIGRAPH,
BENCHGRAPH_TEST_VIRTUOSO_FOLDER); otherwise each is started here for the session (Virtuoso only
where it is installed: see tests/virtserver.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest
from support import virtserver
from support.oxiserver import OxigraphServer, shared_server, update

from benchgraph.store import Store
from benchgraph.store.embedded import EmbeddedStore
from benchgraph.store.remote import RemoteStore

SERVERS = ["oxigraph", "virtuoso"]


class Remote:
    """A SPARQL server the tests share: its query endpoint, the settings that point
    benchgraph's writes at it, and a way to empty it."""

    def __init__(
        self, url: str, clear: Callable[[], None], settings: Mapping[str, str] | None = None
    ) -> None:
        self.url = url
        self.base = url.rsplit("/", 1)[0]
        self.settings = dict(settings or {})
        self._clear = clear

    def clear(self) -> None:
        self._clear()

    def use(self, monkeypatch: pytest.MonkeyPatch) -> str:
        """Empty it and point benchgraph at it (in this process's environment, which the
        commands the test runs inherit); return its query endpoint."""
        for name, value in self.settings.items():
            monkeypatch.setenv(name, value)
        self.clear()
        return self.url


@pytest.fixture(scope="session")
def remote(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Remote]:
    """The Oxigraph server."""
    url = shared_server()
    if url is not None:
        yield Remote(url, lambda: update(url.rsplit("/", 1)[0], "DROP ALL"))
        return
    server = OxigraphServer(tmp_path_factory.mktemp("oxigraph")).start()
    try:
        yield Remote(server.url, lambda: update(server.base, "DROP ALL"))
    finally:
        server.kill()


@pytest.fixture(scope="session")
def virtuoso(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Remote]:
    """The Virtuoso server."""
    for server in virtserver.virtuoso(tmp_path_factory.mktemp("virtuoso")):
        yield Remote(server.url, server.clear, virtserver.settings(server))


@pytest.fixture(params=SERVERS)
def server(request: pytest.FixtureRequest) -> Remote:
    """Each server (the fixture of that name)."""
    found: Remote = request.getfixturevalue(_fixture(str(request.param)))
    return found


@pytest.fixture
def remote_store(server: Remote, monkeypatch: pytest.MonkeyPatch) -> Iterator[RemoteStore]:
    """An empty remote store on each server (emptied), with quick retries."""
    monkeypatch.setenv("BENCHGRAPH_STORE_RETRIES", "2")
    store = RemoteStore.from_settings(server.use(monkeypatch))
    store.client.backoff = 0.05
    yield store
    store.close()


@pytest.fixture(params=["embedded", *SERVERS])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def location(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> str:
    """Where the store under test is: a folder, or the (emptied) server's URL, benchgraph's
    settings pointing at it."""
    if kind == "embedded":
        return str(tmp_path / "store")
    found: Remote = request.getfixturevalue(_fixture(kind))
    return found.use(monkeypatch)


def _fixture(kind: str) -> str:
    """The fixture of the server ``kind``."""
    return "remote" if kind == "oxigraph" else kind


@pytest.fixture
def any_store(kind: str, location: str) -> Iterator[Store]:
    """An empty store of each kind."""
    store: Store = (
        EmbeddedStore(location) if kind == "embedded" else RemoteStore.from_settings(location)
    )
    yield store
    store.close()
