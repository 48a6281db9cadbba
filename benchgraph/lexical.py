"""Terms some SPARQL servers write in answers otherwise than they were sent, put back in the
form benchgraph sent them (the canonical one), so that an answer from any server reads the same.

Virtuoso writes a blank node's label as ``nodeID://b10000`` (no label), a boolean as ``1`` or
``0``, and a time's fraction of a second padded to three digits (``15.780Z`` for ``15.78Z``);
each means the same value, but as RDF terms they differ. An answer written as another server
writes it has none of these, and passes through unchanged.
"""

from __future__ import annotations

import io
import re
from typing import IO, Any

XSD = b"http://www.w3.org/2001/XMLSchema#"
_XSD = re.escape(XSD)
# In SPARQL's JSON results: the value of a blank node, a boolean, a dateTime.
_JSON_BLANK = re.compile(rb'("type"\s*:\s*"bnode"\s*,\s*"value"\s*:\s*")nodeID://')
_JSON_BOOLEAN = re.compile(
    rb'("datatype"\s*:\s*"' + _XSD + rb'boolean"\s*,\s*"value"\s*:\s*")([01])"'
)
_JSON_TIME = re.compile(
    rb'("datatype"\s*:\s*"' + _XSD + rb'dateTime"\s*,\s*"value"\s*:\s*"[^".]*)(\.[0-9]*)'
)
# In N-Triples: a boolean, a dateTime.
_NT_BOOLEAN = re.compile(rb'"([01])"\^\^<' + _XSD + rb"boolean>")
_NT_TIME = re.compile(rb'("[^".]*)(\.[0-9]*)([^"]*"\^\^<' + _XSD + rb"dateTime>)")
_BOOLEANS = {b"1": b"true", b"0": b"false"}
# The most of a streamed answer read (and mended) at once.
_LINE_BYTES = 1 << 20


def _fraction(digits: bytes) -> bytes:
    """A fraction of a second (``.780``) in its canonical form (``.78``; none for ``.000``)."""
    kept = digits.rstrip(b"0")
    return b"" if kept == b"." else kept


def json_answer(body: bytes) -> bytes:
    """``body``, SPARQL JSON results, with its terms in the form they were sent."""
    if b"nodeID://" in body:
        body = _JSON_BLANK.sub(rb"\1", body)
    if b"boolean" in body:
        body = _JSON_BOOLEAN.sub(lambda m: m[1] + _BOOLEANS[m[2]] + b'"', body)
    if b"dateTime" in body:
        body = _JSON_TIME.sub(lambda m: m[1] + _fraction(m[2]), body)
    return body


def ntriples(body: bytes) -> bytes:
    """``body``, N-Triples, with its terms in the form they were sent."""
    if b"boolean" in body:
        body = _NT_BOOLEAN.sub(lambda m: b'"' + _BOOLEANS[m[1]] + b'"^^<' + XSD + b"boolean>", body)
    if b"dateTime" in body:
        body = _NT_TIME.sub(lambda m: m[1] + _fraction(m[2]) + m[3], body)
    return body


class JsonStream(io.RawIOBase):
    """A streamed JSON answer read line by line through :func:`json_answer` (each binding is
    on a line of its own in Virtuoso's answers; no value spans lines in any server's). A line
    may be the whole answer (Oxigraph writes no line breaks): it is read in parts of at most
    _LINE_BYTES, each handed out from an offset, never copied again per read (a form to mend
    split between two parts would pass unmended, but only Virtuoso writes those, on short
    lines)."""

    def __init__(self, response: IO[bytes]) -> None:
        self._response = response
        self._line = b""
        self._at = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._at == len(self._line):
            self._line, self._at = json_answer(self._response.readline(_LINE_BYTES)), 0
        size = min(len(buffer), len(self._line) - self._at)
        buffer[:size] = memoryview(self._line)[self._at : self._at + size]
        self._at += size
        return size


def json_stream(response: IO[bytes]) -> IO[bytes]:
    """``response``, a streamed JSON answer, read through :func:`json_answer`."""
    return io.BufferedReader(JsonStream(response))
