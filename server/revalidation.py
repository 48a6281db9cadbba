"""ETags and Last-Modified for the site's pages, so a browser or proxy revalidates a page
without it being drawn again.

A page is a function of the store and of its address: its ``ETag`` is the store generation's tag
(as the dumps' and the feed's are) joined to a digest of the page's full URL and of the server's
version and templates (so an upgraded server draws its pages anew), and its ``Last-Modified`` is
the generation's time. A ``GET`` or ``HEAD`` whose ``If-None-Match`` or ``If-Modified-Since``
still holds is answered 304 before anything is queried or drawn; any other answer of 200 gets
both headers, and ``Cache-Control: no-cache`` (use it, but ask first). The surfaces covered are
the blueprints named in :data:`PAGES` (the site: ``/site``, ``/page/...``, ``/search``,
``/query``; the indexes ``/site/<kind>``; the badges and embeds); the feed, the named
queries, the linked data and the dumps set their own.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from flask import Flask, Response, request
from werkzeug.http import is_resource_modified

import benchgraph
from server.backend import current
from server.generation import Generation

PAGES = frozenset({"site", "indexes", "badges"})
TEMPLATES = Path(__file__).parent / "templates"


def _build() -> str:
    """A digest of the server's version and its templates: what else than the store and the
    address a page is drawn from."""
    digest = hashlib.sha256(benchgraph.__version__.encode())
    for path in sorted(TEMPLATES.rglob("*.html")):
        digest.update(path.relative_to(TEMPLATES).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def _covered() -> bool:
    return request.method in ("GET", "HEAD") and request.blueprint in PAGES


def _generation() -> Generation:
    backend = current()
    backend.pool.start()
    return backend.pool.generation


def tag(generation: Generation, url: str, build: str) -> str:
    """The ETag of the page at ``url`` drawn by the server ``build`` from ``generation``."""
    digest = hashlib.sha256(f"{build}\n{url}".encode()).hexdigest()[:16]
    return f"{generation.tag}-{digest}"


def _mark(response: Response, etag: str, generation: Generation) -> Response:
    response.set_etag(etag)
    response.last_modified = generation.modified
    response.headers["Cache-Control"] = "no-cache"
    return response


def register(app: Flask) -> None:
    """Give ``app``'s pages ETags and Last-Modified, and answer 304 when they still hold.
    Register it after :func:`server.compression.register`, so the tag is set before the
    compressed answer makes it weak."""
    build = _build()

    @app.before_request
    def unchanged() -> Response | None:
        if not _covered():
            return None
        generation = _generation()
        etag = tag(generation, request.url, build)
        if is_resource_modified(request.environ, etag=etag, last_modified=generation.modified):
            return None
        return _mark(Response(status=304), etag, generation)

    @app.after_request
    def marked(response: Response) -> Response:
        if not _covered() or response.status_code != 200 or response.get_etag()[0]:
            return response
        if "no-store" in response.headers.get("Cache-Control", ""):  # a page left incomplete
            return response
        generation = _generation()
        return _mark(response, tag(generation, request.url, build), generation)
