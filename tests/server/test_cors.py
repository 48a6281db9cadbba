"""CORS as the ``cors_origins`` setting says, through real servers and a real HTTP client: any
origin by default, none when empty, and only the listed ones (with ``Vary: Origin``) for a list.
Preflights are answered with the route's methods; answers never allow credentials."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchgraph import settings
from benchgraph.store import holder
from server.app import create_app

LISTED = "https://yasgui.example"
OTHER = "https://evil.example"
ASK = "sparql?query=ASK%20%7B%7D"


def copy(store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("cors") / "store"
    shutil.copytree(store, target, ignore=shutil.ignore_patterns(*holder.NOT_DATA))
    return target


@pytest.fixture(scope="module")
def closed(examples_store: Path, tmp_path_factory: pytest.TempPathFactory, http: Any) -> Iterator:
    """A server with CORS off (``--cors-origins ''``)."""
    live = http.Live(copy(examples_store, tmp_path_factory), "--workers", "1", "--cors-origins", "")
    yield live
    assert live.stop() == 0


@pytest.fixture(scope="module")
def listed(examples_store: Path, tmp_path_factory: pytest.TempPathFactory, http: Any) -> Iterator:
    """A server that lets two origins read (given by the environment variable)."""
    origins = f"{LISTED}  http://localhost:3000"
    live = http.Live(
        copy(examples_store, tmp_path_factory),
        "--workers",
        "1",
        env={"BENCHGRAPH_CORS_ORIGINS": origins},
    )
    yield live
    assert live.stop() == 0


def preflight(http: Any, url: str, origin: str) -> Any:
    return http.fetch(
        url,
        method="OPTIONS",
        Origin=origin,
        Access_Control_Request_Method="POST",
        Access_Control_Request_Headers="content-type",
    )


def cors_headers(reply: Any) -> dict[str, str]:
    return {k: v for k, v in reply.headers.items() if k.startswith("access-control-")}


def vary(reply: Any) -> set[str]:
    return {v.strip().lower() for v in reply.headers.get("vary", "").split(",") if v.strip()}


def test_by_default_any_origin_may_read(server: Any, http: Any) -> None:
    for path, status in ((ASK, 200), ("queries/nope", 404), ("queries", 200)):
        reply = http.fetch(server.url + path, Origin=OTHER)
        assert reply.status == status
        assert reply.headers["access-control-allow-origin"] == "*"
        assert "Benchgraph-Truncated" in reply.headers["access-control-expose-headers"]
        assert "access-control-allow-credentials" not in reply.headers
        assert "origin" not in vary(reply)  # the same answer for every origin
    answer = preflight(http, server.sparql, OTHER)
    assert answer.status == 200
    assert answer.headers["access-control-allow-origin"] == "*"
    assert "POST" in answer.headers["access-control-allow-methods"]
    assert "content-type" in answer.headers["access-control-allow-headers"].lower()
    assert int(answer.headers["access-control-max-age"]) > 0
    # The methods are the route's: a named query takes GET only.
    named = preflight(http, server.url + "queries/papers", OTHER)
    assert "GET" in named.headers["access-control-allow-methods"]
    assert "POST" not in named.headers["access-control-allow-methods"]


def test_empty_turns_cors_off(closed: Any, http: Any) -> None:
    replies = [
        http.fetch(closed.url + ASK, Origin=LISTED),
        http.fetch(closed.url + "queries/nope", Origin=LISTED),
        preflight(http, closed.sparql, LISTED),
    ]
    assert [r.status for r in replies] == [200, 404, 200]
    for reply in replies:
        assert cors_headers(reply) == {}


def test_a_list_lets_only_its_origins_read(listed: Any, http: Any) -> None:
    for origin in (LISTED, "http://localhost:3000", LISTED.upper()):
        reply = http.fetch(listed.url + ASK, Origin=origin)
        assert reply.status == 200 and reply.json()["boolean"] is True
        assert reply.headers["access-control-allow-origin"] == origin
        assert {"origin", "accept"} <= vary(reply)
        error = http.fetch(listed.url + "queries/nope", Origin=origin)
        assert error.status == 404 and error.headers["access-control-allow-origin"] == origin
    answer = preflight(http, listed.sparql, LISTED)
    assert answer.headers["access-control-allow-origin"] == LISTED
    assert "POST" in answer.headers["access-control-allow-methods"]
    # An origin not listed, a look-alike and no origin at all: answered, but not for pages.
    for headers in (
        {"Origin": OTHER},
        {"Origin": LISTED + ".evil.example"},
        {"Origin": "null"},
        {},
    ):
        reply = http.fetch(listed.url + ASK, **headers)
        assert reply.status == 200 and reply.json()["boolean"] is True
        assert "access-control-allow-origin" not in reply.headers
        assert "origin" in vary(reply)  # caches must not hand a listed origin's answer over
    refused = preflight(http, listed.sparql, OTHER)
    assert cors_headers(refused) == {}


@pytest.mark.parametrize(
    "value",
    ["https://a.example/", "* https://a.example", "a.example", "https://a.example/path", "ftp://x"],
)
def test_what_is_not_an_origin_is_refused_at_start_up(scratch_store: Path, value: str) -> None:
    with pytest.raises(settings.SettingError, match=r"cors_origins.*is not an origin"):
        create_app({"store": str(scratch_store), "cors_origins": value})


def test_origins_with_ports_and_star_alone_are_settings(scratch_store: Path) -> None:
    for value in ("*", "", "http://localhost:3000 https://a.example"):
        resolved = settings.resolve(("cors_origins",), {"cors_origins": value})
        assert resolved["cors_origins"] == value
