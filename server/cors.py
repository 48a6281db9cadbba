"""Cross-origin reads (CORS), as the ``cors_origins`` setting says: the one place that sets the
``Access-Control-*`` headers.

- ``*`` (the default): any web page may read the answers (``Access-Control-Allow-Origin: *``);
  the data is public and the endpoint read-only, so YASGUI and the like work from anywhere.
- empty: no CORS header at all; browsers then keep cross-origin pages from reading answers.
- a space-separated list of origins: a request whose ``Origin`` is listed (compared without
  regard to case) gets that origin back; any other gets no ``Access-Control-Allow-Origin``.
  Every answer then carries ``Vary: Origin``, since it depends on that header.

A preflight (``OPTIONS`` with ``Access-Control-Request-Method``, answered by Flask's automatic
``OPTIONS`` response) also gets the methods the route takes, the request headers a page may
send, and how long the browser may remember that. Credentials are never allowed: there is
nothing to log in to.
"""

from __future__ import annotations

from flask import Flask, Response, request

ALLOW_HEADERS = "Accept, Content-Type, If-None-Match, If-Modified-Since"
EXPOSE_HEADERS = "ETag, Last-Modified, Benchgraph-Truncated, Retry-After"
MAX_AGE = "3600"
_METHODS = "GET, POST, OPTIONS"


def allowed_origin(setting: str, origin: str | None) -> str | None:
    """The ``Access-Control-Allow-Origin`` value for a request from ``origin`` under
    ``setting`` (the ``cors_origins`` value), or None for none."""
    listed = setting.split()
    if listed == ["*"]:
        return "*"
    if origin is None:
        return None
    return origin if origin.lower() in {o.lower() for o in listed} else None


def register(app: Flask, setting: str) -> None:
    """Add the CORS headers ``setting`` asks for to every answer of ``app``."""
    listed = setting.split()
    if not listed:
        return

    @app.after_request
    def cross_origin(response: Response) -> Response:
        if listed != ["*"]:
            response.vary.add("Origin")
        value = allowed_origin(setting, request.headers.get("Origin"))
        if value is None:
            return response
        response.headers["Access-Control-Allow-Origin"] = value
        response.headers["Access-Control-Expose-Headers"] = EXPOSE_HEADERS
        if request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers:
            response.headers["Access-Control-Allow-Methods"] = response.headers.get(
                "Allow", _METHODS
            )
            response.headers["Access-Control-Allow-Headers"] = ALLOW_HEADERS
            response.headers["Access-Control-Max-Age"] = MAX_AGE
        return response
