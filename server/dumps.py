"""The dumps: ``/dump.trig``, ``/dump.nq``, ``/dump.ttl``, ``/dump.nt``, ``/dump.jsonld``.

The same documents as ``benchgraph export`` (:mod:`benchgraph.export`): the store as it is now,
and with ``?history=true`` (TriG and N-Quads only, as ``export --history``) every earlier version
of every page too. A query worker writes each dump to a file the first time it is asked for in a
store generation (the server never opens the store for writing); the response streams that file
in chunks, with no ``Content-Length`` (chunked transfer encoding), and carries an ``ETag`` and
``Last-Modified``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO

from flask import Blueprint, Response, request
from werkzeug.http import is_resource_modified

from benchgraph import export, media
from server.backend import current
from server.errors import ApiError

blueprint = Blueprint("dumps", __name__)

CHUNK_BYTES = 256 * 1024
DUMPS = {export.suffix(key): media.BY_KEY[key] for key in export.FORMATS.values()}
# The dumps that can hold the history (``?history=true``): those that keep the named graphs.
HISTORY_DUMPS = tuple(s for s, m in DUMPS.items() if m.key in media.QUAD_FORMATS)
HISTORY_VALUES = {"true": True, "false": False}


def _chunks(handle: IO[bytes]) -> Iterator[bytes]:
    with handle:
        while block := handle.read(CHUNK_BYTES):
            yield block


def _history(suffix: str) -> bool:
    """Whether the request asks for the dump ``/dump.<suffix>`` with its history (its
    ``history`` parameter); ApiError 400 for a value that is neither true nor false, or for
    the parameter on a dump that holds one graph."""
    given = request.args.getlist("history")
    if not given:
        return False
    with_history = " and ".join(f"/dump.{s}?history=true" for s in HISTORY_DUMPS)
    if suffix not in HISTORY_DUMPS:
        raise ApiError(
            400,
            f"history: /dump.{suffix} holds one graph, the merged view, which no earlier version "
            f"of a page enters; the dumps with every version are {with_history}",
            parameter="history",
        )
    if len(given) > 1 or given[0] not in HISTORY_VALUES:
        wrong = (
            f"{given[0]!r} is neither true nor false"
            if len(given) == 1
            else f"given {len(given)} times, where it is taken once"
        )
        raise ApiError(
            400,
            f"history: {wrong}; ask for {with_history}, or leave it out for the store as it is now",
            parameter="history",
        )
    return HISTORY_VALUES[given[0]]


@blueprint.get("/dump.<suffix>")
def dump(suffix: str) -> Response:
    """Stream the whole store in the format the suffix names (with its history if asked)."""
    chosen = DUMPS.get(suffix)
    if chosen is None:
        offered = ", ".join(f"/dump.{s}" for s in DUMPS)
        raise ApiError(404, f"there is no dump /dump.{suffix}; the dumps are {offered}")
    history = _history(suffix)
    backend = current()
    backend.pool.start()
    generation = backend.pool.generation
    etag = f"{generation.tag}-{chosen.key}" + ("-history" if history else "")
    if not is_resource_modified(request.environ, etag=etag, last_modified=generation.modified):
        response = Response(status=304)
    else:
        path = backend.dump_file(chosen.key, history)
        response = Response(
            _chunks(path.open("rb")), content_type=chosen.content_type, direct_passthrough=True
        )
        name = "benchgraph-history" if history else "benchgraph"
        response.headers["Content-Disposition"] = f'inline; filename="{name}.{suffix}"'
    response.set_etag(etag)
    response.last_modified = generation.modified
    response.headers["Cache-Control"] = "no-cache"
    return response
