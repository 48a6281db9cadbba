"""A live server, started as a user starts it (``benchgraph serve`` in its own process, on a
free loopback port: :class:`bench.launch.Served`), and plain HTTP requests to it."""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.parse
import urllib.request
from email.message import Message
from pathlib import Path
from typing import Any

from bench.launch import Served, children, running

__all__ = ["TIME_LIMIT", "Live", "Reply", "children", "fetch", "query_url", "running"]

# The live servers stop runaway queries after this long, so the time-out tests stay quick.
TIME_LIMIT = "1.5"


class Live(Served):
    """A ``benchgraph serve`` process with a short query time limit, and the URL it printed
    (``url``; its SPARQL endpoint ``sparql``); ``env`` is added to this process's environment."""

    def __init__(self, store: Path | str, *options: str, env: dict[str, str] | None = None) -> None:
        try:
            super().__init__(
                store, "--query-timeout", TIME_LIMIT, *options, env={**os.environ, **(env or {})}
            )
        except RuntimeError as error:
            raise AssertionError(str(error)) from None
        self.sparql = self.url + "sparql"
        self.store = store


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
