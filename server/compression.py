"""gzip for text answers: a page, a JSON or CSV answer, RDF in a text syntax, the feed.

An answer is compressed when the client accepts gzip (``Accept-Encoding``), it is whole in
memory (a streamed dump is not: it is written as it is read) and it is text of at least
:data:`SMALLEST` bytes. Its ``ETag`` becomes weak (``W/"…"``), as the compressed bytes are another
representation of the same answer: a client's ``If-None-Match`` then still matches it, since a
GET compares entity tags weakly (RFC 9110, 13.1.2), and is answered 304 as before. Every answer
that could be compressed says ``Vary: Accept-Encoding``.
"""

from __future__ import annotations

import gzip

from flask import Flask, Response, request

# Smaller answers gain less than the header costs.
SMALLEST = 1024
# Fast, and about as small as the slowest level on markup and tables.
LEVEL = 6
_TEXT = ("text/", "application/json", "application/ld+json", "application/sparql-results+")
_TEXT_ENDINGS = ("+xml", "+json", "/xml", "/n-triples", "/n-quads", "/trig")


def is_text(mime: str) -> bool:
    """Whether answers of the media type ``mime`` are text worth compressing."""
    return mime.startswith(_TEXT) or mime.endswith(_TEXT_ENDINGS)


def register(app: Flask) -> None:
    """Compress ``app``'s text answers for the clients that accept gzip."""

    @app.after_request
    def compress(response: Response) -> Response:
        if (
            response.direct_passthrough
            or response.is_streamed
            or not is_text(response.mimetype or "")
        ):
            return response
        response.vary.add("Accept-Encoding")
        accepted = request.accept_encodings["gzip"] > 0
        if not accepted or "Content-Encoding" in response.headers or response.status_code < 200:
            return response
        body = response.get_data()
        if len(body) < SMALLEST:
            return response
        response.set_data(gzip.compress(body, compresslevel=LEVEL, mtime=0))
        response.headers["Content-Encoding"] = "gzip"
        tag, weak = response.get_etag()
        if tag and not weak:
            response.set_etag(tag, weak=True)
        return response
