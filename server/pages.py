"""The write API: curators load and withdraw pages over HTTP, with a token.

Off by default: the routes exist only when the ``write_token_file`` setting names a file that
holds the token (read once, by :func:`read_token`, when the app is made); without it they are
404 like any unknown route. Every request must carry ``Authorization: Bearer <token>``; one
without it, or with another token, is answered 401 in the error shape, and nothing is read or
written. The server is its store's one writer (:class:`server.holding.HeldStore`): each page
is read against the store, planned and written as one write, one at a time, in one transaction
with its catalogue entries, and the answer is sent once the readers see it. Of two identical
pages posted at once, one is ``loaded`` (201) and the other ``unchanged`` (200).

- ``POST /pages[?name=N]``: the body is one page's bytes, its format found from its content as
  at ingest; ``name`` is what messages call it. It passes the gate ``benchgraph ingest`` uses
  (parse, map, SHACL: the :class:`benchgraph.outcomes.Gate` the app is given). 201 loaded,
  with ``Location`` (its source document's resource); 200 unchanged (the same bytes are in
  the store) or kept (a version older than the current one, kept as history only); 422
  refused by the gate, its reasons in ``messages``; 415 no page at all; 413 a body over
  ``max_request_bytes``.
- The alias routes (:mod:`server.aliases`), on the same token.
- ``DELETE /pages/<page>``: the page whose identity is ``page`` (as ``benchgraph remove``
  prints it, ``radar/composet``) is withdrawn with its validation report, as that command
  withdraws it. 200 with what was removed; 404 when the store holds no such page.
"""

from __future__ import annotations

import hmac
import os
import stat

from flask import Blueprint, Flask, Response, current_app, jsonify, request

from benchgraph import iris
from benchgraph.outcomes import Gate, Outcome, Prepared
from benchgraph.settings import SettingError
from benchgraph.store import is_remote
from benchgraph.store.embedded import EmbeddedStore
from server.backend import current
from server.errors import ApiError
from server.holding import HeldStore
from server.workers import WorkerPool

blueprint = Blueprint("pages", __name__)
_TOKEN = "benchgraph.write_token"
_GATE = "benchgraph.gate"
_REALM = 'Bearer realm="benchgraph pages"'
# What messages call a page posted without ?name=.
UNNAMED = "the page sent"


def read_token(path: str, store: str) -> str:
    """The write token in the file at ``path``: its content, stripped.

    Raises SettingError, naming the file and what to do, when ``store`` is remote (the write
    API writes the store the server holds), when the file cannot be read, when its group or
    others may use it (mode & 0o077, as ssh refuses such keys), or when it holds no token.
    """
    setting = "setting write_token_file"
    if is_remote(store):
        raise SettingError(
            f"{setting}: the write API writes the embedded store the server holds, and the "
            f"store is remote ({store}); load pages into a remote store with `benchgraph "
            "ingest --store URL`, and leave write_token_file empty"
        )
    try:
        with open(path, "rb") as file:
            mode = stat.S_IMODE(os.fstat(file.fileno()).st_mode)
            data = file.read()
    except OSError as error:
        raise SettingError(
            f"{setting}: cannot read {path}: {error.strerror}; write the token to a file "
            f"only you can read (chmod 600 {path}) and name that file"
        ) from None
    if mode & 0o077:
        raise SettingError(
            f"{setting}: {path} is open to its group or others (mode {mode:04o}); a token "
            f"file must be its owner's alone: chmod 600 {path}"
        )
    token = data.strip()
    if not token:
        raise SettingError(
            f"{setting}: {path} is empty; write a token to it, e.g. `python3 -c 'import "
            f"secrets; print(secrets.token_urlsafe(32))' > {path}`"
        )
    if not all(0x21 <= byte <= 0x7E for byte in token):
        raise SettingError(
            f"{setting}: {path} holds a token with spaces or characters an HTTP header cannot "
            "carry; write one of ASCII letters, digits and punctuation only"
        )
    return token.decode("ascii")


def enabled() -> bool:
    """Whether the app handling the request has the write API."""
    return _TOKEN in current_app.extensions


def register(app: Flask, token: str, gate: Gate) -> None:
    """Add the write API to ``app``, taking requests that carry ``token`` through ``gate``."""
    app.extensions[_TOKEN] = token
    app.extensions[_GATE] = gate
    app.register_blueprint(blueprint)


def _gate() -> Gate:
    found: Gate = current_app.extensions[_GATE]
    return found


def authorised() -> HeldStore:
    """The store the server holds, once the request is shown to carry the token; else
    ApiError 401. Every route of the write API (these, and :mod:`server.aliases`) asks it
    first."""
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        raise ApiError(
            401,
            "writing needs the write token: send it as Authorization: Bearer <token>",
            {"WWW-Authenticate": _REALM},
        )
    expected = str(current_app.extensions[_TOKEN]).encode()
    if not hmac.compare_digest(given.strip().encode(), expected):
        raise ApiError(
            401,
            "the token sent is not this server's write token",
            {"WWW-Authenticate": f'{_REALM}, error="invalid_token"'},
        )
    pool = current().pool
    pool.start()
    held = pool.held if isinstance(pool, WorkerPool) else None
    if held is None:  # read_token refuses remote stores: a started local pool holds its store
        raise ApiError(404, f"nothing at {request.path}")
    return held


@blueprint.post("/pages")
def load() -> tuple[Response, int] | Response:
    """Load the page of the body, as ``benchgraph ingest`` loads a file."""
    held = authorised()
    origin = request.args.get("name") or UNNAMED
    data = request.get_data()
    gate = _gate()

    def write(store: EmbeddedStore) -> Prepared:
        # Read, planned and written as the one write running: a page posted twice at once is
        # loaded by the first and found unchanged by the second.
        prepared = gate.prepare(store, data, origin)
        if prepared.change is not None:
            store.write(prepared.change)
        return prepared

    prepared = held.write(write)
    if prepared.change is not None:
        held.publish()  # answered once the readers see the page
    return _answer(prepared.outcome, prepared.summary)


def _answer(outcome: Outcome, summary: str) -> tuple[Response, int] | Response:
    """The answer to a page posted, by its outcome; ApiError for a page not written."""
    if outcome.status == "refused" and outcome.not_a_page:
        raise ApiError(415, outcome.message, summary=summary)
    if outcome.status == "refused":
        first = outcome.message.splitlines()[0].removesuffix(":")
        raise ApiError(422, first, messages=list(outcome.reasons), summary=summary)
    if outcome.status not in ("loaded", "restored", "unchanged", "kept"):  # shapes unreadable
        current_app.logger.error("a page posted cannot be validated: %s", outcome.message)
        raise ApiError(503, "pages cannot be validated right now; try again later")
    source = iris.source(outcome.page)
    body = jsonify(
        ok=True,
        outcome=outcome.status,
        summary=summary,
        name=outcome.origin,
        page=outcome.page,
        graph=outcome.graph,
        source=source,
        results=outcome.results,
        warnings=list(outcome.warnings),
        findings=[finding.as_dict() for finding in outcome.findings],
    )
    if outcome.status not in ("loaded", "restored"):  # unchanged, or kept as history
        return body
    backend = current()
    base = backend.id_base()
    local = source.removeprefix(base)
    body.headers["Location"] = f"{backend.base_url()}id/{local}" if local != source else source
    return body, 201


@blueprint.delete("/pages/<path:page>")
def withdraw(page: str) -> Response:
    """Remove the page whose identity is ``page``, as ``benchgraph remove`` removes it."""
    held = authorised()
    gate = _gate()
    removals = held.write(lambda store: gate.withdraw(store, page))
    removed = [r for r in removals if r.status == "removed"]
    if not removed:
        raise ApiError(404, removals[0].message, page=page)
    held.publish()  # answered once the readers no longer see the page
    return jsonify(
        ok=True,
        outcome="removed",
        summary=f"{len(removed)} removed, 0 not found",
        message=f"removed: {removed[0].message}",
        page=removed[0].page,
        graph=removed[0].graph,
        source=iris.source(removed[0].page),
        results=removed[0].results,
    )
