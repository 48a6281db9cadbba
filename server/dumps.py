"""The dumps: ``/dump.trig``, ``/dump.nq``, ``/dump.ttl``, ``/dump.nt``, ``/dump.jsonld``.

The same documents as ``benchgraph export`` (:mod:`benchgraph.export`). A query worker writes
each dump to a file the first time it is asked for in a store generation (the server never
opens the store for writing); the response streams that file in chunks, with no
``Content-Length`` (chunked transfer encoding), and carries an ``ETag`` and ``Last-Modified``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO

from flask import Blueprint, Response, request
from werkzeug.http import is_resource_modified

from benchgraph import export
from server import media
from server.backend import current
from server.errors import ApiError

blueprint = Blueprint("dumps", __name__)

CHUNK_BYTES = 256 * 1024
DUMPS = {export.suffix(key): media.BY_KEY[key] for key in export.FORMATS.values()}


def _chunks(handle: IO[bytes]) -> Iterator[bytes]:
    with handle:
        while block := handle.read(CHUNK_BYTES):
            yield block


@blueprint.get("/dump.<suffix>")
def dump(suffix: str) -> Response:
    """Stream the whole store in the format the suffix names."""
    chosen = DUMPS.get(suffix)
    if chosen is None:
        offered = ", ".join(f"/dump.{s}" for s in DUMPS)
        raise ApiError(404, f"there is no dump /dump.{suffix}; the dumps are {offered}")
    backend = current()
    backend.pool.start()
    generation = backend.pool.generation
    etag = f"{generation.tag}-{chosen.key}"
    if not is_resource_modified(request.environ, etag=etag, last_modified=generation.modified):
        response = Response(status=304)
    else:
        path = backend.dump_file(chosen.key)
        response = Response(
            _chunks(path.open("rb")), content_type=chosen.content_type, direct_passthrough=True
        )
        response.headers["Content-Disposition"] = f'inline; filename="benchgraph.{suffix}"'
    response.set_etag(etag)
    response.last_modified = generation.modified
    response.headers["Cache-Control"] = "no-cache"
    return response
