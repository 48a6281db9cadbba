"""The one error path: every failure, from any route, becomes one response shape.

JSON clients get ``{"ok": false, "error": MESSAGE, "status": CODE, ...}`` (some errors add
fields, such as ``parameter`` or ``line`` and ``column``); browsers (clients that rank HTML above
JSON) get an HTML page saying the same. 400 a bad query or parameter, 401 a write without the
write token, 404 nothing there, 405 a method the route does not take, 406 no acceptable format,
413 too large, 415 a body type not taken (or not a page), 422 a page the ingest gate refuses,
503 busy (no query worker free, a long query stopped to make room, a query that needed more
memory than a query worker may use, or a store that cannot be read) or a store not ready for
the query (its audit summaries or report keys missing: :func:`server.named.require_records`),
504 a query past the time limit, 507 a write that met a full disk (not acknowledged: to send
again once there is room). What waitress refuses before the app is answered in the same shape
(:mod:`server.connections`). No answer shows what only the server should know (a file path,
a traceback): the log gets that.
"""

from __future__ import annotations

from flask import Flask, Response, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge
from werkzeug.http import HTTP_STATUS_CODES

from benchgraph import media
from benchgraph.store import StoreError
from server.holding import disk_full
from server.workers import PoolError

# What a write that met a full disk is answered: not acknowledged, whatever became of it.
_FULL = (
    "the server's disk is full: this write is not acknowledged (it may or may not have been "
    "stored); send it again once the server has room (a page sent again is loaded, or is "
    "unchanged if it was stored)"
)


class ApiError(Exception):
    """An error to answer with ``status``; ``fields`` are added to the JSON body."""

    def __init__(
        self,
        status: int,
        message: str,
        headers: dict[str, str] | None = None,
        **fields: object,
    ) -> None:
        """``headers`` are added to the response (``Allow``, ``Retry-After``)."""
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}
        self.fields = fields


def _as_api_error(error: Exception) -> ApiError:
    if isinstance(error, ApiError):
        return error
    if isinstance(error, RequestEntityTooLarge):
        limit = current_app.config.get("MAX_CONTENT_LENGTH")
        return ApiError(413, f"the request is larger than the limit of {limit} bytes")
    if isinstance(error, HTTPException):
        status = error.code or 500
        headers = {k: v for k, v in error.get_headers() if k.lower() in ("allow", "retry-after")}
        return ApiError(status, error.description or HTTP_STATUS_CODES.get(status, ""), headers)
    if disk_full(error):
        current_app.logger.error("a write met a full disk: %s", error)
        return ApiError(507, _FULL, {"Retry-After": "30"})
    if isinstance(error, PoolError):
        headers = {"Retry-After": "1"} if error.status == 503 else {}
        return ApiError(error.status, str(error), headers)
    if isinstance(error, StoreError):
        # Its message names the store's location: for the log, not for clients.
        current_app.logger.error("the store cannot be used: %s", error)
        return ApiError(503, "the store cannot be read right now; try again shortly",
                        {"Retry-After": "5"})  # fmt: skip
    current_app.logger.exception("internal error on %s %s", request.method, request.path)
    return ApiError(500, "internal error: the server could not answer this request")


def shape(status: int, message: str, **fields: object) -> dict[str, object]:
    """The JSON body of an error: ``{"ok": false, "error": message, "status": status}`` and
    ``fields``."""
    return {"ok": False, "error": message, "status": status, **fields}


def handle(error: Exception) -> Response:
    """Turn any exception raised while answering into the error response."""
    api = _as_api_error(error)
    title = HTTP_STATUS_CODES.get(api.status, "Error")
    if media.prefers_html(request.accept_mimetypes):
        page = render_template("error.html", status=api.status, title=title, error=api)
        response = Response(page, api.status, content_type="text/html; charset=utf-8")
    else:
        response = jsonify(shape(api.status, api.message, **api.fields))
        response.status_code = api.status
    response.headers.update(api.headers)
    response.headers["Vary"] = "Accept"
    return response


def register(app: Flask) -> None:
    """Route every exception of ``app`` (HTTP errors included) to :func:`handle`."""
    app.register_error_handler(Exception, handle)
